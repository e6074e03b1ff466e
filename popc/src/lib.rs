//! `popc`, the codelet compiler: C++ vertex codelets to machine code.
//!
//! Its place in the pipeline is first: it reads a codelet source (with the
//! preprocessor's includes resolved by the caller), and produces a `.gp`
//! object ([`linker::gp::Object`]) holding, per vertex type, the field
//! layout the graph compiler needs and the `compute` code in two variants
//! (plain, and counting for the simulator's cycle model). `poplar-compile`
//! calls [`compile`] in process; the `popc` binary wraps it.
//!
//! The stages, one folder each (internal modules):
//! - `front`: text to syntax tree (`front::pp`, the preprocessor over
//!   `front::lex` tokens; `front::parse` building `front::ast`);
//! - `sema`: declarations, names, templates and layout, with `sema::ceval`
//!   for constants and `sema::types` for C++ types;
//! - `lower`: Cranelift IR (every call inlined; `lower::vectorize` adds
//!   SIMD copies of elementwise float loops), then `codegen` makes machine
//!   code for this machine's ISA level (`linker::isa`).
//!
//! [`host`] and [`exec`] run compiled code in process (tests, the runtime's
//! `cpu` device); [`state`] encodes vertex state as the ABI lays it out.
//! The library does no file I/O; errors are [`Diagnostics`] rendered to
//! text.

// Unsafe code is confined to the modules that allow it by name.
#![deny(unsafe_code)]

// The stages are internal: the library's surface is `compile*`, their
// options and diagnostics, and the in-process harness (`exec`, `state`).
mod codegen;
pub mod diag;
pub mod exec;
mod front;
mod hash;
mod lower;
mod sema;
pub mod state;

/// The cost table counted codelets use (shared with the simulator).
pub use linker::cost;

use front::{ast, parse, pp};
use sema::types;

/// The host functions and `printf` formats live below popc and the runtime,
/// in `linker`; these names keep popc's own paths to them.
pub use linker::{host, printf};

use std::rc::Rc;

pub use diag::{Diagnostic, Diagnostics};

use linker::gp::{Field, FieldKind, Object, VertexType};

/// Finds include files for the preprocessor; the library never reads files itself.
pub trait IncludeResolver {
    /// The contents of the file at `path`, if it exists.
    fn read(&self, path: &str) -> Option<String>;

    /// Why the file at `path`, which [`IncludeResolver::read`] did not
    /// return, exists but may not be included (see [`include_refusal`]);
    /// `None` when it does not exist.
    fn refusal(&self, _path: &str) -> Option<String> {
        None
    }
}

/// The largest file `#include` takes from a resolver that reads files:
/// 16 MiB, far above any codelet source or header, and small enough that
/// reading one costs no more than the preprocessor's token limit allows.
pub const MAX_INCLUDE_BYTES: u64 = 16 << 20;

/// Why a file may not be included, from what its metadata says: only
/// regular files (not `/dev/zero`, which never ends, nor `/dev/stdin` or a
/// pipe, which may block for ever) of at most [`MAX_INCLUDE_BYTES`]. A
/// resolver that reads files checks this before it opens one, and reads
/// no more than the bound in any case.
pub fn include_refusal(is_regular_file: bool, len: u64) -> Option<String> {
    if !is_regular_file {
        Some("not a regular file".into())
    } else if len > MAX_INCLUDE_BYTES {
        Some(format!("{len} bytes, more than the {MAX_INCLUDE_BYTES} an included file may have"))
    } else {
        None
    }
}

/// The resolver that reads included files from the file system, for the
/// tools that compile files (`popc`, `poplar-compile`, the host API): only
/// files [`include_refusal`] accepts, and no more than the bound is read.
/// The one place the library touches files, and only when a caller picks it.
pub struct FsIncludes;

impl IncludeResolver for FsIncludes {
    fn read(&self, path: &str) -> Option<String> {
        read_include(path).ok()
    }

    fn refusal(&self, path: &str) -> Option<String> {
        read_include(path).err().flatten()
    }
}

/// Reads an included file, checked before it is opened and bounded while
/// it is read. `Err(None)`: no such file; `Err(Some(why))`: refused.
pub fn read_include(path: &str) -> Result<String, Option<String>> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|_| None)?;
    if let Some(why) = include_refusal(meta.is_file(), meta.len()) {
        return Err(Some(why));
    }
    let file = std::fs::File::open(path).map_err(|e| Some(e.to_string()))?;
    let mut text = String::new();
    file.take(MAX_INCLUDE_BYTES + 1).read_to_string(&mut text).map_err(|e| Some(e.to_string()))?;
    match include_refusal(true, text.len() as u64) {
        Some(why) => Err(Some(why)),
        None => Ok(text),
    }
}

