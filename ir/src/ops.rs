//! Library operations in program bodies: what `v3 = v1 + v2`,
//! `r = reduce(x, add, dims = [0])`, `m = matmul(a, b)` and `fill t 0.0`
//! mean once checked.
//!
//! An [`Op`] is a statement like `copy`: it names its output region and its
//! operands as [`View`]s, already checked for shape and type by the
//! lowering. It says nothing about vertices or codelets; the compiler
//! expands each one into compute sets before mapping (see the compiler's
//! `ops` module and `docs/pir-ops.md`). What it may say about tiles is
//! which ones its outputs, temporaries and vertices may use
//! ([`TileSet`]: PIR's `tiles a..b { … }`, a virtual graph of the host
//! API).

use crate::types::ElemType;
use crate::view::View;
use vocab::{CollectiveKind, CollectiveOp, CommGroup};

mod map;

pub use map::{expr_str, BinaryOp, MapExpr, MapKind, UnaryOp};

/// A checked library operation writing `out`.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// The region written (a whole tensor, or a view for `t[a:b] += x`).
    pub out: View,
    pub kind: OpKind,
    /// The tiles the operation places its work on (`None`: all of the
    /// target's).
    pub tiles: Option<TileSet>,
}

/// An ordered set of tiles: disjoint, non-empty ranges of the target's
/// tiles, numbered in the order given (the `i`th tile of the set is
/// [`TileSet::nth`]). A virtual graph of the host API sees its tiles
/// through one; an operation placed on one uses only these tiles.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TileSet {
    ranges: Vec<(u32, u32)>,
    /// The number of tiles before each range.
    starts: Vec<u32>,
}

impl TileSet {
    /// The set of `ranges` (`(a, b)`: tiles `a` to `b - 1`), adjacent
    /// ranges joined. `Err` says why it is no set: an empty range, or two
    /// that overlap.
    pub fn new(ranges: &[(u32, u32)]) -> Result<TileSet, String> {
        let mut joined: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for &(a, b) in ranges {
            if a >= b {
                return Err(format!("tile range {a}..{b} is empty"));
            }
            match joined.last_mut() {
                Some(last) if last.1 == a => last.1 = b,
                _ => joined.push((a, b)),
            }
        }
        let mut sorted = joined.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0].1 > w[1].0) {
            return Err(format!("tile ranges {}..{} and {}..{} overlap", w[0].0, w[0].1, w[1].0, w[1].1));
        }
        let mut starts = Vec::with_capacity(joined.len());
        let mut n = 0u32;
        for &(a, b) in &joined {
            starts.push(n);
            n = n.saturating_add(b - a);
        }
        Ok(TileSet { ranges: joined, starts })
    }

    /// Tiles `0` to `n - 1` (`n` at least 1).
    pub fn all(n: u32) -> TileSet {
        TileSet { ranges: vec![(0, n.max(1))], starts: vec![0] }
    }

    /// The ranges, in the set's order.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    /// How many tiles the set has.
    pub fn len(&self) -> u32 {
        match (self.ranges.last(), self.starts.last()) {
            (Some(&(a, b)), Some(&s)) => s + (b - a),
            _ => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The largest tile of the set, plus one.
    pub fn end(&self) -> u32 {
        self.ranges.iter().map(|r| r.1).max().unwrap_or(0)
    }

    /// The set's tile number `i` (`i < len()`).
    pub fn nth(&self, i: u32) -> u32 {
        let k = self.starts.partition_point(|&s| s <= i).saturating_sub(1);
        self.ranges[k].0 + (i - self.starts[k])
    }

    /// Where `tile` is in the set (the inverse of [`TileSet::nth`]).
    pub fn position(&self, tile: u32) -> Option<u32> {
        self.ranges
            .iter()
            .zip(&self.starts)
            .find(|((a, b), _)| (*a..*b).contains(&tile))
            .map(|((a, _), s)| s + (tile - a))
    }

    pub fn contains(&self, tile: u32) -> bool {
        self.position(tile).is_some()
    }

    /// The set's tiles `i` for `i` in `indices` (each below `len()`), as a
    /// set in that order.
    pub fn pick(&self, indices: impl IntoIterator<Item = u32>) -> Result<TileSet, String> {
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for i in indices {
            let t = self.nth(i);
            match ranges.last_mut() {
                Some(last) if last.1 == t => last.1 = t + 1,
                _ => ranges.push((t, t + 1)),
            }
        }
        TileSet::new(&ranges)
    }

    /// A tile of the set for work whose data lives on `tile`: `tile` itself
    /// when the set has it, else the set's tile `tile mod len()`.
    pub fn place(&self, tile: u32) -> u32 {
        if self.contains(tile) {
            tile
        } else {
            self.nth(tile % self.len().max(1))
        }
    }
}

impl std::fmt::Display for TileSet {
    /// PIR's spelling: `0..4, 8..12`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (a, b)) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}..{b}")?;
        }
        Ok(())
    }
}

