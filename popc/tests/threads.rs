//! popc generates vertex code on rayon's pool while it lowers the next
//! vertex: the object must be byte for byte the same whatever the thread
//! count (the determinism rule), for the golden sources and, when the
//! corpus is present, a large PopLibs file.

use std::path::Path;

fn compile_with(threads: usize, name: &str, src: &str, opts: &popc::Options) -> Result<Vec<u8>, String> {
    struct Dirs(Vec<std::path::PathBuf>);
    impl popc::IncludeResolver for Dirs {
        fn read(&self, path: &str) -> Option<String> {
            std::fs::read_to_string(path)
                .ok()
                .or_else(|| self.0.iter().find_map(|d| std::fs::read_to_string(d.join(path)).ok()))
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let dirs = Dirs(opts.include_dirs.iter().map(Into::into).collect());
    pool.install(|| popc::compile(name, src, opts, &dirs, &[])).map(|o| o.to_bytes()).map_err(|d| d.render())
}

fn same_on_1_2_and_4_threads(name: &str, src: &str, opts: &popc::Options) -> usize {
    let one = compile_with(1, name, src, opts);
    for t in [2, 4] {
        assert_eq!(one, compile_with(t, name, src, opts), "{name}: 1 and {t} threads differ");
    }
    one.map_or(0, |b| b.len())
}

#[test]
fn objects_do_not_depend_on_the_thread_count() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/ok");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "cpp"));
    files.sort();
    assert!(!files.is_empty());
    let mut compiled = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        if same_on_1_2_and_4_threads(&f.display().to_string(), &src, &popc::Options::default()) > 0 {
            compiled += 1;
        }
    }
    assert!(compiled > 0);

    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/poplibs");
    let file = corpus.join("lib/popops/codelets/Reduce.cpp");
    let Ok(src) = std::fs::read_to_string(&file) else {
        eprintln!("skipped: corpus absent");
        return;
    };
    let opts = popc::Options {
        include_dirs: ["include", "lib/popops", "lib/popops/codelets"]
            .iter()
            .map(|d| corpus.join(d).display().to_string())
            .collect(),
        defines: vec![("NDEBUG".into(), "1".into())],
        ..Default::default()
    };
    assert!(same_on_1_2_and_4_threads(&file.display().to_string(), &src, &opts) > 0, "Reduce.cpp compiles");
}
