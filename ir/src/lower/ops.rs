//! Lowering of library operations (`t = e`, `t += e`, `fill t v`): type and
//! shape inference for fused elementwise expressions, `reduce` and `matmul`.
//!
//! A child module of `lower`, so it works on the same [`Lowerer`]. Literals
//! have no type of their own: they take the type of the operand they meet
//! (or of the written tensor). Tensors of rank 0 and literals broadcast;
//! any other pair of operands must have equal shapes. An assignment to a
//! name not yet declared defines a new `var` tensor with the inferred type
//! and shape; it is then a tensor like any other.

use super::{shape_str, Lowerer, Sym, R};
use crate::ast::{self, BinOp, CmpOp, Expr, ExprKind};
use crate::diag::{Diagnostic, Span};
use crate::graph::{Stmt, Tensor, TensorKind};
use crate::ops::{BinaryOp, MapExpr, MapKind, Modifier, Op, OpKind, RandomDist, ReduceOp, UnaryOp};
use crate::types::ElemType;
use crate::view::View;
use vocab::{CollectiveKind, CollectiveOp, CommGroup};

mod random;

use random::RANDOM_FUNCTIONS;

/// A lowered subexpression: its tree, its type (`None`: literals only, not
/// yet typed) and its shape (`None`: a scalar that broadcasts).
struct Typed {
    e: MapExpr,
    elem: Option<ElemType>,
    shape: Option<Vec<u64>>,
    span: Span,
}

impl Lowerer {
    /// `target = value` or `target op= value`.
    pub(super) fn lower_assign(
        &mut self,
        target: &Expr<'_>,
        op: Option<BinOp>,
        value: &Expr<'_>,
        span: Span,
    ) -> R<Stmt> {
        // A new name defines a tensor from the value's type and shape.
        if let (ExprKind::Name(n), None) = (&target.kind, op) {
            if !self.syms.contains_key(*n) && self.lookup_var(n).is_none() {
                let (kind, elem, shape) = self.op_value(value, None, None, target.span)?;
                let id = self.graph.tensors.next_key();
                self.graph.tensors.push(Tensor {
                    name: n.to_string(),
                    kind: TensorKind::Var,
                    elem,
                    shape: shape.clone(),
                    init: None,
                });
                self.spans.tensors.set(id, target.span);
                self.syms.insert(n.to_string(), (Sym::Tensor(id), target.span));
                return Ok(Stmt::Op(Box::new(Op {
                    out: View::whole(id, &shape),
                    kind,
                    tiles: self.op_tiles.clone(),
                })));
            }
        }
        let (out, t_elem) = self.op_target(target)?;
        let kind = match op {
            None => self.op_value(value, Some(t_elem), Some(&out.shape), target.span)?.0,
            Some(b) => {
                let bop = match b {
                    BinOp::Add => BinaryOp::Add,
                    BinOp::Sub => BinaryOp::Sub,
                    BinOp::Mul => BinaryOp::Mul,
                    _ => BinaryOp::Div,
                };
                let lhs = Typed {
                    e: MapExpr { elem: t_elem, kind: MapKind::Input(out.clone()) },
                    elem: Some(t_elem),
                    shape: Some(out.shape.clone()),
                    span: target.span,
                };
                let rhs = self.op_expr(value)?;
                let mut t = self.combine(bop, lhs, rhs, span)?;
                self.fit(&mut t, t_elem, &out.shape, target.span)?;
                OpKind::Map(t.e)
            }
        };
        let _ = span;
        Ok(Stmt::Op(Box::new(Op { out, kind, tiles: self.op_tiles.clone() })))
    }

    /// `fill t value`.
    pub(super) fn lower_fill(
        &mut self,
        word: &ast::Ident<'_>,
        target: &Expr<'_>,
        value: &Expr<'_>,
    ) -> R<Stmt> {
        if word.name != "fill" {
            return Err(self.err(
                word.span,
                format!(
                    "unknown statement `{}` (a statement starting with a name is `fill t value` or `t = …`)",
                    word.name
                ),
            ));
        }
        let (out, elem) = self.op_target(target)?;
        let mut t = self.op_expr(value)?;
        self.fit(&mut t, elem, &out.shape, target.span)?;
        Ok(Stmt::Op(Box::new(Op { out, kind: OpKind::Map(t.e), tiles: self.op_tiles.clone() })))
    }

