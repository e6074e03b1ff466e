//! Tensors: views of a graph's variables and constants with Poplar's view
//! operations under Python names (`t[1:3]`, `t.T`, `reshape`, `concat`),
//! and elementwise operations with Python's operators. An operator
//! appends a `popops::map` to the program open in a `with program:` block
//! and returns the new tensor, exactly as the C++ API's `popops::map`.

use capi::ops::ExprNode;
use capi::target::type_code;
use ir::view::Subscript;
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PySlice, PyTuple};

use crate::dtype::{elem_of, numpy_name};
use crate::errors::OrRaise;
use crate::graph::Graph;
use crate::program::with_active;

#[pyclass(module = "poplar", frozen)]
pub struct Tensor {
    pub t: capi::tensor::Tensor,
    pub graph: Py<Graph>,
}

impl Tensor {
    pub fn derived(&self, py: Python<'_>, t: capi::tensor::Tensor) -> Tensor {
        Tensor { t, graph: self.graph.clone_ref(py) }
    }

    fn view(&self, py: Python<'_>, v: Result<ir::View, String>) -> PyResult<Tensor> {
        let v = v.map_err(PyIndexError::new_err)?;
        Ok(self.derived(py, capi::tensor::Tensor { view: v, elem: self.t.elem }))
    }
}

/// One subscript of `t[...]` on axis `axis`, with numpy's rules when the
/// axis exists (`dim`): a negative index or bound counts from the end, a
/// slice's bounds past either end are clamped, a step may be negative. A
/// subscript past the last axis goes through as written, for the view to
/// report.
fn subscript(item: &Bound<'_, PyAny>, axis: usize, dim: Option<u64>) -> PyResult<Subscript> {
    if let Ok(s) = item.cast::<PySlice>() {
        let Some(dim) = dim else {
            let part = |name: &str| -> PyResult<Option<i64>> { s.getattr(name)?.extract() };
            return Ok(Subscript::Slice { start: part("start")?, end: part("stop")?, step: part("step")? });
        };
        let len = isize::try_from(dim).map_err(|_| PyIndexError::new_err("dimension too large to slice"))?;
        let ix = s.indices(len)?;
        let (start, stop, step) = (ix.start as i64, ix.stop as i64, ix.step as i64);
        return Ok(match ix.slicelength {
            0 => Subscript::Slice { start: Some(0), end: Some(0), step: Some(1) },
            // Going down, a stop of -1 means "through index 0".
            _ if step < 0 => {
                Subscript::Slice { start: Some(start), end: (stop >= 0).then_some(stop), step: Some(step) }
            }
            _ => Subscript::Slice { start: Some(start), end: Some(stop), step: Some(step) },
        });
    }
    let i = item
        .extract::<i64>()
        .map_err(|_| PyTypeError::new_err("a tensor index is an int, a slice or a tuple of them"))?;
    match dim {
        Some(d) if i < 0 => match i.checked_add(d as i64).filter(|&j| j >= 0) {
            Some(j) => Ok(Subscript::Index(j)),
            None => Err(PyIndexError::new_err(format!(
                "index {i} is out of range for dimension {axis} of size {d}"
            ))),
        },
        _ => Ok(Subscript::Index(i)),
    }
}

/// The right operand of an elementwise operator.
enum Operand {
    Tensor(capi::tensor::Tensor),
    Number(f64),
}

fn operand(x: &Bound<'_, PyAny>) -> PyResult<Operand> {
    if let Ok(t) = x.cast::<Tensor>() {
        return Ok(Operand::Tensor(t.get().t.clone()));
    }
    x.extract::<f64>()
        .map(Operand::Number)
        .map_err(|_| PyTypeError::new_err("an elementwise operand is a Tensor or a number"))
}

const BINARY: u8 = 3;
const UNARY: u8 = 2;

fn node(kind: u8, op: i32) -> ExprNode {
    ExprNode { kind: i32::from(kind), op, index: 0, ty: -1, value: 0.0 }
}

fn input(i: u32) -> ExprNode {
    ExprNode { kind: 0, op: 0, index: i, ty: -1, value: 0.0 }
}

fn number(v: f64) -> ExprNode {
    ExprNode { kind: 1, op: 0, index: 0, ty: -1, value: v }
}

impl Tensor {
    /// `self op other` (or `other op self` when `reflected`) as a map.
    fn binary(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: i32,
        reflected: bool,
        name: &str,
    ) -> PyResult<Tensor> {
        let mut inputs = vec![self.t.clone()];
        let other = match operand(other)? {
            Operand::Tensor(t) => {
                inputs.push(t);
                input(2)
            }
            Operand::Number(v) => number(v),
        };
        let nodes = if reflected {
            vec![other, input(1), node(BINARY, op)]
        } else {
            vec![input(1), other, node(BINARY, op)]
        };
        self.map(py, &nodes, &inputs, name)
    }

