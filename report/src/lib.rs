//! `poplar-report`: a PopVision-style view of a compiled and run graph, as
//! one self-contained HTML file (no network: the page's script, styles and
//! data are inlined). Input is the graph profile of `poplar-compile
//! --report` and, optionally, the execution profile of `poplar-run
//! --profile`; [`schema`] reads both into typed structs, [`view`] derives
//! the arrays the page draws, and [`render`] writes the page.
//!
//! The page aggregates tiles into bins when a chart has more tiles than
//! pixels, so a 1,472-tile, million-vertex graph draws as fast as a small
//! one. [`auto`] reads the `autoReport.*` engine options that make the
//! compiler and the runtime write profiles and this page without flags;
//! [`progress`] is what both show on a terminal while they work, and
//! [`log`] reads `POPLAR_LOG_LEVEL` and `POPLAR_LOG_DEST` for all three tools.
//! [`summary`] prints a graph profile as Poplar's profile summary does.
//!
//! No I/O here except in the binary, [`auto::write_report`] and
//! [`log::LogDest::open`].

#![forbid(unsafe_code)]

pub mod auto;
pub mod log;
pub mod progress;
pub mod schema;
pub mod summary;
pub mod view;

pub use schema::{ExecutionProfile, GraphProfile};

const PAGE: &str = include_str!("../assets/report.html");
const STYLE: &str = include_str!("../assets/report.css");
const SCRIPT: &str = include_str!("../assets/report.js");

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The report page for a graph profile and, when the program ran on `sim`,
/// its execution profile.
pub fn render(title: &str, graph: &GraphProfile, exec: Option<&ExecutionProfile>) -> String {
    let view = view::View::new(title, graph, exec);
    // `<` never appears outside strings in JSON, where `\u003c` means the
    // same: the data cannot close its script element.
    let data = serde_json::to_string(&view).unwrap_or_default().replace('<', "\\u003c");
    PAGE.replace("{{TITLE}}", &escape_html(title))
        .replace("{{STYLE}}", STYLE)
        .replace("{{DATA}}", &data)
        .replace("{{SCRIPT}}", SCRIPT)
}

/// Reads the profiles' text and renders the page; errors name the file.
pub fn render_text(title: &str, graph: (&str, &str), exec: Option<(&str, &str)>) -> Result<String, String> {
    let g = schema::parse_graph(graph.1).map_err(|e| format!("{}: not a graph profile: {e}", graph.0))?;
    let e = match exec {
        Some((name, text)) => Some(
            schema::parse_execution(text).map_err(|e| format!("{name}: not an execution profile: {e}"))?,
        ),
        None => None,
    };
    if let Some(e) = &e {
        if e.target.num_tiles != g.target.num_tiles {
            return Err(format!(
                "{}: the execution profile has {} tiles but the graph profile {} has {}",
                exec.map(|x| x.0).unwrap_or_default(),
                e.target.num_tiles,
                graph.0,
                g.target.num_tiles
            ));
        }
    }
    Ok(render(title, &g, e.as_ref()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn bad_profiles_are_errors_naming_the_file() {
        let e = super::render_text("t", ("g.json", "{"), None).unwrap_err();
        assert!(e.starts_with("g.json: not a graph profile: EOF while parsing"), "{e}");
        let e = super::render_text("t", ("g.json", r#"{"target": 1}"#), None).unwrap_err();
        assert!(e.starts_with("g.json: not a graph profile: invalid type: integer `1`"), "{e}");
    }
}
