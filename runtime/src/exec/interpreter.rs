//! The interpreter of the control program: runs an entry program's steps
//! in order on the whole machine (a compute set, a copy, a host transfer,
//! a loop or branch on a broadcast predicate, a call), charges each step's
//! cycles on `sim` (syncs, predicate broadcasts, loop overheads, host
//! transfers; compute and exchange charge their own), and stops a run past
//! `--max-cycles` or `--timeout` naming the step it had reached.

use std::time::Instant;

use linker::image::{element_count, Collective, Region, Step};
use linker::profile::StepIds;

use super::{DeviceKind, Machine, Sink};
use crate::cost;
use crate::error::{RunError, StepPath};
use crate::format;
use crate::replicas::Arrival;

/// Where a step stands, for messages: its program's label, its path of
/// step indices, the step.
type Here<'a> = (&'a str, &'a [usize], &'a Step);

/// Program output waiting in memory is written out once it reaches this
/// many bytes (and at the end of each run), so long runs print as they go.
const OUTPUT_CHUNK: usize = 64 * 1024;

impl Machine {
    /// Runs entry program `index`; output goes to `out` as it is produced
    /// (all of it by the time this returns), or stays in memory without one.
    pub fn run_program(&mut self, index: usize, mut out: Sink) -> Result<(), RunError> {
        let loaded = self.loaded.clone();
        let program = loaded
            .image
            .programs
            .get(index)
            .ok_or_else(|| RunError::Program(format!("there is no program {index}")))?;
        if let Some(rec) = &mut self.rec {
            rec.program_trace.push(loaded.tree.control[index]);
        }
        let label = format!("program '{}'", program.name);
        let mut path = Vec::new();
        let ids = &loaded.tree.program_steps[index];
        let root = loaded.tree.control[index];
        let at = self.block_begin();
        let r = self.steps(&program.body, ids, &label, &mut path, index as u32, &mut out);
        if r.is_ok() {
            self.block_end(root, at);
        }
        self.flush_output(&mut out, 0);
        // The host reads the profiler's buffers after every run.
        if let Some(b) = &mut self.blocks {
            b.read_buffers();
        }
        r
    }

    /// A program starts: its number among the lightweight profiler's
    /// blocks and the cycle, for [`Machine::block_end`]. (Plain calls
    /// rather than a wrapper, so the recursion of nested steps keeps its
    /// frames.)
    fn block_begin(&mut self) -> (u64, u64) {
        (self.blocks.as_mut().map_or(0, |b| b.begin()), self.totals.cycles)
    }

    /// The program of node `node`, begun at `at`, ended: a block when the
    /// engine's filters chose it.
    fn block_end(&mut self, node: u32, (begun, from): (u64, u64)) {
        if let Some(b) = &mut self.blocks {
            if b.records_block(node) {
                b.block(node, begun, from, self.totals.cycles);
            }
        }
    }

    /// The end of an iteration of loop `node`: a flush of the profiler's
    /// buffers when the loop's body records blocks.
    fn end_iteration(&mut self, program: u32, node: u32) {
        let Some(bytes) = self.blocks.as_ref().filter(|b| b.flushes(node)).map(|b| b.flush_bytes()) else {
            return;
        };
        let start = self.totals.cycles;
        self.sync(program);
        let synced = self.totals.cycles;
        let clock = self.loaded.image.target.clock_mhz;
        let c = cost::host_transfer_cycles(bytes, clock);
        let data = cost::host_transfer_data_cycles(bytes, clock);
        self.totals.charge(program, |t| {
            t.cycles = t.cycles.saturating_add(c);
            t.host = t.host.saturating_add(c);
        });
        let tiles = self.loaded.image.tiles.len() as u32;
        if let Some(rec) = &mut self.rec {
            rec.block_flush(synced, c, tiles, bytes);
        }
        if let Some(b) = &mut self.blocks {
            b.flush([start, synced, synced.saturating_add(data), synced.saturating_add(c)]);
        }
    }

    /// Writes waiting output to `out` once there are at least `min` bytes.
    fn flush_output(&mut self, out: &mut Sink, min: usize) {
        if let Some(w) = out {
            if !self.host.output.is_empty() && self.host.output.len() >= min {
                let _ = w.write_all(&self.host.output);
                let _ = w.flush();
                self.host.output.clear();
            }
        }
    }

