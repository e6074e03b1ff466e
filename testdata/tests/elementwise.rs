//! The elementwise functions of `popops::expr` that PIR spells as calls
//! (`sin`, `atan2`, `is_nan`, `bitwise_and`, `shift_left`, `popcount`, …),
//! run on `sim` and `cpu` against a host reference: the devices must agree
//! bit for bit, and with Rust's `f32` functions (the ones the codelets'
//! maths calls reach) and a plain model of the integer rules, exactly;
//! `erf`, which Rust lacks, within 2e-7 of an independent series. Also
//! the type rule: bitwise operations and shifts refuse floats.

use std::path::Path;

use runtime::{DeviceKind, Engine, EngineOptions};

/// Floats fed to every float function: zeros of both signs, halves (ties
/// for the rounding functions), large and small, infinities and NaN.
const A: [f32; 16] = [
    0.0,
    -0.0,
    0.5,
    -1.25,
    3.0,
    100.0,
    1e-3,
    -7.5,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    2.5,
    -0.75,
    0.999,
    -2.5,
    1e20,
];
const B: [f32; 16] = [1.0, -1.0, 2.0, 0.5, -3.0, 0.25, 4.0, -2.0, 1.0, -1.0, 1.0, -0.5, 0.0, -0.0, 7.0, 3.0];

