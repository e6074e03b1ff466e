//! The hash tables of the compiler's own passes: std's `HashMap` and
//! `HashSet` with [`FastHasher`] instead of SipHash.
//!
//! Every lookup of a name (a local, a template parameter, a class, a
//! macro) hashes a short string, and lowering keys its memos by Cranelift
//! values: SipHash's cost showed in profiles (about 2% of compiling
//! PopLibs) where these tables need no protection against chosen
//! collisions. The hasher is fixed, so a table's order is the same in
//! every run (no output depends on it either way).

use std::hash::{BuildHasherDefault, Hasher};

/// A hash map with [`FastHasher`]; make one with `HashMap::default()`.
pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A hash set with [`FastHasher`]; make one with `HashSet::default()`.
pub type HashSet<T> = std::collections::HashSet<T, BuildHasherDefault<FastHasher>>;

/// A fast, non-cryptographic hasher (the multiply-rotate scheme of
/// rustc's FxHasher), taking bytes eight at a time.
#[derive(Default)]
pub struct FastHasher(u64);

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
