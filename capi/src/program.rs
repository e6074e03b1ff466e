//! Programs as values: a `prs_program` is a sequence of IR statements
//! ([`Stmt`]). Copying a program copies its statements; a sequence added
//! to another is nested as a block, so programs are trees that never share
//! mutable parts, as Poplar's program classes behave.

use std::ffi::c_char;

use ir::{CopyEnd, CopyStmtId, FunctionId, Stmt};
use vocab::{ElemType, PrintStyle};

use crate::graph::Graph;
use crate::status::{guard, ApiError, Result, Status};
use crate::tensor::Tensor;
use crate::{free, handle, handle_mut, optional_handle, put_box, slice, text};

/// A program handle (`prs_program`).
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub body: Vec<Stmt>,
}

impl Program {
    fn one(s: Stmt) -> Program {
        Program { body: vec![s] }
    }

    /// The statements of `p` as one statement of a sequence.
    fn nested(p: &Program) -> Stmt {
        Stmt::Block(p.body.clone())
    }

    /// `Sequence::add(p)`: `p` runs after what is there.
    pub fn add(&mut self, p: &Program) {
        self.body.push(Program::nested(p));
    }

    /// `Copy(src, dst)` between tensors.
    pub fn copy(s: &Tensor, d: &Tensor) -> Result<Program> {
        check_copy("Copy", (s.view.num_elements(), s.elem), (d.view.num_elements(), d.elem))?;
        Ok(copy(CopyEnd::Tensor(s.view.clone()), CopyEnd::Tensor(d.view.clone())))
    }

    /// `Copy(stream, dst)`.
    pub fn copy_from_stream(g: &Graph, stream: u32, d: &Tensor) -> Result<Program> {
        let s = g.stream(stream)?;
        check_copy(
            &format!("Copy from stream '{}'", s.name),
            (s.num_elements(), s.elem),
            (d.view.num_elements(), d.elem),
        )?;
        Ok(copy(CopyEnd::Stream(ir::StreamId(stream)), CopyEnd::Tensor(d.view.clone())))
    }

    /// `Copy(src, stream)`.
    pub fn copy_to_stream(g: &Graph, t: &Tensor, stream: u32) -> Result<Program> {
        let s = g.stream(stream)?;
        check_copy(
            &format!("Copy to stream '{}'", s.name),
            (t.view.num_elements(), t.elem),
            (s.num_elements(), s.elem),
        )?;
        Ok(copy(CopyEnd::Tensor(t.view.clone()), CopyEnd::Stream(ir::StreamId(stream))))
    }

    /// `Copy(buffer, dst)`, from slot `repeat` (fixed when the program is
    /// built).
    pub fn copy_from_remote(g: &Graph, buffer: u32, repeat: u64, d: &Tensor) -> Result<Program> {
        let b = g.remote_buffer(buffer, repeat)?;
        check_copy(
            &format!("Copy from remote buffer '{}'", b.name),
            (b.num_elements(), b.elem),
            (d.view.num_elements(), d.elem),
        )?;
        Ok(copy(CopyEnd::Remote(ir::RemoteBufferId(buffer), repeat), CopyEnd::Tensor(d.view.clone())))
    }

    /// `Copy(src, buffer)`, to slot `repeat`.
    pub fn copy_to_remote(g: &Graph, t: &Tensor, buffer: u32, repeat: u64) -> Result<Program> {
        let b = g.remote_buffer(buffer, repeat)?;
        check_copy(
            &format!("Copy to remote buffer '{}'", b.name),
            (t.view.num_elements(), t.elem),
            (b.num_elements(), b.elem),
        )?;
        Ok(copy(CopyEnd::Tensor(t.view.clone()), CopyEnd::Remote(ir::RemoteBufferId(buffer), repeat)))
    }

