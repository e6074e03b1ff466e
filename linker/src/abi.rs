//! The codelet ABI: what `popc`'s generated code and the runtime agree on.
//!
//! Every vertex type compiles to one entry function per code variant:
//!
//! ```text
//! extern "C" fn(ctx: *mut TileCtx, state: u32) -> u32              // Vertex, SupervisorVertex
//! extern "C" fn(ctx: *mut TileCtx, state: u32, worker: u32) -> u32 // MultiVertex
//! ```
//!
//! `state` is the tile address of the vertex's state (its fields in
//! declaration order, see [`crate::gp`]). The code touches memory only as
//! `ctx.mem + offset` after checking `offset + size <= ctx.mem_len`; a failed
//! check stores the offset in `ctx.trap_addr` and returns [`STATUS_OUT_OF_BOUNDS`].
//! Host helpers (maths the ISA lacks, `printf`) are called through
//! `ctx.host`, a table indexed by [`HostFn`], so code needs no patching for
//! them. The counting variant adds each basic block's instruction cost to
//! `ctx.count` (see `popc`'s cost table). A misaligned access of a scalar
//! of 2, 4 or 8 bytes (its tile address not a multiple of its size) stores
//! the offset and returns [`STATUS_MISALIGNED`], as the IPU's loads and
//! stores trap.
//!
//! Two pieces of tile state outlive a call and are kept by the runtime per
//! tile: the random generator's draw counter (`draws`, advanced by the
//! `__builtin_ipu_urand*` host functions, [`crate::host::tile_random`]) and
//! the modelled cycle counter behind `__builtin_ipu_get_scount_l/_u`
//! (`cycles` when the call began, plus `cycles_per_count` per instruction
//! the counting variant has counted in the call so far).
//!
//! The layout of [`TileCtx`] is fixed by `#[repr(C)]` and the offsets below;
//! generated code uses the offsets, so a change here is a format change.

use std::ffi::c_void;

/// The compute function returned normally (true, or `void`).
pub const STATUS_OK: u32 = 0;

/// A `MultiVertex`'s `numWorkers()`: the IPU's six worker contexts, on
/// every target. Its `compute(workerId)` runs once for each id below this;
/// a target with `W` worker contexts runs them on contexts `id % W`.
pub const MULTIVERTEX_WORKERS: u32 = 6;
/// `compute` returned `false`.
pub const STATUS_FALSE: u32 = 1;
/// A load or store outside the tile's memory; `trap_addr` holds the offset.
pub const STATUS_OUT_OF_BOUNDS: u32 = 2;
/// Integer division or remainder by zero.
pub const STATUS_DIV_BY_ZERO: u32 = 3;
/// `assert(cond)` failed.
pub const STATUS_ASSERT: u32 = 4;
/// A misaligned access (an element address not a multiple of its size).
pub const STATUS_MISALIGNED: u32 = 5;
/// Control reached the end of a function that returns a value (a
/// `bool compute()` or a helper) without a `return`: undefined in C++.
pub const STATUS_NO_RETURN: u32 = 6;
/// Signed integer division or remainder that overflows (`INT_MIN / -1`).
pub const STATUS_DIV_OVERFLOW: u32 = 7;
/// The codelet called `exit` or `abort` (PopLibs does in code paths it has
/// only for the IPU itself).
pub const STATUS_EXIT: u32 = 8;
/// The runtime set `*stop` (a time limit passed); checked at every loop's
/// back edge.
pub const STATUS_INTERRUPTED: u32 = 9;
/// The counting variant counted more than `budget` instructions in this
/// call: the run would pass `--max-cycles` within this vertex.
pub const STATUS_CYCLE_LIMIT: u32 = 10;
/// An index into a local array or a vector-type object (`float2`) outside
/// its element count; `trap_addr` holds the index.
pub const STATUS_INDEX: u32 = 11;

