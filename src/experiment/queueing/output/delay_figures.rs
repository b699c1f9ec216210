//! The delay figures: the tail P(X > t) of the waiting or response time per policy at a point,
//! a statistic of it against the sweep, and its mean and p99 by job size. Only rows that are
//! measurements (every run judged stable) are drawn; the others are named as such.

use super::axes::{title_of, x_label, x_of};
use crate::experiment::queueing::analysis::delay::{DelayStats, Estimate, estimate, merged};
use crate::experiment::queueing::analysis::{Outcome, SummaryRow};
use crate::experiment::queueing::{BY_SIZE, DelayQuantity, Experiment, Statistic};
use crate::plot::{Chart, Series, XTicks, spans_decades};

/// The point's value in the sweep's own unit, for notes.
fn at(exp: &Experiment, point: usize) -> String {
    exp.point_words(point)
}

/// A policy's label, with why it has no curve when its row is not a measurement.
fn label(exp: &Experiment, row: Option<&SummaryRow>, p: usize) -> String {
    match row {
        Some(r) if r.delay.is_some() => exp.labels[p].clone(),
        Some(r) => format!("{}: no delays ({})", exp.labels[p], r.delay_words()),
        None => format!("{}: no runs", exp.labels[p]),
    }
}

fn noun(q: DelayQuantity) -> &'static str {
    match q {
        DelayQuantity::Wait => "waiting time",
        DelayQuantity::Response => "response time",
    }
}

/// P(X > t) against t on log axes (t ≥ 1 slot, x as log₂ t), a curve per policy, over every
/// job placed after warm-up in every replication.
pub(super) fn ccdf_chart(
    exp: &Experiment,
    out: &Outcome,
    point: usize,
    quantity: DelayQuantity,
    title: &Option<String>,
) -> Chart {
    let mut waited = Vec::new();
    let series = (0..exp.policies.len())
        .map(|p| {
            let row = out.row(p, point);
            let runs: Vec<_> = out.runs_at(p, point).collect();
            let tail = row
                .filter(|r| r.delay.is_some())
                .and_then(|_| merged(&runs))
                .map(|(wait, response)| match quantity {
                    DelayQuantity::Wait => wait,
                    DelayQuantity::Response => response,
                });
            let points = tail
                .as_ref()
                .map(|h| {
                    let grid = h.tail_on_grid();
                    if let Some(&(0, p0)) = grid.first() {
                        waited.push(format!("{} {:.3}", exp.labels[p], p0));
                    }
                    grid.into_iter()
                        .filter(|&(t, p)| t >= 1 && p > 0.0)
                        .map(|(t, p)| ((t as f64).log2(), p))
                        .collect()
                })
                .unwrap_or_default();
            Series {
                label: label(exp, row, p),
                colour: exp.colours[p],
                points,
                ..Default::default()
            }
        })
        .collect();
    let symbol = match quantity {
        DelayQuantity::Wait => "W",
        DelayQuantity::Response => "R",
    };
    let note = format!(
        "{}; every job placed after warm-up, all replications merged; t from 1 slot{}",
        at(exp, point),
        if waited.is_empty() || quantity == DelayQuantity::Response {
            String::new()
        } else {
            format!(
                "; P(W > 0), the share that waits at all: {}",
                waited.join(", ")
            )
        }
    );
    Chart {
        title: title_of(exp, title, &format!("Tail of the {}", noun(quantity))),
        note: Some(note),
        x_label: "t (slots)".into(),
        y_label: format!("P({symbol} > t)"),
        series,
        markers: false,
        log_y: true,
        x_ticks: XTicks::PowersOfTwo,
        ..Default::default()
    }
}

