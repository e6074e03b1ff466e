// Element-wise expressions for popops::map: placeholders _1.._20 standing
// for the input tensors, constants, casts and operator nodes, combined with
// C++ operators (`_1 + 2 * _2`, `Select(_1, _2, _3)`).
//
// An expression is a tree of Expr objects. The library receives it flattened
// in postfix order (prs_expr_node, see capi.h): each node follows its
// operands. Operators the library does not evaluate are reported when the
// expression is flattened, that is, when it is passed to map.
#ifndef PRS_POPOPS_EXPR_HPP
#define PRS_POPOPS_EXPR_HPP

#include <poplar/Type.hpp>
#include <poplar/TypeTraits.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>
#include <popops/ExprOp.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace popops {
namespace expr {

class Expr {
public:
  virtual ~Expr() {}
  virtual std::unique_ptr<Expr> clone() const = 0;
  /// Appends this expression in postfix order, as the C ABI takes it.
  virtual void appendNodes(std::vector<prs_expr_node> &out) const = 0;
};

/// Holds a copy of any expression (expressions are kept by value).
class Any {
public:
  Any(const Expr &e) : expr_(e.clone()) {}
  Any(const Any &other) : expr_(other.expr_->clone()) {}
  Any(Any &&other) = default;
  Any &operator=(const Any &other) {
    expr_ = other.expr_->clone();
    return *this;
  }
  Any &operator=(Any &&other) = default;

