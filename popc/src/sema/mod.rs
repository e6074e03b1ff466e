//! Semantic tables: declarations by qualified name, name lookup through
//! namespaces and `using`, type resolution, and class instantiation by
//! substitution (template arguments bound in an [`Env`]).
//!
//! A [`ClassInst`] is one concrete class (a non-template class, or a
//! template with its arguments); vertex classes get their state layout here.

pub mod ceval;
mod spec;
pub mod types;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use linker::gp::{Direction, FieldKind, Layout, VertexBase};

use crate::diag::{err, Diagnostic, Result, Span};
use crate::front::ast::*;
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

#[derive(Debug)]
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
}

impl ClassInst {
    /// Whether the class declares a constructor that does work.
    pub fn has_ctor(&self) -> bool {
        self.decl.ast.members.iter().any(|m| matches!(m, Member::Ctor(_)))
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
    pub building: RefCell<std::collections::HashSet<String>>,
    /// `NDEBUG` is defined on the command line: `assert` does nothing
    /// (its argument is not evaluated), as with `<cassert>`.
    pub ndebug: bool,
    pub depth: RefCell<u32>,
    /// Values of static constant members already evaluated, by class
    /// instance and member name: each is evaluated once, so recursive
    /// templates (`F<N>::v = F<N-1>::v + F<N-2>::v`) cost linear work.
    pub statics: RefCell<HashMap<(String, String), (Scalar, CV)>>,
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
        format!("{ns}::{name}")
    }
}

impl Unit {
    pub fn collect(&mut self, items: &[Item], ns: &str) -> Result<()> {
        for it in items {
            match it {
                Item::Namespace(n, inner) => {
                    let sub = if n.is_empty() { ns.to_string() } else { qual(ns, n) };
                    self.collect(inner, &sub)?;
                }
                Item::Class(c) => self.add_class(c, ns)?,
                Item::Function(f) => {
                    self.funcs
                        .entry(qual(ns, &f.name))
                        .or_default()
                        .push(Rc::new(FuncDecl { ast: f.clone(), ns: ns.to_string() }));
                }
                Item::Enum(e) => self.add_enum(e, ns, &Env { ns: ns.into(), ..Env::default() })?,
                Item::Alias(_, n, tp, ty) => {
                    self.aliases.insert(qual(ns, n), (tp.clone(), ty.clone(), ns.to_string()));
                }
                Item::UsingNamespace(p) => {
                    let name: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
                    self.using_dirs.push(name.join("::"));
                }
                Item::UsingDecl(p) => {
                    let target: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
                    let target = target.join("::");
                    if let Some(f) = self.funcs.get(&target).cloned() {
                        self.funcs.insert(qual(ns, p.last()), f);
                    }
                    if let Some(c) = self.classes.get(&target).cloned() {
                        self.classes.insert(qual(ns, p.last()), c);
                    }
                }
                Item::Var(v) => {
                    self.globals.insert(qual(ns, &v.name), (v.clone(), ns.to_string()));
                }
                Item::StaticAssert(s, e, m) => self.asserts.push((*s, e.clone(), m.clone(), ns.to_string())),
                Item::ExplicitInst(t) => self.insts.push((t.clone(), ns.to_string())),
            }
        }
        Ok(())
    }

    fn add_class(&mut self, c: &Class, ns: &str) -> Result<()> {
        let q = qual(ns, &c.name);
        if c.members.is_empty() && c.bases.is_empty() && c.tparams.is_none() && self.classes.contains_key(&q)
        {
            return Ok(());
        }
        for m in &c.members {
            if let Member::Item(it) = m {
                match it {
                    Item::Class(inner) => self.add_class(inner, &q)?,
                    Item::Enum(e) => self.add_enum(e, &q, &Env { ns: ns.into(), ..Env::default() })?,
                    _ => {}
                }
            }
        }
        self.classes.entry(q.clone()).or_default().push(Rc::new(ClassDecl {
            ast: c.clone(),
            ns: ns.to_string(),
            qual: q,
        }));
        Ok(())
    }

