//! `poprun`: launches a replicated program as several processes over MPI,
//! as Graphcore's PopRun does, with Open MPI's `mpirun`.
//!
//! ```text
//! poprun --num-instances 2 --num-replicas 4 poplar-run graph.pir --read x
//! ```
//!
//! Each instance gets PopRun's `POPDIST_*` variables (the totals for all,
//! and its own index and first replica, set by `poprun --instance` in
//! front of the command on each rank) and runs `num-replicas /
//! num-instances` consecutive replicas. `mpirun` is called with
//! `--oversubscribe` (more instances than cores is allowed) and, when run
//! as root, `--allow-run-as-root`; `--mpi-global-args` adds to them.

#![forbid(unsafe_code)]

use std::os::unix::process::CommandExt;
use std::process::Command;

const USAGE: &str = "\
usage: poprun [options] [--] COMMAND [ARGS...]

Runs COMMAND (poplar-run with a replicated program) as instances of one MPI job.

options:
  --num-instances N       processes to launch (default 1)
  --num-replicas R        replicas of the job, shared equally by the instances (default N)
  --ipus-per-replica K    IPUs of each replica (default 1), passed on as POPDIST_NUM_IPUS_PER_REPLICA
  --mpi-global-args ARGS  more arguments for mpirun (one string, split at spaces)
  --only-output-from-instance I
                          discard the standard output of every instance but I
                          (their standard error is kept)
  -h, --help              this text
";

struct Args {
    instances: u32,
    replicas: u32,
    ipus_per_replica: u32,
    mpi_args: Vec<String>,
    /// The instance whose standard output is shown (all when `None`).
    output_from: Option<u32>,
    command: Vec<String>,
}

/// What `poprun` puts before the command it runs on each rank.
const INSTANCE: &str = "--instance";
/// The instance wrapper's option: the instance whose output is kept.
const OUTPUT_FROM: &str = "--only-output-from-instance";

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some(INSTANCE) {
        instance(&argv[1..]);
    }
    let args = match parse(&argv) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{USAGE}");
            return;
        }
        Err(e) => {
            eprintln!("poprun: error: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    std::process::exit(launch(&args));
}

fn parse(argv: &[String]) -> Result<Option<Args>, String> {
    let mut a = Args {
        instances: 1,
        replicas: 0,
        ipus_per_replica: 1,
        mpi_args: Vec::new(),
        output_from: None,
        command: Vec::new(),
    };
    let mut it = argv.iter();
    let number = |flag: &str, v: Option<&String>| -> Result<u32, String> {
        let v = v.ok_or_else(|| format!("{flag} needs a number"))?;
        v.parse::<u32>()
            .ok()
            .filter(|n| (1..=vocab::MAX_REPLICAS).contains(n))
            .ok_or_else(|| format!("{flag} '{v}' is not a number from 1 to {}", vocab::MAX_REPLICAS))
    };
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned());
        match flag {
            "-h" | "--help" => return Ok(None),
            "--num-instances" => a.instances = number(flag, value().as_ref())?,
            "--num-replicas" => a.replicas = number(flag, value().as_ref())?,
            "--ipus-per-replica" => a.ipus_per_replica = number(flag, value().as_ref())?,
            OUTPUT_FROM => {
                let v = value().ok_or_else(|| format!("{OUTPUT_FROM} needs an instance index"))?;
                a.output_from =
                    Some(v.parse().map_err(|_| format!("{OUTPUT_FROM} '{v}' is not an instance index"))?);
            }
            "--mpi-global-args" => {
                let v = value().ok_or("--mpi-global-args needs a string")?;
                a.mpi_args.extend(v.split_whitespace().map(str::to_string));
            }
            "--" => {
                a.command.extend(it.by_ref().cloned());
            }
            f if f.starts_with('-') && a.command.is_empty() => return Err(format!("unknown option '{f}'")),
            _ => {
                a.command.push(arg.clone());
                a.command.extend(it.by_ref().cloned());
            }
        }
    }
    if a.command.is_empty() {
        return Err("no command to launch".into());
    }
    if a.replicas == 0 {
        a.replicas = a.instances;
    }
    if let Some(i) = a.output_from.filter(|&i| i >= a.instances) {
        return Err(format!(
            "{OUTPUT_FROM} {i} is not one of the {} instances (0 to {})",
            a.instances,
            a.instances - 1
        ));
    }
    if !a.replicas.is_multiple_of(a.instances) {
        return Err(format!(
            "{} replicas cannot be shared equally by {} instances (--num-replicas must be a multiple of \
             --num-instances)",
            a.replicas, a.instances
        ));
    }
    Ok(Some(a))
}

