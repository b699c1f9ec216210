//! Region experiments (`kind = "region"`): stability regions computed by linear programming,
//! no simulation — ρ* and Theorem 1's bracket for one size law, the regions of K_RED and of the
//! dyadic set, and their ratios to ρ* over a random family of distributions.
//!
//! In the stages of a queueing file, each reading the one before: `spec` (the file into a
//! [`RegionExperiment`]), `run` (the plan of units and each unit's linear programmes),
//! `analysis` (the outcome and the claims), `output` (tables, figures, report).

mod analysis;
mod output;
mod run;
mod spec;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

pub(crate) use analysis::RegionOutcome;
pub(crate) use output::write_region_outputs;
pub(crate) use spec::{RegionClaim, RegionExperiment, SetKind};

use super::ExperimentError;
use super::common::{ClaimResult, Header};
use super::engine::Kind;

#[cfg(test)]
/// Computes everything the experiment asks for, in memory on `threads` threads.
pub(crate) fn execute_region(
    exp: &RegionExperiment,
    threads: Option<usize>,
) -> Result<RegionOutcome, ExperimentError> {
    crate::experiment::engine::run_in_memory(exp, threads)
}

impl Kind for RegionExperiment {
    type Unit = run::Unit;
    type Done = run::Done;
    type Outcome = RegionOutcome;
    fn header(&self) -> &Header {
        &self.header
    }
    fn quick(&mut self) {
        RegionExperiment::quick(self)
    }
    fn plan(&self) -> Vec<run::Unit> {
        run::plan(self)
    }
    fn cost(&self, unit: &run::Unit) -> f64 {
        run::cost(self, unit)
    }
    fn run_unit(
        &self,
        unit: &run::Unit,
        _: &super::steps::Steps<'_>,
    ) -> Result<run::Done, ExperimentError> {
        run::run(self, unit)
    }
    fn assemble(&self, _plan: &[run::Unit], done: Vec<run::Done>) -> RegionOutcome {
        analysis::assemble(self, done)
    }
    fn claims(outcome: &mut RegionOutcome) -> &mut [ClaimResult] {
        &mut outcome.claims
    }
    fn write(&self, outcome: &RegionOutcome, dir: &Path) -> Result<Vec<PathBuf>, ExperimentError> {
        write_region_outputs(self, outcome, dir)
    }
    fn done(&self, _: &RegionOutcome, dir: &Path) -> String {
        format!(
            "packlab: region {} written to {}",
            self.header.name,
            dir.display()
        )
    }
}
