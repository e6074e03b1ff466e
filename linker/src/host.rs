//! The host functions of `linker::abi::HostTable`, for in-process execution.
//!
//! Maths goes through Rust's `f32`/`f64` methods and, for `erf`, which
//! Rust's standard library lacks, the C functions `erff`/`erf`: all the
//! platform libm, the same one C++ code on this machine calls (the `libm`
//! crate's `erff` differs from glibc's by an ulp on some inputs, which
//! `(1 + erf(x)) * x` near `erf(x) = -1` turns into tens). `printf`
//! formats with [`crate::printf`] and appends to the `Vec<u8>` that
//! `TileCtx::host_data` points at (nothing when it is null), up to
//! [`PRINTF_LIMIT`] bytes: past that it appends nothing more, and the
//! runtime, seeing a full buffer, stops the run with an error.
//!
//! The `__builtin_ipu_urand*` and `__builtin_ipu_f32v2grand` built-ins
//! read the tile's random generator ([`tile_random`]): a counter-based
//! generator keyed by the tile's number and its draw counter, which the
//! context carries (`TileCtx::draws`) and the runtime keeps per tile. So
//! the numbers a tile draws depend only on the tile and how many it drew
//! before: the same on `sim` and `cpu`, on any thread count, in every run.

#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::OnceLock;

use crate::abi::{HostFn, HostTable, TileCtx, HOST_FN_COUNT};

// The platform libm's error functions (Rust's `std` links it).
extern "C" {
    fn erff(x: f32) -> f32;
    fn erf(x: f64) -> f64;
}
fn platform_erff(x: f32) -> f32 {
    // SAFETY: a pure C maths function of one value.
    unsafe { erff(x) }
}
fn platform_erf(x: f64) -> f64 {
    // SAFETY: as above.
    unsafe { erf(x) }
}

macro_rules! unary {
    ($name:ident, $t:ty, $f:expr) => {
        extern "C" fn $name(x: $t) -> $t {
            let f: fn($t) -> $t = $f;
            f(x)
        }
    };
}
macro_rules! binary {
    ($name:ident, $t:ty, $f:expr) => {
        extern "C" fn $name(x: $t, y: $t) -> $t {
            let f: fn($t, $t) -> $t = $f;
            f(x, y)
        }
    };
}

unary!(f32_exp, f32, f32::exp);
unary!(f32_log, f32, f32::ln);
unary!(f32_log1p, f32, f32::ln_1p);
unary!(f32_expm1, f32, f32::exp_m1);
unary!(f32_sin, f32, f32::sin);
unary!(f32_cos, f32, f32::cos);
unary!(f32_tan, f32, f32::tan);
unary!(f32_tanh, f32, f32::tanh);
unary!(f32_erf, f32, platform_erff);
binary!(f32_pow, f32, f32::powf);
binary!(f32_atan2, f32, f32::atan2);
binary!(f32_fmod, f32, |a, b| a % b);
extern "C" fn f32_fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}
unary!(f64_exp, f64, f64::exp);
unary!(f64_log, f64, f64::ln);
unary!(f64_log1p, f64, f64::ln_1p);
unary!(f64_expm1, f64, f64::exp_m1);
unary!(f64_sin, f64, f64::sin);
unary!(f64_cos, f64, f64::cos);
unary!(f64_tan, f64, f64::tan);
unary!(f64_tanh, f64, f64::tanh);
unary!(f64_erf, f64, platform_erf);
binary!(f64_pow, f64, f64::powf);
binary!(f64_atan2, f64, f64::atan2);
binary!(f64_fmod, f64, |a, b| a % b);
extern "C" fn f64_fma(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}
unary!(f32_exp2, f32, f32::exp2);
unary!(f32_log2, f32, f32::log2);
unary!(f32_log10, f32, f32::log10);
unary!(f32_asin, f32, f32::asin);
unary!(f32_acos, f32, f32::acos);
unary!(f32_atan, f32, f32::atan);
unary!(f32_sinh, f32, f32::sinh);
unary!(f32_cosh, f32, f32::cosh);
unary!(f32_cbrt, f32, f32::cbrt);
unary!(f32_round, f32, f32::round);
unary!(f64_exp2, f64, f64::exp2);
unary!(f64_log2, f64, f64::log2);
unary!(f64_log10, f64, f64::log10);
unary!(f64_asin, f64, f64::asin);
unary!(f64_acos, f64, f64::acos);
unary!(f64_atan, f64, f64::atan);
unary!(f64_sinh, f64, f64::sinh);
unary!(f64_cosh, f64, f64::cosh);
unary!(f64_cbrt, f64, f64::cbrt);
unary!(f64_round, f64, f64::round);

