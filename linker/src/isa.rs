//! The instruction-set level codelet code is generated for, and which levels
//! this processor can run.
//!
//! On x86-64 the levels are the psABI's micro-architecture levels, each a
//! superset of the one before: `x86-64-v2` (SSE3 to SSE4.2, POPCNT), the
//! baseline every file may use, and `x86-64-v3` (adding AVX, AVX2, FMA,
//! BMI1, BMI2 and LZCNT, the extensions of that level Cranelift uses). The
//! level does not change what code computes: Cranelift's instructions have
//! one meaning whatever encodings it picks (popc never fuses a multiply and
//! an add), so results and `sim`'s counted cycles are the same at every
//! level; only the machine code, and its size, differ. At `x86-64-v3`
//! SIMD operations have three-operand encodings, which saves a register
//! copy before most of them.
//!
//! The toolchain generates code at the highest level this processor has
//! ([`Level::current`]), lowered by the environment variable
//! `POPLAR_HOST_ISA` (for objects that must run on older machines) or by
//! [`limit_to`] (the golden tests pin the baseline, so that the code sizes
//! they record do not depend on the machine). A file records its level in
//! its header (an object the level popc generated it at, an image the
//! highest of its objects'), and a reader accepts a file of that level or below
//! ([`runs_here`]).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// The environment variable that lowers the level code is generated at.
pub const ENV_VAR: &str = "POPLAR_HOST_ISA";

/// An instruction-set level; a later level includes every earlier one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The baseline: on x86-64, `x86-64-v2`; elsewhere the architecture's
    /// base instruction set.
    #[default]
    Baseline,
    /// `x86-64-v3` (x86-64 only).
    V3,
}

/// An instruction-set extension a level may use.
pub struct Feature {
    /// Its name in messages (`AVX2`).
    pub name: &'static str,
    /// The Cranelift x64 setting that lets generated code use it.
    pub cranelift: &'static str,
    /// Whether this processor has it.
    pub detected: fn() -> bool,
}

#[cfg(target_arch = "x86_64")]
macro_rules! feature {
    ($name:literal, $cranelift:literal, $std:tt) => {
        Feature { name: $name, cranelift: $cranelift, detected: || std::arch::is_x86_feature_detected!($std) }
    };
}

#[cfg(target_arch = "x86_64")]
const BASELINE_FEATURES: &[Feature] = &[
    feature!("SSE3", "has_sse3", "sse3"),
    feature!("SSSE3", "has_ssse3", "ssse3"),
    feature!("SSE4.1", "has_sse41", "sse4.1"),
    feature!("SSE4.2", "has_sse42", "sse4.2"),
    feature!("POPCNT", "has_popcnt", "popcnt"),
];

#[cfg(target_arch = "x86_64")]
const V3_FEATURES: &[Feature] = &[
    feature!("AVX", "has_avx", "avx"),
    feature!("AVX2", "has_avx2", "avx2"),
    feature!("FMA", "has_fma", "fma"),
    feature!("BMI1", "has_bmi1", "bmi1"),
    feature!("BMI2", "has_bmi2", "bmi2"),
    feature!("LZCNT", "has_lzcnt", "lzcnt"),
];

#[cfg(not(target_arch = "x86_64"))]
const BASELINE_FEATURES: &[Feature] = &[];

#[cfg(not(target_arch = "x86_64"))]
const V3_FEATURES: &[Feature] = &[];

impl Level {
    /// Every level this architecture has, lowest first.
    pub fn all() -> &'static [Level] {
        if cfg!(target_arch = "x86_64") {
            &[Level::Baseline, Level::V3]
        } else {
            &[Level::Baseline]
        }
    }

    /// The level's name, as file headers and `POPLAR_HOST_ISA` spell it.
    pub fn name(self) -> &'static str {
        match (self, cfg!(target_arch = "x86_64")) {
            (Level::Baseline, true) => "x86-64-v2",
            (Level::Baseline, false) => "base",
            (Level::V3, _) => "x86-64-v3",
        }
    }

    /// The level named `name` on this architecture.
    pub fn parse(name: &str) -> Option<Level> {
        Level::all().iter().copied().find(|l| l.name() == name)
    }

    /// The header's target string for code of this level generated here:
    /// architecture and operating system, then the level
    /// (`x86_64-linux x86-64-v3`).
    pub fn target(self) -> String {
        format!("{}-{} {}", std::env::consts::ARCH, std::env::consts::OS, self.name())
    }

    /// The level of a header's target string, if it names this
    /// architecture and operating system and a level of them.
    pub fn of_target(target: &str) -> Option<Level> {
        Level::all().iter().copied().find(|l| l.target() == target)
    }

    /// The extensions code at this level may use, its own and every lower
    /// level's.
    pub fn features(self) -> impl Iterator<Item = &'static Feature> {
        let v3: &[Feature] = if self >= Level::V3 { V3_FEATURES } else { &[] };
        BASELINE_FEATURES.iter().chain(v3)
    }

    /// The extensions of this level the processor lacks (by name).
    pub fn missing(self) -> Vec<&'static str> {
        self.features().filter(|f| !(f.detected)()).map(|f| f.name).collect()
    }

    /// The highest level this processor has (the baseline when it lacks
    /// even that: loading then fails with the missing extensions named).
    pub fn detected() -> Level {
        static DETECTED: OnceLock<Level> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            Level::all().iter().rev().copied().find(|l| l.missing().is_empty()).unwrap_or(Level::Baseline)
        })
    }

    /// The level code is generated at, and the highest a file read here
    /// may have: the detected level, lowered by `POPLAR_HOST_ISA` and by
    /// [`limit_to`]. An unusable `POPLAR_HOST_ISA` is ignored here; the
    /// command-line tools refuse it first ([`env_error`]).
    pub fn current() -> Level {
        let mut level = Level::detected();
        if let Some(asked) = env_level().and_then(|r| r.ok()) {
            level = level.min(asked);
        }
        match LIMIT.load(Ordering::Relaxed) {
            0 => level,
            _ => level.min(Level::Baseline),
        }
    }
}