    fn add_enum(&mut self, e: &EnumDecl, ns: &str, env: &Env) -> Result<()> {
        let underlying = match &e.underlying {
            Some(t) => match self.resolve_type(t, env)? {
                Ty::S(s) if !s.is_float() => s,
                _ => return err(t.span, "enum underlying type must be an integer type"),
            },
            None => Scalar::Int,
        };
        let mut values: Vec<(String, i128)> = Vec::new();
        let mut next = 0i128;
        let q = qual(ns, &e.name);
        for (n, _, v) in &e.variants {
            if let Some(v) = v {
                // Earlier enumerators are visible by name.
                let mut tb = (*env.tb).clone();
                for (pn, pv) in &values {
                    tb.insert(pn.clone(), TVal::Const(underlying, CV::I(*pv)));
                }
                let env2 = Env { tb: Rc::new(tb), ..env.clone() };
                next = match ceval::eval(self, v, &env2)? {
                    (_, CV::I(i)) => i,
                    (_, CV::F(f)) => f as i128,
                };
            }
            values.push((n.clone(), next));
            next += 1;
        }
        let info = Rc::new(EnumInfo { name: q.clone(), underlying, values: values.clone() });
        for (n, v) in values {
            self.enum_consts.insert(qual(&q, &n), (info.clone(), v));
            if !e.scoped {
                self.enum_consts.insert(qual(ns, &n), (info.clone(), v));
            }
        }
        self.enums.insert(q, info);
        Ok(())
    }

    /// Candidate qualified names for `name` seen from namespace `ns`.
    pub fn candidates(&self, ns: &str, name: &str, global: bool) -> Vec<String> {
        let mut out = Vec::new();
        if !global {
            let mut scope = ns.to_string();
            loop {
                out.push(qual(&scope, name));
                if scope.is_empty() {
                    break;
                }
                scope = scope.rfind("::").map_or(String::new(), |i| scope[..i].to_string());
            }
            for u in &self.using_dirs {
                out.push(qual(u, name));
            }
        } else {
            out.push(name.to_string());
        }
        // `std::` and `poplar::` name the built-in library.
        for p in ["std::", "poplar::", "::std::"] {
            if let Some(rest) = name.strip_prefix(p) {
                out.push(rest.to_string());
            }
        }
        out
    }

    pub fn find_class(&self, env: &Env, name: &str, global: bool) -> Option<Vec<Rc<ClassDecl>>> {
        if let Some(c) = &env.class {
            let q = qual(&c.decl.qual, name);
            if let Some(v) = self.classes.get(&q) {
                return Some(v.clone());
            }
        }
        self.candidates(&env.ns, name, global).iter().find_map(|q| self.classes.get(q).cloned())
    }

    /// Resolves a written type in an environment.
    pub fn resolve_type(&self, t: &TypeName, env: &Env) -> Result<Ty> {
        let _level = crate::diag::deeper(t.span)?;
        Ok(match &t.kind {
            TypeKind::Scalar(s) => Ty::S(*s),
            TypeKind::Void => Ty::Void,
            TypeKind::Auto => Ty::Auto,
            TypeKind::Ptr(inner) => {
                let i = self.resolve_type(inner, env)?;
                if let Ty::Class(c) = &i {
                    if c.base.is_some() {
                        return err(t.span, "pointers to vertices are not supported");
                    }
                }
                Ty::Ptr(Box::new(i))
            }
            TypeKind::Ref(inner) => self.resolve_type(inner, env)?,
            TypeKind::Decltype(_) => return err(t.span, "'decltype' is not supported here"),
            TypeKind::Named(p) => self.resolve_named(p, env)?,
        })
    }

