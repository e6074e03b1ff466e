//! Graphs: a [`Builder`] plus the codelets added to it, compiled by popc
//! when they are added so that `addVertex` and `connect` can check vertex
//! types and field names there, as Poplar does.
//!
//! A graph handle ([`Graph`]) is the graph it shares with the other
//! handles of it ([`Core`]) and the tiles it sees ([`GraphTiles`]): the
//! graph made from a target sees them all; `createVirtualGraph` makes a
//! handle that sees some of them, numbered from 0, whose tensors, compute
//! sets and vertices are the parent's. Tile numbers are translated at
//! this boundary and the operations a handle adds carry its tiles, so
//! the compiler places their work there.

use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use ir::builder::{shape_u64, Builder, GraphTiles};
use ir::{ComputeSetId, FieldValue, HostDirection, Literal, Stmt, TensorKind, VertexId};
use linker::gp;
use vocab::{ElemType, Value};

use crate::program::Program;
use crate::status::{guard, ApiError, Result, Status};
use crate::target::{elem_type, encode_values, host_value, host_values, TargetDesc};
use crate::tensor::{tensors, Run, Tensor};
use crate::{free, handle, put, put_box, put_string, sizes_out, slice, text};

mod abi;

pub use abi::*;

/// A codelet file added to a graph.
#[derive(Clone, Debug)]
pub struct CodeletFile {
    /// The path as given (or `<source>` for text).
    pub name: String,
    /// The C++ text (`None` for a `.gp` object).
    pub source: Option<String>,
    pub options: Vec<String>,
    /// Compiled with the vertex types asked for so far.
    pub object: gp::Object,
    pub aliases: Vec<(String, String)>,
    /// The template instantiations asked for so far.
    pub requested: Vec<String>,
}

/// What every handle of one graph shares: the graph being built and what
/// was added to it.
pub struct Core {
    pub builder: Builder,
    pub codelets: Vec<CodeletFile>,
    /// Compute sets that stand for a library operation (a reduction
    /// handed back as compute sets): `Execute` of one runs the operation.
    pub op_sets: HashMap<u32, Stmt>,
    pub replication: u32,
    /// `setFieldSize` of vector-list fields, by (vertex, field).
    pub field_sizes: HashMap<(u32, String), usize>,
    /// Host-to-device streams added with `ReplicatedStreamMode::BROADCAST`
    /// (one host end for every replica), by name.
    pub broadcast: Vec<String>,
    /// `poprand`'s generator state for calls without a seed tensor (the
    /// seed, and the modifier of the next call), made when first needed.
    pub hw_seed: Option<(crate::tensor::Tensor, crate::tensor::Tensor)>,
    /// How many times `createReplicatedGraph` remade the graph: a handle
    /// made before the last time is the parent of the replicas.
    generation: u32,
    /// Vertex type names as `addVertex` was given them, each with its
    /// canonical spelling (the builder's interned name) and its number of
    /// fields once the codelets were found to define it: a loop adding
    /// vertices of one type parses, looks up and interns the name once.
    vertex_names: HashMap<Box<str>, (ir::Name, usize)>,
    /// The entry of `vertex_names` the last `addVertex` used: a loop adding
    /// vertices of one type does not hash its name each time.
    last_vertex_name: Option<(Box<str>, (ir::Name, usize))>,
    /// The fields of the vertex type `connect` and `setInitialValue` last
    /// looked at, by name: a loop over vertices of one type finds a field
    /// without searching the codelets or interning its name.
    last_fields: Option<(ir::Name, Vec<FieldInfo>)>,
}

/// What `connect` checks of a vertex type's field, and its name as the
/// builder interned it.
#[derive(Clone)]
struct FieldInfo {
    name: ir::Name,
    /// `None` for a plain member.
    direction: Option<gp::Direction>,
    elem: ElemType,
    kind: gp::FieldKind,
}

/// A graph handle (`prs_graph`): the shared graph, and the tiles this
/// handle sees (all of the target's, or a virtual graph's).
pub struct Graph {
    core: Arc<Mutex<Core>>,
    pub tiles: GraphTiles,
    generation: u32,
}

fn field_err(message: String) -> ApiError {
    ApiError::new(Status::GraphConnectionError, message)
}

