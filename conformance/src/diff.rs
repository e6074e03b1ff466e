//! The differential check: each vertex popc compiled is also built by
//! `g++ -O2` against the stub Poplar headers (`testdata/popc/stub`), both
//! run on the same tile memory, and the memories compared afterwards.
//!
//! Inputs: per seed, an edge length `n` and field values drawn per element
//! type ([`Rng`]); [`popc::state::layout`] writes them, and the state, into a
//! 64 KiB tile memory, the encoding popc's own tests use. The g++ side gets
//! that same memory (one generated driver per file, which includes the
//! codelet source and points each field into the memory at popc's
//! addresses), so even a read past an edge sees the same bytes on both
//! sides. After `compute` (each of the 6 workers in turn for a
//! `MultiVertex`) the whole memory must agree bit for bit, plain fields
//! included, except that a vertex whose code calls a host maths function
//! (`exp`, `log`, `tanh`, `pow`, … — a `call_indirect` in its IR) may differ
//! by [`ULP_FLOAT`] ulp in `float`/`double` and [`ULP_HALF`] in `half`
//! elements: libm and the compiler may differ in their last bits there.
//! Two NaNs are equal whatever their sign and payload (C++ leaves them
//! unspecified).
//!
//! A seed on which popc traps (an out-of-bounds index drawn at random, say)
//! is outside the vertex's contract and skipped, as is one on which the g++
//! build crashes, exceeds [`GXX_TIMEOUT`] or writes outside the fields
//! (popc writing outside them where g++ does not is a mismatch); a vertex
//! passes only when at least one seed ran on both sides and every such seed
//! agreed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use linker::gp::{ElemType, FieldKind, Object, VertexBase, VertexType};
use popc::state::{layout, Placed};

/// Tile memory of one run.
pub const MEM: usize = 1 << 16;
/// Allowed difference, in units in the last place, of `float` and `double`
/// elements of vertices that call host maths functions.
pub const ULP_FLOAT: u64 = 4;
/// The same for `half` elements.
pub const ULP_HALF: u64 = 1;
/// Longest a g++-built vertex may run on all its seeds.
pub const GXX_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest popc's code for a vertex may run on the seeds g++'s finished.
pub const POPC_TIMEOUT: Duration = Duration::from_secs(20);

/// What the check found for one vertex.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every seed that ran on both sides agreed (`compared` of them).
    Pass { compared: usize, tolerance: bool },
    /// The first difference.
    Mismatch(String),
    /// The vertex could not be run on both sides, and why.
    NotDriven(String),
}

/// Per vertex of a file, in the object's order.
pub struct FileResult {
    pub vertices: Vec<(String, Outcome)>,
}

/// Edge lengths, one per seed in turn.
const SIZES: [usize; 6] = [16, 5, 1, 37, 64, 3];
/// Sub-vectors of a vector list, one per seed in turn.
const LISTS: [usize; 6] = [6, 2, 7, 1, 6, 3];

/// xorshift64: the same numbers on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value of type `e` as text for [`popc::state::encode`]. Small
    /// integers (up to `n + 1`) on even seeds, so that counts and indices
    /// are often in range; wide ones on odd seeds.
    pub fn value(&mut self, e: ElemType, n: usize, wide: bool) -> String {
        let r = self.next();
        let small = n as u64 + 2;
        match e {
            ElemType::Float | ElemType::Double => format!("{}", (r % 2001) as f64 / 100.0 - 10.0),
            ElemType::Half => format!("{}", (r % 1025) as f64 / 64.0 - 8.0),
            ElemType::Bool => format!("{}", r % 2),
            ElemType::Char => format!("{}", (r % 256) as i64 - 128),
            ElemType::UChar => format!("{}", r % 256),
            ElemType::Short | ElemType::Int | ElemType::Long if wide => {
                format!("{}", (r % 2001) as i64 - 1000)
            }
            ElemType::UShort | ElemType::UInt | ElemType::ULong if wide => format!("{}", r % 1000),
            ElemType::Short | ElemType::Int | ElemType::Long => format!("{}", (r % (small + 2)) as i64 - 2),
            ElemType::UShort | ElemType::UInt | ElemType::ULong => format!("{}", r % small),
        }
    }
}

/// Why `vt` cannot be driven automatically, if it cannot.
pub fn undrivable(vt: &VertexType) -> Option<String> {
    for f in &vt.fields {
        match f.kind {
            FieldKind::Plain if f.size != f.elem.size() => {
                return Some(format!("field '{}' is a plain member that is not a scalar", f.name))
            }
            _ => {}
        }
    }
    None
}

