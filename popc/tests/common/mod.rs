//! Shared test harness: lay out vertex state and edge data in a tile memory
//! from a small text spec, run the compiled code, and print the fields.
//!
//! Spec lines (in `//` comments of a codelet, one block per `RUN`):
//! `// RUN VertexName` then `//   field = [1, 2, 3]` (vector / scalar edge
//! / plain field), `//   field = [[1, 2], [3]]` (vector list),
//! `//   field = 5` (plain value or one-element edge).

#![allow(dead_code)]

use linker::gp::{ElemType, FieldKind, Object, VertexType};
use popc::exec::{run_vertex, Loaded, RunResult};

pub struct Run {
    pub vertex: String,
    pub fields: Vec<(String, String)>,
}

pub fn parse_runs(src: &str) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for line in src.lines() {
        let Some(rest) = line.trim().strip_prefix("//") else { continue };
        let rest = rest.trim();
        if let Some(v) = rest.strip_prefix("RUN ") {
            runs.push(Run { vertex: v.trim().to_string(), fields: Vec::new() });
        } else if let (Some(r), Some((k, v))) = (runs.last_mut(), rest.split_once('=')) {
            if line.trim_start().starts_with("//  ") || line.contains("//   ") {
                r.fields.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
    }
    runs
}

fn parse_list(v: &str) -> Vec<String> {
    let v = v.trim();
    let v = v.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(v);
    if v.trim().is_empty() {
        return vec![];
    }
    v.split(',').map(|s| s.trim().to_string()).collect()
}

fn parse_nested(v: &str) -> Vec<Vec<String>> {
    let v = v.trim();
    let inner = v.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(v);
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in inner.chars() {
        match c {
            '[' => {
                depth += 1;
                if depth == 1 {
                    cur.clear();
                    continue;
                }
            }
            ']' => {
                depth -= 1;
                if depth == 0 {
                    out.push(parse_list(&cur));
                    continue;
                }
            }
            _ => {}
        }
        if depth >= 1 {
            cur.push(c);
        }
    }
    out
}

pub fn encode(e: ElemType, s: &str) -> Vec<u8> {
    let f = || s.parse::<f64>().unwrap_or_else(|_| panic!("bad number {s}"));
    let i = || -> i64 {
        if s == "true" {
            1
        } else if s == "false" {
            0
        } else if let Ok(v) = s.parse::<i64>() {
            v
        } else {
            s.parse::<u64>().map(|v| v as i64).unwrap_or_else(|_| f() as i64)
        }
    };
    match e {
        ElemType::Bool | ElemType::Char | ElemType::UChar => vec![i() as u8],
        ElemType::Short | ElemType::UShort => (i() as u16).to_le_bytes().to_vec(),
        ElemType::Int | ElemType::UInt => (i() as u32).to_le_bytes().to_vec(),
        ElemType::Long | ElemType::ULong => (i() as u64).to_le_bytes().to_vec(),
        ElemType::Half => half::f16::from_f64(f()).to_bits().to_le_bytes().to_vec(),
        ElemType::Float => (f() as f32).to_le_bytes().to_vec(),
        ElemType::Double => f().to_le_bytes().to_vec(),
    }
}

pub fn decode(e: ElemType, b: &[u8]) -> String {
    match e {
        ElemType::Bool => (b[0] != 0).to_string(),
        ElemType::Char => (b[0] as i8).to_string(),
        ElemType::UChar => b[0].to_string(),
        ElemType::Short => i16::from_le_bytes([b[0], b[1]]).to_string(),
        ElemType::UShort => u16::from_le_bytes([b[0], b[1]]).to_string(),
        ElemType::Int => i32::from_le_bytes(b[..4].try_into().unwrap()).to_string(),
        ElemType::UInt => u32::from_le_bytes(b[..4].try_into().unwrap()).to_string(),
        ElemType::Long => i64::from_le_bytes(b[..8].try_into().unwrap()).to_string(),
        ElemType::ULong => u64::from_le_bytes(b[..8].try_into().unwrap()).to_string(),
        ElemType::Half => format!("{:?}", half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()),
        ElemType::Float => format!("{:?}", f32::from_le_bytes(b[..4].try_into().unwrap())),
        ElemType::Double => format!("{:?}", f64::from_le_bytes(b[..8].try_into().unwrap())),
    }
}

pub const STATE: u32 = 0x100;

/// Where each field's data went: (field index, address, count) or lists.
pub enum Placed {
    Flat(u32, usize),
    List(Vec<(u32, usize)>),
    Plain,
}

pub fn layout(vt: &VertexType, fields: &[(String, String)], mem: &mut [u8]) -> Result<Vec<Placed>, String> {
    let mut next = 0x1000u32;
    let mut alloc = |bytes: usize| {
        let a = next;
        next = (next + bytes as u32 + 7) & !7;
        a
    };
    let mut placed = Vec::new();
    for f in &vt.fields {
        let val = fields.iter().find(|(k, _)| *k == f.name).map(|(_, v)| v.as_str());
        let sz = f.elem.size() as usize;
        let st = (STATE + f.offset) as usize;
        match f.kind {
            FieldKind::Plain => {
                let v = val.unwrap_or("0");
                let b = encode(f.elem, v.trim_matches(['[', ']']));
                mem[st..st + b.len()].copy_from_slice(&b);
                placed.push(Placed::Plain);
            }
            FieldKind::Scalar | FieldKind::Vector(_) => {
                let items = parse_list(val.unwrap_or("[0]"));
                let a = alloc(items.len().max(1) * sz);
                for (i, it) in items.iter().enumerate() {
                    let b = encode(f.elem, it);
                    mem[a as usize + i * sz..a as usize + (i + 1) * sz].copy_from_slice(&b);
                }
                mem[st..st + 4].copy_from_slice(&a.to_le_bytes());
                if f.size == 8 {
                    mem[st + 4..st + 8].copy_from_slice(&(items.len() as u32).to_le_bytes());
                }
                placed.push(Placed::Flat(a, items.len()));
            }
            FieldKind::VectorList(_) => {
                let lists = parse_nested(val.unwrap_or("[]"));
                let table = alloc(lists.len().max(1) * 8);
                let mut v = Vec::new();
                for (j, l) in lists.iter().enumerate() {
                    let a = alloc(l.len().max(1) * sz);
                    for (i, it) in l.iter().enumerate() {
                        let b = encode(f.elem, it);
                        mem[a as usize + i * sz..a as usize + (i + 1) * sz].copy_from_slice(&b);
                    }
                    let t = table as usize + j * 8;
                    mem[t..t + 4].copy_from_slice(&a.to_le_bytes());
                    mem[t + 4..t + 8].copy_from_slice(&(l.len() as u32).to_le_bytes());
                    v.push((a, l.len()));
                }
                mem[st..st + 4].copy_from_slice(&table.to_le_bytes());
                mem[st + 4..st + 8].copy_from_slice(&(lists.len() as u32).to_le_bytes());
                placed.push(Placed::List(v));
            }
        }
    }
    Ok(placed)
}

pub fn dump(vt: &VertexType, placed: &[Placed], mem: &[u8]) -> String {
    let mut out = String::new();
    for (f, p) in vt.fields.iter().zip(placed) {
        let sz = f.elem.size() as usize;
        let items = |a: u32, n: usize| -> String {
            (0..n)
                .map(|i| decode(f.elem, &mem[a as usize + i * sz..a as usize + (i + 1) * sz]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let s = match p {
            Placed::Plain => decode(f.elem, &mem[(STATE + f.offset) as usize..]),
            Placed::Flat(a, n) => format!("[{}]", items(*a, *n)),
            Placed::List(v) => format!(
                "[{}]",
                v.iter().map(|(a, n)| format!("[{}]", items(*a, *n))).collect::<Vec<_>>().join(", ")
            ),
        };
        out.push_str(&format!("  {} = {}\n", f.name, s));
    }
    out
}

/// Runs one spec against an object; returns the printed report.
pub fn run_spec(obj: &Object, run: &Run) -> String {
    let Some(vt) = obj.vertex_types.iter().find(|v| v.name == run.vertex) else {
        return format!(
            "RUN {}: no such vertex type (have {:?})\n",
            run.vertex,
            obj.vertex_types.iter().map(|v| &v.name).collect::<Vec<_>>()
        );
    };
    let mut report = format!("RUN {}\n", run.vertex);
    let mut counts = Vec::new();
    let mut result: Option<(RunResult, String)> = None;
    for (variant, func) in [("plain", &vt.plain), ("counting", &vt.counting)] {
        let mut mem = vec![0u8; 1 << 16];
        let placed = match layout(vt, &run.fields, &mut mem) {
            Ok(p) => p,
            Err(e) => return format!("{report}  layout error: {e}\n"),
        };
        let code = Loaded::new(func, vt.base == linker::gp::VertexBase::MultiVertex).expect("load");
        let r = run_vertex(&code, &mut mem, STATE);
        let d = dump(vt, &placed, &mem);
        if variant == "counting" {
            counts.push(r.count);
        }
        match &result {
            None => result = Some((r, d)),
            Some((r0, d0)) => {
                if r0.status != r.status || *d0 != d || r0.printed != r.printed {
                    report.push_str("  MISMATCH between plain and counting variants\n");
                }
            }
        }
    }
    let (r, d) = result.unwrap();
    report.push_str(&format!("  status = {} ({})\n", r.status, linker::abi::describe_status(r.status)));
    if r.status == linker::abi::STATUS_OUT_OF_BOUNDS {
        report.push_str(&format!("  trap_addr = {:#x}\n", r.trap_addr));
    }
    if r.trap_line != 0 {
        report.push_str(&format!("  trap_line = {}\n", r.trap_line));
    }
    report.push_str(&d);
    if !r.printed.is_empty() {
        report.push_str("  printed:\n");
        for l in String::from_utf8_lossy(&r.printed).lines() {
            report.push_str(&format!("    | {l}\n"));
        }
    }
    report.push_str(&format!("  count = {}\n", counts[0]));
    report
}

pub struct Fs;
impl popc::IncludeResolver for Fs {
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}