impl CodeletFile {
    fn compile(
        name: &str,
        source: &str,
        options: &[String],
        requested: &[String],
    ) -> Result<(gp::Object, Vec<(String, String)>)> {
        let opts = popc::Options::from_args(options).map_err(|e| {
            ApiError::new(Status::GraphProgramCompilationError, format!("{name}: error: {e}"))
        })?;
        let out = popc::compile_lenient(name, source, &opts, &popc::FsIncludes, requested)
            .map_err(|d| ApiError::new(Status::GraphProgramCompilationError, d.render()))?;
        Ok((out.object, out.aliases))
    }

    fn vertex_type(&self, name: &str) -> Option<&gp::VertexType> {
        let name = self.aliases.iter().find(|(a, _)| a == name).map_or(name, |(_, t)| t.as_str());
        self.object.vertex_types.iter().find(|v| v.name == name)
    }
}

impl Graph {
    /// A graph for `target` (replication factor 1).
    pub fn new(target: ir::Target) -> Result<Graph> {
        Graph::replicated(target, 1)
    }

    /// `Graph(target, replication_factor(r))`: `target`'s IPUs split into
    /// `r` replicas of equal size; the graph is one replica's, on a target
    /// of `ipus / r` IPUs.
    pub fn replicated(target: ir::Target, replicas: u32) -> Result<Graph> {
        let core = Core::replicated(target, replicas)?;
        let tiles = GraphTiles::whole(core.builder.target());
        Ok(Graph { core: Arc::new(Mutex::new(core)), tiles, generation: 0 })
    }

