//! Where replicas meet: the rendezvous behind every cross-replica
//! collective, within one process and across processes.
//!
//! Each replica runs the same control program on its own copy of tile
//! memory. At a collective step it hands its input and its cycle count to
//! the [`Fabric`] and blocks until every replica of the job has arrived at
//! its own collective. The last of a process's replicas to arrive makes
//! the meeting: with other processes ([`Transport`], MPI ranks) it first
//! exchanges what its replicas brought for what theirs did; then it checks
//! that all stand at the same step, computes the outputs
//! ([`crate::collective::outputs`], in the documented order, the same bits
//! in every process) and wakes the others. All replicas meet at every
//! collective (a group collective still waits for all): on the IPU the
//! sync that starts it spans the replicas' IPUs. They meet the same way,
//! with no data, at the other syncs of all replicas ([`Fabric::sync`]:
//! host transfers, and exchange between IPUs under `ipuAndAll`). A run
//! ends with one more meeting, once every replica has finished, that
//! agrees on the latest replica's cycle count.
//!
//! A replica that stops with an error, or finishes its program while
//! others wait at a collective, ends the run of every replica: in one
//! process the others return [`RunError::Meeting`] and the engine
//! reports the first replica's own error; across processes a replica's
//! own error stops the whole job ([`Transport::abort`]), and a divergence
//! is an error on every process.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex};

use linker::image::Collective;
use serde::{Deserialize, Serialize};
use vocab::{CollectiveKind, CollectiveOp};

use crate::collective;
use crate::error::RunError;

/// What a sync of every replica's IPUs is called in messages.
pub const ALL_REPLICAS_SYNC: &str = "the sync of all replicas";

/// What one replica brings to a collective.
pub struct Arrival {
    /// The step's identity (its program position and label): every
    /// replica must stand at the same one.
    pub step: String,
    /// The replica's cycle count when it arrived.
    pub cycles: u64,
    /// Its input elements' bytes, in row-major order.
    pub input: Vec<u8>,
}

/// What a replica takes away.
pub struct Departure {
    pub output: Vec<u8>,
    /// The latest arrival's cycle count: every replica leaves then.
    pub cycles: u64,
}

/// The processes of a job whose replicas are spread over them (MPI ranks):
/// each holds `replicas / ranks` consecutive replicas, in rank order.
pub trait Transport: Send + Sync {
    /// This process's number, from 0.
    fn rank(&self) -> u32;
    /// How many processes the job has.
    fn ranks(&self) -> u32;
    /// Every process's message, in rank order; every process calls it the
    /// same number of times.
    fn all_gather(&self, mine: Vec<u8>) -> Vec<Vec<u8>>;
    /// Sends `to_each[k]` to process `k` and returns what every process
    /// sent this one, in rank order; every process calls it at the same
    /// point.
    fn all_to_all(&self, to_each: Vec<Vec<u8>>) -> Vec<Vec<u8>>;
    /// Ends the whole job after a replica of this process failed, having
    /// written `message` to this process's standard error.
    fn abort(&self, message: &str) -> !;
}

/// The meeting point of the replicas of one run.
pub trait Fabric: Send + Sync {
    /// Blocks until every replica has arrived at a collective, then
    /// returns replica `replica`'s output. `Err` says why the meeting
    /// cannot happen (another replica stopped, or stands elsewhere).
    fn meet(&self, replica: u32, step: &Collective, arrival: Arrival) -> Result<Departure, String>;

    /// Blocks until every replica has arrived at a sync that spans all
    /// their IPUs (Poplar's second sync group: `syncConfiguration`,
    /// `target.syncReplicasIndependently`); returns the latest arrival's
    /// cycle count. `Err` as for [`Fabric::meet`].
    fn sync(&self, replica: u32, arrival: Arrival) -> Result<u64, String>;

    /// Replica `replica`'s run ended at cycle `cycles`, with its error if
    /// it failed.
    fn leave(&self, replica: u32, cycles: u64, error: Option<&RunError>);

    /// The latest replica's cycle count at the end of the run (after every
    /// local replica has left).
    fn latest_end(&self) -> u64;

    /// Why the replicas could not meet, if they could not.
    fn failure(&self) -> Option<Failure>;
}

