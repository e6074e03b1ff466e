//! The simulated IPU system `DeviceManager` lends, and its partitions.
//!
//! The system has `POPLAR_RS_NUM_IPUS` IPUs (default 4, at most 1,024) of
//! architecture `POPLAR_RS_IPU_ARCH` (default `ipu2`), numbered from 0.
//! Like V-IPU, it can be split into partitions: named, contiguous,
//! non-overlapping ranges of IPUs, created and removed with `poplar-vipu`
//! and kept as files in the lock folder, so every process of the machine
//! sees them. A process whose `IPUOF_VIPU_API_PARTITION_ID` names a
//! partition (Poplar's variable) sees only that partition's IPUs,
//! renumbered from 0; without it, the whole system.
//!
//! Attaching a device takes one lock file per IPU of the system with
//! `flock` (`device.rs`), so two processes never hold one IPU, whichever
//! partitions they see, and the kernel releases a dead process's locks.
//! The lock folder is `POPLAR_RS_LOCK_DIR`, else
//! `$XDG_RUNTIME_DIR/poplar-rs`, else `/tmp/poplar-rs-$UID`.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

use crate::status::{ApiError, Result, Status};

/// Poplar's variable naming the partition a process uses.
pub const PARTITION_VAR: &str = "IPUOF_VIPU_API_PARTITION_ID";

fn err(message: String) -> ApiError {
    ApiError::new(Status::PoplarError, message)
}

/// The whole system: IPU count and architecture.
pub fn configured() -> Result<(u32, String)> {
    let n =
        match std::env::var("POPLAR_RS_NUM_IPUS") {
            Ok(s) => s.trim().parse::<u32>().ok().filter(|&n| (1..=1024).contains(&n)).ok_or_else(|| {
                err(format!("POPLAR_RS_NUM_IPUS must be a count from 1 to 1024, not '{s}'"))
            })?,
            Err(_) => 4,
        };
    let arch = std::env::var("POPLAR_RS_IPU_ARCH").unwrap_or_else(|_| "ipu2".into());
    Ok((n, arch))
}

/// The folder of the IPUs' lock files and the partitions.
pub fn lock_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("POPLAR_RS_LOCK_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR") {
        return PathBuf::from(d).join("poplar-rs");
    }
    // SAFETY: getuid has no preconditions.
    PathBuf::from(format!("/tmp/poplar-rs-{}", unsafe { libc::getuid() }))
}

/// The lock file of IPU `ipu` of the system.
pub fn ipu_lock(ipu: u32) -> PathBuf {
    lock_dir().join(format!("ipu{ipu}.lock"))
}

/// Takes `path`'s exclusive lock without waiting: the open file holds it
/// (until dropped or the process ends), `None` when another holds it.
pub fn try_lock(path: &std::path::Path) -> Result<Option<File>> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| err(format!("cannot create the device lock folder {}: {e}", dir.display())))?;
    }
    let f = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| err(format!("cannot open the lock {}: {e}", path.display())))?;
    // SAFETY: flock on a file descriptor this function owns.
    match unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } {
        0 => Ok(Some(f)),
        _ => Ok(None),
    }
}

/// Whether a process holds IPU `ipu` now.
pub fn attached(ipu: u32) -> Result<bool> {
    Ok(try_lock(&ipu_lock(ipu))?.is_none())
}

/// A named range of the system's IPUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    pub name: String,
    pub first: u32,
    pub size: u32,
}

impl Partition {
    pub fn ipus(&self) -> std::ops::Range<u32> {
        self.first..self.first + self.size
    }
}

fn partition_dir() -> PathBuf {
    lock_dir().join("partitions")
}

/// Every partition, by first IPU.
pub fn partitions() -> Result<Vec<Partition>> {
    let dir = partition_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".partition"))
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut it = text.split_whitespace().map(|w| w.parse::<u32>());
        match (it.next(), it.next()) {
            (Some(Ok(first)), Some(Ok(size))) if size > 0 => {
                out.push(Partition { name: name.to_string(), first, size })
            }
            _ => return Err(err(format!("partition file {} is not 'first size'", path.display()))),
        }
    }
    out.sort_by_key(|p| p.first);
    Ok(out)
}