/// Runs `mpirun` with one instance of the command per rank; returns its
/// exit status.
fn launch(a: &Args) -> i32 {
    let me = std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "poprun".into());
    let mut cmd = Command::new("mpirun");
    if is_root() {
        cmd.arg("--allow-run-as-root");
    }
    cmd.args(["--oversubscribe", "-np", &a.instances.to_string()]);
    for (k, v) in [
        ("POPDIST_NUM_INSTANCES", a.instances),
        ("POPDIST_NUM_TOTAL_REPLICAS", a.replicas),
        ("POPDIST_NUM_LOCAL_REPLICAS", a.replicas / a.instances),
        ("POPDIST_NUM_IPUS_PER_REPLICA", a.ipus_per_replica),
    ] {
        cmd.arg("-x").arg(format!("{k}={v}"));
    }
    cmd.args(&a.mpi_args).arg(me).arg(INSTANCE);
    if let Some(i) = a.output_from {
        cmd.arg(OUTPUT_FROM).arg(i.to_string());
    }
    cmd.args(&a.command);
    match cmd.status() {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "poprun: error: mpirun not found: install Open MPI (Debian: apt-get install openmpi-bin)"
            );
            1
        }
        Err(e) => {
            eprintln!("poprun: error: cannot run mpirun: {e}");
            1
        }
    }
}

/// On each rank: sets the instance's own `POPDIST_*` variables from its MPI
/// rank (and discards its standard output when `poprun` kept only another
/// instance's), then becomes the command.
fn instance(command: &[String]) -> ! {
    let rank: u32 = std::env::var("OMPI_COMM_WORLD_RANK").ok().and_then(|r| r.parse().ok()).unwrap_or(0);
    let local: u32 =
        std::env::var("POPDIST_NUM_LOCAL_REPLICAS").ok().and_then(|r| r.parse().ok()).unwrap_or(1);
    let (shown, command) = match command {
        [flag, i, rest @ ..] if flag == OUTPUT_FROM => (i.parse::<u32>().ok() == Some(rank), rest),
        _ => (true, command),
    };
    let Some((program, args)) = command.split_first() else {
        eprintln!("poprun: error: no command to launch");
        std::process::exit(2);
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env("POPDIST_INSTANCE_INDEX", rank.to_string())
        .env("POPDIST_REPLICA_INDEX_OFFSET", (rank * local).to_string());
    if !shown {
        cmd.stdout(std::process::Stdio::null());
    }
    let err = cmd.exec();
    eprintln!("poprun: error: cannot run {program}: {err}");
    std::process::exit(1);
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn counts_are_bounded_and_shared_equally() {
        let a = parse(&args("--num-instances 2 --num-replicas 4 poplar-run g.exe")).unwrap().unwrap();
        assert_eq!((a.instances, a.replicas, a.command.len()), (2, 4, 2));
        let err = |s: &str| parse(&args(s)).err().unwrap();
        assert_eq!(err("--num-instances 0 x"), "--num-instances '0' is not a number from 1 to 1024");
        // A job of more processes than replicas can have is refused before
        // mpirun starts any of them.
        assert_eq!(err("--num-instances 99999 x"), "--num-instances '99999' is not a number from 1 to 1024");
        assert_eq!(err("--num-replicas 1025 x"), "--num-replicas '1025' is not a number from 1 to 1024");
        assert!(
            err("--num-instances 2 --num-replicas 3 x").starts_with("3 replicas cannot be shared equally")
        );
        assert_eq!(err("--num-instances 2"), "no command to launch");
        assert_eq!(err("--bogus x"), "unknown option '--bogus'");
        let a = parse(&args("--num-instances 2 --only-output-from-instance 1 prog")).unwrap().unwrap();
        assert_eq!(a.output_from, Some(1));
        assert!(
            err("--num-instances 2 --only-output-from-instance 2 x").contains("not one of the 2 instances")
        );
    }
}
