//! Targets and devices: the IPU Model of a Poplar architecture, the `cpu`
//! device, and the simulated IPU system's devices (`Device.acquire`), as
//! the C++ API's `IPUModel`, `Device::createCPUDevice` and `DeviceManager`.

use capi::target::TargetDesc;
use pyo3::prelude::*;

use crate::errors::{OrRaise, PoplarError};

/// What a graph is built for: tiles, memory, workers, clock.
#[pyclass(module = "poplar", frozen)]
#[derive(Clone)]
pub struct Target {
    pub desc: TargetDesc,
}

impl Target {
    pub fn target(&self) -> PyResult<ir::Target> {
        self.desc.to_target().or_raise()
    }
}

#[pymethods]
impl Target {
    /// The target of an architecture (`"ipu1"`, `"ipu2"`, `"ipu21"`,
    /// `"cpu"`), optionally with fewer tiles or more IPUs, and Poplar's
    /// IPU-Link target options (`{"ipuLinkConfiguration": "barleyTwist"}`).
    #[staticmethod]
    #[pyo3(signature = (version = "ipu2", num_ipus = 1, tiles_per_ipu = None, options = None))]
    fn ipu_model(
        version: &str,
        num_ipus: u32,
        tiles_per_ipu: Option<u32>,
        options: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<Target> {
        let mut desc = TargetDesc::preset(version).or_raise()?;
        desc.num_ipus = num_ipus;
        if let Some(t) = tiles_per_ipu {
            desc.tiles_per_ipu = t;
        }
        for (k, v) in options.unwrap_or_default() {
            desc.set_option(&k, &v).or_raise()?;
        }
        desc.to_target().or_raise()?;
        Ok(Target { desc })
    }

    #[getter]
    fn arch(&self) -> String {
        self.desc.arch()
    }
    #[getter]
    fn num_ipus(&self) -> u32 {
        self.desc.num_ipus
    }
    #[getter]
    fn tiles_per_ipu(&self) -> u32 {
        self.desc.tiles_per_ipu
    }
    #[getter]
    fn num_tiles(&self) -> u32 {
        self.desc.num_ipus * self.desc.tiles_per_ipu
    }
    #[getter]
    fn bytes_per_tile(&self) -> u32 {
        self.desc.bytes_per_tile
    }
    #[getter]
    fn num_worker_contexts(&self) -> u32 {
        self.desc.workers
    }
    #[getter]
    fn clock_hz(&self) -> f64 {
        self.desc.clock_hz
    }
    /// `ipuLinkTopology`: `"mesh"`, `"torus"` or `"line"`.
    #[getter]
    fn ipu_link_topology(&self) -> PyResult<String> {
        Ok(self.desc.to_target().or_raise()?.links.topology.word().to_string())
    }
    /// `ipuLinkConfiguration` in force (Poplar's choice by IPU count when unset).
    #[getter]
    fn ipu_link_configuration(&self) -> PyResult<String> {
        let t = self.desc.to_target().or_raise()?;
        Ok(t.links.configuration_for(t.ipus).word().to_string())
    }

    fn __repr__(&self) -> String {
        format!(
            "Target(arch={:?}, num_ipus={}, tiles_per_ipu={})",
            self.desc.arch(),
            self.desc.num_ipus,
            self.desc.tiles_per_ipu
        )
    }
}

/// A device programs run on: `sim` (the IPU Model and simulated IPUs,
/// with cycle counts) or `cpu` (all host cores, same results).
#[pyclass(module = "poplar")]
pub struct Device {
    pub inner: capi::device::Device,
}

#[pymethods]
impl Device {
    /// `IPUModel(version).createDevice()`.
    #[staticmethod]
    #[pyo3(signature = (version = "ipu2", num_ipus = 1, tiles_per_ipu = None, options = None))]
    fn ipu_model(
        version: &str,
        num_ipus: u32,
        tiles_per_ipu: Option<u32>,
        options: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<Device> {
        let t = Target::ipu_model(version, num_ipus, tiles_per_ipu, options)?;
        Ok(Device { inner: capi::device::Device::ipu_model(t.desc).or_raise()? })
    }

    /// `Device::createCPUDevice()`.
    #[staticmethod]
    fn cpu() -> Device {
        Device { inner: capi::device::Device::cpu() }
    }

    /// The first free device of `num_ipus` IPUs of the simulated system
    /// (`DeviceManager::getDevices` then `attach`), attached: held by this
    /// process until `detach`, or until the process ends.
    #[staticmethod]
    #[pyo3(signature = (num_ipus = 1))]
    fn acquire(num_ipus: u32) -> PyResult<Device> {
        let ids = capi::device::Device::manager_find(num_ipus).or_raise()?;
        if ids.is_empty() {
            return Err(PoplarError::new_err(format!(
                "the simulated system has no device of {num_ipus} IPUs (POPLAR_RS_NUM_IPUS sets its size)"
            )));
        }
        for id in ids {
            let mut d = capi::device::Device::manager(id).or_raise()?;
            if d.attach().or_raise()? {
                return Ok(Device { inner: d });
            }
        }
        Err(PoplarError::new_err(format!("every device of {num_ipus} IPUs is attached to another process")))
    }

    /// Releases a device `acquire` attached.
    fn detach(&mut self) -> PyResult<()> {
        self.inner.detach();
        Ok(())
    }

    #[getter]
    fn target(&self) -> Target {
        Target { desc: self.inner.desc }
    }

    /// `"sim"` or `"cpu"`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner.kind {
            runtime::DeviceKind::Sim => "sim",
            runtime::DeviceKind::Cpu => "cpu",
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Device(kind={:?}, arch={:?}, num_ipus={})",
            self.kind(),
            self.inner.desc.arch(),
            self.inner.desc.num_ipus
        )
    }
}
