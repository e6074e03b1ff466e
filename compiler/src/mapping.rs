//! `map_tiles`: which tile holds each tensor element, and which tile runs
//! each vertex.
//!
//! A tensor's mapping is a sorted list of [`Interval`]s of its flat
//! row-major element indices, covering the tensor, adjacent intervals on the
//! same tile merged; it is never per element, so a 16M-element tensor mapped
//! `linear` costs one interval per tile. `map` statements apply in file
//! order, later ones overriding earlier ones. `linear` follows Poplar's
//! `mapTensorLinearly`: the region's elements, in the view's order, are cut
//! into grains of `grain` elements, and each tile takes
//! `ceil(grains / tiles)` grains in turn. Elements no statement names are
//! mapped linearly over all tiles with a warning naming them (an error with
//! `--strict-mapping`). A vertex without `@ tile` goes to the tile holding
//! most of its edges' bytes, ties to the tile with fewest vertices so far,
//! then the lowest tile.

use std::collections::BTreeMap;

use ir::{EntityRef, FieldValue, Graph, Mapping, SecondaryMap, Spans, TensorId, VertexId, View};

use crate::error::{Collector, Stage, StageError};
use crate::ids::TileId;
use crate::Options;

/// Elements `start..end` of a tensor live on `tile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub start: u64,
    pub end: u64,
    pub tile: TileId,
}

/// A contiguous run of a view's elements inside one mapping interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub tensor: TensorId,
    /// Index of the interval in the tensor's mapping.
    pub interval: u32,
    pub start: u64,
    pub len: u64,
    pub tile: TileId,
}

/// The result of [`map_tiles`].
#[derive(Clone, Debug)]
pub struct TileMapping {
    /// Per tensor: its intervals, sorted, covering, coalesced.
    pub tensors: SecondaryMap<TensorId, Vec<Interval>>,
    /// Per vertex: its tile.
    pub vertex_tiles: SecondaryMap<VertexId, TileId>,
    /// Total tiles of the target.
    pub num_tiles: u32,
}

impl TileMapping {
    /// The index of the interval of tensor `t` holding element `e`.
    pub fn interval_of(&self, t: TensorId, e: u64) -> usize {
        let ivs = &self.tensors[t];
        ivs.partition_point(|iv| iv.start <= e).saturating_sub(1)
    }

    /// Calls `f` with the view's elements as segments, in the view's order.
    pub fn segments(&self, view: &View, mut f: impl FnMut(Segment)) {
        for run in view.runs() {
            let ivs = &self.tensors[run.tensor];
            let mut i = self.interval_of(run.tensor, run.start);
            let mut s = run.start;
            let end = run.start + run.len;
            while s < end {
                let iv = ivs[i];
                let e = end.min(iv.end);
                f(Segment { tensor: run.tensor, interval: i as u32, start: s, len: e - s, tile: iv.tile });
                s = e;
                i += 1;
            }
        }
    }
}

/// Per-tensor assignment under construction: start → (end, tile).
type Assign = BTreeMap<u64, (u64, u32)>;

fn assign(m: &mut Assign, s: u64, e: u64, tile: u32) {
    if s >= e {
        return;
    }
    // Fast path: appending past everything assigned so far.
    if m.last_key_value().is_none_or(|(_, &(end, _))| end <= s) {
        m.insert(s, (e, tile));
        return;
    }
    if let Some((&ks, &(ke, kt))) = m.range(..s).next_back() {
        if ke > s {
            m.insert(ks, (s, kt));
            if ke > e {
                m.insert(e, (ke, kt));
            }
        }
    }
    let inside: Vec<u64> = m.range(s..e).map(|(k, _)| *k).collect();
    for k in inside {
        if let Some((ke, kt)) = m.remove(&k) {
            if ke > e {
                m.insert(e, (ke, kt));
            }
        }
    }
    m.insert(s, (e, tile));
}

