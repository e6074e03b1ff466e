//! SIMD copies of elementwise float loops, and check-free copies of float
//! reductions: loop versioning, as GCC does it.
//!
//! ## The pattern
//!
//! A `for` loop is recognised (by [`Lowerer::match_elementwise`], after its
//! init statement is lowered) when
//! - its condition is `i < N` or `i != N`, `i` an integer register local of
//!   32 or 64 bits and `N` loop-invariant: a constant, `v.size()`, a
//!   register local, a scalar field or a scalar edge;
//! - its step is `++i`, `i++` or `i += 1`;
//! - its body is straight-line: statements `v[i] = e;` or `v[i] op= e;`
//!   (`op` one of `+ - * /`), each `v` a float vector edge or a local
//!   pointer to float, and `e` built from `w[i]` float loads,
//!   loop-invariant float scalars (register locals, fields, scalar edges
//!   `s` or `*s`),
//!   constants, `+ - * /`, unary minus and casts to `float` (of these, which
//!   change nothing), every operation in `float`;
//! - or, among those, reductions `acc += e;`, `acc -= e;`, `acc = acc + e;`
//!   or `acc = acc - e;`, `acc` a float register local that the body reads
//!   nowhere else.
//!
//! `i` appears only as the index, and nothing but vector elements and
//! accumulators is written, so every other local the loop reads is
//! invariant.
//!
//! ## The copy
//!
//! The scalar loop is lowered as always; in front of it
//! ([`Lowerer::emit_elementwise`]) a preheader checks at run time that
//! - `0 <= i`, `i + 4 <= N`, `N <= 2^30`, so there is at least one chunk of
//!   four and no index or address arithmetic wraps;
//! - every vector's accessed bytes `[base + 4i, base + 4·end)` lie inside the
//!   tile, `end` being where the chunks stop (`i` plus a multiple of four),
//!   and every base (and invariant in tile memory) is aligned, so no
//!   access the copy makes would trap as misaligned in the scalar loop;
//! - (without reductions) each stored vector's base `S` and each other
//!   vector's base `B` have `S == B` or `|S - B| >= 16`: lane `j` of a chunk
//!   touches the same element of vectors with one base, and lanes of
//!   vectors whose bases are 16 or more bytes apart never meet, so no
//!   element of a chunk reads or writes what another element of the same
//!   chunk wrote. Checked at once first: every stored base 16 or more
//!   bytes from the lowest-to-highest span of the bases only loaded (one
//!   compare per stored vector, not per pair: a matrix product's loop
//!   stores two rows and loads four, and is entered every few dozen
//!   elements); pair by pair only where that fails;
//! - every invariant held in tile memory (a field, a scalar edge, `N`
//!   itself) is inside the tile and outside every stored range, so the
//!   stores cannot change it.
//!
//! If all hold, a copy runs iterations `[i, end)` with no per-element
//! checks, then sets `i = end`:
//! - without reductions, an f32x4 loop, four iterations at a time with
//!   unaligned loads and stores;
//! - with one, a scalar loop unrolled by four: reassociating a float sum
//!   would change its result, so each trip does four iterations one after
//!   the other, every statement in source order, accumulating into `acc`
//!   exactly as the scalar loop does. Running in order, it needs no
//!   aliasing check between vectors.
//!
//! The copy addresses each vector from the end of its chunks with one
//! byte offset that counts up from a negative value to zero, so the loop
//! needs no register for its bound (in a matrix product's pass the six
//! vectors' addresses and the offset then fit the host's registers with
//! no spill: about 2% of the 1024^3 product's time).
//!
//! Either way the unchanged scalar loop runs next and does the rest: the
//! tail, or everything when a check failed, so traps, partial writes, trap
//! addresses and the final `i` and `acc` are exactly the scalar loop's.
//!
//! ## Why results and counts stay exact
//!
//! Each lane (or each iteration of the scalar copy) does the same IEEE
//! single-precision operations as the scalar code, in the same order, so
//! results are bit-identical. Counts come from the iteration counter
//! alone, which the copy and the scalar loop both advance, so `sim` cycles
//! do not depend on whether the copy ran (nor on `--no-vectorize`: the
//! pattern is recognised for counting either way). Let `P` be what one
//! scalar iteration's body counts, measured while lowering the scalar
//! loop: its body is straight-line, so every cost added there is paid
//! exactly once per iteration.
//! - An elementwise loop's body is counted at the loop's exit, `P` per
//!   vector of `cost::FLOAT_VECTOR_WIDTH` (2) iterations, rounded up: the
//!   IPU does such a loop with 64-bit loads and stores and `f32v2`
//!   arithmetic. Its body counts nothing per iteration, so a trap in it
//!   leaves the count as it was before the loop (deterministic either
//!   way; a trap ends the vertex).
//! - A reduction keeps one operation per element, in IEEE order: its body
//!   counts `P` per scalar iteration, and the copy adds `(end - i) × P`.
//! - Either way, the loop's trips are counted at its exit, one per four
//!   iterations (rounded up), as a tile compiler's loop unrolled by four
//!   takes them.