    fn resolve_named(&self, p: &Path, env: &Env) -> Result<Ty> {
        let full: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
        let name = full.join("::");
        let last = p.segs.last().unwrap();
        if p.segs.len() == 1 && !p.global {
            if let Some(v) = env.tb.get(&name) {
                return match v {
                    TVal::Type(t) => Ok(t.clone()),
                    TVal::Const(..) => err(p.span, format!("'{name}' is a value, not a type")),
                };
            }
        }
        let bare = name.trim_start_matches("std::").trim_start_matches("poplar::");
        let s = match bare {
            // Poplar's host-side IEEE half class: the same values as `half`.
            "half" | "IeeeHalf" => Some(Scalar::Half),
            "quarter" => Some(Scalar::Quarter),
            "size_t" | "uint32_t" | "uintptr_t" => Some(Scalar::UInt),
            "int32_t" | "ptrdiff_t" | "intptr_t" => Some(Scalar::Int),
            "int8_t" => Some(Scalar::SChar),
            "uint8_t" => Some(Scalar::UChar),
            "int16_t" => Some(Scalar::Short),
            "uint16_t" => Some(Scalar::UShort),
            "int64_t" => Some(Scalar::Long),
            "uint64_t" => Some(Scalar::ULong),
            _ => None,
        };
        if let Some(s) = s {
            return Ok(Ty::S(s));
        }
        if matches!(bare, "half2" | "half4" | "float2" | "float4" | "int2" | "int4" | "short2" | "short4") {
            return err(p.span, format!("vector type '{bare}' is not supported in codelets"));
        }
        match bare {
            "conditional" | "conditional_t" => {
                let args = last.args.as_ref().filter(|a| a.len() == 3);
                let Some(args) = args else { return err(p.span, "std::conditional takes 3 arguments") };
                let c = self.targ_const(&args[0], env)?;
                return self.targ_type(&args[if c.1 != CV::I(0) { 1 } else { 2 }], env);
            }
            "enable_if" | "enable_if_t" => {
                let args = last.args.clone().unwrap_or_default();
                return match args.get(1) {
                    Some(a) => self.targ_type(a, env),
                    None => Ok(Ty::Void),
                };
            }
            "remove_const" | "make_unsigned" => {
                let args = last.args.clone().unwrap_or_default();
                let t = match args.first() {
                    Some(a) => self.targ_type(a, env)?,
                    None => return err(p.span, "missing template argument"),
                };
                if bare == "make_unsigned" {
                    if let Ty::S(s) = t {
                        return Ok(Ty::S(s.to_unsigned()));
                    }
                }
                return Ok(t);
            }
            "array" if p.segs.len() == 1 || full[0] == "std" => {
                // `std::array<T, N>`: an array that copies as a value.
                let args = last.args.as_ref().filter(|a| a.len() == 2);
                let Some(args) = args else { return err(p.span, "std::array takes 2 template arguments") };
                let t = self.targ_type(&args[0], env)?;
                let n = match self.targ_const(&args[1], env)? {
                    (_, CV::I(n)) if (1..=i128::from(MAX_OBJECT_SIZE)).contains(&n) => n as u32,
                    _ => return err(p.span, "std::array size must be between 1 and 1048576"),
                };
                if u64::from(t.size()) * u64::from(n) > u64::from(MAX_OBJECT_SIZE) {
                    return err(
                        p.span,
                        format!(
                            "std::array is too large (the limit for one object is {MAX_OBJECT_SIZE} bytes)"
                        ),
                    );
                }
                return Ok(Ty::Array(Box::new(t), n));
            }
            "Input" | "Output" | "InOut" | "Vector" | "VectorList" => {
                let t = TypeName { span: p.span, kind: TypeKind::Named(p.clone()), is_const: false };
                return Ok(Ty::Edge(Box::new(self.field_type(&t, env, bare, true)?)));
            }
            _ => {}
        }
        // `Class<args>::member`: a member alias or a nested class of the
        // instantiated class; `Trait<args>::type` of a built-in trait is
        // the type the trait names (std::conditional<..>::type).
        if p.segs.len() >= 2 {
            let mut q = p.clone();
            q.segs.pop();
            let prefix = TypeName { span: p.span, kind: TypeKind::Named(q), is_const: false };
            match self.resolve_type(&prefix, env) {
                Ok(Ty::Class(c)) => return self.class_member_type(&c, last, env, p.span),
                Ok(t) if last.name == "type" => return Ok(t),
                Ok(t) => return err(p.span, format!("'{}' has no member type '{}'", t.spell(), last.name)),
                Err(e) if e.is_limit() => return Err(e),
                Err(_) => {}
            }
        }
        // Member alias of the current class (never a template-id: in
        // `using AccType = AccType<T>;` the right side is the namespace's).
        if let Some(c) = &env.class {
            if p.segs.len() == 1 && last.args.is_none() {
                if let Some(t) = self.member_alias(c, &name)? {
                    return Ok(t);
                }
            }
            // A member alias template (`template <class T> using Out = ...`).
            if let (1, Some(args)) = (p.segs.len(), &last.args) {
                for m in &c.decl.ast.members {
                    if let Member::Item(Item::Alias(_, n, Some(tp), ty)) = m {
                        if *n == name {
                            let mut tb = (*c.env.tb).clone();
                            self.bind_args(tp, args, env, &mut tb, p.span)?;
                            let aenv = Env { tb: Rc::new(tb), class: Some(c.clone()), ..c.env.clone() };
                            return self.resolve_type(ty, &aenv);
                        }
                    }
                }
            }
        }
        for q in self.candidates(&env.ns, &name, p.global) {
            if let Some(e) = self.enums.get(&q) {
                return Ok(Ty::Enum(e.clone()));
            }
            if let Some((tp, ty, ns)) = self.aliases.get(&q) {
                let mut tb = HashMap::new();
                if let Some(tp) = tp {
                    let args = last.args.clone().unwrap_or_default();
                    self.bind_args(tp, &args, env, &mut tb, p.span)?;
                }
                let env2 = Env { ns: ns.clone(), tb: Rc::new(tb), class: None };
                return self.resolve_type(ty, &env2);
            }
        }
        if let Some(decls) = self.find_class(env, &name, p.global) {
            let args = match &last.args {
                Some(a) => a.clone(),
                None => Vec::new(),
            };
            let c = self.instantiate(&decls, &args, env, p.span)?;
            return Ok(Ty::Class(c));
        }
        // The built-in type names a misspelling most often means, beside the declared ones.
        const BUILTIN: [&str; 9] =
            ["bool", "char", "short", "int", "long", "float", "double", "half", "unsigned"];
        let declared = self.classes.keys().chain(self.aliases.keys()).chain(self.enums.keys());
        let names = declared.map(String::as_str).chain(BUILTIN);
        Err(Diagnostic::new(p.span, format!("unknown type '{name}'")).with_suggestion(&name, names))
    }

