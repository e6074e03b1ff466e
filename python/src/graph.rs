//! Graphs: variables and constants, tile mappings, codelets, compute sets
//! and vertices, host handles and streams, and the operations library,
//! each the C++ API's operation under its PEP 8 name (docs/python.md maps
//! them).

use std::collections::HashMap;

use ir::{HostDirection, TensorKind};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use vocab::{ElemType, Value};

use crate::device::{Device, Target};
use crate::dtype::elem_of;
use crate::errors::OrRaise;
use crate::program::Program;
use crate::tensor::Tensor;

#[pyclass(module = "poplar")]
pub struct Graph {
    pub g: capi::graph::Graph,
}

/// A compute set: the vertices that run in one compute phase.
#[pyclass(module = "poplar", frozen)]
pub struct ComputeSet {
    pub graph: Py<Graph>,
    #[pyo3(get)]
    pub id: u32,
    #[pyo3(get)]
    pub name: String,
}

/// A host stream (a FIFO of `num_elements` per transfer).
#[pyclass(module = "poplar", frozen)]
pub struct DataStream {
    pub graph: Py<Graph>,
    pub id: u32,
    #[pyo3(get)]
    pub name: String,
}

/// A remote buffer: `repeats` slots of `num_elements`, held by the host
/// and copied to and from tensors by `Copy`.
#[pyclass(module = "poplar", frozen)]
pub struct RemoteBuffer {
    pub graph: Py<Graph>,
    pub id: u32,
    #[pyo3(get)]
    pub name: String,
    #[pyo3(get)]
    pub num_elements: u64,
    #[pyo3(get)]
    pub repeats: u64,
}

/// A function of the graph (`Graph::addFunction`), run by `Call`.
#[pyclass(module = "poplar", frozen)]
pub struct Function {
    pub id: u32,
}

/// A vertex field's value: a tensor, a list of tensors, or a number.
enum FieldArg {
    Tensor(capi::tensor::Tensor),
    List(Vec<capi::tensor::Tensor>),
    Value(Value),
}

fn field_arg(x: &Bound<'_, PyAny>) -> PyResult<FieldArg> {
    if let Ok(t) = x.cast::<Tensor>() {
        return Ok(FieldArg::Tensor(t.get().t.clone()));
    }
    if let Ok(l) = x.cast::<PyList>() {
        let ts = l
            .iter()
            .map(|i| i.cast::<Tensor>().map(|t| t.get().t.clone()).map_err(PyErr::from))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(FieldArg::List(ts));
    }
    value(x).map(FieldArg::Value)
}

/// A Python number as a host value.
fn value(x: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(b) = x.extract::<bool>() {
        return Ok(Value::Bool(b));
    }
    if let Ok(i) = x.extract::<i64>() {
        return Ok(Value::Int(i128::from(i)));
    }
    if let Ok(f) = x.extract::<f64>() {
        return Ok(Value::Float(f));
    }
    Err(PyTypeError::new_err("a vertex field takes a Tensor, a list of Tensors or a number"))
}

/// A reduction's operation by name, as `popops::Operation`'s codes.
fn reduce_code(op: &str) -> PyResult<i32> {
    Ok(match op {
        "add" | "sum" => 0,
        "mul" | "prod" => 1,
        "min" => 2,
        "max" => 3,
        "and" | "logical_and" => 4,
        "or" | "logical_or" => 5,
        "square_add" => 6,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown reduction '{other}' (add, mul, min, max, and, or, square_add)"
            )))
        }
    })
}

/// A non-linearity by name, as `popnn::NonLinearityType`'s codes.
fn nonlinearity_code(kind: &str) -> PyResult<i32> {
    Ok(match kind {
        "relu" => 0,
        "sigmoid" => 1,
        "tanh" => 2,
        "softmax" => 3,
        "softmax_stable" => 4,
        "gelu" => 5,
        "gelu_erf" => 6,
        other => {
            return Err(PyValueError::new_err(format!(
            "unknown non-linearity '{other}' (relu, sigmoid, tanh, softmax, softmax_stable, gelu, gelu_erf)"
        )))
        }
    })
}