/// `HostFn::Printf`: formats into the `Vec<u8>` at `ctx.host_data`.
///
/// # Safety
/// Called only by generated code: `ctx` is the live context of the call,
/// `fmt` points at `fmt_len` bytes and `args` at `nargs` words, both on the
/// generated function's own stack; `host_data` is null or a `*mut Vec<u8>`.
pub unsafe extern "C" fn printf(
    ctx: *mut TileCtx,
    fmt: *const u8,
    fmt_len: u32,
    args: *const u64,
    nargs: u32,
) {
    // SAFETY: see the function's contract above.
    unsafe {
        let Some(ctx) = ctx.as_mut() else { return };
        if ctx.host_data.is_null() {
            return;
        }
        let fmt = std::slice::from_raw_parts(fmt, fmt_len as usize);
        let args = std::slice::from_raw_parts(args, nargs as usize);
        let out = &mut *(ctx.host_data as *mut Vec<u8>);
        if out.len() < PRINTF_LIMIT {
            crate::printf::format(fmt, args, out);
        }
    }
}

/// The seed of every tile's random generator (fixed: each run of an image
/// draws the same numbers).
pub const RANDOM_SEED: u64 = 0x706f_706c_6172_2d72;

/// SplitMix64's output function (Steele, Lea and Flood, 2014): a bijection
/// of 64-bit words that mixes every input bit into every output bit.
fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Draw number `draw` (from 0) of tile `tile`'s random generator: SplitMix64
/// started from a seed of the tile's own, `mix64(RANDOM_SEED + tile)`,
/// that is `mix64(seed + (draw + 1) * 0x9e3779b97f4a7c15)`. Computed from
/// the counter alone, so no state but the counter is kept.
pub fn tile_random(tile: u32, draw: u64) -> u64 {
    const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
    let seed = mix64(RANDOM_SEED.wrapping_add(u64::from(tile)));
    mix64(seed.wrapping_add(draw.wrapping_add(1).wrapping_mul(GAMMA)))
}

