//! The IPU-Links between the IPUs of one replica, as Poplar's target
//! options describe them: `ipuLinkTopology`, `ipuLinkConfiguration` and
//! `syncConfiguration`. The graph IR's target, the image's target and the
//! runtime's exchange cost share these words; the rules below are the
//! ones the Poplar Target API documents for each option.
//!
//! IPUs stand in a ladder (`mesh`, `torus`): IPU `i` is on rung `i / 2`,
//! beside IPU `i ^ 1`; `torus` links the top rung to the bottom one. In a
//! `line` every IPU is a rung of its own. The configuration says which
//! IPUs one IPU may send to:
//!
//! - `fixedWindow`: every other IPU, for targets of at most 16 IPUs;
//! - `slidingWindow`: the IPUs up to three rungs above (higher numbers)
//!   and four below it, and its neighbour on its own rung (an even IPU
//!   reaches 7 IPUs up and 8 down, an odd one 6 up and 9 down);
//! - `barleyTwist`: its nearest neighbours only (one rung up, one rung
//!   down, its neighbour on the rung) at twice the bandwidth.
//!
//! Without a configuration, Poplar takes `fixedWindow` up to 16 IPUs and
//! `slidingWindow` above; so does [`IpuLinks::configuration_for`].

use std::fmt;

use serde::{Deserialize, Serialize};

/// How the IPUs are wired (`ipuLinkTopology`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LinkTopology {
    /// A ladder of rungs of two IPUs (Poplar's default).
    #[default]
    Mesh,
    /// A ladder whose top and bottom rungs are linked.
    Torus,
    /// A line of IPUs (a C600 system).
    Line,
}

/// Which IPUs an IPU may send to (`ipuLinkConfiguration`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LinkConfiguration {
    FixedWindow,
    SlidingWindow,
    BarleyTwist,
}

/// Which hardware sync groups the IPUs use (`syncConfiguration`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SyncConfiguration {
    /// Group one syncs the IPUs of a replica, group two all IPUs.
    #[default]
    IntraReplicaAndAll,
    /// Group one syncs each IPU with the host, group two all IPUs.
    IpuAndAll,
}

/// Most IPUs `fixedWindow` connects.
pub const FIXED_WINDOW_IPUS: u32 = 16;

/// The IPU-Link options of a target; `configuration` is `None` when the
/// user left Poplar to choose it by the IPU count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IpuLinks {
    pub topology: LinkTopology,
    pub configuration: Option<LinkConfiguration>,
    pub sync: SyncConfiguration,
}

macro_rules! option_words {
    ($ty:ty, $key:literal, $($variant:ident = $word:literal),+) => {
        impl $ty {
            /// Poplar's option key.
            pub const KEY: &'static str = $key;
            /// Poplar's option values, in documentation order.
            pub const WORDS: &'static [&'static str] = &[$($word),+];

            /// The value of Poplar's option word, if it is one.
            pub fn from_word(word: &str) -> Option<Self> {
                match word {
                    $($word => Some(Self::$variant),)+
                    _ => None,
                }
            }

            /// Poplar's word for the value.
            pub fn word(self) -> &'static str {
                match self {
                    $(Self::$variant => $word,)+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.word())
            }
        }
    };
}

option_words!(LinkTopology, "ipuLinkTopology", Mesh = "mesh", Torus = "torus", Line = "line");
option_words!(
    LinkConfiguration,
    "ipuLinkConfiguration",
    FixedWindow = "fixedWindow",
    SlidingWindow = "slidingWindow",
    BarleyTwist = "barleyTwist"
);
option_words!(
    SyncConfiguration,
    "syncConfiguration",
    IntraReplicaAndAll = "intraReplicaAndAll",
    IpuAndAll = "ipuAndAll"
);

