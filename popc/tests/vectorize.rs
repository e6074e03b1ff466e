//! The SIMD copies of elementwise loops (`popc/src/lower/vectorize.rs`) change
//! nothing observable: every kernel of `testdata/popc/ok/vectorize.cpp` runs,
//! compiled with and without `-fno-vectorize`, over many sizes and vector
//! placements (separate, identical, overlapping by one to five elements,
//! running off the tile, overlapping the vertex state), and the two must
//! agree on status, trap address and line, every byte of tile memory, and
//! the counting variant's count. Reductions (`s += a[i] * b[i]`) get a
//! scalar copy instead, whose result must be the scalar loop's to the bit.

mod common;

use std::path::Path;

use linker::gp::{ElemType, FieldKind, Object, VertexType};
use popc::exec::{run_vertex, Loaded, RunResult};

const MEM: usize = 1 << 16;
const STATE: u32 = common::STATE;

fn source() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/ok/vectorize.cpp");
    std::fs::read_to_string(path).unwrap()
}

fn compile(args: &[&str]) -> (Object, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let opts = popc::Options { emit_ir: true, ..popc::Options::from_args(&args).unwrap() };
    let out = popc::compile_full("vectorize.cpp", &source(), &opts, &common::Fs, &[])
        .unwrap_or_else(|d| panic!("{}", d.render()));
    (out.object, out.ir_text)
}

/// The IR text of one vertex in `-S` output.
fn ir_of<'a>(ir: &'a str, vertex: &str) -> &'a str {
    let start = ir.find(&format!("; vertex {vertex}\n")).unwrap_or_else(|| panic!("no IR for {vertex}"));
    let rest = &ir[start + 1..];
    &rest[..rest.find("; vertex ").unwrap_or(rest.len())]
}

/// Where the vector fields of a vertex go.
#[derive(Clone, Copy, Debug)]
enum Placement {
    /// Each vector on its own, 4 bytes past a 16-byte boundary.
    Separate,
    /// Every vector at the same address.
    Same,
    /// Vector `j` at `base + 4 * j * d`: neighbours overlap unless `|d| >= n`.
    Shifted(i32),
    /// The last vector runs two elements past the end of the tile.
    OffTheEnd,
    /// The first vector starts 8 elements below the vertex state, so its
    /// stores overwrite the state (and the fields the loop reads).
    OverState,
}

/// A deterministic float with few significant bits, never NaN.
fn value(seed: &mut u64) -> f32 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    ((*seed % 4001) as f32 - 2000.0) / 64.0
}

/// Tile memory for one run: random floats everywhere, the state at
/// `STATE`, vectors of `n` elements placed as `p`; `start` and `n` fields
/// get `start` and `bound`.
fn memory(vt: &VertexType, n: u32, p: Placement, start: u32, bound: u32) -> Vec<u8> {
    let mut seed = 0x9e37_79b9_7f4a_7c15 ^ (n as u64) << 8;
    let mut mem = vec![0u8; MEM];
    for w in mem.chunks_exact_mut(4) {
        w.copy_from_slice(&value(&mut seed).to_le_bytes());
    }
    let vectors: Vec<usize> = vt
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f.kind, FieldKind::Vector(_)))
        .map(|(i, _)| i)
        .collect();
    let mut scalars = 0x800u32;
    for (i, f) in vt.fields.iter().enumerate() {
        let at = (STATE + f.offset) as usize;
        match f.kind {
            FieldKind::Plain => {
                let bytes = match (f.name.as_str(), f.elem) {
                    ("start", _) => start.to_le_bytes(),
                    ("n", _) => bound.to_le_bytes(),
                    (_, ElemType::Float) => 0.75f32.to_le_bytes(),
                    _ => 3u32.to_le_bytes(),
                };
                mem[at..at + 4].copy_from_slice(&bytes);
            }
            FieldKind::Scalar => {
                mem[at..at + 4].copy_from_slice(&scalars.to_le_bytes());
                scalars += 4;
            }
            FieldKind::Vector(_) => {
                let j = vectors.iter().position(|&v| v == i).unwrap() as i64;
                let last = j as usize == vectors.len() - 1;
                let addr: i64 = match p {
                    Placement::Separate => 0x1004 + j * 0x800,
                    Placement::Same => 0x2000,
                    Placement::Shifted(d) => 0x4000 + 4 * j * d as i64,
                    Placement::OffTheEnd if last => MEM as i64 - 4 * (n as i64 - 2),
                    Placement::OffTheEnd => 0x1004 + j * 0x800,
                    Placement::OverState if j == 0 => STATE as i64 - 32,
                    Placement::OverState => 0x1004 + j * 0x800,
                };
                mem[at..at + 4].copy_from_slice(&(addr as u32).to_le_bytes());
                if f.size == 8 {
                    mem[at + 4..at + 8].copy_from_slice(&n.to_le_bytes());
                }
            }
            FieldKind::VectorList(_) | FieldKind::ScalarList(_) => unreachable!("no vector lists here"),
        }
    }
    mem
}

fn run(vt: &VertexType, counting: bool, mut mem: Vec<u8>) -> (RunResult, Vec<u8>) {
    let f = if counting { &vt.counting } else { &vt.plain };
    let code = Loaded::new(f, false).unwrap();
    let r = run_vertex(&code, &mut mem, STATE);
    (r, mem)
}