/// Flat numbers of a constant's values: a number, a sequence or an array.
fn values(py: Python<'_>, x: &Bound<'_, PyAny>, elem: ElemType) -> PyResult<Vec<Value>> {
    if let Ok(v) = value(x) {
        return Ok(vec![v]);
    }
    let np = py.import("numpy")?;
    let flat = np.getattr("asarray")?.call1((x,))?.call_method0("ravel")?.call_method0("tolist")?;
    let items: Vec<Bound<'_, PyAny>> = flat.extract()?;
    items.iter().map(|i| value(i)).collect::<PyResult<Vec<_>>>().map_err(|_| {
        PyTypeError::new_err(format!("the values of a {} constant must be numbers", elem.cpp_name()))
    })
}

/// `poprand`'s errors: bad parameters are `ValueError`s.
fn random_err(e: capi::status::ApiError) -> PyErr {
    match e.status {
        capi::status::Status::PoplarError => PyValueError::new_err(e.message),
        _ => crate::errors::to_py(e),
    }
}

impl Graph {
    /// A `poprand` operation of type `dtype`.
    #[allow(clippy::too_many_arguments)]
    fn random(
        slf: &Bound<'_, Graph>,
        dist: ir::RandomDist,
        dtype: Option<&Bound<'_, PyAny>>,
        reference: &Tensor,
        prog: &mut Program,
        seed: Option<&Tensor>,
        modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let elem = match dtype {
            Some(d) => elem_of(d)?,
            None => reference.t.elem,
        };
        Graph::random_elem(slf, dist, elem, reference, prog, seed, modifier, name)
    }

    #[allow(clippy::too_many_arguments)]
    fn random_elem(
        slf: &Bound<'_, Graph>,
        dist: ir::RandomDist,
        elem: ElemType,
        reference: &Tensor,
        prog: &mut Program,
        seed: Option<&Tensor>,
        modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let r = slf
            .borrow_mut()
            .g
            .random(&mut prog.p, dist, elem, seed.map(|s| &s.t), modifier, &reference.t, name)
            .map_err(random_err)?;
        Ok(Graph::tensor(slf, r))
    }

    fn tensor(slf: &Bound<'_, Graph>, t: capi::tensor::Tensor) -> Tensor {
        Tensor { t, graph: slf.clone().unbind() }
    }
}

impl Graph {
    /// One collective of `t`, by the Python names of its operator and group.
    #[allow(clippy::too_many_arguments)]
    fn collective(
        slf: &Bound<'_, Graph>,
        kind: vocab::CollectiveKind,
        t: &Tensor,
        prog: &mut Program,
        op: Option<&str>,
        group: &str,
        group_size: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let op = match op {
            None => None,
            Some(o) => Some(vocab::CollectiveOp::from_name(o).ok_or_else(|| {
                let names: Vec<&str> = vocab::CollectiveOp::ALL.iter().map(|(_, n)| *n).collect();
                PyValueError::new_err(format!("unknown collective operator '{o}' ({})", names.join(", ")))
            })?),
        };
        let group = match group {
            "all" => vocab::CommGroup::All,
            "consecutive" => vocab::CommGroup::Consecutive(group_size),
            "orthogonal" => vocab::CommGroup::Orthogonal(group_size),
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown group '{other}' (all, consecutive, orthogonal)"
                )))
            }
        };
        let r = slf.borrow_mut().g.collective(&mut prog.p, kind, op, group, &t.t, name).or_raise()?;
        Ok(Graph::tensor(slf, r))
    }
}

#[pymethods]
impl Graph {
    /// `Graph(target, replication_factor)`: for a `Target` or a `Device`'s
    /// target; with a replication factor r, the target's IPUs are split
    /// into r replicas and the graph (and its `target`) is one replica's.
    #[new]
    #[pyo3(signature = (target, replication_factor = 1))]
    fn new(target: &Bound<'_, PyAny>, replication_factor: u32) -> PyResult<Graph> {
        let t = if let Ok(d) = target.cast::<Device>() {
            Target { desc: d.borrow().inner.desc }
        } else {
            target
                .extract::<Target>()
                .map_err(|_| PyTypeError::new_err("Graph(target): a Target or a Device"))?
        };
        Ok(Graph { g: capi::graph::Graph::replicated(t.target()?, replication_factor).or_raise()? })
    }

