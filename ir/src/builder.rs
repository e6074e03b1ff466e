//! Building a checked [`Graph`] by calls rather than from text: the host
//! API's front door (Poplar's `Graph::addVariable`, `setTileMapping`,
//! `addVertex`, `connect`, …).
//!
//! A [`Builder`] holds the graph being built and checks each call as it is
//! made, as Poplar does: shapes and element counts, tiles against the
//! target, views against their tensors, copies' lengths and types. Names
//! are free text that may repeat (Poplar's debug names); the graph's own
//! names are identifiers made unique from them ([`Builder::ident`]), and
//! each entity's free-text name is kept in [`Builder::described`], a text
//! with one line per entity that the entity's span points into, so a
//! compiler diagnostic about a graph built this way quotes the name the
//! user gave, not a PIR line.
//!
//! The builder answers queries the host API needs before compilation:
//! which tile each element of a view is mapped to ([`Builder::tile_mapping`]),
//! with mapping statements applied in order as the compiler applies them.
//!
//! A graph handle of the host API sees the graph through [`GraphTiles`]:
//! all of the target's tiles, or those of a virtual graph
//! (`createVirtualGraph`), numbered from 0. Tile numbers a handle is given
//! are translated here ([`GraphTiles::tile`]), its linear mappings spread
//! over its tiles only ([`Builder::map_linearly`]), and the operations it
//! adds carry its [`TileSet`] so that the compiler places their work there.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::sync::Arc;

use crate::diag::{Span, Spans};
use crate::graph::*;
use crate::ops::TileSet;
use crate::target::Target;
use crate::types::ElemType;
use crate::view::{checked_num_elements, View};

/// Most elements of a tensor the builder creates (2^40): beyond this no
/// target has the memory, and element counts stay far from overflow.
pub const MAX_ELEMENTS: u64 = 1 << 40;

/// What kind of misuse a [`BuildError`] reports; the host API maps each to
/// Poplar's exception class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildErrorKind {
    /// An index or a range outside a tensor, a tile outside the target.
    Index,
    /// Element types that do not match.
    Type,
    /// A tensor that cannot be created (shape, size).
    TensorCreation,
    /// A bad tile mapping.
    TileMapping,
    /// A vertex field or a copy connected wrongly.
    Connection,
    /// Anything else Poplar reports as a plain `poplar_error`.
    Other,
}

/// A refused builder call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    pub kind: BuildErrorKind,
    pub message: String,
}

impl BuildError {
    pub fn new(kind: BuildErrorKind, message: impl Into<String>) -> BuildError {
        BuildError { kind, message: message.into() }
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

type R<T> = Result<T, BuildError>;

/// The tiles one graph handle sees, numbered from 0 in its own order, and
/// the target it reports: Poplar's graph and its virtual graphs.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphTiles {
    /// The handle's tile `i` is the target's tile `tiles.nth(i)`.
    pub tiles: TileSet,
    /// The handle's target: its tiles, as whole IPUs where they are.
    pub target: Target,
    /// Whether the handle sees the whole target (its operations are then
    /// placed as PIR's are, with no tile set of their own).
    whole: bool,
}

impl GraphTiles {
    /// Every tile of `target`.
    pub fn whole(target: &Target) -> GraphTiles {
        GraphTiles { tiles: TileSet::all(target.total_tiles()), target: target.clone(), whole: true }
    }

    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// How many tiles the handle sees.
    pub fn len(&self) -> u32 {
        self.tiles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// The tile set operations added through this handle carry.
    pub fn op_tiles(&self) -> Option<TileSet> {
        (!self.whole).then(|| self.tiles.clone())
    }

    fn what(&self) -> &'static str {
        if self.whole {
            "the target"
        } else {
            "the virtual graph"
        }
    }

    /// The target's tile for the handle's tile `t`.
    pub fn tile(&self, t: u32) -> R<u32> {
        let n = self.len();
        if t >= n {
            return Err(BuildError::new(
                BuildErrorKind::TileMapping,
                format!("tile {t} is out of range: {} has {n} tiles (0 to {})", self.what(), n - 1),
            ));
        }
        // The whole target's tiles are numbered as the handle's.
        Ok(if self.whole { t } else { self.tiles.nth(t) })
    }

    /// The handle's number for the target's tile `t`, when it sees it.
    pub fn relative(&self, t: u32) -> Option<u32> {
        self.tiles.position(t)
    }