/// Every process's round combined: `Ok(None)` when all finished, the
/// cycles and inputs of every replica when all stand at one collective,
/// else the failure the lowest replica that waited reports. The inputs are
/// moved out of the rounds.
#[allow(clippy::type_complexity)]
fn meeting(rounds: &mut [Round]) -> Result<Option<(Vec<u64>, Vec<Vec<u8>>)>, Failure> {
    if let Some(f) = rounds.iter().find_map(|r| if let Round::Failed(f) = r { Some(f) } else { None }) {
        return Err(f.clone());
    }
    let done =
        rounds.iter().find_map(|r| if let Round::Done { first, .. } = r { Some(*first) } else { None });
    let meet = rounds.iter().find_map(|r| match r {
        Round::Meet { first, what, step, .. } => Some((*first, what, step)),
        _ => None,
    });
    match (done, meet) {
        (_, None) => Ok(None),
        (Some(d), Some((w, what, step))) => Err(Failure {
            replica: w,
            what: what.clone(),
            step: step.clone(),
            message: format!("replica {d} finished its program while replica {w} waits at {what}"),
        }),
        (None, Some((w, what, step))) => {
            let (what, step) = (what.clone(), step.clone());
            let mut cycles = Vec::new();
            let mut inputs = Vec::new();
            for r in rounds.iter_mut() {
                if let Round::Meet { first, step: other, cycles: c, inputs: i, .. } = r {
                    if *other != step {
                        return Err(Failure {
                            replica: w,
                            what,
                            message: format!(
                                "the replicas diverged: replica {w} is at {step} while replica {first} is at {other}"
                            ),
                            step,
                        });
                    }
                    cycles.extend_from_slice(c);
                    inputs.append(i);
                }
            }
            Ok(Some((cycles, inputs)))
        }
    }
}

/// One process's replicas `first .. first + local`, run by its threads,
/// joined to other processes' by `transport` when there is one.
pub struct LocalFabric {
    first: u32,
    transport: Option<Arc<dyn Transport>>,
    state: Mutex<State>,
    wake: Condvar,
}

struct State {
    /// Meetings completed so far.
    generation: u64,
    arrivals: Vec<Option<Arrival>>,
    results: Vec<Option<Departure>>,
    /// Set once the run cannot go on; every later meeting fails with it.
    abort: Option<String>,
    /// Per local replica: its end cycle once it finished.
    finished: Vec<Option<u64>>,
    failed: bool,
    /// What the waiting replicas stand at: `collective 'LABEL'`, or a
    /// sync of all replicas.
    waiting_at: String,
    latest_end: u64,
    failure: Option<Failure>,
}

/// Why the replicas meet.
#[derive(Clone, Copy)]
enum Purpose<'a> {
    /// At a collective, whose outputs the meeting computes.
    Collective(&'a Collective),
    /// At a sync that spans every replica's IPUs: only the latest arrival
    /// matters.
    Sync,
    /// At the end of the run, when the last local replica leaves.
    End,
}

impl Round {
    /// The round as one message. Inputs do not travel in it: once every
    /// process knows that all stand at the same collective, they exchange
    /// what that collective needs ([`over_ranks`]).
    fn encode(&self) -> Vec<u8> {
        bincode::serde::encode_to_vec(self, bincode::config::standard()).unwrap_or_default()
    }

    fn decode(b: &[u8]) -> Result<Round, String> {
        let (round, _): (Round, _) =
            bincode::serde::decode_from_slice(b, bincode::config::standard()).map_err(|e| e.to_string())?;
        Ok(round)
    }
}

/// Why a run's replicas could not meet, as the first replica that waited
/// in vain reports it: the same text in one process and over many.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Failure {
    pub replica: u32,
    /// What it waited at (`collective 'LABEL'`, or a sync of all
    /// replicas), and where that is in the program.
    pub what: String,
    pub step: String,
    pub message: String,
}

impl Failure {
    /// The error the engine reports for the run.
    pub fn error(&self) -> RunError {
        RunError::Replica {
            replica: self.replica,
            error: Box::new(RunError::Meeting {
                what: self.what.clone(),
                message: self.message.clone(),
                step: self.step.clone(),
            }),
        }
    }
}

/// What a process brings to a meeting across processes.
#[derive(Serialize, Deserialize)]
enum Round {
    /// Every local replica stands at `step` (`what`: a collective or a
    /// sync), with these cycles and inputs; `first` is the first local
    /// replica. The inputs stay with the process ([`Round::encode`]).
    Meet {
        first: u32,
        what: String,
        step: String,
        cycles: Vec<u64>,
        #[serde(skip)]
        inputs: Vec<Vec<u8>>,
    },
    /// Every local replica from `first` finished; the latest at `cycles`.
    Done { first: u32, cycles: u64 },
    /// The local replicas cannot meet.
    Failed(Failure),
}

