//! Vertex state in tile memory, the way the tests and the conformance
//! runner lay it out: each field's data placed from a text value (`[1, 2]`,
//! `[[1], [2, 3]]`, `5`), its address (and count) written into the state at
//! [`STATE`], and the fields printed back after a run. One encoding, shared
//! by popc's run-case tests and the differential checks against g++.

use linker::gp::{ElemType, FieldKind, VertexType};

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

/// The little-endian bytes of `s` (a number, `true` or `false`) as an `e`.
/// Panics on a malformed number: values come from test specs and generators.
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
        // A quarter is written as its bit pattern (`0x40`, or decimal).
        ElemType::Quarter => match s.strip_prefix("0x") {
            Some(h) => vec![u8::from_str_radix(h, 16).unwrap_or_else(|_| panic!("bad quarter {s}"))],
            None => vec![i() as u8],
        },
        ElemType::Short | ElemType::UShort => (i() as u16).to_le_bytes().to_vec(),
        ElemType::Int | ElemType::UInt => (i() as u32).to_le_bytes().to_vec(),
        ElemType::Long | ElemType::ULong => (i() as u64).to_le_bytes().to_vec(),
        ElemType::Half => half::f16::from_f64(f()).to_bits().to_le_bytes().to_vec(),
        ElemType::Float => (f() as f32).to_le_bytes().to_vec(),
        ElemType::Double => f().to_le_bytes().to_vec(),
    }
}

/// An element's value as text (floats in Rust's shortest round-trip form).
pub fn decode(e: ElemType, b: &[u8]) -> String {
    match e {
        ElemType::Bool => (b[0] != 0).to_string(),
        ElemType::Char => (b[0] as i8).to_string(),
        ElemType::UChar => b[0].to_string(),
        ElemType::Quarter => format!("{:#04x}", b[0]),
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

/// Bytes an edge field of `elem` adds to the state after its address (and
/// count): the address of its metadata byte for `quarter`, none otherwise.
pub fn metadata_size(elem: ElemType, kind: FieldKind) -> u32 {
    if elem == ElemType::Quarter && kind != FieldKind::Plain {
        4
    } else {
        0
    }
}

/// Where the vertex state starts in tile memory; field data starts at [`DATA`].
pub const STATE: u32 = 0x100;
/// The first address of field data (the state must end before it).
pub const DATA: u32 = 0x1000;

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
        let md = metadata_size(f.elem, f.kind);
        if md > 0 {
            let key = format!("{}.metadata", f.name);
            let v = fields.iter().find(|(k, _)| *k == key).map_or("0", |(_, v)| v.as_str());
            let a = alloc(1)?;
            mem[a as usize] = encode(ElemType::Quarter, v.trim_matches(['[', ']']))[0];
            let at = st + (f.size - md) as usize;
            mem[at..at + 4].copy_from_slice(&a.to_le_bytes());
        }
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
                if f.size - md == 8 {
                    mem[st + 4..st + 8].copy_from_slice(&(items.len() as u32).to_le_bytes());
                }
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
                if f.size == 8 {
                    mem[st + 4..st + 8].copy_from_slice(&(items.len() as u32).to_le_bytes());
                }
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
                mem[st + 4..st + 8].copy_from_slice(&(lists.len() as u32).to_le_bytes());
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
