//! Robustness: random bytes and mutated codelets never panic (an internal
//! compiler error counts as a panic) and each compile finishes quickly.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn check(src: &str, what: &str) {
    let t = Instant::now();
    let r = popc::compile("fuzz.cpp", src, &popc::Options::default(), &popc::NoIncludes, &[]);
    if let Err(d) = &r {
        let text = d.render();
        assert!(!text.contains("internal compiler error"), "{what}: ICE on input:\n{src}\n{text}");
        assert!(text.contains("error:"), "{what}: empty diagnostic");
    }
    assert!(t.elapsed() < Duration::from_secs(20), "{what}: compile took {:?}", t.elapsed());
}

#[test]
fn random_and_mutated_inputs() {
    // Run on a thread with an ordinary 8 MiB stack, like a binary's main thread.
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/ok");
            let seeds: Vec<String> = testdata::files_with_suffix(&dir, ".cpp")
                .iter()
                .map(|p| std::fs::read_to_string(p).unwrap())
                .collect();
            const ALPHABET: &[u8] =
                b"(){}[]<>;:,.+-*/%&|^!~=?#\"' \nabcxyzTNint floatVector<>Input0123456789";
            for i in 0..300 {
                let len = (rng.next() % 200) as usize;
                let s: String =
                    (0..len).map(|_| ALPHABET[(rng.next() as usize) % ALPHABET.len()] as char).collect();
                check(&s, &format!("random #{i}"));
            }
            for i in 0..300 {
                let seed = &seeds[(rng.next() as usize) % seeds.len()];
                let mut b = seed.as_bytes().to_vec();
                for _ in 0..1 + rng.next() % 4 {
                    let at = (rng.next() as usize) % b.len().max(1);
                    match rng.next() % 3 {
                        0 => {
                            b.remove(at.min(b.len() - 1));
                        }
                        1 => b.insert(at, ALPHABET[(rng.next() as usize) % ALPHABET.len()]),
                        _ => {
                            let end = (at + (rng.next() % 40) as usize).min(b.len());
                            let chunk: Vec<u8> = b[at..end].to_vec();
                            b.splice(at..at, chunk);
                        }
                    }
                }
                check(&String::from_utf8_lossy(&b), &format!("mutant #{i}"));
            }
            // Pathological nesting.
            check(&"(".repeat(100_000), "deep parens");
            check(&format!("int f() {{ return {}1{}; }}", "(".repeat(5000), ")".repeat(5000)), "deep expr");
            check(&"{".repeat(100_000), "deep braces");
            check("#define A A A\nA\n", "self macro");
            check("#define A(x) A(x) A(x)\nA(1)\n", "self fn macro");
            check("template <int N> struct S : S<N+1> {};\nS<0> s;\n", "template chain");
        })
        .unwrap()
        .join()
        .unwrap();
}
