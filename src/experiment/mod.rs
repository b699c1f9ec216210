//! Experiments: a TOML file of one of three kinds, validated once, run, and written out as
//! tables, figures, a report and checked claims.
//!
//! Each kind — [`queueing`] (simulate policies over a sweep of loads), [`region`] (compute
//! stability regions by linear programming), [`packing`] (evaluate placement on a snapshot) —
//! has the same shape: a schema of raw TOML tables, validators into a spec with a shared
//! [`Header`], an `execute` that produces an outcome, and outputs. The [`Kind`] trait ties them
//! together so that [`ExperimentFile::run`] is one path for all. What kinds share lives in
//! [`common`]; no kind borrows from another.

pub mod common;
mod error;
pub mod packing;
pub mod queueing;
pub mod region;

use std::path::{Path, PathBuf};

pub use common::{ClaimResult, Header};
pub use error::ExperimentError;
pub use packing::PackingExperiment;
pub use queueing::{Experiment, execute, write_outputs};
pub use region::RegionExperiment;

/// The packlab version written into every output for provenance.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How to run a file: shortened or not, on how many threads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// About 1/100 of the work, the same outputs (smoke tests).
    pub quick: bool,
    /// Worker threads (all cores if `None`); results do not depend on it.
    pub threads: Option<usize>,
}

/// One kind of experiment: validated spec in, outcome and output files out.
pub trait Kind {
    /// What a run of the experiment found.
    type Outcome;
    /// Name, description, seed and file.
    fn header(&self) -> &Header;
    /// Shortens the experiment to about 1/100 of its work (same outputs).
    fn quick(&mut self);
    /// Runs it.
    fn execute(&self, threads: Option<usize>) -> Result<Self::Outcome, ExperimentError>;
    /// The claims' results.
    fn claims(outcome: &Self::Outcome) -> &[ClaimResult];
    /// Writes every output into `dir` (created if needed); returns the files written.
    fn write(&self, outcome: &Self::Outcome, dir: &Path) -> Result<Vec<PathBuf>, ExperimentError>;
    /// The line printed when it is done.
    fn done(&self, outcome: &Self::Outcome, dir: &Path) -> String;
}

/// An experiment file of any kind.
#[derive(Clone, Debug)]
pub enum ExperimentFile {
    Queueing(Box<Experiment>),
    Region(Box<RegionExperiment>),
    Packing(Box<PackingExperiment>),
}

/// What running a file gave: its claims and the line to print.
#[derive(Clone, Debug)]
pub struct Ran {
    pub claims: Vec<ClaimResult>,
    pub done: String,
}

impl ExperimentFile {
    /// Reads and validates an experiment file, dispatching on its `kind` key.
    pub fn load(file: &Path) -> Result<Self, ExperimentError> {
        let source = std::fs::read_to_string(file).map_err(|source| ExperimentError::Read {
            file: file.to_path_buf(),
            source,
        })?;
        Self::parse(file, &source)
    }

    /// Validates experiment text of any kind.
    pub fn parse(file: &Path, source: &str) -> Result<Self, ExperimentError> {
        let table: toml::Table = common::parse_toml(file, source)?;
        Ok(match table.get("kind").and_then(|k| k.as_str()) {
            Some("region") => {
                ExperimentFile::Region(Box::new(RegionExperiment::parse(file, source)?))
            }
            Some("packing") => {
                ExperimentFile::Packing(Box::new(PackingExperiment::parse(file, source)?))
            }
            _ => ExperimentFile::Queueing(Box::new(Experiment::parse(file, source)?)),
        })
    }

    /// The experiment's header.
    pub fn header(&self) -> &Header {
        match self {
            ExperimentFile::Queueing(e) => e.header(),
            ExperimentFile::Region(e) => e.header(),
            ExperimentFile::Packing(e) => e.header(),
        }
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        &self.header().name
    }

    /// Runs the experiment and writes its outputs into `dir`.
    pub fn run(self, opts: Options, dir: &Path) -> Result<Ran, ExperimentError> {
        match self {
            ExperimentFile::Queueing(e) => run_kind(*e, opts, dir),
            ExperimentFile::Region(e) => run_kind(*e, opts, dir),
            ExperimentFile::Packing(e) => run_kind(*e, opts, dir),
        }
    }
}

/// The one path every kind takes: shorten if asked, execute, write, report.
fn run_kind<K: Kind>(mut exp: K, opts: Options, dir: &Path) -> Result<Ran, ExperimentError> {
    if opts.quick {
        exp.quick();
    }
    let out = exp.execute(opts.threads)?;
    exp.write(&out, dir)?;
    Ok(Ran {
        claims: K::claims(&out).to_vec(),
        done: exp.done(&out, dir),
    })
}

impl Kind for Experiment {
    type Outcome = queueing::Outcome;
    fn header(&self) -> &Header {
        &self.header
    }
    fn quick(&mut self) {
        Experiment::quick(self)
    }
    fn execute(&self, threads: Option<usize>) -> Result<Self::Outcome, ExperimentError> {
        queueing::execute(self, threads)
    }
    fn claims(outcome: &Self::Outcome) -> &[ClaimResult] {
        &outcome.claims
    }
    fn write(&self, outcome: &Self::Outcome, dir: &Path) -> Result<Vec<PathBuf>, ExperimentError> {
        queueing::write_outputs(self, outcome, dir)
    }
    fn done(&self, outcome: &Self::Outcome, dir: &Path) -> String {
        format!(
            "packlab: {} runs of {} written to {}",
            outcome.runs.len(),
            self.header.name,
            dir.display()
        )
    }
}
