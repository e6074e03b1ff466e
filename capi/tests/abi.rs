//! The C ABI from Rust, as a C caller uses it: handles, status codes and
//! messages, a graph built and run through the calls, and the errors each
//! misuse returns.

use std::ffi::{c_char, CStr, CString};
use std::ptr::null_mut;

use poplar::device::*;
use poplar::engine::*;
use poplar::graph::*;
use poplar::program::*;
use poplar::status::Status;
use poplar::target::*;
use poplar::tensor::*;
use poplar::*;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_error() -> String {
    // SAFETY: the library returns a valid C string.
    unsafe { CStr::from_ptr(prs_last_error()) }.to_string_lossy().into_owned()
}

fn ok(status: i32) {
    assert_eq!(status, 0, "call failed: {}", last_error());
}

fn mk2() -> TargetDesc {
    let mut t = std::mem::MaybeUninit::<TargetDesc>::uninit();
    ok(prs_target_preset(c("ipu2").as_ptr(), t.as_mut_ptr()));
    // SAFETY: written by the successful call.
    unsafe { t.assume_init() }
}

fn graph() -> *mut Graph {
    let mut g = null_mut();
    ok(prs_graph_new(&mk2(), 1, &mut g));
    g
}

fn variable(g: *mut Graph, shape: &[usize], name: &str) -> *mut Tensor {
    let mut t = null_mut();
    ok(prs_graph_add_variable(g, 10, shape.as_ptr(), shape.len(), c(name).as_ptr(), &mut t));
    t
}

#[test]
fn presets_have_poplars_figures() {
    let t = mk2();
    assert_eq!((t.num_ipus, t.tiles_per_ipu, t.workers, t.exchange_bytes_per_cycle), (1, 1472, 6, 4));
    let mut t1 = std::mem::MaybeUninit::<TargetDesc>::uninit();
    ok(prs_target_preset(c("ipu1").as_ptr(), t1.as_mut_ptr()));
    // SAFETY: written by the successful call.
    assert_eq!(unsafe { t1.assume_init() }.tiles_per_ipu, 1216);
    assert_eq!(prs_target_preset(c("ipu9").as_ptr(), t1.as_mut_ptr()), Status::PoplarError as i32);
    assert!(last_error().contains("unknown IPU architecture 'ipu9'"), "{}", last_error());
}

#[test]
fn views_need_no_graph_and_check_their_bounds() {
    let g = graph();
    let t = variable(g, &[4, 6], "t");
    let mut row = null_mut();
    ok(prs_tensor_index(t, 3, &mut row));
    assert_eq!(prs_tensor_num_elements(row), 6);
    let mut bad = null_mut();
    assert_eq!(prs_tensor_index(t, 4, &mut bad), Status::IndexError as i32);
    assert!(last_error().contains("index 4 is out of range"), "{}", last_error());
    let mut tr = null_mut();
    ok(prs_tensor_dimshuffle(t, [1u32, 0].as_ptr(), 2, &mut tr));
    let mut dims = [0usize; 2];
    assert_eq!(prs_tensor_shape(tr, dims.as_mut_ptr(), 2), 2);
    assert_eq!(dims, [6, 4]);
    let mut b = null_mut();
    ok(prs_tensor_broadcast(row, 3, 0, &mut b));
    assert_eq!(prs_tensor_num_elements(b), 18);
    let mut aliased = 0;
    ok(prs_tensor_contains_aliases(b, &mut aliased));
    assert_eq!(aliased, 1);
    let mut meet = 0;
    ok(prs_tensor_intersects(row, t, &mut meet));
    assert_eq!(meet, 1);
    for p in [row, tr, b, t] {
        prs_tensor_free(p);
    }
    prs_graph_free(g);
}

#[test]
fn unknown_vertex_type_and_field_name_the_closest() {
    let g = graph();
    let src = c("#include <poplar/Vertex.hpp>\nclass Twice : public poplar::Vertex {\npublic:\n  poplar::Input<float> in;\n  poplar::Output<float> out;\n  bool compute() { *out = 2 * *in; return true; }\n};\n");
    ok(prs_graph_add_codelets(g, src.as_ptr(), 1, std::ptr::null()));
    let mut cs = 0;
    ok(prs_graph_add_compute_set(g, c("a set").as_ptr(), &mut cs));
    let mut v = 0;
    assert_eq!(prs_graph_add_vertex(g, cs, c("Twise").as_ptr(), &mut v), Status::UnknownVertexType as i32);
    assert!(last_error().contains("did you mean 'Twice'"), "{}", last_error());
    ok(prs_graph_add_vertex(g, cs, c("Twice").as_ptr(), &mut v));
    let x = variable(g, &[], "x");
    assert_eq!(prs_graph_connect(g, v, c("inn").as_ptr(), x), Status::UnknownField as i32);
    assert!(last_error().contains("did you mean 'in'"), "{}", last_error());
    prs_tensor_free(x);
    prs_graph_free(g);
}

