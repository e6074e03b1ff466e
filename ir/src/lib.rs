//! The graph IR of the toolchain: PIR in, a checked [`Graph`] out.
//!
//! PIR (`docs: PIR.md`) describes one Poplar-style graph program: the target
//! machine, tensors and their tile mapping, codelet files, compute sets of
//! vertices connected to tensor regions by edges, host I/O, and control
//! programs. This crate owns the data model ([`Graph`] and its entities in
//! typed arenas), the front end (a `logos` lexer, a `lalrpop` grammar building
//! a span-carrying syntax tree, and a hand-written lowering that expands
//! `for`, resolves names, evaluates index expressions, computes [`View`]s and
//! checks what can be checked without codelets), the canonical printer
//! ([`print`]) and a stable dump ([`dump`]).
//!
//! `ir` knows nothing about tiles' memory, codelet metadata or files: the
//! caller passes the source text in and gets a [`Module`] or [`Diagnostics`]
//! back.

pub mod entity;
pub mod graph;
pub mod target;
pub mod types;
pub mod view;

pub use entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use graph::*;
pub use target::{Preset, Target};
pub use types::ElemType;
pub use view::{Piece, Run, Subscript, View};
