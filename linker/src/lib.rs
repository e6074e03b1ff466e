//! linker
