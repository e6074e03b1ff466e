//! Lowering of one vertex's `compute` to Cranelift IR.
//!
//! Every user function, method and lambda call is inlined (recursion is
//! rejected), so one vertex type becomes one self-contained function with
//! the ABI of `linker::abi`. Values are tracked as [`V`]: constants fold as
//! they go, scalars are SSA values (`half` held as an `f32` that is always a
//! representable half), lvalues are [`Place`]s: Cranelift variables for
//! scalar locals, host stack memory for local arrays and structs, and tile
//! memory (always bounds-checked) for edges, state and pointers.
//!
//! This file holds those types and the lowerer's state; the work is spread
//! over one file per idea: `entry` (the vertex's entry function), `blocks`
//! (branches and their cost), `memory` (tile accesses and traps),
//! `convert` (scalar conversions), `inline` (calls inlined, scopes), `stmt`
//! (statements), `decl` (declarations), `expr` (expressions, with its
//! operators, places and built-ins), `call` (what a call names),
//! `statics` (names of objects in static storage), `virtuals` (virtual
//! calls) and `vectorize` (SIMD copies of elementwise loops).

mod blocks;
mod call;
mod convert;
mod decl;
mod entry;
mod expr;
pub mod half_ir;
mod inline;
mod memory;
mod statics;
mod stmt;
pub mod vectorize;
mod virtuals;

use std::rc::Rc;

use cranelift_codegen::ir::{self, types, AbiParam, Block, MemFlagsData, Signature, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

use crate::diag::SourceMap;
use crate::front::ast::*;
use crate::hash::HashMap;
use crate::sema::types::Scalar;
use crate::sema::{Env, Ty, Unit, CV};

/// What one entry function is generated with.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    /// The counting variant: add each block's cost to `TileCtx::count`.
    pub counting: bool,
    /// Line tables and trap lines.
    pub debug: bool,
    /// Give elementwise float loops a guarded SIMD copy ([`crate::lower::vectorize`]).
    pub vectorize: bool,
    /// Interruption checks at loop back edges ([`crate::Options::stop_checks`]).
    pub stop_checks: bool,
}

/// A lambda: its syntax, the scopes it captured, and its environment.
pub type LambdaVal = (Lambda, Vec<HashMap<String, V>>, Env);

#[derive(Clone, Copy, Debug)]
pub enum Place {
    Var(Variable),
    /// A 32-bit tile address.
    Tile(Value),
    /// A host address (the function's own stack).
    Host(Value),
}

#[derive(Clone, Debug)]
pub enum V {
    Void,
    C(Scalar, CV),
    R(Scalar, Value),
    /// Tile pointer value (i32) to the given type.
    Ptr(Ty, Value),
    /// The address of a local object (`&x`, a local array decayed,
    /// `reinterpret_cast<T *>(arr)`), known at compile time: locals live in
    /// Cranelift variables and the function's own stack, never in tile
    /// memory, so such a pointer is not a run-time value. It points at
    /// `place`, as a `ty`, with `room` bytes of the object from there on;
    /// it may be dereferenced, indexed, offset by constants, cast to
    /// another pointer type (in stack memory) and passed to functions,
    /// which all check `room` at compile time (a run-time index is checked
    /// like a local array's).
    Local {
        ty: Ty,
        place: Place,
        room: u32,
    },
    L(Ty, Place),
    Vec {
        elem: Scalar,
        addr: Value,
        count: Option<Value>,
    },
    List {
        elem: Scalar,
        addr: Value,
        count: Value,
    },
    EdgeS {
        elem: Scalar,
        addr: Value,
    },
    /// `Vector<Input<T>>`: the address of an array of element addresses,
    /// and its count when the layout stores one.
    Edges {
        elem: Scalar,
        addr: Value,
        count: Option<Value>,
    },
    Lambda(Rc<LambdaVal>),
    /// A function named as a value (`auto f = reduce<Op, T>;`): calling
    /// it calls the function by that name (a template-id keeps its
    /// explicit arguments).
    Func(Rc<Path>),
}

struct Frame {
    exit: Block,
    ret: Option<(Variable, Scalar)>,
    ret_ty: Ty,
    auto_ret: bool,
    scope_base: usize,
    /// How a value that is not a scalar comes back.
    ret_other: RetOther,
}

/// Returns other than scalars by value.
#[derive(Clone, Copy)]
enum RetOther {
    None,
    /// A class by value: copied into this host slot.
    Agg(Value),
    /// A pointer: the tile address, in this variable.
    Ptr(Variable),
    /// A reference: the address (tile as i32 zero-extended, or host) in
    /// this variable, and which memory, fixed by the first `return`.
    Ref(Variable, Option<bool>),
}

