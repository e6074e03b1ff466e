//! A small deterministic mutator for the smoke test: the same seed gives
//! the same inputs on every run and machine, so a failure reproduces. It
//! is no substitute for the coverage-guided engine (`fuzz/`); it only
//! checks that the targets stand up to inputs near the seeds.

/// xorshift64*: enough randomness for picking mutations.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (which must not be 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Bytes that often change a parser's path: brackets, separators,
/// quotes, digits at their limits.
const INTERESTING: &[&[u8]] = &[
    b"[",
    b"]",
    b"(",
    b")",
    b"{",
    b"}",
    b",",
    b";",
    b"<",
    b">",
    b"\"",
    b"'",
    b"\n",
    b"0",
    b"-1",
    b"4294967295",
    b"18446744073709551616",
    b"1e308",
    b"#",
    b"\\",
    b"\0",
    b"\xff",
];

/// One to four random edits of `input`: flip a bit, set a byte, insert
/// a token, delete a range, duplicate a range.
pub fn mutate(input: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = if v.is_empty() { 0 } else { rng.below(v.len() + 1) };
        match rng.below(5) {
            0 if at < v.len() => v[at] ^= 1 << rng.below(8),
            1 if at < v.len() => v[at] = rng.next_u64() as u8,
            2 => {
                let t = INTERESTING[rng.below(INTERESTING.len())];
                v.splice(at..at, t.iter().copied());
            }
            3 if at < v.len() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at..end);
            }
            _ if at < v.len() => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                let piece = v[at..end].to_vec();
                v.splice(end..end, piece);
            }
            _ => v.push(rng.next_u64() as u8),
        }
    }
    v
}