/// `__builtin_ipu_urand_f32` of draw `r`: its top 24 bits as a multiple of
/// 2^-24 in [-0.5, 0.5), every one of the 2^24 values equally likely.
pub fn uniform_f32(r: u64) -> f32 {
    ((r >> 40) as i32 - (1 << 23)) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// `__builtin_ipu_f32v2grand` of draw `r`: two independent standard normal
/// values (mean 0, standard deviation 1) by the Box-Muller transform of
/// `u1 = (bits 40..63 + 1) / 2^24` in (0, 1] and `u2 = bits 8..31 / 2^24`,
/// computed in `double` with the `libm` crate (the same bits on every
/// host) and rounded to `float`.
pub fn gaussian_f32x2(r: u64) -> [f32; 2] {
    let scale = 1.0 / f64::from(1u32 << 24);
    let u1 = ((r >> 40) + 1) as f64 * scale;
    let u2 = ((r >> 8) & 0xff_ffff) as f64 * scale;
    let radius = libm::sqrt(-2.0 * libm::log(u1));
    let theta = 2.0 * std::f64::consts::PI * u2;
    [(radius * libm::cos(theta)) as f32, (radius * libm::sin(theta)) as f32]
}

/// The tile's next draw, counted.
///
/// # Safety
/// `ctx` is the live context of the call (generated code passes its own).
unsafe fn next_draw(ctx: *mut TileCtx) -> u64 {
    // SAFETY: per the contract.
    let ctx = unsafe { &mut *ctx };
    let r = tile_random(ctx.tile, ctx.draws);
    ctx.draws = ctx.draws.wrapping_add(1);
    r
}

/// `HostFn::Urand32`.
///
/// # Safety
/// As [`next_draw`].
unsafe extern "C" fn urand32(ctx: *mut TileCtx) -> u32 {
    // SAFETY: as the caller's.
    unsafe { next_draw(ctx) as u32 }
}

/// `HostFn::Urand64`.
///
/// # Safety
/// As [`next_draw`].
unsafe extern "C" fn urand64(ctx: *mut TileCtx) -> u64 {
    // SAFETY: as the caller's.
    unsafe { next_draw(ctx) }
}

/// `HostFn::UrandF32`.
///
/// # Safety
/// As [`next_draw`].
unsafe extern "C" fn urand_f32(ctx: *mut TileCtx) -> f32 {
    // SAFETY: as the caller's.
    uniform_f32(unsafe { next_draw(ctx) })
}

/// `HostFn::F32v2Grand`: the pair's bits, the first value low.
///
/// # Safety
/// As [`next_draw`].
unsafe extern "C" fn f32v2grand(ctx: *mut TileCtx) -> u64 {
    // SAFETY: as the caller's.
    let [a, b] = gaussian_f32x2(unsafe { next_draw(ctx) });
    u64::from(a.to_bits()) | u64::from(b.to_bits()) << 32
}

/// Most `printf` output one buffer collects (the runtime gives each tile
/// one per compute set): 1 MiB. One call may pass it by a line of at most a
/// few KiB (widths and precisions are capped at 4,096).
pub const PRINTF_LIMIT: usize = 1 << 20;

struct SyncTable(HostTable);
// SAFETY: the table holds addresses of functions, immutable once built.
unsafe impl Sync for SyncTable {}
unsafe impl Send for SyncTable {}

/// The table of every host function, in `HostFn` order.
pub fn host_table() -> &'static HostTable {
    static TABLE: OnceLock<SyncTable> = OnceLock::new();
    &TABLE
        .get_or_init(|| {
            let mut fns = [std::ptr::null::<c_void>(); HOST_FN_COUNT];
            let u32f = |f: extern "C" fn(f32) -> f32| f as *const c_void;
            let b32f = |f: extern "C" fn(f32, f32) -> f32| f as *const c_void;
            let u64f = |f: extern "C" fn(f64) -> f64| f as *const c_void;
            let b64f = |f: extern "C" fn(f64, f64) -> f64| f as *const c_void;
            use HostFn::*;
            let entries: [(HostFn, *const c_void); HOST_FN_COUNT] = [
                (F32Exp, u32f(f32_exp)),
                (F32Log, u32f(f32_log)),
                (F32Log1p, u32f(f32_log1p)),
                (F32Expm1, u32f(f32_expm1)),
                (F32Sin, u32f(f32_sin)),
                (F32Cos, u32f(f32_cos)),
                (F32Tan, u32f(f32_tan)),
                (F32Tanh, u32f(f32_tanh)),
                (F32Erf, u32f(f32_erf)),
                (F32Pow, b32f(f32_pow)),
                (F32Atan2, b32f(f32_atan2)),
                (F32Fmod, b32f(f32_fmod)),
                (F32Fma, f32_fma as extern "C" fn(f32, f32, f32) -> f32 as *const c_void),
                (F64Exp, u64f(f64_exp)),
                (F64Log, u64f(f64_log)),
                (F64Log1p, u64f(f64_log1p)),
                (F64Expm1, u64f(f64_expm1)),
                (F64Sin, u64f(f64_sin)),
                (F64Cos, u64f(f64_cos)),
                (F64Tan, u64f(f64_tan)),
                (F64Tanh, u64f(f64_tanh)),
                (F64Erf, u64f(f64_erf)),
                (F64Pow, b64f(f64_pow)),
                (F64Atan2, b64f(f64_atan2)),
                (F64Fmod, b64f(f64_fmod)),
                (F64Fma, f64_fma as extern "C" fn(f64, f64, f64) -> f64 as *const c_void),
                (F32Exp2, u32f(f32_exp2)),
                (F32Log2, u32f(f32_log2)),
                (F32Log10, u32f(f32_log10)),
                (F32Asin, u32f(f32_asin)),
                (F32Acos, u32f(f32_acos)),
                (F32Atan, u32f(f32_atan)),
                (F32Sinh, u32f(f32_sinh)),
                (F32Cosh, u32f(f32_cosh)),
                (F32Cbrt, u32f(f32_cbrt)),
                (F32Round, u32f(f32_round)),
                (F64Exp2, u64f(f64_exp2)),
                (F64Log2, u64f(f64_log2)),
                (F64Log10, u64f(f64_log10)),
                (F64Asin, u64f(f64_asin)),
                (F64Acos, u64f(f64_acos)),
                (F64Atan, u64f(f64_atan)),
                (F64Sinh, u64f(f64_sinh)),
                (F64Cosh, u64f(f64_cosh)),
                (F64Cbrt, u64f(f64_cbrt)),
                (F64Round, u64f(f64_round)),
                (
                    Printf,
                    printf as unsafe extern "C" fn(*mut TileCtx, *const u8, u32, *const u64, u32)
                        as *const c_void,
                ),
                (
                    QuarterToF32,
                    crate::quarter::host_quarter_to_f32 as extern "C" fn(u32, u32, i32) -> f32
                        as *const c_void,
                ),
                (
                    F32ToQuarter,
                    crate::quarter::host_f32_to_quarter as extern "C" fn(f32, u32, i32, u32) -> u32
                        as *const c_void,
                ),
                (Urand32, urand32 as unsafe extern "C" fn(*mut TileCtx) -> u32 as *const c_void),
                (Urand64, urand64 as unsafe extern "C" fn(*mut TileCtx) -> u64 as *const c_void),
                (UrandF32, urand_f32 as unsafe extern "C" fn(*mut TileCtx) -> f32 as *const c_void),
                (F32v2Grand, f32v2grand as unsafe extern "C" fn(*mut TileCtx) -> u64 as *const c_void),
            ];
            for (f, p) in entries {
                fns[f as usize] = p;
            }
            SyncTable(HostTable { fns })
        })
        .0
}

