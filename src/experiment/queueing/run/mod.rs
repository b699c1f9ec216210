//! The second stage of a queueing experiment: its plan of independent units (every run of the
//! sweep, every limit search, every saturation estimate, every row of the compaction study,
//! every (ray, policy) of a region map), their expected costs, the refusal of plans beyond
//! packlab's limits, and each unit run. It reads the validated
//! [`Experiment`](super::Experiment) and gives each unit's result, which the engine journals.

mod budget;
pub(crate) mod limit;
mod region_map;
mod scenario;
mod simulate;
mod study;
mod units;

pub(in crate::experiment::queueing) use budget::{admit, cost, costs, memory, seconds};
pub(crate) use limit::ThresholdResult;
pub(crate) use region_map::RayResult;
pub(crate) use simulate::RunRecord;
pub(crate) use study::StudyRow;
pub(in crate::experiment::queueing) use units::{
    Done, Unit, describe, plan, run, unit_fingerprints,
};
