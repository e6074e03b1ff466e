//! The graph data model: what a checked `.pir` file means.
//!
//! A [`Graph`] holds the dataflow part (tensors, their tile mapping
//! statements, vertices and their edges, compute sets) apart from the control
//! part (programs and functions, sequences of [`Stmt`]). Every entity lives in
//! a typed arena indexed by a `u32` id; names are unique per kind of item.
//! Source positions are not stored here but in [`crate::Spans`], beside the
//! graph, so two graphs compare equal when they mean the same thing.
//!
//! The graph is produced by [`crate::parse_and_check`] and is already
//! verified: every id is valid, views are in range, element counts of copies
//! agree, predicates are scalar, mapping tiles exist and calls are acyclic.
//! Vertex fields are *not* checked against codelets (the compiler does that).

use std::collections::HashMap;
use std::sync::Arc;

use crate::entity::{entity_id, PrimaryMap};
use crate::target::Target;
use crate::types::ElemType;
use crate::view::View;

/// A shared, immutable name (vertex type names and field names repeat a lot).
pub type Name = Arc<str>;

/// How many recently interned names [`Interner::intern`] checks before
/// hashing.
const RECENT_NAMES: usize = 8;

/// One [`Name`] per distinct text: the vertex type and field names of a
/// graph share their allocations, however many vertices repeat them. The
/// PIR lowering and the host API's builder both intern through one.
#[derive(Clone, Debug, Default)]
pub struct Interner {
    names: HashMap<Box<str>, Name>,
    /// A few recently interned names, checked before `names`.
    recent: Vec<Name>,
}

impl Interner {
    /// The shared name spelled `s`.
    pub fn intern(&mut self, s: &str) -> Name {
        // Vertex type and field names repeat: look at the recently used ones
        // before hashing.
        if let Some(n) = self.recent.iter().find(|n| &***n == s) {
            return n.clone();
        }
        let n = match self.names.get(s) {
            Some(n) => n.clone(),
            None => {
                let n: Name = Arc::from(s);
                self.names.insert(s.into(), n.clone());
                n
            }
        };
        if self.recent.len() >= RECENT_NAMES {
            self.recent.remove(0);
        }
        self.recent.push(n.clone());
        n
    }
}

entity_id!(
    /// A tensor (`var` or `const`), printed `t0`, `t1`, …
    TensorId,
    "t"
);
entity_id!(
    /// A vertex instance, printed `v0`, …
    VertexId,
    "v"
);
entity_id!(
    /// A compute set, printed `cs0`, …
    ComputeSetId,
    "cs"
);
entity_id!(
    /// An entry program (numbered in file order, as `poplar-run --run N`).
    ProgramId,
    "prog"
);
entity_id!(
    /// A sub-program run with `call`.
    FunctionId,
    "fn"
);
entity_id!(
    /// A `codelets` item.
    CodeletId,
    "codelets"
);
entity_id!(
    /// A host read or write handle.
    HostHandleId,
    "handle"
);
entity_id!(
    /// A host FIFO stream.
    StreamId,
    "stream"
);
entity_id!(
    /// A remote buffer.
    RemoteBufferId,
    "rb"
);
entity_id!(
    /// A `copy` statement, numbered once the graph is built: 0, 1, … in
    /// the pre-order of [`walk_stmts`] over the programs, then the
    /// functions ([`Graph::number_copies`]). Passes key what they plan for
    /// a copy by it.
    CopyStmtId,
    "copy"
);

/// A whole checked PIR file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Graph {
    /// The machine (`target mk2` when the file has no `target` item).
    pub target: Target,
    /// Codelet files, in file order.
    pub codelets: PrimaryMap<CodeletId, CodeletRef>,
    /// Tensors, in file order of their declarations (after `for` expansion).
    pub tensors: PrimaryMap<TensorId, Tensor>,
    /// Mapping statements in file order; later ones override earlier ones.
    /// A `@ mapping` on a declaration is a statement right after it.
    pub mappings: Vec<MapStmt>,
    /// `host_write` / `host_read` handles.
    pub host_handles: PrimaryMap<HostHandleId, HostHandle>,
    /// Host streams.
    pub streams: PrimaryMap<StreamId, Stream>,
    /// Remote buffers.
    pub remote_buffers: PrimaryMap<RemoteBufferId, RemoteBuffer>,
    /// Every vertex of every compute set, grouped by compute set in file order.
    pub vertices: PrimaryMap<VertexId, Vertex>,
    /// Compute sets.
    pub compute_sets: PrimaryMap<ComputeSetId, ComputeSet>,
    /// Functions (sub-programs for `call`).
    pub functions: PrimaryMap<FunctionId, Program>,
    /// Entry programs, numbered in file order.
    pub programs: PrimaryMap<ProgramId, Program>,
}

