//! Where replicas meet: the rendezvous behind every cross-replica
//! collective.
//!
//! Each replica runs the same control program on its own copy of tile
//! memory. At a collective step it hands its input and its cycle count to
//! the [`Fabric`] and blocks until every replica has arrived at its own
//! collective; the last to arrive checks that all stand at the same step,
//! computes every replica's output ([`crate::collective::outputs`], in the
//! documented order) and wakes the others. All replicas meet at every
//! collective (a group collective still waits for all): on the IPU the
//! sync that starts it spans the replicas' IPUs.
//!
//! A replica that stops with an error, or finishes its program while
//! others wait at a collective, ends the run of every replica: the others
//! return [`RunError::Collective`] and the engine reports the first
//! replica's own error.
//!
//! [`LocalFabric`] joins replicas run by threads of one process; an MPI
//! fabric joins ranks.

use std::sync::{Condvar, Mutex};

use linker::image::Collective;

use crate::error::RunError;

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

/// The meeting point of a set of replicas.
pub trait Fabric: Send + Sync {
    /// Blocks until every replica has arrived at a collective, then
    /// returns replica `replica`'s output. `Err` says why the meeting
    /// cannot happen (another replica stopped, or stands elsewhere).
    fn meet(&self, replica: u32, step: &Collective, arrival: Arrival) -> Result<Departure, String>;

    /// Replica `replica`'s run ended, with its error if it failed.
    fn leave(&self, replica: u32, error: Option<&RunError>);
}

/// Replicas run by threads of this process.
pub struct LocalFabric {
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
    finished: Vec<bool>,
    /// The label of the collective the waiting replicas stand at.
    waiting_at: String,
}

impl LocalFabric {
    pub fn new(replicas: u32) -> LocalFabric {
        let n = replicas as usize;
        LocalFabric {
            state: Mutex::new(State {
                generation: 0,
                arrivals: (0..n).map(|_| None).collect(),
                results: (0..n).map(|_| None).collect(),
                abort: None,
                finished: vec![false; n],
                waiting_at: String::new(),
            }),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A replica thread that panicked is reported by the join; the
        // state itself stays consistent under the lock.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl State {
    fn waiting(&self) -> Option<usize> {
        self.arrivals.iter().position(Option::is_some)
    }
}

impl Fabric for LocalFabric {
    fn meet(&self, replica: u32, step: &Collective, arrival: Arrival) -> Result<Departure, String> {
        let mut s = self.lock();
        if let Some(why) = &s.abort {
            return Err(why.clone());
        }
        if let Some(done) = s.finished.iter().position(|&f| f) {
            let why = format!(
                "replica {done} finished its program while replica {replica} waits at collective '{}'",
                step.label
            );
            s.abort = Some(why.clone());
            self.wake.notify_all();
            return Err(why);
        }
        s.waiting_at = step.label.clone();
        s.arrivals[replica as usize] = Some(arrival);
        if s.arrivals.iter().all(Option::is_some) {
            let arrivals: Vec<Arrival> = s.arrivals.iter_mut().filter_map(Option::take).collect();
            if let Some(j) = arrivals.iter().position(|a| a.step != arrivals[0].step) {
                let why = format!(
                    "the replicas diverged: replica 0 is at {} while replica {j} is at {}",
                    arrivals[0].step, arrivals[j].step
                );
                s.abort = Some(why.clone());
                self.wake.notify_all();
                return Err(why);
            }
            let latest = arrivals.iter().map(|a| a.cycles).max().unwrap_or(0);
            let inputs: Vec<Vec<u8>> = arrivals.into_iter().map(|a| a.input).collect();
            let outputs = crate::collective::outputs(step.kind, step.op, step.group, step.elem, &inputs);
            for (slot, output) in s.results.iter_mut().zip(outputs) {
                *slot = Some(Departure { output, cycles: latest });
            }
            s.generation += 1;
            self.wake.notify_all();
        } else {
            let generation = s.generation;
            while s.generation == generation && s.abort.is_none() {
                s = self.wake.wait(s).unwrap_or_else(|p| p.into_inner());
            }
            if s.generation == generation {
                return Err(s.abort.clone().unwrap_or_default());
            }
        }
        s.results[replica as usize].take().ok_or_else(|| "the collective lost its result".to_string())
    }

    fn leave(&self, replica: u32, error: Option<&RunError>) {
        let mut s = self.lock();
        match error {
            Some(e) => {
                if s.abort.is_none() {
                    s.abort = Some(format!("replica {replica} stopped: {e}"));
                }
            }
            None => {
                s.finished[replica as usize] = true;
                if let (None, Some(w)) = (&s.abort, s.waiting()) {
                    s.abort = Some(format!(
                        "replica {replica} finished its program while replica {w} waits at collective '{}'",
                        s.waiting_at
                    ));
                }
            }
        }
        self.wake.notify_all();
    }
}