/// 0: no limit; 1: the baseline.
static LIMIT: AtomicU8 = AtomicU8::new(0);

/// Lowers the level this process generates and accepts to `level`, from now
/// on. Only the baseline is a useful limit below the detected level: tests
/// call `limit_to(Level::Baseline)` before compiling anything, so that the
/// code sizes in their golden files are the same on every machine.
pub fn limit_to(level: Level) {
    LIMIT.store(u8::from(level == Level::Baseline), Ordering::Relaxed);
}

/// `POPLAR_HOST_ISA` read once: `None` when unset, else the level it names
/// or why it cannot be used.
fn env_level() -> Option<Result<Level, String>> {
    static ENV: OnceLock<Option<Result<Level, String>>> = OnceLock::new();
    ENV.get_or_init(|| {
        let value = std::env::var_os(ENV_VAR)?;
        let Some(value) = value.to_str() else {
            return Some(Err(format!("{ENV_VAR}={value:?} is not Unicode")));
        };
        let names: Vec<&str> = Level::all().iter().map(|l| l.name()).collect();
        Some(match Level::parse(value) {
            None => Err(format!(
                "{ENV_VAR}='{value}' names no instruction-set level (known: {})",
                names.join(", ")
            )),
            Some(level) if level > Level::detected() => Err(format!(
                "{ENV_VAR}='{value}' asks for a level this processor lacks (missing: {})",
                level.missing().join(", ")
            )),
            Some(level) => Ok(level),
        })
    })
    .clone()
}

/// Why `POPLAR_HOST_ISA` cannot be used, if it is set and cannot: each
/// command-line tool reports this as an error before doing anything.
pub fn env_error() -> Option<String> {
    env_level().and_then(|r| r.err())
}

/// The target string of [`Level::current`]: what this process generates
/// and the highest level it accepts.
pub fn host_target() -> String {
    Level::current().target()
}

/// What this process runs, for messages: [`host_target`] and lower levels,
/// and why, when `POPLAR_HOST_ISA` or [`limit_to`] lowered the level below
/// what the processor has.
pub fn describe_host() -> String {
    let (current, detected) = (Level::current(), Level::detected());
    let runs = format!("'{}' and lower ISA levels", current.target());
    if current == detected {
        runs
    } else if env_level().and_then(|r| r.ok()) == Some(current) {
        format!("{runs} ({ENV_VAR} lowers the level from {})", detected.name())
    } else {
        format!("{runs} (this process limits the level, from {})", detected.name())
    }
}

/// Whether a file whose header names `target` can be used here: the same
/// architecture and operating system, at [`Level::current`] or below.
pub fn runs_here(target: &str) -> bool {
    Level::of_target(target).is_some_and(|l| l <= Level::current())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_levels_are_ordered() {
        for &l in Level::all() {
            assert_eq!(Level::parse(l.name()), Some(l));
        }
        assert_eq!(Level::parse("x86-64-v4"), None);
        assert!(Level::Baseline < Level::V3);
        let base: Vec<&str> = Level::Baseline.features().map(|f| f.name).collect();
        let v3: Vec<&str> = Level::V3.features().map(|f| f.name).collect();
        if cfg!(target_arch = "x86_64") {
            assert_eq!(base, ["SSE3", "SSSE3", "SSE4.1", "SSE4.2", "POPCNT"]);
            assert!(v3.starts_with(&base) && v3.contains(&"AVX2") && v3.len() == base.len() + 6);
        }
    }

    #[test]
    fn files_of_a_lower_level_run_here_and_others_do_not() {
        assert!(runs_here(&host_target()));
        assert!(runs_here(&Level::Baseline.target()));
        assert!(!runs_here("riscv64-linux base"));
        assert!(!runs_here(&format!("{}-{} x86-64-v9", std::env::consts::ARCH, std::env::consts::OS)));
        if Level::current() == Level::Baseline && cfg!(target_arch = "x86_64") {
            assert!(!runs_here(&Level::V3.target()));
        }
    }

    #[test]
    fn an_object_header_records_its_own_level() {
        for &level in Level::all() {
            let object = crate::gp::Object {
                source: "k.cpp".into(),
                vertex_types: Vec::new(),
                statics: Default::default(),
                isa: level,
            };
            let bytes = object.to_bytes();
            assert_eq!(
                crate::container::peek_target(crate::container::Kind::Object, &bytes),
                Ok(level.target())
            );
            match crate::gp::Object::from_bytes(&bytes) {
                Ok(back) => assert_eq!((back.isa, level <= Level::current()), (level, true)),
                Err(e) => {
                    assert!(level > Level::current());
                    assert!(e.to_string().contains("and lower ISA levels"), "{e}");
                }
            }
        }
    }
}
