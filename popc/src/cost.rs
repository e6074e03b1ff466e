//! The instruction cost table of the counting code variant.
//!
//! The counting variant adds, once per basic block, the sum of the costs of
//! the operations the source asked for in that block to `TileCtx::count`.
//! The sandbox's own work (bounds checks, trap branches, the counting
//! itself) is not counted. Array indexing `v[i]` costs no address
//! arithmetic: the IPU's loads and stores take a base register plus an
//! index register (or post-increment the base), so only the load or store
//! is counted. `runtime/src/cost.rs` holds the rest of the cost model. The figures
//! model an IPU worker issuing one instruction per operation, with division
//! and transcendental functions expanding to instruction sequences.

/// Entering a vertex: the call from the supervisor, the return and the
/// status word. The tutorials' own estimates charge 5 fixed cycles per
/// vertex (`5 + (n + 1) / 2` for a dot product of `n` elements).
pub const VERTEX_ENTRY: u64 = 5;
/// Loading one 32-bit word of vertex state (an edge's address or count) at entry.
pub const STATE_WORD: u64 = MEMORY;
/// One trip of a counted loop (`for (i = a; i < n; ++i)`): the IPU's
/// `brnzdec` decrements the trip count and branches in one instruction, so
/// the increment, the test and the branch back cost this one cycle.
pub const COUNTED_LOOP_TRIP: u64 = 1;

/// Integer or float add, subtract, multiply, bitwise op, shift, negation.
pub const ARITH: u64 = 1;
/// A comparison (its result feeding a branch or a value).
pub const COMPARE: u64 = 1;
/// A load or store of tile memory or of a local in memory (an array, or a
/// scalar whose address is taken). Scalar locals live in registers, as a
/// tile compiler would keep them, and cost nothing to read or write.
pub const MEMORY: u64 = 1;
/// A taken or untaken conditional branch, or a jump.
pub const BRANCH: u64 = 1;
/// A conversion between types (int/float, float/half).
pub const CONVERT: u64 = 1;
/// Integer division or remainder.
pub const DIV_INT: u64 = 12;
/// Floating-point division.
pub const DIV_FLOAT: u64 = 8;
/// Square root.
pub const SQRT: u64 = 10;
/// `exp`, `log`, `sin`, `pow`, `erf` and the other host maths functions.
pub const TRANSCENDENTAL: u64 = 20;
/// `fabs`, `floor`, `ceil`, `trunc`, `fmin`, `fmax`, `copysign`, min/max.
pub const SIMPLE_MATH: u64 = 1;
/// A call of `printf` (formatting is on the host; this is the call).
pub const PRINTF: u64 = 50;
/// `memcpy`/`memset`: per byte moved.
pub const MEM_PER_BYTE: u64 = 1;
