//! Virtual functions without dispatch tables: every object of a
//! polymorphic class carries a hidden tag naming its dynamic class
//! (`sema::ClassInst::tag`), written when the object is made (`stamp`) and
//! never by a copy or an assignment (`tag_mask`), so the tags of local
//! objects are always those of classes this function made. A virtual call
//! on an object whose class is known here (a local made in this function,
//! named through any reference or pointer to it) inlines that class's
//! final overrider; otherwise it reads the tag and branches over the
//! classes made so far that derive from the called function's class, each
//! branch inlining its final overrider. A tag no such class has (bytes in
//! tile memory that no constructor made) takes the static type's
//! overrider, or aborts when that is pure virtual, as g++'s
//! `__cxa_pure_virtual` does.

use std::rc::Rc;

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use cranelift_frontend::Variable;
use linker::abi;

use super::call::Callee;
use super::{cl, mflags, Lowerer, Place, V};
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::sema::types::Scalar;
use crate::sema::{has_tags, ClassInst, Env, FieldTy, Ty, BASE_FIELD, TAG_FIELD};

/// How the results of a dispatch's branches are joined.
enum Join {
    Unset,
    Void,
    Scalar(Variable, Scalar),
    Host(Variable, Ty),
    Tile(Variable, Ty),
    Ptr(Variable, Ty),
}

impl Lowerer<'_, '_> {
    /// Writes the tags of a new object of type `ty` at host address `h`:
    /// its own (when polymorphic), its members' and its elements'. An
    /// object of an abstract class is an error, as in C++.
    pub(crate) fn stamp(&mut self, ty: &Ty, h: Value, span: Span) -> Result<()> {
        self.stamp_as(ty, h, true, span)
    }

    /// [`Self::stamp`], where `complete` is false for an object made as
    /// some constructor's base subobject (which may be abstract).
    pub(crate) fn stamp_as(&mut self, ty: &Ty, h: Value, complete: bool, span: Span) -> Result<()> {
        if !has_tags(ty) {
            return Ok(());
        }
        self.stamp_at(ty, h, complete, span)?;
        if let Ty::Class(c) = ty {
            if c.tag.is_some() {
                self.exact.insert(h, c.clone());
            }
        }
        Ok(())
    }

