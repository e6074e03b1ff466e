// How the IPUs of a system are wired (the target option ipuLinkTopology).
#ifndef PRS_POPLAR_IPULINKTOPOLOGY_HPP
#define PRS_POPLAR_IPULINKTOPOLOGY_HPP

namespace poplar {

/// Mesh: a ladder of rungs of two IPUs; Torus: a ladder whose top and
/// bottom rungs are linked; Line: a line of IPUs.
enum class IpuLinkTopology { Mesh, Torus, Line };

} // namespace poplar

#endif
