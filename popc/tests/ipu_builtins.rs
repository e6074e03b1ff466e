//! The IPU built-ins that read tile state through the context
//! (issue 25): `__builtin_ipu_get_scount_l/_u` read `TileCtx::cycles` plus,
//! in the counting variant, `cycles_per_count` per instruction counted so
//! far; `__builtin_ipu_urand*` take draw `TileCtx::draws` of
//! `linker::host::tile_random` for `TileCtx::tile` and count it.

#![allow(unsafe_code)]

use linker::abi::{TileCtx, STATUS_OK};
use linker::host::{tile_random, uniform_f32};

const SRC: &str = r#"
#include <poplar/Vertex.hpp>
using namespace poplar;

class Clock : public Vertex {
public:
  unsigned lo, hi, lo2;
  void compute() {
    lo = __builtin_ipu_get_scount_l();
    hi = __builtin_ipu_get_scount_u();
    lo2 = __builtin_ipu_get_scount_l();
  }
};

class Draw : public Vertex {
public:
  unsigned long long a;
  unsigned b;
  float c;
  void compute() {
    a = __builtin_ipu_urand64();
    b = __builtin_ipu_urand32();
    c = __builtin_ipu_urand_f32();
  }
};
"#;

const STATE: usize = 0x100;
static NEVER: u32 = 0;

fn vertex(name: &str) -> linker::gp::VertexType {
    let obj = popc::compile("b.cpp", SRC, &popc::Options::default(), &popc::NoIncludes, &[])
        .map_err(|d| d.render())
        .unwrap();
    obj.vertex_types.into_iter().find(|v| v.name == name).unwrap()
}

/// Runs `f` as tile `tile` with the given counter state; returns the
/// context after the call and the tile memory.
fn call(f: &linker::gp::Function, tile: u32, cycles: u64, per: u64, draws: u64) -> (TileCtx, Vec<u8>) {
    let code = popc::exec::Loaded::new(f, false).unwrap();
    let mut mem = vec![0u8; 0x400];
    let mut ctx = TileCtx {
        mem: mem.as_mut_ptr(),
        mem_len: mem.len() as u64,
        host: linker::host::host_table(),
        count: 0,
        trap_addr: 0,
        trap_line: 0,
        tile,
        host_data: std::ptr::null_mut(),
        stop: &NEVER,
        budget: u64::MAX,
        cycles,
        cycles_per_count: per,
        draws,
        statics: 0,
    };
    // SAFETY: the context is built from live memory and the host table.
    let status = unsafe { code.call(&mut ctx, STATE as u32, 0) };
    assert_eq!(status, STATUS_OK);
    (ctx, mem)
}

fn field<const N: usize>(vt: &linker::gp::VertexType, mem: &[u8], name: &str) -> [u8; N] {
    let at = STATE + vt.fields.iter().find(|f| f.name == name).unwrap().offset as usize;
    mem[at..at + N].try_into().unwrap()
}

fn u32_field(vt: &linker::gp::VertexType, mem: &[u8], name: &str) -> u64 {
    u64::from(u32::from_le_bytes(field(vt, mem, name)))
}

#[test]
fn cycle_counter() {
    let vt = vertex("Clock");
    let base = (3u64 << 32) + 100;
    // Plain variant: the counter when the call began.
    let (_, mem) = call(&vt.plain, 0, base, 6, 0);
    assert_eq!(
        [u32_field(&vt, &mem, "lo"), u32_field(&vt, &mem, "hi"), u32_field(&vt, &mem, "lo2")],
        [100, 3, 100]
    );
    // Counting variant: six cycles per instruction counted before each read.
    let (ctx, mem) = call(&vt.counting, 0, base, 6, 0);
    let (lo, lo2) = (u32_field(&vt, &mem, "lo"), u32_field(&vt, &mem, "lo2"));
    assert_eq!(u32_field(&vt, &mem, "hi"), 3);
    assert!((lo - 100) % 6 == 0 && (lo2 - 100) % 6 == 0, "{lo} {lo2}");
    assert!(100 < lo && lo < lo2, "the counter moves forward: {lo} {lo2}");
    assert!((lo2 - 100) / 6 <= ctx.count, "not past the call's count {}", ctx.count);
    // `cpu`: no cycles are modelled, the counter reads 0 whatever runs.
    let (_, mem) = call(&vt.counting, 0, 0, 0, 0);
    assert_eq!([u32_field(&vt, &mem, "lo"), u32_field(&vt, &mem, "hi"), u32_field(&vt, &mem, "lo2")], [0; 3]);
}

#[test]
fn draws_by_tile_and_counter() {
    let vt = vertex("Draw");
    for f in [&vt.plain, &vt.counting] {
        for (tile, draws) in [(0, 0), (7, 0), (7, 40)] {
            let (ctx, mem) = call(f, tile, 0, 0, draws);
            assert_eq!(ctx.draws, draws + 3, "one draw per call");
            assert_eq!(u64::from_le_bytes(field(&vt, &mem, "a")), tile_random(tile, draws));
            assert_eq!(u32_field(&vt, &mem, "b"), tile_random(tile, draws + 1) & 0xffff_ffff);
            let c = f32::from_le_bytes(field(&vt, &mem, "c"));
            assert_eq!(c, uniform_f32(tile_random(tile, draws + 2)));
            assert!((-0.5..0.5).contains(&c));
        }
    }
}
