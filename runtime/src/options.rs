//! Run-time options: the engine options (`POPLAR_ENGINE_OPTIONS`, a JSON
//! object as in the Poplar SDK) and the log level (`POPLAR_LOG_LEVEL`).
//!
//! Parsing only; reading the environment is the binary's job. Every key
//! must be one this runtime acts on ([`ENGINE_KEYS`]) or one Poplar
//! documents that has no effect here ([`POPLAR_ONLY_KEYS`], accepted with a
//! note); anything else is an error naming the key, the closest known one
//! and the list, so a typo never silently turns an option off.

use report::auto::{flag, unknown_key, AutoReport};
use serde_json::Value;

use crate::blocks::BlockOptions;
use crate::exec::DeviceKind;

/// How an engine runs.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    pub device: DeviceKind,
    /// Host threads for the tiles; 0 means all cores.
    pub threads: usize,
    /// Stop a run past this many cycles (sim) or steps (cpu).
    pub max_cycles: Option<u64>,
    /// Record the execution profile (steps, per tile, per vertex type).
    pub profile: bool,
    /// Count instructions on `sim` (`debug.instrumentCompute`); when off,
    /// only `cycles N` estimates give compute cycles.
    pub instrument_compute: bool,
    /// Record the timeline for `--trace` (sim only).
    pub trace: bool,
    /// `autoReport.*`: profiles and the HTML report written without flags.
    pub auto_report: AutoReport,
    /// The lightweight profiler's `profiler.*` options and
    /// `debug.instrumentExternalExchange` (sim only: [`crate::blocks`]).
    pub blocks: BlockOptions,
    /// `profiler.replicaToProfile`: the replica whose execution profile,
    /// summary and blocks are recorded (0 by default).
    pub replica_to_profile: u32,
    /// `target.syncReplicasIndependently`: host transfers sync each
    /// replica's IPUs with the host alone (Poplar's first sync group)
    /// instead of every replica together (false, Poplar's default).
    pub sync_replicas_independently: bool,
}

/// The `POPLAR_ENGINE_OPTIONS` keys this runtime accepts. Those of Poplar
/// with no meaning here (`target.deterministicWorkers`: runs are always
/// deterministic; `debug.computeInstrumentationLevel`: cycles are kept
/// per tile and per vertex type at every level) are checked and noted.
/// `debug.instrumentExternalExchange` and `profiler.*` drive the
/// lightweight profiler ([`crate::blocks`]); host transfers are modelled
/// whatever they say.
pub const ENGINE_KEYS: [&str; 17] = [
    "autoReport.all",
    "autoReport.directory",
    "autoReport.outputExecutionProfile",
    "autoReport.outputGraphProfile",
    "debug.computeInstrumentationLevel",
    "debug.instrument",
    "debug.instrumentCompute",
    "debug.instrumentExternalExchange",
    "debug.maxCycles",
    "profiler.blocks.bufferSize",
    "profiler.blocks.filter",
    "profiler.blocks.implicitFlush",
    "profiler.blocks.tile",
    "profiler.programs.filter",
    "profiler.replicaToProfile",
    "target.deterministicWorkers",
    "target.syncReplicasIndependently",
];

/// Engine options Poplar documents that have no effect on this runtime
/// (compilation strategies, hardware tracing, profiler filters, stream
/// callback threading): accepted, with a note for the log, so programs
/// written for the SDK run unchanged.
pub const POPLAR_ONLY_KEYS: [&str; 39] = [
    "autoReport.executionProfileProgramRunCount",
    "autoReport.outputArchive",
    "autoReport.outputDebugInfo",
    "autoReport.outputLoweredVars",
    "autoReport.outputSerializedGraph",
    "autoReport.streamAtEachRun",
    "debug.allowOutOfMemory",
    "debug.branchRecordTile",
    "debug.checkForSpecialBufferOverflows",
    "debug.cpuMultiThreadExecution",
    "debug.floatPointOpException",
    "debug.instrumentControlFlow",
    "debug.nanOverflowException",
    "debug.outputAllSymbols",
    "debug.profilingTile",
    "debug.retainDebugInformation",
    "debug.runtimeVerify",
    "debug.supervisorStackSizeInBytes",
    "debug.trace",
    "debug.traceFile",
    "debug.verify",
    "debug.workerStackSizeInBytes",
    "exchange.enablePrefetch",
    "exchange.streamBufferOverlap",
    "opt.enableMultiAccessCopies",
    "opt.enableSwSyncs",
    "opt.internalExchangeOptimisationTarget",
    "opt.limitVertexStateToLower256K",
    "opt.maxComputeSetsPerLoweredCopy",
    "opt.maxCopyMergeSize",
    "opt.useAutoloader",
    "profiler.format",
    "profiler.perExecutionStreamCopyCycles",
    "streamCallbacks.multiThreadMode",
    "streamCallbacks.numWorkerThreads",
    "streamCallbacks.numaAware",
    "target.extendedMemory",
    "target.hostSyncTimeout",
    "target.maxStreamCallbackThreadsPerNumaNode",
];

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            device: DeviceKind::Sim,
            threads: 0,
            max_cycles: None,
            profile: false,
            instrument_compute: true,
            trace: false,
            auto_report: AutoReport::default(),
            blocks: BlockOptions::default(),
            replica_to_profile: 0,
            sync_replicas_independently: false,
        }
    }
}

