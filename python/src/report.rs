//! `Engine.get_report()`: libpva's report of a loaded engine as Python
//! objects, over the C++ API's own snapshot (`capi::report::Report`): what
//! the compilation holds, and the blocks the lightweight profiler recorded
//! on each tile (docs/host-api.md says what is recorded).

use pyo3::prelude::*;

use crate::errors::OrRaise;

/// `pva::Report`: a snapshot taken by `Engine.get_report()`; later runs do
/// not change it.
#[pyclass(module = "poplar", name = "PvaReport", frozen)]
pub struct PvaReport {
    pub r: capi::report::Report,
}

#[pymethods]
impl PvaReport {
    /// `compilation().graph().numComputeSets()`.
    #[getter]
    fn num_compute_sets(&self) -> u64 {
        self.r.info().num_compute_sets
    }

    /// `compilation().graph().numVertices()`.
    #[getter]
    fn num_vertices(&self) -> u64 {
        self.r.info().num_vertices
    }

    /// `compilation().target().numTiles()`.
    #[getter]
    fn num_tiles(&self) -> u32 {
        self.r.info().num_tiles
    }

    /// `compilation().target().numIPUs()`.
    #[getter]
    fn num_ipus(&self) -> u32 {
        self.r.info().num_ipus
    }

    /// `poplarVersion().string()`.
    #[getter]
    fn poplar_version(&self) -> String {
        self.r.info().version()
    }

    /// `execution().blocks(tile)`: the tile's blocks in the order they
    /// began. `IndexError` for a tile outside the target; `PoplarError` on
    /// the `cpu` device, which records none.
    fn blocks(&self, tile: u32) -> PyResult<Vec<PvaBlock>> {
        Ok(self.r.blocks(tile).or_raise()?.iter().map(PvaBlock::of).collect())
    }

    fn __repr__(&self) -> String {
        let i = self.r.info();
        format!(
            "PvaReport(num_tiles={}, num_ipus={}, num_compute_sets={}, num_vertices={})",
            i.num_tiles, i.num_ipus, i.num_compute_sets, i.num_vertices
        )
    }
}

/// `pva::Block`: one block of a tile, its cycles on the `sim` clock
/// (`cycles_from` when its program starts, `cycles_to` when it ends), its
/// program's name and `pva::Program::Type`, and what kind of block it is.
#[pyclass(module = "poplar", name = "PvaBlock", frozen)]
#[derive(Clone)]
pub struct PvaBlock {
    #[pyo3(get)]
    cycles_from: u64,
    #[pyo3(get)]
    cycles_to: u64,
    #[pyo3(get)]
    tile: u32,
    /// The program's name (the stream's for a transfer, `BlockFlush` for
    /// a flush, `Overflow` for an overflow).
    #[pyo3(get)]
    program: String,
    /// `pva::Program::Type`'s enumerator name, e.g. `"OnTileExecute"`.
    #[pyo3(get)]
    program_type: &'static str,
    /// `capi::report::BLOCK_*`, read through the `is_*` methods.
    kind: u32,
}

impl PvaBlock {
    fn of(b: &capi::report::Block) -> PvaBlock {
        PvaBlock {
            cycles_from: b.cycles_from,
            cycles_to: b.cycles_to,
            tile: b.tile,
            program: b.name().to_string(),
            program_type: b.program_type_name(),
            kind: b.kind,
        }
    }
}

#[pymethods]
impl PvaBlock {
    /// `isCommon()`: a `Block` program or a program the filter matched.
    fn is_common(&self) -> bool {
        self.kind == capi::report::BLOCK_COMMON
    }

    /// `isStreamCopy()`: a phase of a host transfer (a flush is one too).
    fn is_stream_copy(&self) -> bool {
        self.kind == capi::report::BLOCK_STREAM_COPY || self.is_block_flush()
    }

    /// `isBlockFlush()`: a phase of a flush of the block buffers.
    fn is_block_flush(&self) -> bool {
        self.kind == capi::report::BLOCK_FLUSH
    }

    /// `isOverflow()`: the span whose blocks a full buffer dropped.
    fn is_overflow(&self) -> bool {
        self.kind == capi::report::BLOCK_OVERFLOW
    }

    fn __repr__(&self) -> String {
        format!(
            "PvaBlock(program={:?}, program_type={:?}, tile={}, cycles_from={}, cycles_to={})",
            self.program, self.program_type, self.tile, self.cycles_from, self.cycles_to
        )
    }
}
