//! The syntax tree the grammar builds: PIR as written, with spans.
//!
//! Tensor expressions, index expressions, literals and lists share one
//! [`Expr`] type; the lowering decides from the context what an expression
//! must be (a view, an integer, a literal, an initial value).
//!
//! The tree borrows names from the source text (`'a`) and boxes large or
//! rare parts, so that every node the parser moves around is small (the
//! parser's symbol stack is as wide as its widest node) and a vertex line
//! costs a few small allocations.

use crate::diag::Span;

/// A name with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident<'a> {
    pub name: &'a str,
    pub span: Span,
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item<'a> {
    Target {
        preset: Ident<'a>,
        keys: Vec<(Ident<'a>, Expr<'a>)>,
        span: Span,
    },
    Codelets {
        path: String,
        options: Vec<String>,
        span: Span,
    },
    Decl(Box<Decl<'a>>),
    Map {
        view: Box<Expr<'a>>,
        mapping: Box<MappingAst<'a>>,
        span: Span,
    },
    /// `host_write "h" -> VIEW` / `host_read "h" <- VIEW`.
    HostIo {
        name: String,
        tensor: Box<Expr<'a>>,
        write: bool,
        span: Span,
    },
    Stream {
        name: String,
        ty: Box<TypeAst<'a>>,
        to_host: bool,
        span: Span,
    },
    Remote {
        name: String,
        ty: Box<TypeAst<'a>>,
        repeats: Box<Expr<'a>>,
        span: Span,
    },
    /// The body is taken out (and dropped vertex by vertex) when a top-level
    /// compute set is lowered, to keep the peak memory down.
    ComputeSet {
        name: Ident<'a>,
        body: std::cell::RefCell<Vec<CsItem<'a>>>,
        span: Span,
    },
    Function {
        name: Ident<'a>,
        body: Vec<Stmt<'a>>,
        span: Span,
    },
    Program {
        name: Ident<'a>,
        body: Vec<Stmt<'a>>,
        span: Span,
    },
    For(Box<For<'a, Item<'a>>>),
}

/// `for var in lo..hi { body }`, for items, vertices or statements.
#[derive(Clone, Debug, PartialEq)]
pub struct For<'a, T> {
    pub var: Ident<'a>,
    pub lo: Expr<'a>,
    pub hi: Expr<'a>,
    pub body: Vec<T>,
    pub span: Span,
}

/// `var`/`const` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl<'a> {
    pub is_const: bool,
    pub name: Ident<'a>,
    pub ty: TypeAst<'a>,
    pub mapping: Option<MappingAst<'a>>,
    pub init: Option<Expr<'a>>,
    pub span: Span,
}

/// `float[4, n]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeAst<'a> {
    pub scalar: &'a str,
    pub shape: Vec<Expr<'a>>,
    pub span: Span,
}

/// A mapping as written.
#[derive(Clone, Debug, PartialEq)]
pub enum MappingAst<'a> {
    Tile(Expr<'a>),
    Tiles(Box<Expr<'a>>, Box<Expr<'a>>),
    Linear(Option<Box<(Ident<'a>, Expr<'a>)>>, Span),
}

/// An item of a compute set body.
#[derive(Clone, Debug, PartialEq)]
pub enum CsItem<'a> {
    Vertex(Box<VertexAst<'a>>),
    For(Box<For<'a, CsItem<'a>>>),
}

/// `vertex T @ tile n { fields } cycles c`.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexAst<'a> {
    pub vtype: VType<'a>,
    pub tile: Option<Expr<'a>>,
    pub fields: Vec<FieldAst<'a>>,
    pub cycles: Option<Box<Expr<'a>>>,
    pub span: Span,
}

/// A vertex field `name = value` with the span of the whole.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldAst<'a>(pub Ident<'a>, pub Expr<'a>, pub Span);

/// A vertex type: `a::b<targ, …>`.
#[derive(Clone, Debug, PartialEq)]
pub struct VType<'a> {
    /// The path's segments joined by `::` (borrowed for one segment).
    pub path: std::borrow::Cow<'a, str>,
    pub args: Option<Vec<TArg<'a>>>,
    pub span: Span,
}

