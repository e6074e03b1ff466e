//! `POPLAR_LOG_LEVEL` and `POPLAR_LOG_DEST`, read the same way by all three
//! tools (`popc`, `poplar-compile`, `poplar-run`): how much log and warning
//! output to write, and where. Poplar's levels, least verbose first: `OFF`,
//! `ERR`, `WARN`, `INFO`, `DEBUG`, `TRACE`; unset means `WARN`, so the
//! compilers' warnings show unless asked not to. The destination is
//! `stderr` (unset), `stdout` or a file name (created, or truncated).
//! Errors that end a command are its result, not log output: they always
//! go to standard error. Only [`LogDest::open`] touches the file system.

use std::io::Write;
use std::path::PathBuf;

/// Logging levels of `POPLAR_LOG_LEVEL`, least verbose first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Off,
    Err,
    Warn,
    Info,
    Debug,
    Trace,
}

impl LogLevel {
    /// The level when `POPLAR_LOG_LEVEL` is unset: warnings show.
    pub const DEFAULT: LogLevel = LogLevel::Warn;

    /// Parses a level (case-insensitive; `ERROR` and `WARNING` also).
    pub fn parse(s: &str) -> Result<LogLevel, String> {
        Ok(match s.trim().to_ascii_uppercase().as_str() {
            "OFF" | "" => LogLevel::Off,
            "ERR" | "ERROR" => LogLevel::Err,
            "WARN" | "WARNING" => LogLevel::Warn,
            "INFO" => LogLevel::Info,
            "DEBUG" => LogLevel::Debug,
            "TRACE" => LogLevel::Trace,
            other => {
                return Err(format!(
                    "POPLAR_LOG_LEVEL '{other}' is not one of OFF, ERR, WARN, INFO, DEBUG, TRACE"
                ))
            }
        })
    }

    /// The tag of a log line, `PO:[TAG] …`.
    pub fn tag(self) -> &'static str {
        match self {
            LogLevel::Off => "",
            LogLevel::Err => "ERR",
            LogLevel::Warn => "WARN",
            LogLevel::Info => "INFO",
            LogLevel::Debug => "DEBUG",
            LogLevel::Trace => "TRACE",
        }
    }
}

/// Where log output goes (`POPLAR_LOG_DEST`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogDest {
    Stderr,
    Stdout,
    File(PathBuf),
}

impl LogDest {
    /// `stdout`, `stderr` (or empty) or a file name.
    pub fn parse(s: &str) -> LogDest {
        match s {
            "" | "stderr" => LogDest::Stderr,
            "stdout" => LogDest::Stdout,
            path => LogDest::File(PathBuf::from(path)),
        }
    }

    /// The file of a [`LogDest::File`], created (or truncated); `None` for
    /// the standard streams, which the caller holds.
    pub fn open(&self) -> Result<Option<Box<dyn Write>>, String> {
        match self {
            LogDest::File(p) => std::fs::File::create(p)
                .map(|f| Some(Box::new(std::io::BufWriter::new(f)) as Box<dyn Write>))
                .map_err(|e| format!("POPLAR_LOG_DEST: cannot write {}: {e}", p.display())),
            _ => Ok(None),
        }
    }
}

/// The logging settings of one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogConfig {
    pub level: LogLevel,
    pub dest: LogDest,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig { level: LogLevel::DEFAULT, dest: LogDest::Stderr }
    }
}

impl LogConfig {
    /// From the variables' values (`None` when unset).
    pub fn from_vars(level: Option<&str>, dest: Option<&str>) -> Result<LogConfig, String> {
        let level = level.map(LogLevel::parse).transpose()?.unwrap_or(LogLevel::DEFAULT);
        Ok(LogConfig { level, dest: dest.map(LogDest::parse).unwrap_or(LogDest::Stderr) })
    }

    /// From the process environment.
    pub fn from_env() -> Result<LogConfig, String> {
        let var = |k| std::env::var(k).ok();
        LogConfig::from_vars(var("POPLAR_LOG_LEVEL").as_deref(), var("POPLAR_LOG_DEST").as_deref())
    }

    /// Whether messages of `level` are written.
    pub fn enabled(&self, level: LogLevel) -> bool {
        level <= self.level && level != LogLevel::Off
    }
}

/// One log line as Poplar writes them: `PO:[INFO] message`.
pub fn line(level: LogLevel, msg: &str) -> String {
    format!("PO:[{}] {msg}\n", level.tag())
}

/// Writes a command's text output to standard output. A reader that went
/// away (`poplar-compile --dump … | head`) is not an error of the command:
/// the rest of the output is dropped, where `print!` would panic.
pub fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// [`write_stdout`] for standard error.
pub fn write_stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_destinations() {
        assert_eq!(LogLevel::parse("debug").unwrap(), LogLevel::Debug);
        assert!(LogLevel::parse("LOUD").is_err());
        let c = LogConfig::from_vars(None, None).unwrap();
        assert!(c.enabled(LogLevel::Warn) && !c.enabled(LogLevel::Info));
        let c = LogConfig::from_vars(Some("ERR"), Some("stdout")).unwrap();
        assert!(!c.enabled(LogLevel::Warn) && c.dest == LogDest::Stdout);
        assert!(!LogConfig::from_vars(Some("OFF"), None).unwrap().enabled(LogLevel::Off));
        assert_eq!(LogDest::parse("log.txt"), LogDest::File("log.txt".into()));
        assert_eq!(line(LogLevel::Info, "x"), "PO:[INFO] x\n");
    }
}
