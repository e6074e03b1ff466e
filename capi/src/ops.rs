//! PopLibs operations on the host API: each appends library operations
//! (`Stmt::Op`, the PIR operations library) to a sequence, so they expand
//! into compute sets at compile time exactly as PIR's `v3 = v1 + v2`,
//! `reduce` and `matmul` do and inherit their semantics (including value
//! semantics when an output overlaps an input).

use std::ffi::c_char;

use ir::builder::GraphTiles;
use ir::{BinaryOp, MapExpr, MapKind, Op, OpKind, RandomDist, ReduceOp, Stmt, TensorKind, UnaryOp, View};
use vocab::ElemType;

use crate::graph::{Core, Graph};
use crate::program::Program;
use crate::status::{guard, ApiError, Result, Status};
use crate::target::elem_type;
use crate::tensor::{tensors, Tensor};
use crate::{handle, handle_mut, optional_handle, put, put_box, slice, text};

mod random;

pub use random::random_dist;

/// `prs_expr_node`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ExprNode {
    pub kind: i32,
    pub op: i32,
    pub index: u32,
    pub ty: i32,
    pub value: f64,
}

fn unsupported(what: &str) -> ApiError {
    ApiError::new(Status::PoplarError, format!("{what} is not implemented (docs/host-api.md lists what is)"))
}

fn type_err(message: String) -> ApiError {
    ApiError::new(Status::TypeError, message)
}

/// A subexpression: its tree, and whether its type is still open (a
/// constant with no type of its own takes its partner's).
struct Typed {
    e: MapExpr,
    open: bool,
}

/// Reading `view`'s elements of type `elem`.
fn read(elem: ElemType, view: View) -> MapExpr {
    MapExpr { elem, kind: MapKind::Input(view) }
}

/// Reading a tensor's elements.
fn reading(t: &Tensor) -> MapExpr {
    read(t.elem, t.view.clone())
}

fn unary(op: UnaryOp, a: MapExpr) -> MapExpr {
    let elem = if op.is_predicate() { ElemType::Bool } else { a.elem };
    MapExpr { elem, kind: MapKind::Unary(op, Box::new(a)) }
}

fn binary(op: BinaryOp, a: MapExpr, b: MapExpr) -> MapExpr {
    let elem = if op.is_comparison() { ElemType::Bool } else { a.elem };
    MapExpr { elem, kind: MapKind::Binary(op, Box::new(a), Box::new(b)) }
}

fn constant(v: f64, elem: ElemType) -> MapExpr {
    MapExpr { elem, kind: MapKind::Const(v) }
}

/// The operation of `enum prs_unary_op` code `code`, for the codes that
/// are one (not `SQUARE`, `RSQRT`, `INV` and `LOGICAL_NOT`, codes 8 to 11,
/// which [`build_expr`] writes with others).
fn unary_op(code: i32) -> Option<UnaryOp> {
    const CODES: [Option<UnaryOp>; 34] = [
        Some(UnaryOp::Neg),
        Some(UnaryOp::Abs),
        Some(UnaryOp::Exp),
        Some(UnaryOp::Log),
        Some(UnaryOp::Sqrt),
        Some(UnaryOp::Tanh),
        Some(UnaryOp::Sigmoid),
        Some(UnaryOp::Relu),
        None,
        None,
        None,
        None,
        Some(UnaryOp::Signum),
        Some(UnaryOp::Floor),
        Some(UnaryOp::Ceil),
        Some(UnaryOp::GeluErf),
        Some(UnaryOp::Erf),
        Some(UnaryOp::Sin),
        Some(UnaryOp::Cos),
        Some(UnaryOp::Tan),
        Some(UnaryOp::Asin),
        Some(UnaryOp::Cbrt),
        Some(UnaryOp::Expm1),
        Some(UnaryOp::Exp2),
        Some(UnaryOp::Log1p),
        Some(UnaryOp::IsFinite),
        Some(UnaryOp::IsInf),
        Some(UnaryOp::IsNan),
        Some(UnaryOp::NearbyInt),
        Some(UnaryOp::Round),
        Some(UnaryOp::Trunc),
        Some(UnaryOp::BitNot),
        Some(UnaryOp::Popcount),
        Some(UnaryOp::Clz),
    ];
    usize::try_from(code).ok().and_then(|c| CODES.get(c).copied().flatten())
}

