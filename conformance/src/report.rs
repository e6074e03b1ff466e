//! `CONFORMANCE.md`: totals, the compile-speed figure, per library and per
//! file results, the vertices that do not pass, and the host files left out.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::corpus::Origin;
use crate::diff::{Outcome, GXX_TIMEOUT, ULP_FLOAT, ULP_HALF};
use crate::FileReport;

/// The issue's figure for PopLibs' host-path vertex instantiations.
const ISSUE_INSTANTIATIONS: usize = 3676;

#[derive(Default, Clone)]
struct Tally {
    files: usize,
    host: usize,
    compiled: usize,
    vertices: usize,
    counted: usize,
    uncounted_files: usize,
    pass: usize,
    tolerance: usize,
    /// Passing vertices whose every compared seed exited on both sides.
    exits: usize,
    mismatch: usize,
    not_driven: usize,
    popc_secs: f64,
}

impl Tally {
    fn add(&mut self, r: &FileReport) {
        if r.file.host.is_some() {
            self.host += 1;
            return;
        }
        self.files += 1;
        if let Some(c) = &r.popc {
            self.popc_secs += c.secs;
            if let Ok(o) = &c.result {
                self.compiled += 1;
                self.vertices += o.vertex_types.len();
            }
        }
        match &r.estimate {
            Some(Ok(n)) => self.counted += n,
            _ => self.uncounted_files += 1,
        }
        if let Some(Ok(d)) = &r.diff {
            for (_, o) in &d.vertices {
                match o {
                    Outcome::Pass { tolerance, exits, .. } => {
                        self.pass += 1;
                        self.tolerance += *tolerance as usize;
                        self.exits += *exits as usize;
                    }
                    Outcome::Mismatch(_) => self.mismatch += 1,
                    Outcome::NotDriven(_) => self.not_driven += 1,
                }
            }
        } else if let Some(c) = &r.popc {
            if let Ok(o) = &c.result {
                self.not_driven += o.vertex_types.len();
            }
        }
    }
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "–".into()
    } else {
        format!("{:.1}%", 100.0 * a as f64 / b as f64)
    }
}

/// PopLibs' and the tutorials' files by library (the wild files have their
/// own table).
fn by_library(reports: &[FileReport]) -> BTreeMap<&str, Vec<&FileReport>> {
    let mut m: BTreeMap<&str, Vec<&FileReport>> = BTreeMap::new();
    for r in reports.iter().filter(|r| r.file.origin != Origin::Wild) {
        m.entry(r.file.library.as_str()).or_default().push(r);
    }
    m
}

fn tally<'a>(rs: impl IntoIterator<Item = &'a FileReport>) -> Tally {
    let mut t = Tally::default();
    for r in rs {
        t.add(r);
    }
    t
}

/// popc's and g++'s summed compile times over the PopLibs files both compile.
#[derive(Clone, Copy)]
struct Speed {
    files: usize,
    vertices: usize,
    popc: f64,
    gxx: f64,
}

impl Speed {
    fn ratio(&self) -> f64 {
        if self.popc > 0.0 {
            self.gxx / self.popc
        } else {
            0.0
        }
    }
}

fn speed(reports: &[FileReport]) -> Speed {
    let mut sp = Speed { files: 0, vertices: 0, popc: 0.0, gxx: 0.0 };
    for r in reports.iter().filter(|r| r.file.origin == Origin::PopLibs) {
        if let (Some(c), Some(Ok(g))) = (&r.popc, &r.gxx_secs) {
            if let Ok(o) = &c.result {
                sp.files += 1;
                sp.vertices += o.vertex_types.len();
                sp.popc += c.secs;
                sp.gxx += g;
            }
        }
    }
    sp
}

