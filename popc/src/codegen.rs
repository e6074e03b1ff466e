//! Machine code: the target ISA, and compiling each vertex's entry function
//! (plain and counting variants) into a `linker::gp::Function`.
//!
//! Code is generated for this process's ISA level (`linker::isa`): the
//! x86-64-v2 baseline, or x86-64-v3 (AVX2) where the processor has it and
//! `POPLAR_HOST_ISA` does not lower it. The object's header records the
//! level, so it runs on every machine that has that level.

use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::Arc;

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{self, UserFuncName};
use cranelift_codegen::isa::{self, TargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, FinalizedRelocTarget};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use linker::gp::{Function, Reloc, VertexBase};

use crate::diag::{Diagnostic, Result, SourceMap};
use crate::hash::{FastHasher, HashMap};
use crate::lower::{entry_signature, Lowerer, Variant};
use crate::sema::{ClassInst, Unit};

/// Cranelift optimisation level for `-O0`..`-O3`.
pub fn opt_level_name(level: u8) -> &'static str {
    match level {
        0 => "none",
        1 | 2 => "speed",
        _ => "speed_and_size",
    }
}

/// Builds the target ISA for a triple (`None`: this machine) at an opt
/// level, using the extensions of `level`.
pub fn make_isa(
    triple: Option<&str>,
    opt: u8,
    level: linker::isa::Level,
) -> std::result::Result<Arc<dyn TargetIsa>, String> {
    let arch = std::env::consts::ARCH;
    let os = std::env::consts::OS;
    let host = format!("{arch}-unknown-{os}{}", if os == "linux" { "-gnu" } else { "" });
    let t = triple.unwrap_or(&host).to_string();
    let parts: Vec<&str> = t.split('-').collect();
    let t_arch = parts.first().copied().unwrap_or("");
    let arch_ok = t_arch == arch || (arch == "x86_64" && t_arch == "x86-64");
    if !arch_ok || !t.contains(os) {
        return Err(format!(
            "cannot generate code for target '{t}': this popc produces code for '{host}' only (the machine that runs the tiles)"
        ));
    }
    let mut flags = settings::builder();
    flags.set("opt_level", opt_level_name(opt)).map_err(|e| e.to_string())?;
    flags.set("is_pic", "true").map_err(|e| e.to_string())?;
    // Cranelift's IR verifier runs between its passes (about a fifth of
    // compile time); the lowering's output is checked by it in debug
    // builds and tests, and trusted in release builds.
    flags
        .set("enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })
        .map_err(|e| e.to_string())?;
    let mut ib = isa::lookup_by_name(&host).map_err(|e| e.to_string())?;
    for f in level.features() {
        ib.enable(f.cranelift).map_err(|e| e.to_string())?;
    }
    ib.finish(settings::Flags::new(flags)).map_err(|e| e.to_string())
}

/// Code of one vertex type, and (with `want_ir`) its Cranelift IR text.
pub struct Compiled {
    pub plain: Function,
    pub counting: Function,
    pub returns_bool: bool,
    pub ir_text: String,
    /// Modelled bytes of tile stack one worker needs: see [`stack_estimate`].
    pub stack_size: u32,
}

/// Fixed bytes of a worker's frame (return state and saved registers).
const FRAME_BYTES: u32 = 32;

/// The tile stack a worker needs for `func`: its explicit stack slots (local
/// arrays, structs, printf argument blocks), each 8-byte aligned, plus a
/// fixed frame. Register spills are left out: they depend on the host's
/// register file, not the tile's.
fn stack_estimate(func: &ir::Function) -> u64 {
    let slots: u64 = func.sized_stack_slots.values().map(|s| u64::from(s.size.div_ceil(8)) * 8).sum();
    slots + u64::from(FRAME_BYTES)
}

/// One vertex type lowered to Cranelift IR, both variants, not yet
/// compiled: what [`emit`] takes, on any thread.
pub struct Lowered {
    /// The plain and counting entry functions (shared with the threads
    /// that compile them).
    funcs: [Arc<ir::Function>; 2],
    name: String,
    span: crate::diag::Span,
    pub returns_bool: bool,
    pub ir_text: String,
    pub stack_size: u32,
}

/// Lowers vertex class `c` (both variants) to Cranelift IR. Uses the
/// program's shared state, so it runs on the compiling thread.
pub fn lower(
    isa: &dyn TargetIsa,
    p: &Unit,
    src: &SourceMap,
    c: &Rc<ClassInst>,
    opts: &crate::Options,
) -> Result<Lowered> {
    let (debug, want_ir) = (opts.debug, opts.emit_ir);
    // SIMD loop copies only where the baseline ISA has 128-bit float
    // vectors (SSE on x86-64, Neon on AArch64); elsewhere loops stay scalar.
    let vectorize = opts.vectorize && cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));
    let mut funcs = Vec::new();
    let mut returns_bool = false;
    let mut ir_text = String::new();
    let mut stack_size = 0;
    for counting in [false, true] {
        let multi = c.base == Some(VertexBase::MultiVertex);
        let mut func =
            ir::Function::with_name_signature(UserFuncName::user(0, counting as u32), entry_signature(multi));
        let mut fctx = FunctionBuilderContext::new();
        let b = FunctionBuilder::new(&mut func, &mut fctx);
        let variant = Variant { counting, debug, vectorize, stop_checks: opts.stop_checks };
        returns_bool = Lowerer::lower_vertex(b, p, src, c, variant, isa.frontend_config())?;
        if want_ir && !counting {
            ir_text = format!("; vertex {}\n{}", c.name, func.display());
        }
        let stack = stack_estimate(&func);
        if stack > u64::from(crate::sema::MAX_OBJECT_SIZE) {
            return Err(Diagnostic::new(
                c.decl.ast.span,
                format!(
                    "vertex '{}' needs {stack} bytes of stack for its locals (the limit is {})",
                    c.name,
                    crate::sema::MAX_OBJECT_SIZE
                ),
            ));
        }
        stack_size = stack_size.max(stack as u32);
        funcs.push(func);
    }
    let counting = Arc::new(funcs.pop().unwrap());
    let plain = Arc::new(funcs.pop().unwrap());
    Ok(Lowered {
        funcs: [plain, counting],
        name: c.name.clone(),
        span: c.decl.ast.span,
        returns_bool,
        ir_text,
        stack_size,
    })
}