use cranelift_codegen::ir::{condcodes::IntCC, types, Block, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::Variable;

use crate::cost;
use crate::front::ast::{BinOp, CastKind, Expr, ExprKind, Stmt, StmtKind, TypeKind, TypeName, UnOp};
use crate::lower::{cl_pub, Lowerer, Place, V};
use crate::sema::ceval::{self, convert};
use crate::sema::types::Scalar;
use crate::sema::{Ty, CV};

/// Elements per chunk (f32x4).
const LANES: i64 = 4;
/// The largest `i` and `N` the copy runs with: every index below `N` has a
/// byte offset `4 * i` below 2^32.
const MAX_INDEX: i64 = 1 << 30;
/// The copy's element accesses must end below this (no 32-bit wrap).
const ADDRESS_SPACE: i64 = 1 << 32;

/// Flags of every 128-bit load and store popc emits (this copy's, and
/// `float4`/`int4` operations'): bounds already checked, but tile
/// addresses are only 4-byte aligned, so not `aligned` (x86 would then
/// fold the load into an SSE instruction that needs 16).
pub(crate) const VECTOR_FLAGS: MemFlagsData = MemFlagsData::new().with_notrap();

/// Where a loop-invariant scalar lives.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// Known at compile time.
    Const(CV),
    /// An SSA value computed before the loop (a vector's size).
    Value(Value),
    /// A register local; the body assigns no locals.
    Var(Variable),
    /// Tile memory at this 32-bit address (a field or scalar edge).
    Tile(Value),
}

/// A loop-invariant scalar and its type.
#[derive(Clone, Copy, Debug)]
struct Invariant {
    src: Source,
    ty: Scalar,
}

/// The 32-bit tile address of a vector's element 0.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Base {
    /// An edge's address, loaded at entry.
    Value(Value),
    /// A local pointer.
    Var(Variable),
}

/// A float expression, per lane.
#[derive(Clone, Debug)]
enum Lane {
    /// `v[i]`, `v` the vector with this index in [`Elementwise::bases`].
    Load(usize),
    /// An invariant, by index in [`Elementwise::invariants`].
    Splat(usize),
    Neg(Box<Lane>),
    /// `+ - * /`.
    Op(BinOp, Box<Lane>, Box<Lane>),
}

/// One statement of a matched body.
#[derive(Clone, Debug)]
enum Step {
    /// `bases[k][i] = lane`.
    Store(usize, Lane),
    /// `acc = acc op lane`, `op` `+` or `-`, `acc` a float register local.
    Accumulate(Variable, BinOp, Lane),
}

/// A matched elementwise loop or reduction.
pub(crate) struct Elementwise {
    /// The induction variable and its type.
    var: Variable,
    var_ty: Scalar,
    /// `N`, integer.
    bound: Invariant,
    /// The vectors indexed, each once, and whether the loop stores to it.
    bases: Vec<(Base, bool)>,
    /// The float invariants (constants included).
    invariants: Vec<Invariant>,
    /// The body, in order.
    body: Vec<Step>,
}

impl Elementwise {
    /// Whether the body accumulates (the copy then stays scalar).
    fn reduces(&self) -> bool {
        self.body.iter().any(|s| matches!(s, Step::Accumulate(..)))
    }

    /// Iterations one body cost is counted for: the float vector width for
    /// an elementwise loop, one for a reduction (module doc).
    pub(crate) fn counted_width(&self) -> u64 {
        if self.reduces() {
            1
        } else {
            cost::FLOAT_VECTOR_WIDTH
        }
    }
}

/// A subexpression while matching: a compile-time constant (folded as the
/// scalar lowering folds it), or a float computed per element.
enum Typed {
    Const(Scalar, CV),
    Float(Lane),
}

