//! Stability next to packing (`[compaction]`): for every scored policy, the compacted size of
//! jobs drawn from the workload (cluster compaction, Algorithm 3 of Verma, Korupolu & Wilkes,
//! "Evaluating job packing in warehouse-scale computing", IEEE Cluster 2014, with the policy's
//! scorer) and the stability limit as an interval on the load in [0, 1].

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::limit::{Searched, limit_search};
use super::scenario::Scenario;
use crate::experiment::ExperimentError;
use crate::experiment::queueing::{CompactionSpec, Experiment};
use crate::experiment::steps::Steps;
use crate::model::Size;
use crate::packing::evaluate::{Compaction, Scheduler, compact};
use crate::packing::place::Scorer;
use crate::packing::snapshot::{Snapshot, Task, total};
use crate::rng::derive_seed;
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

/// The packing side of the study: `spec.tasks` jobs drawn from the workload (a stream of their
/// own), on unit servers, compacted with `scorer` (cluster compaction).
fn compaction_of(exp: &Experiment, spec: &CompactionSpec, scorer: Scorer) -> (Compaction, f64) {
    let mut rng = Pcg64Mcg::seed_from_u64(derive_seed(exp.header.seed, &[0x636f_6d70]));
    let tasks: Vec<Task> = (0..spec.tasks)
        .map(|i| {
            Task::new(
                i as u32,
                if exp.workload.requests().is_empty() {
                    [exp.workload.sizes().sample(&mut rng).0, 0, 0]
                } else {
                    let r = exp.workload.requests();
                    r[rng.random_range(0..r.len())]
                },
            )
        })
        .collect();
    let mut cap = [0u64; 3];
    for c in cap.iter_mut().take(exp.workload.dims()) {
        *c = Size::UNIT;
    }
    let demand = total(tasks.iter().map(|t| &t.request))
        .iter()
        .map(|&x| x as f64 / Size::UNIT as f64)
        .fold(0.0, f64::max);
    let machines = (demand.ceil() as usize).max(1);
    let snap = Snapshot::new(exp.workload.dims(), vec![cap; machines], tasks);
    let sched = Scheduler::new(&snap, spec.order, scorer);
    let c = compact(
        &snap,
        &sched,
        spec.tau,
        1,
        spec.trials,
        derive_seed(exp.header.seed, &[0x636f_6d70, 1]),
    );
    (c, demand)
}

/// The study's row of the scored policy `policy`, whose scorer is `scorer`.
pub(crate) fn row(
    exp: &Experiment,
    spec: &CompactionSpec,
    policy: usize,
    scorer: Scorer,
    steps: &Steps<'_>,
) -> Result<StudyRow, ExperimentError> {
    let (compaction, demand) = compaction_of(exp, spec, scorer);
    let rate = exp.rate_per_load();
    let limit = limit_search(
        &Searched::of(exp, policy, steps),
        spec.limit,
        (1.0, 1.0),
        &|x, seed| Scenario::sampled(exp, policy, x * rate, seed, (0, false)),
    )?;
    Ok(StudyRow {
        policy,
        compaction,
        demand,
        limit,
    })
}