/// `codelets "path" ["opt", …]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeletRef {
    /// The path as written, relative to the `.pir` file.
    pub path: String,
    /// Options for `popc` (source codelets only).
    pub options: Vec<String>,
}

/// Whether a tensor is writable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorKind {
    Var,
    Const,
}

/// A tensor declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub name: String,
    pub kind: TensorKind,
    pub elem: ElemType,
    /// Dimensions, outermost first; empty for a scalar.
    pub shape: Vec<u64>,
    /// The initial value, if any.
    pub init: Option<Init>,
}

impl Tensor {
    /// Number of elements (product of the shape; 1 for a scalar).
    pub fn num_elements(&self) -> u64 {
        self.shape.iter().product()
    }
}

/// An initial value, stored as little-endian bytes of the element type
/// (`half` already rounded to nearest even, `bool` as 0/1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// One element's bytes, repeated over the whole tensor.
    Splat(Vec<u8>),
    /// Every element's bytes, row-major.
    Values(Vec<u8>),
    /// Each replica's own index in every element (Poplar's
    /// `addReplicationIndexConstant`): known only when the image is loaded.
    ReplicationIndex,
}

impl Init {
    /// The bytes of element `i` of a tensor of element size `size`.
    pub fn element_bytes(&self, i: u64, size: u32) -> Option<&[u8]> {
        let size = size as usize;
        match self {
            Init::Splat(b) => Some(b),
            Init::ReplicationIndex => None,
            Init::Values(b) => {
                let start = usize::try_from(i).ok()?.checked_mul(size)?;
                b.get(start..start.checked_add(size)?)
            }
        }
    }

    /// The whole tensor's initial bytes (`n` elements of `size` bytes).
    pub fn to_bytes(&self, n: u64, size: u32) -> Vec<u8> {
        match self {
            Init::Values(b) => b.clone(),
            Init::ReplicationIndex => vec![0; (n as usize).saturating_mul(size as usize)],
            Init::Splat(b) => {
                let total = (n as usize).saturating_mul(size as usize);
                let mut out = Vec::with_capacity(total);
                while out.len() < total {
                    out.extend_from_slice(b);
                }
                out
            }
        }
    }
}

/// A region's tile mapping: `map VIEW -> MAPPING`.
#[derive(Clone, Debug, PartialEq)]
pub struct MapStmt {
    pub view: View,
    pub mapping: Mapping,
}

/// Where a mapped region's elements live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// `tile N`: all on one tile.
    Tile(u32),
    /// `tiles A..B`: linear over tiles `A..B` (half-open, non-empty).
    Tiles(u32, u32),
    /// `linear` / `linear(grain = G)`: linear over all tiles, in regions of
    /// at least `grain` elements (1 when not given).
    Linear { grain: u64 },
}

/// Direction of a host transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostDirection {
    /// Host to device (`host_write`, `stream … from host`).
    ToDevice,
    /// Device to host (`host_read`, `stream … to host`).
    ToHost,
}

/// `host_write "name" -> VIEW` or `host_read "name" <- VIEW`: a whole
/// tensor or any view of one or several (a written view names each element
/// once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostHandle {
    pub name: String,
    pub view: View,
    pub elem: ElemType,
    pub direction: HostDirection,
}

/// `stream "name": T[shape] from host | to host`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    pub name: String,
    pub elem: ElemType,
    pub shape: Vec<u64>,
    pub direction: HostDirection,
}

impl Stream {
    /// Elements per transfer.
    pub fn num_elements(&self) -> u64 {
        self.shape.iter().product()
    }
}

/// `remote_buffer "name": T[shape] x repeats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteBuffer {
    pub name: String,
    pub elem: ElemType,
    pub shape: Vec<u64>,
    pub repeats: u64,
}

