//! The codelet object format (`.gp`), written by `popc` and read by
//! `poplar-compile`.
//!
//! A `.gp` holds, for each vertex type (one per template instantiation), the
//! metadata the graph compiler needs to lay out vertex state and check edges
//! ([`VertexType`], [`Field`]) and the machine code of its `compute` in two
//! variants: plain, and counting (which adds instruction costs to
//! `TileCtx::count`, see [`crate::abi`]). Code is position independent; its
//! only relocations are calls to libcalls that Cranelift itself emits
//! ([`Reloc`]), resolved by the loader. An object's static storage
//! ([`Statics`]) is placed in tile memory by the graph compiler; code
//! reaches it through `TileCtx::statics`.

use serde::{Deserialize, Serialize};

use crate::container::{self, FormatError, Kind};

/// The whole object file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Object {
    /// Source file the object was compiled from (as given to `popc`).
    pub source: String,
    pub vertex_types: Vec<VertexType>,
    /// The object's static storage, shared by all its vertex types.
    pub statics: Statics,
    /// The ISA level its code was generated at: written in the header
    /// (`to_bytes`), not the payload, and read back from it.
    #[serde(skip)]
    pub isa: crate::isa::Level,
}

/// The static storage of a codelet object: its vertex classes'
/// non-constant static data members, laid out one after another. Every
/// tile that runs code of the object holds its own copy, at the same tile
/// address on each, initialised to `init` when the image is loaded and
/// kept from run to run (what the IPU does with a codelet's data).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Statics {
    /// The initial bytes; their length is the storage's size.
    #[serde(with = "crate::bytes")]
    pub init: Vec<u8>,
    /// Alignment of the storage's start, a power of two of at most 8 (1 when empty).
    pub align: u32,
}

impl Default for Statics {
    /// None: no bytes, aligned to 1.
    fn default() -> Statics {
        Statics { init: Vec::new(), align: 1 }
    }
}

/// The most static storage one object may have, in bytes.
pub const MAX_STATICS: usize = 1 << 20;

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

/// Scalar element types: the shared vocabulary's, serialised by variant
/// index (their order is part of this format).
pub use vocab::ElemType;

/// The largest `MinAlign` a vector edge may ask for, in bytes.
pub const MAX_MIN_ALIGN: u32 = 4096;

/// Direction of an edge field; plain state fields have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    Input,
    Output,
    InOut,
}

/// The state encoding of a vector field (docs/codelets.md, "The ABI"). Only `Span` and
/// `ShortSpan` store a count ([`Layout::stores_count`]); the others store one address and get
/// their length from the graph.
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

impl Layout {
    /// Whether a vector (or vector of one-element edges) of this layout
    /// stores its item count in the state after its address; the others
    /// get their length from the graph.
    pub fn stores_count(self) -> bool {
        matches!(self, Layout::Span | Layout::ShortSpan)
    }
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

/// The vertex-state encoding of edge fields, defined once: `popc` lays
/// fields out with [`FieldKind::state_size`] and its code reads them at
/// these offsets, `poplar-compile` and `popc`'s test harness write them.
/// An edge field is its u32 address (of the data, or of a descriptor
/// array), at offset [`FieldKind::COUNT_OFFSET`] its u32 item count where
/// [`FieldKind::stores_count`], and last, for a `quarter` edge, the u32
/// address of its metadata byte ([`metadata_size`]).
impl FieldKind {
    /// Where an edge's item count lies in its state, when it has one.
    pub const COUNT_OFFSET: u32 = 4;

    /// Whether the state holds the edge's item count after its address.
    pub fn stores_count(self) -> bool {
        match self {
            FieldKind::Vector(l) | FieldKind::ScalarList(l) => l.stores_count(),
            FieldKind::VectorList(_) => true,
            FieldKind::Scalar | FieldKind::Plain => false,
        }
    }

