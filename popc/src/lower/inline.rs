//! Inlining: every user function, method and lambda call is lowered in
//! place, with its parameters bound as names in a new frame (a method's
//! object makes its fields names), its returns (scalars, classes by value,
//! pointers and references) joined at the frame's exit block, and the
//! bounds on recursion and on inlined code. Also the scopes names live in.

use std::rc::Rc;

use cranelift_codegen::ir::{types, InstBuilder, Value};
use linker::abi;

use super::{cl, Frame, LambdaVal, Lowerer, Place, RetOther, MAX_INLINED_CALLS, V};
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::hash::HashMap;
use crate::sema::types::Scalar;
use crate::sema::{Env, FieldTy, Ty, CV};

impl Lowerer<'_, '_> {
    // -------------------------------------------------------------- scopes

    pub(crate) fn lookup(&self, n: &str) -> Option<V> {
        let base = self.frames.last().map_or(0, |f| f.scope_base);
        for s in self.scopes[base..].iter().rev() {
            if let Some(v) = s.get(n) {
                return Some(v.clone());
            }
        }
        None
    }

    pub(crate) fn bind(&mut self, n: &str, v: V) {
        self.scopes.last_mut().unwrap().insert(n.to_string(), v);
    }

    pub(crate) fn new_var(&mut self, s: Scalar, init: Value) -> V {
        let var = self.b.declare_var(cl(s));
        if self.readonly.contains(&init) {
            // An integer local holding an `Input` edge's address.
            self.readonly_vars.insert(cranelift_codegen::entity::EntityRef::index(var));
        }
        self.b.def_var(var, init);
        V::L(Ty::S(s), Place::Var(var))
    }

    // ------------------------------------------------------------- inlining