/// Holds the lock that makes creating and removing partitions one at a time.
fn partitions_lock() -> Result<File> {
    let path = lock_dir().join("partitions.lock");
    for _ in 0..200 {
        if let Some(f) = try_lock(&path)? {
            return Ok(f);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Err(err(format!("the partition table is busy ({} held)", path.display())))
}

fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match ok {
        true => Ok(()),
        false => Err(err(format!("partition name '{name}': use 1 to 64 letters, digits, '-' or '_'"))),
    }
}

/// Creates partition `name` of `size` IPUs on the first free range.
pub fn create(name: &str, size: u32) -> Result<Partition> {
    check_name(name)?;
    let (n, _) = configured()?;
    if size == 0 || size > n {
        return Err(err(format!("a partition of {size} IPUs does not fit a system of {n}")));
    }
    let _table = partitions_lock()?;
    let existing = partitions()?;
    if existing.iter().any(|p| p.name == name) {
        return Err(err(format!("partition '{name}' exists already")));
    }
    let mut first = 0;
    for p in &existing {
        if p.first >= first + size {
            break;
        }
        first = first.max(p.first + p.size);
    }
    if first + size > n {
        let free = n - existing.iter().map(|p| p.size).sum::<u32>();
        return Err(err(format!(
            "no {size} consecutive free IPUs for partition '{name}' ({free} of the system's {n} are in no partition)"
        )));
    }
    let dir = partition_dir();
    std::fs::create_dir_all(&dir).map_err(|e| err(format!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join(format!("{name}.partition"));
    std::fs::write(&path, format!("{first} {size}\n"))
        .map_err(|e| err(format!("cannot write {}: {e}", path.display())))?;
    Ok(Partition { name: name.to_string(), first, size })
}

/// Removes partition `name`, unless a process holds one of its IPUs.
pub fn remove(name: &str) -> Result<()> {
    check_name(name)?;
    let _table = partitions_lock()?;
    let p = partitions()?
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| err(format!("there is no partition '{name}'")))?;
    for ipu in p.ipus() {
        if attached(ipu)? {
            return Err(err(format!("partition '{name}' is in use: a process holds its IPU {ipu}")));
        }
    }
    let path = partition_dir().join(format!("{name}.partition"));
    std::fs::remove_file(&path).map_err(|e| err(format!("cannot remove {}: {e}", path.display())))
}

/// The IPUs this process sees: its partition's, else the whole system's.
pub fn view() -> Result<std::ops::Range<u32>> {
    let (n, _) = configured()?;
    match std::env::var(PARTITION_VAR) {
        Ok(name) if !name.is_empty() => {
            let p = partitions()?.into_iter().find(|p| p.name == name).ok_or_else(|| {
                err(format!(
                    "{PARTITION_VAR}={name}: there is no such partition (create it with poplar-vipu)"
                ))
            })?;
            if p.first + p.size > n {
                return Err(err(format!("partition '{name}' lies outside the system's {n} IPUs")));
            }
            Ok(p.ipus())
        }
        _ => Ok(0..n),
    }
}

/// Every device of `n` IPUs from `first`, as Poplar lists them: one per
/// IPU, then groups of 2, 4, 8, … consecutive IPUs.
pub fn devices(ipus: std::ops::Range<u32>) -> Vec<std::ops::Range<u32>> {
    let (first, n) = (ipus.start, ipus.len() as u32);
    let mut out: Vec<std::ops::Range<u32>> = (0..n).map(|i| first + i..first + i + 1).collect();
    let mut size = 2;
    while size <= n {
        out.extend((0..n / size).map(|g| first + g * size..first + (g + 1) * size));
        size *= 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_list_singles_then_groups() {
        assert_eq!(devices(0..4), vec![0..1, 1..2, 2..3, 3..4, 0..2, 2..4, 0..4]);
        assert_eq!(devices(0..1), vec![0..1]);
        assert_eq!(devices(2..4), vec![2..3, 3..4, 2..4]);
    }

    /// A partition's name becomes a file name: nothing that could leave
    /// the partitions' folder or hide in it is accepted.
    #[test]
    fn partition_names_are_plain() {
        for bad in ["", "../x", "a/b", "a b", ".hidden", "x\n", &"p".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?} accepted");
        }
        for good in ["left", "pod-16_a", &"p".repeat(64)] {
            assert!(check_name(good).is_ok(), "{good:?} refused");
        }
    }
}
