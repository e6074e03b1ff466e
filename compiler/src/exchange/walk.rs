//! The walk over every vertex edge, in the order of
//! [`ExchangePlan::edges`](super::ExchangePlan::edges): by vertex id, then
//! codelet field, then item, each edge with the mapping segments its
//! elements fall in.
//!
//! Finding the segments is most of the walk's work and depends on nothing
//! but the edge, so the first walk of [`super::schedule_exchange`]
//! ([`Walk::fold`]) visits runs of vertices on rayon's threads into
//! accumulators joined in vertex order, recording every edge's segments,
//! and the second ([`Walk::each`]) visits the edges in order on the calling
//! thread with the segments recorded. Either way every edge is seen with
//! the same segments and number on any number of threads.

use std::ops::Range;

use rayon::prelude::*;

use ir::{ComputeSetId, EntityRef, FieldValue, Graph, VertexId, View};
use linker::gp;

use crate::ids::TileId;
use crate::mapping::{Segment, TileMapping};
use crate::resolve::Resolved;
use crate::Codelets;

/// Vertices visited as one piece (by one thread at a time).
const PIECE: usize = 1 << 10;

/// One edge (or one item of a vector list) of a vertex, as the walk
/// visits it.
pub(super) struct EdgeAt<'a> {
    pub vertex: VertexId,
    /// The vertex's tile and compute set.
    pub tile: TileId,
    pub cs: ComputeSetId,
    /// The codelet field and, for a vector list, the item.
    pub field: u32,
    pub item: u32,
    /// The PIR field that connects it.
    pub pir_field: usize,
    pub dir: gp::Direction,
    /// Bytes per element.
    pub elem_size: u64,
    /// The field's `MinAlign` in bytes, or 0 (see [`gp::Field::min_align`]).
    pub min_align: u64,
    pub view: &'a View,
    /// Its position in the walk ([`Walk::fold`]: in its accumulator's run).
    pub index: u32,
}

/// The tables the walk reads.
#[derive(Clone, Copy)]
pub(super) struct Walk<'g> {
    pub graph: &'g Graph,
    pub resolved: &'g Resolved,
    pub codelets: &'g Codelets,
    pub mapping: &'g TileMapping,
}

impl<'g> Walk<'g> {
    /// Visits every edge over rayon's threads: each run of vertices into
    /// an accumulator made by `init`, the edges numbered from the start of
    /// its run; `join(a, b, n)` joins the accumulator of a run with that of
    /// the run right after it, `n` being the first run's edge count. The
    /// runs differ with the number of threads; what `join` makes of them
    /// must not. Returns the whole walk's accumulator, its edge count and
    /// every edge's segments, for [`Walk::each`].
    pub fn fold<A: Send>(
        self,
        init: impl Fn() -> A + Sync + Send,
        f: impl Fn(&mut A, &EdgeAt<'g>, &[Segment]) + Sync + Send,
        join: impl Fn(A, A, u32) -> A + Sync + Send,
    ) -> (A, u32, Found) {
        let n = self.graph.vertices.len();
        let (acc, edges, pieces) = (0..n)
            .into_par_iter()
            .step_by(PIECE)
            .fold(
                || (init(), 0u32, Vec::new()),
                |(mut acc, edges, mut pieces), s| {
                    let mut piece = Piece::default();
                    let mut record = Record { mapping: self.mapping, piece: &mut piece };
                    let end =
                        self.range(s..(s + PIECE).min(n), edges, &mut record, |e, segs| f(&mut acc, e, segs));
                    pieces.push(piece);
                    (acc, end, pieces)
                },
            )
            .reduce(
                || (init(), 0, Vec::new()),
                |(a, na, mut pa), (b, nb, pb)| {
                    pa.extend(pb);
                    (join(a, b, na), na + nb, pa)
                },
            );
        (acc, edges, Found { pieces })
    }

    /// Visits every edge in order on the calling thread, numbered from 0,
    /// with the segments [`Walk::fold`] found.
    pub fn each(self, found: &Found, f: impl FnMut(&EdgeAt<'g>, &[Segment])) {
        let mut cursor = Cursor { pieces: &found.pieces, piece: 0, edge: 0 };
        self.range(0..self.graph.vertices.len(), 0, &mut cursor, f);
    }

    /// Visits the edges of `vertices` in order, numbered from `first`, each
    /// with the segments `segs` gives; returns the number after the last.
    fn range(
        self,
        vertices: Range<usize>,
        first: u32,
        segs: &mut impl Segments,
        mut f: impl FnMut(&EdgeAt<'g>, &[Segment]),
    ) -> u32 {
        let mut index = first;
        for v in vertices.map(VertexId::new) {
            let vx = &self.graph.vertices[v];
            let tile = self.mapping.vertex_tiles[v];
            let cs = vx.compute_set;
            let vt = self.resolved.vertex_info(self.codelets, v);
            for (k, fld) in vt.fields.iter().enumerate() {
                let Some(dir) = fld.direction else { continue };
                let pir = self.resolved.field_source(v, k);
                let views: &[View] = match &vx.fields[pir].value {
                    FieldValue::Edge(view) => std::slice::from_ref(view),
                    FieldValue::EdgeList(views) => views,
                    FieldValue::Literal(_) => &[],
                };
                for (item, view) in views.iter().enumerate() {
                    let e = EdgeAt {
                        vertex: v,
                        tile,
                        cs,
                        field: k as u32,
                        item: item as u32,
                        pir_field: pir,
                        dir,
                        elem_size: u64::from(fld.elem.size()),
                        min_align: u64::from(fld.min_align),
                        view,
                        index,
                    };
                    f(&e, segs.of(view));
                    index += 1;
                }
            }
        }
        index
    }
}

/// Every edge's segments, in walk order, as [`Walk::fold`] found them a
/// piece of vertices at a time.
#[derive(Default)]
pub(super) struct Found {
    pieces: Vec<Piece>,
}

/// The segments of a piece's edges: edge `i`'s are `segs[ends[i - 1]..ends[i]]`.
#[derive(Default)]
struct Piece {
    segs: Vec<Segment>,
    ends: Vec<u32>,
}

/// Where the walk takes each edge's segments from.
trait Segments {
    /// The segments of the next edge, whose elements `view` shows.
    fn of(&mut self, view: &View) -> &[Segment];
}

/// Segments found in the mapping and recorded in a piece.
struct Record<'m, 'p> {
    mapping: &'m TileMapping,
    piece: &'p mut Piece,
}

impl Segments for Record<'_, '_> {
    fn of(&mut self, view: &View) -> &[Segment] {
        let from = self.piece.segs.len();
        self.mapping.segments(view, |s| self.piece.segs.push(s));
        self.piece.ends.push(self.piece.segs.len() as u32);
        &self.piece.segs[from..]
    }
}

/// Segments recorded before, piece after piece.
struct Cursor<'p> {
    pieces: &'p [Piece],
    /// The piece and edge within it that come next.
    piece: usize,
    edge: usize,
}

impl Segments for Cursor<'_> {
    fn of(&mut self, _: &View) -> &[Segment] {
        while self.edge == self.pieces[self.piece].ends.len() {
            self.piece += 1;
            self.edge = 0;
        }
        let p = &self.pieces[self.piece];
        let from = if self.edge == 0 { 0 } else { p.ends[self.edge - 1] as usize };
        self.edge += 1;
        &p.segs[from..p.ends[self.edge - 1] as usize]
    }
}