/// The operation of `enum prs_binary_op` code `code`.
fn binary_op(code: i32) -> Option<BinaryOp> {
    const CODES: [BinaryOp; 26] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::Pow,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Rem,
        BinaryOp::Atan2,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::BitXnor,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::ShrSignExtend,
        BinaryOp::VarianceToInvStdDev,
        BinaryOp::InvStdDevToVariance,
    ];
    usize::try_from(code).ok().and_then(|c| CODES.get(c).copied())
}

/// Builds a [`MapExpr`] from the postfix nodes of a `popops::expr` tree;
/// also returns the shape of the result (the inputs' common shape).
fn build_expr(nodes: &[ExprNode], inputs: &[&Tensor]) -> Result<(MapExpr, Vec<u64>)> {
    let mut stack: Vec<Typed> = Vec::new();
    let mut shape: Option<Vec<u64>> = None;
    let pop = |stack: &mut Vec<Typed>| stack.pop().ok_or_else(|| unsupported("a malformed expression"));
    for n in nodes {
        let t = match n.kind {
            0 => {
                let i = (n.index as usize).wrapping_sub(1);
                let t = inputs.get(i).ok_or_else(|| {
                    ApiError::new(
                        Status::IndexError,
                        format!("placeholder _{} has no tensor ({} given)", n.index, inputs.len()),
                    )
                })?;
                if t.view.num_elements() != 1 || !t.view.shape.is_empty() {
                    match &shape {
                        Some(s) if *s != t.view.shape => {
                            return Err(ApiError::new(
                                Status::PoplarError,
                                format!("operands of shapes {s:?} and {:?} do not match", t.view.shape),
                            ))
                        }
                        Some(_) => {}
                        None => shape = Some(t.view.shape.clone()),
                    }
                }
                Typed { e: reading(t), open: false }
            }
            1 => {
                let typed = n.ty >= 0;
                let elem = if typed { elem_type(n.ty, false)? } else { ElemType::Float };
                Typed { e: constant(n.value, elem), open: !typed }
            }
            2 => {
                let mut a = pop(&mut stack)?;
                if a.open && unary_op(n.op).is_some_and(UnaryOp::is_predicate) {
                    // `IsNaN(Const(1))`: the constant is a float, the result `bool`.
                    a.e.settle(ElemType::Float);
                    a.open = false;
                }
                let x = a.e;
                let e = match n.op {
                    8 => binary(BinaryOp::Mul, x.clone(), x),
                    9 => {
                        let elem = x.elem;
                        binary(BinaryOp::Div, constant(1.0, elem), unary(UnaryOp::Sqrt, x))
                    }
                    10 => {
                        let elem = x.elem;
                        binary(BinaryOp::Div, constant(1.0, elem), x)
                    }
                    11 => {
                        let elem = x.elem;
                        binary(BinaryOp::Eq, x, constant(0.0, elem))
                    }
                    code => {
                        let op =
                            unary_op(code).ok_or_else(|| unsupported(&format!("unary operation {code}")))?;
                        unary(op, x)
                    }
                };
                let rule = match &e.kind {
                    MapKind::Unary(u, x) => u.result(x.elem),
                    MapKind::Binary(b, x, _) => b.result(x.elem),
                    _ => Ok(e.elem),
                };
                if let Err(m) = rule {
                    if !a.open {
                        return Err(type_err(m));
                    }
                }
                Typed { e, open: a.open }
            }
            3 => {
                let mut b = pop(&mut stack)?;
                let mut a = pop(&mut stack)?;
                let op = binary_op(n.op).ok_or_else(|| unsupported(&format!("binary operation {}", n.op)))?;
                match (a.open, b.open) {
                    (true, false) => a.e.settle(b.e.elem),
                    (false, true) => b.e.settle(a.e.elem),
                    _ => {}
                }
                if a.e.elem != b.e.elem {
                    return Err(type_err(format!(
                        "{} of {} and {} operands (cast one with popops::expr::Cast)",
                        op.name(),
                        a.e.elem.cpp_name(),
                        b.e.elem.cpp_name()
                    )));
                }
                if !(a.open && b.open) {
                    op.result(a.e.elem).map_err(type_err)?;
                }
                Typed { e: binary(op, a.e, b.e), open: a.open && b.open }
            }
            4 => {
                let a = pop(&mut stack)?;
                let elem = elem_type(n.ty, false)?;
                Typed { e: MapExpr { elem, kind: MapKind::Cast(Box::new(a.e)) }, open: false }
            }
            5 => {
                let mut c = pop(&mut stack)?;
                let mut b = pop(&mut stack)?;
                let mut a = pop(&mut stack)?;
                if c.open {
                    c.e.settle(ElemType::Bool);
                }
                if c.e.elem != ElemType::Bool {
                    return Err(type_err(format!(
                        "Select: the condition (the third operand) is {}, not bool",
                        c.e.elem.cpp_name()
                    )));
                }
                match (a.open, b.open) {
                    (true, false) => a.e.settle(b.e.elem),
                    (false, true) => b.e.settle(a.e.elem),
                    _ => {}
                }
                if a.e.elem != b.e.elem {
                    return Err(type_err(format!(
                        "Select of {} and {} operands (cast one with popops::expr::Cast)",
                        a.e.elem.cpp_name(),
                        b.e.elem.cpp_name()
                    )));
                }
                let elem = a.e.elem;
                let open = a.open && b.open;
                Typed {
                    e: MapExpr { elem, kind: MapKind::Select(Box::new(a.e), Box::new(b.e), Box::new(c.e)) },
                    open,
                }
            }
            other => return Err(unsupported(&format!("expression node kind {other}"))),
        };
        stack.push(t);
    }
    let mut top = pop(&mut stack)?;
    if !stack.is_empty() {
        return Err(unsupported("a malformed expression"));
    }
    if top.open {
        top.e.settle(ElemType::Float);
    }
    let shape = shape.or_else(|| inputs.first().map(|t| t.view.shape.clone())).unwrap_or_default();
    Ok((top.e, shape))
}

