//! An image's payload encoded over rayon's threads.
//!
//! bincode (the standard configuration) writes a struct as its fields one
//! after another and a sequence as its length (a `u64` varint) followed by
//! its elements one after another, with nothing around any of them. So the
//! large sequences of an [`Image`] (its tiles, and each compute set's and
//! copy's transfers) can be encoded a piece at a time on many threads and
//! the pieces appended in order: the bytes are exactly those of encoding the
//! whole image at once (the tests compare the two). Pieces are made a round
//! at a time, so no more than a round's worth exists beside the output.

use rayon::prelude::*;
use serde::Serialize;

use super::{CodeReloc, ComputeSet, Exchange, Image, Target, TileImage, VertexCode};
use crate::container::encode_into;

/// Transfers encoded as one piece, and per round of pieces.
const TRANSFERS_PER_PIECE: usize = 1 << 14;
const TRANSFERS_PER_ROUND: usize = 1 << 20;

/// Tiles encoded per round (one piece per tile).
const TILES_PER_ROUND: usize = 64;

/// The fields before the tiles, as the image spells them.
#[derive(Serialize)]
struct Head<'a> {
    target: &'a Target,
    #[serde(with = "crate::bytes")]
    code: &'a [u8],
    relocs: &'a [CodeReloc],
    vertex_types: &'a [VertexCode],
}

/// Appends the bincode of `image` to `out`.
pub(super) fn encode(image: &Image, out: &mut Vec<u8>) {
    // Every field by name: a field added to `Image` must be added here.
    let Image {
        target,
        code,
        relocs,
        vertex_types,
        tiles,
        compute_sets,
        copies,
        programs,
        functions,
        handles,
        streams,
        remote_buffers,
        replica_index,
        isa: _,
    } = image;
    out.reserve(bound(tiles, compute_sets, copies));
    encode_into(out, &Head { target, code, relocs, vertex_types });
    sequence(out, tiles, 1, TILES_PER_ROUND);
    encode_into(out, &compute_sets.len());
    for cs in compute_sets {
        compute_set(out, cs);
    }
    encode_into(out, &copies.len());
    for x in copies {
        exchange(out, x);
    }
    encode_into(out, &(programs, functions, handles, streams, remote_buffers, replica_index));
}

/// The most bytes a `u32`, `u64` (or a length) and a transfer or vertex
/// instance take as bincode varints.
const MAX_U32: usize = 5;
const MAX_U64: usize = 9;
const MAX_TRANSFER: usize = 5 * MAX_U32;
const MAX_VERTEX: usize = 3 * MAX_U32 + 1 + MAX_U64;

/// At most how many bytes the tiles, compute sets and copies take (every
/// varint at its longest; the image's other fields left out), reserved before
/// encoding so that the output is not copied to grow: half a gigabyte at
/// ten million vertices, whose every doubling would touch fresh memory.
/// Room never written is never touched.
fn bound(tiles: &[TileImage], compute_sets: &[ComputeSet], copies: &[Exchange]) -> usize {
    let exchange = |x: &Exchange| MAX_U64 + x.transfers.len() * MAX_TRANSFER;
    let tiles: usize = tiles
        .iter()
        .map(|t| {
            let init: usize = t.init.iter().map(|s| MAX_U32 + MAX_U64 + s.bytes.len()).sum();
            MAX_U32 + MAX_U64 + init + MAX_U64 + t.vertices.len() * MAX_VERTEX
        })
        .sum();
    let compute_sets: usize = compute_sets
        .iter()
        .map(|cs| {
            let tiles = MAX_U64 + cs.tiles.len() * 3 * MAX_U32;
            MAX_U64 + cs.name.len() + tiles + exchange(&cs.exchange_in) + exchange(&cs.exchange_out) + 1
        })
        .sum();
    tiles + compute_sets + copies.iter().map(exchange).sum::<usize>()
}

/// A compute set, field by field, its transfers in pieces.
fn compute_set(out: &mut Vec<u8>, cs: &ComputeSet) {
    let ComputeSet { name, tiles, exchange_in, exchange_out, in_by_tile } = cs;
    encode_into(out, &(name, tiles));
    exchange(out, exchange_in);
    exchange(out, exchange_out);
    encode_into(out, in_by_tile);
}