    /// The written region: a `var` tensor or a view of one.
    fn op_target(&mut self, target: &Expr<'_>) -> R<(View, ElemType)> {
        let (v, elem) = self.eval_view(target)?;
        for t in v.tensors() {
            if self.graph.tensors[t].kind == TensorKind::Const {
                let name = self.graph.tensors[t].name.clone();
                return Err(self.err(target.span, format!("cannot write to const `{name}`")));
            }
        }
        Ok((v, elem))
    }

    /// Checks a value against the written region's type and shape.
    fn fit(&mut self, t: &mut Typed, elem: ElemType, shape: &[u64], target_span: Span) -> R<()> {
        match t.elem {
            None => t.e.settle(elem),
            Some(e) if e != elem => {
                return Err(self.error(
                    Diagnostic::error(
                        t.span,
                        format!("type mismatch: the value is `{e}` but the written tensor is `{elem}`"),
                    )
                    .with_secondary(target_span, format!("`{elem}` here"))
                    .with_note(format!("convert with cast<{elem}>(…)")),
                ))
            }
            Some(_) => {}
        }
        if let Some(s) = &t.shape {
            if s.as_slice() != shape {
                return Err(self.error(
                    Diagnostic::error(
                        t.span,
                        format!(
                            "shape mismatch: the value has shape {} but the written region has shape {}",
                            shape_str(s),
                            shape_str(shape)
                        ),
                    )
                    .with_secondary(target_span, format!("shape {}", shape_str(shape))),
                ));
            }
        }
        Ok(())
    }

    /// The right-hand side of an assignment: an elementwise expression, or
    /// a `reduce` / `matmul` call. `want` is the written tensor's type and
    /// shape when it exists. Returns the kind, type and shape.
    fn op_value(
        &mut self,
        value: &Expr<'_>,
        want_elem: Option<ElemType>,
        want_shape: Option<&[u64]>,
        target_span: Span,
    ) -> R<(OpKind, ElemType, Vec<u64>)> {
        if let ExprKind::Call(c) = &value.kind {
            let (f, args) = &**c;
            let special = match f.name {
                "reduce" => Some(self.op_reduce(value, args)?),
                "matmul" => Some(self.op_matmul(value, args)?),
                "dynamic_slice" => Some(self.op_dynamic_slice(value, args)?),
                name if RANDOM_FUNCTIONS.contains(&name) => Some(self.op_random(value, name, args)?),
                name if CollectiveKind::NAMES.contains(&name) => Some(self.op_collective(value, name, args)?),
                _ => None,
            };
            if let Some((kind, elem, shape)) = special {
                if let Some(w) = want_elem {
                    if w != elem {
                        return Err(self.err(
                            value.span,
                            format!(
                                "type mismatch: `{}` gives `{elem}` but the written tensor is `{w}`",
                                f.name
                            ),
                        ));
                    }
                }
                if let Some(w) = want_shape {
                    if w != shape.as_slice() {
                        return Err(self.err(
                            value.span,
                            format!(
                                "shape mismatch: `{}` gives shape {} but the written region has shape {}",
                                f.name,
                                shape_str(&shape),
                                shape_str(w)
                            ),
                        ));
                    }
                }
                return Ok((kind, elem, shape));
            }
        }
        let mut t = self.op_expr(value)?;
        match (want_elem, want_shape) {
            (Some(e), Some(s)) => {
                self.fit(&mut t, e, s, target_span)?;
                Ok((OpKind::Map(t.e), e, s.to_vec()))
            }
            _ => {
                let Some(elem) = t.elem else {
                    return Err(self.err(
                        value.span,
                        "cannot infer an element type from literals alone; declare the tensor with `var` first",
                    ));
                };
                Ok((OpKind::Map(t.e), elem, t.shape.unwrap_or_default()))
            }
        }
    }

