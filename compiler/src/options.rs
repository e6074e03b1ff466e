//! What to compile and how: the command line's choices as a struct
//! ([`Options`]), shared by the driver, the passes that read them and the
//! callers that build them without a command line (`poplar-run`, tests).

/// What to compile and how (the command line, as a struct).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--target PRESET`: replaces the file's preset (keeping its key overrides).
    pub target: Option<String>,
    /// `-I<dir>`: where codelet files are looked for after the `.pir`'s folder.
    pub include_dirs: Vec<std::path::PathBuf>,
    /// `--strict-mapping`: unmapped elements are an error, not a warning.
    pub strict_mapping: bool,
    /// `--allow-out-of-memory`: overflowing tiles are a warning; the
    /// profile and dumps are still produced, but no image (it could not run).
    pub allow_out_of_memory: bool,
    /// `--dump STAGE` (any number).
    pub dumps: Vec<DumpStage>,
    /// `--report`: build the graph profile JSON.
    pub report: bool,
    /// `--time-passes`: time each pass.
    pub time_passes: bool,
    /// Where passes and codelet files report that they start (hidden by
    /// default; the binaries show it on a terminal).
    pub progress: ::report::progress::Progress,
    /// `POPLAR_TARGET_OPTIONS`: a JSON object of target keys
    /// (`{"tiles_per_ipu": 16}`), applied after the file's target and
    /// `--target`.
    pub target_options: Option<String>,
    /// `--expansion-limit N` (or `POPLAR_EXPANSION_LIMIT`): the budget of
    /// what `for` loops and views that repeat elements may make beyond the
    /// text (`ir::lower::EXPANSION_LIMIT` when `None`).
    pub expansion_limit: Option<u64>,
}

impl Options {
    /// How `ir` checks the file: the expansion budget these options set.
    pub fn check_options(&self) -> ir::CheckOptions {
        let mut c = ir::CheckOptions::default();
        if let Some(n) = self.expansion_limit {
            c.expansion_limit = n;
        }
        c
    }
}

/// The expansion budget `POPLAR_EXPANSION_LIMIT` gives (its text, when
/// set): a whole number of units.
pub fn parse_expansion_limit(text: &str) -> Result<u64, String> {
    text.trim().replace('_', "").parse::<u64>().map_err(|_| {
        format!("POPLAR_EXPANSION_LIMIT: `{text}` is not a whole number of units (e.g. 1000000000)")
    })
}

/// A stage whose result can be dumped as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpStage {
    /// Library operations: the matmul planner's choices and the vertex types.
    Ops,
    /// The C++ source of the library's codelets, as `popc` compiles it.
    Library,
    Mapping,
    Exchange,
    Memory,
    Program,
    Image,
}

impl DumpStage {
    pub const ALL: [DumpStage; 7] = [
        DumpStage::Ops,
        DumpStage::Library,
        DumpStage::Mapping,
        DumpStage::Exchange,
        DumpStage::Memory,
        DumpStage::Program,
        DumpStage::Image,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DumpStage::Ops => "ops",
            DumpStage::Library => "library",
            DumpStage::Mapping => "mapping",
            DumpStage::Exchange => "exchange",
            DumpStage::Memory => "memory",
            DumpStage::Program => "program",
            DumpStage::Image => "image",
        }
    }

    pub fn from_name(s: &str) -> Option<DumpStage> {
        DumpStage::ALL.into_iter().find(|d| d.name() == s)
    }
}
