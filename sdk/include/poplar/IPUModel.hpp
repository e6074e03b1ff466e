// The IPU model: a simulated IPU whose figures the program may change
// before creating the device.
//
// The constructor reads the architecture's preset; createDevice passes the
// (possibly edited) public fields to the library.
#ifndef PRS_POPLAR_IPUMODEL_HPP
#define PRS_POPLAR_IPUMODEL_HPP

#include <poplar/Device.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Target.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <cstring>
#include <limits>
#include <string>

namespace poplar {

struct IPUModel {
  enum class RelativeSyncDelayType { AUTO, NO_DELAY };

  /// The figures of an architecture: "ipu1" (Mk1), "ipu2" (Mk2), "ipu21".
  explicit IPUModel(const char *ipuVersion = "ipu2") {
    prs_target_desc desc;
    detail::check(prs_target_preset(ipuVersion, &desc));
    IPUVersion = ipuVersion;
    numIPUs = desc.num_ipus;
    tilesPerIPU = desc.tiles_per_ipu;
    numWorkerContexts = desc.workers;
    memoryBytesPerTile = desc.bytes_per_tile;
    tileClockFrequency = desc.clock_hz;
    exchangeBytesPerCycle = desc.exchange_bytes_per_cycle;
    presetSyncCycles_ = desc.sync_cycles;
  }

  std::string IPUVersion;
  unsigned numIPUs;
  unsigned tilesPerIPU;
  unsigned numWorkerContexts;
  unsigned memoryBytesPerTile;
  double tileClockFrequency;
  unsigned exchangeBytesPerCycle;
  /// With relativeSyncDelay = NO_DELAY, 0 removes the modelled sync delay.
  unsigned minIPUSyncDelay = 0;
  RelativeSyncDelayType relativeSyncDelay = RelativeSyncDelayType::AUTO;
  /// Accepted; codelets always run as compiled host code here.
  bool compileIPUCode = false;

  /// The target the fields describe.
  Target createTarget(const OptionFlags &opts = {}, bool accurateHalf = false) const {
    (void)opts;
    (void)accurateHalf;
    prs_target_desc desc;
    std::memset(&desc, 0, sizeof desc);
    desc.type = PRS_TARGET_IPU_MODEL;
    IPUVersion.copy(desc.arch, sizeof desc.arch - 1); // stays NUL-terminated
    desc.num_ipus = numIPUs;
    desc.tiles_per_ipu = tilesPerIPU;
    desc.bytes_per_tile = memoryBytesPerTile;
    desc.workers = numWorkerContexts;
    desc.exchange_bytes_per_cycle = exchangeBytesPerCycle;
    bool noDelay = relativeSyncDelay == RelativeSyncDelayType::NO_DELAY && minIPUSyncDelay == 0;
    desc.sync_cycles = noDelay ? 0 : presetSyncCycles_;
    desc.clock_hz = tileClockFrequency;
    return Target(desc);
  }

  Device createDevice(OptionFlags opts = {}, bool accurateHalf = false,
                      unsigned deviceManagerId = std::numeric_limits<unsigned>::max()) const {
    (void)deviceManagerId;
    Target target = createTarget(opts, accurateHalf);
    prs_device *d = nullptr;
    detail::check(prs_device_new_model(&target.desc(), &d));
    return Device(d);
  }

private:
  unsigned presetSyncCycles_;
};

} // namespace poplar

#endif
