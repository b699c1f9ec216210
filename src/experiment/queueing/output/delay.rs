//! The delay tables: `waits.csv` (the distribution of waiting and response times merged over
//! the replications, per (policy, point) that is a measurement) and `waits_by_size.csv` (mean
//! and p99 by size class).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::experiment::ExperimentError;
use crate::experiment::common::{F6, Record, write_csv, write_records};
use crate::experiment::queueing::analysis::Outcome;
use crate::experiment::queueing::analysis::delay::{SizeDelay, merged};
use crate::experiment::queueing::{BY_SIZE, Experiment, SweepKind};

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

/// `waits_by_size.csv`'s row of (policy, point, size class): the class (from 1 in increasing
/// size), its sizes (above `size_low`, none for the first, up to `size_high`), its jobs and their
/// share of the row's `jobs`, and each statistic of [`BY_SIZE`] with its 95 % interval.
fn size_row(
    (policy, load, fraction): (&str, F6, Option<F6>),
    (k, s): (usize, &SizeDelay),
    jobs: u64,
) -> Record {
    let mut row = Record::default();
    row.cell("policy", policy)
        .cell("load", load)
        .column_if("fraction", fraction)
        .cell("class", k + 1)
        .maybe("size_low", s.low.map(F6))
        .cell("size_high", F6(s.high))
        .cell("jobs", s.jobs)
        .cell("share", F6(s.jobs as f64 / jobs as f64));
    for what in BY_SIZE {
        let e = s.estimate(what).expect("kept by size");
        let column = what.1.column(what.0);
        row.cell(column.clone(), F6(e.value))
            .maybe(format!("{column}_ci95_low"), e.ci95.map(|c| F6(c.0)))
            .maybe(format!("{column}_ci95_high"), e.ci95.map(|c| F6(c.1)));
    }
    row
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
        for (k, s) in d.by_size.iter().enumerate() {
            sizes.push(size_row((policy, load, fraction(r.point)), (k, s), d.jobs));
        }
    }
    Ok(vec![
        write_csv(dir.join("waits.csv"), &tails)?,
        write_records(
            dir.join("waits_by_size.csv"),
            &sizes,
            &size_row(("", F6(0.0), fraction(0)), (0, &SizeDelay::default()), 1),
        )?,
    ])
}
