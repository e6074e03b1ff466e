//! Tensors as the host API sees them: a view ([`View`], affine pieces of
//! the graph's tensors) and its element type. View operations need no
//! graph, as in Poplar, and never copy data.

use std::ffi::c_char;

use ir::view::{Subscript, View};
use ir::TensorId;
use vocab::ElemType;

use crate::status::{guard, ApiError, Result, Status};
use crate::target::type_code;
use crate::{free, handle, put, put_box, put_string, slice};

/// A tensor handle (`prs_tensor`).
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub view: View,
    pub elem: ElemType,
}

/// A view that is one contiguous run of one tensor's elements, of rank 1
/// (`prs_run`): elements `offset .. offset + len` of tensor `tensor`, `len`
/// at least 1. The C++ `Tensor` holds its commonest slice (a vertex's
/// slice of a one-dimensional tensor) as one, so that slicing and
/// connecting in a loop makes no handle; it stands for the handle
/// [`Run::tensor`] makes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub tensor: u32,
    /// The element type as `enum prs_type`.
    pub ty: i32,
    pub offset: u64,
    pub len: u64,
}

impl Run {
    /// The tensor the run stands for: the view [`View::index`] gives for
    /// such a slice (one piece, of one dimension unless one element).
    pub fn tensor(&self) -> Result<Tensor> {
        let elem = crate::target::elem_type(self.ty, false)?;
        let end = self.offset.checked_add(self.len).filter(|&e| e <= ir::view::MAX_ELEMENTS);
        if self.len == 0 || end.is_none() {
            return Err(ApiError::new(
                Status::PoplarError,
                format!("invalid run: {} elements from element {}", self.len, self.offset),
            ));
        }
        Ok(Tensor { view: View::run(TensorId(self.tensor), self.offset, self.len), elem })
    }
}

fn index_error(message: impl Into<String>) -> ApiError {
    ApiError::new(Status::IndexError, message)
}

fn check_dim(t: &Tensor, dim: u32, what: &str) -> Result<usize> {
    let d = dim as usize;
    if d >= t.view.rank() {
        return Err(index_error(format!(
            "{what}: dimension {dim} is out of range for a tensor of shape {:?}",
            t.view.shape
        )));
    }
    Ok(d)
}

impl Tensor {
    fn with(&self, view: View) -> Tensor {
        Tensor { view, elem: self.elem }
    }

    fn index(&self, subs: &[Subscript]) -> Result<Tensor> {
        self.view.index(subs).map(|v| self.with(v)).map_err(index_error)
    }

    /// `slice(begin, end, dim)`.
    pub fn slice(&self, begin: usize, end: usize, dim: u32) -> Result<Tensor> {
        let d = check_dim(self, dim, "slice")?;
        let size = self.view.shape[d];
        if begin > end || end as u64 > size {
            return Err(index_error(format!(
                "slice [{begin}, {end}) of dimension {dim} is out of range: its size is {size}"
            )));
        }
        // Whole dimensions before `d`; those after it it may leave out.
        let cut = Subscript::Slice { start: Some(begin as i64), end: Some(end as i64), step: None };
        if d == 0 {
            return self.index(&[cut]);
        }
        let mut subs = vec![Subscript::Slice { start: None, end: None, step: None }; d + 1];
        subs[d] = cut;
        self.index(&subs)
    }

    /// [`Tensor::slice`] as a [`Run`] when the slice is one: a non-empty
    /// slice of a view of rank 1 that is one run itself. `None` otherwise
    /// (then [`Tensor::slice`] gives the view, or the error).
    pub fn slice_run(&self, begin: usize, end: usize, dim: u32) -> Option<Run> {
        let [size] = self.view.shape[..] else { return None };
        if dim != 0 || begin >= end || end as u64 > size || self.elem == ElemType::Double {
            return None;
        }
        let (tensor, start, _) = self.view.is_contiguous_single_tensor()?;
        let (begin, end) = (begin as u64, end as u64);
        Some(Run { tensor: tensor.0, ty: type_code(self.elem), offset: start + begin, len: end - begin })
    }

    /// `dimShuffle(perm)`.
    pub fn dimshuffle(&self, perm: &[u32]) -> Result<Tensor> {
        let p: Vec<i64> = perm.iter().map(|&d| i64::from(d)).collect();
        self.view.dimshuffle(&p).map(|v| self.with(v)).map_err(index_error)
    }

    /// The permutation that moves `dim` to the front.
    fn to_front(rank: usize, dim: usize) -> Vec<u32> {
        std::iter::once(dim).chain((0..rank).filter(|&d| d != dim)).map(|d| d as u32).collect()
    }

    /// The permutation that undoes [`Tensor::to_front`].
    fn from_front(rank: usize, dim: usize) -> Vec<u32> {
        (0..rank)
            .map(|d| {
                if d == dim {
                    0
                } else if d < dim {
                    d as u32 + 1
                } else {
                    d as u32
                }
            })
            .collect()
    }

