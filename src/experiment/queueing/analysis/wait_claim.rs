//! `wait` claims: a statistic of a policy's waiting or response time at a sweep point against
//! numbers of slots, or below another policy's on the same jobs.

use super::delay::{estimate, of_run};
use super::outcome::Outcome;
use super::stats::mean_ci;
use crate::experiment::common::ClaimResult;
use crate::experiment::queueing::{DelayQuantity, Experiment, Statistic};

/// A `wait` claim: the statistic `what` of `policy`'s delay at `point` against `at_most` /
/// `at_least` slots (its 95 % interval's ends) and below `below`'s (the per-replication
/// differences' 95 % Student-t interval below 0: the same jobs for both policies).
pub(super) fn claim(
    exp: &Experiment,
    out: &Outcome,
    (policy, point): (usize, usize),
    what: (Statistic, DelayQuantity),
    (at_most, at_least, below): (Option<f64>, Option<f64>, Option<usize>),
) -> ClaimResult {
    let name = format!("{} {}", what.0.name(), what.1.as_str());
    let mut parts = Vec::new();
    if let Some(v) = at_most {
        parts.push(format!("at most {v} slots"));
    }
    if let Some(v) = at_least {
        parts.push(format!("at least {v} slots"));
    }
    if let Some(b) = below {
        parts.push(format!("below {}'s", exp.labels[b]));
    }
    let expected = parts.join(" and ");
    let claim = format!(
        "{}'s {name} at {} is {expected}",
        exp.labels[policy],
        exp.claim_point_words(point)
    );
    // only rows that are measurements have delays
    let mut rows = vec![policy];
    rows.extend(below);
    let mut not = Vec::new();
    for &p in &rows {
        match out.row(p, point) {
            Some(r) if r.delay.is_some() => {}
            Some(r) => not.push(format!("{} ({})", exp.labels[p], r.delay_words())),
            None => not.push(format!("{} (no runs)", exp.labels[p])),
        }
    }
    if !not.is_empty() {
        return ClaimResult::not_checked(
            claim,
            expected,
            &format!(
                "a delay is a measurement only where every run was judged stable, and here it is \
                 not for {}",
                not.join(", ")
            ),
        );
    }
    if exp.run.replications < 2 {
        return ClaimResult::not_checked(
            claim,
            expected,
            "one replication: no interval to compare",
        );
    }
    let d = out
        .row(policy, point)
        .and_then(|r| r.delay.as_ref())
        .expect("checked");
    let e = estimate(d, what);
    let mut holds = true;
    let (lo, hi) = e.ci95.unwrap_or((e.value, e.value));
    if let Some(v) = at_most {
        holds &= hi <= v;
    }
    if let Some(v) = at_least {
        holds &= lo >= v;
    }
    let mut observed = format!("{} {:.3} [{lo:.3}, {hi:.3}]", exp.labels[policy], e.value);
    if let Some(b) = below {
        let per = |p: usize| {
            let mut v: Vec<(u32, f64)> = out
                .runs_at(p, point)
                .map(|r| (r.replication, of_run(r, what)))
                .collect();
            v.sort_by_key(|x| x.0);
            v
        };
        let diffs: Vec<f64> = per(policy)
            .iter()
            .zip(per(b))
            .map(|(x, y)| x.1 - y.1)
            .collect();
        let (m, ci) = mean_ci(&diffs);
        holds &= ci.is_some_and(|(_, hi)| hi < 0.0);
        let other = out
            .row(b, point)
            .and_then(|r| r.delay.as_ref())
            .map(|d| estimate(d, what))
            .expect("checked");
        observed.push_str(&format!(
            "; {} {:.3}; paired difference {m:.3}{}",
            exp.labels[b],
            other.value,
            ci.map_or(String::new(), |(a, z)| format!(" [{a:.3}, {z:.3}]"))
        ));
    }
    ClaimResult {
        claim,
        expected,
        observed,
        evidence: format!(
            "{}, slots{}",
            match what.0 {
                Statistic::Mean => format!(
                    "95 % Student-t intervals over {} replications of each run's {name}",
                    exp.run.replications
                ),
                Statistic::Quantile(_) => format!(
                    "the {name} of {} replications pooled, with its 95 % interval from their \
                     distribution functions",
                    exp.run.replications
                ),
            },
            if below.is_some() {
                "; the difference of each run's statistic, paired by replication (the same jobs \
                 for both policies)"
            } else {
                ""
            }
        ),
        holds,
        unchecked: None,
        exact: false,
    }
}
