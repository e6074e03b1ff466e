//! Views: the elements a tensor expression names, without materialising them.
//!
//! A [`View`] has the shape the expression has in PIR and a list of
//! [`Piece`]s. Each piece is an affine block over one tensor's flat
//! row-major element index: `offset + Σ i_k * stride_k` for `i_k` in
//! `0..size_k`, enumerated row-major. The view's elements, in row-major order
//! of its shape, are the pieces' elements one piece after another. Slicing,
//! striding, indexing, transposes, dimshuffles, reversals and broadcasts
//! (stride 0) of a single-piece view stay one piece, so a slice of a
//! 16M-element tensor costs a few words. `concat` joins pieces; operations
//! that cut across pieces split them into contiguous sub-ranges, and only in
//! the last resort enumerate single elements (still merged into runs).
//!
//! Views are kept in a normal form so that equal element lists built
//! different ways compare equal: every piece dimension has size ≥ 2, no two
//! adjacent dimensions of a piece can merge (`outer.stride == inner.size *
//! inner.stride`), and no two adjacent pieces can merge (see
//! [`View::push_piece`]).
//!
//! A view of one piece of at most one dimension, the commonest (a vertex's
//! edge to a slice of a tensor), keeps its piece and the piece's dimension
//! in place ([`Pieces`], [`Dims`]): an edge costs its view's shape as its
//! only allocation, and a graph of a million edges two million fewer.

use smallvec::SmallVec;

use crate::graph::TensorId;

/// Largest element count a tensor or view may have (2^48), which keeps all
/// index arithmetic comfortably inside `i64`.
pub const MAX_ELEMENTS: u64 = 1 << 48;

/// A view's pieces: one in place, more on the heap.
pub type Pieces = SmallVec<[Piece; 1]>;

/// A piece's `(size, stride)` dimensions: one in place, more on the heap.
pub type Dims = SmallVec<[(u64, i64); 1]>;

/// The elements a tensor expression names, with its shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    /// The expression's shape (empty: a scalar).
    pub shape: Vec<u64>,
    /// Affine blocks, concatenated in row-major order of `shape`.
    pub pieces: Pieces,
}

/// An affine block of one tensor's elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub tensor: TensorId,
    /// Flat row-major index of the first element in the tensor.
    pub offset: u64,
    /// `(size, stride)` per dimension, outermost first; empty for one element.
    pub dims: Dims,
}

/// A maximal run of consecutive elements of one tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub tensor: TensorId,
    /// Flat index of the first element.
    pub start: u64,
    /// Number of elements (≥ 1).
    pub len: u64,
}

/// One subscript of an index expression `t[...]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subscript {
    /// `i`: selects one index, dropping the dimension.
    Index(i64),
    /// `a:b:s` with defaults filled in by [`View::index`] when `None`.
    Slice { start: Option<i64>, end: Option<i64>, step: Option<i64> },
}

/// Why a view operation failed (the message for a diagnostic).
pub type ViewError = String;

impl Piece {
    /// Number of elements.
    pub fn len(&self) -> u64 {
        self.dims.iter().map(|d| d.0).product()
    }

    /// Always false: a piece in normal form has at least one element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Flat tensor index of the piece's `i`-th element (row-major), if in range.
    pub fn element(&self, mut i: u64) -> Option<u64> {
        let mut idx = self.offset as i128;
        for &(size, stride) in self.dims.iter().rev() {
            idx += (i % size) as i128 * stride as i128;
            i /= size;
        }
        (i == 0).then_some(idx as u64)
    }

    /// The smallest and largest flat indices the piece touches.
    pub fn bounds(&self) -> (i128, i128) {
        let mut lo = self.offset as i128;
        let mut hi = lo;
        for &(size, stride) in &self.dims {
            let ext = (size as i128 - 1) * stride as i128;
            if ext < 0 {
                lo += ext;
            } else {
                hi += ext;
            }
        }
        (lo, hi)
    }

