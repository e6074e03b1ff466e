//! Memory and traps: every tile access is a bounds-checked offset from the
//! tile's base, a scalar of 2, 4 or 8 bytes also checked to be aligned to
//! its size unless its address is known aligned (checks and loads reused
//! within a straight-line region),
//! traps leave through cold stubs, loop back edges poll the stop word and
//! the cycle budget, local aggregates live in host stack slots, and
//! addresses derived from `Input` edges are tracked as read-only.

use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::Variable;
use linker::abi;

use super::{cl, half_ir, mflags, Lowerer, Place};
use crate::cost;
use crate::diag::{err, Result, Span};
use crate::sema::types::Scalar;

/// The trap "status" of a failed scalar access check of `size` bytes is
/// `ACCESS_TRAP + size`, not a status of the ABI: the entry function's
/// trap block, shared by every check, turns it into
/// [`abi::STATUS_OUT_OF_BOUNDS`] when the access ends past the tile and
/// [`abi::STATUS_MISALIGNED`] otherwise, so the hot path and each check's
/// cold stub stay as short as a bounds check's.
pub(crate) const ACCESS_TRAP: u32 = 0x100;

impl Lowerer<'_, '_> {
    /// At a loop's back edge (every `while`, `do` and `for` iteration):
    /// returns [`abi::STATUS_INTERRUPTED`] once the runtime sets
    /// `*ctx.stop`, and in the counting variant [`abi::STATUS_CYCLE_LIMIT`]
    /// once this call has counted more than `ctx.budget`. Costs no modelled
    /// cycles; the stop word is loaded afresh each time (another thread
    /// writes it). Nothing when the checks are off
    /// ([`crate::Options::stop_checks`]).
    pub(crate) fn stop_check(&mut self) {
        if !self.stop_checks {
            return;
        }
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
        self.branch_to_stub(cond, stub, addr);
    }

    /// Leaves for `stub` with `addr` when `cond` holds; goes on in a new
    /// block of the same region otherwise.
    fn branch_to_stub(&mut self, cond: Value, stub: ir::Block, addr: Value) {
        let cont = self.b.create_block();
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

    /// Host address of a checked tile access of `size` bytes at `addr`
    /// (i32). A scalar of 2, 4 or 8 bytes must also be aligned to its size,
    /// as on the IPU. At an address known aligned ([`Self::aligned`]: edge
    /// data, vertex state and the elements reached from them) the bounds
    /// are one compare, `addr < lims[k]`. Elsewhere one compare checks
    /// both: rotating the address right by `k = log2(size)` bits gives its
    /// slot number `addr >> k` when it is aligned and at least `2^(32-k)`
    /// when it is not, and the tile has `slots[k-1] = len >> k < 2^(32-k)`
    /// whole slots, so `rotr(addr, k) >= slots[k-1]` is "outside the tile
    /// or misaligned"; the trap path tells which ([`ACCESS_TRAP`]).
    pub(crate) fn tile_addr(&mut self, addr: Value, size: u32) -> Value {
        self.sync_region();
        let align = if matches!(size, 2 | 4 | 8) { size } else { 1 };
        if let Some(&(h, sz, al)) = self.checked.get(&addr) {
            if size <= sz && align <= al {
                // Already checked on every path to here (same region).
                return h;
            }
        }
        let off = self.b.ins().uextend(types::I64, addr);
        match size {
            1 | 2 | 4 | 8 => {
                let k = size.trailing_zeros() as usize;
                if self.align_of(addr) >= align {
                    let bad = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, addr, self.lims[k]);
                    self.trap_if(bad, abi::STATUS_OUT_OF_BOUNDS, off);
                } else {
                    let slot = self.b.ins().rotr_imm_s(addr, k as i64);
                    let bad = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, slot, self.slots[k - 1]);
                    self.trap_if(bad, ACCESS_TRAP + size, off);
                }
            }
            _ => {
                let end = self.b.ins().iadd_imm_s(off, size as i64);
                let bad = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, self.mem_len);
                self.trap_if(bad, abi::STATUS_OUT_OF_BOUNDS, off);
            }
        }
        let h = self.b.ins().iadd(self.mem, off);
        self.checked.insert(addr, (h, size, align));
        h
    }

    /// The power of two tile address `addr` is known to be a multiple of
    /// (1 when nothing is known).
    pub(crate) fn align_of(&self, addr: Value) -> u32 {
        self.aligned.get(&addr).copied().unwrap_or(1)
    }

    /// Records that tile address `addr` is a multiple of `align` (a power
    /// of two; 1 records nothing).
    pub(crate) fn note_aligned(&mut self, addr: Value, align: u32) {
        if align > 1 {
            self.aligned.insert(addr, align);
        }
    }

    /// The alignment `base + i * stride` has for any `i` (`stride` in
    /// bytes; 0 for `base` itself).
    pub(crate) fn stride_align(&self, base: Value, stride: u32) -> u32 {
        let a = self.align_of(base);
        if stride == 0 {
            a
        } else {
            a.min(1 << stride.trailing_zeros())
        }
    }

    pub(super) fn load_tile_raw(&mut self, addr: Value, ty: ir::Type) -> Result<Value> {
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
                if self.readonly.contains(&v) {
                    // An integer local holding an `Input` edge's address.
                    self.readonly_vars.insert(cranelift_codegen::entity::EntityRef::index(var));
                }
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

    pub(crate) fn stack(&mut self, size: u32, align: u32) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size.max(1),
            align.max(1).trailing_zeros() as u8,
        ));
        self.b.ins().stack_addr(types::I64, slot, 0)
    }

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
}
