//! The delay tables: `waits.csv` (the distribution of waiting and response times merged over
//! the replications, per (policy, point) that is a measurement) and `waits_by_size.csv` (mean
//! and p99 by size class).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::experiment::ExperimentError;
use crate::experiment::common::{F6, write_csv};
use crate::experiment::queueing::analysis::Outcome;
use crate::experiment::queueing::analysis::delay::{Estimate, merged};
use crate::experiment::queueing::{Experiment, SweepKind};

/// `waits.csv`: P(X > t) on a grid of about eight t per doubling.
#[derive(Serialize, Default)]
struct TailRow<'a> {
    policy: &'a str,
    load: F6,
    #[serde(skip_serializing_if = "Option::is_none")]
    fraction: Option<F6>,
    /// `wait` or `response`.
    quantity: &'static str,
    /// Jobs in the distribution (every replication's).
    jobs: u64,
    /// Slots.
    t: u64,
    /// P(X > t).
    ccdf: F6,
}

/// `waits_by_size.csv`: a row per (policy, point, size class).
#[derive(Serialize, Default)]
struct SizeRow<'a> {
    policy: &'a str,
    load: F6,
    #[serde(skip_serializing_if = "Option::is_none")]
    fraction: Option<F6>,
    /// The class, from 1 in increasing size.
    class: usize,
    /// Sizes above this (empty for the first class) …
    size_low: Option<F6>,
    /// … up to this.
    size_high: F6,
    jobs: u64,
    /// The class's share of the jobs measured.
    share: F6,
    mean_wait: F6,
    mean_wait_ci95_low: Option<F6>,
    mean_wait_ci95_high: Option<F6>,
    wait_p99: F6,
    wait_p99_ci95_low: Option<F6>,
    wait_p99_ci95_high: Option<F6>,
    mean_response: F6,
    mean_response_ci95_low: Option<F6>,
    mean_response_ci95_high: Option<F6>,
}

/// Writes `waits.csv` and `waits_by_size.csv` when some row has delays; returns the files.
pub(in crate::experiment::queueing) fn write(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    if out.summary.iter().all(|r| r.delay.is_none()) {
        return Ok(Vec::new());
    }
    let fraction =
        |point: usize| (exp.sweep == SweepKind::Fraction).then_some(F6(exp.points[point].key));
    let mut tails = Vec::new();
    let mut sizes = Vec::new();
    for r in &out.summary {
        let Some(d) = &r.delay else { continue };
        let policy = exp.labels[r.policy].as_str();
        let load = F6(exp.points[r.point].load);
        let runs: Vec<_> = out.runs_at(r.policy, r.point).collect();
        if let Some((wait, response)) = merged(&runs) {
            for (quantity, h) in [("wait", &wait), ("response", &response)] {
                for (t, p) in h.tail_on_grid() {
                    tails.push(TailRow {
                        policy,
                        load,
                        fraction: fraction(r.point),
                        quantity,
                        jobs: h.count(),
                        t,
                        ccdf: F6(p),
                    });
                }
            }
        }
        let ends = |e: &Estimate| (e.ci95.map(|c| F6(c.0)), e.ci95.map(|c| F6(c.1)));
        for (k, s) in d.by_size.iter().enumerate() {
            let (mw, p99w, mr) = (&s.wait.mean, &s.wait.quantiles[2], &s.response_mean);
            sizes.push(SizeRow {
                policy,
                load,
                fraction: fraction(r.point),
                class: k + 1,
                size_low: s.low.map(F6),
                size_high: F6(s.high),
                jobs: s.jobs,
                share: F6(s.jobs as f64 / d.jobs as f64),
                mean_wait: F6(mw.value),
                mean_wait_ci95_low: ends(mw).0,
                mean_wait_ci95_high: ends(mw).1,
                wait_p99: F6(p99w.value),
                wait_p99_ci95_low: ends(p99w).0,
                wait_p99_ci95_high: ends(p99w).1,
                mean_response: F6(mr.value),
                mean_response_ci95_low: ends(mr).0,
                mean_response_ci95_high: ends(mr).1,
            });
        }
    }
    Ok(vec![
        write_csv(dir.join("waits.csv"), &tails)?,
        write_csv(dir.join("waits_by_size.csv"), &sizes)?,
    ])
}
