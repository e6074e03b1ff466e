//! The bodies of the fuzz targets of issue 11, one function per target.
//!
//! Each takes the fuzzer's bytes, runs one front end or reader on them and
//! returns; an input that makes it panic, hang or allocate without bound
//! is a bug. The libFuzzer binaries in `fuzz/` (built outside the workspace,
//! see HARDENING.md) are one-line wrappers around these functions, and
//! `tests/smoke.rs` runs them on the seeds of `seeds` plus deterministic
//! mutations from `mutate`, so the normal test suite exercises the same
//! code without libFuzzer. Nothing here runs codelet code: images and
//! objects are decoded and validated only.
//!
//! Errors the tools report as internal (popc's "internal compiler error",
//! which it returns after catching a panic, and the compiler's "internal
//! error") are turned back into panics here, so the fuzzer sees them.

#![forbid(unsafe_code)]

pub mod mutate;
pub mod seeds;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use linker::container::{Kind, FORMAT_VERSION};
use linker::gp::{self, ElemType};

/// Largest PIR input the PIR target reads: the front end is linear in its
/// input, and larger inputs only slow the fuzzer down.
pub const MAX_PIR_BYTES: usize = 64 << 10;
/// Most vertices a graph may have for the PIR target to compile it
/// (larger ones are parsed and checked only). testdata's tutorial 7 has
/// 150,000 and takes 30 s in an instrumented build on a loaded machine; a
/// mutant with 2.5 times its edge elements took 2.3 times as long (linear,
/// not a bug) and hit libFuzzer's timeout.
pub const MAX_PIR_VERTICES: usize = 20_000;
/// Largest codelet source the codelet target reads.
pub const MAX_CODELET_BYTES: usize = 16 << 10;

/// PIR front end and compiler: parse, check, then every pass of
/// `poplar-compile` through linking, with the graph's codelet files taken
/// from testdata's (compiled once per set of requested vertex types). The
/// image is not run.
pub fn pir(data: &[u8]) {
    if data.len() > MAX_PIR_BYTES {
        return;
    }
    let module = match ir::parse_bytes("fuzz.pir", data) {
        Ok(m) => m,
        Err(d) => {
            // Rendering is part of the front end's work on bad input.
            let _ = d.render();
            return;
        }
    };
    if module.graph.vertices.len() > MAX_PIR_VERTICES {
        return;
    }
    let source = String::from_utf8_lossy(data);
    let Some(codelets) = codelets_for(&module.graph) else { return };
    let opts = compiler::Options::default();
    if let Err(e) = compiler::compile("fuzz.pir", &source, &module.graph, &module.spans, &codelets, &opts) {
        let e = e.to_string();
        assert!(!e.contains("internal error"), "the compiler reports an internal error:\n{e}");
    }
}

/// Codelet front end: preprocessor, parser, semantic analysis and lowering
/// to machine code (Cranelift), in memory, with only the built-in headers.
pub fn codelet(data: &[u8]) {
    if data.len() > MAX_CODELET_BYTES {
        return;
    }
    let source = String::from_utf8_lossy(data);
    let opts = popc::Options::default();
    if let Err(d) = popc::compile("fuzz.cpp", &source, &opts, &popc::NoIncludes, &[]) {
        let text = d.render();
        assert!(!text.contains("internal compiler error"), "popc reports an internal error:\n{text}");
    }
}

/// `.gp` reader. The first byte picks the form of the rest: even, a
/// payload the target seals behind a correct header (so the checksum does
/// not stop mutations of the metadata); odd, a whole file, header included.
/// Code bytes are only carried, never loaded or run.
pub fn gp_object(data: &[u8]) {
    let file = container_file(Kind::Object, data);
    if let Ok(object) = gp::Object::from_bytes(&file) {
        // A valid object must survive a round trip unchanged.
        assert_eq!(gp::Object::from_bytes(&object.to_bytes()).as_ref(), Ok(&object));
    }
}