impl Core {
    /// A new variable for an operation's result, mapped as `like` is where
    /// all of `like` is mapped on `tiles`, else linearly over `tiles`.
    fn result(
        &mut self,
        tiles: &GraphTiles,
        name: &str,
        elem: ElemType,
        shape: &[u64],
        like: Option<&View>,
    ) -> Result<Tensor> {
        let id = self.builder.add_tensor(name, TensorKind::Var, elem, shape, None)?;
        let t = self.tensor(id);
        let mapped = like.filter(|v| v.shape == shape).map(|v| self.builder.tile_mapping(v));
        let inside = |m: &Option<u32>| m.is_some_and(|p| tiles.tiles.contains(p));
        match mapped {
            Some(mapped) if mapped.iter().all(inside) && !mapped.is_empty() => {
                let mut regions: Vec<(u64, u64, u32)> = Vec::new();
                for (i, tile) in mapped.into_iter().flatten().enumerate() {
                    match regions.last_mut() {
                        Some(r) if r.2 == tile && r.1 == i as u64 => r.1 += 1,
                        _ => regions.push((i as u64, i as u64 + 1, tile)),
                    }
                }
                self.builder.map_regions(&t.view, &regions)?;
            }
            _ => {
                let size = u64::from(elem.size());
                self.builder.map_linearly(&t.view, &tiles.tiles, 128u64.div_ceil(size), (8 / size).max(1))?;
            }
        }
        Ok(t)
    }
}

/// The operation writing `out`, placed on the tiles of the graph handle
/// that adds it.
fn op(tiles: &GraphTiles, out: &View, kind: OpKind) -> Stmt {
    Stmt::Op(Box::new(Op { out: out.clone(), kind, tiles: tiles.op_tiles() }))
}

