//! The codelet object format (`.gp`), written by `popc` and read by
//! `poplar-compile`.
//!
//! A `.gp` holds, for each vertex type (one per template instantiation), the
//! metadata the graph compiler needs to lay out vertex state and check edges
//! ([`VertexType`], [`Field`]) and the machine code of its `compute` in two
//! variants: plain, and counting (which adds instruction costs to
//! `TileCtx::count`, see [`crate::abi`]). Code is position independent; its
//! only relocations are calls to libcalls that Cranelift itself emits
//! ([`Reloc`]), resolved by the loader.

use serde::{Deserialize, Serialize};

use crate::container::{self, FormatError, Kind};

/// The whole object file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Object {
    /// Source file the object was compiled from (as given to `popc`).
    pub source: String,
    pub vertex_types: Vec<VertexType>,
}

/// Which Poplar base class a vertex type derives from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VertexBase {
    /// `poplar::Vertex`: `compute()` once.
    Vertex,
    /// `poplar::MultiVertex`: `compute(workerId)` once per worker.
    MultiVertex,
    /// `poplar::SupervisorVertex`: `compute()` once, occupying the tile.
    Supervisor,
}

/// Scalar element types, as Poplar names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ElemType {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
    /// Poplar's 8-bit float; its format and scale come from metadata
    /// ([`crate::quarter`]), so an edge of quarters also carries the
    /// address of its metadata byte.
    Quarter,
}

impl ElemType {
    pub fn size(self) -> u32 {
        match self {
            ElemType::Bool | ElemType::Char | ElemType::UChar | ElemType::Quarter => 1,
            ElemType::Short | ElemType::UShort | ElemType::Half => 2,
            ElemType::Int | ElemType::UInt | ElemType::Float => 4,
            ElemType::Long | ElemType::ULong | ElemType::Double => 8,
        }
    }
}

/// Direction of an edge field; plain state fields have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    Input,
    Output,
    InOut,
}

/// The state encoding of a vector field (docs/codelets.md, "The ABI"). Only `Span` stores a
/// count; the others store one address and get their length from the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Layout {
    Span,
    OnePtr,
    ShortSpan,
    CompactPtr,
    ScaledPtr32,
    ScaledPtr64,
    ScaledPtr128,
    DeltaN,
    DeltaNElements,
    /// Poplar's packed form of `DELTAN`; popc encodes every list layout alike.
    CompactDeltaN,
}

/// What a field is, and so how it is encoded in the vertex state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldKind {
    /// `Input<T>` etc.: one element; state holds its u32 tile address.
    Scalar,
    /// `Input<Vector<T, L>>`: state holds (u32 address, u32 count) for
    /// [`Layout::Span`]-like layouts, or one u32 address otherwise.
    Vector(Layout),
    /// `Vector<Input<Vector<T>>>` / `VectorList<T, L>`: state holds (u32
    /// address of an array of (u32 address, u32 count) pairs, u32 count).
    VectorList(Layout),
    /// A plain member (`unsigned n;`), stored by value in the state.
    Plain,
    /// `Vector<Input<T>, L>`: a list of one-element edges; state holds the
    /// u32 address of an array of u32 element addresses, then, for
    /// [`Layout::Span`]-like layouts, the u32 count.
    ScalarList(Layout),
}

/// One field of a vertex type, in declaration order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    /// `None` for plain fields.
    pub direction: Option<Direction>,
    pub elem: ElemType,
    pub kind: FieldKind,
    /// Byte offset in the vertex state.
    pub offset: u32,
    /// Bytes this field occupies in the state.
    pub size: u32,
    /// `const` plain member (cannot be written by compute).
    pub is_const: bool,
}

/// One vertex type: metadata and code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VertexType {
    /// As Poplar names it: `SumVertex`, `popops::ScaledAdd<float,true>`.
    pub name: String,
    pub base: VertexBase,
    pub fields: Vec<Field>,
    /// Bytes of vertex state, and its alignment.
    pub state_size: u32,
    pub state_align: u32,
    /// Bytes of tile stack one worker needs for this compute.
    pub stack_size: u32,
    /// Whether `compute` returns `bool` (false means failure).
    pub returns_bool: bool,
    pub plain: Function,
    pub counting: Function,
    /// Source line of the class definition.
    pub line: u32,
}

/// Machine code of one function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    pub code: Vec<u8>,
    pub relocs: Vec<Reloc>,
    /// With `-g`: (code offset, source line) pairs sorted by offset, for trap
    /// reports. Empty without `-g`.
    pub lines: Vec<(u32, u32)>,
}

/// A place in a function's code to patch at load time with the absolute
/// address of a host symbol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reloc {
    /// Byte offset of the 8-byte little-endian absolute address to patch.
    pub offset: u32,
    /// The libcall (`fmaf`, `ceilf`, `memcpy`, …) whose address goes there.
    pub symbol: String,
    pub addend: i64,
}

/// The header's target string for code of this machine: architecture plus
/// the baseline ISA level code is generated for.
pub fn host_target() -> String {
    format!("{}-{} {}", std::env::consts::ARCH, std::env::consts::OS, baseline_isa())
}

/// The fixed baseline ISA generated code may use.
pub fn baseline_isa() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "x86-64-v2"
    } else {
        "base"
    }
}

impl Object {
    pub fn to_bytes(&self) -> Vec<u8> {
        container::seal(Kind::Object, &host_target(), self)
    }

    /// Reads and validates an object produced for this machine.
    pub fn from_bytes(bytes: &[u8]) -> Result<Object, FormatError> {
        let (_, object): (String, Object) = container::open(Kind::Object, bytes, Some(&host_target()))?;
        object.validate()?;
        Ok(object)
    }

    /// Checks internal consistency: fields inside the state, relocations and
    /// line entries inside the code.
    pub fn validate(&self) -> Result<(), FormatError> {
        let corrupt = |detail: String| FormatError::Corrupt { what: Kind::Object.describe(), detail };
        for vt in &self.vertex_types {
            if vt.state_align == 0 || !vt.state_align.is_power_of_two() || vt.state_align > 64 {
                return Err(corrupt(format!(
                    "vertex type '{}' has state alignment {}",
                    vt.name, vt.state_align
                )));
            }
            for f in &vt.fields {
                if f.offset.checked_add(f.size).is_none_or(|end| end > vt.state_size) {
                    return Err(corrupt(format!(
                        "field '{}.{}' lies outside the vertex state",
                        vt.name, f.name
                    )));
                }
            }
            for func in [&vt.plain, &vt.counting] {
                for r in &func.relocs {
                    if r.offset as usize + 8 > func.code.len() {
                        return Err(corrupt(format!("relocation outside the code of '{}'", vt.name)));
                    }
                }
                if func.code.is_empty() {
                    return Err(corrupt(format!("vertex type '{}' has no code", vt.name)));
                }
            }
        }
        Ok(())
    }
}