    /// Runs `steps`; `ids` are their nodes in the profiles' program list.
    fn steps(
        &mut self,
        steps: &[Step],
        ids: &[StepIds],
        label: &str,
        path: &mut Vec<usize>,
        program: u32,
        out: &mut Sink,
    ) -> Result<(), RunError> {
        for (i, (step, id)) in steps.iter().zip(ids).enumerate() {
            path.push(i);
            let r = self.step(step, id, label, path, program, out);
            path.pop();
            self.flush_output(out, OUTPUT_CHUNK);
            r?;
        }
        Ok(())
    }

    fn where_(&self, label: &str, path: &[usize], step: &Step) -> StepPath {
        let image = &self.loaded.image;
        let what = match step {
            Step::Execute(cs) => format!("execute '{}'", image.compute_sets[*cs as usize].name),
            Step::Copy(c) => format!("copy {c}"),
            Step::StreamIn { stream, .. } => {
                format!("copy from stream '{}'", image.streams[*stream as usize].name)
            }
            Step::StreamOut { stream, .. } => {
                format!("copy to stream '{}'", image.streams[*stream as usize].name)
            }
            Step::RemoteRead { buffer, repeat, .. } => {
                format!("read remote buffer '{}'[{repeat}]", image.remote_buffers[*buffer as usize].name)
            }
            Step::RemoteWrite { buffer, repeat, .. } => {
                format!("write remote buffer '{}'[{repeat}]", image.remote_buffers[*buffer as usize].name)
            }
            Step::Print { label, .. } => format!("print '{label}'"),
            Step::Repeat { count, .. } => format!("repeat {count}"),
            Step::While { .. } => "while".into(),
            Step::If { .. } => "if".into(),
            Step::Switch { .. } => "switch".into(),
            Step::Call(f) => format!("call '{}'", image.functions[*f as usize].name),
            Step::Sync => "sync".into(),
            Step::Block { name, .. } => format!("block '{name}'"),
            Step::Collective(c) => format!("{} '{}'", c.kind.name(), c.label),
        };
        StepPath { program: label.to_string(), indices: path.to_vec(), what }
    }

    /// Counts a step (or a loop iteration) and stops the run past
    /// `--max-cycles` or `--timeout`.
    fn charge(&mut self, label: &str, path: &[usize], step: &Step) -> Result<(), RunError> {
        self.totals.steps = self.totals.steps.saturating_add(1);
        if self.interrupted() {
            return Err(RunError::Interrupted { step: self.where_(label, path, step) });
        }
        if let Some((at, millis)) = self.deadline {
            if Instant::now() >= at {
                return Err(RunError::Timeout { millis, step: self.where_(label, path, step) });
            }
        }
        if let Some(limit) = self.max_cycles {
            let (used, what) = match self.kind {
                DeviceKind::Sim => (self.totals.cycles, "cycles"),
                DeviceKind::Cpu => (self.totals.steps, "steps"),
            };
            if used > limit {
                return Err(RunError::MaxCycles { limit, used, what, step: self.where_(label, path, step) });
            }
        }
        Ok(())
    }

