//! Requested vertex names: `compile_lenient` lists the ones it cannot
//! instantiate as data (the graph compiler then reports them where the
//! graph uses them); the strict entry points fail with the same message.

const SRC: &str = r#"
#include <poplar/Vertex.hpp>
using namespace poplar;
template <typename T> class Scale : public Vertex {
public:
  static_assert(sizeof(T) == 4, "Scale needs a 4-byte type");
  InOut<Vector<T>> x;
  bool compute() { for (unsigned i = 0; i < x.size(); ++i) x[i] = x[i] * 2; return true; }
};
"#;

fn requested() -> Vec<String> {
    vec!["Scale<float>".into(), "Scale<half>".into(), "Missing<int>".into()]
}

#[test]
fn lenient_compile_lists_unresolved_names() {
    let out =
        popc::compile_lenient("scale.cpp", SRC, &popc::Options::default(), &popc::NoIncludes, &requested())
            .expect("compiles");
    let names: Vec<&str> = out.object.vertex_types.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["Scale<float>"]);
    let bad: Vec<&str> = out.unresolved.iter().map(|u| u.requested.as_str()).collect();
    assert_eq!(bad, ["Scale<half>", "Missing<int>"]);
    assert!(out.unresolved[0].error.message.contains("Scale needs a 4-byte type"), "{:?}", out.unresolved[0]);
}

#[test]
fn strict_compile_fails_on_the_first_unresolved_name() {
    let err = popc::compile("scale.cpp", SRC, &popc::Options::default(), &popc::NoIncludes, &requested())
        .expect_err("Scale<half> cannot be instantiated");
    let text = err.render();
    assert!(text.contains("cannot instantiate requested vertex 'Scale<half>'"), "{text}");
}