/// A resolver that finds nothing (only built-in headers are available).
pub struct NoIncludes;

impl IncludeResolver for NoIncludes {
    fn read(&self, _path: &str) -> Option<String> {
        None
    }
}

/// Compiler options, as on popc's command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `-DNAME[=value]` (value "1" when absent).
    pub defines: Vec<(String, String)>,
    /// `-I<path>`.
    pub include_dirs: Vec<String>,
    /// `-g`: line tables and trap lines.
    pub debug: bool,
    /// `-O0`..`-O3`.
    pub opt_level: u8,
    /// `--target <triple>`; `None` for this machine.
    pub target: Option<String>,
    /// `-S`: keep the Cranelift IR text of each vertex.
    pub emit_ir: bool,
    /// Give elementwise float loops a guarded SIMD copy (see
    /// `lower::vectorize`); `-fno-vectorize` turns it off. Results and counts
    /// are the same either way.
    pub vectorize: bool,
    /// Poll the stop word (and, counting, the cycle budget) at every loop
    /// back edge, so a run can be interrupted inside codelet code. Always
    /// on for real use: no command-line flag turns it off. Off only to
    /// measure what the checks cost (the bench compiles its kernels both
    /// ways); code without them runs until it returns.
    pub stop_checks: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            defines: Vec::new(),
            include_dirs: Vec::new(),
            debug: false,
            opt_level: 2,
            target: None,
            emit_ir: false,
            vectorize: true,
            stop_checks: true,
        }
    }
}

impl Options {
    /// Parses popc-style option strings (`-DWIDTH=4`, `-I dir`, `-O3`, `-g`,
    /// `--target T`), as PIR files give them.
    pub fn from_args(args: &[String]) -> Result<Options, String> {
        let mut o = Options::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if let Some(d) = a.strip_prefix("-D") {
                let d = if d.is_empty() { it.next().ok_or("-D needs a macro name")?.as_str() } else { d };
                let (k, v) = d.split_once('=').unwrap_or((d, "1"));
                if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(format!("invalid macro name in '-D{d}'"));
                }
                o.defines.push((k.to_string(), v.to_string()));
            } else if let Some(i) = a.strip_prefix("-I") {
                let i = if i.is_empty() { it.next().ok_or("-I needs a path")?.as_str() } else { i };
                o.include_dirs.push(i.to_string());
            } else if let Some(l) = a.strip_prefix("-O") {
                o.opt_level = match l {
                    "0" => 0,
                    "1" => 1,
                    "" | "2" => 2,
                    "3" | "s" => 3,
                    _ => return Err(format!("invalid optimisation level '{a}'")),
                };
            } else if a == "-g" {
                o.debug = true;
            } else if a == "-S" {
                o.emit_ir = true;
            } else if a == "-fno-vectorize" {
                o.vectorize = false;
            } else if a == "-fvectorize" {
                o.vectorize = true;
            } else if a == "--target" {
                o.target = Some(it.next().ok_or("--target needs a triple")?.clone());
            } else if let Some(t) = a.strip_prefix("--target=") {
                o.target = Some(t.to_string());
            } else {
                return Err(format!("unknown popc option '{a}'"));
            }
        }
        Ok(o)
    }
}

/// A compiled object and, with `-S`, the IR text of each vertex.
pub struct Output {
    pub object: Object,
    pub ir_text: String,
    /// Requested vertex names that could not be instantiated, with why
    /// (only [`compile_lenient`] returns an `Output` with any).
    pub unresolved: Vec<Unresolved>,
    /// Requested names that name a vertex type of the object under another
    /// key, as (requested, the type's name): an enum argument requested by
    /// its value (`Bin<1,float>` for `Bin<Kind::MAX,float>`), which only
    /// the instantiation can tell.
    pub aliases: Vec<(String, String)>,
}

/// A requested vertex name the codelets cannot instantiate.
#[derive(Clone, Debug)]
pub struct Unresolved {
    /// The name as requested.
    pub requested: String,
    /// Why, as a diagnostic (the message names the vertex).
    pub error: Diagnostic,
}