    /// A member type of an instantiated class: an alias, or a nested class
    /// (instantiated inside it, seeing its parameters).
    fn class_member_type(&self, c: &Rc<ClassInst>, m: &Seg, env: &Env, span: Span) -> Result<Ty> {
        if m.args.is_none() {
            if let Some(t) = self.member_alias(c, &m.name)? {
                return Ok(t);
            }
        }
        if let Some(decls) = self.classes.get(&qual(&c.decl.qual, &m.name)) {
            let inner_env = Env { class: Some(c.clone()), ..env.clone() };
            let args = m.args.clone().unwrap_or_default();
            return Ok(Ty::Class(self.instantiate(decls, &args, &inner_env, span)?));
        }
        err(span, format!("'{}' has no member type '{}'", c.name, m.name))
    }

    fn member_alias(&self, c: &Rc<ClassInst>, name: &str) -> Result<Option<Ty>> {
        for m in &c.decl.ast.members {
            if let Member::Item(Item::Alias(_, n, None, ty)) = m {
                if n == name {
                    // Other members (aliases) of the class are visible.
                    let cenv = Env { class: Some(c.clone()), ..c.env.clone() };
                    return Ok(Some(self.resolve_type(ty, &cenv)?));
                }
            }
        }
        Ok(None)
    }

    pub fn targ_type(&self, a: &TArg, env: &Env) -> Result<Ty> {
        match a {
            TArg::Type(t) => self.resolve_type(t, env),
            TArg::Expr(Expr { kind: ExprKind::Name(p), .. }) => self.resolve_type(
                &TypeName { span: p.span, kind: TypeKind::Named(p.clone()), is_const: false },
                env,
            ),
            TArg::Expr(e) => err(e.span, "expected a type as template argument"),
        }
    }

    pub fn targ_const(&self, a: &TArg, env: &Env) -> Result<(Scalar, CV)> {
        match a {
            TArg::Expr(e) => ceval::eval(self, e, env),
            TArg::Type(t) => {
                // A name parsed as a type may be a constant (an enum value or template param).
                if let TypeKind::Named(p) = &t.kind {
                    let e = Expr { span: t.span, kind: ExprKind::Name(p.clone()) };
                    return ceval::eval(self, &e, env);
                }
                err(t.span, "expected a constant as template argument")
            }
        }
    }

    /// Binds template parameters to arguments (with defaults).
    pub fn bind_args(
        &self,
        tp: &[TParam],
        args: &[TArg],
        env: &Env,
        tb: &mut HashMap<String, TVal>,
        span: Span,
    ) -> Result<()> {
        if args.len() > tp.len() {
            return err(span, format!("too many template arguments ({} for {})", args.len(), tp.len()));
        }
        for (i, p) in tp.iter().enumerate() {
            let (a, aenv) = match args.get(i) {
                Some(a) => (a.clone(), env.clone()),
                None => match &p.default {
                    Some(d) => (d.clone(), Env { tb: Rc::new(tb.clone()), ..env.clone() }),
                    None => return err(span, format!("missing template argument for '{}'", p.name)),
                },
            };
            let v = match &p.kind {
                TParamKind::Type => TVal::Type(self.targ_type(&a, &aenv)?),
                TParamKind::Value(t) => {
                    let ty = self.resolve_type(t, &aenv)?;
                    let (_, v) = self.targ_const(&a, &aenv)?;
                    let s = ty.scalar().unwrap_or(Scalar::Int);
                    TVal::Const(s, ceval::convert(v, s))
                }
            };
            tb.insert(p.name.clone(), v);
        }
        Ok(())
    }

