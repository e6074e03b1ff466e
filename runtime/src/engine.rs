//! The host API: an [`Engine`] holds a loaded image on a device and lets a
//! host program write and read tensors through handles, connect streams to
//! circular host buffers (Poplar's `connectStream`), fill and drain remote
//! buffers, and run programs by index or name — the shape of Poplar's
//! `Engine`.
//!
//! ```no_run
//! use runtime::{Engine, EngineOptions, DeviceKind};
//! let bytes = std::fs::read("prog.exe").unwrap();
//! let loaded = runtime::load(&bytes).unwrap();
//! let mut engine = Engine::new(loaded, &EngineOptions { device: DeviceKind::Cpu, ..Default::default() });
//! engine.write_values("v3-write", &[0f32; 16]).unwrap();
//! engine.run_named("main").unwrap();
//! let v3: Vec<f32> = engine.read_values("v3-read").unwrap();
//! print!("{}", String::from_utf8_lossy(&engine.take_output()));
//! ```

use std::sync::Arc;

use half::f16;
use linker::gp::ElemType;
use linker::image::{element_count, Image};

use crate::error::{HostError, RunError};
use crate::exec::{DeviceKind, HostStream, Machine};
use crate::loader::Loaded;
use crate::options::EngineOptions;
use crate::profile::{self, Recorder};
use crate::totals::Totals;

/// What a host-visible name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// `host_write` (to the device) or `host_read` handle.
    Handle {
        index: usize,
        to_device: bool,
    },
    Stream {
        index: usize,
        to_device: bool,
    },
    RemoteBuffer {
        index: usize,
    },
}

/// Element type and shape of a name's data as the host sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataInfo {
    pub elem: ElemType,
    pub shape: Vec<u64>,
}

/// A loaded image on a device.
pub struct Engine {
    machine: Machine,
    /// The graph profile of the image, when the host gave it
    /// ([`Engine::set_graph_profile`]): the summary's graph sections.
    graph: Option<report::schema::GraphProfile>,
    /// The image's content hash, computed when a profile first needs it.
    image_hash: std::sync::OnceLock<String>,
    /// The error that stopped the first run that did not finish: the
    /// profile, the trace and the summary then cover a partial run.
    stopped: Option<String>,
}

/// Host element types usable with [`Engine::write_values`] / [`Engine::read_values`].
pub trait Element: Copy {
    const ELEM: ElemType;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
}

macro_rules! element {
    ($t:ty, $e:expr) => {
        impl Element for $t {
            const ELEM: ElemType = $e;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
        }
    };
}
element!(f32, ElemType::Float);
element!(f64, ElemType::Double);
element!(f16, ElemType::Half);
element!(i8, ElemType::Char);
element!(u8, ElemType::UChar);
element!(i16, ElemType::Short);
element!(u16, ElemType::UShort);
element!(i32, ElemType::Int);
element!(u32, ElemType::UInt);
element!(i64, ElemType::Long);
element!(u64, ElemType::ULong);

impl Engine {
    /// Puts a loaded image on the device the options name.
    pub fn new(loaded: Loaded, opts: &EngineOptions) -> Engine {
        let loaded = Arc::new(loaded);
        let mut machine = Machine::new(loaded.clone(), opts.device, opts.threads);
        machine.max_cycles = opts.max_cycles;
        machine.uninstrumented = !opts.instrument_compute;
        if opts.profile && opts.device == DeviceKind::Sim {
            let mut rec = Recorder::new(&loaded.image);
            if opts.trace {
                rec.trace = Some(crate::trace::TraceRec::new(&loaded.image));
            }
            machine.rec = Some(rec);
        }
        Engine { machine, graph: None, image_hash: Default::default(), stopped: None }
    }

    pub fn image(&self) -> &Image {
        &self.machine.loaded.image
    }

    pub fn device(&self) -> DeviceKind {
        self.machine.kind
    }

    /// Host threads the tiles run on.
    pub fn threads(&self) -> usize {
        self.machine.threads()
    }

