//! End-to-end checks of the passes on graphs with hand-made codelet
//! metadata (no `popc` needed): the image validates and round-trips.

use compiler::{compile, Codelets, DumpStage, Library, Options};
use linker::gp::{self, Direction, ElemType, Field, FieldKind, Function, Layout, VertexBase, VertexType};
use linker::image::Image;

fn func() -> Function {
    Function { code: vec![0x31, 0xc0, 0xc3], relocs: vec![], lines: vec![] }
}

fn field(
    name: &str,
    dir: Option<Direction>,
    elem: ElemType,
    kind: FieldKind,
    offset: u32,
    size: u32,
) -> Field {
    Field { name: name.into(), direction: dir, elem, kind, offset, size, is_const: false, min_align: 0 }
}

/// `SumVertex { Input<Vector<float>> in; Output<float> out; }` and a few more.
fn objects() -> Codelets {
    let sum = VertexType {
        name: "SumVertex".into(),
        base: VertexBase::Vertex,
        fields: vec![
            field("in", Some(Direction::Input), ElemType::Float, FieldKind::Vector(Layout::Span), 0, 8),
            field("out", Some(Direction::Output), ElemType::Float, FieldKind::Scalar, 8, 4),
        ],
        state_size: 12,
        state_align: 4,
        stack_size: 32,
        returns_bool: true,
        plain: func(),
        counting: func(),
        line: 3,
    };
    let scale = VertexType {
        name: "Scale<float>".into(),
        base: VertexBase::Vertex,
        fields: vec![
            field("data", Some(Direction::InOut), ElemType::Float, FieldKind::Vector(Layout::Span), 0, 8),
            field("k", None, ElemType::Float, FieldKind::Plain, 8, 4),
        ],
        state_size: 12,
        state_align: 4,
        stack_size: 16,
        returns_bool: false,
        plain: func(),
        counting: func(),
        line: 10,
    };
    let cat = VertexType {
        name: "Cat".into(),
        base: VertexBase::Vertex,
        fields: vec![
            field("ins", Some(Direction::Input), ElemType::Float, FieldKind::VectorList(Layout::Span), 0, 8),
            field("out", Some(Direction::Output), ElemType::Float, FieldKind::Vector(Layout::OnePtr), 8, 4),
        ],
        state_size: 12,
        state_align: 4,
        stack_size: 16,
        returns_bool: false,
        plain: func(),
        counting: func(),
        line: 20,
    };
    let objects = vec![gp::Object {
        source: "fake.cpp".into(),
        vertex_types: vec![sum, scale, cat],
        statics: Default::default(),
        isa: Default::default(),
    }];
    Codelets { objects, aliases: Vec::new(), library: None }
}

fn run(src: &str, opts: &Options) -> Result<compiler::Compiled, String> {
    let m = ir::parse_and_check("graph.pir", src).map_err(|d| d.render())?;
    compile("graph.pir", src, &m.graph, &m.spans, &objects(), opts).map_err(|e| e.to_string())
}

const TUT3: &str = r#"
target mk2(tiles_per_ipu = 4)
codelets "fake.cpp"
var v1: float[4] = [1.0, 1.5, 2.0, 2.5]
var v2: float[4]
map v1 -> tile 0
for i in 0..4 { map v2[i] -> tile i }
compute_set cs { for i in 0..4 { vertex SumVertex @ tile i { in = v1[i:], out = v2[i] } } }
program main { execute cs  print "v2" v2 }
"#;

#[test]
fn tutorial3_links_and_validates() {
    let opts = Options { dumps: DumpStage::ALL.to_vec(), report: true, ..Default::default() };
    let c = run(TUT3, &opts).unwrap_or_else(|e| panic!("{e}"));
    let img = c.image.expect("image");
    let back = Image::from_bytes(&img.to_bytes()).expect("valid image");
    assert_eq!(*back, img);
    assert_eq!(img.compute_sets[0].tiles.len(), 4);
    // Tiles 1..3 read v1 from tile 0 through buffers.
    assert!(!img.compute_sets[0].exchange_in.transfers.is_empty());
    for (d, text) in &c.dumps {
        assert!(!text.is_empty(), "{d:?}");
    }
    assert!(c.report.unwrap().contains("\"numVertices\": 4"));
}

#[test]
fn breadth_links_and_validates() {
    let src = r#"
target mk2(tiles_per_ipu = 8)
codelets "fake.cpp"
var a: float[16] = 1.0
var b: float[2, 8]
const c: float[4] = [1.0, 2.0, 3.0, 4.0]
var flag: int
map a -> linear
map b -> tiles 2..6
host_write "a-in" -> a
host_read "b-out" <- b
stream "s": float[4] from host
stream "r": float[4] to host
remote_buffer "rb": float[4] x 2
compute_set scale { vertex Scale<float> { data = a[0:8], k = 2 } vertex Scale<float> { data = a[8:], k = 0.5 } }
compute_set cat { vertex Cat @ tile 3 { ins = [a[0:2], c[1:3]], out = b[0, 0:4] } }
function f { execute scale }
program main {
  copy "s" -> a[0:4]
  call f
  execute cat
  copy a[0:8] -> a[4:12]
  copy c -> b[1, 0:4]
  copy b[1, 0:4] -> "r"
  copy a[0:4] -> "rb"[1]
  copy "rb"[0] -> a[4:8]
  repeat 2 { sync }
  if flag { print "b" b } else { undef a }
  while { execute cat } flag { execute scale }
  switch flag { case 0 { call f } default { sync } }
}
"#;
    let opts = Options { dumps: DumpStage::ALL.to_vec(), report: true, ..Default::default() };
    let c = run(src, &opts).unwrap_or_else(|e| panic!("{e}"));
    let img = c.image.expect("image");
    Image::from_bytes(&img.to_bytes()).expect("valid image");
    // The overlapping copy goes through a temporary: two phases.
    assert_eq!(img.copies.len(), 3);
    let warnings: String = c.warnings.iter().map(|w| w.render()).collect();
    assert!(warnings.contains("flag"), "{warnings}");
}