/// One seed's input: the field values and the tile memory laid out from them.
struct Input {
    mem: Vec<u8>,
    /// Per field: address and element count (plain: state address, 1;
    /// vector list: the address of its (address, count) table, and the
    /// number of sub-vectors).
    addrs: Vec<(u32, u32)>,
    /// Every run of elements: field index, address, count.
    regions: Vec<(usize, u32, usize)>,
}

fn make_input(vt: &VertexType, seed: u64) -> Result<Input, String> {
    let n = SIZES[seed as usize % SIZES.len()];
    // Several workers' worth of sub-vectors, usually.
    let lists = LISTS[seed as usize % LISTS.len()];
    let wide = seed % 2 == 1;
    let has_list = vt.fields.iter().any(|f| matches!(f.kind, FieldKind::VectorList(_)));
    let dim = if has_list { n.min(lists) } else { n };
    let mut rng = Rng::new(seed + 1);
    let mut fields = Vec::new();
    for f in &vt.fields {
        let v = match f.kind {
            // Counts and indices: always within every dimension.
            FieldKind::Plain => rng.value(f.elem, dim.saturating_sub(1), false),
            FieldKind::Scalar => format!("[{}]", rng.value(f.elem, n, wide)),
            FieldKind::VectorList(_) => {
                let one =
                    |rng: &mut Rng| (0..n).map(|_| rng.value(f.elem, n, wide)).collect::<Vec<_>>().join(", ");
                format!(
                    "[{}]",
                    (0..lists).map(|_| format!("[{}]", one(&mut rng))).collect::<Vec<_>>().join(", ")
                )
            }
            _ => format!("[{}]", (0..n).map(|_| rng.value(f.elem, n, wide)).collect::<Vec<_>>().join(", ")),
        };
        fields.push((f.name.clone(), v));
    }
    let mut mem = vec![0u8; MEM];
    let placed = layout(vt, &fields, &mut mem)?;
    let mut addrs = Vec::new();
    let mut regions = Vec::new();
    for (i, (f, p)) in vt.fields.iter().zip(&placed).enumerate() {
        let st = popc::state::STATE + f.offset;
        match p {
            Placed::Flat(a, k) => {
                addrs.push((*a, *k as u32));
                regions.push((i, *a, *k));
            }
            Placed::Plain => {
                addrs.push((st, 1));
                regions.push((i, st, 1));
            }
            Placed::Scattered(l) => {
                let table = u32::from_le_bytes(mem[st as usize..st as usize + 4].try_into().unwrap());
                addrs.push((table, l.len() as u32));
                regions.extend(l.iter().map(|a| (i, *a, 1)));
            }
            Placed::List(l) => {
                let table = u32::from_le_bytes(mem[st as usize..st as usize + 4].try_into().unwrap());
                addrs.push((table, l.len() as u32));
                regions.extend(l.iter().map(|(a, k)| (i, *a, *k)));
            }
        }
    }
    Ok(Input { mem, addrs, regions })
}

