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
    fill(
        PAGE,
        &[
            ("{{TITLE}}", &escape_html(title)),
            ("{{STYLE}}", STYLE),
            ("{{DATA}}", &data),
            ("{{SCRIPT}}", SCRIPT),
        ],
    )
}

/// The template with each placeholder replaced, in one pass over the
/// template only: a value is never searched for placeholders, so a name
/// holding `{{SCRIPT}}` (a stream, a folder) stays text (audit 2026-11).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some((at, key, value)) =
        values.iter().filter_map(|(k, v)| rest.find(k).map(|i| (i, *k, *v))).min_by_key(|f| f.0)
    {
        out.push_str(&rest[..at]);
        out.push_str(value);
        rest = &rest[at + key.len()..];
    }
    out.push_str(rest);
    out
}

/// Reads the profiles' text and renders the page; errors name the file.
/// An execution profile of another image than the graph profile's (their
/// `imageHash`es differ, or only one has one) is refused, naming both files.
pub fn render_text(title: &str, graph: (&str, &str), exec: Option<(&str, &str)>) -> Result<String, String> {
    let g = schema::parse_graph(graph.1).map_err(|e| format!("{}: not a graph profile: {e}", graph.0))?;
    let e = match exec {
        Some((name, text)) => Some(
            schema::parse_execution(text).map_err(|e| format!("{name}: not an execution profile: {e}"))?,
        ),
        None => None,
    };
    if let Some(e) = &e {
        // Both carry the image's hash, or neither does (profiles written
        // before it was recorded: then only the tile counts can be compared).
        if e.image_hash != g.image_hash {
            let hash = |h: &Option<String>| h.clone().unwrap_or_else(|| "none".into());
            return Err(format!(
                "{}: the execution profile is of another graph than the graph profile {} \
                 (image hash {} in the execution profile, {} in the graph profile); \
                 give the two profiles of one compiled image",
                exec.map(|x| x.0).unwrap_or_default(),
                graph.0,
                hash(&e.image_hash),
                hash(&g.image_hash)
            ));
        }
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
    /// Audit 2026-11 (`report_placeholder_injection`): a remote buffer
    /// named `rb{{SCRIPT}}` had the page's script pasted into the data, and
    /// a folder named `{{SCRIPT}}{{DATA}}` as the title the same.
    #[test]
    fn names_holding_placeholders_stay_text() {
        let page = super::fill(
            "<t>{{TITLE}}</t><d>{{DATA}}</d><s>{{SCRIPT}}</s>",
            &[
                ("{{TITLE}}", "{{SCRIPT}}{{DATA}}"),
                ("{{DATA}}", "{\"name\":\"rb{{SCRIPT}}{{STYLE}}\"}"),
                ("{{SCRIPT}}", "code"),
            ],
        );
        assert_eq!(page, "<t>{{SCRIPT}}{{DATA}}</t><d>{\"name\":\"rb{{SCRIPT}}{{STYLE}}\"}</d><s>code</s>");
        let graph = crate::schema::parse_graph(include_str!("../../testdata/report/placeholder.graph.json"));
        let page = super::render("{{SCRIPT}}", &graph.expect("graph profile"), None);
        assert_eq!(page.matches("use strict").count(), 1, "the script appears once");
        assert!(page.contains("{{SCRIPT}}"), "the title stays text");
    }

    /// Audit 2026-11 (`report_stale_execution_profile`): a pair is of one
    /// image when both profiles carry its hash, or neither does (profiles
    /// written before the hash); any other pair is refused, naming both.
    #[test]
    fn profiles_of_another_image_are_refused() {
        let graph = include_str!("../../testdata/report/placeholder.graph.json");
        let exec = |hash: &str| {
            format!(
                r#"{{{hash}"profilerMode":"IPU_MODEL","target":{{"name":"mk2","numTiles":2,"bytesPerTile":638976,
                "clockMHz":1330.0,"numWorkerContexts":6}},"programTrace":[],"programs":[],"computeSets":[],
                "vertexTypes":[],"computeSetCyclesByTile":[],"computeSetCycles":[],"computeSetRuns":[],
                "cyclesByVertexType":[],"instancesByVertexType":[],"simulation":{{"cycles":0,"tileCycles":
                {{"activeCompute":0,"compute":0,"doExchange":0,"streamCopy":0,"sync":0}},"steps":[]}}}}"#
            )
        };
        let with_hash = |h: &str| graph.replacen('{', &format!("{{\"imageHash\":\"{h}\","), 1);
        let render = |g: &str, e: &str| super::render_text("t", ("g.json", g), Some(("e.json", e)));
        assert!(render(graph, &exec("")).is_ok(), "neither has a hash");
        assert!(render(&with_hash("00ab"), &exec(r#""imageHash":"00ab","#)).is_ok(), "the same hash");
        let e = render(&with_hash("00ab"), &exec(r#""imageHash":"00cd","#)).unwrap_err();
        assert_eq!(
            e,
            "e.json: the execution profile is of another graph than the graph profile g.json (image hash 00cd \
             in the execution profile, 00ab in the graph profile); give the two profiles of one compiled image"
        );
        let e = render(graph, &exec(r#""imageHash":"00cd","#)).unwrap_err();
        assert!(e.contains("(image hash 00cd in the execution profile, none in the graph profile)"), "{e}");
        let e = render(&with_hash("00ab"), &exec("")).unwrap_err();
        assert!(e.contains("(image hash none in the execution profile, 00ab in the graph profile)"), "{e}");
    }

    #[test]
    fn bad_profiles_are_errors_naming_the_file() {
        let e = super::render_text("t", ("g.json", "{"), None).unwrap_err();
        assert!(e.starts_with("g.json: not a graph profile: EOF while parsing"), "{e}");
        let e = super::render_text("t", ("g.json", r#"{"target": 1}"#), None).unwrap_err();
        assert!(e.starts_with("g.json: not a graph profile: invalid type: integer `1`"), "{e}");
    }
}