/// What an [`Op`] computes.
#[derive(Clone, Debug, PartialEq)]
pub enum OpKind {
    /// Element by element: `out[i] = expr(i)`. `fill` is a constant
    /// expression; `+=` reads `out` as its first operand.
    Map(MapExpr),
    /// `reduce(input, op, dims = [...])`: `out` has `input`'s shape without
    /// the reduced dimensions (`dims` sorted, distinct).
    Reduce { input: View, op: ReduceOp, dims: Vec<u32> },
    /// `matmul(a, b)`: `[m, k] x [k, n] -> [m, n]`, or batched
    /// `[g, m, k] x [g, k, n] -> [g, m, n]`.
    MatMul { a: View, b: View },
    /// `dynamic_slice(input, offsets, dims, sizes)`: `out` has `input`'s
    /// shape with `dims[i]` of size `sizes[i]`, starting at the run-time
    /// offset `offsets[i]` (clamped so the slice stays inside).
    DynamicSlice { input: View, offsets: View, dims: Vec<u32>, sizes: Vec<u64> },
    /// `dynamic_update(out, update, offsets, dims, sizes)`: writes `update`
    /// into the region of `out` a `dynamic_slice` with the same arguments
    /// would read.
    DynamicUpdate { update: View, offsets: View, dims: Vec<u32>, sizes: Vec<u64> },
    /// A cross-replica collective (`y = all_reduce(x, add)`): `out` gets
    /// what [`vocab::CollectiveKind`] says of `input` over the replicas of
    /// each of `group`'s groups. The runtime performs it; the compiler
    /// keeps it as [`crate::Stmt::Collective`]. It reads all of `input`
    /// before writing `out`, so the two may overlap.
    Collective { input: View, kind: CollectiveKind, op: Option<CollectiveOp>, group: CommGroup },
    /// `poprand`: `out` filled with random values of `dist` (`dropout`:
    /// `input` kept with probability `keep` and scaled, else zero). Value
    /// `i` (of `out` in row-major order) is a function of the run-time
    /// `seed` (two 32-bit words), the modifier and `i` alone, so it does
    /// not depend on tiles or threads (`docs/pir-ops.md`, "Random
    /// numbers"). `elem` is `out`'s element type; `like` gives a new
    /// output its tile mapping and is not read.
    Random { dist: RandomDist, elem: ElemType, seed: View, modifier: Modifier, like: View },
}

/// The distributions of [`OpKind::Random`], with their parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum RandomDist {
    /// In `[min, max)` for floats (`half`: up to `max` by rounding);
    /// `[min, max]` for `int`.
    Uniform {
        min: f64,
        max: f64,
    },
    /// `base` to the power of a uniform value in `[log(min), log(max)]`,
    /// clamped to `[min, max]`.
    LogUniform {
        min: f64,
        max: f64,
        base: f64,
    },
    Normal {
        mean: f64,
        stddev: f64,
    },
    /// Normal, redrawn while outside `mean ± alpha * stddev`.
    TruncatedNormal {
        mean: f64,
        stddev: f64,
        alpha: f64,
    },
    /// 1 with probability `prob`, else 0.
    Bernoulli {
        prob: f64,
    },
    /// `input * scale` with probability `keep`, else 0.
    Dropout {
        input: View,
        keep: f64,
        scale: f64,
    },
}

