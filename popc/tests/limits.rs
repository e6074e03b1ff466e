//! Limits: inputs built to exhaust the compiler (a 25,000-term sum, an
//! initialiser nested 20,000 deep, 100,000 `*` declarators, a macro that
//! doubles thirty times, a 4 GiB local array) end in a clean diagnostic, and
//! the deepest inputs the limits accept compile. Each case runs on a thread
//! with the default 2 MiB test-thread stack, which is what proves the
//! bounds: an unbounded recursion anywhere would overflow it and abort.

use std::time::{Duration, Instant};

/// A stack no bigger than a test thread's default.
const STACK: usize = 2 << 20;

fn compile(src: &str) -> Result<linker::gp::Object, String> {
    popc::compile("limits.cpp", src, &popc::Options::default(), &popc::NoIncludes, &[])
        .map_err(|d| d.render())
}

/// Compiles `src` on a 2 MiB thread and returns the result.
fn on_small_stack(src: String) -> Result<linker::gp::Object, String> {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let t = Instant::now();
            let r = compile(&src);
            assert!(t.elapsed() < Duration::from_secs(30), "compile took {:?}", t.elapsed());
            r
        })
        .unwrap()
        .join()
        .expect("the compiler panicked")
}

/// Asserts a clean error whose message contains `what`.
fn rejects(src: String, what: &str) {
    match on_small_stack(src) {
        Ok(_) => panic!("compiled, but an error containing '{what}' was expected"),
        Err(text) => {
            assert!(!text.contains("internal compiler error"), "ICE:\n{}", head(&text));
            assert!(text.contains(what), "expected '{what}' in:\n{}", head(&text));
        }
    }
}

fn accepts(src: String) {
    if let Err(text) = on_small_stack(src) {
        panic!("expected to compile:\n{}", head(&text));
    }
}

fn head(text: &str) -> String {
    text.lines().map(|l| l.chars().take(200).collect::<String>()).take(6).collect::<Vec<_>>().join("\n")
}

/// A vertex whose `compute` body is `body` (with `int x` as an input).
fn vertex(body: &str) -> String {
    format!(
        "#include <poplar/Vertex.hpp>\nusing namespace poplar;\n\
         class V : public Vertex {{\npublic:\n  Input<int> in;\n  Output<int> out;\n\
         void compute() {{\n int x = *in;\n{body}\n}}\n}};\n"
    )
}

const NESTED: &str = "construct nested too deeply";

#[test]
fn long_binary_chain_is_rejected() {
    let sum = vec!["1"; 25_000].join("+");
    rejects(format!("int f() {{ return {sum}; }}\n"), NESTED);
    let sum = vec!["x"; 25_000].join("+");
    rejects(vertex(&format!("*out = {sum};")), NESTED);
}

#[test]
fn deep_initialiser_is_rejected() {
    let n = 20_000;
    rejects(format!("void f() {{ int a = {}1{}; }}\n", "{".repeat(n), "}".repeat(n)), NESTED);
}

#[test]
fn long_declarator_is_rejected() {
    rejects(format!("int {}p;\n", "*".repeat(100_000)), NESTED);
    rejects(format!("void f() {{ int {}p = 0; }}\n", "*".repeat(100_000)), NESTED);
    rejects(format!("void f(int {}p) {{}}\n", "&".repeat(100_000)), NESTED);
    rejects(format!("int a{};\n", "[1]".repeat(100_000)), NESTED);
}

#[test]
fn other_long_chains_are_rejected() {
    rejects(vertex(&format!("*out = {}x;", "-".repeat(100_000))), NESTED);
    rejects(vertex(&format!("*out = {}x;", "(int)".repeat(50_000))), NESTED);
    rejects(vertex(&format!("int a[1]; *out = a{};", "[0]".repeat(100_000))), NESTED);
    rejects(vertex(&format!("*out = (x{});", ", x".repeat(100_000))), NESTED);
    rejects(vertex(&format!("*out = x{};", " = x".repeat(100_000))), NESTED);
    rejects(vertex(&format!("*out = {} 1 {};", "x ? x :".repeat(50_000), "")), NESTED);
    rejects(vertex(&format!("{}x++;{}", "{".repeat(100_000), "}".repeat(100_000))), NESTED);
    rejects(vertex(&format!("{} x++;", "if (x) ".repeat(100_000))), NESTED);
    rejects(format!("{}int a;{}", "namespace n { ".repeat(50_000), "}".repeat(50_000)), NESTED);
    rejects(format!("namespace {} {{ int a; }}", vec!["n"; 50_000].join("::")), NESTED);
    rejects(format!("{}int a;{}", "struct S { ".repeat(50_000), "};".repeat(50_000)), NESTED);
    let targs = format!("{}int{}", "std::array<".repeat(50_000), ", 1>".repeat(50_000));
    rejects(format!("{targs} a;\n"), NESTED);
    // A chain in parentheses in a chain in parentheses…: each chain sits on
    // top of the one inside it, so the tree stays within the limit.
    let mut e = "x".to_string();
    for _ in 0..200 {
        e = format!("({e}{})", "+x".repeat(200));
    }
    rejects(vertex(&format!("*out = {e};")), NESTED);
}

