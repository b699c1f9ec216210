//! The one cost model of queueing files, read off the plan's units: the work each unit asks
//! for (checked against [`limits`] before anything runs: [`admit`]), its expected CPU time
//! (what the estimate printed before a long run sums, and what the engine weighs units by for
//! shards, progress and time left), and what the plan holds in memory at its peak.
//!
//! Each price is what the unit's own value says it runs: its scenario's horizon chain and
//! arrival rate, its policy's relative cost and path, its search's rounds and probes, what its
//! finished record will hold.

use std::collections::HashMap;

use super::{At, Jobs, Layer, Placement, Scenario, Unit, Work};
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::experiment::memory::Use;
use crate::experiment::queueing::Experiment;
use crate::limits::{self, MAX_EVENTS, MAX_UNITS};
use crate::sim::waits::buckets_up_to;
use crate::workload::{ArrivalProcess, SizeLaw};

/// Refuses a plan of more than [`MAX_UNITS`] units (before it is built), a search whose loads
/// its arrival process cannot bring, or a plan of more than [`MAX_EVENTS`] slots and arrivals
/// at the runs' longest horizon.
pub(in crate::experiment::queueing) fn admit(
    exp: &Experiment,
) -> Result<Vec<Unit>, ExperimentError> {
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
    let plan = super::plan(exp);
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
            .filter_map(|u| search_of(u).map(|s| s.family.rate_at(s.rho.1)))
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
        .map(|u| match &u.work {
            // a run that stays undecided doubles its horizon up to max_slots
            Work::Run(r) => {
                let c = r.scenario.chain;
                events(u) * c.max_slots as f64 / c.slots.max(1) as f64
            }
            _ => events(u),
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
    Ok(plan)
}

/// The search a unit runs, if it runs one.
fn search_of(u: &Unit) -> Option<&super::SearchWork> {
    match &u.work {
        Work::Search(s) => Some(s),
        Work::Study(s) => Some(&s.search),
        _ => None,
    }
}

/// Work per slot at λ jobs per slot: the slot loop simulates only slots with an arrival or a
/// departure (at most all of them, about 2λ when λ is small), and every job is placed once.
fn per_slot(lambda: f64) -> f64 {
    (2.0 * lambda).min(1.0) + 2.0 * lambda
}

/// A limit search's cost, in runs to `max_slots` per replication at the near-limit price of a
/// slot. Fitted to the measured CPU time of thresholds_uniform_small and _large: 2.8 until the
/// last probe under ρ* went below the midpoint, then 2.3 (both files within a factor 1.2 of
/// their CPU time, 130 and 49 s on 27 November 2026, on the machine the prices of
/// [`crate::limits::NS_PER_SLOT`] were fitted on), then 1.75 on 29 November 2026, once first
/// rounds stopped at three agreeing runs and where the rest could not tip the pooled test: the
/// small file's estimate had become 1.8 times its wall time (1.4 since). 1.75 is also where
/// the floor below lies for both files (seven probes at 4·10⁶ slots and one run to 3.2·10⁷).
const LIMIT_MAX_SLOTS: f64 = 1.75;

/// The horizon a map's run is expected to simulate, in multiples of `slots`. The seven
/// committed maps measured 1.9 to 5.3 per run (27 November 2026: `region_map_servers` 1.9,
/// `_fig3b` 2.6, `_vectors` 2.8, `_constraints` 3.7, `_numa` 4.0, `_fig3a` 4.4, `_held` 5.3)
/// and 6.3 to 7.1 probes per search. How soon a ray's runs decide depends on where its
/// policies' limits lie, which is not known before the run; 2.4 (3.3 before that day, the
/// geometric middle of four maps) puts the estimates of the six maps that print one (two of
/// them only with `--threads 1`) within a factor 1.5 of their measured wall times on two
/// cores (0.71 to 1.42 of them).
const MAP_STRETCH: f64 = 2.4;

/// The run's slots (the window's for a trace), times its policy's relative cost (1.5 for the
/// configuration-based ones), and twice that when it is also run without constraints.
fn run_work(r: &super::RunWork) -> f64 {
    let twins = if r.lifted.is_some() { 2.0 } else { 1.0 };
    r.scenario.chain.slots as f64 * r.scenario.placement.cost() * twins
}

/// Expected work of a unit, in events (slots with something to do and arrivals): slots × work
/// per slot, times the policy's relative cost; a limit search as its probes' runs near the
/// limit, which often double their horizon. The admission measure ([`MAX_EVENTS`]), which the
/// prices turn into time.
fn events(u: &Unit) -> f64 {
    match (&u.work, u.at) {
        (Work::Run(r), _) => run_work(r) * per_slot(r.scenario.jobs.rate()),
        // most probes are decided at the first horizon; the few near the limit run to
        // max_slots, and a search stops spending where its probes stay undecided, so its cost
        // does not grow with max_probes: LIMIT_MAX_SLOTS runs' worth of max_slots per
        // replication, measured on thresholds_uniform_small and _large; and never less than
        // the bisection's probes at their horizon and one run to max_slots (which is what a
        // search with max_slots close to slots costs: numa_stability_split, max_slots twice
        // slots, simulated 6 to 10 horizons per replication)
        (Work::Search(s), At::Ray { .. }) => ray_slots(s) * near_limit(s),
        (Work::Search(s), _) => {
            let base = s.family.base();
            let (slots, max_slots) = (base.chain.slots, base.chain.max_slots);
            let probes = (1.0 / s.spec.resolution)
                .log2()
                .ceil()
                .min(f64::from(s.spec.max_probes));
            let floor = probes * slots as f64 + max_slots.saturating_sub(slots) as f64;
            (LIMIT_MAX_SLOTS * max_slots as f64).max(floor)
                * f64::from(s.replications)
                * near_limit(s)
                * base.placement.cost()
        }
        (Work::Saturation(w), _) => {
            (w.warmup + w.slots) as f64 * per_slot(w.servers as f64 / w.service.mean())
        }
        // a study's search: every probe of its `limit_steps` all its rounds at max_slots
        // (fitted on stability_vs_packing, the shipped study, whose runs are not extended and
        // whose probes near the limit stay undecided to the end: 681 s on two cores on 26
        // November 2026 against 10 minutes estimated; a quarter of that before)
        (Work::Study(w), _) => {
            let s = &w.search;
            let base = s.family.base();
            s.spec.max_probes as f64
                * f64::from(s.replications)
                * f64::from(s.spec.rounds)
                * base.chain.max_slots as f64
                * near_limit(s)
                * base.placement.cost()
        }
    }
}

/// Work per slot of a search's runs near its limit: at the arrival rate of ρ*'s upper end.
fn near_limit(s: &super::SearchWork) -> f64 {
    per_slot(s.family.rate_at(s.rho.1))
}

/// Slots a region map's search along one ray is expected to simulate: a bisection to the
/// map's resolution, log₂(1/resolution) probes and one more (at most `max_probes`), each of
/// `replications` runs averaging [`MAP_STRETCH`] × `slots` (capped at `max_slots`), times the
/// policy's relative cost.
fn ray_slots(s: &super::SearchWork) -> f64 {
    let base = s.family.base();
    let probes = (1.0 / s.spec.resolution).log2().ceil() + 1.0;
    probes.min(f64::from(s.spec.max_probes))
        * f64::from(s.replications)
        * (MAP_STRETCH * base.chain.slots as f64).min(base.chain.max_slots as f64)
        * base.placement.cost()
}

/// CPU cost of a slot of a region map's search and of a job in it, ns, on the machine the
/// prices of [`limits::NS_PER_SLOT`] were fitted on (fitted on the committed maps: on an
/// earlier machine 33, 48 and 333 ns per slot at 0.18, 0.3 and 3 jobs per slot, one and ten
/// servers; scaled on 27 November 2026 so that the five maps' estimated wall times on two
/// cores were within a factor 1.5 of the measured, 8.5 to 52 s).
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

/// The horizon the plan's sweep runs are expected to simulate, in multiples of their first
/// horizon. Where a policy's limit lies is not known before the run, but runs at two arrival
/// rates within [`DENSE`] of each other are read as a sweep placed around a limit: one run per
/// policy and replication is expected to go to `max_slots` (the calibration files, points 1 %
/// apart around a limit, simulated 2.5 to 3.7 times their horizon; this gives 2.7). Otherwise
/// [`SPARSE_STRETCH`].
fn stretch(plan: &[Unit]) -> f64 {
    let mut rates = Vec::new();
    let mut extension = 1.0;
    for u in plan {
        if let Work::Run(r) = &u.work
            && !matches!(r.scenario.jobs, Jobs::Trace { .. })
        {
            rates.push(r.scenario.jobs.rate());
            let c = r.scenario.chain;
            extension = c.max_slots as f64 / c.slots.max(1) as f64;
        }
    }
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    if rates.is_empty() {
        return 1.0;
    }
    let dense = rates.windows(2).any(|w| w[1] - w[0] < DENSE * w[1]);
    if dense {
        1.0 + (extension - 1.0) / rates.len() as f64
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

/// The factor of a placement's path: `constrained` under placement constraints, `scored` for
/// a scored policy (several resources, NUMA nodes), 1 on the single-resource path.
fn path(p: &Placement, constrained: f64, scored: f64) -> f64 {
    match p {
        Placement::Scored {
            layer: Layer::Constraints { .. },
            ..
        } => constrained,
        Placement::Scored { .. } => scored,
        Placement::Single(_) => 1.0,
    }
}

/// Expected CPU seconds of the whole plan, on the machine the prices of
/// [`limits::NS_PER_SLOT`] were fitted on: the sum of its units' prices.
pub(in crate::experiment::queueing) fn seconds(plan: &[Unit]) -> f64 {
    costs(plan).iter().sum::<f64>() * 1e-9
}

/// The price of a unit: its expected CPU time, ns, on the machine the prices of
/// [`limits::NS_PER_SLOT`] were fitted on, with `stretch` the sweep's expected horizon
/// ([`stretch`]).
fn unit_nanoseconds(u: &Unit, stretch: f64) -> f64 {
    match (&u.work, u.at) {
        (Work::Run(r), _) => {
            let s = &r.scenario;
            let slots = run_work(r);
            match &s.jobs {
                // each job at the price of a replayed job
                Jobs::Trace { rate, .. } => slots * (limits::NS_PER_SLOT + rate * TRACE_NS_PER_JOB),
                // an empty slot is priced only where an arrival or a departure stops the loop
                jobs => {
                    let rate = jobs.rate();
                    let multi = path(&s.placement, RUN_CONSTRAINED, RUN_MULTI_RESOURCE);
                    slots
                        * ((2.0 * rate).min(1.0) * limits::NS_PER_SLOT
                            + rate * RUN_NS_PER_JOB * multi)
                        * stretch
                }
            }
        }
        // a map's search: its slots at the ray's limit, at the cost per slot measured on the
        // committed maps
        (Work::Search(s), At::Ray { .. }) => {
            let rate = s.family.rate_at(s.rho.1);
            let multi = path(
                &s.family.base().placement,
                MAP_CONSTRAINED,
                MAP_MULTI_RESOURCE,
            );
            ray_slots(s) * (MAP_NS_PER_SLOT + rate * MAP_NS_PER_JOB) * multi
        }
        // a limit search's runs (a study's too) are near the limit: slots at its arrival rate
        (Work::Search(s) | Work::Study(super::StudyWork { search: s, .. }), _) => {
            let rate = s.family.rate_at(s.rho.1);
            let measured = match (&u.work, &s.family.base().placement) {
                (Work::Study(_), _) => STUDY,
                (_, Placement::Scored { .. }) => SCORED_SEARCH,
                _ => 1.0,
            };
            events(u) / (1.0 + rate) * (limits::NS_PER_SLOT + rate * limits::NS_PER_JOB) * measured
        }
        (Work::Saturation(w), _) => {
            let rate = w.servers as f64 / w.service.mean();
            events(u) / (1.0 + rate) * (limits::NS_PER_SLOT + rate * limits::NS_PER_JOB)
        }
    }
}

/// Every unit's price, the sweep's stretch computed once: the engine weighs units by it.
pub(in crate::experiment::queueing) fn costs(plan: &[Unit]) -> Vec<f64> {
    let stretch = stretch(plan);
    plan.iter().map(|u| unit_nanoseconds(u, stretch)).collect()
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

/// What a finished run of `s` holds of its jobs' delays ([`crate::sim::waits`]), bytes: 8 bytes
/// per nonzero bucket of its histograms, and a histogram has no more nonzero buckets than jobs
/// recorded, nor than buckets up to the longest value it can hold (a wait: the run's longest
/// horizon; a response time: that plus the longest service time the law draws). The jobs a
/// run records are bounded by those arriving at its rate over its longest horizon (with six
/// standard deviations of a Poisson count to spare).
fn delay_record(s: &Scenario) -> f64 {
    let Some((classes, _)) = &s.waits else {
        return 0.0;
    };
    let classes = classes.len() as f64;
    let horizon = s.chain.max_slots;
    let (rate, service) = match &s.jobs {
        Jobs::Trace { rate, trace, .. } => (*rate, trace.1.service.reach()),
        Jobs::Sampled { rate, service, .. } | Jobs::Requests { rate, service, .. } => {
            (*rate, service.reach())
        }
    };
    let jobs = rate * horizon as f64;
    let jobs = jobs + 6.0 * jobs.sqrt() + 10.0;
    let waits = jobs.min(classes * buckets_up_to(horizon) as f64);
    let responses = jobs.min(buckets_up_to(horizon.saturating_add(service)) as f64);
    DELAY_RECORD_BYTES + classes * DELAY_CLASS_BYTES + 8.0 * (waits + responses)
}

/// Bytes of a copy of a size law (each run in flight holds one).
fn law_bytes(s: &Scenario) -> f64 {
    match &s.jobs {
        Jobs::Sampled { sizes, .. } => match &**sizes {
            SizeLaw::Empirical { values } => values.len() as f64 * 8.0,
            SizeLaw::Discrete { values, .. } => values.len() as f64 * 24.0,
            SizeLaw::Uniform { .. } => 0.0,
        },
        Jobs::Requests { requests, .. } => requests.len() as f64 * 24.0,
        Jobs::Trace { .. } => 0.0,
    }
}

/// What a queueing plan holds in memory at its peak on `threads` threads (see
/// [`crate::experiment::memory`]): its units, every finished run's record, delays and time
/// series until the outputs are written, and on each thread a run in flight with its queue at
/// the cap and its copy of the size law.
pub(in crate::experiment::queueing) fn memory(plan: &[Unit], threads: usize) -> Vec<Use> {
    let in_flight = (threads as f64).min(plan.len() as f64).max(1.0);
    // the queue classes of each policy's runs (built once per policy)
    let mut classes_of: HashMap<usize, f64> = HashMap::new();
    let (mut runs, mut records, mut delays, mut series) = (0.0f64, 0.0, 0.0, 0.0);
    let (mut most_delay, mut most_series, mut wait_classes) = (0.0f64, 0.0f64, 0);
    let (mut cap, mut law, mut classes_seen) = (0.0f64, 0.0f64, 0.0f64);
    let (mut most_cap, mut most_kept) = (0u64, 0.0f64);
    for u in plan {
        let scenario = match &u.work {
            Work::Run(r) => &r.scenario,
            Work::Search(s) => s.family.base(),
            Work::Study(s) => s.search.family.base(),
            Work::Saturation(_) => continue,
        };
        let per_job = match scenario.placement {
            Placement::Scored { .. } => SCORED_JOB_BYTES,
            Placement::Single(_) => JOB_BYTES,
        };
        cap = cap.max(scenario.chain.queue_cap as f64 * per_job);
        most_cap = most_cap.max(scenario.chain.queue_cap);
        law = law.max(law_bytes(scenario));
        let Work::Run(r) = &u.work else {
            continue;
        };
        let s = &r.scenario;
        let classes = *classes_of
            .entry(u.at.policy())
            .or_insert_with(|| match &s.placement {
                Placement::Single(spec) => spec.build(s.servers).class_lengths().len() as f64,
                Placement::Scored { .. } => 0.0,
            });
        classes_seen = classes_seen.max(classes);
        let kept = s.chain.samples.min(s.chain.slots) as f64 + 1.0;
        most_kept = most_kept.max(kept);
        // a configuration-based policy's mix: a label and a share per configuration it used
        // (4J − 1 for VQS with classes 2J + 1), at most one per server and sample
        let mix = CONFIG_BYTES * (4.0 * classes).min(s.servers as f64 * kept);
        runs += 1.0;
        records += RUN_BYTES + mix;
        let one_series = kept * (SAMPLE_BYTES + CLASS_SAMPLE_BYTES * classes);
        series += one_series;
        most_series = most_series.max(one_series);
        let d = delay_record(s);
        delays += d;
        most_delay = most_delay.max(d);
        wait_classes = wait_classes.max(s.waits.as_ref().map_or(0, |w| w.0.len()));
    }
    // the plan itself: every unit, its scenarios inline (what they share is held once)
    let unit = std::mem::size_of::<Unit>() as f64 + 64.0;
    vec![
        Use {
            key: "run.replications",
            what: format!("the plan's {} units", plan.len()),
            bytes: plan.len() as f64 * unit,
        },
        Use {
            key: "run.replications",
            what: format!("{runs:.0} finished runs' records"),
            bytes: records,
        },
        Use {
            key: "run.replications",
            what: format!(
                "{runs:.0} finished runs' waiting and response times ({wait_classes} size \
                 classes, up to {} a run at run.max_slots)",
                crate::experiment::memory::bytes_words(most_delay)
            ),
            bytes: delays,
        },
        Use {
            key: "run.samples",
            what: format!(
                "{runs:.0} runs' time series of {most_kept:.0} samples{}",
                if classes_seen > 0.0 {
                    format!(" and {classes_seen:.0} queue classes")
                } else {
                    String::new()
                }
            ),
            // finished runs, and the runs in flight, whose series grows to twice its length
            // before it is thinned
            bytes: series + in_flight * most_series,
        },
        Use {
            key: "run.queue_cap",
            what: format!("{in_flight:.0} runs in flight with up to {most_cap} waiting jobs each"),
            bytes: in_flight * cap,
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

    /// The plan of a small file sweeping `sweep`.
    fn plan(sweep: &str) -> Vec<Unit> {
        let text = format!(
            "name = \"t\"\n[cluster]\nservers = 2\n\
             [workload]\nsizes = {{ dist = \"uniform\", low = 0.1, high = 0.5 }}\n\
             service = {{ dist = \"geometric\", mean = 10.0 }}\n\
             [run]\nslots = 100000\nmax_slots = 1600000\nreplications = 2\n\
             [sweep]\nload = {sweep}\n[[policy]]\nname = \"bf-js\"\n"
        );
        super::super::plan(&Experiment::parse(Path::new("t.toml"), &text).unwrap())
    }

    #[test]
    fn a_sweep_closing_in_on_a_limit_is_priced_with_one_run_to_max_slots() {
        // three points 1 % apart: one run per policy and replication of 16 horizons
        assert!((stretch(&plan("[0.89, 0.9, 0.91]")) - (1.0 + 15.0 / 3.0)).abs() < 1e-12);
        assert_eq!(stretch(&plan("[0.5, 0.7, 0.9]")), SPARSE_STRETCH);
    }

    #[test]
    fn a_run_is_priced_by_its_arrival_rate_and_its_sweeps_stretch() {
        let low = seconds(&plan("[0.5]"));
        let high = seconds(&plan("[0.9]"));
        assert!(high > low && high < 2.0 * low, "{low} {high}");
        // a dense sweep: each point at one point's price, at the dense stretch
        let points = ["[0.5]", "[0.7]", "[0.9]", "[0.905]"];
        let alone: f64 = points.iter().map(|p| seconds(&plan(p))).sum();
        let dense = seconds(&plan("[0.5, 0.7, 0.9, 0.905]"));
        let expected = alone / SPARSE_STRETCH * (1.0 + 15.0 / 4.0);
        assert!((dense / expected - 1.0).abs() < 1e-9, "{dense} {expected}");
    }

    /// What a finished run holds of its delays is bounded by its jobs and by the buckets up
    /// to its longest wait and response: few jobs with long services hold few entries.
    #[test]
    fn a_delay_record_is_priced_from_what_bounds_it() {
        let units = plan("[0.5]");
        let Work::Run(r) = &units[0].work else {
            panic!("a run first")
        };
        let d = delay_record(&r.scenario);
        // ten size classes (deciles), waits up to 1.6·10⁶ slots: every class's buckets
        let classes = 10.0;
        let waits = classes * buckets_up_to(1_600_000) as f64;
        assert!(d > 8.0 * waits && d < 8.0 * 2.0 * waits + 2000.0, "{d}");
    }

    /// A unit is small whatever it shares (its laws and tables are held once), so a plan of a
    /// million units is priced, and held, in a few hundred MB at most.
    #[test]
    fn a_unit_is_small() {
        let size = std::mem::size_of::<Unit>();
        assert!(size < 1024, "{size} bytes");
    }
}
