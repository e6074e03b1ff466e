//! Semantic tables: declarations by qualified name, name lookup through
//! namespaces and `using`, type resolution, and class instantiation by
//! substitution (template arguments bound in an [`Env`]).
//!
//! A [`ClassInst`] is one concrete class (a non-template class, or a
//! template with its arguments); vertex classes get their state layout
//! with it.
//!
//! The tables and types are here; the work is in `collect` (declarations),
//! `resolve` (names and types), `instantiate` (templates), `class` (class
//! layout), `spec` (partial specialisation), `ceval` (constant evaluation).

pub mod ceval;
mod class;
mod collect;
mod instantiate;
mod resolve;
mod spec;
pub mod statics;
pub mod types;

use std::cell::RefCell;
use std::rc::Rc;

use linker::gp::{Direction, FieldKind, VertexBase};

use crate::diag::Span;
use crate::front::ast::*;
use crate::hash::HashMap;
use types::Scalar;

/// A compile-time constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CV {
    I(i128),
    F(f64),
}

/// A bound template parameter.
#[derive(Clone, Debug)]
pub enum TVal {
    Type(Ty),
    Const(Scalar, CV),
}

/// Resolved types.
#[derive(Clone, Debug)]
pub enum Ty {
    Void,
    S(Scalar),
    /// Pointer into tile memory.
    Ptr(Box<Ty>),
    Enum(Rc<EnumInfo>),
    Class(Rc<ClassInst>),
    Array(Box<Ty>, u32),
    Auto,
    /// An edge or vector type (`InOut<Vector<T>>`) named through an alias
    /// or a trait: only a vertex field may have it.
    Edge(Box<FieldTy>),
}

impl Ty {
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::S(s) => Some(*s),
            Ty::Enum(e) => Some(e.underlying),
            _ => None,
        }
    }
    /// Size in bytes; at most [`MAX_OBJECT_SIZE`] for every type built
    /// (local arrays are checked where declared, classes in layout).
    pub fn size(&self) -> u32 {
        match self {
            Ty::S(s) => s.size(),
            Ty::Enum(e) => e.underlying.size(),
            Ty::Ptr(_) => 4,
            Ty::Array(t, n) => t.size().saturating_mul(*n),
            Ty::Class(c) => c.size,
            _ => 0,
        }
    }
    pub fn align(&self) -> u32 {
        match self {
            Ty::Array(t, _) => t.align(),
            Ty::Class(c) => c.align,
            t => t.size().max(1),
        }
    }
    /// C++ spelling for names and messages.
    pub fn spell(&self) -> String {
        match self {
            Ty::Void => "void".into(),
            Ty::S(s) => s.name().into(),
            Ty::Ptr(t) => format!("{} *", t.spell()),
            Ty::Enum(e) => e.name.clone(),
            Ty::Class(c) => c.name.clone(),
            Ty::Array(t, n) => format!("{}[{n}]", t.spell()),
            Ty::Auto => "auto".into(),
            Ty::Edge(_) => "edge".into(),
        }
    }
    pub fn same(&self, o: &Ty) -> bool {
        self.spell() == o.spell()
    }
}

#[derive(Debug)]
pub struct EnumInfo {
    pub name: String,
    pub underlying: Scalar,
    pub values: Vec<(String, i128)>,
}

#[derive(Debug)]
pub struct ClassDecl {
    pub ast: Class,
    pub ns: String,
    pub qual: String,
}

#[derive(Clone, Debug)]
pub struct FuncDecl {
    pub ast: Function,
    pub ns: String,
}

/// Where names are looked up: the namespace, template bindings, and the
/// class whose member code this is.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub ns: String,
    pub tb: Rc<HashMap<String, TVal>>,
    pub class: Option<Rc<ClassInst>>,
}

/// A vertex field's type.
#[derive(Clone, Debug)]
pub enum FieldTy {
    Edge { dir: Direction, elem: Scalar, kind: FieldKind },
    Plain(Ty),
}

#[derive(Clone, Debug)]
pub struct FieldInfo {
    pub name: String,
    pub ty: FieldTy,
    pub offset: u32,
    pub size: u32,
    pub is_const: bool,
    /// An edge's `MinAlign` (`Vector<T, L, MinAlign>`) in bytes, when it
    /// asks for more than its element's own alignment; else 0.
    pub min_align: u32,
}

