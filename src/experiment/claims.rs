//! Claims written in an experiment file, checked after the run.
//!
//! - `expect = "stable" | "unstable"` for a policy at a sweep point holds when the majority
//!   verdict of its replications is the expected one (see [`crate::sim::verdict`]); an
//!   `inconclusive` majority does not hold.
//! - `kind = "threshold"`: the policy's stability limit, an interval [lower, upper] on the
//!   load from a noisy bisection ([`super::limit`]), as fractions of ρ*: `at_least = f` holds
//!   when lower ≥ f·ρ*_high (a load that high was shown stable); `at_most = f` when upper was
//!   shown unstable and upper ≤ f·ρ*_low.
//! - `kind = "saturation"` (FIFO-FF only): the saturated throughput's 95 % interval, as a
//!   load, overlaps the interval [lower, upper] found by bisection — two independent estimates
//!   of the same limit agree ([`crate::stability::saturation`]).
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
                search,
            } => {
                let t = out.threshold(*policy, search);
                let (f_lo, f_hi) = t.fractions();
                let mut holds = true;
                let mut expected = Vec::new();
                if let Some(a) = at_least {
                    holds &= f_lo >= *a;
                    expected.push(format!("≥ {a}"));
                }
                if let Some(b) = at_most {
                    holds &= t.upper_shown && f_hi <= *b;
                    expected.push(format!("≤ {b}"));
                }
                super::ClaimResult {
                    claim: format!(
                        "the stability limit of {} is {} of rho*",
                        exp.labels[*policy],
                        expected.join(" and ")
                    ),
                    expected: expected.join(" and "),
                    observed: format!("{f_lo:.4} .. {f_hi:.4}"),
                    evidence: format!(
                        "rho* in [{:.4}, {:.4}]; limit in load [{:.4}, {:.4}]: {}; {} probes, {} runs \
                         ({}); at_least compares the lower end, at_most the upper end shown \
                         unstable",
                        t.rho_star.0,
                        t.rho_star.1,
                        t.lower,
                        t.upper,
                        t.ends(),
                        t.probes.len(),
                        t.runs(),
                        probe_list(t)
                    ),
                    holds,
                }
            }
            ClaimSpec::Saturation { policy, search } => {
                let t = out.threshold(*policy, search);
                let s = out
                    .saturation
                    .iter()
                    .find(|s| s.0 == *policy)
                    .map(|s| s.1)
                    .expect("estimated before the claims");
                let per_load = exp.rate_per_load();
                let (lo, hi) = (s.ci95.0 / per_load, s.ci95.1 / per_load);
                let holds = lo <= t.upper && hi >= t.lower;
                super::ClaimResult {
                    claim: format!(
                        "the saturated throughput of {} agrees with its stability limit",
                        exp.labels[*policy]
                    ),
                    expected: format!("load in [{:.4}, {:.4}]", t.lower, t.upper),
                    observed: format!(
                        "load {:.4} [{lo:.4}, {hi:.4}]",
                        s.throughput / per_load
                    ),
                    evidence: format!(
                        "saturated FIFO-FF (a queue that never empties) serves {:.6} jobs/slot \
                         (95% CI {:.6} .. {:.6}, {} slots, decorrelation z {:.2}); by the \
                         saturation rule it is stable exactly below that rate. Interval from \
                         the noisy bisection: {}",
                        s.throughput,
                        s.ci95.0,
                        s.ci95.1,
                        s.slots,
                        s.z_vn,
                        t.ends()
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

/// The probes of a search, "load: decision (stable/unstable/inconclusive runs)".
fn probe_list(t: &super::limit::ThresholdResult) -> String {
    t.probes
        .iter()
        .map(|p| {
            format!(
                "{:.4}: {} ({}/{}/{})",
                p.load,
                p.decision.as_str(),
                p.counts[0],
                p.counts[1],
                p.counts[2]
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
