//! What a cross-replica collective computes, given every replica's input
//! bytes: a pure function, so replicas in one process and replicas spread
//! over MPI ranks get the same bytes from the same inputs.
//!
//! The reduction order is this toolchain's promise, not GCL's: within a
//! group, members are combined left to right in group order
//! (`((x0 op x1) op x2) …`), each step rounded to the element type, so a
//! floating-point sum is the same for any thread count, device or number
//! of processes. `mean` is that sum divided by the group size; `square_add`
//! sums the squares; `min` and `max` give NaN if any member's element is
//! NaN; integers wrap.

use half::f16;
use linker::gp::ElemType;
use rayon::prelude::*;
use vocab::{CollectiveKind, CollectiveOp, CommGroup};

/// The outputs of a collective among `inputs.len()` replicas (`inputs[i]`
/// is replica `i`'s input) for replicas `keep`, in order: a group none of
/// them belongs to is not computed. `kind`, `op`, `group` and the sizes
/// were checked by the validator. An all-reduce reduces into its group's
/// first input and hands each member its own input's buffer back with the
/// result, so a reduction allocates nothing.
pub fn outputs(
    kind: CollectiveKind,
    op: Option<CollectiveOp>,
    group: CommGroup,
    elem: ElemType,
    mut inputs: Vec<Vec<u8>>,
    keep: std::ops::Range<usize>,
) -> Vec<Vec<u8>> {
    let replicas = inputs.len() as u32;
    let size = elem.size() as usize;
    let mut out = vec![Vec::new(); inputs.len()];
    for members in group.groups(replicas) {
        if !members.iter().any(|&m| keep.contains(&(m as usize))) {
            continue;
        }
        let g = members.len();
        let kept = |m: &u32| keep.contains(&(*m as usize));
        match kind {
            CollectiveKind::AllReduce | CollectiveKind::ReduceScatter => {
                let op = op.unwrap_or(CollectiveOp::Add);
                let first = members[0] as usize;
                let mut red = std::mem::take(&mut inputs[first]);
                let others: Vec<&[u8]> =
                    members[1..].iter().map(|&m| inputs[m as usize].as_slice()).collect();
                reduce_into(op, elem, &mut red, &others);
                for (i, &m) in members.iter().enumerate().filter(|(_, m)| kept(m)) {
                    let m = m as usize;
                    out[m] = match kind {
                        CollectiveKind::AllReduce if m == first => continue,
                        CollectiveKind::AllReduce => {
                            let mut own = std::mem::take(&mut inputs[m]);
                            own.clear();
                            own.extend_from_slice(&red);
                            own
                        }
                        _ => scatter_part(&red, size, g, i),
                    };
                }
                if kind == CollectiveKind::AllReduce && kept(&members[0]) {
                    out[first] = red;
                }
            }
            CollectiveKind::AllGather => {
                let all: Vec<u8> = members.iter().flat_map(|&m| inputs[m as usize].iter().copied()).collect();
                for &m in members.iter().filter(|m| kept(m)) {
                    out[m as usize] = all.clone();
                }
            }
            CollectiveKind::AllToAll => {
                let of = |i: usize| inputs[members[i] as usize].as_slice();
                let chunk = of(0).len() / g;
                for (j, &m) in members.iter().enumerate().filter(|(_, m)| kept(m)) {
                    out[m as usize] =
                        (0..g).flat_map(|i| of(i)[j * chunk..(j + 1) * chunk].iter().copied()).collect();
                }
            }
            CollectiveKind::Broadcast { root } => {
                let src = inputs[members[root as usize] as usize].clone();
                for &m in members.iter().filter(|m| kept(m)) {
                    out[m as usize] = src.clone();
                }
            }
        }
    }
    out.truncate(keep.end.min(replicas as usize));
    out.drain(..keep.start.min(out.len()));
    out
}

/// Replica `i`'s part of a group's reduced vector `red` for a group of
/// `g` members: the vector is cut into `g` equal parts of whole elements,
/// the last padded with zeros.
pub(crate) fn scatter_part(red: &[u8], size: usize, g: usize, i: usize) -> Vec<u8> {
    let part = (red.len() / size).div_ceil(g) * size;
    let mut out = vec![0u8; part];
    let from = (i * part).min(red.len());
    let to = ((i + 1) * part).min(red.len());
    out[..to - from].copy_from_slice(&red[from..to]);
    out
}

