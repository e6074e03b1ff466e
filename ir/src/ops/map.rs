//! Elementwise expressions: the fused trees `v3 = v1 + exp(v2)` and
//! `popops::map` build, their functions, and the type rules every front
//! end (PIR, the C++ API, Python) checks them by.

use crate::types::ElemType;
use crate::view::View;

/// A node of a fused elementwise expression with its result type.
#[derive(Clone, Debug, PartialEq)]
pub struct MapExpr {
    pub elem: ElemType,
    pub kind: MapKind,
}

impl MapExpr {
    /// Gives every node of a literal-only tree (no type of its own yet)
    /// the type `t`; comparisons and predicates stay `bool`.
    pub fn settle(&mut self, t: ElemType) {
        match &mut self.kind {
            MapKind::Const(_) | MapKind::Input(_) => self.elem = t,
            MapKind::Unary(op, a) => {
                a.settle(t);
                self.elem = if op.is_predicate() { ElemType::Bool } else { t };
            }
            MapKind::Binary(op, a, b) => {
                a.settle(t);
                b.settle(t);
                self.elem = if op.is_comparison() { ElemType::Bool } else { t };
            }
            MapKind::Select(a, b, c) => {
                a.settle(t);
                b.settle(t);
                c.settle(ElemType::Bool);
                self.elem = t;
            }
            MapKind::Cast(_) => {}
        }
    }
}

/// The kinds of [`MapExpr`] nodes.
#[derive(Clone, Debug, PartialEq)]
pub enum MapKind {
    /// A tensor operand: same shape as the output, or one element
    /// (a scalar broadcast over the output).
    Input(View),
    /// A literal, converted to the node's type.
    Const(f64),
    Unary(UnaryOp, Box<MapExpr>),
    Binary(BinaryOp, Box<MapExpr>, Box<MapExpr>),
    /// `cast<T>(x)`: the node's `elem` is `T`.
    Cast(Box<MapExpr>),
    /// `select(a, b, c)`: `c ? a : b`, with `c` a `bool` operand (Poplar's
    /// `popops::expr::Select` and `popops::select`: the condition last).
    Select(Box<MapExpr>, Box<MapExpr>, Box<MapExpr>),
}

/// Elementwise functions of one operand (Poplar's `popops::expr::UnaryOpType`
/// less those the host API writes with others: `SQUARE` is `x * x`,
/// `INVERSE` `1 / x`, `RSQRT` `1 / sqrt(x)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Tanh,
    Sigmoid,
    Relu,
    /// `-1`, `0` or `1` by the sign; `0` for NaN (PopLibs' `(0 < x) - (x < 0)`).
    Signum,
    Floor,
    Ceil,
    /// GELU in its exact form, `0.5 x (1 + erf(x / sqrt 2))`, one rounding.
    GeluErf,
    /// Logical negation of a `bool`.
    Not,
    /// The error function.
    Erf,
    Sin,
    Cos,
    Tan,
    Asin,
    Cbrt,
    /// `exp(x) - 1`, accurate near 0.
    Expm1,
    /// `2^x`.
    Exp2,
    /// `log(1 + x)`, accurate near 0.
    Log1p,
    /// `bool` results: neither infinite nor NaN; infinite; NaN.
    IsFinite,
    IsInf,
    IsNan,
    /// To the nearest integer, ties to even (C's `nearbyint`).
    NearbyInt,
    /// To the nearest integer, ties away from zero (C's `round`).
    Round,
    /// Toward zero (C's `trunc`).
    Trunc,
    /// `~x` of an integer.
    BitNot,
    /// The number of one bits of an integer in its type's width.
    Popcount,
    /// The number of leading zero bits in the type's width (the width for 0).
    Clz,
}

/// Elementwise functions of two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Pow,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// `a % b`: C's `fmod` for floats (the sign of `a`), `a - (a / b) * b`
    /// for integers (division truncating toward zero).
    Rem,
    /// Logical `and` / `or` of `bool` operands.
    And,
    Or,
    /// `atan2(a, b)`: the angle of the point `(b, a)`.
    Atan2,
    /// Bitwise operations of integers; `BitXnor` is `~(a ^ b)`.
    BitAnd,
    BitOr,
    BitXor,
    BitXnor,
    /// Shifts of integers by `b` bits in the type's width: a count at
    /// least the width (or negative) shifts every bit out, giving 0, or,
    /// for `ShrSignExtend`, copies of the sign bit. `Shr` is logical (zeros
    /// shift in), `ShrSignExtend` arithmetic (the top bit shifts in).
    Shl,
    Shr,
    ShrSignExtend,
    /// `1 / sqrt(a + b)`: a variance and an epsilon to an inverse
    /// standard deviation (PopLibs' `VARIANCE_TO_INV_STD_DEV`).
    VarianceToInvStdDev,
    /// `1 / (a * a) - b`: an inverse standard deviation and an epsilon to
    /// a variance (PopLibs' `INV_STD_DEV_TO_VARIANCE`).
    InvStdDevToVariance,
}

