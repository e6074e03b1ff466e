//! Contract seeds: field values that make a well-formed small problem for
//! vertex families whose plain fields encode strides and worklists, which
//! values drawn at random never satisfy (a stride packed into bit fields, a
//! worklist of offsets scaled by the channel counts, a divisor that must
//! divide exactly). Each family has one function, chosen by the prefix of
//! the vertex's name, that derives every field from the vertex's template
//! arguments and its C++ path (`compute`, as built without `__IPU__`);
//! [`SEEDS`] of them run after the drawn seeds, each with its own shape and
//! element data, so that a wrong result still shows.

use linker::gp::{ElemType, VertexType};

use super::Rng;

/// Contract seeds per vertex of a family.
pub const SEEDS: usize = 2;

/// Named field values, as [`popc::state::layout`] takes them.
type Fields = Vec<(String, String)>;

/// A family's contract seed: the vertex, its template arguments, the seed's
/// index (below [`SEEDS`]) and the numbers to draw element data from.
type Family = fn(&VertexType, &[&str], usize, &mut Rng) -> Option<Fields>;

/// The families, by the prefix of their vertices' names.
const FAMILIES: [(&str, Family); 2] =
    [("poplin::ConvPartialnx1<", conv_nx1), ("poplin::ConvPartial1xNSLIC<", conv_slic)];

/// The field values of contract seed `c` of `vt`, when `vt` belongs to a
/// family that has them.
pub fn fields(vt: &VertexType, c: usize) -> Option<Fields> {
    let (_, family) = FAMILIES.iter().find(|(p, _)| vt.name.starts_with(p))?;
    let args = template_args(&vt.name)?;
    let mut rng = Rng::new(0xC0_7AC7 + c as u64);
    family(vt, &args, c, &mut rng)
}

/// The top-level template arguments of a vertex name (`a::V<half,8>`:
/// `half`, `8`).
fn template_args(name: &str) -> Option<Vec<&str>> {
    let open = name.find('<')?;
    let inner = name[open + 1..].strip_suffix('>')?;
    let (mut depth, mut start, mut out) = (0i32, 0, Vec::new());
    for (i, ch) in inner.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(inner[start..].trim());
    Some(out)
}

/// Template argument `i` as a number.
fn number(args: &[&str], i: usize) -> Option<i64> {
    args.get(i)?.parse().ok()
}

/// The element type of field `name`.
fn elem(vt: &VertexType, name: &str) -> Option<ElemType> {
    vt.fields.iter().find(|f| f.name == name).map(|f| f.elem)
}

/// Plain field `name` set to `v`.
fn plain(vt: &VertexType, name: &str, v: i64) -> Option<(String, String)> {
    Some((name.to_string(), int(elem(vt, name)?, v)))
}

/// An integer as the bit pattern of integer type `e` (a negative count in
/// an unsigned worklist, read back through a signed type).
fn int(e: ElemType, v: i64) -> String {
    let bits = 8 * e.size();
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    match e {
        ElemType::Char | ElemType::Short | ElemType::Int | ElemType::Long => v.to_string(),
        _ => (v as u64 & mask).to_string(),
    }
}

/// Vectors of `lens` elements of type `e`, drawn, as a vector list's value.
fn drawn_lists(rng: &mut Rng, e: ElemType, lens: &[usize]) -> String {
    let one = |rng: &mut Rng, n: usize| (0..n).map(|_| rng.value(e, 0, false)).collect::<Vec<_>>().join(", ");
    format!("[{}]", lens.iter().map(|&n| format!("[{}]", one(rng, n))).collect::<Vec<_>>().join(", "))
}

/// Integer vectors of type `e` as a vector list's value.
fn int_lists(e: ElemType, lists: &[Vec<i64>]) -> String {
    let one = |l: &[i64]| l.iter().map(|&v| int(e, v)).collect::<Vec<_>>().join(", ");
    format!("[{}]", lists.iter().map(|l| format!("[{}]", one(l))).collect::<Vec<_>>().join(", "))
}

