//! `poplar-vipu`: the simulated IPU system as a user meets a real one,
//! with V-IPU's partitions, `gc-inventory`'s listing and `gc-docker
//! --echo`'s container flags (docs/scale-out.md, "The IPU system").
//!
//! ```text
//! poplar-vipu create partition NAME --size N
//! poplar-vipu remove partition NAME
//! poplar-vipu list partitions
//! poplar-vipu list devices
//! poplar-vipu docker-flags
//! ```

use poplar::system::{self, Partition};

const USAGE: &str = "\
usage: poplar-vipu create partition NAME --size N   make a partition of N consecutive free IPUs
       poplar-vipu remove partition NAME            remove it (refused while a process holds one of its IPUs)
       poplar-vipu list partitions                  the partitions, their IPUs and whether they are in use
       poplar-vipu list devices                     every IPU: architecture, device nodes, partition, holder
       poplar-vipu docker-flags                     the --device flags a container needs for this machine's IPU hardware

The system: POPLAR_RS_NUM_IPUS IPUs (default 4) of POPLAR_RS_IPU_ARCH (default ipu2);
a process uses partition NAME with IPUOF_VIPU_API_PARTITION_ID=NAME.
";

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    let r = match words.as_slice() {
        ["create", "partition", name, "--size", n] | ["create", "partition", name, "--size=", n] => match n
            .parse::<u32>()
        {
            Ok(n) => system::create(name, n).map(|p| println!("created partition {} ({})", p.name, ipus(&p))),
            Err(_) => usage(&format!("--size '{n}' is not a number")),
        },
        ["remove", "partition", name] => system::remove(name).map(|()| println!("removed partition {name}")),
        ["list", "partitions"] => list_partitions(),
        ["list", "devices"] => list_devices(),
        ["docker-flags"] => {
            docker_flags();
            Ok(())
        }
        ["-h"] | ["--help"] => {
            print!("{USAGE}");
            Ok(())
        }
        _ => usage("unknown command"),
    };
    if let Err(e) = r {
        eprintln!("poplar-vipu: error: {}", e.message);
        std::process::exit(1);
    }
}

fn usage(why: &str) -> poplar::status::Result<()> {
    eprintln!("poplar-vipu: error: {why}\n{USAGE}");
    std::process::exit(2);
}

fn ipus(p: &Partition) -> String {
    match p.size {
        1 => format!("IPU {}", p.first),
        _ => format!("IPUs {} to {}", p.first, p.first + p.size - 1),
    }
}

fn list_partitions() -> poplar::status::Result<()> {
    let parts = system::partitions()?;
    if parts.is_empty() {
        println!("no partitions");
    }
    for p in parts {
        let mut held = Vec::new();
        for ipu in p.ipus() {
            if system::attached(ipu)? {
                held.push(ipu.to_string());
            }
        }
        let state =
            if held.is_empty() { "free".to_string() } else { format!("in use (IPU {})", held.join(", ")) };
        println!("{:<20} {:<16} {state}", p.name, ipus(&p));
    }
    Ok(())
}

fn list_devices() -> poplar::status::Result<()> {
    let (n, arch) = system::configured()?;
    let parts = system::partitions()?;
    println!("simulated IPU system: {n} {arch} IPUs (no IPU hardware; they run on the sim device)");
    for ipu in 0..n {
        let part = parts.iter().find(|p| p.ipus().contains(&ipu)).map_or("-", |p| p.name.as_str());
        let held = if system::attached(ipu)? { "attached" } else { "free" };
        println!(
            "  ipu{ipu}: {arch}, nodes /dev/ipu{ipu} /dev/ipu{ipu}_ex /dev/ipu{ipu}_mailbox /dev/ipu{ipu}_mem (simulated), \
             partition {part}, {held}"
        );
    }
    Ok(())
}

/// `gc-docker --echo`: the flags for the IPU device nodes present in `/dev`
/// (all four of each IPU); nothing when there are none.
fn docker_flags() {
    let names: Vec<String> = std::fs::read_dir("/dev")
        .map(|d| d.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    let found = runtime::hardware::scan(names.iter().map(String::as_str));
    let flags: Vec<String> = found
        .iter()
        .flat_map(|ipu| {
            ["", "_ex", "_mailbox", "_mem"]
                .iter()
                .map(move |s| format!("ipu{}{s}", ipu.id))
                .filter(|n| names.contains(n))
                .map(|n| format!("--device=/dev/{n}"))
        })
        .collect();
    if !flags.is_empty() {
        println!("{}", flags.join(" "));
    }
}
