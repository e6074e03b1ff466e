//! The MPI side of a job launched by `poprun` (the `mpi` feature): each
//! process (`poplar-run`, or a C++ host program through libpoplar) is an
//! MPI rank running its share of the replicas, and
//! [`crate::replicas::Transport`] over MPI joins the shares.
//!
//! One service thread owns MPI: it initialises it, performs every
//! collective the replicas' threads ask for (an `MPI_Allgatherv` of
//! variable-length messages), and finalises it when the transport is
//! dropped or [`MpiTransport::finish`] asks. MPI handles cannot move
//! between threads, so no other thread calls MPI, and MPI needs no thread
//! support beyond a single thread.

use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use mpi::datatype::PartitionMut;
use mpi::traits::*;

/// A request to the MPI service thread.
enum Request {
    /// All-gather these bytes; the answer is every rank's, in rank order.
    AllGather(Vec<u8>, Sender<Vec<Vec<u8>>>),
    /// Send message `k` to rank `k`; the answer is what each rank sent
    /// this one, in rank order.
    AllToAll(Vec<Vec<u8>>, Sender<Vec<Vec<u8>>>),
    /// End the job with status 1.
    Abort,
    /// Finalise MPI and end the service thread.
    Finish,
}

/// [`crate::replicas::Transport`] over MPI's world communicator.
pub struct MpiTransport {
    rank: u32,
    ranks: u32,
    service: Mutex<Sender<Request>>,
    /// The program that names itself in messages (`poplar-run`, `poplar`).
    program: &'static str,
}

/// Starts MPI on a service thread for `program` (named in its messages).
/// Returns the transport and the thread, which ends (finalising MPI) once
/// every clone of the transport is dropped, or [`MpiTransport::finish`]
/// is called.
pub fn start(program: &'static str) -> Result<(Arc<MpiTransport>, JoinHandle<()>), String> {
    let (to_service, requests) = channel::<Request>();
    let (ready, started) = channel::<Result<(u32, u32), String>>();
    let service = std::thread::Builder::new()
        .name("mpi".into())
        .spawn(move || {
            let Some(universe) = mpi::initialize() else {
                let _ = ready.send(Err("MPI could not be initialised (or was already)".into()));
                return;
            };
            let world = universe.world();
            let _ = ready.send(Ok((world.rank() as u32, world.size() as u32)));
            for request in requests {
                match request {
                    Request::AllGather(mine, answer) => {
                        let _ = answer.send(all_gather(&world, &mine));
                    }
                    Request::AllToAll(to_each, answer) => {
                        let _ = answer.send(all_to_all(&world, &to_each));
                    }
                    Request::Abort => world.abort(1),
                    Request::Finish => break,
                }
            }
            // Dropping `universe` finalises MPI.
        })
        .map_err(|e| format!("cannot start the MPI thread: {e}"))?;
    let (rank, ranks) = started.recv().map_err(|_| "the MPI thread stopped".to_string())??;
    Ok((Arc::new(MpiTransport { rank, ranks, service: Mutex::new(to_service), program }), service))
}

impl MpiTransport {
    /// Asks the service thread to finalise MPI and end, whatever clones of
    /// the transport remain (a process that ends while an engine is still
    /// alive); every later collective returns nothing.
    pub fn finish(&self) {
        if let Ok(s) = self.service.lock() {
            let _ = s.send(Request::Finish);
        }
    }
}

/// Message `k` to rank `k`, and every rank's message to this one, in rank
/// order: the lengths first (`MPI_Alltoall`), then the bytes
/// (`MPI_Alltoallv`).
fn all_to_all(world: &mpi::topology::SimpleCommunicator, to_each: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let n = world.size() as usize;
    let sent: Vec<u64> = (0..n).map(|k| to_each.get(k).map_or(0, |m| m.len() as u64)).collect();
    let mut lengths = vec![0u64; n];
    world.all_to_all_into(&sent[..], &mut lengths[..]);
    let offsets = |ls: &[u64]| -> (Vec<i32>, Vec<i32>) {
        let counts: Vec<i32> = ls.iter().map(|&l| l as i32).collect();
        let displs = counts.iter().scan(0i32, |at, &c| Some(std::mem::replace(at, *at + c))).collect();
        (counts, displs)
    };
    let (send_counts, send_displs) = offsets(&sent);
    let (recv_counts, recv_displs) = offsets(&lengths);
    let out: Vec<u8> = (0..n).flat_map(|k| to_each.get(k).into_iter().flatten().copied()).collect();
    let mut all = vec![0u8; lengths.iter().sum::<u64>() as usize];
    // Every rank takes part, even with nothing to move: an empty buffer
    // is replaced by one byte that no count reaches.
    let mut spare = ([0u8; 1], [0u8; 1]);
    let send = if out.is_empty() { &spare.0[..] } else { &out[..] };
    let recv = if all.is_empty() { &mut spare.1[..] } else { &mut all[..] };
    let partition = mpi::datatype::Partition::new(send, &send_counts[..], &send_displs[..]);
    let mut into = PartitionMut::new(recv, &recv_counts[..], &recv_displs[..]);
    world.all_to_all_varcount_into(&partition, &mut into);
    let mut got = Vec::with_capacity(n);
    let mut at = 0usize;
    for l in lengths {
        got.push(all[at..at + l as usize].to_vec());
        at += l as usize;
    }
    got
}

/// Every rank's bytes, in rank order: the lengths first, then the bytes.
fn all_gather(world: &mpi::topology::SimpleCommunicator, mine: &[u8]) -> Vec<Vec<u8>> {
    let n = world.size() as usize;
    let mut lengths = vec![0u64; n];
    world.all_gather_into(&(mine.len() as u64), &mut lengths[..]);
    let counts: Vec<i32> = lengths.iter().map(|&l| l as i32).collect();
    let displs: Vec<i32> = counts.iter().scan(0i32, |at, &c| Some(std::mem::replace(at, *at + c))).collect();
    let mut all = vec![0u8; lengths.iter().sum::<u64>() as usize];
    // Open MPI refuses an all-gather of nothing at all.
    if !all.is_empty() {
        let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        world.all_gather_varcount_into(mine, &mut partition);
    }
    let mut out = Vec::with_capacity(n);
    let mut at = 0usize;
    for l in lengths {
        out.push(all[at..at + l as usize].to_vec());
        at += l as usize;
    }
    out
}

impl crate::replicas::Transport for MpiTransport {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn ranks(&self) -> u32 {
        self.ranks
    }

    fn all_gather(&self, mine: Vec<u8>) -> Vec<Vec<u8>> {
        let (answer, result) = channel();
        let sent = self.service.lock().map(|s| s.send(Request::AllGather(mine, answer)).is_ok());
        match sent {
            Ok(true) => result.recv().unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    fn all_to_all(&self, to_each: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let (answer, result) = channel();
        let sent = self.service.lock().map(|s| s.send(Request::AllToAll(to_each, answer)).is_ok());
        match sent {
            Ok(true) => result.recv().unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    fn abort(&self, message: &str) -> ! {
        eprintln!(
            "{}: error: {message} (on process {} of {}; the job stops)",
            self.program, self.rank, self.ranks
        );
        if let Ok(s) = self.service.lock() {
            let _ = s.send(Request::Abort);
        }
        // MPI ends this process (and the job) from the service thread.
        loop {
            std::thread::park();
        }
    }
}
