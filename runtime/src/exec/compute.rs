//! One compute phase: every vertex of a compute set, each tile's vertices
//! in order on the thread that owns the tile, through the code the loader
//! mapped (the counting variant on `sim`, whose counts become the tile's
//! cycles over its workers); printf output joined in tile order; a fault
//! reported for the lowest failing tile. Each tile's random draw counter
//! (`TileCtx::draws`) is carried from call to call and phase to phase, and
//! on `sim` each call's context holds the tile's modelled cycle counter
//! when it begins (`TileCtx::cycles`).
//!
//! `unsafe` is allowed here because vertex code is generated machine code,
//! called through entry addresses the loader mapped with the signatures
//! below, and each thread reaches its own tiles' memory, printf buffer and
//! result through raw pointers shared by the phase ([`Shared`]).

#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::Arc;

use linker::abi::{TileCtx, MULTIVERTEX_WORKERS, STATUS_OK};
use linker::gp::VertexBase;

use super::memory::Shared;
use super::{DeviceKind, Machine, MAX_WORKERS};
use crate::cost;
use crate::error::Fault;

type Entry2 = unsafe extern "C" fn(*mut TileCtx, u32) -> u32;
type Entry3 = unsafe extern "C" fn(*mut TileCtx, u32, u32) -> u32;

/// Per-tile result of a compute phase.
#[derive(Clone, Debug, Default)]
pub(super) struct TileResult {
    cycles: u64,
    active: u64,
    /// Draws the tile's random generator has made since the image was
    /// loaded (kept across phases and runs).
    draws: u64,
}