    pub(crate) fn inline(&mut self, f: &Function, fenv: Env, args: Vec<V>, span: Span) -> Result<V> {
        let key = format!("{}@{}:{}", f.name, f.span.file, f.span.lo);
        if self.calls.contains(&key) {
            return err(span, format!("recursive call of '{}': codelets cannot recurse", f.name));
        }
        if self.calls.len() > 64 {
            return err(span, "calls nested too deeply");
        }
        self.inlined += 1;
        if self.inlined > MAX_INLINED_CALLS {
            return err(
                span,
                format!(
                    "inlined code too large: this call of '{}' is the {}th call inlined into one vertex \
                     (popc inlines every call; the limit is {MAX_INLINED_CALLS})",
                    f.name, self.inlined
                ),
            );
        }
        self.check_size(span, &f.name)?;
        let Some(body) = &f.body else {
            return err(span, format!("function '{}' has no definition", f.name));
        };
        if args.len() > f.params.len() {
            return err(span, format!("too many arguments to '{}'", f.name));
        }
        // Bind parameters in the callee's environment; a method's object
        // makes its fields names (parameters shadow them).
        let this = self.next_this.take();
        let saved_env = std::mem::replace(&mut self.env, fenv);
        let mut bound = HashMap::default();
        if let Some(obj) = this {
            self.bind_members(&obj, &mut bound);
        }
        let mut args = args.into_iter();
        for prm in &f.params {
            let a = match args.next() {
                Some(a) => a,
                None => match &prm.default {
                    Some(d) => self.expr(d)?,
                    None => {
                        self.env = saved_env;
                        return err(span, format!("too few arguments to '{}'", f.name));
                    }
                },
            };
            let is_ref = matches!(prm.ty.kind, TypeKind::Ref(_));
            let ty = self.p.resolve_type(&prm.ty, &self.env)?;
            // A derived object given for its base is the base subobject.
            let a = match (&ty, &a) {
                (Ty::Class(pc), V::L(Ty::Class(ac), _)) if pc.name != ac.name => {
                    self.upcast(&a, pc).unwrap_or(a)
                }
                _ => a,
            };
            let v = if is_ref {
                a
            } else if let (Ty::Ptr(t), V::Local { .. } | V::L(Ty::Array(..), Place::Host(_))) = (&ty, &a) {
                // The address of a caller's local (or its array, decayed):
                // known here as there. A `void *` keeps the pointee's type.
                let to = match (&**t, &a) {
                    (Ty::Void, V::Local { ty, .. }) => ty.clone(),
                    (Ty::Void, V::L(Ty::Array(e, _), _)) => (**e).clone(),
                    (t, _) => t.clone(),
                };
                self.local_pointer(&a, &to, prm.span)?.expect("a local address")
            } else if let Ty::Ptr(t) = &ty {
                // A pointer parameter is a variable of its own.
                let addr = match a {
                    V::Ptr(_, x) | V::Vec { addr: x, .. } => x,
                    V::L(Ty::Ptr(_), p) => self.load_scalar(Scalar::UInt, p),
                    V::C(_, CV::I(0)) => self.b.ins().iconst(types::I32, 0),
                    _ => {
                        return err(
                            span,
                            format!("argument for pointer parameter of '{}' is not a pointer", f.name),
                        )
                    }
                };
                let var = self.b.declare_var(types::I32);
                self.def_ptr(var, addr);
                V::L(Ty::Ptr(t.clone()), Place::Var(var))
            } else if let (Ty::Class(_), V::L(Ty::Class(_), _)) = (&ty, &a) {
                // A class by value: the callee's own copy.
                let h = self.stack(ty.size(), ty.align());
                self.copy_aggregate(&ty, h, a, prm.span)?;
                self.stamp(&ty, h, prm.span)?;
                V::L(ty.clone(), Place::Host(h))
            } else if ty.scalar().is_none() {
                a
            } else {
                let s = ty.scalar().unwrap();
                let x = self.rv_as(a, s, prm.span)?;
                self.new_var(s, x)
            };
            if let Some(n) = &prm.name {
                bound.insert(n.clone(), v);
            }
        }
        let ret_ty = match &f.ret.kind {
            TypeKind::Auto => Ty::Auto,
            _ => self.p.resolve_type(&f.ret, &self.env)?,
        };
        let exit = self.b.create_block();
        let by_ref = matches!(&f.ret.kind, TypeKind::Ref(inner) if !inner.is_const)
            && !matches!(ret_ty, Ty::Auto | Ty::Void);
        let ret = match ret_ty.scalar() {
            Some(s) if !by_ref => Some((self.b.declare_var(cl(s)), s)),
            _ => None,
        };
        let ret_other = if by_ref {
            let var = self.b.declare_var(types::I64);
            let z = self.b.ins().iconst(types::I64, 0);
            self.b.def_var(var, z);
            RetOther::Ref(var, None)
        } else {
            match &ret_ty {
                Ty::Class(_) | Ty::Array(..) => RetOther::Agg(self.stack(ret_ty.size(), ret_ty.align())),
                Ty::Ptr(_) => {
                    let var = self.b.declare_var(types::I32);
                    let z = self.b.ins().iconst(types::I32, 0);
                    self.b.def_var(var, z);
                    RetOther::Ptr(var)
                }
                _ => RetOther::None,
            }
        };
        if let Some((var, s)) = ret {
            let z = self.konst(s, CV::I(0));
            self.b.def_var(var, z);
        }
        let auto_ret = matches!(ret_ty, Ty::Auto);
        self.calls.push(key);
        let scope_base = self.next_base.take().unwrap_or(self.scopes.len());
        self.frames.push(Frame { exit, ret, ret_ty, auto_ret, scope_base, ret_other });
        self.scopes.push(bound);
        let r = self.stmts(body);
        self.scopes.pop();
        let frame = self.frames.pop().unwrap();
        self.calls.pop();
        self.env = saved_env;
        r?;
        // Reaching the end of a function that returns a value is undefined
        // in C++; clang traps there and so does UBSan's `return` check.
        // Where every path returns, this block is unreachable and removed.
        let returns_value = frame.ret.is_some() || !matches!(frame.ret_other, RetOther::None);
        if returns_value && !frame.auto_ret {
            let yes = self.b.ins().iconst(types::I8, 1);
            let zero = self.b.ins().iconst(types::I64, 0);
            self.trap_if(yes, abi::STATUS_NO_RETURN, zero);
        }
        self.jump(exit, &[]);
        self.b.switch_to_block(exit);
        Ok(match (frame.ret, frame.ret_other) {
            (Some((var, s)), _) => V::R(s, self.b.use_var(var)),
            (None, RetOther::Agg(h)) => {
                self.stamp(&frame.ret_ty, h, span)?;
                V::L(frame.ret_ty, Place::Host(h))
            }
            (None, RetOther::Ptr(var)) => {
                let Ty::Ptr(t) = frame.ret_ty else { unreachable!() };
                V::Ptr(*t, self.b.use_var(var))
            }
            (None, RetOther::Ref(var, host)) => {
                let a = self.b.use_var(var);
                match host {
                    Some(true) => V::L(frame.ret_ty, Place::Host(a)),
                    Some(false) => V::L(frame.ret_ty, Place::Tile(self.b.ins().ireduce(types::I32, a))),
                    None => return err(span, format!("'{}' returns a reference but never returns", f.name)),
                }
            }
            (None, RetOther::None) => V::Void,
        })
    }
    /// `return v` from a function returning a class, a pointer or a reference.
    pub(super) fn return_other(&mut self, other: RetOther, v: V, span: Span) -> Result<()> {
        match other {
            RetOther::Agg(h) => {
                let ty = self.frames.last().unwrap().ret_ty.clone();
                self.copy_aggregate(&ty, h, v, span)?;
            }
            RetOther::Ptr(var) => {
                let a = match v {
                    V::Ptr(_, a) | V::Vec { addr: a, .. } => a,
                    V::L(Ty::Ptr(_), p) => self.load_scalar(Scalar::UInt, p),
                    V::C(_, CV::I(0)) => self.b.ins().iconst(types::I32, 0),
                    _ => return err(span, "returning a non-pointer from a function returning a pointer"),
                };
                self.b.def_var(var, a);
            }
            RetOther::Ref(var, host) => {
                let (a, is_host) = match v {
                    V::L(_, Place::Host(h)) => (h, true),
                    V::L(_, Place::Tile(a)) | V::EdgeS { addr: a, .. } => {
                        (self.b.ins().uextend(types::I64, a), false)
                    }
                    _ => return err(
                        span,
                        "a returned reference must refer to tile memory or a local array or struct element",
                    ),
                };
                if host.is_some_and(|h| h != is_host) {
                    return err(span, "returned references refer to different kinds of memory");
                }
                self.b.def_var(var, a);
                if let Some(RetOther::Ref(_, h)) = self.frames.last_mut().map(|f| &mut f.ret_other) {
                    *h = Some(is_host);
                }
            }
            RetOther::None => {}
        }
        Ok(())
    }

