//! The syntax tree of a codelet translation unit, as the parser builds it.
//!
//! Names are unresolved paths; template arguments may be types or
//! expressions (`TArg`), resolved in [`crate::sema`]. Every node carries its
//! [`Span`] for diagnostics.

use crate::diag::Span;
use crate::sema::types::Scalar;

pub type P<T> = Box<T>;

#[derive(Clone, Debug)]
pub struct TypeName {
    pub span: Span,
    pub kind: TypeKind,
    pub is_const: bool,
}

#[derive(Clone, Debug)]
pub enum TypeKind {
    Scalar(Scalar),
    Void,
    Auto,
    Named(Path),
    Ptr(P<TypeName>),
    Ref(P<TypeName>),
    /// `decltype(expr)`.
    Decltype(P<Expr>),
    /// A typedef's GCC or clang vector attribute:
    /// `typedef float v4 __attribute__((vector_size(16)))`.
    Vector(P<VectorAttr>),
}

/// A vector attribute and the element type it applies to; sema resolves
/// it to one of the IPU vector types (`crate::front::vector_types`).
#[derive(Clone, Debug)]
pub struct VectorAttr {
    pub elem: TypeName,
    /// The attribute's operand: bytes for `vector_size`, elements for
    /// `ext_vector_type`.
    pub size: Expr,
    /// `vector_size` (the size is in bytes) rather than `ext_vector_type`.
    pub bytes: bool,
}

#[derive(Clone, Debug)]
pub struct Path {
    pub span: Span,
    pub global: bool,
    pub segs: Vec<Seg>,
}

#[derive(Clone, Debug)]
pub struct Seg {
    pub name: String,
    pub args: Option<Vec<TArg>>,
}

impl Path {
    pub fn last(&self) -> &str {
        self.segs.last().map_or("", |s| s.name.as_str())
    }
    /// A path of one name.
    pub fn simple_name(name: &str, span: Span) -> Path {
        Path { span, global: false, segs: vec![Seg { name: name.into(), args: None }] }
    }
    pub fn simple(&self) -> Option<&str> {
        (self.segs.len() == 1 && self.segs[0].args.is_none() && !self.global)
            .then(|| self.segs[0].name.as_str())
    }
}

