// A device engines run on: the IPU model, a simulated IPU from the device
// manager, or the CPU.
//
// Move-only, as in the SDK. attach/detach are const members because
// programs call them on `const Device &` (std::find_if over a vector of
// devices).
#ifndef PRS_POPLAR_DEVICE_HPP
#define PRS_POPLAR_DEVICE_HPP

#include <poplar/OptionFlags.hpp>
#include <poplar/Target.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <utility>

namespace poplar {

class Device {
public:
  /// No device, to be assigned.
  Device() : device_(nullptr) {}
  /// Takes ownership of a C ABI device (for the project's headers).
  explicit Device(prs_device *owned) : device_(owned) {
    prs_target_desc desc;
    int status = prs_device_target(device_, &desc);
    if (status != PRS_OK) {
      reset();
      detail::throwStatus(status);
    }
    target_ = Target(desc);
  }

  Device(Device &&other) noexcept : device_(other.device_), target_(other.target_) { other.device_ = nullptr; }
  Device &operator=(Device &&other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      target_ = other.target_;
      other.device_ = nullptr;
    }
    return *this;
  }
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  virtual ~Device() { reset(); }

  /// A device that runs programs on the host's CPU.
  static Device createCPUDevice(unsigned numIPUs = 1) {
    (void)numIPUs;
    prs_device *d = nullptr;
    detail::check(prs_device_new_cpu(&d));
    return Device(d);
  }
  /// A simulated device for any target.
  static Device createSimulatorDevice(const Target &target, const OptionFlags &opts = {}) {
    (void)opts;
    prs_device *d = nullptr;
    detail::check(prs_device_new_model(&target.desc(), &d));
    return Device(d);
  }

  unsigned getId() const { return prs_device_id(handle()); }
  const Target &getTarget() const {
    handle();
    return target_;
  }

  /// Takes the device for this process; false when another process has it.
  bool attach() const {
    int ok = 0;
    detail::check(prs_device_attach(handle(), &ok));
    return ok != 0;
  }
  void detach() const { detail::check(prs_device_detach(handle())); }
  bool isAttached() const { return prs_device_is_attached(handle()) != 0; }

  /// The C ABI device (for the project's headers); throws for no device.
  prs_device *handle() const {
    if (device_ == nullptr)
      throw poplar_error("this Device object holds no device (default-constructed or moved from)");
    return device_;
  }

private:
  void reset() {
    if (device_ != nullptr)
      prs_device_free(device_);
    device_ = nullptr;
  }

  prs_device *device_;
  Target target_;
};

} // namespace poplar

#endif
