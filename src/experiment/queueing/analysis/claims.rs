//! Claims written in an experiment file, checked after the run.
//!
//! - `expect = "stable" | "unstable"` for a policy at a sweep point holds when the majority
//!   verdict of its replications is the expected one (see [`crate::sim::verdict`]); an
//!   `inconclusive` majority does not hold.
//! - `kind = "threshold"`: the policy's stability limit, an interval [lower, upper] on the
//!   load from a noisy bisection ([`super::limit`]), as fractions of ρ*: `at_least = f` holds
//!   when lower ≥ f·ρ*_high (a load that high was shown stable); `at_most = f` when upper was
//!   shown unstable and upper ≤ f·ρ*_low.
//! - `kind = "saturation"` (a policy serving in arrival order): the saturated throughput's 95 % interval, as a
//!   load, overlaps the interval [lower, upper] found by bisection — two independent estimates
//!   of the same limit agree ([`crate::stability::saturation`]).
//! - `kind = "limit-order"`: the listed policies' limits are separated in that order: each
//!   one's upper end was shown unstable at a load no higher than the next one's lower end.
//! - `kind = "ranking"`: at a sweep point, the listed policies' mean queues increase in the
//!   listed order and every consecutive pair's 95 % intervals are disjoint.
//! - `kind = "wait"`: a statistic (the mean or a quantile) of a policy's waiting or response
//!   time at a sweep point: its 95 % interval at most `at_most` / at least `at_least` slots,
//!   or below another policy's, paired by replication on common random numbers
//!   ([`super::delay`]); not checked where a row is not a measurement.
//! - `kind = "delay-trend"` (with `[constraints]`): at a sweep point, the policy's normalised
//!   scheduling delay per constraint increases with the constraint's u*_c: Kendall's τ_b over
//!   the constraints some job requested is at least `at_least`.
//! - `kind = "synthesis-error"` (with `[constraints] resynthesise`): the synthesis validation
//!   (Sharma et al.'s comparison of a ground truth with its re-synthesis) has a mean absolute
//!   relative error of the mean wait of at most `at_most` over its rows, and no re-synthesised
//!   cluster failed to carry a load its ground truth carried.
//! - `kind = "region-fraction"` (with `[region_map]`): along every listed ray, the policy's
//!   lower end is at least `at_least` of the exact capacity along it, and/or its upper end was
//!   shown unstable at most at `at_most` of it.
//! - `kind = "region-separated"` (with `[region_map]`): along every listed ray, the first
//!   policy's upper end was shown unstable at a load no higher than the second's lower end,
//!   shown stable.

use super::outcome::Outcome;
use super::stats::mean_ci;
use crate::experiment::common::ClaimResult;
use crate::experiment::queueing::SearchSpec;
use crate::experiment::queueing::{ClaimSpec, Experiment};
use crate::sim::Verdict;
use crate::stability::search::Limit;

/// Checks every claim of `exp` against the outcome.
pub(in crate::experiment::queueing) fn check(exp: &Experiment, out: &Outcome) -> Vec<ClaimResult> {
    exp.claims
        .iter()
        .map(|c| match c {
            ClaimSpec::Verdict {
                policy,
                point,
                expect,
            } => verdict(exp, out, *policy, *point, *expect),
            ClaimSpec::Threshold {
                policy,
                at_least,
                at_most,
                search,
            } => threshold(exp, out, *policy, *at_least, *at_most, search),
            ClaimSpec::Saturation { policy, search } => saturation(exp, out, *policy, search),
            ClaimSpec::Ranking {
                order,
                point,
                paired,
            } => ranking(exp, out, order, *point, *paired),
            ClaimSpec::LimitOrder { order, search } => limit_order(exp, out, order, search),
            ClaimSpec::Wait {
                policy,
                point,
                statistic,
                quantity,
                at_most,
                at_least,
                below,
            } => super::wait_claim::claim(
                exp,
                out,
                (*policy, *point),
                (*statistic, *quantity),
                (*at_most, *at_least, *below),
            ),
            ClaimSpec::DelayTrend {
                policy,
                point,
                at_least,
                paper,
            } => delay_trend(exp, out, (*policy, *point), *at_least, *paper),
            ClaimSpec::SynthesisError { at_most } => synthesis_error(exp, out, *at_most),
            ClaimSpec::RegionFraction {
                policy,
                at_least,
                at_most,
                rays,
            } => super::region_map::fraction(exp, &out.map, *policy, (*at_least, *at_most), rays),
            ClaimSpec::RegionBoundary {
                policy,
                boundary,
                rays,
            } => super::region_map::boundary(exp, &out.map, *policy, *boundary, rays),
            ClaimSpec::RegionSeparated { order, rays } => {
                super::region_map::separated(exp, &out.map, *order, rays)
            }
        })
        .collect()
}