/// An element type a reduction combines: read from and written to
/// little-endian bytes, with the operators of [`CollectiveOp`].
trait Elem: Copy {
    const SIZE: usize;
    fn get(b: &[u8]) -> Self;
    fn put(self, b: &mut [u8]);
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    /// The mean's division by the group size.
    fn div(self, g: usize) -> Self;
}

/// [`Elem`]'s reading and writing of little-endian bytes.
macro_rules! le_bytes {
    ($t:ty) => {
        fn get(b: &[u8]) -> Self {
            <$t>::from_le_bytes(b.try_into().unwrap_or_default())
        }
        fn put(self, b: &mut [u8]) {
            b.copy_from_slice(&self.to_le_bytes());
        }
    };
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            le_bytes!($t);
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn min(self, o: Self) -> Self {
                Ord::min(self, o)
            }
            fn max(self, o: Self) -> Self {
                Ord::max(self, o)
            }
            // The quotient itself, even where the group size does not fit
            // the element type.
            fn div(self, g: usize) -> Self {
                (self as i128 / g.max(1) as i128) as $t
            }
        }
    )*};
}
int_elem!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! float_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            le_bytes!($t);
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn min(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { <$t>::NAN } else { <$t>::min(self, o) }
            }
            fn max(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { <$t>::NAN } else { <$t>::max(self, o) }
            }
            fn div(self, g: usize) -> Self {
                self / g as $t
            }
        }
    )*};
}
float_elem!(f32, f64);

/// Each step in single precision, rounded back to half.
impl Elem for f16 {
    const SIZE: usize = 2;
    le_bytes!(f16);
    fn add(self, o: Self) -> Self {
        f16::from_f32(self.to_f32() + o.to_f32())
    }
    fn mul(self, o: Self) -> Self {
        f16::from_f32(self.to_f32() * o.to_f32())
    }
    fn min(self, o: Self) -> Self {
        if self.is_nan() || o.is_nan() {
            f16::NAN
        } else {
            f16::min(self, o)
        }
    }
    fn max(self, o: Self) -> Self {
        if self.is_nan() || o.is_nan() {
            f16::NAN
        } else {
            f16::max(self, o)
        }
    }
    fn div(self, g: usize) -> Self {
        f16::from_f32(self.to_f32() / g as f32)
    }
}

/// Elements one thread combines at a time: a reduction is split into
/// pieces of this many elements over rayon's threads. Every element sees
/// the same operations in the same order however it is split, so the
/// bytes do not depend on the thread count.
const PIECE: usize = 1 << 15;

/// `acc[i] = f(acc[i], x[i])` over a member's elements, in place on the
/// little-endian bytes. Generic over `f` so that each operator gets its
/// own loop.
#[inline]
fn combine<T: Elem>(acc: &mut [u8], x: &[u8], f: impl Fn(T, T) -> T) {
    for (a, b) in acc.chunks_exact_mut(T::SIZE).zip(x.chunks_exact(T::SIZE)) {
        f(T::get(a), T::get(b)).put(a);
    }
}

/// `acc[i] = f(acc[i])` over the elements of `acc`.
#[inline]
fn each<T: Elem>(acc: &mut [u8], f: impl Fn(T) -> T) {
    for a in acc.chunks_exact_mut(T::SIZE) {
        f(T::get(a)).put(a);
    }
}

/// One piece of a reduction: `acc` holds the first member's elements
/// from byte `at` on, `others` every later member's whole input.
fn fold_piece<T: Elem>(op: CollectiveOp, acc: &mut [u8], others: &[&[u8]], at: usize, members: usize) {
    if op == CollectiveOp::SquareAdd {
        each::<T>(acc, |a| a.mul(a));
    }
    for x in others {
        let x = &x[at..at + acc.len()];
        match op {
            CollectiveOp::Add | CollectiveOp::Mean => combine(acc, x, T::add),
            CollectiveOp::SquareAdd => combine::<T>(acc, x, |a, v| a.add(v.mul(v))),
            CollectiveOp::Mul => combine(acc, x, T::mul),
            CollectiveOp::Min => combine(acc, x, T::min),
            CollectiveOp::Max => combine(acc, x, T::max),
            // Logical operators take `bool` only (checked).
            CollectiveOp::And | CollectiveOp::Or => {}
        }
    }
    if op == CollectiveOp::Mean {
        each::<T>(acc, |a| a.div(members));
    }
}