/// The quarter metadata bytes of the fields that carry one: the 1.4.3
/// format with scale 2 on seed 0, 1.5.2 with scale -1 on seed 1.
fn metadata(vt: &VertexType, c: usize, out: &mut Fields) {
    let md = if c == 0 { 0x82 } else { 0x3f };
    for f in vt.fields.iter().filter(|f| f.metadata_offset().is_some()) {
        out.push((format!("{}.metadata", f.name), md.to_string()));
    }
}

/// `v` in a field of `bits` bits at position `pos` of a packed stride word.
fn packed(bits: u32, pos: u32, v: i64) -> u64 {
    ((v as u64) & ((1u64 << bits) - 1)) << (pos * bits)
}

/// Worker contexts a worklist is split over.
const CONTEXTS: usize = 6;

/// `poplin::ConvPartialnx1<FP, Accum, limited, weights128, convUnits,
/// inputLoadElems, disableSR>`: one conv group, one input group and an AMP
/// kernel height of 1; output channels per group the number of conv
/// units, input channels per group `inputLoadElems` (seed 0) or twice it
/// (seed 1), so that every offset and stride division in the C++ path is
/// exact. Seed 0: one output group, a 1x1 kernel, input and output
/// strides 1; seed 1: two output groups, a 1x2 kernel, input stride 2 and a
/// flipped output stride 2. Strides are packed as the host packs them
/// (`ConvPartialsStridesPacking.cpp`): the in-row stride transformed by the
/// input channel ratio, the second pointer offset one more than it, the
/// input stride transformed and offset by it, the output stride scaled by
/// the output channels, shifted by the threshold that marks a flip, and
/// counted in stores of 64 bits.
fn conv_nx1(vt: &VertexType, args: &[&str], c: usize, rng: &mut Rng) -> Option<Fields> {
    let (units, load) = (number(args, 4)?, number(args, 5)?);
    let (fp, acc, wl) = (elem(vt, "in")?, elem(vt, "out")?, elem(vt, "worklists")?);
    // 10-bit fields in a 32-bit word (the limited version), 21-bit in 64.
    let bits = if elem(vt, "transformedInStride")?.size() == 8 { 21 } else { 10 };
    let (out_groups, kernel, in_stride, out_stride, flip) =
        if c == 0 { (1, 1, 1, 1, false) } else { (2, 2, 2, 2, true) };
    let (in_chans, out_chans) = (load * (1 + c as i64), units);
    // Field positions of the output and the input.
    let (outs, ins) = (12i64, 16i64);
    let (fp_size, acc_size) = (fp.size() as i64, acc.size() as i64);
    if (in_chans * fp_size) % 8 != 0 || (out_chans * acc_size) % 8 != 0 {
        return None;
    }
    let ratio = in_chans / load;
    let in_row = 1;
    let row_t = (in_row - 1) * ratio + 1;
    let second = row_t + 1;
    let in_t = (in_stride - 1) * ratio + 1 + second;
    let threshold = if acc == ElemType::Float { -6 } else { -4 } - if units > 8 { 8 } else { 0 };
    let store = if acc == ElemType::Half { 4 } else { 2 };
    let scaled = out_stride * out_chans;
    let out_t = threshold + if flip { -scaled } else { scaled };
    if out_t % store != 0 {
        return None;
    }
    // Half inputs and partials on 8 units store the output stride one more.
    let out_t = out_t / store + i64::from(units == 8 && fp == ElemType::Half && acc == ElemType::Half);
    let in_word = packed(bits, 1, in_t) | packed(bits, 0, in_t - second);
    let out_word = packed(bits, 1, second - row_t) | packed(bits, 0, out_t);
    // Per kernel element and context, 0 to 2 (out, count - 3, in) triples.
    let mut lists = Vec::new();
    for k in 0..kernel {
        for ctx in 0..CONTEXTS {
            let mut l = Vec::new();
            for _ in 0..(k + ctx + c) % 3 {
                let n = 1 + (rng.next() % 4) as i64;
                let span = (n - 1) * out_stride;
                let o = (rng.next() % (outs - span) as u64) as i64 + if flip { span } else { 0 };
                let i = (rng.next() % (ins - (n - 1) * in_stride) as u64) as i64;
                l.extend([o * out_chans * acc_size / 8, n - 3, i * in_chans * fp_size / 8]);
            }
            lists.push(l);
        }
    }
    let zeros = (outs * out_chans) as usize;
    let weights = kernel * (out_chans * in_chans) as usize;
    let mut f = vec![
        plain(vt, "transformedInStride", in_word as i64)?,
        plain(vt, "transformedOutStride", out_word as i64)?,
        ("in".into(), drawn_lists(rng, fp, &[(ins * in_chans) as usize])),
        ("weights".into(), drawn_lists(rng, fp, &vec![weights; out_groups])),
        // Past the zeroed elements too: a write beyond them shows.
        ("out".into(), drawn_lists(rng, acc, &vec![zeros + 4; out_groups])),
        plain(vt, "zerosInfo", zeros as i64)?,
        ("worklists".into(), int_lists(wl, &lists)),
        plain(vt, "numOutGroupsM1", out_groups as i64 - 1)?,
        plain(vt, "numInGroups", 1)?,
        plain(vt, "kernelOuterSizeM1", 0)?,
        plain(vt, "kernelInnerElementsM1", kernel as i64 - 1)?,
        plain(vt, "numConvGroupsM1", 0)?,
        plain(vt, "ampKernelHeightM1", 0)?,
        plain(vt, "transformedInRowStride", row_t)?,
        plain(vt, "outChansPerGroup", out_chans)?,
        plain(vt, "inChansPerGroup", in_chans)?,
    ];
    metadata(vt, c, &mut f);
    Some(f)
}

