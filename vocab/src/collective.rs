//! Cross-replica collectives: what GCL's `allReduceCrossReplica` and its
//! siblings are called, which operator they reduce with and which
//! replicas take part together. PIR's collective statements, the host
//! API's `gcl::` functions, the image's collective step and the runtime
//! (in one process or over MPI ranks) share these words.
//!
//! Groups follow GCL's `CommGroup`: `All` is one group of every replica;
//! `Consecutive(n)` is groups of `n` neighbouring replicas (`0..n`,
//! `n..2n`, …); `Orthogonal(n)` is groups of `n` replicas a stride of
//! `r / n` apart (`{0, r/n, 2r/n, …}`, `{1, 1 + r/n, …}`, …).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Most replicas a graph may have (a POD256 of single-IPU replicas fits).
pub const MAX_REPLICAS: u32 = 1024;

/// Which collective a step performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CollectiveKind {
    /// Every member ends with the reduction of all members' tensors.
    AllReduce,
    /// The reduction of all members' flattened tensors, split into `g`
    /// equal parts (the last padded with zeros): member `i` keeps part `i`.
    ReduceScatter,
    /// Every member ends with all members' tensors stacked in group order.
    AllGather,
    /// The input's outer dimension has one slice per member: member `i`
    /// sends slice `j` to member `j`, which stores it as its slice `i`.
    AllToAll,
    /// Every member ends with the tensor of the member at `root` (a
    /// position in the group).
    Broadcast { root: u32 },
}

impl CollectiveKind {
    /// The PIR name (`all_reduce`, …); GCL's is [`CollectiveKind::gcl_name`].
    pub fn name(self) -> &'static str {
        match self {
            CollectiveKind::AllReduce => "all_reduce",
            CollectiveKind::ReduceScatter => "reduce_scatter",
            CollectiveKind::AllGather => "all_gather",
            CollectiveKind::AllToAll => "all_to_all",
            CollectiveKind::Broadcast { .. } => "replica_broadcast",
        }
    }

    /// GCL's function name.
    pub fn gcl_name(self) -> &'static str {
        match self {
            CollectiveKind::AllReduce => "allReduceCrossReplica",
            CollectiveKind::ReduceScatter => "reduceScatterCrossReplica",
            CollectiveKind::AllGather => "allGatherCrossReplica",
            CollectiveKind::AllToAll => "allToAllCrossReplica",
            CollectiveKind::Broadcast { .. } => "broadcastCrossReplica",
        }
    }

    /// Whether the collective reduces (and so takes an operator).
    pub fn reduces(self) -> bool {
        matches!(self, CollectiveKind::AllReduce | CollectiveKind::ReduceScatter)
    }

    /// The PIR names of the collectives, for "did you mean" and errors.
    pub const NAMES: [&'static str; 5] =
        ["all_reduce", "reduce_scatter", "all_gather", "all_to_all", "replica_broadcast"];

    /// The output's number of elements for an input of `n` elements in a
    /// group of `g` members.
    pub fn output_elements(self, n: u64, g: u64) -> u64 {
        match self {
            CollectiveKind::ReduceScatter => n.div_ceil(g.max(1)),
            CollectiveKind::AllGather => n.saturating_mul(g),
            _ => n,
        }
    }
}

/// GCL's `CollectiveOperator`: how a reducing collective combines the
/// members' elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CollectiveOp {
    Add,
    /// The sum divided by the group size.
    Mean,
    Mul,
    Min,
    Max,
    And,
    Or,
    /// The sum of the squares.
    SquareAdd,
}

impl CollectiveOp {
    /// Every operator with its PIR name.
    pub const ALL: [(CollectiveOp, &'static str); 8] = [
        (CollectiveOp::Add, "add"),
        (CollectiveOp::Mean, "mean"),
        (CollectiveOp::Mul, "mul"),
        (CollectiveOp::Min, "min"),
        (CollectiveOp::Max, "max"),
        (CollectiveOp::And, "and"),
        (CollectiveOp::Or, "or"),
        (CollectiveOp::SquareAdd, "square_add"),
    ];

    pub fn name(self) -> &'static str {
        CollectiveOp::ALL.iter().find(|(o, _)| *o == self).map_or("?", |(_, n)| n)
    }

    pub fn from_name(s: &str) -> Option<CollectiveOp> {
        CollectiveOp::ALL.iter().find(|(_, n)| *n == s).map(|(o, _)| *o)
    }

    /// Whether the operator is logical (`bool` tensors only).
    pub fn logical(self) -> bool {
        matches!(self, CollectiveOp::And | CollectiveOp::Or)
    }
}

/// GCL's `CommGroup`: which replicas a collective combines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CommGroup {
    /// One group of all replicas.
    #[default]
    All,
    /// Groups of `n` consecutive replicas.
    Consecutive(u32),
    /// Groups of `n` replicas, `r / n` apart.
    Orthogonal(u32),
}

impl CommGroup {
    /// The size of each group among `replicas` replicas, or why the group
    /// does not fit them.
    pub fn size(self, replicas: u32) -> Result<u32, String> {
        let n = match self {
            CommGroup::All => return Ok(replicas.max(1)),
            CommGroup::Consecutive(n) | CommGroup::Orthogonal(n) => n,
        };
        if n == 0 || !replicas.is_multiple_of(n) {
            return Err(format!(
                "a group of {n} replicas does not divide the replication factor {replicas} (group sizes must \
                 divide it)"
            ));
        }
        Ok(n)
    }

    /// The groups among `replicas` replicas, each in group order; every
    /// replica is in exactly one. `self.size(replicas)` must be `Ok`.
    pub fn groups(self, replicas: u32) -> Vec<Vec<u32>> {
        let r = replicas.max(1);
        match self {
            CommGroup::All => vec![(0..r).collect()],
            CommGroup::Consecutive(n) => (0..r / n).map(|g| (g * n..(g + 1) * n).collect()).collect(),
            CommGroup::Orthogonal(n) => {
                let stride = r / n;
                (0..stride).map(|g| (0..n).map(|i| g + i * stride).collect()).collect()
            }
        }
    }
}

impl fmt::Display for CommGroup {
    /// The PIR spelling: `all`, `consecutive(2)`, `orthogonal(2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommGroup::All => write!(f, "all"),
            CommGroup::Consecutive(n) => write!(f, "consecutive({n})"),
            CommGroup::Orthogonal(n) => write!(f, "orthogonal({n})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_partition_the_replicas() {
        assert_eq!(CommGroup::All.groups(3), vec![vec![0, 1, 2]]);
        assert_eq!(CommGroup::Consecutive(2).groups(4), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(CommGroup::Orthogonal(2).groups(4), vec![vec![0, 2], vec![1, 3]]);
        assert_eq!(CommGroup::Orthogonal(3).groups(6), vec![vec![0, 2, 4], vec![1, 3, 5]]);
        assert!(CommGroup::Consecutive(4).size(6).is_err());
        assert!(CommGroup::Orthogonal(0).size(6).is_err());
        assert_eq!(CommGroup::Orthogonal(2).size(6), Ok(2));
    }

    #[test]
    fn output_sizes() {
        assert_eq!(CollectiveKind::ReduceScatter.output_elements(10, 4), 3);
        assert_eq!(CollectiveKind::AllGather.output_elements(10, 4), 40);
        assert_eq!(CollectiveKind::AllReduce.output_elements(10, 4), 10);
    }
}
