//! The host side of the codelet ABI: the host-function table that codelet
//! code calls through `TileCtx.host` (maths the generated code does not
//! inline, and `printf`), and the allowlist of libcall symbols the loader
//! may patch into the code segment.
//!
//! Both come from `linker::host`, below popc and the runtime, so code
//! behaves the same under `popc`'s own tests and here. Its `printf` appends to the `Vec<u8>` that
//! `TileCtx.host_data` points at; the devices give each tile its own buffer
//! and join them in tile order, so output is deterministic whatever the
//! thread count.

#![allow(unsafe_code)]

use linker::abi::HostTable;

/// The table, built once.
pub fn table() -> *const HostTable {
    linker::host::host_table()
}

/// The libcall symbols the loader resolves; any other is a load error.
pub const LIBCALLS: &[&str] = &[
    "fmaf",
    "fma",
    "ceilf",
    "ceil",
    "floorf",
    "floor",
    "truncf",
    "trunc",
    "nearbyintf",
    "nearbyint",
    "memcpy",
    "memmove",
    "memset",
    // Cranelift's own names for the same libcalls.
    "FmaF32",
    "FmaF64",
    "CeilF32",
    "CeilF64",
    "FloorF32",
    "FloorF64",
    "TruncF32",
    "TruncF64",
    "NearestF32",
    "NearestF64",
    "Memcpy",
    "Memmove",
    "Memset",
];

/// The address of an allowed libcall symbol; `None` for anything else.
pub fn libcall(symbol: &str) -> Option<usize> {
    if !LIBCALLS.contains(&symbol) {
        return None;
    }
    match symbol {
        "memcpy" | "memmove" | "Memcpy" | "Memmove" => Some(memmove as *const () as usize),
        "memset" | "Memset" => Some(memset as *const () as usize),
        _ => linker::host::libcall_address(symbol),
    }
}

/// `memmove` (also serving `memcpy`) for generated code.
///
/// # Safety
/// Called by generated code with ranges inside tile memory it has checked.
unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: per the contract.
    unsafe { std::ptr::copy(src, dst, n) };
    dst
}

/// `memset` for generated code.
///
/// # Safety
/// As for [`memmove`].
unsafe extern "C" fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8 {
    // SAFETY: per the contract.
    unsafe { std::ptr::write_bytes(dst, c as u8, n) };
    dst
}