    /// One node of an elementwise expression.
    fn op_expr(&mut self, e: &Expr<'_>) -> R<Typed> {
        let lit = |kind: MapKind| Typed {
            e: MapExpr { elem: ElemType::Float, kind },
            elem: None,
            shape: None,
            span: e.span,
        };
        match &e.kind {
            ExprKind::Int(i) => Ok(lit(MapKind::Const(*i as f64))),
            ExprKind::Float(f) => Ok(lit(MapKind::Const(*f))),
            ExprKind::TargetProp(p) => Ok(lit(MapKind::Const(self.target_property(p, e.span)? as f64))),
            ExprKind::Bool(b) => Ok(Typed {
                e: MapExpr { elem: ElemType::Bool, kind: MapKind::Const(*b as u8 as f64) },
                elem: Some(ElemType::Bool),
                shape: None,
                span: e.span,
            }),
            ExprKind::Neg(x) => {
                // A negative literal stays a literal.
                if let ExprKind::Int(_) | ExprKind::Float(_) = x.kind {
                    let mut t = self.op_expr(x)?;
                    if let MapKind::Const(c) = &mut t.e.kind {
                        *c = -*c;
                    }
                    t.span = e.span;
                    return Ok(t);
                }
                let a = self.op_expr(x)?;
                self.unary(UnaryOp::Neg, a, e.span)
            }
            ExprKind::Bin(op, a, b) => {
                let bop = match op {
                    BinOp::Add => BinaryOp::Add,
                    BinOp::Sub => BinaryOp::Sub,
                    BinOp::Mul => BinaryOp::Mul,
                    BinOp::Div => BinaryOp::Div,
                    BinOp::Rem => BinaryOp::Rem,
                };
                let x = self.op_expr(a);
                let y = self.op_expr(b);
                self.combine(bop, x?, y?, e.span)
            }
            ExprKind::Compare(op, a, b) => {
                let bop = match op {
                    CmpOp::Lt => BinaryOp::Lt,
                    CmpOp::Le => BinaryOp::Le,
                    CmpOp::Gt => BinaryOp::Gt,
                    CmpOp::Ge => BinaryOp::Ge,
                    CmpOp::Eq => BinaryOp::Eq,
                    CmpOp::Ne => BinaryOp::Ne,
                };
                let x = self.op_expr(a);
                let y = self.op_expr(b);
                self.combine(bop, x?, y?, e.span)
            }
            ExprKind::Cast(s, x) => {
                let to = ElemType::from_pir(s).unwrap_or(ElemType::Float);
                let mut a = self.op_expr(x)?;
                match a.elem {
                    None => {
                        a.e.settle(to);
                        a.elem = Some(to);
                        a.span = e.span;
                        Ok(a)
                    }
                    Some(_) => Ok(Typed {
                        e: MapExpr { elem: to, kind: MapKind::Cast(Box::new(a.e)) },
                        elem: Some(to),
                        shape: a.shape,
                        span: e.span,
                    }),
                }
            }
            ExprKind::Call(c) => {
                let (f, args) = &**c;
                let fname = f.name;
                let unary = UnaryOp::from_name(fname).filter(|u| *u != UnaryOp::Neg);
                let binary = BinaryOp::from_function_name(fname);
                if fname == "select" {
                    return self.op_select(e, args);
                }
                if unary.is_none() && binary.is_none() {
                    if matches!(fname, "reduce" | "matmul" | "dynamic_slice" | "dynamic_update")
                        || CollectiveKind::NAMES.contains(&fname)
                        || RANDOM_FUNCTIONS.contains(&fname)
                    {
                        return Err(self.err(
                            e.span,
                            format!("`{fname}` cannot be part of an elementwise expression; assign it to a name first"),
                        ));
                    }
                    if !VIEW_FUNCTIONS.contains(&fname) {
                        let unary = UnaryOp::ALL.iter().filter(|u| u.0 != UnaryOp::Neg).map(|u| u.1);
                        let names: Vec<&str> = unary.chain(BinaryOp::function_names()).collect();
                        return Err(self.err(
                            f.span,
                            format!(
                                "unknown operation `{fname}` (elementwise: {} select cast<T>; \
                                 also reduce, matmul, the random generators, and the view functions)",
                                names.join(" ")
                            ),
                        ));
                    }
                    return self.op_view(e);
                }
                let want = if unary.is_some() { 1 } else { 2 };
                if args.len() != want || args.iter().any(|a| a.name.is_some()) {
                    return Err(self.err(
                        e.span,
                        format!(
                            "`{fname}` takes {want} positional argument{}",
                            if want == 1 { "" } else { "s" }
                        ),
                    ));
                }
                if let Some(u) = unary {
                    let a = self.op_expr(&args[0].value)?;
                    return self.unary(u, a, e.span);
                }
                let x = self.op_expr(&args[0].value);
                let y = self.op_expr(&args[1].value);
                self.combine(binary.unwrap_or(BinaryOp::Min), x?, y?, e.span)
            }
            ExprKind::Name(_) | ExprKind::Index(..) => self.op_view(e),
            ExprKind::Str(_) => Err(self.err(e.span, "expected a tensor expression, found a string")),
            ExprKind::List(_) => Err(self.err(e.span, "expected a tensor expression, found a list")),
        }
    }