  operator const Expr &() const { return *expr_; }

private:
  std::unique_ptr<Expr> expr_;
};

namespace detail {

inline prs_expr_node node(prs_expr_kind kind) {
  prs_expr_node n;
  std::memset(&n, 0, sizeof n);
  n.kind = kind;
  n.type = PRS_FLOAT;
  return n;
}

[[noreturn]] inline void unsupported(const std::string &what) {
  throw poplar::poplar_error("popops::expr: " + what +
                             " is not supported by this implementation (see docs/host-api.md)");
}

/// The library's code for a unary operator; throws for one it lacks.
inline int32_t unaryCode(UnaryOpType op) {
  switch (op) {
  case UnaryOpType::ABSOLUTE:
    return PRS_U_ABS;
  case UnaryOpType::CEIL:
    return PRS_U_CEIL;
  case UnaryOpType::EXPONENT:
    return PRS_U_EXP;
  case UnaryOpType::FLOOR:
    return PRS_U_FLOOR;
  case UnaryOpType::GELU_ERF:
    return PRS_U_GELU_ERF;
  case UnaryOpType::INVERSE:
    return PRS_U_INV;
  case UnaryOpType::LOGARITHM:
    return PRS_U_LOG;
  case UnaryOpType::LOGICAL_NOT:
    return PRS_U_NOT;
  case UnaryOpType::NEGATE:
    return PRS_U_NEG;
  case UnaryOpType::RELU:
    return PRS_U_RELU;
  case UnaryOpType::RSQRT:
    return PRS_U_RSQRT;
  case UnaryOpType::SIGMOID:
    return PRS_U_SIGMOID;
  case UnaryOpType::SIGNUM:
    return PRS_U_SIGNUM;
  case UnaryOpType::SQRT:
    return PRS_U_SQRT;
  case UnaryOpType::SQUARE:
    return PRS_U_SQUARE;
  case UnaryOpType::TANH:
    return PRS_U_TANH;
  case UnaryOpType::ASIN:
    return PRS_U_ASIN;
  case UnaryOpType::BITWISE_NOT:
    return PRS_U_BITWISE_NOT;
  case UnaryOpType::CBRT:
    return PRS_U_CBRT;
  case UnaryOpType::COS:
    return PRS_U_COS;
  case UnaryOpType::COUNT_LEADING_ZEROS:
    return PRS_U_CLZ;
  case UnaryOpType::ERF:
    return PRS_U_ERF;
  case UnaryOpType::EXPONENT_MINUS_ONE:
    return PRS_U_EXPM1;
  case UnaryOpType::EXPONENT2:
    return PRS_U_EXP2;
  case UnaryOpType::IS_FINITE:
    return PRS_U_IS_FINITE;
  case UnaryOpType::IS_INF:
    return PRS_U_IS_INF;
  case UnaryOpType::IS_NAN:
    return PRS_U_IS_NAN;
  case UnaryOpType::LOGARITHM_ONE_PLUS:
    return PRS_U_LOG1P;
  case UnaryOpType::NEARBY_INT:
    return PRS_U_NEARBYINT;
  case UnaryOpType::POPCOUNT:
    return PRS_U_POPCOUNT;
  case UnaryOpType::SIN:
    return PRS_U_SIN;
  case UnaryOpType::TAN:
    return PRS_U_TAN;
  case UnaryOpType::ROUND:
    return PRS_U_ROUND;
  case UnaryOpType::TRUNC:
    return PRS_U_TRUNC;
  default:
    unsupported("unary operator #" + std::to_string(static_cast<int>(op)) + " of UnaryOpType");
  }
}

/// The library's code for a binary operator; throws for one it lacks.
inline int32_t binaryCode(BinaryOpType op) {
  switch (op) {
  case BinaryOpType::ADD:
    return PRS_B_ADD;
  case BinaryOpType::DIVIDE:
    return PRS_B_DIV;
  case BinaryOpType::EQUAL:
    return PRS_B_EQ;
  case BinaryOpType::GREATER_THAN_EQUAL:
    return PRS_B_GE;
  case BinaryOpType::GREATER_THAN:
    return PRS_B_GT;
  case BinaryOpType::LESS_THAN_EQUAL:
    return PRS_B_LE;
  case BinaryOpType::LOGICAL_AND:
    return PRS_B_AND;
  case BinaryOpType::LOGICAL_OR:
    return PRS_B_OR;
  case BinaryOpType::LESS_THAN:
    return PRS_B_LT;
  case BinaryOpType::MAXIMUM:
    return PRS_B_MAX;
  case BinaryOpType::MINIMUM:
    return PRS_B_MIN;
  case BinaryOpType::MULTIPLY:
    return PRS_B_MUL;
  case BinaryOpType::NOT_EQUAL:
    return PRS_B_NE;
  case BinaryOpType::POWER:
    return PRS_B_POW;
  case BinaryOpType::REMAINDER:
    return PRS_B_REM;
  case BinaryOpType::SUBTRACT:
    return PRS_B_SUB;
  case BinaryOpType::ATAN2:
    return PRS_B_ATAN2;
  case BinaryOpType::BITWISE_AND:
    return PRS_B_BITWISE_AND;
  case BinaryOpType::BITWISE_OR:
    return PRS_B_BITWISE_OR;
  case BinaryOpType::BITWISE_XOR:
    return PRS_B_BITWISE_XOR;
  case BinaryOpType::BITWISE_XNOR:
    return PRS_B_BITWISE_XNOR;
  case BinaryOpType::SHIFT_LEFT:
    return PRS_B_SHL;
  case BinaryOpType::SHIFT_RIGHT:
    return PRS_B_SHR;
  case BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND:
    return PRS_B_SHR_SE;
  case BinaryOpType::VARIANCE_TO_INV_STD_DEV:
    return PRS_B_VARIANCE_TO_INV_STD_DEV;
  case BinaryOpType::INV_STD_DEV_TO_VARIANCE:
    return PRS_B_INV_STD_DEV_TO_VARIANCE;
  default:
    unsupported("binary operator #" + std::to_string(static_cast<int>(op)) + " of BinaryOpType");
  }
}

inline void appendBinary(std::vector<prs_expr_node> &out, BinaryOpType op) {
  prs_expr_node n = node(PRS_EXPR_BINARY);
  n.op = binaryCode(op);
  out.push_back(n);
}

} // namespace detail

/// A constant, of the device type matching its C++ type (double: float).
class Const : public Expr {
public:
  template <typename T, typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<T>()>::type>
  Const(T x) : value_(static_cast<double>(x)), type_(poplar::equivalent_device_type<T>().value) {}

  poplar::Type getType() const { return type_; }
  double getDataAsDouble() const { return value_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new Const(*this)); }
  void appendNodes(std::vector<prs_expr_node> &out) const override {
    prs_expr_node n = detail::node(PRS_EXPR_CONST);
    n.value = value_;
    n.type = type_.abiTag();
    out.push_back(n);
  }

protected:
  Const(double value, poplar::Type type) : value_(value), type_(type) {}

private:
  double value_;
  poplar::Type type_;
};

/// A constant of type half.
class ConstHalf : public Const {
public:
  ConstHalf(float x) : Const(static_cast<double>(x), poplar::HALF) {}
};