impl EngineOptions {
    /// Applies option flags given as text pairs (the host API's
    /// `OptionFlags`), as [`EngineOptions::apply_json`] does.
    pub fn apply_pairs(&mut self, pairs: &[(String, String)]) -> Result<Vec<String>, String> {
        let map: serde_json::Map<String, Value> =
            pairs.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        self.apply_json(&Value::Object(map).to_string())
    }

    /// Applies a `POPLAR_ENGINE_OPTIONS` JSON object. Returns notes on
    /// options that are accepted but have no effect here (for the log).
    pub fn apply_json(&mut self, text: &str) -> Result<Vec<String>, String> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| format!("POPLAR_ENGINE_OPTIONS is not valid JSON: {e}"))?;
        let Value::Object(map) = v else {
            return Err("POPLAR_ENGINE_OPTIONS must be a JSON object of option names to values".into());
        };
        let mut notes = Vec::new();
        for (k, v) in &map {
            if POPLAR_ONLY_KEYS.contains(&k.as_str()) {
                notes.push(format!("{k}: Poplar's option has no effect here"));
                continue;
            }
            if self.auto_report.apply(k, v)? {
                continue;
            }
            match k.as_str() {
                "debug.instrument" => self.profile = flag(k, v)?,
                "debug.instrumentCompute" => self.instrument_compute = flag(k, v)?,
                "target.deterministicWorkers" => match v.as_str() {
                    Some("true" | "false" | "portable") => {
                        notes.push(format!("{k}: execution is always deterministic here"))
                    }
                    _ => {
                        return Err(format!(
                            "engine option '{k}' must be \"true\", \"false\" or \"portable\""
                        ))
                    }
                },
                "debug.maxCycles" => {
                    let n = match v {
                        Value::Number(n) => n.as_u64(),
                        Value::String(s) => s.parse().ok(),
                        _ => None,
                    };
                    self.max_cycles = Some(n.ok_or_else(|| format!("engine option '{k}' must be a count"))?);
                }
                "debug.instrumentExternalExchange" => self.blocks.external = flag(k, v)?,
                "profiler.blocks.implicitFlush" => self.blocks.implicit_flush = flag(k, v)?,
                "profiler.blocks.filter" | "profiler.programs.filter" => {
                    let Some(p) = v.as_str() else {
                        return Err(format!("engine option '{k}' must be a regular expression in a string"));
                    };
                    crate::blocks::filter(p)
                        .map_err(|e| format!("engine option '{k}' is not a regular expression: {e}"))?;
                    let p = (!p.is_empty()).then(|| p.to_string());
                    match k.as_str() {
                        "profiler.blocks.filter" => self.blocks.blocks_filter = p,
                        _ => self.blocks.programs_filter = p,
                    }
                }
                "profiler.blocks.tile" => self.blocks.tile = count_u32(k, v)?,
                "profiler.blocks.bufferSize" => self.blocks.buffer_bytes = count_u32(k, v)?,
                "profiler.replicaToProfile" => self.replica_to_profile = count_u32(k, v)?,
                "target.syncReplicasIndependently" => self.sync_replicas_independently = flag(k, v)?,
                "debug.computeInstrumentationLevel" => match v.as_str() {
                    Some("tile" | "vertex" | "device" | "ipu") => notes
                        .push(format!("{k}: cycles are kept per tile and per vertex type at every level")),
                    _ => {
                        return Err(format!(
                            "engine option '{k}' must be \"tile\", \"vertex\", \"device\" or \"ipu\", not {v}"
                        ))
                    }
                },
                _ => {
                    let known: Vec<&str> = ENGINE_KEYS.iter().chain(&POPLAR_ONLY_KEYS).copied().collect();
                    return Err(unknown_key(k, &known));
                }
            }
        }
        Ok(notes)
    }
}

/// A count option, given as a number or its text.
fn count_u32(k: &str, v: &Value) -> Result<u32, String> {
    let n = match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    };
    n.and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("engine option '{k}' must be a count, not {v}"))
}

/// Logging levels of `POPLAR_LOG_LEVEL` (shared by the three tools).
pub use report::log::LogLevel;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_options() {
        let mut o = EngineOptions::default();
        o.apply_json(r#"{"debug.instrument":"true","target.deterministicWorkers":"portable"}"#).unwrap();
        assert!(o.profile);
        assert!(o.apply_json("{nope").unwrap_err().contains("not valid JSON"));
        assert!(o.apply_json("[1]").is_err());
        assert!(o.apply_json(r#"{"debug.instrument":"maybe"}"#).is_err());
        let e = o.apply_json(r#"{"debug.instrumnet":"true"}"#).unwrap_err();
        assert!(
            e.starts_with("unknown engine option 'debug.instrumnet' (did you mean 'debug.instrument'?)"),
            "{e}"
        );
        assert!(e.contains("autoReport.all") && e.contains("debug.maxCycles"), "{e}");
        o.apply_json(r#"{"autoReport.all":"true","autoReport.directory":"rep"}"#).unwrap();
        assert!(o.auto_report.graph && o.auto_report.execution);
        let e = o.apply_json(r#"{"autoReport.outputExecutionProfile":"1"}"#).unwrap_err();
        assert!(e.contains("'autoReport.outputExecutionProfile' must be \"true\" or \"false\""), "{e}");
    }
}
