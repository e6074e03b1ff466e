// An explicit specialisation of a function template is refused by name
// (popc would otherwise have to choose between it and the primary template).
#include <poplar/Vertex.hpp>
template <typename T> T twice(T x) { return x + x; }
template <> int twice<int>(int x) { return 2 * x; }
