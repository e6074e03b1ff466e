//! `for` loops expanded: bounds evaluated, iterations charged against
//! [`EXPANSION_LIMIT`] (with what a loop nest surely costs checked before
//! anything is built), item loops flattened into (item, loop environment)
//! pairs, and loops of compute set members and statements run in place.
//! Part of [`super::Lowerer`].

use super::*;

impl Lowerer {
    /// Evaluates a loop's bounds and charges its iterations up front.
    /// The bounds of `for v in lo..hi { body }`, charging its iterations.
    /// Before anything is expanded, the work the loop surely implies (its
    /// iterations times what `body` surely costs each time, nested loops
    /// with literal bounds multiplied out) is checked against the budget, so
    /// a loop nest past the limit fails at once instead of after building
    /// millions of entities.
    fn loop_range<T: LoopItem>(&mut self, f: &For<'_, T>) -> R<(i64, i64)> {
        let lo = self.eval_int(&f.lo);
        let hi = self.eval_int(&f.hi);
        let (lo, hi) = (lo?, hi?);
        let n = u64::try_from((hi as i128 - lo as i128).max(0)).unwrap_or(u64::MAX);
        let span = f.lo.span.to(f.hi.span);
        let ahead = n.saturating_mul(1 + sure_units(&f.body));
        if self.budget.saturating_add(ahead) > EXPANSION_LIMIT {
            return self.charge(span, ahead).map(|()| (lo, hi));
        }
        self.charge(span, n)?;
        Ok((lo, hi))
    }

    pub(super) fn expand_items<'a, 's>(
        &mut self,
        it: &'a Item<'s>,
        out: &mut Vec<(&'a Item<'s>, Vec<(String, i64)>)>,
    ) {
        if self.aborted {
            return;
        }
        match it {
            Item::For(f) => {
                let Ok((lo, hi)) = self.loop_range(f) else { return };
                for i in lo..hi {
                    self.env.push((f.var.name.to_string(), i));
                    for b in &f.body {
                        self.expand_items(b, out);
                    }
                    self.env.pop();
                    if self.aborted {
                        return;
                    }
                }
            }
            _ => {
                if self.tick(item_span(it)).is_ok() {
                    out.push((it, self.env.clone()));
                }
            }
        }
    }

    pub(super) fn for_loop<T: LoopItem>(&mut self, f: &For<'_, T>, mut body: impl FnMut(&mut Lowerer, &T)) {
        let Ok((lo, hi)) = self.loop_range(f) else { return };
        for i in lo..hi {
            self.env.push((f.var.name.to_string(), i));
            for b in &f.body {
                body(self, b);
                if self.aborted {
                    break;
                }
            }
            self.env.pop();
            if self.aborted {
                return;
            }
        }
    }
}

/// An item a `for` may repeat (items, compute set members, statements), as
/// [`sure_units`] sees it.
pub(super) trait LoopItem: Sized {
    /// The item as a loop, if it is one.
    fn as_for(&self) -> Option<&For<'_, Self>>;
    /// Budget units expanding the item surely costs, loops aside.
    fn own_units(&self) -> u64 {
        0
    }
}

impl LoopItem for Item<'_> {
    fn as_for(&self) -> Option<&For<'_, Self>> {
        match self {
            Item::For(f) => Some(f),
            _ => None,
        }
    }
}

impl LoopItem for CsItem<'_> {
    fn as_for(&self) -> Option<&For<'_, Self>> {
        match self {
            CsItem::For(f) => Some(f),
            CsItem::Vertex(_) => None,
        }
    }
    fn own_units(&self) -> u64 {
        match self {
            CsItem::Vertex(_) => ENTITY_COST,
            CsItem::For(_) => 0,
        }
    }
}

impl LoopItem for ast::Stmt<'_> {
    fn as_for(&self) -> Option<&For<'_, Self>> {
        match self {
            ast::Stmt::For(f) => Some(f),
            _ => None,
        }
    }
}

/// Budget units one pass over `body` surely costs: each item's own units,
/// and for a nested loop with literal bounds its iterations times its body's
/// units (a loop whose bounds depend on anything else counts nothing: this
/// is a lower bound, so it never rejects a file the expansion would accept).
fn sure_units<T: LoopItem>(body: &[T]) -> u64 {
    body.iter().fold(0u64, |sum, item| {
        let units = match item.as_for() {
            Some(f) => match (&f.lo.kind, &f.hi.kind) {
                (ExprKind::Int(lo), ExprKind::Int(hi)) => {
                    hi.saturating_sub(*lo).saturating_mul(1 + sure_units(&f.body))
                }
                _ => 0,
            },
            None => item.own_units(),
        };
        sum.saturating_add(units)
    })
}
