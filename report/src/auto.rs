//! The `autoReport.*` keys of `POPLAR_ENGINE_OPTIONS`, as Poplar reads
//! them: `autoReport.all`, `autoReport.outputGraphProfile`,
//! `autoReport.outputExecutionProfile` (each `"true"` or `"false"`) and
//! `autoReport.directory` (default: the current folder).
//!
//! Both binaries honour them: `poplar-compile` (and `poplar-run` given a
//! `.pir`) writes the graph profile, `poplar-run` on `sim` writes the
//! execution profile, and whichever finishes with both profiles in the
//! folder also writes the HTML report there. The file names are
//! [`GRAPH_FILE`], [`EXECUTION_FILE`] and [`REPORT_FILE`].
//!
//! The folder never mixes two graphs (audit 2026-11): each profile carries
//! the content hash of its image (`imageHash`), and writing one removes the
//! other profile, and the report, when they are of another image.

use std::path::{Path, PathBuf};

use serde_json::Value;

pub const GRAPH_FILE: &str = "graph.json";
pub const EXECUTION_FILE: &str = "execution.json";
pub const REPORT_FILE: &str = "report.html";

/// The `autoReport` keys, as accepted.
pub const KEYS: [&str; 4] = [
    "autoReport.all",
    "autoReport.outputGraphProfile",
    "autoReport.outputExecutionProfile",
    "autoReport.directory",
];

/// What the `autoReport` options ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AutoReport {
    pub graph: bool,
    pub execution: bool,
    pub directory: Option<PathBuf>,
}

/// `"true"`/`"false"` (or a JSON boolean), else an error naming the key.
pub fn flag(key: &str, v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        _ => Err(format!("engine option '{key}' must be \"true\" or \"false\", not {v}")),
    }
}

/// The error for a key no reader accepts: the key, a likely intended one,
/// and the accepted keys.
pub fn unknown_key(key: &str, accepted: &[&str]) -> String {
    let hint = spelling::did_you_mean(key, accepted.iter().copied())
        .map(|k| format!(" (did you mean '{k}'?)"))
        .unwrap_or_default();
    format!("unknown engine option '{key}'{hint}; accepted options: {}", accepted.join(", "))
}