#[test]
fn deepest_accepted_trees_compile() {
    // Every pass recurses over these; the limit keeps the recursion small.
    accepts(vertex(&format!("*out = {};", vec!["x"; 240].join("+"))));
    accepts(vertex(&format!("*out = {}x;", "-".repeat(240))));
    accepts(vertex(&format!("*out = {}x{};", "(".repeat(80), ")".repeat(80))));
    let (dims, idx) = ("[1]".repeat(60), "[0]".repeat(60));
    accepts(vertex(&format!("int a{dims} = {{}}; a{idx} = x; *out = a{idx};")));
    accepts(vertex(&format!("{}x++;{} *out = x;", "{".repeat(240), "}".repeat(240))));
    accepts(vertex(&format!("{} x++; *out = x;", "if (x) ".repeat(240))));
    accepts(vertex(&format!("int {}p = 0; *out = x;", "*".repeat(240))));
    accepts(vertex(&format!("int a{} = {{}}; *out = x;", "[1]".repeat(60))));
    let mut e = "x".to_string();
    for _ in 0..40 {
        e = format!("({e}{})", "+x".repeat(4));
    }
    accepts(vertex(&format!("*out = {e};")));
    // Constant evaluation of deep expressions, nested calls, and inlining.
    let deep = format!("{}n", "- ".repeat(120));
    accepts(format!(
        "constexpr int f(int n) {{ return n == 0 ? 0 : 1 + f({deep} - 1); }}\n\
         static_assert(f(3) == 3, \"\");\n{}",
        vertex("*out = x;")
    ));
    let mut src = String::from("int g0(int a) { return a + 1; }\n");
    for i in 1..4 {
        src.push_str(&format!("int g{i}(int a) {{ return {}g{}(a); }}\n", "- ".repeat(120), i - 1));
    }
    accepts(src + &vertex("*out = g3(x);"));
}

#[test]
fn nested_calls_are_bounded() {
    // Inlining and constant evaluation stack one tree on another; the passes
    // count their depth across calls. Up to the limit and past it, each
    // compile ends cleanly (compiled, or the depth error) on a 2 MiB stack.
    let deep = "- ".repeat(120);
    for levels in [2, 3, 4, 5, 6, 60] {
        let mut src = String::from("int g0(int a) { return a + 1; }\n");
        for i in 1..levels {
            src.push_str(&format!("int g{i}(int a) {{ return {deep}g{}(a); }}\n", i - 1));
        }
        let r = on_small_stack(src + &vertex(&format!("*out = g{}(x);", levels - 1)));
        if let Err(text) = r {
            assert!(text.contains("nesting depth exceeds"), "{}", head(&text));
        }
    }
    for n in [1, 2, 3, 4, 5, 100_000] {
        let r = on_small_stack(format!(
            "constexpr int f(int n) {{ return n == 0 ? 0 : {deep}f(n - 1); }}\nstatic_assert(f({n}) == 0, \"\");\n"
        ));
        if let Err(text) = r {
            assert!(text.contains("nesting depth exceeds"), "{}", head(&text));
        }
    }
    for levels in [2, 3, 4, 5, 6, 60] {
        let mut src = String::from("int g0(int a) { return a + 1; }\n");
        for i in 1..levels {
            src.push_str(&format!(
                "int g{i}(int a) {{ {} return g{}(a); {} }}\n",
                "{ if (a) ".repeat(120),
                i - 1,
                "}".repeat(120)
            ));
        }
        let r = on_small_stack(src + &vertex(&format!("*out = g{}(x);", levels - 1)));
        if let Err(text) = r {
            assert!(text.contains("nesting depth exceeds"), "{}", head(&text));
        }
    }
    let mut src = String::from("int g0(int a) { return a + 1; }\n");
    for i in 1..60 {
        src.push_str(&format!("int g{i}(int a) {{ return {deep}g{}(a); }}\n", i - 1));
    }
    rejects(src + &vertex("*out = g59(x);"), "nesting depth exceeds");
}

