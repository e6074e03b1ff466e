//! Expressions of PIR as the lowering evaluates them: integer arithmetic
//! over loop variables, views (slices, indexing and the view functions),
//! values and initialisers. Part of [`super::Lowerer`].

use super::*;

impl Lowerer {
    /// The whole view of tensor `t` and its element type, from the cache
    /// (the caller puts it back).
    pub(crate) fn take_whole(&mut self, t: TensorId) -> (View, ElemType) {
        let tt = &self.graph.tensors[t];
        let v = self
            .whole_views
            .get_mut(t.0 as usize)
            .and_then(Option::take)
            .unwrap_or_else(|| View::whole(t, &tt.shape));
        (v, tt.elem)
    }

    pub(crate) fn lookup_var(&self, name: &str) -> Option<i64> {
        self.env.iter().rev().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// `target.<name>`: `num_tiles` (all IPUs' tiles) or one of the target
    /// keys, as the target stands once every override is applied.
    pub(crate) fn target_property(&mut self, name: &str, span: Span) -> R<i64> {
        let t = &self.graph.target;
        let value = match name {
            "num_tiles" => Some(t.total_tiles()),
            key => t.get(key),
        };
        match value {
            Some(v) => Ok(i64::from(v)),
            None => {
                let names = std::iter::once("num_tiles").chain(crate::target::TARGET_KEYS);
                let hint = spelling::did_you_mean(name, names.clone())
                    .map(|s| format!("help: did you mean `target.{s}`?"))
                    .unwrap_or_default();
                let all: Vec<String> = names.map(|n| format!("target.{n}")).collect();
                Err(self.error(
                    Diagnostic::error(span, format!("unknown target property `target.{name}`"))
                        .with_note(hint)
                        .with_note(format!("the properties are: {}", all.join(", "))),
                ))
            }
        }
    }

    /// Evaluates an integer expression.
    pub(crate) fn eval_int(&mut self, e: &Expr<'_>) -> R<i64> {
        match &e.kind {
            ExprKind::Int(i) => i64::try_from(*i)
                .map_err(|_| self.err(e.span, format!("integer {i} is too large (at most {})", i64::MAX))),
            ExprKind::Name(n) => match self.lookup_var(n) {
                Some(v) => Ok(v),
                None => {
                    if self.syms.contains_key(*n) {
                        let msg = format!("expected an integer, but `{n}` is not a loop variable");
                        return Err(self.err(e.span, msg));
                    }
                    Err(self.unknown(e.span, "name", n, |l| l.env.iter().map(|(v, _)| v.clone()).collect()))
                }
            },
            ExprKind::TargetProp(p) => self.target_property(p, e.span),
            ExprKind::Neg(x) => {
                // `-9223372036854775808` as a literal.
                if let ExprKind::Int(i) = x.kind {
                    if i == 1u64 << 63 {
                        return Ok(i64::MIN);
                    }
                }
                let v = self.eval_int(x)?;
                v.checked_neg().ok_or_else(|| self.err(e.span, "integer overflow"))
            }
            ExprKind::Bin(op, a, b) => {
                let x = self.eval_int(a);
                let y = self.eval_int(b);
                let (x, y) = (x?, y?);
                let r = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    BinOp::Mul => x.checked_mul(y),
                    BinOp::Div | BinOp::Rem => {
                        if y == 0 {
                            return Err(self.err(
                                b.span,
                                if *op == BinOp::Div { "division by zero" } else { "remainder by zero" },
                            ));
                        }
                        if *op == BinOp::Div {
                            x.checked_div(y)
                        } else {
                            x.checked_rem(y)
                        }
                    }
                };
                r.ok_or_else(|| self.err(e.span, "integer overflow"))
            }
            ExprKind::Call(c) if c.0.name == "min" || c.0.name == "max" => {
                let (f, args) = &**c;
                if args.len() != 2 || args.iter().any(|a| a.name.is_some()) {
                    return Err(self.err(e.span, format!("`{}` takes two integer arguments", f.name)));
                }
                let x = self.eval_int(&args[0].value);
                let y = self.eval_int(&args[1].value);
                let (x, y) = (x?, y?);
                Ok(if f.name == "min" { x.min(y) } else { x.max(y) })
            }
            ExprKind::Float(_) => Err(self.err(e.span, "expected an integer, found a floating-point number")),
            ExprKind::Bool(_) => Err(self.err(e.span, "expected an integer, found a boolean")),
            ExprKind::Str(_) => Err(self.err(e.span, "expected an integer, found a string")),
            ExprKind::List(_) => Err(self.err(e.span, "expected an integer, found a list")),
            ExprKind::Call(..) | ExprKind::Index(..) | ExprKind::Compare(..) | ExprKind::Cast(..) => {
                Err(self.err(e.span, "expected an integer, found a tensor expression"))
            }
        }
    }

