//! Rejected constructs: each `testdata/popc/err/*.cpp` must fail to compile
//! with the diagnostic in the `.stderr` file beside it (golden, BLESS=1).

mod common;

use std::path::Path;

#[test]
fn err_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/err");
    let mut report = testdata::Report::new();
    for path in testdata::files_with_suffix(&dir, ".cpp") {
        let src = std::fs::read_to_string(&path).unwrap();
        let short = path.file_name().unwrap().to_string_lossy().to_string();
        let out = match popc::compile(&short, &src, &popc::Options::default(), &popc::NoIncludes, &[]) {
            Ok(_) => format!("{short}: compiled, but an error was expected\n"),
            Err(d) => d.render(),
        };
        report.compare(&path.with_extension("stderr"), &out);
    }
    report.finish("popc err cases");
}
