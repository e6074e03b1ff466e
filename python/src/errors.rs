//! Python exceptions for the host API's errors. Poplar's exception classes
//! become `poplar.PoplarError` and its subclasses; index, type and option
//! errors are also Python's `IndexError`, `TypeError` and `ValueError`, so
//! the usual `except` clauses catch them.

use capi::status::{ApiError, Status};
use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;

create_exception!(poplar, PoplarError, pyo3::exceptions::PyException, "Any error of the Poplar API.");
create_exception!(
    poplar,
    GraphError,
    PoplarError,
    "A graph cannot be built as asked (connection, mapping, vertex type)."
);
create_exception!(
    poplar,
    CompileError,
    PoplarError,
    "A graph, its codelets or PIR do not compile; the message is the compiler's (file:line:col)."
);
create_exception!(
    poplar,
    RunError,
    PoplarError,
    "A program stopped on the device: a trap names its tile and vertex."
);
create_exception!(
    poplar,
    StreamError,
    PoplarError,
    "A stream cannot be connected or moved its data wrongly."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PoplarError", py.get_type::<PoplarError>())?;
    m.add("GraphError", py.get_type::<GraphError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add("StreamError", py.get_type::<StreamError>())?;
    Ok(())
}

/// The Python exception for a host-API error.
pub fn to_py(e: ApiError) -> PyErr {
    let m = e.message;
    match e.status {
        Status::IndexError => PyIndexError::new_err(m),
        Status::TypeError => PyTypeError::new_err(m),
        Status::InvalidOption => PyValueError::new_err(m),
        Status::GraphProgramCompilationError | Status::ParseError | Status::LinkError => {
            CompileError::new_err(m)
        }
        Status::RuntimeError => RunError::new_err(m),
        Status::StreamConnectionError | Status::StreamMemoryAllocationError => StreamError::new_err(m),
        Status::UnknownField
        | Status::UnknownVertexType
        | Status::GraphConnectionError
        | Status::InvalidTileMapping
        | Status::TensorCreationError
        | Status::GraphCycleError
        | Status::NoSizeSpecified => GraphError::new_err(m),
        _ => PoplarError::new_err(m),
    }
}

/// `Result` of the host API as a Python result.
pub trait OrRaise<T> {
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for capi::status::Result<T> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// A builder error, through the host API's classification.
impl<T> OrRaise<T> for std::result::Result<T, ir::builder::BuildError> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(|e| to_py(ApiError::from(e)))
    }
}