    /// `Copy(buffer, dst, offset)` (`to_remote` false) and `Copy(src,
    /// buffer, offset)`: the tensor's elements, in rows of one buffer slot,
    /// row `i` from or to slot `offset[i]`, chosen when the program runs:
    /// a `Switch` on each offset element over the buffer's repeats. An
    /// offset past the repeats copies nothing.
    pub fn copy_remote_offset(
        g: &Graph,
        buffer: u32,
        t: &Tensor,
        offset: &Tensor,
        to_remote: bool,
    ) -> Result<Program> {
        let b = g.remote_buffer(buffer, 0)?;
        let what = match to_remote {
            true => format!("Copy to remote buffer '{}' at an offset", b.name),
            false => format!("Copy from remote buffer '{}' at an offset", b.name),
        };
        if offset.elem.is_float() || offset.elem == ElemType::Bool {
            return Err(ApiError::new(
                Status::TypeError,
                format!("{what}: the offset must be an integer tensor, not {}", offset.elem.cpp_name()),
            ));
        }
        let (rows, n) = (offset.view.num_elements(), b.num_elements());
        let (tensor, slots) = ((t.view.num_elements(), t.elem), (rows.saturating_mul(n), b.elem));
        match to_remote {
            true => check_copy(&what, tensor, slots)?,
            false => check_copy(&what, slots, tensor)?,
        }
        let flat = |x: &Tensor, len: u64| -> Result<Tensor> {
            let view = x.view.reshape(&[len as i64]).map_err(|e| ApiError::new(Status::IndexError, e))?;
            Ok(Tensor { view, elem: x.elem })
        };
        let (data, offsets) = (flat(t, rows * n)?, flat(offset, rows)?);
        let mut body = Vec::new();
        for i in 0..rows as usize {
            let row = data.slice(i * n as usize, (i + 1) * n as usize, 0)?.view;
            let cases = (0..b.repeats)
                .map(|k| {
                    let slot = CopyEnd::Remote(ir::RemoteBufferId(buffer), k);
                    let (src, dst) = match to_remote {
                        true => (CopyEnd::Tensor(row.clone()), slot),
                        false => (slot, CopyEnd::Tensor(row.clone())),
                    };
                    (k as i64, copy(src, dst).body)
                })
                .collect();
            let selector = offsets.slice(i, i + 1, 0)?.view;
            body.push(Stmt::Switch { selector, cases, default: Vec::new() });
        }
        Ok(Program { body })
    }

    /// `Repeat(count, body)`.
    pub fn repeat(count: u64, body: &Program) -> Program {
        Program::one(Stmt::Repeat { count, body: body.body.clone() })
    }

    /// `RepeatWhileTrue(cond, pred, body)`: `cond` runs, then `body` (and
    /// `cond` again) while the scalar `pred` is non-zero; with `until`,
    /// `RepeatWhileFalse`: while it is zero.
    pub fn repeat_while(cond: &Program, pred: &Tensor, body: &Program, until: bool) -> Result<Program> {
        scalar_pred(pred, if until { "RepeatWhileFalse" } else { "RepeatWhileTrue" })?;
        Ok(Program::one(Stmt::While {
            cond: cond.body.clone(),
            pred: pred.view.clone(),
            until,
            body: body.body.clone(),
        }))
    }

    /// `If(pred, then, else)` on a scalar predicate.
    pub fn if_else(pred: &Tensor, then: &Program, else_: Option<&Program>) -> Result<Program> {
        scalar_pred(pred, "If")?;
        let else_ = else_.map(|p| p.body.clone()).unwrap_or_default();
        Ok(Program::one(Stmt::If { pred: pred.view.clone(), then: then.body.clone(), else_ }))
    }

    /// `Switch(selector, cases, default)`.
    pub fn switch(
        selector: &Tensor,
        cases: &[(i64, &Program)],
        default: Option<&Program>,
    ) -> Result<Program> {
        scalar_pred(selector, "Switch")?;
        let mut bodies: Vec<(i64, Vec<Stmt>)> = Vec::new();
        for &(v, p) in cases {
            if bodies.iter().any(|(x, _)| *x == v) {
                return Err(ApiError::new(Status::PoplarError, format!("Switch: case {v} is given twice")));
            }
            bodies.push((v, p.body.clone()));
        }
        let default = default.map(|p| p.body.clone()).unwrap_or_default();
        Ok(Program::one(Stmt::Switch { selector: selector.view.clone(), cases: bodies, default }))
    }