/// The members combined element by element, member after member, into
/// `acc` (the first member's input): every element sees the same
/// left-to-right order.
fn fold<T: Elem>(op: CollectiveOp, acc: &mut [u8], others: &[&[u8]]) {
    let members = others.len() + 1;
    let bytes = PIECE * T::SIZE;
    acc.par_chunks_mut(bytes)
        .enumerate()
        .for_each(|(k, piece)| fold_piece::<T>(op, piece, others, k * bytes, members));
}

/// Combines the group's later members' inputs (`others`, each as long as
/// `acc`) into `acc`, the first member's input, left to right.
pub(crate) fn reduce_into(op: CollectiveOp, elem: ElemType, acc: &mut [u8], others: &[&[u8]]) {
    if others.iter().any(|x| x.len() < acc.len()) {
        // The validator and the fabrics check sizes; never read past one.
        return;
    }
    match elem {
        ElemType::Bool => {
            for x in others {
                for (a, &b) in acc.iter_mut().zip(x.iter()) {
                    let (a0, b0) = (*a != 0, b != 0);
                    *a = u8::from(if op == CollectiveOp::Or { a0 || b0 } else { a0 && b0 });
                }
            }
            if others.is_empty() {
                acc.iter_mut().for_each(|a| *a = u8::from(*a != 0));
            }
        }
        ElemType::Char => fold::<i8>(op, acc, others),
        ElemType::UChar | ElemType::Quarter => fold::<u8>(op, acc, others),
        ElemType::Short => fold::<i16>(op, acc, others),
        ElemType::UShort => fold::<u16>(op, acc, others),
        ElemType::Int => fold::<i32>(op, acc, others),
        ElemType::UInt => fold::<u32>(op, acc, others),
        ElemType::Long => fold::<i64>(op, acc, others),
        ElemType::ULong => fold::<u64>(op, acc, others),
        ElemType::Float => fold::<f32>(op, acc, others),
        ElemType::Double => fold::<f64>(op, acc, others),
        ElemType::Half => fold::<f16>(op, acc, others),
    }
}

