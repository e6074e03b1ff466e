//! The front end: text to syntax tree. The preprocessor ([`pp`]) runs over
//! [`lex`] tokens, expanding macros and including headers (the built-in
//! Poplar headers come from [`headers`]); the parser ([`parse`]) builds the
//! syntax tree of [`ast`]. Nothing here knows what a name means.

pub mod ast;
pub mod headers;
pub mod lex;
pub mod parse;
pub mod pp;
pub mod vector_types;