    /// Brings the dimensions into normal form.
    fn normalize(&mut self) {
        // Most pieces are built in normal form already: check without
        // allocating.
        let normal = self.dims.iter().all(|d| d.0 != 1)
            && self.dims.windows(2).all(|w| w[0].1 as i128 != w[1].0 as i128 * w[1].1 as i128);
        if normal {
            return;
        }
        let mut out = Dims::with_capacity(self.dims.len());
        for &(size, stride) in self.dims.iter().rev() {
            if size == 1 {
                continue;
            }
            if let Some(last) = out.last_mut() {
                if stride as i128 == last.0 as i128 * last.1 as i128 {
                    last.0 *= size;
                    continue;
                }
            }
            out.push((size, stride));
        }
        out.reverse();
        self.dims = out;
    }

    /// Whether the elements are `tensor[offset .. offset + len]` in order.
    pub fn is_contiguous(&self) -> bool {
        matches!(self.dims.as_slice(), [] | [(_, 1)])
    }
}

/// Tries to merge `q` into `p` (both in normal form, `p` first).
fn merge(p: &Piece, q: &Piece) -> Option<Piece> {
    if p.tensor != q.tensor {
        return None;
    }
    let delta = q.offset as i128 - p.offset as i128;
    // Extension: q is the next block of p's outermost dimension.
    if let Some(&(m, s)) = p.dims.first() {
        if q.dims[..] == p.dims[1..] && delta == m as i128 * s as i128 {
            let mut dims = p.dims.clone();
            dims[0].0 += 1;
            return Some(normalized(p.tensor, p.offset, dims));
        }
    }
    // Pairing: two blocks of the same shape.
    if p.dims == q.dims && i64::try_from(delta).is_ok() {
        let mut dims = Dims::with_capacity(p.dims.len() + 1);
        dims.push((2, delta as i64));
        dims.extend_from_slice(&p.dims);
        return Some(normalized(p.tensor, p.offset, dims));
    }
    // Continuation of a 1-D run with the same stride.
    if let ([(m, s)], [(k, t)]) = (p.dims.as_slice(), q.dims.as_slice()) {
        if s == t && delta == *m as i128 * *s as i128 {
            return Some(normalized(p.tensor, p.offset, Dims::from_buf([(m + k, *s)])));
        }
    }
    None
}

fn normalized(tensor: TensorId, offset: u64, dims: Dims) -> Piece {
    let mut p = Piece { tensor, offset, dims };
    p.normalize();
    p
}

/// Row-major strides of a shape, in elements.
pub fn row_major_strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1].saturating_mul(shape[k + 1]);
    }
    s
}

/// Product of a shape, or `None` past [`MAX_ELEMENTS`].
pub fn checked_num_elements(shape: &[u64]) -> Option<u64> {
    let mut n: u64 = 1;
    for &d in shape {
        n = n.checked_mul(d)?;
    }
    (n <= MAX_ELEMENTS || shape.contains(&0)).then_some(n)
}

