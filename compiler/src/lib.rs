//! The graph compiler: a checked PIR graph plus codelet objects in, a linked
//! executable image (`prog.exe`) out.
//!
//! Its place in the pipeline is between the front ends (`ir` for PIR, `popc`
//! for codelet C++) and the runtime. The passes run in this order, each
//! taking structs and returning a side table beside the IR (never writing
//! into it):
//!
//! 1. [`resolve::resolve_vertices`]: every vertex against its codelet's
//!    metadata (type name, fields, directions, element types, shapes).
//! 2. [`mapping::map_tiles`]: every tensor element to a tile, as interval
//!    lists, and every vertex to a tile.
//! 3. [`exchange::schedule_exchange`]: per compute set, which edges are
//!    passed by address and which go through a buffer filled by exchange;
//!    conflict checks; tensor copies.
//! 4. [`layout::layout_memory`]: tile addresses of everything, memory per
//!    tile by category, the out-of-memory check.
//! 5. [`lower::lower`] (`lower_tile` per tile, in parallel, then
//!    `lower_programs`): tile images, byte-level exchange descriptors and
//!    the control program.
//! 6. `linker::link::link`: the shared code segment and the final [`Image`].
//!
//! Every stage can be dumped as stable text ([`dump`]) and the whole
//! compilation summarised as Poplar's graph profile ([`report`]). Only
//! [`driver`] touches the file system (reading the `.pir`, its codelets and
//! compiling `.cpp` codelets through `popc`'s library); the binary
//! `poplar-compile` is a thin shell around [`driver::run_cli`].

#![forbid(unsafe_code)]

pub mod driver;
pub mod dump;
pub mod error;
pub mod exchange;
pub mod layout;
pub mod lower;
pub mod mapping;
pub mod ops;
pub mod report;
pub mod resolve;

use std::time::{Duration, Instant};

use linker::gp;
use linker::image::Image;

pub use driver::{compile_for_run, compile_path, run_cli};
pub use error::{Stage, StageError};

/// What to compile and how (the command line, as a struct).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--target PRESET`: replaces the file's preset (keeping its key overrides).
    pub target: Option<String>,
    /// `-I<dir>`: where codelet files are looked for after the `.pir`'s folder.
    pub include_dirs: Vec<std::path::PathBuf>,
    /// `--strict-mapping`: unmapped elements are an error, not a warning.
    pub strict_mapping: bool,
    /// `--allow-out-of-memory`: overflowing tiles are a warning; the
    /// profile and dumps are still produced, but no image (it could not run).
    pub allow_out_of_memory: bool,
    /// `--dump STAGE` (any number).
    pub dumps: Vec<DumpStage>,
    /// `--report`: build the graph profile JSON.
    pub report: bool,
    /// `--time-passes`: time each pass.
    pub time_passes: bool,
    /// Where passes and codelet files report that they start (hidden by
    /// default; the binaries show it on a terminal).
    pub progress: ::report::progress::Progress,
    /// `POPLAR_TARGET_OPTIONS`: a JSON object of target keys
    /// (`{"tiles_per_ipu": 16}`), applied after the file's target and
    /// `--target`.
    pub target_options: Option<String>,
}

/// A stage whose result can be dumped as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpStage {
    /// Library operations: the matmul planner's choices and the vertex types.
    Ops,
    Mapping,
    Exchange,
    Memory,
    Program,
    Image,
}

impl DumpStage {
    pub const ALL: [DumpStage; 6] = [
        DumpStage::Ops,
        DumpStage::Mapping,
        DumpStage::Exchange,
        DumpStage::Memory,
        DumpStage::Program,
        DumpStage::Image,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DumpStage::Ops => "ops",
            DumpStage::Mapping => "mapping",
            DumpStage::Exchange => "exchange",
            DumpStage::Memory => "memory",
            DumpStage::Program => "program",
            DumpStage::Image => "image",
        }
    }

    pub fn from_name(s: &str) -> Option<DumpStage> {
        DumpStage::ALL.into_iter().find(|d| d.name() == s)
    }
}

/// The codelet objects of a graph, one per `codelets` item, in file order
/// (the `.gp` loaded, or the `.cpp` compiled by `popc`).
#[derive(Clone, Debug, Default)]
pub struct Codelets {
    pub objects: Vec<gp::Object>,
}