    /// Instantiates a class (template) with arguments: binds the primary
    /// template's parameters, then picks the most specialised matching
    /// (partial or full) specialisation, if any (`spec`).
    pub fn instantiate(
        &self,
        decls: &[Rc<ClassDecl>],
        args: &[TArg],
        env: &Env,
        span: Span,
    ) -> Result<Rc<ClassInst>> {
        // The primary template: the definition rather than a forward declaration.
        let primaries = || decls.iter().filter(|d| d.ast.spec_args.is_none());
        let primary = primaries()
            .find(|d| !d.ast.members.is_empty() || !d.ast.bases.is_empty())
            .or_else(|| primaries().next())
            .or(decls.first())
            .unwrap();
        // A class nested in a class template sees the enclosing
        // instantiation's parameters, and is named inside it.
        let outer: Option<Rc<ClassInst>> = env.class.as_ref().and_then(|c| {
            if c.decl.qual == primary.ns {
                Some(c.clone())
            } else if c.decl.ns == primary.ns {
                c.outer.clone()
            } else {
                None
            }
        });
        let mut tb = outer.as_ref().map(|o| (*o.env.tb).clone()).unwrap_or_default();
        let mut chosen = (primary.clone(), None);
        let mut key = Vec::new();
        if let Some(tp) = &primary.ast.tparams {
            self.bind_args(tp, args, env, &mut tb, span)?;
            key = tp.iter().map(|p| tb[&p.name].clone()).collect();
        } else if !args.is_empty() {
            return err(span, format!("'{}' is not a template", primary.qual));
        }
        let base_name = match &outer {
            Some(o) => format!("{}::{}", o.name, primary.ast.name),
            None => primary.qual.clone(),
        };
        let name = match &primary.ast.tparams {
            Some(tp) => {
                let penv = Env { ns: primary.ns.clone(), ..Env::default() };
                let parts: Vec<String> = tp.iter().map(|p| self.spell_targ(p, &tb[&p.name], &penv)).collect();
                format!("{base_name}<{}>", parts.join(","))
            }
            None => base_name,
        };
        if let Some(c) = self.cache.borrow().get(&name) {
            return Ok(c.clone());
        }
        // The specialisation is picked once per instance (the name depends
        // only on the arguments).
        if primary.ast.tparams.is_some() {
            if let Some((d, b)) = self.pick_specialisation(decls, primary, &key, span)? {
                chosen = (d, Some(b));
            }
        }
        if self.building.borrow().contains(&name) {
            // Named while its own definition is being built (in its base
            // clause, as a template argument): an incomplete class, which
            // is all C++ gives there too.
            let (decl, _) = &chosen;
            return Ok(Rc::new(ClassInst {
                name,
                decl: decl.clone(),
                env: Env { ns: decl.ns.clone(), ..Env::default() },
                targs: key,
                outer,
                base: None,
                fields: Vec::new(),
                refs: Vec::new(),
                size: 0,
                align: 1,
            }));
        }
        if self.cache.borrow().len() >= MAX_INSTANTIATIONS {
            return err(span, format!("more than {MAX_INSTANTIATIONS} class template instances in one compilation (popc's limit)"));
        }
        {
            let mut d = self.depth.borrow_mut();
            *d += 1;
            if *d > MAX_INSTANTIATION_DEPTH {
                *d -= 1;
                return err(span, format!("template instantiation depth exceeds {MAX_INSTANTIATION_DEPTH}"));
            }
        }
        let (decl, bound) = chosen;
        let tb = match (bound, &outer) {
            (Some(mut b), Some(o)) => {
                for (k, v) in o.env.tb.iter() {
                    b.entry(k.clone()).or_insert_with(|| v.clone());
                }
                b
            }
            (Some(b), None) => b,
            (None, _) => tb,
        };
        self.building.borrow_mut().insert(name.clone());
        let r = self.build_class(decl, name.clone(), tb, key, outer);
        self.building.borrow_mut().remove(&name);
        *self.depth.borrow_mut() -= 1;
        let c = Rc::new(r?);
        self.cache.borrow_mut().insert(name, c.clone());
        Ok(c)
    }

    /// A bound template argument as a vertex name spells it: an enum
    /// value by its qualified enumerator (`popops::expr::BinaryOpType::ADD`),
    /// as Poplar names such vertices.
    fn spell_targ(&self, p: &TParam, v: &TVal, env: &Env) -> String {
        if let (TParamKind::Value(t), TVal::Const(_, CV::I(i))) = (&p.kind, v) {
            if let Ok(Ty::Enum(e)) = self.resolve_type(t, env) {
                if let Some((n, _)) = e.values.iter().find(|(_, x)| x == i) {
                    return format!("{}::{n}", e.name);
                }
            }
        }
        spell_tval(v)
    }

