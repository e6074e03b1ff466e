//! popc
