//! The second stage of a packing experiment: each scheduler's unit, every evaluator run for it.

use super::{PackingExperiment, SchedulerSpec};
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::limits::MAX_MACHINES;
use crate::packing::evaluate::{
    Compaction, Expansion, Inflated, Inflation, InflationOptions, Scheduler, compact,
    empty_machines, expansion, full_machines, hole_filling, inflation_sweep, monte_carlo_inflation,
    power, throughput_at, utilization,
};
use crate::packing::place::Scorer;
use crate::rng::Stream;

/// One scheduler's results.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct SchedulerResult {
    /// Per resource, the fraction of the capacity in use after the first packing.
    pub(crate) utilization: [f64; 3],
    /// Tasks left pending by it.
    pub(crate) pending: usize,
    /// Machines left empty.
    pub(crate) empty: usize,
    /// Per fragmentation threshold, machines counted full.
    pub(crate) full: Vec<usize>,
    /// Power under Stein et al.'s model, as a fraction of every machine at full power.
    pub(crate) power: f64,
    /// Per hole-filling unit size, the utilisation per resource after filling.
    pub(crate) holes: Vec<[f64; 3]>,
    /// Per (kind, conforming): the sweep.
    pub(crate) inflation: Vec<(Inflation, bool, Vec<Inflated>)>,
    /// Monte-Carlo inflation's trials, if it ran.
    pub(crate) monte_carlo: Option<Vec<Inflated>>,
    /// Per compaction τ, the trials.
    pub(crate) compaction: Vec<Compaction>,
    /// Expansion's trials.
    pub(crate) expansion: Vec<Expansion>,
    /// Per machine fraction x, the throughput T(x).
    pub(crate) throughput: Vec<f64>,
    /// With placement constraints: tasks left pending by the first packing, per constraint
    /// (in the order of [`crate::constraints::vocabulary`]).
    #[serde(default)]
    pub(crate) pending_by_constraint: Vec<usize>,
}

/// Expected cost of scheduler `i`: tasks × trials × evaluators (every scheduler alike but for
/// its scorer: scanning scorers visit every machine, first fit a tree).
pub(crate) fn cost(exp: &PackingExperiment, i: usize) -> f64 {
    let e = &exp.evaluate;
    let evaluators = 1
        + e.hole_units.len()
        + 4 * e.factors.len()
        + (e.compaction_tau.len() + e.throughput_x.len()) * e.trials
        + usize::from(e.mc_tau.is_some()) * e.trials
        + usize::from(e.expansion_tau.is_some()) * e.trials;
    let scan = match exp.schedulers[i].scorer {
        Scorer::FirstFit | Scorer::RandomFirstFit => 1.0,
        _ => 4.0,
    };
    exp.snapshot.tasks.len() as f64 * evaluators as f64 * scan
}

/// What scoring a machine costs with `scorer`, in best fit's scores: measured one scheduler at a
/// time on one thread over `packing_alibaba_gpu`'s evaluators (26 November 2026: best fit V3
/// and V4 37 and 41 s, dot product 41, E-PVM 52, sum-of-squares 87), whose per-machine share
/// `cargo bench --bench scorers` shows alone (sum-of-squares looks up its bucket counts twice
/// for every machine: 2.9 and 3.8 times best fit's price on the two real snapshots).
fn price(scorer: Scorer) -> f64 {
    match scorer {
        Scorer::SumOfSquares(_) => 2.2,
        Scorer::Epvm => 1.3,
        Scorer::DotProduct => 1.05,
        _ => 1.0,
    }
}

/// What a machine costs in an expansion trial, as a share of its price in a packing. The trial
/// keeps its cluster on the edge of saturation, so a scan passes over most machines at the
/// check that the task fits, before any score is computed: one trial of `numa_google2011` and
/// `numa_alibaba_gpu` took 0.24 to 0.45 of its price (Best Fit and E-PVM, each NUMA layer, τ
/// from 0.2 % to 5 %; one thread, 27 November 2026), so that both files were announced at 1.5
/// and 2 times the time they took.
const SATURATED_SCAN: f64 = 0.35;

