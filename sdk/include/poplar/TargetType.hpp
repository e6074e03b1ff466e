// The kinds of target a graph can be built for.
#ifndef PRS_POPLAR_TARGETTYPE_HPP
#define PRS_POPLAR_TARGETTYPE_HPP

#include <string>

namespace poplar {

/// IPU: a device from the device manager (here a simulated IPU system);
/// IPU_MODEL: an IPUModel device; CPU: Device::createCPUDevice.
enum class TargetType { IPU, IPU_MODEL, CPU };

inline std::string toString(TargetType type) {
  switch (type) {
  case TargetType::IPU:
    return "IPU";
  case TargetType::IPU_MODEL:
    return "IPU_MODEL";
  case TargetType::CPU:
    return "CPU";
  }
  return "<invalid target type>";
}

} // namespace poplar

#endif