/// `prog.exe` reader and validator: decoding and every rule of
/// `linker::valid`. The code segment is held fixed: the first byte picks
/// the form of the rest; even, an image's payload without its code bytes
/// (the code's length is kept), into which the target puts that many
/// fixed bytes before sealing it ([`with_code`]), so mutations go to the
/// metadata; odd, a whole file, header included.
pub fn image(data: &[u8]) {
    let file = match data.split_first() {
        Some((mode, rest)) if mode % 2 == 0 => match with_code(rest) {
            Some(payload) => seal_payload(Kind::Image, &payload),
            None => return,
        },
        _ => container_file(Kind::Image, data),
    };
    if let Ok(valid) = linker::image::Image::from_bytes(&file) {
        let _ = valid.remote_buffer_bytes();
        let _ = valid.largest_frame();
        let _ = compiler::dump::image(&valid.into_inner());
    }
}

/// Largest code segment [`with_code`] makes.
pub const MAX_FIXED_CODE: u64 = 1 << 20;

/// The byte the fixed code segment is made of (x86's `int3`).
pub const FIXED_CODE_BYTE: u8 = 0xCC;

/// An image payload from one without code bytes: after the target comes
/// the code's length, then (here) nothing; the code is that many
/// [`FIXED_CODE_BYTE`]s. `None` when the target or length does not
/// decode, or the length is over [`MAX_FIXED_CODE`].
pub fn with_code(stripped: &[u8]) -> Option<Vec<u8>> {
    let config = bincode::config::standard().with_limit::<4096>();
    let (_, at): (linker::image::Target, usize) = bincode::serde::decode_from_slice(stripped, config).ok()?;
    let (len, n): (u64, usize) = bincode::serde::decode_from_slice(&stripped[at..], config).ok()?;
    if len > MAX_FIXED_CODE {
        return None;
    }
    let mut out = Vec::with_capacity(stripped.len() + len as usize);
    out.extend_from_slice(&stripped[..at + n]);
    out.resize(out.len() + len as usize, FIXED_CODE_BYTE);
    out.extend_from_slice(&stripped[at + n..]);
    Some(out)
}

/// The inverse of [`with_code`]: an image's payload without its code bytes.
pub fn without_code(image: &linker::image::Image) -> Vec<u8> {
    let config = bincode::config::standard();
    let target = bincode::serde::encode_to_vec(&image.target, config).expect("encoding into a Vec");
    let stripped = linker::image::Image { code: Vec::new(), ..image.clone() };
    let mut out = bincode::serde::encode_to_vec(&stripped, config).expect("encoding into a Vec");
    // The empty code's length is the one byte after the target.
    let len = bincode::serde::encode_to_vec(image.code.len() as u64, config).expect("encoding into a Vec");
    out.splice(target.len()..target.len() + 1, len);
    out
}

/// `.npy` host data: the framing checks and `npyz`, then the dtype and shape
/// checks against a flat tensor of the file's length in each element type.
pub fn npy(data: &[u8]) {
    let Ok(n) = runtime::data::npy_len(data) else { return };
    for e in ELEM_TYPES {
        let _ = runtime::data::from_npy(data, e, &[n], "t");
        let _ = runtime::data::from_npy(data, e, &[1, n], "t");
    }
}

/// `--write` literals: the first byte picks the element type, the second
/// the rank (0 to 3), the next ones each dimension (0 to 7); the rest is
/// the literal's text.
pub fn literal(data: &[u8]) {
    let [e, rank, rest @ ..] = data else { return };
    let e = ELEM_TYPES[usize::from(*e) % ELEM_TYPES.len()];
    let rank = usize::from(rank % 4).min(rest.len());
    let shape: Vec<u64> = rest[..rank].iter().map(|d| u64::from(d % 8)).collect();
    let text = String::from_utf8_lossy(&rest[rank..]);
    if let Ok(bytes) = runtime::data::parse_literal(&text, e, &shape, "t") {
        let want = linker::image::element_count(&shape) * u64::from(e.size());
        assert_eq!(bytes.len() as u64, want, "a literal for {shape:?} gives the wrong number of bytes");
    }
}