impl Lowered {
    /// The plain and counting entry functions, for [`emit_one`].
    pub fn funcs(&self) -> &[Arc<ir::Function>; 2] {
        &self.funcs
    }

    /// The vertex's code from its two compiled functions (plain, counting).
    pub fn finish(self, plain: Function, counting: Function) -> Compiled {
        let Lowered { returns_bool, ir_text, stack_size, .. } = self;
        Compiled { plain, counting, returns_bool, ir_text, stack_size }
    }

    /// Compiles function `i` (0 plain, 1 counting) of this vertex.
    pub fn emit(&self, isa: &dyn TargetIsa, i: usize, debug: bool) -> Result<Function> {
        emit_one(isa, &self.funcs[i], &self.name, self.span, debug)
    }

    /// The vertex's name and position, for errors about its code.
    pub fn origin(&self) -> (&str, crate::diag::Span) {
        (&self.name, self.span)
    }
}

/// Compiles one lowered function to machine code (`name` and `span` say
/// whose, for errors). Independent of every other function and of the
/// thread it runs on, so functions may be compiled in parallel with
/// byte-identical results, and two equal functions compile to the same
/// code.
pub fn emit_one(
    isa: &dyn TargetIsa,
    func: &ir::Function,
    name: &str,
    span: crate::diag::Span,
    debug: bool,
) -> Result<Function> {
    // Each thread keeps one Cranelift context (and its register
    // allocator's) across functions, as Cranelift advises: the
    // allocations are reused, the results are the same.
    let ctx = CONTEXT.with(|c| c.take());
    let mut ctx = ctx.unwrap_or_else(Context::new);
    ctx.clear();
    ctx.func = func.clone();
    let r = emit_function(isa, &mut ctx, name, span, debug);
    CONTEXT.with(|c| c.set(Some(ctx)));
    r
}

