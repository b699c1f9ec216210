//! `[run] probe_groups`: a sweep point's replications in consecutive groups, each decided as a
//! limit search decides a probe's first round (its first part if unanimous, for groups of 4 or
//! more; else the majority of all; then the pooled test), so a file
//! at a known limit measures how often the search's probe rule is right there.

use super::Outcome;
use crate::experiment::queueing::Experiment;
use crate::stability::search::{Decision, Probe, Seen};

/// How the groups of one (policy, point) were decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GroupRow {
    /// The policy.
    pub(crate) policy: usize,
    /// The sweep point.
    pub(crate) point: usize,
    /// Runs per group.
    pub(crate) size: u32,
    /// Groups (replications / size, rounded down; the rest is left out).
    pub(crate) groups: usize,
    /// Groups decided stable, unstable by a majority of their runs (a unanimous first part, or
    /// a majority of all with no contrary run).
    pub(crate) majority: [usize; 2],
    /// Groups the majority left undecided and the pooled test decided stable, unstable.
    pub(crate) pooled: [usize; 2],
    /// Groups left undecided.
    pub(crate) undecided: usize,
}

/// One row per (policy, point) with runs, point by point and policy by policy; none without
/// the key.
pub(crate) fn groups(exp: &Experiment, out: &Outcome) -> Vec<GroupRow> {
    let Some(size) = exp.run.probe_groups else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for point in 0..exp.points.len() {
        for policy in 0..exp.policies.len() {
            // in replication order
            let at: Vec<_> = out.runs_at(policy, point).collect();
            if at.is_empty() {
                continue;
            }
            let mut row = GroupRow {
                policy,
                point,
                size,
                ..GroupRow::default()
            };
            for group in at.chunks_exact(size as usize) {
                let runs: Vec<_> = group.iter().map(|r| Seen::of_run(&r.result)).collect();
                let p = Probe::of_seen(exp.points[point].load, &runs);
                row.groups += 1;
                match (p.decision, p.pooled) {
                    (Decision::Stable, false) => row.majority[0] += 1,
                    (Decision::Unstable, false) => row.majority[1] += 1,
                    (Decision::Stable, true) => row.pooled[0] += 1,
                    (Decision::Unstable, true) => row.pooled[1] += 1,
                    (Decision::Undecided, _) => row.undecided += 1,
                }
            }
            rows.push(row);
        }
    }
    rows
}