/// The C++ of the driver for `obj`'s vertices that `drive` selects, each
/// named in C++ as `names` says.
pub fn driver_source(codelet: &Path, obj: &Object, drive: &[bool], names: &[String]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#include \"{}\"", codelet.display());
    s.push_str("#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n");
    let _ = writeln!(s, "alignas(64) static unsigned char conf_mem[{MEM}];");
    s.push_str(FIELD_KIND);
    for (vi, vt) in obj.vertex_types.iter().enumerate() {
        if !drive[vi] {
            continue;
        }
        let name = &names[vi];
        let _ = writeln!(s, "static void conf_run{vi}(const unsigned *a, const unsigned *n) {{");
        let _ = writeln!(s, "  alignas({name}) static unsigned char buf[sizeof({name})];");
        let _ = writeln!(s, "  std::memset(buf, 0, sizeof buf);");
        let _ = writeln!(s, "  {name} &v = *reinterpret_cast<{name} *>(buf);");
        for f in &vt.fields {
            let (k, what) = match f.kind {
                FieldKind::Plain => (0, "a plain member"),
                FieldKind::Scalar => (1, "a one-element edge"),
                FieldKind::Vector(_) => (2, "a vector"),
                FieldKind::VectorList(_) => (3, "a vector list"),
                FieldKind::ScalarList(_) => (4, "a vector of one-element edges"),
            };
            let _ = writeln!(
                s,
                "  static_assert(conf_kind<decltype(v.{m})>::value == {k}, \"conf: popc lays out field '{m}' as {what}, its C++ type is not one\");",
                m = f.name
            );
        }
        for (fi, f) in vt.fields.iter().enumerate() {
            let m = &f.name;
            match f.kind {
                FieldKind::Plain => {
                    let _ = writeln!(s, "  static_assert(sizeof(v.{m}) == {}, \"field size\");", f.size);
                    let _ = writeln!(s, "  std::memcpy((void *)&v.{m}, conf_mem + a[{fi}], {});", f.size);
                }
                FieldKind::Scalar => {
                    let _ =
                        writeln!(s, "  v.{m}.p = reinterpret_cast<decltype(v.{m}.p)>(conf_mem + a[{fi}]);");
                }
                FieldKind::ScalarList(_) => {
                    // The edges from popc's table of element addresses.
                    let _ = writeln!(s, "  static std::remove_pointer<decltype(v.{m}.p)>::type l{fi}[256];");
                    let _ = writeln!(
                        s,
                        "  for (unsigned j = 0; j < 256 && a[{fi}] + 4 * j + 4 <= sizeof conf_mem; ++j) {{"
                    );
                    let _ = writeln!(s, "    unsigned ea;");
                    let _ = writeln!(s, "    std::memcpy(&ea, conf_mem + a[{fi}] + 4 * j, 4);");
                    let _ = writeln!(
                        s,
                        "    l{fi}[j].p = reinterpret_cast<decltype(l{fi}[j].p)>(conf_mem + ea);"
                    );
                    let _ = writeln!(s, "  }}");
                    let _ = writeln!(s, "  v.{m}.p = l{fi};");
                    let _ = writeln!(s, "  v.{m}.n = n[{fi}];");
                }
                FieldKind::VectorList(_) => {
                    // The sub-vectors from popc's (address, count) table,
                    // read past its end as popc's code would read it.
                    let _ = writeln!(s, "  static std::remove_pointer<decltype(v.{m}.p)>::type l{fi}[256];");
                    let _ = writeln!(
                        s,
                        "  for (unsigned j = 0; j < 256 && a[{fi}] + 8 * j + 8 <= sizeof conf_mem; ++j) {{"
                    );
                    let _ = writeln!(s, "    unsigned sa, sn;");
                    let _ = writeln!(s, "    std::memcpy(&sa, conf_mem + a[{fi}] + 8 * j, 4);");
                    let _ = writeln!(s, "    std::memcpy(&sn, conf_mem + a[{fi}] + 8 * j + 4, 4);");
                    let _ = writeln!(
                        s,
                        "    l{fi}[j].p = reinterpret_cast<decltype(l{fi}[j].p)>(conf_mem + sa);"
                    );
                    let _ = writeln!(s, "    l{fi}[j].n = sn;");
                    let _ = writeln!(s, "  }}");
                    let _ = writeln!(s, "  v.{m}.p = l{fi};");
                    let _ = writeln!(s, "  v.{m}.n = n[{fi}];");
                }
                _ => {
                    let _ =
                        writeln!(s, "  v.{m}.p = reinterpret_cast<decltype(v.{m}.p)>(conf_mem + a[{fi}]);");
                    let _ = writeln!(s, "  v.{m}.n = n[{fi}];");
                }
            }
        }
        if vt.base == VertexBase::MultiVertex {
            s.push_str("  for (unsigned w = 0; w < 6; ++w) v.compute(w);\n");
        } else {
            s.push_str("  v.compute();\n");
        }
        for (fi, f) in vt.fields.iter().enumerate() {
            if f.kind == FieldKind::Plain {
                let _ = writeln!(
                    s,
                    "  std::memcpy(conf_mem + a[{fi}], (const void *)&v.{}, {});",
                    f.name, f.size
                );
            }
        }
        s.push_str("}\n");
    }
    s.push_str("typedef void (*conf_fn)(const unsigned *, const unsigned *);\n");
    s.push_str("static const conf_fn conf_fns[] = {");
    for (vi, d) in drive.iter().enumerate() {
        if *d {
            let _ = write!(s, "conf_run{vi}, ");
        } else {
            s.push_str("nullptr, ");
        }
    }
    s.push_str("nullptr};\n");
    s.push_str(
        r#"// driver VERTEX IN OUT: IN holds runs of (u32 fields, u32 addr[fields],
// u32 count[fields], memory); OUT receives the memory after each run.
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  int vi = std::atoi(argv[1]);
  FILE *in = std::fopen(argv[2], "rb"), *out = std::fopen(argv[3], "wb");
  if (!in || !out || !conf_fns[vi]) return 2;
  static unsigned a[4096], n[4096];
  unsigned nf;
  while (std::fread(&nf, 4, 1, in) == 1) {
    if (nf > 4096 || std::fread(a, 4, nf, in) != nf || std::fread(n, 4, nf, in) != nf ||
        std::fread(conf_mem, 1, sizeof conf_mem, in) != sizeof conf_mem) return 2;
    conf_fns[vi](a, n);
    std::fwrite(conf_mem, 1, sizeof conf_mem, out);
    std::fflush(out);
  }
  return 0;
}
"#,
    );
    s
}

