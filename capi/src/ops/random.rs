//! `poprand` on the host API: the distributions (`prs_op_random`), the
//! seed state of calls without a seed tensor, `setSeed`, and
//! `shapedDropout` (`prs_op_shaped_dropout`).

use super::*;

/// The `poprand` distribution of `prs_op_random`'s code and parameters
/// (`input` only for dropout).
pub fn random_dist(code: i32, a: f64, b: f64, c: f64, input: Option<&Tensor>) -> Result<RandomDist> {
    Ok(match code {
        0 => RandomDist::Uniform { min: a, max: b },
        1 => RandomDist::Normal { mean: a, stddev: b },
        2 => RandomDist::Bernoulli { prob: a },
        3 => RandomDist::TruncatedNormal { mean: a, stddev: b, alpha: c },
        4 => RandomDist::LogUniform { min: a, max: b, base: c },
        5 => {
            let input =
                input.ok_or_else(|| ApiError::new(Status::PoplarError, "dropout needs an input tensor"))?;
            RandomDist::Dropout { input: input.view.clone(), keep: a, scale: b }
        }
        other => return Err(unsupported(&format!("random distribution {other}"))),
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn prs_op_random(
    g: *mut Graph,
    seq: *mut Program,
    dist: i32,
    seed: *const Tensor,
    modifier: u32,
    reference: *const Tensor,
    input: *const Tensor,
    out_type: i32,
    a: f64,
    b: f64,
    c: f64,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let seq = handle_mut(seq, "sequence")?;
        let reference = handle(reference, "reference")?;
        let seed = optional_handle(seed, "seed")?;
        let input = optional_handle(input, "input")?;
        let d = random_dist(dist, a, b, c, input)?;
        let elem = match (&d, input) {
            (RandomDist::Dropout { .. }, Some(t)) => t.elem,
            _ => elem_type(out_type, false)?,
        };
        let r = g.random(seq, d, elem, seed, modifier, reference, &name_of(name, "poprand")?)?;
        put_box(out, r)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn prs_op_shaped_dropout(
    g: *mut Graph,
    seq: *mut Program,
    seed: *const Tensor,
    modifier: u32,
    input: *const Tensor,
    reference: *const Tensor,
    keep: f64,
    scale: f64,
    name: *const c_char,
    out: *mut *mut Tensor,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let seq = handle_mut(seq, "sequence")?;
        let seed = optional_handle(seed, "seed")?;
        let input = handle(input, "input")?;
        let reference = handle(reference, "reference")?;
        let r = g.shaped_dropout(
            seq,
            seed,
            modifier,
            input,
            reference,
            keep,
            scale,
            &name_of(name, "shapedDropout")?,
        )?;
        put_box(out, r)
    })
}

#[no_mangle]
pub extern "C" fn prs_op_set_seed(
    g: *mut Graph,
    seq: *mut Program,
    master: *const Tensor,
    modifier: u32,
    name: *const c_char,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let seq = handle_mut(seq, "sequence")?;
        let master = handle(master, "masterSeed")?;
        g.set_seed(seq, master, modifier, &name_of(name, "setSeed")?)
    })
}

/// The errors of `poprand`'s arguments: `poputil::poplibs_error` in C++
/// (the header turns this status into it), `ValueError` in Python.
fn poprand_err(message: String) -> ApiError {
    ApiError::new(Status::PoplarError, format!("poprand: {message}"))
}

/// A seed tensor as PopLibs takes it: two 32-bit words.
fn check_seed(seed: &Tensor, what: &str) -> Result<()> {
    if !matches!(seed.elem, ElemType::UInt | ElemType::Int) || seed.view.num_elements() != 2 {
        return Err(ApiError::new(
            Status::TypeError,
            format!(
                "poprand: {what} must be two unsigned int (or int) elements, not {} of shape {:?}",
                seed.elem.cpp_name(),
                seed.view.shape
            ),
        ));
    }
    Ok(())
}

impl Core {
    /// The generator state of calls without a seed tensor, made the first
    /// time one is needed: the seed (`uint[2]`, zero until `setSeed`) and
    /// the modifier of the next such call (`uint`, counting calls), on the
    /// target's tile 0 whichever graph handle asks.
    fn hw_seed(&mut self) -> Result<(Tensor, Tensor)> {
        if let Some(s) = &self.hw_seed {
            return Ok(s.clone());
        }
        let zero = || Some(ir::Init::Splat(vec![0; 4]));
        let sid = self.builder.add_tensor("poprand/seed", TensorKind::Var, ElemType::UInt, &[2], zero())?;
        let cid = self.builder.add_tensor("poprand/counter", TensorKind::Var, ElemType::UInt, &[], zero())?;
        let (s, c) = (self.tensor(sid), self.tensor(cid));
        self.builder.map_regions(&s.view, &[(0, 2, 0)])?;
        self.builder.map_regions(&c.view, &[(0, 1, 0)])?;
        self.hw_seed = Some((s.clone(), c.clone()));
        Ok((s, c))
    }
}

