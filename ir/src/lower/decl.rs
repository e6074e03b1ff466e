//! Items declared and defined: the target, names entered in their
//! namespaces (first pass, so items may appear in any order), then each
//! item's meaning (second pass): tensors with their shapes, types, initial
//! values and tile mappings, host handles, streams, remote buffers, compute
//! sets, functions and programs. Part of [`super::Lowerer`].

use super::*;

impl Lowerer {
    fn declare_sym(&mut self, name: &ast::Ident<'_>, sym: Sym) -> R<()> {
        if let Some((_, prev)) = self.syms.get(name.name) {
            let prev = *prev;
            return Err(self.error(
                Diagnostic::error(name.span, format!("`{}` is declared more than once", name.name))
                    .with_secondary(prev, "first declared here"),
            ));
        }
        self.syms.insert(name.name.to_string(), (sym, name.span));
        Ok(())
    }

    fn declare_str(&mut self, name: &str, span: Span, sym: StrSym) -> R<()> {
        if let Some((_, prev)) = self.strs.get(name) {
            let prev = *prev;
            return Err(self.error(
                Diagnostic::error(span, format!("\"{name}\" is declared more than once"))
                    .with_secondary(prev, "first declared here"),
            ));
        }
        self.strs.insert(name.to_string(), (sym, span));
        Ok(())
    }

    fn eval_shape(&mut self, ty: &ast::TypeAst<'_>) -> R<Vec<u64>> {
        let mut shape = Vec::new();
        let mut bad = false;
        for e in &ty.shape {
            match self.eval_int(e) {
                Ok(d) if d >= 0 => shape.push(d as u64),
                Ok(d) => {
                    self.err(e.span, format!("dimension {d} is negative"));
                    bad = true;
                }
                Err(_) => bad = true,
            }
        }
        if bad {
            return Err(Reported);
        }
        if checked_num_elements(&shape).is_none() {
            return Err(self
                .err(ty.span, format!("shape {} has too many elements (at most 2^48)", shape_str(&shape))));
        }
        Ok(shape)
    }

