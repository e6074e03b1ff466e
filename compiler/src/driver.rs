//! The driver: the only part of the compiler that touches the file system.
//!
//! It reads the `.pir` file, finds its codelet files (relative to the
//! `.pir`'s folder, then each `-I` folder), loads `.gp` objects and compiles
//! `.cpp` codelets in-process through `popc`'s library (once per file per
//! run, with the options of the `codelets` item, asking for the vertex type
//! names the graph uses), applies `--target` and `POPLAR_TARGET_OPTIONS`,
//! and runs [`crate::compile`]. Failures are [`CompileError`]s, rendered by
//! the command line ([`crate::cli`]) or, for `poplar-run`, by
//! [`compile_for_run`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use linker::gp;

use crate::error::Warning;
use crate::{Codelets, CompileError, Compiled, Options};

fn find_file(pir_dir: &Path, rel: &str, include_dirs: &[PathBuf]) -> Result<PathBuf, Vec<PathBuf>> {
    let mut tried = Vec::new();
    for dir in std::iter::once(pir_dir).chain(include_dirs.iter().map(|p| p.as_path())) {
        let p = dir.join(rel);
        if p.is_file() {
            return Ok(p);
        }
        tried.push(p);
    }
    Err(tried)
}

/// Loads or compiles every codelet file of the graph.
fn load_codelets(
    file_name: &str,
    source: &str,
    pir_path: &Path,
    module: &ir::Module,
    opts: &Options,
) -> Result<Codelets, CompileError> {
    let graph = &module.graph;
    let dir = pir_path.parent().unwrap_or(Path::new("."));
    // Vertex types repeat in runs: compare with the last one before the
    // set (ten million lookups otherwise).
    let mut names: BTreeSet<&str> = BTreeSet::new();
    let mut last: Option<&ir::Name> = None;
    for v in graph.vertices.values() {
        if last.is_none_or(|l| !std::sync::Arc::ptr_eq(l, &v.vtype)) {
            names.insert(&v.vtype);
            last = Some(&v.vtype);
        }
    }
    let requested: Vec<String> = names.into_iter().map(String::from).collect();
    let mut out = Codelets::default();
    let mut text = String::new();
    // Rendered against the source only on failure (a copy of it).
    let mut diags: Vec<ir::Diagnostic> = Vec::new();
    for (id, c) in graph.codelets.iter() {
        let span = *module.spans.codelets.get(id);
        let path = match find_file(dir, &c.path, &opts.include_dirs) {
            Ok(p) => p,
            Err(tried) => {
                let mut d = ir::Diagnostic::error(span, format!("codelet file `{}` not found", c.path));
                for t in tried {
                    d = d.with_note(format!("looked for {}", t.display()));
                }
                diags.push(d);
                continue;
            }
        };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                diags.push(ir::Diagnostic::error(span, format!("cannot read `{}`: {e}", path.display())));
                continue;
            }
        };
        if c.path.ends_with(".gp") {
            match gp::Object::from_bytes(&bytes) {
                Ok(o) => out.objects.push(o),
                Err(e) => diags.push(ir::Diagnostic::error(
                    span,
                    format!("cannot load codelet object `{}`: {e}", c.path),
                )),
            }
            continue;
        }
        let src = String::from_utf8_lossy(&bytes).into_owned();
        let shown = path.display().to_string();
        opts.progress.step(format!("compiling codelets {}", c.path));
        match compile_cpp(&shown, &src, &c.options, &requested) {
            Ok(o) => {
                out.objects.push(o.object);
                out.aliases.extend(o.aliases);
            }
            Err(rendered) => {
                text.push_str(&rendered);
                diags.push(ir::Diagnostic::error(
                    span,
                    format!("codelet file `{}` failed to compile", c.path),
                ));
            }
        }
    }
    if diags.iter().any(|d| d.severity == ir::Severity::Error) {
        let mut d = ir::Diagnostics::new(file_name, source);
        d.items = diags;
        text.push_str(&d.render());
        return Err(CompileError::Diagnostics(text));
    }
    Ok(out)
}

