// A one-element tensor viewed at another tensor's shape, so that it can be
// an operand of an element-wise map (tensor scales of reduce and
// scaledAddTo).
#ifndef PRS_POPOPS_DETAIL_SCALAROPERAND_HPP
#define PRS_POPOPS_DETAIL_SCALAROPERAND_HPP

#include <poplar/Tensor.hpp>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace popops {
namespace detail {

inline poplar::Tensor broadcastScalar(const poplar::Tensor &scalar, const std::vector<std::size_t> &shape,
                                      const char *what) {
  if (scalar.numElements() != 1)
    throw poplar::poplar_error(std::string(what) + ": the scale must have one element, not " +
                               std::to_string(scalar.numElements()));
  poplar::Tensor view = scalar.reshape(std::vector<std::size_t>(shape.size(), 1));
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1)
      view = view.broadcast(static_cast<unsigned>(shape[d]), static_cast<unsigned>(d));
  return view;
}

} // namespace detail
} // namespace popops

#endif