fn name_of(name: *const c_char, default: &str) -> Result<String> {
    if name.is_null() {
        return Ok(default.to_string());
    }
    let n = text(name, "name")?;
    Ok(if n.is_empty() { default.to_string() } else { n.to_string() })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn prs_op_map(
    g: *mut Graph,
    seq: *mut Program,
    expr: *const ExprNode,
    n_nodes: usize,
    inputs: *const *const Tensor,
    n_inputs: usize,
    in_place: i32,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let seq = handle_mut(seq, "sequence")?;
        let ins = tensors(inputs, n_inputs)?;
        let target = g.map(seq, slice(expr, n_nodes), &ins, in_place != 0, &name_of(name, "map")?)?;
        if !out.is_null() {
            put_box(out, target)?;
        }
        Ok(())
    })
}

impl Graph {
    /// `popops::map(expr, inputs)` (`mapInPlace` with `in_place`):
    /// appends the operation to `seq` and returns the result.
    pub fn map(
        &self,
        seq: &mut Program,
        nodes: &[ExprNode],
        ins: &[&Tensor],
        in_place: bool,
        name: &str,
    ) -> Result<Tensor> {
        let tiles = &self.tiles;
        let mut core = self.core()?;
        let g = &mut *core;
        let (e, shape) = build_expr(nodes, ins)?;
        let target = if in_place {
            let first = ins.first().ok_or_else(|| unsupported("mapInPlace without tensors"))?;
            if first.view.shape != shape {
                return Err(ApiError::new(
                    Status::PoplarError,
                    format!(
                        "mapInPlace: the result has shape {shape:?} but the first tensor {:?}",
                        first.view.shape
                    ),
                ));
            }
            if first.elem != e.elem {
                return Err(type_err(format!(
                    "mapInPlace: the result is {} but the first tensor holds {}",
                    e.elem.cpp_name(),
                    first.elem.cpp_name()
                )));
            }
            (*first).clone()
        } else {
            let like = ins.iter().find(|t| t.view.shape == shape).map(|t| t.view.clone());
            g.result(tiles, name, e.elem, &shape, like.as_ref())?
        };
        seq.body.push(op(tiles, &target.view, OpKind::Map(e)));
        Ok(target)
    }

    /// `popops::fill(t, value)`.
    pub fn fill(&self, seq: &mut Program, t: &Tensor, value: f64) {
        seq.body.push(op(&self.tiles, &t.view, OpKind::Map(constant(value, t.elem))));
    }
}

#[no_mangle]
pub extern "C" fn prs_op_fill(g: *mut Graph, seq: *mut Program, t: *const Tensor, value: f64) -> i32 {
    guard(|| {
        let t = handle(t, "tensor")?;
        let seq = handle_mut(seq, "sequence")?;
        handle(g, "graph")?.fill(seq, t, value);
        Ok(())
    })
}

