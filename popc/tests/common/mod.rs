//! Shared test harness: lay out vertex state and edge data in a tile memory
//! from a small text spec (with `popc::state`), run the compiled code, and
//! print the fields.
//!
//! Spec lines (in `//` comments of a codelet, one block per `RUN`):
//! `// RUN VertexName` then `//   field = [1, 2, 3]` (vector / scalar edge
//! / plain field), `//   field = [[1, 2], [3]]` (vector list),
//! `//   field = 5` (plain value or one-element edge).

#![allow(dead_code)]

use linker::gp::Object;
use popc::exec::{run_vertex, Loaded, RunResult};
// Each test binary uses a different part of the shared state encoding.
#[allow(unused_imports)]
pub use popc::state::{decode, dump, encode, layout, Placed, STATE};

pub struct Run {
    pub vertex: String,
    pub fields: Vec<(String, String)>,
}

pub fn parse_runs(src: &str) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for line in src.lines() {
        let Some(rest) = line.trim().strip_prefix("//") else { continue };
        let rest = rest.trim();
        if let Some(v) = rest.strip_prefix("RUN ") {
            runs.push(Run { vertex: v.trim().to_string(), fields: Vec::new() });
        } else if let (Some(r), Some((k, v))) = (runs.last_mut(), rest.split_once('=')) {
            if line.trim_start().starts_with("//  ") || line.contains("//   ") {
                r.fields.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
    }
    runs
}

/// Runs one spec against an object; returns the printed report.
pub fn run_spec(obj: &Object, run: &Run) -> String {
    let Some(vt) = obj.vertex_types.iter().find(|v| v.name == run.vertex) else {
        return format!(
            "RUN {}: no such vertex type (have {:?})\n",
            run.vertex,
            obj.vertex_types.iter().map(|v| &v.name).collect::<Vec<_>>()
        );
    };
    let mut report = format!("RUN {}\n", run.vertex);
    let mut counts = Vec::new();
    let mut result: Option<(RunResult, String)> = None;
    for (variant, func) in [("plain", &vt.plain), ("counting", &vt.counting)] {
        let mut mem = vec![0u8; 1 << 16];
        let statics = match popc::state::place_statics(&obj.statics, &mut mem) {
            Ok(a) => a,
            Err(e) => return format!("{report}  layout error: {e}\n"),
        };
        let placed = match layout(vt, &run.fields, &mut mem[..statics as usize]) {
            Ok(p) => p,
            Err(e) => return format!("{report}  layout error: {e}\n"),
        };
        let mut code = Loaded::new(func, vt.base == linker::gp::VertexBase::MultiVertex).expect("load");
        code.statics = statics;
        let r = run_vertex(&code, &mut mem, STATE);
        let d = dump(vt, &placed, &mem);
        if variant == "counting" {
            counts.push(r.count);
        }
        match &result {
            None => result = Some((r, d)),
            Some((r0, d0)) => {
                if r0.status != r.status || *d0 != d || r0.printed != r.printed {
                    report.push_str("  MISMATCH between plain and counting variants\n");
                }
            }
        }
    }
    let (r, d) = result.unwrap();
    report.push_str(&format!("  status = {} ({})\n", r.status, linker::abi::describe_status(r.status)));
    if matches!(r.status, linker::abi::STATUS_OUT_OF_BOUNDS | linker::abi::STATUS_MISALIGNED) {
        report.push_str(&format!("  trap_addr = {:#x}\n", r.trap_addr));
    }
    if r.status == linker::abi::STATUS_INDEX {
        report.push_str(&format!("  index = {}\n", r.trap_addr as u32 as i32));
    }
    if r.trap_line != 0 {
        report.push_str(&format!("  trap_line = {}\n", r.trap_line));
    }
    report.push_str(&d);
    if !r.printed.is_empty() {
        report.push_str("  printed:\n");
        for l in String::from_utf8_lossy(&r.printed).lines() {
            report.push_str(&format!("    | {l}\n"));
        }
    }
    report.push_str(&format!("  count = {}\n", counts[0]));
    report
}

pub struct Fs;
impl popc::IncludeResolver for Fs {
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}
