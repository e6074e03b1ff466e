// What a program::Sync waits for.
#ifndef PRS_POPLAR_SYNCTYPE_HPP
#define PRS_POPLAR_SYNCTYPE_HPP

namespace poplar {

/// INTERNAL: the tiles of each IPU; EXTERNAL: every IPU and the host;
/// GLOBAL: every IPU.
enum class SyncType { INTERNAL, EXTERNAL, GLOBAL };

} // namespace poplar

#endif
