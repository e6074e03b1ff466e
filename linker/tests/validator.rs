//! Crafted images that each break one rule of the validator
//! (`linker::valid`), built by hand so that no compiler can have prevented
//! them: each must be rejected, with a message naming what is wrong, both
//! in memory and after a round trip through the file format.

use linker::gp::{ElemType, VertexBase};
use linker::image::*;
use linker::valid::{HOST_MEMORY_LIMIT, MAX_CONTROL_DEPTH, MAX_RANK, MAX_WORKERS};

/// Two tiles of 640 KB, one vertex type, one program running one copy.
fn base() -> Image {
    Image {
        target: Target {
            name: "mk2".into(),
            ipus: 1,
            tiles_per_ipu: 2,
            bytes_per_tile: 638_976,
            workers: 6,
            clock_mhz: 1330.0,
            exchange_bytes_per_cycle: 4,
            sync_cycles: 100,
            replicas: 1,
            links: Default::default(),
        },
        code: vec![0xc3; 32],
        relocs: vec![],
        vertex_types: vec![VertexCode {
            name: "V".into(),
            base: VertexBase::Vertex,
            plain: (0, 16),
            counting: (16, 16),
            returns_bool: false,
            source: "v.cpp".into(),
            plain_lines: vec![(0, 1)],
            counting_lines: vec![],
            stack_size: 64,
            statics: 0,
        }],
        tiles: vec![TileImage { mem_size: 600_000, ..Default::default() }; 2],
        compute_sets: vec![],
        copies: vec![Exchange {
            transfers: vec![Transfer {
                src_tile: 0,
                src_offset: 0,
                dst_tile: 1,
                dst_offset: 0,
                bytes: 300_000,
            }],
        }],
        programs: vec![Program { name: "main".into(), body: vec![Step::Copy(0)] }],
        functions: vec![],
        handles: vec![],
        streams: vec![],
        remote_buffers: vec![],
        replica_index: Vec::new(),
        isa: Default::default(),
    }
}

/// The image is rejected in memory and from bytes, with `needle` in the text.
fn rejected(image: Image, needle: &str) {
    let bytes = image.to_bytes();
    let err = image.validate().unwrap_err().to_string();
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    assert!(err.starts_with("executable image (prog.exe) is corrupt: "), "{err}");
    let err = Image::from_bytes(&bytes).unwrap_err().to_string();
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
}

#[test]
fn the_base_image_is_valid() {
    let image = base();
    let valid = image.clone().validate().unwrap();
    assert_eq!(*valid, image);
    assert_eq!(Image::from_bytes(&image.to_bytes()).unwrap().into_inner(), image);
}

#[test]
fn racing_exchange() {
    // Tile 0 -> 1 and tile 1 -> 0 in one phase: each reads what the other
    // writes, so the result would depend on which thread runs first.
    let mut image = base();
    image.copies[0]
        .transfers
        .insert(0, Transfer { src_tile: 1, src_offset: 0, dst_tile: 0, dst_offset: 0, bytes: 300_000 });
    rejected(image, "which another transfer of the same phase writes");
    // A one-byte overlap at the end of another transfer's destination.
    let mut image = base();
    image.copies[0].transfers.push(Transfer {
        src_tile: 1,
        src_offset: 299_999,
        dst_tile: 1,
        dst_offset: 400_000,
        bytes: 4,
    });
    rejected(image, "reads tile 1 bytes 299999..300003");
    // Reading beside, not inside, another destination is fine, and so is
    // a transfer overlapping only itself.
    let mut image = base();
    image.copies[0].transfers.push(Transfer {
        src_tile: 1,
        src_offset: 300_000,
        dst_tile: 1,
        dst_offset: 400_000,
        bytes: 4,
    });
    image.copies[0].transfers.push(Transfer {
        src_tile: 1,
        src_offset: 500_000,
        dst_tile: 1,
        dst_offset: 500_002,
        bytes: 4,
    });
    image.validate().unwrap();
}

#[test]
fn overlapping_destinations() {
    let mut image = base();
    image.copies[0].transfers.push(Transfer {
        src_tile: 0,
        src_offset: 400_000,
        dst_tile: 1,
        dst_offset: 299_999,
        bytes: 4,
    });
    rejected(image, "destinations are unsorted or overlap");
}

#[test]
fn unused_oversized_remote_buffer() {
    // Never read or written by any step, and its size wraps 64 bits.
    let mut image = base();
    image.remote_buffers.push(RemoteBuffer {
        name: "rb".into(),
        elem: ElemType::Float,
        shape: vec![4_000_000_000],
        repeats: 4_000_000_000,
    });
    rejected(image, "remote buffer 'rb'");
    // No overflow, but more than the host-memory limit.
    let mut image = base();
    image.remote_buffers.push(RemoteBuffer {
        name: "big".into(),
        elem: ElemType::Float,
        shape: vec![HOST_MEMORY_LIMIT / 4],
        repeats: 2,
    });
    rejected(image, "needs more host memory than the 8 GiB limit");
    // Together with the tile memory, past the limit.
    let mut image = base();
    image.remote_buffers.push(RemoteBuffer {
        name: "edge".into(),
        elem: ElemType::Char,
        shape: vec![HOST_MEMORY_LIMIT],
        repeats: 1,
    });
    rejected(image, "tile memory and remote buffers need");
}