fn shape_str(shape: &[u64]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// An axis-aligned selection of a view's elements: result dimension `k` has
/// `dims[k].0` elements, moving along source axis `dims[k].1` (or none: a
/// broadcast) by `dims[k].2` per step, from source index `start`.
struct AxisMap {
    start: Vec<u64>,
    dims: Vec<(u64, Option<usize>, i64)>,
}

impl View {
    /// The whole of tensor `t` of shape `shape`.
    pub fn whole(t: TensorId, shape: &[u64]) -> View {
        let n: u64 = shape.iter().product();
        let mut v = View { shape: shape.to_vec(), pieces: Pieces::new() };
        if n > 0 {
            v.push_piece(Piece { tensor: t, offset: 0, dims: Dims::from_buf([(n, 1)]) });
        }
        v
    }

    /// Elements `offset .. offset + len` of tensor `t` (`len` at least 1),
    /// as a view of rank 1: what [`View::index`] gives for such a slice.
    pub fn run(t: TensorId, offset: u64, len: u64) -> View {
        let dims = if len == 1 { Dims::new() } else { Dims::from_buf([(len, 1)]) };
        View { shape: vec![len], pieces: Pieces::from_buf([Piece { tensor: t, offset, dims }]) }
    }

    /// A view from parts, normalising the pieces. The pieces' element count
    /// must equal the shape's; `Err` otherwise.
    pub fn from_pieces(shape: Vec<u64>, pieces: Vec<Piece>) -> Result<View, ViewError> {
        let mut v = View { shape, pieces: Pieces::with_capacity(pieces.len()) };
        for mut p in pieces {
            if p.dims.iter().any(|d| d.0 == 0) {
                continue;
            }
            p.normalize();
            v.push_piece(p);
        }
        let have: u64 = v.pieces.iter().map(|p| p.len()).sum();
        if checked_num_elements(&v.shape) != Some(have) {
            return Err(format!(
                "the pieces have {have} elements but the shape {} needs {}",
                shape_str(&v.shape),
                v.shape.iter().product::<u64>()
            ));
        }
        Ok(v)
    }

    /// Appends a piece (in normal form), merging it with the last piece while
    /// possible. This is the only way pieces are added, which keeps views in
    /// normal form.
    pub fn push_piece(&mut self, mut p: Piece) {
        p.normalize();
        while let Some(last) = self.pieces.last() {
            match merge(last, &p) {
                Some(m) => {
                    self.pieces.pop();
                    p = m;
                }
                None => break,
            }
        }
        self.pieces.push(p);
    }

    /// Number of elements.
    pub fn num_elements(&self) -> u64 {
        self.shape.iter().product()
    }

    /// Rank of the view.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// If the view is one contiguous range of one tensor: `(tensor, start, len)`.
    pub fn is_contiguous_single_tensor(&self) -> Option<(TensorId, u64, u64)> {
        match self.pieces.as_slice() {
            [p] if p.is_contiguous() => Some((p.tensor, p.offset, p.len())),
            _ => None,
        }
    }

    /// At most how many distinct elements the view reaches: per piece, the
    /// product of its sizes along dimensions with a non-zero stride (a zero
    /// stride repeats elements), and no more than its tensor holds
    /// (`tensor_len`; strides may also overlap). Below
    /// [`View::num_elements`], the view repeats some element.
    pub fn distinct_bound(&self, tensor_len: impl Fn(TensorId) -> u64) -> u64 {
        let piece = |p: &Piece| {
            let moving = p.dims.iter().filter(|d| d.1 != 0).fold(1u64, |a, d| a.saturating_mul(d.0));
            moving.min(tensor_len(p.tensor))
        };
        self.pieces.iter().map(piece).fold(0u64, u64::saturating_add)
    }

    /// How many runs [`View::runs`] walks before merging neighbours: per
    /// piece, one per innermost row when its innermost stride is 1, else
    /// one per element. The work of walking the view.
    pub fn raw_runs(&self) -> u64 {
        let piece = |p: &Piece| match p.dims.split_last() {
            Some((&(_, 1), outer)) => outer.iter().fold(1u64, |a, d| a.saturating_mul(d.0)),
            _ => p.len(),
        };
        self.pieces.iter().map(piece).fold(0u64, u64::saturating_add)
    }

    /// The tensors the view touches, in first-use order, without repeats.
    pub fn tensors(&self) -> Vec<TensorId> {
        let mut out: Vec<TensorId> = Vec::new();
        for p in &self.pieces {
            if !out.contains(&p.tensor) {
                out.push(p.tensor);
            }
        }
        out
    }

    /// The elements the view reaches as sorted, disjoint, non-adjacent
    /// ranges `(tensor, start, end)`: each element once, whatever order
    /// the view names them in and however often.
    pub fn element_ranges(&self) -> Vec<(TensorId, u64, u64)> {
        let mut r: Vec<(TensorId, u64, u64)> =
            self.runs().map(|r| (r.tensor, r.start, r.start + r.len)).collect();
        r.sort_unstable();
        let mut out: Vec<(TensorId, u64, u64)> = Vec::with_capacity(r.len());
        for (t, s, e) in r {
            match out.last_mut() {
                Some(l) if l.0 == t && s <= l.2 => l.2 = l.2.max(e),
                _ => out.push((t, s, e)),
            }
        }
        out
    }

    /// Whether the view names some element more than once (a broadcast, or
    /// overlapping pieces): writing through it would write that element
    /// twice.
    pub fn repeats_elements(&self) -> bool {
        let mut r: Vec<(TensorId, u64, u64)> =
            self.runs().map(|r| (r.tensor, r.start, r.start + r.len)).collect();
        r.sort_unstable();
        r.windows(2).any(|w| w[0].0 == w[1].0 && w[0].2 > w[1].1)
    }

    /// Whether the two views share an element (in any position). Pieces
    /// whose bounds do not meet are ruled out without walking them, so
    /// views of different tensors or disjoint slices cost nothing.
    pub fn overlaps(&self, other: &View) -> bool {
        let meet = |p: &Piece, q: &Piece| {
            let ((a, b), (c, d)) = (p.bounds(), q.bounds());
            p.tensor == q.tensor && a <= d && c <= b
        };
        if !self.pieces.iter().any(|p| other.pieces.iter().any(|q| meet(p, q))) {
            return false;
        }
        let mine = self.element_ranges();
        other.runs().any(|r| {
            let (t, s, e) = (r.tensor, r.start, r.start + r.len);
            // The first range of `mine` that could end after `s`.
            let i = mine.partition_point(|m| (m.0, m.2) <= (t, s));
            mine.get(i).is_some_and(|m| m.0 == t && m.1 < e)
        })
    }

    /// Maximal runs of consecutive elements, in the view's order.
    pub fn runs(&self) -> Runs<'_> {
        Runs { view: self, piece: 0, counter: Vec::new(), started: false, pending: None }
    }

    /// Every element as `(tensor, flat index)`, in the view's order.
    pub fn elements(&self) -> impl Iterator<Item = (TensorId, u64)> + '_ {
        self.runs().flat_map(|r| (r.start..r.start + r.len).map(move |i| (r.tensor, i)))
    }

    /// The `i`-th element (row-major) as `(tensor, flat index)`.
    pub fn element(&self, mut i: u64) -> Option<(TensorId, u64)> {
        for p in &self.pieces {
            let n = p.len();
            if i < n {
                return Some((p.tensor, p.element(i)?));
            }
            i -= n;
        }
        None
    }

    /// This view as one affine block with one `(size, stride)` per view
    /// dimension, if it is one.
    fn as_strided(&self) -> Option<(TensorId, u64, Vec<i64>)> {
        let [p] = self.pieces.as_slice() else { return None };
        let mut strides = vec![0i64; self.shape.len()];
        let mut k = self.shape.len();
        // Walk the piece's dimensions from the innermost; each must be a
        // product of consecutive view dimensions (view size-1 dims are free).
        for &(size, stride) in p.dims.iter().rev() {
            let mut acc: u64 = 1;
            let mut s = stride as i128;
            while acc < size {
                if k == 0 {
                    return None;
                }
                k -= 1;
                let d = self.shape[k];
                strides[k] = i64::try_from(s).ok()?;
                s *= d as i128;
                acc = acc.checked_mul(d)?;
            }
            if acc != size {
                return None;
            }
        }
        while k > 0 {
            k -= 1;
            if self.shape[k] != 1 {
                return None;
            }
        }
        Some((p.tensor, p.offset, strides))
    }

    /// Applies an axis-aligned selection.
    fn apply(&self, shape: Vec<u64>, map: AxisMap) -> Result<View, ViewError> {
        let n = checked_num_elements(&shape)
            .ok_or_else(|| format!("the view {} is too large", shape_str(&shape)))?;
        let mut out = View { shape, pieces: Pieces::new() };
        if n == 0 {
            return Ok(out);
        }
        if let Some((t, off, strides)) = self.as_strided() {
            let mut offset = off as i128;
            for (a, &s) in map.start.iter().enumerate() {
                offset += s as i128 * strides[a] as i128;
            }
            let dims = map
                .dims
                .iter()
                .map(|&(size, axis, step)| {
                    let st = match axis {
                        Some(a) if size > 1 => step as i128 * strides[a] as i128,
                        _ => 0,
                    };
                    (size, st as i64)
                })
                .collect();
            out.push_piece(Piece { tensor: t, offset: offset as u64, dims });
            return Ok(out);
        }
        // General case: positions in this view's row-major order.
        let rs = row_major_strides(&self.shape);
        let mut base: i128 = 0;
        for (a, &s) in map.start.iter().enumerate() {
            base += s as i128 * rs[a] as i128;
        }
        let pdims: Vec<(u64, i128)> = map
            .dims
            .iter()
            .map(|&(size, axis, step)| match axis {
                Some(a) => (size, step as i128 * rs[a] as i128),
                None => (size, 0),
            })
            .collect();
        let starts = self.piece_starts();
        let (inner_n, inner_s) = *pdims.last().unwrap_or(&(1, 1));
        let outer = &pdims[..pdims.len().saturating_sub(1)];
        let rows: u64 = outer.iter().map(|d| d.0).product();
        let mut idx = vec![0u64; outer.len()];
        for _ in 0..rows {
            let mut pos = base;
            for (k, &(_, s)) in outer.iter().enumerate() {
                pos += idx[k] as i128 * s;
            }
            if inner_s == 1 {
                self.extract_range(&starts, pos as u64, pos as u64 + inner_n, &mut out);
            } else {
                for j in 0..inner_n {
                    let q = (pos + j as i128 * inner_s) as u64;
                    self.extract_range(&starts, q, q + 1, &mut out);
                }
            }
            for k in (0..idx.len()).rev() {
                idx[k] += 1;
                if idx[k] < outer[k].0 {
                    break;
                }
                idx[k] = 0;
            }
        }
        Ok(out)
    }

    fn piece_starts(&self) -> Vec<u64> {
        let mut acc = 0;
        self.pieces
            .iter()
            .map(|p| {
                let s = acc;
                acc += p.len();
                s
            })
            .collect()
    }

    /// Appends this view's elements `lo..hi` (row-major positions) to `out`.
    fn extract_range(&self, starts: &[u64], lo: u64, hi: u64, out: &mut View) {
        if lo >= hi {
            return;
        }
        let mut i = starts.partition_point(|&s| s <= lo).saturating_sub(1);
        while i < self.pieces.len() && starts[i] < hi {
            let p = &self.pieces[i];
            let a = lo.max(starts[i]) - starts[i];
            let b = hi.min(starts[i] + p.len()) - starts[i];
            split_piece(p.tensor, p.offset as i128, &p.dims, a, b, out);
            i += 1;
        }
    }

    /// `v[i, j, a:b]` of a view that is one contiguous run of one tensor,
    /// when the subscripts keep it one (leading indices, then at most one
    /// slice of step 1, then whole dimensions) and are in range: the
    /// commonest subscript, a vertex's slice of its tensor, as one piece
    /// without [`View::apply`]'s bookkeeping. `None` otherwise: the
    /// general path then gives the same view, or the error.
    fn contiguous_index(&self, subs: &[Subscript]) -> Option<View> {
        if subs.len() > self.rank() {
            return None;
        }
        let (tensor, mut start, len) = self.is_contiguous_single_tensor()?;
        // Elements under one index of the dimension at hand; no dimension
        // is 0, since the view has a piece.
        let mut block = len;
        let mut rest = self.shape.as_slice();
        let mut cut = None;
        let mut subs = subs.iter();
        for sub in subs.by_ref() {
            let (&dim, tail) = rest.split_first()?;
            block /= dim;
            rest = tail;
            match *sub {
                Subscript::Index(i) if i >= 0 && (i as u64) < dim => start += i as u64 * block,
                Subscript::Slice { start: s, end: e, step: None | Some(1) } => {
                    let (s, e) = (s.unwrap_or(0), e.unwrap_or(dim as i64));
                    if s < 0 || e < s || e as u64 > dim {
                        return None;
                    }
                    start += s as u64 * block;
                    cut = Some((e - s) as u64);
                    break;
                }
                _ => return None,
            }
        }
        // What follows the slice must take whole dimensions.
        for (sub, &dim) in subs.zip(rest) {
            let whole = matches!(*sub, Subscript::Slice { start: None | Some(0), end, step: None | Some(1) }
                if end.is_none_or(|e| e == dim as i64));
            if !whole {
                return None;
            }
        }
        let mut shape = Vec::with_capacity(rest.len() + 1);
        shape.extend(cut);
        shape.extend_from_slice(rest);
        let n = cut.unwrap_or(1) * block;
        let pieces = match n {
            0 => Pieces::new(),
            1 => Pieces::from_buf([Piece { tensor, offset: start, dims: Dims::new() }]),
            _ => Pieces::from_buf([Piece { tensor, offset: start, dims: Dims::from_buf([(n, 1)]) }]),
        };
        Some(View { shape, pieces })
    }

    /// `v[subscripts]`: indexes and slices the leading dimensions.
    pub fn index(&self, subs: &[Subscript]) -> Result<View, ViewError> {
        match self.contiguous_index(subs) {
            Some(v) => Ok(v),
            None => self.index_general(subs),
        }
    }

    /// [`View::index`] of any view, through an [`AxisMap`].
    fn index_general(&self, subs: &[Subscript]) -> Result<View, ViewError> {
        if subs.len() > self.rank() {
            return Err(format!(
                "{} subscripts for a view of rank {} (shape {})",
                subs.len(),
                self.rank(),
                shape_str(&self.shape)
            ));
        }
        let mut start = vec![0u64; self.rank()];
        let mut dims = Vec::new();
        let mut shape = Vec::new();
        for (a, &dim) in self.shape.iter().enumerate() {
            match subs.get(a) {
                None => {
                    dims.push((dim, Some(a), 1));
                    shape.push(dim);
                }
                Some(&Subscript::Index(i)) => {
                    if i < 0 || i as u64 >= dim {
                        return Err(format!("index {i} is out of range for dimension {a} of size {dim}"));
                    }
                    start[a] = i as u64;
                }
                Some(&Subscript::Slice { start: s, end: e, step: Some(step) }) if step < 0 => {
                    // Backwards from `s` (default: the last index) down to just
                    // above `e` (default: all the way), a negative-stride axis
                    // as `reverse` makes.
                    let last = dim as i64 - 1;
                    let s = s.unwrap_or(last);
                    if dim > 0 && (s < 0 || s > last) {
                        return Err(format!(
                            "slice start {s} is out of range for dimension {a} of size {dim}"
                        ));
                    }
                    let n = match e {
                        None => (s + 1) as u64 / step.unsigned_abs() + u64::from((s + 1) % step != 0),
                        Some(e) if e < 0 || e > last => {
                            return Err(format!(
                                "slice end {e} is out of range for dimension {a} of size {dim}"
                            ))
                        }
                        Some(e) if e > s => {
                            return Err(format!("slice bounds are reversed: {e} > {s} for a negative stride"))
                        }
                        Some(e) => (s - e) as u64 / step.unsigned_abs() + u64::from((s - e) % step != 0),
                    };
                    start[a] = s.max(0) as u64;
                    dims.push((n, Some(a), step));
                    shape.push(n);
                }
                Some(&Subscript::Slice { start: s, end: e, step }) => {
                    let step = step.unwrap_or(1);
                    if step == 0 {
                        return Err("slice stride must not be 0".into());
                    }
                    let s = s.unwrap_or(0);
                    let e = e.unwrap_or(dim as i64);
                    if s < 0 || s as u64 > dim {
                        return Err(format!(
                            "slice start {s} is out of range for dimension {a} of size {dim}"
                        ));
                    }
                    if e < 0 || e as u64 > dim {
                        return Err(format!("slice end {e} is out of range for dimension {a} of size {dim}"));
                    }
                    if s > e {
                        return Err(format!("slice bounds are reversed: {s} > {e}"));
                    }
                    let n = (e - s) as u64 / step as u64 + u64::from((e - s) % step != 0);
                    start[a] = s as u64;
                    dims.push((n, Some(a), step));
                    shape.push(n);
                }
            }
        }
        self.apply(shape, AxisMap { start, dims })
    }

    /// `transpose(v)`: swaps the two dimensions of a 2-D view.
    pub fn transpose(&self) -> Result<View, ViewError> {
        if self.rank() != 2 {
            return Err(format!("transpose needs a 2-D view, not one of shape {}", shape_str(&self.shape)));
        }
        self.dimshuffle(&[1, 0])
    }

    /// `dimshuffle(v, perm)`: result dimension `k` is source dimension `perm[k]`.
    pub fn dimshuffle(&self, perm: &[i64]) -> Result<View, ViewError> {
        let r = self.rank();
        let mut seen = vec![false; r];
        let bad = perm.len() != r
            || perm.iter().any(|&p| {
                if p < 0 || p as usize >= r || seen[p as usize] {
                    return true;
                }
                seen[p as usize] = true;
                false
            });
        if bad {
            let ps: Vec<String> = perm.iter().map(|p| p.to_string()).collect();
            return Err(format!(
                "[{}] is not a permutation of the {r} dimensions of a view of shape {}",
                ps.join(", "),
                shape_str(&self.shape)
            ));
        }
        let dims: Vec<_> = perm.iter().map(|&p| (self.shape[p as usize], Some(p as usize), 1)).collect();
        let shape = dims.iter().map(|d| d.0).collect();
        self.apply(shape, AxisMap { start: vec![0; r], dims })
    }

    /// `reverse(v)`: reverses the outermost dimension.
    pub fn reverse(&self) -> Result<View, ViewError> {
        let Some(&d0) = self.shape.first() else {
            return Err("reverse needs a view of rank at least 1, not a scalar".into());
        };
        let mut start = vec![0; self.rank()];
        start[0] = d0.saturating_sub(1);
        let dims =
            self.shape.iter().enumerate().map(|(a, &d)| (d, Some(a), if a == 0 { -1 } else { 1 })).collect();
        self.apply(self.shape.clone(), AxisMap { start, dims })
    }

    /// `broadcast(v, n)`: a new outermost dimension of size `n`, stride 0.
    pub fn broadcast(&self, n: i64) -> Result<View, ViewError> {
        if n < 0 {
            return Err(format!("broadcast count must not be negative, not {n}"));
        }
        let mut shape = vec![n as u64];
        shape.extend_from_slice(&self.shape);
        let mut dims = vec![(n as u64, None, 0)];
        dims.extend(self.shape.iter().enumerate().map(|(a, &d)| (d, Some(a), 1)));
        self.apply(shape, AxisMap { start: vec![0; self.rank()], dims })
    }

    /// `reshape(v, shape)`: the same elements in row-major order.
    pub fn reshape(&self, shape: &[i64]) -> Result<View, ViewError> {
        if let Some(d) = shape.iter().find(|&&d| d < 0) {
            return Err(format!("reshape dimension {d} is negative"));
        }
        let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let n = checked_num_elements(&shape)
            .ok_or_else(|| format!("the shape {} is too large", shape_str(&shape)))?;
        if n != self.num_elements() {
            return Err(format!(
                "cannot reshape {} elements (shape {}) to shape {} ({} elements)",
                self.num_elements(),
                shape_str(&self.shape),
                shape_str(&shape),
                n
            ));
        }
        Ok(View { shape, pieces: self.pieces.clone() })
    }

    /// `flatten(v)`: rank 1.
    pub fn flatten(&self) -> View {
        View { shape: vec![self.num_elements()], pieces: self.pieces.clone() }
    }

    /// `concat(views…, dim = d)`: joins views along dimension `d`.
    pub fn concat(views: &[View], dim: i64) -> Result<View, ViewError> {
        let Some(first) = views.first() else {
            return Err("concat needs at least one view".into());
        };
        let r = first.rank();
        if dim < 0 || dim as usize >= r {
            return Err(format!(
                "concat dimension {dim} is out of range for views of rank {r} (shape {})",
                shape_str(&first.shape)
            ));
        }
        let d = dim as usize;
        let mut shape = first.shape.clone();
        shape[d] = 0;
        for (i, v) in views.iter().enumerate() {
            let same =
                v.rank() == r && v.shape.iter().enumerate().all(|(a, &x)| a == d || x == first.shape[a]);
            if !same {
                return Err(format!(
                    "concat operand {} has shape {}, which does not match {} outside dimension {d}",
                    i + 1,
                    shape_str(&v.shape),
                    shape_str(&first.shape)
                ));
            }
            shape[d] = shape[d].saturating_add(v.shape[d]);
        }
        checked_num_elements(&shape).ok_or_else(|| format!("the view {} is too large", shape_str(&shape)))?;
        let mut out = View { shape, pieces: Pieces::new() };
        let outer: u64 = first.shape[..d].iter().product();
        let starts: Vec<Vec<u64>> = views.iter().map(|v| v.piece_starts()).collect();
        for o in 0..outer {
            for (v, st) in views.iter().zip(&starts) {
                let chunk: u64 = v.shape[d..].iter().product();
                if outer == 1 {
                    for p in &v.pieces {
                        out.push_piece(p.clone());
                    }
                } else {
                    v.extract_range(st, o * chunk, (o + 1) * chunk, &mut out);
                }
            }
        }
        Ok(out)
    }

    /// `affine(t, offset, [[size, stride], …])` over tensor `t` with
    /// `tensor_len` elements: the printer's form for any one piece.
    pub fn affine(t: TensorId, tensor_len: u64, offset: i64, dims: &[(i64, i64)]) -> Result<View, ViewError> {
        let mut shape = Vec::new();
        for &(n, _) in dims {
            if n < 0 {
                return Err(format!("affine size {n} is negative"));
            }
            shape.push(n as u64);
        }
        let n = checked_num_elements(&shape)
            .ok_or_else(|| format!("the view {} is too large", shape_str(&shape)))?;
        let mut out = View { shape, pieces: Pieces::new() };
        if n == 0 {
            return Ok(out);
        }
        let p = Piece {
            tensor: t,
            offset: offset.max(0) as u64,
            dims: dims.iter().map(|&(n, s)| (n as u64, s)).collect(),
        };
        let (lo, hi) = p.bounds();
        if offset < 0 || lo < 0 || hi >= tensor_len as i128 {
            return Err(format!(
                "affine view reaches elements {lo}..={hi}, outside the tensor's {tensor_len} elements"
            ));
        }
        out.push_piece(p);
        Ok(out)
    }
}