    /// The shared graph, to change it. The parent of a replicated graph
    /// (`createReplicatedGraph`) refuses: its tiles are no longer the graph's.
    pub fn core(&self) -> Result<MutexGuard<'_, Core>> {
        let core = self.shared();
        if core.generation != self.generation {
            return Err(ApiError::new(
                Status::PoplarError,
                "this graph was split by createReplicatedGraph: add tensors, vertices and operations \
                 through the replicated graph (adding to the parent of the replicas is not implemented, \
                 docs/host-api.md)",
            ));
        }
        Ok(core)
    }

    /// The shared graph, to read or compile it (any handle of it).
    pub fn shared(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The target this handle reports (`getTarget()`).
    pub fn target(&self) -> &ir::Target {
        &self.tiles.target
    }

    pub fn replication(&self) -> u32 {
        self.shared().replication
    }

    /// A handle of the same graph that sees `tiles`.
    fn view(&self, tiles: GraphTiles) -> Result<Graph> {
        drop(self.core()?);
        Ok(Graph { core: Arc::clone(&self.core), tiles, generation: self.generation })
    }

    /// `createVirtualGraph(lowerTile, upperTile)`: this handle's tiles
    /// `lower` to `upper - 1`.
    pub fn virtual_range(&self, lower: u32, upper: u32) -> Result<Graph> {
        self.view(self.tiles.range(lower, upper)?)
    }

    /// `createVirtualGraph(numTilesPerIPU)`: the first `n` tiles of each
    /// IPU.
    pub fn virtual_per_ipu_count(&self, n: u32) -> Result<Graph> {
        if n == 0 {
            return Err(ApiError::new(
                Status::PoplarError,
                "createVirtualGraph(0): a virtual graph needs at least one tile per IPU",
            ));
        }
        let tiles: Vec<u32> = (0..n).collect();
        self.view(self.tiles.per_ipu(&tiles)?)
    }

    /// `createVirtualGraph(perIpuTiles)`: these tiles of each IPU.
    pub fn virtual_per_ipu(&self, tiles: &[u32]) -> Result<Graph> {
        self.view(self.tiles.per_ipu(tiles)?)
    }

    /// `createReplicatedGraph(r)`: the graph split into `r` replicas of
    /// `ipus / r` IPUs each, as `Graph(target, replication_factor(r))`
    /// splits it. Only a graph made from a target, with nothing added but
    /// codelets, can be split: every replica is compiled once, so what the
    /// parent could add to one replica alone has no place.
    pub fn replicated_graph(&self, replicas: u32) -> Result<Graph> {
        let mut core = self.core()?;
        if !self.tiles.is_whole() {
            return Err(ApiError::new(
                Status::PoplarError,
                "createReplicatedGraph of a virtual graph is not implemented (docs/host-api.md)",
            ));
        }
        if core.replication != 1 {
            return Err(ApiError::new(
                Status::PoplarError,
                format!(
                    "createReplicatedGraph({replicas}): the graph is already replicated (replication factor {})",
                    core.replication
                ),
            ));
        }
        let g = core.builder.graph();
        let added = g.tensors.len()
            + g.compute_sets.len()
            + g.vertices.len()
            + g.streams.len()
            + g.host_handles.len()
            + g.remote_buffers.len()
            + g.functions.len();
        if added > 0 {
            return Err(ApiError::new(
                Status::PoplarError,
                format!(
                    "createReplicatedGraph({replicas}) after tensors, compute sets or streams were added to the \
                     graph is not implemented: every replica is compiled once from the replicated graph, so \
                     create it first and build through it (docs/host-api.md)"
                ),
            ));
        }
        let mut fresh = Core::replicated(self.tiles.target.clone(), replicas)?;
        for c in &core.codelets {
            fresh.builder.add_codelets(&c.name, c.options.clone());
        }
        fresh.codelets = std::mem::take(&mut core.codelets);
        fresh.generation = core.generation + 1;
        *core = fresh;
        let tiles = GraphTiles::whole(core.builder.target());
        Ok(Graph { core: Arc::clone(&self.core), tiles, generation: core.generation })
    }

    /// `setTileMapping(t, tile)`, `tile` this handle's.
    pub fn set_tile_mapping(&self, view: &ir::View, tile: u32) -> Result<()> {
        let tile = self.tiles.tile(tile)?;
        self.core()?.builder.map(view, ir::Mapping::Tile(tile))?;
        Ok(())
    }

    /// `setTileMapping(v, tile)` of a vertex, `tile` this handle's.
    pub fn set_vertex_tile(&self, v: u32, tile: u32) -> Result<()> {
        let tile = self.tiles.tile(tile)?;
        self.core()?.builder.set_vertex_tile(VertexId(v), tile)?;
        Ok(())
    }

    /// PopLibs' linear mapping of `t` (`poputil::mapTensorLinearly`) over
    /// this handle's tiles: grains of `grain` elements, at least
    /// `min_per_tile` on a tile, tiles filled from 0 in order.
    pub fn map_linearly(&self, t: &Tensor, min_per_tile: u64, grain: u64) -> Result<()> {
        self.core()?.builder.map_linearly(&t.view, &self.tiles.tiles, min_per_tile, grain)?;
        Ok(())
    }

    /// `mapTensorLinearly` with PopLibs' defaults for 0: a grain of the
    /// type's vector width (8 bytes), at least 128 bytes on a tile.
    pub fn map_linearly_or_default(&self, t: &Tensor, min_per_tile: u64, grain: u64) -> Result<()> {
        let size = u64::from(t.elem.size());
        let grain = if grain == 0 { (8 / size).max(1) } else { grain };
        let min = if min_per_tile == 0 { 128u64.div_ceil(size) } else { min_per_tile };
        self.map_linearly(t, min, grain)
    }

    /// `getTileMapping`: sorted (tile, begin, end) runs of flat indices,
    /// tiles this handle's; with `complete`, an unmapped element is an
    /// error, and so is, always, an element on a tile the handle does not
    /// see.
    pub fn tile_runs(&self, t: &Tensor, complete: bool) -> Result<Vec<(u32, usize, usize)>> {
        let tiles = self.shared().builder.tile_mapping(&t.view);
        let mut runs: Vec<(u32, usize, usize)> = Vec::new();
        for (i, tile) in tiles.iter().enumerate() {
            let tile = match tile {
                Some(p) => Some(self.tiles.relative(*p).ok_or_else(|| {
                    ApiError::new(
                        Status::InvalidTileMapping,
                        format!(
                            "getTileMapping: element {i} of the tensor is on tile {p}, which is not one of the virtual graph's tiles ({})",
                            self.tiles.tiles
                        ),
                    )
                })?),
                None => None,
            };
            match (tile, runs.last_mut()) {
                (None, _) if complete => {
                    return Err(ApiError::new(
                        Status::InvalidTileMapping,
                        format!("getTileMapping: element {i} of the tensor is not mapped to a tile"),
                    ))
                }
                (None, _) => {}
                (Some(x), Some(last)) if last.0 == x && last.2 == i => last.2 = i + 1,
                (Some(x), _) => runs.push((x, i, i + 1)),
            }
        }
        runs.sort_unstable();
        Ok(runs)
    }

    // What does not depend on the tiles a handle sees: the shared graph's.

    pub fn add_tensor(
        &self,
        name: &str,
        kind: TensorKind,
        elem: ElemType,
        shape: &[u64],
        init: Option<ir::Init>,
    ) -> Result<Tensor> {
        self.core()?.add_tensor(name, kind, elem, shape, init)
    }

    pub fn add_replication_index(&self, name: &str) -> Result<Tensor> {
        self.core()?.add_replication_index(name)
    }

    pub fn add_codelets_path(&self, path: &str, flags: &str) -> Result<()> {
        self.core()?.add_codelets_path(path, flags)
    }

    pub fn add_codelets_source(&self, source: String, flags: &str) -> Result<()> {
        self.core()?.add_codelets_source(source, flags)
    }

    pub fn add_vertex(&self, cs: u32, vertex_type: &str) -> Result<u32> {
        self.core()?.add_vertex(cs, vertex_type)
    }

    pub fn connect(&self, v: u32, name: &str, ts: &[&Tensor], list: bool) -> Result<()> {
        self.core()?.connect(v, name, ts, list)
    }

    pub fn connect_tensor(&self, v: u32, name: &str, t: Tensor) -> Result<()> {
        self.core()?.connect_tensor(v, name, t)
    }

    pub fn connect_value(&self, vertex: u32, name: &str, v: Value) -> Result<()> {
        self.core()?.connect_value(vertex, name, v)
    }

    pub fn set_field_size(&self, vertex: u32, name: &str, size: usize) -> Result<()> {
        self.core()?.set_field_size(vertex, name, size)
    }

    pub fn add_stream(
        &self,
        name: &str,
        elem: ElemType,
        num_elements: u64,
        dir: HostDirection,
    ) -> Result<u32> {
        self.core()?.add_stream(name, elem, num_elements, dir)
    }

    pub fn add_remote_buffer(
        &self,
        name: &str,
        elem: ElemType,
        num_elements: u64,
        repeats: u64,
    ) -> Result<u32> {
        self.core()?.add_remote_buffer(name, elem, num_elements, repeats)
    }

    pub fn set_stream_broadcast(&self, id: u32) -> Result<()> {
        self.core()?.set_stream_broadcast(id)
    }

    pub fn execute(&self, cs: u32) -> Result<Program> {
        self.shared().execute(cs)
    }

    pub fn stream(&self, id: u32) -> Result<ir::Stream> {
        self.shared().stream(id).cloned()
    }

    pub fn remote_buffer(&self, id: u32, repeat: u64) -> Result<ir::RemoteBuffer> {
        self.shared().remote_buffer(id, repeat).cloned()
    }

    pub fn tensor(&self, id: ir::TensorId) -> Tensor {
        self.shared().tensor(id)
    }
}