    pub(crate) fn eval_int_list(&mut self, e: &Expr<'_>) -> R<Vec<i64>> {
        let ExprKind::List(items) = &e.kind else {
            return Err(self.err(e.span, "expected a list of integers `[a, b, …]`"));
        };
        let mut out = Vec::with_capacity(items.len());
        let mut bad = false;
        for it in items {
            match self.eval_int(it) {
                Ok(v) => out.push(v),
                Err(_) => bad = true,
            }
        }
        if bad {
            Err(Reported)
        } else {
            Ok(out)
        }
    }

    /// Evaluates a tensor expression to a view and its element type.
    /// A view expression. A view that repeats elements (a broadcast, a
    /// zero stride) has more elements than it reaches, and the compiler
    /// works element by element on it wherever it is used (an edge, an
    /// operand, a copy): each of its elements is charged against the
    /// expansion budget like an item, once per use (views inside it are not
    /// charged again), so that work stays within the budget whatever sizes
    /// the view names.
    pub(crate) fn eval_view(&mut self, e: &Expr<'_>) -> R<(View, ElemType)> {
        let (v, elem) = self.eval_view_unchecked(e)?;
        let n = v.num_elements();
        if n > v.distinct_bound(|t| self.graph.tensors[t].num_elements()) {
            self.charge(e.span, n.saturating_mul(ENTITY_COST))?;
        }
        Ok((v, elem))
    }

    fn eval_view_unchecked(&mut self, e: &Expr<'_>) -> R<(View, ElemType)> {
        match &e.kind {
            ExprKind::Name(n) => match self.syms.get(*n) {
                Some((Sym::Tensor(t), _)) => {
                    let t = *t;
                    let tt = &self.graph.tensors[t];
                    Ok((View::whole(t, &tt.shape), tt.elem))
                }
                Some(_) => Err(self.err(e.span, format!("`{n}` is not a tensor"))),
                None if self.lookup_var(n).is_some() => {
                    Err(self.err(e.span, format!("expected a tensor, but `{n}` is a loop variable")))
                }
                None => {
                    Err(self.unknown(e.span, "tensor", n, |l| l.sym_names(|s| matches!(s, Sym::Tensor(_)))))
                }
            },
            ExprKind::Index(base, subs) => {
                if let ExprKind::Str(_) = base.kind {
                    return Err(self.err(e.span, "expected a tensor, found a remote buffer"));
                }
                // `t[…]` of a tensor: index its cached whole view.
                let whole = match &base.kind {
                    ExprKind::Name(n) => match self.syms.get(*n) {
                        Some((Sym::Tensor(t), _)) => Some(*t),
                        _ => None,
                    },
                    _ => None,
                };
                let b = match whole {
                    Some(t) => Ok(self.take_whole(t)),
                    None => self.eval_view_unchecked(base),
                };
                let mut ss = Vec::with_capacity(subs.len());
                let mut bad = false;
                for s in subs {
                    match s {
                        Sub::Index(x) => match self.eval_int(x) {
                            Ok(v) => ss.push(Subscript::Index(v)),
                            Err(_) => bad = true,
                        },
                        Sub::Slice(abc) => {
                            let (a, b, c) = &**abc;
                            let mut opt = |x: &Option<Expr>| -> Option<i64> {
                                match x {
                                    None => None,
                                    Some(x) => match self.eval_int(x) {
                                        Ok(v) => Some(v),
                                        Err(_) => {
                                            bad = true;
                                            None
                                        }
                                    },
                                }
                            };
                            let (a, b, c) = (opt(a), opt(b), opt(c));
                            ss.push(Subscript::Slice { start: a, end: b, step: c });
                        }
                    }
                }
                let (b, ty) = b?;
                if bad {
                    return Err(Reported);
                }
                let v = b.index(&ss);
                if let Some(t) = whole {
                    let i = t.0 as usize;
                    if i >= self.whole_views.len() {
                        self.whole_views.resize(i + 1, None);
                    }
                    self.whole_views[i] = Some(b);
                }
                let v = v.map_err(|m| self.err(e.span, m))?;
                Ok((v, ty))
            }
            ExprKind::Call(c) => self.eval_view_call(e, &c.0, &c.1),
            ExprKind::Str(s) => Err(self.err(e.span, format!("expected a tensor, found the string \"{s}\""))),
            ExprKind::List(_) => Err(self.err(e.span, "expected a tensor, found a list")),
            _ => Err(self.err(e.span, "expected a tensor expression, found a number")),
        }
    }