/// C++ for the driver: the kind of a field's type in the stub headers (0
/// plain, 1 one-element edge, 2 vector, 3 vector list, 4 vector of
/// one-element edges), to check popc's
/// layout of each field against the type C++ gives it.
const FIELD_KIND: &str = r#"#include <type_traits>
#include <utility>
template <class T, class = void> struct conf_has_p : std::false_type {};
template <class T> struct conf_has_p<T, std::void_t<decltype(std::declval<T &>().p)>> : std::true_type {};
template <class T, class = void> struct conf_has_n : std::false_type {};
template <class T> struct conf_has_n<T, std::void_t<decltype(std::declval<T &>().n)>> : std::true_type {};
template <class T, bool = conf_has_p<T>::value> struct conf_kind { static constexpr int value = 0; };
template <class T> struct conf_kind<T, true> {
  using E = typename std::remove_pointer<decltype(std::declval<T &>().p)>::type;
  static constexpr int value =
      !conf_has_n<T>::value ? 1 : !conf_has_p<E>::value ? 2 : conf_has_n<E>::value ? 3 : 4;
};
"#;

/// The lines of the driver that belong to each vertex (for blaming g++ errors).
fn driver_lines(src: &str, count: usize) -> Vec<Option<usize>> {
    let mut owner = None;
    let mut out = Vec::new();
    for l in src.lines() {
        if let Some(rest) = l.strip_prefix("static void conf_run") {
            owner = rest.split('(').next().and_then(|x| x.parse::<usize>().ok()).filter(|v| *v < count);
        } else if l.starts_with("typedef") {
            owner = None;
        }
        out.push(owner);
    }
    out
}

/// Builds the driver; vertices whose driver code g++ rejects are dropped
/// (with g++'s first error) and the build retried.
fn build_driver(
    b: &Build,
    obj: &Object,
    drive: &mut [bool],
    reasons: &mut [Option<Outcome>],
) -> Result<PathBuf, String> {
    let (codelet, dir) = (b.codelet, b.scratch);
    let exe = dir.join("driver");
    let mut names: Vec<String> = obj.vertex_types.iter().map(|v| v.name.clone()).collect();
    for _ in 0..8 {
        if !drive.iter().any(|d| *d) {
            return Err("no vertex left to drive".into());
        }
        let src = driver_source(codelet, obj, drive, &names);
        let cpp = dir.join("driver.cpp");
        std::fs::write(&cpp, &src).map_err(|e| format!("cannot write the driver: {e}"))?;
        let out = Command::new("g++")
            .current_dir(b.root)
            // popc ignores access specifiers; the driver sets private fields too.
            // Tile memory is untyped: no type-based alias assumptions either.
            .args([
                b.opt,
                "-std=c++17",
                "-w",
                "-fmax-errors=50",
                "-fno-access-control",
                "-fno-strict-aliasing",
                "-D__POPC__",
                "-I",
            ])
            .arg(b.stub)
            .args(b.flags)
            .arg(&cpp)
            .arg("-o")
            .arg(&exe)
            .output()
            .map_err(|e| format!("cannot run g++: {e}"))?;
        if out.status.success() {
            return Ok(exe);
        }
        let err = String::from_utf8_lossy(&out.stderr);
        let owners = driver_lines(&src, drive.len());
        let cpp_name = cpp.to_string_lossy().into_owned();
        let err = err.replace(&format!("{}/", b.root.display()), "");
        let errors: Vec<&str> =
            err.lines().filter(|l| l.contains(": error: ") || l.contains(": fatal error: ")).collect();
        // An error in the codelet or its headers is the file's, whatever
        // else it set off in the driver.
        if let Some(first) = errors.iter().find(|l| !l.starts_with(&cpp_name)) {
            return Err(format!("g++ cannot build the file: {}", clip(first, 200)));
        }
        let mut blamed = false;
        // Vertices renamed this round: their other errors may be the same one.
        let mut renamed = Vec::new();
        for l in &errors {
            let Some(rest) = l.strip_prefix(&cpp_name).and_then(|r| r.strip_prefix(':')) else { continue };
            let Some(line) = rest.split(':').next().and_then(|x| x.parse::<usize>().ok()) else { continue };
            if let Some(Some(vi)) = owners.get(line.wrapping_sub(1)) {
                if renamed.contains(vi) {
                    continue;
                }
                if let Some(fixed) = enum_argument(&names[*vi], l) {
                    names[*vi] = fixed;
                    renamed.push(*vi);
                    blamed = true;
                    continue;
                }
                if drive[*vi] {
                    drive[*vi] = false;
                    let msg = l.split_once(": error: ").map(|x| x.1).unwrap_or(l);
                    reasons[*vi] = Some(match msg.split_once("conf: ") {
                        // The field kind check: popc and C++ disagree on the type.
                        Some((_, m)) => Outcome::Mismatch(m.trim_end_matches(['"', '’', '\'']).to_string()),
                        None => Outcome::NotDriven(format!("g++ rejects its driver: {}", clip(msg, 160))),
                    });
                    blamed = true;
                }
            }
        }
        if !blamed {
            let first = err.lines().find(|l| l.contains("error")).unwrap_or("g++ failed");
            return Err(format!("g++ cannot build the file: {}", clip(first, 200)));
        }
    }
    Err("g++ kept rejecting the driver".into())
}

