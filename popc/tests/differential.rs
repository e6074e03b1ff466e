//! Differential test: the kernels in `testdata/popc/diff/` (one test per
//! file: `kernels.cpp` PopLibs' kind of C++, `cxx.cpp` the constructs
//! codelets from other projects use, `dispatch.cpp` virtual functions
//! (with covariant return types) and unions, `conditional.cpp` `?:` on
//! class objects, `statics.cpp` namespace-scope variables and static data
//! members) are compiled by popc and by `g++ -O2` against the stub Poplar
//! headers in `testdata/popc/stub/`, run on the same pseudo-random inputs
//! (fixed seed), and their outputs compared bit for bit. The vertices of
//! a file run one after another on one memory, as on one tile, so static
//! storage keeps what each leaves, as g++'s globals do. Skipped, with a
//! notice, when g++ is missing.

mod common;

use std::fmt::Write;
use std::path::Path;
use std::process::Command;

use linker::gp::{ElemType, FieldKind, VertexBase};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn value(&mut self, e: ElemType) -> String {
        let r = self.next();
        match e {
            ElemType::Float | ElemType::Double => format!("{}", (r % 2001) as f64 / 100.0 - 10.0),
            ElemType::Half => format!("{}", (r % 1025) as f64 / 64.0 - 8.0),
            ElemType::Int | ElemType::Short | ElemType::Long => format!("{}", (r % 2001) as i64 - 1000),
            _ => format!("{}", r % 1000),
        }
    }
}

fn ctype(e: ElemType) -> &'static str {
    match e {
        ElemType::Bool => "bool",
        ElemType::Char => "char",
        ElemType::UChar => "unsigned char",
        ElemType::Short => "short",
        ElemType::UShort => "unsigned short",
        ElemType::Int => "int",
        ElemType::UInt => "unsigned",
        ElemType::Long => "long",
        ElemType::ULong => "unsigned long",
        ElemType::Half => "half",
        ElemType::Float => "float",
        ElemType::Double => "double",
        ElemType::Quarter => "quarter",
    }
}

/// Bit pattern of an element in memory, as both sides print it.
fn bits(e: ElemType, b: &[u8]) -> String {
    let mut v = 0u64;
    for (i, x) in b.iter().take(e.size() as usize).enumerate() {
        v |= (*x as u64) << (8 * i);
    }
    format!("{v:x}")
}

#[test]
fn popc_matches_gxx() {
    check("kernels.cpp");
}

#[test]
fn popc_matches_gxx_on_other_projects_cxx() {
    check("cxx.cpp");
}

#[test]
fn popc_matches_gxx_on_virtual_functions_and_unions() {
    check("dispatch.cpp");
}

#[test]
fn popc_matches_gxx_on_the_conditional_operator_on_objects() {
    check("conditional.cpp");
}

#[test]
fn popc_matches_gxx_on_namespace_variables_and_static_members() {
    check("statics.cpp");
}

