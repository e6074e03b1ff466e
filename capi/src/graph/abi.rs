//! The C ABI of graphs (`prs_graph_*` in `capi.h`): each call checks its
//! handles and text, then calls [`Graph`]'s or [`Core`]'s method.

use super::*;

#[no_mangle]
pub extern "C" fn prs_graph_new(
    target: *const TargetDesc,
    replication_factor: u32,
    out: *mut *mut Graph,
) -> i32 {
    guard(|| {
        let target = handle(target, "target")?.to_target()?;
        put_box(out, Graph::replicated(target, replication_factor)?)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_free(g: *mut Graph) {
    free(g)
}

#[no_mangle]
pub extern "C" fn prs_graph_target(g: *const Graph, out: *mut TargetDesc) -> i32 {
    guard(|| {
        let t = handle(g, "graph")?.target().clone();
        let kind = if t.preset == ir::Preset::Cpu {
            crate::target::TARGET_CPU
        } else {
            crate::target::TARGET_IPU_MODEL
        };
        put(out, TargetDesc::from_target(&t, kind))
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_replication_factor(g: *const Graph) -> u32 {
    handle(g, "graph").map_or(1, |g| g.replication())
}

/// `createVirtualGraph`: `kind` 0 is `(lowerTile, upperTile)` with
/// `a`, `b`; 1 is `(numTilesPerIPU)` with `a`; 2 is `(perIpuTiles)` with
/// the `n` tiles at `tiles`.
#[no_mangle]
pub extern "C" fn prs_graph_create_virtual(
    g: *const Graph,
    kind: i32,
    a: u32,
    b: u32,
    tiles: *const u32,
    n: usize,
    out: *mut *mut Graph,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let v = match kind {
            0 => g.virtual_range(a, b)?,
            1 => g.virtual_per_ipu_count(a)?,
            2 => g.virtual_per_ipu(slice(tiles, n))?,
            other => {
                return Err(ApiError::new(Status::PoplarError, format!("unknown virtual graph kind {other}")))
            }
        };
        put_box(out, v)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_create_replicated(
    g: *const Graph,
    replication_factor: u32,
    out: *mut *mut Graph,
) -> i32 {
    guard(|| put_box(out, handle(g, "graph")?.replicated_graph(replication_factor)?))
}

#[no_mangle]
pub extern "C" fn prs_graph_add_codelets(
    g: *mut Graph,
    path_or_source: *const c_char,
    is_source: i32,
    flags: *const c_char,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let arg = text(path_or_source, "codelets")?;
        let flags = if flags.is_null() { "" } else { text(flags, "flags")? };
        if is_source != 0 {
            g.add_codelets_source(arg.to_string(), flags)
        } else {
            g.add_codelets_path(arg, flags)
        }
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_has_vertex_type(
    g: *const Graph,
    vertex_type: *const c_char,
    out: *mut i32,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let name = text(vertex_type, "vertex type")?;
        put(out, i32::from(g.shared().codelets.iter().any(|c| c.vertex_type(name).is_some())))
    })
}

#[allow(clippy::too_many_arguments)]
fn new_tensor(
    g: *mut Graph,
    ty: i32,
    shape: *const usize,
    rank: usize,
    name: *const c_char,
    kind: TensorKind,
    init: impl FnOnce(ElemType, u64) -> Result<Option<ir::Init>>,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let elem = elem_type(ty, false)?;
        let shape = shape_u64(slice(shape, rank));
        let name = if name.is_null() { "" } else { text(name, "name")? };
        let n = ir::view::checked_num_elements(&shape).unwrap_or(u64::MAX);
        let init = init(elem, n)?;
        put_box(out, g.add_tensor(name, kind, elem, &shape, init)?)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_add_replication_index_constant(
    g: *mut Graph,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let name = text(name, "name")?;
        let t = handle(g, "graph")?.add_replication_index(name)?;
        put_box(out, t)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_add_variable(
    g: *mut Graph,
    ty: i32,
    shape: *const usize,
    rank: usize,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    new_tensor(g, ty, shape, rank, name, TensorKind::Var, |_, _| Ok(None), out)
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn prs_graph_add_constant(
    g: *mut Graph,
    ty: i32,
    shape: *const usize,
    rank: usize,
    values: *const c_void,
    host_type: i32,
    n: usize,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    let init = |elem: ElemType, count: u64| -> Result<Option<ir::Init>> {
        let v = host_values(values, host_type, n)?;
        let bytes = encode_values(&v, elem)?;
        if n == 1 {
            return Ok(Some(ir::Init::Splat(bytes)));
        }
        if n as u64 != count {
            return Err(ApiError::new(
                Status::TensorCreationError,
                format!("addConstant: {n} values for a tensor of {count} elements"),
            ));
        }
        Ok(Some(ir::Init::Values(bytes)))
    };
    new_tensor(g, ty, shape, rank, name, TensorKind::Const, init, out)
}

#[no_mangle]
pub extern "C" fn prs_graph_set_initial_value(
    g: *mut Graph,
    t: *const Tensor,
    values: *const c_void,
    host_type: i32,
    n: usize,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let t = handle(t, "tensor")?;
        let count = t.view.num_elements();
        if n != 1 && n as u64 != count {
            return Err(ApiError::new(
                Status::PoplarError,
                format!("setInitialValue: {n} values for a tensor of {count} elements"),
            ));
        }
        let bytes = encode_values(&host_values(values, host_type, n)?, t.elem)?;
        g.core()?.builder.set_initial_value(&t.view, &bytes)?;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_set_tile_mapping(g: *mut Graph, t: *const Tensor, tile: u32) -> i32 {
    guard(|| handle(g, "graph")?.set_tile_mapping(&handle(t, "tensor")?.view, tile))
}

#[no_mangle]
pub extern "C" fn prs_graph_map_linearly(
    g: *mut Graph,
    t: *const Tensor,
    min_per_tile: usize,
    grain: usize,
) -> i32 {
    guard(|| {
        let t = handle(t, "tensor")?;
        handle(g, "graph")?.map_linearly_or_default(t, min_per_tile as u64, grain as u64)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_get_tile_mapping(
    g: *const Graph,
    t: *const Tensor,
    require_complete: i32,
    out: *mut *mut usize,
    n: *mut usize,
) -> i32 {
    guard(|| {
        let runs = handle(g, "graph")?.tile_runs(handle(t, "tensor")?, require_complete != 0)?;
        sizes_out(runs.iter().flat_map(|&(t, b, e)| [t as usize, b, e]).collect(), out, n)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_add_compute_set(g: *mut Graph, name: *const c_char, out: *mut u32) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let name = if name.is_null() { "" } else { text(name, "name")? };
        put(out, g.core()?.builder.add_compute_set(name).0)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_compute_set_name(g: *const Graph, cs: u32, out: *mut *mut c_char) -> i32 {
    guard(|| {
        let core = handle(g, "graph")?.shared();
        let c =
            core.builder.graph().compute_sets.get(ComputeSetId(cs)).ok_or_else(|| {
                ApiError::new(Status::IndexError, format!("compute set {cs} does not exist"))
            })?;
        put_string(out, c.name.clone())
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_add_vertex(
    g: *mut Graph,
    cs: u32,
    vertex_type: *const c_char,
    out: *mut u32,
) -> i32 {
    guard(|| {
        let name = text(vertex_type, "vertex type")?;
        put(out, handle(g, "graph")?.add_vertex(cs, name)?)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_connect(
    g: *mut Graph,
    vertex: u32,
    field: *const c_char,
    t: *const Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let field = text(field, "field")?;
        g.connect(vertex, field, &[handle(t, "tensor")?], false)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_connect_run(
    g: *mut Graph,
    vertex: u32,
    field: *const c_char,
    run: *const Run,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let field = text(field, "field")?;
        g.connect_tensor(vertex, field, handle(run, "run")?.tensor()?)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_connect_list(
    g: *mut Graph,
    vertex: u32,
    field: *const c_char,
    ts: *const *const Tensor,
    n: usize,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let field = text(field, "field")?;
        g.connect(vertex, field, &tensors(ts, n)?, true)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_connect_value(
    g: *mut Graph,
    vertex: u32,
    field: *const c_char,
    value: *const c_void,
    host_type: i32,
) -> i32 {
    guard(|| {
        let name = text(field, "field")?;
        let v = host_value(value, host_type)?;
        handle(g, "graph")?.connect_value(vertex, name, v)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_set_field_size(
    g: *mut Graph,
    vertex: u32,
    field: *const c_char,
    size: usize,
) -> i32 {
    guard(|| {
        let name = text(field, "field")?;
        handle(g, "graph")?.set_field_size(vertex, name, size)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_set_vertex_tile(g: *mut Graph, vertex: u32, tile: u32) -> i32 {
    guard(|| handle(g, "graph")?.set_vertex_tile(vertex, tile))
}

#[no_mangle]
pub extern "C" fn prs_graph_set_perf_estimate(g: *mut Graph, vertex: u32, cycles: u64) -> i32 {
    guard(|| {
        handle(g, "graph")?.core()?.builder.set_vertex_cycles(VertexId(vertex), cycles)?;
        Ok(())
    })
}

fn host_handle(g: *mut Graph, name: *const c_char, t: *const Tensor, direction: HostDirection) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let name = text(name, "handle")?;
        let t = handle(t, "tensor")?;
        g.core()?.builder.add_host_handle(name, &t.view, t.elem, direction)?;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_create_host_write(g: *mut Graph, name: *const c_char, t: *const Tensor) -> i32 {
    host_handle(g, name, t, HostDirection::ToDevice)
}

#[no_mangle]
pub extern "C" fn prs_graph_create_host_read(g: *mut Graph, name: *const c_char, t: *const Tensor) -> i32 {
    host_handle(g, name, t, HostDirection::ToHost)
}

#[no_mangle]
pub extern "C" fn prs_graph_add_stream(
    g: *mut Graph,
    name: *const c_char,
    ty: i32,
    num_elements: usize,
    to_device: i32,
    out: *mut u32,
) -> i32 {
    guard(|| {
        let name = text(name, "handle")?;
        let dir = if to_device != 0 { HostDirection::ToDevice } else { HostDirection::ToHost };
        let id = handle(g, "graph")?.add_stream(name, elem_type(ty, false)?, num_elements as u64, dir)?;
        put(out, id)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_set_stream_broadcast(g: *mut Graph, stream: u32) -> i32 {
    guard(|| handle(g, "graph")?.set_stream_broadcast(stream))
}

#[no_mangle]
pub extern "C" fn prs_graph_add_remote_buffer(
    g: *mut Graph,
    name: *const c_char,
    ty: i32,
    num_elements: usize,
    repeats: usize,
    out: *mut u32,
) -> i32 {
    guard(|| {
        let name = text(name, "handle")?;
        let id = handle(g, "graph")?.add_remote_buffer(
            name,
            elem_type(ty, false)?,
            num_elements as u64,
            repeats as u64,
        )?;
        put(out, id)
    })
}

#[no_mangle]
pub extern "C" fn prs_graph_add_function(g: *mut Graph, body: *const Program, out: *mut u32) -> i32 {
    guard(|| {
        let body = handle(body, "program")?.body.clone();
        put(out, handle(g, "graph")?.core()?.builder.add_function(body).0)
    })
}

/// The programs' bodies, in order.
pub(crate) fn bodies(progs: *const *const Program, n: usize) -> Result<Vec<Vec<Stmt>>> {
    slice(progs, n).iter().map(|&p| handle(p, "program").map(|p| p.body.clone())).collect()
}

#[no_mangle]
pub extern "C" fn prs_graph_dump_pir(
    g: *const Graph,
    progs: *const *const Program,
    n: usize,
    out: *mut *mut c_char,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let (graph, _) = g.shared().builder.finish(bodies(progs, n)?);
        put_string(out, ir::print(&graph))
    })
}
