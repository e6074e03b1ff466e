// The ways popops::reduce combines elements.
#ifndef PRS_POPOPS_OPERATIONDEF_HPP
#define PRS_POPOPS_OPERATIONDEF_HPP

namespace popops {

/// LOGICAL_AND and LOGICAL_OR take booleans; SQUARE_ADD adds the squares;
/// LOG_ADD (log of a sum of exponentials) is not implemented here.
enum class Operation { ADD, MUL, MIN, MAX, LOGICAL_AND, LOGICAL_OR, SQUARE_ADD, LOG_ADD };

} // namespace popops

#endif
