//! The work a queueing file asks for, checked against [`limits`] once it is validated (a plan
//! beyond them is refused before anything runs), and the estimate printed before a long run.

use super::units::{self, Unit};
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::experiment::memory::Use;
use crate::experiment::queueing::Experiment;
use crate::experiment::queueing::Workload;
use crate::limits::{self, MAX_EVENTS, MAX_UNITS};
use crate::workload::ArrivalProcess;

/// Refuses a plan of more than [`MAX_UNITS`] units (before it is built) or of more than
/// [`MAX_EVENTS`] slots and arrivals at the runs' longest horizon.
pub(in crate::experiment::queueing) fn admit(exp: &Experiment) -> Result<(), ExperimentError> {
    let cx = &Ctx::new(&exp.header.file);
    let runs = exp.points.len() as u64 * exp.policies.len() as u64 * exp.run.replications as u64;
    let mapped = exp
        .region_map
        .as_ref()
        .map_or(0, |m| m.rays.len() as u64 * m.policies.len() as u64);
    let others = exp.claims.len() as u64 + exp.policies.len() as u64 + mapped;
    let refuse = |count: String| {
        cx.bad(
            "run.replications",
            &format!(
                "at most {MAX_UNITS} units of work in all (sweep points × policies × \
                 replications runs, plus one limit search per claim and policy and the \
                 region map's rays × policies)"
            ),
            format!(
                "{} × {} × {} = {runs} runs{count}",
                exp.points.len(),
                exp.policies.len(),
                exp.run.replications
            ),
        )
    };
    // the plan is built only when it cannot be far beyond the limit; then its units are counted
    if runs > MAX_UNITS || others > MAX_UNITS {
        return Err(refuse(format!(" and up to {others} other units")));
    }
    let plan = units::plan(exp);
    if plan.len() as u64 > MAX_UNITS {
        return Err(refuse(format!(
            " and {} other units, {} in all",
            plan.len() as u64 - runs,
            plan.len()
        )));
    }
    // a search probes loads up to its limit's: the arrival process must reach them
    if exp.workload.arrivals() == ArrivalProcess::Bernoulli
        && let Some(rate) = plan
            .iter()
            .filter(|u| {
                matches!(
                    u,
                    Unit::Limit { .. } | Unit::Ray { .. } | Unit::Study { .. }
                )
            })
            .map(|u| units::limit_rate(exp, u))
            .max_by(f64::total_cmp)
        && rate > 1.0
    {
        return Err(cx.bad(
            "workload.arrivals",
            "an arrival process that reaches the loads its limit searches probe (Bernoulli \
             arrivals bring at most one job per slot)",
            format!("Bernoulli arrivals, with searches up to {rate:.3} jobs per slot"),
        ));
    }
    let worst: f64 = plan
        .iter()
        .map(|u| match u {
            // a run that stays undecided doubles its horizon up to max_slots
            Unit::Run { .. } => {
                let stretch = exp
                    .run
                    .slots()
                    .map_or(1.0, |(s, _, max)| max as f64 / s as f64);
                units::events(exp, u) * stretch
            }
            u => units::events(exp, u),
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
/// cores were within a factor 1.5 of the measured, 8.5 to 52 s; see `units::ray_slots` for
/// the horizon of a map's runs).
const MAP_NS_PER_SLOT: f64 = 7.9;
/// See [`MAP_NS_PER_SLOT`].
const MAP_NS_PER_JOB: f64 = 62.0;
/// CPU cost of a job of a trace replay, ns, on the machine the prices of
/// [`limits::NS_PER_SLOT`] were fitted on: BF-J/S replaying the shipped Alibaba 2017 extract
/// (10.2 million jobs on 4,000 servers, traffic scaling 1) in `cargo bench --bench trace`, 27
/// November 2026. Far below a synthetic run's job: a task's instances arrive together with one
/// size and one service time, and most are placed in a batch.
const TRACE_NS_PER_JOB: f64 = 63.0;
/// CPU cost of a job of a synthetic run, ns, on the machine the prices of
/// [`limits::NS_PER_SLOT`] were fitted on: its arrival, placement and departure, for a policy
/// of relative cost 1 (BF-J/S, FIFO-FF; VQS and VQS-BF cost 1.5 times as much). Fitted on 27
/// November 2026 by timing every run of the committed sweeps on 1 to 10 servers, at loads from
/// half a limit to past it: 55 to 90 ns per job, empty slots included.
const RUN_NS_PER_JOB: f64 = 58.0;
/// How much more a synthetic run's job costs for a scored policy (several resources, NUMA
/// nodes): 140 to 470 ns per job on the NUMA files' runs, measured the same day (3 then), and
/// lowered once a server's view read one waiting job per request vector: the three NUMA
/// files' sweeps alone (their claims removed) took 17.7, 22 and 16.5 s of CPU (`_split`,
/// `numa_stability`, `_strict`) against 19, 28 and 25 priced at 3.
const RUN_MULTI_RESOURCE: f64 = 2.5;
/// How much more a synthetic run's job costs under placement constraints: measured the same
/// day on the constraint files (100 servers, scored policies, every job offered only the
/// servers its class may use).
const RUN_CONSTRAINED: f64 = 4.2;
/// Expected horizon of a sweep's runs, in multiples of `run.slots`, when no two points are
/// close: a run doubles its horizon only while its verdict is inconclusive, within a few per
/// cent of its policy's limit (1.02 to 1.2 on the figures' sweeps, points 5 to 10 % apart).
const SPARSE_STRETCH: f64 = 1.1;
/// Points closer than this (relative) make a sweep one that closes in on a limit.
const DENSE: f64 = 0.02;

/// The horizon a sweep's runs are expected to simulate, in multiples of `run.slots`. Where a
/// policy's limit lies is not known before the run, but a sweep with two points within
/// [`DENSE`] of each other is read as one placed around a limit: one run per policy and
/// replication is expected to go to `max_slots` (the calibration files, points 1 % apart around
/// a limit, simulated 2.5 to 3.7 times their horizon; this gives 2.7). Otherwise
/// [`SPARSE_STRETCH`].
fn stretch(exp: &Experiment) -> f64 {
    let Some((slots, _, max_slots)) = exp.run.slots() else {
        return 1.0;
    };
    let mut rates: Vec<f64> = exp.points.iter().map(|p| p.arrival_rate).collect();
    rates.sort_by(f64::total_cmp);
    let dense = rates.windows(2).any(|w| w[1] - w[0] < DENSE * w[1]);
    if dense {
        1.0 + (max_slots as f64 / slots as f64 - 1.0) / rates.len() as f64
    } else {
        SPARSE_STRETCH
    }
}

/// How much more a slot costs on the multi-resource path (scored policies, NUMA nodes):
/// measured on the NUMA map (318 ns per slot at 1.1 jobs per slot), then lowered from 2.4 on
/// 27 November 2026, once a server's view read one waiting job per request vector
/// (`region_map_vectors` 8 to 5.6 s on two cores, `region_map_numa` unchanged at 18 s): the
/// geometric middle of the two maps' ratios.
const MAP_MULTI_RESOURCE: f64 = 2.2;
/// How much more a slot costs under placement constraints (every job offered only the servers
/// its class may use): measured on the constrained map (2,410 ns per slot at about 1.35 jobs
/// per slot, against 157 for the single-resource path), then scaled by that map's wall time
/// on 27 November 2026, when a server's fill stopped reading the queue once nothing more fits
/// (51 to 44 s), and when it read one waiting job per request vector (44 to 14 s).
const MAP_CONSTRAINED: f64 = 3.5;

/// What a scored policy's limit search costs against a single-resource one's price: measured
/// on 27 November 2026, once a server's view read one waiting job per request vector, on
/// `numa_stability` (54 s on two cores against 84 priced at 1) and `numa_stability_split`
/// (22 s against 28): 0.7, and 0.92 since the single-resource price fell by 1.75 / 2.3 on 29
/// November 2026 (`LIMIT_MAX_SLOTS`), which leaves `numa_stability`'s and `_strict`'s prices
/// as they were (`_split`'s, set by the floor of a search's price, rose by 0.92 / 0.7).
const SCORED_SEARCH: f64 = 0.92;
/// A study's searches against their price (every probe's rounds at `max_slots`, fitted when
/// `stability_vs_packing` took 681 s): the same file took 87 s on 27 November 2026, once a
/// server's view read one waiting job per request vector, against 300 s priced.
const STUDY: f64 = 0.35;

/// The factor of `policy`'s path: `constrained` under placement constraints, `scored` for a
/// scored policy (several resources, NUMA nodes), 1 on the single-resource path.
fn path(exp: &Experiment, policy: usize, constrained: f64, scored: f64) -> f64 {
    if exp.constraints.is_some() {
        constrained
    } else if exp.policies[policy].is_scored() {
        scored
    } else {
        1.0
    }
}

/// Expected CPU seconds of the whole plan (at the runs' `slots`), from the measured costs of
/// a slot and of a job: the sum of its units' [`unit_nanoseconds`].
pub(in crate::experiment::queueing) fn seconds(exp: &Experiment) -> f64 {
    costs(exp, &units::plan(exp)).iter().sum::<f64>() * 1e-9
}

/// The price of a unit: its expected CPU time, ns, on the machine the prices of
/// [`limits::NS_PER_SLOT`] were fitted on, with `stretch` the sweep's expected horizon
/// ([`stretch`]). The one cost model of queueing files: the estimate printed before a run
/// sums it, and the engine weighs units by it (shards, progress, time left).
pub(in crate::experiment::queueing) fn unit_nanoseconds(
    exp: &Experiment,
    u: &Unit,
    stretch: f64,
) -> f64 {
    match u {
        &Unit::Run { point, policy, .. } => {
            let rate = exp.points[point].arrival_rate;
            // the run's slots, with the policy's factor
            let slots = units::run_work(exp, point, policy);
            match exp.workload {
                // each job at the price of a replayed job
                Workload::Trace(_) => slots * (limits::NS_PER_SLOT + rate * TRACE_NS_PER_JOB),
                // an empty slot is priced only where an arrival or a departure stops
                // the loop
                _ => {
                    let multi = path(exp, policy, RUN_CONSTRAINED, RUN_MULTI_RESOURCE);
                    slots
                        * ((2.0 * rate).min(1.0) * limits::NS_PER_SLOT
                            + rate * RUN_NS_PER_JOB * multi)
                        * stretch
                }
            }
        }
        // a map's search: its slots at the ray's limit, at the cost per slot measured
        // on the committed maps
        u @ &Unit::Ray { policy, .. } => {
            let rate = units::limit_rate(exp, u);
            let multi = path(exp, policy, MAP_CONSTRAINED, MAP_MULTI_RESOURCE);
            units::ray_slots(exp) * (MAP_NS_PER_SLOT + rate * MAP_NS_PER_JOB) * multi
        }
        // a limit search's runs (a study's too) are near the limit: slots at its
        // arrival rate
        u => {
            let rate = units::limit_rate(exp, u);
            let measured = match u {
                &Unit::Limit { policy, .. } if exp.policies[policy].is_scored() => SCORED_SEARCH,
                Unit::Study { .. } => STUDY,
                _ => 1.0,
            };
            units::events(exp, u) / (1.0 + rate)
                * (limits::NS_PER_SLOT + rate * limits::NS_PER_JOB)
                * measured
        }
    }
}

/// A unit's price ([`unit_nanoseconds`]), for the engine.
pub(in crate::experiment::queueing) fn cost(exp: &Experiment, u: &Unit) -> f64 {
    unit_nanoseconds(exp, u, stretch(exp))
}

/// Every unit's price, the sweep's stretch computed once.
pub(in crate::experiment::queueing) fn costs(exp: &Experiment, plan: &[Unit]) -> Vec<f64> {
    let stretch = stretch(exp);
    plan.iter()
        .map(|u| unit_nanoseconds(exp, u, stretch))
        .collect()
}

/// Peak bytes a finished run holds until the outputs are written, besides its time series:
/// its record, its journal line and its rows. Measured 1.75 KB per run (40,000 replications of
/// 100 slots with `samples = 1`: 70 MB resident), rounded up.
const RUN_BYTES: f64 = 2048.0;
/// Peak bytes per sample of a finished run's time series, and per class of the policy's
/// queues sampled beside it: measured 64 bytes per sample for BF-J/S at 100 samples a run
/// (40,000 runs), 88 at 10,000 (100 runs), and 188 for VQS with J = 4 at 10,000. With these
/// prices the estimate of 80,000 runs of 101 samples is 940 MB against 645 MB measured.
const SAMPLE_BYTES: f64 = 96.0;
/// See [`SAMPLE_BYTES`].
const CLASS_SAMPLE_BYTES: f64 = 12.0;
/// Bytes per configuration a run's configuration mix holds (its label and share): VQS with
/// J = 30 held 3.6 KB more per finished run than BF-J/S (20,000 runs of 5,000 slots with
/// `samples = 1`, 4 December 2026), of which 1 KB its two samples of 61 queue classes, the
/// rest the mix of its 119 configurations of K_RED, about 22 bytes each; priced at 32.
const CONFIG_BYTES: f64 = 32.0;
/// Peak bytes per waiting job of a run in flight, single-resource path: measured 38 to 43
/// bytes per job between queue caps of 500,000 and 2,000,000 (BF-J/S, FIFO-FF, VQS, VQS-BF,
/// MaxWeight, load 3 on 100 servers), with room for a queue's growth by doubling.
const JOB_BYTES: f64 = 64.0;
/// The same for a scored policy (request vectors, NUMA nodes, constraint classes).
const SCORED_JOB_BYTES: f64 = 160.0;

/// Bytes of a finished run's delay record besides its histograms' entries: per size class a
/// histogram (its vector, sum and largest value) and the sum of its response times, and the
/// response-time histogram.
const DELAY_CLASS_BYTES: f64 = 72.0;
/// See [`DELAY_CLASS_BYTES`].
const DELAY_RECORD_BYTES: f64 = 128.0;

/// What the sweep's finished runs hold of their jobs' delays ([`crate::sim::waits`]), bytes,
/// and the most one run holds: a run keeps 8 bytes per nonzero bucket of its histograms, and a
/// histogram has no more nonzero buckets than jobs recorded, nor than buckets up to the longest
/// value it can hold (a wait: the run's longest horizon, `run.max_slots`; a response time: that
/// plus the longest service time the law draws). The jobs a run records are bounded by those
/// arriving at its point's rate over its longest horizon (with six standard deviations of a
/// Poisson count to spare).
fn delay_records(exp: &Experiment) -> (f64, f64) {
    use crate::sim::waits::buckets_up_to;
    let classes = exp.wait_classes.0.len() as f64;
    let service = exp.workload.service().reach();
    let per_policy = exp.policies.len() as f64 * exp.run.replications as f64;
    let (mut all, mut most) = (0.0f64, 0.0f64);
    for (k, p) in exp.points.iter().enumerate() {
        let horizon = match exp.run.slots() {
            Some((_, _, max_slots)) => max_slots,
            None => run_slots_of(exp, k),
        };
        let jobs = p.arrival_rate * horizon as f64;
        let jobs = jobs + 6.0 * jobs.sqrt() + 10.0;
        let waits = jobs.min(classes * buckets_up_to(horizon) as f64);
        let responses = jobs.min(buckets_up_to(horizon.saturating_add(service)) as f64);
        let run = DELAY_RECORD_BYTES + classes * DELAY_CLASS_BYTES + 8.0 * (waits + responses);
        all += run * per_policy;
        most = most.max(run);
    }
    (all, most)
}

/// The slots of a run at point `point` whose horizon is a trace's window.
fn run_slots_of(exp: &Experiment, point: usize) -> u64 {
    units::run_slots(exp, point) as u64
}

/// What a queueing plan holds in memory at its peak on `threads` threads (see
/// [`crate::experiment::memory`]): every finished run's record and time series until the
/// outputs are written, and on each thread a run in flight with its queue at the cap and its
/// copy of the size law; `units` runs in flight at most.
pub(in crate::experiment::queueing) fn memory(
    exp: &Experiment,
    threads: usize,
    units: usize,
) -> Vec<Use> {
    let runs = exp.points.len() as f64 * exp.policies.len() as f64 * exp.run.replications as f64;
    let slots = match exp.run.horizon {
        crate::experiment::queueing::Horizon::Slots { slots, .. } => slots,
        _ => u64::MAX,
    };
    let kept = exp.run.samples.min(slots) as f64 + 1.0;
    // the policies' queue classes, sampled beside the queue
    let classes = exp
        .policies
        .iter()
        .map(|p| {
            p.single()
                .map_or(0, |spec| spec.build(exp.servers).class_lengths().len())
        })
        .max()
        .unwrap_or(0) as f64;
    let per_sample = SAMPLE_BYTES + CLASS_SAMPLE_BYTES * classes;
    let in_flight = (threads as f64).min(units as f64).max(1.0);
    let per_job = if exp.policies.iter().any(|p| p.is_scored()) {
        SCORED_JOB_BYTES
    } else {
        JOB_BYTES
    };
    let law = match exp.workload.sizes() {
        crate::workload::SizeLaw::Empirical { values } => values.len() as f64 * 8.0,
        crate::workload::SizeLaw::Discrete { values, .. } => values.len() as f64 * 24.0,
        _ => 0.0,
    };
    let (delays, most) = delay_records(exp);
    // a configuration-based policy's mix: a label and a share per configuration it used (4J − 1
    // for VQS with classes 2J + 1), at most one per server and sample
    let mix = CONFIG_BYTES * (4.0 * classes).min(exp.servers as f64 * kept);
    vec![
        Use {
            key: "run.replications",
            what: format!("{runs:.0} finished runs' records"),
            bytes: runs * (RUN_BYTES + mix),
        },
        Use {
            key: "run.replications",
            what: format!(
                "{runs:.0} finished runs' waiting and response times ({} size classes, up to \
                 {} a run at run.max_slots)",
                exp.wait_classes.0.len(),
                crate::experiment::memory::bytes_words(most)
            ),
            bytes: delays,
        },
        Use {
            key: "run.samples",
            what: format!(
                "{runs:.0} runs' time series of {kept:.0} samples{}",
                if classes > 0.0 {
                    format!(" and {classes:.0} queue classes")
                } else {
                    String::new()
                }
            ),
            // finished runs, and the runs in flight, whose series grows to twice its length
            // before it is thinned
            bytes: (runs + in_flight) * kept * per_sample,
        },
        Use {
            key: "run.queue_cap",
            what: format!(
                "{in_flight:.0} runs in flight with up to {} waiting jobs each",
                exp.run.queue_cap
            ),
            bytes: in_flight * exp.run.queue_cap as f64 * per_job,
        },
        Use {
            key: "workload.sizes",
            what: "the size law, one copy per run in flight".into(),
            bytes: (in_flight + 1.0) * law,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn experiment(sweep: &str) -> Experiment {
        let text = format!(
            "name = \"t\"\n[cluster]\nservers = 2\n\
             [workload]\nsizes = {{ dist = \"uniform\", low = 0.1, high = 0.5 }}\n\
             service = {{ dist = \"geometric\", mean = 10.0 }}\n\
             [run]\nslots = 100000\nmax_slots = 1600000\nreplications = 2\n\
             [sweep]\nload = {sweep}\n[[policy]]\nname = \"bf-js\"\n"
        );
        Experiment::parse(Path::new("t.toml"), &text).unwrap()
    }

    #[test]
    fn a_sweep_closing_in_on_a_limit_is_priced_with_one_run_to_max_slots() {
        // three points 1 % apart: one run per policy and replication of 16 horizons
        assert!((stretch(&experiment("[0.89, 0.9, 0.91]")) - (1.0 + 15.0 / 3.0)).abs() < 1e-12);
        assert_eq!(stretch(&experiment("[0.5, 0.7, 0.9]")), SPARSE_STRETCH);
    }

    #[test]
    fn a_run_is_priced_by_its_arrival_rate_and_its_sweeps_stretch() {
        let low = seconds(&experiment("[0.5]"));
        let high = seconds(&experiment("[0.9]"));
        assert!(high > low && high < 2.0 * low, "{low} {high}");
        // a dense sweep: each point at one point's price, at the dense stretch
        let points = ["[0.5]", "[0.7]", "[0.9]", "[0.905]"];
        let alone: f64 = points.iter().map(|p| seconds(&experiment(p))).sum();
        let dense = seconds(&experiment("[0.5, 0.7, 0.9, 0.905]"));
        let expected = alone / SPARSE_STRETCH * (1.0 + 15.0 / 4.0);
        assert!((dense / expected - 1.0).abs() < 1e-9, "{dense} {expected}");
    }
}