/// The seed modifier of [`OpKind::Random`]: a constant, or one element of
/// an unsigned or int tensor read when the program runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Modifier {
    Const(u32),
    Tensor(View),
}

impl RandomDist {
    /// The PIR function name.
    pub fn name(&self) -> &'static str {
        match self {
            RandomDist::Uniform { .. } => "uniform",
            RandomDist::LogUniform { .. } => "log_uniform",
            RandomDist::Normal { .. } => "normal",
            RandomDist::TruncatedNormal { .. } => "truncated_normal",
            RandomDist::Bernoulli { .. } => "bernoulli",
            RandomDist::Dropout { .. } => "dropout",
        }
    }

    /// The types a distribution may produce (PopLibs' lists): `None` when
    /// `t` is allowed, else the allowed ones in words.
    pub fn refuses(&self, t: ElemType) -> Option<&'static str> {
        let float = matches!(t, ElemType::Float | ElemType::Half);
        match self {
            RandomDist::Normal { .. } | RandomDist::TruncatedNormal { .. } | RandomDist::Dropout { .. }
                if !float =>
            {
                Some("`float` or `half`")
            }
            RandomDist::Uniform { .. } | RandomDist::LogUniform { .. } | RandomDist::Bernoulli { .. }
                if !float && t != ElemType::Int =>
            {
                Some("`float`, `half` or `int`")
            }
            _ => None,
        }
    }

    /// What is wrong with the parameters for results of type `t`
    /// (Poplar's checks), if anything.
    pub fn check(&self, t: ElemType) -> Result<(), String> {
        let finite = |x: f64, what: &str| {
            if x.is_finite() {
                Ok(())
            } else {
                Err(format!("{what} must be finite, not {x}"))
            }
        };
        match self {
            RandomDist::Uniform { min, max } => {
                finite(*min, "min")?;
                finite(*max, "max")?;
                if min > max {
                    return Err(format!("min ({min}) is greater than max ({max})"));
                }
                let (lo, hi) = (min.ceil(), max.floor());
                if t == ElemType::Int && (lo < f64::from(i32::MIN) || hi > f64::from(i32::MAX) || lo > hi) {
                    return Err(format!("[{min}, {max}] holds no int, or is outside the range of int"));
                }
            }
            RandomDist::LogUniform { min, max, base } => {
                finite(*max, "max")?;
                if min.is_nan() || *min < 1.0 {
                    return Err(format!("min ({min}) must be at least 1"));
                }
                if max <= min {
                    return Err(format!("max ({max}) must be greater than min ({min})"));
                }
                if t == ElemType::Int && (min.ceil() > max.floor() || *max > f64::from(i32::MAX)) {
                    return Err(format!("[{min}, {max}] holds no int, or is outside the range of int"));
                }
                if base.is_nan() || *base <= 1.0 || base.is_infinite() {
                    return Err(format!("base ({base}) must be finite and greater than 1"));
                }
            }
            RandomDist::Normal { mean, stddev } => {
                finite(*mean, "mean")?;
                finite(*stddev, "stddev")?;
                if *stddev < 0.0 {
                    return Err(format!("stddev ({stddev}) is negative"));
                }
            }
            RandomDist::TruncatedNormal { mean, stddev, alpha } => {
                finite(*mean, "mean")?;
                finite(*stddev, "stddev")?;
                finite(*alpha, "alpha")?;
                if *stddev < 0.0 {
                    return Err(format!("stddev ({stddev}) is negative"));
                }
                if *alpha <= 0.0 {
                    return Err(format!("alpha ({alpha}) must be positive"));
                }
            }
            RandomDist::Bernoulli { prob } => {
                if !(0.0..=1.0).contains(prob) {
                    return Err(format!("probability {prob} is outside [0, 1]"));
                }
            }
            RandomDist::Dropout { keep, scale, .. } => {
                finite(*scale, "scale")?;
                if keep.is_nan() || *keep <= 0.0 || *keep > 1.0 {
                    return Err(format!("keep probability {keep} is outside (0, 1]"));
                }
            }
        }
        Ok(())
    }

    /// The parameters as PIR's named arguments (`min = 0.0, max = 1.0`).
    pub fn params(&self) -> Vec<(&'static str, f64)> {
        match self {
            RandomDist::Uniform { min, max } => vec![("min", *min), ("max", *max)],
            RandomDist::LogUniform { min, max, base } => vec![("min", *min), ("max", *max), ("base", *base)],
            RandomDist::Normal { mean, stddev } => vec![("mean", *mean), ("stddev", *stddev)],
            RandomDist::TruncatedNormal { mean, stddev, alpha } => {
                vec![("mean", *mean), ("stddev", *stddev), ("alpha", *alpha)]
            }
            RandomDist::Bernoulli { prob } => vec![("prob", *prob)],
            RandomDist::Dropout { keep, scale, .. } => vec![("keep", *keep), ("scale", *scale)],
        }
    }
}

