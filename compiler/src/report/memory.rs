//! The graph profile's `memory` and `variables`: each tile's bytes by
//! region (with and without alignment gaps), by category (split by region
//! and by overlap), by compute set and by vertex type, and the tiles each
//! tensor lives on, with the meanings of the Poplar user guide.
//!
//! The simulator's tile memory is one non-interleaved region of
//! `bytesPerTile` bytes; what a layout places past its end is `overflowed`
//! (such a graph gets a profile but no image). The exchange arena is the
//! one overlapped category: buffers of different compute sets share it.
//! Every tensor is live for the whole run (tile memory is allocated once).

use ::report::schema::{Category, CategoryTotal, Memory, MemoryByTile, Overlap, Variable, VertexMemory};
use ir::{EntityRef, Graph};
use linker::gp;

use crate::layout::MemoryLayout;
use crate::mapping::TileMapping;
use crate::resolve::Resolved;
use crate::Codelets;

/// Bytes of `[addr, addr + len)` at or past `limit`.
fn past(addr: u64, len: u64, limit: u64) -> u64 {
    addr.saturating_add(len).saturating_sub(addr.max(limit))
}

/// A vertex's memory, by the guide's kinds.
#[derive(Clone, Copy, Default)]
struct VertexBytes {
    edge_ptr: u64,
    data: u64,
    descriptor: u64,
    padding: u64,
}

/// Adds `v` to the cell `[row][tile]` of each array.
fn add(m: &mut VertexMemory, row: usize, tile: usize, v: VertexBytes) {
    let cells = [
        (&mut m.edge_ptr_bytes, v.edge_ptr),
        (&mut m.vertex_data_bytes, v.data),
        (&mut m.descriptor_bytes, v.descriptor),
        (&mut m.padding_bytes, v.padding),
        (&mut m.total_bytes, v.edge_ptr + v.data + v.descriptor + v.padding),
    ];
    for (a, b) in cells {
        a[row][tile] += b;
    }
}

fn vertex_memory(rows: usize, tiles: usize) -> VertexMemory {
    let z = vec![vec![0u64; tiles]; rows];
    VertexMemory {
        code_bytes: z.clone(),
        copy_ptr_bytes: z.clone(),
        descriptor_bytes: z.clone(),
        edge_ptr_bytes: z.clone(),
        padding_bytes: z.clone(),
        vertex_data_bytes: z.clone(),
        total_bytes: z,
    }
}

/// Each vertex's bytes, with the alignment gap before its state and its
/// descriptors (the layout places states, then descriptors, in vertex order).
fn vertices(
    graph: &Graph,
    resolved: &Resolved,
    codelets: &Codelets,
    mapping: &TileMapping,
    layout: &MemoryLayout,
) -> Vec<VertexBytes> {
    let mut out = vec![VertexBytes::default(); graph.vertices.len()];
    let mut cur: Vec<u64> = layout.tiles.values().map(|m| m.states_base).collect();
    for v in graph.vertices.keys() {
        let i = ir::EntityRef::index(v);
        let vt = resolved.vertex_info(codelets, v);
        let tile = mapping.vertex_tiles[v].index();
        let at = u64::from(layout.vertex_state[v]);
        let edge_ptr: u64 = vt
            .fields
            .iter()
            .filter(|f| !matches!(f.kind, gp::FieldKind::Plain))
            .map(|f| u64::from(f.size))
            .sum();
        out[i].edge_ptr = edge_ptr;
        out[i].data = u64::from(vt.state_size).saturating_sub(edge_ptr);
        out[i].padding = at.saturating_sub(cur[tile]);
        cur[tile] = at + u64::from(vt.state_size);
    }
    for v in graph.vertices.keys() {
        let i = ir::EntityRef::index(v);
        let vt = resolved.vertex_info(codelets, v);
        if !crate::layout::has_descriptor(vt) {
            continue;
        }
        let tile = mapping.vertex_tiles[v].index();
        let at = u64::from(layout.descriptors[v]);
        let bytes = u64::from(layout.descriptor_bytes[v]);
        out[i].descriptor = bytes;
        out[i].padding += at.saturating_sub(cur[tile]);
        cur[tile] = at + bytes;
    }
    out
}

