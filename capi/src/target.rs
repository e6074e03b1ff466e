//! Targets and element types as `capi.h` spells them: `prs_target_desc`
//! to and from [`ir::Target`], `enum prs_type` to and from [`ElemType`],
//! and host values converted to a tensor's element type.

use std::ffi::c_char;

use ir::{Preset, Target};
use vocab::{ElemType, Value};

use crate::status::{guard, ApiError, Result, Status};
use crate::{handle_mut, put, text};

/// `prs_target_desc`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TargetDesc {
    pub kind: i32,
    pub arch: [c_char; 16],
    pub num_ipus: u32,
    pub tiles_per_ipu: u32,
    pub bytes_per_tile: u32,
    pub workers: u32,
    pub exchange_bytes_per_cycle: u32,
    pub sync_cycles: u32,
    pub clock_hz: f64,
    /// The IPU-Links (`vocab::IpuLinks`): `enum prs_link_topology`, `enum
    /// prs_link_configuration` (-1: Poplar's choice by the IPU count) and
    /// `enum prs_sync_configuration`, each in Poplar's documentation order.
    pub link_topology: i32,
    pub link_configuration: i32,
    pub sync_configuration: i32,
}

pub const TARGET_IPU: i32 = 0;
pub const TARGET_IPU_MODEL: i32 = 1;
pub const TARGET_CPU: i32 = 2;

/// Poplar's architecture names and the presets they are.
const ARCHS: [(&str, Preset); 4] =
    [("ipu1", Preset::Mk1), ("ipu2", Preset::Mk2), ("ipu21", Preset::Bow), ("cpu", Preset::Cpu)];

impl TargetDesc {
    pub fn arch(&self) -> String {
        let bytes: Vec<u8> = self.arch.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The description of `target` as a device of `kind`.
    pub fn from_target(t: &Target, kind: i32) -> TargetDesc {
        let arch = ARCHS.iter().find(|(_, p)| *p == t.preset).map_or("ipu2", |(a, _)| a);
        let mut name = [0 as c_char; 16];
        for (d, s) in name.iter_mut().zip(arch.bytes()) {
            *d = s as c_char;
        }
        let mut desc = TargetDesc {
            kind,
            arch: name,
            num_ipus: t.ipus,
            tiles_per_ipu: t.tiles_per_ipu,
            bytes_per_tile: t.bytes_per_tile,
            workers: t.workers,
            exchange_bytes_per_cycle: t.exchange_bytes_per_cycle,
            sync_cycles: t.sync_cycles,
            clock_hz: f64::from(t.clock_mhz) * 1e6,
            link_topology: 0,
            link_configuration: -1,
            sync_configuration: 0,
        };
        desc.put_links(t.links);
        desc
    }

    /// The IPU-Links this describes; `Err` names a code out of range.
    fn links(&self) -> Result<vocab::IpuLinks> {
        let pick = |code: i32, words: &'static [&'static str], what: &str| {
            usize::try_from(code).ok().and_then(|i| words.get(i).copied()).ok_or_else(|| {
                ApiError::new(Status::PoplarError, format!("{what} code {code} is out of range"))
            })
        };
        let mut links = vocab::IpuLinks::default();
        let set = |links: &mut vocab::IpuLinks, key: &str, word: &str| {
            links.set(key, word).map_err(|e| ApiError::new(Status::InvalidOption, e))
        };
        set(
            &mut links,
            vocab::LinkTopology::KEY,
            pick(self.link_topology, vocab::LinkTopology::WORDS, "link topology")?,
        )?;
        if self.link_configuration != -1 {
            let word = pick(self.link_configuration, vocab::LinkConfiguration::WORDS, "link configuration")?;
            set(&mut links, vocab::LinkConfiguration::KEY, word)?;
        }
        let word = pick(self.sync_configuration, vocab::SyncConfiguration::WORDS, "sync configuration")?;
        set(&mut links, vocab::SyncConfiguration::KEY, word)?;
        Ok(links)
    }

