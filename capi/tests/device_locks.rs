//! Attaching a simulated IPU is exclusive across processes, and a process
//! that dies never leaves its device locked. The test binary runs itself
//! as the second process (`ATTACH_ROLE` says which part it plays).

use std::process::Command;

use poplar::device::{prs_device_attach, prs_device_free, prs_device_manager_get, Device};

/// Attaches device `id` in this process; `true` when it was free.
fn attach(id: u32) -> (*mut Device, bool) {
    let mut d: *mut Device = std::ptr::null_mut();
    assert_eq!(prs_device_manager_get(id, &mut d), 0);
    let mut ok = 0;
    assert_eq!(prs_device_attach(d, &mut ok), 0);
    (d, ok == 1)
}

fn child(role: &str, lock_dir: &std::path::Path) -> std::process::ExitStatus {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_role", "--nocapture", "--test-threads=1"])
        .env("ATTACH_ROLE", role)
        .env("POPLAR_RS_LOCK_DIR", lock_dir)
        .env("POPLAR_LOG_LEVEL", "ERR")
        .status()
        .unwrap()
}

/// The second process: what it does depends on `ATTACH_ROLE`.
#[test]
fn child_role() {
    match std::env::var("ATTACH_ROLE").as_deref() {
        // Device 0 is held by the parent; device 1 is free.
        Ok("busy") => {
            let (a, got0) = attach(0);
            let (b, got1) = attach(1);
            prs_device_free(a);
            prs_device_free(b);
            std::process::exit(if !got0 && got1 { 0 } else { 3 });
        }
        // Holds device 2 and dies without detaching.
        Ok("crash") => {
            let (_d, got) = attach(2);
            assert!(got);
            std::process::abort();
        }
        _ => {}
    }
}

#[test]
fn attach_is_exclusive_across_processes_and_released_at_death() {
    let dir = std::env::temp_dir().join(format!("poplar-rs-locks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Set before this binary's other test (which does nothing here) reads it.
    std::env::set_var("POPLAR_RS_LOCK_DIR", &dir);
    std::env::set_var("POPLAR_LOG_LEVEL", "ERR");
    let (held, got) = attach(0);
    assert!(got, "device 0 should be free at first");
    assert!(child("busy", &dir).success(), "a second process attached a held device, or not a free one");
    // The 4-IPU device spans IPU 0: it is busy while device 0 is held.
    let (group, got_group) = attach(6);
    assert!(!got_group, "device 6 (IPUs 0-3) attached while IPU 0 is held");
    prs_device_free(group);
    prs_device_free(held);

    assert!(!child("crash", &dir).success());
    let (d, got) = attach(2);
    assert!(got, "a crashed process left device 2 locked");
    prs_device_free(d);
    let _ = std::fs::remove_dir_all(&dir);
}
