//! `[compaction]`: the packing side of a stability-versus-packing study.

use super::QueuePolicy;
use super::SearchSpec;
use super::schema::RawCompaction;
use super::{CompactionSpec, Workload};
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::packing::place::JobOrder;

/// Validates `[compaction]` (it needs a scored policy and sampled laws).
pub(in crate::experiment::queueing) fn compaction(
    cx: &Ctx<'_>,
    raw: Option<&RawCompaction>,
    policies: &[QueuePolicy],
    workload: &Workload,
) -> Result<Option<CompactionSpec>, ExperimentError> {
    let Some(c) = raw else {
        return Ok(None);
    };
    if !policies.iter().any(QueuePolicy::is_scored) {
        return Err(cx.bad(
            "compaction",
            "at least one [[policy]] with a `score` to compact with",
            "none",
        ));
    }
    if workload.trace().is_some() {
        return Err(cx.bad(
            "compaction",
            "sampled laws (a stability limit needs a load to bisect on)",
            "a replayed trace",
        ));
    }
    let tasks = match c.tasks {
        None => 4000,
        Some(n) if (1..=1_000_000).contains(&n) => n as usize,
        Some(n) => return Err(cx.bad("compaction.tasks", "an integer in [1, 10^6]", n)),
    };
    let trials = match c.trials {
        None => 11,
        Some(n) if (1..=1000).contains(&n) => n as usize,
        Some(n) => return Err(cx.bad("compaction.trials", "an integer in [1, 1000]", n)),
    };
    let tau = c.tau.unwrap_or(0.0);
    if !(0.0..1.0).contains(&tau) {
        return Err(cx.bad("compaction.tau", "a pending fraction in [0, 1)", tau));
    }
    let order = match c.order.as_deref() {
        None => JobOrder::Arrival,
        Some(o) => JobOrder::from_name(o).ok_or_else(|| {
            cx.bad(
                "compaction.order",
                "\"arrival\", \"cpu\", \"memory\" or \"sum\"",
                format!("\"{o}\""),
            )
        })?,
    };
    let max_probes = match c.limit_steps {
        None => 8,
        Some(s) if (1..=40).contains(&s) => s as u32,
        Some(s) => return Err(cx.bad("compaction.limit_steps", "an integer in [1, 40]", s)),
    };
    let resolution = match c.limit_resolution {
        None => 0.01,
        Some(r) if r > 0.0 && r < 1.0 => r,
        Some(r) => {
            return Err(cx.bad(
                "compaction.limit_resolution",
                "a width in (0, 1) (of the load)",
                r,
            ));
        }
    };
    Ok(Some(CompactionSpec {
        tasks,
        trials,
        tau,
        order,
        limit: SearchSpec {
            resolution,
            max_probes,
            rounds: 3,
        },
    }))
}