impl RemoteBuffer {
    /// Elements of one repeat.
    pub fn num_elements(&self) -> u64 {
        self.shape.iter().product()
    }
}

/// A vertex instance in a compute set.
///
/// `vtype` is the canonical Poplar spelling of the vertex type: the path
/// joined by `::`, template arguments after `<` separated by `,` with no
/// spaces, element types in their C++ spelling (which may contain a space:
/// `unsigned int`, `long long`), booleans `true`/`false`, integers in decimal.
/// Example: `popops::ScaledAdd<float,true>`, `Sum<unsigned int,4>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Vertex {
    pub vtype: Name,
    /// The compute set it belongs to.
    pub compute_set: ComputeSetId,
    /// `@ tile N`, or `None` for the compiler to place it.
    pub tile: Option<u32>,
    /// Fields in source order (spans: [`crate::Spans::field`]).
    pub fields: Vec<Field>,
    /// `cycles N`: an estimate overriding the simulator's count.
    pub cycles: Option<u64>,
}

impl Vertex {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| &*f.name == name)
    }
}

/// `name = value` in a vertex.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: Name,
    pub value: FieldValue,
}

/// What a vertex field is connected to.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    /// A tensor expression (an edge).
    Edge(View),
    /// `[t0, t1, …]`: a vector-list edge.
    EdgeList(Vec<View>),
    /// A plain value.
    Literal(Literal),
}

/// A literal constant in a vertex field or target key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl From<Literal> for vocab::Value {
    fn from(l: Literal) -> vocab::Value {
        match l {
            Literal::Int(i) => vocab::Value::Int(i.into()),
            Literal::Float(f) => vocab::Value::Float(f),
            Literal::Bool(b) => vocab::Value::Bool(b),
        }
    }
}

/// `compute_set name { vertex … }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComputeSet {
    pub name: String,
    /// Its vertices, in source order.
    pub vertices: Vec<VertexId>,
}

/// A `program` or `function`: a named statement sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub name: String,
    pub body: Vec<Stmt>,
}

/// One end of a `copy`.
#[derive(Clone, Debug, PartialEq)]
pub enum CopyEnd {
    Tensor(View),
    Stream(StreamId),
    /// `"rb"[i]`: one repeat of a remote buffer.
    Remote(RemoteBufferId, u64),
}

/// A control program statement. `for` loops are already unrolled.
///
/// Statement spans live in [`crate::Spans::stmts`], in pre-order per
/// program/function (a statement before its nested bodies; `While`: `cond`
/// then `body`; `If`: `then` then `else`; `Switch`: cases then default).
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Copy {
        src: CopyEnd,
        dst: CopyEnd,
        id: CopyStmtId,
    },
    Execute(ComputeSetId),
    Print {
        label: String,
        view: View,
        style: vocab::PrintStyle,
    },
    Repeat {
        count: u64,
        body: Vec<Stmt>,
    },
    /// Run `cond`, then loop `body` (and `cond` again) while `pred` (one
    /// element) is non-zero, or, with `until`, while it is zero (Poplar's
    /// `RepeatWhileTrue` and `RepeatWhileFalse`).
    While {
        cond: Vec<Stmt>,
        pred: View,
        until: bool,
        body: Vec<Stmt>,
    },
    If {
        pred: View,
        then: Vec<Stmt>,
        else_: Vec<Stmt>,
    },
    Switch {
        selector: View,
        cases: Vec<(i64, Vec<Stmt>)>,
        default: Vec<Stmt>,
    },
    Undef(View),
    Sync,
    Call(FunctionId),
    Block(Vec<Stmt>),
    /// `block "name" { … }` (`program::Block` of the host API): a body the
    /// lightweight profiler may record as a block of cycles under `name`.
    Named {
        name: String,
        body: Vec<Stmt>,
    },
    /// A library operation (`v3 = v1 + v2`, `reduce`, `matmul`, `fill`),
    /// expanded into compute sets by the compiler.
    Op(Box<crate::ops::Op>),
    /// A cross-replica collective, an [`crate::ops::Op`] of kind
    /// [`crate::OpKind::Collective`] once the compiler's operation
    /// expansion has mapped its output: the runtime performs it.
    Collective(Box<crate::ops::Op>),
}

