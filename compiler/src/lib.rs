//! compiler
