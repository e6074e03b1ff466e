//! Lowering of one vertex's `compute` to Cranelift IR.
//!
//! Every user function, method and lambda call is inlined (recursion is
//! rejected), so one vertex type becomes one self-contained function with
//! the ABI of `linker::abi`. Values are tracked as [`V`]: constants fold as
//! they go, scalars are SSA values (`half` held as an `f32` that is always a
//! representable half), lvalues are [`Place`]s: Cranelift variables for
//! scalar locals, host stack memory for local arrays and structs, and tile
//! memory (always bounds-checked) for edges, state and pointers.

mod call;
mod expr;
pub mod half_ir;
pub mod vectorize;

use std::collections::HashMap;
use std::rc::Rc;

use cranelift_codegen::ir::{
    self, condcodes::FloatCC, condcodes::IntCC, types, AbiParam, Block, InstBuilder, MemFlagsData, Signature,
    StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use linker::abi;
use linker::gp::{FieldKind, VertexBase};

use crate::cost;
use crate::diag::{err, Result, SourceMap, Span};
use crate::front::ast::*;
use crate::sema::ceval::{self, convert, truthy};
use crate::sema::types::Scalar;
use crate::sema::{ClassInst, Env, FieldTy, Ty, Unit, CV};

mod stmt;

/// What one entry function is generated with.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    /// The counting variant: add each block's cost to `TileCtx::count`.
    pub counting: bool,
    /// Line tables and trap lines.
    pub debug: bool,
    /// Give elementwise float loops a guarded SIMD copy ([`crate::lower::vectorize`]).
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
    /// `Vector<Input<T>>`: the address of an array of element addresses,
    /// and its count when the layout stores one.
    Edges {
        elem: Scalar,
        addr: Value,
        count: Option<Value>,
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
    pub p: &'a Unit,
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
    /// The reference members of helper-class objects, by the object's host
    /// address: bound by the constructor, visible as names in methods.
    pub(crate) obj_refs: HashMap<Value, Rc<HashMap<String, V>>>,
    /// Tile addresses of `Input` edge data and addresses derived from them
    /// (elements, pointer arithmetic, casts): a write through one is a
    /// compile error, never a silent change of a `const` tensor.
    pub(crate) readonly: std::collections::HashSet<Value>,
    /// Pointer variables that have held such an address.
    pub(crate) readonly_vars: std::collections::HashSet<usize>,
    /// For values rounded to half: the value before rounding, so a store
    /// converts it to half bits directly (the rounding is then often dead).
    half_src: HashMap<Value, Value>,
    /// The metadata address of each quarter edge, by the edge's address
    /// value (what `getMetadata()` returns).
    pub(crate) metadata: HashMap<Value, Value>,
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
    /// Calls inlined so far into this entry function (see
    /// [`MAX_INLINED_CALLS`]).
    inlined: u32,
}

/// Calls one vertex's entry function may inline, and Cranelift blocks it
/// may have. Every call is inlined, so code grows with the call tree, not
/// the source (a chain of functions each calling the previous one twice
/// doubles per level), and Cranelift's SSA construction needs memory in
/// variables times blocks: without bounds a 700-byte file needs
/// gigabytes. PopLibs' largest vertices inline 44 calls and have 367
/// blocks. Documented in ARCHITECTURE.md (popc, limits).
pub const MAX_INLINED_CALLS: u32 = 1024;
pub const MAX_BLOCKS: usize = 1 << 17;

/// The Cranelift type holding a scalar.
pub fn cl_pub(s: Scalar) -> ir::Type {
    cl(s)
}

fn cl(s: Scalar) -> ir::Type {
    match s {
        Scalar::Bool | Scalar::Char | Scalar::SChar | Scalar::UChar | Scalar::Quarter => types::I8,
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
        p: &'a Unit,
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
            obj_refs: HashMap::new(),
            readonly: Default::default(),
            readonly_vars: Default::default(),
            half_src: HashMap::new(),
            metadata: HashMap::new(),
            region: None,
            checked: HashMap::new(),
            addr_memo: HashMap::new(),
            load_memo: HashMap::new(),
            lims,
            trap_stubs: Default::default(),
            inlined: 0,
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
                        let count = if lay.stores_count() {
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
                    FieldKind::ScalarList(lay) => {
                        l.cost(cost::STATE_WORD);
                        let a = l.load_tile_raw(at, types::I32)?;
                        let count = if lay.stores_count() {
                            l.cost(cost::STATE_WORD);
                            let at4 = l.b.ins().iadd_imm_s(at, 4);
                            Some(l.load_tile_raw(at4, types::I32)?)
                        } else {
                            None
                        };
                        V::Edges { elem: *elem, addr: a, count }
                    }
                    FieldKind::Plain => unreachable!(),
                },
                FieldTy::Plain(t) => V::L(t.clone(), Place::Tile(at)),
            };
            if let FieldTy::Edge { elem, kind, .. } = &f.ty {
                let md = linker::gp::metadata_size(elem.elem(), *kind);
                if md > 0 {
                    // A quarter edge: its metadata byte's address follows.
                    l.cost(cost::STATE_WORD);
                    let at_md = l.b.ins().iadd_imm_s(at, i64::from(f.size - md));
                    let m = l.load_tile_raw(at_md, types::I32)?;
                    // Metadata is only ever read by codelets.
                    l.readonly.insert(m);
                    if let V::EdgeS { addr, .. } | V::Vec { addr, .. } | V::List { addr, .. } = &v {
                        l.metadata.insert(*addr, m);
                    }
                }
            }
            if input {
                match &v {
                    V::EdgeS { addr, .. } | V::Vec { addr, .. } => {
                        l.readonly.insert(*addr);
                    }
                    V::List { addr, .. } | V::Edges { addr, .. } => {
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

    /// The bound on one entry function's blocks ([`MAX_BLOCKS`]), checked
    /// at each statement and inlined call; `within` names the function
    /// being lowered or inlined.
    pub(crate) fn check_size(&self, span: Span, within: &str) -> Result<()> {
        if self.b.func.dfg.num_blocks() > MAX_BLOCKS {
            return err(
                span,
                format!(
                    "inlined code too large: vertex code has more than {MAX_BLOCKS} blocks in '{within}' \
                     (popc inlines every call)"
                ),
            );
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
        if (s == Scalar::Quarter) != (to == Scalar::Quarter) {
            return err(
                span,
                format!(
                    "no conversion from '{}' to '{}': quarter converts only through toFloat, toHalf and toQuarter",
                    s.name(),
                    to.name()
                ),
            );
        }
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
            Err(d) if d.is_limit() => Err(d),
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