/// Address of a Cranelift libcall by its symbol name, for relocations.
pub fn libcall_address(symbol: &str) -> Option<usize> {
    extern "C" fn ceilf(x: f32) -> f32 {
        x.ceil()
    }
    extern "C" fn floorf(x: f32) -> f32 {
        x.floor()
    }
    extern "C" fn truncf(x: f32) -> f32 {
        x.trunc()
    }
    extern "C" fn nearbyintf(x: f32) -> f32 {
        x.round_ties_even()
    }
    extern "C" fn ceil(x: f64) -> f64 {
        x.ceil()
    }
    extern "C" fn floor(x: f64) -> f64 {
        x.floor()
    }
    extern "C" fn trunc(x: f64) -> f64 {
        x.trunc()
    }
    extern "C" fn nearbyint(x: f64) -> f64 {
        x.round_ties_even()
    }
    Some(match symbol {
        "CeilF32" | "ceilf" => ceilf as extern "C" fn(f32) -> f32 as usize,
        "FloorF32" | "floorf" => floorf as extern "C" fn(f32) -> f32 as usize,
        "TruncF32" | "truncf" => truncf as extern "C" fn(f32) -> f32 as usize,
        "NearestF32" | "nearbyintf" => nearbyintf as extern "C" fn(f32) -> f32 as usize,
        "CeilF64" | "ceil" => ceil as extern "C" fn(f64) -> f64 as usize,
        "FloorF64" | "floor" => floor as extern "C" fn(f64) -> f64 as usize,
        "TruncF64" | "trunc" => trunc as extern "C" fn(f64) -> f64 as usize,
        "NearestF64" | "nearbyint" => nearbyint as extern "C" fn(f64) -> f64 as usize,
        "FmaF32" | "fmaf" => f32_fma as extern "C" fn(f32, f32, f32) -> f32 as usize,
        "FmaF64" | "fma" => f64_fma as extern "C" fn(f64, f64, f64) -> f64 as usize,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_is_a_function_of_tile_and_draw() {
        assert_eq!(tile_random(3, 7), tile_random(3, 7));
        assert_ne!(tile_random(3, 7), tile_random(4, 7));
        assert_ne!(tile_random(3, 7), tile_random(3, 8));
        // Pinned (as testdata/popc/ok/ipu_builtins.out prints them): a
        // change here changes every run's numbers.
        assert_eq!(tile_random(0, 0) as u32, 1_785_230_103);
        assert_eq!(tile_random(0, 3), 10_811_916_946_686_418_059);
    }

    #[test]
    fn uniform_range_and_ends() {
        assert_eq!(uniform_f32(0), -0.5);
        assert_eq!(uniform_f32(u64::MAX), 0.5 - 1.0 / (1u32 << 24) as f32);
        let n = 100_000u64;
        let mean = (0..n).map(|i| f64::from(uniform_f32(tile_random(1, i)))).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.005, "mean {mean}");
    }

    #[test]
    fn gaussian_moments() {
        let n = 100_000u64;
        let xs: Vec<f64> = (0..n).flat_map(|i| gaussian_f32x2(tile_random(2, i))).map(f64::from).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / xs.len() as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
        assert!(xs.iter().all(|x| x.is_finite()));
        // u1 = 1 at the top: radius 0.
        assert_eq!(gaussian_f32x2(u64::MAX)[0].abs(), 0.0);
    }

    #[test]
    fn draws_advance_the_context() {
        let mut ctx = TileCtx {
            mem: std::ptr::null_mut(),
            mem_len: 0,
            host: host_table(),
            count: 0,
            trap_addr: 0,
            trap_line: 0,
            tile: 5,
            host_data: std::ptr::null_mut(),
            stop: std::ptr::null(),
            budget: u64::MAX,
            cycles: 0,
            cycles_per_count: 0,
            draws: 0,
            statics: 0,
        };
        // SAFETY: a live context.
        let (a, b) = unsafe { (urand64(&mut ctx), urand32(&mut ctx)) };
        assert_eq!(a, tile_random(5, 0));
        assert_eq!(b, tile_random(5, 1) as u32);
        assert_eq!(ctx.draws, 2);
    }
}
