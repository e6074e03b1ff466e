//! How a printed tensor is laid out: the two `PrintTensor` layouts a user
//! can meet, chosen where the print is written (PIR's `print` or the host
//! API's `PrintTensor`) and carried to the runtime that formats it.

use serde::{Deserialize, Serialize};

/// The layout of a printed tensor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PrintStyle {
    /// PIR's `print`: `label: {1,2.5}`, floats as `%g`, one brace level
    /// per dimension (the layout of Poplar SDK 1.x).
    #[default]
    Pir,
    /// Poplar's `PrintTensor` since SDK 2: `label: [1.0000000 2.5000000]`,
    /// floats with eight significant digits, nested rows indented by two
    /// spaces per level.
    Poplar,
}