    pub(crate) fn eval_view_call(
        &mut self,
        e: &Expr<'_>,
        f: &ast::Ident<'_>,
        args: &[ast::Arg<'_>],
    ) -> R<(View, ElemType)> {
        let fname = f.name;
        let (pos, named): (Vec<&ast::Arg<'_>>, Vec<&ast::Arg<'_>>) =
            args.iter().partition(|a| a.name.is_none());
        let allowed_named: &[&str] = if fname == "concat" { &["dim"] } else { &[] };
        for a in &named {
            let n = a.name.as_ref().map(|n| n.name).unwrap_or("");
            if !allowed_named.contains(&n) {
                let sp = a.name.as_ref().map_or(e.span, |n| n.span);
                return Err(self.err(sp, format!("`{fname}` has no argument `{n}`")));
            }
        }
        let arity = |l: &mut Lowerer, n: usize| -> R<()> {
            if pos.len() != n {
                return Err(l.err(
                    e.span,
                    format!(
                        "`{fname}` takes {n} argument{}, not {}",
                        if n == 1 { "" } else { "s" },
                        pos.len()
                    ),
                ));
            }
            Ok(())
        };
        let res = match fname {
            "transpose" | "flatten" | "reverse" => {
                arity(self, 1)?;
                let (v, ty) = self.eval_view_unchecked(&pos[0].value)?;
                let r = match fname {
                    "transpose" => v.transpose(),
                    "flatten" => Ok(v.flatten()),
                    _ => v.reverse(),
                };
                r.map(|v| (v, ty))
            }
            "dimshuffle" | "reshape" => {
                arity(self, 2)?;
                let v = self.eval_view_unchecked(&pos[0].value);
                let l = self.eval_int_list(&pos[1].value);
                let ((v, ty), l) = (v?, l?);
                let r = if fname == "dimshuffle" { v.dimshuffle(&l) } else { v.reshape(&l) };
                r.map(|v| (v, ty))
            }
            "broadcast" => {
                arity(self, 2)?;
                let v = self.eval_view_unchecked(&pos[0].value);
                let n = self.eval_int(&pos[1].value);
                let ((v, ty), n) = (v?, n?);
                v.broadcast(n).map(|v| (v, ty))
            }
            "concat" => {
                if pos.is_empty() {
                    return Err(self.err(e.span, "`concat` needs at least one tensor"));
                }
                let dim = match named.first() {
                    Some(a) => self.eval_int(&a.value)?,
                    None => 0,
                };
                let mut views = Vec::with_capacity(pos.len());
                let mut ty0: Option<ElemType> = None;
                let mut bad = false;
                for a in &pos {
                    match self.eval_view_unchecked(&a.value) {
                        Ok((v, ty)) => {
                            if let Some(t0) = ty0 {
                                if t0 != ty {
                                    self.err(
                                        a.value.span,
                                        format!("concat of different element types: `{t0}` and `{ty}`"),
                                    );
                                    bad = true;
                                }
                            }
                            ty0 = Some(ty);
                            views.push(v);
                        }
                        Err(_) => bad = true,
                    }
                }
                if bad {
                    return Err(Reported);
                }
                View::concat(&views, dim).map(|v| (v, ty0.unwrap_or(ElemType::Float)))
            }
            "affine" => {
                arity(self, 3)?;
                let ExprKind::Name(tn) = &pos[0].value.kind else {
                    return Err(self.err(pos[0].value.span, "`affine` takes a tensor name first"));
                };
                let t = self.tensor_named(&ast::Ident { name: tn, span: pos[0].value.span })?;
                let off = self.eval_int(&pos[1].value)?;
                let ExprKind::List(ds) = &pos[2].value.kind else {
                    return Err(self.err(pos[2].value.span, "expected `[[size, stride], …]`"));
                };
                let mut dims = Vec::new();
                for d in ds {
                    let l = self.eval_int_list(d)?;
                    if l.len() != 2 {
                        return Err(self.err(d.span, "expected `[size, stride]`"));
                    }
                    dims.push((l[0], l[1]));
                }
                let tt = &self.graph.tensors[t];
                let (n, ty) = (tt.num_elements(), tt.elem);
                View::affine(t, n, off, &dims).map(|v| (v, ty))
            }
            "min" | "max" => {
                return Err(self.err(e.span, format!("expected a tensor expression, found `{fname}(…)`, an integer")))
            }
            _ => {
                return Err(self.err(
                    f.span,
                    format!("unknown view function `{fname}` (expected transpose, dimshuffle, reshape, flatten, reverse, broadcast, concat or affine)"),
                ))
            }
        };
        res.map_err(|m| self.err(e.span, m))
    }

    /// A literal value (initial values, vertex fields).
    pub(crate) fn eval_value(&mut self, e: &Expr<'_>) -> R<Value> {
        match &e.kind {
            ExprKind::Float(f) => Ok(Value::Float(*f)),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Neg(x) if matches!(x.kind, ExprKind::Float(_)) => {
                let ExprKind::Float(f) = x.kind else { return Err(Reported) };
                Ok(Value::Float(-f))
            }
            ExprKind::Int(i) => Ok(Value::Int(*i as i128)),
            ExprKind::Neg(x) if matches!(x.kind, ExprKind::Int(_)) => {
                let ExprKind::Int(i) = x.kind else { return Err(Reported) };
                Ok(Value::Int(-(i as i128)))
            }
            _ => Ok(Value::Int(self.eval_int(e)? as i128)),
        }
    }

    /// Appends `v` as an `elem` (the shared codec), after checking that it
    /// is a number of the right kind and, for integers, in the type's range.
    pub(crate) fn encode(&mut self, span: Span, v: Value, elem: ElemType, out: &mut Vec<u8>) -> R<()> {
        match (elem.int_range(), v) {
            (None, Value::Bool(_)) => {
                return Err(self.err(span, format!("expected a number for `{elem}`, found a boolean")))
            }
            (Some(_), Value::Float(f)) => {
                return Err(self.err(span, format!("expected an integer for `{elem}`, found {f:?}")))
            }
            (Some((lo, hi)), Value::Int(i)) if i < lo || i > hi => {
                return Err(self.err(span, format!("value {i} is out of range for `{elem}` ({lo} to {hi})")))
            }
            _ => {}
        }
        vocab::encode(elem, v, out);
        Ok(())
    }

    pub(crate) fn lower_init(&mut self, e: &Expr<'_>, elem: ElemType, shape: &[u64]) -> R<Init> {
        if let ExprKind::Name("replication_index") = e.kind {
            use ElemType::*;
            if !matches!(elem, Short | UShort | Int | UInt | Long | ULong) {
                return Err(self.err(
                    e.span,
                    format!(
                        "`replication_index` initialises an integer tensor of 16 bits or more (uint, int, …), \
                         not `{elem}`"
                    ),
                ));
            }
            return Ok(Init::ReplicationIndex);
        }
        if !matches!(e.kind, ExprKind::List(_)) {
            let v = self.eval_value(e)?;
            let mut b = Vec::new();
            self.encode(e.span, v, elem, &mut b)?;
            return Ok(Init::Splat(b));
        }
        let n = shape.iter().product::<u64>();
        let mut out = Vec::with_capacity((n as usize).min(1 << 26) * elem.size() as usize);
        self.init_level(e, elem, shape, 0, &mut out)?;
        Ok(Init::Values(out))
    }

    pub(crate) fn init_level(
        &mut self,
        e: &Expr<'_>,
        elem: ElemType,
        shape: &[u64],
        depth: usize,
        out: &mut Vec<u8>,
    ) -> R<()> {
        match (&e.kind, shape.get(depth)) {
            (ExprKind::List(items), Some(&d)) => {
                if items.len() as u64 != d {
                    return Err(self.err(
                        e.span,
                        format!(
                            "initial value has {} entries at depth {depth}, but dimension {depth} of shape {} has {d}",
                            items.len(),
                            shape_str(shape)
                        ),
                    ));
                }
                for it in items {
                    self.init_level(it, elem, shape, depth + 1, out)?;
                }
                Ok(())
            }
            (ExprKind::List(_), None) => Err(self.err(
                e.span,
                format!("initial value is nested deeper than the shape {} allows", shape_str(shape)),
            )),
            (_, Some(_)) => Err(self
                .err(e.span, format!("expected a list for dimension {depth} of shape {}", shape_str(shape)))),
            (_, None) => {
                let v = self.eval_value(e)?;
                self.encode(e.span, v, elem, out)
            }
        }
    }
}