fn fmt_ranges(r: &[(u64, u64)]) -> String {
    let shown: Vec<String> = r.iter().take(3).map(|(s, e)| format!("[{s}:{e}]")).collect();
    let more = if r.len() > 3 { format!(" and {} more ranges", r.len() - 3) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// Maps every tensor element and every vertex to a tile. Returns the
/// mapping and warnings (unmapped elements).
pub fn map_tiles(
    graph: &Graph,
    spans: &Spans,
    opts: &Options,
) -> Result<(TileMapping, Vec<ir::Diagnostic>), StageError> {
    let num_tiles = graph.total_tiles();
    let mut errs = Collector::default();
    let mut warnings = Vec::new();
    let mut assigns: Vec<Assign> = vec![Assign::new(); graph.tensors.len()];

    for (i, ms) in graph.mappings.iter().enumerate() {
        let span = spans.mappings.get(i).copied().unwrap_or_default();
        let bad = match ms.mapping {
            Mapping::Tile(t) => t >= num_tiles,
            Mapping::Tiles(a, b) => a >= b || b > num_tiles,
            Mapping::Linear { .. } => false,
        };
        if bad {
            let label = match ms.mapping {
                Mapping::Tile(t) => format!("tile {t} does not exist"),
                Mapping::Tiles(a, b) if a >= b => format!("tiles {a}..{b} is empty"),
                Mapping::Tiles(_, b) => format!("tile {} does not exist", b - 1),
                Mapping::Linear { .. } => String::new(),
            };
            errs.push(
                ir::Diagnostic::error(
                    span,
                    format!(
                        "the mapping names tiles the target lacks (it has {num_tiles} tiles, 0 to {})",
                        num_tiles.saturating_sub(1)
                    ),
                )
                .with_label(label)
                .in_iteration(spans.mapping_iterations.get(i)),
            );
            continue;
        }
        // More elements than the view reaches means some repeat (a
        // broadcast or a zero stride), and mapping an element twice says
        // nothing; refusing such a view also keeps the work below within
        // the graph's size, whatever sizes the view names.
        let held = ms.view.distinct_bound(|t| graph.tensors[t].num_elements());
        if ms.view.num_elements() > held {
            errs.push(
                ir::Diagnostic::error(
                    span,
                    format!(
                        "the mapped view has {} elements but reaches at most {held}: it repeats elements, \
                         and a mapping places each element once",
                        ms.view.num_elements()
                    ),
                )
                .in_iteration(spans.mapping_iterations.get(i)),
            );
            continue;
        }
        // Group the view's runs per tensor, keeping order within each.
        let mut runs: Vec<(TensorId, u64, u64)> = Vec::new();
        for r in ms.view.runs() {
            runs.push((r.tensor, r.start, r.len));
        }
        match ms.mapping {
            Mapping::Tile(t) => {
                for (tensor, s, l) in runs {
                    assign(&mut assigns[tensor.index()], s, s + l, t);
                }
            }
            Mapping::Tiles(a, b) => linear_over(&mut assigns, &runs, a, b - a, 1),
            Mapping::Linear { grain } => linear_over(&mut assigns, &runs, 0, num_tiles, grain),
        }
    }

    // Fill the gaps.
    let mut tensors = SecondaryMap::default();
    for (t, tensor) in graph.tensors.iter() {
        let n = tensor.num_elements();
        let mut gaps = Vec::new();
        let mut at = 0;
        for (&s, &(e, _)) in assigns[t.index()].iter() {
            if s > at {
                gaps.push((at, s));
            }
            at = e;
        }
        if at < n {
            gaps.push((at, n));
        }
        if !gaps.is_empty() {
            let count: u64 = gaps.iter().map(|g| g.1 - g.0).sum();
            let span = *spans.tensors.get(t);
            let msg = format!(
                "{count} element{} of tensor `{}` {} no tile mapping: {}",
                if count == 1 { "" } else { "s" },
                tensor.name,
                if count == 1 { "has" } else { "have" },
                fmt_ranges(&gaps)
            );
            if opts.strict_mapping {
                errs.push(
                    ir::Diagnostic::error(span, msg)
                        .with_note("--strict-mapping requires every element mapped"),
                );
            } else {
                warnings.push(
                    ir::Diagnostic::warning(span, msg)
                        .with_note("mapped linearly over all tiles by the compiler"),
                );
                let runs: Vec<(TensorId, u64, u64)> = gaps.iter().map(|&(s, e)| (t, s, e - s)).collect();
                linear_over(&mut assigns, &runs, 0, num_tiles, 1);
            }
        }
        let m = &assigns[t.index()];
        let mut ivs: Vec<Interval> = Vec::with_capacity(m.len());
        for (&s, &(e, tile)) in m.iter() {
            let tile = TileId(tile);
            match ivs.last_mut() {
                Some(l) if l.tile == tile && l.end == s => l.end = e,
                _ => ivs.push(Interval { start: s, end: e, tile }),
            }
        }
        tensors.set(t, ivs);
    }
    errs.finish(Stage::Mapping)?;
    let mut mapping = TileMapping { tensors, vertex_tiles: SecondaryMap::with_default(TileId(0)), num_tiles };

    // Vertices.
    let mut errs = Collector::default();
    let mut load = vec![0u32; num_tiles as usize];
    for (v, vx) in graph.vertices.iter() {
        if let Some(t) = vx.tile {
            if t >= num_tiles {
                errs.push(
                    ir::Diagnostic::error(
                        *spans.vertices.get(v),
                        format!(
                            "the vertex's tile does not exist (the target has {num_tiles} tiles, 0 to {})",
                            num_tiles.saturating_sub(1)
                        ),
                    )
                    .with_label(format!("tile {t}"))
                    .in_iteration(spans.vertex_iterations.get(v.index())),
                );
            } else {
                load[t as usize] += 1;
            }
        }
    }
    errs.finish(Stage::Mapping)?;
    let mut bytes: Vec<(u32, u64)> = Vec::new();
    for (v, vx) in graph.vertices.iter() {
        if let Some(t) = vx.tile {
            mapping.vertex_tiles.set(v, TileId(t));
            continue;
        }
        bytes.clear();
        for f in &vx.fields {
            let views: &[View] = match &f.value {
                FieldValue::Edge(view) => std::slice::from_ref(view),
                FieldValue::EdgeList(views) => views,
                FieldValue::Literal(_) => &[],
            };
            for view in views {
                mapping.segments(view, |s| {
                    let size = u64::from(graph.tensors[s.tensor].elem.size());
                    match bytes.iter_mut().find(|b| b.0 == s.tile.0) {
                        Some(b) => b.1 += s.len * size,
                        None => bytes.push((s.tile.0, s.len * size)),
                    }
                });
            }
        }
        let best = if bytes.is_empty() {
            // No edges: the least loaded tile.
            (0..num_tiles).min_by_key(|&t| (load[t as usize], t)).unwrap_or(0)
        } else {
            bytes
                .iter()
                .min_by_key(|&&(t, b)| (std::cmp::Reverse(b), load[t as usize], t))
                .map(|b| b.0)
                .unwrap_or(0)
        };
        load[best as usize] += 1;
        mapping.vertex_tiles.set(v, TileId(best));
    }
    Ok((mapping, warnings))
}

fn linear_over(assigns: &mut [Assign], runs: &[(TensorId, u64, u64)], first: u32, tiles: u32, grain: u64) {
    // A view may cover several tensors; linear order runs across them, so
    // split the sequence by tensor while keeping global positions.
    let n: u64 = runs.iter().map(|r| r.2).sum();
    if n == 0 {
        return;
    }
    let grain = grain.max(1);
    let per_tile = n.div_ceil(grain).div_ceil(u64::from(tiles.max(1))) * grain;
    let mut pos = 0u64;
    for &(t, start, len) in runs {
        let mut s = 0;
        while s < len {
            let k = (pos + s) / per_tile;
            let e = len.min((k + 1) * per_tile - pos);
            assign(&mut assigns[t.index()], start + s, start + e, first + k as u32);
            s = e;
        }
        pos += len;
    }
}
