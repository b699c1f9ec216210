//! The figures of a queueing experiment: mean queue against the sweep, queue against time, and
//! stability limits next to compaction.

use std::path::{Path, PathBuf};

use super::results::Outcome;
use super::{Experiment, PlotSpec, SweepKind};
use crate::experiment::ExperimentError;
use crate::experiment::common::{render_figure, render_with};
use crate::plot::{Chart, DotPlot, Panel, Series, render_dots};
use crate::policy::registry;

/// Draws every `[[plot]]`; returns each figure's files (PNG first, then SVG).
pub(super) fn draw(
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
    DotPlot {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{}: packing and stability per placement rule", exp.name())),
        rows: out
            .study
            .iter()
            .map(|r| exp.labels[r.policy].clone())
            .collect(),
        panels: vec![
            Panel {
                label: format!("compacted size, machines (p90; lower bound {demand:.1})"),
                values: out
                    .study
                    .iter()
                    .map(|r| {
                        let range = (r.compaction.min as f64, r.compaction.max as f64);
                        (r.compaction.p90 as f64, Some(range))
                    })
                    .collect(),
            },
            Panel {
                label: "stability limit, load (dot: shown stable; bar to shown unstable)".into(),
                values: out
                    .study
                    .iter()
                    .map(|r| (r.limit.lower, Some((r.limit.lower, r.limit.upper))))
                    .collect(),
            },
        ],
    }
}

fn x_label(exp: &Experiment) -> &'static str {
    match exp.sweep {
        SweepKind::Load => "traffic intensity ρ = λ E[R] / (μ L)",
        SweepKind::ArrivalRate => "arrival rate λ (jobs per slot)",
        SweepKind::Fraction => "fraction of ρ* (maximum supportable traffic intensity)",
        SweepKind::Scaling => "traffic scaling c (arrival times divided by c)",
    }
}

/// Mean queue against the sweep variable, with 95 % interval bars, a curve per policy.
fn mean_queue_chart(exp: &Experiment, out: &Outcome, title: &Option<String>, log_y: bool) -> Chart {
    let series = (0..exp.policies.len())
        .map(|p| {
            let rows: Vec<_> = out.summary.iter().filter(|r| r.policy == p).collect();
            let x = |pt: usize| match exp.sweep {
                SweepKind::Load => exp.points[pt].load,
                SweepKind::ArrivalRate => exp.points[pt].arrival_rate,
                SweepKind::Fraction => exp.points[pt].key,
                SweepKind::Scaling => exp.points[pt].key,
            };
            Series {
                label: exp.labels[p].clone(),
                colour: registry::colour(&exp.labels[p]),
                points: rows.iter().map(|r| (x(r.point), r.mean_queue)).collect(),
                bars: Some(
                    rows.iter()
                        .map(|r| r.ci95.unwrap_or((r.mean_queue, r.mean_queue)))
                        .collect(),
                ),
                points_only: false,
            }
        })
        .collect();
    Chart {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{}: mean queue size", exp.name())),
        x_label: x_label(exp).into(),
        y_label: "mean queue size (jobs)".into(),
        series,
        markers: true,
        log_y,
    }
}

/// Q(t) against t of one replication at one point, a curve per policy.
fn queue_chart(
    exp: &Experiment,
    out: &Outcome,
    point: usize,
    replication: u32,
    title: &Option<String>,
    log_y: bool,
) -> Chart {
    let series = (0..exp.policies.len())
        .map(|p| {
            let run = out.runs_at(p, point).find(|r| r.replication == replication);
            Series {
                label: exp.labels[p].clone(),
                colour: registry::colour(&exp.labels[p]),
                points: run
                    .map(|r| {
                        r.result
                            .series
                            .iter()
                            .map(|&(t, q)| (t as f64, q as f64))
                            .collect()
                    })
                    .unwrap_or_default(),
                bars: None,
                points_only: false,
            }
        })
        .collect();
    let pt = exp.points[point];
    let at = match exp.sweep {
        SweepKind::Load => format!("ρ = {}", pt.load),
        SweepKind::ArrivalRate => format!("λ = {}", pt.arrival_rate),
        SweepKind::Fraction => format!("{} ρ*", pt.key),
        SweepKind::Scaling => format!("c = {}", pt.key),
    };
    Chart {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{}: queue size, {at}", exp.name())),
        x_label: "time (slots)".into(),
        y_label: "queue size Q(t) (jobs)".into(),
        series,
        markers: false,
        log_y,
    }
}
