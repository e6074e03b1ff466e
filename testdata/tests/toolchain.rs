//! Keeps the stated minimum Rust version honest: `rust-version` in the
//! workspace `Cargo.toml` (and the README's "… or newer") must be the
//! newest `rust-version` among the locked registry packages, read from
//! their manifests in cargo's registry sources
//! (`$CARGO_HOME/registry/src/*/<name>-<version>/Cargo.toml`). Packages whose
//! sources are not on this machine (other platforms' crates, which cargo
//! never downloaded) are skipped; with none present the test prints
//! "skipped: registry sources absent".

use std::path::{Path, PathBuf};

/// A `major.minor[.patch]` version, missing parts as 0.
fn version(s: &str) -> Option<(u32, u32, u32)> {
    let mut parts = s.trim().split('.').map(|p| p.parse::<u32>());
    let major = parts.next()?.ok()?;
    let minor = parts.next().unwrap_or(Ok(0)).ok()?;
    let patch = parts.next().unwrap_or(Ok(0)).ok()?;
    Some((major, minor, patch))
}

/// The `rust-version` value in `section` of a manifest's text.
fn rust_version(manifest: &str, section: &str) -> Option<String> {
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == section;
        } else if inside {
            if let Some(v) = line.strip_prefix("rust-version") {
                let v = v.trim_start().strip_prefix('=')?.trim();
                return Some(v.trim_matches('"').to_string());
            }
        }
    }
    None
}

/// `(name, version)` of every registry package in `Cargo.lock`.
fn locked_registry_packages(lock: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for block in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|l| l.strip_prefix(key).map(|v| v.trim().trim_matches('"').to_string()))
        };
        let registry = field("source = ").is_some_and(|s| s.starts_with("registry+"));
        if let (Some(name), Some(version), true) = (field("name = "), field("version = "), registry) {
            out.push((name, version));
        }
    }
    out
}

fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
}

#[test]
fn stated_rust_version_is_what_the_lock_needs() {
    let root = testdata::root().parent().unwrap().to_path_buf();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let stated_text =
        rust_version(&manifest, "[workspace.package]").expect("rust-version in [workspace.package]");
    let stated = version(&stated_text).expect("a numeric rust-version");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("{stated_text} or newer")),
        "README.md must state the minimum Rust version as \"{stated_text} or newer\""
    );

    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
    let packages = locked_registry_packages(&lock);
    assert!(packages.len() > 10, "Cargo.lock lists too few registry packages: {}", packages.len());
    let sources: Vec<PathBuf> = cargo_home()
        .and_then(|h| std::fs::read_dir(h.join("registry/src")).ok())
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    let (mut found, mut needed) = (0usize, Vec::new());
    for (name, ver) in &packages {
        let Some(text) = sources
            .iter()
            .find_map(|s| std::fs::read_to_string(s.join(format!("{name}-{ver}/Cargo.toml"))).ok())
        else {
            continue;
        };
        found += 1;
        if let Some(v) = rust_version(&text, "[package]").as_deref().and_then(version) {
            needed.push((v, format!("{name} {ver}")));
        }
    }
    if found == 0 {
        eprintln!("skipped: registry sources absent");
        return;
    }
    needed.sort();
    let (max, who) = needed.last().cloned().expect("some locked package states a rust-version");
    assert!(
        max <= stated,
        "{who} needs Rust {}.{}.{}, but Cargo.toml states rust-version {stated_text}",
        max.0,
        max.1,
        max.2
    );
    // Absent sources are packages cargo did not need to build here (other
    // platforms' crates); the ones present decide.
    assert_eq!(
        max,
        stated,
        "Cargo.toml states rust-version {stated_text}, but the newest any locked package needs is {}.{}.{} ({who})",
        max.0,
        max.1,
        max.2
    );
}

#[test]
fn manifest_parsing() {
    let m = "[package]\nname = \"x\"\nrust-version = \"1.95.0\"\n[dependencies]\nrust-version = \"9\"\n";
    assert_eq!(rust_version(m, "[package]").as_deref(), Some("1.95.0"));
    assert_eq!(version("1.95"), Some((1, 95, 0)));
    assert!(version("1.x").is_none());
    let lock = "[[package]]\nname = \"a\"\nversion = \"1.0.0\"\nsource = \"registry+https://x\"\n\n\
                [[package]]\nname = \"ir\"\nversion = \"0.1.0\"\n";
    assert_eq!(locked_registry_packages(lock), vec![("a".to_string(), "1.0.0".to_string())]);
}