/// Appends elements `lo..hi` of the affine block `(offset, dims)` to `out`,
/// as at most a few affine pieces.
fn split_piece(t: TensorId, offset: i128, dims: &[(u64, i64)], lo: u64, hi: u64, out: &mut View) {
    if lo >= hi {
        return;
    }
    let Some((&(n0, s0), rest)) = dims.split_first() else {
        out.push_piece(Piece { tensor: t, offset: offset as u64, dims: Dims::new() });
        return;
    };
    let inner: u64 = rest.iter().map(|d| d.0).product();
    if lo == 0 && hi == n0 * inner {
        out.push_piece(Piece { tensor: t, offset: offset as u64, dims: Dims::from_slice(dims) });
        return;
    }
    let (i0, r0) = (lo / inner, lo % inner);
    let (i1, r1) = (hi / inner, hi % inner);
    if i0 == i1 {
        split_piece(t, offset + i0 as i128 * s0 as i128, rest, r0, r1, out);
        return;
    }
    let mut first_full = i0;
    if r0 != 0 {
        split_piece(t, offset + i0 as i128 * s0 as i128, rest, r0, inner, out);
        first_full += 1;
    }
    if i1 > first_full {
        let mut d = Dims::with_capacity(rest.len() + 1);
        d.push((i1 - first_full, s0));
        d.extend_from_slice(rest);
        out.push_piece(Piece {
            tensor: t,
            offset: (offset + first_full as i128 * s0 as i128) as u64,
            dims: d,
        });
    }
    if r1 != 0 {
        split_piece(t, offset + i1 as i128 * s0 as i128, rest, 0, r1, out);
    }
}

