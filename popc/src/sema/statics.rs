//! Static storage: the namespace-scope variables and static data members
//! that are objects rather than compile-time constants (`unsigned calls =
//! 0;`, `static float partial[6];` defined outside its class as `float
//! C::partial[6] = {-1};`, `static inline T total = 0;`, `constexpr float
//! kTable[4] = {…};`, `Params params = {1.5f, 3};`). On the IPU such an
//! object is ordinary tile memory: each tile has its own copy, initialised
//! from its definition before the program runs and shared by every vertex
//! on that tile that names it (the workers of a `MultiVertex` share partial
//! results through one). A scalar declared `const` or `constexpr` with a
//! constant initialiser is a constant ([`super::ceval`]) and takes none.
//! A local variable declared `static` in a function is static storage too,
//! one object per declaration (per instance of a template).
//!
//! An object is laid out the first time lowering names it, so a member
//! declared but never used needs no definition, as in C++. All of them
//! share the codelet object's one block ([`Storage`], which `build` turns
//! into the object's `linker::gp::Statics`); code addresses one as
//! `TileCtx::statics` plus its offset. Vertices are lowered in order on one
//! thread, so the layout is the same on every run.

use std::rc::Rc;

use super::types::Scalar;
use super::{ceval, type_words, ClassInst, Env, FieldTy, Ty, Unit, BASE_FIELD, CV, TAG_FIELD};
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::hash::HashMap;

/// The codelet object's static storage as laid out so far.
#[derive(Default)]
pub struct Storage {
    init: Vec<u8>,
    align: u32,
    /// Each object laid out: its type and offset, by key (`C<T>::m` for
    /// a static data member of class instance `C<T>`, the qualified name
    /// of a namespace-scope variable).
    placed: HashMap<String, (Ty, u32)>,
}

impl Storage {
    /// The object's `linker::gp::Statics`: every object's initial bytes.
    pub fn finish(self) -> linker::gp::Statics {
        linker::gp::Statics { init: self.init, align: self.align.max(1) }
    }
}

/// What a name of a static data member means.
pub enum StaticRef {
    /// An object in static storage: its type and offset.
    Storage(Ty, u32),
    /// A constant, which [`super::ceval`] evaluates.
    Constant,
}

/// One object's declaration: where it is, its written type and array
/// bounds, its initialiser and the environment that sees them.
struct Def<'a> {
    span: Span,
    ty: &'a TypeName,
    dims: &'a [Expr],
    init: Option<&'a Expr>,
    is_constexpr: bool,
}

impl Unit {
    /// The static data member `name` of class instance `c`, declared in it
    /// or inherited from a base; `None` when there is none so named.
    pub fn static_member_ref(&self, c: &Rc<ClassInst>, name: &str) -> Result<Option<StaticRef>> {
        let mut k = Some(c.clone());
        while let Some(cls) = k {
            for m in &cls.decl.ast.members {
                let Member::Field(f) = m else { continue };
                let Some((_, fspan, dims)) = f.names.iter().find(|x| x.0 == name).filter(|_| f.is_static)
                else {
                    continue;
                };
                return self.member_object(&cls, f, name, *fspan, dims).map(Some);
            }
            k = match cls.helper_base() {
                Some(Ty::Class(b)) => Some(b.clone()),
                _ => None,
            };
        }
        Ok(None)
    }

