//! The graph part of Poplar's `printProfileSummary`, from a graph profile:
//! the Target, Graph and Memory sections laid out as the Poplar user
//! guide's example prints them (memory including and excluding gaps, by
//! region, by data type, vertex data by category and by type, a histogram
//! by tile, the largest tiles and the tiles out of memory). Numbers are
//! grouped with commas; `kB` and `MB` are powers of 1,024, as in the guide.

use std::fmt::Write;

use crate::schema::{CategoryTotal, GraphProfile, GraphTarget};

/// Digits with thousands separators.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `x` with one decimal and thousands separators: `3,801.8`.
pub fn decimal(x: f64) -> String {
    // In u128: a tile average can come near 2^64 cycles.
    let tenths = (x * 10.0).round() as u128;
    let whole = u64::try_from(tenths / 10).unwrap_or(u64::MAX);
    format!("{}.{}", thousands(whole), tenths % 10)
}

/// The guide's names for the tile memory categories, in its order.
const CATEGORIES: [(&str, &str); 6] = [
    ("variable", "Variables"),
    ("constant", "Constants"),
    ("message", "Internal Exchange Message Buffers"),
    ("stack", "Stack"),
    ("vertexInstanceState", "Vertex Instances"),
    ("vectorListDescriptor", "VectorList Descriptors"),
];

fn sum(v: &[u64]) -> u64 {
    v.iter().fold(0u64, |a, &b| a.saturating_add(b))
}

fn sum_rows(rows: &[Vec<u64>]) -> u64 {
    rows.iter().map(|r| sum(r)).fold(0u64, u64::saturating_add)
}

/// The Target, Graph and Memory sections.
pub fn graph_summary(g: &GraphProfile) -> String {
    let mut s = target_summary(&g.target);
    let c = &g.graph;
    let _ = writeln!(s, "Graph:");
    for (what, n) in [
        ("vertices", c.num_vertices),
        ("edges", c.num_edges),
        ("variables", c.num_vars),
        ("compute sets", c.num_compute_sets),
    ] {
        let label = format!("Number of {what}:");
        let _ = writeln!(s, "  {label:<24}{:>12}", thousands(n));
    }
    let _ = writeln!(s);
    memory(&mut s, g);
    s
}

/// The Target section alone (what a reader without the graph can print).
pub fn target_summary(t: &GraphTarget) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Target:");
    let _ = writeln!(s, "  Number of IPUs:         {}", thousands(u64::from(t.num_ipus)));
    let _ = writeln!(s, "  Tiles per IPU:          {}", thousands(u64::from(t.tiles_per_ipu)));
    let _ = writeln!(s, "  Total Tiles:            {}", thousands(u64::from(t.num_tiles)));
    let _ = writeln!(s, "  Memory Per-Tile:        {} kB", decimal(t.bytes_per_tile as f64 / 1024.0));
    let _ =
        writeln!(s, "  Total Memory:           {} MB", decimal(t.total_memory as f64 / (1024.0 * 1024.0)));
    let _ = writeln!(s, "  Clock Speed (approx):   {} MHz", decimal(t.clock_frequency / 1e6));
    let _ = writeln!(s);
    s
}

