// Stub: IPU definitions used outside `__IPU__` paths: the vector types and
// the `__builtin_ipu_*` built-ins with a plain meaning.
#pragma once
#include <poplar/TileConstants.hpp>
#include <poplar/VectorTypes.hpp>