pub fn clip(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// popc names a vertex's enumeration-typed template arguments by value
/// (`NonLinearity1D<float,4>`), which C++ does not convert; given g++'s
/// "could not convert ‘4’ from ‘int’ to ‘E’", the name with that argument
/// spelled `static_cast<E>(4)`.
fn enum_argument(name: &str, error: &str) -> Option<String> {
    let rest = error.split_once("could not convert ‘")?.1;
    let (value, rest) = rest.split_once("’ from ‘int’ to ‘")?;
    let (ty, _) = rest.split_once('’')?;
    if value.is_empty() || !value.chars().all(|c| c.is_ascii_digit() || c == '-') {
        return None;
    }
    let (head, args) = name.split_once('<')?;
    let args = args.strip_suffix('>')?;
    // Top-level arguments only (nested `<…>` left alone).
    let mut out = Vec::new();
    let (mut depth, mut cur, mut done) = (0, String::new(), false);
    let mut push = |cur: &mut String, out: &mut Vec<String>| {
        if !done && cur.trim() == value {
            out.push(format!("static_cast<{ty}>({value})"));
            done = true;
        } else {
            out.push(cur.clone());
        }
        cur.clear();
    };
    for c in args.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                push(&mut cur, &mut out);
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    push(&mut cur, &mut out);
    done.then(|| format!("{head}<{}>", out.join(",")))
}

/// Runs the g++ build of vertex `vi` on `inputs`; per input, the memory
/// afterwards or `None` when it crashed or ran out of time.
fn run_gxx(exe: &Path, dir: &Path, vi: usize, inputs: &[Input]) -> Vec<Option<Vec<u8>>> {
    let mut results: Vec<Option<Vec<u8>>> = Vec::new();
    let deadline = Instant::now() + GXX_TIMEOUT;
    while results.len() < inputs.len() {
        let start = results.len();
        let inp = dir.join(format!("in{vi}"));
        let outp = dir.join(format!("out{vi}"));
        let mut blob = Vec::new();
        for i in &inputs[start..] {
            blob.extend((i.addrs.len() as u32).to_le_bytes());
            blob.extend(i.addrs.iter().flat_map(|(a, _)| a.to_le_bytes()));
            blob.extend(i.addrs.iter().flat_map(|(_, n)| n.to_le_bytes()));
            blob.extend(&i.mem);
        }
        if std::fs::write(&inp, &blob).is_err() {
            results.resize(inputs.len(), None);
            break;
        }
        let child = Command::new(exe)
            .arg(vi.to_string())
            .arg(&inp)
            .arg(&outp)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let finished = match child {
            Ok(mut c) => loop {
                match c.try_wait() {
                    Ok(Some(_)) => break true,
                    Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
                    _ => {
                        let _ = c.kill();
                        let _ = c.wait();
                        break false;
                    }
                }
            },
            Err(_) => false,
        };
        let got = std::fs::read(&outp).unwrap_or_default();
        let done = got.len() / MEM;
        for k in 0..done.min(inputs.len() - start) {
            results.push(Some(got[k * MEM..(k + 1) * MEM].to_vec()));
        }
        if results.len() < inputs.len() {
            // The run at `results.len()` crashed (or all ran out of time).
            results.push(None);
            if !finished {
                results.resize(inputs.len(), None);
            }
        }
    }
    results
}

/// Distance in units in the last place between two finite values of the
/// same sign given as ordered bit patterns; `u64::MAX` when not comparable.
fn ulps(e: ElemType, a: &[u8], b: &[u8]) -> u64 {
    let (x, y) = match e {
        ElemType::Float => {
            let (x, y) = (
                f32::from_le_bytes(a[..4].try_into().unwrap()),
                f32::from_le_bytes(b[..4].try_into().unwrap()),
            );
            if x.is_nan() && y.is_nan() {
                return 0;
            }
            if !x.is_finite() || !y.is_finite() || x.is_sign_negative() != y.is_sign_negative() {
                return u64::MAX;
            }
            ((x.to_bits() & 0x7fff_ffff) as u64, (y.to_bits() & 0x7fff_ffff) as u64)
        }
        ElemType::Double => {
            let (x, y) = (
                f64::from_le_bytes(a[..8].try_into().unwrap()),
                f64::from_le_bytes(b[..8].try_into().unwrap()),
            );
            if x.is_nan() && y.is_nan() {
                return 0;
            }
            if !x.is_finite() || !y.is_finite() || x.is_sign_negative() != y.is_sign_negative() {
                return u64::MAX;
            }
            (x.to_bits() & !(1 << 63), y.to_bits() & !(1 << 63))
        }
        ElemType::Half => {
            let (x, y) = (half::f16::from_le_bytes([a[0], a[1]]), half::f16::from_le_bytes([b[0], b[1]]));
            if x.is_nan() && y.is_nan() {
                return 0;
            }
            if !x.is_finite() || !y.is_finite() || x.is_sign_negative() != y.is_sign_negative() {
                return u64::MAX;
            }
            ((x.to_bits() & 0x7fff) as u64, (y.to_bits() & 0x7fff) as u64)
        }
        _ => return u64::MAX,
    };
    x.abs_diff(y)
}

/// Whether a run changed memory outside the vertex's fields (an index past
/// an edge, drawn at random): the input is outside the vertex's contract,
/// and what it overwrote (a vector list's table, say) may be read back
/// differently by the two sides.
fn writes_outside(vt: &VertexType, inp: &Input, after: &[u8]) -> bool {
    let mut field = vec![false; MEM];
    for &(fi, a, n) in &inp.regions {
        let sz = vt.fields[fi].elem.size() as usize;
        let (lo, hi) = (a as usize, (a as usize + n * sz).min(MEM));
        field[lo.min(hi)..hi].iter_mut().for_each(|b| *b = true);
    }
    (0..MEM).any(|i| !field[i] && inp.mem[i] != after[i])
}

/// Compares popc's memory `p` with g++'s `g`; `Ok(true)` when equal only
/// within the ulp bound.
fn compare(vt: &VertexType, inp: &Input, p: &[u8], g: &[u8], tolerant: bool) -> Result<bool, String> {
    let mut used = false;
    let mut i = 0;
    while i < MEM {
        if p[i] == g[i] {
            i += 1;
            continue;
        }
        // Which field element holds byte i?
        let hit = inp.regions.iter().find_map(|&(fi, a, n)| {
            let f = &vt.fields[fi];
            let sz = f.elem.size() as usize;
            let a = a as usize;
            (i >= a && i < a + n.max(1) * sz).then(|| (f, (i - a) / sz, a + (i - a) / sz * sz, sz))
        });
        let Some((f, k, at, sz)) = hit else {
            // Outside the fields (a write past an edge, on both sides): a
            // float or half NaN on both sides is still the same value.
            let (w, h) = (i & !3, i & !1);
            if w + 4 <= MEM && ulps(ElemType::Float, &p[w..w + 4], &g[w..w + 4]) == 0 {
                i = w + 4;
                continue;
            }
            if h + 2 <= MEM && ulps(ElemType::Half, &p[h..h + 2], &g[h..h + 2]) == 0 {
                i = h + 2;
                continue;
            }
            return Err(format!("byte {i:#x} (outside every field): popc {:#04x}, g++ {:#04x}", p[i], g[i]));
        };
        let bound = match f.elem {
            ElemType::Float | ElemType::Double => ULP_FLOAT,
            ElemType::Half => ULP_HALF,
            _ => 0,
        };
        let d = ulps(f.elem, &p[at..at + sz], &g[at..at + sz]);
        if d == 0 {
            // Two NaNs: C++ leaves their sign and payload unspecified.
            i = at + sz;
            continue;
        }
        if !tolerant || d > bound {
            let show = |m: &[u8]| popc::state::decode(f.elem, &m[at..at + sz]);
            let ulp = if d == u64::MAX || bound == 0 { String::new() } else { format!(" ({d} ulp)") };
            return Err(format!("{}[{k}]: popc {}, g++ {}{ulp}", f.name, show(p), show(g)));
        }
        used = true;
        i = at + sz;
    }
    Ok(used)
}

/// Where a file's g++ build happens.
pub struct Build<'a> {
    /// The corpus root, where g++ runs.
    pub root: &'a Path,
    /// The codelet source, an absolute path.
    pub codelet: &'a Path,
    /// Its flags, paths relative to `root`.
    pub flags: &'a [String],
    /// The stub Poplar headers.
    pub stub: &'a Path,
    /// This file's own directory for the driver and its inputs.
    pub scratch: &'a Path,
    /// g++'s optimisation flag for the driver: `-O2` (quick runs: `-O0`,
    /// which computes the same for code without undefined behaviour, and
    /// builds several times faster).
    pub opt: &'a str,
}