/// A few lines for the terminal (and CI logs).
pub fn summary(reports: &[FileReport]) -> String {
    let mut s = String::new();
    for (lib, rs) in by_library(reports) {
        let t = tally(rs);
        let _ = writeln!(
            s,
            "{lib:<20} files {:>3}/{:<3} compiled, {:>5} vertices; differential: {} pass, {} mismatch, {} not driven",
            t.compiled, t.files, t.vertices, t.pass, t.mismatch, t.not_driven
        );
    }
    let t = tally(reports.iter().filter(|r| r.file.origin != Origin::Wild));
    let _ = writeln!(
        s,
        "{:<20} files {:>3}/{:<3} compiled, {:>5} vertices; differential: {} pass, {} mismatch, {} not driven; popc {:.2} s",
        "total", t.compiled, t.files, t.vertices, t.pass, t.mismatch, t.not_driven, t.popc_secs
    );
    let w = Wild::tally(reports);
    if w.all.files > 0 {
        let _ = writeln!(
            s,
            "wild: {} of {} buildable files compile ({}), {} vertices; differential: {} pass, {} mismatch, {} not driven",
            w.buildable.compiled,
            w.buildable.files,
            pct(w.buildable.compiled, w.buildable.files),
            w.all.vertices,
            w.all.pass,
            w.all.mismatch,
            w.all.not_driven
        );
    }
    s
}

/// The wild files' tallies: all of them, and those buildable anywhere.
struct Wild {
    all: Tally,
    buildable: Tally,
}

impl Wild {
    fn tally(reports: &[FileReport]) -> Wild {
        let wild = || reports.iter().filter(|r| r.file.origin == Origin::Wild);
        Wild { all: tally(wild()), buildable: tally(wild().filter(|r| r.file.unbuildable.is_none())) }
    }
}

/// The wild corpus's section: the figure, then each file.
fn wild_section(s: &mut String, reports: &[FileReport]) {
    let w = Wild::tally(reports);
    if w.all.files == 0 {
        return;
    }
    s.push_str(
        "## Wild codelets

",
    );
    s.push_str(
        "Codelets written for their own IPU programs by researchers and engineers outside PopLibs and \
         the tutorials (`../shared/corpus/wild/`, listed with their licences in its `MANIFEST.tsv`), \
         each compiled as its authors did: its own directory and the manifest's include directories on \
         the include path, no other flags. Files that include a path on their author's machine cannot \
         be built anywhere; they are compiled all the same (their first error is still popc's) but \
         not counted as buildable. The differential check is the one described above.\n\n",
    );
    let _ = writeln!(
        s,
        "**wild: {} of {} buildable files compile** ({}; {} of {} files in all), {} vertices; \
         differential: {} pass, {} mismatch, {} not driven. Target (issue 30): ≥ 90% of the buildable \
         files: {}.\n",
        w.buildable.compiled,
        w.buildable.files,
        pct(w.buildable.compiled, w.buildable.files),
        w.all.compiled,
        w.all.files,
        w.all.vertices,
        w.all.pass,
        w.all.mismatch,
        w.all.not_driven,
        if w.buildable.compiled * 10 >= w.buildable.files * 9 { "met" } else { "**not met**" }
    );
    s.push_str("| id | file | popc | vertices | differential | popc time |\n|---|---|---|---:|---|---:|\n");
    for r in reports.iter().filter(|r| r.file.origin == Origin::Wild) {
        let (status, verts, time) = popc_cells(r);
        let status = match &r.file.unbuildable {
            Some(why) => format!("not buildable ({why}); {status}"),
            None => status,
        };
        let _ = writeln!(
            s,
            "| {} | {} | {status} | {verts} | {} | {time} |",
            r.file.id.as_deref().unwrap_or(""),
            r.file.rel.trim_start_matches("wild/"),
            diff_cell(r)
        );
    }
    s.push('\n');
}