#[test]
fn call_cycle() {
    let mut image = base();
    image.functions.push(Program { name: "f".into(), body: vec![Step::Call(1)] });
    image
        .functions
        .push(Program { name: "g".into(), body: vec![Step::Repeat { count: 2, body: vec![Step::Call(0)] }] });
    rejected(image, "calls itself");
}

#[test]
fn deep_call_chain_and_nesting() {
    // 10,000 functions each calling the previous: validated without
    // recursion, rejected for depth.
    let mut image = base();
    image.functions.push(Program { name: "f0".into(), body: vec![Step::Sync] });
    for i in 1..10_000u32 {
        image.functions.push(Program { name: format!("f{i}"), body: vec![Step::Call(i - 1)] });
    }
    image.programs[0].body.push(Step::Call(9_999));
    rejected(image, "levels deep, more than the 1024 supported");
    // Exactly at the limit is fine.
    let mut image = base();
    image.functions.push(Program { name: "f0".into(), body: vec![Step::Sync] });
    for i in 1..MAX_CONTROL_DEPTH {
        image.functions.push(Program { name: format!("f{i}"), body: vec![Step::Call(i - 1)] });
    }
    image.programs[0].body.push(Step::Call(MAX_CONTROL_DEPTH - 1));
    image.validate().unwrap();
    // 10,000 nested repeats: the validator stops at the limit. Building
    // and dropping the tree recurses (derived code), so use a big stack.
    let nested = || {
        let mut body = vec![Step::Sync];
        for _ in 0..10_000 {
            body = vec![Step::Repeat { count: 1, body }];
        }
        let mut image = base();
        image.programs[0].body = body;
        let err = image.validate().unwrap_err().to_string();
        assert!(err.contains("nested more than 1024 levels"), "{err}");
    };
    std::thread::Builder::new().stack_size(64 << 20).spawn(nested).unwrap().join().unwrap();
}

#[test]
fn too_many_workers() {
    let mut image = base();
    image.target.workers = MAX_WORKERS + 1;
    rejected(image, "the target has 65 workers, at most 64 are supported");
}

#[test]
fn code_tables() {
    let mut image = base();
    image.vertex_types[0].plain_lines = vec![(20, 1)];
    rejected(image, "line table of 'V' (plain) is unsorted or outside its code");
    let mut image = base();
    image.vertex_types[0].stack_size = 2 << 20;
    rejected(image, "needs a 2097152-byte stack frame");
    let mut image = base();
    image.relocs = vec![
        CodeReloc { offset: 8, symbol: "fmaf".into(), addend: 0 },
        CodeReloc { offset: 12, symbol: "fmaf".into(), addend: 0 },
    ];
    rejected(image, "relocations at 8 and 12 are unsorted or overlap");
    let mut image = base();
    image.tiles[0].vertices.push(VertexInstance { vertex_type: 0, state: 2, id: 0, cycles: None });
    rejected(image, "misaligned state address 2");
}

#[test]
fn shapes_and_names() {
    let mut image = base();
    image.programs[0].body.push(Step::Print {
        label: "deep".into(),
        style: Default::default(),
        elem: ElemType::Float,
        shape: vec![1; MAX_RANK + 1],
        regions: vec![Region { tile: 0, offset: 0, bytes: 4 }],
    });
    rejected(image, "'deep' has 65 dimensions");
    // A shape whose byte count wraps is not mistaken for the regions' size.
    let mut image = base();
    image.programs[0].body.push(Step::Print {
        label: "wrap".into(),
        style: Default::default(),
        elem: ElemType::Float,
        shape: vec![1 << 62, 4],
        regions: vec![],
    });
    rejected(image, "'wrap' covers 0 bytes, its shape needs more than 2^64");
    let mut image = base();
    image.programs.push(Program { name: "main".into(), body: vec![] });
    rejected(image, "two programs are named 'main'");
}

#[test]
fn exchange_in_by_tile_goes_only_to_tiles_of_the_set() {
    // Tile 1 runs a vertex and receives from tile 0: fine either way.
    let mut image = base();
    image.tiles[1].vertices.push(VertexInstance { vertex_type: 0, state: 0, id: 0, cycles: None });
    image.compute_sets.push(ComputeSet {
        name: "cs".into(),
        tiles: vec![TileWork { tile: 1, start: 0, end: 1 }],
        exchange_in: image.copies[0].clone(),
        exchange_out: Exchange::default(),
        in_by_tile: true,
    });
    image.clone().validate().unwrap();
    // Sending to tile 0, which has no vertices in the set, is refused when
    // the exchange runs tile by tile (no thread would copy it).
    image.compute_sets[0].exchange_in.transfers[0].dst_tile = 0;
    image.compute_sets[0].exchange_in.transfers[0].src_tile = 1;
    let mut whole = image.clone();
    whole.compute_sets[0].in_by_tile = false;
    whole.validate().unwrap();
    rejected(image, "a transfer goes to tile 0, which has no vertices in it");
}