/// The value of `a` converted to another type.
class Cast : public Expr {
public:
  Cast(const Expr &a, const poplar::Type bType) : a_(a.clone()), bType_(bType) {}
  Cast(const Cast &other) : a_(other.a_->clone()), bType_(other.bType_) {}
  Cast &operator=(const Cast &other) {
    a_ = other.a_->clone();
    bType_ = other.bType_;
    return *this;
  }

  const Expr &getLHS() const { return *a_; }
  poplar::Type getRHSType() const { return bType_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new Cast(*this)); }
  void appendNodes(std::vector<prs_expr_node> &out) const override {
    a_->appendNodes(out);
    prs_expr_node n = detail::node(PRS_EXPR_CAST);
    n.type = bType_.abiTag();
    out.push_back(n);
  }

private:
  std::unique_ptr<Expr> a_;
  poplar::Type bType_;
};

/// Input tensor number `index` (1-based) of map's list.
class PlaceHolder : public Expr {
public:
  PlaceHolder(unsigned index) : index_(index) {}

  unsigned getIndex() const { return index_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new PlaceHolder(*this)); }
  void appendNodes(std::vector<prs_expr_node> &out) const override {
    prs_expr_node n = detail::node(PRS_EXPR_PLACEHOLDER);
    n.index = index_;
    out.push_back(n);
  }

private:
  unsigned index_;
};

const PlaceHolder _1(1);
const PlaceHolder _2(2);
const PlaceHolder _3(3);
const PlaceHolder _4(4);
const PlaceHolder _5(5);
const PlaceHolder _6(6);
const PlaceHolder _7(7);
const PlaceHolder _8(8);
const PlaceHolder _9(9);
const PlaceHolder _10(10);
const PlaceHolder _11(11);
const PlaceHolder _12(12);
const PlaceHolder _13(13);
const PlaceHolder _14(14);
const PlaceHolder _15(15);
const PlaceHolder _16(16);
const PlaceHolder _17(17);
const PlaceHolder _18(18);
const PlaceHolder _19(19);
const PlaceHolder _20(20);

class UnaryOp : public Expr {
public:
  UnaryOp(UnaryOpType type, const Expr &a) : type_(type), a_(a.clone()) {}
  UnaryOp(const UnaryOp &other) : type_(other.type_), a_(other.a_->clone()) {}
  UnaryOp &operator=(const UnaryOp &other) {
    type_ = other.type_;
    a_ = other.a_->clone();
    return *this;
  }

  UnaryOpType getOpType() const { return type_; }
  const Expr &getArg() const { return *a_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new UnaryOp(*this)); }
  void appendNodes(std::vector<prs_expr_node> &out) const override {
    a_->appendNodes(out);
    prs_expr_node n = detail::node(PRS_EXPR_UNARY);
    n.op = detail::unaryCode(type_);
    out.push_back(n);
  }

private:
  UnaryOpType type_;
  std::unique_ptr<Expr> a_;
};

class BinaryOp : public Expr {
public:
  BinaryOp(BinaryOpType type, const Expr &a, const Expr &b) : type_(type), a_(a.clone()), b_(b.clone()) {}
  BinaryOp(const BinaryOp &other) : type_(other.type_), a_(other.a_->clone()), b_(other.b_->clone()) {}
  BinaryOp &operator=(const BinaryOp &other) {
    type_ = other.type_;
    a_ = other.a_->clone();
    b_ = other.b_->clone();
    return *this;
  }

  BinaryOpType getOpType() const { return type_; }
  const Expr &getLHS() const { return *a_; }
  const Expr &getRHS() const { return *b_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new BinaryOp(*this)); }
  void appendNodes(std::vector<prs_expr_node> &out) const override {
    a_->appendNodes(out);
    b_->appendNodes(out);
    detail::appendBinary(out, type_);
  }

private:
  BinaryOpType type_;
  std::unique_ptr<Expr> a_;
  std::unique_ptr<Expr> b_;
};

/// SELECT(a, b, c) is `c ? a : b`; CLAMP(a, lo, hi) is min(max(a, lo), hi).
class TernaryOp : public Expr {
public:
  TernaryOp(TernaryOpType type, const Expr &a, const Expr &b, const Expr &c)
      : type_(type), a_(a.clone()), b_(b.clone()), c_(c.clone()) {}
  TernaryOp(const TernaryOp &other)
      : type_(other.type_), a_(other.a_->clone()), b_(other.b_->clone()), c_(other.c_->clone()) {}
  TernaryOp &operator=(const TernaryOp &other) {
    type_ = other.type_;
    a_ = other.a_->clone();
    b_ = other.b_->clone();
    c_ = other.c_->clone();
    return *this;
  }