/// Compiles a codelet source into a `.gp` object. Emits every non-template
/// vertex class, every explicitly instantiated template, and each name in
/// `requested` (e.g. `Sum<half,4>`, any reasonable spelling).
pub fn compile(
    file_name: &str,
    source: &str,
    opts: &Options,
    includes: &dyn IncludeResolver,
    requested: &[String],
) -> Result<Object, Diagnostics> {
    compile_full(file_name, source, opts, includes, requested).map(|o| o.object)
}

/// Like [`compile`], also returning the IR text when `opts.emit_ir`.
pub fn compile_full(
    file_name: &str,
    source: &str,
    opts: &Options,
    includes: &dyn IncludeResolver,
    requested: &[String],
) -> Result<Output, Diagnostics> {
    compile_sources(&[(file_name.to_string(), source.to_string())], opts, includes, requested)
}

/// Like [`compile_full`], but a requested name that cannot be instantiated
/// is left out of the object and listed in [`Output::unresolved`] instead
/// of failing the compile: the graph compiler then reports the unknown
/// vertex type where the graph uses it.
pub fn compile_lenient(
    file_name: &str,
    source: &str,
    opts: &Options,
    includes: &dyn IncludeResolver,
    requested: &[String],
) -> Result<Output, Diagnostics> {
    compile_units(&[(file_name.to_string(), source.to_string())], opts, includes, requested).map(|r| r.0)
}

/// Compiles several sources of one codelet library into one object: each
/// is preprocessed and parsed on its own (its own macros, as a separate
/// translation unit), then their declarations are joined, so a vertex may
/// call a function defined in another source. A header's declarations
/// count once, however many sources include it.
pub fn compile_sources(
    files: &[(String, String)],
    opts: &Options,
    includes: &dyn IncludeResolver,
    requested: &[String],
) -> Result<Output, Diagnostics> {
    let (out, sources) = compile_units(files, opts, includes, requested)?;
    match out.unresolved.first() {
        Some(u) => Err(Diagnostics { sources, errors: vec![u.error.clone()] }),
        None => Ok(out),
    }
}

/// [`compile_sources`] without failing on unresolved requested names; also
/// returns the source map their diagnostics point into.
fn compile_units(
    files: &[(String, String)],
    opts: &Options,
    includes: &dyn IncludeResolver,
    requested: &[String],
) -> Result<(Output, diag::SourceMap), Diagnostics> {
    let fail = |d: Diagnostic, s: &diag::SourceMap| Diagnostics { sources: s.clone(), errors: vec![d] };
    let mut sources = diag::SourceMap::default();
    let mut items = Vec::new();
    for (file_name, source) in files {
        let mut pp = pp::Preprocessor::new(&opts.defines, &opts.include_dirs, includes);
        let first_new = sources.files.len() as u32;
        if first_new > 0 {
            // One source map for all: later spans get later file ids.
            pp.sources = std::mem::take(&mut sources);
        }
        let (toks, s) =
            pp.run(file_name, source).map_err(|(d, s)| Diagnostics { sources: s, errors: vec![d] })?;
        sources = s;
        let unit = parse::Parser::new(toks).parse_unit().map_err(|d| fail(d, &sources))?;
        if first_new == 0 {
            items = unit;
        } else {
            let seen: crate::hash::HashSet<&str> =
                sources.files[..first_new as usize].iter().map(|(n, _)| n.as_str()).collect();
            let again = |span: diag::Span| {
                span.file >= first_new && seen.contains(sources.files[span.file as usize].0.as_str())
            };
            items.extend(drop_repeated(unit, &again));
        }
    }
    let file_name = files.first().map_or("", |f| f.0.as_str());
    let level = linker::isa::Level::current();
    let isa = codegen::make_isa(opts.target.as_deref(), opts.opt_level, level)
        .map_err(|m| fail(Diagnostic::new(diag::Span::default(), m), &sources))?;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        build(file_name, &items, opts, &sources, (&*isa, level), requested)
    }));
    match r {
        Ok(r) => match r {
            Ok(out) => Ok((out, sources)),
            Err(errors) => Err(Diagnostics { sources: sources.clone(), errors }),
        },
        Err(_) => Err(fail(
            Diagnostic::new(diag::Span { file: 1, lo: 0, hi: 0 }, "internal compiler error (please report)"),
            &sources,
        )),
    }
}

