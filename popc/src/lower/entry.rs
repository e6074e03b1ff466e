//! The entry function of one vertex type: its prologue (the tile memory's
//! bounds, the edge descriptors read from the vertex state, `Input` data
//! marked read-only), `compute()` inlined, and its epilogue (the cold trap
//! stubs, the trap block recording the address and line, the counting
//! variant's count added to the tile context).

use std::rc::Rc;

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use cranelift_frontend::FunctionBuilder;
use linker::abi;
use linker::gp::{FieldKind, VertexBase};

use super::{mflags, Lowerer, Place, Variant, V};
use crate::cost;
use crate::diag::{err, Result, SourceMap};
use crate::front::ast::*;
use crate::hash::HashMap;
use crate::sema::types::Scalar;
use crate::sema::{ClassInst, Env, FieldTy, Ty, Unit};

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
        let Variant { counting, debug, vectorize, stop_checks } = variant;
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
        // The tile's length, at most 2^32 - 1 (tile addresses are 32 bits).
        let len32 = {
            let max = b.ins().iconst(types::I64, i64::from(u32::MAX));
            b.ins().umin(mem_len, max)
        };
        // An access of `2^k` bytes at a 32-bit address `a` known aligned is
        // inside the tile when `a < len - 2^k + 1` (0 when the tile is
        // shorter); one not known aligned, when its slot, `a` rotated right
        // by `k`, is below `len >> k` (see `Lowerer::tile_addr`).
        let lims = [0i64, 1, 2, 3].map(|k| {
            let d = b.ins().iadd_imm_s(len32, 1 - (1 << k));
            let zero = b.ins().iconst(types::I64, 0);
            let d = b.ins().smax(d, zero);
            b.ins().ireduce(types::I32, d)
        });
        let slots = [1i64, 2, 3].map(|k| {
            let n = b.ins().ushr_imm_s(len32, k);
            b.ins().ireduce(types::I32, n)
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
            stop_checks,
            ctx,
            mem,
            mem_len,
            count,
            pending: 0,
            cost_total: 0,
            uncounted: 0,
            deferred: 0,
            trap,
            line: 0,
            scopes: vec![HashMap::default()],
            fields: HashMap::default(),
            frames: Vec::new(),
            loops: Vec::new(),
            calls: Vec::new(),
            env: Env { class: Some(c.clone()), ..c.env.clone() },
            next_base: None,
            next_this: None,
            obj_refs: HashMap::default(),
            readonly: Default::default(),
            readonly_vars: Default::default(),
            half_src: HashMap::default(),
            metadata: HashMap::default(),
            region: None,
            checked: HashMap::default(),
            addr_memo: HashMap::default(),
            load_memo: HashMap::default(),
            lims,
            slots,
            aligned: HashMap::default(),
            trap_stubs: Default::default(),
            inlined: 0,
            exact: HashMap::default(),
            dyn_classes: Vec::new(),
        };
        l.line = src.line(c.decl.ast.span);
        l.cost(cost::VERTEX_ENTRY);
        // Vertex states are 4-byte aligned (the image's validator checks).
        l.note_aligned(state, 4);
        // Edge descriptors.
        for f in &c.fields {
            let at = l.b.ins().iadd_imm_s(state, f.offset as i64);
            l.note_aligned(at, l.stride_align(state, f.offset));
            let input = matches!(f.ty, FieldTy::Edge { dir: linker::gp::Direction::Input, .. });
            let v = match &f.ty {
                FieldTy::Edge { elem, kind, .. } => match kind {
                    FieldKind::Scalar => {
                        l.cost(cost::STATE_WORD);
                        let a = l.load_tile_raw(at, types::I32)?;
                        V::EdgeS { elem: *elem, addr: a }
                    }
                    FieldKind::Vector(lay) | FieldKind::ScalarList(lay) => {
                        l.cost(cost::STATE_WORD);
                        let addr = l.load_tile_raw(at, types::I32)?;
                        let count = if lay.stores_count() {
                            l.cost(cost::STATE_WORD);
                            let at4 = l.b.ins().iadd_imm_s(at, 4);
                            l.note_aligned(at4, l.stride_align(at, 4));
                            Some(l.load_tile_raw(at4, types::I32)?)
                        } else {
                            None
                        };
                        match kind {
                            FieldKind::Vector(_) => V::Vec { elem: *elem, addr, count },
                            _ => V::Edges { elem: *elem, addr, count },
                        }
                    }
                    FieldKind::VectorList(_) => {
                        l.cost(2 * cost::STATE_WORD);
                        let a = l.load_tile_raw(at, types::I32)?;
                        let at4 = l.b.ins().iadd_imm_s(at, 4);
                        l.note_aligned(at4, l.stride_align(at, 4));
                        let n = l.load_tile_raw(at4, types::I32)?;
                        V::List { elem: *elem, addr: a, count: n }
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
                    l.note_aligned(at_md, l.stride_align(at, f.size - md));
                    let m = l.load_tile_raw(at_md, types::I32)?;
                    // Metadata is only ever read by codelets.
                    l.readonly.insert(m);
                    if let V::EdgeS { addr, .. } | V::Vec { addr, .. } | V::List { addr, .. } = &v {
                        l.metadata.insert(*addr, m);
                    }
                }
            }
            // The graph compiler (and popc's harness) puts every edge's
            // data at a multiple of its element's size, and the address
            // tables of vector lists at a multiple of 4.
            match &v {
                V::EdgeS { elem, addr } | V::Vec { elem, addr, .. } => {
                    l.note_aligned(*addr, 1 << elem.size().trailing_zeros())
                }
                V::List { addr, .. } | V::Edges { addr, .. } => l.note_aligned(*addr, 4),
                _ => {}
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
                let c = l.cond(v, compute.span)?;
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
        let mut tp = l.b.block_params(l.trap).to_vec();
        if l.trap_stubs.keys().any(|&(status, _)| status > super::memory::ACCESS_TRAP) {
            // A scalar access check: outside the tile, or else misaligned.
            let size = l.b.ins().iadd_imm_s(tp[0], -i64::from(super::memory::ACCESS_TRAP));
            let size = l.b.ins().uextend(types::I64, size);
            let end = l.b.ins().iadd(tp[1], size);
            // Read again: keeping `mem_len` live for the cold path would
            // cost the hot path a register.
            let mem_len = l.b.ins().load(types::I64, mflags(), ctx, abi::OFFSET_MEM_LEN);
            let outside = l.b.ins().icmp(IntCC::UnsignedGreaterThan, end, mem_len);
            let oob = l.b.ins().iconst(types::I32, i64::from(abi::STATUS_OUT_OF_BOUNDS));
            let mis = l.b.ins().iconst(types::I32, i64::from(abi::STATUS_MISALIGNED));
            let classified = l.b.ins().select(outside, oob, mis);
            let access = l.b.ins().icmp_imm_s(
                IntCC::UnsignedGreaterThan,
                tp[0],
                i64::from(super::memory::ACCESS_TRAP),
            );
            tp[0] = l.b.ins().select(access, classified, tp[0]);
        }
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
}
