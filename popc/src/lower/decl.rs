//! Declarations in function bodies: local scalars, pointers, references,
//! arrays and class objects with their initialisers (braced lists, copies,
//! constructors of helper classes run inlined), `constexpr` constants,
//! `static` locals (static storage), and the zeroing and copying of local
//! aggregates.

use std::rc::Rc;

use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::{mflags, Lowerer, Place, V};
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::hash::HashMap;
use crate::sema::ceval::{self, convert};
use crate::sema::types::Scalar;
use crate::sema::{ClassInst, Env, FieldTy, Ty, CV};

impl Lowerer<'_, '_> {
    pub(crate) fn decl(&mut self, d: &VarDecl) -> Result<()> {
        self.set_line(d.span);
        let is_ref = matches!(d.ty.kind, TypeKind::Ref(_));
        let mut ty = self.local_type(&d.ty)?;
        if !d.dims.is_empty() {
            let mut total = u128::from(ty.size());
            let mut dims = Vec::with_capacity(d.dims.len());
            for dim in &d.dims {
                let (_, n) = self.const_value(dim)?;
                let CV::I(n) = n else { return err(dim.span, "array size must be an integer") };
                if !(1..=1 << 20).contains(&n) {
                    return err(dim.span, "array size must be between 1 and 1048576");
                }
                total = total.saturating_mul(n as u128);
                dims.push(n as u32);
            }
            let max = crate::sema::MAX_OBJECT_SIZE;
            if total > u128::from(max) {
                return err(
                    d.span,
                    format!(
                        "array '{}' is too large: {total} bytes (the limit for one object is {max})",
                        d.name
                    ),
                );
            }
            for n in dims.into_iter().rev() {
                ty = Ty::Array(Box::new(ty), n);
            }
        }
        let const_scalar = d.ty.is_const && ty.scalar().is_some() && !is_ref;
        // A `constexpr` array or object is an object like a `const` one.
        let constexpr_scalar = d.is_constexpr && matches!(ty, Ty::S(_) | Ty::Enum(_) | Ty::Auto);
        if d.is_static && !(constexpr_scalar || const_scalar) {
            // Static storage; a constant scalar is bound as a constant.
            let v = self.local_static(d)?;
            self.bind(&d.name, v);
            return Ok(());
        }
        if constexpr_scalar || const_scalar {
            if let Some(init) = &d.init {
                let value = if d.is_constexpr {
                    self.const_value(init)
                } else {
                    ceval::eval(self.p, init, &self.env)
                };
                match value {
                    Ok((s, v)) => {
                        let s = ty.scalar().unwrap_or(s);
                        self.bind(&d.name, V::C(s, convert(v, s)));
                        return Ok(());
                    }
                    Err(e) if d.is_constexpr => return Err(e),
                    Err(_) => {}
                }
            }
        }
        let init = match &d.init {
            Some(e) if !matches!(e.kind, ExprKind::InitList(_)) => Some(self.expr(e)?),
            _ => None,
        };
        // A `const` scalar whose initialiser folded here (it names local
        // constants) is a constant too: usable as an array bound.
        if let (true, Some(V::C(s, v))) = (const_scalar, &init) {
            let s = ty.scalar().unwrap_or(*s);
            self.bind(&d.name, V::C(s, convert(*v, s)));
            return Ok(());
        }
        if is_ref {
            let Some(v) = init else { return err(d.span, "a reference needs an initialiser") };
            // A derived object bound to a reference to its base.
            let v = self.as_base(&ty, v);
            self.bind(&d.name, v);
            return Ok(());
        }
        match &ty {
            Ty::Auto => {
                let Some(v) = init else { return err(d.span, "'auto' needs an initialiser") };
                let v = match v {
                    V::C(s, c) => {
                        let x = self.konst(s, c);
                        self.new_var(s, x)
                    }
                    V::Ptr(t, a) => {
                        let var = self.b.declare_var(types::I32);
                        self.def_ptr(var, a);
                        V::L(Ty::Ptr(Box::new(t)), Place::Var(var))
                    }
                    V::L(Ty::Ptr(t), p) => {
                        let a = self.load_scalar(Scalar::UInt, p);
                        let var = self.b.declare_var(types::I32);
                        self.def_ptr(var, a);
                        V::L(Ty::Ptr(t), Place::Var(var))
                    }
                    v @ (V::Lambda(_)
                    | V::Func(_)
                    | V::Vec { .. }
                    | V::List { .. }
                    | V::Edges { .. }
                    | V::Local { .. }) => v,
                    v @ V::L(Ty::Class(_) | Ty::Array(..), _) => {
                        let V::L(t, _) = &v else { unreachable!() };
                        let t = t.clone();
                        let h = self.stack(t.size(), t.align());
                        self.copy_aggregate(&t, h, v, d.span)?;
                        self.stamp(&t, h, d.span)?;
                        V::L(t, Place::Host(h))
                    }
                    v => {
                        let (s, x) = self.rv(v, d.span)?;
                        self.new_var(s, x)
                    }
                };
                self.bind(&d.name, v);
            }
            Ty::S(_) | Ty::Enum(_) => {
                let s = ty.scalar().unwrap();
                let x = match (init, &d.init) {
                    (Some(v), _) => self.rv_as(v, s, d.span)?,
                    (None, Some(Expr { kind: ExprKind::InitList(l), .. })) => match l.first() {
                        Some(e) => {
                            let v = self.expr(e)?;
                            self.rv_as(v, s, d.span)?
                        }
                        None => self.konst(s, CV::I(0)),
                    },
                    _ => self.konst(s, CV::I(0)),
                };
                let v = self.new_var(s, x);
                let v = match v {
                    V::L(_, p) => V::L(ty.clone(), p),
                    v => v,
                };
                self.bind(&d.name, v);
            }
            Ty::Ptr(t) => {
                // `auto *p = ...` takes the pointee type from the initialiser.
                let pointee = match &init {
                    Some(V::Ptr(pt, _)) => Some(pt.clone()),
                    Some(V::L(Ty::Ptr(pt), _)) => Some((**pt).clone()),
                    Some(V::Vec { elem, .. }) => Some(Ty::S(*elem)),
                    _ => None,
                };
                let t = match (&**t, pointee) {
                    (Ty::Auto, Some(pt)) => Box::new(pt),
                    (Ty::Auto, None) => match &init {
                        Some(V::Local { ty, .. }) => Box::new(ty.clone()),
                        Some(V::L(Ty::Array(e, _), Place::Host(_))) => e.clone(),
                        _ => return err(d.span, "cannot deduce the type of 'auto *'"),
                    },
                    _ => t.clone(),
                };
                // A pointer to a local is a name for that address (it is
                // not a run-time value; changing it is an error).
                if let Some(v) = &init {
                    if let Some(l) = self.local_pointer(v, &t, d.span)? {
                        self.bind(&d.name, l);
                        return Ok(());
                    }
                }
                let a = match init {
                    Some(V::Ptr(_, a)) => a,
                    Some(V::C(_, CV::I(0))) | None => self.b.ins().iconst(types::I32, 0),
                    Some(V::L(Ty::Ptr(_), p)) => self.load_scalar(Scalar::UInt, p),
                    Some(V::Vec { addr, .. }) => addr,
                    Some(_) => return err(d.span, "pointer initialised from a non-pointer"),
                };
                let var = self.b.declare_var(types::I32);
                self.def_ptr(var, a);
                self.bind(&d.name, V::L(Ty::Ptr(t.clone()), Place::Var(var)));
            }
            Ty::Array(..) | Ty::Class(_) => {
                if let Ty::Class(c) = &ty {
                    if c.base.is_some() {
                        return err(d.span, "vertices cannot be local variables");
                    }
                }
                let h = self.stack(ty.size(), ty.align());
                if let Ty::Class(c) = &ty {
                    if c.has_ctor() {
                        // `S s{a, b}`, `S s(a)`: the constructor; `S s = t`
                        // of an `S` (or a class derived from it): a copy.
                        let args = match (&d.init, init) {
                            (Some(Expr { kind: ExprKind::InitList(l), .. }), _) => self.args(l)?,
                            (_, Some(v @ V::L(Ty::Class(_), _))) if matches!(&v, V::L(Ty::Class(from), _) if from.derives_from(c)) =>
                            {
                                self.zero(h, ty.size());
                                self.copy_aggregate(&ty, h, v, d.span)?;
                                self.stamp(&ty, h, d.span)?;
                                self.bind(&d.name, V::L(ty.clone(), Place::Host(h)));
                                return Ok(());
                            }
                            (_, Some(v)) => vec![v],
                            (_, None) => vec![],
                        };
                        self.run_ctor(c, h, args, d.span)?;
                        self.bind(&d.name, V::L(ty.clone(), Place::Host(h)));
                        return Ok(());
                    }
                }
                // Zero, then initialise.
                self.zero(h, ty.size());
                if let Some(Expr { kind: ExprKind::InitList(l), .. }) = &d.init {
                    self.init_aggregate(&ty, h, l, d.span)?;
                } else if let Some(v) = init {
                    self.copy_aggregate(&ty, h, v, d.span)?;
                }
                self.stamp(&ty, h, d.span)?;
                if d.init.is_none() {
                    self.implicit_ctor(&ty, h, d.span)?;
                }
                self.bind(&d.name, V::L(ty.clone(), Place::Host(h)));
            }
            Ty::Void => return err(d.span, "variable of type void"),
            Ty::Edge(_) => {
                return err(d.span, "an edge or vector type can only be the type of a vertex field")
            }
        }
        Ok(())
    }

