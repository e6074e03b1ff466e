// Stub of Poplar's field-type header for g++ builds: the layouts live in
// the stub Vertex.hpp, as popc knows them without this header.
#pragma once
#include "Vertex.hpp"