/// Compiles one codelet C++ file with `popc`'s library. Only templated
/// names whose template the file mentions are requested (plain classes are
/// always emitted); a requested name popc cannot instantiate is left out of
/// the object (popc lists it as unresolved), so that the graph compiler
/// reports the unknown vertex type at its PIR position rather than popc at
/// the codelet's.
fn compile_cpp(
    file_name: &str,
    source: &str,
    options: &[String],
    requested: &[String],
) -> Result<popc::Output, String> {
    let popc_opts = popc::Options::from_args(options).map_err(|e| format!("{file_name}: error: {e}\n"))?;
    let wanted = requested_in(source, requested);
    popc::compile_lenient(file_name, source, &popc_opts, &popc::FsIncludes, &wanted).map_err(|d| d.render())
}

/// The requested template instantiations a codelet source could define:
/// those whose template's own name (the last `::` part before `<`) appears
/// in it, so each source is asked only for its own templates.
pub fn requested_in(source: &str, requested: &[String]) -> Vec<String> {
    requested
        .iter()
        .filter(|n| {
            n.split_once('<').is_some_and(|(base, _)| {
                let last = base.rsplit("::").next().unwrap_or(base).trim();
                !last.is_empty() && source.contains(last)
            })
        })
        .cloned()
        .collect()
}

fn target_override(graph: &mut ir::Graph, preset: &str) -> Result<(), CompileError> {
    let Some(mut t) = ir::Target::from_preset_name(preset) else {
        return Err(CompileError::UnknownPreset(preset.to_string()));
    };
    for (k, v) in graph.target.overrides() {
        let _ = t.set(k, v);
    }
    t.links = graph.target.links;
    graph.target = t;
    Ok(())
}

/// Applies `POPLAR_TARGET_OPTIONS`, a JSON object of PIR target keys with
/// positive integer values and Poplar's own target options.
pub fn target_options(target: &mut ir::Target, json: &str) -> Result<(), CompileError> {
    let err = CompileError::TargetOptions;
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| err(format!("not valid JSON: {e}")))?;
    let serde_json::Value::Object(map) = value else {
        return Err(err("expected a JSON object of target keys, e.g. {\"tiles_per_ipu\": 16}".into()));
    };
    for (k, v) in &map {
        if let Some((_, values)) = vocab::IpuLinks::OPTIONS.iter().find(|(name, _)| name == k) {
            let word = v
                .as_str()
                .ok_or_else(|| err(format!("`{k}` must be one of {}, not {v}", values.join(", "))))?;
            target.links.set(k, word).map_err(err)?;
            continue;
        }
        if !ir::target::TARGET_KEYS.contains(&k.as_str()) {
            let poplar: Vec<&str> = vocab::IpuLinks::OPTIONS.iter().map(|(name, _)| *name).collect();
            let hint =
                spelling::did_you_mean(k, ir::target::TARGET_KEYS.into_iter().chain(poplar.iter().copied()))
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
            return Err(err(format!(
                "unknown target key `{k}`{hint} (expected one of: {}; or Poplar's {})",
                ir::target::TARGET_KEYS.join(", "),
                poplar.join(", ")
            )));
        }
        let n = v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| err(format!("`{k}` must be an integer from 1 to {}, not {v}", u32::MAX)))?;
        target.set(k, n).map_err(err)?;
    }
    Ok(())
}

/// The compile function `poplar-run` injects for a `.pir` input (and the
/// golden run harness with it): the image, the compiler's warnings and,
/// when `graph_profile` asks for it, the graph profile (JSON, as `--report`
/// writes it), or the error as text: rendered diagnostics, or a bare
/// message that `poplar-run` prefixes with its own name. The runtime itself
/// never depends on the compiler; it writes autoReport's `graph.json`
/// itself, after the run, with the run's cycle estimates. Target keys come
/// from `POPLAR_TARGET_OPTIONS`, the expansion budget from
/// `POPLAR_EXPANSION_LIMIT`.
pub fn compile_for_run_profiled(
    path: &Path,
    graph_profile: bool,
) -> Result<(linker::image::Image, Vec<String>, Option<String>), String> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|source| CompileError::Read { path: name.clone(), source }.to_string())?;
    compile_source_for_run(&name, bytes, path, graph_profile)
}