/// A successful compilation.
#[derive(Debug)]
pub struct Compiled {
    /// The linked image; `None` only with `--allow-out-of-memory` when a tile overflows.
    pub image: Option<Image>,
    /// Rendered warnings (possibly empty), for stderr.
    pub warnings: String,
    /// Requested dumps, in the order asked.
    pub dumps: Vec<(DumpStage, String)>,
    /// The graph profile (JSON text) when asked.
    pub report: Option<String>,
    /// Wall time of each pass, in order.
    pub timings: Vec<(&'static str, Duration)>,
}

/// Compiles a checked graph with its codelets. `spans` locate diagnostics
/// in `source` (the PIR text, named `file_name`). Errors come back rendered.
pub fn compile(
    file_name: &str,
    source: &str,
    graph: &ir::Graph,
    spans: &ir::Spans,
    codelets: &Codelets,
    opts: &Options,
) -> Result<Compiled, String> {
    let render = |e: StageError| e.render(file_name, source);
    let mut timings = Vec::new();
    let mut warnings: Vec<ir::Diagnostic> = Vec::new();
    let mut dumps = Vec::new();
    let mut time = |name: &'static str, start: Instant| timings.push((name, start.elapsed()));

    let step = |name: &'static str| opts.progress.step(name);
    // Library operations become ordinary compute sets first.
    let expanded;
    let with_library;
    let (graph, spans, codelets) = if ops::has_ops(graph) {
        step("expand_ops");
        let t = Instant::now();
        let x = ops::expand(graph, spans, opts).map_err(render)?;
        time("expand_ops", t);
        let t = Instant::now();
        let object = ops::compile_library(&x.source, &x.vertex_types).map_err(|e| {
            format!("{file_name}: error: internal error: the operation library does not compile:\n{e}")
        })?;
        time("compile_ops_library", t);
        if opts.dumps.contains(&DumpStage::Ops) {
            dumps.push((DumpStage::Ops, ops::dump(&x)));
        }
        let mut c = codelets.clone();
        c.objects.push(object);
        with_library = c;
        expanded = x;
        (&expanded.graph, &expanded.spans, &with_library)
    } else {
        if opts.dumps.contains(&DumpStage::Ops) {
            dumps.push((DumpStage::Ops, "no operations\n".to_string()));
        }
        (graph, spans, codelets)
    };

    step("resolve_vertices");
    let t = Instant::now();
    let resolved = resolve::resolve_vertices(graph, spans, codelets).map_err(render)?;
    time("resolve_vertices", t);

    step("map_tiles");
    let t = Instant::now();
    let (mapping, w) = mapping::map_tiles(graph, spans, opts).map_err(render)?;
    warnings.extend(w);
    time("map_tiles", t);

    step("schedule_exchange");
    let t = Instant::now();
    let plan = exchange::schedule_exchange(graph, spans, &resolved, codelets, &mapping).map_err(render)?;
    time("schedule_exchange", t);

    step("layout_memory");
    let t = Instant::now();
    let (layout, oom) = layout::layout_memory(graph, spans, &resolved, codelets, &mapping, &plan);
    let oom = match oom {
        Some(e) if opts.allow_out_of_memory => {
            warnings.extend(e.diagnostics.into_iter().map(|mut d| {
                d.severity = ir::Severity::Warning;
                d
            }));
            true
        }
        Some(e) => return Err(render(e)),
        None => false,
    };
    time("layout_memory", t);

    let want = |d: DumpStage| opts.dumps.contains(&d);
    if want(DumpStage::Mapping) {
        dumps.push((DumpStage::Mapping, dump::mapping(graph, &resolved, &mapping)));
    }
    if want(DumpStage::Exchange) {
        dumps.push((DumpStage::Exchange, dump::exchange(graph, &resolved, codelets, &plan)));
    }
    if want(DumpStage::Memory) {
        dumps.push((DumpStage::Memory, dump::memory(graph, &mapping, &plan, &layout)));
    }

    step("lower_tile");
    let t = Instant::now();
    let unlinked = lower::lower(graph, &resolved, codelets, &mapping, &plan, &layout);
    time("lower_tile", t);
    if want(DumpStage::Program) {
        dumps.push((DumpStage::Program, dump::program(&unlinked)));
    }

    let report_json = opts
        .report
        .then(|| report::graph_profile(graph, &resolved, codelets, &plan, &mapping, &layout, &unlinked));

    let image = if oom {
        None
    } else {
        step("link");
        let t = Instant::now();
        let image = linker::link::link(unlinked).map_err(|e| format!("{file_name}: error: {e}\n"))?;
        time("link", t);
        if want(DumpStage::Image) {
            dumps.push((DumpStage::Image, dump::image(&image)));
        }
        Some(image)
    };
    // Keep dumps in the order asked.
    dumps.sort_by_key(|(d, _)| opts.dumps.iter().position(|x| x == d));

    let mut rendered = String::new();
    for w in &warnings {
        rendered.push_str(&w.render(file_name, source));
    }
    Ok(Compiled { image, warnings: rendered, dumps, report: report_json, timings })
}