    /// A tensor operand.
    fn op_view(&mut self, e: &Expr<'_>) -> R<Typed> {
        let (v, elem) = self.eval_view(e)?;
        let shape = if v.shape.is_empty() { None } else { Some(v.shape.clone()) };
        Ok(Typed { e: MapExpr { elem, kind: MapKind::Input(v) }, elem: Some(elem), shape, span: e.span })
    }

    fn unary(&mut self, op: UnaryOp, mut a: Typed, span: Span) -> R<Typed> {
        if a.elem.is_none() && op.is_predicate() {
            // `is_nan(1.0)`: the literal is a float; the result is `bool`.
            a.e.settle(ElemType::Float);
            a.elem = Some(ElemType::Float);
        }
        let elem = match a.elem {
            Some(t) => Some(op.result(t).map_err(|m| self.err(span, m))?),
            // `exp(1)`: literals of a float function are float until settled.
            None => None,
        };
        Ok(Typed {
            e: MapExpr { elem: elem.unwrap_or(ElemType::Float), kind: MapKind::Unary(op, Box::new(a.e)) },
            elem,
            shape: a.shape,
            span,
        })
    }

    /// Two operands of a binary operation: types must agree (literals take
    /// the other's), shapes must agree (scalars broadcast).
    fn combine(&mut self, op: BinaryOp, mut a: Typed, mut b: Typed, span: Span) -> R<Typed> {
        let elem = match (a.elem, b.elem) {
            (Some(x), Some(y)) if x != y => {
                return Err(self.error(
                    Diagnostic::error(span, format!("type mismatch: `{x}` {} `{y}`", op.name()))
                        .with_secondary(a.span, format!("`{x}`"))
                        .with_secondary(b.span, format!("`{y}`"))
                        .with_note("convert one side with cast<T>(…)"),
                ))
            }
            (Some(x), _) => {
                if b.elem.is_none() {
                    b.e.settle(x);
                }
                Some(x)
            }
            (None, Some(y)) => {
                a.e.settle(y);
                Some(y)
            }
            (None, None) => None,
        };
        if let Some(t) = elem {
            op.result(t).map_err(|m| self.err(span, m))?;
        }
        let shape = match (a.shape.take(), b.shape.take()) {
            (Some(x), Some(y)) if x != y => {
                return Err(self.error(
                    Diagnostic::error(
                        span,
                        format!("shape mismatch: {} {} {}", shape_str(&x), op.name(), shape_str(&y)),
                    )
                    .with_secondary(a.span, format!("shape {}", shape_str(&x)))
                    .with_secondary(b.span, format!("shape {}", shape_str(&y)))
                    .with_note("only equal shapes combine; scalars broadcast"),
                ))
            }
            (Some(x), _) | (None, Some(x)) => Some(x),
            (None, None) => None,
        };
        let out = if op.is_comparison() { Some(ElemType::Bool) } else { elem };
        let node_elem = if op.is_comparison() { ElemType::Bool } else { elem.unwrap_or(ElemType::Float) };
        Ok(Typed {
            e: MapExpr { elem: node_elem, kind: MapKind::Binary(op, Box::new(a.e), Box::new(b.e)) },
            elem: if elem.is_none() { None } else { out },
            shape,
            span,
        })
    }

