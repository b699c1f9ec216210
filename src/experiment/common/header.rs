//! The fields every experiment file starts with.

use std::path::PathBuf;

use super::Ctx;
use crate::experiment::ExperimentError;

/// `name`, `description`, `seed`, and the file they came from.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Header {
    /// The experiment file (relative paths inside it are relative to its folder). Not part of
    /// the experiment's identity: the same experiment may run from another path.
    #[serde(skip)]
    pub file: PathBuf,
    /// Its exact text, written back with the outputs for provenance (not part of its identity:
    /// comments and the order of keys do not change what was validated).
    #[serde(skip)]
    pub source: String,
    /// Names the output folder: `[a-z0-9_-]+`.
    pub name: String,
    /// One line on what the experiment is for.
    pub description: String,
    /// Every random stream derives from it (default 1).
    pub seed: u64,
    /// The experiment file and the data files it names: a run must not overwrite them.
    #[serde(skip)]
    pub inputs: Vec<PathBuf>,
}

impl Header {
    /// Forgets where the file was and its exact text, keeping what was validated: a journal's
    /// fingerprint must not change when the same experiment is run from another path.
    pub fn forget_file(&mut self) {
        self.file = PathBuf::new();
        self.source = String::new();
        self.inputs = Vec::new();
    }

    /// Validates the header fields of a file.
    pub(crate) fn new(
        cx: &Ctx<'_>,
        source: &str,
        name: String,
        description: Option<String>,
        seed: Option<u64>,
    ) -> Result<Self, ExperimentError> {
        cx.name(&name)?;
        Ok(Header {
            file: cx.file.to_path_buf(),
            source: source.to_string(),
            name,
            description: description.unwrap_or_default(),
            seed: seed.unwrap_or(1),
            inputs: Vec::new(),
        })
    }
}
