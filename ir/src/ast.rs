//! The syntax tree the grammar builds: PIR as written, with spans.
//!
//! Tensor expressions, index expressions, literals and lists share one
//! [`Expr`] type; the lowering decides from the context what an expression
//! must be (a view, an integer, a literal, an initial value).

use crate::diag::Span;

/// A name with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Target { preset: Ident, keys: Vec<(Ident, Expr)>, span: Span },
    Codelets { path: String, options: Vec<String>, span: Span },
    Decl(Box<Decl>),
    Map { view: Expr, mapping: MappingAst, span: Span },
    HostIo { name: String, tensor: Ident, write: bool, span: Span },
    Stream { name: String, ty: TypeAst, to_host: bool, span: Span },
    Remote { name: String, ty: TypeAst, repeats: Expr, span: Span },
    ComputeSet { name: Ident, body: Vec<CsItem>, span: Span },
    Function { name: Ident, body: Vec<Stmt>, span: Span },
    Program { name: Ident, body: Vec<Stmt>, span: Span },
    For(For<Item>),
}

/// `for var in lo..hi { body }`, for items, vertices or statements.
#[derive(Clone, Debug, PartialEq)]
pub struct For<T> {
    pub var: Ident,
    pub lo: Expr,
    pub hi: Expr,
    pub body: Vec<T>,
    pub span: Span,
}

/// `var`/`const` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub is_const: bool,
    pub name: Ident,
    pub ty: TypeAst,
    pub mapping: Option<MappingAst>,
    pub init: Option<Expr>,
    pub span: Span,
}

/// `float[4, n]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeAst {
    pub scalar: String,
    pub shape: Vec<Expr>,
    pub span: Span,
}

/// A mapping as written.
#[derive(Clone, Debug, PartialEq)]
pub enum MappingAst {
    Tile(Expr),
    Tiles(Expr, Expr),
    Linear(Option<(Ident, Expr)>, Span),
}

/// An item of a compute set body.
#[derive(Clone, Debug, PartialEq)]
pub enum CsItem {
    Vertex(Box<VertexAst>),
    For(For<CsItem>),
}

/// `vertex T @ tile n { fields } cycles c`.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexAst {
    pub vtype: VType,
    pub tile: Option<Expr>,
    pub fields: Vec<(Ident, Expr, Span)>,
    pub cycles: Option<Expr>,
    pub span: Span,
}

/// A vertex type: `a::b<targ, …>`.
#[derive(Clone, Debug, PartialEq)]
pub struct VType {
    pub path: Vec<String>,
    pub args: Option<Vec<TArg>>,
    pub span: Span,
}

/// A template argument.
#[derive(Clone, Debug, PartialEq)]
pub enum TArg {
    Scalar(String),
    Bool(bool),
    Type(VType),
    /// An integer expression, or (a bare identifier that is not a loop
    /// variable) a type name.
    Expr(Expr),
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Copy { src: Expr, dst: Expr, span: Span },
    Execute(Ident, Span),
    Print { label: String, view: Expr, span: Span },
    Repeat { count: Expr, body: Vec<Stmt>, span: Span },
    While { cond: Vec<Stmt>, pred: Expr, body: Vec<Stmt>, span: Span },
    If { pred: Expr, then: Vec<Stmt>, else_: Option<Vec<Stmt>>, span: Span },
    Switch { selector: Expr, cases: Vec<(Expr, Vec<Stmt>, Span)>, default: Option<Vec<Stmt>>, span: Span },
    Undef(Expr, Span),
    Sync(Span),
    Call(Ident, Span),
    Block(Vec<Stmt>, Span),
    For(For<Stmt>),
}

/// A binary operator of integer expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// A subscript `i` or `a:b:s`.
#[derive(Clone, Debug, PartialEq)]
pub enum Sub {
    Index(Expr),
    Slice(Option<Expr>, Option<Expr>, Option<Expr>),
}

/// A call argument, positional or `name = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
}

/// An expression: view, integer, literal or list.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// The kinds of [`Expr`].
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(u64),
    Float(f64),
    Bool(bool),
    Str(String),
    Name(String),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Call(Ident, Vec<Arg>),
    Index(Box<Expr>, Vec<Sub>),
    List(Vec<Expr>),
}