    fn build_class(
        &self,
        decl: Rc<ClassDecl>,
        name: String,
        tb: HashMap<String, TVal>,
        targs: Vec<TVal>,
        outer: Option<Rc<ClassInst>>,
    ) -> Result<ClassInst> {
        let env = Env { ns: decl.ns.clone(), tb: Rc::new(tb), class: None };
        let mut base = None;
        for b in &decl.ast.bases {
            if let TypeKind::Named(p) = &b.kind {
                // `std::conditional_t<B, SupervisorVertex, MultiVertex>`:
                // the base the condition picks.
                let mut p = p;
                for _ in 0..8 {
                    if !matches!(p.last(), "conditional" | "conditional_t") {
                        break;
                    }
                    let args = p.segs.last().and_then(|s| s.args.as_deref()).unwrap_or_default();
                    let [cond, yes, no] = args else {
                        return err(b.span, "std::conditional takes 3 arguments");
                    };
                    let (_, v) = self.targ_const(cond, &env)?;
                    let pick = if v != CV::I(0) && v != CV::F(0.0) { yes } else { no };
                    let TArg::Type(TypeName { kind: TypeKind::Named(q), .. }) = pick else {
                        return err(
                            b.span,
                            "only Vertex, MultiVertex and SupervisorVertex may be base classes",
                        );
                    };
                    p = q;
                }
                base = match p.last() {
                    "Vertex" => Some(VertexBase::Vertex),
                    "MultiVertex" => Some(VertexBase::MultiVertex),
                    "SupervisorVertex" => Some(VertexBase::Supervisor),
                    // Poplar's `SupervisorVertexIf<B>`: a supervisor vertex when B holds.
                    "SupervisorVertexIf" => {
                        let args = p.segs.last().and_then(|s| s.args.as_deref()).unwrap_or_default();
                        let [cond] = args else {
                            return err(b.span, "SupervisorVertexIf takes one condition");
                        };
                        let (_, v) = self.targ_const(cond, &env)?;
                        let supervisor = match v {
                            CV::I(i) => i != 0,
                            CV::F(f) => f != 0.0,
                        };
                        Some(if supervisor { VertexBase::Supervisor } else { VertexBase::Vertex })
                    }
                    _ => {
                        return err(
                            b.span,
                            "only Vertex, MultiVertex and SupervisorVertex may be base classes",
                        )
                    }
                };
            }
        }
        // A provisional instance so member aliases resolve while laying out fields.
        let mut inst = ClassInst {
            name: name.clone(),
            decl: decl.clone(),
            env: env.clone(),
            targs: targs.clone(),
            outer: outer.clone(),
            base,
            fields: vec![],
            refs: vec![],
            size: 0,
            align: 1,
        };
        let provisional = Rc::new(ClassInst {
            name: name.clone(),
            decl: decl.clone(),
            env: env.clone(),
            targs,
            outer,
            base,
            fields: vec![],
            refs: vec![],
            size: 0,
            align: 1,
        });
        let fenv = Env { class: Some(provisional), ..env.clone() };
        let mut off = 0u64;
        let mut align = 1u32;
        for m in &decl.ast.members {
            if let (Member::Ctor(c), Some(_)) = (m, base) {
                return err(
                    c.span,
                    format!(
                        "a vertex's constructor cannot do work: the graph sets its fields (class '{name}')"
                    ),
                );
            }
            let Member::Field(f) = m else { continue };
            if f.is_static {
                continue;
            }
            if matches!(f.ty.kind, TypeKind::Ref(_)) && base.is_none() {
                if f.names.len() > 1 || !f.names[0].2.is_empty() {
                    return err(f.span, "declare one reference member per declaration");
                }
                inst.refs.push(f.names[0].0.clone());
                continue;
            }
            for (fname, fspan, dims) in &f.names {
                let full = format!("{}.{}", name, fname);
                if !dims.is_empty() {
                    let ty = type_words(&f.ty);
                    return err(*fspan, format!("field '{full}' has unsupported type '{ty}[]'"));
                }
                let fty = self.field_type(&f.ty, &fenv, &full, base.is_some())?;
                let (size, al) = match &fty {
                    FieldTy::Edge { kind, elem, .. } => (kind.state_size(elem.elem()), 4),
                    FieldTy::Plain(t) => (t.size(), t.align()),
                };
                off = off.div_ceil(u64::from(al)) * u64::from(al);
                align = align.max(al);
                inst.fields.push(FieldInfo {
                    name: fname.clone(),
                    ty: fty,
                    offset: off as u32,
                    size,
                    is_const: f.ty.is_const,
                });
                off += u64::from(size);
                if off > u64::from(MAX_OBJECT_SIZE) {
                    return err(
                        *fspan,
                        format!(
                            "class '{name}' is too large: more than {MAX_OBJECT_SIZE} bytes (the limit for one object)"
                        ),
                    );
                }
            }
        }
        // C++ checks a class template's assertions when it is instantiated.
        for m in &decl.ast.members {
            if let Member::Item(Item::StaticAssert(span, e, msg)) = m {
                self.check_assert(*span, e, msg.as_deref(), &fenv)?;
            }
        }
        inst.size = (off.div_ceil(u64::from(align)) * u64::from(align)) as u32;
        inst.align = align;
        inst.env = env;
        Ok(inst)
    }

