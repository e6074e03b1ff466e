//! libpoplar: the C ABI (`sdk/include/poplar/capi.h`) under the
//! header-only C++ host API, so that a Poplar program builds unchanged
//! with `g++ prog.cpp -lpoplar` and runs on this toolchain.
//!
//! The C++ classes (`poplar::Graph`, `Tensor`, `program::Sequence`,
//! `Engine`, …) hold opaque handles to the types here and call one
//! `extern "C"` function per operation. Each returns a status code
//! ([`status::Status`], one per Poplar exception class) and leaves its
//! message for `prs_last_error`; a panic is caught and reported as an
//! internal error, never unwound into C++.
//!
//! Graphs are built with [`ir::builder::Builder`], the builder the PIR
//! lowering's checks share; `Engine` compiles with [`compiler::compile`]
//! in process (no PIR text is printed or parsed) and runs with
//! [`runtime::Engine`].
//!
//! What it never does: print to the process's stdout itself (text a program
//! prints goes to the C++ side's `std::cout` through a callback), abort
//! the process, or keep a pointer to user memory beyond what `capi.h`
//! documents (`prs_engine_connect_stream`).
//!
//! Trust: an executable (`prs_executable_deserialize`) holds native code,
//! like a shared library; load only executables you would run.

// The `extern "C"` functions take raw pointers by design: their contract
// (valid, live handles and buffers of the stated sizes) is capi.h's, as for
// any C library, and marking them `unsafe` would change nothing for C callers.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

/// libpoplar's Rust allocations (its own, freed by its own calls) go to
/// mimalloc, as the tools' do.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod device;
pub mod engine;
pub mod graph;
pub mod job;
pub mod ops;
pub mod program;
pub mod report;
pub mod status;
pub mod system;
pub mod target;
pub mod tensor;

use std::ffi::{c_char, CStr};

use status::{ApiError, Result, Status};

/// A C string argument as UTF-8, borrowed for the call; NULL is an error.
pub(crate) fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str> {
    if p.is_null() {
        return Err(ApiError::new(Status::PoplarError, format!("{what} is NULL")));
    }
    // SAFETY: the caller passes a NUL-terminated string that lives for the
    // call (capi.h).
    let s = unsafe { CStr::from_ptr(p) };
    // Names are ASCII nearly always: one word-wide check instead of the
    // UTF-8 decoder, which costs a short name more than the rest of a call.
    if s.to_bytes().is_ascii() {
        // SAFETY: ASCII is UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(s.to_bytes()) });
    }
    s.to_str().map_err(|_| ApiError::new(Status::PoplarError, format!("{what} is not valid UTF-8")))
}

/// `n` values at `p` (NULL allowed when `n` is 0).
pub(crate) fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 || p.is_null() {
        return &[];
    }
    // SAFETY: the caller passes `n` valid values (capi.h).
    unsafe { std::slice::from_raw_parts(p, n) }
}

/// A reference to a handle; NULL is an error.
pub(crate) fn handle<'a, T>(p: *const T, what: &str) -> Result<&'a T> {
    // SAFETY: a non-NULL handle comes from this library and is alive (capi.h).
    unsafe { p.as_ref() }.ok_or_else(|| ApiError::new(Status::PoplarError, format!("{what} is NULL")))
}

/// A reference to a handle, or `None` for NULL (an argument C may leave out).
pub(crate) fn optional_handle<'a, T>(p: *const T, what: &str) -> Result<Option<&'a T>> {
    (!p.is_null()).then(|| handle(p, what)).transpose()
}

/// A mutable reference to a handle; NULL is an error.
pub(crate) fn handle_mut<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T> {
    // SAFETY: as `handle`, and the caller does not share it during the call.
    unsafe { p.as_mut() }.ok_or_else(|| ApiError::new(Status::PoplarError, format!("{what} is NULL")))
}

/// Stores `v` through an out pointer; NULL is an error.
pub(crate) fn put<T>(out: *mut T, v: T) -> Result<()> {
    if out.is_null() {
        return Err(ApiError::new(Status::PoplarError, "output pointer is NULL"));
    }
    // SAFETY: the caller passes a valid pointer to write (capi.h).
    unsafe { out.write(v) };
    Ok(())
}

/// A boxed handle through an out pointer.
pub(crate) fn put_box<T>(out: *mut *mut T, v: T) -> Result<()> {
    if out.is_null() {
        return Err(ApiError::new(Status::PoplarError, "output pointer is NULL"));
    }
    // SAFETY: as `put`.
    unsafe { out.write(Box::into_raw(Box::new(v))) };
    Ok(())
}

/// Frees a boxed handle (NULL is ignored).
pub(crate) fn free<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: `p` came from `put_box` and is freed once (capi.h).
        drop(unsafe { Box::from_raw(p) });
    }
}

/// A string returned to C, freed with `prs_string_free`.
pub(crate) fn put_string(out: *mut *mut c_char, s: String) -> Result<()> {
    let c = std::ffi::CString::new(s.replace('\0', "\\0")).unwrap_or_default();
    put(out, c.into_raw())
}

#[no_mangle]
pub extern "C" fn prs_last_error() -> *const c_char {
    status::last_error()
}

#[no_mangle]
pub extern "C" fn prs_abi_version() -> u32 {
    3
}

#[no_mangle]
pub extern "C" fn prs_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: `s` came from `put_string`.
        drop(unsafe { std::ffi::CString::from_raw(s) });
    }
}

#[no_mangle]
pub extern "C" fn prs_sizes_free(p: *mut usize, n: usize) {
    if !p.is_null() {
        // SAFETY: `p` came from `sizes_out` with this length.
        drop(unsafe { Vec::from_raw_parts(p, n, n) });
    }
}

/// A `size_t` array returned to C, freed with `prs_sizes_free`.
pub(crate) fn sizes_out(v: Vec<usize>, out: *mut *mut usize, n: *mut usize) -> Result<()> {
    let mut v = v.into_boxed_slice().into_vec();
    v.shrink_to_fit();
    let len = v.len();
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    put(n, len)?;
    put(out, p)
}