    /// `self op= other`: `popops::mapInPlace` into `self`'s elements.
    fn in_place(&self, py: Python<'_>, other: &Bound<'_, PyAny>, op: i32, name: &str) -> PyResult<()> {
        let mut inputs = vec![self.t.clone()];
        let other = match operand(other)? {
            Operand::Tensor(t) => {
                inputs.push(t);
                input(2)
            }
            Operand::Number(v) => number(v),
        };
        let refs: Vec<&capi::tensor::Tensor> = inputs.iter().collect();
        let nodes = [input(1), other, node(BINARY, op)];
        with_active(py, name, |seq| {
            self.graph.borrow_mut(py).g.map(seq, &nodes, &refs, true, name).or_raise()
        })?;
        Ok(())
    }

    /// The right shift numpy's `>>` is for this tensor's dtype: arithmetic
    /// (`SHIFT_RIGHT_SIGN_EXTEND`) for signed integers, else logical.
    fn right_shift(&self) -> i32 {
        let signed = self.t.elem.int_range().is_some_and(|(lo, _)| lo < 0);
        if signed {
            23
        } else {
            22
        }
    }

    fn unary(&self, py: Python<'_>, op: i32, name: &str) -> PyResult<Tensor> {
        self.map(py, &[input(1), node(UNARY, op)], std::slice::from_ref(&self.t), name)
    }

    fn map(
        &self,
        py: Python<'_>,
        nodes: &[ExprNode],
        inputs: &[capi::tensor::Tensor],
        name: &str,
    ) -> PyResult<Tensor> {
        let refs: Vec<&capi::tensor::Tensor> = inputs.iter().collect();
        let t = with_active(py, name, |seq| {
            self.graph.borrow_mut(py).g.map(seq, nodes, &refs, false, name).or_raise()
        })?;
        Ok(self.derived(py, t))
    }
}

