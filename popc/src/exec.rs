//! Running compiled vertex code in process.
//!
//! [`Loaded`] copies a function's machine code into a fresh anonymous
//! mapping, patches its relocations with libcall addresses, and makes it
//! read + execute (never writable and executable at once).
//!
//! Safety argument: the code came from popc's own code generator for this
//! machine's ISA level (`linker::isa`; the `.gp` header checks it), it touches
//! memory only through `ctx.mem` plus an offset checked against
//! `ctx.mem_len`, its locals live in its own stack frame, and it calls only
//! the host table in `ctx` and the libcalls patched here. So calling it is
//! sound as long as `ctx.mem` points at `ctx.mem_len` writable bytes and
//! `ctx.host` at a complete [`linker::abi::HostTable`] — which [`run`]
//! guarantees by building the context from a `&mut [u8]`.

#![allow(unsafe_code)]

use linker::abi::{TileCtx, STATUS_OK};
use linker::gp::Function;
use memmap2::{Mmap, MmapMut};

/// A function's code mapped executable.
pub struct Loaded {
    map: Mmap,
    pub multi: bool,
    /// The tile address of its object's static storage, passed to the code
    /// as `TileCtx::statics` (0 until the caller places the storage,
    /// [`crate::state::place_statics`]).
    pub statics: u32,
}

impl Loaded {
    /// Maps `f`'s code; `multi` selects the MultiVertex signature.
    pub fn new(f: &Function, multi: bool) -> Result<Loaded, String> {
        let mut m = MmapMut::map_anon(f.code.len().max(1)).map_err(|e| format!("cannot map code: {e}"))?;
        m[..f.code.len()].copy_from_slice(&f.code);
        for r in &f.relocs {
            let addr = crate::host::libcall_address(&r.symbol)
                .ok_or_else(|| format!("unknown libcall '{}'", r.symbol))?;
            let v = (addr as i64).wrapping_add(r.addend) as u64;
            let at = r.offset as usize;
            if at + 8 > f.code.len() {
                return Err("relocation outside the code".into());
            }
            m[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
        let map = m.make_exec().map_err(|e| format!("cannot make code executable: {e}"))?;
        Ok(Loaded { map, multi, statics: 0 })
    }

    /// Calls the entry with a prepared context.
    ///
    /// # Safety
    /// `ctx.mem` must point at `ctx.mem_len` writable bytes and `ctx.host`
    /// at a complete host table, both live for the call.
    pub unsafe fn call(&self, ctx: &mut TileCtx, state: u32, worker: u32) -> u32 {
        let p = self.map.as_ptr();
        // SAFETY: the mapping holds a function with this ABI (module doc).
        unsafe {
            if self.multi {
                let f: extern "C" fn(*mut TileCtx, u32, u32) -> u32 = std::mem::transmute(p);
                f(ctx, state, worker)
            } else {
                let f: extern "C" fn(*mut TileCtx, u32) -> u32 = std::mem::transmute(p);
                f(ctx, state)
            }
        }
    }
}

/// What one call did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    pub status: u32,
    pub count: u64,
    pub trap_addr: u64,
    pub trap_line: u32,
    pub printed: Vec<u8>,
    /// The tile's random draws after the call (`TileCtx::draws`).
    pub draws: u64,
}

/// The stop word of in-process runs: never set.
static NEVER: u32 = 0;

/// Runs a loaded vertex once on tile memory `mem` with state at `state`,
/// as tile 0 whose random generator has made no draws.
pub fn run(code: &Loaded, mem: &mut [u8], state: u32, worker: u32) -> RunResult {
    run_from(code, mem, state, worker, 0)
}

/// [`run`] with the tile's random generator at draw `draws`. The cycle
/// counter (`__builtin_ipu_get_scount_l/_u`) starts at 0 and, in the
/// counting variant, goes up [`linker::abi::MULTIVERTEX_WORKERS`] cycles
/// per counted instruction, as on `sim` with six worker contexts.
pub fn run_from(code: &Loaded, mem: &mut [u8], state: u32, worker: u32, draws: u64) -> RunResult {
    let mut printed: Vec<u8> = Vec::new();
    let mut ctx = TileCtx {
        mem: mem.as_mut_ptr(),
        mem_len: mem.len() as u64,
        host: crate::host::host_table(),
        count: 0,
        trap_addr: 0,
        trap_line: 0,
        tile: 0,
        host_data: &mut printed as *mut Vec<u8> as *mut std::ffi::c_void,
        stop: &NEVER,
        budget: u64::MAX,
        cycles: 0,
        cycles_per_count: u64::from(linker::abi::MULTIVERTEX_WORKERS),
        draws,
        statics: code.statics,
    };
    // SAFETY: ctx is built from a live &mut [u8] and the static host table.
    let status = unsafe { code.call(&mut ctx, state, worker) };
    RunResult {
        status,
        count: ctx.count,
        trap_addr: ctx.trap_addr,
        trap_line: ctx.trap_line,
        printed,
        draws: ctx.draws,
    }
}

/// Runs a vertex the way the runtime does: once, or once per worker for a
/// MultiVertex (stopping at the first non-OK status), the workers' random
/// draws following one another.
pub fn run_vertex(code: &Loaded, mem: &mut [u8], state: u32) -> RunResult {
    if !code.multi {
        return run(code, mem, state, 0);
    }
    let mut total =
        RunResult { status: STATUS_OK, count: 0, trap_addr: 0, trap_line: 0, printed: Vec::new(), draws: 0 };
    for w in 0..linker::abi::MULTIVERTEX_WORKERS {
        let r = run_from(code, mem, state, w, total.draws);
        total.count += r.count;
        total.draws = r.draws;
        total.printed.extend(r.printed);
        if r.status != STATUS_OK {
            total.status = r.status;
            total.trap_addr = r.trap_addr;
            total.trap_line = r.trap_line;
            break;
        }
    }
    total
}
