//! `[[plot]]`: the figures to draw.

use super::PlotSpec;
use super::schema::{RawExperiment, RawPlot};
use super::sweep::Finder;
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
            if p.load.is_some()
                || p.arrival_rate.is_some()
                || p.fraction.is_some()
                || p.scaling.is_some()
                || p.replication.is_some()
            {
                return Err(cx.bad(
                    &format!("plot[{i}]"),
                    "no `load`, `arrival_rate` or `replication` for this kind",
                    "one of them",
                ));
            }
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
        other => {
            return Err(cx.bad(
                &format!("plot[{i}].kind"),
                "\"mean-queue-vs-load\", \"queue-vs-time\", \"limit-vs-compaction\" or \"constraint-delay\"",
                format!("\"{other}\""),
            ));
        }
    })
}
