//! Errors of the experiment layer. Every message names the file, and for a bad value the key
//! and what is expected, so a user can fix the input without reading code.

use std::path::PathBuf;

/// Bad input (exit status 2), a failure to write outputs, or an interruption.
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
    #[error(transparent)]
    Journal(#[from] super::journal::JournalError),
    #[error(
        "{}: its journal is of another experiment: {what}; run with --fresh to start afresh \
         (its results will be discarded), or choose another --out",
        dir.display()
    )]
    JournalMismatch { dir: PathBuf, what: String },
    #[error("output folder {}: {what}", dir.display())]
    Folder { dir: PathBuf, what: String },
    #[error(
        "output folder {} is in use by another packlab ({holder}); wait for it, or choose \
         another --out",
        dir.display()
    )]
    Locked { dir: PathBuf, holder: String },
    #[error("{}: cannot merge: {what}", dir.display())]
    Shards { dir: PathBuf, what: String },
    /// A signal stopped the run; the journal keeps `kept` of `total` units.
    #[error(
        "interrupted by signal {signal}: {kept} of {total} units kept in the journal of {}; \
         run the same command again to resume",
        dir.display()
    )]
    Interrupted {
        signal: i32,
        kept: usize,
        total: usize,
        dir: PathBuf,
    },
    #[error("slurm: {0}")]
    Slurm(String),
    /// A signal stopped units in flight (turned into `Interrupted` by the engine).
    #[error("stopped by a signal")]
    Cancelled,
    #[error("{}: {source}", file.display())]
    Region {
        file: std::path::PathBuf,
        source: crate::configurations::region::RegionError,
    },
}
