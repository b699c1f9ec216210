//! Queueing experiments (`kind = "queueing"`, the default): simulate policies over a sweep of
//! loads, judge stability, check claims, write tables, figures and a report.
//!
//! In five stages, each reading the one before:
//! - `spec`: the file into an [`Experiment`] (raw tables, then one validator per section;
//!   NUMA nodes and placement constraints plug in as validators of their own);
//! - `plan`: the experiment made, once, into owned units of work (every run a complete
//!   scenario, every search its family of scenarios as a function of the load), priced and
//!   admitted; a unit's identity is the fingerprint of what it computes;
//! - `run`: each unit run, reading the unit only, through [`crate::experiment::engine`], which
//!   journals it;
//! - `analysis`: the units' results into one [`Outcome`] holding every derived table, and
//!   the claims (reading the experiment for labels, points, claims and plots);
//! - `output`: tables, figures and the report, formatting only.
//!
//! A feature (NUMA nodes, placement constraints, trace replay, compaction, region maps) adds a
//! module to each stage it touches, behind that stage's interface.

mod analysis;
mod output;
pub(crate) mod plan;
pub(crate) mod run;
mod spec;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

pub(crate) use analysis::Outcome;
pub(crate) use output::write_outputs;

pub(crate) use spec::{
    BY_SIZE, ClaimSpec, CompactionSpec, DelayQuantity, Experiment, Horizon, MapBoundary, PlotSpec,
    Point, QUANTILES, QueueConstraints, QueueNuma, QueuePolicy, RegionMapSpec, Restriction,
    SearchSpec, Statistic, SweepKind, Workload, bottleneck, degrees, mix,
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
        plan::admit(&exp)?;
        Ok(exp)
    }
}

/// The kinds of `[[plot]]` and `[[claim]]` with their keys, as `--help` lists them.
pub(crate) fn table_kinds_help() -> String {
    use crate::experiment::common::kinds::help;
    format!(
        "Plots ([[plot]] kind = …, with the keys each takes):\n{}\n\nClaims ([[claim]] kind = …, \
         \"verdict\" by default, with the keys each takes):\n{}",
        help(spec::PLOT_KINDS, 2),
        help(spec::CLAIM_KINDS, 2)
    )
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
    type Unit = plan::Unit;
    type Done = run::Done;
    type Outcome = Outcome;
    fn estimated_seconds(&self, plan: &[plan::Unit]) -> Option<f64> {
        Some(plan::seconds(plan))
    }
    fn memory(&self, plan: &[plan::Unit], threads: usize) -> Vec<crate::experiment::memory::Use> {
        plan::memory(plan, threads)
    }
    fn unit_fingerprints(&self, plan: &[plan::Unit], _quick: bool) -> Vec<u64> {
        plan.iter().map(plan::Unit::identity).collect()
    }
    fn header(&self) -> &Header {
        &self.header
    }
    fn quick(&mut self) {
        Experiment::quick(self)
    }
    fn plan(&self) -> Vec<plan::Unit> {
        plan::plan(self)
    }
    fn describe(&self, unit: &plan::Unit, _index: usize) -> String {
        describe(self, unit.at)
    }
    fn costs(&self, plan: &[plan::Unit]) -> Vec<f64> {
        plan::costs(plan)
    }
    fn run_unit(
        &self,
        unit: &plan::Unit,
        steps: &super::steps::Steps<'_>,
    ) -> Result<run::Done, ExperimentError> {
        run::run(unit, &self.header.file, steps)
    }
    fn assemble(&self, plan: &[plan::Unit], done: Vec<run::Done>) -> Outcome {
        let done = plan.iter().zip(done).map(|(u, d)| d.at(u.at)).collect();
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

/// Unit at `at` of `exp` in words: "bf-js at load 0.9, replication 3", "bf-js's limit search".
fn describe(exp: &Experiment, at: plan::At) -> String {
    let label = &exp.labels[at.policy()];
    match at {
        plan::At::Run { point, rep, .. } => format!(
            "{label} at {}, replication {}",
            exp.point_words(point),
            rep + 1
        ),
        plan::At::Limit { .. } => format!("{label}'s limit search"),
        plan::At::Saturation { .. } => format!("{label}'s saturation estimate"),
        plan::At::Study { .. } => format!("{label}'s compaction row"),
        plan::At::Ray { ray, .. } => format!("{label} along ray {}", ray + 1),
    }
}