    /// `getReplicationFactor()`.
    #[getter]
    fn replication_factor(&self) -> u32 {
        self.g.replication()
    }

    /// `createVirtualGraph`: `create_virtual_graph(lower, upper)` sees
    /// tiles `lower` to `upper - 1` of this graph, `create_virtual_graph(n)`
    /// the first `n` tiles of each IPU, `create_virtual_graph([t, ...])`
    /// those tiles of each IPU. The new graph shares this one's tensors,
    /// compute sets and codelets, numbers its tiles from 0, and places the
    /// operations called with it on its tiles only.
    #[pyo3(signature = (lower_or_tiles, upper = None))]
    fn create_virtual_graph(&self, lower_or_tiles: &Bound<'_, PyAny>, upper: Option<u32>) -> PyResult<Graph> {
        let g = match upper {
            Some(upper) => self.g.virtual_range(lower_or_tiles.extract::<u32>()?, upper),
            None => match lower_or_tiles.extract::<u32>() {
                Ok(n) => self.g.virtual_per_ipu_count(n),
                Err(_) => {
                    let tiles: Vec<u32> = lower_or_tiles.extract().map_err(|_| {
                        PyTypeError::new_err(
                            "create_virtual_graph: (lower, upper), a number of tiles per IPU, or a list of tiles",
                        )
                    })?;
                    self.g.virtual_per_ipu(&tiles)
                }
            },
        };
        Ok(Graph { g: g.or_raise()? })
    }

    /// `createReplicatedGraph(r)`: this graph, while it holds nothing but
    /// codelets, split into `r` replicas; the result is one replica's.
    fn create_replicated_graph(&self, replication_factor: u32) -> PyResult<Graph> {
        Ok(Graph { g: self.g.replicated_graph(replication_factor).or_raise()? })
    }

    /// `addReplicationIndexConstant(name)`: a scalar uint32 holding each
    /// replica's own index.
    #[pyo3(signature = (name = ""))]
    fn add_replication_index_constant(slf: &Bound<'_, Graph>, name: &str) -> PyResult<Tensor> {
        let t = slf.borrow_mut().g.add_replication_index(name).or_raise()?;
        Ok(Graph::tensor(slf, t))
    }

    /// `gcl::allReduceCrossReplica(t, op)`, appended to `prog`: `op` is
    /// `"add"`, `"mean"`, `"mul"`, `"min"`, `"max"`, `"and"`, `"or"` or
    /// `"square_add"`; `group` is `"all"`, `"consecutive"` or
    /// `"orthogonal"` with `group_size` replicas.
    #[pyo3(signature = (t, prog, op = "add", group = "all", group_size = 0, name = "allReduce"))]
    fn all_reduce(
        slf: &Bound<'_, Graph>,
        t: &Tensor,
        prog: &mut Program,
        op: &str,
        group: &str,
        group_size: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        Graph::collective(slf, vocab::CollectiveKind::AllReduce, t, prog, Some(op), group, group_size, name)
    }

    /// `gcl::reduceScatterCrossReplica(t, op)`: member i of each group
    /// gets part i of the reduction of the flattened `t`.
    #[pyo3(signature = (t, prog, op = "add", group = "all", group_size = 0, name = "reduceScatter"))]
    fn reduce_scatter(
        slf: &Bound<'_, Graph>,
        t: &Tensor,
        prog: &mut Program,
        op: &str,
        group: &str,
        group_size: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        Graph::collective(
            slf,
            vocab::CollectiveKind::ReduceScatter,
            t,
            prog,
            Some(op),
            group,
            group_size,
            name,
        )
    }

    /// `gcl::allGatherCrossReplica(t)`: all members' `t`, stacked.
    #[pyo3(signature = (t, prog, group = "all", group_size = 0, name = "allGather"))]
    fn all_gather(
        slf: &Bound<'_, Graph>,
        t: &Tensor,
        prog: &mut Program,
        group: &str,
        group_size: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        Graph::collective(slf, vocab::CollectiveKind::AllGather, t, prog, None, group, group_size, name)
    }

