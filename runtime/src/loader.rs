//! The loader: turns a `prog.exe` into something a device can run.
//!
//! It takes only a [`ValidImage`] (`linker::valid`: header, checksum,
//! version and ISA by [`Image::from_bytes`], then every rule the runtime
//! relies on, in one function), maps the shared code segment writable, patches its relocations with the addresses
//! of an allowlist of libcalls (anything else is a load error), then makes it
//! read + execute. Tile memory is allocated by the devices
//! ([`crate::exec`]) from each [`linker::image::TileImage`].

use linker::image::Image;
use linker::valid::ValidImage;

use crate::error::LoadError;

/// A validated image with its code mapped executable.
pub struct Loaded {
    pub image: ValidImage,
    /// Keeps the code alive; entry addresses point into it.
    _code: memmap2::Mmap,
    /// Entry address of each vertex type's plain variant.
    pub(crate) plain: Vec<usize>,
    /// Entry address of each vertex type's counting variant.
    pub(crate) counting: Vec<usize>,
    /// The programs as the profiles number them.
    pub tree: linker::profile::ProgramTree,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded").field("vertex_types", &self.image.vertex_types.len()).finish()
    }
}

/// Reads, validates and maps an image from its bytes.
pub fn load(bytes: &[u8]) -> Result<Loaded, LoadError> {
    let image = Image::from_bytes(bytes)?;
    load_valid(image)
}

/// Validates and maps an image already in memory (e.g. compiled from PIR).
pub fn load_image(image: Image) -> Result<Loaded, LoadError> {
    load_valid(image.validate()?)
}

/// Maps a validated image: the loader's one entry.
pub fn load_valid(image: ValidImage) -> Result<Loaded, LoadError> {
    check_host_isa()?;
    let mut map =
        memmap2::MmapMut::map_anon(image.code.len().max(1)).map_err(|e| LoadError::Map(e.to_string()))?;
    map[..image.code.len()].copy_from_slice(&image.code);
    for r in &image.relocs {
        let addr =
            crate::hostfns::libcall(&r.symbol).ok_or_else(|| LoadError::UnknownSymbol(r.symbol.clone()))?;
        let value = (addr as i64).wrapping_add(r.addend) as u64;
        let at = r.offset as usize;
        map[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }
    let code = map.make_exec().map_err(|e| LoadError::Map(e.to_string()))?;
    let base = code.as_ptr() as usize;
    let plain = image.vertex_types.iter().map(|v| base + v.plain.0 as usize).collect();
    let counting = image.vertex_types.iter().map(|v| base + v.counting.0 as usize).collect();
    let tree = linker::profile::ProgramTree::of_image(&image);
    Ok(Loaded { image, _code: code, plain, counting, tree })
}

/// The header names the ISA level the code was generated for (checked
/// against this process's level, `linker::isa::Level::current`, by
/// [`Image::from_bytes`]; an image compiled in this process has that level);
/// this checks that the processor really has the level's extensions, so
/// that a host without them gets an error rather than an illegal-instruction
/// signal.
fn check_host_isa() -> Result<(), LoadError> {
    let level = linker::isa::Level::current();
    let missing = level.missing();
    if !missing.is_empty() {
        return Err(LoadError::Isa { isa: level.name(), missing: missing.join(", ") });
    }
    Ok(())
}
