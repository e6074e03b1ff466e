// poplin::addCodelets: accepted for compatibility. The library's own
// operations need no codelets loaded here; they are compiled with the
// program that uses them.
#ifndef PRS_POPLIN_CODELETS_HPP
#define PRS_POPLIN_CODELETS_HPP

#include <poplar/Graph.hpp>

namespace poplin {

inline void addCodelets(poplar::Graph &graph) { (void)graph; }

} // namespace poplin

#endif