impl Core {
    /// [`Graph::replicated`]'s shared graph.
    fn replicated(mut target: ir::Target, replicas: u32) -> Result<Core> {
        if replicas == 0 || !target.ipus.is_multiple_of(replicas) || replicas > vocab::MAX_REPLICAS {
            return Err(ApiError::new(
                Status::PoplarError,
                format!(
                    "a replication factor of {replicas} does not divide the target's {} IPUs into replicas \
                     (create the target with a multiple of {replicas} IPUs)",
                    target.ipus
                ),
            ));
        }
        target.ipus /= replicas;
        target.replication_factor = replicas;
        Ok(Core {
            builder: Builder::new(target)?,
            codelets: Vec::new(),
            op_sets: HashMap::new(),
            replication: replicas,
            field_sizes: HashMap::new(),
            broadcast: Vec::new(),
            hw_seed: None,
            generation: 0,
            vertex_names: HashMap::new(),
            last_vertex_name: None,
            last_fields: None,
        })
    }

    /// `addReplicationIndexConstant`: a scalar `unsigned int` holding each
    /// replica's own number.
    pub fn add_replication_index(&mut self, name: &str) -> Result<Tensor> {
        let name = if name.is_empty() { "replicationIndex" } else { name };
        self.add_tensor(name, TensorKind::Const, ElemType::UInt, &[], Some(ir::Init::ReplicationIndex))
    }