/// A claim that could not be checked because what it needs was not computed (a bug).
fn missing(claim: String, what: &str) -> ClaimResult {
    ClaimResult {
        claim,
        expected: String::new(),
        observed: "not computed".into(),
        evidence: format!("{what} is missing from the outcome (this is a bug in packlab)"),
        holds: false,
        unchecked: None,
        exact: false,
    }
}

fn delay_trend(
    exp: &Experiment,
    out: &Outcome,
    (policy, point): (usize, usize),
    at_least: f64,
    paper: bool,
) -> ClaimResult {
    // Sharma et al.'s quantity, or ours
    let what = if paper {
        "normalised delay"
    } else {
        "delay over all jobs' delay"
    };
    let claim = format!(
        "{}'s {what} grows with u*_c at {} (Kendall's tau)",
        exp.labels[policy],
        exp.claim_point_words(point)
    );
    if exp.constraints.is_none() {
        return missing(claim, "the constraints");
    }
    let pairs = super::constraints::trend(&out.delays, policy, point, paper);
    let tau = super::kendall_tau(&pairs);
    // delays are measurements only where the policy is stable
    let verdict = out
        .delays
        .iter()
        .find(|d| d.policy == policy && d.point == point)
        .map_or(crate::sim::Verdict::Inconclusive, |d| d.verdict);
    let top = pairs.iter().copied().fold((f64::NAN, f64::NAN), |a, p| {
        if a.0.is_nan() || p.0 > a.0 { p } else { a }
    });
    ClaimResult {
        claim,
        expected: format!("tau >= {at_least}"),
        observed: format!("tau = {tau:.4}"),
        evidence: format!(
            "{} constraints requested; the largest u*_c = {:.4} has {what} {:.4}; \
             the policy is {verdict} there",
            pairs.len(),
            top.0,
            top.1
        ),
        holds: pairs.len() >= 2 && tau >= at_least && verdict == crate::sim::Verdict::Stable,
        unchecked: None,
        exact: false,
    }
}

fn synthesis_error(exp: &Experiment, out: &Outcome, at_most: f64) -> ClaimResult {
    let claim = format!(
        "a re-synthesis reproduces the mean wait within {:.1} % on average (error of individual re-syntheses)",
        100.0 * at_most
    );
    if exp.constraints.is_none() {
        return missing(claim, "the constraints");
    }
    let rows = &out.validations;
    let failed: usize = rows.iter().map(|v| v.synthetic_not_stable).sum();
    let pairs: usize = rows.iter().map(|v| v.replications).sum();
    let mean = super::constraints::mean_abs_errors(rows);
    let (observed, evidence) = match mean {
        Some(e) => (
            format!("{:.1} %", 100.0 * e.wait_individual),
            format!(
                "over {} rows ({pairs} paired replications); error of the mean over re-syntheses (bias) {:.1} %; utilisation {:.2} %; {failed} re-synthesised runs not stable where the ground truth was",
                e.rows,
                100.0 * e.wait_of_mean,
                100.0 * e.utilization
            ),
        ),
        None => (
            "no row".into(),
            "no policy and load with a stable ground truth".into(),
        ),
    };
    ClaimResult {
        claim,
        expected: format!("<= {:.1} % and every re-synthesis stable", 100.0 * at_most),
        observed,
        evidence,
        holds: failed == 0 && mean.is_some_and(|e| e.wait_individual <= at_most),
        unchecked: None,
        exact: false,
    }
}