    /// Bytes an edge field of `elem` takes in the vertex state (a plain
    /// field takes its type's size, which C++ decides).
    pub fn state_size(self, elem: ElemType) -> u32 {
        4 + if self.stores_count() { 4 } else { 0 } + metadata_size(elem, self)
    }
}

/// Bytes an edge field of `elem` adds to the state after its address (and
/// count): the address of its metadata byte for `quarter`, none otherwise.
pub fn metadata_size(elem: ElemType, kind: FieldKind) -> u32 {
    if elem == ElemType::Quarter && kind != FieldKind::Plain {
        4
    } else {
        0
    }
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
    /// The alignment in bytes a vector edge's data must have
    /// (`Vector<T, L, MinAlign>`) when more than its element's size; else 0.
    /// `poplar-compile` places the data so.
    pub min_align: u32,
}

impl Field {
    /// Where the field's item count lies in the state, from the field's
    /// offset, when it stores one.
    pub fn count_offset(&self) -> Option<u32> {
        self.kind.stores_count().then_some(FieldKind::COUNT_OFFSET)
    }

    /// Where a `quarter` edge's metadata address lies in the state, from
    /// the field's offset.
    pub fn metadata_offset(&self) -> Option<u32> {
        let md = metadata_size(self.elem, self.kind);
        (md > 0).then(|| self.size - md)
    }
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
    #[serde(with = "crate::bytes")]
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

impl Object {
    pub fn to_bytes(&self) -> Vec<u8> {
        container::seal(Kind::Object, &self.isa.target(), self)
    }

    /// Reads and validates an object produced for this machine.
    pub fn from_bytes(bytes: &[u8]) -> Result<Object, FormatError> {
        let (target, mut object): (String, Object) =
            container::open(Kind::Object, bytes, crate::isa::runs_here)?;
        object.isa = crate::isa::Level::of_target(&target).unwrap_or_default();
        object.validate()?;
        Ok(object)
    }

    /// Checks internal consistency: fields inside the state, relocations and
    /// line entries inside the code.
    pub fn validate(&self) -> Result<(), FormatError> {
        let corrupt = |detail: String| FormatError::Corrupt { what: Kind::Object.describe(), detail };
        let st = &self.statics;
        if !st.align.is_power_of_two() || st.align > 8 || st.init.len() > MAX_STATICS {
            return Err(corrupt(format!(
                "static storage of {} bytes aligned to {}",
                st.init.len(),
                st.align
            )));
        }
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
                // Writers put an edge's count and metadata address at the
                // offsets its kind gives, so its size must be that kind's.
                if f.kind != FieldKind::Plain && f.size != f.kind.state_size(f.elem) {
                    return Err(corrupt(format!(
                        "edge field '{}.{}' has {} bytes of state, its kind takes {}",
                        vt.name,
                        f.name,
                        f.size,
                        f.kind.state_size(f.elem)
                    )));
                }
                if f.min_align != 0 && (!f.min_align.is_power_of_two() || f.min_align > MAX_MIN_ALIGN) {
                    return Err(corrupt(format!(
                        "field '{}.{}' asks for alignment {}",
                        vt.name, f.name, f.min_align
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The element type is serialised by variant index: the shared enum
    /// must keep the order `.gp` and `prog.exe` files of this format
    /// version were written with.
    #[test]
    fn element_types_keep_their_format_indices() {
        let config = bincode::config::standard();
        for (i, t) in ElemType::ALL.into_iter().enumerate() {
            assert_eq!(bincode::serde::encode_to_vec(t, config).unwrap(), [i as u8], "{t}");
        }
        assert_eq!(ElemType::ALL[11], ElemType::Double);
        assert_eq!(ElemType::ALL[12], ElemType::Quarter);
    }

    #[test]
    fn edge_state_sizes() {
        let f = |kind: FieldKind| kind.state_size(ElemType::Float);
        assert_eq!(f(FieldKind::Scalar), 4);
        assert_eq!(f(FieldKind::Vector(Layout::Span)), 8);
        assert_eq!(f(FieldKind::Vector(Layout::OnePtr)), 4);
        assert_eq!(f(FieldKind::ScalarList(Layout::ShortSpan)), 8);
        assert_eq!(f(FieldKind::VectorList(Layout::DeltaN)), 8);
        assert_eq!(FieldKind::ScalarList(Layout::Span).state_size(ElemType::Quarter), 12);
        let field = Field {
            name: "x".into(),
            direction: Some(Direction::Input),
            elem: ElemType::Quarter,
            kind: FieldKind::Vector(Layout::OnePtr),
            offset: 0,
            size: 8,
            is_const: false,
            min_align: 0,
        };
        assert_eq!((field.count_offset(), field.metadata_offset()), (None, Some(4)));
    }
}
