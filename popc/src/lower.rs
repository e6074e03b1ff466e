//! Lowering of one vertex's `compute` to Cranelift IR.
//!
//! Every user function, method and lambda call is inlined (recursion is
//! rejected), so one vertex type becomes one self-contained function with
//! the ABI of `linker::abi`. Values are tracked as [`V`]: constants fold as
//! they go, scalars are SSA values (`half` held as an `f32` that is always a
//! representable half), lvalues are [`Place`]s: Cranelift variables for
//! scalar locals, host stack memory for local arrays and structs, and tile
//! memory (always bounds-checked) for edges, state and pointers.

use std::collections::HashMap;
use std::rc::Rc;

use cranelift_codegen::ir::{
    self, condcodes::FloatCC, condcodes::IntCC, types, AbiParam, Block, InstBuilder, MemFlagsData, Signature,
    StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use linker::abi;
use linker::gp::{FieldKind, VertexBase};

use crate::ast::*;
use crate::ceval::{self, convert, truthy};
use crate::cost;
use crate::diag::{err, Result, SourceMap, Span};
use crate::half_ir;
use crate::sema::{has_size, ClassInst, Env, FieldTy, Program, Ty, CV};
use crate::types::Scalar;

/// What one entry function is generated with.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    /// The counting variant: add each block's cost to `TileCtx::count`.
    pub counting: bool,
    /// Line tables and trap lines.
    pub debug: bool,
    /// Give elementwise float loops a guarded SIMD copy ([`crate::vectorize`]).
    pub vectorize: bool,
}

/// A lambda: its syntax, the scopes it captured, and its environment.
pub type LambdaVal = (Lambda, Vec<HashMap<String, V>>, Env);

#[derive(Clone, Copy, Debug)]
pub enum Place {
    Var(Variable),
    /// A 32-bit tile address.
    Tile(Value),
    /// A host address (the function's own stack).
    Host(Value),
}

#[derive(Clone, Debug)]
pub enum V {
    Void,
    C(Scalar, CV),
    R(Scalar, Value),
    /// Tile pointer value (i32) to the given type.
    Ptr(Ty, Value),
    L(Ty, Place),
    Vec {
        elem: Scalar,
        addr: Value,
        count: Option<Value>,
    },
    List {
        elem: Scalar,
        addr: Value,
        count: Value,
    },
    EdgeS {
        elem: Scalar,
        addr: Value,
    },
    Lambda(Rc<LambdaVal>),
    /// A function named as a value (`auto f = reduce<Op, T>;`): calling
    /// it calls the function by that name (a template-id keeps its
    /// explicit arguments).
    Func(Rc<Path>),
}

struct Frame {
    exit: Block,
    ret: Option<(Variable, Scalar)>,
    ret_ty: Ty,
    auto_ret: bool,
    scope_base: usize,
    /// How a value that is not a scalar comes back.
    ret_other: RetOther,
}

/// Returns other than scalars by value.
#[derive(Clone, Copy)]
enum RetOther {
    None,
    /// A class by value: copied into this host slot.
    Agg(Value),
    /// A pointer: the tile address, in this variable.
    Ptr(Variable),
    /// A reference: the address (tile as i32 zero-extended, or host) in
    /// this variable, and which memory, fixed by the first `return`.
    Ref(Variable, Option<bool>),
}

pub struct Lowerer<'a, 'b> {
    pub b: FunctionBuilder<'b>,
    pub p: &'a Program,
    pub src: &'a SourceMap,
    pub counting: bool,
    pub debug: bool,
    pub(crate) vectorize: bool,
    pub(crate) ctx: Value,
    pub(crate) mem: Value,
    pub(crate) mem_len: Value,
    pub(crate) count: Variable,
    pending: u64,
    /// Every cost added so far, flushed or not: the difference across a
    /// straight-line stretch of lowering is what that stretch counts.
    pub(crate) cost_total: u64,
    /// Nonzero while lowering code whose cost is already counted another
    /// way (a counted loop's step and test): `cost` adds nothing.
    pub(crate) uncounted: u32,
    trap: Block,
    pub(crate) line: u32,
    scopes: Vec<HashMap<String, V>>,
    fields: HashMap<String, V>,
    frames: Vec<Frame>,
    loops: Vec<(Block, Block)>,
    pub(crate) calls: Vec<String>,
    pub(crate) env: Env,
    next_base: Option<usize>,
    /// The object a method about to be inlined is called on (`this`).
    pub(crate) next_this: Option<V>,
    /// Tile addresses of `Input` edge data and addresses derived from them
    /// (elements, pointer arithmetic, casts): a write through one is a
    /// compile error, never a silent change of a `const` tensor.
    pub(crate) readonly: std::collections::HashSet<Value>,
    /// Pointer variables that have held such an address.
    pub(crate) readonly_vars: std::collections::HashSet<usize>,
    /// For values rounded to half: the value before rounding, so a store
    /// converts it to half bits directly (the rounding is then often dead).
    half_src: HashMap<Value, Value>,
    /// Straight-line region (a chain of bounds-check continuation blocks
    /// ending at `region`) in which the entries of `checked` and
    /// `addr_memo` are known to dominate the current position.
    pub(crate) region: Option<Block>,
    /// Tile addresses already bounds-checked in this region: the host
    /// address and the access size checked.
    checked: HashMap<Value, (Value, u32)>,
    /// Element addresses computed in this region, by (base, index, size).
    pub(crate) addr_memo: HashMap<(Value, Value, u32), Value>,
    /// Tile loads done in this region: (host address, type) to the load
    /// instruction and the value it gave (after any half conversion).
    load_memo: HashMap<(Value, Scalar), (ir::Inst, Value)>,
    /// `mem_len - size` (as a signed i64) for access sizes 1, 2, 4, 8,
    /// computed once at entry: `off + size > mem_len` is `off > lim`.
    lims: [Value; 4],
    /// Cold stubs, one per (status, line), each taking the trap address
    /// and passing it on to `trap` with the constants: the hot path of a
    /// check then carries no constant block arguments. Ordered, so code
    /// is deterministic.
    trap_stubs: std::collections::BTreeMap<(u32, i64), Block>,
}