#[derive(Debug)]
pub struct ClassInst {
    pub name: String,
    pub decl: Rc<ClassDecl>,
    pub env: Env,
    /// The primary template's arguments (empty for a plain class): what a
    /// partial specialisation's pattern is matched against.
    pub targs: Vec<TVal>,
    /// The instance of the class template this class is nested in.
    pub outer: Option<Rc<ClassInst>>,
    pub base: Option<VertexBase>,
    pub fields: Vec<FieldInfo>,
    /// Reference members of a helper class: no storage; each object binds
    /// them when its constructor runs (`Lowerer::construct`).
    pub refs: Vec<String>,
    pub size: u32,
    pub align: u32,
    /// A polymorphic class's (one that declares or inherits a virtual
    /// function): the offset of its dynamic-class tag, the hidden field
    /// [`TAG_FIELD`] the constructor sets ([`ClassInst::tag_value`]) and a
    /// virtual call reads. It belongs to the first polymorphic class of
    /// the chain of bases, so every class of the chain finds it there.
    pub tag: Option<u32>,
}

/// The field a helper class's base subobject is laid out as (at offset 0,
/// before the class's own fields); its members are the class's too.
pub const BASE_FIELD: &str = "<base>";

/// The hidden field of a polymorphic class that holds its dynamic class
/// ([`ClassInst::tag`]).
pub const TAG_FIELD: &str = "<tag>";

impl ClassInst {
    /// The type of the base subobject of a helper class deriving from a
    /// helper class or `std::array` (at offset 0, so the object's address
    /// is its base's).
    pub fn helper_base(&self) -> Option<&Ty> {
        match self.fields.first() {
            Some(FieldInfo { name, ty: FieldTy::Plain(t), .. }) if name == BASE_FIELD => Some(t),
            _ => None,
        }
    }

    /// The IPU vector type this class is (`front::vector_types`), if any.
    pub fn vector(&self) -> Option<&'static crate::front::vector_types::VectorType> {
        use crate::front::vector_types::{vector_info, TEMPLATES};
        let built_in = self.decl.ns.is_empty() && TEMPLATES.iter().any(|t| t.0 == self.decl.qual);
        built_in.then(|| vector_info(&self.name)).flatten()
    }

    /// The dynamic-class tag of this class's objects: a hash of its name,
    /// so the same class has the same tag in every vertex and object.
    pub fn tag_value(&self) -> u32 {
        let mut h: u32 = 0x811c_9dc5;
        for b in self.name.bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        h | 1
    }

    /// Whether `self` is `to` or derives from it.
    pub fn derives_from(&self, to: &ClassInst) -> bool {
        if self.name == to.name {
            return true;
        }
        match self.helper_base() {
            Some(Ty::Class(b)) => b.derives_from(to),
            _ => false,
        }
    }

    /// Whether the class declares a constructor that does work.
    pub fn has_ctor(&self) -> bool {
        self.decl.ast.members.iter().any(|m| matches!(m, Member::Ctor(_)))
    }
}

/// The offsets of every dynamic-class tag in an object of type `t` (its
/// own, its members' and its elements'), ascending.
pub fn tag_offsets(t: &Ty, base: u32, out: &mut Vec<u32>) {
    match t {
        Ty::Class(c) => {
            if let Some(o) = c.tag {
                out.push(base + o);
            }
            for f in &c.fields {
                if let FieldTy::Plain(ft) = &f.ty {
                    if f.name != TAG_FIELD {
                        tag_offsets(ft, base + f.offset, out);
                    }
                }
            }
        }
        Ty::Array(et, n) if has_tags(et) => {
            for i in 0..*n {
                tag_offsets(et, base + i * et.size(), out);
            }
        }
        _ => {}
    }
}

/// Whether an object of type `t` holds a dynamic-class tag anywhere.
pub fn has_tags(t: &Ty) -> bool {
    match t {
        Ty::Class(c) => {
            c.tag.is_some()
                || c.fields
                    .iter()
                    .any(|f| matches!(&f.ty, FieldTy::Plain(ft) if f.name != TAG_FIELD && has_tags(ft)))
        }
        Ty::Array(et, _) => has_tags(et),
        _ => false,
    }
}

