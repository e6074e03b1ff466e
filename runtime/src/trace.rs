//! `poplar-run --trace trace.json`: the `sim` device's timeline in Chrome's
//! trace-event format (the JSON object form, `{"traceEvents": [...]}`),
//! which Perfetto and `chrome://tracing` open.
//!
//! One process, the IPU, with a track of every step (compute set, exchange,
//! sync), a track of host transfers and one track per tile, or per group of
//! tiles when the target has more than [`MAX_TILE_TRACKS`] tiles. A tile
//! track's event lasts as long as the slowest tile of its group worked in
//! that step; the group then waits for the step's end. Exchange time per
//! tile is the cost model's figure for the bytes it sends and receives
//! (broadcasts counted per destination), capped at the step's length.
//! Timestamps are cycles divided by the clock in MHz: microseconds, the
//! format's unit. A run that stopped before its end (`--timeout`,
//! `--max-cycles`, a failing vertex) is traced up to the last step that
//! finished, with `otherData.partial` and `otherData.stoppedBy` saying so.

use std::io::Write;

use linker::image::{Exchange, Image};
use serde::Serialize;

use crate::cost;

/// Most tile tracks; larger targets group consecutive tiles.
pub const MAX_TILE_TRACKS: u32 = 64;

/// Most events kept; later ones are counted in `otherData`.
pub const MAX_TRACE_EVENTS: usize = 2_000_000;

/// The IPU's process id (0 is the idle process in some viewers).
const PID: u32 = 1;
const STEPS_TRACK: u32 = 0;
const HOST_TRACK: u32 = 1;
const FIRST_TILE_TRACK: u32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cat {
    Compute,
    Exchange,
    Sync,
    Host,
}