impl Machine {
    /// Runs every vertex of compute set `cs`; on failure, the fault of the
    /// lowest failing tile. A compute set whose exchange in runs tile by
    /// tile copies each tile's incoming transfers just before its vertices
    /// (the data is then still in the cache when they read it).
    pub(super) fn compute(&mut self, cs_index: usize, program: u32, node: u32) -> Result<(), Box<Fault>> {
        let loaded = self.loaded.clone();
        let image = &loaded.image;
        let cs = &image.compute_sets[cs_index];
        let sim = self.kind == DeviceKind::Sim;
        let counting = sim && !self.uninstrumented;
        let workers = (image.target.workers as usize).min(MAX_WORKERS);
        let ptrs = Shared(self.ptrs.as_ptr() as *mut usize);
        let out = Shared(self.tile_out.as_mut_ptr());
        let res = Shared(self.tile_res.as_mut_ptr());
        let lens = &self.lens;
        let host = crate::hostfns::table() as usize;
        let stop = Arc::as_ptr(&self.stop) as usize;
        // A vertex counting more than the cycles left over the workers would
        // take the phase past --max-cycles (a tile's time is at least
        // workers x its busiest worker's count): stop it inside.
        let budget = match self.max_cycles {
            Some(limit) if counting => limit.saturating_sub(self.totals.cycles) / workers.max(1) as u64,
            _ => u64::MAX,
        };
        // The tile's cycle counter when the phase begins, and per counted
        // instruction (`__builtin_ipu_get_scount_l/_u`); still on cpu.
        let start = if sim { self.totals.cycles } else { 0 };
        let per_count = if sim { workers as u64 } else { 0 };
        let by_tile = &self.in_by_tile[cs_index];
        let record = self.rec.is_some();
        let vcounts = std::sync::Mutex::new(Vec::<(u32, u32, u64)>::new());
        let run = |lo: usize, hi: usize| -> Option<Box<Fault>> {
            let mut local_counts: Vec<(u32, u32, u64)> = Vec::new();
            for (i, w) in cs.tiles.iter().enumerate().take(hi).skip(lo) {
                let t = w.tile as usize;
                let tile = &image.tiles[t];
                if let Some(&(a, b)) = by_tile.get(i) {
                    // SAFETY: the transfers go to tile `t`, owned here; the
                    // compiler found no vertex of the set writes a source.
                    unsafe {
                        super::exchange::perform(&ptrs, &cs.exchange_in.transfers[a as usize..b as usize])
                    };
                }
                // SAFETY: tile `t` is owned by this thread for the phase.
                let buf = unsafe { out.at(t) };
                // SAFETY: as above.
                let r = unsafe { res.at(t) };
                let mut ctx = TileCtx {
                    mem: unsafe { *ptrs.at(t) } as *mut u8,
                    mem_len: u64::from(lens[t]),
                    host: host as *const linker::abi::HostTable,
                    count: 0,
                    trap_addr: 0,
                    trap_line: 0,
                    tile: t as u32,
                    host_data: buf as *mut Vec<u8> as *mut c_void,
                    stop: stop as *const u32,
                    budget,
                    cycles: start,
                    cycles_per_count: per_count,
                    draws: r.draws,
                    statics: 0,
                };
                let at = |load: u64| start.saturating_add(load.saturating_mul(per_count));
                let mut loads = [0u64; MAX_WORKERS];
                let loads = &mut loads[..workers];
                let verts = &tile.vertices[w.start as usize..w.end as usize];
                for v in verts {
                    let vt = &image.vertex_types[v.vertex_type as usize];
                    ctx.statics = vt.statics;
                    let use_counting = counting && v.cycles.is_none();
                    let entry = if use_counting {
                        loaded.counting[v.vertex_type as usize]
                    } else {
                        loaded.plain[v.vertex_type as usize]
                    };
                    let fault = |ctx: &TileCtx, status: u32, worker: Option<u32>| {
                        Box::new(Fault {
                            tile: t as u32,
                            vertex_type: vt.name.clone(),
                            vertex_id: v.id,
                            compute_set: cs.name.clone(),
                            status,
                            trap_addr: ctx.trap_addr,
                            source: (ctx.trap_line != 0).then(|| (vt.source.clone(), ctx.trap_line)),
                            worker,
                        })
                    };
                    let mut total = 0u64;
                    if vt.base == VertexBase::MultiVertex {
                        // SAFETY: the loader mapped this entry with this signature.
                        let f: Entry3 = unsafe { std::mem::transmute::<usize, Entry3>(entry) };
                        // Worker ids `0..numWorkers()` whatever the target's
                        // contexts: context `id % workers` runs id `id`.
                        for wk in 0..MULTIVERTEX_WORKERS {
                            ctx.count = 0;
                            ctx.cycles = at(loads[wk as usize % loads.len()]);
                            // SAFETY: generated code only touches memory through ctx, checked.
                            let status = unsafe { f(&mut ctx, v.state, wk) };
                            if status != STATUS_OK {
                                r.draws = ctx.draws;
                                return Some(fault(&ctx, status, Some(wk)));
                            }
                            let c = v.cycles.unwrap_or(ctx.count);
                            let load = &mut loads[wk as usize % loads.len()];
                            *load = load.saturating_add(c);
                            total = total.saturating_add(c);
                        }
                    } else {
                        // SAFETY: as above.
                        let f: Entry2 = unsafe { std::mem::transmute::<usize, Entry2>(entry) };
                        // A supervisor waits for every worker; a vertex
                        // runs on the least-loaded worker context.
                        let supervisor = vt.base == VertexBase::Supervisor;
                        let i = loads.iter().enumerate().min_by_key(|&(i, l)| (*l, i)).map_or(0, |(i, _)| i);
                        let load = match supervisor {
                            true => loads.iter().copied().max().unwrap_or(0),
                            false => loads[i],
                        };
                        ctx.count = 0;
                        ctx.cycles = at(load);
                        // SAFETY: as above.
                        let status = unsafe { f(&mut ctx, v.state) };
                        if status != STATUS_OK {
                            r.draws = ctx.draws;
                            return Some(fault(&ctx, status, None));
                        }
                        let c = v.cycles.unwrap_or(ctx.count);
                        total = c;
                        if supervisor {
                            let m = load.saturating_add(c);
                            loads.iter_mut().for_each(|l| *l = m);
                        } else {
                            loads[i] = loads[i].saturating_add(c);
                        }
                    }
                    if record && sim {
                        local_counts.push((v.id, v.vertex_type, total));
                    }
                }
                r.draws = ctx.draws;
                if sim {
                    r.cycles = cost::tile_compute_cycles(loads);
                    r.active = loads.iter().fold(0u64, |a, &l| a.saturating_add(l));
                }
            }
            if !local_counts.is_empty() {
                vcounts.lock().unwrap().extend(local_counts);
            }
            None
        };
        // Each thread times its ranges, so that the next run of the set
        // uses as many threads as its work pays for.
        let timed = |lo: usize, hi: usize| {
            let t = std::time::Instant::now();
            let f = run(lo, hi);
            (f, t.elapsed().as_nanos() as u64)
        };
        let used = if cs.tiles.len() > 1 { self.compute_threads(cs_index) } else { 1 };
        let results = self.fan_out(&self.cs_split[cs_index], used, timed);
        let work = results.iter().fold(0u64, |a, r| a.saturating_add(r.1));
        let fault = results.into_iter().filter_map(|r| r.0).min_by_key(|f| f.tile);
        self.record_work(cs_index, work);
        // Printf output in tile order, up to the failing tile.
        for w in &cs.tiles {
            let buf = &mut self.tile_out[w.tile as usize];
            if !buf.is_empty() {
                if fault.as_ref().is_none_or(|f| w.tile <= f.tile) {
                    self.host.output.extend_from_slice(buf);
                    if buf.len() >= linker::host::PRINTF_LIMIT && self.printf_full.is_none() {
                        self.printf_full = Some(w.tile);
                    }
                }
                buf.clear();
            }
        }
        if let Some(f) = fault {
            return Err(f);
        }
        if sim {
            let (mut max, mut tile_sum, mut active_sum) = (0u64, 0u64, 0u64);
            for w in &cs.tiles {
                let r = &self.tile_res[w.tile as usize];
                max = max.max(r.cycles);
                tile_sum = tile_sum.saturating_add(r.cycles);
                active_sum = active_sum.saturating_add(r.active);
            }
            let from = self.totals.cycles;
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(max);
                t.compute = t.compute.saturating_add(max);
                t.compute_tile = t.compute_tile.saturating_add(tile_sum);
                t.compute_active = t.compute_active.saturating_add(active_sum);
            });
            if let Some(rec) = &mut self.rec {
                let per_tile: Vec<(u32, u64, u64)> = cs
                    .tiles
                    .iter()
                    .map(|w| {
                        let r = &self.tile_res[w.tile as usize];
                        (w.tile, r.cycles, r.active)
                    })
                    .collect();
                rec.compute(
                    node,
                    cs_index as u32,
                    &cs.name,
                    from,
                    max,
                    &per_tile,
                    &vcounts.into_inner().unwrap(),
                );
            }
        }
        Ok(())
    }
}