/// The distinct functions of one compilation, so that a function equal to
/// one already compiled (two instantiations whose code comes out the same,
/// such as `int` and `unsigned` for many operations) is compiled once.
/// Equal functions compile to the same code, so the object is the same as
/// when every function is compiled.
#[derive(Default)]
pub struct Distinct {
    /// Indices into `funcs` by the hash of their contents
    /// ([`FastHasher`]: equal hashes are only candidates, compared in
    /// full, so its quality decides no output; SipHash took a tenth of
    /// lowering's time over the tens of kilobytes of tables a function
    /// holds).
    by_hash: HashMap<u64, Vec<usize>>,
    funcs: Vec<Arc<ir::Function>>,
}

impl Distinct {
    /// The index of the function equal to `f`, and whether it is new
    /// (added by this call).
    pub fn add(&mut self, f: &Arc<ir::Function>) -> (usize, bool) {
        let mut h = FastHasher::default();
        f.stencil.hash(&mut h);
        let same = self.by_hash.entry(h.finish()).or_default();
        if let Some(&i) = same.iter().find(|&&i| *self.funcs[i] == **f) {
            return (i, false);
        }
        same.push(self.funcs.len());
        self.funcs.push(f.clone());
        (self.funcs.len() - 1, true)
    }
}

thread_local! {
    static CONTEXT: std::cell::Cell<Option<Context>> = const { std::cell::Cell::new(None) };
}

/// Machine code, relocations and (with `debug`) the line table of the
/// function in `ctx`.
fn emit_function(
    isa: &dyn TargetIsa,
    ctx: &mut Context,
    name: &str,
    span: crate::diag::Span,
    debug: bool,
) -> Result<Function> {
    {
        let code = ctx.compile(isa, &mut ControlPlane::default()).map_err(|e| {
            Diagnostic::new(span, format!("code generation failed for '{name}': {:?}", e.inner))
        })?;
        let bytes = code.code_buffer().to_vec();
        let mut relocs = Vec::new();
        for r in code.buffer.relocs() {
            let symbol = match &r.target {
                FinalizedRelocTarget::ExternalName(ir::ExternalName::LibCall(l)) => l.to_string(),
                other => {
                    return Err(Diagnostic::new(span, format!("unexpected relocation {other:?} in '{name}'")))
                }
            };
            relocs.push(Reloc { offset: r.offset, symbol, addend: r.addend });
        }
        let mut lines = Vec::new();
        if debug {
            for s in code.buffer.get_srclocs_sorted() {
                if !s.loc.is_default() {
                    let line = s.loc.bits();
                    if lines.last().is_none_or(|l: &(u32, u32)| l.1 != line) {
                        lines.push((s.start, line));
                    }
                }
            }
        }
        Ok(Function { code: bytes, relocs, lines })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linker::isa::Level;

    /// The ISA popc builds enables exactly the level's extensions: AVX2 at
    /// `x86-64-v3`, never at the baseline (whose objects must run on any
    /// x86-64-v2 processor).
    #[test]
    fn the_isa_has_the_level_extensions_only() {
        let flag = |isa: &dyn TargetIsa, name: &str| {
            isa.isa_flags().iter().find(|v| v.name == name).and_then(|v| v.as_bool()).unwrap_or(false)
        };
        for &level in Level::all() {
            let isa = make_isa(None, 2, level).unwrap();
            for f in Level::V3.features() {
                let want = level.features().any(|g| g.cranelift == f.cranelift);
                assert_eq!(flag(&*isa, f.cranelift), want, "{} at {}", f.cranelift, level.name());
            }
        }
    }
}