#[derive(Clone, Debug)]
pub enum TArg {
    Type(TypeName),
    Expr(Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    Comma,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastKind {
    CStyle,
    Static,
    Reinterpret,
    Const,
    Functional,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// Value, unsigned suffix, long suffix, written in hex/octal.
    Int(u64, bool, bool, bool),
    /// Value, `f` suffix.
    Float(f64, bool),
    Bool(bool),
    Char(i64),
    Str(Vec<u8>),
    Name(Path),
    This,
    Unary(UnOp, P<Expr>),
    Binary(BinOp, P<Expr>, P<Expr>),
    Assign(Option<BinOp>, P<Expr>, P<Expr>),
    Cond(P<Expr>, P<Expr>, P<Expr>),
    Call(P<Expr>, Vec<Expr>),
    Index(P<Expr>, P<Expr>),
    Member(P<Expr>, String, bool),
    /// `obj.template f<A>` (or `->`): a member function template named
    /// with explicit arguments, only ever called.
    MemberTemplate(P<Expr>, Seg, bool),
    Cast(CastKind, TypeName, P<Expr>),
    SizeofType(TypeName),
    SizeofExpr(P<Expr>),
    AlignofType(TypeName),
    Lambda(P<Lambda>),
    InitList(Vec<Expr>),
}

#[derive(Clone, Debug)]
pub struct Lambda {
    pub params: Vec<Param>,
    pub ret: Option<TypeName>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub struct VarDecl {
    pub span: Span,
    pub ty: TypeName,
    pub name: String,
    pub dims: Vec<Expr>,
    pub init: Option<Expr>,
    pub is_constexpr: bool,
    pub is_static: bool,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub span: Span,
    pub kind: StmtKind,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Decl(Vec<VarDecl>),
    Expr(Expr),
    If {
        init: Option<P<Stmt>>,
        cond: Expr,
        then: P<Stmt>,
        els: Option<P<Stmt>>,
        is_constexpr: bool,
    },
    For {
        init: Option<P<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: P<Stmt>,
    },
    RangeFor {
        var: VarDecl,
        range: Expr,
        body: P<Stmt>,
    },
    While {
        cond: Expr,
        body: P<Stmt>,
    },
    DoWhile {
        body: P<Stmt>,
        cond: Expr,
    },
    Switch {
        cond: Expr,
        body: P<Stmt>,
    },
    Case(Expr),
    Default,
    Break,
    Continue,
    Return(Option<Expr>),
    Block(Vec<Stmt>),
    StaticAssert(Expr, Option<String>),
    /// A local `struct`/`using`/`enum` declaration.
    Item(P<Item>),
    Empty,
    /// A statement popc parses but cannot compile (inline assembly): an
    /// error, with this message, only if code that runs reaches it, so a
    /// helper written for the IPU alone may sit beside the C++ path.
    Unsupported(String),
}

#[derive(Clone, Debug)]
pub struct Param {
    pub span: Span,
    pub ty: TypeName,
    pub name: Option<String>,
    pub default: Option<Expr>,
}

#[derive(Clone, Debug)]
pub enum TParamKind {
    Type,
    Value(TypeName),
}

#[derive(Clone, Debug)]
pub struct TParam {
    pub name: String,
    pub kind: TParamKind,
    pub default: Option<TArg>,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub span: Span,
    pub name: String,
    pub tparams: Option<Vec<TParam>>,
    pub ret: TypeName,
    pub params: Vec<Param>,
    /// Shared: each call a function is inlined into copies the function,
    /// not its statements.
    pub body: Option<std::rc::Rc<[Stmt]>>,
    pub is_constexpr: bool,
    pub is_static: bool,
    /// A friend function defined in its class (a "hidden friend"): no
    /// member, found through its class when an argument or operand is an
    /// object of that class; `is_static` is set too.
    pub is_friend: bool,
    /// What is written after a member function's parameters and before
    /// its type: `virtual`, `const`, `override`, `final`, `= 0`.
    pub quals: FnQuals,
}

/// A member function's `virtual`, `const`, `override`, `final` and pure
/// specifier (`= 0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FnQuals {
    pub is_virtual: bool,
    pub is_const: bool,
    pub is_override: bool,
    pub is_final: bool,
    pub is_pure: bool,
}

impl FnQuals {
    /// Declared virtual in so many words (`virtual`, `override` or `final`).
    pub fn says_virtual(&self) -> bool {
        self.is_virtual || self.is_override || self.is_final
    }
}

#[derive(Clone, Debug)]
pub struct FieldDecl {
    pub span: Span,
    pub ty: TypeName,
    pub names: Vec<(String, Span, Vec<Expr>)>,
    pub is_static: bool,
    pub is_constexpr: bool,
    pub init: Option<Expr>,
}

#[derive(Clone, Debug)]
pub enum Member {
    Field(FieldDecl),
    Method(Function),
    Item(Item),
    /// A constructor that does work (member initialisers or a body).
    Ctor(Ctor),
}

/// `S(params) : member(args), … { body }` of a helper class.
#[derive(Clone, Debug)]
pub struct Ctor {
    pub span: Span,
    /// A constructor template's parameters (`template <class T> C(T x)`),
    /// deduced from the arguments of each construction.
    pub tparams: Option<Vec<TParam>>,
    pub params: Vec<Param>,
    /// Member initialisers: member name, its span, the arguments.
    pub inits: Vec<(String, Span, Vec<Expr>)>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub struct Class {
    pub span: Span,
    pub name: String,
    pub tparams: Option<Vec<TParam>>,
    pub spec_args: Option<Vec<TArg>>,
    pub bases: Vec<TypeName>,
    pub members: Vec<Member>,
    /// `alignas(N)` written on the class head.
    pub align: Option<u32>,
    /// A `union` rather than a `class` or `struct`.
    pub is_union: bool,
    /// Has a body: a definition, not a forward declaration (`class X;`).
    pub defined: bool,
    /// Declares a virtual destructor (which does nothing: only declared,
    /// defaulted or empty); the class is polymorphic.
    pub virtual_dtor: bool,
}

#[derive(Clone, Debug)]
pub struct EnumDecl {
    pub span: Span,
    pub name: String,
    pub scoped: bool,
    pub underlying: Option<TypeName>,
    pub variants: Vec<(String, Span, Option<Expr>)>,
}

#[derive(Clone, Debug)]
pub enum Item {
    Namespace(String, Vec<Item>),
    Class(Class),
    Function(Function),
    Enum(EnumDecl),
    Alias(Span, String, Option<Vec<TParam>>, TypeName),
    UsingNamespace(Path),
    UsingDecl(Path),
    Var(VarDecl),
    StaticAssert(Span, Expr, Option<String>),
    ExplicitInst(TypeName),
    /// `T C::m[N] = …;` at namespace scope: the definition of static data
    /// member `m` of class `C` (the class's name as written, then the
    /// declaration, named `m`); of a class template's member, `template
    /// <class T> T C<T>::m = …;`, with the definition's parameters.
    StaticMember(String, VarDecl, Option<Vec<TParam>>),
}