/// Expected CPU seconds of scheduler `i`'s evaluators: packings × tasks × the cost of choosing
/// a machine (a scan of every machine for the scoring rules, a tree search for first fit),
/// at [`NS_PER_MACHINE_SCORED`](crate::limits::NS_PER_MACHINE_SCORED) per machine scored
/// times the scorer's [`price`].
///
/// An expansion trial is one pass over the tasks on a cluster that grows from the `start`
/// share of the machines to about the share f the workload needs (its busiest resource's
/// demand over the capacity), plus the retries of the pending tasks after each growth: about
/// τ of the tasks seen, ln(f / start) / τ times, so ln(f / start) packings' worth whatever
/// τ; a scan over (start + f) / 2 of the machines on average, each at [`SATURATED_SCAN`] of
/// its price (84 minutes and 5 minutes were announced for `numa_google2011` and
/// `numa_alibaba_gpu`, which take under a minute, when every expansion trial was priced as 1/τ
/// packings).
pub(crate) fn seconds(exp: &PackingExperiment, i: usize) -> f64 {
    let e = &exp.evaluate;
    let snap = &exp.snapshot;
    let m = snap.machines.len().max(2) as f64;
    let scorer = exp.schedulers[i].scorer;
    let tree = matches!(scorer, Scorer::FirstFit | Scorer::RandomFirstFit);
    // a packing on `share` of the machines, in machines scored per task
    let per_task = |share: f64| {
        let machines = (share * m).max(2.0);
        // a tree search costs about as much as scoring 5.7 machines per level
        if tree {
            5.7 * machines.log2()
        } else {
            machines * price(scorer)
        }
    };
    // a compaction trial: the doubling, then a binary search over twice the cluster
    let search = (2.0 * m).log2() + 2.0;
    let whole = 1.0
        + e.hole_units.len() as f64
        + 4.0 * e.factors.len() as f64
        + e.trials as f64
            * (e.compaction_tau.len() as f64 * search
                + e.throughput_x.len() as f64
                + f64::from(u8::from(e.mc_tau.is_some())));
    let expansion = e.expansion_tau.map_or(0.0, |_| {
        let start = e.expansion_start.clamp(1e-3, 1.0);
        let (demand, capacity) = (snap.demand(), snap.capacity());
        let need = (0..demand.len())
            .filter(|&d| capacity[d] > 0)
            .map(|d| demand[d] as f64 / capacity[d] as f64)
            .fold(start, f64::max);
        e.trials as f64
            * (1.0 + (need / start).ln())
            * per_task((start + need) / 2.0)
            // a tree search descends where the task fits: nothing to pass over
            * if tree { 1.0 } else { SATURATED_SCAN }
    });
    (whole * per_task(1.0) + expansion)
        * snap.tasks.len() as f64
        * crate::limits::NS_PER_MACHINE_SCORED
        * 1e-9
}

/// Every evaluator for scheduler `i`.
/// Fails if a compaction trial could not fit the workload within the machine cap.
pub(crate) fn run(exp: &PackingExperiment, i: usize) -> Result<SchedulerResult, ExperimentError> {
    let spec = &exp.schedulers[i];
    let label = &spec.label;
    let r = evaluate(exp, spec);
    if r.compaction
        .iter()
        .flat_map(|c| &c.trials)
        .any(|t| !t.fitted)
    {
        return Err(Ctx::new(&exp.header.file)
        .bad(
            "snapshot.file",
            &format!(
                "a workload that compaction can fit (with at most τ pending) on at most {MAX_MACHINES} machines"
            ),
            format!("one that scheduler `{label}` cannot fit on that many"),
        ));
    }
    Ok(r)
}

/// Every evaluator for one scheduler.
/// Workload inflation (Verma et al.'s Algorithms 1 and 2), horizontal and vertical, over all
/// tasks and over conforming ones only, at the file's factors.
fn inflations(
    exp: &PackingExperiment,
    spec: &SchedulerSpec,
    seed: u64,
) -> Vec<(Inflation, bool, Vec<Inflated>)> {
    let (snap, e) = (&exp.snapshot, &exp.evaluate);
    if e.factors.is_empty() {
        return Vec::new();
    }
    let mut v = Vec::new();
    for how in [Inflation::Horizontal, Inflation::Vertical] {
        for conforming in [false, true] {
            let r = inflation_sweep(
                snap,
                spec.order,
                spec.scorer,
                spec.numa.as_ref(),
                &e.factors,
                how,
                InflationOptions {
                    conforming_only: conforming,
                    picky: e.picky,
                    clip: e.clip,
                },
                seed,
            );
            v.push((how, conforming, r));
        }
    }
    v
}

