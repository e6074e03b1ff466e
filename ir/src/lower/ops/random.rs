//! Lowering of the `poprand` operations (`uniform(ref, float, min = …)`
//! and the others of docs/pir-ops.md, "Random numbers").

use super::*;

/// The `poprand` operations.
pub(super) const RANDOM_FUNCTIONS: [&str; 6] =
    ["uniform", "log_uniform", "normal", "truncated_normal", "bernoulli", "dropout"];

impl Lowerer {
    /// A literal number (`1`, `-0.5`, `2.0e-3`).
    fn literal_f64(&mut self, e: &Expr<'_>) -> R<f64> {
        match &e.kind {
            ExprKind::Int(i) => Ok(*i as f64),
            ExprKind::Float(f) => Ok(*f),
            ExprKind::Neg(x) => Ok(-self.literal_f64(x)?),
            _ => Err(self.err(e.span, "expected a number")),
        }
    }

    /// `uniform(ref, T, min = a, max = b, seed = s, modifier = m)` and the
    /// other generators (`docs/pir-ops.md`, "Random numbers"); `dropout(x,
    /// ref, keep = p, scale = k, seed = s)`. The result has `ref`'s shape.
    pub(super) fn op_random(
        &mut self,
        e: &Expr<'_>,
        fname: &str,
        args: &[ast::Arg<'_>],
    ) -> R<(OpKind, ElemType, Vec<u64>)> {
        let (pos, named): (Vec<_>, Vec<_>) = args.iter().partition(|a| a.name.is_none());
        let params: &[&str] = match fname {
            "uniform" => &["min", "max"],
            "log_uniform" => &["min", "max", "base"],
            "normal" => &["mean", "stddev"],
            "truncated_normal" => &["mean", "stddev", "alpha"],
            "bernoulli" => &["prob"],
            _ => &["keep", "scale"],
        };
        let usage = if fname == "dropout" {
            "dropout(x, ref, keep = p, scale = s, seed = t)".to_string()
        } else {
            let ps: Vec<String> = params.iter().map(|p| format!("{p} = …")).collect();
            format!("{fname}(ref, T, {}, seed = t)", ps.join(", "))
        };
        if pos.len() != 2 {
            return Err(self.err(e.span, format!("`{fname}` takes two positional arguments: {usage}")));
        }
        let mut values: Vec<Option<f64>> = vec![None; params.len()];
        let mut seed = None;
        let mut modifier = Modifier::Const(0);
        for a in &named {
            let (n, sp) = a.name.as_ref().map_or(("", e.span), |n| (n.name, n.span));
            if let Some(k) = params.iter().position(|p| *p == n) {
                values[k] = Some(self.literal_f64(&a.value)?);
            } else if n == "seed" {
                let (v, t) = self.eval_view(&a.value)?;
                if !matches!(t, ElemType::UInt | ElemType::Int) || v.num_elements() != 2 {
                    return Err(self.err(
                        a.value.span,
                        format!(
                            "the seed must be two `uint` or `int` elements, not `{t}` of shape {}",
                            shape_str(&v.shape)
                        ),
                    ));
                }
                seed = Some(v);
            } else if n == "modifier" {
                modifier = match &a.value.kind {
                    ExprKind::Int(i) => Modifier::Const(u32::try_from(*i).map_err(|_| {
                        self.err(a.value.span, format!("the modifier {i} is outside 0 to 4294967295"))
                    })?),
                    _ => {
                        let (v, t) = self.eval_view(&a.value)?;
                        if !matches!(t, ElemType::UInt | ElemType::Int) || v.num_elements() != 1 {
                            return Err(self.err(
                                a.value.span,
                                format!("the modifier must be a number or one `uint` or `int` element, not `{t}` of shape {}", shape_str(&v.shape)),
                            ));
                        }
                        Modifier::Tensor(v)
                    }
                };
            } else {
                let all: Vec<&str> = params.iter().copied().chain(["seed", "modifier"]).collect();
                return Err(
                    self.err(sp, format!("`{fname}` has no argument `{n}` (it takes {})", all.join(", ")))
                );
            }
        }
        let Some(seed) = seed else {
            return Err(
                self.err(e.span, format!("`{fname}` needs `seed = t` (two `uint` elements): {usage}"))
            );
        };
        if let Some(k) = values.iter().position(Option::is_none) {
            return Err(self.err(e.span, format!("`{fname}` needs `{} = …`: {usage}", params[k])));
        }
        let v: Vec<f64> = values.into_iter().flatten().collect();
        let (like, _) = self.eval_view(&pos[if fname == "dropout" { 1 } else { 0 }].value)?;
        let (dist, elem) = match fname {
            "dropout" => {
                let (input, t) = self.eval_view(&pos[0].value)?;
                if input.shape != like.shape {
                    return Err(self.err(
                        e.span,
                        format!(
                            "shape mismatch: dropout of {} with a reference of shape {}",
                            shape_str(&input.shape),
                            shape_str(&like.shape)
                        ),
                    ));
                }
                (RandomDist::Dropout { input, keep: v[0], scale: v[1] }, t)
            }
            _ => {
                let tv = &pos[1].value;
                let t = match &tv.kind {
                    ExprKind::Name(n) => ElemType::from_pir(n),
                    _ => None,
                };
                let Some(t) = t else {
                    return Err(self.err(tv.span, format!("expected an element type: {usage}")));
                };
                let dist = match fname {
                    "uniform" => RandomDist::Uniform { min: v[0], max: v[1] },
                    "log_uniform" => RandomDist::LogUniform { min: v[0], max: v[1], base: v[2] },
                    "normal" => RandomDist::Normal { mean: v[0], stddev: v[1] },
                    "truncated_normal" => {
                        RandomDist::TruncatedNormal { mean: v[0], stddev: v[1], alpha: v[2] }
                    }
                    _ => RandomDist::Bernoulli { prob: v[0] },
                };
                (dist, t)
            }
        };
        if let Some(need) = dist.refuses(elem) {
            return Err(self.err(e.span, format!("`{fname}` gives {need}, not `{elem}`")));
        }
        if let Err(m) = dist.check(elem) {
            return Err(self.err(e.span, format!("`{fname}`: {m}")));
        }
        let shape = like.shape.clone();
        Ok((OpKind::Random { dist, elem, seed, modifier, like }, elem, shape))
    }
}