fn verdict(
    exp: &Experiment,
    out: &Outcome,
    policy: usize,
    point: usize,
    expect: Verdict,
) -> ClaimResult {
    let claim = format!(
        "{} is {expect} at {}",
        exp.labels[policy],
        exp.claim_point_words(point)
    );
    let Some(row) = out.row(policy, point) else {
        return missing(claim, "the summary row");
    };
    let runs: Vec<_> = out.runs_at(policy, point).collect();
    let count = runs.iter().filter(|r| r.verdict == row.verdict).count();
    let first = runs
        .first()
        .map_or(String::new(), |r| r.evidence.to_string());
    ClaimResult {
        claim,
        expected: expect.to_string(),
        observed: row.verdict.to_string(),
        evidence: format!(
            "{count}/{} replications {}; {}; replication 0: {first}",
            runs.len(),
            row.verdict,
            if row.measured() {
                format!("mean queue {:.3}", row.mean_queue)
            } else if row.verdict == Verdict::Stable {
                format!(
                    "mean queue {:.3} over its {} stable runs",
                    row.mean_queue, row.pooled
                )
            } else {
                format!("net queue growth {:.3e} jobs/slot", row.growth)
            },
        ),
        holds: row.verdict == expect,
        unchecked: None,
        exact: false,
    }
}

fn limit_order(
    exp: &Experiment,
    out: &Outcome,
    order: &[usize],
    search: &SearchSpec,
) -> ClaimResult {
    let names: Vec<&str> = order.iter().map(|&p| exp.labels[p].as_str()).collect();
    let claim = format!(
        "the stability limits are ordered {} (separated intervals)",
        names.join(" < ")
    );
    let mut found = Vec::new();
    for &p in order {
        match out.threshold(p, search) {
            Some(t) => found.push(t),
            None => return missing(claim, "a limit search"),
        }
    }
    let holds = found
        .windows(2)
        .all(|w| w[0].upper_shown && w[0].upper <= w[1].lower);
    let observed: Vec<String> = found
        .iter()
        .zip(&names)
        .map(|(t, n)| {
            format!(
                "{n} [{:.4}, {:.4}{}]",
                t.lower,
                t.upper,
                if t.upper_shown { "" } else { " (not shown)" }
            )
        })
        .collect();
    ClaimResult {
        claim,
        expected: "each upper end shown unstable at or below the next lower end".into(),
        observed: observed.join(", "),
        evidence: format!(
            "limits in load (lower shown stable, upper shown unstable); {} runs in all",
            found.iter().map(|t| t.runs()).sum::<usize>()
        ),
        holds,
        unchecked: None,
        exact: false,
    }
}

