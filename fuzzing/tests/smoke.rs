//! A seconds-long smoke run of every fuzz target inside `cargo test`: each
//! target's body runs on all its seeds from testdata, then on a fixed
//! number of deterministic mutations of them. A panic (a crash the fuzzer
//! would report) fails the test and names the input. The coverage-guided
//! runs are in `fuzz/` (HARDENING.md says how to run them).

use fuzzing::mutate::{mutate, Rng};
use fuzzing::seeds;

/// Runs `name`'s target on its seeds and `mutations` mutated inputs.
fn smoke(name: &str, mutations: usize) {
    if !seeds::testdata_dir().is_dir() {
        eprintln!("skipped: testdata absent");
        return;
    }
    let body = seeds::target(name).unwrap();
    // All seeds but the images of the first 8 graphs only: compiling them
    // all takes most of a minute.
    let seeds = if name == "image" { seeds::image_of(8) } else { seeds::for_target(name).unwrap() };
    assert!(!seeds.is_empty(), "no seeds for {name}");
    let mut rng = Rng::new(name.len() as u64 * 7919 + 11);
    let run = |input: &[u8]| {
        let r = std::panic::catch_unwind(|| body(input));
        assert!(r.is_ok(), "target {name} panics on the input {:?}", String::from_utf8_lossy(input));
    };
    for s in &seeds {
        run(s);
    }
    for _ in 0..mutations {
        let s = &seeds[rng.below(seeds.len())];
        let m = mutate(s, &mut rng);
        run(&m);
    }
}

#[test]
fn pir_target() {
    smoke("pir", 300);
}

#[test]
fn codelet_target() {
    smoke("codelet", 60);
}

#[test]
fn gp_object_target() {
    smoke("gp_object", 2000);
}

#[test]
fn image_target() {
    smoke("image", 2000);
}

#[test]
fn npy_target() {
    smoke("npy", 5000);
}

#[test]
fn literal_target() {
    smoke("literal", 5000);
}

/// The image target's framing puts back exactly the code it took out.
#[test]
fn image_framing_round_trips() {
    let image = linker::image::Image {
        target: linker::image::Target {
            name: "mk2".into(),
            ipus: 1,
            tiles_per_ipu: 2,
            bytes_per_tile: 1024,
            workers: 6,
            clock_mhz: 1330.0,
            exchange_bytes_per_cycle: 4,
            sync_cycles: 0,
            replicas: 1,
            links: Default::default(),
        },
        code: vec![fuzzing::FIXED_CODE_BYTE; 300],
        relocs: Vec::new(),
        vertex_types: Vec::new(),
        tiles: Vec::new(),
        compute_sets: Vec::new(),
        copies: Vec::new(),
        programs: Vec::new(),
        functions: Vec::new(),
        handles: Vec::new(),
        streams: Vec::new(),
        remote_buffers: Vec::new(),
        replica_index: Vec::new(),
        isa: Default::default(),
    };
    let payload = fuzzing::payload_of(&image.to_bytes()).to_vec();
    let stripped = fuzzing::without_code(&image);
    assert_eq!(stripped.len(), payload.len() - 300);
    assert_eq!(fuzzing::with_code(&stripped), Some(payload));
}