/// Text a run prints, collected.
extern "C" fn collect(ctx: *mut std::ffi::c_void, text: *const c_char, len: usize) {
    // SAFETY: ctx is the String passed to prs_engine_run; text has len bytes.
    let out = unsafe { &mut *ctx.cast::<String>() };
    out.push_str(&String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) }));
}

#[test]
fn a_graph_built_by_calls_compiles_runs_and_prints() {
    let g = graph();
    let v = variable(g, &[2, 2], "v 1 (any text)");
    ok(prs_graph_set_tile_mapping(g, v, 0));
    let values = [1.0f64, 2.0, 3.0, 4.0];
    let mut k = null_mut();
    ok(prs_graph_add_constant(
        g,
        10,
        [2usize, 2].as_ptr(),
        2,
        values.as_ptr().cast(),
        11,
        4,
        c("k").as_ptr(),
        &mut k,
    ));
    ok(prs_graph_set_tile_mapping(g, k, 1));
    ok(prs_graph_create_host_read(g, c("v-read").as_ptr(), v));
    let mut seq = null_mut();
    ok(prs_program_new(&mut seq));
    let mut copy = null_mut();
    ok(prs_program_copy(k, v, &mut copy));
    ok(prs_program_add(seq, copy));
    let mut print = null_mut();
    ok(prs_program_print_tensor(c("v").as_ptr(), v, &mut print));
    ok(prs_program_add(seq, print));
    let progs = [seq as *const Program];
    let mut exe = null_mut();
    ok(prs_compile(g, progs.as_ptr(), 1, std::ptr::null(), std::ptr::null(), 0, None, null_mut(), &mut exe));
    let mut engine = null_mut();
    ok(prs_engine_new(exe, std::ptr::null(), std::ptr::null(), 0, &mut engine));
    let mut device = null_mut();
    ok(prs_device_new_model(&mk2(), &mut device));
    ok(prs_engine_load(engine, device));
    let mut printed = String::new();
    ok(prs_engine_run(engine, 0, Some(collect), (&mut printed as *mut String).cast()));
    assert_eq!(printed, "v: [\n  [1.0000000 2.0000000]\n  [3.0000000 4.0000000]\n]\n");
    let mut back = [0f32; 4];
    ok(prs_engine_read_tensor(engine, c("v-read").as_ptr(), back.as_mut_ptr().cast(), 16));
    assert_eq!(back, [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        prs_engine_read_tensor(engine, c("nope").as_ptr(), back.as_mut_ptr().cast(), 16),
        Status::SymbolError as i32
    );
    assert_eq!(prs_engine_run(engine, 5, None, null_mut()), Status::IndexError as i32);
    // The PIR dump of the same graph names the tensor by a mangled identifier.
    let mut pir = null_mut();
    ok(prs_graph_dump_pir(g, progs.as_ptr(), 1, &mut pir));
    // SAFETY: a string from the library, freed below.
    let text = unsafe { CStr::from_ptr(pir) }.to_string_lossy().into_owned();
    prs_string_free(pir);
    assert!(text.contains("var v_1__any_text_: float[2, 2]"), "{text}");
    assert!(ir::parse_and_check("dump.pir", &text).is_ok(), "{text}");
    for t in [v, k] {
        prs_tensor_free(t);
    }
    for p in [seq, copy, print] {
        prs_program_free(p);
    }
    prs_engine_free(engine);
    prs_device_free(device);
    prs_graph_free(g);
}

#[test]
fn options_poplar_does_not_know_are_refused_with_a_suggestion() {
    let g = graph();
    let mut seq = null_mut();
    ok(prs_program_new(&mut seq));
    let progs = [seq as *const Program];
    let (k, val) = (c("debug.instrumnet"), c("true"));
    let mut exe = null_mut();
    let st = prs_compile(g, progs.as_ptr(), 1, &k.as_ptr(), &val.as_ptr(), 1, None, null_mut(), &mut exe);
    assert_eq!(st, Status::InvalidOption as i32);
    assert!(last_error().contains("did you mean 'debug.instrument'"), "{}", last_error());
    let k = c("debug.retainDebugInformation");
    ok(prs_compile(g, progs.as_ptr(), 1, &k.as_ptr(), &val.as_ptr(), 1, None, null_mut(), &mut exe));
    prs_executable_free(exe);
    prs_program_free(seq);
    prs_graph_free(g);
}

#[test]
fn a_panic_becomes_an_internal_status() {
    let st = status::guard(|| panic!("deliberate"));
    assert_eq!(st, Status::Internal as i32);
    assert!(last_error().contains("internal error in libpoplar") && last_error().contains("deliberate"));
}

#[test]
fn null_handles_are_errors_not_crashes() {
    let mut out = null_mut();
    assert_eq!(prs_tensor_clone(std::ptr::null(), &mut out), Status::PoplarError as i32);
    assert!(last_error().contains("tensor is NULL"));
    assert_eq!(prs_graph_add_compute_set(null_mut(), std::ptr::null(), &mut 0), Status::PoplarError as i32);
    let name = c("s");
    let mut data = [0u8; 4];
    let engine_null = |status: i32| {
        assert_eq!(status, Status::PoplarError as i32);
        assert!(last_error().contains("engine is NULL"), "{}", last_error());
    };
    engine_null(prs_engine_connect_stream_replica(null_mut(), name.as_ptr(), 1, data.as_mut_ptr().cast(), 4));
    engine_null(prs_engine_copy_to_remote_buffer(null_mut(), name.as_ptr(), 0, 0, data.as_ptr().cast(), 4));
    engine_null(prs_engine_copy_from_remote_buffer(
        null_mut(),
        name.as_ptr(),
        0,
        0,
        data.as_mut_ptr().cast(),
        4,
    ));
    // A callback handed to a call that fails is destroyed, once.
    static DESTROYED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    extern "C" fn destroy(_: *mut std::ffi::c_void) {
        DESTROYED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    let cb = StreamCallback {
        this: null_mut(),
        prefetch: None,
        fetch: None,
        complete: None,
        destroy: Some(destroy),
    };
    engine_null(prs_engine_connect_stream_callback_replica(null_mut(), name.as_ptr(), 0, cb));
    assert_eq!(DESTROYED.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(prs_graph_set_stream_broadcast(null_mut(), 0), Status::PoplarError as i32);
}

/// Runs `kind` of `popnn::nonLinearity` over `xs` (one row) on sim.
fn nonlinearity(kind: i32, xs: &[f32]) -> Vec<f32> {
    let g = graph();
    let values: Vec<f64> = xs.iter().map(|&x| f64::from(x)).collect();
    let shape = [1usize, xs.len()];
    let mut x = null_mut();
    ok(prs_graph_add_constant(
        g,
        10,
        shape.as_ptr(),
        2,
        values.as_ptr().cast(),
        11,
        xs.len(),
        c("x").as_ptr(),
        &mut x,
    ));
    ok(prs_graph_set_tile_mapping(g, x, 0));
    let mut seq = null_mut();
    ok(prs_program_new(&mut seq));
    let mut y = null_mut();
    ok(poplar::ops::prs_op_nonlinearity(g, seq, kind, x, 0, c("y").as_ptr(), &mut y));
    ok(prs_graph_create_host_read(g, c("y").as_ptr(), y));
    let progs = [seq as *const Program];
    let mut exe = null_mut();
    ok(prs_compile(g, progs.as_ptr(), 1, std::ptr::null(), std::ptr::null(), 0, None, null_mut(), &mut exe));
    let mut engine = null_mut();
    ok(prs_engine_new(exe, std::ptr::null(), std::ptr::null(), 0, &mut engine));
    let mut device = null_mut();
    ok(prs_device_new_model(&mk2(), &mut device));
    ok(prs_engine_load(engine, device));
    ok(prs_engine_run(engine, 0, None, null_mut()));
    let mut out = vec![0f32; xs.len()];
    ok(prs_engine_read_tensor(engine, c("y").as_ptr(), out.as_mut_ptr().cast(), 4 * xs.len()));
    prs_engine_free(engine);
    prs_device_free(device);
    prs_program_free(seq);
    prs_tensor_free(x);
    prs_tensor_free(y);
    prs_graph_free(g);
    out
}

#[test]
fn gelu_and_softmax_match_their_formulas() {
    let xs = [-3.0f32, -0.5, 0.0, 0.25, 1.0, 4.0];
    let gelu = nonlinearity(5, &xs);
    for (&x, &y) in xs.iter().zip(&gelu) {
        let x = f64::from(x);
        let want =
            0.5 * x * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x)).tanh());
        assert!((f64::from(y) - want).abs() < 1e-5, "gelu({x}) = {y}, want {want}");
    }
    let soft = nonlinearity(4, &xs);
    let max = xs.iter().fold(f64::MIN, |m, &x| m.max(f64::from(x)));
    let sum: f64 = xs.iter().map(|&x| (f64::from(x) - max).exp()).sum();
    for (&x, &y) in xs.iter().zip(&soft) {
        let want = (f64::from(x) - max).exp() / sum;
        assert!((f64::from(y) - want).abs() < 1e-6, "softmax at {x} = {y}, want {want}");
    }
}
