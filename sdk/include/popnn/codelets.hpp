// popnn::addCodelets: accepted for compatibility. The library's own
// operations need no codelets loaded here; they are compiled with the
// program that uses them.
#ifndef PRS_POPNN_CODELETS_HPP
#define PRS_POPNN_CODELETS_HPP

#include <poplar/Graph.hpp>

namespace popnn {

inline void addCodelets(poplar::Graph &graph) { (void)graph; }

} // namespace popnn

#endif
