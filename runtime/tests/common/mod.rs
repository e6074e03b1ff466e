//! What the runtime's integration tests share: hand-assembled x86-64
//! vertex code and a builder of small images around it, so the runtime is
//! tested without the compilers.

#![allow(dead_code)]

use linker::gp::{ElemType, VertexBase};
use linker::image::*;

/// `mem[state.addr] += 1` (u32).
pub const INC: &[u8] =
    &[0x48, 0x8B, 0x07, 0x89, 0xF1, 0x8B, 0x0C, 0x08, 0x83, 0x04, 0x08, 0x01, 0x31, 0xC0, 0xC3];
/// `mem[state.addr] -= 1` (u32).
pub const DEC: &[u8] =
    &[0x48, 0x8B, 0x07, 0x89, 0xF1, 0x8B, 0x0C, 0x08, 0x83, 0x2C, 0x08, 0x01, 0x31, 0xC0, 0xC3];
/// `return false`.
pub const FAIL: &[u8] = &[0xB8, 0x01, 0, 0, 0, 0xC3];
/// Trap: out of bounds at 0x1234, line 7.
pub const OOB: &[u8] =
    &[0x48, 0xC7, 0x47, 0x20, 0x34, 0x12, 0, 0, 0xC7, 0x47, 0x28, 7, 0, 0, 0, 0xB8, 2, 0, 0, 0, 0xC3];
/// MultiVertex: `mem[state.addr + 4*worker] = worker`.
pub const MULTI: &[u8] =
    &[0x48, 0x8B, 0x07, 0x89, 0xF1, 0x8B, 0x0C, 0x08, 0x8D, 0x0C, 0x91, 0x89, 0x14, 0x08, 0x31, 0xC0, 0xC3];

/// `add qword [rdi+24], n` then the plain code.
pub fn counting(n: u8, plain: &[u8]) -> Vec<u8> {
    let mut v = vec![0x48, 0x83, 0x47, 0x18, n];
    v.extend_from_slice(plain);
    v
}

pub struct Builder {
    pub image: Image,
}

impl Builder {
    pub fn new(tiles: u32) -> Builder {
        let image = Image {
            target: Target {
                name: "mk2".into(),
                ipus: 1,
                tiles_per_ipu: tiles,
                bytes_per_tile: 638_976,
                workers: 6,
                clock_mhz: 1330.0,
                exchange_bytes_per_cycle: 4,
                sync_cycles: 100,
                replicas: 1,
                links: Default::default(),
            },
            code: vec![],
            relocs: vec![],
            vertex_types: vec![],
            tiles: (0..tiles).map(|_| TileImage { mem_size: 256, ..Default::default() }).collect(),
            compute_sets: vec![],
            copies: vec![],
            programs: vec![],
            functions: vec![],
            handles: vec![],
            streams: vec![],
            remote_buffers: vec![],
            replica_index: Vec::new(),
            isa: Default::default(),
        };
        Builder { image }
    }

    pub fn vertex_type(&mut self, name: &str, base: VertexBase, plain: &[u8], count: u8) -> u32 {
        let off = self.image.code.len() as u32;
        self.image.code.extend_from_slice(plain);
        let coff = self.image.code.len() as u32;
        let c = counting(count, plain);
        self.image.code.extend_from_slice(&c);
        self.image.vertex_types.push(VertexCode {
            name: name.into(),
            base,
            plain: (off, plain.len() as u32),
            counting: (coff, c.len() as u32),
            returns_bool: true,
            source: "test.cpp".into(),
            plain_lines: vec![],
            counting_lines: vec![],
            stack_size: 0,
            statics: 0,
        });
        self.image.vertex_types.len() as u32 - 1
    }

    /// A vertex on `tile` whose state (at `state`) points at `addr`.
    pub fn vertex(&mut self, tile: u32, vt: u32, state: u32, addr: u32, cycles: Option<u64>) -> u32 {
        let t = &mut self.image.tiles[tile as usize];
        t.init.push(Segment { offset: state, bytes: addr.to_le_bytes().to_vec() });
        let id = t.vertices.len() as u32 + tile * 100;
        t.vertices.push(VertexInstance { vertex_type: vt, state, id, cycles });
        t.vertices.len() as u32 - 1
    }

    pub fn compute_set(&mut self, name: &str, tiles: Vec<TileWork>) -> u32 {
        self.image.compute_sets.push(ComputeSet {
            name: name.into(),
            tiles,
            exchange_in: Exchange::default(),
            exchange_out: Exchange::default(),
            in_by_tile: false,
        });
        self.image.compute_sets.len() as u32 - 1
    }

    pub fn handle(&mut self, name: &str, to_device: bool, regions: Vec<Region>, n: u64) {
        self.image.handles.push(Handle {
            name: name.into(),
            to_device,
            elem: ElemType::UInt,
            shape: vec![n],
            regions,
        });
    }
}

pub fn region(tile: u32, offset: u32, n: u32) -> Region {
    Region { tile, offset, bytes: 4 * n }
}