    /// Looks a host-visible name up: handles, then streams, then remote buffers.
    pub fn lookup(&self, name: &str) -> Result<Named, HostError> {
        let img = self.image();
        if let Some(i) = img.handles.iter().position(|h| h.name == name) {
            return Ok(Named::Handle { index: i, to_device: img.handles[i].to_device });
        }
        if let Some(i) = img.streams.iter().position(|s| s.name == name) {
            return Ok(Named::Stream { index: i, to_device: img.streams[i].to_device });
        }
        if let Some(i) = img.remote_buffers.iter().position(|b| b.name == name) {
            return Ok(Named::RemoteBuffer { index: i });
        }
        let known = img
            .handles
            .iter()
            .map(|h| h.name.as_str())
            .chain(img.streams.iter().map(|s| s.name.as_str()))
            .chain(img.remote_buffers.iter().map(|b| b.name.as_str()));
        Err(HostError::unknown("handle", name, known))
    }

    /// Element type and shape of what [`Engine::write`] / [`Engine::read`]
    /// move for `name`: a handle's tensor, a stream's block (a to-host
    /// stream reads as all blocks received, `[n, shape…]`), a remote
    /// buffer's `[repeats, shape…]`.
    pub fn data_info(&self, name: &str) -> Result<DataInfo, HostError> {
        let img = self.image();
        Ok(match self.lookup(name)? {
            Named::Handle { index, .. } => {
                DataInfo { elem: img.handles[index].elem, shape: img.handles[index].shape.clone() }
            }
            Named::Stream { index, .. } => {
                let s = &img.streams[index];
                let block = element_count(&s.shape) * u64::from(s.elem.size());
                let have = self.machine.host.streams[index].0.len() as u64;
                let blocks = have.checked_div(block).unwrap_or(0);
                let mut shape = vec![blocks];
                shape.extend_from_slice(&s.shape);
                DataInfo { elem: s.elem, shape }
            }
            Named::RemoteBuffer { index } => {
                let b = &img.remote_buffers[index];
                let mut shape = vec![u64::from(b.repeats)];
                shape.extend_from_slice(&b.shape);
                DataInfo { elem: b.elem, shape }
            }
        })
    }

    /// Writes a `host_write` handle's tensor, or a whole remote buffer.
    pub fn write(&mut self, name: &str, data: &[u8]) -> Result<(), HostError> {
        match self.lookup(name)? {
            Named::Handle { index, to_device: true } => {
                let loaded = self.machine.loaded.clone();
                let h = &loaded.image.handles[index];
                self.check_len(name, h.elem, &h.shape, data)?;
                self.machine.write_regions(&h.regions, data)
            }
            Named::Handle { .. } => {
                Err(HostError::Direction { name: name.into(), kind: "host_read handle", action: "written" })
            }
            Named::Stream { .. } => Err(HostError::Direction {
                name: name.into(),
                kind: "stream",
                action: "written directly (connect it with --stream / connect_stream)",
            }),
            Named::RemoteBuffer { index } => {
                let info = self.data_info(name)?;
                self.check_len(name, info.elem, &info.shape, data)?;
                self.machine.host.remote_mut(index)?.copy_from_slice(data);
                Ok(())
            }
        }
    }

    /// Reads a `host_read` handle's tensor, a remote buffer, or what a
    /// to-host stream has delivered.
    pub fn read(&self, name: &str) -> Result<Vec<u8>, HostError> {
        match self.lookup(name)? {
            Named::Handle { index, to_device: false } => {
                Ok(self.machine.read_regions(&self.image().handles[index].regions))
            }
            Named::Handle { .. } => {
                Err(HostError::Direction { name: name.into(), kind: "host_write handle", action: "read" })
            }
            Named::Stream { index, to_device: false } => Ok(self.machine.host.streams[index].0.clone()),
            Named::Stream { .. } => {
                Err(HostError::Direction { name: name.into(), kind: "host-to-device stream", action: "read" })
            }
            Named::RemoteBuffer { index } => {
                let len = self.machine.host.remote_bytes(index);
                self.machine.host.remote_read(index, 0, len)
            }
        }
    }

    fn check_len(&self, name: &str, elem: ElemType, shape: &[u64], data: &[u8]) -> Result<(), HostError> {
        let want = element_count(shape) * u64::from(elem.size());
        if data.len() as u64 != want {
            return Err(HostError::Data(format!(
                "data for '{name}' has {} bytes, {} elements of {} need {want}",
                data.len(),
                element_count(shape),
                elem.name()
            )));
        }
        Ok(())
    }

