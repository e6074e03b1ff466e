//! Blocks and branches as every part of lowering makes them: each branch
//! charges its modelled cost and flushes the counting variant's pending
//! count into its counter, loop heads test their condition, source lines
//! follow statements, and the number of blocks is bounded. Also the
//! skeleton of the counted loops popc generates itself.

use cranelift_codegen::ir::{self, condcodes::IntCC, Block, InstBuilder, Value};

use super::{Lowerer, MAX_BLOCKS};
use crate::cost;
use crate::diag::{err, Result, Span};
use crate::front::ast::*;

impl Lowerer<'_, '_> {
    pub(crate) fn cost(&mut self, n: u64) {
        if self.uncounted > 0 {
            return;
        }
        if self.deferred == 0 {
            self.pending += n;
        }
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
    pub(super) fn loop_test(&mut self, cond: Option<&Expr>, body: Block, exit: Block) -> Result<()> {
        self.cost(cost::BRANCH);
        match cond {
            Some(c) => {
                let span = c.span;
                let c = self.expr(c)?;
                let c = self.cond(c, span)?;
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

    /// `for (i = 0; i < n; ++i) body(i)`, for loops popc makes itself
    /// (`std::array::fill`, `memcpy`, `memset`): `i` counts up from 0 in
    /// `n`'s integer type, compared unsigned. The loop costs its branches
    /// and what `body` charges. It does not poll the stop word: each
    /// iteration accesses the next element of memory, so it ends (or traps)
    /// within the memory's size.
    pub(crate) fn counted_loop(
        &mut self,
        n: Value,
        body: impl FnOnce(&mut Self, Value) -> Result<()>,
    ) -> Result<()> {
        let ty = self.b.func.dfg.value_type(n);
        let i = self.b.declare_var(ty);
        let z = self.b.ins().iconst(ty, 0);
        self.b.def_var(i, z);
        let head = self.b.create_block();
        let body_block = self.b.create_block();
        let exit = self.b.create_block();
        self.jump(head, &[]);
        self.b.switch_to_block(head);
        let iv = self.b.use_var(i);
        let c = self.b.ins().icmp(IntCC::UnsignedLessThan, iv, n);
        self.brif(c, body_block, exit);
        self.b.switch_to_block(body_block);
        body(self, iv)?;
        let ni = self.b.ins().iadd_imm_s(iv, 1);
        self.b.def_var(i, ni);
        self.jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }
}