    /// Static data member `name` of class `c`, declared by `f`.
    fn member_object(
        &self,
        c: &Rc<ClassInst>,
        f: &FieldDecl,
        name: &str,
        fspan: Span,
        dims: &[Expr],
    ) -> Result<StaticRef> {
        let q = format!("{}::{}", c.decl.qual, name);
        let key = format!("{}::{}", c.name, name);
        if let Some((t, off)) = self.storage.borrow().placed.get(&key) {
            return Ok(StaticRef::Storage(t.clone(), *off));
        }
        let def = self.static_defs.get(&q);
        let mut env = Env { class: Some(c.clone()), ..c.env.clone() };
        if let Some((_, Some(tparams))) = def {
            // `template <class U> U C<U>::m = …;`: the definition's own
            // parameter names stand for the instance's arguments.
            let mut tb = (*env.tb).clone();
            for (p, a) in tparams.iter().zip(&c.targs) {
                tb.insert(p.name.clone(), a.clone());
            }
            env.tb = Rc::new(tb);
        }
        // `static int a[];` in the class takes its bound from the definition.
        let dims = match def {
            Some((d, _)) if dims.is_empty() => d.dims.as_slice(),
            _ => dims,
        };
        let init = match (def, &f.init) {
            (Some((d, _)), _) => d.init.as_ref(),
            (None, i) => i.as_ref(),
        };
        let d = Def { span: fspan, ty: &f.ty, dims, init, is_constexpr: f.is_constexpr };
        if self.is_constant(&d, &env)? {
            return Ok(StaticRef::Constant);
        }
        if init.is_none() && def.is_none() {
            return err(
                fspan,
                format!(
                    "static data member '{q}' is declared but never defined: C++ needs its definition outside \
                     the class ('{} {q}…;'), or 'inline' with an initialiser",
                    type_words(&f.ty)
                ),
            );
        }
        let (t, off) = self.lay_out(key, &d, &env, &q)?;
        Ok(StaticRef::Storage(t, off))
    }

    /// The static storage of namespace-scope variable `q` (qualified, a
    /// key of [`Unit::globals`]): its type and offset, or `None` when it
    /// is a constant.
    pub fn global_storage(&self, q: &str) -> Result<Option<(Ty, u32)>> {
        if let Some((t, off)) = self.storage.borrow().placed.get(q) {
            return Ok(Some((t.clone(), *off)));
        }
        let Some((v, ns)) = self.globals.get(q) else { return Ok(None) };
        let env = Env { ns: ns.clone(), ..Env::default() };
        let d = Def {
            span: v.span,
            ty: &v.ty,
            dims: &v.dims,
            init: v.init.as_ref(),
            is_constexpr: v.is_constexpr,
        };
        if self.is_constant(&d, &env)? {
            return Ok(None);
        }
        self.lay_out(q.to_string(), &d, &env, q).map(Some)
    }

    /// The static storage of a local variable declared `static` in a
    /// function (`static unsigned n = 0;`): one object per declaration
    /// and instance of the templates around it, with the bindings of
    /// `env` (the function's); its type and offset. Its initialiser must
    /// be a constant: C++ then initialises it before the program runs,
    /// where another would run at its first pass, which popc does not do.
    pub fn local_storage(&self, d: &VarDecl, env: &Env) -> Result<(Ty, u32)> {
        let mut bound: Vec<String> =
            env.tb.iter().map(|(k, v)| format!("{k}={}", super::spell_tval(v))).collect();
        bound.sort();
        let class = env.class.as_ref().map_or("", |c| c.name.as_str());
        let key =
            format!("<static {}>@{}:{} in {class}<{}>", d.name, d.span.file, d.span.lo, bound.join(","));
        if let Some((t, off)) = self.storage.borrow().placed.get(&key) {
            return Ok((t.clone(), *off));
        }
        let def = Def {
            span: d.span,
            ty: &d.ty,
            dims: &d.dims,
            init: d.init.as_ref(),
            is_constexpr: d.is_constexpr,
        };
        self.lay_out(key, &def, env, &d.name)
    }

    /// Whether the object `d` declares is a compile-time constant: a
    /// `const` or `constexpr` scalar (or enumeration) that is not an array.
    fn is_constant(&self, d: &Def, env: &Env) -> Result<bool> {
        if !(d.is_constexpr || d.ty.is_const) || !d.dims.is_empty() {
            return Ok(false);
        }
        Ok(match self.resolve_type(d.ty, env)? {
            Ty::Auto => true,
            t => t.scalar().is_some(),
        })
    }

