//! The MPI side of a job launched by `poprun`: each `poplar-run` process
//! is an MPI rank running its share of the replicas, and
//! [`runtime::replicas::Transport`] over MPI joins the shares.
//!
//! One service thread owns MPI: it initialises it, performs every
//! collective the replicas' threads ask for (an `MPI_Allgatherv` of
//! variable-length messages), and finalises it when the transport is
//! dropped. MPI handles cannot move between threads, so no other thread
//! calls MPI, and MPI needs no thread support beyond a single thread.

use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use mpi::datatype::PartitionMut;
use mpi::traits::*;

/// A request to the MPI service thread.
enum Request {
    /// All-gather these bytes; the answer is every rank's, in rank order.
    AllGather(Vec<u8>, Sender<Vec<Vec<u8>>>),
    /// End the job with status 1.
    Abort,
}

/// [`runtime::replicas::Transport`] over MPI's world communicator.
pub struct MpiTransport {
    rank: u32,
    ranks: u32,
    service: Mutex<Sender<Request>>,
}

/// Starts MPI on a service thread. Returns the transport and the thread,
/// which ends (finalising MPI) once every clone of the transport is dropped.
pub fn start() -> Result<(Arc<MpiTransport>, JoinHandle<()>), String> {
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
                    Request::Abort => world.abort(1),
                }
            }
            // Dropping `universe` finalises MPI.
        })
        .map_err(|e| format!("cannot start the MPI thread: {e}"))?;
    let (rank, ranks) = started.recv().map_err(|_| "the MPI thread stopped".to_string())??;
    Ok((Arc::new(MpiTransport { rank, ranks, service: Mutex::new(to_service) }), service))
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

impl runtime::replicas::Transport for MpiTransport {
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

    fn abort(&self, message: &str) -> ! {
        eprintln!("poplar-run: error: {message} (on process {} of {}; the job stops)", self.rank, self.ranks);
        if let Ok(s) = self.service.lock() {
            let _ = s.send(Request::Abort);
        }
        // MPI ends this process (and the job) from the service thread.
        loop {
            std::thread::park();
        }
    }
}