/// All declarations of a translation unit.
#[derive(Default)]
pub struct Unit {
    pub classes: HashMap<String, Vec<Rc<ClassDecl>>>,
    pub funcs: HashMap<String, Vec<Rc<FuncDecl>>>,
    pub aliases: HashMap<String, (Option<Vec<TParam>>, TypeName, String)>,
    pub enums: HashMap<String, Rc<EnumInfo>>,
    pub enum_consts: HashMap<String, (Rc<EnumInfo>, i128)>,
    pub globals: HashMap<String, (VarDecl, String)>,
    pub using_dirs: Vec<String>,
    pub insts: Vec<(TypeName, String)>,
    pub asserts: Vec<(Span, Expr, Option<String>, String)>,
    pub cache: RefCell<HashMap<String, Rc<ClassInst>>>,
    /// Classes whose instantiation is under way.
    pub building: RefCell<crate::hash::HashSet<String>>,
    /// `NDEBUG` is defined on the command line: `assert` does nothing
    /// (its argument is not evaluated), as with `<cassert>`.
    pub ndebug: bool,
    pub depth: RefCell<u32>,
    /// Values of static constant members already evaluated, by class
    /// instance and member name: each is evaluated once, so recursive
    /// templates (`F<N>::v = F<N-1>::v + F<N-2>::v`) cost linear work.
    pub statics: RefCell<HashMap<(String, String), (Scalar, CV)>>,
    /// Definitions of static data members outside their class
    /// (`float C::m[6] = {…};`, `template <class T> T C<T>::m = 0;` with
    /// its template parameters), by `C::m` qualified from the namespace of
    /// the definition.
    pub static_defs: HashMap<String, (VarDecl, Option<Vec<TParam>>)>,
    /// The codelet object's static storage, laid out as lowering names
    /// each object ([`statics`]).
    pub storage: RefCell<statics::Storage>,
}

pub const MAX_INSTANTIATION_DEPTH: u32 = 64;

/// Class template instances one compilation may build (each counted
/// once): bounds the work of templates that fan out, where memoising
/// does not help (`G<N-1, 2*K>` and `G<N-1, 2*K+1>`). See ARCHITECTURE.md
/// (popc, limits).
pub const MAX_INSTANTIATIONS: usize = 100_000;

/// The largest object (local array or struct, class) in bytes: more than
/// any tile's memory holds (the largest preset tile has 638,976 bytes), and
/// small enough that no size computation overflows. Also the limit on one
/// vertex's stack frame. Documented in ARCHITECTURE.md (popc, limits).
pub const MAX_OBJECT_SIZE: u32 = 1 << 20;

fn qual(ns: &str, name: &str) -> String {
    if ns.is_empty() {
        name.to_string()
    } else {
        // (Not `format!`: names are joined on every lookup.)
        let mut q = String::with_capacity(ns.len() + 2 + name.len());
        q.push_str(ns);
        q.push_str("::");
        q.push_str(name);
        q
    }
}

pub fn spell_tval(v: &TVal) -> String {
    match v {
        TVal::Type(t) => t.spell(),
        TVal::Const(Scalar::Bool, CV::I(i)) => (if *i != 0 { "true" } else { "false" }).into(),
        TVal::Const(_, CV::I(i)) => i.to_string(),
        TVal::Const(_, CV::F(f)) => f.to_string(),
    }
}

/// A written type as text, for messages.
pub fn type_words(t: &TypeName) -> String {
    let base = match &t.kind {
        TypeKind::Scalar(s) => s.name().to_string(),
        TypeKind::Void => "void".into(),
        TypeKind::Auto => "auto".into(),
        TypeKind::Named(p) => p.segs.iter().map(|s| s.name.clone()).collect::<Vec<_>>().join("::"),
        TypeKind::Ptr(i) => format!("{} *", type_words(i)),
        TypeKind::Ref(i) => format!("{} &", type_words(i)),
        TypeKind::Decltype(_) => "decltype(...)".into(),
        TypeKind::Vector(v) => {
            let attr = if v.bytes { "vector_size" } else { "ext_vector_type" };
            format!("{} __attribute__(({attr}(...)))", type_words(&v.elem))
        }
    };
    if t.is_const && !matches!(t.kind, TypeKind::Ptr(_)) {
        format!("const {base}")
    } else {
        base
    }
}

/// The message of a failed `static_assert`.
pub fn assertion_failed(msg: Option<&str>) -> String {
    format!("static assertion failed{}", msg.map(|m| format!(": {m}")).unwrap_or_default())
}