/// [`compile_for_run_profiled`] for PIR that is not a file's (the Python
/// package's `compile_pir(text)`): `name` names it in diagnostics and
/// `as_path` is where it stands for resolving codelet paths.
pub fn compile_source_for_run(
    name: &str,
    bytes: Vec<u8>,
    as_path: &Path,
    graph_profile: bool,
) -> Result<(linker::image::Image, Vec<String>, Option<String>), String> {
    let progress = ::report::progress::Progress::on_terminal("poplar-run: compiling");
    compile_source_for_run_with(name, bytes, as_path, graph_profile, progress)
}

/// [`compile_source_for_run`] reporting its steps to `progress` rather
/// than to a spinner of its own (the Python package's progress bar).
pub fn compile_source_for_run_with(
    name: &str,
    bytes: Vec<u8>,
    as_path: &Path,
    graph_profile: bool,
    progress: ::report::progress::Progress,
) -> Result<(linker::image::Image, Vec<String>, Option<String>), String> {
    let expansion_limit = match std::env::var("POPLAR_EXPANSION_LIMIT") {
        Ok(text) => Some(crate::options::parse_expansion_limit(&text)?),
        Err(_) => None,
    };
    let opts = Options {
        target_options: std::env::var("POPLAR_TARGET_OPTIONS").ok(),
        expansion_limit,
        report: graph_profile,
        progress,
        ..Default::default()
    };
    let compiled = compile_source(name, bytes, as_path, &opts);
    opts.progress.finish();
    let compiled = compiled.map_err(|e| e.to_string())?;
    // Rendered as `poplar-run`, the program the user ran, writes them.
    let rendered = compiled.render_warnings();
    let warnings = if rendered.trim().is_empty() { vec![] } else { vec![rendered.trim_end().to_string()] };
    let image = compiled.image.ok_or_else(|| CompileError::DoesNotFit(name.to_string()).to_string())?;
    Ok((image, warnings, compiled.report))
}

/// [`compile_for_run_profiled`] without the graph profile: the image and
/// the compiler's warnings (for the benchmarks and other library callers).
pub fn compile_for_run(path: &Path) -> Result<(linker::image::Image, Vec<String>), String> {
    compile_for_run_profiled(path, false).map(|(image, warnings, _)| (image, warnings))
}

/// Compiles the `.pir` file at `path` (for `poplar-run graph.pir` and the
/// command line).
pub fn compile_path(path: &Path, opts: &Options) -> Result<Compiled, CompileError> {
    let file_name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|source| CompileError::Read { path: file_name.clone(), source })?;
    compile_source(&file_name, bytes, path, opts)
}

