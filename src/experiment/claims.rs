//! Claims written in an experiment file, checked after the run.
//!
//! `expect = "stable" | "unstable"` for a policy at a sweep point holds when the majority
//! verdict of its replications is the expected one (see [`crate::sim::verdict`]); an
//! `inconclusive` majority does not hold.

use super::runner::Outcome;
use super::spec::{Experiment, SweepKind};

/// Checks every claim of `exp` against the outcome.
pub fn check(exp: &Experiment, out: &Outcome) -> Vec<super::ClaimResult> {
    exp.claims
        .iter()
        .map(|c| {
            let policy = exp.labels[c.policy].clone();
            let p = exp.points[c.point];
            let at = match exp.sweep {
                SweepKind::Load => format!("load {}", p.load),
                SweepKind::ArrivalRate => format!("arrival rate {}", p.arrival_rate),
            };
            let row = out.row(c.policy, c.point).expect("every point was run");
            let runs: Vec<_> = out
                .runs
                .iter()
                .filter(|r| r.policy == c.policy && r.point == c.point)
                .collect();
            let count = runs.iter().filter(|r| r.verdict == row.verdict).count();
            let first = runs.first().expect("at least one replication");
            let evidence = format!(
                "{count}/{} replications {}; mean queue {:.3}; replication 0: {}",
                runs.len(),
                row.verdict,
                row.mean_queue,
                first.evidence
            );
            super::ClaimResult {
                claim: format!("{policy} is {} at {at}", c.expect),
                expected: c.expect.to_string(),
                observed: row.verdict.to_string(),
                evidence,
                holds: row.verdict == c.expect,
            }
        })
        .collect()
}