fn check(file: &str) {
    if Command::new("g++").arg("--version").output().is_err() {
        eprintln!("NOTICE: g++ not found; skipping popc's differential test");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc");
    let src_path = root.join("diff").join(file);
    let src = std::fs::read_to_string(&src_path).unwrap();
    let obj = popc::compile(file, &src, &popc::Options::default(), &common::Fs, &[])
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut driver = format!("#include \"{}\"\n#include <cstdio>\n#include <cstring>\n", src_path.display());
    let mut expected = String::new();
    let mut mains = String::new();
    let mut carried = obj.statics.clone();
    for (vi, vt) in obj.vertex_types.iter().enumerate() {
        let n = 37;
        let mut fields = Vec::new();
        for f in &vt.fields {
            let v = match f.kind {
                FieldKind::Plain => rng.value(f.elem),
                FieldKind::Scalar => format!("[{}]", rng.value(f.elem)),
                _ => format!("[{}]", (0..n).map(|_| rng.value(f.elem)).collect::<Vec<_>>().join(", ")),
            };
            fields.push((f.name.clone(), v));
        }
        // popc side.
        let mut mem = vec![0u8; 1 << 16];
        // The static storage as the vertices before left it: they run one
        // after another, as on one tile (g++'s globals persist likewise).
        let statics = popc::state::place_statics(&carried, &mut mem).unwrap();
        let placed = common::layout(vt, &fields, &mut mem[..statics as usize]).unwrap();
        let mut code = popc::exec::Loaded::new(&vt.plain, vt.base == VertexBase::MultiVertex).unwrap();
        code.statics = statics;
        let r = popc::exec::run_vertex(&code, &mut mem, common::STATE);
        assert_eq!(r.status, 0, "{} trapped", vt.name);
        let kept = statics as usize..statics as usize + carried.init.len();
        carried.init.copy_from_slice(&mem[kept]);
        writeln!(expected, "{}", vt.name).unwrap();
        for (f, p) in vt.fields.iter().zip(&placed) {
            let sz = f.elem.size() as usize;
            let s = match p {
                common::Placed::Flat(a, n) => {
                    (0..*n).map(|i| bits(f.elem, &mem[*a as usize + i * sz..])).collect::<Vec<_>>().join(" ")
                }
                _ => continue,
            };
            writeln!(expected, "{}: {}", f.name, s).unwrap();
        }
        // g++ side.
        writeln!(driver, "static void run{vi}() {{\n  static {} v;", vt.name).unwrap();
        for (f, (_, val)) in vt.fields.iter().zip(&fields) {
            let vals = val.trim_matches(['[', ']']);
            let t = ctype(f.elem);
            let conv = |x: &str| {
                if f.elem == ElemType::Half {
                    format!("half((float)({x}))")
                } else {
                    x.to_string()
                }
            };
            match f.kind {
                FieldKind::Plain => writeln!(driver, "  v.{} = {};", f.name, conv(vals)).unwrap(),
                _ => {
                    let items: Vec<String> = vals.split(',').map(|x| conv(x.trim())).collect();
                    // Aligned as popc's layout aligns edges, for vector accesses.
                    writeln!(driver, "  alignas(16) static {t} d_{}[] = {{{}}};", f.name, items.join(", "))
                        .unwrap();
                    writeln!(driver, "  v.{}.p = d_{};", f.name, f.name).unwrap();
                    if f.kind != FieldKind::Scalar {
                        writeln!(driver, "  v.{}.n = {};", f.name, items.len()).unwrap();
                    }
                }
            }
        }
        if vt.base == VertexBase::MultiVertex {
            driver.push_str("  for (unsigned w = 0; w < 6; ++w) v.compute(w);\n");
        } else {
            driver.push_str("  v.compute();\n");
        }
        writeln!(driver, "  printf(\"{}\\n\");", vt.name).unwrap();
        for (f, (_, val)) in vt.fields.iter().zip(&fields) {
            if f.kind == FieldKind::Plain {
                continue;
            }
            let count = val.trim_matches(['[', ']']).split(',').count();
            let sz = f.elem.size();
            writeln!(
                driver,
                "  printf(\"{name}:\");\n  for (int i = 0; i < {count}; ++i) {{ unsigned long long b = 0; std::memcpy(&b, (char*)d_{name} + i * {sz}, {sz}); printf(\"%s%llx\", i ? \" \" : \" \", b); }}\n  printf(\"\\n\");",
                name = f.name
            )
            .unwrap();
        }
        driver.push_str("}\n");
        writeln!(mains, "  run{vi}();").unwrap();
    }
    writeln!(driver, "int main() {{\n{mains}  return 0;\n}}").unwrap();
    let stem = file.trim_end_matches(".cpp");
    let dir = std::env::temp_dir().join(format!("popc-diff-{stem}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cpp = dir.join("driver.cpp");
    std::fs::write(&cpp, &driver).unwrap();
    let exe = dir.join("driver");
    let out = Command::new("g++")
        .args(["-O2", "-std=c++17", "-I"])
        .arg(root.join("stub"))
        .arg(&cpp)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "g++ failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().unwrap();
    let got = String::from_utf8_lossy(&run.stdout).to_string();
    let _ = std::fs::remove_dir_all(&dir);
    let exp_lines: Vec<&str> = expected.lines().collect();
    let got_lines: Vec<&str> = got.lines().collect();
    assert_eq!(exp_lines.len(), got_lines.len(), "popc:\n{expected}\ng++:\n{got}");
    for (e, g) in exp_lines.iter().zip(&got_lines) {
        assert_eq!(e, g, "popc and g++ differ");
    }
}
