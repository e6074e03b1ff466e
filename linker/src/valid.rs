//! The one validator of executable images: [`ValidImage`] is an [`Image`]
//! that passed every rule below, and it is the only form the runtime's
//! loader and devices accept. The rules are everything the runtime relies
//! on to index without checks, run transfers in parallel, recurse through
//! the control program and allocate host memory; ARCHITECTURE.md lists
//! them too.
//!
//! 1. Target: at least one IPU, tile, worker and byte per exchange cycle; a
//!    positive clock; at most [`MAX_WORKERS`] workers and 1 to
//!    [`MAX_REPLICAS`] replicas; one tile image per tile, each using at
//!    most `bytes_per_tile`; replica-index tensors inside memory, of
//!    whole elements.
//! 2. Code: relocations inside the code segment, sorted and 8 bytes apart;
//!    each vertex type's two variants non-empty and inside the segment; line
//!    tables sorted and inside their code; a frame of at most
//!    [`MAX_FRAME_BYTES`].
//! 3. Tiles: initial segments and 4-byte aligned vertex states inside the
//!    tile's memory; known vertex types.
//! 4. Compute sets: tiles ascending, vertex ranges inside their tile.
//! 5. Exchanges (compute set in/out, copies): every transfer inside its
//!    tiles; destinations sorted by (tile, offset) and disjoint; no transfer
//!    reads bytes another transfer of the same phase writes (transfers run
//!    in parallel, split by destination tile).
//! 6. Steps: known compute sets, copies, functions, streams (in the right
//!    direction) and remote buffers and repeats; predicates inside memory;
//!    region lists covering their shape exactly; ranks at most [`MAX_RANK`];
//!    collectives' regions of whole elements, sized for their kind, with a
//!    group that divides the replicas;
//!    functions never call themselves, directly or not; nesting plus call
//!    depth at most [`MAX_CONTROL_DEPTH`] (the interpreter recurses once per
//!    level); program names unique.
//! 7. Host memory: every remote buffer, used or not, has a size computed
//!    with overflow checks, and tile memory plus remote buffers fit in
//!    [`HOST_MEMORY_LIMIT`].
//!
//! Validation is linear in the image's size (plus a logarithmic factor for
//! the race check) and recurses no deeper than [`MAX_CONTROL_DEPTH`]. The
//! exchange rules, most of the work for a large graph, are checked over
//! rayon's threads, with the error a check in order would report.

use rayon::prelude::*;

use crate::container::{FormatError, Kind};
use crate::gp::ElemType;
use crate::image::{Exchange, Image, Region, ScalarRef, Step, TileImage};
use vocab::MAX_REPLICAS;

/// Most worker contexts a target may have.
pub const MAX_WORKERS: u32 = 64;

/// Most dimensions of any shape in an image.
pub const MAX_RANK: usize = 64;

/// Most levels of control program open at once: each `repeat`, `while`,
/// `if`, `switch` body and each `call` is one level. The interpreter recurses
/// once per level; 1,024 levels fit easily in a 2 MiB thread stack.
pub const MAX_CONTROL_DEPTH: u32 = 1024;

/// Largest host stack frame one call of vertex code may need (popc's limit
/// on one vertex's locals, `sema::MAX_OBJECT_SIZE`).
pub const MAX_FRAME_BYTES: u32 = 1 << 20;

/// Host memory an image may ask for: the tiles' memories and every remote
/// buffer together, 8 GiB. Stream buffers are the host's own data and are
/// not counted.
pub const HOST_MEMORY_LIMIT: u64 = 8 << 30;

/// An image that passed every rule of this module. It can only be made by
/// [`ValidImage::new`] (or [`Image::validate`]) and dereferences to the
/// image; it cannot be changed afterwards.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidImage(Image);

impl ValidImage {
    /// Checks every rule; the error names the first one broken.
    pub fn new(image: Image) -> Result<ValidImage, FormatError> {
        check(&image).map_err(|detail| FormatError::Corrupt { what: Kind::Image.describe(), detail })?;
        Ok(ValidImage(image))
    }

    /// The image, no longer known to be valid.
    pub fn into_inner(self) -> Image {
        self.0
    }