fn threshold(
    exp: &Experiment,
    out: &Outcome,
    policy: usize,
    at_least: Option<f64>,
    at_most: Option<f64>,
    search: &SearchSpec,
) -> ClaimResult {
    let mut expected = Vec::new();
    if let Some(a) = at_least {
        expected.push(format!("≥ {a}"));
    }
    if let Some(b) = at_most {
        expected.push(format!("≤ {b}"));
    }
    let claim = format!(
        "the stability limit of {} is {} of rho*",
        exp.labels[policy],
        expected.join(" and ")
    );
    let Some(t) = out.threshold(policy, search) else {
        return missing(claim, "the limit search");
    };
    let (f_lo, f_hi) = t.fractions();
    let holds =
        at_least.is_none_or(|a| f_lo >= a) && at_most.is_none_or(|b| t.upper_shown && f_hi <= b);
    ClaimResult {
        claim,
        expected: expected.join(" and "),
        observed: format!("{f_lo:.4} .. {f_hi:.4}"),
        evidence: format!(
            "rho* in [{:.4}, {:.4}]; limit in load [{:.4}, {:.4}]: {}; {} probes, {} runs ({}); \
             at_least compares the lower end, at_most the upper end shown unstable",
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
        unchecked: None,
        exact: false,
    }
}

fn saturation(exp: &Experiment, out: &Outcome, policy: usize, search: &SearchSpec) -> ClaimResult {
    let claim = format!(
        "the saturated throughput of {} agrees with its stability limit",
        exp.labels[policy]
    );
    let (Some(t), Some(s)) = (out.threshold(policy, search), out.saturation_of(policy)) else {
        return missing(claim, "the limit search or the saturation estimate");
    };
    let per_load = exp.rate_per_load();
    let (lo, hi) = (s.ci95.0 / per_load, s.ci95.1 / per_load);
    ClaimResult {
        claim,
        expected: format!("load in [{:.4}, {:.4}]", t.lower, t.upper),
        observed: format!("load {:.4} [{lo:.4}, {hi:.4}]", s.throughput / per_load),
        evidence: format!(
            "{} saturated (a queue that never empties, served by {} itself) serves {:.6} \
             jobs/slot (95% CI {:.6} .. {:.6}, {} slots, decorrelation z {:.2}); by the \
             saturation rule it is stable exactly below that rate. Interval from the noisy \
             bisection: {}",
            exp.labels[policy],
            exp.labels[policy],
            s.throughput,
            s.ci95.0,
            s.ci95.1,
            s.slots,
            s.z_vn,
            t.ends()
        ),
        holds: lo <= t.upper && hi >= t.lower,
        unchecked: None,
        exact: false,
    }
}

/// The per-replication differences of the mean queues of policies `a` and `b` at `point`.
fn paired_differences(out: &Outcome, a: usize, b: usize, point: usize) -> Vec<f64> {
    let q = |p: usize| {
        let mut v: Vec<(u32, f64)> = out
            .runs_at(p, point)
            .map(|r| (r.replication, r.result.mean_queue))
            .collect();
        v.sort_by_key(|x| x.0);
        v
    };
    q(a).iter().zip(q(b)).map(|(x, y)| x.1 - y.1).collect()
}

fn ranking(
    exp: &Experiment,
    out: &Outcome,
    order: &[usize],
    point: usize,
    paired: bool,
) -> ClaimResult {
    let labels: Vec<&str> = order.iter().map(|&p| exp.labels[p].as_str()).collect();
    let claim = format!(
        "mean queue ranks {} at {}",
        labels.join(" < "),
        exp.claim_point_words(point)
    );
    let Some(rows) = order
        .iter()
        .map(|&p| out.row(p, point))
        .collect::<Option<Vec<_>>>()
    else {
        return missing(claim, "a summary row");
    };
    // one window of a replayed trace: no sampling noise, values compared exactly
    let exact = exp.workload.trace().is_some() && exp.run.replications == 1;
    if !exact && exp.run.replications < 2 {
        // only under --quick: validation refuses a ranking with one replication otherwise
        return ClaimResult::not_checked(
            claim,
            "increasing, 95 % intervals disjoint".into(),
            "one replication (--quick): a ranking compares intervals over at least two",
        );
    }
    // a mean queue is compared only where it is a measurement: every run judged stable
    let unmeasured: Vec<String> = rows
        .iter()
        .zip(&labels)
        .filter(|(r, _)| !r.measured())
        .map(|(r, l)| {
            let [s, u, i] = r.verdict_counts;
            format!("{l} ({s}/{u}/{i} runs stable/unstable/inconclusive)")
        })
        .collect();
    if !unmeasured.is_empty() {
        return ClaimResult::not_checked(
            claim,
            labels.join(" < "),
            &format!(
                "a mean queue is a measurement only where every run was judged stable, and \
                 here it is not for {}",
                unmeasured.join(", ")
            ),
        );
    }
    let mut holds = true;
    let mut diffs = Vec::new();
    for (w, pair) in rows.windows(2).zip(order.windows(2)) {
        if exact {
            holds &= w[0].mean_queue < w[1].mean_queue;
        } else if paired {
            // common random numbers: the interval of the per-replication differences
            let (m, ci) = mean_ci(&paired_differences(out, pair[0], pair[1], point));
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
    let observed: Vec<String> = rows
        .iter()
        .zip(&labels)
        .map(|(r, l)| match r.ci95 {
            Some((a, b)) => format!("{l} {:.3} [{a:.3}, {b:.3}]", r.mean_queue),
            None if exact => format!("{l} {:.3}", r.mean_queue),
            None => format!("{l} {:.3} (no interval: one replication)", r.mean_queue),
        })
        .collect();
    ClaimResult {
        claim,
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
            "one deterministic replay of the trace window: means compared exactly (no sampling \
             noise; says nothing beyond this trace)"
                .into()
        } else if paired {
            "95% Student-t interval of the per-replication differences of consecutive policies \
             (common random numbers / same windows) must lie below 0"
                .into()
        } else {
            "95% Student-t intervals over replications must be disjoint".into()
        },
        holds,
        unchecked: None,
        exact: false,
    }
}

/// The probes of a search, "load: decision (stable/unstable/inconclusive runs)", after its
/// pilot's guess if it ran one.
fn probe_list(t: &Limit) -> String {
    let pilot = t.pilot.as_ref().and_then(|p| {
        p.sustained
            .map(|g| format!("pilot at {:.4}: sustained {g:.4}", p.load))
    });
    pilot
        .into_iter()
        .chain(t.probes.iter().map(|p| {
            format!(
                "{:.4}: {} ({}/{}/{})",
                p.load,
                p.decided_as(),
                p.counts[0],
                p.counts[1],
                p.counts[2]
            )
        }))
        .collect::<Vec<_>>()
        .join("; ")
}
