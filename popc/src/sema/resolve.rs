//! Name lookup and type resolution: the qualified names a name may mean
//! from a namespace, classes found through the class being defined, and
//! written types (aliases, template parameters, members of instantiated
//! classes, template arguments) resolved to [`Ty`] in an [`Env`].

use std::rc::Rc;

use super::types::Scalar;
use super::{ceval, qual, ClassDecl, ClassInst, Env, TVal, Ty, Unit, CV, MAX_OBJECT_SIZE};
use crate::diag::{err, Diagnostic, Result, Span};
use crate::front::ast::*;
use crate::front::vector_types::VECTOR_TYPES;
use crate::hash::HashMap;

impl Unit {
    /// Candidate qualified names for `name` seen from namespace `ns`.
    pub fn candidates(&self, ns: &str, name: &str, global: bool) -> Vec<String> {
        let mut out = Vec::new();
        if !global {
            let mut scope = ns;
            loop {
                out.push(qual(scope, name));
                if scope.is_empty() {
                    break;
                }
                scope = scope.rfind("::").map_or("", |i| &scope[..i]);
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
            TypeKind::Vector(v) => self.resolve_vector(v, t.span, env)?,
        })
    }

    /// A typedef's vector attribute: the IPU vector type with that element
    /// type and count, which `<ipudef.h>` declares.
    fn resolve_vector(&self, v: &VectorAttr, span: Span, env: &Env) -> Result<Ty> {
        let attr = if v.bytes { "vector_size" } else { "ext_vector_type" };
        let s = match self.resolve_type(&v.elem, env)? {
            Ty::S(s) => s,
            other => return err(span, format!("'{attr}' applies to a scalar type, not '{}'", other.spell())),
        };
        let size = match self.targ_const(&TArg::Expr(v.size.clone()), env)? {
            (_, CV::I(n)) if n > 0 => n,
            _ => return err(v.size.span, format!("'{attr}' needs a positive integer constant")),
        };
        let n = if v.bytes {
            let e = i128::from(s.size());
            if size % e != 0 {
                let what = format!(
                    "'vector_size({size})' is not a multiple of the size of '{}' ({e} bytes)",
                    s.name()
                );
                return err(v.size.span, what);
            }
            size / e
        } else {
            size
        };
        let elem = if s == Scalar::SChar { "char" } else { s.name() };
        let Some(vt) = VECTOR_TYPES.iter().find(|t| t.elem == elem && i128::from(t.n) == n) else {
            return err(
                span,
                format!(
                    "'{attr}' makes a vector of {n} '{}'; popc's vector types have 2 or 4 elements of \
                     char, short, int, half or float (signed or unsigned), or 2 of long",
                    s.name()
                ),
            );
        };
        let path = Path { span, global: true, segs: vec![Seg { name: vt.name.to_string(), args: None }] };
        self.resolve_named(&path, env).or_else(|_| {
            err(
                span,
                format!("'{attr}' needs the vector types of <ipudef.h> (which <poplar/Vertex.hpp> includes)"),
            )
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
            // A class template's own name without arguments, inside it (or
            // a class nested in it): this instance (the injected class name).
            if last.args.is_none() {
                let mut c = env.class.clone();
                while let Some(k) = c {
                    if k.decl.ast.name == name && k.decl.ast.tparams.is_some() {
                        return Ok(Ty::Class(k));
                    }
                    c = k.outer.clone();
                }
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
        match bare {
            "conditional" | "conditional_t" => {
                let args = last.args.as_ref().filter(|a| a.len() == 3);
                let Some(args) = args else { return err(p.span, "std::conditional takes 3 arguments") };
                let c = self.targ_const(&args[0], env)?;
                return self.targ_type(&args[if c.1 != CV::I(0) { 1 } else { 2 }], env);
            }
            "enable_if" | "enable_if_t" => {
                // A false condition names no type: the substitution
                // failure that takes a template out of overload resolution.
                let args = last.args.clone().unwrap_or_default();
                let cond = {
                    let _trial = crate::diag::trial();
                    args.first().map(|c| self.targ_const(c, env))
                };
                match cond {
                    Some(Ok((_, c))) if !ceval::truthy(c) => {
                        return err(p.span, "std::enable_if's condition is false: it names no type");
                    }
                    // A condition naming what its arguments lack fails alike.
                    Some(Err(e)) => return Err(e),
                    _ => {}
                }
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
            let r = {
                let _trial = crate::diag::trial();
                self.resolve_type(&prefix, env)
            };
            match r {
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
                // The class's own, then those of the classes it is nested in.
                let mut k = Some(c.clone());
                while let Some(kc) = k {
                    if let Some(t) = self.member_alias(&kc, &name)? {
                        return Ok(t);
                    }
                    k = kc.outer.clone();
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
                let mut tb = HashMap::default();
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
}
