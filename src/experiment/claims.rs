//! Claims written in an experiment file, checked after the run.
//!
//! - `expect = "stable" | "unstable"` for a policy at a sweep point holds when the majority
//!   verdict of its replications is the expected one (see [`crate::sim::verdict`]); an
//!   `inconclusive` majority does not hold.
//! - `kind = "threshold"`: the policy's empirical stability limit (bisection on the load, see
//!   [`super::runner::threshold_search`]) as a fraction of ρ*: `at_least = f` holds when a load
//!   of at least f·ρ*_high was shown stable; `at_most = f` when a load of at most f·ρ*_low was
//!   shown unstable.
//! - `kind = "ranking"`: at a sweep point, the listed policies' mean queues increase in the
//!   listed order and every consecutive pair's 95 % intervals are disjoint.

use super::ClaimSpec;
use super::runner::Outcome;
use super::spec::{Experiment, SweepKind};

fn at(exp: &Experiment, point: usize) -> String {
    let p = exp.points[point];
    match exp.sweep {
        SweepKind::Load => format!("load {}", p.load),
        SweepKind::ArrivalRate => format!("arrival rate {}", p.arrival_rate),
        SweepKind::Fraction => format!("{} of rho* (load {:.4})", p.key, p.load),
        SweepKind::Scaling => format!("traffic scaling {} (load {:.4})", p.key, p.load),
    }
}

/// Checks every claim of `exp` against the outcome.
pub fn check(exp: &Experiment, out: &Outcome) -> Vec<super::ClaimResult> {
    exp.claims
        .iter()
        .map(|c| match c {
            ClaimSpec::Verdict {
                policy,
                point,
                expect,
            } => {
                let row = out.row(*policy, *point).expect("every point was run");
                let runs: Vec<_> = out
                    .runs
                    .iter()
                    .filter(|r| r.policy == *policy && r.point == *point)
                    .collect();
                let count = runs.iter().filter(|r| r.verdict == row.verdict).count();
                let first = runs.first().expect("at least one replication");
                super::ClaimResult {
                    claim: format!("{} is {expect} at {}", exp.labels[*policy], at(exp, *point)),
                    expected: expect.to_string(),
                    observed: row.verdict.to_string(),
                    evidence: format!(
                        "{count}/{} replications {}; mean queue {:.3}; replication 0: {}",
                        runs.len(),
                        row.verdict,
                        row.mean_queue,
                        first.evidence
                    ),
                    holds: row.verdict == *expect,
                }
            }
            ClaimSpec::Threshold {
                policy,
                at_least,
                at_most,
                steps,
            } => {
                let t = out
                    .thresholds
                    .iter()
                    .find(|t| t.policy == *policy && t.probes.len() == *steps as usize)
                    .expect("searched before the claims");
                let (f_lo, f_hi) = t.fractions();
                let mut holds = true;
                let mut expected = Vec::new();
                if let Some(a) = at_least {
                    holds &= f_lo >= *a;
                    expected.push(format!("≥ {a}"));
                }
                if let Some(b) = at_most {
                    holds &= t.upper_shown_unstable && f_hi <= *b;
                    expected.push(format!("≤ {b}"));
                }
                let probes: Vec<String> = t
                    .probes
                    .iter()
                    .map(|p| {
                        format!(
                            "{:.4}: {} ({}/{}/{})",
                            p.load, p.verdict, p.counts[0], p.counts[1], p.counts[2]
                        )
                    })
                    .collect();
                super::ClaimResult {
                    claim: format!(
                        "the stability limit of {} is {} of rho*",
                        exp.labels[*policy],
                        expected.join(" and ")
                    ),
                    expected: expected.join(" and "),
                    observed: format!("{f_lo:.4} .. {f_hi:.4}"),
                    evidence: format!(
                        "rho* in [{:.4}, {:.4}]; stable up to load {:.4}, {} from {:.4}; probes \
                         (stable/unstable/inconclusive): {}",
                        t.rho_star.0,
                        t.rho_star.1,
                        t.stable_load,
                        if t.upper_shown_unstable {
                            "unstable"
                        } else {
                            "not shown stable"
                        },
                        t.upper_load,
                        probes.join("; ")
                    ),
                    holds,
                }
            }
            ClaimSpec::Ranking {
                order,
                point,
                paired,
            } => {
                let rows: Vec<_> = order
                    .iter()
                    .map(|&p| out.row(p, *point).expect("every point was run"))
                    .collect();
                // one window of a replayed trace: no sampling noise, values compared exactly
                let exact = exp.trace.is_some() && exp.run.replications == 1;
                let mut holds = true;
                let mut diffs = Vec::new();
                for (w, pair) in rows.windows(2).zip(order.windows(2)) {
                    if exact {
                        holds &= w[0].mean_queue < w[1].mean_queue;
                    } else if *paired {
                        // common random numbers: the interval of the per-replication differences
                        let q = |p: usize| {
                            let mut v: Vec<(u32, f64)> = out
                                .runs
                                .iter()
                                .filter(|r| r.policy == p && r.point == *point)
                                .map(|r| (r.replication, r.result.mean_queue))
                                .collect();
                            v.sort_by_key(|x| x.0);
                            v
                        };
                        let d: Vec<f64> = q(pair[0])
                            .iter()
                            .zip(q(pair[1]))
                            .map(|(a, b)| a.1 - b.1)
                            .collect();
                        let (m, ci) = super::runner::mean_ci(&d);
                        holds &= ci.is_some_and(|(_, hi)| hi < 0.0);
                        diffs.push(match ci {
                            Some((lo, hi)) => format!("{m:.3} [{lo:.3}, {hi:.3}]"),
                            None => format!("{m:.3} (no interval)"),
                        });
                    } else {
                        match (w[0].ci95, w[1].ci95) {
                            (Some((_, hi)), Some((lo, _))) => holds &= hi < lo,
                            _ => holds = false,
                        }
                    }
                }
                let labels: Vec<&str> = order.iter().map(|&p| exp.labels[p].as_str()).collect();
                let observed: Vec<String> = rows
                    .iter()
                    .zip(&labels)
                    .map(|(r, l)| match r.ci95 {
                        Some((a, b)) => format!("{l} {:.3} [{a:.3}, {b:.3}]", r.mean_queue),
                        None if exact => format!("{l} {:.3}", r.mean_queue),
                        None => format!("{l} {:.3} (no interval: one replication)", r.mean_queue),
                    })
                    .collect();
                super::ClaimResult {
                    claim: format!(
                        "mean queue ranks {} at {}",
                        labels.join(" < "),
                        at(exp, *point)
                    ),
                    expected: labels.join(" < "),
                    observed: if diffs.is_empty() {
                        observed.join("; ")
                    } else {
                        format!(
                            "{}; paired differences {}",
                            observed.join("; "),
                            diffs.join(", ")
                        )
                    },
                    evidence: if exact {
                        "one deterministic replay of the trace window: means compared exactly \
                         (no sampling noise; says nothing beyond this trace)"
                            .into()
                    } else if *paired {
                        "95% Student-t interval of the per-replication differences of \
                         consecutive policies (common random numbers / same windows) must lie \
                         below 0"
                            .into()
                    } else {
                        "95% Student-t intervals over replications must be disjoint".into()
                    },
                    holds,
                }
            }
        })
        .collect()
}