    /// The fields of a class object as names (lvalues), for the body of a
    /// method called on it; `<this>` names the object itself.
    fn bind_members(&mut self, obj: &V, bound: &mut HashMap<String, V>) {
        let V::L(Ty::Class(c), place) = obj else { return };
        for f in &c.fields {
            let FieldTy::Plain(t) = &f.ty else { continue };
            let at = match place {
                Place::Host(h) => Place::Host(self.b.ins().iadd_imm_s(*h, f.offset as i64)),
                Place::Tile(a) => {
                    let at = self.b.ins().iadd_imm_s(*a, f.offset as i64);
                    self.derive(*a, at);
                    Place::Tile(at)
                }
                Place::Var(_) => continue,
            };
            if let (true, Ty::Class(_)) = (f.name.starts_with(crate::front::parse::ANON_FIELD), t) {
                // An anonymous struct or union: its members are the class's.
                let mut inner = HashMap::default();
                self.bind_members(&V::L(t.clone(), at), &mut inner);
                inner.remove("<this>");
                for (k, v) in inner {
                    bound.entry(k).or_insert(v);
                }
                continue;
            }
            bound.insert(f.name.clone(), V::L(t.clone(), at));
        }
        // The base's members, where the class does not hide them.
        if let Some(b @ Ty::Class(_)) = c.helper_base() {
            let mut inherited = HashMap::default();
            self.bind_members(&V::L(b.clone(), *place), &mut inherited);
            inherited.remove("<this>");
            for (k, v) in inherited {
                bound.entry(k).or_insert(v);
            }
        }
        if let Place::Host(h) = place {
            if let Some(refs) = self.obj_refs.get(h) {
                bound.extend(refs.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        bound.insert("<this>".into(), obj.clone());
    }

    pub(crate) fn field(&self, n: &str) -> Option<V> {
        self.fields.get(n).cloned()
    }
    /// The local variables and fields a name may mean here (for "did you mean").
    pub(crate) fn names_in_scope(&self) -> impl Iterator<Item = &String> {
        let base = self.frames.last().map_or(0, |f| f.scope_base);
        self.scopes[base..].iter().flat_map(|s| s.keys()).chain(self.fields.keys())
    }
    pub(crate) fn scopes_snapshot(&self) -> Vec<HashMap<String, V>> {
        let base = self.frames.last().map_or(0, |f| f.scope_base);
        self.scopes[base..].to_vec()
    }
    pub(crate) fn call_lambda(&mut self, l: &Rc<LambdaVal>, args: Vec<V>, span: Span) -> Result<V> {
        let f = Function {
            span: l.0.body.first().map_or(span, |s| s.span),
            name: "lambda".into(),
            tparams: None,
            ret: l.0.ret.clone().unwrap_or(TypeName { span, kind: TypeKind::Auto, is_const: false }),
            params: l.0.params.clone(),
            body: Some(l.0.body.as_slice().into()),
            is_constexpr: false,
            is_static: false,
            is_friend: false,
            quals: FnQuals::default(),
        };
        // Captured scopes become the base of the lambda's frame.
        let n = l.1.len();
        for s in &l.1 {
            self.scopes.push(s.clone());
        }
        let base_before = self.scopes.len() - n;
        // Inline with the captured scopes visible: temporarily lower the frame base.
        let r = self.inline_with_base(&f, l.2.clone(), args, span, base_before);
        for _ in 0..n {
            self.scopes.pop();
        }
        r
    }

    fn inline_with_base(
        &mut self,
        f: &Function,
        fenv: Env,
        args: Vec<V>,
        span: Span,
        base: usize,
    ) -> Result<V> {
        // Same as `inline`, but names in scopes from `base` stay visible.
        self.next_base = Some(base);
        self.inline(f, fenv, args, span)
    }
}
