//! `for` loops expanded: bounds evaluated, iterations charged against
//! the expansion budget (with what a loop nest surely costs checked before
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
        if self.budget.saturating_add(ahead) > self.limit {
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

#[cfg(test)]
mod tests {
    use crate::{parse_and_check_with, CheckOptions};

    /// Checks `src` under an expansion budget of `limit` units; the
    /// rendered diagnostics on failure.
    fn check(src: &str, limit: u64) -> Result<(), String> {
        let opts = CheckOptions { expansion_limit: limit, ..Default::default() };
        parse_and_check_with("t.pir", src, &opts).map(|_| ()).map_err(|d| d.render())
    }

    fn vertices(n: usize) -> String {
        (0..n).map(|i| format!("  vertex V @ tile 0 {{ x = a[{}] }}\n", i % 4)).collect()
    }

    /// What the text writes out costs nothing, however much of it there
    /// is: a budget of 100 units takes 300 written vertices and items.
    #[test]
    fn written_entities_are_free() {
        let items: String =
            (0..300).map(|i| format!("var b{i}: float[2]\nmap b{i}[0:2] -> tile 0\n")).collect();
        let src = format!("var a: float[4]\n{items}compute_set cs {{\n{}}}\n", vertices(300));
        check(&src, 100).unwrap();
    }

    /// A loop pays 1 per iteration and 16 per vertex it makes: ten
    /// iterations are 170 units, past a budget of 100 but not of 170.
    #[test]
    fn loops_are_charged() {
        let src =
            "var a: float[4]\ncompute_set cs {\n  for i in 0..10 { vertex V @ tile 0 { x = a[i % 4] } }\n}\n";
        let e = check(src, 100).unwrap_err();
        assert!(e.contains("error: expansion limit exceeded: more than 100 units"), "{e}");
        assert!(e.contains("raise the limit: `poplar-compile --expansion-limit N`"), "{e}");
        check(src, 170).unwrap();
        // Items a loop makes are charged too, and so are statements.
        let items = "for i in 0..10 { var b: float[4] }\n";
        assert!(check(items, 100).unwrap_err().contains("expansion limit exceeded"));
        let stmts = "var a: float[4]\nprogram main { for i in 0..10 { print \"a\" a } }\n";
        assert!(check(stmts, 100).unwrap_err().contains("expansion limit exceeded"));
        check(stmts, 170).unwrap();
    }

    /// A `map` pays for the runs after its first, and a view that repeats
    /// elements for each element, even where the text writes them once.
    #[test]
    fn repetition_is_charged() {
        // 10 runs: 9 past the first, 144 units.
        let strided = "var a: float[20]\nmap a[0:20:2] -> tile 0\n";
        assert!(check(strided, 143).unwrap_err().contains("expansion limit exceeded"));
        check(strided, 144).unwrap();
        let repeated = "var a: float[1]\nprogram main { print \"b\" broadcast(a, 10) }\n";
        assert!(check(repeated, 159).unwrap_err().contains("expansion limit exceeded"));
        check(repeated, 160).unwrap();
    }
}