/// The popc status, vertex count and time cells of a file's row.
fn popc_cells(r: &FileReport) -> (String, String, String) {
    match &r.popc {
        Some(c) => match &c.result {
            Ok(o) => (
                if c.with.is_empty() {
                    "compiled".to_string()
                } else {
                    let names: Vec<&str> = c.with.iter().map(|w| w.rsplit('/').next().unwrap_or(w)).collect();
                    format!("compiled with {}", names.join(", "))
                },
                o.vertex_types.len().to_string(),
                format!("{:.1} ms", c.secs * 1e3),
            ),
            Err(e) => {
                (format!("`{}`", cell(e).replace('`', "'")), "–".into(), format!("{:.1} ms", c.secs * 1e3))
            }
        },
        None => ("–".into(), "–".into(), "–".into()),
    }
}

fn diff_cell(r: &FileReport) -> String {
    match &r.diff {
        None => "–".into(),
        Some(Err(e)) => format!("not run: {}", cell(e)),
        Some(Ok(d)) => {
            let (mut p, mut m, mut n) = (0, 0, 0);
            for (_, o) in &d.vertices {
                match o {
                    Outcome::Pass { .. } => p += 1,
                    Outcome::Mismatch(_) => m += 1,
                    Outcome::NotDriven(_) => n += 1,
                }
            }
            let mut parts = vec![format!("{p} pass")];
            if m > 0 {
                parts.push(format!("**{m} mismatch**"));
            }
            if n > 0 {
                parts.push(format!("{n} not driven"));
            }
            parts.join(", ")
        }
    }
}

