//! Experiments: the TOML file, its validation, the parallel runner, claims and outputs
//! (design.md, "The user-facing contract").

mod claims;
mod error;
pub mod limit;
mod output;
mod packing;
mod region;
mod runner;
mod spec;
mod study;

pub use packing::{PackingExperiment, PackingOutcome, execute_packing, write_packing_outputs};
pub use region::{RegionExperiment, RegionOutcome, execute_region, write_region_outputs};

pub use error::ExperimentError;
pub use output::write_outputs;
pub use runner::{
    ClaimResult, Outcome, RunRecord, SummaryRow, execute, majority, mean_ci, run_seed, simulate,
};
pub use spec::{ClaimSpec, CompactionSpec, Experiment, PlotSpec, Point, RunSpec, SweepKind};
pub use study::StudyRow;

/// The packlab version written into every output for provenance.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// An experiment file of any kind.
#[derive(Clone, Debug)]
pub enum ExperimentFile {
    Queueing(Box<Experiment>),
    Region(Box<RegionExperiment>),
    Packing(Box<PackingExperiment>),
}

impl ExperimentFile {
    /// Reads and validates an experiment file, dispatching on its `kind` key.
    pub fn load(file: &std::path::Path) -> Result<Self, ExperimentError> {
        let source = std::fs::read_to_string(file).map_err(|source| ExperimentError::Read {
            file: file.to_path_buf(),
            source,
        })?;
        Self::parse(file, &source)
    }

    /// Validates experiment text of any kind.
    pub fn parse(file: &std::path::Path, source: &str) -> Result<Self, ExperimentError> {
        let table: toml::Table = spec::parse_toml(file, source)?;
        match table.get("kind").and_then(|k| k.as_str()) {
            Some("region") => Ok(ExperimentFile::Region(Box::new(RegionExperiment::parse(
                file, source,
            )?))),
            Some("packing") => Ok(ExperimentFile::Packing(Box::new(PackingExperiment::parse(
                file, source,
            )?))),
            _ => Ok(ExperimentFile::Queueing(Box::new(Experiment::parse(
                file, source,
            )?))),
        }
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        match self {
            ExperimentFile::Queueing(e) => &e.name,
            ExperimentFile::Region(e) => &e.name,
            ExperimentFile::Packing(e) => &e.name,
        }
    }
}
