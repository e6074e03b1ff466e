//! `poplar-report graph.json [exec.json] -o report.html`: writes the
//! self-contained HTML report of [`report::render`]; `--summary` prints the
//! graph profile's Target, Graph and Memory summary ([`report::summary`]).
//! Exit 0, 1 on a bad input or an unwritable output, 2 on a usage error.

#![forbid(unsafe_code)]

use std::path::PathBuf;

const USAGE: &str = "\
usage: poplar-report <graph-profile.json> [execution-profile.json] [-o <report.html>] [--summary]

graph-profile.json      from poplar-compile --report (or autoReport)
execution-profile.json  from poplar-run --profile on the sim device (optional)
--summary               print the target, graph and memory summary to stdout
";

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(run(&argv));
}

fn run(argv: &[String]) -> i32 {
    let mut inputs = Vec::new();
    let mut output: Option<PathBuf> = None;
    let mut summary = false;
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        match a.as_str() {
            "-h" | "--help" => {
                report::log::write_stdout(USAGE);
                return 0;
            }
            "-V" | "--version" => {
                report::log::write_stdout(&format!("poplar-report {}\n", env!("CARGO_PKG_VERSION")));
                return 0;
            }
            "--summary" => summary = true,
            "-o" => match argv.get(i) {
                Some(p) => {
                    output = Some(PathBuf::from(p));
                    i += 1;
                }
                None => return usage("-o needs a file name"),
            },
            s if s.starts_with("-o") && s.len() > 2 => output = Some(PathBuf::from(&s[2..])),
            s if s.starts_with('-') && s.len() > 1 => return usage(&format!("unknown option '{s}'")),
            _ => inputs.push(PathBuf::from(a)),
        }
    }
    if inputs.is_empty() || inputs.len() > 2 {
        return usage("expected a graph profile and optionally an execution profile");
    }
    if output.is_none() && !summary {
        return usage("no output file (-o report.html)");
    }
    let read =
        |p: &PathBuf| std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    let result = (|| {
        let graph = read(&inputs[0])?;
        let exec = inputs.get(1).map(read).transpose()?;
        let gname = inputs[0].display().to_string();
        let ename = inputs.get(1).map(|p| p.display().to_string()).unwrap_or_default();
        let title = inputs[0]
            .parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| gname.clone());
        if summary {
            let g = report::schema::parse_graph(&graph)
                .map_err(|e| format!("{gname}: not a graph profile: {e}"))?;
            report::log::write_stdout(&report::summary::graph_summary(&g));
        }
        let Some(output) = &output else { return Ok(()) };
        let html =
            report::render_text(&title, (&gname, &graph), exec.as_deref().map(|t| (ename.as_str(), t)))?;
        std::fs::write(output, html).map_err(|e| format!("cannot write {}: {e}", output.display()))
    })();
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("poplar-report: error: {e}");
            1
        }
    }
}

fn usage(msg: &str) -> i32 {
    eprintln!("poplar-report: error: {msg}\n{USAGE}");
    2
}
