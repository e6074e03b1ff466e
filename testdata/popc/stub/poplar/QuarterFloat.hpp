// Stub: the 8-bit float types are not modelled on the host; codelets that
// include this header without using them build.
#pragma once
namespace poplar {}
