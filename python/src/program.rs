//! Programs as values: `sequence`, `execute`, `copy`, `repeat`,
//! `repeat_while_true`, `repeat_while_false`, `if_`, `switch`, `print_tensor` build the C++
//! API's program classes (python/poplar names them `Sequence`, `Execute`,
//! ... as Poplar does). A program is also the target of the elementwise
//! operators inside `with program:`.

use std::cell::RefCell;
use std::collections::HashMap;

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;

use crate::errors::{OrRaise, PoplarError};
use crate::graph::{ComputeSet, DataStream, RemoteBuffer};
use crate::tensor::Tensor;

#[pyclass(module = "poplar")]
#[derive(Clone, Default)]
pub struct Program {
    pub p: capi::program::Program,
}

thread_local! {
    /// The programs of open `with program:` blocks, innermost last.
    static ACTIVE: RefCell<Vec<Py<Program>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the innermost open program (for an operator written `what`).
pub fn with_active<T>(
    py: Python<'_>,
    what: &str,
    f: impl FnOnce(&mut capi::program::Program) -> PyResult<T>,
) -> PyResult<T> {
    let top = ACTIVE.with(|a| a.borrow().last().map(|p| p.clone_ref(py)));
    let Some(top) = top else {
        return Err(PoplarError::new_err(format!(
            "'{what}' appends an operation to a program: write it inside `with program:` (a Sequence)"
        )));
    };
    let mut p = top.borrow_mut(py);
    f(&mut p.p)
}

#[pymethods]
impl Program {
    /// `Sequence::add(p)`: `p` runs after what is there.
    fn add(&mut self, p: &Program) {
        self.p.add(&p.p);
    }

    fn __enter__(slf: Bound<'_, Program>) -> Bound<'_, Program> {
        ACTIVE.with(|a| a.borrow_mut().push(slf.clone().unbind()));
        slf
    }

    fn __exit__(
        &self,
        _ty: Option<Bound<'_, PyAny>>,
        _value: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> bool {
        ACTIVE.with(|a| a.borrow_mut().pop());
        false
    }

    fn __repr__(&self) -> String {
        format!("Program({} steps)", self.p.body.len())
    }
}

/// A graph's entry programs: a list (named `prog0`, `prog1`, ...) or a
/// dict of PIR-identifier names to programs, in order.
pub fn named_programs(programs: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, Vec<ir::Stmt>)>> {
    let Some(programs) = programs else { return Ok(Vec::new()) };
    if let Ok(d) = programs.cast::<pyo3::types::PyDict>() {
        let mut out: Vec<(String, Vec<ir::Stmt>)> = Vec::new();
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ident {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "program name '{name}' is not an identifier (letters, digits and _)"
                )));
            }
            out.push((name, v.cast::<Program>()?.borrow().p.body.clone()));
        }
        return Ok(out);
    }
    let list: Vec<PyRef<'_, Program>> = programs.extract()?;
    Ok(list.iter().enumerate().map(|(i, p)| (format!("prog{i}"), p.p.body.clone())).collect())
}

/// `Sequence(p1, p2, ...)`.
#[pyfunction]
#[pyo3(signature = (*programs))]
pub fn sequence(programs: Vec<PyRef<'_, Program>>) -> Program {
    let mut p = Program::default();
    for q in programs {
        p.p.add(&q.p);
    }
    p
}

/// `Execute(cs)`.
#[pyfunction]
pub fn execute(py: Python<'_>, cs: &ComputeSet) -> PyResult<Program> {
    Ok(Program { p: cs.graph.borrow(py).g.execute(cs.id).or_raise()? })
}

