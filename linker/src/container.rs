//! The checked header shared by `.gp` and `prog.exe`.
//!
//! Layout (little endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic (`b"POPLARGP"` or `b"POPLAREX"`) |
//! | 8 | 4 | format version |
//! | 12 | 2 | length of the target triple in bytes (at most 255) |
//! | 14 | n | target triple and ISA level, UTF-8 (e.g. `x86_64-linux x86-64-v2`) |
//! | 14+n | 8 | payload length |
//! | 22+n | 4 | CRC-32 of the payload |
//! | 26+n | … | payload: bincode 2 (standard configuration) of the structure |
//!
//! [`seal`] writes it, [`open`] checks every field before the payload is
//! decoded, with a memory limit proportional to the payload length (see
//! `decode_bounded`) so a hostile length prefix inside the payload cannot
//! make the decoder allocate more than a small multiple of the file.

use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What a file is; each kind has its own magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A codelet object written by `popc`.
    Object,
    /// A linked executable image written by `poplar-compile`.
    Image,
}

impl Kind {
    pub fn magic(self) -> &'static [u8; 8] {
        match self {
            Kind::Object => b"POPLARGP",
            Kind::Image => b"POPLAREX",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Kind::Object => "codelet object (.gp)",
            Kind::Image => "executable image (prog.exe)",
        }
    }
}

