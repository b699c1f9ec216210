//! `[[plot]]`: the figures to draw.

use super::schema::{RawExperiment, RawPlot};
use super::sweep::Finder;
use super::{DelayQuantity, PlotSpec, Statistic};
use crate::experiment::ExperimentError;

/// Validates every `[[plot]]` (a `limit-vs-compaction` plot needs `[compaction]`).
pub(in crate::experiment::queueing) fn plots(
    at: &Finder<'_>,
    raw: &RawExperiment,
    replications: u32,
) -> Result<Vec<PlotSpec>, ExperimentError> {
    let mut plots = Vec::new();
    for (i, p) in raw.plot.iter().enumerate() {
        let file = p.file.clone().unwrap_or_else(|| {
            if raw.plot.len() == 1 {
                p.kind.clone()
            } else {
                format!("{}-{i}", p.kind)
            }
        });
        if plots.iter().any(|q: &PlotSpec| q.file() == file) {
            return Err(at.cx.bad(
                &format!("plot[{i}].file"),
                "a file name no other plot of this file uses (each plot writes FILE.png and FILE.svg)",
                &file,
            ));
        }
        at.cx.figure_name(&format!("plot[{i}].file"), &file)?;
        // a delay key on a figure of another quantity would be ignored: refuse it
        if !p.kind.starts_with("wait-") {
            for (key, v) in [("quantity", &p.quantity), ("quantile", &p.quantile)] {
                if let Some(v) = v {
                    return Err(at.cx.bad(
                        &format!("plot[{i}].{key}"),
                        "no `quantity` or `quantile` except on the delay figures (kind \"wait-ccdf\", \"wait-quantile-vs-load\" or \"wait-by-size\")",
                        format!("\"{v}\""),
                    ));
                }
            }
        }
        plots.push(plot(
            at,
            i,
            p,
            file,
            replications,
            raw.compaction.is_some(),
            raw.constraints.is_some(),
        )?);
    }
    Ok(plots)
}

/// One `[[plot]]` of kind `p.kind`.
fn plot(
    at: &Finder<'_>,
    i: usize,
    p: &RawPlot,
    file: String,
    replications: u32,
    compaction: bool,
    constraints: bool,
) -> Result<PlotSpec, ExperimentError> {
    let cx = at.cx;
    Ok(match p.kind.as_str() {
        "mean-queue-vs-load" => {
            whole_sweep(at, i, p)?;
            PlotSpec::MeanQueueVsLoad {
                title: p.title.clone(),
                file,
                log_y: p.log_y.unwrap_or(false),
            }
        }
        "queue-vs-time" => {
            let point = match [p.load, p.arrival_rate, p.fraction, p.scaling] {
                [None, None, None, None] => at.points.len() - 1,
                named => at.find(&format!("plot[{i}]"), named)?,
            };
            let replication = match p.replication {
                None => 0,
                Some(r) if r >= 0 && (r as u64) < replications as u64 => r as u32,
                Some(r) => {
                    return Err(cx.bad(
                        &format!("plot[{i}].replication"),
                        &format!("an index in [0, run.replications = {replications})"),
                        r,
                    ));
                }
            };
            PlotSpec::QueueVsTime {
                point,
                replication,
                title: p.title.clone(),
                file,
                log_y: p.log_y,
            }
        }
        "limit-vs-compaction" => {
            if !compaction {
                return Err(cx.bad(
                    &format!("plot[{i}].kind"),
                    "a [compaction] table for \"limit-vs-compaction\"",
                    "none",
                ));
            }
            PlotSpec::LimitVsCompaction {
                title: p.title.clone(),
                file,
            }
        }
        "constraint-delay" => {
            if !constraints {
                return Err(cx.bad(
                    &format!("plot[{i}].kind"),
                    "a [constraints] table for \"constraint-delay\"",
                    "none",
                ));
            }
            let point = match [p.load, p.arrival_rate, p.fraction, p.scaling] {
                [None, None, None, None] => at.points.len() - 1,
                named => at.find(&format!("plot[{i}]"), named)?,
            };
            PlotSpec::ConstraintDelay {
                point,
                title: p.title.clone(),
                file,
                log_y: p.log_y,
            }
        }
        "wait-ccdf" | "wait-by-size" | "wait-quantile-vs-load" => delay_plot(at, i, p, file)?,
        other => {
            return Err(cx.bad(
                &format!("plot[{i}].kind"),
                "\"mean-queue-vs-load\", \"queue-vs-time\", \"limit-vs-compaction\", \"constraint-delay\", \"wait-ccdf\", \"wait-quantile-vs-load\" or \"wait-by-size\"",
                format!("\"{other}\""),
            ));
        }
    })
}

/// A delay figure: `wait-ccdf`, `wait-by-size` or `wait-quantile-vs-load`.
fn delay_plot(
    at: &Finder<'_>,
    i: usize,
    p: &RawPlot,
    file: String,
) -> Result<PlotSpec, ExperimentError> {
    let cx = at.cx;
    Ok(match p.kind.as_str() {
        "wait-ccdf" | "wait-by-size" => {
            let point = match [p.load, p.arrival_rate, p.fraction, p.scaling] {
                [None, None, None, None] => at.points.len() - 1,
                named => at.find(&format!("plot[{i}]"), named)?,
            };
            let quantity =
                DelayQuantity::parse(cx, &format!("plot[{i}].quantity"), p.quantity.as_deref())?;
            if p.quantile.is_some() {
                return Err(cx.bad(
                    &format!("plot[{i}].quantile"),
                    "no `quantile` for this kind (it draws the whole distribution, or the mean and p99)",
                    p.quantile.as_deref().unwrap_or_default(),
                ));
            }
            if p.kind == "wait-ccdf" {
                PlotSpec::WaitCcdf {
                    point,
                    quantity,
                    title: p.title.clone(),
                    file,
                }
            } else {
                if quantity != DelayQuantity::Wait {
                    return Err(cx.bad(
                        &format!("plot[{i}].quantity"),
                        "\"wait\" for this kind (by size packlab keeps each class's waiting times and only the mean of its response times, in waits_by_size.csv)",
                        "\"response\"",
                    ));
                }
                PlotSpec::WaitBySize {
                    point,
                    title: p.title.clone(),
                    file,
                    log_y: p.log_y,
                }
            }
        }
        "wait-quantile-vs-load" => {
            whole_sweep(at, i, p)?;
            PlotSpec::WaitQuantileVsLoad {
                statistic: Statistic::parse(
                    cx,
                    &format!("plot[{i}].quantile"),
                    p.quantile.as_deref(),
                    Statistic::Quantile(2),
                )?,
                quantity: DelayQuantity::parse(
                    cx,
                    &format!("plot[{i}].quantity"),
                    p.quantity.as_deref(),
                )?,
                title: p.title.clone(),
                file,
                log_y: p.log_y,
            }
        }
        _ => unreachable!("a delay kind"),
    })
}

/// A figure drawn over the whole sweep names no point of it and no replication.
fn whole_sweep(at: &Finder<'_>, i: usize, p: &RawPlot) -> Result<(), ExperimentError> {
    if p.load.is_some()
        || p.arrival_rate.is_some()
        || p.fraction.is_some()
        || p.scaling.is_some()
        || p.replication.is_some()
    {
        return Err(at.cx.bad(
            &format!("plot[{i}]"),
            "no `load`, `arrival_rate`, `fraction`, `scaling` or `replication` for this kind",
            "one of them",
        ));
    }
    Ok(())
}
