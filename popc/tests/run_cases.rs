//! Golden execution tests: every `testdata/popc/ok/*.cpp` is compiled
//! (with `-g`), each `RUN` block is executed through `popc::exec` in both
//! code variants, and the report (status, fields after the run, printed
//! text, instruction count) is compared with the `.out` file beside it.

mod common;

use std::path::Path;

#[test]
fn ok_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/ok");
    let mut report = testdata::Report::new();
    for path in testdata::files_with_suffix(&dir, ".cpp") {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.to_string_lossy().to_string();
        let mut args: Vec<String> = vec!["-g".into()];
        let mut requested = Vec::new();
        for l in src.lines() {
            if let Some(a) = l.trim().strip_prefix("// ARGS ") {
                args.extend(a.split_whitespace().map(String::from));
            }
            if let Some(a) = l.trim().strip_prefix("// INSTANTIATE ") {
                requested.push(a.trim().to_string());
            }
        }
        let opts = popc::Options::from_args(&args).unwrap();
        let short = path.file_name().unwrap().to_string_lossy().to_string();
        let out = match popc::compile(&short, &src, &opts, &common::Fs, &requested) {
            Ok(obj) => {
                // Round trip through the file format.
                let obj = linker::gp::Object::from_bytes(&obj.to_bytes()).expect("gp round trip");
                let mut s = String::new();
                for vt in &obj.vertex_types {
                    s.push_str(&format!(
                        "vertex {} ({:?}) state {} bytes: {}\n",
                        vt.name,
                        vt.base,
                        vt.state_size,
                        vt.fields
                            .iter()
                            .map(|f| format!("{}@{}", f.name, f.offset))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ));
                }
                for run in common::parse_runs(&src) {
                    s.push_str(&common::run_spec(&obj, &run));
                }
                s
            }
            Err(d) => format!("COMPILE ERROR\n{}", d.render()),
        };
        let _ = name;
        report.compare(&path.with_extension("out"), &out);
    }
    report.finish("popc ok cases");
}