/// Text safe inside a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The whole report.
pub fn markdown(
    reports: &[FileReport],
    hosts: &[crate::host::HostResult],
    tests: Option<&Result<crate::host::TestResults, String>>,
    quick: bool,
    seeds: usize,
    machine: &[(String, String)],
) -> String {
    let mut s = String::new();
    s.push_str("# Conformance: popc on the public codelet corpus\n\n");
    s.push_str(
        "Generated by `cargo run --release -p conformance -- ../shared/corpus` (the `conformance` crate; \
         do not edit by hand). The corpus is PopLibs' codelets and Graphcore's Poplar tutorials and \
         feature examples (`../shared/corpus`, MIT), and, in a table of their own at the end, codelets from other people's repositories (`wild/`). Each codelet file is compiled through the popc \
         library with PopLibs' own flags (`-I include -I lib/<lib> -I lib/<lib>/codelets -DNDEBUG`; \
         tutorials: their own directory); host programs (those including `<iostream>` or defining \
         `main`) are left out of the codelet tables; the tutorials' host programs are checked against the C++ host API at the end. PopLibs links all codelets of a library into one object, \
         so a file that calls a function it only declares is compiled again together with the \
         sibling `.cpp` files that define it (`popc a.cpp b.cpp`; \"compiled with …\" below), and \
         g++ builds them as one unit; the vertices counted are still the file's own.\n\n",
    );
    if quick {
        s.push_str("**Quick run**: fewer seeds, the g++ side built at `-O0`, no g++ timings, no independent instantiation count.\n\n");
    }
    s.push_str("| | |\n|---|---|\n");
    for (k, v) in machine {
        let _ = writeln!(s, "| {k} | {} |", cell(v));
    }
    s.push('\n');

    // Totals.
    let libs = by_library(reports);
    s.push_str("## Totals\n\n");
    s.push_str(
        "| library | codelet files | compiled | host files | vertices (popc) | instantiations (counted) | \
         differential pass | mismatch | not driven | popc time |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let row = |s: &mut String, name: &str, t: &Tally| {
        let counted = if t.uncounted_files > 0 {
            format!("{} (+{} files unknown)", t.counted, t.uncounted_files)
        } else {
            t.counted.to_string()
        };
        let _ = writeln!(
            s,
            "| {name} | {} | {} ({}) | {} | {} | {counted} | {} ({}) | {} | {} | {:.3} s |",
            t.files,
            t.compiled,
            pct(t.compiled, t.files),
            t.host,
            t.vertices,
            t.pass,
            pct(t.pass, t.vertices),
            t.mismatch,
            t.not_driven,
            t.popc_secs
        );
    };
    for (lib, rs) in &libs {
        row(&mut s, lib, &tally(rs.iter().copied()));
    }
    let total = tally(reports.iter().filter(|r| r.file.origin != Origin::Wild));
    row(&mut s, "**all**", &total);
    s.push('\n');

    // Against the issue's figure.
    let poplibs = tally(reports.iter().filter(|r| r.file.origin == Origin::PopLibs));
    s.push_str("### PopLibs' host-path vertex instantiations\n\n");
    if quick {
        let _ = writeln!(
            s,
            "popc compiles {} PopLibs vertex instantiations (the count is skipped in quick runs).\n",
            poplibs.vertices
        );
    } else {
        let _ = writeln!(
            s,
            "Counted independently of popc: {} instantiations in the {} PopLibs codelet files whose \
             count is known{} (issue 16 gives {ISSUE_INSTANTIATIONS}). popc compiles {} of them: {} of the \
             counted figure, {} of the issue's.\n",
            poplibs.counted,
            poplibs.files - poplibs.uncounted_files,
            if poplibs.uncounted_files > 0 {
                format!(", unknown for {} files (see the table)", poplibs.uncounted_files)
            } else {
                String::new()
            },
            poplibs.vertices,
            pct(poplibs.vertices, poplibs.counted),
            pct(poplibs.vertices, ISSUE_INSTANTIATIONS),
        );
        s.push_str(
            "How they are counted: each file is preprocessed by `g++ -E` with the same flags, \
             `__POPC__` defined as popc predefines it and no `__IPU__` (the C++ path), and in the text that comes from the file itself we count explicit \
             instantiations (`template class X<…>;` and `template struct`, not `extern template`: \
             this is how PopLibs enumerates its template vertices, directly or through its \
             `INSTANTIATE_*` macros) plus non-template classes deriving from `Vertex`, `MultiVertex`, \
             `SupervisorVertex` or `SupervisorVertexIf`. Host-side headers the stub lacks are replaced \
             by empty files for this count only. popc's figure is the number of vertex types in the \
             `.gp` of the files it compiles (the `; vertex NAME` lines of `popc -S`).\n\n",
        );
    }

    // Issue 16's targets.
    let tutorials = tally(reports.iter().filter(|r| r.file.origin == Origin::Tutorials));
    let met = |ok: bool| if ok { "met" } else { "**not met**" };
    s.push_str("### Targets (issue 16)\n\n| target | now | |\n|---|---|---|\n");
    let _ = writeln!(
        s,
        "| tutorials: every codelet file compiles, every vertex passes | {}/{} files, {}/{} vertices pass | {} |",
        tutorials.compiled,
        tutorials.files,
        tutorials.pass,
        tutorials.vertices,
        met(tutorials.compiled == tutorials.files && tutorials.pass == tutorials.vertices)
    );
    let _ = writeln!(
        s,
        "| PopLibs: ≥ 90% of the {ISSUE_INSTANTIATIONS} instantiations compile | {} ({}) | {} |",
        poplibs.vertices,
        pct(poplibs.vertices, ISSUE_INSTANTIATIONS),
        met(poplibs.vertices * 10 >= ISSUE_INSTANTIATIONS * 9)
    );
    let _ = writeln!(
        s,
        "| PopLibs: ≥ 95% of those that compile pass the differential check | {} of {} ({}; {} of them \
         only by exiting on both sides) | {} |",
        poplibs.pass,
        poplibs.vertices,
        pct(poplibs.pass, poplibs.vertices),
        poplibs.exits,
        met(poplibs.vertices > 0 && poplibs.pass * 20 >= poplibs.vertices * 19)
    );
    let speed = speed(reports);
    if !quick {
        let _ = writeln!(
            s,
            "| PopLibs through popc in ≤ 5 s, ≥ 20x faster than g++ -O2 | {:.2} s with {} of {} files compiling; {:.0}x on the {} files both compile | {} |",
            poplibs.popc_secs,
            poplibs.compiled,
            poplibs.files,
            speed.ratio(),
            speed.files,
            match (poplibs.popc_secs <= 5.0 && speed.ratio() >= 20.0, poplibs.files - poplibs.compiled) {
                (false, _) => "**not met**".to_string(),
                (true, 0) => "met".to_string(),
                // A file that fails stops early, so its time says nothing:
                // the ratio is taken on the files both compilers build.
                (true, failing) => format!("met on the files both compile ({failing} failing files not timed)"),
            }
        );
    }
    s.push('\n');

    // Compile speed.
    s.push_str("## Compile speed\n\n");
    if quick {
        s.push_str("Not measured in quick runs.\n\n");
    } else {
        let Speed { files: n, vertices, popc: p, gxx: g } = speed;
        let _ = writeln!(
            s,
            "Whole PopLibs corpus through popc (all {} codelet files, those that fail included, one at a \
             time, in process): **{:.3} s**.\n",
            poplibs.files, poplibs.popc_secs
        );
        let _ = writeln!(
            s,
            "On the {n} PopLibs files that both compile: popc {:.3} s, `g++ -O2 -c` (stub headers, one \
             process per file) {:.2} s: popc is **{:.0}x** faster. Sums of single runs on a shared \
             machine; see the machine table above. popc spends {:.1} ms per vertex type it emits on \
             those files. (`conformance CORPUS --popc-only N` repeats the popc side alone N times and \
             prints the medians.)\n",
            p,
            g,
            speed.ratio(),
            if vertices > 0 { p * 1e3 / vertices as f64 } else { 0.0 }
        );
    }

    // The check itself.
    s.push_str("## The differential check\n\n");
    let _ = writeln!(
        s,
        "Every vertex popc compiles is built again by `g++ -O2` against the stub Poplar headers \
         (`testdata/popc/stub`; also `-D__POPC__`, `-fno-strict-aliasing` since tile memory is untyped, \
         and `-fno-access-control` since popc ignores access specifiers) in one generated driver per file, and both run on the same 64 KiB tile \
         memory, laid out by `popc::state` (the encoding of popc's own run tests) with edge lengths and \
         field values drawn per element type, {seeds} seeds per vertex (in a full run, six drawn at random and two unit seeds, \
         whose integers are all 1, floats non-negative and edges 6 or 12 elements long, so that worklist-driven \
         vertices get well-formed worklists and casts to unsigned types a defined result). Vertex families whose plain fields \
         encode packed strides and worklists, which drawn values never satisfy, get two contract seeds on top, whose field \
         values are a well-formed small convolution derived from the template arguments and the C++ path: for poplin's \
         `ConvPartialnx1`, one conv group and input group, AMP kernel height 1, channels per group that make every offset \
         division exact, strides packed as `ConvPartialsStridesPacking.cpp` packs them (all 1 on one seed; input stride 2, \
         a flipped output stride 2, two output groups and a 1x2 kernel on the other) and per-context worklists of \
         (output offset, count − 3, input offset) triples within the fields; for `ConvPartial1xNSLIC`, one or two conv \
         group groups and sub-kernels, a channel mode its conv groups per group allow and (input offset, output offset, \
         count) worklists within the fields; element data is drawn. The whole memory must agree bit \
         for bit afterwards, except that vertices calling a host maths function (`exp`, `log`, `tanh`, \
         `pow`, …) may differ by {ULP_FLOAT} ulp in `float`/`double` and {ULP_HALF} ulp in `half` \
         elements ({} passing vertices needed that bound). `half` goes through the same \
         round-to-nearest-even on both sides. Before running, the driver checks at compile time that \
         each field's C++ type is of the kind popc laid out (plain member, one-element edge, vector, \
         vector list, vector of one-element edges); a disagreement is a mismatch. A seed on which popc traps (input outside the vertex's \
         contract), or the g++ build crashes, runs past {} s, reaches undefined behaviour (the driver is \
         built with UBSan's `bool`, `enum`, `float-cast-overflow`, `signed-integer-overflow`, \
         `shift-exponent`, `integer-divide-by-zero`, `return`, `unreachable` and `vla-bound` checks, \
         and `-fpermissive`, since clang, the IPU's compiler, accepts what PopLibs writes there) or \
         writes outside the vertex's fields, is skipped. A seed on which the codelet calls `exit` or \
         `abort` agrees when both sides do so ({} passing vertices agreed only that way: their C++ path \
         is `exit(1)`, listed below). A vertex passes only when at \
         least one seed ran on both sides and all such seeds agree. A vertex that cannot be driven \
         (non-scalar plain fields, a driver g++ rejects, no seed within its contract) is listed \
         as not driven, never as passing.\n",
        total.tolerance,
        GXX_TIMEOUT.as_secs(),
        total.exits
    );

    // Per file.
    s.push_str("## Per file\n\n");
    for (lib, rs) in &libs {
        let _ = writeln!(s, "### {lib}\n");
        s.push_str("| file | popc | vertices | counted | differential | popc time | g++ time |\n|---|---|---:|---:|---|---:|---:|\n");
        for r in rs.iter().filter(|r| r.file.host.is_none()) {
            let (status, verts, time) = popc_cells(r);
            let counted = match &r.estimate {
                Some(Ok(n)) => n.to_string(),
                Some(Err(e)) => format!("unknown ({})", cell(&crate::diff::clip(e, 80))),
                None => "–".into(),
            };
            let gxx = match &r.gxx_secs {
                Some(Ok(t)) => format!("{:.0} ms", t * 1e3),
                Some(Err(e)) => format!("fails: {}", cell(&crate::diff::clip(e, 80))),
                None => "–".into(),
            };
            let name = r.file.rel.rsplit('/').next().unwrap_or(&r.file.rel);
            let name = if *lib == "graphcore-examples" {
                r.file.rel.trim_start_matches("graphcore-examples/")
            } else {
                name
            };
            let _ = writeln!(
                s,
                "| {name} | {status} | {verts} | {counted} | {} | {time} | {gxx} |",
                diff_cell(r)
            );
        }
        s.push('\n');
    }

    wild_section(&mut s, reports);

    // Vertices that do not pass.
    s.push_str("## Mismatches\n\n");
    let mut any = false;
    for r in reports {
        if let Some(Ok(d)) = &r.diff {
            for (name, o) in &d.vertices {
                if let Outcome::Mismatch(m) = o {
                    let _ = writeln!(s, "- `{}` in {}: {}", name, r.file.rel, cell(m));
                    any = true;
                }
            }
        }
    }
    if !any {
        s.push_str("None.\n");
    }
    s.push_str("\n## Passing within the ulp bound only\n\n");
    any = false;
    for r in reports {
        if let Some(Ok(d)) = &r.diff {
            for (name, o) in &d.vertices {
                if let Outcome::Pass { tolerance: true, .. } = o {
                    let _ = writeln!(s, "- `{}` in {}", name, r.file.rel);
                    any = true;
                }
            }
        }
    }
    if !any {
        s.push_str("None.\n");
    }
    s.push_str("\n## Passing by exiting only\n\n");
    any = false;
    for r in reports {
        let Some(Ok(d)) = &r.diff else { continue };
        let names: Vec<&str> = d
            .vertices
            .iter()
            .filter(|(_, o)| matches!(o, Outcome::Pass { exits: true, .. }))
            .map(|(n, _)| n.as_str())
            .collect();
        if let Some(first) = names.first() {
            let _ = writeln!(s, "- {} ({}): `{first}`{}", r.file.rel, names.len(), more(names.len(), 1));
            any = true;
        }
    }
    if !any {
        s.push_str("None.\n");
    }
    s.push_str("\n## Not driven\n\nGrouped by file and reason, with the first few vertex names.\n\n");
    any = false;
    for r in reports {
        let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        match &r.diff {
            Some(Ok(d)) => {
                for (name, o) in &d.vertices {
                    if let Outcome::NotDriven(why) = o {
                        groups.entry(why.as_str()).or_default().push(name.as_str());
                    }
                }
            }
            Some(Err(e)) => {
                let _ = writeln!(s, "- {}: the check did not run: {}", r.file.rel, cell(e));
                any = true;
            }
            None => {}
        }
        for (why, names) in groups {
            let shown: Vec<String> = names.iter().take(3).map(|n| format!("`{n}`")).collect();
            let _ = writeln!(
                s,
                "- {} ({}): {}{}: {}",
                r.file.rel,
                names.len(),
                shown.join(", "),
                more(names.len(), 3),
                cell(why)
            );
            any = true;
        }
    }
    if !any {
        s.push_str("None.\n");
    }

    host_programs(&mut s, reports, hosts, tests);
    s
}