    /// The target, before anything else (loop bounds and shapes may read
    /// its properties): the file's top-level `target` items.
    pub(super) fn declare_target(&mut self, items: &[Item<'_>]) {
        let mut target_span: Option<Span> = None;
        for it in items {
            if let Item::Target { preset, keys, span } = it {
                if let Some(prev) = target_span {
                    self.error(
                        Diagnostic::error(*span, "more than one `target` item")
                            .with_secondary(prev, "first target here"),
                    );
                    continue;
                }
                target_span = Some(*span);
                self.spans.target = Some(*span);
                let Some(p) = Preset::from_name(preset.name) else {
                    self.err(
                        preset.span,
                        format!("unknown target preset `{}` (expected mk1, mk2, bow or cpu)", preset.name),
                    );
                    continue;
                };
                let mut t = Target::preset(p);
                let mut seen: Vec<&str> = Vec::new();
                for (k, v) in keys {
                    if seen.contains(&k.name) {
                        self.err(k.span, format!("target key `{}` is given twice", k.name));
                        continue;
                    }
                    seen.push(k.name);
                    if vocab::IpuLinks::OPTIONS.iter().any(|(key, _)| *key == k.name) {
                        // Poplar's IPU-Link options take a word: `ipuLinkTopology = torus`.
                        let set = match &v.kind {
                            ExprKind::Name(word) => t.links.set(k.name, word),
                            _ => {
                                let words = vocab::IpuLinks::OPTIONS.iter().find(|(key, _)| *key == k.name);
                                let words = words.map(|(_, w)| w.join(", ")).unwrap_or_default();
                                Err(format!("`{}` takes one of the words {words}, not an expression", k.name))
                            }
                        };
                        if let Err(m) = set {
                            self.err(v.span, m);
                        }
                        continue;
                    }
                    let Ok(val) = self.eval_int(v) else { continue };
                    let Ok(val) = u32::try_from(val) else {
                        self.err(v.span, format!("target value {val} is out of range (1 to {})", u32::MAX));
                        continue;
                    };
                    if let Err(m) = t.set(k.name, val) {
                        let sp = if t.get(k.name).is_some() { v.span } else { k.span };
                        self.err(sp, m);
                    }
                }
                if let Err(m) = t.check() {
                    self.err(*span, m);
                }
                self.graph.target = t;
            }
        }
        if let Some(t) = &self.forced_target {
            self.graph.target = t.clone();
        }
    }

    /// First pass: every name, so items may come in any order.
    pub(super) fn declare(&mut self, flat: &[(&Item<'_>, Vec<(String, i64)>)]) {
        for (it, env) in flat {
            if let (Item::Target { span, .. }, false) = (it, env.is_empty()) {
                self.env = env.clone();
                self.err(*span, "a `target` item cannot be inside a `for` loop");
            }
        }
        for (it, env) in flat {
            if self.aborted {
                return;
            }
            self.env = env.clone();
            match it {
                Item::Decl(d) => {
                    let id = self.graph.tensors.next_key();
                    if self.declare_sym(&d.name, Sym::Tensor(id)).is_err() {
                        continue;
                    }
                    let shape = self.eval_shape(&d.ty).unwrap_or_default();
                    self.graph.tensors.push(Tensor {
                        name: d.name.name.to_string(),
                        kind: if d.is_const { TensorKind::Const } else { TensorKind::Var },
                        elem: elem_type(d.ty.scalar),
                        shape,
                        init: None,
                    });
                    self.spans.tensors.set(id, d.span);
                }
                Item::ComputeSet { name, span, .. } => {
                    let id = self.graph.compute_sets.next_key();
                    if self.declare_sym(name, Sym::ComputeSet(id)).is_ok() {
                        self.graph
                            .compute_sets
                            .push(ComputeSet { name: name.name.to_string(), vertices: Vec::new() });
                        self.spans.compute_sets.set(id, *span);
                    }
                }
                Item::Function { name, span, .. } => {
                    let id = self.graph.functions.next_key();
                    if self.declare_sym(name, Sym::Function(id)).is_ok() {
                        self.graph.functions.push(Program { name: name.name.to_string(), body: Vec::new() });
                        self.spans.functions.set(id, *span);
                    }
                }
                Item::Program { name, span, .. } => {
                    let id = self.graph.programs.next_key();
                    if self.declare_sym(name, Sym::Program(id)).is_ok() {
                        self.graph.programs.push(Program { name: name.name.to_string(), body: Vec::new() });
                        self.spans.programs.set(id, *span);
                    }
                }
                Item::Stream { name, ty, to_host, span } => {
                    let id = self.graph.streams.next_key();
                    if self.declare_str(name, *span, StrSym::Stream(id)).is_ok() {
                        let shape = self.eval_shape(ty).unwrap_or_default();
                        self.graph.streams.push(Stream {
                            name: name.clone(),
                            elem: elem_type(ty.scalar),
                            shape,
                            direction: if *to_host { HostDirection::ToHost } else { HostDirection::ToDevice },
                        });
                        self.spans.streams.set(id, *span);
                    }
                }
                Item::Remote { name, ty, repeats, span } => {
                    let id = self.graph.remote_buffers.next_key();
                    if self.declare_str(name, *span, StrSym::Remote(id)).is_ok() {
                        let shape = self.eval_shape(ty).unwrap_or_default();
                        let reps = match self.eval_int(repeats) {
                            Ok(r) if r >= 1 => r as u64,
                            Ok(r) => {
                                self.err(
                                    repeats.span,
                                    format!("a remote buffer needs at least one repeat, not {r}"),
                                );
                                1
                            }
                            Err(_) => 1,
                        };
                        self.graph.remote_buffers.push(RemoteBuffer {
                            name: name.clone(),
                            elem: elem_type(ty.scalar),
                            shape,
                            repeats: reps,
                        });
                        self.spans.remote_buffers.set(id, *span);
                    }
                }
                Item::HostIo { name, span, .. } => {
                    let id = HostHandleId(self.handles_declared);
                    self.handles_declared += 1;
                    // The tensor is resolved in the second pass.
                    let _ = self.declare_str(name, *span, StrSym::Handle(id));
                }
                Item::Target { .. } | Item::Codelets { .. } | Item::Map { .. } | Item::For(_) => {}
            }
        }
    }

    /// The compute set `name` declares, unless it is a duplicate (already
    /// reported).
    fn compute_set_to_define(&self, name: &ast::Ident<'_>) -> Option<ComputeSetId> {
        match self.syms.get(name.name).copied() {
            Some((Sym::ComputeSet(id), sp)) if sp == name.span => Some(id),
            _ => None,
        }
    }

    /// Reserves exactly for the `n` vertices (with `fields` fields) a
    /// top-level compute set writes out: tables of millions grown by
    /// doubling would hold up to twice.
    fn reserve_vertices(&mut self, vs: &mut Vec<VertexId>, n: usize, fields: usize) {
        self.graph.vertices.reserve_exact(n);
        self.spans.reserve_vertices(n, fields);
        vs.reserve_exact(n);
    }

    /// [`Lowerer::define`] for a top-level compute set whose body the file's
    /// parse skipped ([`crate::split`]): its chunks are parsed a batch at a
    /// time over rayon's threads, each batch lowered in order while the
    /// next is parsed. A chunk that does not parse is an error at it (the
    /// caller parses the file again whole for the exact diagnostic).
    pub(super) fn define_split(&mut self, name: &ast::Ident<'_>, src: &str, body: &split::Body) {
        let Some(id) = self.compute_set_to_define(name) else { return };
        let mut vs = Vec::new();
        self.reserve_vertices(&mut vs, body.vertices, body.fields);
        let chunks: Vec<(usize, usize)> = body.chunks().collect();
        let mut batches = chunks.chunks(split::BATCH_CHUNKS);
        let mut current = batches.next().map(|b| (b, split::parse_batch(src, b)));
        while let Some((batch, parsed)) = current.take() {
            let Some(parsed) = parsed else {
                let (s, e) = (batch[0].0, batch[batch.len() - 1].1);
                self.err(Span::new(s, e), "syntax error in this part of the compute set");
                self.aborted = true;
                return;
            };
            let next = batches.next();
            let (_, after) = rayon::join(
                || {
                    for items in parsed {
                        for b in items {
                            self.lower_cs_item(id, &b, &mut vs);
                            if self.aborted {
                                return;
                            }
                        }
                    }
                },
                || next.map(|b| (b, split::parse_batch(src, b))),
            );
            if self.aborted {
                return;
            }
            current = after;
        }
        self.graph.compute_sets[id].vertices = vs;
    }

    /// Second pass: everything that refers to names.
    pub(super) fn define(&mut self, it: &Item<'_>) {
        match it {
            Item::Target { .. } | Item::For(_) => {}
            Item::Codelets { path, options, span } => {
                let id =
                    self.graph.codelets.push(CodeletRef { path: path.clone(), options: options.clone() });
                self.spans.codelets.set(id, *span);
            }
            Item::Decl(d) => {
                let Some((Sym::Tensor(id), sp)) = self.syms.get(d.name.name).copied() else { return };
                if sp != d.name.span {
                    return; // a duplicate, already reported
                }
                if let Some(m) = &d.mapping {
                    if let Ok(mapping) = self.lower_mapping(m) {
                        let t = &self.graph.tensors[id];
                        let view = View::whole(id, &t.shape);
                        self.spans.mapping_iterations.record(self.graph.mappings.len(), &self.env);
                        self.graph.mappings.push(MapStmt { view, mapping });
                        self.spans.mappings.push(d.span);
                    }
                }
                if let Some(init) = &d.init {
                    let (elem, shape) = {
                        let t = &self.graph.tensors[id];
                        (t.elem, t.shape.clone())
                    };
                    if let Ok(v) = self.lower_init(init, elem, &shape) {
                        self.graph.tensors[id].init = Some(v);
                    }
                } else if d.is_const {
                    self.err(d.span, format!("const `{}` needs an initial value", d.name.name));
                }
            }
            Item::Map { view, mapping, span } => {
                let v = self.eval_view(view);
                let m = self.lower_mapping(mapping);
                // Each run of consecutive elements becomes an interval of
                // the mapping: an entity. The first is the item itself
                // (charged as one when a loop made it); the others are
                // what the view repeats beyond the text.
                let v = v.and_then(|(v, e)| {
                    let extra = v.raw_runs().saturating_sub(1);
                    self.charge(*span, extra.saturating_mul(ENTITY_COST)).map(|()| (v, e))
                });
                if let (Ok((v, _)), Ok(m)) = (v, m) {
                    self.spans.mapping_iterations.record(self.graph.mappings.len(), &self.env);
                    self.graph.mappings.push(MapStmt { view: v, mapping: m });
                    self.spans.mappings.push(*span);
                }
            }
            Item::HostIo { name, tensor, write, span } => {
                let Some((StrSym::Handle(id), sp)) = self.strs.get(name).copied() else { return };
                if sp != *span {
                    return;
                }
                let Ok((view, elem)) = self.eval_view(tensor) else { return };
                if *write && view.repeats_elements() {
                    self.err(tensor.span, format!("host_write \"{name}\" names an element more than once"));
                    return;
                }
                if id != self.graph.host_handles.next_key() {
                    return; // an earlier handle failed; errors are already reported
                }
                self.graph.host_handles.push(HostHandle {
                    name: name.clone(),
                    view,
                    elem,
                    direction: if *write { HostDirection::ToDevice } else { HostDirection::ToHost },
                });
                self.spans.host_handles.set(id, *span);
            }
            Item::Stream { .. } | Item::Remote { .. } => {}
            Item::ComputeSet { name, body, .. } => {
                let Some(id) = self.compute_set_to_define(name) else { return };
                let mut vs = Vec::new();
                if self.env.is_empty() {
                    // A top-level compute set is lowered once: free its
                    // syntax tree vertex by vertex while the graph grows.
                    let body = std::mem::take(&mut *body.borrow_mut());
                    let (n, fields) = body.iter().fold((0, 0), |(n, f), b| match b {
                        CsItem::Vertex(v) => (n + 1, f + v.fields.len()),
                        CsItem::For(_) => (n, f),
                    });
                    self.reserve_vertices(&mut vs, n, fields);
                    for b in body {
                        self.lower_cs_item(id, &b, &mut vs);
                        drop(b);
                        if self.aborted {
                            return;
                        }
                    }
                } else {
                    for b in body.borrow().iter() {
                        self.lower_cs_item(id, b, &mut vs);
                        if self.aborted {
                            return;
                        }
                    }
                }
                self.graph.compute_sets[id].vertices = vs;
            }
            Item::Function { name, body, .. } => {
                let Some((Sym::Function(id), sp)) = self.syms.get(name.name).copied() else { return };
                if sp != name.span {
                    return;
                }
                self.current_fn = Some(id);
                let mut spans = Vec::new();
                let b = self.lower_block(body, &mut spans);
                self.current_fn = None;
                self.graph.functions[id].body = b;
                self.spans.function_stmts.set(id, spans);
            }
            Item::Program { name, body, .. } => {
                let Some((Sym::Program(id), sp)) = self.syms.get(name.name).copied() else { return };
                if sp != name.span {
                    return;
                }
                self.current_fn = None;
                let mut spans = Vec::new();
                let b = self.lower_block(body, &mut spans);
                self.graph.programs[id].body = b;
                self.spans.program_stmts.set(id, spans);
            }
        }
    }

    pub(super) fn tensor_named(&mut self, n: &ast::Ident<'_>) -> R<TensorId> {
        match self.syms.get(n.name) {
            Some((Sym::Tensor(t), _)) => Ok(*t),
            Some(_) => Err(self.err(n.span, format!("`{}` is not a tensor", n.name))),
            None => {
                Err(self.unknown(n.span, "tensor", n.name, |l| l.sym_names(|s| matches!(s, Sym::Tensor(_)))))
            }
        }
    }

    fn lower_mapping(&mut self, m: &MappingAst<'_>) -> R<Mapping> {
        let total = self.graph.target.total_tiles();
        let check_tile = |l: &mut Lowerer, e: &Expr<'_>, t: i64, end: bool| -> R<u32> {
            let limit = if end { total as i64 } else { total as i64 - 1 };
            if t < 0 || t > limit {
                let d = tile_out_of_range(e.span, t, total);
                return Err(l.error(if end {
                    d.with_label(format!("tiles end at {t} (exclusive)"))
                } else {
                    d
                }));
            }
            Ok(t as u32)
        };
        match m {
            MappingAst::Tile(e) => {
                let t = self.eval_int(e)?;
                Ok(Mapping::Tile(check_tile(self, e, t, false)?))
            }
            MappingAst::Tiles(a, b) => {
                let x = self.eval_int(a)?;
                let y = self.eval_int(b)?;
                let x = check_tile(self, a, x, false)?;
                let y = check_tile(self, b, y, true)?;
                if x >= y {
                    return Err(self.err(a.span.to(b.span), format!("tile range {x}..{y} is empty")));
                }
                Ok(Mapping::Tiles(x, y))
            }
            MappingAst::Linear(None, _) => Ok(Mapping::Linear { grain: 1 }),
            MappingAst::Linear(Some(kv), _) => {
                let (k, v) = &**kv;
                if k.name != "grain" {
                    return Err(
                        self.err(k.span, format!("unknown mapping option `{}` (expected `grain`)", k.name))
                    );
                }
                let g = self.eval_int(v)?;
                if g < 1 {
                    return Err(self.err(v.span, format!("grain must be at least 1, not {g}")));
                }
                Ok(Mapping::Linear { grain: g as u64 })
            }
        }
    }
}
