// The non-linearities of popnn::nonLinearity.
#ifndef PRS_POPNN_NONLINEARITYDEF_HPP
#define PRS_POPNN_NONLINEARITYDEF_HPP

namespace popnn {

/// Softmax variants work along the innermost dimension. GELU_ERF is not
/// implemented here (it needs erf).
enum class NonLinearityType {
  SIGMOID,
  HARD_SIGMOID,
  RELU,
  TANH,
  GELU,
  GELU_ERF,
  SWISH,
  SOFTMAX,
  SOFTMAX_STABLE,
  SOFTMAX_SCALED
};

} // namespace popnn

#endif
