//! "Did you mean" for every tool: the known name closest to a misspelt one.
//!
//! The PIR front end (`ir`: tensors, target keys), the graph compiler
//! (vertex types and fields), `popc` (types, functions, members) and the
//! option readers (`report`: engine options) all suggest names the same
//! way, so the rule lives here once: Levenshtein distance with adjacent
//! transpositions, case-insensitive,
//! at most a third of the word's length (between 1 and 3). A crate of its
//! own because those crates share no other one; it depends on nothing.

#![forbid(unsafe_code)]

/// The candidate closest to `word` by edit distance, if close enough to be
/// a likely typo (at most a third of the word's length, from 1 to 3 edits).
/// Ties go to the first candidate; an exact match is not a suggestion.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest_by(word, candidates, |_, _| false)
}

/// Like [`did_you_mean`], but ties go to the alphabetically first
/// candidate, so the candidates' order does not matter (a hash map's keys
/// may come in any order) and repeats change nothing.
pub fn did_you_mean_any_order<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    closest_by(word, candidates, |c, best| c < best)
}

/// The closest candidate within the limit; `wins_tie(c, best)` says
/// whether a candidate as close as the best so far replaces it.
fn closest_by<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    wins_tie: impl Fn(&str, &str) -> bool,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    let lower = word.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == word {
            continue;
        }
        // Words whose lengths differ by more than the limit are further
        // apart than it (each edit changes the length by at most one);
        // checked on ASCII only, where lowercasing keeps the length.
        if c.is_ascii() && word.is_ascii() && c.len().abs_diff(word.len()) > limit {
            continue;
        }
        let d = edit_distance(&lower, &c.to_lowercase());
        if d <= limit && best.is_none_or(|(b, s)| d < b || (d == b && wins_tie(c, s))) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The number of single-character insertions, deletions, substitutions
/// and swaps of two neighbours that turn `a` into `b` (Levenshtein distance
/// with adjacent transpositions, by characters): `inptu` is one edit from
/// `input`, as a typist sees it.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: the one before the previous, the previous, the current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("inptu", "input"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("abc", ""), 3);
    }

    #[test]
    fn suggestions() {
        let names = ["SumVertex", "Scale<float>", "Count"];
        assert_eq!(did_you_mean("SumVertx", names), Some("SumVertex"));
        assert_eq!(did_you_mean("sumvertex", names), Some("SumVertex"));
        assert_eq!(did_you_mean("Nothing", names), None);
        // Short words allow one edit only.
        assert_eq!(did_you_mean("ab", ["ax", "xy"]), Some("ax"));
        assert_eq!(did_you_mean("ab", ["xy"]), None);
        assert_eq!(did_you_mean("Count", names), None);
        // Equally close: the first given, or the alphabetically first.
        assert_eq!(did_you_mean("cat", ["cot", "bat"]), Some("cot"));
        assert_eq!(did_you_mean_any_order("cat", ["cot", "bat", "cot"]), Some("bat"));
        assert_eq!(did_you_mean_any_order("cat", ["cat", "catalogue"]), None);
    }
}
