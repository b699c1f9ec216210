//! Stability next to packing (`[compaction]`): for every scored policy, the compacted size of
//! jobs drawn from the workload (cluster compaction, Algorithm 3 of Verma, Korupolu & Wilkes,
//! "Evaluating job packing in warehouse-scale computing", IEEE Cluster 2014, with the policy's
//! scorer) and the stability limit as an interval on the load in [0, 1].

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::experiment::ExperimentError;
use crate::experiment::queueing::plan::{Names, Packing, StudyWork};
use crate::experiment::steps::Steps;
use crate::model::Size;
use crate::packing::evaluate::{Compaction, Scheduler, compact};
use crate::packing::snapshot::{Snapshot, Task, total};
use crate::stability::search::Limit;

/// A scored policy's packing (compaction) and stability limit on the same workload.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct StudyRow {
    /// The scored policy.
    pub(crate) policy: usize,
    /// Compaction of the drawn tasks onto unit servers with the policy's scorer.
    pub(crate) compaction: Compaction,
    /// The lower bound on machines: the largest total request over resources.
    pub(crate) demand: f64,
    /// Stability limit as an interval on the load in [0, 1] (ρ reported as (1, 1)).
    pub(crate) limit: Limit,
}

/// The packing side of the study: `p.tasks` jobs drawn from the workload (a stream of their
/// own), on unit servers, compacted with the policy's scorer (cluster compaction).
fn compaction_of(p: &Packing) -> (Compaction, f64) {
    let mut rng = Pcg64Mcg::seed_from_u64(p.tasks_seed);
    let tasks: Vec<Task> = (0..p.tasks)
        .map(|i| {
            Task::new(
                i as u32,
                match &p.requests {
                    None => [p.sizes.sample(&mut rng).0, 0, 0],
                    Some(r) => r[rng.random_range(0..r.len())],
                },
            )
        })
        .collect();
    let mut cap = [0u64; 3];
    for c in cap.iter_mut().take(p.dims) {
        *c = Size::UNIT;
    }
    let demand = total(tasks.iter().map(|t| &t.request))
        .iter()
        .map(|&x| x as f64 / Size::UNIT as f64)
        .fold(0.0, f64::max);
    let machines = (demand.ceil() as usize).max(1);
    let snap = Snapshot::new(p.dims, vec![cap; machines], tasks);
    let sched = Scheduler::new(&snap, p.order, p.scorer);
    let c = compact(&snap, &sched, p.tau, 1, p.trials, p.trials_seed);
    (c, demand)
}

/// The study's row of the scored policy `policy`.
pub(crate) fn row(
    w: &StudyWork,
    policy: usize,
    names: &Names,
    file: &Path,
    steps: &Steps<'_>,
) -> Result<StudyRow, ExperimentError> {
    let (compaction, demand) = compaction_of(&w.packing);
    let limit = super::limit::search(&w.search, names, file, steps)?;
    Ok(StudyRow {
        policy,
        compaction,
        demand,
        limit,
    })
}
