//! Devices: the IPU Model and CPU devices a program creates, and the
//! devices of the simulated IPU system `DeviceManager` lends
//! ([`crate::system`]: its IPUs, partitions and lock files).
//!
//! Like a Poplar system, the IPUs a process sees (its partition's, or the
//! whole system's) are listed as one device per IPU (ids `0..n`), then
//! devices of 2, 4, 8, … consecutive IPUs. `attach` takes the lock file of
//! every IPU with `flock`, so a device is held by one process at a time
//! and the kernel releases it when the process ends, however it ends.

use std::fs::File;

use runtime::DeviceKind;

use crate::status::{guard, ApiError, Result, Status};
use crate::system;
use crate::target::{TargetDesc, TARGET_CPU, TARGET_IPU, TARGET_IPU_MODEL};
use crate::{free, handle, handle_mut, put, put_box, sizes_out};

/// A device handle (`prs_device`).
#[derive(Debug)]
pub struct Device {
    pub desc: TargetDesc,
    pub kind: DeviceKind,
    /// The device manager's id (`u32::MAX` for model and CPU devices).
    pub id: u32,
    /// The IPUs of the system it spans (manager devices).
    ipus: std::ops::Range<u32>,
    /// The held locks while attached.
    locks: Vec<File>,
    /// Model and CPU devices are always usable; manager devices once attached.
    attached: bool,
}

impl Device {
    /// `IPUModel(...).createDevice()` for the target `desc` describes.
    pub fn ipu_model(mut desc: TargetDesc) -> Result<Device> {
        desc.to_target()?;
        desc.kind = TARGET_IPU_MODEL;
        Ok(Device {
            desc,
            kind: DeviceKind::Sim,
            id: u32::MAX,
            ipus: 0..0,
            locks: Vec::new(),
            attached: true,
        })
    }

    /// `Device::createCPUDevice()`: runs on the `cpu` device.
    pub fn cpu() -> Device {
        let desc = TargetDesc::from_target(&ir::Target::preset(ir::Preset::Cpu), TARGET_CPU);
        Device { desc, kind: DeviceKind::Cpu, id: u32::MAX, ipus: 0..0, locks: Vec::new(), attached: true }
    }

    /// The simulated system's device ids that span `num_ipus` IPUs.
    pub fn manager_find(num_ipus: u32) -> Result<Vec<u32>> {
        Ok(system::devices(system::view()?)
            .iter()
            .enumerate()
            .filter(|(_, r)| r.len() as u32 == num_ipus)
            .map(|(i, _)| i as u32)
            .collect())
    }

    /// `DeviceManager::getDevice(id)` of the simulated system.
    pub fn manager(id: u32) -> Result<Device> {
        let (_, arch) = system::configured()?;
        let all = system::devices(system::view()?);
        let ipus = all.get(id as usize).cloned().ok_or_else(|| {
            ApiError::new(
                Status::PoplarError,
                format!(
                    "no device with id {id}: the simulated system has {} devices (0 to {})",
                    all.len(),
                    all.len() - 1
                ),
            )
        })?;
        let mut desc = TargetDesc::from_target(&ir::Target::preset(ir::Preset::Mk2), TARGET_IPU);
        let mut a = [0 as std::ffi::c_char; 16];
        for (d, s) in a.iter_mut().zip(arch.bytes().take(15)) {
            *d = s as std::ffi::c_char;
        }
        desc.arch = a;
        let mut t = desc.to_target()?;
        t.ipus = ipus.len() as u32;
        let desc = TargetDesc::from_target(&t, TARGET_IPU);
        Ok(Device { desc, kind: DeviceKind::Sim, id, ipus, locks: Vec::new(), attached: false })
    }

    /// Releases the IPUs' locks (model and CPU devices stay usable).
    pub fn detach(&mut self) {
        if self.desc.kind == TARGET_IPU {
            self.locks.clear();
            self.attached = false;
        }
    }

    /// Takes every IPU's lock, or none: `false` when another process holds one.
    pub fn attach(&mut self) -> Result<bool> {
        if self.attached {
            return Ok(true);
        }
        if self.desc.kind != TARGET_IPU {
            self.attached = true;
            return Ok(true);
        }
        let mut locks = Vec::new();
        for ipu in self.ipus.clone() {
            match system::try_lock(&system::ipu_lock(ipu))? {
                Some(f) => locks.push(f),
                None => return Ok(false),
            }
        }
        self.locks = locks;
        self.attached = true;
        log_simulated(self);
        Ok(true)
    }
}

fn log_simulated(d: &Device) {
    let config = report::log::LogConfig::from_env().unwrap_or_default();
    if config.enabled(report::log::LogLevel::Warn) {
        report::log::write_stderr(&report::log::line(
            report::log::LogLevel::Warn,
            &format!(
                "attached to device {}: {} simulated {} IPU{} (poplar-rs has no IPU hardware; it runs on the sim device)",
                d.id,
                d.ipus.len(),
                d.desc.arch(),
                if d.ipus.len() == 1 { "" } else { "s" }
            ),
        ));
    }
}

#[no_mangle]
pub extern "C" fn prs_device_new_model(target: *const TargetDesc, out: *mut *mut Device) -> i32 {
    guard(|| put_box(out, Device::ipu_model(*handle(target, "target")?)?))
}

#[no_mangle]
pub extern "C" fn prs_device_new_cpu(out: *mut *mut Device) -> i32 {
    guard(|| put_box(out, Device::cpu()))
}

#[no_mangle]
pub extern "C" fn prs_device_manager_count(out: *mut usize) -> i32 {
    guard(|| put(out, system::devices(system::view()?).len()))
}

#[no_mangle]
pub extern "C" fn prs_device_manager_get(id: u32, out: *mut *mut Device) -> i32 {
    guard(|| put_box(out, Device::manager(id)?))
}

#[no_mangle]
pub extern "C" fn prs_device_manager_find(num_ipus: u32, ids: *mut *mut usize, n: *mut usize) -> i32 {
    guard(|| sizes_out(Device::manager_find(num_ipus)?.into_iter().map(|i| i as usize).collect(), ids, n))
}

#[no_mangle]
pub extern "C" fn prs_device_free(d: *mut Device) {
    free(d)
}

#[no_mangle]
pub extern "C" fn prs_device_target(d: *const Device, out: *mut TargetDesc) -> i32 {
    guard(|| put(out, handle(d, "device")?.desc))
}

#[no_mangle]
pub extern "C" fn prs_device_id(d: *const Device) -> u32 {
    handle(d, "device").map_or(u32::MAX, |d| if d.id == u32::MAX { 0 } else { d.id })
}

#[no_mangle]
pub extern "C" fn prs_device_attach(d: *mut Device, ok: *mut i32) -> i32 {
    guard(|| {
        let got = handle_mut(d, "device")?.attach()?;
        put(ok, i32::from(got))
    })
}

#[no_mangle]
pub extern "C" fn prs_device_detach(d: *mut Device) -> i32 {
    guard(|| {
        handle_mut(d, "device")?.detach();
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn prs_device_is_attached(d: *const Device) -> i32 {
    handle(d, "device").map_or(0, |d| i32::from(d.attached))
}
