// Stub: IEEE half is the stub `half` of HalfFloat.hpp.
#pragma once
#include "HalfFloat.hpp"
