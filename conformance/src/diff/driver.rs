//! The generated C++ driver of the differential check: one program per
//! codelet file that includes the codelet, points each field of a vertex
//! into a copy of popc's tile memory and calls `compute`; its build with
//! `g++` (vertices whose driver code g++ rejects are dropped and the build
//! retried) and its runs, one process for as many seeds as it gets through.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use linker::gp::{FieldKind, Object, VertexBase};

use super::{Build, Input, Outcome, GXX_SEED_TIMEOUT, GXX_TIMEOUT, MEM};

/// The undefined behaviour the g++ build stops at (`-fsanitize=`): a seed
/// that reaches one is outside the vertex's contract (a byte that is
/// neither 0 nor 1 read as `bool`, a NaN converted to `int`, an overflow of
/// signed arithmetic, a shift by the width or more, falling off the end of
/// a function that returns a value) and is skipped like a crash, since C++
/// gives it no meaning to compare with.
const UBSAN: &str = "-fsanitize=bool,enum,float-cast-overflow,signed-integer-overflow,shift-exponent,\
integer-divide-by-zero,return,unreachable,vla-bound";

/// The C++ of the driver for `obj`'s vertices that `drive` selects, each
/// named in C++ as `names` says.
pub(super) fn driver_source(codelet: &Path, obj: &Object, drive: &[bool], names: &[String]) -> String {
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
                    let _ = writeln!(
                        s,
                        "  conf_mut(v.{m}).p = reinterpret_cast<decltype(v.{m}.p)>(conf_mem + a[{fi}]);"
                    );
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
                    // read past its end, up to the end of the memory, as
                    // popc's code would read it (a count drawn at random
                    // may send the vertex far past the table).
                    let _ = writeln!(
                        s,
                        "  static std::remove_pointer<decltype(v.{m}.p)>::type l{fi}[sizeof conf_mem / 8];"
                    );
                    let _ =
                        writeln!(s, "  for (unsigned j = 0; a[{fi}] + 8 * j + 8 <= sizeof conf_mem; ++j) {{");
                    let _ = writeln!(s, "    unsigned sa, sn;");
                    let _ = writeln!(s, "    std::memcpy(&sa, conf_mem + a[{fi}] + 8 * j, 4);");
                    let _ = writeln!(s, "    std::memcpy(&sn, conf_mem + a[{fi}] + 8 * j + 4, 4);");
                    let _ = writeln!(
                        s,
                        "    l{fi}[j].p = reinterpret_cast<decltype(l{fi}[j].p)>(conf_mem + sa);"
                    );
                    let _ = writeln!(s, "    l{fi}[j].n = sn;");
                    let _ = writeln!(s, "  }}");
                    let _ = writeln!(s, "  conf_mut(v.{m}).p = l{fi};");
                    let _ = writeln!(s, "  conf_mut(v.{m}).n = n[{fi}];");
                }
                _ => {
                    let _ = writeln!(
                        s,
                        "  conf_mut(v.{m}).p = reinterpret_cast<decltype(v.{m}.p)>(conf_mem + a[{fi}]);"
                    );
                    let _ = writeln!(s, "  conf_mut(v.{m}).n = n[{fi}];");
                }
            }
        }
        // A quarter edge's metadata: the address popc's state holds after
        // the field's own words.
        for f in &vt.fields {
            if let Some(md) = f.metadata_offset() {
                let at = popc::state::STATE + f.offset + md;
                let _ = writeln!(
                    s,
                    "  {{ unsigned ma; std::memcpy(&ma, conf_mem + {at}, 4); v.{}.md = conf_mem + ma; }}",
                    f.name
                );
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
  if (argc != 4) return 87;
  int vi = std::atoi(argv[1]);
  FILE *in = std::fopen(argv[2], "rb"), *out = std::fopen(argv[3], "wb");
  if (!in || !out || !conf_fns[vi]) return 87;
  static unsigned a[4096], n[4096];
  unsigned nf;
  while (std::fread(&nf, 4, 1, in) == 1) {
    if (nf > 4096 || std::fread(a, 4, nf, in) != nf || std::fread(n, 4, nf, in) != nf ||
        std::fread(conf_mem, 1, sizeof conf_mem, in) != sizeof conf_mem) return 87;
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
///
/// `conf_mut`: a field declared `const` (`const Vector<unsigned> offsets;`)
/// is still set by the driver, as Poplar sets it.
const FIELD_KIND: &str = r#"#include <type_traits>
template <class T> T &conf_mut(const T &x) { return const_cast<T &>(x); }
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
pub(super) fn build_driver(
    b: &Build,
    obj: &Object,
    drive: &mut [bool],
    reasons: &mut [Option<Outcome>],
) -> Result<PathBuf, String> {
    let (codelet, dir) = (b.codelet, b.scratch);
    let exe = dir.join("driver");
    let mut names: Vec<String> = obj.vertex_types.iter().map(|v| v.name.clone()).collect();
    let mut killed = false;
    // Whether the stub leaves the IPU vector types and `rptsize_t` to the
    // file (`POPC_STUB_IPU_MODEL`): code written for the IPU Model defines
    // its own, Poplar's host headers having none.
    let mut model = false;
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
            // `-fpermissive`: clang (the IPU's compiler) does not enforce
            // [basic.scope.class] (`using AccType = AccType<..>` inside a
            // class) nor reject `const T *` to `T *` in a C-style cast
            // through templates; g++ would refuse PopLibs for it.
            .args([
                b.opt,
                "-std=c++17",
                "-w",
                "-fmax-errors=50",
                "-fno-access-control",
                "-fno-strict-aliasing",
                "-fpermissive",
                UBSAN,
                "-fno-sanitize-recover=all",
                "-D__POPC__",
                // popc knows the fixed-width integer types without an
                // include (clang's libc++ headers bring them in with
                // `<array>` and the like; libstdc++'s do not).
                "-include",
                "cstdint",
            ])
            .args(model.then_some("-DPOPC_STUB_IPU_MODEL"))
            .arg("-I")
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
        // Stopped by a signal (the machine short of memory, say), not by
        // the source: build again, once.
        if out.status.code().is_none() && !killed {
            killed = true;
            continue;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        if !model
            && err.lines().any(|l| l.contains(": error: conflicting declaration") && defines_stub_type(l))
        {
            model = true;
            continue;
        }
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
            let failed = format!("g++ failed ({})", out.status);
            let first = err.lines().find(|l| l.contains("error")).unwrap_or(&failed);
            return Err(format!("g++ cannot build the file: {}", clip(first, 200)));
        }
    }
    Err("g++ kept rejecting the driver".into())
}

/// Whether g++'s error line is the file's own definition of one of the
/// stub's IPU vector types or `rptsize_t` (`using float2 = …`).
fn defines_stub_type(line: &str) -> bool {
    const NAMES: [&str; 17] = [
        "float2",
        "float4",
        "half2",
        "half4",
        "int2",
        "int4",
        "uint2",
        "uint4",
        "short2",
        "short4",
        "ushort2",
        "ushort4",
        "char2",
        "char4",
        "uchar2",
        "uchar4",
        "rptsize_t",
    ];
    line.split_once(": error: conflicting declaration").is_some_and(|(_, rest)| {
        NAMES.iter().any(|n| rest.contains(&format!("using {n} =")) || rest.contains(&format!(" {n}’")))
    })
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

/// What the g++ build did with one seed.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Gxx {
    /// It returned; the memory afterwards.
    Memory(Vec<u8>),
    /// The codelet called `exit` or `abort`.
    Exit,
    /// It reached undefined behaviour (UBSan's report).
    Undefined(String),
    /// It crashed (a signal other than `abort`'s).
    Crash,
    /// It ran past [`GXX_TIMEOUT`] (this seed and those after it).
    Timeout,
}

/// The driver's exit status when UBSan stops it.
pub(super) const UBSAN_EXIT: i32 = 86;
/// The driver's own exit status when it cannot read its input (`return
/// 87` in its `main`): not the codelet's doing.
const DRIVER_FAILED: i32 = 87;

/// Runs the g++ build of vertex `vi` on `inputs`: one process for as many
/// seeds as it gets through, restarted after the seed that ended it.
pub(super) fn run_gxx(exe: &Path, dir: &Path, vi: usize, inputs: &[Input]) -> Vec<Gxx> {
    use std::os::unix::process::ExitStatusExt;
    let mut results: Vec<Gxx> = Vec::new();
    let deadline = Instant::now() + GXX_TIMEOUT;
    while results.len() < inputs.len() {
        let start = results.len();
        let inp = dir.join(format!("in{vi}"));
        let outp = dir.join(format!("out{vi}"));
        let errp = dir.join(format!("err{vi}"));
        let blob: Vec<u8> = inputs[start..].iter().flat_map(Input::record).collect();
        let err = std::fs::write(&inp, &blob).and_then(|_| std::fs::File::create(&errp));
        let Ok(err) = err else {
            results.resize(inputs.len(), Gxx::Crash);
            break;
        };
        let child = Command::new(exe)
            .arg(vi.to_string())
            .arg(&inp)
            .arg(&outp)
            .env("UBSAN_OPTIONS", format!("exitcode={UBSAN_EXIT}:print_stacktrace=0"))
            .stdout(Stdio::null())
            .stderr(err)
            .spawn();
        // A seed gets GXX_SEED_TIMEOUT from the end of the one before it
        // (each result is flushed as it is written), within GXX_TIMEOUT
        // for all.
        let (mut seen, mut since) = (0, Instant::now());
        let status = match child {
            Ok(mut c) => loop {
                let now = Instant::now();
                let size = std::fs::metadata(&outp).map_or(0, |m| m.len());
                if size != seen {
                    (seen, since) = (size, now);
                }
                match c.try_wait() {
                    Ok(Some(st)) => break Some(st),
                    Ok(None) if now < deadline && now < since + GXX_SEED_TIMEOUT => {
                        std::thread::sleep(Duration::from_millis(2))
                    }
                    _ => {
                        let _ = c.kill();
                        let _ = c.wait();
                        break None;
                    }
                }
            },
            Err(_) => None,
        };
        let got = std::fs::read(&outp).unwrap_or_default();
        let done = got.len() / MEM;
        for k in 0..done.min(inputs.len() - start) {
            results.push(Gxx::Memory(got[k * MEM..(k + 1) * MEM].to_vec()));
        }
        if results.len() == inputs.len() {
            break;
        }
        // The run at `results.len()` ended the process.
        let Some(st) = status else {
            results.push(Gxx::Timeout);
            if Instant::now() >= deadline {
                results.resize(inputs.len(), Gxx::Timeout);
            }
            continue;
        };
        results.push(match (st.code(), st.signal()) {
            (Some(UBSAN_EXIT), _) => {
                let text = std::fs::read_to_string(&errp).unwrap_or_default();
                let line = text.lines().find_map(|l| l.split_once("runtime error: ")).map(|x| x.1);
                Gxx::Undefined(clip(line.unwrap_or("undefined behaviour"), 100))
            }
            (Some(DRIVER_FAILED), _) => Gxx::Crash,
            (Some(_), _) | (_, Some(6)) => Gxx::Exit,
            _ => Gxx::Crash,
        });
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

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