#[pymethods]
impl Tensor {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.t.view.shape.iter().copied())
    }

    /// The numpy name of the element type (`"float32"`, `"float16"`, ...).
    #[getter]
    fn dtype(&self) -> PyResult<&'static str> {
        numpy_name(self.t.elem)
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.t.view.rank()
    }

    #[getter]
    fn size(&self) -> u64 {
        self.t.view.num_elements()
    }

    fn __len__(&self) -> PyResult<usize> {
        self.t
            .view
            .shape
            .first()
            .map(|&d| d as usize)
            .ok_or_else(|| PyTypeError::new_err("len() of a scalar tensor"))
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        let shape = &self.t.view.shape;
        let one = |(axis, item): (usize, Bound<'_, PyAny>)| subscript(&item, axis, shape.get(axis).copied());
        let subs = match key.cast::<PyTuple>() {
            Ok(items) => items.iter().enumerate().map(one).collect::<PyResult<Vec<_>>>()?,
            Err(_) => vec![one((0, key.clone()))?],
        };
        self.view(py, self.t.view.index(&subs))
    }

    /// `reshape(shape)`: the same elements in row-major order.
    fn reshape(&self, py: Python<'_>, shape: Vec<i64>) -> PyResult<Tensor> {
        self.view(py, self.t.view.reshape(&shape))
    }

    /// `flatten()`: a rank-1 view.
    fn flatten(&self, py: Python<'_>) -> Tensor {
        self.derived(py, capi::tensor::Tensor { view: self.t.view.flatten(), elem: self.t.elem })
    }

    /// Poplar's `dimShuffle(permutation)`.
    fn dimshuffle(&self, py: Python<'_>, permutation: Vec<u32>) -> PyResult<Tensor> {
        Ok(self.derived(py, self.t.dimshuffle(&permutation).or_raise()?))
    }

    /// `transpose()` reverses the dimensions (numpy's `T`).
    fn transpose(&self, py: Python<'_>) -> PyResult<Tensor> {
        let perm: Vec<u32> = (0..self.t.view.rank() as u32).rev().collect();
        self.dimshuffle(py, perm)
    }

    #[getter(T)]
    fn t_(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.transpose(py)
    }

    #[pyo3(signature = (dim = 0))]
    fn reverse(&self, py: Python<'_>, dim: u32) -> PyResult<Tensor> {
        Ok(self.derived(py, self.t.reverse(dim).or_raise()?))
    }

    /// Poplar's `broadcast(n, dim)`: `n` copies along `dim`, no data copied.
    fn broadcast(&self, py: Python<'_>, n: usize, dim: u32) -> PyResult<Tensor> {
        Ok(self.derived(py, self.t.broadcast(n, dim).or_raise()?))
    }

    /// Poplar's `subSample(stride, dim)`.
    fn subsample(&self, py: Python<'_>, stride: usize, dim: u32) -> PyResult<Tensor> {
        Ok(self.derived(py, self.t.subsample(stride, dim).or_raise()?))
    }

    /// Whether two tensors share an element (Poplar's `intersectsWith`).
    fn intersects(&self, other: &Tensor) -> bool {
        self.t.view.overlaps(&other.t.view)
    }

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 0, false, "add")
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 0, true, "add")
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 1, false, "sub")
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 1, true, "sub")
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 2, false, "mul")
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 2, true, "mul")
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 3, false, "div")
    }
    fn __rtruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 3, true, "div")
    }
    fn __pow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        _modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Tensor> {
        self.binary(py, o, 6, false, "pow")
    }
    fn __lt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 7, false, "lt")
    }
    fn __le__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 8, false, "le")
    }
    fn __gt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 9, false, "gt")
    }
    fn __ge__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 10, false, "ge")
    }
    /// Elementwise `==` (a bool tensor), as numpy's; tensors hash by identity.
    fn __eq__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 11, false, "eq")
    }
    fn __ne__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 12, false, "ne")
    }
    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }
    /// `t += x` updates `t`'s elements in place (`popops::addInPlace`).
    fn __iadd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.in_place(py, o, 0, "add")
    }
    fn __isub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.in_place(py, o, 1, "sub")
    }
    fn __imul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.in_place(py, o, 2, "mul")
    }
    fn __itruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.in_place(py, o, 3, "div")
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 0, "neg")
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 1, "abs")
    }
    fn __matmul__(&self, py: Python<'_>, o: &Tensor) -> PyResult<Tensor> {
        let t = with_active(py, "matmul", |seq| {
            self.graph.borrow_mut(py).g.matmul(seq, &self.t, &o.t, None, "matmul").or_raise()
        })?;
        Ok(self.derived(py, t))
    }

    /// `minimum(other)` / `maximum(other)`, elementwise.
    fn minimum(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 4, false, "min")
    }
    fn maximum(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 5, false, "max")
    }
    fn exp(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 2, "exp")
    }
    fn log(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 3, "log")
    }
    fn sqrt(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 4, "sqrt")
    }
    fn tanh(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 5, "tanh")
    }
    fn sigmoid(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 6, "sigmoid")
    }
    fn relu(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 7, "relu")
    }
    /// `sign()`: -1, 0 or 1 (`popops::signum`; 0 for NaN, unlike numpy's NaN).
    fn sign(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 12, "signum")
    }
    fn floor(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 13, "floor")
    }
    fn ceil(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 14, "ceil")
    }
    /// `logical_and(other)` / `logical_or(other)` of bool tensors;
    /// `logical_not()`.
    fn logical_and(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 13, false, "logicalAnd")
    }
    fn logical_or(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 14, false, "logicalOr")
    }
    fn logical_not(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 11, "logicalNot")
    }
    /// `a % b`: C's `fmod` for floats (the sign of `a`, unlike numpy's
    /// `%`, which is `numpy.fmod` here), truncating for integers.
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 15, false, "rem")
    }
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 15, true, "rem")
    }

    /// Bitwise operators of integer tensors (`popops::bitwiseAnd`, `bitwiseOr`,
    /// `bitwiseXor`, `bitwiseNot`); other dtypes are a `TypeError`.
    fn __and__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 17, false, "bitwiseAnd")
    }
    fn __rand__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 17, true, "bitwiseAnd")
    }
    fn __or__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 18, false, "bitwiseOr")
    }
    fn __ror__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 18, true, "bitwiseOr")
    }
    fn __xor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 19, false, "bitwiseXor")
    }
    fn __rxor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 19, true, "bitwiseXor")
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 31, "bitwiseNot")
    }
    /// `a << n` (`popops::shiftLeft`); `a >> n` as numpy's: arithmetic for
    /// signed dtypes (`shiftRightSignExtend`), logical for unsigned ones
    /// (`shiftRight`). A count of at least the width shifts every bit out.
    fn __lshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 21, false, "shiftLeft")
    }
    fn __rlshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 21, true, "shiftLeft")
    }
    fn __rshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, self.right_shift(), false, "shiftRight")
    }
    fn __rrshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, self.right_shift(), true, "shiftRight")
    }
    /// `a.bitwise_xnor(b)`: `~(a ^ b)` (`popops::bitwiseXnor`).
    fn bitwise_xnor(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 20, false, "bitwiseXnor")
    }
    /// `a.shift_right_logical(n)`: zeros shift in whatever the dtype
    /// (`popops::shiftRight`).
    fn shift_right_logical(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 22, false, "shiftRight")
    }
    /// One-bit counts of integer tensors: `popops::popcount`,
    /// `countLeadingZeros` (in the dtype's width; the width for 0).
    fn popcount(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 32, "popcount")
    }
    fn count_leading_zeros(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 33, "countLeadingZeros")
    }
    /// Functions of float and half tensors (`popops::erf`, `sin`, …).
    fn erf(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 16, "erf")
    }
    fn sin(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 17, "sin")
    }
    fn cos(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 18, "cos")
    }
    fn tan(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 19, "tan")
    }
    fn arcsin(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 20, "asin")
    }
    fn cbrt(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 21, "cbrt")
    }
    fn expm1(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 22, "expm1")
    }
    fn exp2(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 23, "exp2")
    }
    fn log1p(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 24, "log1p")
    }
    /// Bool tensors: `popops::isFinite`, `map(IS_INF)`, `map(IS_NAN)`.
    fn isfinite(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 25, "isFinite")
    }
    fn isinf(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 26, "isInf")
    }
    fn isnan(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 27, "isNaN")
    }
    /// `rint()`: to the nearest integer, ties to even (`popops::nearbyint`,
    /// numpy's `rint`); `round()`: ties away from zero (`popops::round`,
    /// C's `round`, unlike numpy's `round`, which ties to even);
    /// `trunc()`: toward zero (`map(TRUNC)`).
    fn rint(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 28, "nearbyint")
    }
    fn round(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 29, "round")
    }
    fn trunc(&self, py: Python<'_>) -> PyResult<Tensor> {
        self.unary(py, 30, "trunc")
    }
    /// `y.arctan2(x)`: the angle of the point `(x, y)` (`popops::atan2(y, x)`).
    fn arctan2(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, o, 16, false, "atan2")
    }
    /// `var.variance_to_inv_std_dev(eps)`: `1 / sqrt(var + eps)`
    /// (`popops::varianceToInvStdDev`); float and half.
    fn variance_to_inv_std_dev(&self, py: Python<'_>, eps: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, eps, 24, false, "variance_to_inv_std_dev")
    }
    /// `isd.inv_std_dev_to_variance(eps)`: `1 / isd**2 - eps`
    /// (`popops::invStdDevToVariance`); float and half.
    fn inv_std_dev_to_variance(&self, py: Python<'_>, eps: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.binary(py, eps, 25, false, "inv_std_dev_to_variance")
    }

    /// `cast(dtype)`: `popops::cast` into a new tensor.
    fn cast(&self, py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        let ty = type_code(elem_of(dtype)?);
        let nodes = [input(1), ExprNode { kind: 4, op: 0, index: 0, ty, value: 0.0 }];
        self.map(py, &nodes, std::slice::from_ref(&self.t), "cast")
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("Tensor(shape={:?}, dtype={})", self.t.view.shape, numpy_name(self.t.elem)?))
    }
}