#[test]
fn macro_bomb_is_rejected() {
    let mut src = String::from("#define A0 1\n");
    for i in 1..=30 {
        src.push_str(&format!("#define A{i} (A{p}+A{p})\n", p = i - 1));
    }
    src.push_str("int f() { return A30; }\n");
    rejects(src, "expansion of macro 'A30' is too large");
    rejects(
        "#define X(a) a a a a a a a a a a\n#define Y(a) X(X(X(X(X(X(X(X(a))))))))\nY(1)\n".into(),
        "too large",
    );
}

#[test]
fn huge_objects_are_rejected() {
    rejects(vertex("int a[1024][1024][1024]; a[1][2][3] = 1; *out = a[1][2][3];"), "array 'a' is too large");
    rejects(vertex("int a[1024][1024][64]; *out = a[1][2][3];"), "array 'a' is too large");
    rejects(vertex("char a[1048576][2]; *out = a[0][1];"), "array 'a' is too large");
    rejects(vertex("int a[200000]; int b[200000]; a[1] = x; b[1] = a[1]; *out = b[1];"), "bytes of stack");
    // A struct that doubles at each level.
    let mut src = String::from("struct S0 { long a; };\n");
    for i in 1..40 {
        src.push_str(&format!("struct S{i} {{ S{p} a; S{p} b; }};\n", p = i - 1));
    }
    rejects(src + &vertex("S39 s; *out = x;"), "is too large");
    accepts(vertex("int a[1000][64]; a[x & 7][3] = x; *out = a[x & 7][3];"));
}

/// HARDENING.md #3: a file of functions each calling the previous one
/// twice doubles the inlined code per level; the bound on inlined calls
/// stops it at the call that passes the limit, named with its position.
#[test]
fn inlining_blow_up_is_bounded() {
    let chain = |levels: usize| {
        let mut src = String::from("int g0(int x) { return x * 3 + 1; }\n");
        for i in 1..=levels {
            src.push_str(&format!("int g{i}(int x) {{ return g{p}(x) + g{p}(x + 1); }}\n", p = i - 1));
        }
        src + &vertex(&format!("*out = g{levels}(x);"))
    };
    let t = Instant::now();
    match on_small_stack(chain(13)) {
        Ok(_) => panic!("a 2^13-call tree compiled"),
        Err(text) => assert!(
            text.contains("limits.cpp:2:")
                && text.contains("error: inlined code too large: this call of 'g0' is the 1025th call"),
            "{}",
            head(&text)
        ),
    }
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    // 2^9 - 1 calls are within the limit, and the result is right.
    accepts(chain(9));
}

/// HARDENING.md #3: a Fibonacci class template evaluates each `F<N>::v`
/// once (memoised), so `F<60>` is linear work; recursion past the depth
/// limit and templates that fan out past the instance limit are clean
/// errors.
#[test]
fn template_recursion_is_memoised_and_bounded() {
    let fib = |n: u32| {
        format!(
            "template<int N> struct F {{ static constexpr int v = F<N-1>::v + F<N-2>::v; }};\n\
             template<> struct F<0> {{ static constexpr int v = 0; }};\n\
             template<> struct F<1> {{ static constexpr int v = 1; }};\n\
             static_assert(F<20>::v == 6765, \"fib\");\n{}",
            vertex(&format!("*out = F<{n}>::v;"))
        )
    };
    let t = Instant::now();
    accepts(fib(60));
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    rejects(fib(100), "template instantiation depth exceeds 64");
    // 2^30 distinct instances: stopped at the limit.
    let fan =
        "template<int N, int K> struct G { static constexpr int v = G<N-1, 2*K>::v + G<N-1, 2*K+1>::v; };\n\
               template<int K> struct G<0, K> { static constexpr int v = K; };\n";
    let t = Instant::now();
    rejects(
        fan.to_string() + &vertex("*out = G<30, 0>::v;"),
        "more than 100000 class template instances in one compilation",
    );
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    accepts(fan.to_string() + &vertex("*out = G<10, 0>::v;"));
}

/// HARDENING.md #3: long bodies and long `switch`es compile in time
/// linear in their length (the line of each statement is a binary search;
/// a `switch` dispatches through a table, not a chain of compares).
#[test]
fn long_bodies_and_switches_compile() {
    let body = |n: usize| (0..n).map(|i| format!("x = x * 3 + {};\n", i % 7)).collect::<String>();
    let switch = |n: usize| {
        let cases: String = (0..n).map(|i| format!("case {i}: x = {}; break;\n", i * 7 % 1000)).collect();
        format!("switch (x) {{\n{cases}default: x = -1;\n}}\n*out = x;")
    };
    let t = Instant::now();
    accepts(vertex(&(body(20_000) + "*out = x;")));
    accepts(vertex(&switch(20_000)));
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    rejects(vertex("switch (x) { case 1: x = 2; break; case 1: x = 3; }"), "duplicate case value 1");
}
