//! The target machine: presets and overrides (`target mk2(tiles_per_ipu = 4)`).

/// The machine a graph is compiled for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The preset it started from (`mk1`, `mk2`, `bow`, `cpu`).
    pub preset: Preset,
    /// Number of IPUs.
    pub ipus: u32,
    /// Tiles on each IPU.
    pub tiles_per_ipu: u32,
    /// Bytes of memory on each tile (`u32::MAX` for `cpu`: bounded by the host).
    pub bytes_per_tile: u32,
    /// Hardware worker contexts per tile.
    pub workers: u32,
    /// Tile clock in MHz.
    pub clock_mhz: u32,
    /// Exchange bandwidth in bytes per cycle per tile.
    pub exchange_bytes_per_cycle: u32,
    /// Cycles of one internal sync across the IPU (0 models Poplar's
    /// `IPUModel` with its sync delay off).
    pub sync_cycles: u32,
    /// Copies of the graph that run side by side (Poplar's
    /// `replication_factor`); every other figure is one replica's.
    pub replication_factor: u32,
    /// The IPU-Links between one replica's IPUs (Poplar's
    /// `ipuLinkTopology`, `ipuLinkConfiguration`, `syncConfiguration`).
    pub links: vocab::IpuLinks,
}

/// A named target preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    Mk1,
    Mk2,
    Bow,
    Cpu,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 4] = [Preset::Mk1, Preset::Mk2, Preset::Bow, Preset::Cpu];

    /// The PIR name.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Mk1 => "mk1",
            Preset::Mk2 => "mk2",
            Preset::Bow => "bow",
            Preset::Cpu => "cpu",
        }
    }

    /// Looks a preset up by its PIR name.
    pub fn from_name(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == s)
    }
}

/// Most tiles a target may have: an IPU-POD64 (64 x 1,472 = 94,208 tiles)
/// fits, with room to spare.
pub const MAX_TILES: u32 = 1 << 17;

/// Most worker contexts per tile (the IPU has 6).
pub const MAX_WORKERS: u32 = 64;

/// The override keys a `target` item accepts, in canonical order.
pub const TARGET_KEYS: [&str; 8] = [
    "ipus",
    "tiles_per_ipu",
    "bytes_per_tile",
    "workers",
    "clock_mhz",
    "exchange_bytes_per_cycle",
    "sync_cycles",
    "replication_factor",
];

pub use vocab::MAX_REPLICAS;

/// The default of `sync_cycles`: the order of the IPU's measured internal
/// sync latency (a few tens of cycles for the tile nearest the sync
/// controller, over a hundred for the farthest).
pub const DEFAULT_SYNC_CYCLES: u32 = 100;

impl Target {
    /// The figures of a preset (docs/pir.md, "Target").
    pub fn preset(p: Preset) -> Target {
        let (tiles, bytes, clock, workers) = match p {
            Preset::Mk1 => (1216, 262_144, 1600, 6),
            Preset::Mk2 => (1472, 638_976, 1330, 6),
            Preset::Bow => (1472, 638_976, 1850, 6),
            Preset::Cpu => (1, u32::MAX, 1000, 1),
        };
        Target {
            preset: p,
            ipus: 1,
            tiles_per_ipu: tiles,
            bytes_per_tile: bytes,
            workers,
            clock_mhz: clock,
            exchange_bytes_per_cycle: 4,
            sync_cycles: if p == Preset::Cpu { 0 } else { DEFAULT_SYNC_CYCLES },
            replication_factor: 1,
            links: vocab::IpuLinks::default(),
        }
    }

    /// The preset by PIR name.
    pub fn from_preset_name(name: &str) -> Option<Target> {
        Preset::from_name(name).map(Target::preset)
    }

    /// Sets one override key (limits across keys are [`Target::check`]'s); `Err` names the problem (unknown key, zero).
    pub fn set(&mut self, key: &str, value: u32) -> Result<(), String> {
        let slot = match key {
            "ipus" => &mut self.ipus,
            "tiles_per_ipu" => &mut self.tiles_per_ipu,
            "bytes_per_tile" => &mut self.bytes_per_tile,
            "workers" => &mut self.workers,
            "clock_mhz" => &mut self.clock_mhz,
            "exchange_bytes_per_cycle" => &mut self.exchange_bytes_per_cycle,
            "replication_factor" => &mut self.replication_factor,
            "sync_cycles" => {
                self.sync_cycles = value;
                return Ok(());
            }
            _ => {
                let hint = spelling::did_you_mean(key, TARGET_KEYS)
                    .map(|k| format!("; did you mean `{k}`?"))
                    .unwrap_or_default();
                return Err(format!(
                    "unknown target key `{key}`{hint} (expected one of: {})",
                    TARGET_KEYS.join(", ")
                ));
            }
        };
        if value == 0 {
            return Err(format!("target key `{key}` must be at least 1"));
        }
        *slot = value;
        Ok(())
    }

    /// The value of an override key.
    pub fn get(&self, key: &str) -> Option<u32> {
        Some(match key {
            "ipus" => self.ipus,
            "tiles_per_ipu" => self.tiles_per_ipu,
            "bytes_per_tile" => self.bytes_per_tile,
            "workers" => self.workers,
            "clock_mhz" => self.clock_mhz,
            "exchange_bytes_per_cycle" => self.exchange_bytes_per_cycle,
            "sync_cycles" => self.sync_cycles,
            "replication_factor" => self.replication_factor,
            _ => return None,
        })
    }

    /// Keys whose value differs from the preset's, in canonical order.
    pub fn overrides(&self) -> Vec<(&'static str, u32)> {
        let base = Target::preset(self.preset);
        TARGET_KEYS
            .into_iter()
            .filter_map(|k| {
                let v = self.get(k)?;
                (base.get(k) != Some(v)).then_some((k, v))
            })
            .collect()
    }

    /// Checks the limits of [`MAX_TILES`] and [`MAX_WORKERS`] once every
    /// key is set; `Err` names the problem.
    pub fn check(&self) -> Result<(), String> {
        let tiles = u64::from(self.ipus) * u64::from(self.tiles_per_ipu);
        if tiles > u64::from(MAX_TILES) {
            return Err(format!(
                "target has {tiles} tiles ({} IPUs x {} tiles); at most {MAX_TILES} are supported",
                self.ipus, self.tiles_per_ipu
            ));
        }
        self.links.check(self.ipus)?;
        if self.replication_factor > MAX_REPLICAS {
            return Err(format!(
                "target has a replication factor of {}; at most {MAX_REPLICAS} replicas are supported",
                self.replication_factor
            ));
        }
        if self.workers > MAX_WORKERS {
            return Err(format!(
                "target has {} workers per tile; at most {MAX_WORKERS} are supported",
                self.workers
            ));
        }
        Ok(())
    }

    /// Total tiles: `ipus * tiles_per_ipu` (saturating).
    pub fn total_tiles(&self) -> u32 {
        self.ipus.saturating_mul(self.tiles_per_ipu)
    }
}

impl Default for Target {
    /// `target mk2`.
    fn default() -> Self {
        Target::preset(Preset::Mk2)
    }
}