/// A statistic of the waiting or response time against the sweep variable, a curve per policy
/// with 95 % intervals over replications; rows that are not measurements are hollow markers
/// on the top edge.
pub(super) fn quantile_chart(
    exp: &Experiment,
    out: &Outcome,
    (statistic, quantity): (Statistic, DelayQuantity),
    title: &Option<String>,
    log_y: Option<bool>,
) -> Chart {
    let series: Vec<Series> = (0..exp.policies.len())
        .map(|p| {
            let rows: Vec<_> = out.summary.iter().filter(|r| r.policy == p).collect();
            let (kept, off): (Vec<&SummaryRow>, Vec<&SummaryRow>) =
                rows.iter().partition(|r| r.delay.is_some());
            let est: Vec<(usize, Estimate)> = kept
                .iter()
                .map(|r| {
                    let d = r.delay.as_ref().expect("kept");
                    (r.point, estimate(d, (statistic, quantity)))
                })
                .collect();
            Series {
                label: exp.labels[p].clone(),
                colour: exp.colours[p],
                points: est
                    .iter()
                    .map(|(pt, e)| (x_of(exp, *pt), e.value))
                    .collect(),
                bars: Some(
                    est.iter()
                        .map(|(_, e)| e.ci95.unwrap_or((e.value, e.value)))
                        .collect(),
                ),
                off: off.iter().map(|r| x_of(exp, r.point)).collect(),
                ..Default::default()
            }
        })
        .collect();
    let log_y = log_y.unwrap_or_else(|| spans_decades(&series, 2.0));
    let what = format!("{} {}", statistic.name(), noun(quantity));
    Chart {
        title: title_of(
            exp,
            title,
            &format!("{} ({})", capitalised(noun(quantity)), statistic.name()),
        ),
        note: Some(format!(
            "{}, with 95 % intervals; a point only where every run was judged stable",
            match statistic {
                Statistic::Mean => format!(
                    "Mean over {} replications of each run's mean",
                    exp.run.replications
                ),
                Statistic::Quantile(_) => format!(
                    "The {} of every job of {} replications pooled",
                    statistic.name(),
                    exp.run.replications
                ),
            }
        )),
        x_label: x_label(exp).into(),
        y_label: format!("{what} (slots)"),
        series,
        markers: true,
        log_y,
        ..Default::default()
    }
}

/// Whether the size classes of `exp` are the law's own sizes (at most
/// [`crate::workload::ATOM_CLASSES`] of a law that is not uniform).
fn atoms(exp: &Experiment) -> bool {
    exp.wait_classes.0.bounds().len() <= crate::workload::ATOM_CLASSES
        && !matches!(
            exp.workload.sizes(),
            crate::workload::SizeLaw::Uniform { .. }
        )
}

/// The mean (a line, or squares for discrete sizes and job classes) and p99 (dots) of the
/// waiting time against job size per policy at one point: a size class per point, drawn at its
/// largest size.
pub(super) fn by_size_chart(
    exp: &Experiment,
    out: &Outcome,
    point: usize,
    (title, log_y): (&Option<String>, Option<bool>),
) -> Chart {
    let quantity = DelayQuantity::Wait;
    let discrete = exp.wait_classes.0.is_by_kind() || atoms(exp);
    let mut series = Vec::new();
    for p in 0..exp.policies.len() {
        let row = out.row(p, point);
        let classes = row
            .and_then(|r| r.delay.as_ref())
            .map(|d| d.by_size.as_slice())
            .unwrap_or_default();
        let of = |f: &dyn Fn(&DelayStats) -> Estimate| -> Vec<(f64, f64)> {
            classes.iter().map(|c| (c.high, f(&c.wait).value)).collect()
        };
        // discrete sizes (or job classes) are points: no line suggests sizes between them
        series.push(Series {
            label: if classes.is_empty() {
                label(exp, row, p)
            } else if discrete {
                format!("{} mean (squares)", exp.labels[p])
            } else {
                format!("{} mean", exp.labels[p])
            },
            colour: exp.colours[p],
            points: of(&|s| s.mean),
            points_only: discrete && !classes.is_empty(),
            squares: discrete && !classes.is_empty(),
            ..Default::default()
        });
        if !classes.is_empty() {
            // the wait's quantile kept by size (BY_SIZE)
            let q = BY_SIZE[1].1;
            series.push(Series {
                label: format!("{} {} (dots)", exp.labels[p], q.name()),
                colour: exp.colours[p],
                points: of(&|s| s.of(q)),
                points_only: true,
                ..Default::default()
            });
        }
    }
    let log_y = log_y.unwrap_or_else(|| spans_decades(&series, 2.0));
    let atoms = atoms(exp);
    Chart {
        title: title_of(
            exp,
            title,
            &capitalised(&format!("{} by job size", noun(quantity))),
        ),
        note: Some(format!(
            "{}; {}; the mean averaged over replications, the p99 of the replications pooled{}",
            at(exp, point),
            if exp.wait_classes.0.is_by_kind() {
                "a point per job class, at its largest size"
            } else if atoms {
                "a point per job size of the law"
            } else {
                "a point per decile of the size law, at its largest size"
            },
            if log_y {
                "; log scale, 0 drawn on the bottom edge"
            } else {
                ""
            }
        )),
        x_label: "job size (fraction of a server)".into(),
        y_label: format!("{} (slots)", noun(quantity)),
        series,
        markers: true,
        log_y,
        ..Default::default()
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