    /// `gcl::allToAllCrossReplica(t)`: slice j of member i's `t` becomes
    /// slice i of member j's.
    #[pyo3(signature = (t, prog, group = "all", group_size = 0, name = "allToAll"))]
    fn all_to_all(
        slf: &Bound<'_, Graph>,
        t: &Tensor,
        prog: &mut Program,
        group: &str,
        group_size: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        Graph::collective(slf, vocab::CollectiveKind::AllToAll, t, prog, None, group, group_size, name)
    }

    /// `gcl::broadcastCrossReplica(t, root)`: every member gets the `t` of
    /// group member `root`.
    #[pyo3(signature = (t, prog, root = 0, group = "all", group_size = 0, name = "broadcast"))]
    #[allow(clippy::too_many_arguments)]
    fn replica_broadcast(
        slf: &Bound<'_, Graph>,
        t: &Tensor,
        prog: &mut Program,
        root: u32,
        group: &str,
        group_size: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let kind = vocab::CollectiveKind::Broadcast { root };
        Graph::collective(slf, kind, t, prog, None, group, group_size, name)
    }

    #[getter]
    fn target(&self) -> Target {
        let t = self.g.target();
        let kind = if t.preset == ir::Preset::Cpu {
            capi::target::TARGET_CPU
        } else {
            capi::target::TARGET_IPU_MODEL
        };
        Target { desc: capi::target::TargetDesc::from_target(t, kind) }
    }

    /// `addVariable(dtype, shape, name)`.
    #[pyo3(signature = (dtype, shape, name = ""))]
    fn add_variable(
        slf: &Bound<'_, Graph>,
        dtype: &Bound<'_, PyAny>,
        shape: Vec<u64>,
        name: &str,
    ) -> PyResult<Tensor> {
        let elem = elem_of(dtype)?;
        let t = slf.borrow_mut().g.add_tensor(name, TensorKind::Var, elem, &shape, None).or_raise()?;
        Ok(Graph::tensor(slf, t))
    }

    /// `addConstant(dtype, shape, values, name)`: one value fills it, else
    /// one per element (a sequence or a numpy array).
    #[pyo3(signature = (dtype, shape, values, name = ""))]
    fn add_constant(
        slf: &Bound<'_, Graph>,
        dtype: &Bound<'_, PyAny>,
        shape: Vec<u64>,
        values: &Bound<'_, PyAny>,
        name: &str,
    ) -> PyResult<Tensor> {
        let elem = elem_of(dtype)?;
        let vals = self::values(slf.py(), values, elem)?;
        let bytes = capi::target::encode_values(&vals, elem).or_raise()?;
        let count: u64 = shape.iter().product();
        let init = if vals.len() == 1 {
            ir::Init::Splat(bytes)
        } else if vals.len() as u64 == count {
            ir::Init::Values(bytes)
        } else {
            return Err(PyValueError::new_err(format!(
                "add_constant('{name}'): {} values for a tensor of {count} elements",
                vals.len()
            )));
        };
        let t =
            slf.borrow_mut().g.add_tensor(name, TensorKind::Const, elem, &shape, Some(init)).or_raise()?;
        Ok(Graph::tensor(slf, t))
    }

    /// `setInitialValue(t, values)`.
    fn set_initial_value(&mut self, py: Python<'_>, t: &Tensor, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let vals = self::values(py, values, t.t.elem)?;
        let n = t.t.view.num_elements();
        if vals.len() != 1 && vals.len() as u64 != n {
            return Err(PyValueError::new_err(format!(
                "set_initial_value: {} values for a tensor of {n} elements",
                vals.len()
            )));
        }
        let bytes = capi::target::encode_values(&vals, t.t.elem).or_raise()?;
        self.g.core().or_raise()?.builder.set_initial_value(&t.t.view, &bytes).or_raise()?;
        Ok(())
    }

    /// `setTileMapping(t_or_vertex, tile)`: a tensor's elements, or a vertex.
    fn set_tile_mapping(&mut self, what: &Bound<'_, PyAny>, tile: u32) -> PyResult<()> {
        if let Ok(t) = what.cast::<Tensor>() {
            return self.g.set_tile_mapping(&t.get().t.view, tile).or_raise();
        }
        let v: u32 =
            what.extract().map_err(|_| PyTypeError::new_err("set_tile_mapping: a Tensor or a vertex"))?;
        self.g.set_vertex_tile(v, tile).or_raise()
    }