    /// Connects a stream to a host buffer, used circularly: a host-to-device
    /// stream reads it block after block, wrapping at the end; a
    /// device-to-host stream overwrites it the same way. The buffer must
    /// hold whole elements.
    pub fn connect_stream(&mut self, name: &str, buffer: Vec<u8>) -> Result<(), HostError> {
        let Named::Stream { index, .. } = self.lookup(name)? else {
            return Err(HostError::Data(format!("'{name}' is not a stream")));
        };
        let elem = self.image().streams[index].elem;
        if buffer.is_empty() || !buffer.len().is_multiple_of(elem.size() as usize) {
            return Err(HostError::Data(format!(
                "the buffer for stream '{name}' must hold a whole number (at least one) of {} elements",
                elem.name()
            )));
        }
        self.machine.host.streams[index] = (buffer, 0, true);
        Ok(())
    }

    /// Connects a stream to a host end outside the engine ([`HostStream`]):
    /// each copy calls it with one block, replacing any buffer connected
    /// before. `None` disconnects it.
    pub fn connect_stream_outside(
        &mut self,
        name: &str,
        end: Option<Box<dyn HostStream>>,
    ) -> Result<(), HostError> {
        let Named::Stream { index, .. } = self.lookup(name)? else {
            return Err(HostError::Data(format!("'{name}' is not a stream")));
        };
        self.machine.host.outside[index] = end;
        Ok(())
    }

    /// Bytes one copy of stream `name` moves.
    pub fn stream_block_bytes(&self, name: &str) -> Result<usize, HostError> {
        let Named::Stream { index, .. } = self.lookup(name)? else {
            return Err(HostError::Data(format!("'{name}' is not a stream")));
        };
        let s = &self.image().streams[index];
        Ok((element_count(&s.shape) * u64::from(s.elem.size())) as usize)
    }

    /// Typed [`Engine::write`]; the element type must match.
    pub fn write_values<T: Element>(&mut self, name: &str, values: &[T]) -> Result<(), HostError> {
        self.check_type::<T>(name)?;
        let mut b = Vec::with_capacity(values.len() * T::ELEM.size() as usize);
        values.iter().for_each(|v| v.put(&mut b));
        self.write(name, &b)
    }

    /// Typed [`Engine::read`]; the element type must match.
    pub fn read_values<T: Element>(&self, name: &str) -> Result<Vec<T>, HostError> {
        self.check_type::<T>(name)?;
        Ok(self.read(name)?.chunks_exact(T::ELEM.size() as usize).map(T::get).collect())
    }

    /// Typed [`Engine::connect_stream`].
    pub fn connect_values<T: Element>(&mut self, name: &str, values: &[T]) -> Result<(), HostError> {
        self.check_type::<T>(name)?;
        let mut b = Vec::new();
        values.iter().for_each(|v| v.put(&mut b));
        self.connect_stream(name, b)
    }

    fn check_type<T: Element>(&self, name: &str) -> Result<(), HostError> {
        let info = self.data_info(name)?;
        if info.elem != T::ELEM {
            return Err(HostError::Data(format!(
                "'{name}' holds {}, not {}",
                info.elem.name(),
                T::ELEM.name()
            )));
        }
        Ok(())
    }

    /// A program's index from its name or its number.
    pub fn program_index(&self, name_or_index: &str) -> Result<usize, HostError> {
        let progs = &self.image().programs;
        if let Some(i) = progs.iter().position(|p| p.name == name_or_index) {
            return Ok(i);
        }
        if let Ok(i) = name_or_index.parse::<usize>() {
            if i < progs.len() {
                return Ok(i);
            }
        }
        Err(HostError::unknown("program", name_or_index, progs.iter().map(|p| p.name.as_str())))
    }

    /// Runs program `index` to completion; its output waits for
    /// [`Engine::take_output`].
    pub fn run(&mut self, index: usize) -> Result<(), RunError> {
        self.machine.clear_interrupt();
        let r = self.machine.run_program(index, None);
        self.note_stop(index, r)
    }

    /// Runs program `index`, writing its output to `out` as it is produced
    /// (in chunks, so memory stays bounded however much a program prints).
    pub fn run_to(&mut self, index: usize, out: &mut dyn std::io::Write) -> Result<(), RunError> {
        self.machine.clear_interrupt();
        let r = self.machine.run_program(index, Some(out));
        self.note_stop(index, r)
    }

