//! Virtual and replicated graphs through the operations the C ABI and the
//! Python package call (`Graph::virtual_range`, `matmul`, `reduce`, …):
//! tile numbers relative to the virtual graph, operations whose outputs,
//! temporaries and vertices stay on its tiles (read back from the graph
//! profile), and the errors. `sdk/tests/virtual_graphs.cpp` runs the same
//! idiom through the C++ headers on `sim` and `cpu`.

use ir::{ElemType, TensorKind};
use poplar::engine::compile;
use poplar::graph::Graph;
use poplar::ops::Reduction;
use poplar::program::Program;
use poplar::status::Status;
use poplar::tensor::Tensor;

/// `ipus` IPUs of `tiles` tiles each, with mk2's other figures.
fn target(ipus: u32, tiles: u32) -> ir::Target {
    ir::Target { ipus, tiles_per_ipu: tiles, ..ir::Target::preset(ir::Preset::Mk2) }
}

fn var(g: &Graph, name: &str, shape: &[u64]) -> Tensor {
    g.add_tensor(name, TensorKind::Var, ElemType::Float, shape, None).unwrap()
}

/// The tiles (the handle's numbers) holding any element of `t`.
fn tiles_of(g: &Graph, t: &Tensor) -> Vec<u32> {
    let mut tiles: Vec<u32> = g.tile_runs(t, true).unwrap().iter().map(|r| r.0).collect();
    tiles.dedup();
    tiles
}

fn sum(dims: &[usize]) -> Reduction {
    Reduction { dims: dims.to_vec(), operation: 0, out_elem: None, scale: 1.0, update: false }
}

#[test]
fn virtual_graphs_number_tiles_from_their_first() {
    let g = Graph::new(target(2, 4)).unwrap();
    let ipu1 = g.virtual_range(4, 8).unwrap();
    assert_eq!((ipu1.target().ipus, ipu1.target().tiles_per_ipu), (1, 4));
    let t = var(&ipu1, "t", &[4]);
    ipu1.set_tile_mapping(&t.view, 2).unwrap();
    assert_eq!(tiles_of(&ipu1, &t), [2]);
    assert_eq!(tiles_of(&g, &t), [6]);
    // Linear mappings spread over the virtual graph's tiles only.
    let u = var(&ipu1, "u", &[4, 64]);
    ipu1.map_linearly_or_default(&u, 0, 0).unwrap();
    assert_eq!(tiles_of(&g, &u), [4, 5, 6, 7]);
    assert_eq!(tiles_of(&ipu1, &u), [0, 1, 2, 3]);

    // A virtual graph of a virtual graph: tiles 1 and 2 of IPU 1.
    let inner = ipu1.virtual_range(1, 3).unwrap();
    inner.set_tile_mapping(&t.view, 1).unwrap();
    assert_eq!(tiles_of(&g, &t), [6]);
    assert_eq!(tiles_of(&inner, &t), [1]);

    // The same tiles of every IPU: tiles 1 and 3 of each, IPU by IPU.
    let odd = g.virtual_per_ipu(&[1, 3]).unwrap();
    assert_eq!((odd.target().ipus, odd.target().tiles_per_ipu), (2, 2));
    odd.set_tile_mapping(&t.view, 3).unwrap();
    assert_eq!(tiles_of(&g, &t), [7]);
    let first = g.virtual_per_ipu_count(1).unwrap();
    first.set_tile_mapping(&t.view, 1).unwrap();
    assert_eq!(tiles_of(&g, &t), [4]);

    // A range that is not whole IPUs is one IPU of its tiles; whole IPUs
    // stay IPUs.
    let across = g.virtual_range(2, 6).unwrap();
    assert_eq!((across.target().ipus, across.target().tiles_per_ipu), (1, 4));
    let both = g.virtual_range(0, 8).unwrap();
    assert_eq!((both.target().ipus, both.target().tiles_per_ipu), (2, 4));
}

