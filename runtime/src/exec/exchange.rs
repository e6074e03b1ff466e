//! One exchange phase: every transfer of a compute set's exchange in or
//! out, or of a copy, performed on as many threads as its bytes pay for
//! (each thread the transfers to the destination tiles it owns; a small
//! exchange on the calling thread alone);
//! and on `sim` its modelled cycles ([`ExchangeInfo`], computed once per
//! exchange when the machine is built).
//!
//! `unsafe` is allowed here because the transfers of a phase copy between
//! tile memories from several threads at once through raw pointers: the
//! validator guarantees every range is inside its tile, destinations are
//! disjoint, and no transfer reads what another of the phase writes.

#![allow(unsafe_code)]

use linker::image::{Exchange, Transfer};

use super::memory::Shared;
use super::{DeviceKind, Machine};
use crate::cost;

/// Static facts about one exchange, computed once.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExchangeInfo {
    pub bytes: u64,
    /// Modelled cycles (slowest tile).
    pub cycles: u64,
    /// Sum over tiles of their exchange cycles.
    pub tile_cycles: u64,
    pub active_tiles: u32,
    /// Largest bytes sent or received by one tile.
    pub max_tile_bytes: u64,
    /// Bytes sent plus received, summed over tiles, and the largest of one
    /// tile (the profile's data balance).
    pub tile_data: u64,
    pub max_tile_data: u64,
    /// Cycles the phase spends on traffic between IPUs (a global sync and
    /// the busiest IPU's IPU-Link traffic), beyond `cycles`; 0 on one IPU.
    pub external_cycles: u64,
}

impl Machine {
    /// Performs one exchange phase and charges its cycles; `node` is its
    /// `DoExchange` in the profiles.
    pub(super) fn exchange(&mut self, x: &Exchange, info: &ExchangeInfo, xi: usize, program: u32, node: u32) {
        let ptrs = Shared(self.ptrs.as_ptr() as *mut usize);
        let used = self.exchange_threads(info.bytes);
        // SAFETY: the validator checked every range; a phase's destinations
        // are disjoint, split at tile boundaries between the threads, and
        // never read by another transfer of it.
        self.fan_out(&self.x_split[xi], used, |lo, hi| unsafe { perform(&ptrs, &x.transfers[lo..hi]) });
        self.charge_exchange(x, info, program, node);
    }

    /// Charges an exchange phase's modelled cycles on `sim` (and records
    /// it), whether it ran on its own or tile by tile inside the compute.
    pub(super) fn charge_exchange(&mut self, x: &Exchange, info: &ExchangeInfo, program: u32, node: u32) {
        if self.kind == DeviceKind::Sim {
            let from = self.totals.cycles;
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(info.cycles);
                t.exchange = t.exchange.saturating_add(info.cycles);
                t.exchange_tile = t.exchange_tile.saturating_add(info.tile_cycles);
            });
            if let Some(rec) = &mut self.rec {
                let loaded = self.loaded.clone();
                rec.exchange(&loaded.tree, node, from, info, x);
            }
            // Traffic between IPUs: after the tiles' own exchange, the
            // phase waits for the IPU-Links (global exchange).
            if info.external_cycles > 0 {
                let from = self.totals.cycles;
                let c = info.external_cycles;
                self.totals.charge(program, |t| {
                    t.cycles = t.cycles.saturating_add(c);
                    t.external = t.external.saturating_add(c);
                });
                if let Some(rec) = &mut self.rec {
                    rec.global_exchange(node, from, c, 0);
                }
            }
        }
    }
}

/// Copies `transfers` between tile memories.
///
/// # Safety
/// Every range is inside its tile (validated), and while this runs no
/// other thread writes a destination or a source of these transfers, nor
/// reads a destination.
pub(super) unsafe fn perform(ptrs: &Shared<usize>, transfers: &[Transfer]) {
    for tr in transfers {
        // SAFETY: per the contract.
        unsafe {
            let src = (*ptrs.at(tr.src_tile as usize) as *const u8).add(tr.src_offset as usize);
            let dst = (*ptrs.at(tr.dst_tile as usize) as *mut u8).add(tr.dst_offset as usize);
            std::ptr::copy(src, dst, tr.bytes as usize);
        }
    }
}

/// Bytes and modelled cycles of an exchange.
pub(super) fn exchange_info(x: &Exchange, target: &linker::image::Target) -> ExchangeInfo {
    if x.transfers.is_empty() {
        return ExchangeInfo::default();
    }
    let bpc = target.exchange_bytes_per_cycle;
    let bytes = x.transfers.iter().map(|t| u64::from(t.bytes)).sum();
    let mut info = ExchangeInfo { bytes, ..Default::default() };
    if target.ipus > 1 {
        // Bytes each IPU sends to and receives from the others.
        let per = target.tiles_per_ipu.max(1);
        let mut out = vec![0u64; target.ipus as usize];
        let mut inn = vec![0u64; target.ipus as usize];
        for t in &x.transfers {
            let (a, b) = ((t.src_tile / per) as usize, (t.dst_tile / per) as usize);
            if a != b {
                out[a] += u64::from(t.bytes);
                inn[b] += u64::from(t.bytes);
            }
        }
        let busiest = out.iter().zip(&inn).map(|(o, i)| *o.max(i)).max().unwrap_or(0);
        let factor = target.links.bandwidth_factor(target.ipus);
        info.external_cycles = cost::ipu_link_cycles(busiest, factor, target.clock_mhz);
    }
    for (_, s, r) in x.bytes_by_tile() {
        let c = cost::exchange_tile_cycles(s, r, bpc);
        info.cycles = info.cycles.max(c);
        info.tile_cycles = info.tile_cycles.saturating_add(c);
        info.active_tiles += 1;
        info.max_tile_bytes = info.max_tile_bytes.max(s.max(r));
        info.tile_data = info.tile_data.saturating_add(s + r);
        info.max_tile_data = info.max_tile_data.max(s + r);
    }
    info
}
