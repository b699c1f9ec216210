//! The third stage of a queueing experiment: each unit of the plan run, and what it gives
//! (which the engine journals). It reads the units and nothing else: a run's scenario, a
//! search's family of scenarios, a saturation estimate's system, a study row's packing and
//! search (the file's path and the policy's label come with the unit, for messages).

mod cores;
mod limit;
mod round;
mod simulate;
mod study;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub(crate) use limit::{RayResult, ThresholdResult};
pub(crate) use round::on_look;
pub(crate) use simulate::RunRecord;
pub(in crate::experiment::queueing) use simulate::job_source;
#[cfg(test)]
pub(in crate::experiment::queueing) use simulate::run_scenario;
pub(crate) use study::StudyRow;

use super::plan::{At, Unit, Work};
use crate::experiment::ExperimentError;
use crate::experiment::steps::Steps;
use crate::stability::saturation::{SaturatedJobs, Saturation, saturated};

/// What a unit gives.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Done {
    /// A sweep run's record.
    Run(Box<RunRecord>),
    /// A threshold claim's limit.
    Limit(Box<ThresholdResult>),
    /// A saturation estimate, of a policy.
    Saturation(usize, Saturation),
    /// A row of the stability-versus-packing study.
    Study(Box<StudyRow>),
    /// A limit along a region map's ray.
    Ray(Box<RayResult>),
}

impl Done {
    /// The result with the indices of `at` (where the unit now stands in the experiment's
    /// lists): a result resumed from a journal written before an edit of the file carries the
    /// indices its unit had then.
    pub(in crate::experiment::queueing) fn at(mut self, at: At) -> Self {
        match (&mut self, at) {
            (Done::Run(r), At::Run { policy, point, rep }) => {
                (r.policy, r.point, r.replication) = (policy, point, rep);
            }
            (Done::Limit(t), At::Limit { policy }) => t.policy = policy,
            (Done::Saturation(p, _), At::Saturation { policy }) => *p = policy,
            (Done::Study(s), At::Study { policy }) => s.policy = policy,
            (Done::Ray(r), At::Ray { policy, ray }) => (r.policy, r.ray) = (policy, ray),
            _ => {}
        }
        self
    }
}

/// Runs one unit (`file`, the experiment file, is named in errors). A policy that breaks the
/// model's rules (a panic in its run, or a run whose bookkeeping does not add up) stops the
/// unit with an error naming the policy, never the process.
pub(in crate::experiment::queueing) fn run(
    unit: &Unit,
    file: &Path,
    steps: &Steps<'_>,
) -> Result<Done, ExperimentError> {
    let broke = |what: String| ExperimentError::Policy {
        file: file.to_path_buf(),
        policy: unit.names.label.to_string(),
        what,
    };
    match crate::sim::guard::caught(|| run_unit(unit, file, steps)) {
        Ok(Err(ExperimentError::Sim(crate::sim::SimError::Invariant { slot, what }))) => {
            Err(broke(format!("at slot {slot}, {what}")))
        }
        Ok(r) => r,
        Err(what) => Err(broke(what)),
    }
}

/// Runs one unit (see [`run`]); a search journals its runs through `steps`.
fn run_unit(unit: &Unit, file: &Path, steps: &Steps<'_>) -> Result<Done, ExperimentError> {
    let policy = unit.at.policy();
    Ok(match (&unit.work, unit.at) {
        (Work::Run(w), at) => Done::Run(Box::new(simulate::record(w, at, file)?)),
        (Work::Search(w), At::Ray { ray, .. }) => Done::Ray(Box::new(RayResult {
            ray,
            policy,
            limit: limit::search(w, &unit.names, file, steps)?,
        })),
        (Work::Search(w), _) => Done::Limit(Box::new(ThresholdResult {
            policy,
            limit: limit::search(w, &unit.names, file, steps)?,
        })),
        (Work::Saturation(w), _) => {
            let mut built = w.policy.build(w.servers);
            let jobs = SaturatedJobs {
                sizes: &w.sizes,
                service: &w.service,
                classes: w.classes.as_deref(),
            };
            let s = saturated(built.as_mut(), w.servers, jobs, w.warmup, w.slots, w.seed);
            Done::Saturation(policy, s)
        }
        (Work::Study(w), _) => {
            Done::Study(Box::new(study::row(w, policy, &unit.names, file, steps)?))
        }
    })
}
