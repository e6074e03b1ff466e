//! Vertex state in tile memory, the way the tests and the conformance
//! runner lay it out: each field's data placed from a text value (`[1, 2]`,
//! `[[1], [2, 3]]`, `5`), its address (and count) written into the state at
//! [`STATE`], and the fields printed back after a run. One encoding, shared
//! by popc's run-case tests and the differential checks against g++.

use linker::gp::{ElemType, FieldKind, VertexType};
use vocab::Value;

/// The items of `[a, b, c]` (or of a bare `a`).
pub fn parse_list(v: &str) -> Vec<String> {
    let v = v.trim();
    let v = v.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(v);
    if v.trim().is_empty() {
        return vec![];
    }
    v.split(',').map(|s| s.trim().to_string()).collect()
}

/// The lists of `[[a, b], [c]]`.
pub fn parse_nested(v: &str) -> Vec<Vec<String>> {
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

/// The little-endian bytes of `s` (a number, `true` or `false`; a quarter
/// also as `0x40`) as an `e`, by the shared codec. Panics on a malformed
/// number: values come from test specs and generators.
pub fn encode(e: ElemType, s: &str) -> Vec<u8> {
    let f = || s.parse::<f64>().unwrap_or_else(|_| panic!("bad number {s}"));
    let v = if e.is_float() {
        Value::Float(f())
    } else if let (ElemType::Quarter, Some(h)) = (e, s.strip_prefix("0x")) {
        Value::Int(u8::from_str_radix(h, 16).unwrap_or_else(|_| panic!("bad quarter {s}")).into())
    } else if let Ok(b) = s.parse::<bool>() {
        Value::Bool(b)
    } else if let Ok(v) = s.parse::<i64>() {
        Value::Int(v.into())
    } else if let Ok(v) = s.parse::<u64>() {
        Value::Int(v.into())
    } else {
        Value::Float(f())
    };
    vocab::encode_vec(e, v)
}

/// An element's value as text (floats in Rust's shortest round-trip form
/// of their own width, a quarter as its bit pattern in hex).
pub fn decode(e: ElemType, b: &[u8]) -> String {
    match vocab::decode(e, b) {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) if e == ElemType::Quarter => format!("{i:#04x}"),
        Value::Int(i) => i.to_string(),
        Value::Float(f) if e == ElemType::Double => format!("{f:?}"),
        Value::Float(f) => format!("{:?}", f as f32),
    }
}

/// Where the vertex state starts in tile memory; field data starts at [`DATA`].
pub const STATE: u32 = 0x100;
/// The first address of field data (the state must end before it).
pub const DATA: u32 = 0x1000;

/// Writes an object's static storage at the top of `mem`, 8-byte aligned,
/// and returns its address: field data must stay below it (lay out into
/// `&mut mem[..address]`). An error when it does not fit above [`DATA`].
pub fn place_statics(st: &linker::gp::Statics, mem: &mut [u8]) -> Result<u32, String> {
    let n = st.init.len();
    let at = mem.len().checked_sub(n).map(|a| a & !7).filter(|&a| a >= DATA as usize);
    let Some(at) = at else {
        return Err(format!("static storage of {n} bytes does not fit in {} bytes of memory", mem.len()));
    };
    mem[at..at + n].copy_from_slice(&st.init);
    Ok(at as u32)
}

/// Where each field's data went: (field index, address, count) or lists.
pub enum Placed {
    /// A one-element edge or a vector: its address and element count.
    Flat(u32, usize),
    /// A vector list: each sub-vector's address and element count.
    List(Vec<(u32, usize)>),
    /// A plain member, stored in the state itself.
    Plain,
    /// A vector of one-element edges: each element's own address.
    Scattered(Vec<u32>),
}