pub struct Lowerer<'a, 'b> {
    pub b: FunctionBuilder<'b>,
    pub p: &'a Unit,
    pub src: &'a SourceMap,
    pub counting: bool,
    pub debug: bool,
    pub(crate) vectorize: bool,
    pub(crate) stop_checks: bool,
    pub(crate) ctx: Value,
    pub(crate) mem: Value,
    pub(crate) mem_len: Value,
    pub(crate) count: Variable,
    pending: u64,
    /// Every cost added so far, flushed or not: the difference across a
    /// straight-line stretch of lowering is what that stretch counts.
    pub(crate) cost_total: u64,
    /// Nonzero while lowering code whose cost is already counted another
    /// way (a counted loop's step and test): `cost` adds nothing.
    pub(crate) uncounted: u32,
    /// Nonzero while lowering the body of an elementwise loop that is
    /// counted at its exit, per vector: `cost` adds to `cost_total` only.
    pub(crate) deferred: u32,
    trap: Block,
    pub(crate) line: u32,
    scopes: Vec<HashMap<String, V>>,
    fields: HashMap<String, V>,
    frames: Vec<Frame>,
    loops: Vec<(Block, Block)>,
    pub(crate) calls: Vec<String>,
    pub(crate) env: Env,
    next_base: Option<usize>,
    /// The object a method about to be inlined is called on (`this`).
    pub(crate) next_this: Option<V>,
    /// The reference members of helper-class objects, by the object's host
    /// address: bound by the constructor, visible as names in methods.
    pub(crate) obj_refs: HashMap<Value, Rc<HashMap<String, V>>>,
    /// Tile addresses of `Input` edge data and addresses derived from them
    /// (elements, pointer arithmetic, casts): a write through one is a
    /// compile error, never a silent change of a `const` tensor.
    pub(crate) readonly: crate::hash::HashSet<Value>,
    /// Pointer variables that have held such an address.
    pub(crate) readonly_vars: crate::hash::HashSet<usize>,
    /// For values rounded to half: the value before rounding, so a store
    /// converts it to half bits directly (the rounding is then often dead).
    half_src: HashMap<Value, Value>,
    /// The metadata address of each quarter edge, by the edge's address
    /// value (what `getMetadata()` returns).
    pub(crate) metadata: HashMap<Value, Value>,
    /// Straight-line region (a chain of bounds-check continuation blocks
    /// ending at `region`) in which the entries of `checked` and
    /// `addr_memo` are known to dominate the current position.
    pub(crate) region: Option<Block>,
    /// Tile addresses already bounds-checked in this region: the host
    /// address, the access size checked and the alignment checked (the
    /// size for a scalar of 2, 4 or 8 bytes, else 1).
    checked: HashMap<Value, (Value, u32, u32)>,
    /// Element addresses computed in this region, by (base, index, size).
    pub(crate) addr_memo: HashMap<(Value, Value, u32), Value>,
    /// Tile loads done in this region: (host address, type) to the load
    /// instruction and the value it gave (after any half conversion).
    load_memo: HashMap<(Value, Scalar), (ir::Inst, Value)>,
    /// For access sizes `2^k` = 1, 2, 4, 8, computed once at entry: the
    /// 32-bit limit `max(len - 2^k + 1, 0)` an address known aligned must
    /// be below (`len` the tile's length, at most 2^32 - 1).
    lims: [Value; 4],
    /// For sizes `2^k` = 2, 4, 8 (`slots[k - 1]`): the tile's whole
    /// aligned slots `len >> k`, which an address not known aligned,
    /// rotated right by `k`, must be below (see [`Lowerer::tile_addr`]).
    slots: [Value; 3],
    /// Tile addresses (i32 values) known to be multiples of a power of two
    /// greater than 1: edge data and vertex state, which the graph
    /// compiler lays out naturally aligned, and elements reached from
    /// them. An access there needs no alignment check. A fact about an
    /// SSA value, so it holds wherever the value is used.
    pub(crate) aligned: HashMap<Value, u32>,
    /// Cold stubs, one per (status, line), each taking the trap address
    /// and passing it on to `trap` with the constants: the hot path of a
    /// check then carries no constant block arguments. Ordered, so code
    /// is deterministic.
    trap_stubs: std::collections::BTreeMap<(u32, i64), Block>,
    /// Calls inlined so far into this entry function (see
    /// [`MAX_INLINED_CALLS`]).
    inlined: u32,
    /// The dynamic class of polymorphic objects made in this function, by
    /// their host address: a virtual call on one needs no dispatch.
    pub(crate) exact: HashMap<Value, Rc<crate::sema::ClassInst>>,
    /// Every polymorphic class an object of which this function has made
    /// so far (`virtuals`): the dynamic classes a virtual call may meet.
    pub(crate) dyn_classes: Vec<Rc<crate::sema::ClassInst>>,
}

/// Calls one vertex's entry function may inline, and Cranelift blocks it
/// may have. Every call is inlined, so code grows with the call tree, not
/// the source (a chain of functions each calling the previous one twice
/// doubles per level), and Cranelift's SSA construction needs memory in
/// variables times blocks: without bounds a 700-byte file needs
/// gigabytes. PopLibs' largest vertices inline 44 calls and have 367
/// blocks. Documented in ARCHITECTURE.md (popc, limits).
pub const MAX_INLINED_CALLS: u32 = 1024;
pub const MAX_BLOCKS: usize = 1 << 17;

/// The Cranelift type holding a scalar.
pub fn cl_pub(s: Scalar) -> ir::Type {
    cl(s)
}

fn cl(s: Scalar) -> ir::Type {
    match s {
        Scalar::Bool | Scalar::Char | Scalar::SChar | Scalar::UChar | Scalar::Quarter => types::I8,
        Scalar::Short | Scalar::UShort => types::I16,
        Scalar::Int | Scalar::UInt => types::I32,
        Scalar::Long | Scalar::ULong | Scalar::LongLong | Scalar::ULongLong => types::I64,
        Scalar::Half | Scalar::Float => types::F32,
        Scalar::Double => types::F64,
    }
}

fn mflags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// The signature of every vertex entry.
pub fn entry_signature(multi: bool) -> Signature {
    let mut sig = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I32));
    if multi {
        sig.params.push(AbiParam::new(types::I32));
    }
    sig.returns.push(AbiParam::new(types::I32));
    sig
}