impl LocalFabric {
    /// The replicas of a process that runs all of them.
    pub fn new(replicas: u32) -> LocalFabric {
        LocalFabric::share(0, replicas, None)
    }

    /// `local` replicas from `first`, joined to other processes by
    /// `transport`.
    pub fn share(first: u32, local: u32, transport: Option<Arc<dyn Transport>>) -> LocalFabric {
        let n = local as usize;
        LocalFabric {
            first,
            transport,
            state: Mutex::new(State {
                generation: 0,
                arrivals: (0..n).map(|_| None).collect(),
                results: (0..n).map(|_| None).collect(),
                abort: None,
                finished: vec![None; n],
                failed: false,
                waiting_at: String::new(),
                latest_end: 0,
                failure: None,
            }),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A replica thread that panicked is reported by the join; the
        // state itself stays consistent under the lock.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets the abort reason (the first one stays) and wakes everyone.
    fn stop(&self, s: &mut State, why: String) -> String {
        let why = s.abort.get_or_insert(why).clone();
        self.wake.notify_all();
        why
    }

    /// The meeting, once every local replica has arrived or left: the
    /// outputs of a collective, the end of a sync, the end of the run, or
    /// why none of them.
    fn hold(&self, s: &mut State, purpose: Purpose) {
        let mut mine = self.round(s);
        let mut held = Vec::new();
        let rounds = match &self.transport {
            None => vec![mine],
            Some(t) => {
                if let Round::Meet { inputs, .. } = &mut mine {
                    held = std::mem::take(inputs);
                }
                t.all_gather(mine.encode())
                    .iter()
                    .map(|b| {
                        Round::decode(b).unwrap_or_else(|e| {
                            Round::Failed(Failure {
                                replica: self.first,
                                what: s.waiting_at.clone(),
                                step: String::new(),
                                message: format!("a process sent an unreadable message: {e}"),
                            })
                        })
                    })
                    .collect()
            }
        };
        for a in s.arrivals.iter_mut() {
            *a = None;
        }
        let mut rounds = rounds;
        match meeting(&mut rounds) {
            Err(failure) => {
                s.failure = Some(failure.clone());
                self.stop(s, failure.message);
            }
            Ok(None) => {
                s.latest_end = rounds
                    .iter()
                    .map(|r| if let Round::Done { cycles, .. } = r { *cycles } else { 0 })
                    .max()
                    .unwrap_or(0);
            }
            Ok(Some((cycles, inputs))) => {
                let latest = cycles.iter().copied().max().unwrap_or(0);
                let local = self.first as usize..self.first as usize + s.results.len();
                let mine = match (purpose, &self.transport) {
                    // Every replica finished or every one arrived: a
                    // leaving replica cannot make a meeting.
                    (Purpose::End, _) => return,
                    (Purpose::Sync, _) => Ok(vec![Vec::new(); local.len()]),
                    (Purpose::Collective(step), None) => {
                        Ok(collective::outputs(step.kind, step.op, step.group, step.elem, inputs, local))
                    }
                    (Purpose::Collective(step), Some(t)) => {
                        over_ranks(t.as_ref(), step, held, cycles.len(), local)
                    }
                };
                let mine = match mine {
                    Ok(mine) => mine,
                    Err(message) => {
                        let failure = Failure {
                            replica: self.first,
                            what: s.waiting_at.clone(),
                            step: String::new(),
                            message,
                        };
                        s.failure = Some(failure.clone());
                        self.stop(s, failure.message);
                        return;
                    }
                };
                for (slot, output) in s.results.iter_mut().zip(mine) {
                    *slot = Some(Departure { output, cycles: latest });
                }
                s.generation += 1;
                self.wake.notify_all();
            }
        }
    }

    /// What this process brings to the meeting.
    fn round(&self, s: &mut State) -> Round {
        let first = self.first;
        let arrived = s.arrivals.iter().position(Option::is_some);
        let done = s.finished.iter().position(Option::is_some);
        match (arrived, done) {
            (None, _) => {
                Round::Done { first, cycles: s.finished.iter().flatten().copied().max().unwrap_or(0) }
            }
            (Some(a), Some(d)) => {
                let at = s.arrivals[a].as_ref().map(|x| x.step.clone()).unwrap_or_default();
                Round::Failed(Failure {
                    replica: first + a as u32,
                    what: s.waiting_at.clone(),
                    step: at,
                    message: format!(
                        "replica {} finished its program while replica {} waits at {}",
                        first + d as u32,
                        first + a as u32,
                        s.waiting_at
                    ),
                })
            }
            (Some(_), None) => {
                let arrivals: Vec<&Arrival> = s.arrivals.iter().flatten().collect();
                if let Some(j) = arrivals.iter().position(|a| a.step != arrivals[0].step) {
                    return Round::Failed(Failure {
                        replica: first,
                        what: s.waiting_at.clone(),
                        step: arrivals[0].step.clone(),
                        message: format!(
                            "the replicas diverged: replica {first} is at {} while replica {} is at {}",
                            arrivals[0].step,
                            first + j as u32,
                            arrivals[j].step
                        ),
                    });
                }
                Round::Meet {
                    first,
                    what: s.waiting_at.clone(),
                    step: arrivals[0].step.clone(),
                    cycles: arrivals.iter().map(|a| a.cycles).collect(),
                    inputs: s.arrivals.iter_mut().flatten().map(|a| std::mem::take(&mut a.input)).collect(),
                }
            }
        }
    }

    /// Replica `replica` arrives at a meeting (`what`, for messages) and
    /// blocks until every replica of the job has arrived; the last local
    /// arrival holds it.
    fn gather(
        &self,
        replica: u32,
        what: String,
        arrival: Arrival,
        purpose: Purpose,
    ) -> Result<Departure, String> {
        let local = (replica - self.first) as usize;
        let mut s = self.lock();
        if let Some(why) = &s.abort {
            return Err(why.clone());
        }
        s.waiting_at = what;
        s.arrivals[local] = Some(arrival);
        let generation = s.generation;
        if LocalFabric::all_in(&s) && !s.failed {
            self.hold(&mut s, purpose);
        }
        while s.generation == generation && s.abort.is_none() {
            s = self.wake.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        if s.generation == generation {
            return Err(s.abort.clone().unwrap_or_default());
        }
        s.results[local].take().ok_or_else(|| "the meeting lost its result".to_string())
    }

    /// Whether every local replica has arrived at a meeting or left.
    fn all_in(s: &State) -> bool {
        s.arrivals.iter().zip(&s.finished).all(|(a, f)| a.is_some() || f.is_some())
    }
}

/// The outputs of collective `step` for this process's replicas `keep`,
/// when the job's `replicas` are spread over processes (each holding the
/// same number, in rank order) and `mine` are this process's inputs.
///
/// A reducing collective is computed where the data lies, as a
/// reduce-scatter then an all-gather: process `k` receives slice `k` of
/// every replica's elements, reduces it for every group (in group order,
/// as [`collective::outputs`] does, so the bits are the same), and every
/// process gathers the reduced slices. Each process then sends and
/// receives about twice its own data, whatever the number of processes.
/// The other collectives gather every replica's input.
fn over_ranks(
    t: &dyn Transport,
    step: &Collective,
    mine: Vec<Vec<u8>>,
    replicas: usize,
    keep: Range<usize>,
) -> Result<Vec<Vec<u8>>, String> {
    let bad = || "a process sent a collective message of the wrong size".to_string();
    let ranks = (t.ranks() as usize).max(1);
    let per = replicas / ranks;
    let len = mine.first().map_or(0, Vec::len);
    if per * ranks != replicas || mine.len() != per || mine.iter().any(|m| m.len() != len) {
        return Err(bad());
    }
    if !step.kind.reduces() {
        let mut inputs = Vec::with_capacity(replicas);
        for m in t.all_gather(mine.concat()) {
            if m.len() != per * len {
                return Err(bad());
            }
            inputs.extend((0..per).map(|j| m[j * len..(j + 1) * len].to_vec()));
        }
        return Ok(collective::outputs(step.kind, step.op, step.group, step.elem, inputs, keep));
    }
    let size = step.elem.size() as usize;
    let n = len / size;
    // Process k's slice of every vector: elements k·n/ranks .. (k+1)·n/ranks.
    let cut = |k: usize| k * n / ranks * size;
    let to_each = (0..ranks)
        .map(|k| {
            let mut to = Vec::with_capacity(per * (cut(k + 1) - cut(k)));
            for x in &mine {
                to.extend_from_slice(&x[cut(k)..cut(k + 1)]);
            }
            to
        })
        .collect();
    drop(mine);
    let received = t.all_to_all(to_each);
    let me = t.rank() as usize;
    let part = cut(me + 1) - cut(me);
    let mut slices: Vec<&[u8]> = Vec::with_capacity(replicas);
    for m in &received {
        if m.len() != per * part {
            return Err(bad());
        }
        slices.extend((0..per).map(|j| &m[j * part..(j + 1) * part]));
    }
    if slices.len() != replicas {
        return Err(bad());
    }
    let op = step.op.unwrap_or(CollectiveOp::Add);
    let groups = step.group.groups(replicas as u32);
    let mut reduced = Vec::with_capacity(groups.len() * part);
    for g in &groups {
        let members: Vec<&[u8]> = g.iter().map(|&m| slices[m as usize]).collect();
        reduced.extend_from_slice(&collective::reduce(op, step.elem, &members));
    }
    drop(received);
    let gathered = t.all_gather(reduced);
    if gathered.len() != ranks
        || gathered.iter().enumerate().any(|(k, m)| m.len() != groups.len() * (cut(k + 1) - cut(k)))
    {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(keep.len());
    for r in keep {
        let (gi, pos) = groups
            .iter()
            .enumerate()
            .find_map(|(gi, g)| g.iter().position(|&m| m as usize == r).map(|pos| (gi, pos)))
            .ok_or_else(bad)?;
        let mut full = Vec::with_capacity(len);
        for (k, m) in gathered.iter().enumerate() {
            let p = cut(k + 1) - cut(k);
            full.extend_from_slice(&m[gi * p..(gi + 1) * p]);
        }
        out.push(match step.kind {
            CollectiveKind::AllReduce => full,
            _ => collective::scatter_part(&full, size, groups[gi].len(), pos),
        });
    }
    Ok(out)
}

impl Fabric for LocalFabric {
    fn meet(&self, replica: u32, step: &Collective, arrival: Arrival) -> Result<Departure, String> {
        self.gather(replica, format!("collective '{}'", step.label), arrival, Purpose::Collective(step))
    }

    fn sync(&self, replica: u32, arrival: Arrival) -> Result<u64, String> {
        Ok(self.gather(replica, ALL_REPLICAS_SYNC.to_string(), arrival, Purpose::Sync)?.cycles)
    }

    fn leave(&self, replica: u32, cycles: u64, error: Option<&RunError>) {
        let local = (replica - self.first) as usize;
        let mut s = self.lock();
        s.finished[local] = Some(cycles);
        if let Some(e) = error {
            if !matches!(e, RunError::Meeting { .. }) {
                if let Some(t) = &self.transport {
                    t.abort(&format!("replica {replica}: {e}"));
                }
            }
            s.failed = true;
            self.stop(&mut s, format!("replica {replica} stopped: {e}"));
            return;
        }
        if s.abort.is_none() && !s.failed && LocalFabric::all_in(&s) {
            self.hold(&mut s, Purpose::End);
        }
        self.wake.notify_all();
    }

    fn failure(&self) -> Option<Failure> {
        self.lock().failure.clone()
    }

    fn latest_end(&self) -> u64 {
        let s = self.lock();
        s.latest_end.max(s.finished.iter().flatten().copied().max().unwrap_or(0))
    }
}

/// Which of a process's replicas (`first` and the `local - 1` after it, of
/// `total`) records profiles for `profiler.replicaToProfile` = `replica`:
/// 0 for the first, `i` for the `i`-th after it; `None` when another
/// process of the job holds it, which then records it. A replica past the
/// job's, or one held elsewhere when this process writes the job's files
/// (its first replica is 0), is an error.
pub(crate) fn profiled_replica(
    replica: u32,
    first: u32,
    local: u32,
    total: u32,
) -> Result<Option<usize>, String> {
    if replica >= total {
        return Err(format!(
            "engine option profiler.replicaToProfile is {replica}, but the graph has {total} replica{} (0 to {})",
            if total == 1 { "" } else { "s" },
            total - 1
        ));
    }
    if (first..first + local).contains(&replica) {
        return Ok(Some((replica - first) as usize));
    }
    if first == 0 {
        return Err(format!(
            "engine option profiler.replicaToProfile is {replica}, which another process of the job runs; \
             this process writes the job's profiles and runs replicas 0 to {}",
            local - 1
        ));
    }
    Ok(None)
}