fn reduce_op(code: i32) -> Result<ReduceOp> {
    Ok(match code {
        0 | 6 => ReduceOp::Add,
        1 => ReduceOp::Mul,
        2 => ReduceOp::Min,
        3 => ReduceOp::Max,
        4 => ReduceOp::And,
        5 => ReduceOp::Or,
        other => return Err(unsupported(&format!("reduction operation {other}"))),
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn prs_op_reduce(
    g: *mut Graph,
    seq: *mut Program,
    input: *const Tensor,
    out_tensor: *const Tensor,
    dims: *const usize,
    n_dims: usize,
    operation: i32,
    out_type: i32,
    scale: f32,
    update: i32,
    name: *const c_char,
    cs: *mut u32,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let input = handle(input, "input")?.clone();
        let out_elem = if out_type >= 0 { Some(elem_type(out_type, false)?) } else { None };
        let given = if out_tensor.is_null() { None } else { Some(handle(out_tensor, "output")?.clone()) };
        let how =
            Reduction { dims: slice(dims, n_dims).to_vec(), operation, out_elem, scale, update: update != 0 };
        let seq = if seq.is_null() { None } else { Some(handle_mut(seq, "sequence")?) };
        let (result, set) = g.reduce(seq, &input, given, &how, &name_of(name, "reduce")?)?;
        if let Some(id) = set {
            put(cs, id)?;
        }
        if !out.is_null() {
            put_box(out, result)?;
        }
        Ok(())
    })
}

/// How `popops::reduce` reduces: the dimensions, the operation (the
/// `popops::Operation` code), the output type, `scale` and `update`.
#[derive(Clone, Debug)]
pub struct Reduction {
    pub dims: Vec<usize>,
    pub operation: i32,
    pub out_elem: Option<ElemType>,
    pub scale: f32,
    pub update: bool,
}

impl Graph {
    /// `popops::reduce` into `given` (or a new tensor), appended to `seq`;
    /// with no sequence, a compute set that stands for it (returned).
    pub fn reduce(
        &self,
        seq: Option<&mut Program>,
        input: &Tensor,
        given: Option<Tensor>,
        how: &Reduction,
        name: &str,
    ) -> Result<(Tensor, Option<u32>)> {
        let tiles = &self.tiles;
        let mut core = self.core()?;
        let g = &mut *core;
        let input = input.clone();
        let (operation, scale) = (how.operation, how.scale);
        let update = i32::from(how.update);
        let rop = reduce_op(operation)?;
        let rank = input.view.rank();
        let mut ds: Vec<u32> = Vec::new();
        for &d in &how.dims {
            if d >= rank {
                return Err(ApiError::new(
                    Status::IndexError,
                    format!("reduce: dimension {d} is out of range for shape {:?}", input.view.shape),
                ));
            }
            if !ds.contains(&(d as u32)) {
                ds.push(d as u32);
            }
        }
        ds.sort_unstable();
        let shape = ir::ops::reduced_shape(&input.view.shape, &ds);
        let logical = matches!(rop, ReduceOp::And | ReduceOp::Or);
        if logical != (input.elem == ElemType::Bool) {
            return Err(type_err(format!("reduce: {} of a {} tensor", rop.name(), input.elem.cpp_name())));
        }
        let mut body = Vec::new();
        // SQUARE_ADD sums the squares.
        let mut source = input.clone();
        if operation == 6 {
            let sq =
                g.result(tiles, &format!("{name}/square"), input.elem, &input.view.shape, Some(&input.view))?;
            let x = reading(&input);
            body.push(op(tiles, &sq.view, OpKind::Map(binary(BinaryOp::Mul, x.clone(), x))));
            source = sq;
        }
        let out_elem = how.out_elem.unwrap_or(input.elem);
        if let Some(o) = &given {
            if o.view.shape != shape {
                return Err(ApiError::new(
                    Status::PoplarError,
                    format!(
                        "reduceWithOutput: the output has shape {:?}, the reduction {shape:?}",
                        o.view.shape
                    ),
                ));
            }
        }
        let plain = given.is_none() && out_elem == input.elem && scale == 1.0 && update == 0;
        let partial = if plain
            || (given.as_ref().is_some_and(|o| o.elem == input.elem) && scale == 1.0 && update == 0)
        {
            match &given {
                Some(o) => o.clone(),
                None => g.result(tiles, name, input.elem, &shape, None)?,
            }
        } else {
            g.result(tiles, &format!("{name}/partial"), input.elem, &shape, None)?
        };
        body.push(op(tiles, &partial.view, OpKind::Reduce { input: source.view.clone(), op: rop, dims: ds }));
        let result = match (&given, plain) {
            (_, true) => partial,
            (Some(o), false) if o.view == partial.view => partial,
            _ => {
                let dest = match &given {
                    Some(o) => o.clone(),
                    None => g.result(tiles, name, out_elem, &shape, Some(&partial.view))?,
                };
                let mut e = reading(&partial);
                if scale != 1.0 {
                    e = binary(BinaryOp::Mul, e, constant(f64::from(scale), partial.elem));
                }
                if dest.elem != e.elem {
                    e = MapExpr { elem: dest.elem, kind: MapKind::Cast(Box::new(e)) };
                }
                if update != 0 {
                    e = binary(BinaryOp::Add, reading(&dest), e);
                }
                body.push(op(tiles, &dest.view, OpKind::Map(e)));
                dest
            }
        };
        match seq {
            Some(seq) => {
                seq.body.extend(body);
                Ok((result, None))
            }
            None => {
                let id = g.builder.add_compute_set(name);
                g.op_sets.insert(id.0, Stmt::Block(body));
                Ok((result, Some(id.0)))
            }
        }
    }
}

#[no_mangle]
pub extern "C" fn prs_op_matmul(
    g: *mut Graph,
    seq: *mut Program,
    a: *const Tensor,
    b: *const Tensor,
    out_type: i32,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let seq = handle_mut(seq, "sequence")?;
        let (a, b) = (handle(a, "A")?, handle(b, "B")?);
        let out_elem = if out_type >= 0 { Some(elem_type(out_type, false)?) } else { None };
        put_box(out, g.matmul(seq, a, b, out_elem, &name_of(name, "matMul")?)?)
    })
}

