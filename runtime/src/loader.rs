//! The loader: turns a `prog.exe` into something a device can run.
//!
//! It validates the image completely before anything runs
//! ([`Image::from_bytes`] checks header, checksum, version, ISA and every
//! index; [`check`] adds what the runtime relies on beyond that), maps the
//! shared code segment writable, patches its relocations with the addresses
//! of an allowlist of libcalls (anything else is a load error), then makes it
//! read + execute. Tile memory is allocated by the devices
//! ([`crate::exec`]) from each [`linker::image::TileImage`].

use linker::image::Image;
use linker::image::Step;

use crate::error::LoadError;

/// A validated image with its code mapped executable.
pub struct Loaded {
    pub image: Image,
    /// Keeps the code alive; entry addresses point into it.
    _code: memmap2::Mmap,
    /// Entry address of each vertex type's plain variant.
    pub(crate) plain: Vec<usize>,
    /// Entry address of each vertex type's counting variant.
    pub(crate) counting: Vec<usize>,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded").field("vertex_types", &self.image.vertex_types.len()).finish()
    }
}

/// Reads, validates and maps an image from its bytes.
pub fn load(bytes: &[u8]) -> Result<Loaded, LoadError> {
    let image = Image::from_bytes(bytes)?;
    load_image(image)
}

/// Validates and maps an image already in memory (e.g. compiled from PIR).
pub fn load_image(image: Image) -> Result<Loaded, LoadError> {
    image.validate()?;
    check(&image).map_err(LoadError::Invalid)?;
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
    Ok(Loaded { image, _code: code, plain, counting })
}

/// What the runtime needs beyond [`Image::validate`].
pub fn check(image: &Image) -> Result<(), String> {
    for vt in &image.vertex_types {
        for (what, (_, len), lines) in
            [("plain", vt.plain, &vt.plain_lines), ("counting", vt.counting, &vt.counting_lines)]
        {
            if len == 0 {
                return Err(format!("vertex type '{}' has empty {what} code", vt.name));
            }
            if lines.iter().any(|&(off, _)| off >= len) || lines.windows(2).any(|w| w[0].0 > w[1].0) {
                return Err(format!("line table of '{}' ({what}) is unsorted or outside its code", vt.name));
            }
        }
    }
    for (a, b) in image.relocs.iter().zip(image.relocs.iter().skip(1)) {
        if a.offset + 8 > b.offset && b.offset + 8 > a.offset {
            return Err(format!("relocations at {} and {} overlap", a.offset, b.offset));
        }
    }
    for (n, tile) in image.tiles.iter().enumerate() {
        for v in &tile.vertices {
            if v.state % 4 != 0 {
                return Err(format!(
                    "vertex {} on tile {n} has a misaligned state address {}",
                    v.id, v.state
                ));
            }
        }
    }
    if image.target.workers as usize > crate::exec::MAX_WORKERS {
        return Err(format!(
            "the target has {} workers, at most {} are supported",
            image.target.workers,
            crate::exec::MAX_WORKERS
        ));
    }
    check_calls(image)?;
    let mut names = std::collections::BTreeSet::new();
    for p in &image.programs {
        if !p.name.is_empty() && !names.insert(&p.name) {
            return Err(format!("two programs are named '{}'", p.name));
        }
    }
    Ok(())
}

/// Functions must not call themselves, directly or not (the interpreter
/// would recurse without bound).
fn check_calls(image: &Image) -> Result<(), String> {
    fn callees(steps: &[Step], out: &mut Vec<u32>) {
        for s in steps {
            match s {
                Step::Call(f) => out.push(*f),
                Step::Repeat { body, .. } => callees(body, out),
                Step::While { cond, body, .. } => {
                    callees(cond, out);
                    callees(body, out);
                }
                Step::If { then, otherwise, .. } => {
                    callees(then, out);
                    callees(otherwise, out);
                }
                Step::Switch { cases, default, .. } => {
                    cases.iter().for_each(|(_, b)| callees(b, out));
                    callees(default, out);
                }
                _ => {}
            }
        }
    }
    let edges: Vec<Vec<u32>> = image
        .functions
        .iter()
        .map(|f| {
            let mut v = Vec::new();
            callees(&f.body, &mut v);
            v
        })
        .collect();
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; edges.len()];
    fn visit(f: usize, edges: &[Vec<u32>], state: &mut [u8], image: &Image) -> Result<(), String> {
        state[f] = 1;
        for &g in &edges[f] {
            match state[g as usize] {
                1 => return Err(format!("function '{}' calls itself", image.functions[g as usize].name)),
                0 => visit(g as usize, edges, state, image)?,
                _ => {}
            }
        }
        state[f] = 2;
        Ok(())
    }
    for f in 0..edges.len() {
        if state[f] == 0 {
            visit(f, &edges, &mut state, image)?;
        }
    }
    Ok(())
}

/// The header names the baseline ISA the code was generated for (checked
/// against this build by [`Image::from_bytes`]); this checks that the
/// processor really has it, so that a host without it gets an error rather
/// than an illegal-instruction signal.
fn check_host_isa() -> Result<(), LoadError> {
    #[cfg(target_arch = "x86_64")]
    {
        let features = [
            ("SSE3", std::arch::is_x86_feature_detected!("sse3")),
            ("SSSE3", std::arch::is_x86_feature_detected!("ssse3")),
            ("SSE4.1", std::arch::is_x86_feature_detected!("sse4.1")),
            ("SSE4.2", std::arch::is_x86_feature_detected!("sse4.2")),
            ("POPCNT", std::arch::is_x86_feature_detected!("popcnt")),
        ];
        let missing: Vec<&str> = features.iter().filter(|(_, has)| !has).map(|(name, _)| *name).collect();
        if !missing.is_empty() {
            return Err(LoadError::Isa { isa: linker::gp::baseline_isa(), missing: missing.join(", ") });
        }
    }
    Ok(())
}