    /// Runs a constructor of helper class `c` on the object at host address
    /// `h`, inlined like a method: the object is zeroed, reference members
    /// are bound to the arguments their initialisers name, other member
    /// initialisers become assignments ahead of the body.
    pub(crate) fn run_ctor(&mut self, c: &Rc<ClassInst>, h: Value, args: Vec<V>, span: Span) -> Result<()> {
        self.run_ctor_as(c, h, args, true, span)
    }

    /// The constructor of `c` that `args` call, and the environment its
    /// body runs in (a constructor template's parameters deduced). The one
    /// constructor that takes this many arguments, else the best of them
    /// by the arguments' types, as a call chooses among overloads.
    fn pick_ctor<'c>(&mut self, c: &'c Rc<ClassInst>, args: &[V], span: Span) -> Result<(&'c Ctor, Env)> {
        let env = Env { class: Some(c.clone()), ..c.env.clone() };
        let name = Path::simple_name(&c.name, span);
        let ctors: Vec<&Ctor> = c
            .decl
            .ast
            .members
            .iter()
            .filter_map(|m| match m {
                Member::Ctor(k) if super::call::takes(&ctor_signature(c, k), args.len()) => Some(k),
                _ => None,
            })
            .collect();
        if let [k] = ctors.as_slice() {
            let env = self.deduce(&ctor_signature(c, k), env, &name, args, span)?;
            return Ok((k, env));
        }
        let cands = ctors
            .iter()
            .map(|k| super::call::Callee {
                f: ctor_signature(c, k),
                env: env.clone(),
                this: None,
                direct: true,
            })
            .collect();
        let Some(chosen) = self.choose(cands, &name, args, span)? else {
            let what = if ctors.is_empty() { "takes" } else { "takes these" };
            return err(span, format!("no constructor of '{}' {what} {} argument(s)", c.name, args.len()));
        };
        let k = ctors.into_iter().find(|k| k.span == chosen.f.span).expect("a candidate's span");
        Ok((k, chosen.env))
    }

    /// [`Self::run_ctor`]; `complete` is false for a base subobject.
    fn run_ctor_as(
        &mut self,
        c: &Rc<ClassInst>,
        h: Value,
        args: Vec<V>,
        complete: bool,
        span: Span,
    ) -> Result<()> {
        let (k, env) = self.pick_ctor(c, &args, span)?;
        let ty = Ty::Class(c.clone());
        self.zero(h, ty.size());
        self.stamp_as(&ty, h, complete, span)?;
        let mut refs = HashMap::default();
        let mut body = Vec::new();
        // The base's constructor first: the one the initialiser list names
        // (`D(...) : B(a, b)`), else its default constructor if it has one.
        let base = match c.helper_base() {
            Some(Ty::Class(b)) => Some(b.clone()),
            _ => None,
        };
        if let Some(b) = &base {
            let named = k.inits.iter().find(|(n, _, _)| *n == b.decl.ast.name);
            if named.is_some() || b.has_ctor() {
                let (nspan, args) = named.map_or((k.span, Vec::new()), |(_, s, a)| (*s, a.clone()));
                if !b.has_ctor() {
                    return err(nspan, format!("base class '{}' has no constructor to call", b.name));
                }
                let f = Expr { span: nspan, kind: ExprKind::Name(Path::simple_name(BASE_CTOR, nspan)) };
                body.push(Stmt {
                    span: nspan,
                    kind: StmtKind::Expr(Expr { span: nspan, kind: ExprKind::Call(Box::new(f), args) }),
                });
            }
        }
        for (name, nspan, init) in &k.inits {
            if base.as_ref().is_some_and(|b| *name == b.decl.ast.name) {
                continue;
            }
            if c.refs.contains(name) {
                // A reference member names a reference parameter.
                let param = match init.as_slice() {
                    [Expr { kind: ExprKind::Name(p), .. }] => p.simple().and_then(|n| {
                        k.params.iter().position(|q| {
                            q.name.as_deref() == Some(n) && matches!(q.ty.kind, TypeKind::Ref(_))
                        })
                    }),
                    _ => None,
                };
                let Some(v) = param.and_then(|i| args.get(i)) else {
                    return err(
                        *nspan,
                        format!("reference member '{name}' must be initialised from a reference parameter"),
                    );
                };
                refs.insert(name.clone(), v.clone());
                continue;
            }
            if crate::lower::expr::member_field(c, name).is_none() {
                return err(*nspan, format!("'{}' has no member '{name}'", c.name));
            }
            let [value] = init.as_slice() else {
                return err(*nspan, format!("member initialiser of '{name}' takes one value"));
            };
            let this = Box::new(Expr { span: *nspan, kind: ExprKind::This });
            let lhs = Expr { span: *nspan, kind: ExprKind::Member(this, name.clone(), true) };
            let assign = ExprKind::Assign(None, Box::new(lhs), Box::new(value.clone()));
            body.push(Stmt { span: *nspan, kind: StmtKind::Expr(Expr { span: *nspan, kind: assign }) });
        }
        if let Some(r) = c.refs.iter().find(|r| !refs.contains_key(*r)) {
            return err(k.span, format!("reference member '{r}' is not initialised by this constructor"));
        }
        self.obj_refs.insert(h, Rc::new(refs));
        body.extend(k.body.iter().cloned());
        let f = Function { body: Some(body.into()), ..ctor_signature(c, k) };
        self.next_this = Some(V::L(ty, Place::Host(h)));
        self.inline(&f, env, args, span)?;
        Ok(())
    }

    pub(crate) fn zero(&mut self, h: Value, size: u32) {
        let z = self.b.ins().iconst(types::I8, 0);
        let mut off = 0;
        let z64 = self.b.ins().iconst(types::I64, 0);
        while off + 8 <= size {
            self.b.ins().store(mflags(), z64, h, off as i32);
            off += 8;
        }
        while off < size {
            self.b.ins().store(mflags(), z, h, off as i32);
            off += 1;
        }
    }

    pub(crate) fn init_aggregate(&mut self, ty: &Ty, h: Value, l: &[Expr], span: Span) -> Result<()> {
        let mut next = 0;
        self.init_elided(ty, h, l, &mut next, span)?;
        if next < l.len() {
            let what = if matches!(ty, Ty::Array(..)) { "array" } else { "struct" };
            return err(l[next].span, format!("too many initialisers for the {what}"));
        }
        Ok(())
    }

    /// Aggregate initialisation from `l[*next..]`, taking as many
    /// initialisers as `ty` has elements: an element that is itself an
    /// array (a base `std::array`, `float v[2]`), given a value rather than
    /// a braced list, takes its elements from the same list (C++'s brace
    /// elision: `IpuVector<float, 2>{a, b}` fills the base array).
    fn init_elided(&mut self, ty: &Ty, h: Value, l: &[Expr], next: &mut usize, span: Span) -> Result<()> {
        // Each element's type and offset, or the field that is an edge.
        // (An anonymous member takes its members' initialisers from the
        // same list; a union initialises its first member only.)
        let elems: Vec<std::result::Result<(Ty, u32, bool), &str>> = match ty {
            Ty::Array(et, n) => (0..*n).map(|i| Ok(((**et).clone(), i * et.size(), false))).collect(),
            Ty::Class(c) => {
                if c.tag.is_some() && *next < l.len() {
                    return err(
                        span,
                        format!(
                            "'{}' has virtual functions, so it is not an aggregate: a braced list needs a constructor",
                            c.name
                        ),
                    );
                }
                let n = if c.decl.ast.is_union { 1 } else { c.fields.len() };
                c.fields
                    .iter()
                    .take(n)
                    .map(|f| match &f.ty {
                        FieldTy::Plain(ft) => {
                            Ok((ft.clone(), f.offset, f.name.starts_with(crate::front::parse::ANON_FIELD)))
                        }
                        _ => Err(f.name.as_str()),
                    })
                    .collect()
            }
            _ => return err(span, "braced initialiser for a non-aggregate"),
        };
        for elem in elems {
            let Some(e) = l.get(*next) else { break };
            let (et, off, anon) = match elem {
                Ok(x) => x,
                Err(name) => {
                    return err(
                        e.span,
                        format!("cannot initialise field '{name}', a vertex edge, in a braced initialiser"),
                    )
                }
            };
            let at = self.b.ins().iadd_imm_s(h, i64::from(off));
            if (anon || matches!(et, Ty::Array(..))) && !matches!(e.kind, ExprKind::InitList(_)) {
                self.init_elided(&et, at, l, next, span)?;
                continue;
            }
            *next += 1;
            self.init_one(&et, at, e)?;
        }
        Ok(())
    }

    pub(crate) fn init_one(&mut self, ty: &Ty, at: Value, e: &Expr) -> Result<()> {
        if let ExprKind::InitList(l) = &e.kind {
            return self.init_aggregate(ty, at, l, e.span);
        }
        let v = self.expr(e)?;
        if let Ty::Ptr(_) = ty {
            let a = match v {
                V::Ptr(_, a) | V::Vec { addr: a, .. } => a,
                V::L(Ty::Ptr(_), p) => self.load_scalar(Scalar::UInt, p),
                V::C(_, CV::I(0)) => self.b.ins().iconst(types::I32, 0),
                _ => return err(e.span, "pointer member initialised from a non-pointer"),
            };
            self.store_scalar(Scalar::UInt, Place::Host(at), a);
            return Ok(());
        }
        match ty.scalar() {
            Some(s) => {
                let x = self.rv_as(v, s, e.span)?;
                self.store_scalar(s, Place::Host(at), x);
            }
            None => self.copy_aggregate(ty, at, v, e.span)?,
        }
        Ok(())
    }

    /// Copies an aggregate (from the host stack or tile memory) into host memory.
    pub(crate) fn copy_aggregate(&mut self, ty: &Ty, to: Value, v: V, span: Span) -> Result<()> {
        let v = self.as_base(ty, v);
        let V::L(vt, place) = v else {
            return err(span, format!("cannot convert {} to '{}'", self.spell_value(&v), ty.spell()));
        };
        if !vt.same(ty) {
            return err(span, format!("cannot convert '{}' to '{}'", vt.spell(), ty.spell()));
        }
        // Bytes at a time, or a vector's 64-bit pieces; never the tags
        // of polymorphic objects (`virtuals`).
        let piece = crate::lower::expr::vector_piece(ty).unwrap_or(Scalar::UChar);
        let mask = Self::tag_mask(ty);
        let mut off = 0;
        while off < ty.size() {
            if mask.iter().any(|t| (*t..*t + 4).contains(&off)) {
                off += piece.size();
                continue;
            }
            let x = match place {
                Place::Host(from) => self.b.ins().load(crate::lower::cl(piece), mflags(), from, off as i32),
                Place::Tile(a) => {
                    let at = self.b.ins().iadd_imm_s(a, off as i64);
                    self.load_scalar(piece, Place::Tile(at))
                }
                Place::Var(_) => return err(span, "cannot copy this aggregate"),
            };
            self.b.ins().store(mflags(), x, to, off as i32);
            off += piece.size();
        }
        Ok(())
    }

    /// A derived class object given where its base class is wanted: the
    /// base subobject (slicing, as C++ copies it); other values unchanged.
    pub(crate) fn as_base(&self, to: &Ty, v: V) -> V {
        match (to, &v) {
            (Ty::Class(tc), V::L(Ty::Class(vc), _)) if tc.name != vc.name => self.upcast(&v, tc).unwrap_or(v),
            _ => v,
        }
    }

    /// `D(...) : B(args)`: runs base class `B`'s constructor on the object
    /// being built (the method's object), then gives it back `D`'s tag.
    pub(crate) fn base_ctor(&mut self, args: &[Expr], span: Span) -> Result<V> {
        let Some(V::L(Ty::Class(c), Place::Host(h))) = self.lookup("<this>") else {
            return err(span, "a base class's constructor is run only by a constructor");
        };
        let Some(Ty::Class(b)) = c.helper_base().cloned() else {
            return err(span, format!("'{}' has no base class", c.name));
        };
        let vals = self.args(args)?;
        self.run_ctor_as(&b, h, vals, false, span)?;
        if c.tag.is_some() {
            self.stamp_root(&c, h);
        }
        Ok(V::Void)
    }

    /// C++'s implicit default constructor of a class that declares none:
    /// its base's default constructor, when the base (or its base) has
    /// one; then the object has its own class's tag again.
    pub(crate) fn implicit_ctor(&mut self, ty: &Ty, h: Value, span: Span) -> Result<()> {
        let Ty::Class(c) = ty else { return Ok(()) };
        if c.has_ctor() {
            return Ok(());
        }
        let Some(Ty::Class(b)) = c.helper_base().cloned() else { return Ok(()) };
        if b.has_ctor() {
            self.run_ctor_as(&b, h, Vec::new(), false, span)?;
        } else {
            self.implicit_ctor(&Ty::Class(b), h, span)?;
        }
        if c.tag.is_some() {
            self.stamp_root(c, h);
        }
        Ok(())
    }
}

/// The name of the call a constructor's base initialiser becomes.
pub(crate) const BASE_CTOR: &str = "<base constructor>";

/// Constructor `k` of `c` as a function without a body: what overload
/// resolution and deduction look at, and the frame its body is inlined in.
fn ctor_signature(c: &ClassInst, k: &Ctor) -> Function {
    Function {
        span: k.span,
        name: c.name.clone(),
        tparams: k.tparams.clone(),
        ret: TypeName { span: k.span, kind: TypeKind::Void, is_const: false },
        params: k.params.clone(),
        body: None,
        is_constexpr: false,
        is_static: false,
        is_friend: false,
        quals: FnQuals::default(),
    }
}