#[test]
fn operations_of_a_virtual_graph_stay_on_its_tiles() {
    let g = Graph::new(target(2, 4)).unwrap();
    let ipu0 = g.virtual_range(0, 4).unwrap();
    let ipu1 = g.virtual_range(4, 8).unwrap();
    // The operands live on IPU 0; the operations run on IPU 1.
    let a = var(&ipu0, "a", &[6, 5]);
    ipu0.map_linearly_or_default(&a, 1, 1).unwrap();
    let b = var(&ipu0, "b", &[5, 7]);
    ipu0.set_tile_mapping(&b.view, 3).unwrap();
    let mut seq = Program::default();
    ipu0.fill(&mut seq, &a, 0.5);
    ipu0.fill(&mut seq, &b, 2.0);
    let c = ipu1.matmul(&mut seq, &a, &b, None, "c").unwrap();
    let d = ipu1.nonlinearity(&mut seq, 3, &c, false, "d").unwrap();
    let (r, _) = ipu1.reduce(Some(&mut seq), &d, None, &sum(&[1]), "r").unwrap();
    let s = ipu1.nonlinearity(&mut seq, 2, &a, false, "s").unwrap();
    for t in [&c, &d, &r, &s] {
        assert!(tiles_of(&g, t).iter().all(|t| (4..8).contains(t)), "{:?}", tiles_of(&g, t));
        assert!(tiles_of(&ipu1, t).iter().all(|&t| t < 4));
    }
    // Through the other IPU's graph, `c` is on none of its tiles.
    let e = ipu0.tile_runs(&c, false).unwrap_err();
    assert_eq!(e.status, Status::InvalidTileMapping);
    assert!(e.message.contains("not one of the virtual graph's tiles"), "{}", e.message);

    let exe = compile(&g, vec![seq.body.clone()], Vec::new(), &|_, _| {}).unwrap();
    let profile: report::schema::GraphProfile =
        serde_json::from_str(exe.graph_profile.as_deref().unwrap()).unwrap();
    let vertices = &profile.memory.by_tile.vertices;
    assert_eq!(vertices.len(), 8);
    // The fills run on IPU 0 (they write its tensors in place); every
    // vertex of the operations called with IPU 1's graph is on IPU 1.
    let ops_on_ipu0: u64 = vertices[..4].iter().sum::<u64>();
    // The same fills alone, for their vertex count.
    let only_fills = Graph::new(target(2, 4)).unwrap().virtual_range(0, 4).unwrap();
    let (a2, b2) = (var(&only_fills, "a", &[6, 5]), var(&only_fills, "b", &[5, 7]));
    only_fills.map_linearly_or_default(&a2, 1, 1).unwrap();
    only_fills.set_tile_mapping(&b2.view, 3).unwrap();
    let mut fill_seq = Program::default();
    only_fills.fill(&mut fill_seq, &a2, 0.5);
    only_fills.fill(&mut fill_seq, &b2, 2.0);
    let fill_exe = compile(&only_fills, vec![fill_seq.body], Vec::new(), &|_, _| {}).unwrap();
    let fill_profile: report::schema::GraphProfile =
        serde_json::from_str(fill_exe.graph_profile.as_deref().unwrap()).unwrap();
    let fill_vertices: u64 = fill_profile.memory.by_tile.vertices[..4].iter().sum();
    assert_eq!(ops_on_ipu0, fill_vertices, "IPU 0 holds only the fills' vertices: {vertices:?}");
    assert!(vertices[4..].iter().filter(|&&v| v > 0).count() > 1, "spread over IPU 1: {vertices:?}");
    // Every tensor the operations made, their partials and scratch
    // included, is on IPU 1.
    for v in &profile.variables {
        let on: Vec<u64> = v.tiles.iter().map(|t| t[0]).collect();
        if v.name == "a" || v.name == "b" {
            assert!(on.iter().all(|&t| t < 4), "{} on {on:?}", v.name);
        } else if v.kind == "variable" {
            assert!(on.iter().all(|&t| (4..8).contains(&t)), "{} on {on:?}", v.name);
        }
    }
}

#[test]
fn bad_virtual_graphs_are_refused_with_poplars_errors() {
    let g = Graph::new(target(2, 4)).unwrap();
    let err = |r: poplar::status::Result<Graph>| r.err().expect("refused");
    let e = err(g.virtual_range(3, 3));
    assert_eq!(e.status, Status::PoplarError);
    assert!(e.message.contains("empty"), "{}", e.message);
    let e = err(g.virtual_range(4, 9));
    assert_eq!(e.status, Status::IndexError);
    assert!(e.message.contains("has 8 tiles"), "{}", e.message);
    let ipu1 = g.virtual_range(4, 8).unwrap();
    let e = err(ipu1.virtual_range(2, 5));
    assert_eq!(e.status, Status::IndexError);
    assert!(e.message.contains("the virtual graph, which has 4 tiles"), "{}", e.message);
    assert_eq!(err(g.virtual_per_ipu(&[1, 4])).status, Status::IndexError);
    assert!(err(g.virtual_per_ipu(&[1, 1])).message.contains("listed twice"));
    assert_eq!(err(g.virtual_per_ipu(&[])).status, Status::PoplarError);
    assert_eq!(err(g.virtual_per_ipu_count(0)).status, Status::PoplarError);
    assert_eq!(err(g.virtual_per_ipu_count(5)).status, Status::IndexError);
    let t = var(&ipu1, "t", &[2]);
    let e = ipu1.set_tile_mapping(&t.view, 4).unwrap_err();
    assert_eq!(e.status, Status::InvalidTileMapping);
    assert!(e.message.contains("the virtual graph has 4 tiles (0 to 3)"), "{}", e.message);
}

#[test]
fn create_replicated_graph_agrees_with_the_constructor() {
    let t = target(4, 2);
    let g = Graph::new(t.clone()).unwrap();
    let r = g.replicated_graph(2).unwrap();
    let built = Graph::replicated(t, 2).unwrap();
    assert_eq!(r.target(), built.target());
    assert_eq!((r.replication(), r.target().ipus, r.target().tiles_per_ipu), (2, 2, 2));
    // The parent no longer adds to the graph; the replicated graph does.
    let e = g.add_tensor("x", TensorKind::Var, ElemType::Float, &[2], None).unwrap_err();
    assert!(e.message.contains("createReplicatedGraph"), "{}", e.message);
    var(&r, "x", &[2]);
    // Only a graph with nothing in it yet can be split.
    let h = Graph::new(target(4, 2)).unwrap();
    var(&h, "y", &[2]);
    let e = h.replicated_graph(2).err().unwrap();
    assert!(e.message.contains("not implemented"), "{}", e.message);
    assert!(Graph::new(target(4, 2)).unwrap().replicated_graph(3).is_err());
}
