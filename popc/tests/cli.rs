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
    assert!(err.contains("bad.cpp:2:16: error: virtual functions in a vertex class"), "{err}");
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

/// HARDENING.md #3 through the binary under a 2 GiB address-space cap:
/// the 700-byte inlining blow-up (which needed over 4 GiB) and the
/// Fibonacci template end with exit 1 and `file:line:col: error:`, or
/// compile, within seconds.
#[test]
fn resource_reproducers_under_a_memory_cap() {
    let dir = std::env::temp_dir().join(format!("popc-cli-caps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let head = "#include <poplar/Vertex.hpp>\nusing namespace poplar;\n";
    let vertex = |e: &str| {
        format!("class V : public Vertex {{\npublic:\n  Output<int> out;\n  void compute() {{ *out = {e}; }}\n}};\n")
    };
    let mut chain = format!("{head}int g0(int x){{return x*3+1;}}\n");
    for i in 1..=13 {
        chain += &format!("int g{i}(int x){{return g{p}(x)+g{p}(x+1);}}\n", p = i - 1);
    }
    chain += &vertex("g13(1)");
    let fib = format!(
        "{head}template<int N> struct F {{ static constexpr int v = F<N-1>::v + F<N-2>::v; }};\n\
         template<> struct F<0> {{ static constexpr int v = 0; }};\ntemplate<> struct F<1> {{ static constexpr int v = 1; }};\n{}",
        vertex("F<60>::v")
    );
    for (name, src, expect) in
        [("chain", chain, Some("chain.cpp:4:28: error: inlined code too large")), ("fib", fib, None)]
    {
        let file = dir.join(format!("{name}.cpp"));
        std::fs::write(&file, src).unwrap();
        let t = std::time::Instant::now();
        let r = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 2097152; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_popc"))
            .arg(&file)
            .arg("-o")
            .arg(dir.join(format!("{name}.gp")))
            .output()
            .unwrap();
        assert!(t.elapsed() < std::time::Duration::from_secs(30), "{name}: {:?}", t.elapsed());
        let stderr = String::from_utf8_lossy(&r.stderr);
        match expect {
            Some(e) => {
                assert_eq!(r.status.code(), Some(1), "{name}: {stderr}");
                assert!(stderr.contains(e), "{name}: expected '{e}' in {stderr}");
            }
            None => assert!(r.status.success(), "{name}: {stderr}"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `POPLAR_HOST_ISA`: the baseline level writes a baseline object; an
/// unknown level is an error before anything is compiled or written.
#[test]
fn host_isa_level_from_the_environment() {
    let dir = std::env::temp_dir().join(format!("popc-cli-isa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("k.cpp");
    std::fs::write(
        &src,
        "#include <poplar/Vertex.hpp>\nusing namespace poplar;\nclass V : public Vertex {\npublic:\n  Output<int> out;\n  void compute() { *out = 1; }\n};\n",
    )
    .unwrap();
    let out = dir.join("k.gp");
    let r = popc()
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .env("POPLAR_HOST_ISA", linker::isa::Level::Baseline.name())
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let target = linker::container::peek_target(linker::container::Kind::Object, &bytes).unwrap();
    assert_eq!(target, linker::isa::Level::Baseline.target());
    std::fs::remove_file(&out).unwrap();

    let r = popc().arg(&src).arg("-o").arg(&out).env("POPLAR_HOST_ISA", "i386").output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.starts_with("popc: error: POPLAR_HOST_ISA='i386' names no instruction-set level"), "{err}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Audit 2026-11 (`devfile_include`): `#include "/dev/stdin"` with standard
/// input a pipe that stays open blocked popc for ever, and `/dev/zero`
/// read until memory ran out; both are refused at once (only regular
/// files of at most `popc::MAX_INCLUDE_BYTES` are included), and an
/// oversized file too.
#[test]
fn include_special_files() {
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("popc-cli-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.h");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(popc::MAX_INCLUDE_BYTES + 1).unwrap(); // sparse: no bytes written
    for (name, include, expect) in [
        ("stdin", "/dev/stdin".to_string(), "cannot include '/dev/stdin': not a regular file".to_string()),
        ("zero", "/dev/zero".to_string(), "cannot include '/dev/zero': not a regular file".to_string()),
        (
            "big",
            big.display().to_string(),
            format!(
                "{} bytes, more than the {} an included file may have",
                popc::MAX_INCLUDE_BYTES + 1,
                popc::MAX_INCLUDE_BYTES
            ),
        ),
    ] {
        let src = dir.join(format!("{name}.cpp"));
        std::fs::write(&src, format!("#include \"{include}\"\n")).unwrap();
        let t = std::time::Instant::now();
        // Standard input is a pipe nobody writes to or closes until popc exits.
        let child = popc()
            .arg(&src)
            .arg("-o")
            .arg(dir.join(format!("{name}.gp")))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut child = child;
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{name}: popc still running after 60 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let r = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(&expect), "{name}: expected '{expect}' in {stderr}");
        assert!(t.elapsed() < std::time::Duration::from_secs(30), "{name}: {:?}", t.elapsed());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
