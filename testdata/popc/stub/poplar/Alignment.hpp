// Stub: alignment helpers are compile-time only; nothing needed on the host.
#pragma once