/// Runs the whole check for one compiled file. `ir` is popc's `-S` text (to find
/// the vertices that call host maths functions).
pub fn check_file(b: &Build, obj: &Object, ir: &str, seeds: u64) -> Result<FileResult, String> {
    let scratch = b.scratch;
    let mut reasons: Vec<Option<Outcome>> =
        obj.vertex_types.iter().map(|v| undrivable(v).map(Outcome::NotDriven)).collect();
    let mut drive: Vec<bool> = reasons.iter().map(|r| r.is_none()).collect();
    let mut results: Vec<(String, Outcome)> = Vec::new();
    let exe = if drive.iter().any(|d| *d) {
        std::fs::create_dir_all(scratch)
            .map_err(|e| format!("cannot create '{}': {e}", scratch.display()))?;
        build_driver(b, obj, &mut drive, &mut reasons)
    } else {
        Err(String::new())
    };
    for (vi, (vt, reason)) in obj.vertex_types.iter().zip(&reasons).enumerate() {
        let outcome = match (&exe, reason) {
            (_, Some(r)) => r.clone(),
            (Err(e), None) => Outcome::NotDriven(e.clone()),
            (Ok(exe), None) => check_vertex(vt, vi, exe, scratch, seeds, calls_host(ir, &vt.name)),
        };
        results.push((vt.name.clone(), outcome));
    }
    Ok(FileResult { vertices: results })
}