    fn stamp_at(&mut self, ty: &Ty, h: Value, complete: bool, span: Span) -> Result<()> {
        match ty {
            Ty::Class(c) => {
                if complete {
                    self.check_concrete(c, span)?;
                }
                for f in &c.fields {
                    let FieldTy::Plain(ft) = &f.ty else { continue };
                    if f.name == TAG_FIELD || !has_tags(ft) {
                        continue;
                    }
                    let at = self.b.ins().iadd_imm_s(h, i64::from(f.offset));
                    self.stamp_at(ft, at, f.name != BASE_FIELD, span)?;
                }
                // The class's own tag last: a base subobject's is the same word.
                if c.tag.is_some() {
                    self.write_tag(c, h);
                }
            }
            Ty::Array(et, n) => {
                let (et, size) = ((**et).clone(), i64::from(et.size()));
                if *n <= 8 {
                    for i in 0..i64::from(*n) {
                        let at = self.b.ins().iadd_imm_s(h, i * size);
                        self.stamp_at(&et, at, complete, span)?;
                    }
                } else {
                    let n = self.b.ins().iconst(types::I64, i64::from(*n));
                    self.counted_loop(n, |l, i| {
                        let off = l.b.ins().imul_imm_s(i, size);
                        let at = l.b.ins().iadd(h, off);
                        l.stamp_at(&et, at, complete, span)
                    })?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Writes class `c`'s tag into the object at `h`.
    fn write_tag(&mut self, c: &Rc<ClassInst>, h: Value) {
        let Some(off) = c.tag else { return };
        let t = self.b.ins().iconst(types::I32, i64::from(c.tag_value()));
        self.b.ins().store(mflags(), t, h, off as i32);
        if !self.dyn_classes.iter().any(|d| d.name == c.name) {
            self.dyn_classes.push(c.clone());
        }
    }

    /// Gives the object at `h` class `c`'s tag again, after its base's
    /// constructor ran with the base's (as C++ does).
    pub(crate) fn stamp_root(&mut self, c: &Rc<ClassInst>, h: Value) {
        self.write_tag(c, h);
        self.exact.insert(h, c.clone());
    }

    /// An error when `c` is abstract: some pure virtual function of it or
    /// its bases has no overrider.
    fn check_concrete(&self, c: &Rc<ClassInst>, span: Span) -> Result<()> {
        let mut k = Some(c.clone());
        while let Some(cls) = k {
            for m in &cls.decl.ast.members {
                let Member::Method(f) = m else { continue };
                if (f.quals.is_override || (f.quals.is_final && !f.quals.is_virtual))
                    && !self.overrides_base(&cls, f)
                {
                    return err(
                        f.span,
                        format!(
                            "'{}' of '{}' is marked '{}' but overrides no virtual function of a base class",
                            f.name,
                            cls.name,
                            if f.quals.is_override { "override" } else { "final" }
                        ),
                    );
                }
                if !f.quals.is_pure {
                    continue;
                }
                if let Some((_, o)) = self.overrider(c, f, &cls)? {
                    if o.quals.is_pure {
                        return err(
                            span,
                            format!(
                                "cannot make an object of abstract class '{}': '{}' is pure virtual in '{}'",
                                c.name, f.name, cls.name
                            ),
                        );
                    }
                }
            }
            k = match cls.helper_base() {
                Some(Ty::Class(b)) => Some(b.clone()),
                _ => None,
            };
        }
        Ok(())
    }

    /// The offsets of the tag words in an object of type `ty`, which
    /// copies and assignments leave as they are.
    pub(crate) fn tag_mask(ty: &Ty) -> Vec<u32> {
        let mut out = Vec::new();
        if has_tags(ty) {
            crate::sema::tag_offsets(ty, 0, &mut out);
            out.sort_unstable();
            out.dedup();
        }
        out
    }

    /// Whether parameters `a` (of a function in `ea`) and `b` (in `eb`)
    /// declare the same signature: name, `const`, parameter types.
    fn same_signature(&self, a: &Function, ea: &Env, b: &Function, eb: &Env) -> bool {
        if a.name != b.name || a.params.len() != b.params.len() || a.quals.is_const != b.quals.is_const {
            return false;
        }
        a.params.iter().zip(&b.params).all(|(x, y)| {
            let shape = |t: &TypeName| match &t.kind {
                TypeKind::Ref(inner) => (true, inner.is_const),
                _ => (false, false),
            };
            if shape(&x.ty) != shape(&y.ty) {
                return false;
            }
            let _trial = crate::diag::trial();
            let strip = crate::sema::ceval::strip_ref;
            match (self.p.resolve_type(strip(&x.ty), ea), self.p.resolve_type(strip(&y.ty), eb)) {
                (Ok(s), Ok(t)) => s.same(&t),
                _ => false,
            }
        })
    }

    fn class_env(c: &Rc<ClassInst>) -> Env {
        Env { class: Some(c.clone()), ..c.env.clone() }
    }

    /// Whether method `f` of class `owner` is virtual: declared so, or
    /// overriding a virtual function of a base.
    pub(crate) fn is_virtual(&self, owner: &Rc<ClassInst>, f: &Function) -> bool {
        if f.quals.says_virtual() {
            return true;
        }
        if f.is_static || f.is_friend || owner.tag.is_none() {
            return false;
        }
        self.overrides_base(owner, f)
    }

    /// Whether method `f` of class `owner` has the signature of a virtual
    /// function of one of `owner`'s bases.
    fn overrides_base(&self, owner: &Rc<ClassInst>, f: &Function) -> bool {
        let env = Self::class_env(owner);
        let mut k = owner.helper_base().cloned();
        while let Some(Ty::Class(cls)) = k {
            let cenv = Self::class_env(&cls);
            for m in &cls.decl.ast.members {
                if let Member::Method(g) = m {
                    if g.quals.says_virtual() && self.same_signature(g, &cenv, f, &env) {
                        return true;
                    }
                }
            }
            k = cls.helper_base().cloned();
        }
        false
    }

    /// The final overrider in class `d` of virtual function `f` of class
    /// `owner` (a base of `d`, or `d`): the nearest declaration with `f`'s
    /// signature from `d` up. `None` when `d` does not derive from `owner`.
    fn overrider(
        &self,
        d: &Rc<ClassInst>,
        f: &Function,
        owner: &Rc<ClassInst>,
    ) -> Result<Option<(Rc<ClassInst>, Function)>> {
        let env = Self::class_env(owner);
        let mut k = Some(d.clone());
        while let Some(cls) = k {
            if cls.name == owner.name {
                return Ok(Some((cls, f.clone())));
            }
            let cenv = Self::class_env(&cls);
            for m in &cls.decl.ast.members {
                if let Member::Method(g) = m {
                    if !g.is_static && !g.is_friend && self.same_signature(g, &cenv, f, &env) {
                        return Ok(Some((cls.clone(), g.clone())));
                    }
                }
            }
            k = match cls.helper_base() {
                Some(Ty::Class(b)) => Some(b.clone()),
                _ => None,
            };
        }
        Ok(None)
    }

    /// A call of `c` dispatched on its object's dynamic class, when `c`
    /// is a virtual function called without qualification; `None` when it
    /// is not virtual (the caller inlines it as it is).
    pub(crate) fn virtual_call(&mut self, c: &Callee, vals: &[V], span: Span) -> Result<Option<V>> {
        let (Some(owner), Some(V::L(Ty::Class(_), place))) = (c.env.class.clone(), c.this.clone()) else {
            return Ok(None);
        };
        if owner.base.is_some() || !self.is_virtual(&owner, &c.f) {
            return Ok(None);
        }
        let Some(tag_off) = owner.tag else { return Ok(None) };
        // The called function's return type, which an overrider's covariant
        // one is converted to.
        let ret = {
            let _trial = crate::diag::trial();
            let strip = crate::sema::ceval::strip_ref;
            self.p.resolve_type(strip(&c.f.ret), &Self::class_env(&owner)).ok()
        };
        // The dynamic class known here: inline its overrider alone.
        let known = match place {
            Place::Host(h) => self.exact.get(&h).cloned(),
            _ => None,
        };
        if let Some(d) = known {
            if let Some((oc, of)) = self.overrider(&d, &c.f, &owner)? {
                let v = self.call_overrider(&oc, of, place, vals, span)?;
                return Ok(Some(self.covariant(v, ret.as_ref())));
            }
        }
        // The classes made so far that derive from `owner`, grouped by
        // their overrider; those with the owner's own need no test.
        let mut groups: Vec<(Rc<ClassInst>, Function, Vec<u32>)> = Vec::new();
        let dyn_classes: Vec<Rc<ClassInst>> =
            self.dyn_classes.iter().filter(|d| d.derives_from(&owner)).cloned().collect();
        for d in dyn_classes {
            let Some((oc, of)) = self.overrider(&d, &c.f, &owner)? else { continue };
            if oc.name == owner.name && !of.quals.is_pure {
                continue;
            }
            let tag = d.tag_value();
            match groups.iter_mut().find(|(gc, gf, _)| gc.name == oc.name && gf.span == of.span) {
                Some(g) => g.2.push(tag),
                None => groups.push((oc, of, vec![tag])),
            }
        }
        if groups.is_empty() && !c.f.quals.is_pure {
            return Ok(None);
        }
        let tag = match place {
            Place::Host(h) => self.b.ins().load(types::I32, mflags(), h, tag_off as i32),
            Place::Tile(a) => {
                let at = self.b.ins().iadd_imm_s(a, i64::from(tag_off));
                self.derive(a, at);
                self.load_scalar(Scalar::UInt, Place::Tile(at))
            }
            Place::Var(_) => return err(span, "virtual call on an object in a register"),
        };
        let join = self.b.create_block();
        let mut state = Join::Unset;
        for (oc, of, tags) in groups {
            let mut cond = None;
            for t in tags {
                let eq = self.b.ins().icmp_imm_u(IntCC::Equal, tag, i64::from(t));
                cond = Some(match cond {
                    Some(c) => self.b.ins().bor(c, eq),
                    None => eq,
                });
            }
            let (yes, no) = (self.b.create_block(), self.b.create_block());
            self.brif(cond.expect("a group has a tag"), yes, no);
            self.b.switch_to_block(yes);
            if of.quals.is_pure {
                self.pure_call();
            } else {
                let v = self.call_overrider(&oc, of, place, vals, span)?;
                let v = self.covariant(v, ret.as_ref());
                self.join_value(&mut state, v, span)?;
            }
            self.jump(join, &[]);
            self.b.switch_to_block(no);
        }
        if c.f.quals.is_pure {
            self.pure_call();
        } else {
            let v = self.call_overrider(&owner, c.f.clone(), place, vals, span)?;
            self.join_value(&mut state, v, span)?;
        }
        self.jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(Some(match state {
            Join::Unset | Join::Void => V::Void,
            Join::Scalar(var, s) => V::R(s, self.b.use_var(var)),
            Join::Host(var, t) => V::L(t, Place::Host(self.b.use_var(var))),
            Join::Tile(var, t) => V::L(t, Place::Tile(self.b.use_var(var))),
            Join::Ptr(var, t) => V::Ptr(t, self.b.use_var(var)),
        }))
    }

    /// An overrider's result as the called function's declared return
    /// type `ret`: a reference or pointer to a class derived from the one
    /// declared (a covariant return type) becomes one to that base, which
    /// is at offset 0, so at the same address.
    fn covariant(&self, v: V, ret: Option<&Ty>) -> V {
        match (ret, v) {
            (Some(to @ Ty::Class(_)), v @ V::L(Ty::Class(_), _)) => self.as_base(to, v),
            (Some(Ty::Ptr(to)), V::Ptr(Ty::Class(d), a)) => match &**to {
                Ty::Class(b) if d.name != b.name && d.derives_from(b) => V::Ptr((**to).clone(), a),
                _ => V::Ptr(Ty::Class(d), a),
            },
            (_, v) => v,
        }
    }

    /// A call of a pure virtual function: aborts, as g++'s
    /// `__cxa_pure_virtual` does.
    fn pure_call(&mut self) {
        let yes = self.b.ins().iconst(types::I8, 1);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.trap_if(yes, abi::STATUS_EXIT, zero);
    }

    fn call_overrider(
        &mut self,
        oc: &Rc<ClassInst>,
        f: Function,
        place: Place,
        vals: &[V],
        span: Span,
    ) -> Result<V> {
        let callee = Callee {
            f,
            env: Self::class_env(oc),
            this: Some(V::L(Ty::Class(oc.clone()), place)),
            direct: true,
        };
        self.call_callee(callee, vals.to_vec(), span)
    }

    /// Adds one branch's result to the dispatch's joined result.
    fn join_value(&mut self, state: &mut Join, v: V, span: Span) -> Result<()> {
        let mismatch =
            || err(span, "the overriders of this virtual function return different kinds of value");
        match (&*state, v) {
            (Join::Unset | Join::Void, V::Void) => *state = Join::Void,
            (Join::Unset, v @ (V::C(..) | V::R(..))) => {
                let s = self.ty_of(&v).expect("a scalar");
                let var = self.b.declare_var(cl(s));
                let x = self.rv_as(v, s, span)?;
                self.b.def_var(var, x);
                *state = Join::Scalar(var, s);
            }
            (Join::Scalar(var, s), v @ (V::C(..) | V::R(..))) => {
                let (var, s) = (*var, *s);
                let x = self.rv_as(v, s, span)?;
                self.b.def_var(var, x);
            }
            (Join::Unset, V::L(t, Place::Host(h))) => {
                let var = self.b.declare_var(types::I64);
                self.b.def_var(var, h);
                *state = Join::Host(var, t);
            }
            (Join::Host(var, t0), V::L(t, Place::Host(h))) if t.same(t0) => self.b.def_var(*var, h),
            (Join::Unset, V::L(t, Place::Tile(a))) => {
                let var = self.b.declare_var(types::I32);
                self.b.def_var(var, a);
                *state = Join::Tile(var, t);
            }
            (Join::Tile(var, t0), V::L(t, Place::Tile(a))) if t.same(t0) => self.b.def_var(*var, a),
            (Join::Unset, V::Ptr(t, a)) => {
                let var = self.b.declare_var(types::I32);
                self.b.def_var(var, a);
                *state = Join::Ptr(var, t);
            }
            (Join::Ptr(var, t0), V::Ptr(t, a)) if t.same(t0) => self.b.def_var(*var, a),
            (_, V::L(_, Place::Var(_)) | V::Local { .. }) => {
                return err(
                    span,
                    "a virtual function returning a reference to a local scalar or the address of a local \
                     is not supported",
                )
            }
            _ => return mismatch(),
        }
        Ok(())
    }
}