/// Matching state: the pattern built so far.
struct Matcher<'l, 'a, 'b> {
    l: &'l mut Lowerer<'a, 'b>,
    var: Variable,
    bases: Vec<(Base, bool)>,
    invariants: Vec<Invariant>,
}

impl Matcher<'_, '_, '_> {
    fn pure(&mut self, e: &Expr) -> Option<V> {
        pure(self.l, e)
    }

    /// Whether `e` names the induction variable.
    fn is_var(&mut self, e: &Expr) -> bool {
        matches!(self.pure(e), Some(V::L(_, Place::Var(v))) if v == self.var)
    }

    /// The loop's integer bound `N`.
    fn bound(&mut self, e: &Expr) -> Option<Invariant> {
        if let ExprKind::Call(f, args) = &e.kind {
            let ExprKind::Member(obj, m, _) = &f.kind else { return None };
            if m != "size" || !args.is_empty() {
                return None;
            }
            return match self.pure(obj)? {
                V::Vec { count: Some(c), .. } | V::List { count: c, .. } => {
                    Some(Invariant { src: Source::Value(c), ty: Scalar::UInt })
                }
                _ => None,
            };
        }
        let (src, ty) = match self.pure(e)? {
            V::C(s, c @ CV::I(_)) => (Source::Const(c), s),
            V::L(Ty::S(s), Place::Var(v)) if v != self.var => (Source::Var(v), s),
            V::L(Ty::S(s), Place::Tile(a)) | V::EdgeS { elem: s, addr: a } => (Source::Tile(a), s),
            _ => return None,
        };
        (!ty.is_float()).then_some(Invariant { src, ty })
    }

    /// The vector `e` names (a float vector edge or pointer local).
    fn base(&mut self, e: &Expr, stored: bool) -> Option<usize> {
        let base = match self.pure(e)? {
            V::Vec { elem: Scalar::Float, addr, .. } => Base::Value(addr),
            V::L(Ty::Ptr(t), Place::Var(p)) if matches!(*t, Ty::S(Scalar::Float)) => Base::Var(p),
            _ => return None,
        };
        let k = match self.bases.iter().position(|(b, _)| *b == base) {
            Some(k) => k,
            None => {
                self.bases.push((base, false));
                self.bases.len() - 1
            }
        };
        self.bases[k].1 |= stored;
        Some(k)
    }

    fn invariant(&mut self, src: Source) -> Lane {
        self.invariants.push(Invariant { src, ty: Scalar::Float });
        Lane::Splat(self.invariants.len() - 1)
    }

    /// `e` as an operand of a float operation: a constant is converted to
    /// float as the scalar lowering converts it; a `double` constant would
    /// make the operation `double`, which the copy does not do.
    fn float(&mut self, t: Typed) -> Option<Lane> {
        match t {
            Typed::Float(l) => Some(l),
            Typed::Const(Scalar::Double, _) => None,
            Typed::Const(_, c) => Some(self.invariant(Source::Const(convert(c, Scalar::Float)))),
        }
    }

    fn typed(&mut self, e: &Expr) -> Option<Typed> {
        Some(match &e.kind {
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div), a, b) => {
                match (self.typed(a)?, self.typed(b)?) {
                    (Typed::Const(sa, ca), Typed::Const(sb, cb)) => {
                        let (s, c) = ceval::arith(*op, (sa, ca), (sb, cb), e.span).ok()?;
                        Typed::Const(s, c)
                    }
                    (x, y) => {
                        let x = self.float(x)?;
                        let y = self.float(y)?;
                        Typed::Float(Lane::Op(*op, Box::new(x), Box::new(y)))
                    }
                }
            }
            ExprKind::Unary(op @ (UnOp::Neg | UnOp::Plus), a) => match (op, self.typed(a)?) {
                (UnOp::Neg, Typed::Float(l)) => Typed::Float(Lane::Neg(Box::new(l))),
                (UnOp::Plus, Typed::Float(l)) => Typed::Float(l),
                (UnOp::Neg, Typed::Const(s @ (Scalar::Float | Scalar::Double), CV::F(f))) => {
                    Typed::Const(s, CV::F(-f))
                }
                _ => return None,
            },
            // `(float)e`, `float(e)` or `static_cast<float>(e)`: nothing for
            // a float `e`, a rounded constant for a constant one.
            ExprKind::Cast(
                CastKind::CStyle | CastKind::Static | CastKind::Functional,
                TypeName { kind: TypeKind::Scalar(Scalar::Float), .. },
                a,
            ) => match self.typed(a)? {
                Typed::Float(l) => Typed::Float(l),
                Typed::Const(_, c) => Typed::Const(Scalar::Float, convert(c, Scalar::Float)),
            },
            // `*s`, `s` a float scalar edge.
            ExprKind::Unary(UnOp::Deref, s) => match self.pure(s)? {
                V::EdgeS { elem: Scalar::Float, addr } => Typed::Float(self.invariant(Source::Tile(addr))),
                _ => return None,
            },
            ExprKind::Index(v, i) => {
                if !self.is_var(i) {
                    return None;
                }
                Typed::Float(Lane::Load(self.base(v, false)?))
            }
            _ => match self.pure(e)? {
                V::C(s, c) => Typed::Const(s, c),
                V::L(Ty::S(Scalar::Float), Place::Var(v)) => Typed::Float(self.invariant(Source::Var(v))),
                V::L(Ty::S(Scalar::Float), Place::Tile(a)) | V::EdgeS { elem: Scalar::Float, addr: a } => {
                    Typed::Float(self.invariant(Source::Tile(a)))
                }
                _ => return None,
            },
        })
    }

    /// One statement of the body: `v[i] = e;`, `v[i] op= e;`, `acc op= e;`
    /// or `acc = acc op e;` (`op` `+` or `-` for `acc`).
    fn step(&mut self, s: &Stmt) -> Option<Option<Step>> {
        let e = match &s.kind {
            StmtKind::Empty => return Some(None),
            StmtKind::Expr(e) => e,
            _ => return None,
        };
        let ExprKind::Assign(op, lhs, rhs) = &e.kind else { return None };
        let ExprKind::Index(v, i) = &lhs.kind else { return self.accumulate(*op, lhs, rhs) };
        if !self.is_var(i) {
            return None;
        }
        let k = self.base(v, true)?;
        let value = match (op, self.typed(rhs)?) {
            // `v[i] = constant` converts the constant, whatever its type.
            (None, Typed::Const(_, c)) => self.invariant(Source::Const(convert(c, Scalar::Float))),
            (None, Typed::Float(l)) => l,
            (Some(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)), t) => {
                let y = self.float(t)?;
                Lane::Op(*op, Box::new(Lane::Load(k)), Box::new(y))
            }
            _ => return None,
        };
        Some(Some(Step::Store(k, value)))
    }

    /// `acc op= e;` or `acc = acc op e;`, `acc` a float register local and
    /// `op` `+` or `-`. `acc` must not be read elsewhere in the body; the
    /// caller checks that no invariant is an accumulator.
    fn accumulate(&mut self, op: Option<BinOp>, lhs: &Expr, rhs: &Expr) -> Option<Option<Step>> {
        let acc = match self.pure(lhs)? {
            V::L(Ty::S(Scalar::Float), Place::Var(v)) => v,
            _ => return None,
        };
        let (op, e) = match (op, &rhs.kind) {
            (Some(op @ (BinOp::Add | BinOp::Sub)), _) => (op, rhs),
            (None, ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, e)) => match self.pure(a)? {
                V::L(_, Place::Var(v)) if v == acc => (*op, &**e),
                _ => return None,
            },
            _ => return None,
        };
        let t = self.typed(e)?;
        let y = self.float(t)?;
        Some(Some(Step::Accumulate(acc, op, y)))
    }
}

