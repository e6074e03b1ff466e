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
use crate::replicas::{Fabric, LocalFabric, Transport};
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

/// A loaded image on a device: one [`Machine`] per replica.
///
/// A replicated image (`replication_factor` r > 1) runs as r machines, one
/// thread each, that meet at collectives ([`crate::replicas`]). Host data
/// then covers every replica, in replica order: reading a handle gives r
/// copies of its tensor (shape `[r, …]`), writing one takes one copy (for
/// every replica) or r; a stream connected to one buffer feeds (or fills)
/// every replica's own copy of it; program output is each replica's in
/// turn. Profiles, the summary and the lightweight profiler's blocks are
/// those of one replica, `profiler.replicaToProfile` (0 by default); every
/// replica's cycle count is the same, since a run ends with a sync of all
/// replicas.
pub struct Engine {
    /// This process's first replica.
    machine: Machine,
    /// This process's other replicas, in order.
    others: Vec<Machine>,
    /// Which of this process's replicas records profiles: 0 for `machine`,
    /// `i` for `others[i - 1]`.
    profiled: usize,
    /// Whether this process holds the profiled replica (another process
    /// of the job may).
    records: bool,
    /// Replicas of the job, in all processes.
    total: u32,
    /// The other processes of the job, when it spans several.
    transport: Option<Arc<dyn Transport>>,
    /// The graph profile of the image, when the host gave it
    /// ([`Engine::set_graph_profile`]): the summary's graph sections.
    graph: Option<report::schema::GraphProfile>,
    /// The image's content hash, computed when a profile first needs it.
    image_hash: std::sync::OnceLock<String>,
    /// The error that stopped the first run that did not finish: the
    /// profile, the trace and the summary then cover a partial run.
    stopped: Option<String>,
    /// [`Engine::blocks_error`].
    blocks_error: Option<String>,
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
        let replicas = loaded.image.target.replicas.max(1);
        Engine::share(Arc::new(loaded), opts, 0, replicas, None)
    }

    /// This process's share of a job spread over the processes of
    /// `transport` (MPI ranks): `replicas / ranks` consecutive replicas
    /// each, in rank order. Host data and program output cover every
    /// replica of the job, as in one process.
    pub fn with_transport(
        loaded: Loaded,
        opts: &EngineOptions,
        transport: Arc<dyn Transport>,
    ) -> Result<Engine, String> {
        let total = loaded.image.target.replicas.max(1);
        let ranks = transport.ranks().max(1);
        if !total.is_multiple_of(ranks) {
            return Err(format!(
                "the image has {total} replicas, which {ranks} processes cannot share equally (use a number of \
                 processes that divides {total})"
            ));
        }
        let local = total / ranks;
        let first = transport.rank() * local;
        Ok(Engine::share(Arc::new(loaded), opts, first, local, Some(transport)))
    }

    fn share(
        loaded: Arc<Loaded>,
        opts: &EngineOptions,
        first: u32,
        local: u32,
        transport: Option<Arc<dyn Transport>>,
    ) -> Engine {
        let replicas = local;
        // Replicas share the host's threads.
        let threads = match (replicas, opts.threads) {
            (1, t) => t,
            (r, 0) => (std::thread::available_parallelism().map_or(1, |n| n.get()) / r as usize).max(1),
            (r, t) => (t / r as usize).max(1),
        };
        let make = || {
            let mut m = Machine::new(loaded.clone(), opts.device, threads);
            m.max_cycles = opts.max_cycles;
            m.uninstrumented = !opts.instrument_compute;
            m.spans = crate::exec::SyncSpans::new(
                loaded.image.target.replicas,
                &loaded.image.target.links,
                opts.sync_replicas_independently,
            );
            m
        };
        let mut machine = make();
        machine.replica = first;
        machine.write_replica_index();
        let mut others: Vec<Machine> = (1..replicas)
            .map(|i| {
                let mut m = make();
                m.become_replica(first + i, &machine);
                m
            })
            .collect();
        let total = loaded.image.target.replicas.max(1);
        let (profiled, mut blocks_error) =
            match crate::replicas::profiled_replica(opts.replica_to_profile, first, local, total) {
                Ok(p) => (p, None),
                Err(e) => (None, Some(e)),
            };
        if let Some(p) = profiled {
            let m = if p == 0 { &mut machine } else { &mut others[p - 1] };
            if opts.profile && opts.device == DeviceKind::Sim {
                let mut rec = Recorder::new(&loaded.image);
                if opts.trace {
                    rec.trace = Some(crate::trace::TraceRec::new(&loaded.image));
                }
                m.rec = Some(rec);
            }
            if opts.device == DeviceKind::Sim {
                match crate::blocks::Blocks::new(&loaded.image, &loaded.tree, &opts.blocks) {
                    Ok(b) => m.blocks = b,
                    Err(e) => blocks_error = Some(e),
                }
            }
        }
        Engine {
            machine,
            others,
            profiled: profiled.unwrap_or(0),
            records: profiled.is_some(),
            total,
            transport,
            graph: None,
            image_hash: Default::default(),
            stopped: None,
            blocks_error,
        }
    }

    /// Why the profiler's options do not fit the image (a
    /// `profiler.blocks.tile` past an IPU's tiles, a
    /// `profiler.replicaToProfile` past the replicas); every run then fails
    /// with it.
    pub fn blocks_error(&self) -> Option<&str> {
        self.blocks_error.as_deref()
    }

    /// The lightweight profiler's blocks of the runs so far, by tile, then
    /// by the cycle they began ([`crate::blocks::Blocks::by_tile`]); `None`
    /// when the engine records none (not `sim`, or no profiler option asks).
    pub fn blocks(&self) -> Option<Vec<crate::blocks::BlockRecord>> {
        Some(self.profiled().blocks.as_ref()?.by_tile())
    }

    /// The replication factor: how many copies of the graph run (in all
    /// processes of the job).
    pub fn replicas(&self) -> u32 {
        self.total
    }

    /// This process's replicas.
    fn local(&self) -> u32 {
        1 + self.others.len() as u32
    }

    /// Every process's `mine`, joined in rank order (just `mine` alone).
    fn gather(&self, mine: Vec<u8>) -> Vec<u8> {
        match &self.transport {
            None => mine,
            Some(t) => t.all_gather(mine).concat(),
        }
    }

    fn machines(&self) -> impl Iterator<Item = &Machine> {
        std::iter::once(&self.machine).chain(&self.others)
    }

    fn machines_mut(&mut self) -> impl Iterator<Item = &mut Machine> {
        std::iter::once(&mut self.machine).chain(&mut self.others)
    }

    /// Replica `replica`, which this process must hold: a replica of
    /// another process of the job (`poprun`) is connected there.
    fn held_replica(&mut self, replica: u32) -> Result<&mut Machine, HostError> {
        let (replicas, first, local) = (self.replicas(), self.machine.replica, self.local());
        if replica >= replicas {
            return Err(HostError::NoReplica { replica, replicas });
        }
        let held = match replica.checked_sub(first) {
            Some(0) => Some(&mut self.machine),
            Some(i) => self.others.get_mut(i as usize - 1),
            None => None,
        };
        held.ok_or_else(|| {
            HostError::Data(format!(
                "replica {replica} runs in another process of the job: this process holds replicas {first} to {} \
                 (connect each replica's stream in the process that holds it)",
                first + local - 1
            ))
        })
    }

    /// Whether this process holds replica `replica`.
    pub fn holds_replica(&self, replica: u32) -> bool {
        (self.machine.replica..self.machine.replica + self.local()).contains(&replica)
    }

    /// Element type and shape of one replica's data for `name` (what
    /// [`Engine::data_info`] gives without replication).
    pub fn replica_data_info(&self, name: &str) -> Result<DataInfo, HostError> {
        self.one_replica_info(name)
    }

    /// Splits host data for every replica: one replica's bytes (`one`
    /// long) go to all, `r * one` bytes are each replica's in turn.
    fn per_replica<'d>(&self, name: &str, one: usize, data: &'d [u8]) -> Result<Vec<&'d [u8]>, HostError> {
        let r = self.replicas() as usize;
        if data.len() == one {
            return Ok(vec![data; self.local() as usize]);
        }
        if r > 1 && data.len() == one * r {
            let (first, local) = (self.machine.replica as usize, self.local() as usize);
            return Ok(data.chunks_exact(one.max(1)).skip(first).take(local).collect());
        }
        let what = match r {
            1 => format!("{one}"),
            _ => format!("{one} (for every replica) or {} (one copy per replica)", one * r),
        };
        Err(HostError::Data(format!("data for '{name}' has {} bytes, it needs {what}", data.len())))
    }

    pub fn image(&self) -> &Image {
        &self.machine.loaded.image
    }

    /// The image's programs as both profiles number them.
    pub fn program_tree(&self) -> &linker::profile::ProgramTree {
        &self.machine.loaded.tree
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
    /// buffer's `[repeats, shape…]`; for a replicated image, `[r, …]` of
    /// that, every replica's in replica order.
    pub fn data_info(&self, name: &str) -> Result<DataInfo, HostError> {
        let mut info = self.one_replica_info(name)?;
        if self.replicas() > 1 {
            info.shape.insert(0, u64::from(self.replicas()));
        }
        Ok(info)
    }

    fn one_replica_info(&self, name: &str) -> Result<DataInfo, HostError> {
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
                if self.replicas() == 1 {
                    return self
                        .check_len(name, h.elem, &h.shape, data)
                        .and_then(|()| self.machine.write_regions(&h.regions, data));
                }
                let one = (element_count(&h.shape) * u64::from(h.elem.size())) as usize;
                let parts = self.per_replica(name, one, data)?;
                for (m, part) in self.machines_mut().zip(parts) {
                    m.write_regions(&h.regions, part)?;
                }
                Ok(())
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
                let info = self.one_replica_info(name)?;
                if self.replicas() == 1 {
                    self.check_len(name, info.elem, &info.shape, data)?;
                }
                let one = (element_count(&info.shape) * u64::from(info.elem.size())) as usize;
                let parts = self.per_replica(name, one, data)?;
                for (m, part) in self.machines_mut().zip(parts) {
                    m.host.remote_mut(index)?.copy_from_slice(part);
                }
                Ok(())
            }
        }
    }

    /// Reads a `host_read` handle's tensor, a remote buffer, or what a
    /// to-host stream has delivered.
    pub fn read(&self, name: &str) -> Result<Vec<u8>, HostError> {
        match self.lookup(name)? {
            Named::Handle { index, to_device: false } => {
                let regions = &self.image().handles[index].regions;
                Ok(self.gather(self.machines().flat_map(|m| m.read_regions(regions)).collect()))
            }
            Named::Handle { .. } => {
                Err(HostError::Direction { name: name.into(), kind: "host_write handle", action: "read" })
            }
            Named::Stream { index, to_device: false } => {
                Ok(self
                    .gather(self.machines().flat_map(|m| m.host.streams[index].0.iter().copied()).collect()))
            }
            Named::Stream { .. } => {
                Err(HostError::Direction { name: name.into(), kind: "host-to-device stream", action: "read" })
            }
            Named::RemoteBuffer { index } => {
                // Each replica's read checks the size it may allocate.
                let len = self.machine.host.remote_bytes(index);
                let mut out = Vec::new();
                for m in self.machines() {
                    out.extend(m.host.remote_read(index, 0, len)?);
                }
                Ok(self.gather(out))
            }
        }
    }

    /// Remote buffer `name`'s index and the bytes of one of its slots,
    /// with `repeat` checked against its repeats.
    fn remote_slot(&self, name: &str, repeat: u64) -> Result<(usize, usize), HostError> {
        let Named::RemoteBuffer { index } = self.lookup(name)? else {
            return Err(HostError::Data(format!("'{name}' is not a remote buffer")));
        };
        let b = &self.image().remote_buffers[index];
        if repeat >= u64::from(b.repeats) {
            return Err(HostError::Data(format!(
                "remote buffer '{name}' has {} repeats: there is no repeat {repeat}",
                b.repeats
            )));
        }
        Ok((index, (element_count(&b.shape) * u64::from(b.elem.size())) as usize))
    }

    /// Writes one slot (`repeat`) of remote buffer `name` of replica
    /// `replica`, which this process must hold: Poplar's
    /// `copyToRemoteBuffer`.
    pub fn write_remote_slot(
        &mut self,
        name: &str,
        repeat: u64,
        replica: u32,
        data: &[u8],
    ) -> Result<(), HostError> {
        let (index, slot) = self.remote_slot(name, repeat)?;
        if data.len() != slot {
            return Err(HostError::Data(format!(
                "data for a repeat of remote buffer '{name}' has {} bytes, it needs {slot}",
                data.len()
            )));
        }
        let at = slot * repeat as usize;
        self.held_replica(replica)?.host.remote_mut(index)?[at..at + slot].copy_from_slice(data);
        Ok(())
    }

    /// Reads one slot (`repeat`) of remote buffer `name` of replica
    /// `replica`, which this process must hold: Poplar's
    /// `copyFromRemoteBuffer`.
    pub fn read_remote_slot(&mut self, name: &str, repeat: u64, replica: u32) -> Result<Vec<u8>, HostError> {
        let (index, slot) = self.remote_slot(name, repeat)?;
        self.held_replica(replica)?.host.remote_read(index, slot * repeat as usize, slot)
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
        let index = self.stream_for_buffer(name, &buffer)?;
        for m in self.others.iter_mut() {
            m.host.streams[index] = (buffer.clone(), 0, true);
        }
        self.machine.host.streams[index] = (buffer, 0, true);
        Ok(())
    }

    /// The index of stream `name`, which `buffer` (whole elements, at
    /// least one) may be connected to.
    fn stream_for_buffer(&self, name: &str, buffer: &[u8]) -> Result<usize, HostError> {
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
        Ok(index)
    }

    /// [`Engine::connect_stream`] for one replica only, which this
    /// process must hold.
    pub fn connect_stream_replica(
        &mut self,
        name: &str,
        replica: u32,
        buffer: Vec<u8>,
    ) -> Result<(), HostError> {
        let index = self.stream_for_buffer(name, &buffer)?;
        let m = self.held_replica(replica)?;
        m.host.outside[index] = None;
        m.host.streams[index] = (buffer, 0, true);
        Ok(())
    }

    /// Connects a stream to a host end outside the engine ([`HostStream`]):
    /// each copy calls it with one block, replacing any buffer connected
    /// before. `None` disconnects it. A replicated graph's streams are
    /// connected per replica ([`Engine::connect_stream_outside_replica`])
    /// or shared ([`Engine::connect_stream_broadcast`]).
    pub fn connect_stream_outside(
        &mut self,
        name: &str,
        end: Option<Box<dyn HostStream>>,
    ) -> Result<(), HostError> {
        if self.replicas() > 1 {
            return Err(HostError::Data(format!(
                "stream '{name}' belongs to a replicated graph: connect each replica's end with its replica index"
            )));
        }
        self.connect_stream_outside_replica(name, 0, end)
    }

    /// [`Engine::connect_stream_outside`] for replica `replica`, which this
    /// process must hold.
    pub fn connect_stream_outside_replica(
        &mut self,
        name: &str,
        replica: u32,
        end: Option<Box<dyn HostStream>>,
    ) -> Result<(), HostError> {
        let Named::Stream { index, .. } = self.lookup(name)? else {
            return Err(HostError::Data(format!("'{name}' is not a stream")));
        };
        self.held_replica(replica)?.host.outside[index] = end;
        Ok(())
    }

    /// Connects a host-to-device stream of every replica this process
    /// holds to one host end (Poplar's `ReplicatedStreamMode::BROADCAST`):
    /// the end gives each block once, to the first replica whose copy
    /// needs it, and every replica's k-th copy receives the k-th block, so
    /// all replicas see the same data whatever order their threads reach
    /// their copies in.
    pub fn connect_stream_broadcast(
        &mut self,
        name: &str,
        end: Box<dyn HostStream>,
    ) -> Result<(), HostError> {
        let Named::Stream { index, to_device: true } = self.lookup(name)? else {
            return Err(HostError::Data(format!(
                "'{name}' is not a host-to-device stream: only those can be broadcast to every replica"
            )));
        };
        let local = self.local() as usize;
        if local == 1 {
            self.machine.host.outside[index] = Some(end);
            return Ok(());
        }
        let shared = Arc::new(std::sync::Mutex::new(Broadcast {
            end,
            blocks: std::collections::VecDeque::new(),
            first: 0,
            next: vec![0; local],
        }));
        for (slot, m) in self.machines_mut().enumerate() {
            m.host.outside[index] = Some(Box::new(BroadcastEnd { shared: shared.clone(), slot }));
        }
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
        if let Some(e) = &self.blocks_error {
            return Err(RunError::Program(e.clone()));
        }
        if self.total > 1 {
            let r = self.run_replicas(index);
            return self.note_stop(index, r);
        }
        self.machine.clear_interrupt();
        let r = self.machine.run_program(index, None);
        self.note_stop(index, r)
    }

    /// Runs program `index`, writing its output to `out` as it is produced
    /// (in chunks, so memory stays bounded however much a program prints).
    pub fn run_to(&mut self, index: usize, out: &mut dyn std::io::Write) -> Result<(), RunError> {
        if let Some(e) = &self.blocks_error {
            return Err(RunError::Program(e.clone()));
        }
        if self.total > 1 {
            let r = self.run_replicas(index);
            let _ = out.write_all(&self.take_output());
            let _ = out.flush();
            return self.note_stop(index, r);
        }
        self.machine.clear_interrupt();
        let r = self.machine.run_program(index, Some(out));
        self.note_stop(index, r)
    }

    /// Runs program `index` on every replica, one thread each (replica 0
    /// on the caller's), meeting at collectives. On `sim` the run ends
    /// with a sync of all replicas: each waits for the slowest. The error
    /// is the lowest-numbered replica's own one (not a collective that
    /// failed because of it).
    fn run_replicas(&mut self, index: usize) -> Result<(), RunError> {
        let first = self.machine.replica;
        let fabric: Arc<dyn Fabric> =
            Arc::new(LocalFabric::share(first, self.local(), self.transport.clone()));
        for m in self.machines_mut() {
            m.clear_interrupt();
            m.fabric = Some(fabric.clone());
        }
        let stack = crate::exec::worker_stack(self.machine.loaded.image.largest_frame());
        let Engine { machine, others, .. } = self;
        let mut results: Vec<Result<(), RunError>> = std::thread::scope(|s| {
            let handles: Vec<_> = others
                .iter_mut()
                .map(|m| {
                    let (f, replica) = (fabric.clone(), m.replica);
                    let spawned = std::thread::Builder::new()
                        .name(format!("replica-{replica}"))
                        .stack_size(stack)
                        .spawn_scoped(s, move || {
                            let r = m.run_program(index, None);
                            f.leave(replica, m.totals.cycles, r.as_ref().err());
                            r
                        });
                    spawned.map_err(|e| {
                        let e =
                            RunError::Program(format!("cannot start a thread for replica {replica}: {e}"));
                        fabric.leave(replica, 0, Some(&e));
                        e
                    })
                })
                .collect();
            let r = machine.run_program(index, None);
            fabric.leave(first, machine.totals.cycles, r.as_ref().err());
            let mut all = vec![r];
            for h in handles {
                all.push(match h {
                    Ok(h) => h
                        .join()
                        .unwrap_or_else(|_| Err(RunError::Program("a replica's thread panicked".into()))),
                    Err(e) => Err(e),
                });
            }
            all
        });
        for m in self.machines_mut() {
            m.fabric = None;
        }
        if self.device() == DeviceKind::Sim {
            let latest = fabric.latest_end();
            for m in self.machines_mut() {
                m.final_sync(index as u32, latest);
            }
        }
        // A replica's own error first; else why the replicas could not
        // meet, as the first replica that waited in vain reports it (the
        // same in every process of a job).
        let own = results.iter().position(|r| matches!(r, Err(e) if !matches!(e, RunError::Meeting { .. })));
        if let Some(i) = own {
            if let Err(error) = std::mem::replace(&mut results[i], Ok(())) {
                return Err(RunError::Replica { replica: first + i as u32, error: Box::new(error) });
            }
        }
        if let Some(f) = fabric.failure() {
            return Err(f.error());
        }
        match results.into_iter().enumerate().find(|(_, r)| r.is_err()) {
            Some((i, Err(error))) => {
                Err(RunError::Replica { replica: first + i as u32, error: Box::new(error) })
            }
            _ => Ok(()),
        }
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
            let millis = limit.as_millis().min(u128::from(u64::MAX)) as u64;
            for m in self.machines_mut() {
                m.set_deadline(at, millis);
            }
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
        let mut out = std::mem::take(&mut self.machine.host.output);
        for m in &mut self.others {
            out.append(&mut m.host.output);
        }
        self.gather(out)
    }

    /// Cycle and step totals so far.
    pub fn totals(&self) -> &Totals {
        &self.profiled().totals
    }

    /// The replica that records profiles (`profiler.replicaToProfile`).
    fn profiled(&self) -> &Machine {
        match self.profiled {
            0 => &self.machine,
            i => &self.others[i - 1],
        }
    }

    /// The execution profile (sim with profiling on), else a CPU-mode stub;
    /// either carries the image's hash, and `partial` when a run stopped.
    pub fn profile_json(&self) -> serde_json::Value {
        let image_hash = Some(self.image_hash().to_string());
        let stopped_by = self.stopped.clone();
        let m = self.profiled();
        let value = match &m.rec {
            Some(rec) => serde_json::to_value(report::schema::ExecutionProfile {
                image_hash,
                partial: stopped_by.is_some(),
                stopped_by,
                blocks: m.blocks.as_ref().map(|b| b.to_profile()).unwrap_or_default(),
                ..rec.to_profile(self.image(), &m.loaded.tree, &m.totals)
            }),
            None => serde_json::to_value(report::schema::StepsOnlyProfile {
                image_hash,
                partial: stopped_by.is_some(),
                stopped_by,
                profiler_mode: if self.device() == DeviceKind::Cpu { "CPU" } else { "NONE" }.into(),
                steps_executed: m.totals.steps,
            }),
        };
        value.unwrap_or_default()
    }

    /// Writes the Chrome trace of the run (`--trace`), marked partial when
    /// a run stopped; `None` when the engine records none (not `sim`, or no
    /// `trace` option).
    pub fn write_trace(&self, out: &mut dyn std::io::Write) -> Option<std::io::Result<()>> {
        let t = self.profiled().rec.as_ref()?.trace.as_ref()?;
        Some(t.write(out, self.stopped.as_deref()))
    }

    /// A `printProfileSummary`-style text summary (its Graph and Memory
    /// sections need the graph profile: [`Engine::set_graph_profile`]).
    pub fn summary(&self) -> String {
        let m = self.profiled();
        profile::summary(
            &m.loaded.image,
            &m.loaded.tree,
            &m.totals,
            m.rec.as_ref(),
            self.device().name(),
            self.graph.as_ref(),
            self.stopped.as_deref(),
        )
    }

    /// [`Engine::summary`] in every process of a job, each of which must
    /// call it: the text of the process that records the profiled
    /// replica. In one process, the summary.
    pub fn summary_in_every_process(&self) -> String {
        let mine = if self.records { self.summary() } else { String::new() };
        match &self.transport {
            None => mine,
            Some(t) => {
                let all = t.all_gather(mine.into_bytes());
                let text = all.into_iter().find(|s| !s.is_empty()).unwrap_or_default();
                String::from_utf8_lossy(&text).into_owned()
            }
        }
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
        if let Some(rec) = &self.profiled().rec {
            g.compute_sets.cycle_estimates = rec.cycle_estimates();
        }
        Some(g)
    }
}