#[test]
fn conflicts_are_errors() {
    let src = TUT3.replace("out = v2[i]", "out = v2[0]");
    let e = run(&src, &Options::default()).unwrap_err();
    assert!(e.contains("both write element v2[0]"), "{e}");
    let src = TUT3.replace("in = v1[i:], out = v2[i]", "in = v2[0:1], out = v2[i]");
    let e = run(&src, &Options::default()).unwrap_err();
    assert!(e.contains("reads element"), "{e}");
}

/// The linker aligns entries to 16 bytes and re-bases relocations.
#[test]
fn link_aligns_code_and_rebases_relocations() {
    let mut objs = objects();
    let vts = &mut objs.objects[0].vertex_types;
    vts[0].counting.relocs.push(gp::Reloc { offset: 0, symbol: "fmaf".into(), addend: 0 });
    vts[0].counting.code = vec![0x90; 9];
    let m = ir::parse_and_check("graph.pir", TUT3).unwrap();
    let c = compile("graph.pir", TUT3, &m.graph, &m.spans, &objs, &Options::default()).unwrap();
    let img = c.image.unwrap();
    let vt = &img.vertex_types[0];
    assert_eq!(vt.plain, (0, 3));
    assert_eq!(vt.counting, (16, 9));
    assert_eq!(img.relocs.len(), 1);
    assert_eq!(img.relocs[0].offset, 16);
    assert_eq!(img.code.len(), 25);
}

#[test]
fn input_elements_are_received_once_per_tile() {
    let src = r#"
target mk2(tiles_per_ipu = 4)
codelets "fake.cpp"
var v1: float[8] = 1.0
var v2: float[6]
map v1 -> tile 0
map v2 -> tile 1
compute_set cs {
  vertex SumVertex @ tile 1 { in = v1[0:4], out = v2[0] }
  vertex SumVertex @ tile 1 { in = v1[0:4], out = v2[1] }
  vertex SumVertex @ tile 1 { in = v1[2:6], out = v2[2] }
  vertex SumVertex @ tile 1 { in = v1[0:8:2], out = v2[3] }
  vertex SumVertex @ tile 1 { in = v1[0:8:2], out = v2[4] }
  vertex SumVertex @ tile 2 { in = v1[0:4], out = v2[5] }
}
program main { execute cs }
"#;
    let c = run(src, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let img = c.image.expect("image");
    Image::from_bytes(&img.to_bytes()).expect("valid image");
    let bytes_to = |tile: u32| -> u32 {
        img.compute_sets[0].exchange_in.transfers.iter().filter(|t| t.dst_tile == tile).map(|t| t.bytes).sum()
    };
    // Tile 1: v1[0:6] once (the two v1[0:4] and v1[2:6] point into it) and
    // the strided list once; tile 2 its own copy of v1[0:4].
    assert_eq!(bytes_to(1), 6 * 4 + 4 * 4);
    assert_eq!(bytes_to(2), 4 * 4);
}

/// A compute set's exchange in runs tile by tile only when every vertex is
/// the library's (the fake object stands in for it here); reading what
/// another vertex of the set writes is an error before that question.
#[test]
fn exchange_in_by_tile_only_without_overlap() {
    let compile_as = |src: &str, library: Option<Library>| {
        let m = ir::parse_and_check("graph.pir", src).unwrap_or_else(|d| panic!("{}", d.render()));
        let codelets = Codelets { library, ..objects() };
        let c = compile("graph.pir", src, &m.graph, &m.spans, &codelets, &Options::default())
            .unwrap_or_else(|e| panic!("{e}"));
        c.image.expect("image").compute_sets.iter().map(|cs| cs.in_by_tile).collect::<Vec<_>>()
    };
    let library = Some(Library { object: 0, first_compute_set: 0 });
    // Tile 1 reads v1 on tile 0, which no vertex writes.
    assert_eq!(compile_as(TUT3, library), [true]);
    // No library, or a compute set the user wrote (naming library types):
    // the whole exchange runs first.
    assert_eq!(compile_as(TUT3, None), [false]);
    let users = Some(Library { object: 0, first_compute_set: 1 });
    assert_eq!(compile_as(TUT3, users), [false]);
    // Tile 1 reads half of `x`; the vertex on tile 0 scales the other
    // half in place (reading what it writes would be an error).
    let halves = r#"
target mk2(tiles_per_ipu = 2)
codelets "fake.cpp"
var x: float[4] = [1.0, 2.0, 3.0, 4.0]
var s: float @ tile 1
map x -> tile 0
compute_set cs {
  vertex Scale<float> @ tile 0 { data = x[0:2], k = 2.0 }
  vertex SumVertex @ tile 1 { in = x[2:4], out = s }
}
program main { execute cs }
"#;
    assert_eq!(compile_as(halves, library), [true]);
}