/// Whether the IR of vertex `name` (after its `; vertex` line) calls a host function.
fn calls_host(ir: &str, name: &str) -> bool {
    let head = format!("; vertex {name}\n");
    let Some(at) = ir.find(&head) else { return true };
    let body = &ir[at + head.len()..];
    let end = body.find("; vertex ").unwrap_or(body.len());
    body[..end].contains("call_indirect")
}

fn check_vertex(vt: &VertexType, vi: usize, exe: &Path, dir: &Path, seeds: u64, tolerant: bool) -> Outcome {
    let mut inputs = Vec::new();
    for s in 0..seeds {
        match make_input(vt, s) {
            Ok(i) => inputs.push(i),
            Err(e) => return Outcome::NotDriven(format!("cannot lay out its state: {e}")),
        }
    }
    let gxx = run_gxx(exe, dir, vi, &inputs);
    let code = match popc::exec::Loaded::new(&vt.plain, vt.base == VertexBase::MultiVertex) {
        Ok(c) => c,
        Err(e) => return Outcome::NotDriven(format!("cannot load popc's code: {e}")),
    };
    // popc's code runs on its own thread, only on the seeds g++'s build
    // finished: should it still not return, the check reports it and moves
    // on (the thread is left to the end of the process).
    let jobs: Vec<(usize, Vec<u8>)> = gxx
        .iter()
        .enumerate()
        .filter(|(_, g)| g.is_some())
        .map(|(k, _)| (k, inputs[k].mem.clone()))
        .collect();
    let crashes = inputs.len() - jobs.len();
    let expected = jobs.len();
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("popc-run".into()).spawn(move || {
        for (k, mut mem) in jobs {
            let r = popc::exec::run_vertex(&code, &mut mem, popc::state::STATE);
            if tx.send((k, r.status, mem)).is_err() {
                return;
            }
        }
    });
    if let Err(e) = spawned {
        return Outcome::NotDriven(format!("cannot start a thread: {e}"));
    }
    let deadline = Instant::now() + POPC_TIMEOUT;
    let (mut compared, mut tolerance, mut traps, mut outside) = (0, false, 0, 0);
    for _ in 0..expected {
        let Ok((k, status, mem)) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) else {
            return Outcome::Mismatch(format!(
                "popc's code ran past {} s where g++'s build finished",
                POPC_TIMEOUT.as_secs()
            ));
        };
        if status != linker::abi::STATUS_OK {
            traps += 1;
            continue;
        }
        let Some(g) = &gxx[k] else { continue };
        if writes_outside(vt, &inputs[k], g) {
            outside += 1;
            continue;
        }
        match compare(vt, &inputs[k], &mem, g, tolerant) {
            Ok(t) => {
                compared += 1;
                tolerance |= t;
            }
            Err(m) => return Outcome::Mismatch(m),
        }
    }
    if compared == 0 {
        return Outcome::NotDriven(format!(
            "no seed ran on both sides (g++'s build crashed or timed out on {crashes}, popc's code trapped on \
             {traps}, g++'s build wrote outside the fields on {outside})"
        ));
    }
    Outcome::Pass { compared, tolerance }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distance() {
        let f = |x: f32| x.to_le_bytes();
        assert_eq!(ulps(ElemType::Float, &f(1.0), &f(1.0)), 0);
        assert_eq!(ulps(ElemType::Float, &f(1.0), &f(f32::from_bits(1.0f32.to_bits() + 3))), 3);
        assert_eq!(ulps(ElemType::Float, &f(1.0), &f(-1.0)), u64::MAX);
        assert_eq!(ulps(ElemType::Float, &f(f32::NAN), &f(f32::NAN)), 0);
        assert_eq!(ulps(ElemType::Float, &f(f32::NAN), &f(-f32::NAN)), 0);
        assert_eq!(ulps(ElemType::Float, &f(0.0), &f(-0.0)), u64::MAX);
        assert_eq!(ulps(ElemType::Float, &f(f32::INFINITY), &f(f32::MAX)), u64::MAX);
        let h = |x: f32| half::f16::from_f32(x).to_le_bytes();
        assert_eq!(ulps(ElemType::Half, &h(1.0), &h(1.0009766)), 1);
        assert_eq!(ulps(ElemType::Int, &[1, 0, 0, 0], &[2, 0, 0, 0]), u64::MAX);
    }

    const SCALE: &str = "#include <poplar/Vertex.hpp>