#[test]
fn simd_copies_change_nothing() {
    let (vec_obj, vec_ir) = compile(&["-g"]);
    let (scalar_obj, scalar_ir) = compile(&["-g", "-fno-vectorize"]);
    // The copies exist where expected, and only there.
    for v in ["ScaledAdd", "Ops", "Bounded", "Fill", "TwoRows", "Casts"] {
        assert!(ir_of(&vec_ir, v).contains("f32x4"), "{v} has no SIMD copy");
        assert!(!ir_of(&scalar_ir, v).contains("f32x4"), "{v} has a SIMD copy with -fno-vectorize");
    }
    // Reductions get a scalar copy: unchecked (`notrap` but not `aligned`)
    // f32 loads, four iterations a trip, and no f32x4.
    for v in ["Dot", "Sum", "ScaledSum", "SubReduce", "ReduceStore"] {
        let ir = ir_of(&vec_ir, v);
        assert!(!ir.contains("f32x4"), "{v}: a reduction was vectorised");
        let copies = ir.matches("load.f32 notrap v").count();
        assert!(copies >= 4, "{v} has no check-free scalar copy:\n{ir}");
        assert!(!ir_of(&scalar_ir, v).contains("load.f32 notrap v"), "{v} has a copy with -fno-vectorize");
    }
    let ir = ir_of(&vec_ir, "NotReduction");
    assert!(!ir.contains("load.f32 notrap v") && !ir.contains("f32x4"), "NotReduction has a copy:\n{ir}");

    let placements = [
        Placement::Separate,
        Placement::Same,
        Placement::Shifted(1),
        Placement::Shifted(2),
        Placement::Shifted(3),
        Placement::Shifted(-1),
        Placement::Shifted(-2),
        Placement::Shifted(-3),
        Placement::Shifted(4),
        Placement::Shifted(-4),
        Placement::Shifted(5),
        Placement::OffTheEnd,
        Placement::OverState,
    ];
    let mut runs = 0;
    let mut traps = 0;
    for (vt, st) in vec_obj.vertex_types.iter().zip(&scalar_obj.vertex_types) {
        assert_eq!(vt.name, st.name);
        for n in [0u32, 1, 3, 4, 5, 7, 8, 9, 16, 17, 37, 64] {
            for p in placements {
                if matches!(p, Placement::OffTheEnd) && n < 3 {
                    continue;
                }
                for (start, bound) in [(0, n), (1, n), (3, n), (n + 2, n), (0, n + 6)] {
                    let mem = memory(vt, n, p, start, bound);
                    let what = format!("{} n={n} {p:?} start={start} bound={bound}", vt.name);
                    let (rv, mv) = run(vt, false, mem.clone());
                    let (rs, ms) = run(st, false, mem.clone());
                    let (cv, mcv) = run(vt, true, mem.clone());
                    let (cs, _) = run(st, true, mem);
                    assert_eq!(
                        (rv.status, rv.trap_addr, rv.trap_line),
                        (rs.status, rs.trap_addr, rs.trap_line),
                        "{what}: status"
                    );
                    assert!(mv == ms, "{what}: memory differs from the scalar loop's");
                    assert!(mcv == ms, "{what}: counting variant's memory differs");
                    assert_eq!(cv.status, rs.status, "{what}: counting variant's status");
                    assert_eq!(cv.count, cs.count, "{what}: count differs from the scalar loop's");
                    runs += 1;
                    traps += (rv.status != 0) as u32;
                    // Only `Bounded` and `SubReduce` read `start` and `n`.
                    if !["Bounded", "SubReduce"].contains(&vt.name.as_str()) {
                        break;
                    }
                }
            }
        }
    }
    assert!(runs > 300 && traps > 10, "{runs} runs, {traps} traps");
}

/// The counting variant charges an elementwise loop's body once per two
/// floats (the IPU's 64-bit loads and stores and `f32v2` arithmetic) and a
/// reduction's once per float, both plus one trip per four iterations.
#[test]
fn elementwise_loops_count_per_float_vector() {
    use popc::cost::{ARITH, COUNTED_LOOP_TRIP, MEMORY};
    for flags in [&["-g"][..], &["-g", "-fno-vectorize"]] {
        let (obj, _) = compile(flags);
        let count = |name: &str, n: u32| {
            let vt = obj.vertex_types.iter().find(|v| v.name == name).unwrap();
            let (r, _) = run(vt, true, memory(vt, n, Placement::Separate, 0, n));
            assert_eq!(r.status, 0, "{name} n={n}");
            r.count
        };
        // `x[i] = x[i] + k * y[i]`: three loads (`k` is a field), a
        // multiply, an add and a store per vector of two.
        let body = 4 * MEMORY + 2 * ARITH;
        assert_eq!(count("ScaledAdd", 3), count("ScaledAdd", 4), "{flags:?}");
        assert_eq!(count("ScaledAdd", 7), count("ScaledAdd", 8), "{flags:?}");
        assert_eq!(count("ScaledAdd", 5) - count("ScaledAdd", 4), body + COUNTED_LOOP_TRIP, "{flags:?}");
        assert_eq!(count("ScaledAdd", 8) - count("ScaledAdd", 5), body, "{flags:?}");
        // `s += a[i] * b[i]`: two loads, a multiply and an add per float.
        let body = 2 * MEMORY + 2 * ARITH;
        assert_eq!(count("Dot", 4) - count("Dot", 3), body, "{flags:?}");
        assert_eq!(count("Dot", 5) - count("Dot", 4), body + COUNTED_LOOP_TRIP, "{flags:?}");
        assert_eq!(count("Dot", 6) - count("Dot", 5), body, "{flags:?}");
    }
}
