//! Queueing experiments (`kind = "queueing"`, the default): simulate policies over a sweep of
//! loads, judge stability, check claims, write tables, figures and a report.
//!
//! In four stages, each reading the one before (and the validated experiment, which names
//! what every stage refers to):
//! - `spec`: the file into an [`Experiment`] (raw tables, then one validator per section;
//!   NUMA nodes and placement constraints plug in as validators of their own);
//! - `run`: the plan of units and each unit run (simulations, limit searches, saturation
//!   estimates, compaction rows), through [`crate::experiment::engine`], which journals them;
//! - `analysis`: the units' results into one [`Outcome`] holding every derived table, and
//!   the claims;
//! - `output`: tables, figures and the report, formatting only.
//!
//! A feature (NUMA nodes, placement constraints, trace replay, compaction, region maps) adds a
//! module to each stage it touches, behind that stage's interface.

mod analysis;
mod output;
pub(crate) mod run;
mod spec;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

pub(crate) use analysis::Outcome;
pub(crate) use output::write_outputs;

pub(crate) use spec::{
    ClaimSpec, CompactionSpec, DelayQuantity, Experiment, Horizon, PlotSpec, Point,
    QueueConstraints, QueueNuma, QueuePolicy, RegionMapSpec, Restriction, SearchSpec, Statistic,
    SweepKind, Workload, bottleneck, degrees, mix,
};

use super::ExperimentError;
use super::common::{ClaimResult, Header};
use super::engine::Kind;
use crate::policy::registry::Registry;

impl Experiment {
    /// Validates experiment text (`file` names it in errors and anchors relative paths), then
    /// refuses a plan beyond packlab's limits.
    pub fn parse(file: &Path, source: &str) -> Result<Experiment, ExperimentError> {
        Experiment::parse_with(file, source, &Registry::builtin())
    }

    /// [`Experiment::parse`] with the policies of `policies`.
    pub(crate) fn parse_with(
        file: &Path,
        source: &str,
        policies: &Registry,
    ) -> Result<Experiment, ExperimentError> {
        let exp = Experiment::validate(file, source, policies)?;
        run::admit(&exp)?;
        Ok(exp)
    }
}

#[cfg(test)]
/// Runs every unit of `exp` in memory on `threads` threads (all cores if `None`) and assembles
/// the outcome (no journal, no output folder).
pub(crate) fn execute(
    exp: &Experiment,
    threads: Option<usize>,
) -> Result<Outcome, ExperimentError> {
    super::engine::run_in_memory(exp, threads)
}

impl Kind for Experiment {
    type Unit = run::Unit;
    type Done = run::Done;
    type Outcome = Outcome;
    fn estimated_seconds(&self) -> Option<f64> {
        Some(run::seconds(self))
    }
    fn memory(&self, threads: usize, units: usize) -> Vec<crate::experiment::memory::Use> {
        run::memory(self, threads, units)
    }
    fn unit_fingerprints(&self, plan: &[run::Unit], quick: bool) -> Vec<u64> {
        run::unit_fingerprints(self, plan, quick)
    }
    fn header(&self) -> &Header {
        &self.header
    }
    fn quick(&mut self) {
        Experiment::quick(self)
    }
    fn plan(&self) -> Vec<run::Unit> {
        run::plan(self)
    }
    fn describe(&self, unit: &run::Unit, _index: usize) -> String {
        run::describe(self, unit)
    }
    fn cost(&self, unit: &run::Unit) -> f64 {
        run::cost(self, unit)
    }
    fn costs(&self, plan: &[run::Unit]) -> Vec<f64> {
        run::costs(self, plan)
    }
    fn run_unit(
        &self,
        unit: &run::Unit,
        steps: &super::steps::Steps<'_>,
    ) -> Result<run::Done, ExperimentError> {
        run::run(self, unit, steps)
    }
    fn assemble(&self, done: Vec<run::Done>) -> Outcome {
        analysis::assemble(self, done)
    }
    fn claims(outcome: &mut Outcome) -> &mut [ClaimResult] {
        &mut outcome.claims
    }
    fn write(&self, outcome: &Outcome, dir: &Path) -> Result<Vec<PathBuf>, ExperimentError> {
        write_outputs(self, outcome, dir)
    }
    fn done(&self, outcome: &Outcome, dir: &Path) -> String {
        let map = match &self.region_map {
            Some(m) => format!(
                " and {} limits along {} rays",
                outcome.map.len(),
                m.rays.len()
            ),
            None => String::new(),
        };
        format!(
            "packlab: {} runs{map} of {} written to {}",
            outcome.runs.len(),
            self.header.name,
            dir.display()
        )
    }
}