/// Which operand types a function takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operands {
    /// Every type, `bool` included.
    Any,
    /// Numbers: not `bool`.
    Numeric,
    /// `float` and `half`.
    Float,
    /// Integers: not `bool`, not floating point.
    Integer,
    /// `bool` only.
    Bool,
}

impl Operands {
    fn accepts(self, t: ElemType) -> bool {
        match self {
            Operands::Any => true,
            Operands::Numeric => t != ElemType::Bool && t != ElemType::Quarter,
            Operands::Float => matches!(t, ElemType::Float | ElemType::Half),
            Operands::Integer => t.int_range().is_some() && !matches!(t, ElemType::Bool | ElemType::Quarter),
            Operands::Bool => t == ElemType::Bool,
        }
    }

    fn need(self) -> &'static str {
        match self {
            Operands::Any => "any",
            Operands::Numeric => "numeric",
            Operands::Float => "`float` or `half`",
            Operands::Integer => "integer",
            Operands::Bool => "`bool`",
        }
    }
}

impl UnaryOp {
    /// Every unary function with its PIR name (unary minus is `neg`).
    pub const ALL: [(UnaryOp, &'static str); 31] = [
        (UnaryOp::Neg, "neg"),
        (UnaryOp::Abs, "abs"),
        (UnaryOp::Exp, "exp"),
        (UnaryOp::Log, "log"),
        (UnaryOp::Sqrt, "sqrt"),
        (UnaryOp::Tanh, "tanh"),
        (UnaryOp::Sigmoid, "sigmoid"),
        (UnaryOp::Relu, "relu"),
        (UnaryOp::Signum, "signum"),
        (UnaryOp::Floor, "floor"),
        (UnaryOp::Ceil, "ceil"),
        (UnaryOp::GeluErf, "gelu_erf"),
        (UnaryOp::Not, "logical_not"),
        (UnaryOp::Erf, "erf"),
        (UnaryOp::Sin, "sin"),
        (UnaryOp::Cos, "cos"),
        (UnaryOp::Tan, "tan"),
        (UnaryOp::Asin, "asin"),
        (UnaryOp::Cbrt, "cbrt"),
        (UnaryOp::Expm1, "expm1"),
        (UnaryOp::Exp2, "exp2"),
        (UnaryOp::Log1p, "log1p"),
        (UnaryOp::IsFinite, "is_finite"),
        (UnaryOp::IsInf, "is_inf"),
        (UnaryOp::IsNan, "is_nan"),
        (UnaryOp::NearbyInt, "nearbyint"),
        (UnaryOp::Round, "round"),
        (UnaryOp::Trunc, "trunc"),
        (UnaryOp::BitNot, "bitwise_not"),
        (UnaryOp::Popcount, "popcount"),
        (UnaryOp::Clz, "count_leading_zeros"),
    ];

    pub fn name(self) -> &'static str {
        UnaryOp::ALL.iter().find(|(o, _)| *o == self).map_or("?", |(_, n)| n)
    }

    pub fn from_name(s: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.iter().find(|(_, n)| *n == s).map(|(o, _)| *o)
    }

    fn operands(self) -> Operands {
        match self {
            UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu | UnaryOp::Signum => Operands::Numeric,
            UnaryOp::Not => Operands::Bool,
            UnaryOp::BitNot | UnaryOp::Popcount | UnaryOp::Clz => Operands::Integer,
            _ => Operands::Float,
        }
    }

    /// Whether the function is only defined for floating-point operands.
    pub fn float_only(self) -> bool {
        self.operands() == Operands::Float
    }

    /// Whether the result is `bool` whatever the operand (`is_nan`, …).
    pub fn is_predicate(self) -> bool {
        matches!(self, UnaryOp::IsFinite | UnaryOp::IsInf | UnaryOp::IsNan)
    }

    /// The result type for an operand of type `t`, or why `t` is refused
    /// (the one rule the PIR lowering, the C++ API and Python share).
    pub fn result(self, t: ElemType) -> Result<ElemType, String> {
        let ops = self.operands();
        if !ops.accepts(t) {
            let article = if ops == Operands::Integer { "an" } else { "a" };
            return Err(format!("`{}` needs {article} {} operand, not `{t}`", self.name(), ops.need()));
        }
        Ok(if self.is_predicate() { ElemType::Bool } else { t })
    }
}