impl Graph {
    /// `poplin::matMul(a, b)`, appended to `seq`; the result is `out_elem`
    /// (by default the operands' type).
    pub fn matmul(
        &self,
        seq: &mut Program,
        a: &Tensor,
        b: &Tensor,
        out_elem: Option<ElemType>,
        name: &str,
    ) -> Result<Tensor> {
        let tiles = &self.tiles;
        let mut core = self.core()?;
        let g = &mut *core;
        if a.elem != b.elem {
            return Err(type_err(format!("matMul of {} and {}", a.elem.cpp_name(), b.elem.cpp_name())));
        }
        let (sa, sb) = (&a.view.shape, &b.view.shape);
        let Some(shape) = ir::ops::matmul_shape(sa, sb) else {
            return Err(ApiError::new(
                Status::PoplarError,
                format!(
                    "matMul: shapes {sa:?} and {sb:?} do not multiply ([m, k] x [k, n], or grouped [g, m, k] x [g, k, n])"
                ),
            ));
        };
        let out_elem = out_elem.unwrap_or(a.elem);
        let r = g.result(tiles, name, a.elem, &shape, None)?;
        seq.body.push(op(tiles, &r.view, OpKind::MatMul { a: a.view.clone(), b: b.view.clone() }));
        let r = if out_elem == a.elem {
            r
        } else {
            let c = g.result(tiles, &format!("{name}/cast"), out_elem, &shape, Some(&r.view))?;
            let e = MapExpr { elem: out_elem, kind: MapKind::Cast(Box::new(read(a.elem, r.view.clone()))) };
            seq.body.push(op(tiles, &c.view, OpKind::Map(e)));
            c
        };
        Ok(r)
    }
}

#[no_mangle]
pub extern "C" fn prs_op_nonlinearity(
    g: *mut Graph,
    seq: *mut Program,
    kind: i32,
    t: *const Tensor,
    in_place: i32,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let seq = handle_mut(seq, "sequence")?;
        let t = handle(t, "tensor")?;
        let dest = g.nonlinearity(seq, kind, t, in_place != 0, &name_of(name, "nonLinearity")?)?;
        if !out.is_null() {
            put_box(out, dest)?;
        }
        Ok(())
    })
}