/// `poplin::ConvPartial1xNSLIC<FP, Accum, outStride, useShortTypes,
/// windowWidth, numConvChains, convGroupsPerGroup, disableSR>`: 8 output
/// positions, the input as long as the output stride and window need.
/// Seed 0: one conv group group, one sub-kernel (results straight to
/// `out`), one channel per group; seed 1: two conv group groups, two
/// sub-kernels (`outPtrLoadOffset` 1, so the first goes to
/// `outFieldBuffer` and the second, adding to it, to `out`) and, with 4
/// conv groups per group, 2 channels per group. Worklists: per sub-kernel
/// and context, 0 to 2 (in offset, out offset, count) triples within the
/// fields.
fn conv_slic(vt: &VertexType, args: &[&str], c: usize, rng: &mut Rng) -> Option<Fields> {
    let (stride, window, per_group) = (number(args, 2)?, number(args, 4)?, number(args, 6)?);
    let (fp, acc, wl) = (elem(vt, "in")?, elem(vt, "out")?, elem(vt, "worklists")?);
    if stride < 1 || window < 1 || per_group < 1 {
        return None;
    }
    let log2 = if per_group == 4 { c as i64 } else { 0 };
    let chans = 1 << log2;
    let (groups, kernels) = (1 + c, 1 + c);
    let outs = 8i64;
    let ins = outs * stride + window;
    let mut lists = Vec::new();
    for kg in 0..kernels {
        for ctx in 0..CONTEXTS {
            let mut l = Vec::new();
            for _ in 0..(kg + ctx + c) % 3 {
                let n = 1 + (rng.next() % 4) as i64;
                let o = (rng.next() % (outs - n + 1) as u64) as i64;
                let i = (rng.next() % (ins - (n - 1) * stride - window + 1) as u64) as i64;
                l.extend([i, o, n]);
            }
            lists.push(l);
        }
    }
    let buffer_offset = 200 / acc.size() as i64;
    let weights = (window * per_group * chans) as usize;
    let buffer = drawn_lists(rng, acc, &[(buffer_offset + outs * per_group) as usize]);
    let mut f = vec![
        ("in".into(), drawn_lists(rng, fp, &vec![(ins * per_group) as usize; groups])),
        ("weights".into(), drawn_lists(rng, fp, &vec![weights; groups * kernels])),
        ("out".into(), drawn_lists(rng, acc, &vec![(outs * per_group) as usize; groups])),
        // A vector, not a list: the one sub-vector's brackets.
        ("outFieldBuffer".into(), buffer[1..buffer.len() - 1].to_string()),
        ("worklists".into(), int_lists(wl, &lists)),
        plain(vt, "chansPerGroupLog2", log2)?,
        plain(vt, "outPtrLoadOffset", i64::from(kernels % 2 == 0))?,
        plain(vt, "numSubKernelsM1", kernels as i64 - 1)?,
        plain(vt, "numConvGroupGroupsM1", groups as i64 - 1)?,
    ];
    metadata(vt, c, &mut f);
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Declarations with the fields, names and template arguments of the
    /// PopLibs vertices (the limited nx1 version, short SLIC types).
    const CONV: &str = "#include <poplar/Vertex.hpp>
#include <poplar/HalfFloat.hpp>
using namespace poplar;
namespace poplin {
template <class FP, class Acc, bool limited, bool w128, unsigned units, unsigned load, bool sr>
class ConvPartialnx1 : public MultiVertex {
public:
  const unsigned transformedInStride;
  const unsigned transformedOutStride;
  Vector<Input<Vector<FP, VectorLayout::COMPACT_PTR, 8>>, VectorLayout::ONE_PTR> in;
  Vector<Input<Vector<FP, VectorLayout::COMPACT_PTR, 8>>, VectorLayout::ONE_PTR> weights;
  Vector<Output<Vector<Acc, VectorLayout::COMPACT_PTR, 8, true>>, VectorLayout::ONE_PTR> out;
  const unsigned zerosInfo;
  Input<VectorList<unsigned short, VectorListLayout::COMPACT_DELTAN>> worklists;
  const unsigned short numOutGroupsM1;
  const unsigned short numInGroups;
  const unsigned short kernelOuterSizeM1;
  const unsigned short kernelInnerElementsM1;
  const unsigned short numConvGroupsM1;
  const unsigned short ampKernelHeightM1;
  const short transformedInRowStride;
  const unsigned short outChansPerGroup;
  const unsigned short inChansPerGroup;
  void compute(unsigned wid) {}
};
template class ConvPartialnx1<half, half, true, true, 8, 4, true>;
template <class FP, class Acc, unsigned stride, bool shortTypes, unsigned window, unsigned chains,
          unsigned perGroup, bool sr>
class ConvPartial1xNSLIC : public Vertex {
public:
  Vector<Input<Vector<FP, VectorLayout::ONE_PTR, 8>>, VectorLayout::ONE_PTR> in;
  Vector<Input<Vector<FP, VectorLayout::ONE_PTR, 8>>, VectorLayout::ONE_PTR> weights;
  Vector<Output<Vector<Acc, VectorLayout::ONE_PTR, 16, true>>, VectorLayout::ONE_PTR> out;
  Output<Vector<Acc, VectorLayout::ONE_PTR, 16, true>> outFieldBuffer;
  Input<VectorList<unsigned short, VectorListLayout::DELTANELEMENTS>> worklists;
  const unsigned char chansPerGroupLog2;
  const unsigned char outPtrLoadOffset;
  const unsigned short numSubKernelsM1;
  const unsigned short numConvGroupGroupsM1;
  void compute() {}
};
template class ConvPartial1xNSLIC<half, float, 2, true, 4, 2, 4, false>;
}
class Other : public Vertex {
public:
  Input<Vector<float>> in;
  unsigned n;
  void compute() {}
};
";

    /// The vertices `CONV` declares, by name.
    fn vertex(name: &str) -> VertexType {
        let obj = popc::compile("conv.cpp", CONV, &popc::Options::default(), &popc::NoIncludes, &[])
            .unwrap_or_else(|d| panic!("{}", d.render()));
        obj.vertex_types.into_iter().find(|v| v.name.starts_with(name)).unwrap()
    }

    /// Plain field `name`'s value.
    fn num(f: &Fields, name: &str) -> i64 {
        f.iter().find(|(k, _)| k == name).unwrap().1.parse().unwrap()
    }

    /// Vector list field `name`'s values (integers exactly).
    fn lists(f: &Fields, name: &str) -> Vec<Vec<f64>> {
        let v = &f.iter().find(|(k, _)| k == name).unwrap().1;
        let inner = v.strip_prefix('[').unwrap().strip_suffix(']').unwrap();
        inner
            .split(']')
            .filter_map(|l| l.split_once('['))
            .map(|(_, l)| {
                l.split(',').filter(|x| !x.trim().is_empty()).map(|x| x.trim().parse().unwrap()).collect()
            })
            .collect()
    }

    /// The nx1 seeds unpack, the way the C++ path does, to the strides
    /// they were packed from, and every worklist entry stays in the fields.
    #[test]
    fn nx1_seeds_are_a_convolution() {
        let vt = vertex("poplin::ConvPartialnx1<half,half,true,true,8,4,true>");
        // A 10-bit field, sign-extended.
        let field = |w: i64, pos: i64| {
            let v = (w >> (10 * pos)) & 0x3ff;
            if v & 0x200 != 0 {
                v - 0x400
            } else {
                v
            }
        };
        for c in 0..SEEDS {
            let f = fields(&vt, c).unwrap();
            let (ins, outs) = (num(&f, "inChansPerGroup"), num(&f, "outChansPerGroup"));
            assert_eq!((ins, outs), (4 * (1 + c as i64), 8));
            let (in_word, out_word) = (num(&f, "transformedInStride"), num(&f, "transformedOutStride"));
            let second = field(out_word, 1) + num(&f, "transformedInRowStride");
            // Half inputs and partials on 8 units: one less, in stores of 4.
            let out_t = (field(out_word, 0) - 1) * 4;
            let in_row = (second - 1 - 1) * 4 / ins + 1;
            let in_stride = (field(in_word, 1) - second - 1) * 4 / ins + 1;
            let flip = out_t < -4;
            let out_stride = if flip { -4 - out_t } else { out_t + 4 } / outs;
            let expected = if c == 0 { (1, 1, 1, false) } else { (1, 2, 2, true) };
            assert_eq!((in_row, in_stride, out_stride, flip), expected, "seed {c}");
            let zeros = num(&f, "zerosInfo");
            let in_len = lists(&f, "in")[0].len() as i64;
            let wl: Vec<Vec<i64>> =
                lists(&f, "worklists").iter().map(|l| l.iter().map(|&x| x as i64).collect()).collect();
            assert_eq!(wl.len(), CONTEXTS * (1 + c));
            assert!(wl.iter().map(Vec::len).sum::<usize>() > 0);
            for t in wl.iter().flat_map(|l| l.chunks(3)) {
                let (o, n, i) = (t[0] * 8 / (outs * 2), t[1] as u16 as i16 as i64 + 3, t[2] * 8 / (ins * 2));
                assert!(n >= 1);
                let last = if flip { o - (n - 1) * out_stride } else { o + (n - 1) * out_stride };
                assert!(o.min(last) >= 0 && (o.max(last) + 1) * outs <= zeros, "{t:?}");
                assert!((i + (n - 1) * in_stride + 1) * ins <= in_len, "{t:?}");
            }
        }
        assert_ne!(fields(&vt, 0), fields(&vt, 1));
    }

    /// The SLIC seeds pick a mode, the sub-kernel parity and worklists
    /// within the fields.
    #[test]
    fn slic_seeds_are_a_convolution() {
        let vt = vertex("poplin::ConvPartial1xNSLIC<half,float,2,true,4,2,4,false>");
        for c in 0..SEEDS {
            let f = fields(&vt, c).unwrap();
            let c = c as i64;
            for name in ["chansPerGroupLog2", "outPtrLoadOffset", "numSubKernelsM1", "numConvGroupGroupsM1"] {
                assert_eq!(num(&f, name), c, "{name}, seed {c}");
            }
            let (in_len, out_len) = (lists(&f, "in")[0].len() as i64, lists(&f, "out")[0].len() as i64);
            let wl: Vec<Vec<i64>> =
                lists(&f, "worklists").iter().map(|l| l.iter().map(|&x| x as i64).collect()).collect();
            assert_eq!(wl.len() as i64, CONTEXTS as i64 * (1 + c));
            for t in wl.iter().flat_map(|l| l.chunks(3)) {
                let (i, o, n) = (t[0], t[1], t[2]);
                assert!(n >= 1 && (o + n) * 4 <= out_len, "{t:?}");
                assert!((i + (n - 1) * 2 + 4) * 4 <= in_len, "{t:?}");
            }
        }
    }

    #[test]
    fn other_vertices_get_no_contract_seed() {
        assert_eq!(fields(&vertex("Other"), 0), None);
        assert_eq!(
            template_args("a::V<half,std::pair<int,int>,8>"),
            Some(vec!["half", "std::pair<int,int>", "8"])
        );
    }
}