/// The Cranelift type holding a scalar.
pub fn cl_pub(s: Scalar) -> ir::Type {
    cl(s)
}

fn cl(s: Scalar) -> ir::Type {
    match s {
        Scalar::Bool | Scalar::Char | Scalar::SChar | Scalar::UChar => types::I8,
        Scalar::Short | Scalar::UShort => types::I16,
        Scalar::Int | Scalar::UInt => types::I32,
        Scalar::Long | Scalar::ULong | Scalar::LongLong | Scalar::ULongLong => types::I64,
        Scalar::Half | Scalar::Float => types::F32,
        Scalar::Double => types::F64,
    }
}

fn mflags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// The signature of every vertex entry.
pub fn entry_signature(multi: bool) -> Signature {
    let mut sig = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I32));
    if multi {
        sig.params.push(AbiParam::new(types::I32));
    }
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

impl<'a, 'b> Lowerer<'a, 'b> {
    /// Lowers the whole entry function of vertex class `c`.
    pub fn lower_vertex(
        mut b: FunctionBuilder<'b>,
        p: &'a Program,
        src: &'a SourceMap,
        c: &Rc<ClassInst>,
        variant: Variant,
        fc: cranelift_codegen::isa::TargetFrontendConfig,
    ) -> Result<bool> {
        let Variant { counting, debug, vectorize } = variant;
        let multi = c.base == Some(VertexBase::MultiVertex);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let ctx = params[0];
        let state = params[1];
        let worker = params.get(2).copied();
        let mem = b.ins().load(types::I64, mflags(), ctx, abi::OFFSET_MEM);
        let mem_len = b.ins().load(types::I64, mflags(), ctx, abi::OFFSET_MEM_LEN);
        // (`smax` with -1 changes no comparison result, since `off >= 0`,
        // but keeps Cranelift from recomputing the subtraction at each use.)
        let lims = [1, 2, 4, 8].map(|s| {
            let d = b.ins().iadd_imm_s(mem_len, -s);
            let m1 = b.ins().iconst(types::I64, -1);
            b.ins().smax(d, m1)
        });
        let count = b.declare_var(types::I64);
        let zero = b.ins().iconst(types::I64, 0);
        b.def_var(count, zero);
        let trap = b.create_block();
        b.append_block_param(trap, types::I32);
        b.append_block_param(trap, types::I64);
        b.append_block_param(trap, types::I32);
        let mut l = Lowerer {
            b,
            p,
            src,
            counting,
            debug,
            vectorize,
            ctx,
            mem,
            mem_len,
            count,
            pending: 0,
            cost_total: 0,
            uncounted: 0,
            trap,
            line: 0,
            scopes: vec![HashMap::new()],
            fields: HashMap::new(),
            frames: Vec::new(),
            loops: Vec::new(),
            calls: Vec::new(),
            env: Env { class: Some(c.clone()), ..c.env.clone() },
            next_base: None,
            next_this: None,
            readonly: Default::default(),
            readonly_vars: Default::default(),
            half_src: HashMap::new(),
            region: None,
            checked: HashMap::new(),
            addr_memo: HashMap::new(),
            load_memo: HashMap::new(),
            lims,
            trap_stubs: Default::default(),
        };
        l.line = src.line(c.decl.ast.span);
        l.cost(cost::VERTEX_ENTRY);
        // Edge descriptors.
        for f in &c.fields {
            let at = l.b.ins().iadd_imm_s(state, f.offset as i64);
            let input = matches!(f.ty, FieldTy::Edge { dir: linker::gp::Direction::Input, .. });
            let v = match &f.ty {
                FieldTy::Edge { elem, kind, .. } => match kind {
                    FieldKind::Scalar => {
                        l.cost(cost::STATE_WORD);
                        let a = l.load_tile_raw(at, types::I32)?;
                        V::EdgeS { elem: *elem, addr: a }
                    }
                    FieldKind::Vector(lay) => {
                        l.cost(cost::STATE_WORD);
                        let a = l.load_tile_raw(at, types::I32)?;
                        let count = if has_size(*lay) {
                            l.cost(cost::STATE_WORD);
                            let at4 = l.b.ins().iadd_imm_s(at, 4);
                            Some(l.load_tile_raw(at4, types::I32)?)
                        } else {
                            None
                        };
                        V::Vec { elem: *elem, addr: a, count }
                    }
                    FieldKind::VectorList(_) => {
                        l.cost(2 * cost::STATE_WORD);
                        let a = l.load_tile_raw(at, types::I32)?;
                        let at4 = l.b.ins().iadd_imm_s(at, 4);
                        let n = l.load_tile_raw(at4, types::I32)?;
                        V::List { elem: *elem, addr: a, count: n }
                    }
                    FieldKind::Plain => unreachable!(),
                },
                FieldTy::Plain(t) => V::L(t.clone(), Place::Tile(at)),
            };
            if input {
                match &v {
                    V::EdgeS { addr, .. } | V::Vec { addr, .. } => {
                        l.readonly.insert(*addr);
                    }
                    V::List { addr, .. } => {
                        l.readonly.insert(*addr);
                    }
                    _ => {}
                }
            }
            l.fields.insert(f.name.clone(), v);
        }
        // Find compute.
        let compute = c.decl.ast.members.iter().find_map(|m| match m {
            Member::Method(f) if f.name == "compute" && f.body.is_some() => Some(f.clone()),
            _ => None,
        });
        let Some(compute) = compute else {
            return err(c.decl.ast.span, format!("vertex '{}' has no compute() definition", c.name));
        };
        let ret = p.resolve_type(&compute.ret, &l.env)?;
        let returns_bool = matches!(ret, Ty::S(Scalar::Bool));
        if !matches!(ret, Ty::Void | Ty::S(Scalar::Bool)) {
            return err(compute.span, "compute() must return void or bool");
        }
        let mut args = Vec::new();
        if multi {
            if compute.params.len() != 1 {
                return err(compute.span, "MultiVertex::compute takes one argument (the worker id)");
            }
            args.push(V::R(Scalar::UInt, worker.unwrap()));
        } else if !compute.params.is_empty() {
            return err(compute.span, "compute() of a Vertex takes no arguments");
        }
        let env = l.env.clone();
        let r = l.inline(&compute, env, args, compute.span)?;
        let status = match r {
            V::Void => l.b.ins().iconst(types::I32, abi::STATUS_OK as i64),
            v => {
                let c = l.cond(v)?;
                let ok = l.b.ins().iconst(types::I32, abi::STATUS_OK as i64);
                let fl = l.b.ins().iconst(types::I32, abi::STATUS_FALSE as i64);
                l.b.ins().select(c, ok, fl)
            }
        };
        let exit = l.b.create_block();
        l.b.append_block_param(exit, types::I32);
        l.jump(exit, &[status]);
        // Trap stubs, then the trap block.
        let stubs: Vec<_> = l.trap_stubs.iter().map(|(k, b)| (*k, *b)).collect();
        for ((status, line), stub) in stubs {
            l.b.switch_to_block(stub);
            let addr = l.b.block_params(stub)[0];
            let st = l.b.ins().iconst(types::I32, status as i64);
            let ln = l.b.ins().iconst(types::I32, line);
            l.b.ins().jump(l.trap, &[st.into(), addr.into(), ln.into()]);
        }
        l.b.switch_to_block(l.trap);
        let tp = l.b.block_params(l.trap).to_vec();
        l.b.ins().store(mflags(), tp[1], ctx, abi::OFFSET_TRAP_ADDR);
        l.b.ins().store(mflags(), tp[2], ctx, abi::OFFSET_TRAP_LINE);
        l.b.ins().jump(exit, &[tp[0].into()]);
        l.b.switch_to_block(exit);
        let st = l.b.block_params(exit)[0];
        if counting {
            let cnt = l.b.use_var(count);
            let old = l.b.ins().load(types::I64, mflags(), ctx, abi::OFFSET_COUNT);
            let new = l.b.ins().iadd(old, cnt);
            l.b.ins().store(mflags(), new, ctx, abi::OFFSET_COUNT);
        }
        l.b.ins().return_(&[st]);
        l.b.seal_all_blocks();
        l.b.finalize(fc);
        Ok(returns_bool)
    }