/// Per constraint of the snapshot's vocabulary, the tasks requesting it that `assigned` left
/// pending (none without constraints).
fn pending_by_constraint(
    snap: &crate::packing::snapshot::Snapshot,
    assigned: &[Option<u32>],
) -> Vec<usize> {
    let Some(pl) = &snap.placement else {
        return Vec::new();
    };
    let vocab = crate::constraints::vocabulary(&pl.table);
    let mut n = vec![0; vocab.len()];
    for (t, a) in snap.tasks.iter().zip(assigned) {
        if a.is_none() {
            let set = &pl.table.classes()[t.class as usize];
            for (k, c) in vocab.iter().enumerate() {
                n[k] += set.contains(c) as usize;
            }
        }
    }
    n
}

fn evaluate(exp: &PackingExperiment, spec: &SchedulerSpec) -> SchedulerResult {
    let (label, order, scorer) = (&spec.label, spec.order, spec.scorer);
    let numa = spec.numa.as_ref();
    let (snap, e) = (&exp.snapshot, &exp.evaluate);
    let all: Vec<usize> = (0..snap.machines.len()).collect();
    let median = snap.median_machine();
    // seeded by the label, so adding a scheduler leaves the others' results as
    // they were
    let tag = label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let seed = Stream::Scheduler(tag).seed(exp.header.seed);
    let sched = Scheduler::new(snap, order, scorer).with_numa(spec.numa.clone());
    let p = sched.pack(snap, &all, seed);
    let holes = e
        .hole_units
        .iter()
        .map(|&u| {
            let unit = std::array::from_fn(|d| (median[d] as f64 * u).round() as u64);
            hole_filling(snap, &p, unit)
        })
        .collect();
    let inflation = inflations(exp, spec, seed);
    let monte_carlo = e.mc_tau.map(|tau| {
        (0..e.trials)
            .map(|k| {
                monte_carlo_inflation(
                    snap,
                    order,
                    scorer,
                    numa,
                    tau,
                    InflationOptions {
                        conforming_only: true,
                        picky: e.picky,
                        clip: e.clip,
                    },
                    Stream::Inflation(k as u64).seed(seed),
                )
            })
            .collect()
    });
    // compactions (usually most of the work) report the unit's progress, trial by trial
    let span = crate::progress::current();
    let n_tau = e.compaction_tau.len() as u64;
    let compaction = e
        .compaction_tau
        .iter()
        .enumerate()
        .map(|(k, &tau)| {
            let part = span.as_ref().map(|s| s.part(k as u64, n_tau));
            crate::progress::within(part, || compact(snap, &sched, tau, e.mu, e.trials, seed))
        })
        .collect();
    let expansion = e
        .expansion_tau
        .map(|tau| {
            (0..e.trials)
                .map(|k| {
                    expansion(
                        snap,
                        order,
                        scorer,
                        numa,
                        tau,
                        e.expansion_start,
                        // common random numbers: trial k adds the same machines for every
                        // scheduler, so their differences are the schedulers' own
                        Stream::Expansion(k as u64).seed(exp.header.seed),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let throughput = e
        .throughput_x
        .iter()
        .map(|&x| throughput_at(snap, &sched, x, e.trials, seed))
        .collect();
    let pending_by_constraint = pending_by_constraint(snap, &p.assigned);
    SchedulerResult {
        pending_by_constraint,
        utilization: utilization(snap, &p),
        pending: p.pending,
        empty: empty_machines(snap, &p),
        full: e
            .fragmentation_x
            .iter()
            .map(|&x| full_machines(snap, &p, x))
            .collect(),
        power: power(snap, &p, e.power_idle),
        holes,
        inflation,
        monte_carlo,
        compaction,
        expansion,
        throughput,
    }
}
