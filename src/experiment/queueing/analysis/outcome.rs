//! What a queueing experiment found: runs, the summary per (policy, point), limits, the
//! saturation estimates, the stability-versus-packing study, the tables derived per constraint
//! and the claims.

use super::constraints::{ConstraintDelay, Validation};
use super::region_map::{MapLimit, MapPolygons};
use super::results::SummaryRow;
use crate::experiment::common::ClaimResult;
use crate::experiment::queueing::run::{RunRecord, StudyRow, ThresholdResult};
use crate::experiment::queueing::{Experiment, SearchSpec};
use crate::stability::saturation::Saturation;
use crate::stability::search::Limit;

/// Everything a run of an experiment produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every run, in plan order.
    pub runs: Vec<RunRecord>,
    /// One row per (point, policy).
    pub summary: Vec<SummaryRow>,
    /// Every limit search.
    pub thresholds: Vec<ThresholdResult>,
    /// Saturated throughput of the FIFO-FF policies with a `saturation` claim.
    pub saturation: Vec<(usize, Saturation)>,
    /// The claims' results.
    pub claims: Vec<ClaimResult>,
    /// Stability next to packing, one row per scored policy (with `[compaction]`).
    pub study: Vec<StudyRow>,
    /// With `[constraints]`: every constraint's delay at every (policy, point) with runs.
    pub delays: Vec<ConstraintDelay>,
    /// With a re-synthesis: the ground truth against the re-synthesised cluster.
    pub validations: Vec<Validation>,
    /// With `[region_map]`: each (ray, policy) limit, ray by ray.
    pub map: Vec<MapLimit>,
    /// With `[run] probe_groups`: the probe rule on groups of each point's replications.
    pub groups: Vec<super::GroupRow>,
    /// With `[region_map]`: the exact regions of its two types.
    pub polygons: Option<MapPolygons>,
}

impl Outcome {
    /// A FIFO-FF policy's saturated throughput as a load: (estimate, 95 % low, 95 % high).
    pub fn saturated_load(&self, exp: &Experiment, policy: usize) -> Option<(f64, f64, f64)> {
        let per_load = exp.rate_per_load();
        self.saturation_of(policy).map(|s| {
            (
                s.throughput / per_load,
                s.ci95.0 / per_load,
                s.ci95.1 / per_load,
            )
        })
    }

    /// The summary row of (policy, point).
    pub fn row(&self, policy: usize, point: usize) -> Option<&SummaryRow> {
        self.summary
            .iter()
            .find(|r| r.policy == policy && r.point == point)
    }

    /// The runs of (policy, point), in replication order.
    pub fn runs_at(&self, policy: usize, point: usize) -> impl Iterator<Item = &RunRecord> {
        self.runs
            .iter()
            .filter(move |r| r.policy == policy && r.point == point)
    }

    /// The limit `policy`'s search with `search` found (every claim's search runs before the
    /// claims).
    pub fn threshold(&self, policy: usize, search: &SearchSpec) -> Option<&Limit> {
        self.thresholds
            .iter()
            .find(|t| t.policy == policy && t.limit.search == *search)
            .map(|t| &t.limit)
    }

    /// The saturated throughput of `policy`, if it was estimated.
    pub fn saturation_of(&self, policy: usize) -> Option<Saturation> {
        self.saturation.iter().find(|s| s.0 == policy).map(|s| s.1)
    }
}