    /// `reverse(dim)`.
    pub fn reverse(&self, dim: u32) -> Result<Tensor> {
        let d = check_dim(self, dim, "reverse")?;
        let r = self.view.rank();
        let front = self.dimshuffle(&Tensor::to_front(r, d))?;
        let rev = front.with(front.view.reverse().map_err(index_error)?);
        rev.dimshuffle(&Tensor::from_front(r, d))
    }

    /// `broadcast(n, dim)`: the tensor repeated `n` times along `dim`.
    pub fn broadcast(&self, n: usize, dim: u32) -> Result<Tensor> {
        let d = check_dim(self, dim, "broadcast")?;
        let r = self.view.rank();
        // A new outer axis of n copies, moved just before `dim`, then merged with it.
        let outer = self.with(self.view.broadcast(n as i64).map_err(index_error)?);
        let mut perm: Vec<u32> = (1..=d as u32).collect();
        perm.push(0);
        perm.extend(d as u32 + 1..=r as u32);
        let moved = outer.dimshuffle(&perm)?;
        let mut shape: Vec<i64> = self.view.shape.iter().map(|&x| x as i64).collect();
        shape[d] *= n as i64;
        moved.view.reshape(&shape).map(|v| self.with(v)).map_err(index_error)
    }

    /// `concat(ts, dim)`: one view of the tensors side by side along `dim`.
    pub fn concat(ts: &[&Tensor], dim: u32) -> Result<Tensor> {
        let Some(first) = ts.first() else {
            return Err(index_error("concat needs at least one tensor"));
        };
        if let Some(t) = ts.iter().find(|t| t.elem != first.elem) {
            return Err(ApiError::new(
                Status::TypeError,
                format!("concat of {} and {} tensors", first.elem.cpp_name(), t.elem.cpp_name()),
            ));
        }
        let views: Vec<View> = ts.iter().map(|t| t.view.clone()).collect();
        let v = View::concat(&views, i64::from(dim)).map_err(index_error)?;
        Ok(Tensor { view: v, elem: first.elem })
    }

    /// `subSample(stride, dim)`.
    pub fn subsample(&self, stride: usize, dim: u32) -> Result<Tensor> {
        let d = check_dim(self, dim, "subSample")?;
        if stride == 0 {
            return Err(index_error("subSample: the stride must be at least 1"));
        }
        let mut subs = vec![Subscript::Slice { start: None, end: None, step: None }; self.view.rank()];
        subs[d] = Subscript::Slice { start: None, end: None, step: Some(stride as i64) };
        self.index(&subs)
    }
}

/// The views of a tensor list argument.
pub(crate) fn tensors<'a>(ts: *const *const Tensor, n: usize) -> Result<Vec<&'a Tensor>> {
    slice(ts, n).iter().map(|&t| handle(t, "tensor")).collect()
}

fn derive(t: *const Tensor, out: *mut *mut Tensor, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> i32 {
    guard(|| {
        let t = handle(t, "tensor")?;
        put_box(out, f(t)?)
    })
}

#[no_mangle]
pub extern "C" fn prs_tensor_clone(t: *const Tensor, out: *mut *mut Tensor) -> i32 {
    derive(t, out, |t| Ok(t.clone()))
}

#[no_mangle]
pub extern "C" fn prs_tensor_free(t: *mut Tensor) {
    free(t)
}

#[no_mangle]
pub extern "C" fn prs_tensor_type(t: *const Tensor) -> i32 {
    handle(t, "tensor").map_or(-1, |t| type_code(t.elem))
}

#[no_mangle]
pub extern "C" fn prs_tensor_rank(t: *const Tensor) -> usize {
    handle(t, "tensor").map_or(0, |t| t.view.rank())
}

#[no_mangle]
pub extern "C" fn prs_tensor_shape(t: *const Tensor, dims: *mut usize, cap: usize) -> usize {
    let Ok(t) = handle(t, "tensor") else { return 0 };
    for (i, &d) in t.view.shape.iter().take(cap).enumerate() {
        // SAFETY: the caller passes room for `cap` dimensions.
        unsafe { dims.add(i).write(d as usize) };
    }
    t.view.rank()
}

#[no_mangle]
pub extern "C" fn prs_tensor_num_elements(t: *const Tensor) -> usize {
    handle(t, "tensor").map_or(0, |t| t.view.num_elements() as usize)
}

#[no_mangle]
pub extern "C" fn prs_tensor_index(t: *const Tensor, i: usize, out: *mut *mut Tensor) -> i32 {
    derive(t, out, |t| {
        let Some(&d0) = t.view.shape.first() else {
            return Err(index_error("operator[]: a scalar tensor (rank 0) cannot be indexed"));
        };
        if i as u64 >= d0 {
            return Err(index_error(format!("index {i} is out of range for dimension 0 of size {d0}")));
        }
        t.index(&[Subscript::Index(i as i64)])
    })
}

#[no_mangle]
pub extern "C" fn prs_tensor_slice(
    t: *const Tensor,
    begin: usize,
    end: usize,
    dim: u32,
    out: *mut *mut Tensor,
) -> i32 {
    derive(t, out, |t| t.slice(begin, end, dim))
}

#[no_mangle]
pub extern "C" fn prs_tensor_slice_run(
    t: *const Tensor,
    begin: usize,
    end: usize,
    dim: u32,
    run: *mut Run,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let t = handle(t, "tensor")?;
        match t.slice_run(begin, end, dim) {
            Some(r) => {
                put(out, std::ptr::null_mut())?;
                put(run, r)
            }
            None => put_box(out, t.slice(begin, end, dim)?),
        }
    })
}