    fn sync(&mut self, program: u32) {
        if self.kind == DeviceKind::Sim {
            let c = u64::from(self.loaded.image.target.sync_cycles);
            let from = self.totals.cycles;
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(c);
                t.sync = t.sync.saturating_add(c);
            });
            if let Some(rec) = &mut self.rec {
                rec.sync(from, c);
            }
        }
    }

    /// A predicate broadcast: a sync, then a one-word exchange on every
    /// tile; `node` is the branch or loop in the profiles.
    fn control(&mut self, program: u32, node: u32) {
        if self.kind == DeviceKind::Sim {
            self.sync(program);
            let c = cost::branch_exchange_cycles();
            let tiles = self.loaded.image.tiles.len() as u64;
            let from = self.totals.cycles;
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(c);
                t.exchange = t.exchange.saturating_add(c);
                t.exchange_tile = t.exchange_tile.saturating_add(c.saturating_mul(tiles));
            });
            if let Some(rec) = &mut self.rec {
                rec.broadcast(node, from, c, tiles as u32);
            }
        }
    }

    /// A repeat iteration or a call: the tiles' own loop or branch.
    fn loop_step(&mut self, program: u32) {
        if self.kind == DeviceKind::Sim {
            self.totals.charge(program, |t| t.cycles = t.cycles.saturating_add(cost::LOOP_CYCLES));
            if let Some(rec) = &mut self.rec {
                rec.control_cycles = rec.control_cycles.saturating_add(cost::LOOP_CYCLES);
            }
        }
    }

    /// A host transfer: `node` is its `StreamCopy` in the profiles, `here`
    /// the step (for a meeting of the replicas: [`Machine::sync_replicas`]).
    fn host_transfer(
        &mut self,
        program: u32,
        node: u32,
        regions: &[Region],
        here: Here,
    ) -> Result<(), RunError> {
        let start = self.totals.cycles;
        if self.spans.host {
            self.sync_replicas(program, here)?;
        }
        if self.kind != DeviceKind::Sim {
            return Ok(());
        }
        self.sync(program);
        let synced = self.totals.cycles;
        let bytes: u64 = regions.iter().map(|r| u64::from(r.bytes)).sum();
        // No bytes, no tile taking part: nothing to wait for (the graph
        // profile's estimate, per tile taking part, says the same).
        let c = match bytes {
            0 => 0,
            _ => cost::host_transfer_cycles(bytes, self.loaded.image.target.clock_mhz),
        };
        let from = self.totals.cycles;
        self.totals.charge(program, |t| {
            t.cycles = t.cycles.saturating_add(c);
            t.host = t.host.saturating_add(c);
        });
        if let Some(rec) = &mut self.rec {
            let mut tiles: Vec<u32> = regions.iter().map(|r| r.tile).collect();
            tiles.sort_unstable();
            tiles.dedup();
            let loaded = self.loaded.clone();
            rec.stream_copy(&loaded.tree, node, from, c, tiles.len() as u32, bytes);
        }
        if let Some(b) = &mut self.blocks {
            if b.records_transfer(node) {
                let data = match bytes {
                    0 => 0,
                    _ => cost::host_transfer_data_cycles(bytes, self.loaded.image.target.clock_mhz),
                };
                b.transfer(node, [start, synced, synced.saturating_add(data), synced.saturating_add(c)]);
            }
        }
        Ok(())
    }

    /// A sync of every replica's IPUs (Poplar's second sync group,
    /// [`super::SyncSpans`]): this replica waits at `here` until the
    /// latest replica arrives, on both devices, as at a collective; on
    /// `sim` the wait is sync time.
    fn sync_replicas(&mut self, program: u32, (label, path, step): Here) -> Result<(), RunError> {
        let Some(fabric) = self.fabric.clone() else {
            return Ok(());
        };
        let at = self.where_(label, path, step);
        let arrived = self.totals.cycles;
        let arrival = Arrival { step: at.to_string(), cycles: arrived, input: Vec::new() };
        let latest = fabric.sync(self.replica, arrival).map_err(|message| RunError::Meeting {
            what: crate::replicas::ALL_REPLICAS_SYNC.to_string(),
            message,
            step: at.to_string(),
        })?;
        self.wait_until(program, arrived, latest);
        Ok(())
    }

    /// Charges the wait from `arrived` until `latest` (another replica's
    /// arrival at a meeting) as sync time, on `sim`.
    fn wait_until(&mut self, program: u32, arrived: u64, latest: u64) {
        let wait = latest.saturating_sub(arrived);
        if self.kind == DeviceKind::Sim && wait > 0 {
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(wait);
                t.sync = t.sync.saturating_add(wait);
            });
            if let Some(rec) = &mut self.rec {
                rec.sync(arrived, wait);
            }
        }
    }

    fn step(
        &mut self,
        step: &Step,
        id: &StepIds,
        label: &str,
        path: &mut Vec<usize>,
        program: u32,
        out: &mut Sink,
    ) -> Result<(), RunError> {
        let started = self.block_begin();
        self.charge(label, path, step)?;
        let loaded = self.loaded.clone();
        let image = &loaded.image;
        match step {
            Step::Execute(cs) => {
                let cs = *cs as usize;
                let (xin, xout) = self.cs_info[cs].clone();
                let name = &image.compute_sets[cs].name;
                if self.spans.ipus && xin.external_cycles > 0 {
                    self.sync_replicas(program, (label, path, step))?;
                }
                self.sync(program);
                let x = &image.compute_sets[cs];
                if let Some(node) = id.pre {
                    let at = self.block_begin();
                    match x.in_by_tile {
                        // The compute copies each tile's data in.
                        true => self.charge_exchange(&x.exchange_in, &xin, program, node),
                        false => self.exchange(&x.exchange_in, &xin, 2 * cs, program, node),
                    }
                    self.block_end(node, at);
                }
                self.compute(cs, program, id.node).map_err(|fault| match self.interrupted() {
                    true => RunError::Interrupted { step: self.where_(label, path, step) },
                    false => RunError::Vertex { fault, step: self.where_(label, path, step) },
                })?;
                if let Some(tile) = self.printf_full.take() {
                    return Err(RunError::Program(format!(
                        "tile {tile} printed more than {} KiB with printf in compute set '{name}' (a compute \
                         set's printf output is held until it ends), at {}",
                        linker::host::PRINTF_LIMIT >> 10,
                        self.where_(label, path, step)
                    )));
                }
                if let Some(node) = id.post {
                    let at = self.block_begin();
                    if self.spans.ipus && xout.external_cycles > 0 {
                        self.sync_replicas(program, (label, path, step))?;
                    }
                    self.sync(program);
                    self.exchange(&image.compute_sets[cs].exchange_out, &xout, 2 * cs + 1, program, node);
                    self.block_end(node, at);
                }
            }
            Step::Copy(c) => {
                let info = self.copy_info[*c as usize].clone();
                if self.spans.ipus && info.external_cycles > 0 {
                    self.sync_replicas(program, (label, path, step))?;
                }
                self.sync(program);
                let xi = 2 * image.compute_sets.len() + *c as usize;
                self.exchange(&image.copies[*c as usize], &info, xi, program, id.node);
            }
            Step::StreamIn { stream, regions } => {
                let s = &image.streams[*stream as usize];
                let block = (element_count(&s.shape) * u64::from(s.elem.size())) as usize;
                if let Some(outside) = &mut self.host.outside[*stream as usize] {
                    let mut data = vec![0; block];
                    outside.fill(&mut data).map_err(|message| RunError::Stream {
                        stream: s.name.clone(),
                        message,
                        step: self.where_(label, path, step),
                    })?;
                    self.scatter(regions, &data);
                    self.host_transfer(program, id.node, regions, (label, path, step))?;
                    self.block_end(id.node, started);
                    return Ok(());
                }
                let (buf, pos, connected) = &mut self.host.streams[*stream as usize];
                if !*connected || buf.is_empty() {
                    return Err(RunError::Unconnected {
                        stream: s.name.clone(),
                        step: self.where_(label, path, step),
                    });
                }
                let mut data = Vec::with_capacity(block);
                while data.len() < block {
                    let take = (block - data.len()).min(buf.len() - *pos);
                    data.extend_from_slice(&buf[*pos..*pos + take]);
                    *pos = (*pos + take) % buf.len();
                }
                self.scatter(regions, &data);
                self.host_transfer(program, id.node, regions, (label, path, step))?;
            }
            Step::StreamOut { stream, regions } => {
                let data = self.gather(regions);
                if let Some(outside) = &mut self.host.outside[*stream as usize] {
                    outside.drain(&data).map_err(|message| RunError::Stream {
                        stream: image.streams[*stream as usize].name.clone(),
                        message,
                        step: self.where_(label, path, step),
                    })?;
                    self.host_transfer(program, id.node, regions, (label, path, step))?;
                    self.block_end(id.node, started);
                    return Ok(());
                }
                let (buf, pos, connected) = &mut self.host.streams[*stream as usize];
                if *connected && !buf.is_empty() {
                    let mut at = 0;
                    while at < data.len() {
                        let take = (data.len() - at).min(buf.len() - *pos);
                        buf[*pos..*pos + take].copy_from_slice(&data[at..at + take]);
                        *pos = (*pos + take) % buf.len();
                        at += take;
                    }
                } else {
                    buf.extend_from_slice(&data);
                }
                self.host_transfer(program, id.node, regions, (label, path, step))?;
            }
            Step::RemoteRead { buffer, repeat, regions } => {
                let b = &image.remote_buffers[*buffer as usize];
                let block = (element_count(&b.shape) * u64::from(b.elem.size())) as usize;
                let at = block * *repeat as usize;
                let data = self.host.remote_read(*buffer as usize, at, block)?;
                self.scatter(regions, &data);
                self.host_transfer(program, id.node, regions, (label, path, step))?;
            }
            Step::RemoteWrite { buffer, repeat, regions } => {
                let b = &image.remote_buffers[*buffer as usize];
                let block = (element_count(&b.shape) * u64::from(b.elem.size())) as usize;
                let at = block * *repeat as usize;
                let data = self.gather(regions);
                self.host.remote_mut(*buffer as usize)?[at..at + block].copy_from_slice(&data);
                self.host_transfer(program, id.node, regions, (label, path, step))?;
            }
            Step::Print { label: text, style, elem, shape, regions } => {
                let data = self.gather(regions);
                let s = format::print_tensor_as(*style, text, *elem, shape, &data);
                self.host.output.extend_from_slice(s.as_bytes());
                self.host_transfer(program, id.node, regions, (label, path, step))?;
            }
            Step::Repeat { count, body } => {
                for _ in 0..*count {
                    self.steps(body, &id.bodies[0], label, path, program, out)?;
                    self.end_iteration(program, id.node);
                    self.loop_step(program);
                    self.charge(label, path, step)?;
                }
            }
            Step::While { cond, pred, until, body } => loop {
                self.steps(cond, &id.bodies[0], label, path, program, out)?;
                self.control(program, id.node);
                self.charge(label, path, step)?;
                if (self.scalar(pred) != 0) == *until {
                    break;
                }
                self.steps(body, &id.bodies[1], label, path, program, out)?;
                self.end_iteration(program, id.node);
            },
            Step::If { pred, then, otherwise } => {
                self.control(program, id.node);
                let (body, ids) =
                    if self.scalar(pred) != 0 { (then, &id.bodies[0]) } else { (otherwise, &id.bodies[1]) };
                self.steps(body, ids, label, path, program, out)?;
            }
            Step::Switch { selector, cases, default } => {
                self.control(program, id.node);
                let v = self.scalar_exact(selector);
                let case = cases.iter().position(|(c, _)| *c == v);
                let body = case.map_or(default, |i| &cases[i].1);
                let ids = &id.bodies[case.unwrap_or(cases.len())];
                self.steps(body, ids, label, path, program, out)?;
            }
            Step::Call(f) => {
                self.loop_step(program);
                let func = &image.functions[*f as usize];
                let label = format!("function '{}'", func.name);
                let mut inner = Vec::new();
                let ids = &loaded.tree.function_steps[*f as usize];
                let root = loaded.tree.functions[*f as usize];
                let at = self.block_begin();
                self.steps(&func.body, ids, &label, &mut inner, program, out)?;
                self.block_end(root, at);
            }
            Step::Block { body, .. } => self.steps(body, &id.bodies[0], label, path, program, out)?,
            Step::Sync => self.sync(program),
            Step::Collective(c) => self.collective(c, program, id.node, label, path, step)?,
        }
        self.block_end(id.node, started);
        Ok(())
    }

    /// The sync of all replicas that ends a replicated run: waits until
    /// cycle `latest` (the slowest replica's end).
    pub(crate) fn final_sync(&mut self, program: u32, latest: u64) {
        let wait = latest.saturating_sub(self.totals.cycles);
        if wait == 0 {
            return;
        }
        let from = self.totals.cycles;
        self.totals.charge(program, |t| {
            t.cycles = t.cycles.saturating_add(wait);
            t.sync = t.sync.saturating_add(wait);
        });
        if let Some(rec) = &mut self.rec {
            rec.sync(from, wait);
        }
    }

    /// A cross-replica collective: meets the other replicas (a machine
    /// alone computes it by itself), writes its output and, on `sim`,
    /// charges the wait for the latest replica as sync, then the global
    /// sync and the link traffic as global exchange.
    fn collective(
        &mut self,
        c: &Collective,
        program: u32,
        node: u32,
        label: &str,
        path: &[usize],
        step: &Step,
    ) -> Result<(), RunError> {
        let mut input = std::mem::take(&mut self.collective_buffer);
        self.gather_into(&c.input, &mut input);
        let in_bytes = input.len() as u64;
        let arrived = self.totals.cycles;
        let (output, latest) = match &self.fabric {
            None => {
                let out = crate::collective::outputs(c.kind, c.op, c.group, c.elem, vec![input], 0..1);
                (out.into_iter().next().unwrap_or_default(), arrived)
            }
            Some(fabric) => {
                let at = self.where_(label, path, step);
                let arrival = Arrival { step: at.to_string(), cycles: arrived, input };
                let d = fabric.meet(self.replica, c, arrival).map_err(|message| RunError::Meeting {
                    what: format!("collective '{}'", c.label),
                    message,
                    step: at.to_string(),
                })?;
                (d.output, d.cycles)
            }
        };
        self.scatter(&c.output, &output);
        let out_bytes = output.len() as u64;
        self.collective_buffer = output;
        self.wait_until(program, arrived, latest);
        if self.kind == DeviceKind::Sim {
            let target = &self.loaded.image.target;
            let g = u64::from(c.group.size(target.replicas).unwrap_or(1));
            if g > 1 {
                let links = cost::collective_links(&target.links, c.group, target.replicas, target.ipus);
                let link = cost::collective_cycles(c.kind, g, in_bytes, out_bytes, links, target.clock_mhz);
                let total = cost::GLOBAL_SYNC_CYCLES.saturating_add(link);
                let from = self.totals.cycles;
                self.totals.charge(program, |t| {
                    t.cycles = t.cycles.saturating_add(total);
                    t.external = t.external.saturating_add(total);
                });
                if let Some(rec) = &mut self.rec {
                    rec.global_exchange(node, from, total, in_bytes);
                }
            }
        }
        Ok(())
    }
}
