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
use vocab::{CollectiveKind, CollectiveOp, CommGroup};

/// The outputs of a collective among `inputs.len()` replicas (`inputs[i]`
/// is replica `i`'s input) for replicas `keep`, in order: a group none of
/// them belongs to is not computed. `kind`, `op`, `group` and the sizes
/// were checked by the validator.
pub fn outputs(
    kind: CollectiveKind,
    op: Option<CollectiveOp>,
    group: CommGroup,
    elem: ElemType,
    inputs: &[Vec<u8>],
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
        let of = |i: usize| inputs[members[i] as usize].as_slice();
        match kind {
            CollectiveKind::AllReduce | CollectiveKind::ReduceScatter => {
                let op = op.unwrap_or(CollectiveOp::Add);
                let all: Vec<&[u8]> = (0..g).map(of).collect();
                let mut red = reduce(op, elem, &all);
                if kind == CollectiveKind::AllReduce {
                    for &m in members.iter().filter(|&&m| keep.contains(&(m as usize))) {
                        out[m as usize] = red.clone();
                    }
                    continue;
                }
                let n = red.len() / size;
                let part = n.div_ceil(g);
                red.resize(part * g * size, 0);
                for (i, &m) in members.iter().enumerate().filter(|(_, &m)| keep.contains(&(m as usize))) {
                    out[m as usize] = red[i * part * size..(i + 1) * part * size].to_vec();
                }
            }
            CollectiveKind::AllGather => {
                let all: Vec<u8> = (0..g).flat_map(|i| of(i).iter().copied()).collect();
                for &m in members.iter().filter(|&&m| keep.contains(&(m as usize))) {
                    out[m as usize] = all.clone();
                }
            }
            CollectiveKind::AllToAll => {
                let chunk = of(0).len() / g;
                for (j, &m) in members.iter().enumerate().filter(|(_, &m)| keep.contains(&(m as usize))) {
                    out[m as usize] =
                        (0..g).flat_map(|i| of(i)[j * chunk..(j + 1) * chunk].iter().copied()).collect();
                }
            }
            CollectiveKind::Broadcast { root } => {
                let src = of(root as usize);
                for &m in members.iter().filter(|&&m| keep.contains(&(m as usize))) {
                    out[m as usize] = src.to_vec();
                }
            }
        }
    }
    out.truncate(keep.end.min(inputs.len()));
    out.drain(..keep.start.min(out.len()));
    out
}

