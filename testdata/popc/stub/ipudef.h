// Stub: IPU definitions used outside `__IPU__` paths.
#pragma once
#include <poplar/TileConstants.hpp>