  TernaryOpType getOpType() const { return type_; }
  const Expr &getArg0() const { return *a_; }
  const Expr &getArg1() const { return *b_; }
  const Expr &getArg2() const { return *c_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new TernaryOp(*this)); }
  void appendNodes(std::vector<prs_expr_node> &out) const override {
    a_->appendNodes(out);
    b_->appendNodes(out);
    if (type_ == TernaryOpType::SELECT) {
      c_->appendNodes(out);
      out.push_back(detail::node(PRS_EXPR_SELECT));
    } else {
      detail::appendBinary(out, BinaryOpType::MAXIMUM);
      c_->appendNodes(out);
      detail::appendBinary(out, BinaryOpType::MINIMUM);
    }
  }

private:
  TernaryOpType type_;
  std::unique_ptr<Expr> a_;
  std::unique_ptr<Expr> b_;
  std::unique_ptr<Expr> c_;
};

// The named node classes, one per operator.

#define PRS_UNARY_NODE(Name, Op)                                                                                  \
  class Name : public UnaryOp {                                                                                   \
  public:                                                                                                         \
    Name(const Expr &a) : UnaryOp(UnaryOpType::Op, a) {}                                                          \
  };

PRS_UNARY_NODE(Abs, ABSOLUTE)
PRS_UNARY_NODE(Asin, ASIN)
PRS_UNARY_NODE(BitwiseNot, BITWISE_NOT)
PRS_UNARY_NODE(Cbrt, CBRT)
PRS_UNARY_NODE(Ceil, CEIL)
PRS_UNARY_NODE(Cos, COS)
PRS_UNARY_NODE(Erf, ERF)
PRS_UNARY_NODE(Exp, EXPONENT)
PRS_UNARY_NODE(Expm1, EXPONENT_MINUS_ONE)
PRS_UNARY_NODE(Exp2, EXPONENT2)
PRS_UNARY_NODE(Floor, FLOOR)
PRS_UNARY_NODE(GeluErf, GELU_ERF)
PRS_UNARY_NODE(Inv, INVERSE)
PRS_UNARY_NODE(IsFinite, IS_FINITE)
PRS_UNARY_NODE(IsInf, IS_INF)
PRS_UNARY_NODE(IsNaN, IS_NAN)
PRS_UNARY_NODE(Log, LOGARITHM)
PRS_UNARY_NODE(Log1p, LOGARITHM_ONE_PLUS)
PRS_UNARY_NODE(NearbyInt, NEARBY_INT)
PRS_UNARY_NODE(Neg, NEGATE)
PRS_UNARY_NODE(Not, LOGICAL_NOT)
PRS_UNARY_NODE(Round, ROUND)
PRS_UNARY_NODE(Rsqrt, RSQRT)
PRS_UNARY_NODE(Sigmoid, SIGMOID)
PRS_UNARY_NODE(Signum, SIGNUM)
PRS_UNARY_NODE(Sin, SIN)
PRS_UNARY_NODE(Sqrt, SQRT)
PRS_UNARY_NODE(Square, SQUARE)
PRS_UNARY_NODE(Tan, TAN)
PRS_UNARY_NODE(Tanh, TANH)
PRS_UNARY_NODE(Trunc, TRUNC)

#undef PRS_UNARY_NODE

#define PRS_BINARY_NODE(Name, Op)                                                                                 \
  class Name : public BinaryOp {                                                                                  \
  public:                                                                                                         \
    Name(const Expr &a, const Expr &b) : BinaryOp(BinaryOpType::Op, a, b) {}                                      \
  };

