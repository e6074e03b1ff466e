// Stub: the hardware-loop count type (a plain unsigned on the host).
#pragma once
typedef unsigned rptsize_t;