impl BinaryOp {
    /// Every binary function with its spelling: an operator, or a PIR
    /// function name for those written as calls.
    const ALL: [(BinaryOp, &'static str, &'static str); 26] = [
        (BinaryOp::Add, "+", "add"),
        (BinaryOp::Sub, "-", "sub"),
        (BinaryOp::Mul, "*", "mul"),
        (BinaryOp::Div, "/", "div"),
        (BinaryOp::Min, "min", "min"),
        (BinaryOp::Max, "max", "max"),
        (BinaryOp::Pow, "pow", "pow"),
        (BinaryOp::Lt, "<", "lt"),
        (BinaryOp::Le, "<=", "le"),
        (BinaryOp::Gt, ">", "gt"),
        (BinaryOp::Ge, ">=", "ge"),
        (BinaryOp::Eq, "==", "eq"),
        (BinaryOp::Ne, "!=", "ne"),
        (BinaryOp::Rem, "%", "rem"),
        (BinaryOp::And, "logical_and", "and"),
        (BinaryOp::Or, "logical_or", "or"),
        (BinaryOp::Atan2, "atan2", "atan2"),
        (BinaryOp::BitAnd, "bitwise_and", "bitwise_and"),
        (BinaryOp::BitOr, "bitwise_or", "bitwise_or"),
        (BinaryOp::BitXor, "bitwise_xor", "bitwise_xor"),
        (BinaryOp::BitXnor, "bitwise_xnor", "bitwise_xnor"),
        (BinaryOp::Shl, "shift_left", "shift_left"),
        (BinaryOp::Shr, "shift_right", "shift_right"),
        (BinaryOp::ShrSignExtend, "shift_right_sign_extend", "shift_right_sign_extend"),
        (BinaryOp::VarianceToInvStdDev, "variance_to_inv_std_dev", "variance_to_inv_std_dev"),
        (BinaryOp::InvStdDevToVariance, "inv_std_dev_to_variance", "inv_std_dev_to_variance"),
    ];

    /// The spelling: an operator, or a function name for `min max pow …`.
    pub fn name(self) -> &'static str {
        BinaryOp::ALL.iter().find(|(o, ..)| *o == self).map_or("?", |(_, n, _)| n)
    }

    /// A word for names of compute sets (`add`, `lt`, …).
    pub fn word(self) -> &'static str {
        BinaryOp::ALL.iter().find(|(o, ..)| *o == self).map_or("?", |(.., w)| w)
    }

    /// The function written as a call `name(a, b)` in PIR, if any.
    pub fn from_function_name(s: &str) -> Option<BinaryOp> {
        BinaryOp::ALL.iter().find(|(o, n, _)| *n == s && o.is_function()).map(|(o, ..)| *o)
    }

    /// The PIR names of the functions written as calls.
    pub fn function_names() -> impl Iterator<Item = &'static str> {
        BinaryOp::ALL.iter().filter(|(o, ..)| o.is_function()).map(|(_, n, _)| *n)
    }

    /// Whether the result is `bool` (a comparison).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        )
    }

    /// Whether it is written as a function call (`min(a, b)`).
    pub fn is_function(self) -> bool {
        !matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::Eq
                | BinaryOp::Ne
        )
    }

    /// Whether it takes and gives `bool` (`logical_and`, `logical_or`).
    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }

    fn operands(self) -> Operands {
        match self {
            BinaryOp::Eq | BinaryOp::Ne => Operands::Any,
            BinaryOp::Pow
            | BinaryOp::Atan2
            | BinaryOp::VarianceToInvStdDev
            | BinaryOp::InvStdDevToVariance => Operands::Float,
            BinaryOp::And | BinaryOp::Or => Operands::Bool,
            BinaryOp::BitAnd
            | BinaryOp::BitOr
            | BinaryOp::BitXor
            | BinaryOp::BitXnor
            | BinaryOp::Shl
            | BinaryOp::Shr
            | BinaryOp::ShrSignExtend => Operands::Integer,
            _ => Operands::Numeric,
        }
    }

    /// The result type for operands of type `t` (both have it), or why
    /// `t` is refused (shared as [`UnaryOp::result`] is).
    pub fn result(self, t: ElemType) -> Result<ElemType, String> {
        let ops = self.operands();
        if !ops.accepts(t) {
            return Err(format!("`{}` needs {} operands, not `{t}`", self.name(), ops.need()));
        }
        Ok(if self.is_comparison() { ElemType::Bool } else { t })
    }
}

/// An elementwise expression as PIR text; nested binary operators are
/// parenthesised, so the text re-parses to the same tree.
pub fn expr_str(e: &MapExpr, view: &dyn Fn(&View) -> String, top: bool) -> String {
    match &e.kind {
        MapKind::Input(v) => view(v),
        MapKind::Const(c) => match e.elem {
            ElemType::Float | ElemType::Half => crate::print::float_str(*c),
            ElemType::Bool => if *c != 0.0 { "true" } else { "false" }.to_string(),
            _ => format!("{}", *c as i128),
        },
        MapKind::Unary(UnaryOp::Neg, a) => format!("-({})", expr_str(a, view, true)),
        MapKind::Unary(u, a) => format!("{}({})", u.name(), expr_str(a, view, true)),
        MapKind::Binary(b, x, y) if b.is_function() => {
            format!("{}({}, {})", b.name(), expr_str(x, view, true), expr_str(y, view, true))
        }
        MapKind::Binary(b, x, y) => {
            let s = format!("{} {} {}", expr_str(x, view, false), b.name(), expr_str(y, view, false));
            if top {
                s
            } else {
                format!("({s})")
            }
        }
        MapKind::Cast(a) => format!("cast<{}>({})", e.elem.name(), expr_str(a, view, true)),
        MapKind::Select(a, b, c) => format!(
            "select({}, {}, {})",
            expr_str(a, view, true),
            expr_str(b, view, true),
            expr_str(c, view, true)
        ),
    }
}