    /// A handle that stops a run of this engine from another thread.
    pub fn interrupter(&self) -> crate::exec::Interrupter {
        self.machine.interrupter()
    }

    /// Records the error of a run that started and did not finish.
    fn note_stop(&mut self, index: usize, r: Result<(), RunError>) -> Result<(), RunError> {
        if let Err(e) = &r {
            if index < self.image().programs.len() && self.stopped.is_none() {
                self.stopped = Some(e.to_string());
            }
        }
        r
    }

    /// The error that stopped a run before its end, when one did: the
    /// profile, the trace and the summary then cover the runs up to the
    /// last step that finished, and say so.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// The content hash of the image (`imageHash` in both profiles: the
    /// hash of its `prog.exe` bytes, [`Image::content_hash`]).
    pub fn image_hash(&self) -> &str {
        self.image_hash.get_or_init(|| self.image().content_hash())
    }

    /// Stops every later run at the first step boundary `limit` after
    /// `since` (the command line counts from its own start).
    pub fn set_timeout(&mut self, limit: std::time::Duration, since: std::time::Instant) {
        if let Some(at) = since.checked_add(limit) {
            self.machine.set_deadline(at, limit.as_millis().min(u128::from(u64::MAX)) as u64);
        }
    }

    /// Runs the program with this name (or number).
    pub fn run_named(&mut self, name: &str) -> Result<(), RunError> {
        let i = self.program_index(name)?;
        self.run(i)
    }

    /// Text the programs printed (`print` steps, codelet `printf`) since the
    /// last call, in execution order.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.machine.host.output)
    }

    /// Cycle and step totals so far.
    pub fn totals(&self) -> &Totals {
        &self.machine.totals
    }

    /// The execution profile (sim with profiling on), else a CPU-mode stub;
    /// either carries the image's hash, and `partial` when a run stopped.
    pub fn profile_json(&self) -> serde_json::Value {
        let image_hash = Some(self.image_hash().to_string());
        let stopped_by = self.stopped.clone();
        let value = match &self.machine.rec {
            Some(rec) => serde_json::to_value(report::schema::ExecutionProfile {
                image_hash,
                partial: stopped_by.is_some(),
                stopped_by,
                ..rec.to_profile(self.image(), &self.machine.loaded.tree, &self.machine.totals)
            }),
            None => serde_json::to_value(report::schema::StepsOnlyProfile {
                image_hash,
                partial: stopped_by.is_some(),
                stopped_by,
                profiler_mode: if self.device() == DeviceKind::Cpu { "CPU" } else { "NONE" }.into(),
                steps_executed: self.machine.totals.steps,
            }),
        };
        value.unwrap_or_default()
    }

    /// Writes the Chrome trace of the run (`--trace`), marked partial when
    /// a run stopped; `None` when the engine records none (not `sim`, or no
    /// `trace` option).
    pub fn write_trace(&self, out: &mut dyn std::io::Write) -> Option<std::io::Result<()>> {
        let t = self.machine.rec.as_ref()?.trace.as_ref()?;
        Some(t.write(out, self.stopped.as_deref()))
    }

    /// A `printProfileSummary`-style text summary (its Graph and Memory
    /// sections need the graph profile: [`Engine::set_graph_profile`]).
    pub fn summary(&self) -> String {
        let loaded = &self.machine.loaded;
        profile::summary(
            &loaded.image,
            &loaded.tree,
            &self.machine.totals,
            self.machine.rec.as_ref(),
            self.device().name(),
            self.graph.as_ref(),
            self.stopped.as_deref(),
        )
    }

    /// Gives the engine the graph profile of its image (as `poplar-compile
    /// --report` writes it), for the summary and [`Engine::graph_profile`].
    pub fn set_graph_profile(&mut self, graph: report::schema::GraphProfile) {
        self.graph = Some(graph);
    }

    /// The graph profile given to the engine, with `computeSets.cycleEstimates`
    /// filled in from the run when the engine recorded one (`sim` with
    /// profiling on), and the image's hash when it had none.
    pub fn graph_profile(&self) -> Option<report::schema::GraphProfile> {
        let mut g = self.graph.clone()?;
        if g.image_hash.is_none() {
            g.image_hash = Some(self.image_hash().to_string());
        }
        if let Some(rec) = &self.machine.rec {
            g.compute_sets.cycle_estimates = rec.cycle_estimates();
        }
        Some(g)
    }
}