    /// Lays out the object `d` declares under `key`: its type, its bytes
    /// (zero, then the constant initialiser), its place in the storage.
    fn lay_out(&self, key: String, d: &Def, env: &Env, q: &str) -> Result<(Ty, u32)> {
        let mut ty = match self.resolve_type(d.ty, env)? {
            // `auto g = 1.5f;`: the initialiser's type.
            Ty::Auto => match d.init {
                Some(e) if d.dims.is_empty() => Ty::S(ceval::eval(self, e, env)?.0),
                _ => return err(d.span, format!("'auto' variable '{q}' needs an initialiser")),
            },
            t => t,
        };
        let mut total = u128::from(ty.size());
        let mut ns = Vec::new();
        for e in d.dims {
            let n = match ceval::eval(self, e, env)? {
                (_, CV::I(n)) if (1..=1 << 20).contains(&n) => n as u32,
                _ => return err(e.span, "array size must be between 1 and 1048576"),
            };
            total = total.saturating_mul(u128::from(n));
            ns.push(n);
        }
        if total > u128::from(super::MAX_OBJECT_SIZE) {
            return err(d.span, format!("'{q}' takes more than {} bytes", super::MAX_OBJECT_SIZE));
        }
        for n in ns.into_iter().rev() {
            ty = Ty::Array(Box::new(ty), n);
        }
        storable(&ty, d.span, q)?;
        let mut bytes = vec![0u8; ty.size() as usize];
        if let Some(e) = d.init {
            self.static_init(&ty, e, env, &mut bytes, q)?;
        }
        let mut st = self.storage.borrow_mut();
        let align = ty.align().max(1);
        let off = st.init.len().next_multiple_of(align as usize);
        if off + bytes.len() > linker::gp::MAX_STATICS {
            return err(
                d.span,
                format!("the object's static storage takes more than {} bytes", linker::gp::MAX_STATICS),
            );
        }
        st.init.resize(off, 0);
        st.init.extend_from_slice(&bytes);
        st.align = st.align.max(align);
        st.placed.insert(key, (ty.clone(), off as u32));
        Ok((ty, off as u32))
    }

    /// Writes the constant initialiser `e` of an object of type `ty` into
    /// `out` (zeroed: what a shorter braced list leaves).
    fn static_init(&self, ty: &Ty, e: &Expr, env: &Env, out: &mut [u8], q: &str) -> Result<()> {
        match (ty, &e.kind) {
            (Ty::Array(elem, n), ExprKind::InitList(items)) => {
                if items.len() > *n as usize {
                    return err(
                        e.span,
                        format!("too many initialisers for '{q}' ({} for {n} elements)", items.len()),
                    );
                }
                let size = elem.size() as usize;
                for (k, item) in items.iter().enumerate() {
                    self.static_init(elem, item, env, &mut out[k * size..(k + 1) * size], q)?;
                }
                Ok(())
            }
            (Ty::Array(..), _) => err(e.span, format!("the array '{q}' needs a braced initialiser")),
            (Ty::Class(c), ExprKind::InitList(items)) => self.class_init(c, items, e.span, out, q),
            (Ty::Class(c), _) => err(
                e.span,
                format!(
                    "popc initialises '{q}' of class type '{}' from a braced list of constants only",
                    c.name
                ),
            ),
            (_, ExprKind::InitList(items)) if items.len() <= 1 => match items.first() {
                Some(item) => self.static_init(ty, item, env, out, q),
                None => Ok(()),
            },
            (_, ExprKind::InitList(_)) => err(e.span, format!("too many initialisers for '{q}'")),
            (Ty::Ptr(_), _) => match ceval::eval(self, e, env) {
                Ok((_, CV::I(0))) => Ok(()),
                _ => err(e.span, format!("popc initialises the pointer '{q}' only to null")),
            },
            _ => {
                let s = ty.scalar().unwrap_or(Scalar::Int);
                let (_, v) = ceval::eval(self, e, env).map_err(|mut d| {
                    d.notes.push(format!("popc needs a constant initialiser for '{q}'"));
                    d
                })?;
                write_scalar(s, ceval::convert(v, s), out);
                Ok(())
            }
        }
    }

