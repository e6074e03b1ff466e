//! The typed ids of the compiler's own tables: tiles, exchange buffers,
//! the vertex types a graph uses and tensor copy phases (`copy`
//! statements have `ir`'s [`ir::CopyStmtId`]). Each is a newtyped `u32` made by `ir`'s `entity_id!`, so a
//! table keyed by one (`ir::PrimaryMap` for the arena that owns them,
//! `ir::SecondaryMap` for a side table) cannot be indexed by another, and
//! each prints the way the dumps spell it.

ir::entity_id!(
    /// A tile of the target, numbered across all IPUs (`tile 3`).
    TileId,
    "tile "
);
ir::entity_id!(
    /// An exchange buffer of [`crate::exchange::ExchangePlan::buffers`] (`b3`).
    BufferId,
    "b"
);
ir::entity_id!(
    /// A vertex type the graph uses, in order of first use: the image's
    /// vertex type index ([`crate::resolve::Resolved::types`]).
    VertexTypeId,
    "type "
);
ir::entity_id!(
    /// One phase of tensor copying: the image's copy index
    /// ([`crate::exchange::ExchangePlan::copies`], `copy3`).
    CopyId,
    "copy"
);