/// The shape of `matmul(a, b)`: `[m, k] x [k, n] -> [m, n]`, or grouped
/// `[g, m, k] x [g, k, n] -> [g, m, n]`; `None` when the shapes do not
/// multiply.
pub fn matmul_shape(a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
    match (a.len(), b.len()) {
        (2, 2) if a[1] == b[0] => Some(vec![a[0], b[1]]),
        (3, 3) if a[0] == b[0] && a[2] == b[1] => Some(vec![a[0], a[1], b[2]]),
        _ => None,
    }
}

/// The shape a reduction over `dims` leaves of `shape`.
pub fn reduced_shape(shape: &[u64], dims: &[u32]) -> Vec<u64> {
    shape.iter().enumerate().filter(|(i, _)| !dims.contains(&(*i as u32))).map(|(_, &d)| d).collect()
}

/// Reduction operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Add,
    Mul,
    Max,
    Min,
    And,
    Or,
}

impl ReduceOp {
    pub const ALL: [(ReduceOp, &'static str); 6] = [
        (ReduceOp::Add, "add"),
        (ReduceOp::Mul, "mul"),
        (ReduceOp::Max, "max"),
        (ReduceOp::Min, "min"),
        (ReduceOp::And, "and"),
        (ReduceOp::Or, "or"),
    ];

    pub fn name(self) -> &'static str {
        ReduceOp::ALL.iter().find(|(o, _)| *o == self).map_or("?", |(_, n)| n)
    }

    pub fn from_name(s: &str) -> Option<ReduceOp> {
        ReduceOp::ALL.iter().find(|(_, n)| *n == s).map(|(o, _)| *o)
    }
}