/// Human words for a status code, for run-time errors.
pub fn describe_status(status: u32) -> &'static str {
    match status {
        STATUS_OK => "ok",
        STATUS_FALSE => "compute returned false",
        STATUS_OUT_OF_BOUNDS => "memory access outside the tile",
        STATUS_DIV_BY_ZERO => "integer division by zero",
        STATUS_ASSERT => "assertion failed",
        STATUS_MISALIGNED => "misaligned memory access",
        STATUS_NO_RETURN => "control reached the end of a function that returns a value",
        STATUS_DIV_OVERFLOW => "integer division overflow (the most negative value divided by -1)",
        STATUS_EXIT => "the codelet called exit or abort",
        STATUS_INTERRUPTED => "interrupted: the run's --timeout passed while it was running",
        STATUS_CYCLE_LIMIT => "stopped: the run passes --max-cycles within this vertex",
        STATUS_INDEX => "index out of range of a local array or vector",
        _ => "unknown trap",
    }
}

/// The per-call context. Generated code reads and writes it through the
/// `OFFSET_*` constants; the runtime owns it.
#[repr(C)]
#[derive(Debug)]
pub struct TileCtx {
    /// Host address of tile address 0.
    pub mem: *mut u8,
    /// Accessible bytes: an access of `n` bytes at `a` is valid iff `a + n <= mem_len`.
    pub mem_len: u64,
    /// Host-function table, indexed by [`HostFn`].
    pub host: *const HostTable,
    /// Instruction counter, increased by the counting variant.
    pub count: u64,
    /// Offset of the access that trapped ([`STATUS_OUT_OF_BOUNDS`], [`STATUS_MISALIGNED`]).
    pub trap_addr: u64,
    /// Source line of the trapping operation when compiled with `-g`, else 0.
    pub trap_line: u32,
    /// The tile's number, for helpers that report.
    pub tile: u32,
    /// Opaque to generated code: the runtime's per-call data (printf output).
    pub host_data: *mut c_void,
    /// Never null: a word the runtime sets non-zero to stop running code;
    /// generated code reads it at every loop's back edge and returns
    /// [`STATUS_INTERRUPTED`].
    pub stop: *const u32,
    /// Instructions the counting variant may count in this call before it
    /// returns [`STATUS_CYCLE_LIMIT`] (checked with `stop`); `u64::MAX`
    /// for no limit.
    pub budget: u64,
    /// The tile's cycle counter when this call began, as
    /// `__builtin_ipu_get_scount_l/_u` read it: on `sim`, the run's
    /// modelled cycles when the compute set began plus the cycles this
    /// call's worker context had used in it; 0 on `cpu`.
    pub cycles: u64,
    /// Tile cycles per instruction the counting variant counts: the
    /// target's worker contexts on `sim` (each issues once in that many
    /// cycles); 0 on `cpu`, where the counter stands still.
    pub cycles_per_count: u64,
    /// Draws the tile's random generator has made so far: the host
    /// functions behind `__builtin_ipu_urand*` read draw `draws` and add
    /// one. The runtime keeps it per tile from call to call.
    pub draws: u64,
    /// Tile address of the static storage of the called vertex type's
    /// codelet object (its non-constant static data members): the same
    /// address on every tile, each tile holding its own copy. The runtime
    /// sets it before each call; 0 when the object has none.
    pub statics: u32,
}

pub const OFFSET_MEM: i32 = 0;
pub const OFFSET_MEM_LEN: i32 = 8;
pub const OFFSET_HOST: i32 = 16;
pub const OFFSET_COUNT: i32 = 24;
pub const OFFSET_TRAP_ADDR: i32 = 32;
pub const OFFSET_TRAP_LINE: i32 = 40;
pub const OFFSET_TILE: i32 = 44;
pub const OFFSET_HOST_DATA: i32 = 48;
pub const OFFSET_STOP: i32 = 56;
pub const OFFSET_BUDGET: i32 = 64;
pub const OFFSET_CYCLES: i32 = 72;
pub const OFFSET_CYCLES_PER_COUNT: i32 = 80;
pub const OFFSET_DRAWS: i32 = 88;
pub const OFFSET_STATICS: i32 = 96;

