//! Packing experiments (`kind = "packing"`): the packing evaluators of Verma, Korupolu & Wilkes
//! ("Evaluating job packing in warehouse-scale computing", IEEE Cluster 2014), the scorers of
//! Stein et al., and Monte-Carlo expansion (Wu et al.) on a point-in-time snapshot, for a set
//! of schedulers (job order + scorer). Outputs CSV tables and the figures of the Verma et al.
//! paper: utilisation after hole filling against the unit size (Fig. 1), pending tasks and
//! utilisation against the inflation factor (Fig. 2), compacted size against τ with the range
//! of the trials (Fig. 3); with the job orders as schedulers, the three together are its
//! Fig. 4. With `[numa]` and a layer per scheduler, machines have NUMA nodes (Wu et al., IEEE
//! CLOUD 2019) and the outputs add the NUMA-fit population, the expanded cluster and the net
//! CPU savings against the default layer (its Figs. 2 and 3).

//!
//! In the stages of a queueing file, each reading the one before: `spec` (the file into a
//! [`PackingExperiment`]), `run` (one unit per scheduler, every evaluator), `analysis`
//! (the outcome, its means and the claims), `output` (tables, figures, report; NUMA nodes and
//! placement constraints as modules of their own).

mod analysis;
mod output;
mod run;
mod spec;

use std::path::{Path, PathBuf};

pub(crate) use analysis::PackingOutcome;
pub(crate) use output::write_packing_outputs;
pub(crate) use run::SchedulerResult;
pub(crate) use spec::{PackingClaim, PackingExperiment, SchedulerSpec};

use super::ExperimentError;
use super::common::{ClaimResult, Header};
use super::engine::Kind;

impl Kind for PackingExperiment {
    type Unit = usize;
    type Done = SchedulerResult;
    type Outcome = PackingOutcome;
    fn header(&self) -> &Header {
        &self.header
    }
    fn quick(&mut self) {
        PackingExperiment::quick(self)
    }
    fn plan(&self) -> Vec<usize> {
        (0..self.schedulers.len()).collect()
    }
    fn estimated_seconds(&self, _plan: &[usize]) -> Option<f64> {
        Some(
            (0..self.schedulers.len())
                .map(|i| run::seconds(self, i))
                .sum(),
        )
    }
    fn cost(&self, unit: &usize) -> f64 {
        run::cost(self, *unit)
    }
    fn run_unit(
        &self,
        unit: &usize,
        _: &super::steps::Steps<'_>,
    ) -> Result<SchedulerResult, ExperimentError> {
        run::run(self, *unit)
    }
    fn assemble(&self, _plan: &[usize], done: Vec<SchedulerResult>) -> PackingOutcome {
        analysis::assemble(self, done)
    }
    fn claims(outcome: &mut PackingOutcome) -> &mut [ClaimResult] {
        &mut outcome.claims
    }
    fn write(&self, outcome: &PackingOutcome, dir: &Path) -> Result<Vec<PathBuf>, ExperimentError> {
        write_packing_outputs(self, outcome, dir)
    }
    fn done(&self, _: &PackingOutcome, dir: &Path) -> String {
        format!(
            "packlab: packing {} written to {}",
            self.header.name,
            dir.display()
        )
    }
}