impl Stmt {
    /// The nested statement bodies, in pre-order.
    pub fn bodies(&self) -> Vec<&[Stmt]> {
        match self {
            Stmt::Repeat { body, .. } | Stmt::Block(body) | Stmt::Named { body, .. } => vec![body],
            Stmt::While { cond, body, .. } => vec![cond, body],
            Stmt::If { then, else_, .. } => vec![then, else_],
            Stmt::Switch { cases, default, .. } => {
                let mut v: Vec<&[Stmt]> = cases.iter().map(|(_, b)| b.as_slice()).collect();
                v.push(default);
                v
            }
            _ => Vec::new(),
        }
    }

    /// [`Stmt::bodies`], to change them.
    pub fn bodies_mut(&mut self) -> Vec<&mut [Stmt]> {
        match self {
            Stmt::Repeat { body, .. } | Stmt::Block(body) | Stmt::Named { body, .. } => vec![body],
            Stmt::While { cond, body, .. } => vec![cond, body],
            Stmt::If { then, else_, .. } => vec![then, else_],
            Stmt::Switch { cases, default, .. } => {
                let mut v: Vec<&mut [Stmt]> = cases.iter_mut().map(|(_, b)| b.as_mut_slice()).collect();
                v.push(default);
                v
            }
            _ => Vec::new(),
        }
    }
}

/// Calls `f` on every statement of `body`, in the pre-order that numbers
/// statement spans.
pub fn walk_stmts<'a>(body: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in body {
        f(s);
        for b in s.bodies() {
            walk_stmts(b, f);
        }
    }
}

impl Graph {
    /// Numbers the `copy` statements ([`CopyStmtId`]); returns how many
    /// there are. The lowering calls it once the bodies are built, so the
    /// numbers depend on the graph only, not on the order of the source.
    pub fn number_copies(&mut self) -> u32 {
        fn number(body: &mut [Stmt], next: &mut u32) {
            for s in body {
                if let Stmt::Copy { id, .. } = s {
                    *id = CopyStmtId(*next);
                    *next += 1;
                }
                for b in s.bodies_mut() {
                    number(b, next);
                }
            }
        }
        let mut next = 0;
        let bodies = self.programs.values_mut().chain(self.functions.values_mut());
        for p in bodies {
            number(&mut p.body, &mut next);
        }
        next
    }

    /// The tensor called `name`.
    pub fn tensor_by_name(&self, name: &str) -> Option<TensorId> {
        self.tensors.iter().find(|(_, t)| t.name == name).map(|(k, _)| k)
    }
    /// The compute set called `name`.
    pub fn compute_set_by_name(&self, name: &str) -> Option<ComputeSetId> {
        self.compute_sets.iter().find(|(_, c)| c.name == name).map(|(k, _)| k)
    }
    /// The program called `name`.
    pub fn program_by_name(&self, name: &str) -> Option<ProgramId> {
        self.programs.iter().find(|(_, p)| p.name == name).map(|(k, _)| k)
    }
    /// The function called `name`.
    pub fn function_by_name(&self, name: &str) -> Option<FunctionId> {
        self.functions.iter().find(|(_, p)| p.name == name).map(|(k, _)| k)
    }
    /// The stream called `name`.
    pub fn stream_by_name(&self, name: &str) -> Option<StreamId> {
        self.streams.iter().find(|(_, s)| s.name == name).map(|(k, _)| k)
    }
    /// The host handle called `name`.
    pub fn host_handle_by_name(&self, name: &str) -> Option<HostHandleId> {
        self.host_handles.iter().find(|(_, s)| s.name == name).map(|(k, _)| k)
    }
    /// The remote buffer called `name`.
    pub fn remote_buffer_by_name(&self, name: &str) -> Option<RemoteBufferId> {
        self.remote_buffers.iter().find(|(_, s)| s.name == name).map(|(k, _)| k)
    }
    /// The vertices of a compute set, in order, with their ids.
    pub fn compute_set_vertices(&self, cs: ComputeSetId) -> impl Iterator<Item = (VertexId, &Vertex)> + '_ {
        self.compute_sets[cs].vertices.iter().map(move |&v| (v, &self.vertices[v]))
    }
    /// Total tiles of the target.
    pub fn total_tiles(&self) -> u32 {
        self.target.total_tiles()
    }
}