/// The host programs: the Graphcore examples' against the C++ host API,
/// PopLibs' own (tests and tools) listed as left out.
fn host_programs(
    s: &mut String,
    reports: &[FileReport],
    hosts: &[crate::host::HostResult],
    tests: Option<&Result<crate::host::TestResults, String>>,
) {
    s.push_str("\n## Host programs (the C++ host API)\n\n");
    s.push_str(
        "Each of the Graphcore examples' host programs compiled with `g++ -fsyntax-only` against `sdk/include` \
         (C++11; C++14 for the lightweight-profiling examples, as their Makefiles ask), and the tutorials' own \
         pytest tests (`../shared/tools/corpus-tests/run.sh`: each program built by its Makefile through \
         `enable.sh`, run, and what it prints checked), by tutorial folder.\n\n",
    );
    let built = hosts.iter().filter(|h| h.builds.is_ok()).count();
    let _ = writeln!(s, "Builds: {built} of {} host programs.\n", hosts.len());
    s.push_str("| host program | builds |\n|---|---|\n");
    for h in hosts {
        let b = match &h.builds {
            Ok(()) => "yes".to_string(),
            Err(e) => format!("no: {}", cell(e)),
        };
        let _ = writeln!(s, "| {} | {b} |", h.rel);
    }
    match tests {
        None => s.push_str("\nThe pytest suite runs in a full run only.\n"),
        Some(Err(e)) => {
            let _ = writeln!(s, "\nThe pytest suite did not run: {}", cell(e));
        }
        Some(Ok(t)) => {
            let all: Vec<&(String, String)> = t.values().flatten().collect();
            let passed = all.iter().filter(|(_, o)| o == "PASSED").count();
            let _ = writeln!(s, "\nTutorials' tests: {passed} of {} pass.\n", all.len());
            s.push_str("| tutorial folder | test | outcome |\n|---|---|---|\n");
            for (folder, rows) in t {
                for (name, outcome) in rows {
                    let _ = writeln!(s, "| {folder} | {name} | {outcome} |");
                }
            }
        }
    }
    s.push_str("\n### PopLibs host files (left out)\n\n");
    for r in reports.iter().filter(|r| r.file.host.is_some() && r.file.origin == Origin::PopLibs) {
        let _ = writeln!(s, "- {}: {}", r.file.rel, r.file.host.unwrap_or(""));
    }
}

/// " and N more" after the first `shown` of `total` names.
fn more(total: usize, shown: usize) -> String {
    if total > shown {
        format!(" and {} more", total - shown)
    } else {
        String::new()
    }
}
