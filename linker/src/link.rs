//! `link`: joins the compiled tiles with the code of the vertex types they
//! use into one executable [`Image`].
//!
//! The graph compiler hands over everything but code, as an [`Unlinked`]:
//! per-tile images whose vertex instances number the used vertex types
//! `0..n` in the order of [`Unlinked::vertex_types`]. The linker lays out
//! the shared code segment: for each used type, in that order, its plain
//! variant then its counting variant, each entry aligned to
//! [`CODE_ALIGN`] bytes (padding is `int3`, `0xcc`), and re-bases each
//! function's relocations onto the segment. The result is validated with
//! [`Image::validate`] before it is returned, so a linked image always loads.
//! Output depends only on the input: no hashing, no clocks, no threads.

use crate::gp;
use crate::image::{
    CodeReloc, ComputeSet, Exchange, Handle, Image, Program, RemoteBuffer, ReplicaIndex, Stream, Target,
    TileImage, VertexCode,
};

/// Alignment of every function entry in the code segment.
pub const CODE_ALIGN: usize = 16;

/// A vertex type the image uses, with the codelet source it came from.
#[derive(Clone, Copy, Debug)]
pub struct UsedType<'a> {
    /// The codelet file (for error reports at run time).
    pub source: &'a str,
    pub vertex_type: &'a gp::VertexType,
    /// The ISA level of the object it comes from.
    pub isa: crate::isa::Level,
    /// Tile address of its object's static storage (on every tile).
    pub statics: u32,
}

/// Everything of an image except its code segment.
#[derive(Clone, Debug)]
pub struct Unlinked<'a> {
    pub target: Target,
    /// Index `i` here is vertex type `i` of the tiles' vertex instances.
    pub vertex_types: Vec<UsedType<'a>>,
    pub tiles: Vec<TileImage>,
    pub compute_sets: Vec<ComputeSet>,
    pub copies: Vec<Exchange>,
    pub programs: Vec<Program>,
    pub functions: Vec<Program>,
    pub handles: Vec<Handle>,
    pub streams: Vec<Stream>,
    pub remote_buffers: Vec<RemoteBuffer>,
    pub replica_index: Vec<ReplicaIndex>,
}

/// Why linking failed (an internal error of the compiler, or a code
/// segment past 4 GiB).
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("the code segment exceeds 4 GiB")]
    CodeTooLarge,
    /// A rule of `valid` is broken: a limit the program exceeds (control
    /// depth, host memory), or an internal error of the compiler.
    #[error("the linked image breaks a rule of the runtime: {0}")]
    Invalid(String),
    /// An exchange joins IPUs the target's IPU-Links do not connect.
    #[error("{0}")]
    IpuLinks(String),
}

fn place(code: &mut Vec<u8>, relocs: &mut Vec<CodeReloc>, f: &gp::Function) -> Result<(u32, u32), LinkError> {
    while !code.len().is_multiple_of(CODE_ALIGN) {
        code.push(0xcc);
    }
    let base = u32::try_from(code.len()).map_err(|_| LinkError::CodeTooLarge)?;
    let len = u32::try_from(f.code.len()).map_err(|_| LinkError::CodeTooLarge)?;
    code.extend_from_slice(&f.code);
    u32::try_from(code.len()).map_err(|_| LinkError::CodeTooLarge)?;
    for r in &f.relocs {
        relocs.push(CodeReloc { offset: base + r.offset, symbol: r.symbol.clone(), addend: r.addend });
    }
    Ok((base, len))
}

/// Links an image (see the module doc).
pub fn link(u: Unlinked<'_>) -> Result<Image, LinkError> {
    let mut code = Vec::new();
    let mut relocs = Vec::new();
    let mut vertex_types = Vec::with_capacity(u.vertex_types.len());
    for t in &u.vertex_types {
        let vt = t.vertex_type;
        let plain = place(&mut code, &mut relocs, &vt.plain)?;
        let counting = place(&mut code, &mut relocs, &vt.counting)?;
        vertex_types.push(VertexCode {
            name: vt.name.clone(),
            base: vt.base,
            plain,
            counting,
            returns_bool: vt.returns_bool,
            source: t.source.to_string(),
            plain_lines: vt.plain.lines.clone(),
            counting_lines: vt.counting.lines.clone(),
            stack_size: vt.stack_size,
            statics: t.statics,
        });
    }
    let image = Image {
        target: u.target,
        code,
        relocs,
        vertex_types,
        tiles: u.tiles,
        compute_sets: u.compute_sets,
        copies: u.copies,
        programs: u.programs,
        functions: u.functions,
        handles: u.handles,
        streams: u.streams,
        remote_buffers: u.remote_buffers,
        replica_index: u.replica_index,
        isa: u.vertex_types.iter().map(|t| t.isa).max().unwrap_or_default(),
    };
    crate::links::check(&image).map_err(LinkError::IpuLinks)?;
    crate::valid::check(&image).map_err(LinkError::Invalid)?;
    Ok(image)
}
