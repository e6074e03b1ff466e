//! The cycle and step totals a run accumulates: wall cycles by kind of
//! step, the same summed over tiles (Poplar's `tileCycles`), and each
//! program's share. `exec` adds to them; `profile` and the summary read them.

/// Cycle and step totals of everything run so far.
///
/// `cycles` and the wall figures (`compute`, `exchange`, `host`, `sync`)
/// are time on the IPU's clock; the `*_tile` figures are summed over tiles,
/// as Poplar's profile sums `tileCycles`. Every tile spends the whole of
/// `cycles` in one of compute, exchange, host transfer, global exchange
/// or sync (a tile waiting for the others at a sync is in sync), so
/// `compute_tile + exchange_tile + host_tile + external_tile + sync_tile
/// == cycles x tiles`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Modelled cycles (sim only).
    pub cycles: u64,
    /// Wall cycles of compute phases (each the slowest tile's).
    pub compute: u64,
    /// Tile-cycles with a worker issuing ("excluding idle threads").
    pub compute_active: u64,
    /// Each tile's own compute cycles, summed ("including idle threads").
    pub compute_tile: u64,
    /// Wall cycles of exchange phases and predicate broadcasts.
    pub exchange: u64,
    /// Each tile's own exchange cycles, summed.
    pub exchange_tile: u64,
    /// Wall cycles of host transfers (every tile takes part).
    pub host: u64,
    /// Wall cycles of syncs.
    pub sync: u64,
    /// Wall cycles of cross-replica collectives' global syncs and link
    /// traffic (every tile takes part; Poplar's "global exchange").
    pub external: u64,
    /// Steps executed (both devices).
    pub steps: u64,
    /// The same figures for each program (by index; its `by_program` is
    /// empty), summed over its runs.
    pub by_program: Vec<Totals>,
}

impl Totals {
    /// Tile-cycles spent in sync: the syncs themselves and the time tiles
    /// wait for the slowest one, summed over tiles.
    pub fn sync_tile(&self, tiles: u64) -> u64 {
        let spent = self
            .compute_tile
            .saturating_add(self.exchange_tile)
            .saturating_add(self.host.saturating_mul(tiles))
            .saturating_add(self.external.saturating_mul(tiles));
        self.cycles.saturating_mul(tiles).saturating_sub(spent)
    }

    /// Applies `f` to the totals and to program `program`'s.
    pub(crate) fn charge(&mut self, program: u32, f: impl Fn(&mut Totals)) {
        f(self);
        let p = program as usize;
        if self.by_program.len() <= p {
            self.by_program.resize(p + 1, Totals::default());
        }
        f(&mut self.by_program[p]);
    }
}
