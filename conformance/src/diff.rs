//! The differential check: each vertex popc compiled is also built by
//! `g++ -O2` against the stub Poplar headers (`testdata/popc/stub`), both
//! run on the same tile memory, and the memories compared afterwards.
//!
//! Inputs: per seed, an edge length `n` and field values drawn per element
//! type ([`Rng`]), and for the vertex families whose plain fields encode
//! strides and worklists, [`contract`] seeds on top, whose values are a
//! well-formed small problem; [`popc::state::layout`] writes them, and the
//! state, into a 64 KiB tile memory, the encoding popc's own tests use. The g++ side gets
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
//! build crashes, exceeds [`GXX_TIMEOUT`], reaches undefined behaviour
//! (UBSan stops it, see [`driver`]) or writes outside the fields (popc
//! writing outside them where g++ does not is a mismatch). A seed on which
//! the codelet calls `exit` or `abort` agrees when it does so on both
//! sides. A vertex passes only when at least one seed ran on both sides
//! and every such seed agreed.

use std::path::Path;
use std::time::{Duration, Instant};

use linker::gp::{ElemType, FieldKind, Object, Statics, VertexBase, VertexType};
use popc::state::{layout, Placed};

mod contract;
mod driver;
pub use driver::clip;
use driver::{build_driver, run_gxx, Gxx};

/// Tile memory of one run.
pub const MEM: usize = 1 << 16;
/// Allowed difference, in units in the last place, of `float` and `double`
/// elements of vertices that call host maths functions.
pub const ULP_FLOAT: u64 = 4;
/// The same for `half` elements.
pub const ULP_HALF: u64 = 1;
/// Longest a g++-built vertex may run on all its seeds.
pub const GXX_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest it may run on one seed (one that loops for ever on metadata
/// drawn at random leaves time for the next).
pub const GXX_SEED_TIMEOUT: Duration = Duration::from_secs(1);
/// Longest popc's code for a vertex may run on the seeds g++'s finished.
pub const POPC_TIMEOUT: Duration = Duration::from_secs(20);

/// What the check found for one vertex.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every seed that ran on both sides agreed (`compared` of them);
    /// `tolerance`: only within the ulp bound; `exits`: every one of them
    /// by calling `exit` or `abort` on both sides (a codelet whose C++
    /// path is `exit(1)`, as popfloat's IPU-only ones are).
    Pass { compared: usize, tolerance: bool, exits: bool },
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
            // Any bit pattern, NaN (0x80) included.
            ElemType::Quarter => format!("{}", r % 256),
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
    /// The address of the object's static storage.
    statics: u32,
}

impl Input {
    /// This input as the driver reads it: field count, addresses, counts, memory.
    fn record(&self) -> Vec<u8> {
        let mut r = Vec::with_capacity(4 + 8 * self.addrs.len() + MEM);
        r.extend((self.addrs.len() as u32).to_le_bytes());
        r.extend(self.addrs.iter().flat_map(|(a, _)| a.to_le_bytes()));
        r.extend(self.addrs.iter().flat_map(|(_, n)| n.to_le_bytes()));
        r.extend(&self.mem);
        r
    }
}