fn memory(s: &mut String, g: &GraphProfile) {
    let m = &g.memory;
    let b = &m.by_tile;
    let row = |s: &mut String, indent: usize, label: &str, width: usize, bytes: u64| {
        let _ = writeln!(s, "{:indent$}{label:<width$}{:>14} B", "", thousands(bytes));
    };
    let _ = writeln!(s, "Memory Usage:");
    let _ = writeln!(s, "  Total:");
    row(s, 4, "Including Gaps:", 20, sum(&b.total_including_gaps));
    let _ = writeln!(s, "    Excluding Gaps:");
    let _ = writeln!(s, "      By Memory Region:");
    row(s, 8, "Non-interleaved:", 16, sum(&b.non_interleaved));
    row(s, 8, "Interleaved:", 16, sum(&b.interleaved));
    row(s, 8, "Overflowed:", 16, sum(&b.overflowed));
    row(s, 6, "Total:", 18, sum(&b.total));
    let _ = writeln!(s, "      By Data Type:");
    // Region by region, the category's bytes that overlap others or not.
    let split = |name: &str| -> (u64, u64) {
        let Some(c) = m.by_category.get(name) else { return (0, 0) };
        let regions = [&c.interleaved, &c.non_interleaved, &c.overflowed];
        let has_regions = regions.iter().any(|r| r.is_some());
        if !has_regions {
            let total = match &c.total {
                CategoryTotal::ByTile(v) => sum(v),
                CategoryTotal::Outside(_) => 0,
            };
            return (total, 0);
        }
        regions
            .iter()
            .flat_map(|r| r.iter())
            .fold((0, 0), |(a, o), r| (a + sum(&r.non_overlapped), o + sum(&r.overlapped)))
    };
    for (overlapped, title) in [(false, "Not Overlapped"), (true, "Overlapped")] {
        let rows: Vec<(&str, u64)> = CATEGORIES
            .iter()
            .map(|(key, label)| {
                let (n, o) = split(key);
                (*label, if overlapped { o } else { n })
            })
            .filter(|r| r.1 > 0)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(s, "        {title}");
        for (label, bytes) in &rows {
            row(s, 12, &format!("{label}:"), 36, *bytes);
        }
        // Overlapped bytes are counted once: the profile holds the space
        // they take after overlapping.
        let label = if overlapped { "Total After Overlapping:" } else { "Total:" };
        row(s, 10, label, 38, rows.iter().map(|r| r.1).sum());
    }
    if let Some(c) = m.by_category.get("vertexCode") {
        if let CategoryTotal::Outside(bytes) = c.total {
            let _ =
                writeln!(s, "      Vertex Code (shared segment, not in tile memory): {} B", thousands(bytes));
        }
    }
    let v = &m.by_vertex_type;
    let data = [
        ("Internal vertex state:", sum_rows(&v.vertex_data_bytes)),
        ("Edge pointers:", sum_rows(&v.edge_ptr_bytes)),
        ("Copy pointers:", sum_rows(&v.copy_ptr_bytes)),
        ("Padding:", sum_rows(&v.padding_bytes)),
        ("Descriptors:", sum_rows(&v.descriptor_bytes)),
    ];
    let _ = writeln!(s, "      Vertex Data ({}B):", thousands(data.iter().map(|d| d.1).sum()));
    let _ = writeln!(s, "        By Category:");
    for (label, bytes) in data {
        row(s, 10, label, 22, bytes);
    }
    let _ = writeln!(s, "        By Type:");
    let mut types: Vec<(&str, u64)> = g
        .vertex_types
        .names
        .iter()
        .zip(&v.total_bytes)
        .map(|(n, r)| (n.as_str(), sum(r)))
        .filter(|t| t.1 > 0)
        .collect();
    types.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let width = types.iter().map(|t| t.0.len()).max().unwrap_or(0) + 2;
    for (name, bytes) in types {
        let _ = writeln!(s, "          {name:<width$}{:>12} B", thousands(bytes));
    }
    let _ = writeln!(s);
    by_tile(s, g);
}

/// Most rows of the per-tile histogram.
const HISTOGRAM_ROWS: u64 = 20;

fn by_tile(s: &mut String, g: &GraphProfile) {
    let b = &g.memory.by_tile;
    let _ = writeln!(s, "  By Tile (Excluding Gaps):");
    let kb = 1024u64;
    if let (Some(&lo), Some(&hi)) = (b.total.iter().min(), b.total.iter().max()) {
        let (lo, hi) = (lo / kb, hi / kb + 1);
        let step = (hi - lo).div_ceil(HISTOGRAM_ROWS).max(1);
        let rows = (hi - lo).div_ceil(step);
        let mut counts = vec![0u64; rows as usize];
        for &t in &b.total {
            counts[((t / kb - lo) / step) as usize] += 1;
        }
        let most = counts.iter().copied().max().unwrap_or(1).max(1);
        // The guide's bounds are two digits wide; wider ones keep the bars aligned.
        let width = (lo + rows * step).to_string().len().max(2);
        let _ = writeln!(s, "    Range (KB) Histogram (Excluding Gaps)               Count (tiles)");
        for (i, &n) in counts.iter().enumerate() {
            let from = lo + i as u64 * step;
            let bar = "*".repeat(n.saturating_mul(40).div_ceil(most) as usize);
            let _ = writeln!(s, "    {from:>5} - {:>width$} {bar:<40}{:>8}", from + step, thousands(n));
        }
        let _ = writeln!(s);
    }
    for (label, v) in [("Including Gaps", &b.total_including_gaps), ("Excluding Gaps", &b.total)] {
        let max = v.iter().copied().max().unwrap_or(0);
        let tile = v.iter().position(|&x| x == max).unwrap_or(0);
        let _ = writeln!(
            s,
            "    Maximum ({label}): {} ({} K) on tile {tile}",
            thousands(max),
            decimal(max as f64 / 1024.0)
        );
    }
    let over = b.overflowed_including_gaps.iter().filter(|&&o| o > 0).count();
    let _ = writeln!(s, "    {over} tile(s) out of memory");
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_are_grouped() {
        assert_eq!(super::thousands(1_234_567), "1,234,567");
        assert_eq!(super::decimal(3801.84), "3,801.8");
        assert_eq!(super::decimal(128.52), "128.5");
    }
}