    /// `addCodelets(path)`: a C++ file compiled now, or a `.gp` object.
    pub fn add_codelets_path(&mut self, path: &str, flags: &str) -> Result<()> {
        let unreadable = |e: String| {
            ApiError::new(
                Status::GraphProgramCompilationError,
                format!("cannot read codelet file '{path}': {e}"),
            )
        };
        let meta = std::fs::metadata(path).map_err(|e| unreadable(e.to_string()))?;
        if let Some(why) = popc::include_refusal(meta.is_file(), meta.len()) {
            return Err(ApiError::new(
                Status::GraphProgramCompilationError,
                format!("codelet file '{path}': {why}"),
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
        if path.ends_with(".gp") {
            return self.add_codelets(path.to_string(), None, bytes, flags);
        }
        let src = String::from_utf8(bytes).map_err(|_| {
            ApiError::new(
                Status::GraphProgramCompilationError,
                format!("codelet file '{path}' is not UTF-8 text"),
            )
        })?;
        self.add_codelets(path.to_string(), Some(src), Vec::new(), flags)
    }

    /// `addCodelets(stringstream)`: C++ text, compiled now.
    pub fn add_codelets_source(&mut self, source: String, flags: &str) -> Result<()> {
        self.add_codelets("<source>".into(), Some(source), Vec::new(), flags)
    }

    /// Adds a codelet file or text, compiling it now.
    fn add_codelets(
        &mut self,
        name: String,
        source: Option<String>,
        bytes: Vec<u8>,
        flags: &str,
    ) -> Result<()> {
        let options: Vec<String> = flags.split_whitespace().map(str::to_string).collect();
        let (object, aliases) = match &source {
            Some(text) => CodeletFile::compile(&name, text, &options, &[])?,
            None => {
                let o = gp::Object::from_bytes(&bytes).map_err(|e| {
                    ApiError::new(
                        Status::GraphProgramCompilationError,
                        format!("cannot load codelet object '{name}': {e}"),
                    )
                })?;
                (o, Vec::new())
            }
        };
        // The graph names the file too, so its PIR dump compiles as it is.
        self.builder.add_codelets(&name, options.clone());
        self.codelets.push(CodeletFile { name, source, options, object, aliases, requested: Vec::new() });
        Ok(())
    }

    /// The vertex type called `name`, instantiating a template when a
    /// codelet source defines it.
    pub fn vertex_type(&mut self, name: &str) -> Result<&gp::VertexType> {
        let found = self.codelets.iter().position(|c| c.vertex_type(name).is_some());
        let index = match found {
            Some(i) => i,
            None => {
                let mut hit = None;
                for (i, c) in self.codelets.iter_mut().enumerate() {
                    let Some(src) = &c.source else { continue };
                    let ask = compiler::driver::requested_in(src, &[name.to_string()]);
                    if ask.is_empty() {
                        continue;
                    }
                    let mut requested = c.requested.clone();
                    requested.push(name.to_string());
                    let (object, aliases) = CodeletFile::compile(&c.name, src, &c.options, &requested)?;
                    let defines = object.vertex_types.iter().any(|v| v.name == name)
                        || aliases.iter().any(|(a, _)| a == name);
                    if defines {
                        c.object = object;
                        c.aliases = aliases;
                        c.requested = requested;
                        hit = Some(i);
                        break;
                    }
                }
                hit.ok_or_else(|| {
                    let known = self
                        .codelets
                        .iter()
                        .flat_map(|c| c.object.vertex_types.iter().map(|v| v.name.as_str()))
                        .collect::<Vec<_>>();
                    let hint = spelling::did_you_mean(name, known.iter().copied())
                        .map(|s| format!("; did you mean '{s}'?"))
                        .unwrap_or_default();
                    let added =
                        if self.codelets.is_empty() { " (no codelets were added to the graph)" } else { "" };
                    ApiError::new(
                        Status::UnknownVertexType,
                        format!("unknown vertex type '{name}'{hint}{added}"),
                    )
                })?
            }
        };
        self.codelets[index]
            .vertex_type(name)
            .ok_or_else(|| ApiError::new(Status::Internal, "vertex type vanished"))
    }

    /// Keeps the fields of vertex type `vtype` for the next call.
    fn load_fields(&mut self, vtype: &ir::Name) -> Result<()> {
        let fields: Vec<(String, Option<gp::Direction>, ElemType, gp::FieldKind)> = self
            .vertex_type(vtype)?
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.direction, f.elem, f.kind))
            .collect();
        let fields = fields
            .into_iter()
            .map(|(name, direction, elem, kind)| FieldInfo {
                name: self.builder.intern(&name),
                direction,
                elem,
                kind,
            })
            .collect();
        self.last_fields = Some((vtype.clone(), fields));
        Ok(())
    }

    fn field(&mut self, v: u32, field: &str) -> Result<FieldInfo> {
        let vertex = self
            .builder
            .graph()
            .vertices
            .get(VertexId(v))
            .ok_or_else(|| ApiError::new(Status::IndexError, format!("vertex {v} does not exist")))?;
        if !matches!(&self.last_fields, Some((t, _)) if Arc::ptr_eq(t, &vertex.vtype)) {
            let vtype = vertex.vtype.clone();
            self.load_fields(&vtype)?;
        }
        let Some((vtype, fields)) = &self.last_fields else {
            return Err(ApiError::new(Status::Internal, "vertex fields vanished"));
        };
        match fields.iter().find(|f| *f.name == *field) {
            Some(f) => Ok(f.clone()),
            None => {
                let names = || fields.iter().map(|f| &*f.name);
                let hint = spelling::did_you_mean(field, names())
                    .map(|s| format!("; did you mean '{s}'?"))
                    .unwrap_or_default();
                Err(ApiError::new(
                    Status::UnknownField,
                    format!(
                        "vertex type '{vtype}' has no field '{field}'{hint} (its fields: {})",
                        names().collect::<Vec<_>>().join(", ")
                    ),
                ))
            }
        }
    }

    /// Connects field `name` of vertex `v` (`name[i]`: one entry of a
    /// list) to `ts`; `list` for a list of edges.
    pub fn connect(&mut self, v: u32, name: &str, ts: &[&Tensor], list: bool) -> Result<()> {
        if let Some((field, index)) = list_entry(name) {
            return self.connect_entry(v, field, index, ts);
        }
        let f = self.field(v, name)?;
        let what = || format!("field '{name}' of vertex {v}");
        if f.direction.is_none() {
            return Err(field_err(format!("{} is a plain member, not an edge: give it a value", what())));
        }
        for t in ts {
            if t.elem != f.elem {
                return Err(ApiError::new(
                    Status::TypeError,
                    format!(
                        "{} holds {} but the tensor holds {}",
                        what(),
                        f.elem.cpp_name(),
                        t.elem.cpp_name()
                    ),
                ));
            }
        }
        if list {
            if let Some(&size) = self.field_sizes.get(&(v, name.to_string())) {
                if ts.len() != size {
                    return Err(field_err(format!(
                        "{} was given size {size} but {} tensors",
                        what(),
                        ts.len()
                    )));
                }
            }
        }
        let value = match (f.kind, list) {
            (gp::FieldKind::Scalar, false) => {
                let n = ts[0].view.num_elements();
                if n != 1 {
                    return Err(field_err(format!("{} is one element, but the tensor has {n}", what())));
                }
                FieldValue::Edge(ts[0].view.clone())
            }
            (gp::FieldKind::Vector(_), false) => FieldValue::Edge(ts[0].view.flatten()),
            (gp::FieldKind::VectorList(_) | gp::FieldKind::ScalarList(_), _) => {
                FieldValue::EdgeList(ts.iter().map(|t| t.view.flatten()).collect())
            }
            (_, true) => return Err(field_err(format!("{} is not a list of edges", what()))),
            (gp::FieldKind::Plain, false) => {
                return Err(field_err(format!("{} cannot take a tensor", what())))
            }
        };
        self.builder.set_interned_field(VertexId(v), f.name, value)?;
        Ok(())
    }

    /// [`Core::connect`] of one tensor, taken: a view of rank 1 connected
    /// to a vector field (what a loop of `connect(v["in"], t.slice(a, b))`
    /// does) is stored as it is, where `connect` stores a copy; any other
    /// connection is `connect`'s, errors included.
    pub fn connect_tensor(&mut self, v: u32, name: &str, t: Tensor) -> Result<()> {
        if t.view.rank() == 1 && list_entry(name).is_none() {
            let f = self.field(v, name)?;
            if f.direction.is_some() && f.elem == t.elem && matches!(f.kind, gp::FieldKind::Vector(_)) {
                // What `connect` stores: the view flattened, which a view
                // of rank 1 already is.
                self.builder.set_interned_field(VertexId(v), f.name, FieldValue::Edge(t.view))?;
                return Ok(());
            }
        }
        self.connect(v, name, &[&t], false)
    }

    /// `v["field"][i]`: entry `i` of a vector-list field whose size
    /// `setFieldSize` gave.
    fn connect_entry(&mut self, v: u32, name: &str, index: usize, ts: &[&Tensor]) -> Result<()> {
        let f = self.field(v, name)?;
        let size = *self.field_sizes.get(&(v, name.to_string())).ok_or_else(|| {
            ApiError::new(
                Status::NoSizeSpecified,
                format!("field '{name}' of vertex {v}: call setFieldSize before connecting its entries"),
            )
        })?;
        if index >= size {
            return Err(ApiError::new(
                Status::IndexError,
                format!("entry {index} of field '{name}' of vertex {v}, whose size is {size}"),
            ));
        }
        let t =
            ts.first().ok_or_else(|| field_err(format!("no tensor for entry {index} of field '{name}'")))?;
        if t.elem != f.elem {
            return Err(ApiError::new(
                Status::TypeError,
                format!(
                    "field '{name}' holds {} but the tensor holds {}",
                    f.elem.cpp_name(),
                    t.elem.cpp_name()
                ),
            ));
        }
        let mut entries = match self.builder.graph().vertices[VertexId(v)].field(name).map(|f| &f.value) {
            Some(FieldValue::EdgeList(l)) if l.len() == size => l.clone(),
            _ => vec![ir::View { shape: vec![0], pieces: Default::default() }; size],
        };
        entries[index] = t.view.flatten();
        self.builder.set_interned_field(VertexId(v), f.name, FieldValue::EdgeList(entries))?;
        Ok(())
    }

    /// `Execute(cs)`: a compute set's vertices, or the operation it stands for.
    pub fn execute(&self, cs: u32) -> Result<Program> {
        if let Some(op) = self.op_sets.get(&cs) {
            return Ok(Program { body: vec![op.clone()] });
        }
        if cs as usize >= self.builder.graph().compute_sets.len() {
            return Err(ApiError::new(Status::IndexError, format!("compute set {cs} does not exist")));
        }
        Ok(Program { body: vec![Stmt::Execute(ComputeSetId(cs))] })
    }

    pub fn stream(&self, id: u32) -> Result<&ir::Stream> {
        self.builder
            .graph()
            .streams
            .get(ir::StreamId(id))
            .ok_or_else(|| ApiError::new(Status::IndexError, format!("stream {id} does not exist")))
    }

    pub fn remote_buffer(&self, id: u32, repeat: u64) -> Result<&ir::RemoteBuffer> {
        let b =
            self.builder.graph().remote_buffers.get(ir::RemoteBufferId(id)).ok_or_else(|| {
                ApiError::new(Status::IndexError, format!("remote buffer {id} does not exist"))
            })?;
        if repeat >= b.repeats {
            return Err(ApiError::new(
                Status::IndexError,
                format!(
                    "repeat {repeat} of remote buffer '{}' is out of range (it has {})",
                    b.name, b.repeats
                ),
            ));
        }
        Ok(b)
    }

    /// A new tensor's handle.
    pub fn tensor(&self, id: ir::TensorId) -> Tensor {
        let t = &self.builder.graph().tensors[id];
        Tensor { view: ir::View::whole(id, &t.shape), elem: t.elem }
    }
}

/// The host API's operations with Rust arguments: the C ABI below and the
/// Python package call these through [`Graph`].
impl Core {
    /// `addVariable` / `addConstant`: a new tensor.
    pub fn add_tensor(
        &mut self,
        name: &str,
        kind: TensorKind,
        elem: ElemType,
        shape: &[u64],
        init: Option<ir::Init>,
    ) -> Result<Tensor> {
        let id = self.builder.add_tensor(name, kind, elem, shape, init)?;
        Ok(self.tensor(id))
    }