#[no_mangle]
pub extern "C" fn prs_tensor_from_run(run: *const Run, out: *mut *mut Tensor) -> i32 {
    guard(|| put_box(out, handle(run, "run")?.tensor()?))
}

#[no_mangle]
pub extern "C" fn prs_tensor_slice_multi(
    t: *const Tensor,
    begin: *const usize,
    end: *const usize,
    n: usize,
    out: *mut *mut Tensor,
) -> i32 {
    derive(t, out, |t| {
        if n != t.view.rank() {
            return Err(index_error(format!(
                "slice: {n} bounds given for a tensor of rank {} (shape {:?})",
                t.view.rank(),
                t.view.shape
            )));
        }
        let (b, e) = (slice(begin, n), slice(end, n));
        let mut cur = t.clone();
        for d in 0..n {
            cur = cur.slice(b[d], e[d], d as u32)?;
        }
        Ok(cur)
    })
}

#[no_mangle]
pub extern "C" fn prs_tensor_reshape(
    t: *const Tensor,
    shape: *const usize,
    rank: usize,
    out: *mut *mut Tensor,
) -> i32 {
    derive(t, out, |t| {
        let s: Vec<i64> = slice(shape, rank).iter().map(|&d| d as i64).collect();
        t.view.reshape(&s).map(|v| t.with(v)).map_err(index_error)
    })
}

#[no_mangle]
pub extern "C" fn prs_tensor_dimshuffle(
    t: *const Tensor,
    perm: *const u32,
    n: usize,
    out: *mut *mut Tensor,
) -> i32 {
    derive(t, out, |t| t.dimshuffle(slice(perm, n)))
}

#[no_mangle]
pub extern "C" fn prs_tensor_reverse(t: *const Tensor, dim: u32, out: *mut *mut Tensor) -> i32 {
    derive(t, out, |t| t.reverse(dim))
}

#[no_mangle]
pub extern "C" fn prs_tensor_broadcast(t: *const Tensor, n: usize, dim: u32, out: *mut *mut Tensor) -> i32 {
    derive(t, out, |t| t.broadcast(n, dim))
}

#[no_mangle]
pub extern "C" fn prs_tensor_subsample(
    t: *const Tensor,
    stride: usize,
    dim: u32,
    out: *mut *mut Tensor,
) -> i32 {
    derive(t, out, |t| t.subsample(stride, dim))
}

#[no_mangle]
pub extern "C" fn prs_tensor_concat(
    ts: *const *const Tensor,
    n: usize,
    dim: u32,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| put_box(out, Tensor::concat(&tensors(ts, n)?, dim)?))
}

#[no_mangle]
pub extern "C" fn prs_tensor_intersects(a: *const Tensor, b: *const Tensor, out: *mut i32) -> i32 {
    guard(|| {
        let (a, b) = (handle(a, "tensor")?, handle(b, "tensor")?);
        put(out, i32::from(a.view.overlaps(&b.view)))
    })
}

#[no_mangle]
pub extern "C" fn prs_tensor_contains_aliases(t: *const Tensor, out: *mut i32) -> i32 {
    guard(|| {
        let t = handle(t, "tensor")?;
        let aliased = t.view.repeats_elements();
        put(out, i32::from(aliased))
    })
}

#[no_mangle]
pub extern "C" fn prs_tensor_equal(a: *const Tensor, b: *const Tensor) -> i32 {
    match (handle(a, "tensor"), handle(b, "tensor")) {
        (Ok(a), Ok(b)) => {
            let same =
                a.elem == b.elem && a.view.shape == b.view.shape && a.view.elements().eq(b.view.elements());
            i32::from(same)
        }
        _ => 0,
    }
}

#[no_mangle]
pub extern "C" fn prs_tensor_describe(t: *const Tensor, out: *mut *mut c_char) -> i32 {
    guard(|| {
        let t = handle(t, "tensor")?;
        put_string(out, format!("{}{:?}", t.elem.cpp_name(), t.view.shape))
    })
}
