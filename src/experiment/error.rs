//! Errors of the experiment layer. Every message names the file, and for a bad value the key
//! and what is expected, so a user can fix the input without reading code.

use std::path::PathBuf;

/// Bad input (exit status 2) or a failure to write outputs.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    #[error("{}: cannot read the experiment file: {source}", file.display())]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", file.display())]
    Parse { file: PathBuf, message: String },
    #[error("{}: key `{key}`: expected {expected}, got {got}", file.display())]
    Invalid {
        file: PathBuf,
        key: String,
        expected: String,
        got: String,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot draw {}: {message}", path.display())]
    Plot { path: PathBuf, message: String },
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
    #[error("{}: {source}", file.display())]
    Region {
        file: std::path::PathBuf,
        source: crate::configurations::region::RegionError,
    },
}
