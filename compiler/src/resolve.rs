//! `resolve_vertices`: every vertex of the graph against the metadata of its
//! codelet (vertex type, fields with direction, element type, kind).
//!
//! Type names are compared in a normal spelling (no spaces around `<`, `,`,
//! `>` and `::`, element types in their canonical C++ spelling, so
//! `Sum<half, 4>` and `Sum<half,4>`, `unsigned` and `unsigned int` agree);
//! an enum argument written as its value matches the type `popc` named by
//! the enumerator when it compiled the codelets for this graph
//! ([`Codelets::aliases`]; a prebuilt `.gp` knows only the enumerator).
//! Each vertex must set every field of its type exactly once; edges must
//! have the kind (scalar: one element; vector: any rank, flattened; vector
//! list: `[t0, t1, …]`), direction (no writes to constants) and element type
//! of the field; plain fields take a literal that fits their type. The
//! result is a side table: the used vertex types, and per vertex its type and
//! which PIR field sets each codelet field.

use std::collections::HashMap;
use std::sync::Arc;

use ir::{EntityRef, FieldValue, Graph, Literal, PrimaryMap, SecondaryMap, Spans, TensorKind, VertexId};
use linker::gp;

use crate::error::{Collector, Stage, StageError};
use crate::ids::VertexTypeId;
use crate::Codelets;

/// A vertex type used by the graph: which object, which entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeRef {
    pub object: u32,
    pub index: u32,
}

/// The result of [`resolve_vertices`].
#[derive(Clone, Debug)]
pub struct Resolved {
    /// Vertex types the graph uses, in order of first use (the image's order).
    pub types: PrimaryMap<VertexTypeId, TypeRef>,
    /// Per vertex: its type.
    pub vertex_type: SecondaryMap<VertexId, VertexTypeId>,
    /// Per vertex: start of its entries in `field_source` (one per codelet field).
    field_start: Vec<u32>,
    /// For codelet field `k` of vertex `v`: the index of the PIR field that sets it.
    field_source: Vec<u32>,
}

impl Resolved {
    /// The codelet metadata of used type `t`.
    pub fn type_info<'a>(&self, codelets: &'a Codelets, t: VertexTypeId) -> &'a gp::VertexType {
        let r = self.types[t];
        &codelets.objects[r.object as usize].vertex_types[r.index as usize]
    }

    /// The codelet metadata of vertex `v`'s type.
    pub fn vertex_info<'a>(&self, codelets: &'a Codelets, v: VertexId) -> &'a gp::VertexType {
        self.type_info(codelets, self.vertex_type[v])
    }

    /// The PIR field of vertex `v` that sets codelet field `k`.
    pub fn field_source(&self, v: VertexId, k: usize) -> usize {
        self.field_source[self.field_start[v.index()] as usize + k] as usize
    }
}