/// The members' inputs (equal lengths) combined element by element, left
/// to right.
fn reduce(op: CollectiveOp, elem: ElemType, inputs: &[&[u8]]) -> Vec<u8> {
    let g = inputs.len();
    macro_rules! fold {
        ($t:ty, $get:expr, $put:expr, $add:expr, $mul:expr, $min:expr, $max:expr, $div:expr) => {{
            let size = std::mem::size_of::<$t>();
            let n = inputs[0].len() / size;
            let get = |b: &[u8], i: usize| -> $t { $get(&b[i * size..(i + 1) * size]) };
            let mut out = Vec::with_capacity(n * size);
            for i in 0..n {
                let first: $t = get(inputs[0], i);
                let mut acc = match op {
                    CollectiveOp::SquareAdd => $mul(first, first),
                    _ => first,
                };
                for x in &inputs[1..] {
                    let v: $t = get(x, i);
                    acc = match op {
                        CollectiveOp::Add | CollectiveOp::Mean => $add(acc, v),
                        CollectiveOp::SquareAdd => $add(acc, $mul(v, v)),
                        CollectiveOp::Mul => $mul(acc, v),
                        CollectiveOp::Min => $min(acc, v),
                        CollectiveOp::Max => $max(acc, v),
                        // Logical operators take `bool` only (checked).
                        CollectiveOp::And | CollectiveOp::Or => acc,
                    };
                }
                if op == CollectiveOp::Mean {
                    acc = $div(acc, g);
                }
                $put(acc, &mut out);
            }
            out
        }};
    }
    macro_rules! int {
        ($t:ty) => {
            fold!(
                $t,
                |b: &[u8]| <$t>::from_le_bytes(b.try_into().unwrap()),
                |v: $t, o: &mut Vec<u8>| o.extend_from_slice(&v.to_le_bytes()),
                |a: $t, b: $t| a.wrapping_add(b),
                |a: $t, b: $t| a.wrapping_mul(b),
                |a: $t, b: $t| a.min(b),
                |a: $t, b: $t| a.max(b),
                |a: $t, g: usize| a / (g as $t)
            )
        };
    }
    macro_rules! float {
        ($t:ty) => {
            fold!(
                $t,
                |b: &[u8]| <$t>::from_le_bytes(b.try_into().unwrap()),
                |v: $t, o: &mut Vec<u8>| o.extend_from_slice(&v.to_le_bytes()),
                |a: $t, b: $t| a + b,
                |a: $t, b: $t| a * b,
                |a: $t, b: $t| if a.is_nan() || b.is_nan() { <$t>::NAN } else { a.min(b) },
                |a: $t, b: $t| if a.is_nan() || b.is_nan() { <$t>::NAN } else { a.max(b) },
                |a: $t, g: usize| a / (g as $t)
            )
        };
    }
    match elem {
        ElemType::Bool => {
            let n = inputs[0].len();
            (0..n)
                .map(|i| {
                    let mut acc = inputs[0][i] != 0;
                    for x in &inputs[1..] {
                        acc = match op {
                            CollectiveOp::Or => acc || x[i] != 0,
                            _ => acc && x[i] != 0,
                        };
                    }
                    u8::from(acc)
                })
                .collect()
        }
        ElemType::Char => int!(i8),
        ElemType::UChar | ElemType::Quarter => int!(u8),
        ElemType::Short => int!(i16),
        ElemType::UShort => int!(u16),
        ElemType::Int => int!(i32),
        ElemType::UInt => int!(u32),
        ElemType::Long => int!(i64),
        ElemType::ULong => int!(u64),
        ElemType::Float => float!(f32),
        ElemType::Double => float!(f64),
        // Each step in single precision, rounded back to half.
        ElemType::Half => fold!(
            f16,
            |b: &[u8]| f16::from_le_bytes(b.try_into().unwrap()),
            |v: f16, o: &mut Vec<u8>| o.extend_from_slice(&v.to_le_bytes()),
            |a: f16, b: f16| f16::from_f32(a.to_f32() + b.to_f32()),
            |a: f16, b: f16| f16::from_f32(a.to_f32() * b.to_f32()),
            |a: f16, b: f16| if a.is_nan() || b.is_nan() { f16::NAN } else { a.min(b) },
            |a: f16, b: f16| if a.is_nan() || b.is_nan() { f16::NAN } else { a.max(b) },
            |a: f16, g: usize| f16::from_f32(a.to_f32() / g as f32)
        ),
    }
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
            &ins,
            0..ins.len(),
        );
        // ((1e8 + 1) - 1e8) + 0.5 in f32: the 1 is lost, as left to right says.
        assert_eq!(back(&out[3]), vec![10.0, 0.5]);
        let out = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Mean),
            CommGroup::Consecutive(2),
            ElemType::Float,
            &ins,
            0..ins.len(),
        );
        assert_eq!(back(&out[0])[0], 1.5);
        assert_eq!(back(&out[2])[0], 3.5);
        let out = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Max),
            CommGroup::Orthogonal(2),
            ElemType::Float,
            &ins,
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
            &ins,
            0..ins.len(),
        );
        assert_eq!((back(&rs[0]), back(&rs[1])), (vec![11.0, 22.0], vec![33.0, 0.0]));
        let ag =
            outputs(CollectiveKind::AllGather, None, CommGroup::All, ElemType::Float, &ins, 0..ins.len());
        assert_eq!(back(&ag[1]), vec![1.0, 2.0, 3.0, 10.0, 20.0, 30.0]);
        let ins = vec![f32s(&[1.0, 2.0]), f32s(&[10.0, 20.0])];
        let a2a =
            outputs(CollectiveKind::AllToAll, None, CommGroup::All, ElemType::Float, &ins, 0..ins.len());
        assert_eq!((back(&a2a[0]), back(&a2a[1])), (vec![1.0, 10.0], vec![2.0, 20.0]));
        let bc = outputs(
            CollectiveKind::Broadcast { root: 1 },
            None,
            CommGroup::All,
            ElemType::Float,
            &ins,
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
            &ins,
            0..ins.len(),
        );
        assert!(back(&out[0])[0].is_nan());
        let ins = vec![vec![200u8], vec![100u8]];
        let out = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Add),
            CommGroup::All,
            ElemType::UChar,
            &ins,
            0..ins.len(),
        );
        assert_eq!(out[0], vec![44]);
        let ins = vec![vec![1u8], vec![0u8]];
        let and = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::And),
            CommGroup::All,
            ElemType::Bool,
            &ins,
            0..ins.len(),
        );
        let or = outputs(
            CollectiveKind::AllReduce,
            Some(CollectiveOp::Or),
            CommGroup::All,
            ElemType::Bool,
            &ins,
            0..ins.len(),
        );
        assert_eq!((and[0][0], or[0][0]), (0, 1));
    }
}