/// Version of both formats; bumped on any change of the payload structures
/// or of what the code they carry expects of the runtime.
/// 2: `Target::sync_cycles`, `VertexCode::stack_size`; images must pass `valid`'s rules; code
/// reads `TileCtx::stop` at loop back edges. 3: `Field::min_align`. 4: `ComputeSet::in_by_tile`.
/// 6: code reads `TileCtx::cycles`, `cycles_per_count` and `draws` and calls the
/// `HostFn::Urand*` entries (the IPU built-ins), so a runtime must have them.
/// 7: `Target::replicas`, `Image::replica_index`, `Step::Collective`.
/// 8: `Step::While::until` (`RepeatWhileFalse`).
/// 9: `Object::statics`, `VertexCode::statics`; code reads `TileCtx::statics`.
/// 10: named `Block` programs. 11: `Target::links` (the IPU-Link options).
pub const FORMAT_VERSION: u32 = 11;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FormatError {
    #[error("file is too short to be a {0} ({1} bytes)")]
    Truncated(&'static str, usize),
    #[error("not a {expected}: bad magic bytes{found}")]
    BadMagic { expected: &'static str, found: String },
    #[error("{what} has format version {found}, this toolchain reads version {expected}")]
    Version { what: &'static str, found: u32, expected: u32 },
    #[error("{what} is for target '{found}'; this machine runs {expected}")]
    ForeignTarget { what: &'static str, found: String, expected: String },
    #[error("{what} is corrupt: {detail}")]
    Corrupt { what: &'static str, detail: String },
}

/// Serialises `payload` behind a header for `kind` and `target`.
pub fn seal<T: Serialize>(kind: Kind, target: &str, payload: &T) -> Vec<u8> {
    seal_with(kind, target, |out| encode_into(out, payload))
}

/// Appends bincode 2 (the standard configuration) of `value` to `out`.
pub fn encode_into<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    bincode::serde::encode_into_std_write(value, out, bincode::config::standard())
        .expect("encoding into a Vec cannot fail");
}

/// [`seal`] with a payload that `encode` appends to the buffer it is given:
/// for a caller that writes the bincode of its structure in pieces (an
/// image, over rayon's threads), the bytes being the same.
pub fn seal_with(kind: Kind, target: &str, encode: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let triple = target.as_bytes();
    assert!(triple.len() <= 255, "target triple too long");
    let mut out = Vec::new();
    out.extend_from_slice(kind.magic());
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(triple.len() as u16).to_le_bytes());
    out.extend_from_slice(triple);
    // The payload is encoded in place after its length and checksum, which
    // are filled in once it is there: an image of ten million vertices is
    // half a gigabyte, not to be encoded apart and copied.
    let lengths = out.len();
    out.extend_from_slice(&[0; 12]);
    let body = out.len();
    encode(&mut out);
    let len = (out.len() - body) as u64;
    let crc = checksum(&out[body..]);
    out[lengths..lengths + 8].copy_from_slice(&len.to_le_bytes());
    out[lengths + 8..body].copy_from_slice(&crc.to_le_bytes());
    out
}

/// The CRC-32 of a payload, computed in pieces over rayon's threads and
/// combined: the same value as one pass, for a fraction of the wall time
/// of half a gigabyte.
fn checksum(bytes: &[u8]) -> u32 {
    const PIECE: usize = 4 << 20;
    if bytes.len() <= PIECE {
        return crc32fast::hash(bytes);
    }
    let pieces: Vec<crc32fast::Hasher> = bytes
        .par_chunks(PIECE)
        .map(|c| {
            let mut h = crc32fast::Hasher::new();
            h.update(c);
            h
        })
        .collect();
    let mut all = crc32fast::Hasher::new();
    for p in &pieces {
        all.combine(p);
    }
    all.finalize()
}

/// The content hash of a file's bytes, as the profiles carry it
/// (`imageHash`): FNV-1a, 64-bit, as 16 lowercase hex digits. Not a
/// cryptographic hash: it tells one compiled image from another, it does not
/// stand up to a file made to collide.
pub fn content_hash(bytes: &[u8]) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let h = bytes.iter().fold(OFFSET, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME));
    format!("{h:016x}")
}

/// The target recorded in a file's header, without decoding the payload.
pub fn peek_target(kind: Kind, bytes: &[u8]) -> Result<String, FormatError> {
    let (target, _) = split(kind, bytes)?;
    Ok(target)
}

/// Checks the header and decodes the payload. The recorded target must
/// satisfy `accepts` (`crate::isa::runs_here` for this machine's files).
pub fn open<T: DeserializeOwned>(
    kind: Kind,
    bytes: &[u8],
    accepts: fn(&str) -> bool,
) -> Result<(String, T), FormatError> {
    let what = kind.describe();
    let (target, body) = split(kind, bytes)?;
    if !accepts(&target) {
        return Err(FormatError::ForeignTarget {
            what,
            found: target,
            expected: crate::isa::describe_host(),
        });
    }
    let (value, used) = decode_bounded(body)
        .map_err(|e| FormatError::Corrupt { what, detail: format!("cannot decode payload: {e}") })?;
    if used != body.len() {
        return Err(FormatError::Corrupt {
            what,
            detail: format!("{} trailing bytes after the payload", body.len() - used),
        });
    }
    Ok((target, value))
}

/// Decodes `body` with a memory limit derived from its length. bincode
/// charges every value it decodes at its in-memory size (a `u64` read from a
/// one-byte varint counts 8 bytes; a length prefix counts the whole
/// allocation before any element is read), so a well-formed payload of `n`
/// bytes never claims more than `8n`. The limit is `8n` rounded up to a
/// power of four (at least 4 KiB), the tier bincode's compile-time limit
/// can express: a length prefix can never make the decoder allocate more
/// than 32 times the file's payload.
fn decode_bounded<T: DeserializeOwned>(body: &[u8]) -> Result<(T, usize), bincode::error::DecodeError> {
    let need = (body.len() as u64).saturating_mul(8);
    macro_rules! tiers {
        ($($bits:literal)*) => {$(
            if need <= 1u64 << $bits {
                let config = bincode::config::standard().with_limit::<{ 1usize << $bits }>();
                return bincode::serde::decode_from_slice(body, config);
            }
        )*};
    }
    tiers!(12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42);
    Err(bincode::error::DecodeError::LimitExceeded)
}

fn split(kind: Kind, bytes: &[u8]) -> Result<(String, &[u8]), FormatError> {
    let what = kind.describe();
    let truncated = || FormatError::Truncated(what, bytes.len());
    if bytes.len() < 14 {
        return Err(if bytes.len() >= 8 && &bytes[..8] != kind.magic() {
            bad_magic(kind, bytes)
        } else {
            truncated()
        });
    }
    if &bytes[..8] != kind.magic() {
        return Err(bad_magic(kind, bytes));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if version != FORMAT_VERSION {
        return Err(FormatError::Version { what, found: version, expected: FORMAT_VERSION });
    }
    let n = u16::from_le_bytes(bytes[12..14].try_into().unwrap()) as usize;
    let rest = &bytes[14..];
    if rest.len() < n + 12 {
        return Err(truncated());
    }
    let target = std::str::from_utf8(&rest[..n])
        .map_err(|_| FormatError::Corrupt { what, detail: "target is not UTF-8".into() })?
        .to_string();
    let len = u64::from_le_bytes(rest[n..n + 8].try_into().unwrap());
    let crc = u32::from_le_bytes(rest[n + 8..n + 12].try_into().unwrap());
    let body = &rest[n + 12..];
    if (body.len() as u64) < len {
        return Err(truncated());
    }
    if body.len() as u64 > len {
        return Err(FormatError::Corrupt {
            what,
            detail: format!("{} bytes after the declared payload", body.len() as u64 - len),
        });
    }
    if crc32fast::hash(body) != crc {
        return Err(FormatError::Corrupt { what, detail: "checksum mismatch".into() });
    }
    Ok((target, body))
}

fn bad_magic(kind: Kind, bytes: &[u8]) -> FormatError {
    let other = [Kind::Object, Kind::Image].into_iter().find(|k| bytes.starts_with(k.magic()));
    let found = match other {
        Some(k) => format!(" (it is a {})", k.describe()),
        None => String::new(),
    };
    FormatError::BadMagic { expected: kind.describe(), found }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any(_: &str) -> bool {
        true
    }

    #[test]
    fn round_trip_and_rejections() {
        let v: Vec<u32> = vec![1, 2, 3];
        let bytes = seal(Kind::Object, "x86_64 v2", &v);
        let (t, back): (String, Vec<u32>) = open(Kind::Object, &bytes, |t| t == "x86_64 v2").unwrap();
        assert_eq!((t.as_str(), back), ("x86_64 v2", v));
        assert!(matches!(open::<Vec<u32>>(Kind::Image, &bytes, any), Err(FormatError::BadMagic { .. })));
        assert!(matches!(
            open::<Vec<u32>>(Kind::Object, &bytes, |t| t == "aarch64"),
            Err(FormatError::ForeignTarget { .. })
        ));
        for cut in 0..bytes.len() {
            assert!(open::<Vec<u32>>(Kind::Object, &bytes[..cut], any).is_err());
        }
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(open::<Vec<u32>>(Kind::Object, &bad, any), Err(FormatError::Corrupt { .. })));
    }

    #[test]
    fn length_prefixes_cannot_claim_more_than_the_file_holds() {
        // A string claiming 2^33 bytes in a 10-byte payload (bincode
        // allocates a string's bytes before reading them).
        let mut body = vec![253u8];
        body.extend_from_slice(&(1u64 << 33).to_le_bytes());
        body.push(b'a');
        let err = decode_bounded::<String>(&body).unwrap_err();
        assert!(matches!(err, bincode::error::DecodeError::LimitExceeded), "{err}");
        // Within the limit but past the data: a clean end-of-input error.
        let mut body = vec![251u8];
        body.extend_from_slice(&1000u16.to_le_bytes());
        body.extend_from_slice(&[b'a'; 600]);
        let err = decode_bounded::<String>(&body).unwrap_err();
        assert!(matches!(err, bincode::error::DecodeError::UnexpectedEnd { .. }), "{err}");
        // Many small integers claim 8 bytes each from one byte: still fine.
        let v: Vec<u64> = (0..100_000).map(|i| i % 200).collect();
        let bytes = seal(Kind::Object, "t", &v);
        let (_, back): (String, Vec<u64>) = open(Kind::Object, &bytes, any).unwrap();
        assert_eq!(back, v);
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(open::<Vec<u32>>(Kind::Object, &bad, any), Err(FormatError::Corrupt { .. })));
    }

    /// The checksum in pieces is the checksum in one pass.
    #[test]
    fn checksum_in_pieces_is_one_pass() {
        let bytes: Vec<u8> =
            (0..(9u32 << 20) + 12345).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for n in [0, 1, 4 << 20, (4 << 20) + 1, bytes.len()] {
            assert_eq!(checksum(&bytes[..n]), crc32fast::hash(&bytes[..n]), "{n}");
        }
    }
}
