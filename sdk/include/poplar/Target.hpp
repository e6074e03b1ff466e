// A target's figures: tiles, workers, memory, exchange bandwidth, clock.
//
// A plain value holding the C ABI's prs_target_desc. Host programs read
// these figures while building graphs (tutorial 6 derives its cost model
// from them), so they must be the presets' exact numbers.
#ifndef PRS_POPLAR_TARGET_HPP
#define PRS_POPLAR_TARGET_HPP

#include <poplar/IpuLinkConfiguration.hpp>
#include <poplar/IpuLinkTopology.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/TargetType.hpp>
#include <poplar/Type.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace poplar {

class Target {
public:
  /// An empty target (no tiles), to be assigned.
  Target() { std::memset(&desc_, 0, sizeof desc_); }
  /// The target these figures describe (for the project's headers).
  explicit Target(const prs_target_desc &desc) : desc_(desc) {}

  /// A target for Device::createCPUDevice.
  static Target createCPUTarget(bool accurateHalf = false, unsigned numIPUs = 1) {
    (void)accurateHalf;
    Target target = preset("cpu");
    target.desc_.type = PRS_TARGET_CPU;
    target.desc_.num_ipus = numIPUs;
    return target;
  }

  /// A target of `numIPUs` IPUs of an architecture ("ipu1", "ipu2", "ipu21").
  /// `opts` takes Poplar's IPU-Link options (ipuLinkTopology,
  /// ipuLinkConfiguration, syncConfiguration); POPLAR_TARGET_OPTIONS, a
  /// JSON object of them, overrides `opts` as in the SDK.
  static Target createIPUTarget(unsigned numIPUs, StringRef systemType, const OptionFlags &opts = {}) {
    Target target = preset(systemType.cloneAsString());
    target.desc_.type = PRS_TARGET_IPU;
    target.desc_.num_ipus = numIPUs;
    for (const auto &kv : opts)
      detail::check(prs_target_set_option(&target.desc_, kv.first.c_str(), kv.second.c_str()));
    detail::check(prs_target_env_options(&target.desc_));
    return target;
  }
  static Target createIPUTarget(StringRef systemType, const OptionFlags &opts = {}) {
    return createIPUTarget(1, systemType, opts);
  }
  static Target createIPUTarget(unsigned numIPUs, unsigned tilesPerIPU, StringRef systemType,
                                const OptionFlags &opts = {}) {
    Target target = createIPUTarget(numIPUs, systemType, opts);
    target.desc_.tiles_per_ipu = tilesPerIPU;
    return target;
  }

  TargetType getTargetType() const {
    switch (desc_.type) {
    case PRS_TARGET_IPU_MODEL:
      return TargetType::IPU_MODEL;
    case PRS_TARGET_CPU:
      return TargetType::CPU;
    default:
      return TargetType::IPU;
    }
  }
  std::string getTargetArchString() const { return desc_.arch; }
  std::string getTargetSystemString() const { return desc_.arch; }

  unsigned getNumIPUs() const { return desc_.num_ipus; }
  unsigned getTilesPerIPU() const { return desc_.tiles_per_ipu; }
  unsigned getNumTiles() const { return desc_.num_ipus * desc_.tiles_per_ipu; }
  unsigned getNumWorkerContexts() const { return desc_.workers; }
  unsigned getBytesPerTile() const { return desc_.bytes_per_tile; }
  std::uint64_t getMemoryBytes() const { return std::uint64_t(desc_.bytes_per_tile) * getNumTiles(); }
  unsigned getExchangeBytesPerCycle() const { return desc_.exchange_bytes_per_cycle; }
  double getTileClockFrequency() const { return desc_.clock_hz; }

  IpuLinkTopology getIpuLinkTopology() const { return static_cast<IpuLinkTopology>(desc_.link_topology); }
  /// The configuration in force: the one set, else Poplar's choice
  /// (fixedWindow up to 16 IPUs, slidingWindow above).
  IpuLinkConfiguration getIpuLinkConfiguration() const {
    if (desc_.link_configuration >= 0)
      return static_cast<IpuLinkConfiguration>(desc_.link_configuration);
    return desc_.num_ipus <= 16 ? IpuLinkConfiguration::Default : IpuLinkConfiguration::SlidingWindow;
  }

  /// Bytes of one element of `type` on the device.
  unsigned getTypeSize(const Type &type) const {
    switch (type.abiTag()) {
    case PRS_BOOL:
    case PRS_CHAR:
    case PRS_SIGNED_CHAR:
    case PRS_UNSIGNED_CHAR:
    case PRS_QUARTER:
      return 1;
    case PRS_SHORT:
    case PRS_UNSIGNED_SHORT:
    case PRS_HALF:
      return 2;
    case PRS_INT:
    case PRS_UNSIGNED_INT:
    case PRS_FLOAT:
      return 4;
    case PRS_LONGLONG:
    case PRS_UNSIGNED_LONGLONG:
    case PRS_DOUBLE:
      return 8;
    default:
      throw poplar_error("Target::getTypeSize: invalid type");
    }
  }

  /// Bits the tile's data path moves per cycle (64 on every IPU).
  unsigned getDataPathWidth() const { return 64; }
  /// Elements of `type` in one data path's width: 4 for half, 2 for float.
  unsigned getVectorWidth(const Type &type) const {
    unsigned width = getDataPathWidth() / 8 / getTypeSize(type);
    return width == 0 ? 1 : width;
  }
  unsigned getFloatVectorWidth() const { return getVectorWidth(FLOAT); }
  unsigned getHalfVectorWidth() const { return getVectorWidth(HALF); }

  /// The C ABI description (for the project's headers).
  const prs_target_desc &desc() const { return desc_; }

private:
  static Target preset(const std::string &arch) {
    prs_target_desc desc;
    detail::check(prs_target_preset(arch.c_str(), &desc));
    return Target(desc);
  }

  prs_target_desc desc_;
};

} // namespace poplar

#endif
