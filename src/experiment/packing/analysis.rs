//! The third stage of a packing experiment: the schedulers' results into one
//! [`PackingOutcome`], the means the outputs and claims read, and the claims.

use super::run::SchedulerResult;
use super::{PackingClaim, PackingExperiment};
use crate::experiment::common::ClaimResult;

/// Everything a packing experiment computed.
#[derive(Clone, Debug)]
pub(crate) struct PackingOutcome {
    /// Each scheduler's results, in file order.
    pub(crate) results: Vec<SchedulerResult>,
    /// The claims' results.
    pub(crate) claims: Vec<ClaimResult>,
}

/// The outcome from every scheduler's result, in file order; then the claims.
pub(super) fn assemble(exp: &PackingExperiment, results: Vec<SchedulerResult>) -> PackingOutcome {
    let claims = check(exp, &results);
    PackingOutcome { results, claims }
}

/// Mean NUMA-fit fraction of the tasks at the end of expansion (0 without NUMA nodes).
pub(crate) fn mean_numa_fit(r: &SchedulerResult) -> f64 {
    mean(
        r.expansion
            .iter()
            .map(|x| x.numa.map_or(0.0, |n| n.fit_fraction())),
    )
}

/// Mean final machine count of expansion.
pub(crate) fn mean_expanded(r: &SchedulerResult) -> f64 {
    mean(r.expansion.iter().map(|x| x.machines as f64))
}

/// The mean of `v` (0 when empty).
pub(super) fn mean(v: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = v.len().max(1) as f64;
    v.sum::<f64>() / n
}

/// The claims: an order of schedulers by a measure, strictly increasing.
fn check(exp: &PackingExperiment, results: &[SchedulerResult]) -> Vec<ClaimResult> {
    let trials = exp.evaluate.trials;
    exp.claims
        .iter()
        .map(|claim| {
            let (order, what, values, evidence): (&Vec<usize>, String, Vec<f64>, String) =
                match claim {
                    PackingClaim::Compaction { order, tau } => {
                        // the claim's τ is one of compaction_tau (validated)
                        let k = exp.evaluate.compaction_tau.iter().position(|t| t == tau);
                        (
                            order,
                            format!("compacted size (90th percentile) at tau = {tau}"),
                            order
                                .iter()
                                .map(|&s| k.map_or(0.0, |k| results[s].compaction[k].p90 as f64))
                                .collect(),
                            format!("{trials} trials each"),
                        )
                    }
                    PackingClaim::NumaFit { order } => (
                        order,
                        "mean NUMA-fit fraction of the tasks after expansion".to_string(),
                        order.iter().map(|&s| mean_numa_fit(&results[s])).collect(),
                        format!("{trials} expansion trials each"),
                    ),
                    PackingClaim::Expansion { order } => (
                        order,
                        "mean final machine count of expansion".to_string(),
                        order.iter().map(|&s| mean_expanded(&results[s])).collect(),
                        format!("{trials} expansion trials each"),
                    ),
                };
            let labels: Vec<&str> = order
                .iter()
                .map(|&s| exp.schedulers[s].label.as_str())
                .collect();
            let shown = |v: f64| match claim {
                PackingClaim::Compaction { .. } => format!("{v}"),
                _ => format!("{v:.4}"),
            };
            ClaimResult {
                claim: format!("{what} ranks {}", labels.join(" < ")),
                expected: labels.join(" < "),
                observed: labels
                    .iter()
                    .zip(&values)
                    .map(|(l, v)| format!("{l} {}", shown(*v)))
                    .collect::<Vec<_>>()
                    .join("; "),
                evidence,
                holds: values.windows(2).all(|w| w[0] < w[1]),
                unchecked: None,
                exact: false,
            }
        })
        .collect()
}