/// The field values of drawn seed `seed`.
fn drawn_fields(vt: &VertexType, seed: u64) -> Vec<(String, String)> {
    // Unit seeds (after the drawn ones): every integer is 1 and every edge
    // has 6 or 12 elements, in 6 sub-vectors, the smallest well-formed
    // worklists and counts (a count of 1, a step of 1, a size that 2 and 3
    // divide), which worklist-driven vertices need to finish at all; and
    // every float is drawn without its sign, so that a conversion to an
    // unsigned type, undefined in C++ for a negative value, has a seed
    // with a defined result.
    let unit = seed as usize >= SIZES.len();
    let (n, lists) = if unit {
        (6 * (1 + seed as usize % 2), 6)
    } else {
        // Several workers' worth of sub-vectors, usually.
        (SIZES[seed as usize], LISTS[seed as usize])
    };
    let wide = seed % 2 == 1 && !unit;
    let has_list = vt.fields.iter().any(|f| matches!(f.kind, FieldKind::VectorList(_)));
    let dim = if has_list { n.min(lists) } else { n };
    let mut rng = Rng::new(seed + 1);
    let value = |rng: &mut Rng, e: ElemType, n: usize, wide: bool| {
        let v = rng.value(e, n, wide);
        let integer = !matches!(e, ElemType::Float | ElemType::Double | ElemType::Half | ElemType::Quarter);
        if unit && integer {
            "1".to_string()
        } else if unit {
            v.trim_start_matches('-').to_string()
        } else {
            v
        }
    };
    let mut fields = Vec::new();
    for f in &vt.fields {
        let list = |rng: &mut Rng, k: usize| {
            (0..k).map(|_| value(rng, f.elem, n, wide)).collect::<Vec<_>>().join(", ")
        };
        let v = match f.kind {
            // Counts and indices: always within every dimension.
            FieldKind::Plain => value(&mut rng, f.elem, dim.saturating_sub(1), false),
            FieldKind::Scalar => format!("[{}]", list(&mut rng, 1)),
            FieldKind::VectorList(_) => format!(
                "[{}]",
                (0..lists).map(|_| format!("[{}]", list(&mut rng, n))).collect::<Vec<_>>().join(", ")
            ),
            _ => format!("[{}]", list(&mut rng, n)),
        };
        fields.push((f.name.clone(), v));
        if f.metadata_offset().is_some() {
            // The metadata byte: a small scale on even seeds, any on odd.
            let r = rng.next();
            let md = if wide { r % 256 } else { (r & 0x80) | ((r >> 8) % 7).wrapping_sub(3) & 0x3f };
            fields.push((format!("{}.metadata", f.name), md.to_string()));
        }
    }
    fields
}

