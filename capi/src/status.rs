//! Status codes and errors: every call returns a [`Status`] and leaves its
//! message for `prs_last_error`, so the C++ side can throw the Poplar
//! exception class the status names.

use std::cell::RefCell;
use std::ffi::{c_char, CString};

use ir::builder::{BuildError, BuildErrorKind};

/// The status codes of `capi.h` (`enum prs_status`), by Poplar exception.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Status {
    Ok = 0,
    PoplarError = 1,
    IndexError = 2,
    UnknownField = 3,
    UnknownVertexType = 4,
    GraphConnectionError = 5,
    StreamConnectionError = 6,
    InvalidOption = 7,
    GraphProgramCompilationError = 8,
    TypeError = 9,
    InvalidTileMapping = 10,
    TensorCreationError = 11,
    GraphCycleError = 12,
    LinkError = 13,
    RuntimeError = 14,
    StreamMemoryAllocationError = 15,
    ParseError = 16,
    NoSizeSpecified = 17,
    SymbolError = 18,
    Internal = 19,
}

/// A failed call: the exception class and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub status: Status,
    pub message: String,
}

impl ApiError {
    pub fn new(status: Status, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into() }
    }
}

pub type Result<T> = std::result::Result<T, ApiError>;

impl From<BuildError> for ApiError {
    fn from(e: BuildError) -> ApiError {
        let status = match e.kind {
            BuildErrorKind::Index => Status::IndexError,
            BuildErrorKind::Type => Status::TypeError,
            BuildErrorKind::TensorCreation => Status::TensorCreationError,
            BuildErrorKind::TileMapping => Status::InvalidTileMapping,
            BuildErrorKind::Connection => Status::GraphConnectionError,
            BuildErrorKind::Other => Status::PoplarError,
        };
        ApiError::new(status, e.message)
    }
}

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

/// Records `message` as this thread's last error.
pub fn set_last_error(message: &str) {
    let c = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = c);
}

/// This thread's last error; valid until the thread's next failing call.
pub fn last_error() -> *const c_char {
    LAST.with(|l| l.borrow().as_ptr())
}

/// Runs `f`, turning its error or a panic into a status and the thread's
/// last error: no panic unwinds into C++.
pub fn guard(f: impl FnOnce() -> Result<()>) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(())) => Status::Ok as i32,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.status as i32
        }
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            set_last_error(&format!("internal error in libpoplar (please report it): {what}"));
            Status::Internal as i32
        }
    }
}