/// The value of a name, `this->name` or literal (lowering these emits no
/// code and counts nothing); `None` for any other expression.
fn pure(l: &mut Lowerer, e: &Expr) -> Option<V> {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Int(..) | ExprKind::Float(..) | ExprKind::Char(_) => {}
        ExprKind::Member(obj, _, _) if matches!(obj.kind, ExprKind::This) => {}
        _ => return None,
    }
    l.expr(e).ok()
}

impl Lowerer<'_, '_> {
    /// The elementwise pattern of a `for` loop (module doc), or `None`.
    /// Emits no code and counts nothing.
    pub(crate) fn match_elementwise(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
    ) -> Option<Elementwise> {
        let ExprKind::Binary(BinOp::Lt | BinOp::Ne, i, n) = &cond?.kind else { return None };
        let (var, var_ty) = match pure(self, i)? {
            V::L(Ty::S(s), Place::Var(v)) if !s.is_float() && s.size() >= 4 => (v, s),
            _ => return None,
        };
        let mut m = Matcher { l: self, var, bases: Vec::new(), invariants: Vec::new() };
        let step = step?;
        let steps = match &step.kind {
            ExprKind::Unary(UnOp::PreInc | UnOp::PostInc, x) => m.is_var(x),
            ExprKind::Assign(Some(BinOp::Add), x, one) => {
                m.is_var(x) && matches!(one.kind, ExprKind::Int(1, ..))
            }
            _ => false,
        };
        if !steps {
            return None;
        }
        let bound = m.bound(n)?;
        let stmts = match &body.kind {
            StmtKind::Block(b) => b.as_slice(),
            _ => std::slice::from_ref(body),
        };
        let mut steps = Vec::new();
        for s in stmts {
            steps.extend(m.step(s)?);
        }
        // An accumulator is read only by its own accumulations: it is no
        // invariant.
        let accumulated = |v: Variable| steps.iter().any(|s| matches!(s, Step::Accumulate(a, ..) if *a == v));
        let reads_acc = m.invariants.iter().any(|inv| matches!(inv.src, Source::Var(v) if accumulated(v)));
        if steps.is_empty() || reads_acc {
            return None;
        }
        Some(Elementwise { var, var_ty, bound, bases: m.bases, invariants: m.invariants, body: steps })
    }