    // ------------------------------------------------------------ plumbing

    pub(crate) fn cost(&mut self, n: u64) {
        if self.uncounted > 0 {
            return;
        }
        self.pending += n;
        self.cost_total += n;
    }

    pub(crate) fn flush(&mut self) {
        if self.counting && self.pending > 0 {
            let c = self.b.use_var(self.count);
            let c = self.b.ins().iadd_imm_s(c, self.pending as i64);
            self.b.def_var(self.count, c);
        }
        self.pending = 0;
    }

    pub(crate) fn jump(&mut self, to: Block, args: &[Value]) {
        self.cost(cost::BRANCH);
        self.flush();
        let args: Vec<ir::BlockArg> = args.iter().map(|v| (*v).into()).collect();
        self.b.ins().jump(to, &args);
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
    }

    pub(crate) fn brif(&mut self, c: Value, t: Block, f: Block) {
        self.cost(cost::BRANCH);
        self.flush();
        self.b.ins().brif(c, t, &[], f, &[]);
    }

    /// The test at the head of a rotated loop: the cost of the jump to the
    /// head, then the condition (if any) branching to `body` or `exit`.
    fn loop_test(&mut self, cond: Option<&Expr>, body: Block, exit: Block) -> Result<()> {
        self.cost(cost::BRANCH);
        match cond {
            Some(c) => {
                let c = self.expr(c)?;
                let c = self.cond(c)?;
                self.brif(c, body, exit);
            }
            None => self.jump(body, &[]),
        }
        Ok(())
    }

    pub(crate) fn set_line(&mut self, span: Span) {
        let line = self.src.line(span);
        self.line = line;
        if self.debug {
            self.b.set_srcloc(ir::SourceLoc::new(line));
        }
    }

