#pragma once
#define CTXT_WORKERS 6
#define NUM_WORKERS 6