    /// Fills `entry` with the checks and the SIMD copy of loop `m` (module
    /// doc), both ending in a jump to `scalar`, the scalar loop's first
    /// test. `per_iteration` is what the copy counts per iteration it runs
    /// (0 when the loop's exit counts its body); `iters`, when the loop's
    /// trips are counted at its exit, the iteration counter the copy
    /// advances too.
    pub(crate) fn emit_elementwise(
        &mut self,
        m: &Elementwise,
        per_iteration: u64,
        iters: Option<Variable>,
        entry: Block,
        scalar: Block,
    ) {
        self.b.switch_to_block(entry);
        // Nothing checked or loaded in other blocks is known here.
        self.region = None;

        // Invariants in tile memory must be inside the tile before they
        // are read.
        let tile_invariants: Vec<(Value, Scalar)> = std::iter::once(&m.bound)
            .chain(&m.invariants)
            .filter_map(|inv| match inv.src {
                Source::Tile(a) => Some((a, inv.ty)),
                _ => None,
            })
            .collect();
        let mut ok = Vec::new();
        let mut invariant_ranges = Vec::new();
        for &(a, ty) in &tile_invariants {
            let lo = self.b.ins().uextend(types::I64, a);
            let hi = self.b.ins().iadd_imm_s(lo, ty.size() as i64);
            ok.push(self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, hi, self.mem_len));
            if ty.size() > 1 && self.align_of(a) < ty.size() {
                let low = self.b.ins().band_imm_s(lo, i64::from(ty.size() - 1));
                ok.push(self.b.ins().icmp_imm_s(IntCC::Equal, low, 0));
            }
            invariant_ranges.push((lo, hi));
        }
        self.guard(&ok, scalar);

