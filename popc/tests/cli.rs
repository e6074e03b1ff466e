//! The `popc` command line: success writes a readable `.gp`; a failed
//! compile exits 1 with `file:line:col: error:` and writes nothing.

use std::process::Command;

fn popc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_popc"))
}

#[test]
fn compiles_and_fails_cleanly() {
    let dir = std::env::temp_dir().join(format!("popc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.cpp");
    std::fs::write(
        &good,
        "#include <poplar/Vertex.hpp>\nusing namespace poplar;\nclass V : public Vertex {\npublic:\n  Output<int> out;\n  void compute() { *out = WIDTH; }\n};\n",
    )
    .unwrap();
    let out = dir.join("good.gp");
    let r = popc().arg(&good).arg("-DWIDTH=4").arg("-O3").arg("-g").arg("-o").arg(&out).output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let obj = linker::gp::Object::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(obj.vertex_types[0].name, "V");
    assert!(!obj.vertex_types[0].plain.lines.is_empty(), "-g gives a line table");

    // -S prints the IR.
    let r = popc().arg(&good).arg("-DWIDTH=1").arg("-S").output().unwrap();
    assert!(String::from_utf8_lossy(&r.stdout).contains("function"));

    // Errors: exit 1, compiler-style message, no output.
    let bad = dir.join("bad.cpp");
    std::fs::write(&bad, "class V : public poplar::Vertex {\n  virtual void compute();\n};\n").unwrap();
    let bad_out = dir.join("bad.gp");
    let r = popc().arg(&bad).arg("-o").arg(&bad_out).output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("bad.cpp:2:3: error: virtual functions"), "{err}");
    assert!(!bad_out.exists());

    // Foreign target, missing file, --version.
    let r = popc()
        .arg(&good)
        .arg("--target")
        .arg("riscv64-unknown-linux-gnu")
        .arg("-o")
        .arg(&bad_out)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("cannot generate code for target"));
    let r = popc().arg(dir.join("missing.cpp")).arg("-o").arg(&bad_out).output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    let r = popc().arg("--version").output().unwrap();
    assert!(r.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Several sources make one object: a vertex calls a function defined in
/// another source, through a header both include (counted once); each
/// source keeps its own macros.
#[test]
fn several_sources_one_object() {
    let dir = std::env::temp_dir().join(format!("popc-cli-multi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("common.hpp"),
        "#pragma once\nstruct Pair { int a, b; };\ninline int twice(int x) { return 2 * x; }\nint search(const int *p, int n, int v);\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("search.cpp"),
        "#include \"common.hpp\"\n#define STEP 1\nint search(const int *p, int n, int v) {\n  for (int i = 0; i < n; i += STEP) if (p[i] >= v) return i;\n  return n;\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("vertex.cpp"),
        "#include <poplar/Vertex.hpp>\n#include \"common.hpp\"\nusing namespace poplar;\n#ifdef STEP\n#error STEP leaked from another source\n#endif\nclass Find : public Vertex {\npublic:\n  Input<Vector<int>> in;\n  Output<int> out;\n  void compute() { Pair q{1, 2}; *out = twice(search(&in[0], in.size(), q.b)); }\n};\n",
    )
    .unwrap();
    let out = dir.join("lib.gp");
    let r =
        popc().arg(dir.join("vertex.cpp")).arg(dir.join("search.cpp")).arg("-o").arg(&out).output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let obj = linker::gp::Object::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(obj.vertex_types.len(), 1);
    assert_eq!(obj.vertex_types[0].name, "Find");
    // Alone, the vertex's source lacks the definition.
    let r = popc().arg(dir.join("vertex.cpp")).arg("-o").arg(&out).output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("declared but not defined"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