    /// `Call(f)`: the function `Graph::addFunction` made.
    pub fn call(f: u32) -> Program {
        Program::one(Stmt::Call(FunctionId(f)))
    }

    /// `Block(p, name)`: `p`, which the lightweight profiler records as
    /// a block named `name` when `profiler.blocks.filter` matches it.
    pub fn block(p: &Program, name: &str) -> Program {
        Program::one(Stmt::Named { name: name.to_string(), body: p.body.clone() })
    }

    /// `PrintTensor(title, t)`, in Poplar's layout.
    pub fn print_tensor(title: &str, t: &Tensor) -> Program {
        Program::one(Stmt::Print {
            label: title.to_string(),
            view: t.view.clone(),
            style: PrintStyle::Poplar,
        })
    }
}

fn copy(src: CopyEnd, dst: CopyEnd) -> Program {
    Program::one(Stmt::Copy { src, dst, id: CopyStmtId(0) })
}

fn connection_error(message: String) -> ApiError {
    ApiError::new(Status::GraphConnectionError, message)
}

/// A copy's two ends must hold the same number of elements of one type.
fn check_copy(what: &str, (n1, e1): (u64, ElemType), (n2, e2): (u64, ElemType)) -> Result<()> {
    if e1 != e2 {
        return Err(ApiError::new(
            Status::TypeError,
            format!("{what}: source is {} and destination is {}", e1.cpp_name(), e2.cpp_name()),
        ));
    }
    if n1 != n2 {
        return Err(connection_error(format!("{what}: source has {n1} elements and destination has {n2}")));
    }
    Ok(())
}

fn scalar_pred(t: &Tensor, what: &str) -> Result<()> {
    if t.view.num_elements() != 1 {
        return Err(connection_error(format!(
            "{what}: the predicate must have one element, not {} (shape {:?})",
            t.view.num_elements(),
            t.view.shape
        )));
    }
    Ok(())
}

fn make(out: *mut *mut Program, f: impl FnOnce() -> Result<Program>) -> i32 {
    guard(|| put_box(out, f()?))
}

#[no_mangle]
pub extern "C" fn prs_program_new(out: *mut *mut Program) -> i32 {
    make(out, || Ok(Program::default()))
}

#[no_mangle]
pub extern "C" fn prs_program_clone(p: *const Program, out: *mut *mut Program) -> i32 {
    make(out, || Ok(handle(p, "program")?.clone()))
}

#[no_mangle]
pub extern "C" fn prs_program_free(p: *mut Program) {
    free(p)
}