/// Compiles PIR text named `file_name`, as if it were the file at `path`
/// (its codelet paths resolve beside it).
pub fn compile_source(
    file_name: &str,
    bytes: Vec<u8>,
    path: &Path,
    opts: &Options,
) -> Result<Compiled, CompileError> {
    let file_name = file_name.to_string();
    let t = std::time::Instant::now();
    let mut check = opts.check_options();
    let mut module = ir::parse_bytes_with(&file_name, &bytes, &check)
        .map_err(|d| CompileError::Diagnostics(d.render()))?;
    let parse_time = t.elapsed();
    // The file parsed, so it is UTF-8: the bytes become the source without
    // a copy (650 MB for ten million vertices).
    let source =
        String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let mut warnings = Vec::new();
    let rendered = module.warnings.iter().map(|w| w.render(&file_name, &source)).collect::<String>();
    if !rendered.is_empty() {
        warnings.push(Warning::Diagnostics(rendered));
    }
    let file_target = module.graph.target.clone();
    if let Some(p) = &opts.target {
        target_override(&mut module.graph, p)?;
    }
    if let Some(json) = &opts.target_options {
        target_options(&mut module.graph.target, json)?;
    }
    module.graph.target.check().map_err(CompileError::Target)?;
    if module.graph.target != file_target && source.contains("target.") {
        // The file reads target properties (`target.num_tiles`): lower it
        // again for the target it will run on.
        check.target = Some(module.graph.target.clone());
        module = ir::parse_bytes_with(&file_name, source.as_bytes(), &check)
            .map_err(|d| CompileError::Diagnostics(d.render()))?;
    }
    let t = std::time::Instant::now();
    let codelets = load_codelets(&file_name, &source, path, &module, opts)?;
    let codelet_time = t.elapsed();
    let mut c = crate::compile(&file_name, &source, &module.graph, &module.spans, &codelets, opts)?;
    c.timings.insert(0, ("codelets", codelet_time));
    c.timings.insert(0, ("parse_and_check (ir)", parse_time));
    warnings.append(&mut c.warnings);
    c.warnings = warnings;
    if module.graph.vertices.len() >= crate::pipeline::BACKGROUND_DROP_VERTICES {
        crate::pipeline::drop_in_background(module);
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_options_take_pir_keys_and_poplars() {
        let mut t = ir::Target::preset(ir::Preset::Mk2);
        target_options(&mut t, r#"{"tiles_per_ipu": 16, "ipuLinkTopology": "line"}"#).unwrap();
        assert_eq!(t.tiles_per_ipu, 16);
        assert_eq!(t.links.topology, vocab::LinkTopology::Line);
        let json = r#"{"ipuLinkConfiguration": "barleyTwist", "syncConfiguration": "ipuAndAll"}"#;
        target_options(&mut t, json).unwrap();
        assert_eq!(t.links.configuration, Some(vocab::LinkConfiguration::BarleyTwist));
        assert_eq!(t.links.sync, vocab::SyncConfiguration::IpuAndAll);
        let e = target_options(&mut t, r#"{"syncConfiguration": "everything"}"#).unwrap_err().to_string();
        assert!(e.contains("must be one of intraReplicaAndAll, ipuAndAll"), "{e}");
        let e = target_options(&mut t, r#"{"numIPUs": "2"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown target key `numIPUs`") && e.contains("ipuLinkConfiguration"), "{e}");
        let e = target_options(&mut t, r#"{"tile_per_ipu": 4}"#).unwrap_err().to_string();
        assert!(e.contains("unknown target key `tile_per_ipu`; did you mean `tiles_per_ipu`?"), "{e}");
        let e = target_options(&mut t, r#"{"ipuLinkTopolgy": "line"}"#).unwrap_err().to_string();
        assert!(e.contains("did you mean `ipuLinkTopology`?"), "{e}");
        assert!(target_options(&mut t, r#"{"workers": 0}"#).is_err());
        assert!(target_options(&mut t, "[1]").is_err());
    }

    /// A bare error takes the name of the program that reports it; a
    /// located one (diagnostics) is already rendered.
    #[test]
    fn errors_are_rendered_by_their_caller() {
        let missing = Path::new("/nonexistent/graph.pir");
        let e = compile_path(missing, &Options::default()).unwrap_err();
        assert!(matches!(e, CompileError::Read { .. }) && !e.is_located(), "{e:?}");
        let text = e.render("poplar-compile");
        assert!(text.starts_with("poplar-compile: error: cannot read /nonexistent/graph.pir: "), "{text}");
        assert!(text.ends_with('\n'), "{text}");
        // `poplar-run` gets the bare message and prefixes its own name.
        let run = compile_for_run(missing).unwrap_err();
        assert!(run.starts_with("cannot read /nonexistent/graph.pir: "), "{run}");
        let e = CompileError::Diagnostics("g.pir:1:1: error: x\n".into());
        assert!(e.is_located());
        assert_eq!(e.render("poplar-compile"), "g.pir:1:1: error: x\n");
    }
}