impl Op {
    /// A short name for the compute sets it expands to (`add`, `reduce`, …).
    pub fn word(&self) -> &'static str {
        match &self.kind {
            OpKind::Map(e) => match &e.kind {
                MapKind::Binary(b, ..) => b.word(),
                MapKind::Unary(u, _) => u.name(),
                MapKind::Cast(_) => "cast",
                MapKind::Const(_) => "fill",
                MapKind::Input(_) => "copy",
                MapKind::Select(..) => "select",
            },
            OpKind::Reduce { .. } => "reduce",
            OpKind::MatMul { .. } => "matmul",
            OpKind::DynamicSlice { .. } => "dynamic_slice",
            OpKind::DynamicUpdate { .. } => "dynamic_update",
            OpKind::Collective { kind, .. } => kind.name(),
            OpKind::Random { dist, .. } => dist.name(),
        }
    }

    /// Every view the operation reads, in operand order.
    pub fn inputs(&self) -> Vec<&View> {
        fn walk<'a>(e: &'a MapExpr, out: &mut Vec<&'a View>) {
            match &e.kind {
                MapKind::Input(v) => out.push(v),
                MapKind::Const(_) => {}
                MapKind::Unary(_, a) | MapKind::Cast(a) => walk(a, out),
                MapKind::Binary(_, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                MapKind::Select(a, b, c) => {
                    walk(a, out);
                    walk(b, out);
                    walk(c, out);
                }
            }
        }
        let mut out = Vec::new();
        match &self.kind {
            OpKind::Map(e) => walk(e, &mut out),
            OpKind::Reduce { input, .. } => out.push(input),
            OpKind::MatMul { a, b } => {
                out.push(a);
                out.push(b);
            }
            OpKind::DynamicSlice { input, offsets, .. } => {
                out.push(input);
                out.push(offsets);
            }
            OpKind::DynamicUpdate { update, offsets, .. } => {
                out.push(update);
                out.push(offsets);
            }
            OpKind::Collective { input, .. } => out.push(input),
            OpKind::Random { dist, seed, modifier, .. } => {
                if let RandomDist::Dropout { input, .. } = dist {
                    out.push(input);
                }
                out.push(seed);
                if let Modifier::Tensor(m) = modifier {
                    out.push(m);
                }
            }
        }
        out
    }
}

/// An operation as PIR text (`out = expr`), with views printed by `view`
/// (the printer's re-parsable form, or the dump's pieces).
pub fn op_str(op: &Op, view: &dyn Fn(&View) -> String) -> String {
    match &op.tiles {
        Some(tiles) => format!("tiles {tiles} {{ {} }}", op_body_str(op, view)),
        None => op_body_str(op, view),
    }
}

/// [`op_str`] without the operation's tiles.
fn op_body_str(op: &Op, view: &dyn Fn(&View) -> String) -> String {
    let out = view(&op.out);
    match &op.kind {
        OpKind::Map(e) => format!("{out} = {}", expr_str(e, view, true)),
        OpKind::Reduce { input, op: r, dims } => {
            let d: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
            format!("{out} = reduce({}, {}, dims = [{}])", view(input), r.name(), d.join(", "))
        }
        OpKind::MatMul { a, b } => format!("{out} = matmul({}, {})", view(a), view(b)),
        OpKind::DynamicSlice { input, offsets, dims, sizes } => format!(
            "{out} = dynamic_slice({}, {}, dims = {}, sizes = {})",
            view(input),
            view(offsets),
            list(dims),
            list(sizes)
        ),
        OpKind::DynamicUpdate { update, offsets, dims, sizes } => format!(
            "dynamic_update({out}, {}, {}, dims = {}, sizes = {})",
            view(update),
            view(offsets),
            list(dims),
            list(sizes)
        ),
        OpKind::Collective { input, kind, op, group } => {
            let mut args = vec![view(input)];
            args.extend(op.map(|o| o.name().to_string()));
            if let CollectiveKind::Broadcast { root } = kind {
                args.push(format!("root = {root}"));
            }
            if *group != CommGroup::All {
                args.push(format!("group = {group}"));
            }
            format!("{out} = {}({})", kind.name(), args.join(", "))
        }
        OpKind::Random { dist, elem, seed, modifier, like } => {
            let mut args = Vec::new();
            if let RandomDist::Dropout { input, .. } = dist {
                args.push(view(input));
                args.push(view(like));
            } else {
                args.push(view(like));
                args.push(elem.name().to_string());
            }
            for (k, v) in dist.params() {
                args.push(format!("{k} = {}", crate::print::float_str(v)));
            }
            args.push(format!("seed = {}", view(seed)));
            match modifier {
                Modifier::Const(0) => {}
                Modifier::Const(m) => args.push(format!("modifier = {m}")),
                Modifier::Tensor(m) => args.push(format!("modifier = {}", view(m))),
            }
            format!("{out} = {}({})", dist.name(), args.join(", "))
        }
    }
}

fn list<T: std::fmt::Display>(xs: &[T]) -> String {
    let v: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    format!("[{}]", v.join(", "))
}
