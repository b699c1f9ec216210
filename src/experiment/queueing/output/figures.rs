//! The figures of a queueing experiment: mean queue against the sweep, queue against time, and
//! stability limits next to compaction.

use std::path::{Path, PathBuf};

use super::axes::{title_of, x_label, x_of};
use crate::experiment::ExperimentError;
use crate::experiment::common::{render_figure, render_with};
use crate::experiment::queueing::analysis::{Outcome, SummaryRow};
use crate::experiment::queueing::{Experiment, PlotSpec, SweepKind};
use crate::plot::{Chart, DotPlot, Panel, Series, render_dots};

/// Draws every `[[plot]]`; returns each figure's files (PNG first, then SVG).
pub(in crate::experiment::queueing) fn draw(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<Vec<[PathBuf; 2]>, ExperimentError> {
    let mut figures = Vec::new();
    for plot in &exp.plots {
        let paths = match plot {
            PlotSpec::LimitVsCompaction { title, file } => {
                let plot = study_plot(exp, out, title);
                render_with(dir, file, |stem| render_dots(&plot, stem))?
            }
            PlotSpec::ConstraintDelay {
                point,
                title,
                file,
                log_y,
            } => {
                // the spec stage refused this plot without [constraints]
                let chart = super::constraints::delay_chart(exp, out, *point, title, *log_y);
                render_figure(dir, &chart, file)?
            }
            PlotSpec::WaitCcdf {
                point,
                quantity,
                title,
                file,
            } => render_figure(
                dir,
                &super::delay_figures::ccdf_chart(exp, out, *point, *quantity, title),
                file,
            )?,
            PlotSpec::WaitQuantileVsLoad {
                statistic,
                quantity,
                title,
                file,
                log_y,
            } => render_figure(
                dir,
                &super::delay_figures::quantile_chart(
                    exp,
                    out,
                    (*statistic, *quantity),
                    title,
                    *log_y,
                ),
                file,
            )?,
            PlotSpec::WaitBySize {
                point,
                title,
                file,
                log_y,
            } => render_figure(
                dir,
                &super::delay_figures::by_size_chart(exp, out, *point, (title, *log_y)),
                file,
            )?,
            PlotSpec::MeanQueueVsLoad { title, file, log_y } => {
                render_figure(dir, &mean_queue_chart(exp, out, title, *log_y), file)?
            }
            PlotSpec::QueueVsTime {
                point,
                replication,
                title,
                file,
                log_y,
            } => render_figure(
                dir,
                &queue_chart(exp, out, *point, *replication, title, *log_y),
                file,
            )?,
        };
        figures.push(paths);
    }
    Ok(figures)
}

/// The study's figure: a row per scored policy, its compacted size and its stability limit.
fn study_plot(exp: &Experiment, out: &Outcome, title: &Option<String>) -> DotPlot {
    let demand = out.study.first().map_or(0.0, |r| r.demand);
    let trials = exp.compaction.as_ref().map_or(1, |c| c.trials);
    DotPlot {
        title: title
            .clone()
            .unwrap_or_else(|| title_of(exp, &None, "Packing and stability per placement rule")),
        rows: out
            .study
            .iter()
            .map(|r| exp.labels[r.policy].clone())
            .collect(),
        panels: vec![
            Panel {
                label: if trials > 1 {
                    format!("machines after compaction (p90, {trials} trials; bound {demand:.1})")
                } else {
                    format!("machines after compaction (one trial; bound {demand:.1})")
                },
                values: out
                    .study
                    .iter()
                    .map(|r| {
                        let range = (r.compaction.min as f64, r.compaction.max as f64);
                        (r.compaction.p90 as f64, (trials > 1).then_some(range))
                    })
                    .collect(),
            },
            Panel {
                label: "stability limit, load (dot: stable; bar end: unstable)".into(),
                values: out
                    .study
                    .iter()
                    .map(|r| (r.limit.lower, Some((r.limit.lower, r.limit.upper))))
                    .collect(),
            },
        ],
    }
}

/// Mean queue against the sweep variable, with 95 % interval bars, a curve per policy; rows
/// that are not measurements are hollow markers on the top edge, not joined to the curve.
fn mean_queue_chart(exp: &Experiment, out: &Outcome, title: &Option<String>, log_y: bool) -> Chart {
    let trace = exp.workload.trace().is_some();
    let series: Vec<Series> = (0..exp.policies.len())
        .map(|p| {
            let rows: Vec<_> = out.summary.iter().filter(|r| r.policy == p).collect();
            let (kept, off): (Vec<&SummaryRow>, Vec<&SummaryRow>) =
                rows.iter().partition(|r| r.measured());
            Series {
                label: exp.labels[p].clone(),
                colour: exp.colours[p],
                points: kept
                    .iter()
                    .map(|r| (x_of(exp, r.point), r.mean_queue))
                    .collect(),
                bars: Some(
                    kept.iter()
                        .map(|r| r.ci95.unwrap_or((r.mean_queue, r.mean_queue)))
                        .collect(),
                ),
                off: off.iter().map(|r| x_of(exp, r.point)).collect(),
                ..Default::default()
            }
        })
        .collect();
    let reps = exp.run.replications;
    let note = format!(
        "{}{}",
        if reps == 1 {
            "One replication (no interval)".to_string()
        } else {
            format!("Mean over {reps} replications with 95 % intervals")
        },
        if trace {
            "; each point one replay of the trace window".to_string()
        } else {
            "; a point only where every run was judged stable".to_string()
        }
    );
    Chart {
        title: title_of(exp, title, "Mean queue size"),
        note: Some(note),
        x_label: x_label(exp).into(),
        y_label: "mean queue size (jobs)".into(),
        series,
        markers: true,
        log_y,
        ..Default::default()
    }
}

/// Q(t) against t of one replication at one point, a curve per policy; the cap as a dashed
/// line when a run reached it. `log_y`: `None` chooses a log axis when the curves' peaks are
/// more than 30 times apart (one near zero, one at the cap).
fn queue_chart(
    exp: &Experiment,
    out: &Outcome,
    point: usize,
    replication: u32,
    title: &Option<String>,
    log_y: Option<bool>,
) -> Chart {
    let runs: Vec<_> = (0..exp.policies.len())
        .map(|p| out.runs_at(p, point).find(|r| r.replication == replication))
        .collect();
    let mut series: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(p, run)| Series {
            label: exp.labels[p].clone(),
            colour: exp.colours[p],
            points: run
                .map(|r| {
                    r.result
                        .series
                        .iter()
                        .map(|&(t, q)| (t as f64, q as f64))
                        .collect()
                })
                .unwrap_or_default(),
            ..Default::default()
        })
        .collect();
    // a curve identical to an earlier one is hidden under it: the legend says so
    for k in 1..series.len() {
        if let Some(j) = (0..k).find(|&j| series[j].points == series[k].points)
            && !series[k].points.is_empty()
        {
            series[k].label = format!("{} (identical to {})", series[k].label, series[j].label);
        }
    }
    let peaks: Vec<f64> = series
        .iter()
        .map(|s| s.points.iter().map(|p| p.1).fold(0.0, f64::max))
        .collect();
    let (lo, hi) = peaks
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &p| (a.min(p), b.max(p)));
    let log_y = log_y.unwrap_or(hi > 30.0 * lo.max(1.0));
    let capped = runs.iter().flatten().any(|r| r.result.capped);
    // runs judged inconclusive go on (up to max_slots), so curves can end at different slots
    let extended = runs.iter().flatten().any(|r| r.evidence.extensions > 0);
    let pt = exp.points[point];
    let at = match exp.sweep {
        SweepKind::Load => format!("ρ = {}", pt.load),
        SweepKind::ArrivalRate => format!("λ = {}", pt.arrival_rate),
        SweepKind::Fraction => format!("{} ρ*", pt.key),
        SweepKind::Scaling => format!("c = {}", pt.key),
    };
    let note = format!(
        "{at}; replication {replication} of {} (same jobs for every policy); queue cap {} jobs{}{}{}",
        exp.run.replications,
        crate::plot::thousands(exp.run.queue_cap),
        if capped {
            ", a run stops when it reaches it"
        } else {
            ""
        },
        if extended {
            "; an inconclusive run went on, so curves end where their runs stopped"
        } else {
            ""
        },
        if log_y {
            "; log scale, 0 drawn on the bottom edge"
        } else {
            ""
        }
    );
    Chart {
        title: title_of(exp, title, "Queue size over time"),
        note: Some(note),
        x_label: "time (slots)".into(),
        y_label: "queue size Q(t) (jobs)".into(),
        series,
        hlines: if capped {
            vec![(exp.run.queue_cap as f64, "queue cap".into())]
        } else {
            Vec::new()
        },
        markers: false,
        log_y,
        ..Default::default()
    }
}