/// `Copy(src, dst)`: tensor to tensor, stream to tensor, tensor to
/// stream, remote buffer to tensor and tensor to remote buffer. With a
/// remote buffer, `offset` picks the repeat: an integer tensor (one element
/// per row of the tensor, read when the program runs), a number (fixed
/// now), or none (repeat 0).
#[pyfunction]
#[pyo3(signature = (src, dst, offset = None))]
pub fn copy(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    offset: Option<&Bound<'_, PyAny>>,
) -> PyResult<Program> {
    let remote = |b: &Bound<'_, PyAny>, t: &Tensor, to_remote: bool| -> PyResult<capi::program::Program> {
        let b = b.cast::<RemoteBuffer>()?.get();
        let g = &b.graph.borrow(py).g;
        let t = &t.t;
        let fixed = |repeat: u64| match to_remote {
            true => capi::program::Program::copy_to_remote(g, t, b.id, repeat),
            false => capi::program::Program::copy_from_remote(g, b.id, repeat, t),
        };
        match offset {
            None => fixed(0).or_raise(),
            Some(o) => match o.cast::<Tensor>() {
                Ok(o) => {
                    capi::program::Program::copy_remote_offset(g, b.id, t, &o.get().t, to_remote).or_raise()
                }
                Err(_) => {
                    let repeat: i64 = o.extract().map_err(|_| {
                        PyTypeError::new_err("copy: the offset is a Tensor of integers or a number")
                    })?;
                    let repeat = u64::try_from(repeat).map_err(|_| {
                        PyIndexError::new_err(format!(
                            "copy: repeat {repeat} of remote buffer '{}' does not exist",
                            b.name
                        ))
                    })?;
                    fixed(repeat).or_raise()
                }
            },
        }
    };
    let is_remote = |x: &Bound<'_, PyAny>| x.cast::<RemoteBuffer>().is_ok();
    if offset.is_some() && !is_remote(src) && !is_remote(dst) {
        return Err(PyTypeError::new_err("copy: an offset is for a copy to or from a remote buffer"));
    }
    let p = match (src.cast::<Tensor>(), dst.cast::<Tensor>()) {
        (Ok(s), Ok(d)) => capi::program::Program::copy(&s.get().t, &d.get().t),
        (Err(_), Ok(d)) if is_remote(src) => return Ok(Program { p: remote(src, d.get(), false)? }),
        (Ok(s), Err(_)) if is_remote(dst) => return Ok(Program { p: remote(dst, s.get(), true)? }),
        (Err(_), Ok(d)) => {
            let s = src.cast::<DataStream>().map_err(|_| {
                PyTypeError::new_err("copy: the source is a Tensor, a DataStream or a RemoteBuffer")
            })?;
            let s = s.get();
            capi::program::Program::copy_from_stream(&s.graph.borrow(py).g, s.id, &d.get().t)
        }
        (Ok(s), Err(_)) => {
            let d = dst.cast::<DataStream>().map_err(|_| {
                PyTypeError::new_err("copy: the destination is a Tensor, a DataStream or a RemoteBuffer")
            })?;
            let d = d.get();
            capi::program::Program::copy_to_stream(&d.graph.borrow(py).g, &s.get().t, d.id)
        }
        _ => return Err(PyTypeError::new_err("copy: one end at least is a Tensor")),
    };
    Ok(Program { p: p.or_raise()? })
}

/// `Repeat(count, body)`.
#[pyfunction]
pub fn repeat(count: u64, body: &Program) -> Program {
    Program { p: capi::program::Program::repeat(count, &body.p) }
}

/// `RepeatWhileTrue(cond, pred, body)`.
#[pyfunction]
pub fn repeat_while_true(cond: &Program, pred: &Tensor, body: &Program) -> PyResult<Program> {
    Ok(Program { p: capi::program::Program::repeat_while(&cond.p, &pred.t, &body.p, false).or_raise()? })
}

/// `RepeatWhileFalse(cond, pred, body)`.
#[pyfunction]
pub fn repeat_while_false(cond: &Program, pred: &Tensor, body: &Program) -> PyResult<Program> {
    Ok(Program { p: capi::program::Program::repeat_while(&cond.p, &pred.t, &body.p, true).or_raise()? })
}

/// `If(pred, then, else)`.
#[pyfunction]
#[pyo3(name = "if_", signature = (pred, then, else_ = None))]
pub fn if_(pred: &Tensor, then: &Program, else_: Option<PyRef<'_, Program>>) -> PyResult<Program> {
    Ok(Program {
        p: capi::program::Program::if_else(&pred.t, &then.p, else_.as_deref().map(|e| &e.p)).or_raise()?,
    })
}

/// `Switch(selector, {value: body}, default)`.
#[pyfunction]
#[pyo3(signature = (selector, cases, default = None))]
pub fn switch(
    selector: &Tensor,
    cases: HashMap<i64, PyRef<'_, Program>>,
    default: Option<PyRef<'_, Program>>,
) -> PyResult<Program> {
    let mut cases: Vec<(i64, &capi::program::Program)> = cases.iter().map(|(v, p)| (*v, &p.p)).collect();
    cases.sort_by_key(|(v, _)| *v);
    Ok(Program {
        p: capi::program::Program::switch(&selector.t, &cases, default.as_deref().map(|d| &d.p))
            .or_raise()?,
    })
}

/// `Call(f)`: runs the graph's function `f`.
#[pyfunction]
pub fn call(f: &crate::graph::Function) -> Program {
    Program { p: capi::program::Program::call(f.id) }
}

/// `PrintTensor(title, t)`: printed in Poplar's layout when it runs.
#[pyfunction]
#[pyo3(signature = (title, t))]
pub fn print_tensor(title: &str, t: &Tensor) -> Program {
    Program { p: capi::program::Program::print_tensor(title, &t.t) }
}

/// `Block(p, name)`: runs `p`; the lightweight profiler records it as a
/// block named `name` when the engine option `profiler.blocks.filter`
/// matches the name (docs/host-api.md).
#[pyfunction]
pub fn block(body: &Program, name: &str) -> Program {
    Program { p: capi::program::Program::block(&body.p, name) }
}