    /// Bytes of host memory every remote buffer needs, in order (checked
    /// against [`HOST_MEMORY_LIMIT`], so each fits in `usize`).
    pub fn remote_buffer_bytes(&self) -> Vec<usize> {
        self.0.remote_buffers.iter().map(|b| remote_bytes(b).unwrap_or(0) as usize).collect()
    }

    /// The largest host stack frame of any vertex type's code.
    pub fn largest_frame(&self) -> u32 {
        self.0.vertex_types.iter().map(|v| v.stack_size).max().unwrap_or(0)
    }
}

impl std::ops::Deref for ValidImage {
    type Target = Image;
    fn deref(&self) -> &Image {
        &self.0
    }
}

impl Image {
    /// Checks every rule of [`crate::valid`]; after this, the runtime may
    /// index without checks.
    pub fn validate(self) -> Result<ValidImage, FormatError> {
        ValidImage::new(self)
    }
}

fn remote_bytes(b: &crate::image::RemoteBuffer) -> Option<u64> {
    let mut n = u64::from(b.elem.size());
    for &d in &b.shape {
        n = n.checked_mul(d)?;
    }
    n.checked_mul(u64::from(b.repeats))
}

/// Every rule, in the order of the module doc; the message names the
/// first one broken.
pub(crate) fn check(img: &Image) -> Result<(), String> {
    let v = Validator { image: img };
    v.target()?;
    v.code()?;
    v.tiles()?;
    v.compute_sets()?;
    for x in &img.copies {
        v.exchange(x, "copy")?;
    }
    crate::links::check(img)?;
    for p in img.programs.iter().chain(&img.functions) {
        v.steps(&p.body)?;
    }
    for h in &img.handles {
        v.regions(&h.regions, h.elem, &h.shape, &h.name)?;
    }
    for s in &img.streams {
        v.rank(&s.shape, &s.name)?;
    }
    for r in &img.replica_index {
        let bytes: u64 = r.regions.iter().map(|x| u64::from(x.bytes)).sum();
        v.regions(&r.regions, r.elem, &[bytes / u64::from(r.elem.size())], "replication index")?;
    }
    v.calls()?;
    let mut names = std::collections::BTreeSet::new();
    for p in &img.programs {
        if !p.name.is_empty() && !names.insert(&p.name) {
            return Err(format!("two programs are named '{}'", p.name));
        }
    }
    v.host_memory()
}

struct Validator<'a> {
    image: &'a Image,
}

