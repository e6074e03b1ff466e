//! Names of objects in static storage (`sema/statics.rs`): a
//! namespace-scope variable, a static data member named inside its class,
//! as `C::m` or through an object (`obj.m`), or a local variable declared
//! `static`. Each is tile memory at
//! `TileCtx::statics` plus its offset in the codelet object's block.

use std::rc::Rc;

use cranelift_codegen::ir::{types, InstBuilder};
use linker::abi;

use super::{mflags, Lowerer, Place, V};
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::sema::ceval;
use crate::sema::statics::StaticRef;
use crate::sema::{ClassInst, Env, Ty};

/// What a name of a static data member found.
pub(crate) enum Found {
    /// An object in static storage.
    Object(V),
    /// A constant (or nothing of that name): constant evaluation decides.
    Constant,
    Nothing,
}

impl Lowerer<'_, '_> {
    /// The object in static storage that path `p` names here, if it
    /// names one: a static data member of the class whose code this is
    /// (or of a base), a member named through its class (`C::m`,
    /// `C<T>::m`), or a namespace-scope variable. Locals and the vertex's
    /// fields are looked up before; constants are left to constant
    /// evaluation.
    pub(crate) fn static_name(&mut self, p: &Path) -> Result<Option<V>> {
        if let (Some(n), Some(c)) = (p.simple(), self.env.class.clone()) {
            match self.static_member(&c, n)? {
                Found::Object(v) => return Ok(Some(v)),
                Found::Constant => return Ok(None),
                Found::Nothing => {}
            }
        }
        let name: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
        let name = name.join("::");
        for q in self.p.candidates(&self.env.ns, &name, p.global) {
            if self.p.globals.contains_key(&q) {
                return Ok(self.p.global_storage(&q)?.map(|(t, off)| self.static_object(t, off)));
            }
        }
        if p.segs.len() >= 2 {
            let mut cp = p.clone();
            cp.segs.pop();
            let tn = TypeName { span: p.span, kind: TypeKind::Named(cp), is_const: false };
            let own = self.env.class.clone().filter(|c| {
                // The class's own name inside it (`C::m` in `C<T>`).
                matches!(cp_name(p), Some(n) if n == c.decl.ast.name || n == c.name)
            });
            let class = match own {
                Some(c) => Ok(Ty::Class(c)),
                None => {
                    let _trial = crate::diag::trial();
                    self.p.resolve_type(&tn, &self.env)
                }
            };
            match class {
                Ok(Ty::Class(c)) => {
                    if let Found::Object(v) = self.static_member(&c, p.last())? {
                        return Ok(Some(v));
                    }
                }
                Err(d) if d.is_limit() => return Err(d),
                _ => {}
            }
        }
        Ok(None)
    }

    /// `obj.m` or `ptr->m` where `m` is a static data member of the
    /// object's class `c`: the member (the object is not used).
    pub(crate) fn static_of_object(&mut self, c: &Rc<ClassInst>, m: &str, span: Span) -> Result<Option<V>> {
        Ok(match self.static_member(c, m)? {
            Found::Object(v) => Some(v),
            Found::Constant => {
                let path = Path { span, global: false, segs: vec![Seg { name: m.to_string(), args: None }] };
                let env = Env { class: Some(c.clone()), ..c.env.clone() };
                let (s, v) = ceval::eval(self.p, &Expr { span, kind: ExprKind::Name(path) }, &env)?;
                Some(V::C(s, v))
            }
            Found::Nothing => None,
        })
    }

    /// A local variable declared `static` (not a constant scalar, which
    /// is bound as a constant): its object in static storage.
    pub(crate) fn local_static(&mut self, d: &VarDecl) -> Result<V> {
        if matches!(d.ty.kind, TypeKind::Ref(_)) {
            return err(d.span, format!("static local reference '{}' is not supported", d.name));
        }
        let (t, off) = self.p.local_storage(d, &self.env)?;
        Ok(self.static_object(t, off))
    }

    /// Static data member `n` of class `c` (or of a base).
    pub(crate) fn static_member(&mut self, c: &Rc<ClassInst>, n: &str) -> Result<Found> {
        Ok(match self.p.static_member_ref(c, n)? {
            Some(StaticRef::Storage(t, off)) => Found::Object(self.static_object(t, off)),
            Some(StaticRef::Constant) => Found::Constant,
            None => Found::Nothing,
        })
    }

    /// The object of type `t` at `offset` in the static storage of this
    /// tile.
    fn static_object(&mut self, t: Ty, offset: u32) -> V {
        let base = self.b.ins().load(types::I32, mflags(), self.ctx, abi::OFFSET_STATICS);
        let at = self.b.ins().iadd_imm_s(base, i64::from(offset));
        V::L(t, Place::Tile(at))
    }
}

/// The class part of a path `C::m` when it is one plain name.
fn cp_name(p: &Path) -> Option<&str> {
    match p.segs.as_slice() {
        [c, _] if c.args.is_none() && !p.global => Some(c.name.as_str()),
        _ => None,
    }
}