    /// At a loop's back edge (every `while`, `do` and `for` iteration):
    /// returns [`abi::STATUS_INTERRUPTED`] once the runtime sets
    /// `*ctx.stop`, and in the counting variant [`abi::STATUS_CYCLE_LIMIT`]
    /// once this call has counted more than `ctx.budget`. Costs no modelled
    /// cycles; the stop word is loaded afresh each time (another thread
    /// writes it).
    pub(crate) fn stop_check(&mut self) {
        let p = self.b.ins().load(types::I64, mflags(), self.ctx, abi::OFFSET_STOP);
        let flag = self.b.ins().load(types::I32, MemFlagsData::new(), p, 0);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.trap_if(flag, abi::STATUS_INTERRUPTED, zero);
        if self.counting {
            self.flush();
            let count = self.b.use_var(self.count);
            let budget = self.b.ins().load(types::I64, mflags(), self.ctx, abi::OFFSET_BUDGET);
            let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, count, budget);
            self.trap_if(over, abi::STATUS_CYCLE_LIMIT, zero);
        }
    }

    pub(crate) fn trap_if(&mut self, cond: Value, status: u32, addr: Value) {
        let cont = self.b.create_block();
        let line = if self.debug { self.line as i64 } else { 0 };
        let stub = match self.trap_stubs.get(&(status, line)) {
            Some(b) => *b,
            None => {
                let b = self.b.create_block();
                self.b.append_block_param(b, types::I64);
                self.b.set_cold_block(b);
                self.trap_stubs.insert((status, line), b);
                b
            }
        };
        // Flush so the trapping path counts what ran.
        self.flush();
        self.sync_region();
        self.b.ins().brif(cond, stub, &[addr.into()], cont, &[]);
        // `cont` has this branch as its only predecessor: seal it now, so
        // variables read in it are the same SSA values as before the check.
        self.b.seal_block(cont);
        self.b.switch_to_block(cont);
        // `cont` is reached only from here: what held before still holds.
        self.region = Some(cont);
    }

    /// Forgets the region's facts if the current block is not the region's
    /// (some other block was switched to since), starting a new region.
    pub(crate) fn sync_region(&mut self) {
        let cur = self.b.current_block();
        if cur != self.region {
            self.checked.clear();
            self.addr_memo.clear();
            self.load_memo.clear();
            self.region = cur;
        }
    }

    /// Host address of a checked tile access of `size` bytes at `addr` (i32).
    pub(crate) fn tile_addr(&mut self, addr: Value, size: u32) -> Value {
        self.sync_region();
        if let Some(&(h, sz)) = self.checked.get(&addr) {
            if size <= sz {
                // Already checked on every path to here (same region).
                return h;
            }
        }
        let off = self.b.ins().uextend(types::I64, addr);
        let bad = match size {
            1 | 2 | 4 | 8 => {
                // `off` < 2^32 and `mem_len` < 2^63: signed, `off > mem_len
                // - size` is `off + size > mem_len`, also when `mem_len < size`.
                let lim = self.lims[size.trailing_zeros() as usize];
                self.b.ins().icmp(IntCC::SignedGreaterThan, off, lim)
            }
            _ => {
                let end = self.b.ins().iadd_imm_s(off, size as i64);
                self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, self.mem_len)
            }
        };
        self.trap_if(bad, abi::STATUS_OUT_OF_BOUNDS, off);
        let h = self.b.ins().iadd(self.mem, off);
        self.checked.insert(addr, (h, size));
        h
    }

    fn load_tile_raw(&mut self, addr: Value, ty: ir::Type) -> Result<Value> {
        let h = self.tile_addr(addr, ty.bytes());
        Ok(self.b.ins().load(ty, mflags(), h, 0))
    }

    /// Reads a scalar. A local held in a register (`Place::Var`) costs
    /// nothing in the counting variant: a compiler for the tile keeps it in a
    /// register too; only tile memory and addressable locals are loads.
    pub(crate) fn load_scalar(&mut self, s: Scalar, place: Place) -> Value {
        let h = match place {
            Place::Var(v) => {
                let x = self.b.use_var(v);
                if self.readonly_vars.contains(&cranelift_codegen::entity::EntityRef::index(v)) {
                    self.readonly.insert(x);
                }
                return x;
            }
            Place::Tile(a) => self.tile_addr(a, s.size()),
            Place::Host(h) => h,
        };
        self.cost(cost::MEMORY);
        if let Place::Tile(_) = place {
            // The same tile location loaded earlier in this region, with
            // nothing since that can write memory: reuse the value.
            self.sync_region();
            if let Some(&(inst, v)) = self.load_memo.get(&(h, s)) {
                if !self.may_write_since(inst) {
                    return v;
                }
            }
        }
        let (inst, v) = if s == Scalar::Half {
            let raw = self.b.ins().uload16(types::I32, mflags(), h, 0);
            let inst = self.b.func.dfg.value_def(raw).unwrap_inst();
            (inst, half_ir::f16_to_f32(&mut self.b, raw))
        } else {
            let v = self.b.ins().load(cl(s), mflags(), h, 0);
            (self.b.func.dfg.value_def(v).unwrap_inst(), v)
        };
        if let Place::Tile(_) = place {
            self.load_memo.insert((h, s), (inst, v));
        }
        v
    }

    /// Whether any instruction created after `inst` can write memory or
    /// call out (instructions are numbered in creation order).
    fn may_write_since(&self, inst: ir::Inst) -> bool {
        let dfg = &self.b.func.dfg;
        let n = dfg.num_insts();
        (inst.as_u32() as usize + 1..n).any(|i| {
            let op = dfg.insts[ir::Inst::from_u32(i as u32)].opcode();
            op.can_store() || op.is_call() || op.other_side_effects()
        })
    }

    /// Writes a scalar; like [`Self::load_scalar`], a register local is free.
    pub(crate) fn store_scalar(&mut self, s: Scalar, place: Place, v: Value) {
        let h = match place {
            Place::Var(var) => {
                self.b.def_var(var, v);
                return;
            }
            Place::Tile(a) => self.tile_addr(a, s.size()),
            Place::Host(h) => h,
        };
        self.cost(cost::MEMORY);
        if s == Scalar::Half {
            let src = self.half_src.get(&v).copied().unwrap_or(v);
            let bits = half_ir::f32_to_f16(&mut self.b, src);
            self.b.ins().istore16(mflags(), bits, h, 0);
            return;
        }
        self.b.ins().store(mflags(), v, h, 0);
    }

    pub(crate) fn konst(&mut self, s: Scalar, v: CV) -> Value {
        let v = convert(v, s);
        match (s, v) {
            (Scalar::Half | Scalar::Float, CV::F(f)) => self.b.ins().f32const(f as f32),
            (Scalar::Double, CV::F(f)) => self.b.ins().f64const(f),
            (_, CV::I(i)) => self.iconst(cl(s), i as i64),
            (_, CV::F(f)) => self.iconst(cl(s), f as i64),
        }
    }

    /// An integer constant, masked to the type's width as Cranelift requires.
    pub(crate) fn iconst(&mut self, ty: ir::Type, v: i64) -> Value {
        let v = if ty.bits() >= 64 { v } else { v & ((1i64 << ty.bits()) - 1) };
        self.b.ins().iconst(ty, v)
    }

    /// Converts a runtime value between scalar types.
    pub(crate) fn conv(&mut self, v: Value, from: Scalar, to: Scalar) -> Value {
        if from == to {
            return v;
        }
        let (ft, tt) = (cl(from), cl(to));
        if to == Scalar::Bool {
            return self.truth(v, from);
        }
        // Between integers of one width (signed and unsigned) the bits
        // stay as they are: no instruction.
        if from.is_float() || to.is_float() || ft != tt {
            self.cost(cost::CONVERT);
        }
        let r = match (from.is_float(), to.is_float()) {
            (true, true) => {
                if ft == tt {
                    v
                } else if tt == types::F64 {
                    self.b.ins().fpromote(tt, v)
                } else {
                    self.b.ins().fdemote(tt, v)
                }
            }
            (false, true) => {
                if from.is_signed() {
                    self.b.ins().fcvt_from_sint(tt, v)
                } else {
                    self.b.ins().fcvt_from_uint(tt, v)
                }
            }
            (true, false) => {
                // Saturating (C++ leaves out-of-range undefined; this never traps).
                let wide = if to.size() < 4 { types::I32 } else { tt };
                let r = if to.is_signed() || to.size() < 4 {
                    self.b.ins().fcvt_to_sint_sat(wide, v)
                } else {
                    self.b.ins().fcvt_to_uint_sat(wide, v)
                };
                if wide != tt {
                    self.b.ins().ireduce(tt, r)
                } else {
                    r
                }
            }
            (false, false) => {
                if ft.bits() > tt.bits() {
                    self.b.ins().ireduce(tt, v)
                } else if ft.bits() < tt.bits() {
                    if from.is_signed() {
                        self.b.ins().sextend(tt, v)
                    } else {
                        self.b.ins().uextend(tt, v)
                    }
                } else {
                    v
                }
            }
        };
        if to == Scalar::Half && from != Scalar::Half {
            return self.round_half(r);
        }
        r
    }

    /// Rounds an f32 to half, remembering the unrounded value for a later
    /// store (converting it gives the same bits as converting the result).
    pub(crate) fn round_half(&mut self, v: Value) -> Value {
        let r = half_ir::round_half(&mut self.b, v);
        self.half_src.insert(r, v);
        r
    }

    pub(crate) fn truth(&mut self, v: Value, from: Scalar) -> Value {
        self.cost(cost::COMPARE);
        if from.is_float() {
            let z =
                if cl(from) == types::F64 { self.b.ins().f64const(0.0) } else { self.b.ins().f32const(0.0) };
            let c = self.b.ins().fcmp(FloatCC::NotEqual, v, z);
            return c;
        }
        self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
    }

    /// An rvalue of scalar type.
    pub(crate) fn rv(&mut self, v: V, span: Span) -> Result<(Scalar, Value)> {
        Ok(match v {
            V::C(s, c) => (s, self.konst(s, c)),
            V::R(s, x) => (s, x),
            V::L(t, place) => match t.scalar() {
                Some(s) => (s, self.load_scalar(s, place)),
                None => match t {
                    Ty::Ptr(_) => (Scalar::UInt, self.load_scalar(Scalar::UInt, place)),
                    t => return err(span, format!("a value of type '{}' cannot be used here", t.spell())),
                },
            },
            V::EdgeS { elem, addr } => (elem, self.load_scalar(elem, Place::Tile(addr))),
            V::Ptr(_, a) => (Scalar::UInt, a),
            _ => return err(span, "this expression has no scalar value"),
        })
    }

    pub(crate) fn rv_as(&mut self, v: V, to: Scalar, span: Span) -> Result<Value> {
        if let V::C(_, c) = v {
            return Ok(self.konst(to, c));
        }
        let (s, x) = self.rv(v, span)?;
        Ok(self.conv(x, s, to))
    }

    pub(crate) fn cond(&mut self, v: V) -> Result<Value> {
        let (s, x) = self.rv(v, Span::default())?;
        if s == Scalar::Bool {
            return Ok(x);
        }
        Ok(self.truth(x, s))
    }

    pub(crate) fn ty_of(&self, v: &V) -> Option<Scalar> {
        match v {
            V::C(s, _) | V::R(s, _) => Some(*s),
            V::L(t, _) => t.scalar(),
            V::EdgeS { elem, .. } => Some(*elem),
            _ => None,
        }
    }

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
        self.b.def_var(var, init);
        V::L(Ty::S(s), Place::Var(var))
    }

    pub(crate) fn stack(&mut self, size: u32, align: u32) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size.max(1),
            align.max(1).trailing_zeros() as u8,
        ));
        self.b.ins().stack_addr(types::I64, slot, 0)
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
        let mut bound = HashMap::new();
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
            let v = if is_ref {
                a
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
        self.jump(exit, &[]);
        self.b.switch_to_block(exit);
        Ok(match (frame.ret, frame.ret_other) {
            (Some((var, s)), _) => V::R(s, self.b.use_var(var)),
            (None, RetOther::Agg(h)) => V::L(frame.ret_ty, Place::Host(h)),
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

    // ----------------------------------------------------------- statements

    fn stmts(&mut self, ss: &[Stmt]) -> Result<()> {
        for s in ss {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn scoped(&mut self, s: &Stmt) -> Result<()> {
        self.scopes.push(HashMap::new());
        let r = self.stmt(s);
        self.scopes.pop();
        r
    }

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        let _level = crate::diag::deeper(s.span)?;
        self.set_line(s.span);
        match &s.kind {
            StmtKind::Empty => {}
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.decl(d)?;
                }
            }
            StmtKind::Block(b) => {
                self.scopes.push(HashMap::new());
                let r = self.stmts(b);
                self.scopes.pop();
                r?;
            }
            StmtKind::StaticAssert(e, m) => self.static_assert(e, m.as_deref())?,
            StmtKind::Item(it) => match &**it {
                Item::StaticAssert(_, e, m) => self.static_assert(e, m.as_deref())?,
                Item::Alias(_, name, None, t) => {
                    // Visible to the rest of the function (a type binding).
                    let ty = self.local_type(t)?;
                    let mut tb = (*self.env.tb).clone();
                    tb.insert(name.clone(), crate::sema::TVal::Type(ty));
                    self.env.tb = Rc::new(tb);
                }
                Item::Alias(..) => return err(s.span, "local alias templates are not supported"),
                _ => {
                    return err(
                        s.span,
                        "local type declarations are not supported; declare them at namespace scope",
                    )
                }
            },
            StmtKind::If { init, cond, then, els, is_constexpr } => {
                self.scopes.push(HashMap::new());
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                if *is_constexpr {
                    let (_, v) = self.const_value(cond)?;
                    if truthy(v) {
                        self.scoped(then)?;
                    } else if let Some(e) = els {
                        self.scoped(e)?;
                    }
                } else {
                    let c = self.expr(cond)?;
                    if let V::C(_, v) = c {
                        // Fold constant conditions.
                        if truthy(v) {
                            self.scoped(then)?;
                        } else if let Some(e) = els {
                            self.scoped(e)?;
                        }
                    } else {
                        let c = self.cond(c)?;
                        let tb = self.b.create_block();
                        let eb = self.b.create_block();
                        let join = self.b.create_block();
                        self.brif(c, tb, eb);
                        self.b.switch_to_block(tb);
                        self.scoped(then)?;
                        self.jump(join, &[]);
                        self.b.switch_to_block(eb);
                        if let Some(e) = els {
                            self.scoped(e)?;
                        }
                        self.jump(join, &[]);
                        self.b.switch_to_block(join);
                    }
                }
                self.scopes.pop();
            }
            StmtKind::While { cond, body } => {
                let head = self.b.create_block();
                let bb = self.b.create_block();
                let exit = self.b.create_block();
                self.jump(head, &[]);
                self.b.switch_to_block(head);
                self.stop_check();
                let c = self.expr(cond)?;
                let c = self.cond(c)?;
                self.brif(c, bb, exit);
                self.b.switch_to_block(bb);
                self.loops.push((exit, head));
                let r = self.scoped(body);
                self.loops.pop();
                r?;
                self.jump(head, &[]);
                self.b.switch_to_block(exit);
            }
            StmtKind::DoWhile { body, cond } => {
                let bb = self.b.create_block();
                let cb = self.b.create_block();
                let exit = self.b.create_block();
                self.jump(bb, &[]);
                self.b.switch_to_block(bb);
                self.loops.push((exit, cb));
                let r = self.scoped(body);
                self.loops.pop();
                r?;
                self.jump(cb, &[]);
                self.b.switch_to_block(cb);
                self.stop_check();
                let c = self.expr(cond)?;
                let c = self.cond(c)?;
                self.brif(c, bb, exit);
                self.b.switch_to_block(exit);
            }
            StmtKind::For { init, cond, step, body } => {
                self.scopes.push(HashMap::new());
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                // An elementwise float loop gets a guarded SIMD copy in
                // front of it, which hands over to the scalar loop below
                // (`vectorize`); `simd` is (pattern, the copy's entry, the
                // scalar loop's entry), the copy filled in after the loop.
                let pattern = if self.vectorize || self.counting {
                    self.match_elementwise(cond.as_ref(), step.as_ref(), body)
                } else {
                    None
                };
                // A counted elementwise loop is one a tile compiler unrolls
                // by four: the counting variant counts its iterations in
                // `iters` and charges one trip per four at the exit, so the
                // count is the same whether the copy or the scalar loop ran.
                let counted = is_counted_loop(cond.as_ref(), step.as_ref());
                let iters = (self.counting && counted && pattern.is_some()).then(|| {
                    let v = self.b.declare_var(types::I64);
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.b.def_var(v, zero);
                    v
                });
                let simd = pattern.filter(|_| self.vectorize).map(|pattern| {
                    let entry = self.b.create_block();
                    let scalar = self.b.create_block();
                    self.flush();
                    self.b.ins().jump(entry, &[]);
                    self.b.switch_to_block(scalar);
                    (pattern, entry, scalar)
                });
                // Rotated: the condition is tested once before the loop
                // and again after the step, so an iteration takes one
                // branch back. The counting variant still counts the jump
                // to the (notional) loop head, as before.
                let bb = self.b.create_block();
                let sb = self.b.create_block();
                let exit = self.b.create_block();
                let line = self.line;
                self.loop_test(cond.as_ref(), bb, exit)?;
                self.b.switch_to_block(bb);
                let iteration_start = self.cost_total;
                self.loops.push((exit, sb));
                let r = self.scoped(body);
                self.loops.pop();
                r?;
                // A counted loop's increment, test and branch back are one
                // `brnzdec`: count one trip, not the pieces.
                if counted {
                    match iters {
                        Some(it) => {
                            let n = self.b.use_var(it);
                            let n = self.b.ins().iadd_imm_s(n, 1);
                            self.b.def_var(it, n);
                        }
                        None => self.cost(cost::COUNTED_LOOP_TRIP),
                    }
                    self.uncounted += 1;
                }
                self.jump(sb, &[]);
                self.b.switch_to_block(sb);
                self.stop_check();
                if let Some(st) = step {
                    self.expr(st)?;
                }
                // The condition's traps report the line they did before.
                self.line = line;
                if self.debug {
                    self.b.set_srcloc(ir::SourceLoc::new(line));
                }
                self.loop_test(cond.as_ref(), bb, exit)?;
                if counted {
                    self.uncounted -= 1;
                }
                if let Some((pattern, entry, scalar)) = simd {
                    // The body is straight-line: everything counted since
                    // `bb` is what one scalar iteration counts.
                    let per_iteration = self.cost_total - iteration_start;
                    self.emit_elementwise(&pattern, per_iteration, iters, entry, scalar);
                }
                self.b.switch_to_block(exit);
                if let Some(it) = iters {
                    let n = self.b.use_var(it);
                    let n = self.b.ins().iadd_imm_s(n, 3);
                    let trips = self.b.ins().ushr_imm_s(n, 2);
                    let trips = self.b.ins().imul_imm_s(trips, cost::COUNTED_LOOP_TRIP as i64);
                    let c = self.b.use_var(self.count);
                    let c = self.b.ins().iadd(c, trips);
                    self.b.def_var(self.count, c);
                }
                self.scopes.pop();
            }
            StmtKind::RangeFor { var, range, body } => self.range_for(var, range, body)?,
            StmtKind::Switch { cond, body } => self.switch(cond, body)?,
            StmtKind::Case(_) | StmtKind::Default => return err(s.span, "'case' outside a switch"),
            StmtKind::Break => {
                let Some(&(exit, _)) = self.loops.last() else {
                    return err(s.span, "'break' outside a loop");
                };
                self.jump(exit, &[]);
            }
            StmtKind::Continue => {
                let Some(cont) = self.loops.iter().rev().map(|l| l.1).find(|b| *b != self.trap) else {
                    return err(s.span, "'continue' outside a loop");
                };
                self.jump(cont, &[]);
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                let Some(frame) = self.frames.last() else {
                    return err(s.span, "'return' outside a function");
                };
                let (exit, ret, auto, other) = (frame.exit, frame.ret, frame.auto_ret, frame.ret_other);
                if !matches!(other, RetOther::None) {
                    let Some(v) = v else { return err(s.span, "missing return value") };
                    self.return_other(other, v, s.span)?;
                    self.jump(exit, &[]);
                    return Ok(());
                }
                match (v, ret) {
                    (Some(v), Some((var, rs))) => {
                        let x = self.rv_as(v, rs, s.span)?;
                        self.b.def_var(var, x);
                    }
                    (Some(v), None) if auto => {
                        let Some(rs) = self.ty_of(&v) else { return err(s.span, "unsupported return value") };
                        let rs = if let V::C(s, _) = v { s } else { rs };
                        let x = self.rv_as(v, rs, s.span)?;
                        let var = self.b.declare_var(cl(rs));
                        self.b.def_var(var, x);
                        let f = self.frames.last_mut().unwrap();
                        f.ret = Some((var, rs));
                        f.ret_ty = Ty::S(rs);
                        f.auto_ret = false;
                    }
                    (Some(V::Void), None) | (None, None) => {}
                    (Some(_), None) => return err(s.span, "returning a value from a void function"),
                    (None, Some(_)) => return err(s.span, "missing return value"),
                }
                self.jump(exit, &[]);
            }
        }
        Ok(())
    }

    fn static_assert(&mut self, e: &Expr, m: Option<&str>) -> Result<()> {
        let (_, v) = self.const_value(e)?;
        if !truthy(v) {
            return err(
                e.span,
                format!("static assertion failed{}", m.map(|m| format!(": {m}")).unwrap_or_default()),
            );
        }
        Ok(())
    }

    fn decl(&mut self, d: &VarDecl) -> Result<()> {
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
        if d.is_constexpr || const_scalar {
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
                    v @ (V::Lambda(_) | V::Func(_) | V::Vec { .. } | V::List { .. }) => v,
                    v @ V::L(Ty::Class(_) | Ty::Array(..), _) => {
                        let V::L(t, _) = &v else { unreachable!() };
                        let t = t.clone();
                        let h = self.stack(t.size(), t.align());
                        self.copy_aggregate(&t, h, v, d.span)?;
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
                    (Ty::Auto, None) => return err(d.span, "cannot deduce the type of 'auto *'"),
                    _ => t.clone(),
                };
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
                // Zero, then initialise.
                self.zero(h, ty.size());
                if let Some(Expr { kind: ExprKind::InitList(l), .. }) = &d.init {
                    self.init_aggregate(&ty, h, l, d.span)?;
                } else if let Some(v) = init {
                    self.copy_aggregate(&ty, h, v, d.span)?;
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
        match ty {
            Ty::Array(et, n) => {
                if l.len() > *n as usize {
                    return err(span, "too many initialisers for the array");
                }
                for (i, e) in l.iter().enumerate() {
                    let at = self.b.ins().iadd_imm_s(h, (i as u32 * et.size()) as i64);
                    self.init_one(et, at, e)?;
                }
            }
            Ty::Class(c) => {
                for (i, e) in l.iter().enumerate() {
                    let Some(f) = c.fields.get(i) else {
                        return err(span, "too many initialisers for the struct");
                    };
                    let FieldTy::Plain(ft) = &f.ty else { unreachable!() };
                    let at = self.b.ins().iadd_imm_s(h, f.offset as i64);
                    let ft = ft.clone();
                    self.init_one(&ft, at, e)?;
                }
            }
            _ => return err(span, "braced initialiser for a non-aggregate"),
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
        let V::L(vt, place) = v else { return err(span, "cannot initialise an aggregate from this value") };
        if !vt.same(ty) {
            return err(span, format!("cannot convert '{}' to '{}'", vt.spell(), ty.spell()));
        }
        let mut off = 0;
        while off < ty.size() {
            let x = match place {
                Place::Host(from) => self.b.ins().load(types::I8, mflags(), from, off as i32),
                Place::Tile(a) => {
                    let at = self.b.ins().iadd_imm_s(a, off as i64);
                    self.load_scalar(Scalar::UChar, Place::Tile(at))
                }
                Place::Var(_) => return err(span, "cannot copy this aggregate"),
            };
            self.b.ins().store(mflags(), x, to, off as i32);
            off += 1;
        }
        Ok(())
    }

    fn range_for(&mut self, var: &VarDecl, range: &Expr, body: &Stmt) -> Result<()> {
        let r = self.expr(range)?;
        let (elem_ty, base, count, host) = match r {
            V::Vec { elem, addr, count } => {
                let Some(c) = count else {
                    return err(range.span, "range-for needs a vector with a size (SPAN layout)");
                };
                (Ty::S(elem), addr, c, false)
            }
            V::L(Ty::Array(et, n), Place::Host(h)) => {
                let c = self.b.ins().iconst(types::I32, n as i64);
                (*et, h, c, true)
            }
            V::List { .. } => {
                return err(range.span, "range-for over a vector list is not supported; index it")
            }
            _ => return err(range.span, "range-for needs a vector or an array"),
        };
        let is_ref = matches!(var.ty.kind, TypeKind::Ref(_));
        let i = self.b.declare_var(types::I32);
        let z = self.b.ins().iconst(types::I32, 0);
        self.b.def_var(i, z);
        let head = self.b.create_block();
        let bb = self.b.create_block();
        let sb = self.b.create_block();
        let exit = self.b.create_block();
        self.jump(head, &[]);
        self.b.switch_to_block(head);
        let iv = self.b.use_var(i);
        let c = self.b.ins().icmp(IntCC::UnsignedLessThan, iv, count);
        self.cost(cost::COMPARE);
        self.brif(c, bb, exit);
        self.b.switch_to_block(bb);
        self.scopes.push(HashMap::new());
        let esz = elem_ty.size();
        let off = self.b.ins().imul_imm_s(iv, esz as i64);
        let place = if host {
            let off = self.b.ins().uextend(types::I64, off);
            Place::Host(self.b.ins().iadd(base, off))
        } else {
            Place::Tile(self.b.ins().iadd(base, off))
        };
        let lv = V::L(elem_ty.clone(), place);
        if is_ref {
            self.bind(&var.name, lv);
        } else {
            let dty = self.p.resolve_type(&var.ty, &self.env)?;
            let s = match dty {
                Ty::Auto => elem_ty.scalar(),
                t => t.scalar(),
            };
            let Some(s) = s else { return err(var.span, "range-for variable must be a scalar") };
            let x = self.rv_as(lv, s, var.span)?;
            let v = self.new_var(s, x);
            self.bind(&var.name, v);
        }
        self.loops.push((exit, sb));
        let r = self.stmt(body);
        self.loops.pop();
        self.scopes.pop();
        r?;
        self.jump(sb, &[]);
        self.b.switch_to_block(sb);
        let iv = self.b.use_var(i);
        let n = self.b.ins().iadd_imm_s(iv, 1);
        self.b.def_var(i, n);
        self.jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    fn switch(&mut self, cond: &Expr, body: &Stmt) -> Result<()> {
        let c = self.expr(cond)?;
        let (s, x) = self.rv(c, cond.span)?;
        let x = self.conv(x, s, Scalar::LongLong);
        let StmtKind::Block(stmts) = &body.kind else { return err(body.span, "switch body must be a block") };
        let exit = self.b.create_block();
        // One block per label, in order.
        let mut labels = Vec::new();
        for st in stmts {
            match &st.kind {
                StmtKind::Case(e) => {
                    let (_, v) = self.const_value(e)?;
                    let CV::I(v) = v else { return err(e.span, "case label must be an integer") };
                    labels.push((Some(v), self.b.create_block()));
                }
                StmtKind::Default => labels.push((None, self.b.create_block())),
                _ => {}
            }
        }
        let default = labels.iter().find(|l| l.0.is_none()).map_or(exit, |l| l.1);
        for (v, blk) in &labels {
            if let Some(v) = v {
                let c = self.b.ins().icmp_imm_s(IntCC::Equal, x, *v as i64);
                let next = self.b.create_block();
                self.cost(cost::COMPARE);
                self.brif(c, *blk, next);
                self.b.switch_to_block(next);
            }
        }
        self.jump(default, &[]);
        self.loops.push((exit, self.loops.last().map_or(self.trap, |l| l.1)));
        self.scopes.push(HashMap::new());
        let mut li = 0;
        let mut r = Ok(());
        for st in stmts {
            match &st.kind {
                StmtKind::Case(_) | StmtKind::Default => {
                    let blk = labels[li].1;
                    li += 1;
                    self.jump(blk, &[]);
                    self.b.switch_to_block(blk);
                }
                _ => {
                    r = self.stmt(st);
                    if r.is_err() {
                        break;
                    }
                }
            }
        }
        self.scopes.pop();
        self.loops.pop();
        r?;
        self.jump(exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }
}

impl<'a, 'b> Lowerer<'a, 'b> {
    /// Marks `to` as read-only data when `from` is (an address derived
    /// from an `Input` edge's).
    pub(crate) fn derive(&mut self, from: Value, to: Value) {
        if self.readonly.contains(&from) {
            self.readonly.insert(to);
        }
    }

    /// Defines pointer variable `var` as `a`, remembering read-only data.
    pub(crate) fn def_ptr(&mut self, var: Variable, a: Value) {
        if self.readonly.contains(&a) {
            self.readonly_vars.insert(cranelift_codegen::entity::EntityRef::index(var));
        }
        self.b.def_var(var, a);
    }

    /// A write to `place` is an error when it is `Input` edge data.
    pub(crate) fn check_writable(&self, place: Place, span: Span) -> Result<()> {
        if let Place::Tile(a) = place {
            if self.readonly.contains(&a) {
                return err(span, "write to the data of an 'Input' edge, which is const");
            }
        }
        Ok(())
    }

    /// A constant expression's value. Constant evaluation sees no local
    /// variables, so when it fails the expression is lowered: local
    /// `constexpr`/`const` values and `sizeof` of an edge element fold to
    /// constants there. The original error stands when it does not fold.
    pub(crate) fn const_value(&mut self, e: &Expr) -> Result<(Scalar, CV)> {
        match ceval::eval(self.p, e, &self.env) {
            Ok(v) => Ok(v),
            Err(d) if d.message.contains("depth") || d.message.contains("steps") => Err(d),
            Err(d) => match self.expr(e) {
                Ok(V::C(s, c)) => Ok((s, c)),
                _ => Err(d),
            },
        }
    }

    /// `return v` from a function returning a class, a pointer or a reference.
    fn return_other(&mut self, other: RetOther, v: V, span: Span) -> Result<()> {
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
            bound.insert(f.name.clone(), V::L(t.clone(), at));
        }
        bound.insert("<this>".into(), obj.clone());
    }

    pub(crate) fn field(&self, n: &str) -> Option<V> {
        self.fields.get(n).cloned()
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
            body: Some(l.0.body.clone()),
            is_constexpr: false,
            is_static: false,
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

/// Whether a `for` loop has the shape a tile compiler turns into a counted
/// loop: an ordering or inequality test of a variable, stepped by `++`,
/// `--`, `+=` or `-=`.
fn is_counted_loop(cond: Option<&Expr>, step: Option<&Expr>) -> bool {
    let test = matches!(
        cond.map(|c| &c.kind),
        Some(ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Ne, a, _))
            if matches!(a.kind, ExprKind::Name(_))
    );
    let stepped = match step.map(|s| &s.kind) {
        Some(ExprKind::Unary(UnOp::PreInc | UnOp::PostInc | UnOp::PreDec | UnOp::PostDec, v)) => {
            matches!(v.kind, ExprKind::Name(_))
        }
        Some(ExprKind::Assign(Some(BinOp::Add | BinOp::Sub), v, _)) => matches!(v.kind, ExprKind::Name(_)),
        _ => false,
    };
    test && stepped
}