impl IpuLinks {
    /// Poplar's target option keys, each with its values.
    pub const OPTIONS: [(&'static str, &'static [&'static str]); 3] = [
        (LinkConfiguration::KEY, LinkConfiguration::WORDS),
        (SyncConfiguration::KEY, SyncConfiguration::WORDS),
        (LinkTopology::KEY, LinkTopology::WORDS),
    ];

    /// Sets Poplar's target option `key` to `word`; `Err` says which
    /// values the key takes, or that it is none of [`IpuLinks::OPTIONS`].
    pub fn set(&mut self, key: &str, word: &str) -> Result<(), String> {
        let bad = |words: &[&str]| format!("`{key}` must be one of {}, not \"{word}\"", words.join(", "));
        match key {
            LinkConfiguration::KEY => {
                self.configuration =
                    Some(LinkConfiguration::from_word(word).ok_or_else(|| bad(LinkConfiguration::WORDS))?);
            }
            LinkTopology::KEY => {
                self.topology = LinkTopology::from_word(word).ok_or_else(|| bad(LinkTopology::WORDS))?;
            }
            SyncConfiguration::KEY => {
                self.sync =
                    SyncConfiguration::from_word(word).ok_or_else(|| bad(SyncConfiguration::WORDS))?;
            }
            _ => return Err(format!("`{key}` is not an IPU-Link option")),
        }
        Ok(())
    }

    /// The options set to other than their defaults, as `(key, word)`.
    pub fn non_default(&self) -> Vec<(&'static str, &'static str)> {
        let mut out = Vec::new();
        if let Some(c) = self.configuration {
            out.push((LinkConfiguration::KEY, c.word()));
        }
        if self.sync != SyncConfiguration::default() {
            out.push((SyncConfiguration::KEY, self.sync.word()));
        }
        if self.topology != LinkTopology::default() {
            out.push((LinkTopology::KEY, self.topology.word()));
        }
        out
    }

    /// The configuration in force for a replica of `ipus` IPUs: the one
    /// given, else Poplar's choice by the count.
    pub fn configuration_for(&self, ipus: u32) -> LinkConfiguration {
        self.configuration.unwrap_or(if ipus <= FIXED_WINDOW_IPUS {
            LinkConfiguration::FixedWindow
        } else {
            LinkConfiguration::SlidingWindow
        })
    }

    /// `Err` says why these links cannot join `ipus` IPUs.
    pub fn check(&self, ipus: u32) -> Result<(), String> {
        if self.configuration_for(ipus) == LinkConfiguration::FixedWindow && ipus > FIXED_WINDOW_IPUS {
            return Err(format!(
                "ipuLinkConfiguration `fixedWindow` connects at most {FIXED_WINDOW_IPUS} IPUs, \
                 and the target has {ipus} (use `slidingWindow` or `barleyTwist`)"
            ));
        }
        Ok(())
    }

    /// How many times `fixedWindow`'s bandwidth one IPU's links carry.
    pub fn bandwidth_factor(&self, ipus: u32) -> u64 {
        match self.configuration_for(ipus) {
            LinkConfiguration::BarleyTwist => 2,
            LinkConfiguration::FixedWindow | LinkConfiguration::SlidingWindow => 1,
        }
    }

    /// How many rings a collective runs at once over a ladder section of
    /// `span` IPUs of this topology, each over its own links in one
    /// direction (links carry both directions at once):
    ///
    /// - `line`: one ring, which comes back along the line the other way;
    /// - `mesh`: from two rungs up, the ring up one side of the ladder and
    ///   down the other, run both ways (two rings);
    /// - `torus`: from three rungs up, each side of the ladder is a ring
    ///   of its own through the wrap-round links, run both ways (four);
    ///
    /// and one ring on anything smaller (one rung of two IPUs).
    pub fn collective_rings(&self, span: u32) -> u64 {
        match self.topology {
            LinkTopology::Torus if span >= 6 => 4,
            LinkTopology::Mesh | LinkTopology::Torus if span >= 4 => 2,
            _ => 1,
        }
    }

    /// Whether IPU `from` may send to IPU `to` of a replica of `ipus`
    /// IPUs (an IPU always reaches itself).
    pub fn connects(&self, from: u32, to: u32, ipus: u32) -> bool {
        if from == to {
            return true;
        }
        let (per_rung, rungs) = match self.topology {
            LinkTopology::Mesh | LinkTopology::Torus => (2, ipus.div_ceil(2)),
            LinkTopology::Line => (1, ipus),
        };
        let same_rung = from / per_rung == to / per_rung;
        // Rungs from `from`'s up to `to`'s (up: higher numbers), and, on a
        // torus, the same distance the other way round.
        let up = i64::from(to / per_rung) - i64::from(from / per_rung);
        let distances: &[i64] = if self.topology == LinkTopology::Torus && rungs > 2 {
            &[up, up - i64::from(rungs), up + i64::from(rungs)]
        } else {
            &[up]
        };
        match self.configuration_for(ipus) {
            LinkConfiguration::FixedWindow => true,
            LinkConfiguration::SlidingWindow => same_rung || distances.iter().any(|d| (-4..=3).contains(d)),
            LinkConfiguration::BarleyTwist => {
                same_rung || (from % per_rung == to % per_rung && distances.iter().any(|d| d.abs() == 1))
            }
        }
    }

    /// The IPUs `from` may send to, ascending (for messages).
    pub fn reached_from(&self, from: u32, ipus: u32) -> Vec<u32> {
        (0..ipus).filter(|&to| to != from && self.connects(from, to, ipus)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(topology: LinkTopology, configuration: LinkConfiguration) -> IpuLinks {
        IpuLinks { topology, configuration: Some(configuration), ..IpuLinks::default() }
    }

    #[test]
    fn poplar_chooses_the_window_by_the_ipu_count() {
        let l = IpuLinks::default();
        assert_eq!(l.configuration_for(16), LinkConfiguration::FixedWindow);
        assert_eq!(l.configuration_for(17), LinkConfiguration::SlidingWindow);
        assert!(l.check(64).is_ok());
        let fixed = links(LinkTopology::Mesh, LinkConfiguration::FixedWindow);
        assert!(fixed.check(17).unwrap_err().contains("at most 16 IPUs"));
        assert_eq!(fixed.reached_from(5, 16).len(), 15);
    }

    #[test]
    fn a_sliding_window_reaches_seven_up_and_eight_down_from_an_even_ipu() {
        let l = links(LinkTopology::Mesh, LinkConfiguration::SlidingWindow);
        let from_even = l.reached_from(16, 64);
        assert_eq!(from_even, (8..16).chain(17..24).collect::<Vec<_>>());
        let from_odd = l.reached_from(17, 64);
        assert_eq!(from_odd, (8..17).chain(18..24).collect::<Vec<_>>());
        // Clipped at the ends of a mesh, wrapped on a torus.
        assert_eq!(l.reached_from(0, 64), (1..8).collect::<Vec<_>>());
        let torus = links(LinkTopology::Torus, LinkConfiguration::SlidingWindow);
        assert_eq!(torus.reached_from(0, 64), (1..8).chain(56..64).collect::<Vec<_>>());
    }

    #[test]
    fn a_collective_runs_more_rings_on_a_larger_ladder_and_a_torus() {
        let rings = |topology, span| IpuLinks { topology, ..IpuLinks::default() }.collective_rings(span);
        assert_eq!([2, 4, 16].map(|n| rings(LinkTopology::Line, n)), [1, 1, 1]);
        assert_eq!([2, 4, 16].map(|n| rings(LinkTopology::Mesh, n)), [1, 2, 2]);
        assert_eq!([2, 4, 6, 16].map(|n| rings(LinkTopology::Torus, n)), [1, 2, 4, 4]);
    }

    #[test]
    fn barley_twist_reaches_the_nearest_neighbours_only() {
        let l = links(LinkTopology::Mesh, LinkConfiguration::BarleyTwist);
        assert_eq!(l.reached_from(4, 8), [2, 5, 6]);
        assert_eq!(l.reached_from(0, 8), [1, 2]);
        assert_eq!(l.bandwidth_factor(8), 2);
        let torus = links(LinkTopology::Torus, LinkConfiguration::BarleyTwist);
        assert_eq!(torus.reached_from(0, 8), [1, 2, 6]);
        let line = links(LinkTopology::Line, LinkConfiguration::BarleyTwist);
        assert_eq!(line.reached_from(3, 8), [2, 4]);
        assert_eq!(line.reached_from(7, 8), [6]);
    }

    #[test]
    fn option_words_round_trip() {
        for w in LinkConfiguration::WORDS {
            assert_eq!(LinkConfiguration::from_word(w).unwrap().word(), *w);
        }
        assert_eq!(LinkTopology::from_word("torus"), Some(LinkTopology::Torus));
        assert_eq!(SyncConfiguration::from_word("all"), None);
        let mut l = IpuLinks::default();
        l.set("ipuLinkTopology", "torus").unwrap();
        assert_eq!(l.topology, LinkTopology::Torus);
        let e = l.set("syncConfiguration", "all").unwrap_err();
        assert_eq!(e, "`syncConfiguration` must be one of intraReplicaAndAll, ipuAndAll, not \"all\"");
    }
}