using namespace poplar;
class Scale : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  unsigned short k;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] * FACTOR + k;
  }
};
";

    /// popc compiles `SCALE` with factor 2; g++ builds it with `gxx_factor`.
    fn check_scale(gxx_factor: &str) -> Option<Outcome> {
        if Command::new("g++").arg("--version").output().is_err() {
            eprintln!("NOTICE: g++ not found; skipping");
            return None;
        }
        let dir = std::env::temp_dir().join(format!("conformance-test-{}-{gxx_factor}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = SCALE.replace("FACTOR", "2.0f");
        let obj = popc::compile("scale.cpp", &src, &popc::Options::default(), &popc::NoIncludes, &[])
            .unwrap_or_else(|d| panic!("{}", d.render()));
        let codelet = dir.join("scale.cpp");
        std::fs::write(&codelet, SCALE.replace("FACTOR", gxx_factor)).unwrap();
        let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/stub");
        let scratch = dir.join("scratch");
        let b =
            Build { root: &dir, codelet: &codelet, flags: &[], stub: &stub, scratch: &scratch, opt: "-O2" };
        let r = check_file(&b, &obj, "; vertex Scale\n", 3).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(r.vertices.len(), 1);
        Some(r.vertices[0].1.clone())
    }

    #[test]
    fn same_source_passes_and_a_different_one_is_caught() {
        let Some(same) = check_scale("2.0f") else { return };
        assert_eq!(same, Outcome::Pass { compared: 3, tolerance: false });
        let Some(Outcome::Mismatch(m)) = check_scale("3.0f") else { panic!("a wrong result went unnoticed") };
        assert!(m.starts_with("out["), "{m}");
    }

    #[test]
    fn enumeration_arguments_are_spelled_as_casts() {
        let e = "d.cpp:9:3: error: could not convert ‘4’ from ‘int’ to ‘popnn::NonLinearityType’";
        assert_eq!(
            enum_argument("popnn::NL<float,4>", e).as_deref(),
            Some("popnn::NL<float,static_cast<popnn::NonLinearityType>(4)>")
        );
        assert_eq!(enum_argument("popnn::NL<float,5>", e), None);
        assert_eq!(enum_argument("popnn::NL<float,4>", "error: something else"), None);
    }

    #[test]
    fn driver_errors_are_blamed_on_their_vertex() {
        let src = "#include \"x\"\nstatic void conf_run0(const unsigned *a, const unsigned *n) {\n  v.x;\n}\nstatic void conf_run2(const unsigned *a) {\n  bad;\n}\ntypedef int t;\n";
        let owners = driver_lines(src, 3);
        assert_eq!(owners[0], None);
        assert_eq!(owners[2], Some(0));
        assert_eq!(owners[5], Some(2));
        assert_eq!(owners[7], None);
    }
}
