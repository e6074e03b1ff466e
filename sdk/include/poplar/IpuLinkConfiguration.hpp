// Which IPUs an IPU may send to over its IPU-Links (the target option
// ipuLinkConfiguration; docs/scale-out.md, "IPU-Links").
#ifndef PRS_POPLAR_IPULINKCONFIGURATION_HPP
#define PRS_POPLAR_IPULINKCONFIGURATION_HPP

namespace poplar {

/// Default: fixedWindow (every other IPU, up to 16); SlidingWindow: three
/// rungs up and four down the ladder; BarleyTwist: the nearest neighbours
/// at twice the bandwidth.
enum class IpuLinkConfiguration { Default, SlidingWindow, BarleyTwist };

} // namespace poplar

#endif