/// Every element type host data may have.
pub const ELEM_TYPES: [ElemType; 12] = [
    ElemType::Bool,
    ElemType::Char,
    ElemType::UChar,
    ElemType::Short,
    ElemType::UShort,
    ElemType::Int,
    ElemType::UInt,
    ElemType::Long,
    ElemType::ULong,
    ElemType::Half,
    ElemType::Float,
    ElemType::Double,
];

/// The file a `.gp` or image target reads (see [`gp_object`]).
pub fn container_file(kind: Kind, data: &[u8]) -> Vec<u8> {
    match data.split_first() {
        Some((mode, rest)) if mode % 2 == 0 => seal_payload(kind, rest),
        Some((_, rest)) => rest.to_vec(),
        None => Vec::new(),
    }
}

/// A payload behind a correct header for this machine.
pub fn seal_payload(kind: Kind, payload: &[u8]) -> Vec<u8> {
    let target = linker::isa::host_target();
    let mut out = Vec::with_capacity(26 + target.len() + payload.len());
    out.extend_from_slice(kind.magic());
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(target.len() as u16).to_le_bytes());
    out.extend_from_slice(target.as_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of a file `seal_payload` or the real writers made.
pub fn payload_of(file: &[u8]) -> &[u8] {
    let n = u16::from_le_bytes([file[12], file[13]]) as usize;
    &file[26 + n..]
}

/// Codelet sources the PIR target compiles, by file name: every `.cpp`
/// beside a graph in testdata (read once).
fn codelet_sources() -> &'static BTreeMap<String, String> {
    static SOURCES: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    SOURCES.get_or_init(|| {
        let mut m = BTreeMap::new();
        for path in seeds::codelet_files(&seeds::testdata_dir()) {
            if let (Some(name), Ok(text)) =
                (path.file_name().and_then(|n| n.to_str()), std::fs::read_to_string(&path))
            {
                m.insert(name.to_string(), text);
            }
        }
        m
    })
}

type ObjectKey = (String, Vec<String>, Vec<String>);

thread_local! {
    /// Objects compiled for earlier inputs: (file, options, requested
    /// vertex types) to the object, or `None` where popc refused them.
    static OBJECTS: RefCell<BTreeMap<ObjectKey, Option<gp::Object>>> = const { RefCell::new(BTreeMap::new()) };
}

/// The codelet objects of `graph`'s `codelets` items, compiled from
/// testdata's sources as the driver would; `None` when one is unknown or
/// does not compile (the driver would stop there too).
fn codelets_for(graph: &ir::Graph) -> Option<compiler::Codelets> {
    let requested: Vec<String> = graph
        .vertices
        .values()
        .map(|v| v.vtype.to_string())
        .collect::<std::collections::BTreeSet<String>>()
        .into_iter()
        .collect();
    let mut out = compiler::Codelets::default();
    for (_, c) in graph.codelets.iter() {
        let name = c.path.rsplit('/').next().unwrap_or(&c.path);
        let source = codelet_sources().get(name)?;
        let wanted = compiler::driver::requested_in(source, &requested);
        let key = (name.to_string(), c.options.clone(), wanted);
        let object = OBJECTS.with(|cache| {
            let mut cache = cache.borrow_mut();
            if cache.len() > 64 {
                cache.clear();
            }
            cache
                .entry(key.clone())
                .or_insert_with(|| {
                    let opts = popc::Options::from_args(&key.1).ok()?;
                    popc::compile(name, source, &opts, &popc::NoIncludes, &key.2).ok()
                })
                .clone()
        })?;
        out.objects.push(object);
    }
    Some(out)
}