/// The shared state of a broadcast stream ([`Engine::connect_stream_broadcast`]):
/// the blocks some replica has fetched and another has yet to receive.
struct Broadcast {
    end: Box<dyn HostStream>,
    /// Blocks `first`, `first + 1`, … fetched from `end`.
    blocks: std::collections::VecDeque<Vec<u8>>,
    first: u64,
    /// Per local replica: the number of its next block.
    next: Vec<u64>,
}

/// One replica's view of a [`Broadcast`].
struct BroadcastEnd {
    shared: Arc<std::sync::Mutex<Broadcast>>,
    slot: usize,
}

impl HostStream for BroadcastEnd {
    fn fill(&mut self, block: &mut [u8]) -> Result<(), String> {
        let mut guard = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *guard;
        let i = (s.next[self.slot] - s.first) as usize;
        if i == s.blocks.len() {
            let mut fetched = vec![0; block.len()];
            s.end.fill(&mut fetched)?;
            s.blocks.push_back(fetched);
        }
        block.copy_from_slice(&s.blocks[i]);
        s.next[self.slot] += 1;
        // Blocks every replica has received are dropped.
        let done = s.next.iter().copied().min().unwrap_or(0);
        while s.first < done {
            s.blocks.pop_front();
            s.first += 1;
        }
        Ok(())
    }

    fn drain(&mut self, _block: &[u8]) -> Result<(), String> {
        Err("a broadcast stream carries data to the device only".into())
    }
}
