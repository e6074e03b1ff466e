//! Partitions of the simulated IPU system (issue 27): a process given a
//! partition (`IPUOF_VIPU_API_PARTITION_ID`) sees only its IPUs; two
//! processes never attach one IPU, whatever partitions they see; a
//! partition in use cannot be removed, and a killed process's partition is
//! free again. The test binary runs itself as the other process
//! (`PARTITION_ROLE` says which part it plays).

use std::process::{Child, Command, Stdio};

use poplar::device::Device;
use poplar::system;

fn child(role: &str, dir: &std::path::Path, partition: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_role", "--nocapture", "--test-threads=1"])
        .env("PARTITION_ROLE", role)
        .env("POPLAR_RS_LOCK_DIR", dir)
        .env(system::PARTITION_VAR, partition)
        .env("POPLAR_LOG_LEVEL", "ERR")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The other process: what it does depends on `PARTITION_ROLE`.
#[test]
fn child_role() {
    match std::env::var("PARTITION_ROLE").as_deref() {
        // Attaches the partition's first device, says so, then waits to be killed.
        Ok("hold") => {
            let ids = Device::manager_find(2).unwrap();
            let mut d = Device::manager(ids[0]).unwrap();
            assert!(d.attach().unwrap(), "the partition's device was busy");
            println!("attached");
            std::thread::sleep(std::time::Duration::from_secs(120));
        }
        // Sees only its partition: 2 IPUs, devices 0, 1 and the pair.
        Ok("look") => {
            let pairs = Device::manager_find(2).unwrap();
            let fours = Device::manager_find(4).unwrap();
            std::process::exit(if pairs == vec![2] && fours.is_empty() { 0 } else { 3 });
        }
        _ => {}
    }
}

#[test]
fn partitions_are_exclusive_and_freed_when_their_holder_dies() {
    let dir = std::env::temp_dir().join(format!("poplar-rs-partitions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("POPLAR_RS_LOCK_DIR", &dir);
    std::env::set_var("POPLAR_RS_NUM_IPUS", "4");
    let p = system::create("left", 2).unwrap();
    let q = system::create("right", 2).unwrap();
    assert_eq!((p.first, q.first), (0, 2));
    let full = system::create("more", 1).unwrap_err().message;
    assert!(full.contains("no 1 consecutive free IPUs"), "{full}");
    assert!(system::create("bad name", 1).is_err());

    assert!(child("look", &dir, "right").wait().unwrap().success(), "a partition showed more than its IPUs");

    // A process of partition `right` holds its IPUs 2 and 3.
    let mut holder = child("hold", &dir, "right");
    // Its output starts with the test harness's own lines.
    let out = std::io::BufReader::new(holder.stdout.take().unwrap());
    let mut lines = std::io::BufRead::lines(out);
    assert!(lines.any(|l| l.is_ok_and(|l| l.contains("attached"))), "the holder did not attach");
    assert!(system::attached(2).unwrap() && system::attached(3).unwrap() && !system::attached(0).unwrap());
    // The whole system's device of IPUs 2-3 (id 5) and of all four (id 6) are busy.
    for id in [5, 6] {
        let mut d = Device::manager(id).unwrap();
        assert!(!d.attach().unwrap(), "device {id} attached while another process holds IPUs 2-3");
    }
    let busy = system::remove("right").unwrap_err().message;
    assert!(busy.contains("is in use"), "{busy}");

    // Killed, it releases them; the partition can go.
    holder.kill().unwrap();
    holder.wait().unwrap();
    drop(lines);
    assert!(!system::attached(2).unwrap());
    system::remove("right").unwrap();
    assert_eq!(system::partitions().unwrap(), vec![p]);
    let _ = std::fs::remove_dir_all(&dir);
}