    /// `select(a, b, c)`: `c ? a : b`, `c` of `bool`, `a` and `b` of one
    /// type; shapes as for a binary operator (scalars broadcast).
    fn op_select(&mut self, e: &Expr<'_>, args: &[ast::Arg<'_>]) -> R<Typed> {
        if args.len() != 3 || args.iter().any(|a| a.name.is_some()) {
            return Err(self.err(e.span, "`select` takes 3 positional arguments: select(a, b, condition)"));
        }
        let a = self.op_expr(&args[0].value);
        let b = self.op_expr(&args[1].value);
        let c = self.op_expr(&args[2].value);
        let (a, b, mut c) = (a?, b?, c?);
        match c.elem {
            None => c.e.settle(ElemType::Bool),
            Some(ElemType::Bool) => {}
            Some(t) => {
                return Err(self.err(c.span, format!("the condition of `select` must be `bool`, not `{t}`")));
            }
        }
        // The values combine as a binary operator's operands do; the
        // condition's shape joins theirs.
        // (`==` accepts every type, `bool` included.)
        let mut ab = self.combine(BinaryOp::Eq, a, b, e.span)?;
        let MapKind::Binary(_, x, y) = ab.e.kind else {
            return Err(self.err(e.span, "internal: select operands"));
        };
        let shape = match (ab.shape.take(), c.shape.take()) {
            (Some(s), Some(t)) if s != t => {
                return Err(self.err(
                    e.span,
                    format!(
                        "shape mismatch: select of values {} and condition {}",
                        shape_str(&s),
                        shape_str(&t)
                    ),
                ))
            }
            (Some(s), _) | (None, Some(s)) => Some(s),
            (None, None) => None,
        };
        let elem = x.elem;
        Ok(Typed {
            e: MapExpr { elem, kind: MapKind::Select(x, y, Box::new(c.e)) },
            elem: ab.elem.map(|_| elem),
            shape,
            span: e.span,
        })
    }

    /// `reduce(x, op, dims = [...])`; without `dims`, every dimension.
    fn op_reduce(&mut self, e: &Expr<'_>, args: &[ast::Arg<'_>]) -> R<(OpKind, ElemType, Vec<u64>)> {
        let (pos, named): (Vec<_>, Vec<_>) = args.iter().partition(|a| a.name.is_none());
        if pos.len() != 2 {
            return Err(
                self.err(e.span, "`reduce` takes a tensor and an operator: reduce(x, add, dims = [0])")
            );
        }
        let mut dims_arg = None;
        for a in &named {
            let n = a.name.as_ref().map_or("", |n| n.name);
            if n != "dims" {
                let sp = a.name.as_ref().map_or(e.span, |n| n.span);
                return Err(self.err(sp, format!("`reduce` has no argument `{n}` (it takes `dims`)")));
            }
            dims_arg = Some(&a.value);
        }
        let (input, elem) = self.eval_view(&pos[0].value)?;
        let op = match &pos[1].value.kind {
            ExprKind::Name(n) => ReduceOp::from_name(n),
            _ => None,
        };
        let Some(op) = op else {
            return Err(
                self.err(pos[1].value.span, "expected a reduction operator: add, mul, max, min, and, or")
            );
        };
        let logical = matches!(op, ReduceOp::And | ReduceOp::Or);
        if logical != (elem == ElemType::Bool) {
            let msg = if logical {
                format!("`{}` reduces `bool` tensors, not `{elem}`", op.name())
            } else {
                format!("`{}` reduces numeric tensors, not `bool` (use `and` or `or`)", op.name())
            };
            return Err(self.err(e.span, msg));
        }
        let rank = input.rank();
        let mut dims: Vec<u32> = match dims_arg {
            None => (0..rank as u32).collect(),
            Some(d) => {
                let list = self.eval_int_list(d)?;
                let mut out = Vec::new();
                for x in list {
                    if x < 0 || x as usize >= rank {
                        return Err(self.err(
                            d.span,
                            format!(
                                "reduce dimension {x} is out of range for shape {}",
                                shape_str(&input.shape)
                            ),
                        ));
                    }
                    if out.contains(&(x as u32)) {
                        return Err(self.err(d.span, format!("reduce dimension {x} is given twice")));
                    }
                    out.push(x as u32);
                }
                out
            }
        };
        dims.sort_unstable();
        let shape = crate::ops::reduced_shape(&input.shape, &dims);
        Ok((OpKind::Reduce { input, op, dims }, elem, shape))
    }

    /// `matmul(a, b)`: `[m, k] x [k, n]`, or batched `[g, m, k] x [g, k, n]`.
    fn op_matmul(&mut self, e: &Expr<'_>, args: &[ast::Arg<'_>]) -> R<(OpKind, ElemType, Vec<u64>)> {
        if args.len() != 2 || args.iter().any(|a| a.name.is_some()) {
            return Err(self.err(e.span, "`matmul` takes two tensors: matmul(a, b)"));
        }
        let a = self.eval_view(&args[0].value);
        let b = self.eval_view(&args[1].value);
        let ((a, ta), (b, tb)) = (a?, b?);
        if ta != tb {
            return Err(self.error(
                Diagnostic::error(e.span, format!("type mismatch: matmul of `{ta}` and `{tb}`"))
                    .with_secondary(args[0].value.span, format!("`{ta}`"))
                    .with_secondary(args[1].value.span, format!("`{tb}`")),
            ));
        }
        if !matches!(ta, ElemType::Float | ElemType::Half | ElemType::Int | ElemType::UInt) {
            return Err(
                self.err(e.span, format!("`matmul` takes float, half, int or uint tensors, not `{ta}`"))
            );
        }
        let (sa, sb) = (&a.shape, &b.shape);
        let Some(shape) = crate::ops::matmul_shape(sa, sb) else {
            return Err(self.error(
                Diagnostic::error(
                    e.span,
                    format!("shape mismatch: matmul of {} and {}", shape_str(sa), shape_str(sb)),
                )
                .with_secondary(args[0].value.span, format!("shape {}", shape_str(sa)))
                .with_secondary(args[1].value.span, format!("shape {}", shape_str(sb)))
                .with_note("expected [m, k] x [k, n], or [g, m, k] x [g, k, n]"),
            ));
        };
        Ok((OpKind::MatMul { a, b }, ta, shape))
    }
}