/// Iterator over a view's maximal runs (see [`View::runs`]).
pub struct Runs<'a> {
    view: &'a View,
    piece: usize,
    counter: Vec<u64>,
    started: bool,
    pending: Option<Run>,
}

impl Runs<'_> {
    /// The next run of the raw enumeration (innermost rows when stride 1,
    /// otherwise single elements), not yet merged.
    fn next_raw(&mut self) -> Option<Run> {
        loop {
            let p = self.view.pieces.get(self.piece)?;
            let (outer, row_len) = match p.dims.last() {
                Some(&(n, 1)) => (&p.dims[..p.dims.len() - 1], n),
                _ => (&p.dims[..], 1),
            };
            if !self.started {
                self.counter.clear();
                self.counter.resize(outer.len(), 0);
                self.started = true;
            } else {
                // Advance the odometer; at the end move to the next piece.
                let mut done = true;
                for k in (0..outer.len()).rev() {
                    self.counter[k] += 1;
                    if self.counter[k] < outer[k].0 {
                        done = false;
                        break;
                    }
                    self.counter[k] = 0;
                }
                if done {
                    self.piece += 1;
                    self.started = false;
                    continue;
                }
            }
            let mut start = p.offset as i128;
            for (k, &(_, s)) in outer.iter().enumerate() {
                start += self.counter[k] as i128 * s as i128;
            }
            return Some(Run { tensor: p.tensor, start: start as u64, len: row_len });
        }
    }
}

impl Iterator for Runs<'_> {
    type Item = Run;
    fn next(&mut self) -> Option<Run> {
        let mut cur = match self.pending.take() {
            Some(r) => r,
            None => self.next_raw()?,
        };
        while let Some(r) = self.next_raw() {
            if r.tensor == cur.tensor && r.start == cur.start + cur.len {
                cur.len += r.len;
            } else {
                self.pending = Some(r);
                break;
            }
        }
        Some(cur)
    }
}

#[cfg(test)]
mod tests;
