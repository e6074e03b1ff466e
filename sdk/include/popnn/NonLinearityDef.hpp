// The non-linearities of popnn::nonLinearity.
#ifndef PRS_POPNN_NONLINEARITYDEF_HPP
#define PRS_POPNN_NONLINEARITYDEF_HPP

namespace popnn {

/// Softmax variants work along the innermost dimension. GELU is the tanh
/// approximation, GELU_ERF the exact form 0.5 x (1 + erf(x / sqrt 2)).
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