/// An exchange: its one field, the transfers, in pieces.
fn exchange(out: &mut Vec<u8>, x: &Exchange) {
    let Exchange { transfers } = x;
    sequence(out, transfers, TRANSFERS_PER_PIECE, TRANSFERS_PER_ROUND);
}

/// Elements one after another, without the sequence's length: what bincode
/// writes for a tuple.
struct Elements<'a, T>(&'a [T]);

impl<T: Serialize> Serialize for Elements<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(self.0.len())?;
        for x in self.0 {
            t.serialize_element(x)?;
        }
        t.end()
    }
}

/// A sequence: its length, then its elements, `per_piece` of them encoded
/// into each piece on rayon's threads, `per_round` at a time.
fn sequence<T: Serialize + Sync>(out: &mut Vec<u8>, items: &[T], per_piece: usize, per_round: usize) {
    encode_into(out, &items.len());
    for round in items.chunks(per_round) {
        let pieces: Vec<Vec<u8>> = round
            .par_chunks(per_piece)
            .map(|c| {
                let mut piece = Vec::new();
                encode_into(&mut piece, &Elements(c));
                piece
            })
            .collect();
        out.reserve(pieces.iter().map(Vec::len).sum());
        pieces.iter().for_each(|p| out.extend_from_slice(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::{Program, Segment, Step, TileWork, Transfer, VertexInstance};

    /// An image with more tiles and transfers than a round, compute sets
    /// and copies: its pieces make the bytes of one whole encoding.
    #[test]
    fn pieces_make_the_whole_encoding() {
        let transfer = |i: u32| Transfer {
            src_tile: i % 7,
            src_offset: i.wrapping_mul(977),
            dst_tile: i % 5,
            dst_offset: i << 3,
            bytes: 4 + i % 300,
        };
        let many = |n: u32| Exchange { transfers: (0..n).map(transfer).collect() };
        let tiles = (0..TILES_PER_ROUND as u32 * 2 + 3)
            .map(|t| TileImage {
                mem_size: t * 1000,
                init: vec![Segment { offset: t, bytes: vec![t as u8; t as usize % 40] }],
                vertices: (0..t % 9)
                    .map(|v| VertexInstance {
                        vertex_type: v % 2,
                        state: v * 16,
                        id: t * 9 + v,
                        cycles: None,
                    })
                    .collect(),
            })
            .collect();
        let cs = |name: &str, n: u32| ComputeSet {
            name: name.into(),
            tiles: vec![TileWork { tile: 1, start: 0, end: 3 }],
            exchange_in: many(n),
            exchange_out: many(n / 3),
            in_by_tile: n.is_multiple_of(2),
        };
        let image = Image {
            target: Target {
                name: "mk2".into(),
                ipus: 1,
                tiles_per_ipu: 1472,
                bytes_per_tile: 638_976,
                workers: 6,
                clock_mhz: 1330.0,
                exchange_bytes_per_cycle: 4,
                sync_cycles: 100,
                replicas: 1,
                links: Default::default(),
            },
            code: vec![0xcc; 300],
            relocs: vec![CodeReloc { offset: 8, symbol: "sin".into(), addend: -4 }],
            vertex_types: vec![],
            tiles,
            compute_sets: vec![cs("big", TRANSFERS_PER_ROUND as u32 + 5), cs("small", 3), cs("empty", 0)],
            copies: vec![many(TRANSFERS_PER_PIECE as u32 * 3 + 1), many(0)],
            programs: vec![Program { name: "main".into(), body: vec![Step::Execute(0), Step::Copy(1)] }],
            functions: vec![],
            handles: vec![],
            streams: vec![],
            remote_buffers: vec![],
            replica_index: vec![],
            isa: Default::default(),
        };
        let mut pieces = Vec::new();
        encode(&image, &mut pieces);
        let whole = bincode::serde::encode_to_vec(&image, bincode::config::standard()).unwrap();
        assert!(pieces == whole, "{} bytes against {}", pieces.len(), whole.len());
        let parts = [
            bincode::serde::encode_to_vec(&image.tiles, bincode::config::standard()).unwrap().len(),
            bincode::serde::encode_to_vec(&image.compute_sets, bincode::config::standard()).unwrap().len(),
            bincode::serde::encode_to_vec(&image.copies, bincode::config::standard()).unwrap().len(),
        ];
        assert!(parts.iter().sum::<usize>() <= bound(&image.tiles, &image.compute_sets, &image.copies));
    }
}