    /// `addVertex(cs, type)`: checks the type against the codelets.
    pub fn add_vertex(&mut self, cs: u32, vertex_type: &str) -> Result<u32> {
        let (canonical, fields) = match &self.last_vertex_name {
            Some((name, known)) if **name == *vertex_type => known.clone(),
            _ => {
                let known = self.vertex_name(vertex_type)?;
                self.last_vertex_name = Some((vertex_type.into(), known.clone()));
                known
            }
        };
        Ok(self.builder.add_interned_vertex(ComputeSetId(cs), canonical, fields)?.0)
    }

    /// The canonical spelling of vertex type `vertex_type` and its number
    /// of fields, found in the codelets the first time it is asked for.
    fn vertex_name(&mut self, vertex_type: &str) -> Result<(ir::Name, usize)> {
        if let Some(known) = self.vertex_names.get(vertex_type) {
            return Ok(known.clone());
        }
        let canonical =
            vocab::VertexName::parse(vertex_type).map_or_else(|_| vertex_type.into(), |n| n.to_string());
        let fields = self.vertex_type(&canonical)?.fields.len();
        let canonical = self.builder.intern(&canonical);
        self.vertex_names.insert(vertex_type.into(), (canonical.clone(), fields));
        Ok((canonical, fields))
    }