impl Cat {
    fn name(self) -> &'static str {
        match self {
            Cat::Compute => "compute",
            Cat::Exchange => "exchange",
            Cat::Sync => "sync",
            Cat::Host => "host",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Event {
    track: u32,
    cat: Cat,
    /// Index into the name table.
    name: u32,
    from: u64,
    cycles: u64,
    /// Active tiles (tile tracks and compute steps) or bytes (exchange, host).
    arg: u64,
}

/// Collects the timeline while the simulator runs.
#[derive(Debug)]
pub struct TraceRec {
    tiles: u32,
    group: u32,
    clock_mhz: f64,
    bytes_per_cycle: u32,
    target: String,
    names: Vec<String>,
    events: Vec<Event>,
    dropped: u64,
    /// Scratch per track: (max cycles, active tiles).
    scratch: Vec<(u64, u64)>,
}

impl TraceRec {
    pub fn new(image: &Image) -> TraceRec {
        let tiles = image.tiles.len() as u32;
        let group = tiles.div_ceil(MAX_TILE_TRACKS).max(1);
        TraceRec {
            tiles,
            group,
            clock_mhz: image.target.clock_mhz,
            bytes_per_cycle: image.target.exchange_bytes_per_cycle,
            target: image.target.name.clone(),
            names: Vec::new(),
            events: Vec::new(),
            dropped: 0,
            scratch: vec![(0, 0); tiles.div_ceil(group) as usize],
        }
    }

    fn name(&mut self, n: &str) -> u32 {
        // Steps repeat in loops: the last names are the likely ones.
        match self.names.iter().rev().take(64).position(|x| x == n) {
            Some(i) => (self.names.len() - 1 - i) as u32,
            None => {
                self.names.push(n.to_string());
                (self.names.len() - 1) as u32
            }
        }
    }

    fn push(&mut self, e: Event) {
        if self.events.len() < MAX_TRACE_EVENTS {
            self.events.push(e);
        } else {
            self.dropped += 1;
        }
    }

    fn step(&mut self, track: u32, cat: Cat, name: &str, from: u64, cycles: u64, arg: u64) {
        let name = self.name(name);
        self.push(Event { track, cat, name, from, cycles, arg });
    }

    /// Events on the tile tracks from the per-group scratch, then clears it.
    fn flush_groups(&mut self, cat: Cat, name: &str, from: u64) {
        let name = self.name(name);
        for g in 0..self.scratch.len() {
            let (cycles, active) = std::mem::take(&mut self.scratch[g]);
            if active > 0 {
                let track = FIRST_TILE_TRACK + g as u32;
                self.push(Event { track, cat, name, from, cycles, arg: active });
            }
        }
    }

    pub(crate) fn compute(&mut self, name: &str, from: u64, cycles: u64, per_tile: &[(u32, u64, u64)]) {
        self.step(STEPS_TRACK, Cat::Compute, name, from, cycles, per_tile.len() as u64);
        for &(t, c, _) in per_tile {
            let s = &mut self.scratch[(t / self.group) as usize];
            s.0 = s.0.max(c);
            s.1 += 1;
        }
        self.flush_groups(Cat::Compute, name, from);
    }

    pub(crate) fn exchange(&mut self, name: &str, from: u64, cycles: u64, bytes: u64, x: &Exchange) {
        self.step(STEPS_TRACK, Cat::Exchange, name, from, cycles, bytes);
        for (t, sent, received) in x.bytes_by_tile() {
            let c = cost::exchange_tile_cycles(sent, received, self.bytes_per_cycle).min(cycles);
            let s = &mut self.scratch[(t / self.group) as usize];
            s.0 = s.0.max(c);
            s.1 += 1;
        }
        self.flush_groups(Cat::Exchange, name, from);
    }

    pub(crate) fn sync(&mut self, from: u64, cycles: u64) {
        self.step(STEPS_TRACK, Cat::Sync, "Sync", from, cycles, u64::from(self.tiles));
    }

    pub(crate) fn host(&mut self, name: &str, from: u64, cycles: u64, bytes: u64) {
        self.step(HOST_TRACK, Cat::Host, name, from, cycles, bytes);
    }

    fn track_name(&self, track: u32) -> String {
        match track {
            STEPS_TRACK => "steps".into(),
            HOST_TRACK => "host transfers".into(),
            _ => {
                let lo = (track - FIRST_TILE_TRACK) * self.group;
                let hi = (lo + self.group).min(self.tiles) - 1;
                if lo == hi {
                    format!("tile {lo}")
                } else {
                    format!("tiles {lo}-{hi}")
                }
            }
        }
    }

    /// Writes the trace as JSON; `stopped` is the error that ended a run
    /// before its end (`otherData.partial` and `stoppedBy`).
    pub fn write(&self, out: &mut dyn Write, stopped: Option<&str>) -> std::io::Result<()> {
        let us = |c: u64| c as f64 / self.clock_mhz;
        let tracks = FIRST_TILE_TRACK + self.scratch.len() as u32;
        let mut events: Vec<TraceEvent> = Vec::with_capacity(self.events.len() + tracks as usize + 1);
        events.push(TraceEvent::meta("process_name", 0, format!("IPU ({})", self.target)));
        for t in 0..tracks {
            events.push(TraceEvent::meta("thread_name", t, self.track_name(t)));
            events.push(TraceEvent {
                name: "thread_sort_index".into(),
                ph: "M",
                pid: PID,
                tid: t,
                args: Args { sort_index: Some(t), ..Args::default() },
                ..TraceEvent::default()
            });
        }
        for e in &self.events {
            let tile_track = e.track >= FIRST_TILE_TRACK;
            let mut args = Args { cycles: Some(e.cycles), ..Args::default() };
            match e.cat {
                Cat::Compute => args.active_tiles = Some(e.arg),
                Cat::Exchange if tile_track => args.active_tiles = Some(e.arg),
                Cat::Exchange | Cat::Host => args.bytes = Some(e.arg),
                Cat::Sync => {}
            }
            events.push(TraceEvent {
                name: self.names[e.name as usize].clone(),
                cat: e.cat.name(),
                ph: "X",
                ts: us(e.from),
                dur: Some(us(e.cycles)),
                pid: PID,
                tid: e.track,
                args,
            });
        }
        let trace = Trace {
            trace_events: events,
            display_time_unit: "ns",
            other_data: OtherData {
                target: self.target.clone(),
                clock_mhz: self.clock_mhz,
                tiles_per_track: self.group,
                events_not_recorded: self.dropped,
                partial: stopped.is_some(),
                stopped_by: stopped.map(str::to_string),
            },
        };
        serde_json::to_writer(&mut *out, &trace)?;
        out.write_all(b"\n")
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Trace {
    trace_events: Vec<TraceEvent>,
    display_time_unit: &'static str,
    other_data: OtherData,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OtherData {
    target: String,
    #[serde(rename = "clockMHz")]
    clock_mhz: f64,
    tiles_per_track: u32,
    events_not_recorded: u64,
    /// The run stopped before its end: the events cover it up to there.
    partial: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped_by: Option<String>,
}

#[derive(Serialize, Default)]
struct TraceEvent {
    name: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    cat: &'static str,
    ph: &'static str,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u32,
    tid: u32,
    args: Args,
}

impl TraceEvent {
    fn meta(what: &str, tid: u32, name: String) -> TraceEvent {
        TraceEvent {
            name: what.into(),
            ph: "M",
            pid: PID,
            tid,
            args: Args { name: Some(name), ..Args::default() },
            ..TraceEvent::default()
        }
    }
}

#[derive(Serialize, Default)]
struct Args {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sort_index: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycles: Option<u64>,
    #[serde(rename = "activeTiles", skip_serializing_if = "Option::is_none")]
    active_tiles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
}