/// The tile memory laid out from named field values.
fn place(vt: &VertexType, statics: &Statics, fields: &[(String, String)]) -> Result<Input, String> {
    let mut mem = vec![0u8; MEM];
    // The object's static storage on top, as popc's code sees it; g++'s
    // build has its own, in the driver's process.
    let top = popc::state::place_statics(statics, &mut mem)?;
    let placed = layout(vt, fields, &mut mem[..top as usize])?;
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
    Ok(Input { mem, addrs, regions, statics: top })
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
    // Up to the static storage: g++'s build keeps its own in the driver's
    // process, so only what the vertex writes through its fields is compared.
    let end = (inp.statics as usize).min(MEM);
    while i < end {
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
    /// Also write each seed's input and popc's memory after it to
    /// `in.VERTEX.SEED` and `popc.VERTEX.SEED` in `scratch`, for reading a
    /// mismatch.
    pub keep: bool,
}

/// Runs the whole check for one compiled file. `ir` is popc's `-S` text (to find
/// the vertices that call host maths functions).
pub fn check_file(b: &Build, obj: &Object, ir: &str, seeds: &[u64]) -> Result<FileResult, String> {
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
            (Ok(exe), None) => check_vertex(vt, &obj.statics, vi, exe, b, seeds, calls_host(ir, &vt.name)),
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

fn check_vertex(
    vt: &VertexType,
    statics: &Statics,
    vi: usize,
    exe: &Path,
    b: &Build,
    seeds: &[u64],
    tolerant: bool,
) -> Outcome {
    let dir = b.scratch;
    let mut inputs = Vec::new();
    // The drawn seeds, then the contract seeds of the vertex's family.
    let contract = (0..contract::SEEDS).filter_map(|c| contract::fields(vt, c));
    for fields in seeds.iter().map(|&s| drawn_fields(vt, s)).chain(contract) {
        match place(vt, statics, &fields) {
            Ok(i) => inputs.push(i),
            Err(e) => return Outcome::NotDriven(format!("cannot lay out its state: {e}")),
        }
    }
    let gxx = run_gxx(exe, dir, vi, &inputs);
    let mut code = match popc::exec::Loaded::new(&vt.plain, vt.base == VertexBase::MultiVertex) {
        Ok(c) => c,
        Err(e) => return Outcome::NotDriven(format!("cannot load popc's code: {e}")),
    };
    // popc's code runs on its own thread, only on the seeds g++'s build
    // finished or exited on: should it still not return, the check reports
    // it and moves on (the thread is left to the end of the process).
    // A seed after one that ended g++'s process (an exit, a crash, undefined
    // behaviour, a timeout) ran in a new process: it starts from the
    // initial static storage, as `inputs` lay it out.
    let jobs: Vec<(usize, bool, Vec<u8>)> = gxx
        .iter()
        .enumerate()
        .filter(|(_, g)| matches!(g, Gxx::Memory(_) | Gxx::Exit))
        .map(|(k, _)| (k, k == 0 || !matches!(gxx[k - 1], Gxx::Memory(_)), inputs[k].mem.clone()))
        .collect();
    let expected = jobs.len();
    let (tx, rx) = std::sync::mpsc::channel();
    // g++'s driver runs the seeds one after another in one process, whose
    // static storage carries over from seed to seed: so does popc's, along
    // the same runs of seeds.
    let (at, len) = (inputs.first().map_or(0, |i| i.statics) as usize, statics.init.len());
    code.statics = at as u32;
    let spawned = std::thread::Builder::new().name("popc-run".into()).spawn(move || {
        let mut carried: Option<Vec<u8>> = None;
        for (k, fresh, mut mem) in jobs {
            if let Some(c) = carried.as_ref().filter(|_| !fresh) {
                mem[at..at + len].copy_from_slice(c);
            }
            let r = popc::exec::run_vertex(&code, &mut mem, popc::state::STATE);
            carried = Some(mem[at..at + len].to_vec());
            if tx.send((k, r.status, mem)).is_err() {
                return;
            }
        }
    });
    if let Err(e) = spawned {
        return Outcome::NotDriven(format!("cannot start a thread: {e}"));
    }
    let deadline = Instant::now() + POPC_TIMEOUT;
    let (mut compared, mut exits, mut tolerance, mut traps, mut outside) = (0, 0, false, 0, 0);
    for _ in 0..expected {
        let Ok((k, status, mem)) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) else {
            return Outcome::Mismatch(format!(
                "popc's code ran past {} s where g++'s build finished",
                POPC_TIMEOUT.as_secs()
            ));
        };
        if b.keep {
            // `driver VERTEX in.V.SEED out` reruns g++'s side of one seed.
            let _ = std::fs::write(dir.join(format!("in.{vi}.{k}")), inputs[k].record());
            let _ = std::fs::write(dir.join(format!("popc.{vi}.{k}")), &mem);
        }
        match (&gxx[k], status) {
            // Both ended the program the codelet's way.
            (Gxx::Exit, linker::abi::STATUS_EXIT) => {
                compared += 1;
                exits += 1;
                continue;
            }
            (Gxx::Exit, linker::abi::STATUS_OK) => {
                return Outcome::Mismatch(format!(
                    "seed {k}: g++'s build called exit or abort, popc's code returned"
                ))
            }
            (Gxx::Memory(_), linker::abi::STATUS_EXIT) => {
                return Outcome::Mismatch(format!(
                    "seed {k}: popc's code called exit or abort, g++'s build returned"
                ))
            }
            (_, linker::abi::STATUS_OK) => {}
            _ => {
                traps += 1;
                continue;
            }
        }
        let Gxx::Memory(g) = &gxx[k] else { continue };
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
        return Outcome::NotDriven(not_run(&gxx, traps, outside));
    }
    Outcome::Pass { compared, tolerance, exits: exits == compared }
}

/// Why no seed of a vertex ran on both sides: what happened to each.
fn not_run(gxx: &[Gxx], traps: usize, outside: usize) -> String {
    let count = |f: &dyn Fn(&Gxx) -> bool| gxx.iter().filter(|g| f(g)).count();
    let mut parts = Vec::new();
    let ub: Vec<&str> =
        gxx.iter().filter_map(|g| if let Gxx::Undefined(m) = g { Some(m.as_str()) } else { None }).collect();
    if let Some(first) = ub.first() {
        parts.push(format!("g++'s build reached undefined behaviour on {} (first: {first})", ub.len()));
    }
    for (n, what) in [
        (count(&|g| *g == Gxx::Crash), "g++'s build crashed on"),
        (count(&|g| *g == Gxx::Timeout), "g++'s build timed out on"),
        (traps, "popc's code trapped on"),
        (outside, "g++'s build wrote outside the fields on"),
    ] {
        if n > 0 {
            parts.push(format!("{what} {n}"));
        }
    }
    format!("no seed ran on both sides: {}", parts.join(", "))
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
        check(&SCALE.replace("FACTOR", "2.0f"), &SCALE.replace("FACTOR", gxx_factor), "Scale", &[0, 1, 2])
    }

    /// popc compiles `popc_src`, g++ builds `gxx_src`; the outcome for the
    /// one vertex `name` on the first `seeds` seeds.
    fn check(popc_src: &str, gxx_src: &str, name: &str, seeds: &[u64]) -> Option<Outcome> {
        if std::process::Command::new("g++").arg("--version").output().is_err() {
            eprintln!("NOTICE: g++ not found; skipping");
            return None;
        }
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("conformance-test-{}-{run}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let obj = popc::compile("v.cpp", popc_src, &popc::Options::default(), &popc::NoIncludes, &[])
            .unwrap_or_else(|d| panic!("{}", d.render()));
        let codelet = dir.join("v.cpp");
        std::fs::write(&codelet, gxx_src).unwrap();
        let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/stub");
        let scratch = dir.join("scratch");
        let b = Build {
            root: &dir,
            codelet: &codelet,
            flags: &[],
            stub: &stub,
            scratch: &scratch,
            opt: "-O2",
            keep: false,
        };
        let r = check_file(&b, &obj, &format!("; vertex {name}\n"), seeds).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(r.vertices.len(), 1);
        Some(r.vertices[0].1.clone())
    }

    #[test]
    fn exiting_on_both_sides_agrees_and_on_one_is_caught() {
        let v = |body: &str| {
            format!(
                "#include <poplar/Vertex.hpp>\n#include <cstdlib>\nusing namespace poplar;\n\
                 class Quit : public Vertex {{\npublic:\n  Output<Vector<int>> out;\n  \
                 void compute() {{ {body} }}\n}};\n"
            )
        };
        let Some(both) = check(&v("exit(1);"), &v("exit(1);"), "Quit", &[0, 1]) else { return };
        assert_eq!(both, Outcome::Pass { compared: 2, tolerance: false, exits: true });
        let Some(Outcome::Mismatch(m)) = check(&v("out[0] = 1;"), &v("exit(1);"), "Quit", &[0, 1]) else {
            panic!("an exit on one side went unnoticed")
        };
        assert!(m.contains("called exit"), "{m}");
    }

    #[test]
    fn seeds_with_undefined_behaviour_are_not_compared() {
        // Signed overflow on every seed: C++ gives it no meaning.
        let src = "#include <poplar/Vertex.hpp>\nusing namespace poplar;\n\
                   class Wrap : public Vertex {\npublic:\n  Input<Vector<int>> in;\n  Output<Vector<int>> out;\n  \
                   void compute() { for (unsigned i = 0; i < in.size(); ++i) out[i] = (in[i] | 1) * 2147483647 * 2; }\n};\n";
        let Some(Outcome::NotDriven(m)) = check(src, src, "Wrap", &[0, 1, 2]) else {
            panic!("undefined behaviour was compared")
        };
        assert!(m.contains("undefined behaviour on 3"), "{m}");
    }

    #[test]
    fn same_source_passes_and_a_different_one_is_caught() {
        let Some(same) = check_scale("2.0f") else { return };
        assert_eq!(same, Outcome::Pass { compared: 3, tolerance: false, exits: false });
        let Some(Outcome::Mismatch(m)) = check_scale("3.0f") else { panic!("a wrong result went unnoticed") };
        assert!(m.starts_with("out["), "{m}");
    }
}