/// Host functions reachable from codelet code, in table order. Unary and
/// binary maths take and return the named float type (`F32*` in `float`,
/// `F64*` in `double`), all `extern "C"`. [`HostFn::Printf`] is
/// `extern "C" fn(ctx: *mut TileCtx, fmt: *const u8, fmt_len: u32, args: *const u64, nargs: u32)`:
/// `fmt` points at the format string's bytes (the caller builds them on its
/// stack), each argument is one `u64` after C's default promotions
/// (integers sign- or zero-extended, floats as the bits of a `double`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HostFn {
    F32Exp,
    F32Log,
    F32Log1p,
    F32Expm1,
    F32Sin,
    F32Cos,
    F32Tan,
    F32Tanh,
    F32Erf,
    F32Pow,
    F32Atan2,
    F32Fmod,
    F32Fma,
    F64Exp,
    F64Log,
    F64Log1p,
    F64Expm1,
    F64Sin,
    F64Cos,
    F64Tan,
    F64Tanh,
    F64Erf,
    F64Pow,
    F64Atan2,
    F64Fmod,
    F64Fma,
    F32Exp2,
    F32Log2,
    F32Log10,
    F32Asin,
    F32Acos,
    F32Atan,
    F32Sinh,
    F32Cosh,
    F32Cbrt,
    F32Round,
    F64Exp2,
    F64Log2,
    F64Log10,
    F64Asin,
    F64Acos,
    F64Atan,
    F64Sinh,
    F64Cosh,
    F64Cbrt,
    F64Round,
    Printf,
    /// `extern "C" fn(bits: u32, f143: u32, scale: i32) -> f32`: a
    /// `quarter`'s value ([`crate::quarter::to_f32`]).
    QuarterToF32,
    /// `extern "C" fn(x: f32, f143: u32, scale: i32, nanoo: u32) -> u32`:
    /// a float as a `quarter` ([`crate::quarter::from_f32`]).
    F32ToQuarter,
    /// `extern "C" fn(ctx: *mut TileCtx) -> u32`: `__builtin_ipu_urand32`,
    /// the low 32 bits of the tile's next draw ([`crate::host::tile_random`]).
    Urand32,
    /// `extern "C" fn(ctx: *mut TileCtx) -> u64`: `__builtin_ipu_urand64`,
    /// the tile's next draw.
    Urand64,
    /// `extern "C" fn(ctx: *mut TileCtx) -> f32`: `__builtin_ipu_urand_f32`,
    /// uniform in [-0.5, 0.5) from the tile's next draw.
    UrandF32,
    /// `extern "C" fn(ctx: *mut TileCtx) -> u64`: `__builtin_ipu_f32v2grand`,
    /// two standard normal floats from the tile's next draw, the first in
    /// the low 32 bits.
    F32v2Grand,
}

/// Number of entries in [`HostTable`].
pub const HOST_FN_COUNT: usize = HostFn::F32v2Grand as usize + 1;

impl HostFn {
    /// Byte offset of this function's pointer in [`HostTable`].
    pub fn table_offset(self) -> i32 {
        self as i32 * 8
    }
}

/// The host-function table: one function pointer per [`HostFn`].
#[repr(C)]
pub struct HostTable {
    pub fns: [*const c_void; HOST_FN_COUNT],
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn offsets_match_layout() {
        assert_eq!(offset_of!(TileCtx, mem) as i32, OFFSET_MEM);
        assert_eq!(offset_of!(TileCtx, mem_len) as i32, OFFSET_MEM_LEN);
        assert_eq!(offset_of!(TileCtx, host) as i32, OFFSET_HOST);
        assert_eq!(offset_of!(TileCtx, count) as i32, OFFSET_COUNT);
        assert_eq!(offset_of!(TileCtx, trap_addr) as i32, OFFSET_TRAP_ADDR);
        assert_eq!(offset_of!(TileCtx, trap_line) as i32, OFFSET_TRAP_LINE);
        assert_eq!(offset_of!(TileCtx, tile) as i32, OFFSET_TILE);
        assert_eq!(offset_of!(TileCtx, host_data) as i32, OFFSET_HOST_DATA);
        assert_eq!(offset_of!(TileCtx, stop) as i32, OFFSET_STOP);
        assert_eq!(offset_of!(TileCtx, budget) as i32, OFFSET_BUDGET);
        assert_eq!(offset_of!(TileCtx, cycles) as i32, OFFSET_CYCLES);
        assert_eq!(offset_of!(TileCtx, cycles_per_count) as i32, OFFSET_CYCLES_PER_COUNT);
        assert_eq!(offset_of!(TileCtx, draws) as i32, OFFSET_DRAWS);
        assert_eq!(offset_of!(TileCtx, statics) as i32, OFFSET_STATICS);
    }
}
