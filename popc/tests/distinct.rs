//! popc compiles a function once when two vertices lower to equal ones
//! (`codegen::Distinct`): each vertex's code must still be exactly what
//! it is when that vertex is compiled alone, with and without line tables.

const SRC: &str = r#"
#include <poplar/Vertex.hpp>
using namespace poplar;

template <typename T> class Add : public Vertex {
public:
  Input<Vector<T>> a;
  Input<Vector<T>> b;
  Output<Vector<T>> out;
  void compute() {
    for (unsigned i = 0; i < out.size(); ++i) out[i] = a[i] + b[i];
  }
};
"#;

/// A vertex's name, plain and counting code, and plain line table.
type Code = (String, Vec<u8>, Vec<u8>, Vec<(u32, u32)>);

fn code(requested: &[&str], debug: bool) -> Vec<Code> {
    let opts = popc::Options { debug, ..Default::default() };
    let requested: Vec<String> = requested.iter().map(|s| s.to_string()).collect();
    let o =
        popc::compile("add.cpp", SRC, &opts, &popc::NoIncludes, &requested).map_err(|d| d.render()).unwrap();
    o.vertex_types.into_iter().map(|v| (v.name, v.plain.code, v.counting.code, v.plain.lines)).collect()
}

#[test]
fn equal_functions_compile_to_each_vertexs_own_code() {
    for debug in [false, true] {
        let both = code(&["Add<int>", "Add<unsigned>", "Add<float>"], debug);
        assert_eq!(both.len(), 3);
        // `int` and `unsigned` addition lower to the same functions.
        assert_eq!(both[0].1, both[1].1);
        assert_eq!(both[0].2, both[1].2);
        assert_ne!(both[0].1, both[2].1, "float addition is other code");
        for (i, name) in ["Add<int>", "Add<unsigned>", "Add<float>"].iter().enumerate() {
            let alone = code(&[name], debug);
            assert_eq!(alone[0], both[i], "{name} alone and beside the others (debug {debug})");
        }
    }
}
