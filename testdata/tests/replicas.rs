//! Replicated graphs (issue 27): for replication factors 1, 2, 3, 4 and 8,
//! on both devices and several thread counts,
//! - replica `i` computes what the unreplicated graph computes with its
//!   replication index replaced by `i`;
//! - each collective, with each group, equals a reference computed here
//!   in the documented order (group order, left to right);
//! - results and cycle counts do not depend on the device or the threads.

use std::path::Path;

use runtime::{DeviceKind, Engine, EngineOptions};

fn engine(pir: &str, device: DeviceKind, threads: usize) -> Engine {
    engine_with(pir, EngineOptions { device, threads, ..Default::default() }, &[])
}

/// The engine of `pir` with `opts` and these engine options on top.
fn engine_with(pir: &str, mut opts: EngineOptions, options: &[(&str, &str)]) -> Engine {
    let (image, _, _) = compiler::driver::compile_source_for_run(
        "<replicas>",
        pir.as_bytes().to_vec(),
        Path::new("r.pir"),
        false,
    )
    .unwrap_or_else(|e| panic!("{e}\n{pir}"));
    let pairs: Vec<(String, String)> = options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    opts.apply_pairs(&pairs).unwrap();
    Engine::new(runtime::load_image(image).expect("load"), &opts)
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Each replica's value of element `j` before the collectives: not exact
/// in binary, so the order of a sum shows in its last bits.
fn value(replica: u32, j: usize) -> f32 {
    (replica as f32 + 1.0) * 0.1 + j as f32 * 1e3 + (replica as f32) * 1e-7 * j as f32
}

/// The program: each replica fills `x` from its index, then every
/// collective runs on it.
fn program(r: u32, groups: &[&str]) -> String {
    let mut body = String::from(
        "  x = (cast<float>(r) + 1.0) * 0.1 + cast<float>(j) * 1000.0 + cast<float>(r) * 0.0000001 * cast<float>(j)\n",
    );
    let mut reads = String::new();
    for (k, g) in groups.iter().enumerate() {
        body += &format!(
            "  s{k} = all_reduce(x, add, group = {g})\n  m{k} = all_reduce(x, mean, group = {g})\n  \
             q{k} = all_reduce(x, square_add, group = {g})\n  mx{k} = all_reduce(x, max, group = {g})\n  \
             rs{k} = reduce_scatter(x, add, group = {g})\n  ag{k} = all_gather(x, group = {g})\n  \
             b{k} = replica_broadcast(x, root = 0, group = {g})\n"
        );
        for n in ["s", "m", "q", "mx", "rs", "ag", "b"] {
            reads += &format!("host_read \"{n}{k}\" <- {n}{k}\n");
        }
    }
    format!(
        "target mk2(tiles_per_ipu = 4, replication_factor = {r})\nconst r: uint = replication_index\n\
         map r -> tile 1\nconst j: uint[6] = [0, 1, 2, 3, 4, 5]\nvar x: float[6] @ linear\n\
         host_read \"x\" <- x\n{reads}program main {{\n{body}}}\n"
    )
}

/// The reference of one collective for every replica, left to right in
/// group order, rounding to `f32` at each step.
fn reference(kind: &str, members: &[u32]) -> Vec<f32> {
    let g = members.len();
    let xs: Vec<Vec<f32>> = members.iter().map(|&m| (0..6).map(|j| value(m, j)).collect()).collect();
    let fold = |f: &dyn Fn(f32, f32) -> f32, first: &dyn Fn(f32) -> f32| -> Vec<f32> {
        (0..6).map(|j| xs[1..].iter().fold(first(xs[0][j]), |a, x| f(a, x[j]))).collect()
    };
    match kind {
        "s" => fold(&|a, b| a + b, &|a| a),
        "m" => fold(&|a, b| a + b, &|a| a).into_iter().map(|s| s / g as f32).collect(),
        "q" => fold(&|a, b| a + b * b, &|a| a * a),
        "mx" => fold(&|a, b| a.max(b), &|a| a),
        "ag" => xs.concat(),
        "b" => xs[0].clone(),
        _ => unreachable!(),
    }
}

fn groups_of(group: &str, r: u32) -> Vec<Vec<u32>> {
    let n = |s: &str| s.trim_end_matches(')').split('(').nth(1).unwrap().parse::<u32>().unwrap();
    match group {
        "all" => vec![(0..r).collect()],
        g if g.starts_with("consecutive") => {
            let n = n(g);
            (0..r / n).map(|k| (k * n..(k + 1) * n).collect()).collect()
        }
        g => {
            let n = n(g);
            let stride = r / n;
            (0..stride).map(|k| (0..n).map(|i| k + i * stride).collect()).collect()
        }
    }
}

#[test]
fn collectives_match_the_reference_for_every_replication_factor() {
    for r in [1u32, 2, 3, 4, 8] {
        let mut groups = vec!["all".to_string()];
        if r % 2 == 0 {
            groups.push("consecutive(2)".into());
            groups.push("orthogonal(2)".into());
        }
        let gs: Vec<&str> = groups.iter().map(String::as_str).collect();
        let pir = program(r, &gs);
        let mut seen: Option<(Vec<Vec<u8>>, u64)> = None;
        for (device, threads) in [(DeviceKind::Sim, 1), (DeviceKind::Sim, 3), (DeviceKind::Cpu, 2)] {
            let mut e = engine(&pir, device, threads);
            assert_eq!(e.replicas(), r);
            e.run(0).unwrap_or_else(|err| panic!("r = {r}: {err}"));
            // Replica i holds what the unreplicated graph computes with index i.
            let x = floats(&e.read("x").unwrap());
            for i in 0..r {
                let want: Vec<f32> = (0..6).map(|j| value(i, j)).collect();
                assert_eq!(x[i as usize * 6..(i as usize + 1) * 6], want[..], "r = {r}, replica {i}");
            }
            let mut all = Vec::new();
            for (k, g) in gs.iter().enumerate() {
                for members in groups_of(g, r) {
                    for (pos, &m) in members.iter().enumerate() {
                        for kind in ["s", "m", "q", "mx", "ag", "b"] {
                            let got = floats(&e.read(&format!("{kind}{k}")).unwrap());
                            let per = got.len() / r as usize;
                            let mine = &got[m as usize * per..(m as usize + 1) * per];
                            assert_eq!(
                                mine,
                                &reference(kind, &members)[..],
                                "r = {r}, {kind} group {g}, replica {m}"
                            );
                        }
                        // reduce_scatter: part `pos` of the sum, padded with zeros.
                        let got = floats(&e.read(&format!("rs{k}")).unwrap());
                        let per = got.len() / r as usize;
                        let mut sum = reference("s", &members);
                        sum.resize(per * members.len(), 0.0);
                        assert_eq!(
                            &got[m as usize * per..(m as usize + 1) * per],
                            &sum[pos * per..(pos + 1) * per],
                            "r = {r}, rs group {g}, replica {m}"
                        );
                    }
                }
                for kind in ["s", "m", "q", "mx", "rs", "ag", "b"] {
                    all.push(e.read(&format!("{kind}{k}")).unwrap());
                }
            }
            let cycles = e.totals().cycles;
            match &seen {
                None => seen = Some((all, cycles)),
                Some((first, c)) => {
                    assert_eq!(&all, first, "r = {r}: results differ on {device:?} with {threads} threads");
                    if device == DeviceKind::Sim {
                        assert_eq!(cycles, *c, "r = {r}: cycles differ with {threads} threads");
                    }
                }
            }
        }
    }
}

/// A replica that leaves a collective out stops the run with an error
/// naming both, on every replica; a failing vertex in one replica is that
/// replica's error.
#[test]
fn divergent_replicas_stop_with_an_error() {
    let pir = "target mk2(tiles_per_ipu = 2, replication_factor = 3)\nconst r: uint = replication_index\n\
               var x: float[4] @ tile 0\nprogram main {\n  if r {\n    x = all_reduce(x, add)\n  }\n}\n";
    for device in [DeviceKind::Sim, DeviceKind::Cpu] {
        let mut e = engine(pir, device, 1);
        let err = e.run(0).unwrap_err().to_string();
        assert!(err.contains("replica 0 finished its program while replica"), "{err}");
        assert!(err.contains("x.all_reduce"), "{err}");
    }
}

/// Host data of a replicated graph: one copy goes to every replica, r
/// copies are each replica's; a stream buffer feeds each replica a copy.
#[test]
fn host_data_covers_every_replica() {
    let pir = "target mk2(tiles_per_ipu = 2, replication_factor = 2)\nvar x: int[3] @ tile 0\n\
               var y: int[3] @ tile 1\nhost_write \"in\" -> x\nhost_read \"out\" <- y\n\
               stream \"s\": int[3] from host\nprogram main {\n  copy \"s\" -> y\n  y = y + x\n}\n";
    let mut e = engine(pir, DeviceKind::Cpu, 1);
    assert_eq!(e.data_info("out").unwrap().shape, vec![2, 3]);
    e.write_values("in", &[1i32, 2, 3, 10, 20, 30]).unwrap();
    e.connect_values("s", &[100i32, 200, 300]).unwrap();
    e.run(0).unwrap();
    assert_eq!(e.read_values::<i32>("out").unwrap(), vec![101, 202, 303, 110, 220, 330]);
    e.write_values("in", &[5i32, 5, 5]).unwrap();
    e.connect_stream_replica("s", 1, [7i32, 7, 7].iter().flat_map(|v| v.to_le_bytes()).collect()).unwrap();
    e.run(0).unwrap();
    assert_eq!(e.read_values::<i32>("out").unwrap(), vec![105, 205, 305, 12, 12, 12]);
    let err = e.write_values("in", &[1i32, 2]).unwrap_err().to_string();
    assert!(err.contains("12 (for every replica) or 24 (one copy per replica)"), "{err}");
}

/// The processes of a job as threads of this one, in the place of MPI:
/// each exchange meets at a barrier, process `k`'s messages in slot `k`.
struct ThreadRanks {
    rank: u32,
    ranks: u32,
    shared: std::sync::Arc<Exchange>,
}

/// Every process's messages to every process, and where they meet.
type Exchange = (std::sync::Mutex<Vec<Vec<Vec<u8>>>>, std::sync::Barrier);

impl runtime::replicas::Transport for ThreadRanks {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn all_gather(&self, mine: Vec<u8>) -> Vec<Vec<u8>> {
        self.all_to_all(vec![mine; self.ranks as usize])
    }
    fn all_to_all(&self, to_each: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let (slots, barrier) = &*self.shared;
        slots.lock().unwrap()[self.rank as usize] = to_each;
        barrier.wait();
        let got = slots.lock().unwrap().iter().map(|from| from[self.rank as usize].clone()).collect();
        barrier.wait();
        got
    }
    fn abort(&self, message: &str) -> ! {
        panic!("rank {} aborts: {message}", self.rank)
    }
}

/// Streams of replicas spread over the processes of a job: each process
/// connects the replicas it holds (a replica of another process is an
/// error there), and what the job computes and reads back equals one
/// process connecting every replica.
#[test]
fn each_process_connects_the_streams_of_its_replicas() {
    let pir = "target mk2(tiles_per_ipu = 2, replication_factor = 4)\nconst r: int = replication_index\nmap r -> tile 0\n\
               var y: int[3] @ tile 1\nstream \"s\": int[3] from host\nstream \"o\": int[3] to host\n\
               program main {\n  copy \"s\" -> y\n  y = y + r * 100\n  m = all_reduce(y, max)\n  copy m -> \"o\"\n  copy y -> \"o\"\n}\n";
    let block =
        |i: u32| -> Vec<u8> { [i as i32, 2 * i as i32, 3].iter().flat_map(|v| v.to_le_bytes()).collect() };
    let (image, _, _) = compiler::driver::compile_source_for_run(
        "<ranks>",
        pir.as_bytes().to_vec(),
        Path::new("r.pir"),
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // One process, every replica.
    let loaded = runtime::load_image(image.clone()).expect("load");
    let mut one =
        Engine::new(loaded, &EngineOptions { device: DeviceKind::Sim, threads: 1, ..Default::default() });
    for i in 0..4 {
        one.connect_stream_replica("s", i, block(i)).unwrap();
    }
    one.run(0).unwrap();
    let want = one.read("o").unwrap();
    assert_eq!(want.len(), 4 * 2 * 12);
    // Replica 0's blocks: the maximum over the replicas (replica 3's
    // [3 + 300, 6 + 300, 3 + 300]), then its own [0, 0, 3].
    let first: Vec<i32> =
        want[..24].chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(first, vec![303, 306, 303, 0, 0, 3]);
    // Two processes of two replicas each.
    let ranks = 2;
    let shared =
        std::sync::Arc::new((std::sync::Mutex::new(vec![Vec::new(); ranks]), std::sync::Barrier::new(ranks)));
    let threads: Vec<_> = (0..ranks as u32)
        .map(|rank| {
            let (image, shared) = (image.clone(), shared.clone());
            std::thread::spawn(move || {
                let t = std::sync::Arc::new(ThreadRanks { rank, ranks: ranks as u32, shared });
                let loaded = runtime::load_image(image).expect("load");
                let opts = EngineOptions { device: DeviceKind::Sim, threads: 1, ..Default::default() };
                let mut e = Engine::with_transport(loaded, &opts, t).unwrap();
                for i in 0..4 {
                    let held = e.holds_replica(i);
                    assert_eq!(held, i / 2 == rank, "rank {rank}, replica {i}");
                    let r = e.connect_stream_replica("s", i, block(i));
                    match held {
                        true => r.unwrap(),
                        false => {
                            let err = r.unwrap_err().to_string();
                            assert!(err.contains(&format!("replica {i} runs in another process")), "{err}");
                            assert!(
                                err.contains(&format!("holds replicas {} to {}", 2 * rank, 2 * rank + 1)),
                                "{err}"
                            );
                        }
                    }
                }
                let err = e.connect_stream_replica("s", 4, block(4)).unwrap_err().to_string();
                assert!(err.contains("there is no replica 4 (the replication factor is 4)"), "{err}");
                e.run(0).unwrap();
                e.read("o").unwrap()
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), want, "a process's read of the job's streams");
    }
}

/// `profiler.replicaToProfile` picks the replica whose profile and summary
/// are recorded: here only replica 2 runs the compute set `extra`, so only
/// its profile charges it. A replica past the graph's is an error of every
/// run.
#[test]
fn replica_to_profile_picks_the_recorded_replica() {
    let pir = "target mk2(tiles_per_ipu = 2, replication_factor = 3)\nconst r: uint = replication_index\n\
               map r -> tile 0\nvar x: float[4] @ tile 0\nvar two: bool @ tile 0\n\
               program main {\n  two = r == 2\n  if two {\n    x = x + 1.0\n  }\n  x = all_reduce(x, add)\n}\n";
    let engine_for = |replica: u32| -> Engine {
        let opts = EngineOptions { device: DeviceKind::Sim, profile: true, ..Default::default() };
        engine_with(pir, opts, &[("profiler.replicaToProfile", &replica.to_string())])
    };
    let run = |replica: u32| -> Engine {
        let mut e = engine_for(replica);
        e.run(0).unwrap();
        e
    };
    let charged = |e: &Engine| -> u64 {
        let p = e.profile_json();
        let names = p["computeSets"].as_array().unwrap();
        let cycles = p["computeSetCycles"].as_array().unwrap();
        names
            .iter()
            .zip(cycles)
            .filter(|(n, _)| n.as_str().is_some_and(|n| n.contains("add")))
            .map(|(_, c)| c.as_u64().unwrap())
            .sum()
    };
    let (r0, r2) = (run(0), run(2));
    assert_eq!(charged(&r0), 0, "replica 0 does not add");
    assert!(charged(&r2) > 0, "replica 2 adds");
    assert!(r2.summary().contains("add"), "{}", r2.summary());
    assert_eq!(r0.totals().cycles, r2.totals().cycles, "a run ends with every replica in step");
    let err = engine_for(3).run(0).unwrap_err().to_string();
    assert!(err.contains("profiler.replicaToProfile is 3, but the graph has 3 replicas (0 to 2)"), "{err}");
}

/// The cycles of a 2-replica run whose replicas each do one extra
/// compute set, replica 1 before `middle` (a host transfer or an exchange
/// between IPUs) and replica 0 after it, under these engine options.
fn cycles_around(target: &str, middle: &str, options: &[(&str, &str)], device: DeviceKind) -> u64 {
    let pir = format!(
        "target mk2({target}, replication_factor = 2)\nconst r: uint = replication_index\nmap r -> tile 0\n\
         var x: float[4] @ tile 0\nvar y: float[4] @ tile 2\nvar one: bool @ tile 0\nvar zero: bool @ tile 0\n\
         program main {{\n  one = r == 1\n  zero = r == 0\n  if one {{\n    x = x * 3.0 + 1.0\n  }}\n\
         {middle}\n  if zero {{\n    x = x * 3.0 + 1.0\n  }}\n}}\n"
    );
    let mut e = engine_with(&pir, EngineOptions { device, ..Default::default() }, options);
    e.run(0).unwrap();
    e.totals().cycles
}

#[test]
fn replicas_meet_at_the_syncs_of_the_second_group() {
    let independent = [("target.syncReplicasIndependently", "true")];
    // A host transfer syncs every replica unless they sync with the host
    // independently: replica 0 then waits for replica 1's extra work
    // before doing its own, and the run takes that much longer.
    let one_ipu = "tiles_per_ipu = 4";
    let print = "  print \"x\" x";
    let together = cycles_around(one_ipu, print, &[], DeviceKind::Sim);
    let apart = cycles_around(one_ipu, print, &independent, DeviceKind::Sim);
    assert!(together > apart, "{together} {apart}");
    // Exchange between a replica's IPUs syncs every replica only under
    // ipuAndAll, whose first sync group holds one IPU.
    let two_ipus = "ipus = 2, tiles_per_ipu = 2";
    let copy = "  y = x";
    let intra = cycles_around(two_ipus, copy, &independent, DeviceKind::Sim);
    let all = format!("{two_ipus}, syncConfiguration = ipuAndAll");
    let every_ipu = cycles_around(&all, copy, &independent, DeviceKind::Sim);
    assert!(every_ipu > intra, "{every_ipu} {intra}");
    // The difference is the extra work replica 0 now does after waiting:
    // the same in both cases.
    assert_eq!(together - apart, every_ipu - intra);
    // Without a sync of all replicas in between, the options change nothing.
    let host = cycles_around(two_ipus, copy, &[], DeviceKind::Sim);
    assert_eq!(host, intra);
    // The cpu device meets as well (it has no cycles to show for it).
    cycles_around(&all, copy, &independent, DeviceKind::Cpu);
}

#[test]
fn a_replica_that_skips_a_sync_of_all_replicas_stops_the_run() {
    let pir = "target mk2(tiles_per_ipu = 2, replication_factor = 2)\nconst r: uint = replication_index\n\
               map r -> tile 0\nvar x: float[4] @ tile 0\nvar one: bool @ tile 0\n\
               program main {\n  one = r == 1\n  if one {\n    print \"x\" x\n  }\n}\n";
    for device in [DeviceKind::Sim, DeviceKind::Cpu] {
        let err = engine(pir, device, 1).run(0).unwrap_err().to_string();
        assert!(
            err.contains(
                "the sync of all replicas failed: replica 0 finished its program while replica 1 waits at the \
                 sync of all replicas"
            ),
            "{err}"
        );
    }
    // Replicas that sync with the host independently do not meet there.
    let opts = EngineOptions { device: DeviceKind::Sim, ..Default::default() };
    engine_with(pir, opts, &[("target.syncReplicasIndependently", "true")]).run(0).unwrap();
}