/// A template argument.
#[derive(Clone, Debug, PartialEq)]
pub enum TArg<'a> {
    Scalar(&'a str),
    Bool(bool),
    Type(VType<'a>),
    /// An integer expression, or (a bare identifier that is not a loop
    /// variable) a type name.
    Expr(Expr<'a>),
}

/// `block "name" { … }` ([`Stmt::Named`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Named<'a> {
    pub word: Ident<'a>,
    pub name: String,
    pub body: Vec<Stmt<'a>>,
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt<'a> {
    Copy {
        src: Box<Expr<'a>>,
        dst: Box<Expr<'a>>,
        span: Span,
    },
    Execute(Ident<'a>, Span),
    /// `print [poplar] "label" view`.
    Print {
        style: Option<Ident<'a>>,
        label: String,
        view: Box<Expr<'a>>,
        span: Span,
    },
    Repeat {
        count: Box<Expr<'a>>,
        body: Vec<Stmt<'a>>,
        span: Span,
    },
    /// `while { A } p { B }`, or with `!p` (`until`) while `p` is zero.
    While {
        cond: Vec<Stmt<'a>>,
        pred: Box<Expr<'a>>,
        until: bool,
        body: Vec<Stmt<'a>>,
        span: Span,
    },
    If {
        pred: Box<Expr<'a>>,
        then: Vec<Stmt<'a>>,
        else_: Option<Vec<Stmt<'a>>>,
        span: Span,
    },
    Switch {
        selector: Box<Expr<'a>>,
        cases: Vec<Case<'a>>,
        default: Option<Vec<Stmt<'a>>>,
        span: Span,
    },
    Undef(Box<Expr<'a>>, Span),
    Sync(Span),
    Call(Ident<'a>, Span),
    Block(Vec<Stmt<'a>>, Span),
    // `word "name" { … }`: `block "name" { … }`, a named block for the
    // lightweight profiler (the word is checked by the lowering).
    Named(Box<Named<'a>>),
    For(Box<For<'a, Stmt<'a>>>),
    /// `tiles a..b, c..d { … }`: the library operations of the body place
    /// their work on these tiles only.
    OnTiles {
        ranges: Vec<(Expr<'a>, Expr<'a>)>,
        body: Vec<Stmt<'a>>,
        span: Span,
    },
    // `t = expr`, or with `op` `t op= expr` (a library operation).
    Assign {
        target: Box<Expr<'a>>,
        op: Option<BinOp>,
        value: Box<Expr<'a>>,
        span: Span,
    },
    // `word t value`: `fill t 0.0` (the word is checked by the lowering).
    Fill {
        word: Ident<'a>,
        target: Box<Expr<'a>>,
        value: Box<Expr<'a>>,
        span: Span,
    },
    // `f(args)` as a statement: `dynamic_update(t, s, off, dims = [0], sizes = [1])`.
    OpCall(Box<(Ident<'a>, Vec<Arg<'a>>)>, Span),
}

/// A comparison in an operation's expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// `case v { body }` of a `switch`.
pub type Case<'a> = (Expr<'a>, Vec<Stmt<'a>>, Span);

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
pub enum Sub<'a> {
    Index(Expr<'a>),
    Slice(Box<(Option<Expr<'a>>, Option<Expr<'a>>, Option<Expr<'a>>)>),
}

/// A call argument, positional or `name = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg<'a> {
    pub name: Option<Ident<'a>>,
    pub value: Expr<'a>,
}

/// An expression: view, integer, literal or list.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr<'a> {
    pub kind: ExprKind<'a>,
    pub span: Span,
}

/// The kinds of [`Expr`].
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind<'a> {
    Int(u64),
    Float(f64),
    Bool(bool),
    Str(String),
    Name(&'a str),
    /// `target.num_tiles`: a target property (the name after the dot).
    TargetProp(&'a str),
    Neg(Box<Expr<'a>>),
    Bin(BinOp, Box<Expr<'a>>, Box<Expr<'a>>),
    Call(Box<(Ident<'a>, Vec<Arg<'a>>)>),
    Index(Box<Expr<'a>>, Vec<Sub<'a>>),
    List(Vec<Expr<'a>>),
    /// `a < b` and the other comparisons (operation right-hand sides only).
    Compare(CmpOp, Box<Expr<'a>>, Box<Expr<'a>>),
    /// `cast<T>(x)` (operation right-hand sides only).
    Cast(&'a str, Box<Expr<'a>>),
}

/// The parser's symbol stack is as wide as its widest node, so keep the
/// nodes it moves around small (large or rare parts are boxed).
#[cfg(all(test, target_pointer_width = "64"))]
mod size_tests {
    use super::*;
    use std::mem::size_of;

    #[test]
    fn nodes_stay_small() {
        assert!(size_of::<Expr<'_>>() <= 40);
        assert!(size_of::<Sub<'_>>() <= 40);
        assert!(size_of::<FieldAst<'_>>() <= 72);
        assert!(size_of::<Item<'_>>() <= 72);
        assert!(size_of::<Stmt<'_>>() <= 72);
        assert!(size_of::<CsItem<'_>>() <= 16);
        assert!(size_of::<VType<'_>>() <= 56);
    }
}