    /// Checks `static_assert(e, msg)` evaluated in `env`.
    pub fn check_assert(&self, span: Span, e: &Expr, msg: Option<&str>, env: &Env) -> Result<()> {
        let (_, v) = ceval::eval(self, e, env)?;
        if ceval::truthy(v) {
            Ok(())
        } else {
            err(span, assertion_failed(msg))
        }
    }

    fn field_type(&self, t: &TypeName, env: &Env, full: &str, vertex: bool) -> Result<FieldTy> {
        if let TypeKind::Named(p) = &t.kind {
            let last = p.segs.last().unwrap();
            let dir = match last.name.as_str() {
                "Input" => Some(Direction::Input),
                "Output" => Some(Direction::Output),
                "InOut" => Some(Direction::InOut),
                _ => None,
            };
            if let Some(dir) = dir {
                let Some(arg) = last.args.as_ref().and_then(|a| a.first()) else {
                    return err(t.span, format!("field '{full}': '{}' needs a type argument", last.name));
                };
                return self.edge_inner(arg, env, full, dir, 0);
            }
            if last.name == "Vector" || last.name == "VectorList" {
                let args = last.args.clone().unwrap_or_default();
                let Some(first) = args.first() else { return err(t.span, "Vector needs an element type") };
                if last.name == "VectorList" {
                    let elem = self.edge_elem(first, env, full)?;
                    let layout = self.layout(args.get(1), env)?;
                    return Ok(FieldTy::Edge {
                        dir: Direction::Input,
                        elem,
                        kind: FieldKind::VectorList(layout),
                    });
                }
                // Vector<Input<Vector<T>>>
                if let TArg::Type(TypeName { kind: TypeKind::Named(ip), .. }) = first {
                    let il = ip.segs.last().unwrap();
                    let dir = match il.name.as_str() {
                        "Input" => Some(Direction::Input),
                        "Output" => Some(Direction::Output),
                        "InOut" => Some(Direction::InOut),
                        _ => None,
                    };
                    if let (Some(dir), Some(ia)) = (dir, il.args.as_ref().and_then(|a| a.first())) {
                        let FieldTy::Edge { elem, kind, .. } = self.edge_inner(ia, env, full, dir, 1)? else {
                            unreachable!()
                        };
                        let layout = self.layout(args.get(1), env)?;
                        let kind = match kind {
                            FieldKind::Vector(_) => FieldKind::VectorList(layout),
                            // `Vector<Input<T>>`: each element its own edge.
                            FieldKind::Scalar => FieldKind::ScalarList(layout),
                            _ => {
                                return err(
                                    t.span,
                                    format!(
                                    "field '{full}': vectors nested more than two levels are not supported"
                                ),
                                )
                            }
                        };
                        return Ok(FieldTy::Edge { dir, elem, kind });
                    }
                }
                // A vector that is not an edge (`Vector<unsigned> offsets`):
                // read-only data the graph connects like an input edge.
                if vertex
                    && !matches!(first, TArg::Type(TypeName { kind: TypeKind::Named(_), .. }) if self.targ_type(first, env).is_err())
                {
                    if let Ok(elem) = self.edge_elem(first, env, full) {
                        let layout = self.layout(args.get(1), env)?;
                        return Ok(FieldTy::Edge {
                            dir: Direction::Input,
                            elem,
                            kind: FieldKind::Vector(layout),
                        });
                    }
                }
                return err(t.span, format!("field '{full}' has unsupported type '{}'", type_words(t)));
            }
        }
        let ty = match self.resolve_type(t, env) {
            Ok(ty) => ty,
            Err(e) if !vertex && e.message.starts_with("unknown type") => {
                return err(t.span, format!("field '{full}' has unsupported type '{}'", type_words(t)))
            }
            Err(e) => return Err(e),
        };
        match &ty {
            Ty::Edge(e) if vertex => Ok((**e).clone()),
            Ty::S(_) | Ty::Enum(_) => Ok(FieldTy::Plain(ty)),
            Ty::Array(..) => Ok(FieldTy::Plain(ty)),
            Ty::Class(c) if !vertex && c.base.is_none() => Ok(FieldTy::Plain(ty)),
            // A pointer in a helper struct: a tile address (4 bytes).
            Ty::Ptr(_) if !vertex => Ok(FieldTy::Plain(ty)),
            _ => err(t.span, format!("field '{full}' has unsupported type '{}'", ty.spell())),
        }
    }