/// A PIR function's name and its reference.
type Function<T> = (&'static str, fn(f32) -> T);
type Function2 = (&'static str, fn(f32, f32) -> f32);

/// The unary float functions.
const FLOAT_UNARY: [Function<f32>; 12] = [
    ("sin", f32::sin),
    ("cos", f32::cos),
    ("tan", f32::tan),
    ("asin", f32::asin),
    ("cbrt", f32::cbrt),
    ("expm1", f32::exp_m1),
    ("exp2", f32::exp2),
    ("log1p", f32::ln_1p),
    ("nearbyint", f32::round_ties_even),
    ("round", f32::round),
    ("trunc", f32::trunc),
    ("erf", erf_reference),
];

const PREDICATES: [Function<bool>; 3] =
    [("is_finite", f32::is_finite), ("is_inf", f32::is_infinite), ("is_nan", f32::is_nan)];

/// Integer operands: extremes, zero, -1, and shift counts from 0 past the
/// widths (negative counts too).
const I: [i64; 12] = [7, -7, 0, -1, 12345, i64::MIN, i64::MAX, 256, 0x5555, -0x1234, 1, 99];
const J: [i64; 12] = [0, 1, 3, 7, 8, -1, 5, 15, 16, 31, 32, 63];

/// PopLibs' variance conversions, computed in float as its C++ path does.
const VARIANCE: [Function2; 2] = [
    ("variance_to_inv_std_dev", |v, eps| 1.0 / (v + eps).sqrt()),
    ("inv_std_dev_to_variance", |isd, eps| 1.0 / (isd * isd) - eps),
];

const INT_BINARY: [&str; 7] = [
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_xnor",
    "shift_left",
    "shift_right",
    "shift_right_sign_extend",
];
const INT_UNARY: [&str; 3] = ["bitwise_not", "popcount", "count_leading_zeros"];

/// `erf` by its Maclaurin series in `f64` (|x| < 4, where its terms stay
/// below 1e7, so the sum keeps nine digits), or ±1 beyond, where `erf` is
/// within 2e-8 of it and `f32` rounds it there.
fn erf_reference(x: f32) -> f32 {
    let x = f64::from(x);
    if x.is_nan() {
        return f32::NAN;
    }
    if x.abs() >= 4.0 {
        return x.signum() as f32;
    }
    let (mut term, mut sum) = (x, x);
    for n in 1..200 {
        term *= -x * x / f64::from(n);
        sum += term / f64::from(2 * n + 1);
    }
    (sum * 2.0 / std::f64::consts::PI.sqrt()) as f32
}

/// The integer types tested: PIR name, width, signedness.
const INT_TYPES: [(&str, u32, bool); 6] = [
    ("char", 8, true),
    ("ushort", 16, false),
    ("short", 16, true),
    ("int", 32, true),
    ("uint", 32, false),
    ("long", 64, true),
];

/// An integer of `w` bits: its bits, and back to a value.
struct Width {
    w: u32,
    signed: bool,
}

impl Width {
    fn mask(&self) -> u64 {
        if self.w == 64 {
            u64::MAX
        } else {
            (1u64 << self.w) - 1
        }
    }
    fn bits(&self, v: i64) -> u64 {
        v as u64 & self.mask()
    }
    /// The value of `w` bits, sign-extended when signed, as an `i64`.
    fn value(&self, bits: u64) -> i64 {
        let bits = bits & self.mask();
        if self.signed && self.w < 64 && (bits >> (self.w - 1)) & 1 == 1 {
            (bits | !self.mask()) as i64
        } else {
            bits as i64
        }
    }
    /// The reference: shifts by a count of at least the width (as an
    /// unsigned number of the type) shift every bit out.
    fn binary(&self, op: &str, a: i64, b: i64) -> i64 {
        let (x, y, w) = (self.bits(a), self.bits(b), u64::from(self.w));
        let r = match op {
            "bitwise_and" => x & y,
            "bitwise_or" => x | y,
            "bitwise_xor" => x ^ y,
            "bitwise_xnor" => !(x ^ y),
            "shift_left" if y >= w => 0,
            "shift_left" => x << y,
            "shift_right" if y >= w => 0,
            "shift_right" => x >> y,
            _ => {
                let sx = Width { w: self.w, signed: true }.value(x);
                (sx >> y.min(w - 1)) as u64
            }
        };
        self.value(r)
    }
    fn unary(&self, op: &str, a: i64) -> i64 {
        let x = self.bits(a);
        match op {
            "bitwise_not" => self.value(!x),
            "popcount" => i64::from(x.count_ones()),
            _ => i64::from(x.leading_zeros() - (64 - self.w)),
        }
    }
}

/// The program: every function once per type, each result read through a
/// host handle named after it.
fn program() -> String {
    let n = A.len();
    let mut decl = format!(
        "target mk2(tiles_per_ipu = 4)\nvar a: float[{n}]\nvar b: float[{n}]\nmap a -> tile 0\nmap b -> tile 1\n\
         host_write \"a\" -> a\nhost_write \"b\" -> b\n"
    );
    let mut body = String::new();
    let mut out = |decl: &mut String, name: &str, ty: &str, len: usize, expr: String| {
        decl.push_str(&format!(
            "var r_{name}: {ty}[{len}]\nmap r_{name} -> linear\nhost_read \"{name}\" <- r_{name}\n"
        ));
        body.push_str(&format!("  r_{name} = {expr}\n"));
    };
    for (f, _) in FLOAT_UNARY {
        out(&mut decl, f, "float", n, format!("{f}(a)"));
    }
    for (f, _) in PREDICATES {
        out(&mut decl, f, "bool", n, format!("{f}(a)"));
    }
    out(&mut decl, "atan2", "float", n, "atan2(a, b)".into());
    for (f, _) in VARIANCE {
        out(&mut decl, f, "float", n, format!("{f}(a, b)"));
    }
    for (ty, ..) in INT_TYPES {
        let m = I.len();
        decl.push_str(&format!(
            "var i_{ty}: {ty}[{m}]\nvar j_{ty}: {ty}[{m}]\nmap i_{ty} -> tile 2\nmap j_{ty} -> tile 3\n\
             host_write \"i_{ty}\" -> i_{ty}\nhost_write \"j_{ty}\" -> j_{ty}\n"
        ));
        for f in INT_BINARY {
            out(&mut decl, &format!("{f}_{ty}"), ty, m, format!("{f}(i_{ty}, j_{ty})"));
        }
        for f in INT_UNARY {
            out(&mut decl, &format!("{f}_{ty}"), ty, m, format!("{f}(i_{ty})"));
        }
    }
    format!("{decl}program main {{\n{body}}}\n")
}

fn run(image: &runtime::linker::image::Image, device: DeviceKind) -> Engine {
    let loaded = runtime::load(&image.to_bytes()).expect("load");
    let mut e = Engine::new(loaded, &EngineOptions { device, ..Default::default() });
    e.write_values("a", &A).unwrap();
    e.write_values("b", &B).unwrap();
    for (ty, w, signed) in INT_TYPES {
        let width = Width { w, signed };
        let put = |e: &mut Engine, name: &str, xs: &[i64]| {
            let bytes: Vec<u8> = xs
                .iter()
                .flat_map(|&x| width.bits(x).to_le_bytes().into_iter().take(w as usize / 8))
                .collect();
            e.write(name, &bytes).unwrap();
        };
        put(&mut e, &format!("i_{ty}"), &I);
        put(&mut e, &format!("j_{ty}"), &J);
    }
    e.run_named("main").unwrap();
    e
}

fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

#[test]
fn the_functions_agree_with_the_host_on_both_devices() {
    let source = program();
    let (image, ..) = compiler::driver::compile_source_for_run(
        "elementwise.pir",
        source.into_bytes(),
        Path::new("elementwise.pir"),
        false,
    )
    .expect("the program compiles");
    let (sim, cpu) = (run(&image, DeviceKind::Sim), run(&image, DeviceKind::Cpu));
    let mut failures = Vec::new();
    let names = FLOAT_UNARY
        .iter()
        .map(|f| f.0)
        .chain(PREDICATES.iter().map(|p| p.0))
        .chain(["atan2"])
        .chain(VARIANCE.iter().map(|v| v.0))
        .map(String::from)
        .chain(
            INT_TYPES
                .iter()
                .flat_map(|(ty, ..)| INT_BINARY.iter().chain(&INT_UNARY).map(move |f| format!("{f}_{ty}"))),
        );
    for name in names {
        let s = sim.read(&name).unwrap();
        if s != cpu.read(&name).unwrap() {
            failures.push(format!("{name}: sim and cpu differ"));
        }
    }
    for (f, reference) in FLOAT_UNARY {
        let got: Vec<f32> = sim.read_values(f).unwrap();
        for (k, (&x, &g)) in A.iter().zip(&got).enumerate() {
            let want = reference(x);
            let ok = if f == "erf" { same(g, want) || (g - want).abs() <= 2e-7 } else { same(g, want) };
            if !ok {
                failures.push(format!("{f}({x:?}) [{k}] = {g:?}, want {want:?}"));
            }
        }
    }
    for (f, reference) in PREDICATES {
        let got = sim.read(f).unwrap();
        for (&x, &g) in A.iter().zip(&got) {
            if (g != 0) != reference(x) {
                failures.push(format!("{f}({x:?}) = {g}, want {}", reference(x)));
            }
        }
    }
    let got: Vec<f32> = sim.read_values("atan2").unwrap();
    for ((&x, &y), &g) in A.iter().zip(&B).zip(&got) {
        if !same(g, x.atan2(y)) {
            failures.push(format!("atan2({x:?}, {y:?}) = {g:?}, want {:?}", x.atan2(y)));
        }
    }
    for (f, reference) in VARIANCE {
        let got: Vec<f32> = sim.read_values(f).unwrap();
        for ((&x, &y), &g) in A.iter().zip(&B).zip(&got) {
            if !same(g, reference(x, y)) {
                failures.push(format!("{f}({x:?}, {y:?}) = {g:?}, want {:?}", reference(x, y)));
            }
        }
    }
    for (ty, w, signed) in INT_TYPES {
        let width = Width { w, signed };
        let read = |name: &str| -> Vec<i64> {
            let bytes = sim.read(name).unwrap();
            bytes
                .chunks_exact(w as usize / 8)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b[..c.len()].copy_from_slice(c);
                    width.value(u64::from_le_bytes(b))
                })
                .collect()
        };
        for f in INT_BINARY {
            for (k, g) in read(&format!("{f}_{ty}")).into_iter().enumerate() {
                let (a, b) = (width.value(width.bits(I[k])), width.value(width.bits(J[k])));
                let want = width.binary(f, a, b);
                if g != want {
                    failures.push(format!("{f}({a}, {b}) of {ty} = {g}, want {want}"));
                }
            }
        }
        for f in INT_UNARY {
            for (k, g) in read(&format!("{f}_{ty}")).into_iter().enumerate() {
                let a = width.value(width.bits(I[k]));
                let want = width.value(width.bits(width.unary(f, a)));
                if g != want {
                    failures.push(format!("{f}({a}) of {ty} = {g}, want {want}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn bitwise_operations_and_shifts_refuse_floats() {
    for (f, want) in [
        ("bitwise_and(a, a)", "`bitwise_and` needs integer operands, not `float`"),
        ("shift_left(a, a)", "`shift_left` needs integer operands, not `float`"),
        ("popcount(a)", "`popcount` needs an integer operand, not `float`"),
        ("sin(i)", "`sin` needs a `float` or `half` operand, not `int`"),
    ] {
        let source = format!(
            "target mk2(tiles_per_ipu = 4)\nvar a: float[4]\nvar i: int[4]\nmap a -> tile 0\nmap i -> tile 0\n\
             program main {{\n  r = {f}\n}}\n"
        );
        let err = compiler::driver::compile_source_for_run(
            "refused.pir",
            source.into_bytes(),
            Path::new("refused.pir"),
            false,
        )
        .err()
        .unwrap_or_else(|| panic!("{f} compiled"));
        assert!(err.contains(want), "{f}: {err}");
    }
}