#[no_mangle]
pub extern "C" fn prs_program_add(seq: *mut Program, p: *const Program) -> i32 {
    guard(|| {
        let added = handle(p, "program")?.clone();
        handle_mut(seq, "sequence")?.add(&added);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn prs_program_execute(g: *const Graph, cs: u32, out: *mut *mut Program) -> i32 {
    make(out, || handle(g, "graph")?.execute(cs))
}

#[no_mangle]
pub extern "C" fn prs_program_copy(src: *const Tensor, dst: *const Tensor, out: *mut *mut Program) -> i32 {
    make(out, || Program::copy(handle(src, "source")?, handle(dst, "destination")?))
}

#[no_mangle]
pub extern "C" fn prs_program_copy_from_stream(
    g: *const Graph,
    stream: u32,
    dst: *const Tensor,
    out: *mut *mut Program,
) -> i32 {
    make(out, || Program::copy_from_stream(handle(g, "graph")?, stream, handle(dst, "destination")?))
}

#[no_mangle]
pub extern "C" fn prs_program_copy_to_stream(
    g: *const Graph,
    src: *const Tensor,
    stream: u32,
    out: *mut *mut Program,
) -> i32 {
    make(out, || Program::copy_to_stream(handle(g, "graph")?, handle(src, "source")?, stream))
}

#[no_mangle]
pub extern "C" fn prs_program_copy_from_remote(
    g: *const Graph,
    buffer: u32,
    repeat: usize,
    dst: *const Tensor,
    out: *mut *mut Program,
) -> i32 {
    make(out, || {
        Program::copy_from_remote(handle(g, "graph")?, buffer, repeat as u64, handle(dst, "destination")?)
    })
}

#[no_mangle]
pub extern "C" fn prs_program_copy_to_remote(
    g: *const Graph,
    src: *const Tensor,
    buffer: u32,
    repeat: usize,
    out: *mut *mut Program,
) -> i32 {
    make(out, || Program::copy_to_remote(handle(g, "graph")?, handle(src, "source")?, buffer, repeat as u64))
}

#[no_mangle]
pub extern "C" fn prs_program_copy_from_remote_offset(
    g: *const Graph,
    buffer: u32,
    dst: *const Tensor,
    offset: *const Tensor,
    out: *mut *mut Program,
) -> i32 {
    make(out, || {
        let (g, d, o) = (handle(g, "graph")?, handle(dst, "destination")?, handle(offset, "offset")?);
        Program::copy_remote_offset(g, buffer, d, o, false)
    })
}

#[no_mangle]
pub extern "C" fn prs_program_copy_to_remote_offset(
    g: *const Graph,
    src: *const Tensor,
    buffer: u32,
    offset: *const Tensor,
    out: *mut *mut Program,
) -> i32 {
    make(out, || {
        let (g, t, o) = (handle(g, "graph")?, handle(src, "source")?, handle(offset, "offset")?);
        Program::copy_remote_offset(g, buffer, t, o, true)
    })
}

#[no_mangle]
pub extern "C" fn prs_program_repeat(count: u32, body: *const Program, out: *mut *mut Program) -> i32 {
    make(out, || Ok(Program::repeat(u64::from(count), handle(body, "body")?)))
}

#[no_mangle]
pub extern "C" fn prs_program_repeat_while(
    cond: *const Program,
    pred: *const Tensor,
    body: *const Program,
    negate: i32,
    out: *mut *mut Program,
) -> i32 {
    make(out, || {
        let p = handle(pred, "predicate")?;
        let (cond, body) = (handle(cond, "condition")?, handle(body, "body")?);
        Program::repeat_while(cond, p, body, negate != 0)
    })
}

#[no_mangle]
pub extern "C" fn prs_program_if(
    pred: *const Tensor,
    then_: *const Program,
    else_: *const Program,
    out: *mut *mut Program,
) -> i32 {
    make(out, || {
        let else_ = optional_handle(else_, "else")?;
        Program::if_else(handle(pred, "predicate")?, handle(then_, "then")?, else_)
    })
}

#[no_mangle]
pub extern "C" fn prs_program_switch(
    selector: *const Tensor,
    values: *const i32,
    bodies: *const *const Program,
    n: usize,
    default_: *const Program,
    out: *mut *mut Program,
) -> i32 {
    make(out, || {
        let values = slice(values, n);
        let mut cases = Vec::new();
        for (i, &b) in slice(bodies, n).iter().enumerate() {
            cases.push((i64::from(values[i]), handle(b, "case body")?));
        }
        let default = optional_handle(default_, "default")?;
        Program::switch(handle(selector, "selector")?, &cases, default)
    })
}

#[no_mangle]
pub extern "C" fn prs_program_print_tensor(
    title: *const c_char,
    t: *const Tensor,
    out: *mut *mut Program,
) -> i32 {
    make(out, || Ok(Program::print_tensor(text(title, "title")?, handle(t, "tensor")?)))
}

#[no_mangle]
pub extern "C" fn prs_program_write_undef(t: *const Tensor, out: *mut *mut Program) -> i32 {
    make(out, || Ok(Program::one(Stmt::Undef(handle(t, "tensor")?.view.clone()))))
}

#[no_mangle]
pub extern "C" fn prs_program_sync(out: *mut *mut Program) -> i32 {
    make(out, || Ok(Program::one(Stmt::Sync)))
}

#[no_mangle]
pub extern "C" fn prs_program_call(function: u32, out: *mut *mut Program) -> i32 {
    make(out, || Ok(Program::call(function)))
}

#[no_mangle]
pub extern "C" fn prs_program_block(
    body: *const Program,
    name: *const c_char,
    out: *mut *mut Program,
) -> i32 {
    make(out, || Ok(Program::block(handle(body, "body")?, text(name, "block name")?)))
}