impl Validator<'_> {
    fn target(&self) -> Result<(), String> {
        let img = self.image;
        let t = &img.target;
        if t.ipus == 0 || t.tiles_per_ipu == 0 || t.workers == 0 || t.exchange_bytes_per_cycle == 0 {
            return Err("target has zero ipus, tiles, workers or exchange bandwidth".into());
        }
        if t.replicas == 0 || t.replicas > MAX_REPLICAS {
            return Err(format!("the target has {} replicas, 1 to {MAX_REPLICAS} are supported", t.replicas));
        }
        if t.workers > MAX_WORKERS {
            return Err(format!("the target has {} workers, at most {MAX_WORKERS} are supported", t.workers));
        }
        if !(t.clock_mhz.is_finite() && t.clock_mhz > 0.0) {
            return Err("target clock is not a positive number".into());
        }
        if img.tiles.len() as u64 != u64::from(t.ipus) * u64::from(t.tiles_per_ipu) {
            return Err(format!(
                "{} tile images for a target of {} tiles",
                img.tiles.len(),
                u64::from(t.ipus) * u64::from(t.tiles_per_ipu)
            ));
        }
        Ok(())
    }

    fn code(&self) -> Result<(), String> {
        let img = self.image;
        let len = img.code.len() as u64;
        for r in &img.relocs {
            if u64::from(r.offset) + 8 > len {
                return Err(format!("relocation at {} outside the code segment", r.offset));
            }
        }
        for w in img.relocs.windows(2) {
            if u64::from(w[0].offset) + 8 > u64::from(w[1].offset) {
                return Err(format!(
                    "relocations at {} and {} are unsorted or overlap",
                    w[0].offset, w[1].offset
                ));
            }
        }
        for vt in &img.vertex_types {
            for (what, (off, n), lines) in
                [("plain", vt.plain, &vt.plain_lines), ("counting", vt.counting, &vt.counting_lines)]
            {
                if n == 0 || u64::from(off) + u64::from(n) > len {
                    return Err(format!("{what} code of '{}' is empty or outside the code segment", vt.name));
                }
                if lines.iter().any(|&(at, _)| at >= n) || lines.windows(2).any(|w| w[0].0 > w[1].0) {
                    return Err(format!(
                        "line table of '{}' ({what}) is unsorted or outside its code",
                        vt.name
                    ));
                }
            }
            if vt.stack_size > MAX_FRAME_BYTES {
                return Err(format!(
                    "vertex type '{}' needs a {}-byte stack frame, more than the {MAX_FRAME_BYTES} allowed",
                    vt.name, vt.stack_size
                ));
            }
        }
        Ok(())
    }

    /// Every tile's rules, over rayon's threads (ten million vertices are
    /// checked here); the error is the first tile's in order, as one thread
    /// would find it.
    fn tiles(&self) -> Result<(), String> {
        let first =
            self.image.tiles.par_iter().enumerate().find_map_first(|(n, t)| self.tile_rules(n, t).err());
        first.map_or(Ok(()), Err)
    }

    fn tile_rules(&self, n: usize, tile: &TileImage) -> Result<(), String> {
        let img = self.image;
        if u64::from(tile.mem_size) > img.target.bytes_per_tile {
            return Err(format!(
                "tile {n} uses {} bytes, more than the target's {}",
                tile.mem_size, img.target.bytes_per_tile
            ));
        }
        for s in &tile.init {
            self.range(n as u32, s.offset, s.bytes.len() as u64, "initial contents")?;
        }
        for v in &tile.vertices {
            if v.vertex_type as usize >= img.vertex_types.len() {
                return Err(format!("vertex {} on tile {n} has unknown type {}", v.id, v.vertex_type));
            }
            self.range(n as u32, v.state, 1, "vertex state")?;
            if v.state % 4 != 0 {
                return Err(format!(
                    "vertex {} on tile {n} has a misaligned state address {}",
                    v.id, v.state
                ));
            }
        }
        Ok(())
    }

    fn compute_sets(&self) -> Result<(), String> {
        for cs in &self.image.compute_sets {
            let mut last = None;
            for w in &cs.tiles {
                let tile = self.tile(w.tile)?;
                if last.is_some_and(|l| l >= w.tile) {
                    return Err(format!("compute set '{}' lists tiles out of order", cs.name));
                }
                last = Some(w.tile);
                if w.start > w.end || w.end as usize > tile.vertices.len() {
                    return Err(format!("compute set '{}' names vertices tile {} lacks", cs.name, w.tile));
                }
            }
            self.exchange(&cs.exchange_in, &format!("exchange into compute set '{}'", cs.name))?;
            if cs.in_by_tile {
                let has_work = |t: u32| cs.tiles.binary_search_by_key(&t, |w| w.tile).is_ok();
                if let Some(tr) = cs.exchange_in.transfers.iter().find(|tr| !has_work(tr.dst_tile)) {
                    return Err(format!(
                        "compute set '{}' runs its exchange in tile by tile, but a transfer goes to tile {}, \
                         which has no vertices in it",
                        cs.name, tr.dst_tile
                    ));
                }
            }
            self.exchange(&cs.exchange_out, &format!("exchange out of compute set '{}'", cs.name))?;
        }
        Ok(())
    }

    fn tile(&self, tile: u32) -> Result<&TileImage, String> {
        self.image.tiles.get(tile as usize).ok_or_else(|| format!("tile {tile} does not exist"))
    }

    fn range(&self, tile: u32, offset: u32, bytes: u64, what: &str) -> Result<(), String> {
        let t = self.tile(tile)?;
        if u64::from(offset) + bytes > u64::from(t.mem_size) {
            return Err(format!("{what} at {offset}+{bytes} outside tile {tile}'s {} bytes", t.mem_size));
        }
        Ok(())
    }

    /// Ranges, sorted disjoint destinations, and no read of a byte another
    /// transfer of the phase writes. Each rule is checked over rayon's
    /// threads; the error is the first transfer's in order, as one thread
    /// would find it.
    fn exchange(&self, x: &Exchange, what: &str) -> Result<(), String> {
        let first_err = |r: Option<String>| r.map_or(Ok(()), Err);
        first_err(x.transfers.par_iter().find_map_first(|tr| {
            self.range(tr.src_tile, tr.src_offset, tr.bytes.into(), "transfer source")
                .and_then(|()| {
                    self.range(tr.dst_tile, tr.dst_offset, tr.bytes.into(), "transfer destination")
                })
                .err()
        }))?;
        let end = |tr: &crate::image::Transfer| u64::from(tr.dst_offset) + u64::from(tr.bytes);
        let unsorted = x.transfers.par_windows(2).any(|w| {
            let (a, b) = (&w[0], &w[1]);
            (a.dst_tile, a.dst_offset) > (b.dst_tile, b.dst_offset)
                || (a.dst_tile == b.dst_tile && end(a) > u64::from(b.dst_offset))
        });
        if unsorted {
            return Err(format!("{what}: destinations are unsorted or overlap"));
        }
        // Each tile's destinations, in order: `tile_first[t]..tile_first[t + 1]`
        // (every tile exists: the ranges are checked).
        let mut tile_first = vec![0; self.image.tiles.len() + 1];
        for tr in &x.transfers {
            tile_first[tr.dst_tile as usize + 1] += 1;
        }
        for t in 1..tile_first.len() {
            tile_first[t] += tile_first[t - 1];
        }
        // Destinations are sorted and disjoint, so the writes a read may
        // meet start at the last write on its tile beginning before the
        // read's end.
        first_err(x.transfers.par_iter().enumerate().find_map_first(|(i, tr)| {
            if tr.bytes == 0 {
                return None;
            }
            let (lo, hi) = (u64::from(tr.src_offset), u64::from(tr.src_offset) + u64::from(tr.bytes));
            let (first, last) = (tile_first[tr.src_tile as usize], tile_first[tr.src_tile as usize + 1]);
            let after = first + x.transfers[first..last].partition_point(|w| u64::from(w.dst_offset) < hi);
            for j in (first..after).rev() {
                let w = &x.transfers[j];
                if end(w) <= lo {
                    break;
                }
                if j != i && w.bytes > 0 {
                    return Some(format!(
                        "{what}: a transfer reads tile {} bytes {lo}..{hi}, which another transfer of the \
                         same phase writes ({}..{}); the result would depend on their order",
                        tr.src_tile,
                        w.dst_offset,
                        end(w)
                    ));
                }
            }
            None
        }))
    }

    fn rank(&self, shape: &[u64], what: &str) -> Result<(), String> {
        if shape.len() > MAX_RANK {
            return Err(format!("'{what}' has {} dimensions, at most {MAX_RANK} are supported", shape.len()));
        }
        Ok(())
    }

    fn regions(&self, regions: &[Region], elem: ElemType, shape: &[u64], what: &str) -> Result<(), String> {
        self.rank(shape, what)?;
        let mut total = 0u64;
        for r in regions {
            self.range(r.tile, r.offset, r.bytes.into(), what)?;
            total += u64::from(r.bytes);
        }
        let want = shape.iter().try_fold(u64::from(elem.size()), |a, &d| a.checked_mul(d));
        if want != Some(total) {
            let want = want.map_or("more than 2^64".to_string(), |w| w.to_string());
            return Err(format!("'{what}' covers {total} bytes, its shape needs {want}"));
        }
        Ok(())
    }

    fn scalar(&self, s: &ScalarRef) -> Result<(), String> {
        self.range(s.tile, s.offset, s.elem.size().into(), "predicate")
    }

    /// Indices, regions and predicates of a step list; recursion is bounded
    /// by [`MAX_CONTROL_DEPTH`] here, before [`Validator::calls`] measures
    /// depths across calls.
    fn steps(&self, steps: &[Step]) -> Result<(), String> {
        self.steps_at(steps, 0)
    }

    fn steps_at(&self, steps: &[Step], depth: u32) -> Result<(), String> {
        let img = self.image;
        if depth > MAX_CONTROL_DEPTH {
            return Err(format!("control program nested more than {MAX_CONTROL_DEPTH} levels deep"));
        }
        for step in steps {
            match step {
                Step::Execute(cs) if *cs as usize >= img.compute_sets.len() => {
                    return Err(format!("unknown compute set {cs}"))
                }
                Step::Copy(c) if *c as usize >= img.copies.len() => return Err(format!("unknown copy {c}")),
                Step::Call(f) if *f as usize >= img.functions.len() => {
                    return Err(format!("unknown function {f}"))
                }
                Step::StreamIn { stream, regions } | Step::StreamOut { stream, regions } => {
                    let s = img.streams.get(*stream as usize).ok_or(format!("unknown stream {stream}"))?;
                    if matches!(step, Step::StreamIn { .. }) != s.to_device {
                        return Err(format!("stream '{}' used in the wrong direction", s.name));
                    }
                    self.regions(regions, s.elem, &s.shape, &s.name)?;
                }
                Step::RemoteRead { buffer, repeat, regions }
                | Step::RemoteWrite { buffer, repeat, regions } => {
                    let b = img
                        .remote_buffers
                        .get(*buffer as usize)
                        .ok_or(format!("unknown remote buffer {buffer}"))?;
                    if *repeat >= b.repeats {
                        return Err(format!("remote buffer '{}' has no repeat {repeat}", b.name));
                    }
                    self.regions(regions, b.elem, &b.shape, &b.name)?;
                }
                Step::Print { label, elem, shape, regions, .. } => {
                    self.regions(regions, *elem, shape, label)?
                }
                Step::Repeat { body, .. } | Step::Block { body, .. } => self.steps_at(body, depth + 1)?,
                Step::While { cond, pred, body, .. } => {
                    self.steps_at(cond, depth + 1)?;
                    self.scalar(pred)?;
                    self.steps_at(body, depth + 1)?;
                }
                Step::If { pred, then, otherwise } => {
                    self.scalar(pred)?;
                    self.steps_at(then, depth + 1)?;
                    self.steps_at(otherwise, depth + 1)?;
                }
                Step::Switch { selector, cases, default } => {
                    self.scalar(selector)?;
                    for (_, body) in cases {
                        self.steps_at(body, depth + 1)?;
                    }
                    self.steps_at(default, depth + 1)?;
                }
                Step::Collective(c) => self.collective(c)?,
                Step::Execute(_) | Step::Copy(_) | Step::Call(_) | Step::Sync => {}
            }
        }
        Ok(())
    }

    /// A collective's regions hold whole elements of its type, its output
    /// has the size its kind gives, and its group divides the replicas.
    fn collective(&self, c: &crate::image::Collective) -> Result<(), String> {
        let replicas = self.image.target.replicas;
        let g = c.group.size(replicas).map_err(|e| format!("collective '{}': {e}", c.label))?;
        let size = u64::from(c.elem.size());
        let in_bytes: u64 = c.input.iter().map(|r| u64::from(r.bytes)).sum();
        if !in_bytes.is_multiple_of(size) {
            return Err(format!("collective '{}': input is not whole elements", c.label));
        }
        let n = in_bytes / size;
        self.regions(&c.input, c.elem, &[n], &c.label)?;
        self.regions(&c.output, c.elem, &[c.kind.output_elements(n, u64::from(g))], &c.label)?;
        if c.kind.reduces() != c.op.is_some() {
            return Err(format!(
                "collective '{}': operator given to a {} or missing",
                c.label,
                c.kind.name()
            ));
        }
        match c.kind {
            vocab::CollectiveKind::AllToAll if !n.is_multiple_of(u64::from(g)) => {
                Err(format!("collective '{}': {n} elements do not split over {g} replicas", c.label))
            }
            vocab::CollectiveKind::Broadcast { root } if root >= g => {
                Err(format!("collective '{}': root {root} is outside a group of {g}", c.label))
            }
            _ => Ok(()),
        }
    }

    /// Functions must not call themselves, directly or not, and the deepest
    /// chain of nesting and calls from any program is at most
    /// [`MAX_CONTROL_DEPTH`]. Functions are visited with an explicit stack,
    /// so a long call chain cannot overflow the validator's own.
    fn calls(&self) -> Result<(), String> {
        let img = self.image;
        // Per function: (callee, nesting level of the call) pairs, and its
        // own nesting height.
        let summary: Vec<(Vec<(u32, u32)>, u32)> = img.functions.iter().map(|f| calls_in(&f.body)).collect();
        // depth[f]: levels function f's body needs, calls included.
        let mut depth: Vec<Option<u32>> = vec![None; summary.len()];
        let mut on_stack = vec![false; summary.len()];
        for root in 0..summary.len() {
            if depth[root].is_some() {
                continue;
            }
            // (function, index of the next callee to look at)
            let mut stack = vec![(root, 0usize)];
            on_stack[root] = true;
            while let Some(&mut (f, ref mut next)) = stack.last_mut() {
                if let Some(&(g, _)) = summary[f].0.get(*next) {
                    *next += 1;
                    let g = g as usize;
                    if on_stack[g] {
                        return Err(format!("function '{}' calls itself", img.functions[g].name));
                    }
                    if depth[g].is_none() {
                        on_stack[g] = true;
                        stack.push((g, 0));
                    }
                    continue;
                }
                let mut d = summary[f].1;
                for &(g, level) in &summary[f].0 {
                    d = d.max(level.saturating_add(1).saturating_add(depth[g as usize].unwrap_or(0)));
                }
                if d > MAX_CONTROL_DEPTH {
                    return Err(format!(
                        "function '{}' nests calls and control flow {d} levels deep, more than the \
                         {MAX_CONTROL_DEPTH} supported",
                        img.functions[f].name
                    ));
                }
                depth[f] = Some(d);
                on_stack[f] = false;
                stack.pop();
            }
        }
        for p in &img.programs {
            let (callees, height) = calls_in(&p.body);
            let d = callees
                .iter()
                .map(|&(g, level)| level + 1 + depth[g as usize].unwrap_or(0))
                .fold(height, u32::max);
            if d > MAX_CONTROL_DEPTH {
                return Err(format!(
                    "program '{}' nests calls and control flow {d} levels deep, more than the \
                     {MAX_CONTROL_DEPTH} supported",
                    p.name
                ));
            }
        }
        Ok(())
    }

    /// Tile memory plus every remote buffer, overflow-checked.
    fn host_memory(&self) -> Result<(), String> {
        let img = self.image;
        let mut total: u64 = img.tiles.iter().map(|t| u64::from(t.mem_size)).sum();
        for b in &img.remote_buffers {
            self.rank(&b.shape, &b.name)?;
            let bytes = remote_bytes(b).filter(|&n| n <= HOST_MEMORY_LIMIT).ok_or_else(|| {
                format!(
                    "remote buffer '{}' ({} x {:?} of {} bytes) needs more host memory than the {} GiB \
                     limit",
                    b.name,
                    b.repeats,
                    b.shape,
                    b.elem.size(),
                    HOST_MEMORY_LIMIT >> 30
                )
            })?;
            total = total.saturating_add(bytes);
        }
        if total > HOST_MEMORY_LIMIT {
            return Err(format!(
                "tile memory and remote buffers need {total} bytes of host memory, more than the {} GiB limit",
                HOST_MEMORY_LIMIT >> 30
            ));
        }
        Ok(())
    }
}

/// The calls of a step list with the nesting level each sits at, and the
/// list's own nesting height (one per body level below the list). Uses an
/// explicit stack; [`Validator::steps_at`] has already bounded the height.
fn calls_in(steps: &[Step]) -> (Vec<(u32, u32)>, u32) {
    let mut calls = Vec::new();
    let mut height = 0;
    let mut work: Vec<(&[Step], u32)> = vec![(steps, 0)];
    while let Some((list, level)) = work.pop() {
        height = height.max(level);
        for s in list {
            if let Step::Call(f) = s {
                calls.push((*f, level));
            }
            work.extend(s.bodies().into_iter().map(|b| (b, level + 1)));
        }
    }
    (calls, height)
}