/// Preprocesses and parses `source` (a whole file; only the built-in
/// headers) and reports its first syntax or limit error; nothing is
/// analysed or compiled. The graph compiler checks the code it generates
/// for an unusually deep expression this way, so that a limit it reaches is
/// reported at the expression rather than as a broken library.
pub fn check_syntax(file_name: &str, source: &str) -> Result<(), Diagnostics> {
    let pp = pp::Preprocessor::new(&[], &[], &NoIncludes);
    let (toks, sources) =
        pp.run(file_name, source).map_err(|(d, s)| Diagnostics { sources: s, errors: vec![d] })?;
    parse::Parser::new(toks).parse_unit().map(|_| ()).map_err(|d| Diagnostics { sources, errors: vec![d] })
}

/// The items of a later source minus those from headers an earlier
/// source already included (`again`).
fn drop_repeated(items: Vec<ast::Item>, again: &dyn Fn(diag::Span) -> bool) -> Vec<ast::Item> {
    use ast::Item;
    items
        .into_iter()
        .filter_map(|it| {
            let span = match &it {
                Item::Namespace(n, inner) => {
                    return Some(Item::Namespace(n.clone(), drop_repeated(inner.clone(), again)));
                }
                Item::Class(c) => Some(c.span),
                Item::Function(f) => Some(f.span),
                Item::Enum(e) => Some(e.span),
                Item::Alias(s, ..) | Item::StaticAssert(s, ..) => Some(*s),
                Item::Var(v) => Some(v.span),
                Item::ExplicitInst(t) => Some(t.span),
                Item::StaticMember(_, v, _) => Some(v.span),
                Item::UsingNamespace(_) | Item::UsingDecl(_) => None,
            };
            (!span.is_some_and(again)).then_some(it)
        })
        .collect()
}

