//! [`compile`]: the passes in order, from a checked graph and its codelet
//! objects to the linked image, with the dumps, the graph profile and the
//! pass timings asked for. No I/O: the driver reads the files.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use linker::gp;
use linker::image::Image;

use crate::error::{CompileError, StageError, Warning};
use crate::{dump, exchange, layout, lower, mapping, ops, report, resolve, DumpStage, Options};

/// The codelet objects of a graph, one per `codelets` item, in file order
/// (the `.gp` loaded, or the `.cpp` compiled by `popc`).
#[derive(Clone, Debug, Default)]
pub struct Codelets {
    pub objects: Vec<gp::Object>,
    /// Names the graph uses for vertex types of the objects that only
    /// `popc` could match, as (the graph's name, the type's name): an enum
    /// template argument written as its value (`popc::Output::aliases`).
    pub aliases: Vec<(String, String)>,
    /// The library the graph's operations expanded into, if any.
    pub library: Option<Library>,
}

/// The codelets and compute sets the graph's operations expanded into.
/// The vertices the expansion creates write only through their output
/// edges (the compiler generated their code and their edges together).
#[derive(Clone, Copy, Debug)]
pub struct Library {
    /// Its object's index in [`Codelets::objects`].
    pub object: usize,
    /// The expansion's compute sets: this index onwards (the graph's own
    /// come first). A vertex the user wrote can name a library type, but
    /// only in a compute set of the user's.
    pub first_compute_set: usize,
}

/// A successful compilation.
#[derive(Debug)]
pub struct Compiled {
    /// The linked image; `None` only with `--allow-out-of-memory` when a tile overflows.
    pub image: Option<Image>,
    /// Warnings, in the order found.
    pub warnings: Vec<Warning>,
    /// Requested dumps, in the order asked.
    pub dumps: Vec<(DumpStage, String)>,
    /// The graph profile (JSON text) when asked.
    pub report: Option<String>,
    /// Wall time of each pass, in order.
    pub timings: Vec<(&'static str, Duration)>,
}

/// Compiles a checked graph with its codelets. `spans` locate diagnostics
/// in `source` (the PIR text, named `file_name`); a pass's errors come back
/// rendered against it ([`CompileError::Stage`]).
pub fn compile(
    file_name: &str,
    source: &str,
    graph: &ir::Graph,
    spans: &ir::Spans,
    codelets: &Codelets,
    opts: &Options,
) -> Result<Compiled, CompileError> {
    let render = |error: StageError| CompileError::stage(error, file_name, source);
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
        let object = ops::compile_library(&x.source, &x.vertex_types)
            .map_err(|rendered| CompileError::OpsLibrary { file: file_name.to_string(), rendered })?;
        time("compile_ops_library", t);
        if opts.dumps.contains(&DumpStage::Ops) {
            dumps.push((DumpStage::Ops, ops::dump(&x)));
        }
        if opts.dumps.contains(&DumpStage::Library) {
            dumps.push((DumpStage::Library, x.source.clone()));
        }
        let mut c = codelets.clone();
        c.library = Some(Library { object: c.objects.len(), first_compute_set: graph.compute_sets.len() });
        c.objects.push(object);
        with_library = c;
        expanded = x;
        (&expanded.graph, &expanded.spans, &with_library)
    } else {
        if opts.dumps.contains(&DumpStage::Ops) {
            dumps.push((DumpStage::Ops, "no operations\n".to_string()));
        }
        if opts.dumps.contains(&DumpStage::Library) {
            dumps.push((DumpStage::Library, "// no operations\n".to_string()));
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

    let profile = opts
        .report
        .then(|| report::graph_profile(graph, &resolved, codelets, &plan, &mapping, &layout, &unlinked));

    let image = if oom {
        None
    } else {
        step("link");
        let t = Instant::now();
        let image = linker::link::link(unlinked)
            .map_err(|error| CompileError::Link { file: file_name.to_string(), error })?;
        time("link", t);
        if want(DumpStage::Image) {
            dumps.push((DumpStage::Image, dump::image(&image)));
        }
        Some(image)
    };
    let report_json = profile.map(|p| report::to_json(p, image.as_ref()));
    // Keep dumps in the order asked.
    dumps.sort_by_key(|(d, _)| opts.dumps.iter().position(|x| x == d));

    let rendered = warnings.iter().map(|w| w.render(file_name, source)).collect::<String>();
    let warnings = if rendered.is_empty() { Vec::new() } else { vec![Warning::Diagnostics(rendered)] };
    if graph.vertices.len() >= BACKGROUND_DROP_VERTICES {
        drop_in_background((plan, layout, mapping, resolved));
    }
    Ok(Compiled { image, warnings, dumps, report: report_json, timings })
}

/// Graphs from this many vertices up have their compile's tables freed on
/// a thread of their own ([`drop_in_background`]).
pub const BACKGROUND_DROP_VERTICES: usize = 100_000;

/// Set by [`leave_tables_to_exit`].
static LEAVE_TO_EXIT: AtomicBool = AtomicBool::new(false);

/// Tells [`drop_in_background`] that this process exits as soon as its
/// compile is written (`poplar-compile`): what it is given is then left
/// for the exit to return at once, rather than freed allocation by
/// allocation on a thread that takes a core from writing the image (about
/// a second of CPU at ten million vertices). Libraries that compile and
/// go on (`libpoplar`, `poplar-run`) never call it.
pub fn leave_tables_to_exit() {
    LEAVE_TO_EXIT.store(true, Ordering::Relaxed);
}

/// Frees `x` on a thread of its own, so that the caller goes on (writing
/// the image, exiting) while millions of small allocations are returned:
/// at ten million vertices the graph and the exchange plan take seconds
/// to free. After [`leave_tables_to_exit`], `x` is not freed at all.
pub fn drop_in_background<T: Send + 'static>(x: T) {
    if LEAVE_TO_EXIT.load(Ordering::Relaxed) {
        std::mem::forget(x);
        return;
    }
    // Where the thread cannot start, the closure, and `x` with it, is
    // dropped here.
    let _ = std::thread::Builder::new().name("drop".into()).spawn(move || drop(x));
}

impl Compiled {
    /// Every warning as text, in order.
    pub fn render_warnings(&self) -> String {
        self.warnings.iter().map(Warning::render).collect()
    }
}
