//! The work a queueing file asks for, checked against [`limits`] once it is validated (a plan
//! beyond them is refused before anything runs), and the estimate printed before a long run.

use super::units::{self, Unit};
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::experiment::queueing::Experiment;
use crate::experiment::queueing::Workload;
use crate::limits::{self, MAX_EVENTS, MAX_UNITS};

/// Refuses a plan of more than [`MAX_UNITS`] units (before it is built) or of more than
/// [`MAX_EVENTS`] slots and arrivals at the runs' longest horizon.
pub(in crate::experiment::queueing) fn admit(exp: &Experiment) -> Result<(), ExperimentError> {
    let cx = &Ctx::new(&exp.header.file);
    let runs = exp.points.len() as u64 * exp.policies.len() as u64 * exp.run.replications as u64;
    let mapped = exp
        .region_map
        .as_ref()
        .map_or(0, |m| m.rays.len() as u64 * m.policies.len() as u64);
    let units = runs + exp.claims.len() as u64 + exp.policies.len() as u64 + mapped;
    if units > MAX_UNITS {
        return Err(cx.bad(
            "run.replications",
            &format!("at most {MAX_UNITS} runs in all (sweep points × policies × replications)"),
            format!(
                "{} × {} × {} = {runs} runs",
                exp.points.len(),
                exp.policies.len(),
                exp.run.replications
            ),
        ));
    }
    let worst: f64 = units::plan(exp)
        .iter()
        .map(|u| match u {
            // a run that stays undecided doubles its horizon up to max_slots
            Unit::Run { .. } => {
                let stretch = exp
                    .run
                    .slots()
                    .map_or(1.0, |(s, _, max)| max as f64 / s as f64);
                units::cost(exp, u) * stretch
            }
            u => units::cost(exp, u),
        })
        .sum();
    if worst > MAX_EVENTS {
        return Err(cx.bad(
            "run",
            &format!(
                "at most {MAX_EVENTS:.0e} slots and expected arrivals over all runs at their \
                 longest (run.max_slots, limit searches included)"
            ),
            format!("{worst:.2e}"),
        ));
    }
    Ok(())
}

/// CPU cost of a slot of a region map's search and of a job in it, ns, on the machine the
/// prices of [`limits::NS_PER_SLOT`] were fitted on (fitted on the committed maps: on an
/// earlier machine 33, 48 and 333 ns per slot at 0.18, 0.3 and 3 jobs per slot, one and ten
/// servers; scaled on 27 November 2026 so that the five maps' estimated wall times on two
/// cores are within a factor 1.5 of the measured, 8.5 to 52 s).
const MAP_NS_PER_SLOT: f64 = 7.9;
/// See [`MAP_NS_PER_SLOT`].
const MAP_NS_PER_JOB: f64 = 62.0;
/// CPU cost of a job of a trace replay, ns, on the machine the prices of
/// [`limits::NS_PER_SLOT`] were fitted on: BF-J/S replaying the shipped Alibaba 2017 extract
/// (10.2 million jobs on 4,000 servers, traffic scaling 1) in `cargo bench --bench trace`, 27
/// November 2026. Far below a synthetic run's job: a task's instances arrive together with one
/// size and one service time, and most are placed in a batch.
const TRACE_NS_PER_JOB: f64 = 63.0;
/// How much more a slot costs on the multi-resource path (scored policies, NUMA nodes):
/// measured on the NUMA map (318 ns per slot at 1.1 jobs per slot).
const MAP_MULTI_RESOURCE: f64 = 2.4;
/// How much more a slot costs under placement constraints (every job offered only the servers
/// its class may use): measured on the constrained map (2,410 ns per slot at about 1.35 jobs
/// per slot, against 157 for the single-resource path).
const MAP_CONSTRAINED: f64 = 15.0;

/// Expected CPU seconds of the whole plan (at the runs' `slots`), from the measured costs of
/// a slot and of a job.
pub(in crate::experiment::queueing) fn seconds(exp: &Experiment) -> f64 {
    units::plan(exp)
        .iter()
        .map(|u| {
            let c = units::cost(exp, u);
            match u {
                &Unit::Run { point, .. } => {
                    let rate = exp.points[point].arrival_rate;
                    match exp.workload {
                        // a replay's slots, each job at the price of a replayed job
                        Workload::Trace(_) => {
                            c / units::per_slot(rate)
                                * (limits::NS_PER_SLOT + rate * TRACE_NS_PER_JOB)
                        }
                        _ => c / (1.0 + rate) * (limits::NS_PER_SLOT + rate * limits::NS_PER_JOB),
                    }
                }
                // a map's search: its slots at the ray's limit, at the cost per slot measured
                // on the committed maps
                u @ &Unit::Ray { policy, .. } => {
                    let rate = units::limit_rate(exp, u);
                    let multi = if exp.constraints.is_some() {
                        MAP_CONSTRAINED
                    } else if exp.policies[policy].is_scored() {
                        MAP_MULTI_RESOURCE
                    } else {
                        1.0
                    };
                    units::ray_slots(exp) * (MAP_NS_PER_SLOT + rate * MAP_NS_PER_JOB) * multi
                }
                // a limit search's runs (a study's too) are near the limit: slots at its
                // arrival rate
                u => {
                    let rate = units::limit_rate(exp, u);
                    c / (1.0 + rate) * (limits::NS_PER_SLOT + rate * limits::NS_PER_JOB)
                }
            }
        })
        .sum::<f64>()
        * 1e-9
}