/// The members' inputs (equal lengths) combined element by element, left
/// to right, into a new vector.
pub(crate) fn reduce(op: CollectiveOp, elem: ElemType, inputs: &[&[u8]]) -> Vec<u8> {
    let mut acc = inputs[0].to_vec();
    reduce_into(op, elem, &mut acc, &inputs[1..]);
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn back(b: &[u8]) -> Vec<f32> {
        b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    #[test]
    fn all_reduce_in_group_order() {
        let ins = vec![f32s(&[1.0, 1e8]), f32s(&[2.0, 1.0]), f32s(&[3.0, -1e8]), f32s(&[4.0, 0.5])];
        let out = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Add),
            CommGroup::All,
            ElemType::Float,
            ins.clone(),
            0..ins.len(),
        );
        // ((1e8 + 1) - 1e8) + 0.5 in f32: the 1 is lost, as left to right says.
        assert_eq!(back(&out[3]), vec![10.0, 0.5]);
        let out = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Mean),
            CommGroup::Consecutive(2),
            ElemType::Float,
            ins.clone(),
            0..ins.len(),
        );
        assert_eq!(back(&out[0])[0], 1.5);
        assert_eq!(back(&out[2])[0], 3.5);
        let out = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Max),
            CommGroup::Orthogonal(2),
            ElemType::Float,
            ins.clone(),
            0..ins.len(),
        );
        assert_eq!(back(&out[1]), vec![4.0, 1.0]);
    }

    #[test]
    fn scatter_gather_all_to_all_broadcast() {
        let ins = vec![f32s(&[1.0, 2.0, 3.0]), f32s(&[10.0, 20.0, 30.0])];
        let rs = outputs(
            CollectiveKind::ReduceScatter,
            Some(CollectiveOp::Add),
            CommGroup::All,
            ElemType::Float,
            ins.clone(),
            0..ins.len(),
        );
        assert_eq!((back(&rs[0]), back(&rs[1])), (vec![11.0, 22.0], vec![33.0, 0.0]));
        let ag = outputs(
            CollectiveKind::AllGather,
            None,
            CommGroup::All,
            ElemType::Float,
            ins.clone(),
            0..ins.len(),
        );
        assert_eq!(back(&ag[1]), vec![1.0, 2.0, 3.0, 10.0, 20.0, 30.0]);
        let ins = vec![f32s(&[1.0, 2.0]), f32s(&[10.0, 20.0])];
        let a2a = outputs(
            CollectiveKind::AllToAll,
            None,
            CommGroup::All,
            ElemType::Float,
            ins.clone(),
            0..ins.len(),
        );
        assert_eq!((back(&a2a[0]), back(&a2a[1])), (vec![1.0, 10.0], vec![2.0, 20.0]));
        let bc = outputs(
            CollectiveKind::Broadcast { root: 1 },
            None,
            CommGroup::All,
            ElemType::Float,
            ins.clone(),
            0..ins.len(),
        );
        assert_eq!(back(&bc[0]), vec![10.0, 20.0]);
    }

    #[test]
    fn nan_and_integers() {
        let ins = vec![f32s(&[1.0]), f32s(&[f32::NAN])];
        let out = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Min),
            CommGroup::All,
            ElemType::Float,
            ins.clone(),
            0..ins.len(),
        );
        assert!(back(&out[0])[0].is_nan());
        let ins = vec![vec![200u8], vec![100u8]];
        let out = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Add),
            CommGroup::All,
            ElemType::UChar,
            ins.clone(),
            0..ins.len(),
        );
        assert_eq!(out[0], vec![44]);
        let ins = vec![vec![1u8], vec![0u8]];
        let and = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::And),
            CommGroup::All,
            ElemType::Bool,
            ins.clone(),
            0..ins.len(),
        );
        let or = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Or),
            CommGroup::All,
            ElemType::Bool,
            ins.clone(),
            0..ins.len(),
        );
        assert_eq!((and[0][0], or[0][0]), (0, 1));
    }

    /// Longer than several pieces and not a multiple of one: each element
    /// is the left-to-right sum, the same bytes on one thread or many, and
    /// each member gets its own buffer back holding the result.
    #[test]
    fn long_reductions_split_over_threads_keep_the_order() {
        let n = 3 * PIECE + 17;
        let member = |r: usize| -> Vec<f32> {
            (0..n).map(|j| ((j * 7 + r * 13) % 101) as f32 * 0.37 - 11.0).collect()
        };
        let m: Vec<Vec<f32>> = (0..3).map(member).collect();
        let ins: Vec<Vec<u8>> = m.iter().map(|x| f32s(x)).collect();
        let want: Vec<f32> = (0..n).map(|j| (m[0][j] + m[1][j]) + m[2][j]).collect();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                outputs(
                    CollectiveKind::AllReduce,
                    Some(CollectiveOp::Add),
                    CommGroup::All,
                    ElemType::Float,
                    ins.clone(),
                    0..3,
                )
            })
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one, two);
        for out in &one {
            assert_eq!(back(out), want);
        }
        let halves: Vec<Vec<u8>> = (0..2)
            .map(|r| member(r).iter().flat_map(|&x| f16::from_f32(x).to_le_bytes()).collect())
            .collect();
        let sum = reduce(CollectiveOp::SquareAdd, ElemType::Half, &[&halves[0], &halves[1]]);
        for (j, b) in sum.chunks_exact(2).enumerate() {
            let (a, c) = (f16::from_f32(m[0][j]), f16::from_f32(m[1][j]));
            let sq = |x: f16| f16::from_f32(x.to_f32() * x.to_f32());
            let want = f16::from_f32(sq(a).to_f32() + sq(c).to_f32());
            assert_eq!(f16::from_le_bytes([b[0], b[1]]).to_bits(), want.to_bits(), "element {j}");
        }
    }
}