    /// `poputil::mapTensorLinearly(t, min_per_tile, grain)` (0: PopLibs' defaults).
    #[pyo3(signature = (t, min_elements_per_tile = 0, grain_size = 0))]
    fn map_linearly(&mut self, t: &Tensor, min_elements_per_tile: u64, grain_size: u64) -> PyResult<()> {
        self.g.map_linearly_or_default(&t.t, min_elements_per_tile, grain_size).or_raise()
    }

    /// `getTileMapping(t)`: for each tile, its (begin, end) intervals of
    /// `t`'s flat elements.
    fn tile_mapping(&self, t: &Tensor) -> PyResult<Vec<Vec<(usize, usize)>>> {
        let runs = self.g.tile_runs(&t.t, false).or_raise()?;
        let mut out = vec![Vec::new(); self.g.tiles.len() as usize];
        for (tile, b, e) in runs {
            if let Some(v) = out.get_mut(tile as usize) {
                v.push((b, e));
            }
        }
        Ok(out)
    }

    /// `addCodelets(path)`, or C++ text (anything that is not an existing
    /// file's name and has a newline or a brace), compiled now with popc.
    #[pyo3(signature = (path_or_source, flags = ""))]
    fn add_codelets(&mut self, path_or_source: &str, flags: &str) -> PyResult<()> {
        let is_source = !std::path::Path::new(path_or_source).is_file()
            && (path_or_source.contains('\n') || path_or_source.contains('{'));
        if is_source {
            self.g.add_codelets_source(path_or_source.to_string(), flags).or_raise()
        } else {
            self.g.add_codelets_path(path_or_source, flags).or_raise()
        }
    }

    #[pyo3(signature = (name = ""))]
    fn add_compute_set(slf: &Bound<'_, Graph>, name: &str) -> PyResult<ComputeSet> {
        let id = slf.borrow().g.core().or_raise()?.builder.add_compute_set(name).0;
        Ok(ComputeSet { graph: slf.clone().unbind(), id, name: name.to_string() })
    }