/// `where(condition, x, y)`: `x` where `condition` holds, else `y`
/// (numpy's `where`; `popops::select(x, y, condition)`), appended to the
/// program open in `with program:`. `x` and `y` are tensors or numbers.
#[pyfunction]
#[pyo3(name = "where")]
pub fn where_(
    py: Python<'_>,
    condition: &Tensor,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
) -> PyResult<Tensor> {
    let mut inputs = vec![condition.t.clone()];
    let slot = |v: &Bound<'_, PyAny>, inputs: &mut Vec<capi::tensor::Tensor>| -> PyResult<ExprNode> {
        Ok(match operand(v)? {
            Operand::Tensor(t) => {
                inputs.push(t);
                input(inputs.len() as u32)
            }
            Operand::Number(n) => number(n),
        })
    };
    let a = slot(x, &mut inputs)?;
    let b = slot(y, &mut inputs)?;
    let nodes = [a, b, input(1), ExprNode { kind: 5, op: 0, index: 0, ty: -1, value: 0.0 }];
    condition.map(py, &nodes, &inputs, "select")
}

/// `concat(tensors, dim)`: one view of the tensors side by side along `dim`.
#[pyfunction]
#[pyo3(signature = (tensors, dim = 0))]
pub fn concat(py: Python<'_>, tensors: Vec<PyRef<'_, Tensor>>, dim: u32) -> PyResult<Tensor> {
    let first = tensors.first().ok_or_else(|| PyIndexError::new_err("concat of no tensors"))?;
    let ts: Vec<&capi::tensor::Tensor> = tensors.iter().map(|t| &t.t).collect();
    Ok(first.derived(py, capi::tensor::Tensor::concat(&ts, dim).or_raise()?))
}
