//! `Options::stop_checks` off (only the bench does that, to measure what
//! the interruption checks cost) removes the checks and nothing else: the
//! code is shorter where there are loops, and the results and counted
//! cycles are the same.

const SRC: &str = r#"
#include <poplar/Vertex.hpp>
using namespace poplar;

class Loop : public Vertex {
public:
  unsigned n;
  unsigned out;
  bool compute() {
    unsigned s = 0;
    for (unsigned i = 0; i < n; ++i) s += i * i + (s >> 3);
    out = s;
    return true;
  }
};

class Straight : public Vertex {
public:
  unsigned n;
  unsigned out;
  bool compute() { out = n * 3 + 1; return true; }
};
"#;

fn compile(stop_checks: bool) -> Vec<linker::gp::VertexType> {
    let opts = popc::Options { stop_checks, ..Default::default() };
    popc::compile("loop.cpp", SRC, &opts, &popc::NoIncludes, &[])
        .map_err(|d| d.render())
        .unwrap()
        .vertex_types
}

/// Runs `f` with `n` in the state; returns `out` and the status and count.
fn run(vt: &linker::gp::VertexType, f: &linker::gp::Function, n: u32) -> (u32, u32, u64) {
    let field = |name: &str| vt.fields.iter().find(|f| f.name == name).unwrap().offset as usize;
    let state = 0x100;
    let mut mem = vec![0u8; 0x400];
    mem[state + field("n")..][..4].copy_from_slice(&n.to_le_bytes());
    let code = popc::exec::Loaded::new(f, false).unwrap();
    let r = popc::exec::run(&code, &mut mem, state as u32, 0);
    let out = u32::from_le_bytes(mem[state + field("out")..][..4].try_into().unwrap());
    (out, r.status, r.count)
}

#[test]
fn only_the_checks_go() {
    let (with, without) = (compile(true), compile(false));
    for (w, o) in with.iter().zip(&without) {
        assert_eq!(w.name, o.name);
        if w.name == "Loop" {
            assert!(o.plain.code.len() < w.plain.code.len(), "a loop without checks is shorter code");
            assert!(o.counting.code.len() < w.counting.code.len());
        } else {
            assert_eq!(o.plain.code, w.plain.code, "{}: no loop, no check", w.name);
        }
        for n in [0, 1, 1000] {
            assert_eq!(run(w, &w.plain, n), run(o, &o.plain, n), "{} plain, n = {n}", w.name);
            assert_eq!(run(w, &w.counting, n), run(o, &o.counting, n), "{} counting, n = {n}", w.name);
        }
    }
}
