//! Memory: each tile's memory (kept in `u64` words so it is 8-byte
//! aligned, read and written as bytes), the host's memory for streams,
//! remote buffers and program output, and the raw per-tile view that the
//! threads of a phase share.
//!
//! `unsafe` is allowed here because tile memory is viewed as bytes (a
//! `u8` view of `u64` words), remote buffers are allocated zeroed without
//! aborting when the host has no memory for them, and a phase's threads
//! reach their own tiles through one shared raw pointer ([`Shared`]): each
//! tile is touched only by the thread that owns it during the phase.

#![allow(unsafe_code)]

use linker::image::{Region, ScalarRef};

use super::Machine;
use crate::error::HostError;
use crate::format;

/// A raw view of per-tile data that threads index by tile; each tile is
/// touched only by the thread that owns it during a phase.
#[derive(Clone, Copy)]
pub(super) struct Shared<T>(pub(super) *mut T);
// SAFETY: users uphold the ownership discipline described above.
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}
impl<T> Shared<T> {
    /// # Safety
    /// `i` in bounds and owned by the calling thread for the phase.
    #[allow(clippy::mut_from_ref)]
    pub(super) unsafe fn at(&self, i: usize) -> &mut T {
        // SAFETY: per the contract.
        unsafe { &mut *self.0.add(i) }
    }
}

/// A stream's host end that lives outside the engine: the host API's live
/// user memory (`connectStream` on a pointer) or a callback object
/// (`connectStreamToCallback`). The run calls it on the thread that runs
/// the program, at each copy, with one block of the stream's bytes.
pub trait HostStream: Send {
    /// Fills `block` for a copy from the host.
    fn fill(&mut self, block: &mut [u8]) -> Result<(), String>;
    /// Takes `block` from a copy to the host.
    fn drain(&mut self, block: &[u8]) -> Result<(), String>;
}

/// Host-side data: stream buffers, remote buffers, printed text.
#[derive(Default)]
pub(crate) struct HostState {
    /// Per stream: the host buffer and the next byte position.
    pub streams: Vec<(Vec<u8>, usize, bool)>,
    /// Per stream: the outside host end replacing the buffer, if connected.
    pub outside: Vec<Option<Box<dyn HostStream>>>,
    /// Per remote buffer: its bytes, empty until first written (reading an
    /// unwritten buffer gives zeros), and the size it has then.
    pub(super) remote: Vec<Vec<u8>>,
    pub(super) remote_bytes: Vec<usize>,
    pub output: Vec<u8>,
}

impl std::fmt::Debug for HostState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostState")
            .field("streams", &self.streams.len())
            .field("remote", &self.remote.len())
            .field("output", &self.output.len())
            .finish()
    }
}

impl HostState {
    /// Remote buffer `b`, allocated zeroed on first use; an error, not an
    /// abort, when the host cannot provide the memory.
    pub(crate) fn remote_mut(&mut self, b: usize) -> Result<&mut [u8], HostError> {
        if self.remote[b].len() != self.remote_bytes[b] {
            self.remote[b] = try_zeroed(self.remote_bytes[b])?;
        }
        Ok(&mut self.remote[b])
    }

    /// Bytes of remote buffer `b`.
    pub(crate) fn remote_bytes(&self, b: usize) -> usize {
        self.remote_bytes[b]
    }

    /// A copy of `len` bytes of remote buffer `b` from `at` (zeros if it was
    /// never written).
    pub(crate) fn remote_read(&self, b: usize, at: usize, len: usize) -> Result<Vec<u8>, HostError> {
        if self.remote[b].len() == self.remote_bytes[b] {
            Ok(self.remote[b][at..at + len].to_vec())
        } else {
            try_zeroed(len)
        }
    }
}

/// `n` zero bytes, or an error if the host has no memory for them (the
/// operating system supplies zeroed pages lazily, so untouched parts cost
/// nothing).
fn try_zeroed(n: usize) -> Result<Vec<u8>, HostError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let fail = || HostError::Data(format!("the host cannot allocate {n} bytes for a remote buffer"));
    let layout = std::alloc::Layout::array::<u8>(n).map_err(|_| fail())?;
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return Err(fail());
    }
    // SAFETY: `p` comes from the global allocator with the layout of `n`
    // bytes (capacity `n`), all initialised to zero.
    Ok(unsafe { Vec::from_raw_parts(p, n, n) })
}

/// The bytes of a tile's storage words.
pub(super) fn words_as_bytes_mut(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: a u8 view of the same memory; any byte pattern is a valid u64.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, words.len() * 8) }
}

impl Machine {
    /// Copies tile memory regions, in order, into one buffer.
    pub(crate) fn gather(&self, regions: &[Region]) -> Vec<u8> {
        let mut out = Vec::new();
        self.gather_into(regions, &mut out);
        out
    }

    /// [`Machine::gather`] into `out`, which it empties first (its memory
    /// is reused).
    pub(crate) fn gather_into(&self, regions: &[Region], out: &mut Vec<u8>) {
        out.clear();
        out.reserve(regions.iter().map(|r| r.bytes as usize).sum());
        for r in regions {
            out.extend_from_slice(&self.tile_bytes(r.tile)[r.offset as usize..(r.offset + r.bytes) as usize]);
        }
    }

    /// Writes `data` across tile memory regions, in order.
    pub(crate) fn scatter(&mut self, regions: &[Region], data: &[u8]) {
        let mut at = 0;
        for r in regions {
            let n = r.bytes as usize;
            let tile = self.tile_bytes_mut(r.tile);
            tile[r.offset as usize..r.offset as usize + n].copy_from_slice(&data[at..at + n]);
            at += n;
        }
    }

    fn tile_bytes(&self, tile: u32) -> &[u8] {
        let s = &self.storage[tile as usize];
        // SAFETY: u8 view of the tile's u64 storage, limited to mem_size.
        unsafe { std::slice::from_raw_parts(s.as_ptr() as *const u8, self.lens[tile as usize] as usize) }
    }

    fn tile_bytes_mut(&mut self, tile: u32) -> &mut [u8] {
        let len = self.lens[tile as usize] as usize;
        let s = &mut self.storage[tile as usize];
        // SAFETY: as above, with exclusive access through &mut self.
        unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr() as *mut u8, len) }
    }

    /// A predicate: non-zero is true (for floats, `!= 0.0`; NaN is true).
    pub(super) fn scalar(&self, s: &ScalarRef) -> i64 {
        let b = &self.tile_bytes(s.tile)[s.offset as usize..];
        match format::decode(s.elem, b) {
            format::Value::Int(i) => (i != 0) as i64,
            format::Value::Bool(b) => b as i64,
            format::Value::Float(f) => (f != 0.0) as i64,
        }
    }

    pub(super) fn scalar_exact(&self, s: &ScalarRef) -> i64 {
        let b = &self.tile_bytes(s.tile)[s.offset as usize..];
        match format::decode(s.elem, b) {
            format::Value::Int(i) => i as i64,
            format::Value::Bool(b) => b as i64,
            format::Value::Float(f) => f as i64,
        }
    }

    /// Bytes of a handle's / region list's data.
    pub(crate) fn read_regions(&self, regions: &[Region]) -> Vec<u8> {
        self.gather(regions)
    }

    pub(crate) fn write_regions(&mut self, regions: &[Region], data: &[u8]) -> Result<(), HostError> {
        let want: usize = regions.iter().map(|r| r.bytes as usize).sum();
        if data.len() != want {
            return Err(HostError::Data(format!("expected {want} bytes, got {}", data.len())));
        }
        self.scatter(regions, data);
        Ok(())
    }
}