impl AutoReport {
    /// Applies one option. `Ok(false)` when `key` is not an `autoReport`
    /// key; an unknown `autoReport.*` key or a bad value is an error.
    pub fn apply(&mut self, key: &str, v: &Value) -> Result<bool, String> {
        match key {
            "autoReport.all" => {
                let on = flag(key, v)?;
                self.graph = on;
                self.execution = on;
            }
            "autoReport.outputGraphProfile" => self.graph = flag(key, v)?,
            "autoReport.outputExecutionProfile" => self.execution = flag(key, v)?,
            "autoReport.directory" => match v {
                Value::String(s) if !s.is_empty() => self.directory = Some(PathBuf::from(s)),
                _ => return Err(format!("engine option '{key}' must be a folder name, not {v}")),
            },
            k if k.starts_with("autoReport.") => return Err(unknown_key(k, &KEYS)),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Only the `autoReport` keys of a `POPLAR_ENGINE_OPTIONS` object (the
    /// compiler's view: the runtime checks the other keys).
    pub fn from_engine_options(text: &str) -> Result<AutoReport, String> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| format!("POPLAR_ENGINE_OPTIONS is not valid JSON: {e}"))?;
        let Value::Object(map) = v else {
            return Err("POPLAR_ENGINE_OPTIONS must be a JSON object of option names to values".into());
        };
        let mut a = AutoReport::default();
        for (k, v) in &map {
            a.apply(k, v)?;
        }
        Ok(a)
    }

    pub fn directory(&self) -> &Path {
        self.directory.as_deref().unwrap_or(Path::new("."))
    }

    /// Writes the graph profile (when asked), then the report if the
    /// execution profile of the same image is already there; one of
    /// another image is removed, with the report.
    pub fn write_graph(&self, json: &str) -> Result<(), String> {
        if !self.graph {
            return Ok(());
        }
        self.write(GRAPH_FILE, json)?;
        self.remove_if_stale(EXECUTION_FILE, json)?;
        self.write_report_if_complete()
    }

    /// Writes the execution profile (when asked), then the report if the
    /// graph profile of the same image is there; one of another image is
    /// removed, with the report.
    pub fn write_execution(&self, json: &str) -> Result<(), String> {
        if !self.execution {
            return Ok(());
        }
        self.write(EXECUTION_FILE, json)?;
        self.remove_if_stale(GRAPH_FILE, json)?;
        self.write_report_if_complete()
    }

    /// Removes the folder's `other` profile and its report when that
    /// profile is not of the image `written` (a profile's JSON) is of: both
    /// must carry the same `imageHash` (one that cannot be read, or has
    /// none, is another image's).
    fn remove_if_stale(&self, other: &str, written: &str) -> Result<(), String> {
        let dir = self.directory();
        let path = dir.join(other);
        if !path.exists() {
            return Ok(());
        }
        let ours = image_hash(written);
        if ours.is_some() && std::fs::read_to_string(&path).ok().and_then(|t| image_hash(&t)) == ours {
            return Ok(());
        }
        for p in [path, dir.join(REPORT_FILE)] {
            match std::fs::remove_file(&p) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(format!("cannot remove {}, the profile of another graph: {e}", p.display()))
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn write(&self, name: &str, text: &str) -> Result<(), String> {
        let dir = self.directory();
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// The report from the folder's profiles, when the graph profile is
    /// there (with the execution profile when that is there too).
    fn write_report_if_complete(&self) -> Result<(), String> {
        let dir = self.directory();
        let (g, e) = (dir.join(GRAPH_FILE), dir.join(EXECUTION_FILE));
        if !g.is_file() || (self.execution && !e.is_file()) {
            return Ok(());
        }
        let read =
            |p: &Path| std::fs::read_to_string(p).map_err(|x| format!("cannot read {}: {x}", p.display()));
        let gtext = read(&g)?;
        let etext = if e.is_file() { Some(read(&e)?) } else { None };
        let (gname, ename) = (g.display().to_string(), e.display().to_string());
        let title = std::fs::canonicalize(dir)
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "report".into());
        let html =
            match crate::render_text(&title, (&gname, &gtext), etext.as_deref().map(|t| (ename.as_str(), t)))
            {
                Ok(h) => h,
                // An execution profile that does not go with the graph
                // profile (one that cannot be read): the graph alone.
                Err(_) if etext.is_some() => crate::render_text(&title, (&gname, &gtext), None)?,
                Err(x) => return Err(x),
            };
        self.write(REPORT_FILE, &html)
    }
}

/// A profile's `imageHash`, if it is a JSON object that has one.
fn image_hash(json: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Identity {
        #[serde(rename = "imageHash")]
        image_hash: Option<String>,
    }
    serde_json::from_str::<Identity>(json).ok()?.image_hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values() {
        let a = AutoReport::from_engine_options(
            r#"{"autoReport.all":"true","autoReport.directory":"out","debug.x":1}"#,
        )
        .unwrap();
        assert_eq!(a, AutoReport { graph: true, execution: true, directory: Some("out".into()) });
        let e = AutoReport::from_engine_options(r#"{"autoReport.outputGraphProfle":"true"}"#).unwrap_err();
        assert!(e.contains("'autoReport.outputGraphProfle'"), "{e}");
        assert!(e.contains("did you mean 'autoReport.outputGraphProfile'"), "{e}");
        assert!(e.contains("autoReport.directory"), "{e}");
        let e = AutoReport::from_engine_options(r#"{"autoReport.all":"yes"}"#).unwrap_err();
        assert!(e.contains("'autoReport.all' must be \"true\" or \"false\""), "{e}");
        assert!(AutoReport::from_engine_options(r#"{"autoReport.directory":""}"#).is_err());
    }
}