    fn edge_inner(&self, arg: &TArg, env: &Env, full: &str, dir: Direction, depth: u32) -> Result<FieldTy> {
        if let TArg::Type(TypeName { kind: TypeKind::Named(p), span, .. }) = arg {
            let l = p.segs.last().unwrap();
            if l.name == "Vector" || l.name == "VectorList" {
                let args = l.args.clone().unwrap_or_default();
                let Some(first) = args.first() else { return err(*span, "Vector needs an element type") };
                if let TArg::Type(TypeName { kind: TypeKind::Named(ip), .. }) = first {
                    if matches!(ip.last(), "Vector" | "VectorList") {
                        if depth >= 1 || ip.segs.last().unwrap().args.as_ref().is_some_and(|a| {
                            a.iter().any(|x| matches!(x, TArg::Type(TypeName{kind: TypeKind::Named(q), ..}) if q.last()=="Vector"))
                        }) {
                            return err(*span, format!("field '{full}': vectors nested more than two levels are not supported"));
                        }
                        let inner_args = ip.segs.last().unwrap().args.clone().unwrap_or_default();
                        let Some(ie) = inner_args.first() else {
                            return err(*span, "Vector needs an element type");
                        };
                        let elem = self.edge_elem(ie, env, full)?;
                        let layout = self.layout(args.get(1), env)?;
                        return Ok(FieldTy::Edge { dir, elem, kind: FieldKind::VectorList(layout) });
                    }
                }
                let elem = self.edge_elem(first, env, full)?;
                let layout = self.layout(args.get(1), env)?;
                let kind = if l.name == "VectorList" {
                    FieldKind::VectorList(layout)
                } else {
                    FieldKind::Vector(layout)
                };
                return Ok(FieldTy::Edge { dir, elem, kind });
            }
        }
        // `InOut<T>` where T names a vector type (through an alias).
        if let Ok(Ty::Edge(e)) = self.targ_type(arg, env) {
            if let FieldTy::Edge {
                elem,
                kind: kind @ (FieldKind::Vector(_) | FieldKind::VectorList(_)),
                ..
            } = *e
            {
                return Ok(FieldTy::Edge { dir, elem, kind });
            }
        }
        let elem = self.edge_elem(arg, env, full)?;
        Ok(FieldTy::Edge { dir, elem, kind: FieldKind::Scalar })
    }

    fn edge_elem(&self, a: &TArg, env: &Env, full: &str) -> Result<Scalar> {
        let span = match a {
            TArg::Type(t) => t.span,
            TArg::Expr(e) => e.span,
        };
        match self.targ_type(a, env)? {
            Ty::S(s) => Ok(s),
            t => err(span, format!("field '{full}' has unsupported element type '{}'", t.spell())),
        }
    }

    fn layout(&self, a: Option<&TArg>, env: &Env) -> Result<Layout> {
        let Some(a) = a else { return Ok(Layout::Span) };
        let (mut path, span) = match a {
            TArg::Expr(Expr { kind: ExprKind::Name(p), span }) => (p, *span),
            TArg::Type(TypeName { kind: TypeKind::Named(p), span, .. }) => (p, *span),
            TArg::Expr(e) => return err(e.span, "expected a vector layout"),
            TArg::Type(t) => return err(t.span, "expected a vector layout"),
        };
        // A layout named through a constant (`static constexpr auto
        // PTR_ALIGN64 = VectorLayout::ONE_PTR;`) is that constant's value.
        let mut ns = env.ns.clone();
        for _ in 0..8 {
            let name = path.segs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join("::");
            let global =
                self.candidates(&ns, &name, path.global).into_iter().find_map(|q| self.globals.get(&q));
            match global {
                Some((VarDecl { init: Some(Expr { kind: ExprKind::Name(p), .. }), .. }, gns)) => {
                    path = p;
                    ns = gns.clone();
                }
                _ => break,
            }
        }
        let name = path.last();
        Ok(match name {
            "SPAN" => Layout::Span,
            "ONE_PTR" => Layout::OnePtr,
            "SHORT_SPAN" => Layout::ShortSpan,
            "COMPACT_PTR" => Layout::CompactPtr,
            "SCALED_PTR32" => Layout::ScaledPtr32,
            "SCALED_PTR64" => Layout::ScaledPtr64,
            "SCALED_PTR128" => Layout::ScaledPtr128,
            "DELTAN" => Layout::DeltaN,
            "DELTANELEMENTS" => Layout::DeltaNElements,
            "COMPACT_DELTAN" => Layout::CompactDeltaN,
            _ => return err(span, format!("unknown vector layout '{name}'")),
        })
    }
}

/// Whether a vector layout stores a count (and so has `.size()`).
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
