//! Program bodies: statements, copies and their ends, predicates, and the
//! check that functions do not call themselves. Part of [`super::Lowerer`].

use super::*;

impl Lowerer {
    pub(crate) fn lower_block(&mut self, body: &[ast::Stmt<'_>], spans: &mut Vec<Span>) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in body {
            self.lower_stmt(s, &mut out, spans);
            if self.aborted {
                break;
            }
        }
        out
    }

    pub(crate) fn scalar_pred(&mut self, e: &Expr<'_>, what: &str) -> R<View> {
        let (v, _) = self.eval_view(e)?;
        if v.num_elements() != 1 {
            return Err(self.err(
                e.span,
                format!(
                    "{what} must be a single element, but this has shape {} ({} elements)",
                    shape_str(&v.shape),
                    v.num_elements()
                ),
            ));
        }
        Ok(v)
    }

    pub(crate) fn lower_stmt(&mut self, s: &ast::Stmt<'_>, out: &mut Vec<Stmt>, spans: &mut Vec<Span>) {
        use ast::Stmt as S;
        if let S::For(f) = s {
            self.for_loop(f, |l, b: &ast::Stmt<'_>| l.lower_stmt(b, out, spans));
            return;
        }
        if let S::OnTiles { ranges, body, span } = s {
            self.on_tiles(ranges, body, *span, out, spans);
            return;
        }
        let span = stmt_span(s);
        if self.tick(span).is_err() {
            return;
        }
        let slot = spans.len();
        spans.push(span);
        let r: R<Stmt> = (|| -> R<Stmt> {
            Ok(match s {
                S::Copy { src, dst, span } => self.lower_copy(src, dst, *span)?,
                S::Execute(n, _) => match self.syms.get(n.name) {
                    Some((Sym::ComputeSet(c), _)) => Stmt::Execute(*c),
                    Some(_) => return Err(self.err(n.span, format!("`{}` is not a compute set", n.name))),
                    None => {
                        let names = |l: &Lowerer| l.sym_names(|s| matches!(s, Sym::ComputeSet(_)));
                        return Err(self.unknown(n.span, "compute set", n.name, names));
                    }
                },
                S::Print { style, label, view, .. } => {
                    let style = match style {
                        None => vocab::PrintStyle::Pir,
                        Some(n) if n.name == "poplar" => vocab::PrintStyle::Poplar,
                        Some(n) => {
                            return Err(self.err(
                                n.span,
                                format!(
                                    "unknown print layout `{}` (the one other layout is `poplar`)",
                                    n.name
                                ),
                            ))
                        }
                    };
                    Stmt::Print { label: label.clone(), view: self.eval_view(view)?.0, style }
                }
                S::Repeat { count, body, .. } => {
                    let c = self.eval_int(count)?;
                    if c < 0 {
                        return Err(
                            self.err(count.span, format!("repeat count must not be negative, not {c}"))
                        );
                    }
                    Stmt::Repeat { count: c as u64, body: self.lower_block(body, spans) }
                }
                S::While { cond, pred, until, body, .. } => {
                    let cond = self.lower_block(cond, spans);
                    let p = self.scalar_pred(pred, "a `while` predicate");
                    let body = self.lower_block(body, spans);
                    Stmt::While { cond, pred: p?, until: *until, body }
                }
                S::If { pred, then, else_, .. } => {
                    let p = self.scalar_pred(pred, "an `if` predicate");
                    let then = self.lower_block(then, spans);
                    let else_ = else_.as_ref().map(|b| self.lower_block(b, spans)).unwrap_or_default();
                    Stmt::If { pred: p?, then, else_ }
                }
                S::Switch { selector, cases, default, .. } => {
                    let sel = self.scalar_pred(selector, "a `switch` selector");
                    let mut cs: Vec<(i64, Vec<Stmt>)> = Vec::new();
                    let mut case_spans: Vec<(i64, Span)> = Vec::new();
                    let mut bad = false;
                    for (v, b, sp) in cases {
                        match self.eval_int(v) {
                            Ok(k) => {
                                if let Some((_, prev)) = case_spans.iter().find(|c| c.0 == k) {
                                    let prev = *prev;
                                    self.error(
                                        Diagnostic::error(v.span, format!("duplicate switch case {k}"))
                                            .with_secondary(prev, "first case here"),
                                    );
                                    bad = true;
                                }
                                case_spans.push((k, *sp));
                                let body = self.lower_block(b, spans);
                                cs.push((k, body));
                            }
                            Err(_) => bad = true,
                        }
                    }
                    let default = default.as_ref().map(|b| self.lower_block(b, spans)).unwrap_or_default();
                    let sel = sel?;
                    if bad {
                        return Err(Reported);
                    }
                    Stmt::Switch { selector: sel, cases: cs, default }
                }
                S::Undef(e, _) => Stmt::Undef(self.eval_view(e)?.0),
                S::Sync(_) => Stmt::Sync,
                S::Call(n, sp) => match self.syms.get(n.name) {
                    Some((Sym::Function(f), _)) => {
                        let f = *f;
                        self.calls.push((self.current_fn, f, *sp));
                        Stmt::Call(f)
                    }
                    Some(_) => return Err(self.err(n.span, format!("`{}` is not a function", n.name))),
                    None => {
                        let names = |l: &Lowerer| l.sym_names(|s| matches!(s, Sym::Function(_)));
                        return Err(self.unknown(n.span, "function", n.name, names));
                    }
                },
                S::Block(b, _) => Stmt::Block(self.lower_block(b, spans)),
                S::Named(n) => {
                    let ast::Named { word, name, body, .. } = &**n;
                    if word.name != "block" {
                        return Err(self.err(
                            word.span,
                            format!(
                                "unknown statement `{}` (a name and a string before a body is `block \"name\" {{ … }}`)",
                                word.name
                            ),
                        ));
                    }
                    Stmt::Named { name: name.clone(), body: self.lower_block(body, spans) }
                }
                S::For(_) | S::OnTiles { .. } => return Err(Reported),
                S::Assign { target, op, value, span } => self.lower_assign(target, *op, value, *span)?,
                S::Fill { word, target, value, .. } => self.lower_fill(word, target, value)?,
                S::OpCall(c, span) => self.lower_op_call(&c.0, &c.1, *span)?,
            })
        })();
        match r {
            Ok(st) => out.push(st),
            Err(_) => {
                spans.truncate(slot);
            }
        }
    }

    /// `tiles a..b, c..d { … }`: the body's statements, in place, with
    /// their operations placed on those tiles. A block inside another
    /// names tiles of the outer one.
    fn on_tiles(
        &mut self,
        ranges: &[(Expr<'_>, Expr<'_>)],
        body: &[ast::Stmt<'_>],
        span: Span,
        out: &mut Vec<Stmt>,
        spans: &mut Vec<Span>,
    ) {
        let total = self.graph.target.total_tiles();
        let mut tiles = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            let (Ok(x), Ok(y)) = (self.eval_int(a), self.eval_int(b)) else { return };
            if x < 0 || x >= total as i64 {
                self.error(tile_out_of_range(a.span, x, total));
                return;
            }
            if y < 0 || y > total as i64 {
                self.error(
                    tile_out_of_range(b.span, y, total).with_label(format!("tiles end at {y} (exclusive)")),
                );
                return;
            }
            tiles.push((x as u32, y as u32));
        }
        let set = match crate::ops::TileSet::new(&tiles) {
            Ok(set) => set,
            Err(why) => {
                self.error(Diagnostic::error(span, why));
                return;
            }
        };
        if let Some(outer) = &self.op_tiles {
            if let Some(t) = set.ranges().iter().flat_map(|&(a, b)| a..b).find(|&t| !outer.contains(t)) {
                let d = Diagnostic::error(
                    span,
                    format!("tile {t} is outside the enclosing `tiles {outer}` block (a nested block names some of its tiles)"),
                );
                self.error(d);
                return;
            }
        }
        let saved = self.op_tiles.replace(set);
        for b in body {
            self.lower_stmt(b, out, spans);
            if self.aborted {
                break;
            }
        }
        self.op_tiles = saved;
    }

    pub(crate) fn lower_copy(&mut self, src: &Expr<'_>, dst: &Expr<'_>, span: Span) -> R<Stmt> {
        let a = self.copy_end(src);
        let b = self.copy_end(dst);
        let ((a, an, at), (b, bn, bt)) = (a?, b?);
        let stream_dir = |l: &Lowerer, e: &CopyEnd| match e {
            CopyEnd::Stream(s) => Some(l.graph.streams[*s].direction),
            _ => None,
        };
        if !matches!(a, CopyEnd::Tensor(_)) && !matches!(b, CopyEnd::Tensor(_)) {
            return Err(self.err(span, "a copy needs a tensor at one end at least"));
        }
        if stream_dir(self, &a) == Some(HostDirection::ToHost) {
            return Err(
                self.err(src.span, "cannot copy from a stream `to host`; its direction is device to host")
            );
        }
        if stream_dir(self, &b) == Some(HostDirection::ToDevice) {
            return Err(
                self.err(dst.span, "cannot copy to a stream `from host`; its direction is host to device")
            );
        }
        if an != bn {
            return Err(self.error(
                Diagnostic::error(
                    span,
                    format!("copy element counts differ: the source has {an}, the destination {bn}"),
                )
                .with_secondary(src.span, format!("{an} elements"))
                .with_secondary(dst.span, format!("{bn} elements")),
            ));
        }
        if at != bt {
            return Err(self.err(span, format!("copy element types differ: `{at}` to `{bt}`")));
        }
        if let CopyEnd::Tensor(v) = &b {
            if let Some(t) =
                v.tensors().into_iter().find(|t| self.graph.tensors[*t].kind == TensorKind::Const)
            {
                let n = self.graph.tensors[t].name.clone();
                return Err(self.err(dst.span, format!("cannot copy into const tensor `{n}`")));
            }
        }
        // Numbered when the graph is complete.
        Ok(Stmt::Copy { src: a, dst: b, id: CopyStmtId(0) })
    }

    /// One end of a copy, with its element count and type.
    pub(crate) fn copy_end(&mut self, e: &Expr<'_>) -> R<(CopyEnd, u64, ElemType)> {
        match &e.kind {
            ExprKind::Str(s) => match self.strs.get(s) {
                Some((StrSym::Stream(id), _)) => {
                    let st = &self.graph.streams[*id];
                    Ok((CopyEnd::Stream(*id), st.num_elements(), st.elem))
                }
                Some((StrSym::Remote(_), _)) => {
                    Err(self.err(e.span, format!("remote buffer \"{s}\" needs a repeat index: \"{s}\"[i]")))
                }
                Some((StrSym::Handle(_), _)) => Err(self.err(
                    e.span,
                    format!("\"{s}\" is a host handle; copies take streams, remote buffers or tensors"),
                )),
                None => {
                    let d = Diagnostic::error(e.span, format!("unknown stream \"{s}\""));
                    let mut names: Vec<&str> = self
                        .strs
                        .iter()
                        .filter(|(_, (k, _))| matches!(k, StrSym::Stream(_) | StrSym::Remote(_)))
                        .map(|(n, _)| n.as_str())
                        .collect();
                    names.sort_unstable();
                    let hint =
                        spelling::did_you_mean(s, names).map(|n| format!("help: did you mean \"{n}\"?"));
                    Err(self.error(d.with_note(hint.unwrap_or_default())))
                }
            },
            ExprKind::Index(base, subs) if matches!(base.kind, ExprKind::Str(_)) => {
                let ExprKind::Str(s) = &base.kind else { return Err(Reported) };
                let Some((StrSym::Remote(id), _)) = self.strs.get(s).copied() else {
                    return Err(self.err(base.span, format!("unknown remote buffer \"{s}\"")));
                };
                let [Sub::Index(ix)] = subs.as_slice() else {
                    return Err(self.err(e.span, "a remote buffer takes one repeat index"));
                };
                let i = self.eval_int(ix)?;
                let rb = &self.graph.remote_buffers[id];
                if i < 0 || i as u64 >= rb.repeats {
                    let n = rb.repeats;
                    return Err(
                        self.err(ix.span, format!("repeat {i} is out of range for \"{s}\" ({n} repeats)"))
                    );
                }
                Ok((CopyEnd::Remote(id, i as u64), rb.num_elements(), rb.elem))
            }
            _ => {
                let (v, t) = self.eval_view(e)?;
                let n = v.num_elements();
                Ok((CopyEnd::Tensor(v), n, t))
            }
        }
    }

    pub(crate) fn check_recursion(&mut self) {
        let n = self.graph.functions.len();
        let mut adj: Vec<Vec<(FunctionId, Span)>> = vec![Vec::new(); n];
        for &(from, to, sp) in &self.calls {
            if let Some(f) = from {
                adj[f.0 as usize].push((to, sp));
            }
        }
        // Iterative DFS with colours; report one cycle per back edge found.
        let mut colour = vec![0u8; n];
        for start in 0..n {
            if colour[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            colour[start] = 1;
            while let Some(&mut (v, ref mut i)) = stack.last_mut() {
                if *i < adj[v].len() {
                    let (w, sp) = adj[v][*i];
                    *i += 1;
                    let w = w.0 as usize;
                    if colour[w] == 1 {
                        let pos = stack.iter().position(|&(x, _)| x == w).unwrap_or(0);
                        let mut names: Vec<String> = stack[pos..]
                            .iter()
                            .map(|&(x, _)| self.graph.functions[FunctionId(x as u32)].name.clone())
                            .collect();
                        names.push(self.graph.functions[FunctionId(w as u32)].name.clone());
                        self.err(sp, format!("recursive call: {}", names.join(" -> ")));
                    } else if colour[w] == 0 {
                        colour[w] = 1;
                        stack.push((w, 0));
                    }
                } else {
                    colour[v] = 2;
                    stack.pop();
                }
            }
        }
    }
}