impl Graph {
    /// A `poprand` operation (`uniform`, `normal`, … `dropout`), appended
    /// to `seq`: a new tensor of `reference`'s shape and mapping. With a
    /// seed tensor, its values depend on it, `modifier` and each element's
    /// index only; without one, on the graph's generator state, which
    /// `set_seed` sets and each such call advances (`modifier` is then
    /// ignored, as in PopLibs).
    #[allow(clippy::too_many_arguments)]
    pub fn random(
        &self,
        seq: &mut Program,
        dist: RandomDist,
        elem: ElemType,
        seed: Option<&Tensor>,
        modifier: u32,
        reference: &Tensor,
        name: &str,
    ) -> Result<Tensor> {
        if let Some(need) = dist.refuses(elem) {
            return Err(ApiError::new(
                Status::TypeError,
                format!("poprand::{}: the output type must be {need}, not {}", dist.name(), elem.cpp_name()),
            ));
        }
        dist.check(elem).map_err(|m| poprand_err(format!("{}: {m}", dist.name())))?;
        let tiles = &self.tiles;
        let mut core = self.core()?;
        if let RandomDist::Dropout { input, .. } = &dist {
            if input.shape != reference.view.shape {
                return Err(poprand_err(format!(
                    "dropout: the input has shape {:?} but the reference {:?}",
                    input.shape, reference.view.shape
                )));
            }
        }
        let (seed_view, modifier, advance) = match seed {
            Some(s) => {
                check_seed(s, "the seed")?;
                (s.view.clone(), ir::Modifier::Const(modifier), None)
            }
            None => {
                let (s, c) = core.hw_seed()?;
                (s.view.clone(), ir::Modifier::Tensor(c.view.clone()), Some(c))
            }
        };
        let r = core.result(tiles, name, elem, &reference.view.shape, Some(&reference.view))?;
        let kind = OpKind::Random { dist, elem, seed: seed_view, modifier, like: reference.view.clone() };
        seq.body.push(op(tiles, &r.view, kind));
        if let Some(c) = advance {
            let next = binary(BinaryOp::Add, reading(&c), constant(1.0, ElemType::UInt));
            seq.body.push(op(tiles, &c.view, OpKind::Map(next)));
        }
        Ok(r)
    }

    /// `poprand::shapedDropout`: a `bernoulli` mask of `reference`'s shape
    /// (each of its dimensions `input`'s or 1, the same rank), holding
    /// `keep`'s probability, broadcast over `input`; kept elements are
    /// multiplied by `scale`. The product is `popops::map`'s `(input *
    /// mask) * Cast(Const(scale))`, in `input`'s type.
    #[allow(clippy::too_many_arguments)]
    pub fn shaped_dropout(
        &self,
        seq: &mut Program,
        seed: Option<&Tensor>,
        modifier: u32,
        input: &Tensor,
        reference: &Tensor,
        keep: f64,
        scale: f64,
        name: &str,
    ) -> Result<Tensor> {
        let (shape, like) = (&input.view.shape, &reference.view.shape);
        if shape.len() != like.len() || shape.iter().zip(like).any(|(&n, &r)| r != n && r != 1) {
            return Err(poprand_err(format!(
                "shapedDropout: the reference's shape {like:?} does not broadcast to the input's {shape:?}"
            )));
        }
        if keep.is_nan() || keep <= 0.0 || keep > 1.0 {
            return Err(poprand_err(format!("shapedDropout: keep probability {keep} is outside (0, 1]")));
        }
        let dist = RandomDist::Bernoulli { prob: keep };
        let mut wide = self.random(seq, dist, input.elem, seed, modifier, reference, name)?;
        for (d, (&n, &r)) in shape.iter().zip(like).enumerate() {
            if n != r {
                wide = wide.broadcast(n as usize, d as u32)?;
            }
        }
        let node =
            |kind: i32, op: i32, index: u32, ty: i32, value: f64| ExprNode { kind, op, index, ty, value };
        let float = crate::target::type_code(ElemType::Float);
        let nodes = [
            node(0, 0, 1, -1, 0.0),
            node(0, 0, 2, -1, 0.0),
            node(3, 2, 0, -1, 0.0),
            node(1, 0, 0, float, scale),
            node(4, 0, 0, crate::target::type_code(input.elem), 0.0),
            node(3, 2, 0, -1, 0.0),
        ];
        self.map(seq, &nodes, &[input, &wide], false, name)
    }

    /// `poprand::setSeed(master, modifier)`: calls without a seed tensor
    /// that follow draw as if given `master` and modifiers `modifier`,
    /// `modifier + 1`, … in turn.
    pub fn set_seed(&self, seq: &mut Program, master: &Tensor, modifier: u32, name: &str) -> Result<()> {
        let _ = name;
        check_seed(master, "the master seed")?;
        let (s, c) = self.core()?.hw_seed()?;
        let mut copy = read(master.elem, master.view.flatten());
        if master.elem != ElemType::UInt {
            copy = MapExpr { elem: ElemType::UInt, kind: MapKind::Cast(Box::new(copy)) };
        }
        seq.body.push(op(&self.tiles, &s.view, OpKind::Map(copy)));
        seq.body.push(op(&self.tiles, &c.view, OpKind::Map(constant(f64::from(modifier), ElemType::UInt))));
        Ok(())
    }
}