fn build(
    file_name: &str,
    items: &[ast::Item],
    opts: &Options,
    sources: &diag::SourceMap,
    (isa, level): (&dyn cranelift_codegen::isa::TargetIsa, linker::isa::Level),
    requested: &[String],
) -> Result<Output, Vec<Diagnostic>> {
    let mut prog =
        sema::Unit { ndebug: opts.defines.iter().any(|(k, _)| k == "NDEBUG"), ..Default::default() };
    prog.collect(items, "").map_err(|d| vec![d])?;
    // From here on each static assertion, class and vertex is checked on its
    // own: one failing does not hide the others' errors.
    let mut errors = Errors::default();
    for (span, e, m, ns) in &prog.asserts {
        let env = sema::Env { ns: ns.clone(), ..Default::default() };
        if let Err(d) = prog.check_assert(*span, e, m.as_deref(), &env) {
            errors.push(d);
        }
    }
    let mut classes: Vec<Rc<sema::ClassInst>> = Vec::new();
    let mut names: Vec<(String, Vec<Rc<sema::ClassDecl>>)> =
        prog.classes.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    names.sort_by_key(|(_, v)| v.first().map(|d| (d.ast.span.file, d.ast.span.lo)));
    for (q, decls) in &names {
        let Some(d) = decls.iter().find(|d| d.ast.spec_args.is_none()) else { continue };
        // Vertices are the classes with a base; helper classes are laid
        // out where they are used (a nested class only inside its
        // enclosing template's instance).
        if d.qual != *q || d.ast.tparams.is_some() || d.ast.bases.is_empty() {
            continue;
        }
        let env = sema::Env { ns: d.ns.clone(), ..Default::default() };
        match prog.instantiate(decls, &[], &env, d.ast.span) {
            Ok(c) if c.base.is_some() => classes.push(c),
            Ok(_) => {}
            Err(e) => errors.push(e),
        }
    }
    for (t, ns) in &prog.insts {
        let env = sema::Env { ns: ns.clone(), ..Default::default() };
        match prog.resolve_type(t, &env) {
            Ok(sema::Ty::Class(c)) if c.base.is_some() => classes.push(c),
            Ok(_) => {
                errors.push(Diagnostic::new(t.span, "explicit instantiation of a class that is not a vertex"))
            }
            Err(e) => errors.push(e),
        }
    }
    let mut unresolved = Vec::new();
    let mut aliases = Vec::new();
    for r in requested {
        let named = vocab::VertexName::parse(r)
            .map_err(|m| Diagnostic::new(diag::Span { file: 1, lo: 0, hi: 0 }, m))
            .and_then(|name| instantiate_named(&prog, &name).map(|c| (name, c)));
        match named {
            Ok((name, c)) => {
                if vocab::VertexName::parse(&c.name).map(|n| n.key()) != Ok(name.key()) {
                    aliases.push((r.clone(), c.name.clone()));
                }
                classes.push(c)
            }
            Err(error) => unresolved.push(Unresolved { requested: r.clone(), error }),
        }
    }
    let mut seen = crate::hash::HashSet::default();
    classes.retain(|c| seen.insert(c.name.clone()));
    let compiled = compile_all(isa, &prog, sources, &classes, opts);
    // What lowering laid out of static storage.
    let statics = prog.storage.take().finish();
    let mut vts = Vec::new();
    let mut ir_text = String::new();
    for (c, comp) in classes.iter().zip(compiled) {
        let comp = match comp {
            Ok(comp) => comp,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        ir_text.push_str(&comp.ir_text);
        let fields = c
            .fields
            .iter()
            .map(|f| {
                let (direction, elem, kind) = match &f.ty {
                    sema::FieldTy::Edge { dir, elem, kind } => (Some(*dir), elem.elem(), *kind),
                    sema::FieldTy::Plain(t) => {
                        (None, t.scalar().unwrap_or(types::Scalar::UChar).elem(), FieldKind::Plain)
                    }
                };
                Field {
                    name: f.name.clone(),
                    direction,
                    elem,
                    kind,
                    offset: f.offset,
                    size: f.size,
                    is_const: f.is_const,
                    min_align: f.min_align,
                }
            })
            .collect();
        vts.push(VertexType {
            name: c.name.clone(),
            base: c.base.unwrap(),
            fields,
            state_size: c.size,
            state_align: c.align.max(4),
            stack_size: comp.stack_size,
            returns_bool: comp.returns_bool,
            plain: comp.plain,
            counting: comp.counting,
            line: sources.line(c.decl.ast.span),
        });
    }
    errors.finish()?;
    Ok(Output {
        object: Object { source: file_name.to_string(), vertex_types: vts, statics, isa: level },
        ir_text,
        unresolved,
        aliases,
    })
}

/// Lowers each vertex class in order on this thread (the program's state
/// is not shared) and compiles the lowered functions on rayon's pool as
/// they come, each independently, so the code is the same whatever the
/// thread count; a function equal to one already compiled is not compiled
/// again ([`codegen::Distinct`]). With one thread in the pool, everything
/// runs here. Each class gets its own result, in class order: one failing
/// does not stop the others (see [`Errors`]).
fn compile_all(
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    prog: &sema::Unit,
    sources: &diag::SourceMap,
    classes: &[Rc<sema::ClassInst>],
    opts: &Options,
) -> Vec<Result<codegen::Compiled, Diagnostic>> {
    type Code = std::sync::OnceLock<Result<linker::gp::Function, Diagnostic>>;
    let parallel = rayon::current_num_threads() > 1;
    let mut distinct = codegen::Distinct::default();
    // Per distinct function, its code once compiled.
    let mut code: Vec<std::sync::Arc<Code>> = Vec::new();
    // Per class, its lowered functions and the index of each one's code.
    let mut lowered = Vec::with_capacity(classes.len());
    rayon::in_place_scope(|s| {
        for c in classes {
            let l = match codegen::lower(isa, prog, sources, c, opts) {
                Ok(l) => l,
                Err(mut d) => {
                    if c.name.contains('<') {
                        // Which instance of a template the error is in: its
                        // position alone is shared by every instance.
                        d.notes.push(format!("in vertex '{}'", c.name));
                    }
                    lowered.push(Err(d));
                    continue;
                }
            };
            let ids = [0, 1].map(|i| {
                let (id, new) = distinct.add(&l.funcs()[i]);
                if new {
                    let slot = std::sync::Arc::new(Code::new());
                    code.push(slot.clone());
                    let func = l.funcs()[i].clone();
                    let (name, span) = l.origin();
                    let name = name.to_string();
                    let job = move || {
                        let _ = slot.set(codegen::emit_one(isa, &func, &name, span, opts.debug));
                    };
                    if parallel {
                        s.spawn(move |_| job());
                    } else {
                        job();
                    }
                }
                (id, new)
            });
            lowered.push(Ok((l, ids)));
        }
    });
    lowered
        .into_iter()
        .map(|l| {
            let (l, ids) = l?;
            let [plain, counting] = [0, 1].map(|i| {
                let (id, new) = ids[i];
                match code[id].get() {
                    Some(Ok(f)) => Ok(f.clone()),
                    // An error names the vertex: another's is not this one's.
                    Some(Err(d)) if new => Err(d.clone()),
                    _ => l.emit(isa, i, opts.debug),
                }
            });
            Ok(l.finish(plain?, counting?))
        })
        .collect()
}

/// At most this many errors are reported per compilation (each vertex,
/// class and static assertion is checked on its own); a last line says so.
pub const MAX_ERRORS: usize = 20;

/// The independent errors of one compilation, each reported once (a
/// helper function two vertices call fails the same way in both).
#[derive(Default)]
struct Errors(Vec<Diagnostic>);

impl Errors {
    fn push(&mut self, d: Diagnostic) {
        if !self.full() && !self.0.iter().any(|e| e.span == d.span && e.message == d.message) {
            self.0.push(d);
        }
    }
    fn full(&self) -> bool {
        self.0.len() >= MAX_ERRORS
    }
    fn finish(mut self) -> Result<(), Vec<Diagnostic>> {
        if self.0.is_empty() {
            return Ok(());
        }
        // In source order, as the reader meets them.
        self.0.sort_by_key(|d| (d.span.file, d.span.lo));
        if self.full() {
            self.0[MAX_ERRORS - 1].notes.push(format!("stopping after {MAX_ERRORS} errors"));
        }
        Err(self.0)
    }
}

/// Instantiates the vertex class a requested name names, as `template
/// class NAME;` at global scope would: the name's arguments become the
/// syntax tree's template arguments (a (qualified) identifier is a class
/// or an enumerator, decided where it is bound).
fn instantiate_named(prog: &sema::Unit, name: &vocab::VertexName) -> Result<Rc<sema::ClassInst>, Diagnostic> {
    let span = diag::Span { file: 1, lo: 0, hi: 0 };
    let t = ast::TypeName { span, kind: ast::TypeKind::Named(vertex_path(name, span)), is_const: false };
    match prog.resolve_type(&t, &sema::Env::default()) {
        Ok(sema::Ty::Class(c)) if c.base.is_some() => Ok(c),
        Ok(_) => Err(Diagnostic::new(span, format!("requested '{name}' is not a vertex type"))),
        Err(d) => {
            Err(Diagnostic::new(span, format!("cannot instantiate requested vertex '{name}': {}", d.message)))
        }
    }
}

/// The syntax tree's path for a (qualified, templated) vertex name.
fn vertex_path(name: &vocab::VertexName, span: diag::Span) -> ast::Path {
    let path = |p: &str| ast::Path {
        span,
        global: false,
        segs: p.split("::").map(|s| ast::Seg { name: s.to_string(), args: None }).collect(),
    };
    let named = |p: ast::Path| {
        ast::TArg::Type(ast::TypeName { span, kind: ast::TypeKind::Named(p), is_const: false })
    };
    let expr = |kind| ast::TArg::Expr(ast::Expr { span, kind });
    let scalar = |s| ast::TArg::Type(ast::TypeName { span, kind: ast::TypeKind::Scalar(s), is_const: false });
    let args = name.args.iter().map(|a| match a {
        vocab::TemplateArg::Type(t) => match types::Scalar::from_name(t) {
            Some(s) => scalar(s),
            None => named(path(t)),
        },
        vocab::TemplateArg::Bool(b) => expr(ast::ExprKind::Bool(*b)),
        vocab::TemplateArg::Int(i) => {
            // Beyond 64 bits no type holds it: the largest literal fails as it would.
            let v = u64::try_from(i.unsigned_abs()).unwrap_or(u64::MAX);
            let lit = ast::Expr { span, kind: ast::ExprKind::Int(v, false, false, false) };
            if *i < 0 {
                expr(ast::ExprKind::Unary(ast::UnOp::Neg, Box::new(lit)))
            } else {
                ast::TArg::Expr(lit)
            }
        }
        vocab::TemplateArg::Name(n) => named(vertex_path(n, span)),
        vocab::TemplateArg::Ident(p) => match types::Scalar::from_name(p) {
            Some(s) => scalar(s),
            None => named(path(p)),
        },
    });
    let mut p = path(&name.path);
    if !name.args.is_empty() {
        if let Some(last) = p.segs.last_mut() {
            last.args = Some(args.collect());
        }
    }
    p
}
