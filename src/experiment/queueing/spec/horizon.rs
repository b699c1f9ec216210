//! `[run]`: the horizon of each run, replications, the queue cap and the time series.

use super::schema::RawRun;
use super::{Horizon, RunSpec};
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::limits::{MAX_QUEUE_CAP, MAX_REPLICATIONS, MAX_SAMPLES, MAX_SLOTS_PER_RUN};

/// Without `max_slots`, an inconclusive run may go on to this many times `slots` (capped at
/// the largest run): the horizon at which the verdict's calibration targets were measured on
/// systems outside the calibration files. A run that is decided by `slots` costs no more.
pub(crate) const DEFAULT_EXTENSION: u64 = 16;

/// Validates `[run]`; `traced`: the workload is a replayed trace (then `slots` is optional and
/// `max_slots` refused).
pub(in crate::experiment::queueing) fn run_spec(
    cx: &Ctx<'_>,
    raw: &RawRun,
    traced: bool,
) -> Result<RunSpec, ExperimentError> {
    let horizon = match raw.slots {
        Some(s) => {
            let s = cx.positive("run.slots", s)?;
            let s = cx.at_most("run.slots", s, MAX_SLOTS_PER_RUN as u64, "slots per run")?;
            fixed(cx, raw, s, traced)?
        }
        None if traced => window(cx, raw)?,
        None => return Err(cx.bad("run.slots", "the number of slots per run", "nothing")),
    };
    let replications = match raw.replications {
        None => 1,
        Some(r) => {
            let r = cx.positive("run.replications", r)?;
            cx.at_most("run.replications", r, MAX_REPLICATIONS, "replications")? as u32
        }
    };
    let queue_cap = match raw.queue_cap {
        None => 100_000,
        Some(c) => {
            let c = cx.positive("run.queue_cap", c)?;
            cx.at_most("run.queue_cap", c, MAX_QUEUE_CAP, "jobs")?
        }
    };
    let samples = match raw.samples {
        None => 500,
        Some(c) => {
            let c = cx.positive("run.samples", c)?;
            cx.at_most("run.samples", c, MAX_SAMPLES, "samples per run")?
        }
    };
    let probe_groups = match raw.probe_groups {
        None => None,
        Some(g) => {
            let g = cx.positive("run.probe_groups", g)?;
            Some(cx.at_most(
                "run.probe_groups",
                g,
                u64::from(replications),
                "runs per group (the replications)",
            )? as u32)
        }
    };
    if raw.export_jobs == Some(true) && traced {
        return Err(cx.bad(
            "run.export_jobs",
            "false with a trace (its jobs are the trace file)",
            true,
        ));
    }
    Ok(RunSpec {
        horizon,
        replications,
        queue_cap,
        samples,
        probe_groups,
        export_jobs: raw.export_jobs.unwrap_or(false),
    })
}

/// `slots` per run, with `warmup` and `max_slots`.
fn fixed(cx: &Ctx<'_>, raw: &RawRun, slots: u64, traced: bool) -> Result<Horizon, ExperimentError> {
    if raw.warmup_fraction.is_some() {
        return Err(cx.bad(
            "run.warmup_fraction",
            "no `warmup_fraction` unless a trace is replayed without `run.slots` (use `warmup`)",
            "a value",
        ));
    }
    let warmup = match raw.warmup {
        None => slots / 10,
        Some(w) if w >= 0 && (w as u64) < slots => w as u64,
        Some(w) => {
            return Err(cx.bad(
                "run.warmup",
                &format!("an integer in [0, run.slots = {slots})"),
                w,
            ));
        }
    };
    let max_slots = match raw.max_slots {
        None if traced => slots,
        None => slots
            .saturating_mul(DEFAULT_EXTENSION)
            .min(MAX_SLOTS_PER_RUN as u64),
        Some(_) if traced => return Err(no_max_slots(cx)),
        Some(m) if m >= 0 && m as u64 >= slots => cx.at_most(
            "run.max_slots",
            m as u64,
            MAX_SLOTS_PER_RUN as u64,
            "slots per run",
        )?,
        Some(m) => {
            return Err(cx.bad(
                "run.max_slots",
                &format!("an integer ≥ run.slots = {slots}"),
                m,
            ));
        }
    };
    Ok(Horizon::Slots {
        slots,
        warmup,
        max_slots,
    })
}

/// A trace replayed without `run.slots`: each run is its window.
fn window(cx: &Ctx<'_>, raw: &RawRun) -> Result<Horizon, ExperimentError> {
    if raw.warmup.is_some() {
        return Err(cx.bad(
            "run.warmup",
            "`warmup_fraction` for a trace replayed without `run.slots`",
            "`warmup`",
        ));
    }
    let warmup_fraction = match raw.warmup_fraction {
        None => 0.1,
        Some(f) if (0.0..1.0).contains(&f) => f,
        Some(f) => return Err(cx.bad("run.warmup_fraction", "a fraction in [0, 1)", f)),
    };
    if raw.max_slots.is_some() {
        return Err(no_max_slots(cx));
    }
    Ok(Horizon::Window { warmup_fraction })
}

fn no_max_slots(cx: &Ctx<'_>) -> ExperimentError {
    cx.bad(
        "run.max_slots",
        "no `max_slots` for a replayed trace (a run is its window)",
        "a value",
    )
}