/// Writes the state of `vt` at [`STATE`] and each field's value (by name;
/// missing ones read 0) from [`DATA`] on, 8-byte aligned. A quarter edge's
/// metadata byte is the value named `FIELD.metadata` (0, format 1.5.2 and
/// scale 0, when missing). An error when the state or the data do not fit
/// in `mem`.
pub fn layout(vt: &VertexType, fields: &[(String, String)], mem: &mut [u8]) -> Result<Vec<Placed>, String> {
    if STATE + vt.state_size > DATA || mem.len() < DATA as usize {
        return Err(format!("vertex state of {} bytes does not fit below {DATA:#x}", vt.state_size));
    }
    let len = mem.len();
    let mut next = DATA as usize;
    let mut alloc = |bytes: usize| -> Result<u32, String> {
        let a = next;
        next = (next + bytes + 7) & !7;
        if next > len {
            return Err(format!("field data needs more than the {len} bytes of memory"));
        }
        Ok(a as u32)
    };
    let mut placed = Vec::new();
    for f in &vt.fields {
        let val = fields.iter().find(|(k, _)| *k == f.name).map(|(_, v)| v.as_str());
        let sz = f.elem.size() as usize;
        let st = (STATE + f.offset) as usize;
        if let Some(md) = f.metadata_offset() {
            let key = format!("{}.metadata", f.name);
            let v = fields.iter().find(|(k, _)| *k == key).map_or("0", |(_, v)| v.as_str());
            let a = alloc(1)?;
            mem[a as usize] = encode(ElemType::Quarter, v.trim_matches(['[', ']']))[0];
            let at = st + md as usize;
            mem[at..at + 4].copy_from_slice(&a.to_le_bytes());
        }
        // An edge's item count, where its state stores one.
        let count = |mem: &mut [u8], n: usize| {
            if let Some(c) = f.count_offset() {
                let at = st + c as usize;
                mem[at..at + 4].copy_from_slice(&(n as u32).to_le_bytes());
            }
        };
        match f.kind {
            FieldKind::Plain => {
                let v = val.unwrap_or("0");
                let b = encode(f.elem, v.trim_matches(['[', ']']));
                mem[st..st + b.len()].copy_from_slice(&b);
                placed.push(Placed::Plain);
            }
            FieldKind::Scalar | FieldKind::Vector(_) => {
                let items = parse_list(val.unwrap_or("[0]"));
                let a = alloc(items.len().max(1) * sz)?;
                for (i, it) in items.iter().enumerate() {
                    let b = encode(f.elem, it);
                    mem[a as usize + i * sz..a as usize + (i + 1) * sz].copy_from_slice(&b);
                }
                mem[st..st + 4].copy_from_slice(&a.to_le_bytes());
                count(mem, items.len());
                placed.push(Placed::Flat(a, items.len()));
            }
            FieldKind::ScalarList(_) => {
                // The address table, then each element in its own 8-byte slot,
                // last first, so no code can get by assuming they are adjacent.
                let items = parse_list(val.unwrap_or("[0]"));
                let table = alloc(items.len().max(1) * 4)?;
                let mut at = vec![0; items.len()];
                for (i, it) in items.iter().enumerate().rev() {
                    let a = alloc(sz)?;
                    let b = encode(f.elem, it);
                    mem[a as usize..a as usize + sz].copy_from_slice(&b);
                    let t = table as usize + i * 4;
                    mem[t..t + 4].copy_from_slice(&a.to_le_bytes());
                    at[i] = a;
                }
                mem[st..st + 4].copy_from_slice(&table.to_le_bytes());
                count(mem, items.len());
                placed.push(Placed::Scattered(at));
            }
            FieldKind::VectorList(_) => {
                let lists = parse_nested(val.unwrap_or("[]"));
                let table = alloc(lists.len().max(1) * 8)?;
                let mut v = Vec::new();
                for (j, l) in lists.iter().enumerate() {
                    let a = alloc(l.len().max(1) * sz)?;
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
                count(mem, lists.len());
                placed.push(Placed::List(v));
            }
        }
    }
    Ok(placed)
}

/// Prints every field after a run, one `  name = value` line each.
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
            Placed::Scattered(v) => {
                format!("[{}]", v.iter().map(|a| items(*a, 1)).collect::<Vec<_>>().join(", "))
            }
            Placed::List(v) => format!(
                "[{}]",
                v.iter().map(|(a, n)| format!("[{}]", items(*a, *n))).collect::<Vec<_>>().join(", ")
            ),
        };
        out.push_str(&format!("  {} = {}\n", f.name, s));
    }
    out
}