    /// An aggregate of class `c` from a braced list: its base, then its
    /// fields in order; a field the list leaves out takes its default
    /// member initialiser, or zero.
    fn class_init(
        &self,
        c: &Rc<ClassInst>,
        items: &[Expr],
        span: Span,
        out: &mut [u8],
        q: &str,
    ) -> Result<()> {
        let cenv = Env { class: Some(c.clone()), ..c.env.clone() };
        let fields: Vec<_> = c.fields.iter().filter(|f| f.name != TAG_FIELD).collect();
        let take = if c.decl.ast.is_union { 1 } else { fields.len() };
        if items.len() > take {
            return err(span, format!("too many initialisers for '{q}' of type '{}'", c.name));
        }
        for (k, f) in fields.iter().enumerate() {
            let FieldTy::Plain(ft) = &f.ty else { continue };
            let slot = &mut out[f.offset as usize..(f.offset + ft.size()) as usize];
            let default = || {
                c.decl.ast.members.iter().find_map(|m| match m {
                    Member::Field(fd) if !fd.is_static && fd.names.iter().any(|x| x.0 == f.name) => {
                        fd.init.as_ref()
                    }
                    _ => None,
                })
            };
            match items.get(k) {
                Some(item) => self.static_init(ft, item, &cenv, slot, q)?,
                None if k < take && f.name != BASE_FIELD => {
                    if let Some(e) = default() {
                        self.static_init(ft, e, &cenv, slot, q)?;
                    }
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// An error unless static storage can hold an object of type `ty`:
/// scalars, enumerations, pointers, and arrays and aggregate classes of
/// them (no constructor that does work, no virtual functions, no reference
/// members: nothing that code has to run before the program starts).
fn storable(ty: &Ty, span: Span, q: &str) -> Result<()> {
    let refuse = |why: String| err(span, format!("'{q}' has type '{}': {why}", ty.spell()));
    match ty {
        Ty::S(Scalar::Quarter) => refuse("popc gives no static storage to quarters".into()),
        Ty::S(_) | Ty::Enum(_) | Ty::Ptr(_) => Ok(()),
        Ty::Array(t, _) => storable(t, span, q),
        Ty::Class(c) if c.vector().is_some() => Ok(()),
        Ty::Class(c) if c.has_ctor() => refuse(format!(
            "'{}' has a constructor, which popc does not run before the program starts (static storage is \
             initialised from constants only)",
            c.name
        )),
        Ty::Class(c) if c.tag.is_some() => refuse(format!(
            "'{}' has virtual functions: popc gives static storage to aggregates only",
            c.name
        )),
        Ty::Class(c) if !c.refs.is_empty() => refuse(format!(
            "'{}' has reference members: popc gives static storage to aggregates only",
            c.name
        )),
        Ty::Class(c) => {
            for f in &c.fields {
                if let FieldTy::Plain(t) = &f.ty {
                    storable(t, span, q)?;
                }
            }
            Ok(())
        }
        _ => {
            refuse("popc gives static storage to scalars, pointers, and arrays and aggregates of them".into())
        }
    }
}

/// The bytes of constant `v` (already converted to `s`) as tile memory
/// holds a value of type `s`, little-endian.
fn write_scalar(s: Scalar, v: CV, out: &mut [u8]) {
    let n = s.size() as usize;
    match (s, v) {
        (Scalar::Half, CV::F(f)) => out[..2].copy_from_slice(&half::f16::from_f64(f).to_le_bytes()),
        (Scalar::Float, CV::F(f)) => out[..4].copy_from_slice(&(f as f32).to_le_bytes()),
        (Scalar::Double, CV::F(f)) => out[..8].copy_from_slice(&f.to_le_bytes()),
        (_, CV::I(i)) => out[..n].copy_from_slice(&i.to_le_bytes()[..n]),
        (_, CV::F(f)) => out[..n].copy_from_slice(&(f as i128).to_le_bytes()[..n]),
    }
}