impl Graph {
    /// `popnn::nonLinearity(kind, t)` (the `popnn::NonLinearityType`
    /// code), appended to `seq`, in place or into a new tensor.
    pub fn nonlinearity(
        &self,
        seq: &mut Program,
        kind: i32,
        t: &Tensor,
        in_place: bool,
        name: &str,
    ) -> Result<Tensor> {
        let tiles = &self.tiles;
        let mut core = self.core()?;
        let g = &mut *core;
        let t = t.clone();
        if !matches!(t.elem, ElemType::Float | ElemType::Half) {
            return Err(type_err(format!(
                "nonLinearity of a {} tensor (float or half only)",
                t.elem.cpp_name()
            )));
        }
        let dest =
            if in_place { t.clone() } else { g.result(tiles, name, t.elem, &t.view.shape, Some(&t.view))? };
        let x = reading(&t);
        match kind {
            0 => seq.body.push(op(tiles, &dest.view, OpKind::Map(unary(UnaryOp::Relu, x)))),
            1 => seq.body.push(op(tiles, &dest.view, OpKind::Map(unary(UnaryOp::Sigmoid, x)))),
            2 => seq.body.push(op(tiles, &dest.view, OpKind::Map(unary(UnaryOp::Tanh, x)))),
            3 | 4 => softmax(g, tiles, seq, &t, &dest, kind == 4, name)?,
            5 => seq.body.push(op(tiles, &dest.view, OpKind::Map(gelu(x)))),
            6 => seq.body.push(op(tiles, &dest.view, OpKind::Map(unary(UnaryOp::GeluErf, x)))),
            other => return Err(unsupported(&format!("non-linearity {other}"))),
        }
        Ok(dest)
    }
}

/// GELU in PopLibs' tanh form:
/// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`.
fn gelu(x: MapExpr) -> MapExpr {
    let t = x.elem;
    let cube = binary(BinaryOp::Mul, binary(BinaryOp::Mul, x.clone(), x.clone()), x.clone());
    let inner = binary(BinaryOp::Add, x.clone(), binary(BinaryOp::Mul, constant(0.044715, t), cube));
    let scaled = binary(BinaryOp::Mul, constant((2.0 / std::f64::consts::PI).sqrt(), t), inner);
    let one_plus = binary(BinaryOp::Add, constant(1.0, t), unary(UnaryOp::Tanh, scaled));
    binary(BinaryOp::Mul, binary(BinaryOp::Mul, constant(0.5, t), x), one_plus)
}

/// Softmax along the innermost dimension: `exp(x - max) / sum`, the
/// maximum subtracted only for the stable form.
fn softmax(
    g: &mut Core,
    tiles: &GraphTiles,
    seq: &mut Program,
    t: &Tensor,
    dest: &Tensor,
    stable: bool,
    name: &str,
) -> Result<()> {
    let shape = t.view.shape.clone();
    let Some(&inner) = shape.last() else {
        return Err(unsupported("softmax of a scalar"));
    };
    let rank = shape.len();
    let outer: Vec<u64> = shape[..rank - 1].to_vec();
    let last = vec![(rank - 1) as u32];
    // A reduced [outer] tensor seen as [outer, inner] (each value repeated).
    let spread = |r: &Tensor| -> Result<View> {
        let b = r.view.broadcast(inner as i64).map_err(|e| ApiError::new(Status::Internal, e))?;
        let perm: Vec<i64> = (1..rank as i64).chain([0]).collect();
        b.dimshuffle(&perm).map_err(|e| ApiError::new(Status::Internal, e))
    };
    let x = reading(t);
    let shifted = if stable {
        let m = g.result(tiles, &format!("{name}/max"), t.elem, &outer, None)?;
        seq.body.push(op(
            tiles,
            &m.view,
            OpKind::Reduce { input: t.view.clone(), op: ReduceOp::Max, dims: last.clone() },
        ));
        binary(BinaryOp::Sub, x, read(t.elem, spread(&m)?))
    } else {
        x
    };
    let e = g.result(tiles, &format!("{name}/exp"), t.elem, &shape, Some(&t.view))?;
    seq.body.push(op(tiles, &e.view, OpKind::Map(unary(UnaryOp::Exp, shifted))));
    let s = g.result(tiles, &format!("{name}/sum"), t.elem, &outer, None)?;
    seq.body.push(op(
        tiles,
        &s.view,
        OpKind::Reduce { input: e.view.clone(), op: ReduceOp::Add, dims: last },
    ));
    let quotient = binary(BinaryOp::Div, read(t.elem, e.view.clone()), read(t.elem, spread(&s)?));
    seq.body.push(op(tiles, &dest.view, OpKind::Map(quotient)));
    Ok(())
}

