//! Experiments: the TOML file, its validation, the parallel runner, claims and outputs
//! (design.md, "The user-facing contract").

mod claims;
mod error;
mod output;
mod runner;
mod spec;

pub use error::ExperimentError;
pub use output::write_outputs;
pub use runner::{
    ClaimResult, Outcome, RunRecord, SummaryRow, execute, majority, mean_ci, run_seed, simulate,
};
pub use spec::{ClaimSpec, Experiment, PlotSpec, Point, RunSpec, SweepKind};

/// The packlab version written into every output for provenance.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