    /// `addVertex(cs, type, fields)`: fields connected from a dict, the
    /// vertex mapped to `tile` when given. Returns the vertex's id.
    #[pyo3(signature = (cs, vertex_type, fields = None, tile = None))]
    fn add_vertex(
        &mut self,
        cs: &ComputeSet,
        vertex_type: &str,
        fields: Option<HashMap<String, Bound<'_, PyAny>>>,
        tile: Option<u32>,
    ) -> PyResult<u32> {
        let v = self.g.add_vertex(cs.id, vertex_type).or_raise()?;
        if let Some(t) = tile {
            self.g.set_vertex_tile(v, t).or_raise()?;
        }
        let mut fields: Vec<_> = fields.unwrap_or_default().into_iter().collect();
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, x) in fields {
            self.connect(v, &name, &x)?;
        }
        Ok(v)
    }

    /// `connect(v["field"], x)`: a tensor, a list of tensors (a vector
    /// list), or a number (a plain member, or an edge reading a constant).
    fn connect(&mut self, vertex: u32, field: &str, x: &Bound<'_, PyAny>) -> PyResult<()> {
        match field_arg(x)? {
            FieldArg::Tensor(t) => self.g.connect(vertex, field, &[&t], false).or_raise(),
            FieldArg::List(ts) => {
                let refs: Vec<&capi::tensor::Tensor> = ts.iter().collect();
                self.g.connect(vertex, field, &refs, true).or_raise()
            }
            FieldArg::Value(v) => self.g.connect_value(vertex, field, v).or_raise(),
        }
    }

    fn set_field_size(&mut self, vertex: u32, field: &str, size: usize) -> PyResult<()> {
        self.g.set_field_size(vertex, field, size).or_raise()
    }

    fn set_perf_estimate(&mut self, vertex: u32, cycles: u64) -> PyResult<()> {
        self.g.core().or_raise()?.builder.set_vertex_cycles(ir::VertexId(vertex), cycles).or_raise()?;
        Ok(())
    }

    /// `createHostWrite(name, t)`: `Engine.write(name, array)` fills `t`.
    fn create_host_write(&mut self, name: &str, t: &Tensor) -> PyResult<()> {
        let mut core = self.g.core().or_raise()?;
        core.builder.add_host_handle(name, &t.t.view, t.t.elem, HostDirection::ToDevice).or_raise()?;
        Ok(())
    }

    /// `createHostRead(name, t)`: `Engine.read(name)` returns `t`.
    fn create_host_read(&mut self, name: &str, t: &Tensor) -> PyResult<()> {
        let mut core = self.g.core().or_raise()?;
        core.builder.add_host_handle(name, &t.t.view, t.t.elem, HostDirection::ToHost).or_raise()?;
        Ok(())
    }

    /// `addHostToDeviceFIFO(name, dtype, num_elements, mode)`: in a
    /// replicated graph, `mode="replicate"` gives each replica its own
    /// stream (connected with `replica=`), `"broadcast"` one stream whose
    /// data every replica receives.
    #[pyo3(signature = (name, dtype, num_elements, mode = "replicate"))]
    fn add_host_to_device_fifo(
        slf: &Bound<'_, Graph>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        num_elements: u64,
        mode: &str,
    ) -> PyResult<DataStream> {
        let broadcast = match mode {
            "replicate" => false,
            "broadcast" => true,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "stream '{name}': mode is 'replicate' or 'broadcast', not '{mode}'"
                )))
            }
        };
        let s = Graph::fifo(slf, name, dtype, num_elements, HostDirection::ToDevice)?;
        if broadcast {
            slf.borrow_mut().g.set_stream_broadcast(s.id).or_raise()?;
        }
        Ok(s)
    }

    /// `addRemoteBuffer(name, dtype, num_elements, repeats)`.
    #[pyo3(signature = (name, dtype, num_elements, repeats = 1))]
    fn add_remote_buffer(
        slf: &Bound<'_, Graph>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        num_elements: u64,
        repeats: u64,
    ) -> PyResult<RemoteBuffer> {
        let elem = elem_of(dtype)?;
        let id = slf.borrow_mut().g.add_remote_buffer(name, elem, num_elements, repeats).or_raise()?;
        Ok(RemoteBuffer { graph: slf.clone().unbind(), id, name: name.to_string(), num_elements, repeats })
    }

    /// `addDeviceToHostFIFO(name, dtype, num_elements)`.
    fn add_device_to_host_fifo(
        slf: &Bound<'_, Graph>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        num_elements: u64,
    ) -> PyResult<DataStream> {
        Graph::fifo(slf, name, dtype, num_elements, HostDirection::ToHost)
    }

    /// `addFunction(prog)`: a program compiled once, run by each `Call`.
    fn add_function(&mut self, prog: &Program) -> PyResult<Function> {
        Ok(Function { id: self.g.core().or_raise()?.builder.add_function(prog.p.body.clone()).0 })
    }

    /// `popops::fill(t, value)`, appended to `prog`.
    fn fill(&mut self, prog: &mut Program, t: &Tensor, value: f64) {
        self.g.fill(&mut prog.p, &t.t, value);
    }

    /// `poplin::matMul(a, b)`, appended to `prog`.
    #[pyo3(signature = (a, b, prog, dtype = None, name = "matmul"))]
    fn matmul(
        slf: &Bound<'_, Graph>,
        a: &Tensor,
        b: &Tensor,
        prog: &mut Program,
        dtype: Option<&Bound<'_, PyAny>>,
        name: &str,
    ) -> PyResult<Tensor> {
        let out = dtype.map(elem_of).transpose()?;
        let t = slf.borrow_mut().g.matmul(&mut prog.p, &a.t, &b.t, out, name).or_raise()?;
        Ok(Graph::tensor(slf, t))
    }

    /// `popops::reduce(t, dims, op)`, appended to `prog`: `op` is `"add"`,
    /// `"mul"`, `"min"`, `"max"`, `"and"`, `"or"` or `"square_add"`;
    /// `out` receives it (`reduceWithOutput`), scaled by `scale`, added
    /// to what `out` holds with `update`.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (t, dims, prog, op = "add", dtype = None, scale = 1.0, update = false, out = None, name = "reduce"))]
    fn reduce(
        slf: &Bound<'_, Graph>,
        t: &Tensor,
        dims: Vec<usize>,
        prog: &mut Program,
        op: &str,
        dtype: Option<&Bound<'_, PyAny>>,
        scale: f32,
        update: bool,
        out: Option<&Tensor>,
        name: &str,
    ) -> PyResult<Tensor> {
        let how = capi::ops::Reduction {
            dims,
            operation: reduce_code(op)?,
            out_elem: dtype.map(elem_of).transpose()?,
            scale,
            update,
        };
        let given = out.map(|o| o.t.clone());
        let (r, _) = slf.borrow_mut().g.reduce(Some(&mut prog.p), &t.t, given, &how, name).or_raise()?;
        Ok(Graph::tensor(slf, r))
    }

    /// `popnn::nonLinearity(kind, t)`, appended to `prog`: `"relu"`,
    /// `"sigmoid"`, `"tanh"`, `"softmax"`, `"softmax_stable"`, `"gelu"`.
    #[pyo3(signature = (kind, t, prog, in_place = false, name = "nonlinearity"))]
    fn nonlinearity(
        slf: &Bound<'_, Graph>,
        kind: &str,
        t: &Tensor,
        prog: &mut Program,
        in_place: bool,
        name: &str,
    ) -> PyResult<Tensor> {
        let code = nonlinearity_code(kind)?;
        let r = slf.borrow_mut().g.nonlinearity(&mut prog.p, code, &t.t, in_place, name).or_raise()?;
        Ok(Graph::tensor(slf, r))
    }

    /// `poprand::uniform`: values uniform in `[min, max]` (float16,
    /// float32, int32) with `reference`'s shape and tile mapping, appended
    /// to `prog`. `seed` is a tensor of two uint32 (or None: the graph's
    /// generator state, see `set_seed`); `seed_modifier` picks a stream.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (reference, dtype, min, max, prog, seed = None, seed_modifier = 0, name = "uniform"))]
    fn uniform(
        slf: &Bound<'_, Graph>,
        reference: &Tensor,
        dtype: &Bound<'_, PyAny>,
        min: f64,
        max: f64,
        prog: &mut Program,
        seed: Option<&Tensor>,
        seed_modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let d = ir::RandomDist::Uniform { min, max };
        Graph::random(slf, d, Some(dtype), reference, prog, seed, seed_modifier, name)
    }

    /// `poprand::logUniform`: `base` to the power of a value uniform in
    /// `[log(min), log(max)]`, kept inside `[min, max]`.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (reference, dtype, min, max, prog, base = std::f64::consts::E, seed = None, seed_modifier = 0, name = "logUniform"))]
    fn log_uniform(
        slf: &Bound<'_, Graph>,
        reference: &Tensor,
        dtype: &Bound<'_, PyAny>,
        min: f64,
        max: f64,
        prog: &mut Program,
        base: f64,
        seed: Option<&Tensor>,
        seed_modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let d = ir::RandomDist::LogUniform { min, max, base };
        Graph::random(slf, d, Some(dtype), reference, prog, seed, seed_modifier, name)
    }

    /// `poprand::normal` (float16, float32).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (reference, dtype, mean, stddev, prog, seed = None, seed_modifier = 0, name = "normal"))]
    fn normal(
        slf: &Bound<'_, Graph>,
        reference: &Tensor,
        dtype: &Bound<'_, PyAny>,
        mean: f64,
        stddev: f64,
        prog: &mut Program,
        seed: Option<&Tensor>,
        seed_modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let d = ir::RandomDist::Normal { mean, stddev };
        Graph::random(slf, d, Some(dtype), reference, prog, seed, seed_modifier, name)
    }

    /// `poprand::truncatedNormal`: normal within `mean ± alpha * stddev`.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (reference, dtype, mean, stddev, alpha, prog, seed = None, seed_modifier = 0, name = "truncatedNormal"))]
    fn truncated_normal(
        slf: &Bound<'_, Graph>,
        reference: &Tensor,
        dtype: &Bound<'_, PyAny>,
        mean: f64,
        stddev: f64,
        alpha: f64,
        prog: &mut Program,
        seed: Option<&Tensor>,
        seed_modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let d = ir::RandomDist::TruncatedNormal { mean, stddev, alpha };
        Graph::random(slf, d, Some(dtype), reference, prog, seed, seed_modifier, name)
    }

    /// `poprand::bernoulli`: 1 with probability `prob`, else 0.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (reference, dtype, prob, prog, seed = None, seed_modifier = 0, name = "bernoulli"))]
    fn bernoulli(
        slf: &Bound<'_, Graph>,
        reference: &Tensor,
        dtype: &Bound<'_, PyAny>,
        prob: f64,
        prog: &mut Program,
        seed: Option<&Tensor>,
        seed_modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let d = ir::RandomDist::Bernoulli { prob };
        Graph::random(slf, d, Some(dtype), reference, prog, seed, seed_modifier, name)
    }

    /// `poprand::dropout`: `t * scale` with probability `keep_probability`,
    /// else 0, laid out like `reference` (of `t`'s shape).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (t, reference, keep_probability, scale, prog, seed = None, seed_modifier = 0, name = "dropout"))]
    fn dropout(
        slf: &Bound<'_, Graph>,
        t: &Tensor,
        reference: &Tensor,
        keep_probability: f64,
        scale: f64,
        prog: &mut Program,
        seed: Option<&Tensor>,
        seed_modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let d = ir::RandomDist::Dropout { input: t.t.view.clone(), keep: keep_probability, scale };
        Graph::random_elem(slf, d, t.t.elem, reference, prog, seed, seed_modifier, name)
    }

    /// `poprand::shapedDropout`: dropout of whole slices of `t`: a mask of
    /// `reference`'s shape (each dimension `t`'s or 1), kept with
    /// probability `keep_probability`, broadcast over `t`; kept elements
    /// are multiplied by `scale`.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (t, reference, keep_probability, scale, prog, seed = None, seed_modifier = 0, name = "shapedDropout"))]
    fn shaped_dropout(
        slf: &Bound<'_, Graph>,
        t: &Tensor,
        reference: &Tensor,
        keep_probability: f64,
        scale: f64,
        prog: &mut Program,
        seed: Option<&Tensor>,
        seed_modifier: u32,
        name: &str,
    ) -> PyResult<Tensor> {
        let r = slf
            .borrow_mut()
            .g
            .shaped_dropout(
                &mut prog.p,
                seed.map(|s| &s.t),
                seed_modifier,
                &t.t,
                &reference.t,
                keep_probability,
                scale,
                name,
            )
            .map_err(random_err)?;
        Ok(Graph::tensor(slf, r))
    }

    /// `poprand::setSeed`: calls without a seed that follow draw as if
    /// given `master_seed` (two uint32) and modifiers `seed_modifier`,
    /// `seed_modifier + 1`, … in turn.
    #[pyo3(signature = (master_seed, seed_modifier, prog, name = "setSeed"))]
    fn set_seed(
        slf: &Bound<'_, Graph>,
        master_seed: &Tensor,
        seed_modifier: u32,
        prog: &mut Program,
        name: &str,
    ) -> PyResult<()> {
        slf.borrow_mut().g.set_seed(&mut prog.p, &master_seed.t, seed_modifier, name).map_err(random_err)
    }

    /// The graph and these programs (a list, or a dict by name) as PIR
    /// text (what `poplar-compile` takes).
    fn to_pir(&self, programs: &Bound<'_, PyAny>) -> PyResult<String> {
        let named = crate::program::named_programs(Some(programs))?;
        Ok(ir::print(&self.g.shared().builder.finish_named(named).0))
    }

    fn __repr__(&self) -> String {
        let core = self.g.shared();
        let g = core.builder.graph();
        format!(
            "Graph(tiles={}, tensors={}, compute_sets={}, vertices={})",
            self.g.tiles.len(),
            g.tensors.len(),
            g.compute_sets.len(),
            g.vertices.len()
        )
    }
}

impl Graph {
    fn fifo(
        slf: &Bound<'_, Graph>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        n: u64,
        dir: HostDirection,
    ) -> PyResult<DataStream> {
        let elem = elem_of(dtype)?;
        let id = slf.borrow_mut().g.add_stream(name, elem, n, dir).or_raise()?;
        Ok(DataStream { graph: slf.clone().unbind(), id, name: name.to_string() })
    }
}