        // The trip: at least one chunk, no wrap.
        let i0 = self.b.use_var(m.var);
        let i0 = widen(self, i0, m.var_ty);
        let n = self.invariant_value(m.bound);
        let n = widen(self, n, m.bound.ty);
        let max = self.b.ins().iconst(types::I64, MAX_INDEX);
        let trip = self.b.ins().isub(n, i0);
        let mut ok = vec![
            self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, i0, max),
            self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, n, max),
            self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, trip, LANES),
        ];
        let chunked = self.b.ins().band_imm_s(trip, -LANES);
        let end = self.b.ins().iadd(i0, chunked);
        let first = self.b.ins().ishl_imm_s(i0, 2);
        let last = self.b.ins().ishl_imm_s(end, 2);
        // Every vector's range inside the tile.
        let space = self.b.ins().iconst(types::I64, ADDRESS_SPACE);
        let limit = self.b.ins().umin(self.mem_len, space);
        let mut bases = Vec::new();
        let mut unaligned = Vec::new();
        for &(base, _) in &m.bases {
            let a = match base {
                Base::Value(v) => v,
                Base::Var(p) => self.b.use_var(p),
            };
            bases.push(self.b.ins().uextend(types::I64, a));
            if self.align_of(a) < 4 {
                unaligned.push(*bases.last().unwrap());
            }
        }
        // Inside the tile when the highest base's range is.
        let top = self.fold_bases(&bases, |l, x, y| l.b.ins().umax(x, y));
        if let Some(top) = top {
            let hi = self.b.ins().iadd(top, last);
            ok.push(self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, hi, limit));
        }
        // Every float aligned (where not known), so no element access
        // would trap as misaligned.
        if let Some(any) = self.fold_bases(&unaligned, |l, x, y| l.b.ins().bor(x, y)) {
            let low = self.b.ins().band_imm_s(any, 3);
            ok.push(self.b.ins().icmp_imm_s(IntCC::Equal, low, 0));
        }
        // Stores never meet another vector's element in the same chunk
        // (a scalar copy runs the iterations in order, so only the SIMD copy
        // needs this), nor an invariant.
        let scalar_copy = m.reduces();
        let kept = if scalar_copy { Vec::new() } else { kept_loads(m) };
        let mut pairs = Vec::new();
        for (s, &(_, stored)) in m.bases.iter().enumerate() {
            if !stored {
                continue;
            }
            for (b, &(_, b_stored)) in m.bases.iter().enumerate() {
                if !(scalar_copy || b == s || (b_stored && b < s)) {
                    pairs.push((s, b));
                }
            }
            let lo = self.b.ins().iadd(bases[s], first);
            let hi = self.b.ins().iadd(bases[s], last);
            for &(a_lo, a_hi) in &invariant_ranges {
                let before = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, a_hi, lo);
                let after = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a_lo, hi);
                ok.push(self.b.ins().bor(before, after));
            }
        }
        let keeps = |s: usize, b: usize| kept.contains(&(s, b)) || kept.contains(&(b, s));
        for &(s, b) in pairs.iter().filter(|&&(_, b)| m.bases[b].1) {
            ok.push(self.pair_apart(bases[s], bases[b], keeps(s, b)));
        }
        self.guard(&ok, scalar);
        // Stored vectors against vectors only loaded: first, at once, that
        // every stored base is 16 or more bytes from the span of the loaded
        // ones' bases, which makes each such pair apart; pair by pair only
        // where that fails.
        let split: Vec<(usize, usize)> = pairs.into_iter().filter(|&(_, b)| !m.bases[b].1).collect();
        if !split.is_empty() {
            let loaded: Vec<Value> =
                m.bases.iter().zip(&bases).filter(|((_, st), _)| !st).map(|(_, &a)| a).collect();
            let lo = self.fold_bases(&loaded, |l, x, y| l.b.ins().umin(x, y)).unwrap_or(bases[0]);
            let hi = self.fold_bases(&loaded, |l, x, y| l.b.ins().umax(x, y)).unwrap_or(bases[0]);
            let mut clear = Vec::new();
            for (s, &(_, stored)) in m.bases.iter().enumerate() {
                if stored {
                    let above = self.b.ins().isub(bases[s], hi);
                    let above = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, above, 4 * LANES);
                    let below = self.b.ins().isub(lo, bases[s]);
                    let below = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, below, 4 * LANES);
                    clear.push(self.b.ins().bor(above, below));
                }
            }
            let all = clear.iter().fold(clear[0], |a, &b| self.b.ins().band(a, b));
            let (copy, pairwise) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(all, copy, &[], pairwise, &[]);
            self.b.switch_to_block(pairwise);
            let ok: Vec<Value> =
                split.iter().map(|&(s, b)| self.pair_apart(bases[s], bases[b], keeps(s, b))).collect();
            self.guard(&ok, scalar);
            self.b.ins().jump(copy, &[]);
            self.b.switch_to_block(copy);
        }

        // The copy. Invariants become splats (in the SIMD copy), vectors
        // host addresses.
        let splats: Vec<Value> = m
            .invariants
            .iter()
            .map(|inv| {
                let x = self.invariant_value(*inv);
                match scalar_copy {
                    true => x,
                    false => self.b.ins().splat(types::F32X4, x),
                }
            })
            .collect();
        // Each vector's host address of the end of the chunks: the loop
        // counts a negative byte offset up to zero, so that no register
        // holds its bound.
        let hosts: Vec<Value> = bases
            .iter()
            .map(|&a| {
                let h = self.b.ins().iadd(self.mem, a);
                self.b.ins().iadd(h, last)
            })
            .collect();
        if self.counting {
            let done = self.b.ins().isub(end, i0);
            if let Some(it) = iters {
                let n = self.b.use_var(it);
                let n = self.b.ins().iadd(n, done);
                self.b.def_var(it, n);
            }
            if per_iteration > 0 {
                let add = self.b.ins().imul_imm_s(done, per_iteration as i64);
                let c = self.b.use_var(self.count);
                let c = self.b.ins().iadd(c, add);
                self.b.def_var(self.count, c);
            }
        }
        let chunk = self.b.create_block();
        let off = self.b.append_block_param(chunk, types::I64);
        let after = self.b.create_block();
        let from_end = self.b.ins().isub(first, last);
        self.b.ins().jump(chunk, &[from_end.into()]);
        self.b.switch_to_block(chunk);
        // Each vector's host address of the chunk's first element.
        let addrs: Vec<Value> = hosts.iter().map(|&h| self.b.ins().iadd(h, off)).collect();
        // The SIMD copy does a chunk in one f32x4 pass; the scalar copy
        // does its four iterations one after the other, each in source
        // order.
        let passes = if scalar_copy { LANES as i32 } else { 1 };
        for j in 0..passes {
            let ty = if scalar_copy { types::F32 } else { types::F32X4 };
            let mut at =
                Chunk { addrs: &addrs, splats: &splats, ty, offset: 4 * j, loaded: vec![None; addrs.len()] };
            for step in &m.body {
                match step {
                    Step::Store(k, lane) => {
                        let x = self.lane(lane, &mut at);
                        self.b.ins().store(VECTOR_FLAGS, x, addrs[*k], at.offset);
                        if !scalar_copy {
                            // What a later step loads from this vector is
                            // what was stored; a vector another one may
                            // share its base with (checked `apart` only for
                            // the pairs `kept_loads` names) is read afresh.
                            for (b, l) in at.loaded.iter_mut().enumerate() {
                                if b != *k && !kept.contains(&(*k, b)) {
                                    *l = None;
                                }
                            }
                            at.loaded[*k] = Some(x);
                        }
                    }
                    Step::Accumulate(acc, op, lane) => {
                        let x = self.lane(lane, &mut at);
                        let a = self.b.use_var(*acc);
                        let a = match op {
                            BinOp::Add => self.b.ins().fadd(a, x),
                            _ => self.b.ins().fsub(a, x),
                        };
                        self.b.def_var(*acc, a);
                    }
                }
            }
        }
        let next = self.b.ins().iadd_imm_s(off, 4 * LANES);
        let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, next, 0);
        self.b.ins().brif(more, chunk, &[next.into()], after, &[]);
        self.b.switch_to_block(after);
        let i_end = narrow(self, end, m.var_ty);
        self.b.def_var(m.var, i_end);
        self.b.ins().jump(scalar, &[]);
    }

    /// Branches to `fail` unless every flag in `ok` is set; continues in a
    /// new block.
    fn guard(&mut self, ok: &[Value], fail: Block) {
        let Some((&first, rest)) = ok.split_first() else { return };
        let all = rest.iter().fold(first, |a, &b| self.b.ins().band(a, b));
        let next = self.b.create_block();
        self.b.ins().brif(all, next, &[], fail, &[]);
        self.b.switch_to_block(next);
    }

    /// Whether a stored vector's base `s` and another vector's base `b` are
    /// 16 or more bytes apart, or (unless the copy `keeps` a loaded chunk
    /// of one across a store to the other) equal.
    fn pair_apart(&mut self, s: Value, b: Value, keeps: bool) -> Value {
        let d = self.b.ins().isub(s, b);
        let above = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, d, 4 * LANES);
        let below = self.b.ins().icmp_imm_s(IntCC::SignedLessThanOrEqual, d, -4 * LANES);
        let apart = self.b.ins().bor(above, below);
        if keeps {
            return apart;
        }
        let same = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
        self.b.ins().bor(same, apart)
    }

    /// `op` folded over `values` (the lowest or highest of vector bases),
    /// `None` for none.
    fn fold_bases(&mut self, values: &[Value], op: fn(&mut Self, Value, Value) -> Value) -> Option<Value> {
        let (&first, rest) = values.split_first()?;
        Some(rest.iter().fold(first, |a, &b| op(self, a, b)))
    }

    /// An invariant's value (a tile one is known to be inside the tile).
    fn invariant_value(&mut self, inv: Invariant) -> Value {
        let ty = cl_pub(inv.ty);
        match inv.src {
            Source::Const(c) => match convert(c, inv.ty) {
                CV::F(f) => self.b.ins().f32const(f as f32),
                CV::I(i) => self.iconst(ty, i as i64),
            },
            Source::Value(v) => v,
            Source::Var(v) => self.b.use_var(v),
            Source::Tile(a) => {
                let off = self.b.ins().uextend(types::I64, a);
                let h = self.b.ins().iadd(self.mem, off);
                self.b.ins().load(ty, MemFlagsData::trusted(), h, 0)
            }
        }
    }

    /// The value of `lane` for the chunk `at`.
    fn lane(&mut self, lane: &Lane, at: &mut Chunk<'_>) -> Value {
        match lane {
            Lane::Load(k) if at.ty == types::F32X4 => match at.loaded[*k] {
                Some(x) => x,
                None => {
                    let x = self.b.ins().load(at.ty, VECTOR_FLAGS, at.addrs[*k], at.offset);
                    at.loaded[*k] = Some(x);
                    x
                }
            },
            Lane::Load(k) => self.b.ins().load(at.ty, VECTOR_FLAGS, at.addrs[*k], at.offset),
            Lane::Splat(k) => at.splats[*k],
            Lane::Neg(a) => {
                let a = self.lane(a, at);
                self.b.ins().fneg(a)
            }
            Lane::Op(op, a, b) => {
                let a = self.lane(a, at);
                let b = self.lane(b, at);
                match op {
                    BinOp::Add => self.b.ins().fadd(a, b),
                    BinOp::Sub => self.b.ins().fsub(a, b),
                    BinOp::Mul => self.b.ins().fmul(a, b),
                    _ => self.b.ins().fdiv(a, b),
                }
            }
        }
    }
}