PRS_BINARY_NODE(Add, ADD)
PRS_BINARY_NODE(And, LOGICAL_AND)
PRS_BINARY_NODE(Atan2, ATAN2)
PRS_BINARY_NODE(BitwiseAnd, BITWISE_AND)
PRS_BINARY_NODE(BitwiseOr, BITWISE_OR)
PRS_BINARY_NODE(BitwiseXnor, BITWISE_XNOR)
PRS_BINARY_NODE(BitwiseXor, BITWISE_XOR)
PRS_BINARY_NODE(Divide, DIVIDE)
PRS_BINARY_NODE(Equal, EQUAL)
PRS_BINARY_NODE(Gt, GREATER_THAN)
PRS_BINARY_NODE(Gte, GREATER_THAN_EQUAL)
PRS_BINARY_NODE(InvStdDevToVariance, INV_STD_DEV_TO_VARIANCE)
PRS_BINARY_NODE(Lt, LESS_THAN)
PRS_BINARY_NODE(Lte, LESS_THAN_EQUAL)
PRS_BINARY_NODE(Max, MAXIMUM)
PRS_BINARY_NODE(Min, MINIMUM)
PRS_BINARY_NODE(Mul, MULTIPLY)
PRS_BINARY_NODE(NotEqual, NOT_EQUAL)
PRS_BINARY_NODE(Or, LOGICAL_OR)
PRS_BINARY_NODE(Pow, POWER)
PRS_BINARY_NODE(Rem, REMAINDER)
PRS_BINARY_NODE(Shl, SHIFT_LEFT)
PRS_BINARY_NODE(Shr, SHIFT_RIGHT)
PRS_BINARY_NODE(ShrSE, SHIFT_RIGHT_SIGN_EXTEND)
PRS_BINARY_NODE(Sub, SUBTRACT)
PRS_BINARY_NODE(VarianceToInvStdDev, VARIANCE_TO_INV_STD_DEV)

#undef PRS_BINARY_NODE

/// `c ? a : b` element by element.
class Select : public TernaryOp {
public:
  Select(const Expr &a, const Expr &b, const Expr &c) : TernaryOp(TernaryOpType::SELECT, a, b, c) {}
};

/// `a` limited to [lo, hi].
class Clamp : public TernaryOp {
public:
  Clamp(const Expr &a, const Expr &lo, const Expr &hi) : TernaryOp(TernaryOpType::CLAMP, a, lo, hi) {}
};

// C++ operators build nodes; a number on either side becomes a Const.

#define PRS_UNARY_OPERATOR(Name, Sym)                                                                             \
  inline Name operator Sym(const Expr &a) { return Name(a); }

PRS_UNARY_OPERATOR(Neg, -)
PRS_UNARY_OPERATOR(Not, !)
PRS_UNARY_OPERATOR(BitwiseNot, ~)

#undef PRS_UNARY_OPERATOR

#define PRS_BINARY_OPERATOR(Name, Sym)                                                                            \
  inline Name operator Sym(const Expr &a, const Expr &b) { return Name(a, b); }                                   \
  template <typename T>                                                                                           \
  typename std::enable_if<poplar::TypeTraits::isSimpleType<T>(), Name>::type operator Sym(const T & a,            \
                                                                                          const Expr & b) {       \
    return Name(Const(a), b);                                                                                     \
  }                                                                                                               \
  template <typename T>                                                                                           \
  typename std::enable_if<poplar::TypeTraits::isSimpleType<T>(), Name>::type operator Sym(const Expr & a,         \
                                                                                          const T & b) {          \
    return Name(a, Const(b));                                                                                     \
  }

PRS_BINARY_OPERATOR(Add, +)
PRS_BINARY_OPERATOR(Sub, -)
PRS_BINARY_OPERATOR(Mul, *)
PRS_BINARY_OPERATOR(Divide, /)
PRS_BINARY_OPERATOR(Rem, %)
PRS_BINARY_OPERATOR(Lt, <)
PRS_BINARY_OPERATOR(Gt, >)
PRS_BINARY_OPERATOR(Lte, <=)
PRS_BINARY_OPERATOR(Gte, >=)
PRS_BINARY_OPERATOR(Equal, ==)
PRS_BINARY_OPERATOR(NotEqual, !=)
PRS_BINARY_OPERATOR(And, &&)
PRS_BINARY_OPERATOR(Or, ||)
PRS_BINARY_OPERATOR(BitwiseAnd, &)
PRS_BINARY_OPERATOR(BitwiseOr, |)
PRS_BINARY_OPERATOR(BitwiseXor, ^)
PRS_BINARY_OPERATOR(Shl, <<)
PRS_BINARY_OPERATOR(Shr, >>)

#undef PRS_BINARY_OPERATOR

} // namespace expr
} // namespace popops

#endif
