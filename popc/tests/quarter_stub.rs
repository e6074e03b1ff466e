//! The two implementations of `quarter` agree: popc's (`linker::quarter`,
//! integer arithmetic on a float's bits) and the stub header g++ builds
//! codelets against (`testdata/popc/stub/poplar/QuarterFloat.hpp`, double
//! arithmetic with `ldexp`/`nearbyint`), both written from the rules in
//! docs/codelets.md. Every bit pattern in both formats at several scales,
//! and floats around every representable value (exact, half-way, just off
//! half-way), past the largest value, in the subnormal range and specials,
//! with and without NaN on overflow. Skipped, with a notice, without g++.

use std::fmt::Write;
use std::path::Path;
use std::process::Command;

use linker::quarter::{from_f32, to_f32, Format};

const SCALES: [i32; 7] = [-32, -7, -1, 0, 1, 5, 31];

/// The floats converted to quarter: for each format and scale, every
/// value's neighbourhood, plus specials.
fn probes() -> Vec<f32> {
    let mut v =
        vec![0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, f32::MIN_POSITIVE, 1e-45];
    for f in [Format::F143, Format::F152] {
        for s in SCALES {
            for b in 0..=0x7fu8 {
                let x = to_f32(b, f, s);
                let y = to_f32(b.saturating_add(1).min(0x7f), f, s);
                let mid = (x + y) / 2.0;
                for p in [x, mid, f32::from_bits(mid.to_bits() + 1), f32::from_bits(mid.to_bits().max(1) - 1)]
                {
                    v.push(p);
                    v.push(-p);
                }
                v.push(x * 1.0625);
            }
        }
    }
    v
}

#[test]
fn popc_and_the_stub_header_agree() {
    if Command::new("g++").arg("--version").output().is_err() {
        eprintln!("NOTICE: g++ not found; skipping the quarter stub comparison");
        return;
    }
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/stub");
    let probes = probes();
    let mut cpp = String::from("#include <poplar/QuarterFloat.hpp>\n#include <cstdio>\n#include <cstring>\n");
    cpp.push_str("using namespace poplar;\nstatic const unsigned probes[] = {");
    for p in &probes {
        write!(cpp, "{:#x}u,", p.to_bits()).unwrap();
    }
    cpp.push_str("};\nint main() {\n  const int scales[] = {");
    for s in SCALES {
        write!(cpp, "{s},").unwrap();
    }
    cpp.push_str(
        r#"};
  for (int f = 0; f < 2; ++f)
    for (int s : scales) {
      quarter_metadata md;
      md.fmt = f ? quarter_metadata::f152 : quarter_metadata::f143;
      md.scale = (signed char)s;
      for (unsigned b = 0; b < 256; ++b) {
        float x = toFloat(quarter(b), md);
        unsigned u;
        std::memcpy(&u, &x, 4);
        std::printf("%x\n", u);
      }
      for (unsigned p : probes) {
        float x;
        std::memcpy(&x, &p, 4);
        std::printf("%x %x\n", toQuarter(x, md, true).value, toQuarter(x, md, false).value);
      }
    }
  return 0;
}
"#,
    );
    let mut expected = String::new();
    for f in [Format::F143, Format::F152] {
        for s in SCALES {
            for b in 0..=255u8 {
                writeln!(expected, "{:x}", to_f32(b, f, s).to_bits()).unwrap();
            }
            for p in &probes {
                writeln!(expected, "{:x} {:x}", from_f32(*p, f, s, true), from_f32(*p, f, s, false)).unwrap();
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("popc-quarter-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("quarter.cpp");
    std::fs::write(&src, cpp).unwrap();
    let exe = dir.join("quarter");
    let out = Command::new("g++")
        .args(["-O2", "-std=c++17", "-I"])
        .arg(&stub)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "g++ failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().unwrap();
    let got = String::from_utf8_lossy(&run.stdout).to_string();
    let _ = std::fs::remove_dir_all(&dir);
    let mut lines = 0;
    for (i, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        assert_eq!(e, g, "line {i} differs (popc left, stub right)");
        lines += 1;
    }
    assert_eq!(lines, expected.lines().count(), "the stub printed {} lines", got.lines().count());
}