    /// `createVirtualGraph(lowerTile, upperTile)`: this handle's tiles
    /// `lower` to `upper - 1`. Its target has whole IPUs when the range
    /// starts and ends at IPU boundaries, else one IPU of `upper - lower`
    /// tiles.
    pub fn range(&self, lower: u32, upper: u32) -> R<GraphTiles> {
        let n = self.len();
        if lower >= upper {
            return Err(BuildError::new(
                BuildErrorKind::Other,
                format!("createVirtualGraph({lower}, {upper}): the tile range is empty (upperTile must be greater than lowerTile)"),
            ));
        }
        if upper > n {
            return Err(BuildError::new(
                BuildErrorKind::Index,
                format!(
                    "createVirtualGraph({lower}, {upper}): tiles {lower} to {} are not all in {}, which has {n} tiles (0 to {})",
                    upper - 1,
                    self.what(),
                    n - 1
                ),
            ));
        }
        let tiles = self.tiles.pick(lower..upper).map_err(|e| BuildError::new(BuildErrorKind::Other, e))?;
        let per = self.target.tiles_per_ipu.max(1);
        let count = upper - lower;
        let mut target = self.target.clone();
        if lower.is_multiple_of(per) && count.is_multiple_of(per) {
            target.ipus = count / per;
        } else {
            target.ipus = 1;
            target.tiles_per_ipu = count;
        }
        Ok(GraphTiles { tiles, target, whole: false })
    }

