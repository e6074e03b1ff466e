//! Class layout: one instantiated class's members, fields with their
//! offsets, sizes and alignment, base vertex kind, `static_assert`s, and
//! for vertices the edge types (`Input`, `Vector<…, Layout>`, …) of their
//! state.

use std::rc::Rc;

use linker::gp::{self, Direction, FieldKind, Layout, VertexBase};

use super::types::Scalar;
use super::{
    assertion_failed, ceval, type_words, ClassDecl, ClassInst, Env, FieldInfo, FieldTy, TVal, Ty, Unit,
    BASE_FIELD, CV, MAX_OBJECT_SIZE,
};
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::hash::HashMap;

impl Unit {
    pub(super) fn build_class(
        &self,
        decl: Rc<ClassDecl>,
        name: String,
        tb: HashMap<String, TVal>,
        targs: Vec<TVal>,
        outer: Option<Rc<ClassInst>>,
    ) -> Result<ClassInst> {
        let env = Env { ns: decl.ns.clone(), tb: Rc::new(tb), class: None };
        let mut base = None;
        // A helper class's own base (a helper class or `std::array`): its
        // subobject, laid out first as the field [`BASE_FIELD`].
        let mut helper_base: Option<(Span, Ty)> = None;
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
                        let t = self.resolve_type(b, &env)?;
                        match &t {
                            Ty::Class(c) if c.base.is_none() => {}
                            Ty::Array(..) => {}
                            _ => {
                                return err(
                                    b.span,
                                    "only Vertex, MultiVertex, SupervisorVertex, helper classes and std::array may be base classes",
                                )
                            }
                        }
                        if helper_base.is_some() {
                            return err(
                                b.span,
                                "a class may have one helper base class (popc has no multiple inheritance)",
                            );
                        }
                        helper_base = Some((b.span, t));
                        base
                    }
                };
            }
        }
        if let (Some(_), Some((span, _))) = (base, &helper_base) {
            return err(*span, "a vertex derives from Vertex, MultiVertex or SupervisorVertex only");
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
            tag: None,
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
            tag: None,
        });
        let fenv = Env { class: Some(provisional), ..env.clone() };
        let mut off = 0u64;
        // `alignas` on a helper class (a vertex's state layout is Poplar's).
        let mut align = if base.is_none() { decl.ast.align.unwrap_or(1) } else { 1 };
        let is_union = decl.ast.is_union;
        if let (true, Some((span, _))) = (is_union, &helper_base) {
            return err(*span, format!("union '{name}' cannot have a base class"));
        }
        // A polymorphic class: one that declares a virtual function (or
        // destructor) or derives from a polymorphic class.
        let declares_virtual = decl.ast.virtual_dtor
            || decl.ast.members.iter().any(|m| matches!(m, Member::Method(f) if f.quals.says_virtual()));
        let base_tag = match &helper_base {
            Some((_, Ty::Class(b))) => b.tag,
            _ => None,
        };
        if declares_virtual && (base.is_some() || is_union) {
            let what = if is_union { "a union" } else { "a vertex class" };
            // At the first virtual function (the class's name for a
            // virtual destructor alone).
            let at = decl.ast.members.iter().find_map(|m| match m {
                Member::Method(f) if f.quals.says_virtual() => Some(f.span),
                _ => None,
            });
            return err(
                at.unwrap_or(decl.ast.span),
                format!(
                    "virtual functions in {what} ('{name}'): {}",
                    if is_union {
                        "C++ does not allow them"
                    } else {
                        "its state is Poplar's layout, with no room for a dynamic class; declare them in a helper class"
                    }
                ),
            );
        }
        inst.tag = base_tag;
        if let Some((_, t)) = helper_base {
            off = u64::from(t.size());
            align = align.max(t.align());
            inst.fields.push(FieldInfo {
                name: BASE_FIELD.into(),
                size: t.size(),
                ty: FieldTy::Plain(t),
                offset: 0,
                is_const: false,
                min_align: 0,
            });
        }
        if declares_virtual && base_tag.is_none() {
            // The tag: first of the class's own fields (after a base that
            // is not polymorphic), a 32-bit word as an IPU pointer is.
            off = off.div_ceil(4) * 4;
            align = align.max(4);
            inst.tag = Some(off as u32);
            inst.fields.push(FieldInfo {
                name: super::TAG_FIELD.into(),
                size: 4,
                ty: FieldTy::Plain(Ty::S(Scalar::UInt)),
                offset: off as u32,
                is_const: false,
                min_align: 0,
            });
            off += 4;
        }
        let mut union_end = 0u64;
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
                // Static storage, laid out where code names it (`statics.rs`).
                continue;
            }
            if matches!(f.ty.kind, TypeKind::Ref(_)) && base.is_none() {
                if is_union {
                    return err(f.span, format!("union '{name}' cannot have a reference member"));
                }
                if f.names.len() > 1 || !f.names[0].2.is_empty() {
                    return err(f.span, "declare one reference member per declaration");
                }
                inst.refs.push(f.names[0].0.clone());
                continue;
            }
            for (fname, fspan, dims) in &f.names {
                let full = format!("{}.{}", name, fname);
                if !dims.is_empty() && base.is_some() {
                    let ty = type_words(&f.ty);
                    return err(
                        *fspan,
                        format!("field '{full}' has unsupported type '{ty}[]' (a vertex's state holds no arrays: use an edge)"),
                    );
                }
                let mut fty = self.field_type(&f.ty, &fenv, &full, base.is_some())?;
                if !dims.is_empty() {
                    // An array member of a helper class: laid out as std::array.
                    let FieldTy::Plain(mut t) = fty else {
                        return err(*fspan, format!("field '{full}': an array of edges is not supported"));
                    };
                    let mut total = u128::from(t.size());
                    let mut ns = Vec::new();
                    for d in dims {
                        let n = match ceval::eval(self, d, &fenv)? {
                            (_, CV::I(n)) if (1..=1 << 20).contains(&n) => n as u32,
                            _ => return err(d.span, "array size must be between 1 and 1048576"),
                        };
                        total = total.saturating_mul(u128::from(n));
                        ns.push(n);
                    }
                    if total > u128::from(MAX_OBJECT_SIZE) {
                        return err(
                            *fspan,
                            format!("class '{name}' is too large: more than {MAX_OBJECT_SIZE} bytes (the limit for one object)"),
                        );
                    }
                    for n in ns.into_iter().rev() {
                        t = Ty::Array(Box::new(t), n);
                    }
                    fty = FieldTy::Plain(t);
                }
                let min_align = match &fty {
                    FieldTy::Edge { elem, kind, .. } if !matches!(kind, FieldKind::Scalar) => {
                        self.min_align(&f.ty, &fenv, &full, elem.size())?
                    }
                    _ => 0,
                };
                let (size, al) = match &fty {
                    FieldTy::Edge { kind, elem, .. } => (kind.state_size(elem.elem()), 4),
                    FieldTy::Plain(t) => (t.size(), t.align()),
                };
                if is_union {
                    // Every member of a union at offset 0.
                    if matches!(&fty, FieldTy::Plain(t) if super::has_tags(t)) {
                        return err(
                            *fspan,
                            format!("member '{full}' of a union has virtual functions (its dynamic class would be lost)"),
                        );
                    }
                    union_end = union_end.max(off);
                    off = 0;
                }
                off = off.div_ceil(u64::from(al)) * u64::from(al);
                align = align.max(al);
                inst.fields.push(FieldInfo {
                    name: fname.clone(),
                    ty: fty,
                    offset: off as u32,
                    size,
                    is_const: f.ty.is_const,
                    min_align,
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
        if is_union {
            off = union_end.max(off);
        }
        // C++ checks a class template's assertions when it is instantiated.
        for m in &decl.ast.members {
            if let Member::Item(Item::StaticAssert(span, e, msg)) = m {
                self.check_assert(*span, e, msg.as_deref(), &fenv)?;
            }
        }
        if base.is_none() && inst.vector().is_some() {
            // A vector is aligned to its size (all are powers of two).
            align = (off as u32).next_power_of_two();
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

    pub(super) fn field_type(&self, t: &TypeName, env: &Env, full: &str, vertex: bool) -> Result<FieldTy> {
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

    /// The `MinAlign` argument of the innermost `Vector<T, L, MinAlign>` a
    /// field's type spells (`Input<Vector<float, SPAN, 8>>`,
    /// `Vector<Input<Vector<T, L, 8>>>`, `Vector<T, L, 8>`), in bytes, when
    /// it is more than the element's size `natural`; else 0. A power of
    /// two up to 4096, or an error.
    fn min_align(&self, t: &TypeName, env: &Env, full: &str, natural: u32) -> Result<u32> {
        let mut args: Option<&Vec<TArg>> = None;
        let mut cur = Some(t);
        while let Some(TypeName { kind: TypeKind::Named(p), .. }) = cur {
            let last = p.segs.last().unwrap();
            let Some(a) = last.args.as_ref() else { break };
            if last.name == "Vector" {
                args = Some(a);
            }
            cur = match a.first() {
                Some(TArg::Type(inner)) => Some(inner),
                _ => None,
            };
        }
        let named;
        let e = match args.as_ref().and_then(|a| a.get(2)) {
            Some(TArg::Expr(e)) => e,
            // A constant's name parses as a type.
            Some(TArg::Type(TypeName { kind: TypeKind::Named(p), span, .. })) => {
                named = Expr { kind: ExprKind::Name(p.clone()), span: *span };
                &named
            }
            Some(TArg::Type(t)) => return err(t.span, format!("field '{full}': MinAlign must be a number")),
            None => return Ok(0),
        };
        let (_, v) = super::ceval::eval(self, e, env)?;
        let n = match v {
            CV::I(n) if (1..=i128::from(gp::MAX_MIN_ALIGN)).contains(&n) && (n as u64).is_power_of_two() => {
                n as u32
            }
            _ => {
                return err(
                    e.span,
                    format!("field '{full}': MinAlign must be a power of two from 1 to 4096 bytes"),
                )
            }
        };
        Ok(if n > natural { n } else { 0 })
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
            Ty::Class(c) if c.vector().is_some() => {
                err(
                    span,
                    format!(
                        "field '{full}' has vector element type '{}': edges hold scalars (read them as vectors through a pointer, `reinterpret_cast<const {} *>(&edge[0])`)",
                        c.name, c.name
                    ),
                )
            }
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