    /// `setInitialValue` / a plain member's value: one host value.
    pub fn connect_value(&mut self, vertex: u32, name: &str, v: Value) -> Result<()> {
        let f = self.field(vertex, name)?;
        if f.direction.is_none() {
            self.builder.set_interned_field(VertexId(vertex), f.name, FieldValue::Literal(literal(v)))?;
            return Ok(());
        }
        // An edge given a value reads an implicit constant on the vertex's tile.
        let bytes = encode_values(&[v], f.elem)?;
        let t = self.add_tensor(
            &format!("{name}-value"),
            TensorKind::Const,
            f.elem,
            &[],
            Some(ir::Init::Splat(bytes)),
        )?;
        let tile = self.builder.graph().vertices[VertexId(vertex)].tile.unwrap_or(0);
        self.builder.map(&t.view, ir::Mapping::Tile(tile))?;
        self.connect(vertex, name, &[&t], false)
    }

    /// `setFieldSize`: the size of a list field.
    pub fn set_field_size(&mut self, vertex: u32, name: &str, size: usize) -> Result<()> {
        let f = self.field(vertex, name)?;
        if !matches!(f.kind, gp::FieldKind::VectorList(_) | gp::FieldKind::ScalarList(_)) {
            return Err(field_err(format!(
                "field '{name}' of vertex {vertex} is not a list: it has no size to set"
            )));
        }
        self.field_sizes.insert((vertex, name.to_string()), size);
        Ok(())
    }

