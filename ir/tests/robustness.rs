//! The front end never panics and stays fast on damaged input: mutations of
//! the golden `ok/` files (truncations, byte flips, insertions, deletions,
//! splices) and random bytes, from a fixed-seed PRNG.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&[u8]] = &[
    b"[",
    b"]",
    b"{",
    b"}",
    b"(",
    b")",
    b",",
    b":",
    b"::",
    b"..",
    b"->",
    b"-",
    b"*",
    b"/ 0",
    b"%",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"0x",
    b"\"",
    b"/*",
    b"\\",
    b"\xff",
    b"for i in 0..100000000 {",
    b"transpose(",
    b"concat(",
    b"reshape(",
    b"broadcast(",
    b"1e999",
    b"nan",
    b"@ tile",
    b"call main",
    b"vertex V {",
    b"case",
    b"x",
    b"0",
    b" ",
];

fn mutate(rng: &mut Rng, src: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut b = src.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = b.len();
        match rng.below(6) {
            0 => b.truncate(rng.below(len + 1)),
            1 if len > 0 => {
                let i = rng.below(len);
                b[i] = rng.next() as u8;
            }
            2 => {
                let i = rng.below(len + 1);
                let p = PIECES[rng.below(PIECES.len())];
                b.splice(i..i, p.iter().copied());
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let j = (i + rng.below(64)).min(len);
                b.drain(i..j);
            }
            4 => {
                let other = &corpus[rng.below(corpus.len())];
                if !other.is_empty() {
                    let a = rng.below(other.len());
                    let e = (a + rng.below(200)).min(other.len());
                    let i = rng.below(len + 1);
                    b.splice(i..i, other[a..e].iter().copied());
                }
            }
            _ => {
                let n = rng.below(32);
                let i = rng.below(len + 1);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                b.splice(i..i, bytes);
            }
        }
    }
    b
}

#[test]
fn mutated_inputs_do_not_panic() {
    let mut corpus: Vec<Vec<u8>> = testdata::files_with_suffix(&testdata::root().join("pir"), ".pir")
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(!corpus.is_empty());
    corpus.push(Vec::new());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let iterations = 20000;
    for n in 0..iterations {
        let base = corpus[rng.below(corpus.len())].clone();
        let input = if n % 10 == 9 {
            (0..rng.below(300)).map(|_| rng.next() as u8).collect()
        } else {
            mutate(&mut rng, &base, &corpus)
        };
        let start = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| match ir::parse_bytes("fuzz.pir", &input) {
            Ok(m) => {
                // Whatever parses must print and re-parse to the same graph.
                let text = ir::print(&m.graph);
                let again = ir::parse_and_check("printed.pir", &text)
                    .unwrap_or_else(|d| panic!("printed text fails:\n{}\n{text}", d.render()));
                assert!(again.graph == m.graph, "round trip changed the graph:\n{text}");
                let _ = ir::dump(&m.graph);
            }
            Err(d) => {
                let text = d.render();
                assert!(text.starts_with("fuzz.pir:"), "bad rendering: {text}");
            }
        }));
        let took = start.elapsed();
        if r.is_err() {
            panic!("panic on input #{n}: {:?}", String::from_utf8_lossy(&input));
        }
        assert!(
            took < Duration::from_secs(5),
            "input #{n} took {took:?}: {:?}",
            String::from_utf8_lossy(&input)
        );
    }
}

/// Inputs nested past the documented limits are errors, not stack
/// overflows; inputs at the limits check normally. Runs on the test
/// harness's thread (2 MiB of stack by default), smaller than a binary's.
#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    use ir::lexer::{MAX_CHAIN, MAX_NESTING};
    let head = "target mk2\nvar x: int[1]\nmap x -> tile 0\n";
    let chain = |n: usize, op: &str| format!("{head}map x[{}0] -> tile 0\n", op.repeat(n));
    let nested = |n: usize, open: &str, close: &str, inner: &str| {
        format!("{head}program main {{ {}{inner}{} }}\n", open.repeat(n), close.repeat(n))
    };
    let too_deep = [
        (chain(30_000, "0+"), "chained operators"),
        (chain(100_000, "-"), "chained operators"),
        (format!("{head}map x{} -> tile 0\n", "[0:1]".repeat(MAX_CHAIN + 1)), "chained operators"),
        (nested(9_000, "repeat 1 { ", "} ", ""), "brackets nested too deeply"),
        (nested(9_000, "if x { ", "} ", ""), "brackets nested too deeply"),
        (format!("{head}{}{}\n", "for i in 0..1 { ".repeat(35_000), "}".repeat(35_000)), "nested too deeply"),
        (
            format!(
                "{head}program main {{ print \"x\" {}x{} }}\n",
                "reverse(".repeat(100_000),
                ")".repeat(100_000)
            ),
            "nested too deeply",
        ),
    ];
    for (src, want) in &too_deep {
        let d = ir::parse_and_check("deep.pir", src).expect_err("deep input must be rejected");
        let text = d.render();
        assert!(text.contains(want), "expected {want:?}, got: {text}");
    }
    // At the limits: accepted (or rejected for ordinary reasons), no overflow.
    let at_limit = [
        chain(MAX_CHAIN - 10, "0+"),
        chain(MAX_CHAIN - 10, "-"),
        nested(MAX_NESTING - 2, "repeat 1 { ", "} ", "sync"),
        format!(
            "{head}program main {{ print \"x\" {}x{} }}\n",
            "reverse(".repeat(MAX_NESTING / 2),
            ")".repeat(MAX_NESTING / 2)
        ),
        format!(
            "{head}var y: int[1] = {}1{}\nmap y -> tile 0\n",
            "(".repeat(MAX_NESTING - 1),
            ")".repeat(MAX_NESTING - 1)
        ),
    ];
    for src in &at_limit {
        if let Err(d) = ir::parse_and_check("deep.pir", src) {
            let text = d.render();
            assert!(!text.contains("too deeply"), "input at the limit rejected: {text}");
        }
    }
}