impl Lowerer {
    /// `all_reduce(x, add)`, `reduce_scatter(x, add)`, `all_gather(x)`,
    /// `all_to_all(x)`, `replica_broadcast(x, root = 0)`, each with an optional
    /// `group = all | consecutive(n) | orthogonal(n)`.
    fn op_collective(
        &mut self,
        e: &Expr<'_>,
        fname: &str,
        args: &[ast::Arg<'_>],
    ) -> R<(OpKind, ElemType, Vec<u64>)> {
        let (pos, named): (Vec<_>, Vec<_>) = args.iter().partition(|a| a.name.is_none());
        let reduces = matches!(fname, "all_reduce" | "reduce_scatter");
        let usage = match fname {
            "all_reduce" | "reduce_scatter" => format!("{fname}(x, add, group = all)"),
            "replica_broadcast" => "replica_broadcast(x, root = 0, group = all)".to_string(),
            _ => format!("{fname}(x, group = all)"),
        };
        if pos.len() != 1 + usize::from(reduces) {
            let what = if reduces { "a tensor and an operator" } else { "a tensor" };
            return Err(self.err(e.span, format!("`{fname}` takes {what}: {usage}")));
        }
        let replicas = self.graph.target.replication_factor;
        let mut group = CommGroup::All;
        let mut root = 0u32;
        for a in &named {
            let n = a.name.as_ref().map_or("", |n| n.name);
            match n {
                "group" => group = self.comm_group(&a.value)?,
                "root" if fname == "replica_broadcast" => {
                    let v = self.eval_int(&a.value)?;
                    root = u32::try_from(v)
                        .map_err(|_| self.err(a.value.span, format!("root {v} is negative")))?;
                }
                _ => {
                    let sp = a.name.as_ref().map_or(e.span, |n| n.span);
                    let takes = if fname == "replica_broadcast" { "`root` and `group`" } else { "`group`" };
                    return Err(self.err(sp, format!("`{fname}` has no argument `{n}` (it takes {takes})")));
                }
            }
        }
        let g = group.size(replicas).map_err(|m| self.err(e.span, m))?;
        let (input, elem) = self.eval_view(&pos[0].value)?;
        let op = match reduces {
            false => None,
            true => {
                let op = match &pos[1].value.kind {
                    ExprKind::Name(n) => CollectiveOp::from_name(n),
                    _ => None,
                };
                let Some(op) = op else {
                    let names: Vec<&str> = CollectiveOp::ALL.iter().map(|(_, n)| *n).collect();
                    return Err(self.err(
                        pos[1].value.span,
                        format!("expected a collective operator: {}", names.join(", ")),
                    ));
                };
                if op.logical() != (elem == ElemType::Bool) {
                    let msg = match op.logical() {
                        true => format!("`{}` combines `bool` tensors, not `{elem}`", op.name()),
                        false => format!(
                            "`{}` combines numeric tensors, not `bool` (use `and` or `or`)",
                            op.name()
                        ),
                    };
                    return Err(self.err(e.span, msg));
                }
                Some(op)
            }
        };
        let n = input.num_elements();
        let (kind, shape) = match fname {
            "all_reduce" => (CollectiveKind::AllReduce, input.shape.clone()),
            "reduce_scatter" => (
                CollectiveKind::ReduceScatter,
                vec![CollectiveKind::ReduceScatter.output_elements(n, g.into())],
            ),
            "all_gather" => {
                let mut s = vec![u64::from(g)];
                s.extend(&input.shape);
                (CollectiveKind::AllGather, s)
            }
            "all_to_all" => {
                if input.shape.first() != Some(&u64::from(g)) {
                    return Err(self.err(
                        pos[0].value.span,
                        format!(
                            "`all_to_all` sends slice i of the outer dimension to member i: the outer dimension \
                             must be the group size {g}, not shape {}",
                            shape_str(&input.shape)
                        ),
                    ));
                }
                (CollectiveKind::AllToAll, input.shape.clone())
            }
            _ => {
                if root >= g {
                    return Err(self.err(e.span, format!("root {root} is outside a group of {g} replicas")));
                }
                (CollectiveKind::Broadcast { root }, input.shape.clone())
            }
        };
        Ok((OpKind::Collective { input, kind, op, group }, elem, shape))
    }

    /// `all`, `consecutive(n)` or `orthogonal(n)`.
    fn comm_group(&mut self, e: &Expr<'_>) -> R<CommGroup> {
        let bad = "expected a group: all, consecutive(n) or orthogonal(n)";
        match &e.kind {
            ExprKind::Name("all") => Ok(CommGroup::All),
            ExprKind::Call(c) if c.1.len() == 1 && c.1[0].name.is_none() => {
                let make = match c.0.name {
                    "consecutive" => CommGroup::Consecutive,
                    "orthogonal" => CommGroup::Orthogonal,
                    _ => return Err(self.err(e.span, bad)),
                };
                let v = self.eval_int(&c.1[0].value)?;
                let n = u32::try_from(v)
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| self.err(c.1[0].value.span, format!("a group of {v} replicas")))?;
                Ok(make(n))
            }
            _ => Err(self.err(e.span, bad)),
        }
    }
}