/// The normal spelling of a vertex type name (see the module doc):
/// [`vocab::VertexName::key`], or for a name that does not parse, the name
/// with its runs of spaces collapsed (it can only match another such name).
pub fn normalize_type_name(name: &str) -> String {
    match vocab::VertexName::parse(name) {
        Ok(n) => n.key(),
        Err(_) => name.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

fn kind_words(f: &gp::Field) -> String {
    let e = f.elem.cpp_name();
    let dir = match f.direction {
        Some(gp::Direction::Input) => "Input",
        Some(gp::Direction::Output) => "Output",
        Some(gp::Direction::InOut) => "InOut",
        None => "",
    };
    match f.kind {
        gp::FieldKind::Scalar => format!("{dir}<{e}>"),
        gp::FieldKind::Vector(_) => format!("{dir}<Vector<{e}>>"),
        gp::FieldKind::VectorList(_) => format!("Vector<{dir}<Vector<{e}>>>"),
        gp::FieldKind::ScalarList(_) => format!("Vector<{dir}<{e}>>"),
        gp::FieldKind::Plain => e.to_string(),
    }
}

/// Resolves every vertex; all problems are reported together.
pub fn resolve_vertices(graph: &Graph, spans: &Spans, codelets: &Codelets) -> Result<Resolved, StageError> {
    let mut by_name: HashMap<String, TypeRef> = HashMap::new();
    for (o, obj) in codelets.objects.iter().enumerate() {
        for (i, vt) in obj.vertex_types.iter().enumerate() {
            by_name
                .entry(normalize_type_name(&vt.name))
                .or_insert(TypeRef { object: o as u32, index: i as u32 });
        }
    }
    for (graph_name, name) in &codelets.aliases {
        if let Some(&tr) = by_name.get(&normalize_type_name(name)) {
            by_name.entry(normalize_type_name(graph_name)).or_insert(tr);
        }
    }
    let mut errs = Collector::default();
    let mut out = Resolved {
        types: PrimaryMap::new(),
        vertex_type: SecondaryMap::with_default(VertexTypeId(0)),
        field_start: Vec::new(),
        field_source: Vec::new(),
    };
    let mut used: HashMap<TypeRef, VertexTypeId> = HashMap::new();
    // Cache per spelling: most graphs repeat a few type names many times.
    let mut cache: HashMap<&str, Option<TypeRef>> = HashMap::new();
    let mut unknown: HashMap<&str, ir::Diagnostic> = HashMap::new();
    let mut last: Option<(&ir::Name, Option<TypeRef>, Option<VertexTypeId>)> = None;
    let n = graph.vertices.len();
    out.field_start.reserve(n);

    for (v, vx) in graph.vertices.iter() {
        let vspan = *spans.vertices.get(v);
        let iteration = || spans.vertex_iterations.get(v.index());
        // A vertex usually has its predecessor's type name (the same
        // interned string): then neither table is looked up.
        let (tr, ti) = match last {
            Some((name, tr, ti)) if Arc::ptr_eq(name, &vx.vtype) => (tr, ti),
            _ => {
                let tr = *cache
                    .entry(&vx.vtype)
                    .or_insert_with(|| by_name.get(&normalize_type_name(&vx.vtype)).copied());
                let ti = tr.map(|tr| *used.entry(tr).or_insert_with(|| out.types.push(tr)));
                last = Some((&vx.vtype, tr, ti));
                (tr, ti)
            }
        };
        out.field_start.push(out.field_source.len() as u32);
        let (Some(tr), Some(ti)) = (tr, ti) else {
            // Built once per spelling: a loop repeats it.
            let d =
                unknown.entry(&vx.vtype).or_insert_with(|| unknown_vertex_type(&vx.vtype, codelets)).clone();
            let d = ir::Diagnostic { primary: Some((vspan, "no codelet defines this type".into())), ..d };
            errs.push(d.in_iteration(iteration()));
            continue;
        };
        out.vertex_type.set(v, ti);
        let vt = &codelets.objects[tr.object as usize].vertex_types[tr.index as usize];

        // PIR fields → codelet fields.
        let base = out.field_source.len();
        out.field_source.resize(base + vt.fields.len(), u32::MAX);
        let source = &mut out.field_source[base..];
        for (i, f) in vx.fields.iter().enumerate() {
            let fspan = spans.field(v, i);
            let Some(k) = vt.fields.iter().position(|g| g.name == *f.name) else {
                let names: Vec<&str> = vt.fields.iter().map(|g| g.name.as_str()).collect();
                let hint = spelling::did_you_mean(&f.name, names.iter().copied());
                errs.push(
                    ir::Diagnostic::error(
                        fspan,
                        format!("vertex type `{}` has no field `{}`", vt.name, f.name),
                    )
                    .with_note(format!("its fields are: {}", names.join(", ")))
                    .with_note(hint.map(|s| format!("help: did you mean `{s}`?")).unwrap_or_default())
                    .in_iteration(iteration()),
                );
                continue;
            };
            if source[k] != u32::MAX {
                errs.push(
                    ir::Diagnostic::error(fspan, format!("field `{}` is set twice", f.name))
                        .with_secondary(spans.field(v, source[k] as usize), "first set here")
                        .in_iteration(iteration()),
                );
                continue;
            }
            source[k] = i as u32;
            if let Err(msg) = check_field(graph, &vt.fields[k], &f.value) {
                errs.push(ir::Diagnostic::error(fspan, msg.0).with_note(msg.1).in_iteration(iteration()));
            }
        }
        if !source.contains(&u32::MAX) {
            continue;
        }
        let missing: Vec<&str> = vt
            .fields
            .iter()
            .zip(source.iter())
            .filter(|(_, s)| **s == u32::MAX)
            .map(|(f, _)| f.name.as_str())
            .collect();
        if !missing.is_empty() {
            let s = if missing.len() == 1 { "" } else { "s" };
            errs.push(
                ir::Diagnostic::error(
                    vspan,
                    format!("vertex `{}` does not set field{s} {}", vt.name, quoted(&missing)),
                )
                .with_label("every field of the vertex type must be set")
                .in_iteration(iteration()),
            );
        }
    }
    errs.finish(Stage::Resolve)?;
    Ok(out)
}

/// The error for a vertex type no codelet defines (without its position):
/// the types the codelets do define, and the closest as a suggestion.
fn unknown_vertex_type(name: &str, codelets: &Codelets) -> ir::Diagnostic {
    let d = ir::Diagnostic::error_no_span(format!("unknown vertex type `{name}`"));
    if codelets.objects.is_empty() {
        return d.with_note("the graph has no `codelets` item");
    }
    let mut names: Vec<&str> =
        codelets.objects.iter().flat_map(|o| o.vertex_types.iter().map(|t| t.name.as_str())).collect();
    names.sort_unstable();
    names.dedup();
    let shown: Vec<&str> = names.iter().take(8).copied().collect();
    let more = if names.len() > 8 { ", …" } else { "" };
    let hint = spelling::did_you_mean(name, names.iter().copied());
    d.with_note(format!("the codelets define: {}{more}", shown.join(", ")))
        .with_note(hint.map(|s| format!("help: did you mean `{s}`?")).unwrap_or_default())
}

fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// Checks one field's value against its codelet declaration:
/// `Err((message, note))`.
fn check_field(graph: &Graph, f: &gp::Field, value: &FieldValue) -> Result<(), (String, String)> {
    let decl = || format!("`{}` is declared as `{}`", f.name, kind_words(f));
    let check_view = |view: &ir::View| -> Result<(), (String, String)> {
        let mut last = None;
        for p in &view.pieces {
            if last == Some(p.tensor) {
                continue;
            }
            last = Some(p.tensor);
            let tensor = &graph.tensors[p.tensor];
            if tensor.elem != f.elem {
                return Err((
                    format!(
                        "field `{}` has element type {} but tensor `{}` holds {}",
                        f.name,
                        f.elem.cpp_name(),
                        tensor.name,
                        tensor.elem.cpp_name()
                    ),
                    decl(),
                ));
            }
            let writes = matches!(f.direction, Some(gp::Direction::Output | gp::Direction::InOut));
            if writes && tensor.kind == TensorKind::Const {
                return Err((
                    format!("field `{}` writes to constant tensor `{}`", f.name, tensor.name),
                    decl(),
                ));
            }
        }
        Ok(())
    };
    match (f.kind, value) {
        (gp::FieldKind::Plain, FieldValue::Literal(lit)) => check_literal(f, *lit).map_err(|m| (m, decl())),
        (gp::FieldKind::Plain, _) => {
            Err((format!("field `{}` is a plain value and takes a literal, not a tensor", f.name), decl()))
        }
        (_, FieldValue::Literal(_)) => {
            Err((format!("field `{}` is an edge and takes a tensor, not a literal", f.name), decl()))
        }
        (gp::FieldKind::Scalar, FieldValue::Edge(view)) => {
            let n = view.num_elements();
            if n != 1 {
                return Err((
                    format!("field `{}` is a scalar edge and takes exactly one element, got {n}", f.name),
                    decl(),
                ));
            }
            check_view(view)
        }
        (gp::FieldKind::Vector(_), FieldValue::Edge(view)) => check_view(view),
        (gp::FieldKind::VectorList(_), FieldValue::EdgeList(views)) => views.iter().try_for_each(check_view),
        (gp::FieldKind::ScalarList(_), FieldValue::EdgeList(views)) => views.iter().try_for_each(|view| {
            let n = view.num_elements();
            if n != 1 {
                return Err((
                    format!(
                        "field `{}` is a vector of scalar edges; each item takes exactly one element, got {n}",
                        f.name
                    ),
                    decl(),
                ));
            }
            check_view(view)
        }),
        (gp::FieldKind::ScalarList(_), FieldValue::Edge(_)) => Err((
            format!("field `{}` is a vector of scalar edges and takes a list of elements `[t[0], u[3], …]`", f.name),
            decl(),
        )),
        (gp::FieldKind::VectorList(_), FieldValue::Edge(_)) => Err((
            format!("field `{}` is a vector list and takes a list of tensors `[t0, t1, …]`", f.name),
            decl(),
        )),
        (gp::FieldKind::Scalar | gp::FieldKind::Vector(_), FieldValue::EdgeList(_)) => {
            Err((format!("field `{}` takes one tensor, not a list", f.name), decl()))
        }
    }
}

fn check_literal(f: &gp::Field, lit: Literal) -> Result<(), String> {
    // A quarter is given as its bit pattern.
    let ty = f.elem.cpp_name();
    match (lit, f.elem.int_range()) {
        (Literal::Float(_), Some(_)) => {
            Err(format!("field `{}` of type {ty} cannot hold a floating value", f.name))
        }
        (Literal::Int(i), Some((lo, hi))) if !(lo..=hi).contains(&i128::from(i)) => {
            Err(format!("value {i} does not fit field `{}` of type {ty}", f.name))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_type_name as n;

    #[test]
    fn type_names_normalise() {
        assert_eq!(n("Sum<half, 4>"), "Sum<half,4>");
        assert_eq!(n("Sum< unsigned ,4 >"), "Sum<unsigned int,4>");
        assert_eq!(n("popops :: ScaledAdd<float, true>"), "popops::ScaledAdd<float,true>");
        assert_eq!(n("X<unsigned  long long>"), "X<unsigned long long>");
        assert_eq!(n("SumVertex"), "SumVertex");
    }
}