    /// `createVirtualGraph(perIpuTiles)`: tiles `per_ipu` (numbered within
    /// an IPU, in that order) of each of this handle's IPUs, IPU by IPU.
    pub fn per_ipu(&self, per_ipu: &[u32]) -> R<GraphTiles> {
        let per = self.target.tiles_per_ipu;
        if per_ipu.is_empty() {
            return Err(BuildError::new(
                BuildErrorKind::Other,
                "createVirtualGraph: the list of tiles is empty",
            ));
        }
        if let Some(&t) = per_ipu.iter().find(|&&t| t >= per) {
            return Err(BuildError::new(
                BuildErrorKind::Index,
                format!(
                    "createVirtualGraph: tile {t} is not on an IPU of {}, which has {per} tiles per IPU (0 to {})",
                    self.what(),
                    per.saturating_sub(1)
                ),
            ));
        }
        let mut seen = HashSet::new();
        if let Some(&t) = per_ipu.iter().find(|&&t| !seen.insert(t)) {
            return Err(BuildError::new(
                BuildErrorKind::Other,
                format!("createVirtualGraph: tile {t} is listed twice"),
            ));
        }
        let ipus = self.target.ipus;
        let indices = (0..ipus).flat_map(|i| per_ipu.iter().map(move |&t| i * per + t));
        let tiles = self.tiles.pick(indices).map_err(|e| BuildError::new(BuildErrorKind::Other, e))?;
        let mut target = self.target.clone();
        target.tiles_per_ipu = per_ipu.len() as u32;
        Ok(GraphTiles { tiles, target, whole: false })
    }
}

/// A graph under construction; [`Builder::finish`] gives the graph with
/// its programs and the spans into [`Builder::described`].
#[derive(Clone, Debug)]
pub struct Builder {
    graph: Graph,
    spans: Spans,
    /// One line per entity: its kind, graph name and the user's name.
    described: String,
    /// Graph names in use (one namespace, as PIR's).
    taken: HashSet<String>,
    /// Host names in use (handles, streams, remote buffers).
    host_names: HashSet<String>,
    /// Per tensor, the tile of each element once mapped (`u32::MAX`: not
    /// mapped), allocated at the first mapping.
    tiles: HashMap<TensorId, Vec<u32>>,
    /// Vertex type and field names, one allocation each.
    names: Interner,
    /// The last vertex's type, compute set and line of `described`: the
    /// vertices a loop adds share their line.
    last_vertex: Option<(Name, ComputeSetId, Span)>,
}

impl Builder {
    /// An empty graph for `target`.
    pub fn new(target: Target) -> R<Builder> {
        target.check().map_err(|e| BuildError::new(BuildErrorKind::Other, e))?;
        Ok(Builder {
            graph: Graph { target, ..Graph::default() },
            spans: Spans::default(),
            described: String::new(),
            taken: HashSet::new(),
            host_names: HashSet::new(),
            tiles: HashMap::new(),
            names: Interner::default(),
            last_vertex: None,
        })
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    pub fn target(&self) -> &Target {
        &self.graph.target
    }

    /// The text the spans point into: one line per entity.
    pub fn described(&self) -> &str {
        &self.described
    }

    /// A unique identifier made from a free-text name: letters, digits and
    /// `_` kept, anything else `_`, a leading `kind` prefix when it would
    /// not start like an identifier, and `_2`, `_3`, … when taken.
    pub fn ident(&mut self, kind: &str, name: &str) -> String {
        let mut base: String =
            name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        if base.is_empty()
            || base.starts_with(|c: char| c.is_ascii_digit())
            || crate::lexer::is_keyword(&base)
        {
            base = format!("{kind}_{base}");
        }
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// Records an entity's line in [`Builder::described`]; returns its span.
    fn describe(&mut self, kind: &str, ident: &str, name: &str) -> Span {
        let start = self.described.len();
        let _ = write!(self.described, "{kind} {ident}");
        if name != ident {
            let _ = write!(self.described, " (\"{}\")", name.escape_debug());
        }
        let end = self.described.len();
        self.described.push('\n');
        Span::new(start, end)
    }

    fn index_err(message: String) -> BuildError {
        BuildError::new(BuildErrorKind::Index, message)
    }

    /// A tensor: `var` (with `init` None) or `const`.
    pub fn add_tensor(
        &mut self,
        name: &str,
        kind: TensorKind,
        elem: ElemType,
        shape: &[u64],
        init: Option<Init>,
    ) -> R<TensorId> {
        let n = checked_num_elements(shape).filter(|&n| n <= MAX_ELEMENTS).ok_or_else(|| {
            BuildError::new(
                BuildErrorKind::TensorCreation,
                format!("tensor '{name}' of shape {shape:?} has more than {MAX_ELEMENTS} elements"),
            )
        })?;
        if let Some(Init::Values(b)) = &init {
            if b.len() as u64 != n * u64::from(elem.size()) {
                return Err(BuildError::new(
                    BuildErrorKind::TensorCreation,
                    format!(
                        "tensor '{name}' has {n} elements but {} values were given",
                        b.len() / elem.size() as usize
                    ),
                ));
            }
        }
        let ident = self.ident("t", name);
        let span =
            self.describe(if kind == TensorKind::Const { "constant" } else { "variable" }, &ident, name);
        let id = self.graph.tensors.push(Tensor { name: ident, kind, elem, shape: shape.to_vec(), init });
        self.spans.tensors.set(id, span);
        Ok(id)
    }

    /// Sets the initial value of the elements of `view` (row-major bytes of
    /// its element type, one element's bytes for all of them).
    pub fn set_initial_value(&mut self, view: &View, bytes: &[u8]) -> R<()> {
        let n = view.num_elements();
        for t in view.tensors() {
            let tensor = &mut self.graph.tensors[t];
            let size = tensor.elem.size() as usize;
            if bytes.len() != size && bytes.len() as u64 != n * size as u64 {
                return Err(BuildError::new(
                    BuildErrorKind::Type,
                    format!("{} bytes of initial value for {n} elements of {}", bytes.len(), tensor.elem),
                ));
            }
            let len = tensor.num_elements();
            let whole = tensor
                .init
                .take()
                .map(|i| i.to_bytes(len, size as u32))
                .unwrap_or_else(|| vec![0; (len as usize) * size]);
            tensor.init = Some(Init::Values(whole));
        }
        for (i, (t, e)) in view.elements().enumerate() {
            let tensor = &mut self.graph.tensors[t];
            let size = tensor.elem.size() as usize;
            let src = if bytes.len() == size { bytes } else { &bytes[i * size..(i + 1) * size] };
            if let Some(Init::Values(b)) = &mut tensor.init {
                b[e as usize * size..(e as usize + 1) * size].copy_from_slice(src);
            }
        }
        Ok(())
    }

    /// Maps `view`'s elements; later mappings of an element override
    /// earlier ones, as `map` statements do.
    pub fn map(&mut self, view: &View, mapping: Mapping) -> R<()> {
        let total = self.graph.total_tiles();
        let bad = match mapping {
            Mapping::Tile(t) => (t >= total).then_some(t),
            Mapping::Tiles(a, b) => (a >= b || b > total).then_some(b),
            Mapping::Linear { .. } => None,
        };
        if let Some(t) = bad {
            return Err(BuildError::new(
                BuildErrorKind::TileMapping,
                format!("tile {t} is out of range: the target has {total} tiles (0 to {})", total - 1),
            ));
        }
        if let Mapping::Tile(tile) = mapping {
            for r in view.runs() {
                let len = self.graph.tensors[r.tensor].num_elements() as usize;
                let tiles = self.tiles.entry(r.tensor).or_insert_with(|| vec![u32::MAX; len]);
                tiles[r.start as usize..(r.start + r.len) as usize].fill(tile);
            }
        } else {
            // Spread mappings are resolved by the compiler; queries see them
            // once applied through `map_regions`.
            return Err(BuildError::new(
                BuildErrorKind::TileMapping,
                "the builder maps regions to single tiles; spread them with map_regions",
            ));
        }
        self.spans.mappings.push(Span::default());
        self.graph.mappings.push(MapStmt { view: view.clone(), mapping });
        Ok(())
    }

    /// Maps consecutive runs of `view`'s elements (`(begin, end, tile)`,
    /// flattened positions) each to one tile.
    pub fn map_regions(&mut self, view: &View, regions: &[(u64, u64, u32)]) -> R<()> {
        let flat = view.flatten();
        for &(begin, end, tile) in regions {
            if begin >= end {
                continue;
            }
            let part = flat
                .index(&[crate::view::Subscript::Slice {
                    start: Some(begin as i64),
                    end: Some(end as i64),
                    step: None,
                }])
                .map_err(Builder::index_err)?;
            self.map(&part, Mapping::Tile(tile))?;
        }
        Ok(())
    }

    /// PopLibs' linear mapping (`poputil::mapTensorLinearly`) over
    /// `tiles`: grains of `grain` elements, at least `min_per_tile`
    /// elements on a tile, the set's tiles filled in order.
    pub fn map_linearly(&mut self, view: &View, tiles: &TileSet, min_per_tile: u64, grain: u64) -> R<()> {
        let n = view.num_elements();
        let count = u64::from(tiles.len().max(1));
        let grain = grain.max(1);
        let grains = n.div_ceil(grain);
        let per_tile = grains.div_ceil(count).max(min_per_tile.div_ceil(grain)).max(1) * grain;
        let regions: Vec<(u64, u64, u32)> = (0..n.div_ceil(per_tile))
            .map(|i| (i * per_tile, ((i + 1) * per_tile).min(n), tiles.nth(i as u32)))
            .collect();
        self.map_regions(view, &regions)
    }

    /// The tile of each element of `view`, in its row-major order (`None`:
    /// not mapped yet).
    pub fn tile_mapping(&self, view: &View) -> Vec<Option<u32>> {
        view.elements()
            .map(|(t, e)| self.tiles.get(&t).map(|v| v[e as usize]).filter(|&x| x != u32::MAX))
            .collect()
    }

    pub fn add_compute_set(&mut self, name: &str) -> ComputeSetId {
        let ident = self.ident("cs", name);
        let span = self.describe("compute set", &ident, name);
        let id = self.graph.compute_sets.push(ComputeSet { name: ident, vertices: Vec::new() });
        self.spans.compute_sets.set(id, span);
        id
    }

    /// The builder's shared [`Name`] spelled `s`: a caller that repeats a
    /// vertex type or field name (a loop adding vertices) interns it once
    /// and passes it to [`Builder::add_interned_vertex`] and
    /// [`Builder::set_interned_field`].
    pub fn intern(&mut self, s: &str) -> Name {
        self.names.intern(s)
    }

    /// A vertex of type `vtype` (Poplar's spelling) in `cs`, not yet
    /// mapped, with room for `fields` fields (its type's count: a vertex's
    /// fields are most of a large graph's memory).
    pub fn add_vertex(&mut self, cs: ComputeSetId, vtype: &str, fields: usize) -> R<VertexId> {
        let vtype = self.names.intern(vtype);
        self.add_interned_vertex(cs, vtype, fields)
    }

    /// [`Builder::add_vertex`] of a type name [`Builder::intern`] gave.
    pub fn add_interned_vertex(&mut self, cs: ComputeSetId, vtype: Name, fields: usize) -> R<VertexId> {
        if cs.0 as usize >= self.graph.compute_sets.len() {
            return Err(Builder::index_err(format!("compute set {} does not exist", cs.0)));
        }
        let span = match &self.last_vertex {
            Some((t, c, span)) if Arc::ptr_eq(t, &vtype) && *c == cs => *span,
            _ => {
                let start = self.described.len();
                let cs_name = &self.graph.compute_sets[cs].name;
                let _ = write!(self.described, "vertex {vtype} in compute set {cs_name}");
                let span = Span::new(start, self.described.len());
                self.described.push('\n');
                self.last_vertex = Some((vtype.clone(), cs, span));
                span
            }
        };
        let id = self.graph.vertices.push(Vertex {
            vtype,
            compute_set: cs,
            tile: None,
            fields: Vec::with_capacity(fields),
            cycles: None,
        });
        self.graph.compute_sets[cs].vertices.push(id);
        self.spans.vertices.set(id, span);
        self.spans.set_fields(id, []);
        Ok(id)
    }

    fn vertex_mut(&mut self, v: VertexId) -> R<&mut Vertex> {
        if v.0 as usize >= self.graph.vertices.len() {
            return Err(Builder::index_err(format!("vertex {} does not exist", v.0)));
        }
        Ok(&mut self.graph.vertices[v])
    }

    /// Sets a field (replacing an earlier value of the same field).
    pub fn set_field(&mut self, v: VertexId, name: &str, value: FieldValue) -> R<()> {
        let vertex = self.vertex_mut(v)?;
        match vertex.fields.iter_mut().find(|f| &*f.name == name) {
            Some(f) => f.value = value,
            None => {
                let name = self.names.intern(name);
                self.graph.vertices[v].fields.push(Field { name, value });
            }
        }
        Ok(())
    }

    /// [`Builder::set_field`] of a field name [`Builder::intern`] gave.
    pub fn set_interned_field(&mut self, v: VertexId, name: Name, value: FieldValue) -> R<()> {
        let vertex = self.vertex_mut(v)?;
        match vertex.fields.iter_mut().find(|f| f.name == name) {
            Some(f) => f.value = value,
            None => vertex.fields.push(Field { name, value }),
        }
        Ok(())
    }

    pub fn set_vertex_tile(&mut self, v: VertexId, tile: u32) -> R<()> {
        let total = self.graph.total_tiles();
        if tile >= total {
            return Err(BuildError::new(
                BuildErrorKind::TileMapping,
                format!("tile {tile} is out of range: the target has {total} tiles"),
            ));
        }
        self.vertex_mut(v)?.tile = Some(tile);
        Ok(())
    }

    pub fn set_vertex_cycles(&mut self, v: VertexId, cycles: u64) -> R<()> {
        self.vertex_mut(v)?.cycles = Some(cycles);
        Ok(())
    }

    fn host_name(&mut self, what: &str, name: &str) -> R<()> {
        if !self.host_names.insert(name.to_string()) {
            return Err(BuildError::new(
                BuildErrorKind::Other,
                format!("{what} '{name}': the name is already used by a handle, stream or remote buffer"),
            ));
        }
        Ok(())
    }

    /// `createHostWrite` / `createHostRead` of any view of `elem`s.
    pub fn add_host_handle(
        &mut self,
        name: &str,
        view: &View,
        elem: ElemType,
        direction: HostDirection,
    ) -> R<HostHandleId> {
        if direction == HostDirection::ToDevice && view.repeats_elements() {
            return Err(BuildError::new(
                BuildErrorKind::Connection,
                format!("host write handle '{name}': the tensor names an element more than once"),
            ));
        }
        self.host_name("host handle", name)?;
        let span = self.describe("host handle", name, name);
        let h = HostHandle { name: name.to_string(), view: view.clone(), elem, direction };
        let id = self.graph.host_handles.push(h);
        self.spans.host_handles.set(id, span);
        Ok(id)
    }

    pub fn add_stream(
        &mut self,
        name: &str,
        elem: ElemType,
        shape: &[u64],
        direction: HostDirection,
    ) -> R<StreamId> {
        self.host_name("stream", name)?;
        let span = self.describe("stream", name, name);
        let id = self.graph.streams.push(Stream {
            name: name.to_string(),
            elem,
            shape: shape.to_vec(),
            direction,
        });
        self.spans.streams.set(id, span);
        Ok(id)
    }

    pub fn add_remote_buffer(
        &mut self,
        name: &str,
        elem: ElemType,
        shape: &[u64],
        repeats: u64,
    ) -> R<RemoteBufferId> {
        self.host_name("remote buffer", name)?;
        let span = self.describe("remote buffer", name, name);
        let id = self.graph.remote_buffers.push(RemoteBuffer {
            name: name.to_string(),
            elem,
            shape: shape.to_vec(),
            repeats,
        });
        self.spans.remote_buffers.set(id, span);
        Ok(id)
    }

    pub fn add_codelets(&mut self, path: &str, options: Vec<String>) -> CodeletId {
        let span = self.describe("codelets", path, path);
        let id = self.graph.codelets.push(CodeletRef { path: path.to_string(), options });
        self.spans.codelets.set(id, span);
        id
    }

    pub fn add_function(&mut self, body: Vec<Stmt>) -> FunctionId {
        let ident = self.ident("fn", "function");
        let span = self.describe("function", &ident, &ident);
        let id = self.graph.functions.push(Program { name: ident, body });
        self.spans.functions.set(id, span);
        id
    }

    /// The graph with `programs` as its entry programs (`prog0`, …), its
    /// copies numbered: ready for the compiler, with spans into
    /// [`Builder::described`].
    pub fn finish(&self, programs: Vec<Vec<Stmt>>) -> (Graph, Spans) {
        self.finish_named(
            programs.into_iter().enumerate().map(|(i, body)| (format!("prog{i}"), body)).collect(),
        )
    }

    /// [`Builder::finish`] with the programs' names (PIR identifiers, which
    /// the caller checks).
    pub fn finish_named(&self, programs: Vec<(String, Vec<Stmt>)>) -> (Graph, Spans) {
        let mut graph = self.graph.clone();
        let mut spans = self.spans.clone();
        add_programs(&mut graph, &mut spans, programs);
        (graph, spans)
    }

    /// Calls `f` with what [`Builder::finish_named`] returns and
    /// [`Builder::described`], without copying the graph: the programs are
    /// the graph's only while `f` runs (compiling a graph of a million
    /// vertices should not first copy it).
    pub fn with_programs<T>(
        &mut self,
        programs: Vec<(String, Vec<Stmt>)>,
        f: impl FnOnce(&Graph, &Spans, &str) -> T,
    ) -> T {
        /// Takes the programs back out, however `f` ends.
        struct Lent<'a>(&'a mut Builder);
        impl Drop for Lent<'_> {
            fn drop(&mut self) {
                self.0.graph.programs = Default::default();
                self.0.spans.programs = Default::default();
            }
        }
        let lent = Lent(self);
        add_programs(&mut lent.0.graph, &mut lent.0.spans, programs);
        let b = &*lent.0;
        f(&b.graph, &b.spans, &b.described)
    }
}

/// Adds the entry programs to a builder's graph (which has none) and
/// numbers its copies.
fn add_programs(graph: &mut Graph, spans: &mut Spans, programs: Vec<(String, Vec<Stmt>)>) {
    for (name, body) in programs {
        let id = graph.programs.push(Program { name, body });
        spans.programs.set(id, Span::default());
    }
    graph.number_copies();
}

/// The row-major shape of a view as `u64`s from host sizes.
pub fn shape_u64(shape: &[usize]) -> Vec<u64> {
    shape.iter().map(|&d| d as u64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Preset;

    fn two_vertices() -> Builder {
        let mut b = Builder::new(Target::preset(Preset::Mk2)).unwrap();
        let cs = b.add_compute_set("cs");
        for _ in 0..2 {
            let v = b.add_vertex(cs, "Scale", 1).unwrap();
            b.set_field(v, "k", FieldValue::Literal(Literal::Float(2.0))).unwrap();
        }
        b
    }

    #[test]
    fn vertices_of_a_loop_share_names_and_their_line() {
        let b = two_vertices();
        let g = b.graph();
        let (v0, v1) = (&g.vertices[VertexId(0)], &g.vertices[VertexId(1)]);
        assert!(Arc::ptr_eq(&v0.vtype, &v1.vtype));
        assert!(Arc::ptr_eq(&v0.fields[0].name, &v1.fields[0].name));
        let span = *b.spans.vertices.get(VertexId(1));
        assert_eq!(span, *b.spans.vertices.get(VertexId(0)));
        assert_eq!(&b.described()[span.start as usize..span.end as usize], "vertex Scale in compute set cs");
    }

    #[test]
    fn with_programs_sees_what_finish_returns_and_leaves_no_program() {
        let mut b = two_vertices();
        let programs = vec![("main".to_string(), vec![Stmt::Execute(ComputeSetId(0))])];
        let (finished, _) = b.finish_named(programs.clone());
        let lent = b.with_programs(programs, |g, spans, _| {
            assert_eq!(*spans.programs.get(ProgramId(0)), Span::default());
            g.clone()
        });
        assert_eq!(lent, finished);
        assert!(b.graph().programs.is_empty());
    }
}