/// The checked arguments of `dynamic_slice` / `dynamic_update`.
struct DynArgs {
    views: Vec<(View, ElemType, Span)>,
    offsets: View,
    dims: Vec<u32>,
    sizes: Vec<u64>,
}

impl Lowerer {
    /// `dynamic_update(t, s, off, dims = [...], sizes = [...])` as a statement.
    pub(super) fn lower_op_call(&mut self, f: &ast::Ident<'_>, args: &[ast::Arg<'_>], span: Span) -> R<Stmt> {
        if f.name != "dynamic_update" {
            return Err(self.err(
                f.span,
                format!(
                    "unknown statement `{}(…)` (the operation called as a statement is dynamic_update)",
                    f.name
                ),
            ));
        }
        let a = self.dyn_args(span, "dynamic_update", args, 2)?;
        let (t, te, tspan) = a.views[0].clone();
        let (u, ue, uspan) = a.views[1].clone();
        for x in t.tensors() {
            if self.graph.tensors[x].kind == TensorKind::Const {
                let name = self.graph.tensors[x].name.clone();
                return Err(self.err(tspan, format!("cannot write to const `{name}`")));
            }
        }
        if te != ue {
            return Err(self.error(
                Diagnostic::error(span, format!("type mismatch: dynamic_update of `{te}` with `{ue}`"))
                    .with_secondary(tspan, format!("`{te}`"))
                    .with_secondary(uspan, format!("`{ue}`")),
            ));
        }
        let want = self.dyn_shape(&t.shape, &a);
        if u.shape != want {
            return Err(self.err(
                uspan,
                format!(
                    "shape mismatch: the update has shape {} but the region has shape {}",
                    shape_str(&u.shape),
                    shape_str(&want)
                ),
            ));
        }
        Ok(Stmt::Op(Box::new(Op {
            out: t,
            kind: OpKind::DynamicUpdate { update: u, offsets: a.offsets, dims: a.dims, sizes: a.sizes },
            tiles: self.op_tiles.clone(),
        })))
    }

    /// `dynamic_slice(t, off, dims = [...], sizes = [...])`.
    fn op_dynamic_slice(&mut self, e: &Expr<'_>, args: &[ast::Arg<'_>]) -> R<(OpKind, ElemType, Vec<u64>)> {
        let a = self.dyn_args(e.span, "dynamic_slice", args, 1)?;
        let (t, te, _) = a.views[0].clone();
        let shape = self.dyn_shape(&t.shape, &a);
        Ok((OpKind::DynamicSlice { input: t, offsets: a.offsets, dims: a.dims, sizes: a.sizes }, te, shape))
    }

    /// `shape` with the sliced dimensions resized.
    fn dyn_shape(&self, shape: &[u64], a: &DynArgs) -> Vec<u64> {
        let mut s = shape.to_vec();
        for (d, n) in a.dims.iter().zip(&a.sizes) {
            s[*d as usize] = *n;
        }
        s
    }

    /// `nviews` tensors, the offsets tensor, `dims` and `sizes`, checked.
    fn dyn_args(&mut self, span: Span, fname: &str, args: &[ast::Arg<'_>], nviews: usize) -> R<DynArgs> {
        let (pos, named): (Vec<_>, Vec<_>) = args.iter().partition(|a| a.name.is_none());
        if pos.len() != nviews + 1 {
            let what = if nviews == 1 {
                "dynamic_slice(t, offsets, dims = [..], sizes = [..])"
            } else {
                "dynamic_update(t, update, offsets, dims = [..], sizes = [..])"
            };
            return Err(self.err(span, format!("`{fname}` takes {} tensors: {what}", nviews + 1)));
        }
        let mut dims_e = None;
        let mut sizes_e = None;
        for a in &named {
            match a.name.as_ref().map_or("", |n| n.name) {
                "dims" => dims_e = Some(&a.value),
                "sizes" => sizes_e = Some(&a.value),
                n => {
                    let sp = a.name.as_ref().map_or(span, |x| x.span);
                    return Err(self
                        .err(sp, format!("`{fname}` has no argument `{n}` (it takes `dims` and `sizes`)")));
                }
            }
        }
        let (Some(dims_e), Some(sizes_e)) = (dims_e, sizes_e) else {
            return Err(self.err(span, format!("`{fname}` needs `dims = [..]` and `sizes = [..]`")));
        };
        let mut views = Vec::new();
        for a in &pos[..nviews] {
            let (v, t) = self.eval_view(&a.value)?;
            views.push((v, t, a.value.span));
        }
        let (offsets, ot) = self.eval_view(&pos[nviews].value)?;
        let ospan = pos[nviews].value.span;
        let dims = self.eval_int_list(dims_e)?;
        let sizes = self.eval_int_list(sizes_e)?;
        let shape = views[0].0.shape.clone();
        if dims.len() != sizes.len() || dims.is_empty() {
            return Err(self.err(span, "`dims` and `sizes` must be lists of the same, non-zero length"));
        }
        let mut du: Vec<u32> = Vec::new();
        let mut su: Vec<u64> = Vec::new();
        for (&d, &n) in dims.iter().zip(&sizes) {
            if d < 0 || d as usize >= shape.len() || du.contains(&(d as u32)) {
                return Err(self.err(
                    dims_e.span,
                    format!("dimension {d} is out of range or repeated for shape {}", shape_str(&shape)),
                ));
            }
            if n < 0 || n as u64 > shape[d as usize] {
                return Err(self.err(
                    sizes_e.span,
                    format!("size {n} does not fit dimension {d} of shape {}", shape_str(&shape)),
                ));
            }
            du.push(d as u32);
            su.push(n as u64);
        }
        if !matches!(
            ot,
            ElemType::Int
                | ElemType::UInt
                | ElemType::Short
                | ElemType::UShort
                | ElemType::Char
                | ElemType::UChar
        ) || offsets.num_elements() != du.len() as u64
        {
            return Err(self.err(
                ospan,
                format!(
                    "the offsets must be {} integer element{} (one per dimension), not `{ot}` of shape {}",
                    du.len(),
                    if du.len() == 1 { "" } else { "s" },
                    shape_str(&offsets.shape)
                ),
            ));
        }
        Ok(DynArgs { views, offsets, dims: du, sizes: su })
    }
}

/// The view functions an operand may use (checked by `eval_view_call`).
const VIEW_FUNCTIONS: [&str; 8] =
    ["transpose", "flatten", "reverse", "dimshuffle", "reshape", "broadcast", "concat", "affine"];