/// GCL's `CollectiveOperator` codes in `capi.h` order.
const COLLECTIVE_OPS: [vocab::CollectiveOp; 8] = [
    vocab::CollectiveOp::Add,
    vocab::CollectiveOp::Mean,
    vocab::CollectiveOp::Mul,
    vocab::CollectiveOp::Min,
    vocab::CollectiveOp::Max,
    vocab::CollectiveOp::And,
    vocab::CollectiveOp::Or,
    vocab::CollectiveOp::SquareAdd,
];

/// `gcl::*CrossReplica`: `kind` 0 all-reduce, 1 reduce-scatter, 2
/// all-gather, 3 all-to-all, 4 broadcast (from group member `root`); `op`
/// a `COLLECTIVE_OPS` code (reducing kinds only); `group_type` 0 all, 1
/// consecutive, 2 orthogonal, of `group_size` replicas.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn prs_op_collective(
    g: *mut Graph,
    seq: *mut Program,
    kind: i32,
    t: *const Tensor,
    op: i32,
    group_type: i32,
    group_size: u32,
    root: u32,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let seq = handle_mut(seq, "sequence")?;
        let t = handle(t, "data")?;
        let bad = |what: &str| ApiError::new(Status::PoplarError, format!("unknown collective {what}"));
        let kind = match kind {
            0 => vocab::CollectiveKind::AllReduce,
            1 => vocab::CollectiveKind::ReduceScatter,
            2 => vocab::CollectiveKind::AllGather,
            3 => vocab::CollectiveKind::AllToAll,
            4 => vocab::CollectiveKind::Broadcast { root },
            _ => return Err(bad("kind")),
        };
        let op = match kind.reduces() {
            true => Some(
                *usize::try_from(op)
                    .ok()
                    .and_then(|i| COLLECTIVE_OPS.get(i))
                    .ok_or_else(|| bad("operator"))?,
            ),
            false => None,
        };
        let group = match group_type {
            0 => vocab::CommGroup::All,
            1 => vocab::CommGroup::Consecutive(group_size),
            2 => vocab::CommGroup::Orthogonal(group_size),
            _ => return Err(bad("group type")),
        };
        put_box(out, g.collective(seq, kind, op, group, t, &name_of(name, kind.gcl_name())?)?)
    })
}

impl Graph {
    /// A cross-replica collective of `t`, appended to `seq`; checked as the
    /// PIR statement is (docs/scale-out.md).
    pub fn collective(
        &self,
        seq: &mut Program,
        kind: vocab::CollectiveKind,
        op: Option<vocab::CollectiveOp>,
        group: vocab::CommGroup,
        t: &Tensor,
        name: &str,
    ) -> Result<Tensor> {
        let err = |m: String| ApiError::new(Status::PoplarError, format!("{}: {m}", kind.gcl_name()));
        let tiles = &self.tiles;
        let mut core = self.core()?;
        let g = group.size(core.replication).map_err(err)?;
        if let Some(op) = op {
            if op.logical() != (t.elem == ElemType::Bool) {
                return Err(err(format!(
                    "operator {} does not combine {} tensors",
                    op.name(),
                    t.elem.cpp_name()
                )));
            }
        }
        let n = t.view.num_elements();
        let shape = match kind {
            vocab::CollectiveKind::ReduceScatter => vec![kind.output_elements(n, g.into())],
            vocab::CollectiveKind::AllGather => [vec![u64::from(g)], t.view.shape.clone()].concat(),
            vocab::CollectiveKind::AllToAll if t.view.shape.first() != Some(&u64::from(g)) => {
                return Err(err(format!(
                    "the outer dimension of shape {:?} must be the group size {g}",
                    t.view.shape
                )))
            }
            vocab::CollectiveKind::Broadcast { root } if root >= g => {
                return Err(err(format!("root replica {root} is outside a group of {g}")))
            }
            _ => t.view.shape.clone(),
        };
        let r = core.result(tiles, name, t.elem, &shape, Some(&t.view))?;
        seq.body.push(self::op(
            tiles,
            &r.view,
            OpKind::Collective { input: t.view.clone(), kind, op, group },
        ));
        Ok(r)
    }
}