    /// `addHostToDeviceFIFO` / `addDeviceToHostFIFO`: a stream of
    /// `num_elements` per transfer.
    pub fn add_stream(
        &mut self,
        name: &str,
        elem: ElemType,
        num_elements: u64,
        dir: HostDirection,
    ) -> Result<u32> {
        let bytes = num_elements.saturating_mul(u64::from(elem.size()));
        if bytes > linker::valid::HOST_MEMORY_LIMIT {
            return Err(ApiError::new(
                Status::StreamMemoryAllocationError,
                format!(
                    "stream '{name}': a transfer of {bytes} bytes is more than the host memory a stream may use ({} bytes)",
                    linker::valid::HOST_MEMORY_LIMIT
                ),
            ));
        }
        Ok(self.builder.add_stream(name, elem, &[num_elements], dir)?.0)
    }

    /// `addRemoteBuffer(name, type, num_elements, repeats)`: `repeats`
    /// slots of `num_elements` each, held by the host.
    pub fn add_remote_buffer(
        &mut self,
        name: &str,
        elem: ElemType,
        num_elements: u64,
        repeats: u64,
    ) -> Result<u32> {
        Ok(self.builder.add_remote_buffer(name, elem, &[num_elements], repeats)?.0)
    }

    /// `addHostToDeviceFIFO(..., ReplicatedStreamMode::BROADCAST)`: stream
    /// `id` sends every replica the same data, from one host end.
    pub fn set_stream_broadcast(&mut self, id: u32) -> Result<()> {
        let s = self.stream(id)?;
        if s.direction != HostDirection::ToDevice {
            return Err(ApiError::new(
                Status::StreamConnectionError,
                format!(
                    "stream '{}' goes to the host: only a host-to-device stream can be broadcast",
                    s.name
                ),
            ));
        }
        let name = s.name.clone();
        if !self.broadcast.contains(&name) {
            self.broadcast.push(name);
        }
        Ok(())
    }
}

/// `name[i]` as (name, i).
fn list_entry(field: &str) -> Option<(&str, usize)> {
    // A plain name, nearly always: one byte read.
    if !field.ends_with(']') {
        return None;
    }
    let (name, rest) = field.split_once('[')?;
    let index = rest.strip_suffix(']')?.parse().ok()?;
    Some((name, index))
}

/// One host value of `host_type` as a literal field value.
fn literal(v: Value) -> Literal {
    match v {
        Value::Int(i) => Literal::Int(i as i64),
        Value::Float(f) => Literal::Float(f),
        Value::Bool(b) => Literal::Bool(b),
    }
}
