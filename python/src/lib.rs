//! `poplar._poplar`: the extension module under the Python package
//! `poplar` (python/poplar). It wraps the C++ host API's Rust core (the
//! `capi` crate's `Graph`, `Program`, `Engine` and `Device`, which build
//! through `ir::builder`) with Python manners: PEP 8 names, numpy arrays
//! in and out, Python exceptions, the GIL released while a program runs
//! and Ctrl-C stopping a run.
//!
//! Trust: an executable (`Executable.load`, `compile_pir`'s codelets)
//! holds native code, like a shared library; load only what you would run.

mod device;
mod dtype;
mod engine;
mod errors;
mod graph;
mod program;
mod report;
mod sigint;
mod tensor;

use pyo3::prelude::*;

/// The ABI of this extension; `poplar/__init__.py` refuses a build whose
/// number differs from its own, with a message saying how to rebuild.
const ABI: u32 = 1;

#[pymodule]
fn _poplar(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ABI", ABI)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<device::Target>()?;
    m.add_class::<device::Device>()?;
    m.add_class::<graph::Graph>()?;
    m.add_class::<graph::ComputeSet>()?;
    m.add_class::<graph::DataStream>()?;
    m.add_class::<graph::RemoteBuffer>()?;
    m.add_class::<graph::Function>()?;
    m.add_class::<tensor::Tensor>()?;
    m.add_class::<program::Program>()?;
    m.add_class::<engine::Executable>()?;
    m.add_class::<engine::Engine>()?;
    m.add_class::<report::PvaReport>()?;
    m.add_class::<report::PvaBlock>()?;
    m.add_function(wrap_pyfunction!(tensor::concat, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::where_, m)?)?;
    m.add_function(wrap_pyfunction!(program::sequence, m)?)?;
    m.add_function(wrap_pyfunction!(program::execute, m)?)?;
    m.add_function(wrap_pyfunction!(program::copy, m)?)?;
    m.add_function(wrap_pyfunction!(program::repeat, m)?)?;
    m.add_function(wrap_pyfunction!(program::repeat_while_true, m)?)?;
    m.add_function(wrap_pyfunction!(program::repeat_while_false, m)?)?;
    m.add_function(wrap_pyfunction!(program::if_, m)?)?;
    m.add_function(wrap_pyfunction!(program::switch, m)?)?;
    m.add_function(wrap_pyfunction!(program::print_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(program::call, m)?)?;
    m.add_function(wrap_pyfunction!(program::block, m)?)?;
    m.add_function(wrap_pyfunction!(engine::compile_pir, m)?)?;
    Ok(())
}