/// What one pass over a chunk of the copy works on: each vector's host
/// address of the chunk's first element, each invariant (splat in the SIMD
/// copy), the type of an element (f32x4 or f32) and the pass's byte offset
/// from the chunk's start.
struct Chunk<'c> {
    addrs: &'c [Value],
    splats: &'c [Value],
    ty: Type,
    offset: i32,
    /// In the SIMD copy: each vector's chunk as last loaded or stored, if
    /// still known.
    loaded: Vec<Option<Value>>,
}

/// The pairs `(s, b)` of vectors for which the SIMD copy keeps `b`'s
/// loaded chunk across a store to `s` (`b` read both before and after that
/// store): their bases must be apart, not merely equal or apart, since a
/// store through `s` must not change what `b` holds. Storing never keeps
/// a chunk of a vector with the same base, so other pairs need no more
/// than the elementwise check.
fn kept_loads(m: &Elementwise) -> Vec<(usize, usize)> {
    fn loads(l: &Lane, out: &mut Vec<usize>) {
        match l {
            Lane::Load(k) => out.push(*k),
            Lane::Splat(_) => {}
            Lane::Neg(a) => loads(a, out),
            Lane::Op(_, a, b) => {
                loads(a, out);
                loads(b, out);
            }
        }
    }
    // Per step: the vectors it loads, and the one it stores.
    let steps: Vec<(Vec<usize>, Option<usize>)> = m
        .body
        .iter()
        .map(|s| {
            let mut v = Vec::new();
            match s {
                Step::Store(k, l) => {
                    loads(l, &mut v);
                    (v, Some(*k))
                }
                Step::Accumulate(_, _, l) => {
                    loads(l, &mut v);
                    (v, None)
                }
            }
        })
        .collect();
    let mut pairs = Vec::new();
    for (t, (_, stored)) in steps.iter().enumerate() {
        let Some(s) = *stored else { continue };
        for b in 0..m.bases.len() {
            let before = steps[..=t].iter().any(|(l, st)| l.contains(&b) || *st == Some(b));
            let after = steps[t + 1..].iter().any(|(l, _)| l.contains(&b));
            if b != s && before && after && !pairs.contains(&(s, b)) {
                pairs.push((s, b));
            }
        }
    }
    pairs
}

/// An integer of type `s` as an i64, by its signedness.
fn widen(l: &mut Lowerer, v: Value, s: Scalar) -> Value {
    match (cl_pub(s) == types::I64, s.is_signed()) {
        (true, _) => v,
        (false, true) => l.b.ins().sextend(types::I64, v),
        (false, false) => l.b.ins().uextend(types::I64, v),
    }
}

/// An i64 known to fit as a value of integer type `s`.
fn narrow(l: &mut Lowerer, v: Value, s: Scalar) -> Value {
    match cl_pub(s) == types::I64 {
        true => v,
        false => l.b.ins().ireduce(cl_pub(s), v),
    }
}
