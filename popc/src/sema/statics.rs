//! Static storage: a vertex class's non-constant static data members
//! (`static float partial[6];`, defined outside the class as
//! `float C::partial[6] = {-1};`). On the IPU such a member is ordinary
//! tile memory, one copy per tile shared by every vertex of the class on
//! that tile (workers of a `MultiVertex` share partial results through
//! one). Here each is laid out in its class's block of static storage with
//! its initial bytes; `popc`'s `build` joins the blocks into the object's
//! `linker::gp::Statics` and lowering addresses a member as
//! `TileCtx::statics` plus the class block's offset plus its own.

use super::types::Scalar;
use super::{ceval, type_words, ClassInst, Env, StaticInfo, Ty, Unit, CV, MAX_OBJECT_SIZE};
use crate::diag::{err, Result};
use crate::front::ast::*;

impl Unit {
    /// Lays out the static data members `f` declares in vertex class
    /// `inst` (whose fields are done) after the ones before it, each with
    /// its initial value from its definition outside the class (or an
    /// `inline` initialiser in it).
    pub(super) fn add_statics(&self, inst: &mut ClassInst, f: &FieldDecl, env: &Env) -> Result<()> {
        for (fname, fspan, dims) in &f.names {
            let q = format!("{}::{}", inst.decl.qual, fname);
            let def = self.static_defs.get(&q);
            let init = match (def, &f.init) {
                (Some(d), _) => d.init.as_ref(),
                (None, Some(i)) => Some(i),
                (None, None) => {
                    return err(
                        *fspan,
                        format!(
                            "static data member '{q}' is declared but never defined: C++ needs its \
                             definition outside the class ('{} {q}…;'), or 'inline' with an initialiser",
                            type_words(&f.ty)
                        ),
                    )
                }
            };
            // `static int a[];` in the class takes its bound from the definition.
            let dims = match def {
                Some(d) if dims.is_empty() => &d.dims,
                _ => dims,
            };
            let mut ty = self.resolve_type(&f.ty, env)?;
            if !matches!(ty, Ty::S(s) if s != Scalar::Quarter) && !matches!(ty, Ty::Enum(_)) {
                return err(
                    *fspan,
                    format!(
                        "static data member '{q}' has type '{}': popc gives static storage to scalars \
                         and arrays of scalars only",
                        ty.spell()
                    ),
                );
            }
            let mut total = u128::from(ty.size());
            let mut ns = Vec::new();
            for d in dims {
                let n = match ceval::eval(self, d, env)? {
                    (_, CV::I(n)) if (1..=1 << 20).contains(&n) => n as u32,
                    _ => return err(d.span, "array size must be between 1 and 1048576"),
                };
                total = total.saturating_mul(u128::from(n));
                ns.push(n);
            }
            for n in ns.into_iter().rev() {
                ty = Ty::Array(Box::new(ty), n);
            }
            let offset = inst.statics_size.div_ceil(ty.align()) * ty.align();
            if total + u128::from(offset) > u128::from(MAX_OBJECT_SIZE) {
                return err(
                    *fspan,
                    format!(
                        "the static data members of '{}' take more than {MAX_OBJECT_SIZE} bytes",
                        inst.name
                    ),
                );
            }
            let mut bytes = vec![0u8; ty.size() as usize];
            if let Some(e) = init {
                self.static_init(&ty, e, env, &mut bytes, &q)?;
            }
            inst.statics_size = offset + ty.size();
            inst.statics_align = inst.statics_align.max(ty.align());
            inst.statics.push(StaticInfo { name: fname.clone(), ty, offset, init: bytes });
        }
        Ok(())
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
            (_, ExprKind::InitList(items)) if items.len() <= 1 => match items.first() {
                Some(item) => self.static_init(ty, item, env, out, q),
                None => Ok(()),
            },
            (_, ExprKind::InitList(_)) => err(e.span, format!("too many initialisers for '{q}'")),
            _ => {
                let s = ty.scalar().unwrap_or(Scalar::Int);
                let (_, v) = ceval::eval(self, e, env).map_err(|mut d| {
                    d.notes.push(format!("popc needs a constant initialiser for static data member '{q}'"));
                    d
                })?;
                write_scalar(s, ceval::convert(v, s), out);
                Ok(())
            }
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