    fn put_links(&mut self, links: vocab::IpuLinks) {
        self.link_topology = links.topology as i32;
        self.link_configuration = links.configuration.map_or(-1, |c| c as i32);
        self.sync_configuration = links.sync as i32;
    }

    /// Sets Poplar's target option `key` (`createIPUTarget`'s options):
    /// the IPU-Link keys of [`vocab::IpuLinks::OPTIONS`]; any other key is
    /// an invalid option, with a did-you-mean.
    pub fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        let keys = vocab::IpuLinks::OPTIONS.map(|(k, _)| k);
        if !keys.contains(&key) {
            let hint = spelling::did_you_mean(key, keys)
                .map(|s| format!("; did you mean '{s}'?"))
                .unwrap_or_default();
            return Err(ApiError::new(
                Status::InvalidOption,
                format!("unrecognised target option '{key}'{hint} (known: {})", keys.join(", ")),
            ));
        }
        let mut links = self.links()?;
        links.set(key, value).map_err(|e| ApiError::new(Status::InvalidOption, e))?;
        links.check(self.num_ipus).map_err(|e| ApiError::new(Status::InvalidOption, e))?;
        self.put_links(links);
        Ok(())
    }

    /// The target this describes, checked.
    pub fn to_target(&self) -> Result<Target> {
        let arch = self.arch();
        let preset = ARCHS.iter().find(|(a, _)| *a == arch).map(|(_, p)| *p).ok_or_else(|| {
            ApiError::new(
                Status::PoplarError,
                format!("unknown IPU architecture '{arch}' (known: ipu1, ipu2, ipu21)"),
            )
        })?;
        let mut t = Target::preset(preset);
        let clock = (self.clock_hz / 1e6).round();
        let set = [
            ("ipus", self.num_ipus),
            ("tiles_per_ipu", self.tiles_per_ipu),
            ("bytes_per_tile", self.bytes_per_tile),
            ("workers", self.workers),
            ("exchange_bytes_per_cycle", self.exchange_bytes_per_cycle),
            ("clock_mhz", if clock >= 1.0 && clock <= f64::from(u32::MAX) { clock as u32 } else { 0 }),
        ];
        for (k, v) in set {
            if v != 0 && t.get(k) != Some(v) {
                t.set(k, v).map_err(|e| ApiError::new(Status::PoplarError, e))?;
            }
        }
        t.sync_cycles = self.sync_cycles;
        t.links = self.links()?;
        t.check().map_err(|e| ApiError::new(Status::PoplarError, e))?;
        Ok(t)
    }
}

/// `enum prs_type` to an element type; `PRS_DOUBLE` only where host data
/// is meant (`host` true).
pub fn elem_type(code: i32, host: bool) -> Result<ElemType> {
    let e = match code {
        0 => ElemType::Bool,
        1 | 12 => ElemType::Char,
        2 => ElemType::UChar,
        3 => ElemType::Short,
        4 => ElemType::UShort,
        5 => ElemType::Int,
        6 => ElemType::UInt,
        7 => ElemType::Long,
        8 => ElemType::ULong,
        9 => ElemType::Half,
        10 => ElemType::Float,
        11 if host => ElemType::Double,
        13 => ElemType::Quarter,
        _ => {
            return Err(ApiError::new(
                Status::TypeError,
                format!("type code {code} is not a tensor element type"),
            ))
        }
    };
    Ok(e)
}

/// An element type as `enum prs_type`.
pub fn type_code(e: ElemType) -> i32 {
    match e {
        ElemType::Bool => 0,
        ElemType::Char => 1,
        ElemType::UChar => 2,
        ElemType::Short => 3,
        ElemType::UShort => 4,
        ElemType::Int => 5,
        ElemType::UInt => 6,
        ElemType::Long => 7,
        ElemType::ULong => 8,
        ElemType::Half => 9,
        ElemType::Float => 10,
        ElemType::Double => 11,
        ElemType::Quarter => 13,
    }
}

/// `n` host values of type `host` at `p` (host byte order), as values.
pub fn host_values(p: *const std::ffi::c_void, host: i32, n: usize) -> Result<Vec<Value>> {
    let (he, bytes) = host_bytes(p, host, n)?;
    Ok(bytes.chunks_exact(he.size() as usize).map(|c| vocab::decode(he, c)).collect())
}

