// The device manager: the IPU systems a program can attach to.
//
// Here it lists the library's simulated IPU devices (ids 0, 1, ...), so
// programs written for real IPU systems, which only ever ask the device
// manager for TargetType::IPU devices, run unchanged.
#ifndef PRS_POPLAR_DEVICEMANAGER_HPP
#define PRS_POPLAR_DEVICEMANAGER_HPP

#include <poplar/Device.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/TargetType.hpp>
#include <poplar/capi.h>
#include <poplar/detail/TransitiveIncludes.hpp>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <vector>

namespace poplar {

class DeviceManager {
public:
  DeviceManager() {}
  static DeviceManager createDeviceManager() { return DeviceManager(); }

  /// The devices of `type` with `requiredNumIPUs` IPUs, in id order. Only
  /// TargetType::IPU devices are managed; other types give an empty list.
  std::vector<Device> getDevices(TargetType type, unsigned requiredNumIPUs, const OptionFlags &opts = {}) const {
    (void)opts;
    std::vector<Device> devices;
    if (type != TargetType::IPU)
      return devices;
    size_t *ids = nullptr;
    size_t n = 0;
    detail::check(prs_device_manager_find(requiredNumIPUs, &ids, &n));
    std::vector<size_t> idList(ids, ids + n);
    prs_sizes_free(ids, n);
    for (size_t id : idList)
      devices.push_back(getDevice(static_cast<unsigned>(id)));
    return devices;
  }

  /// Every managed device, in id order.
  std::vector<Device> getDevices() const {
    std::vector<Device> devices;
    for (std::size_t id = 0, n = getNumDevices(); id < n; ++id)
      devices.push_back(getDevice(static_cast<unsigned>(id)));
    return devices;
  }

  std::size_t getNumDevices() const {
    size_t n = 0;
    detail::check(prs_device_manager_count(&n));
    return n;
  }

  Device getDevice(unsigned deviceManagerId, const OptionFlags &opts = {}) const {
    (void)opts;
    prs_device *d = nullptr;
    detail::check(prs_device_manager_get(deviceManagerId, &d));
    return Device(d);
  }
};

} // namespace poplar

#endif