/// `memory`: by tile, by category, by compute set, by vertex type.
pub(super) fn memory(
    graph: &Graph,
    resolved: &Resolved,
    codelets: &Codelets,
    mapping: &TileMapping,
    layout: &MemoryLayout,
    types: &[&gp::VertexType],
) -> Memory {
    let tiles = layout.tiles.values().as_slice();
    let n = tiles.len();
    let limit = u64::from(graph.target.bytes_per_tile);
    let names = tiles.first().map(|m| m.categories().map(|c| c.0)).unwrap_or_default();
    let cat = |name: &str| names.iter().position(|c| *c == name).expect("a layout category");
    // Per category, per tile: bytes past the end of tile memory.
    let mut over = vec![vec![0u64; n]; names.len()];
    for (t, tensor) in graph.tensors.iter() {
        let c = cat(if tensor.kind == ir::TensorKind::Const { "constant" } else { "variable" });
        let size = u64::from(tensor.elem.size());
        for (iv, &at) in mapping.tensors[t].iter().zip(&layout.tensor_addr[t]) {
            over[c][iv.tile.index()] += past(u64::from(at), (iv.end - iv.start) * size, limit);
        }
    }
    for v in graph.vertices.keys() {
        let tile = mapping.vertex_tiles[v].index();
        let vt = resolved.vertex_info(codelets, v);
        over[cat("vertexInstanceState")][tile] +=
            past(u64::from(layout.vertex_state[v]), u64::from(vt.state_size), limit);
        over[cat("vectorListDescriptor")][tile] +=
            past(u64::from(layout.descriptors[v]), u64::from(layout.descriptor_bytes[v]), limit);
    }
    for (t, m) in tiles.iter().enumerate() {
        over[cat("message")][t] = past(m.arena_base, m.exchange, limit);
        over[cat("stack")][t] = past(m.stack_base, m.stack, limit);
        let others: u64 = (0..names.len()).filter(|&c| c != cat("padding")).map(|c| over[c][t]).sum();
        over[cat("padding")][t] = m.total.saturating_sub(limit).saturating_sub(others);
    }

    let zeros = vec![0u64; n];
    let mut by_category = std::collections::BTreeMap::new();
    for (c, name) in names.iter().enumerate() {
        let total: Vec<u64> = tiles.iter().map(|m| m.categories()[c].1).collect();
        let below: Vec<u64> = total.iter().zip(&over[c]).map(|(a, b)| a - b).collect();
        let split = |bytes: Vec<u64>| {
            if *name == "message" {
                Overlap { non_overlapped: zeros.clone(), overlapped: bytes }
            } else {
                Overlap { non_overlapped: bytes, overlapped: zeros.clone() }
            }
        };
        by_category.insert(
            name.to_string(),
            Category {
                total: CategoryTotal::ByTile(total),
                note: None,
                interleaved: Some(Overlap { non_overlapped: zeros.clone(), overlapped: zeros.clone() }),
                non_interleaved: Some(split(below)),
                overflowed: Some(split(over[c].clone())),
            },
        );
    }
    let code: u64 = types.iter().map(|t| (t.plain.code.len() + t.counting.code.len()) as u64).sum();
    by_category.insert(
        "vertexCode".into(),
        Category {
            total: CategoryTotal::Outside(code),
            note: Some("shared code segment, not in tile memory".into()),
            interleaved: None,
            non_interleaved: None,
            overflowed: None,
        },
    );

    let padding = cat("padding");
    let data_over: Vec<u64> =
        (0..n).map(|t| (0..names.len()).filter(|&c| c != padding).map(|c| over[c][t]).sum()).collect();
    let total: Vec<u64> = tiles.iter().map(|m| m.total - m.gaps).collect();
    let with_gaps: Vec<u64> = tiles.iter().map(|m| m.total).collect();
    let by_tile = MemoryByTile {
        non_interleaved: total.iter().zip(&data_over).map(|(a, b)| a - b).collect(),
        overflowed: data_over,
        total,
        non_interleaved_including_gaps: with_gaps.iter().map(|&t| t.min(limit)).collect(),
        overflowed_including_gaps: with_gaps.iter().map(|&t| t.saturating_sub(limit)).collect(),
        total_including_gaps: with_gaps,
        interleaved: zeros.clone(),
        interleaved_including_gaps: zeros,
        vertices: tiles.iter().map(|m| m.vertices).collect(),
    };

    let per_vertex = vertices(graph, resolved, codelets, mapping, layout);
    let mut by_compute_set = vertex_memory(graph.compute_sets.len(), n);
    for (row, c) in graph.compute_sets.values().enumerate() {
        for &v in &c.vertices {
            let i = ir::EntityRef::index(v);
            add(&mut by_compute_set, row, mapping.vertex_tiles[v].index(), per_vertex[i]);
        }
    }
    let mut by_vertex_type = vertex_memory(types.len(), n);
    for v in graph.vertices.keys() {
        let i = ir::EntityRef::index(v);
        let row = resolved.vertex_type[v].index();
        add(&mut by_vertex_type, row, mapping.vertex_tiles[v].index(), per_vertex[i]);
    }
    Memory { by_tile, by_category, by_compute_set, by_vertex_type }
}

/// Each tensor and the bytes it has on each tile.
pub(super) fn variables(graph: &Graph, mapping: &TileMapping) -> Vec<Variable> {
    graph
        .tensors
        .iter()
        .map(|(t, tensor)| {
            let size = u64::from(tensor.elem.size());
            let mut on_tile: Vec<(u32, u64)> = Vec::new();
            for iv in &mapping.tensors[t] {
                let bytes = (iv.end - iv.start) * size;
                match on_tile.iter_mut().find(|x| x.0 == iv.tile.0) {
                    Some(x) => x.1 += bytes,
                    None => on_tile.push((iv.tile.0, bytes)),
                }
            }
            on_tile.sort_unstable();
            Variable {
                name: tensor.name.clone(),
                kind: if tensor.kind == ir::TensorKind::Const { "constant" } else { "variable" }.into(),
                bytes: tensor.num_elements() * size,
                tiles: on_tile.iter().map(|&(t, b)| [u64::from(t), b]).collect(),
                live_in: None,
            }
        })
        .collect()
}