/// The one value of type `host` at `p` (a field's value), as
/// [`host_values`] reads it.
pub fn host_value(p: *const std::ffi::c_void, host: i32) -> Result<Value> {
    let (he, bytes) = host_bytes(p, host, 1)?;
    Ok(vocab::decode(he, bytes))
}

/// The bytes of `n` values of type `host` at `p`, with their type.
fn host_bytes<'a>(p: *const std::ffi::c_void, host: i32, n: usize) -> Result<(ElemType, &'a [u8])> {
    let he = elem_type(host, true)?;
    let size = he.size() as usize;
    let bytes = crate::slice(p.cast::<u8>(), n.checked_mul(size).unwrap_or(0));
    if bytes.len() != n * size {
        return Err(ApiError::new(Status::PoplarError, "host values pointer is NULL"));
    }
    Ok((he, bytes))
}

/// Values converted to `elem`'s bytes; a value out of `elem`'s range is
/// an error naming both.
pub fn encode_values(values: &[Value], elem: ElemType) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(values.len() * elem.size() as usize);
    for &v in values {
        let v = if elem == ElemType::Bool {
            Value::Bool(v.as_f64() != 0.0)
        } else if elem.is_float() {
            Value::Float(v.as_f64())
        } else {
            match v {
                Value::Float(f) => Value::Int(f.trunc() as i128),
                Value::Bool(b) => Value::Int(i128::from(b)),
                v => v,
            }
        };
        if !v.fits(elem) {
            return Err(ApiError::new(
                Status::TypeError,
                format!("value {v:?} does not fit {}", elem.cpp_name()),
            ));
        }
        vocab::encode(elem, v, &mut out);
    }
    Ok(out)
}

impl TargetDesc {
    /// The preset target of Poplar's architecture name (`ipu1`, `ipu2`,
    /// `ipu21`, `cpu`), as an IPU Model (or CPU) target.
    pub fn preset(arch: &str) -> Result<TargetDesc> {
        let preset = ARCHS.iter().find(|(a, _)| *a == arch).map(|(_, p)| *p).ok_or_else(|| {
            ApiError::new(
                Status::PoplarError,
                format!("unknown IPU architecture '{arch}' (known: ipu1, ipu2, ipu21, cpu)"),
            )
        })?;
        let kind = if preset == Preset::Cpu { TARGET_CPU } else { TARGET_IPU_MODEL };
        Ok(TargetDesc::from_target(&Target::preset(preset), kind))
    }
}

#[no_mangle]
pub extern "C" fn prs_target_preset(arch: *const c_char, out: *mut TargetDesc) -> i32 {
    guard(|| put(out, TargetDesc::preset(text(arch, "architecture")?)?))
}

/// Applies `POPLAR_TARGET_OPTIONS`, when set, to `desc`, as the compiler
/// applies it to a PIR file's target (`compiler::driver::target_options`).
#[no_mangle]
pub extern "C" fn prs_target_env_options(desc: *mut TargetDesc) -> i32 {
    guard(|| {
        let desc = handle_mut(desc, "target description")?;
        let Ok(json) = std::env::var("POPLAR_TARGET_OPTIONS") else {
            return Ok(());
        };
        let mut t = desc.to_target()?;
        compiler::driver::target_options(&mut t, &json)
            .map_err(|e| ApiError::new(Status::InvalidOption, e.to_string()))?;
        t.check().map_err(|e| ApiError::new(Status::InvalidOption, e))?;
        *desc = TargetDesc::from_target(&t, desc.kind);
        Ok(())
    })
}

/// Sets one of Poplar's target options (`createIPUTarget`'s) on `desc`.
#[no_mangle]
pub extern "C" fn prs_target_set_option(
    desc: *mut TargetDesc,
    key: *const c_char,
    value: *const c_char,
) -> i32 {
    guard(|| {
        let (key, value) = (text(key, "option key")?, text(value, "option value")?);
        handle_mut(desc, "target description")?.set_option(key, value)
    })
}
