//! Packing evaluators of Verma, Korupolu and Wilkes (IEEE Cluster 2014): aggregate utilisation,
//! hole filling and cluster compaction (Algorithm 3), on the placement of [`super::place`].

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use super::numa::{Numa, NumaTally};
use super::place::{JobOrder, Packing, Placer, Scorer, fits, pack, task_order};
use super::snapshot::Task;
use super::snapshot::{MAX_DIMS, Resources, Snapshot, total};
use crate::rng::Stream;

/// A scheduler to evaluate: a task order, a scorer, and NUMA nodes with a layer of awareness
/// (or none).
#[derive(Clone, Debug)]
pub struct Scheduler {
    /// Task indices in placement order (see [`super::place::task_order`]).
    pub order: Vec<usize>,
    /// How a machine is chosen for a task.
    pub scorer: Scorer,
    /// NUMA nodes and the layer of awareness (`None`: machines without nodes).
    pub numa: Option<Numa>,
}

impl Scheduler {
    /// The scheduler placing `snap`'s tasks in `order` with `scorer`, machines without NUMA
    /// nodes.
    pub fn new(snap: &Snapshot, order: JobOrder, scorer: Scorer) -> Self {
        Scheduler {
            order: task_order(snap, order),
            scorer,
            numa: None,
        }
    }

    /// The same scheduler on machines with NUMA nodes.
    pub fn with_numa(mut self, numa: Option<Numa>) -> Self {
        self.numa = numa;
        self
    }

    /// Packs the snapshot's tasks onto `machines`.
    pub fn pack(&self, snap: &Snapshot, machines: &[usize], seed: u64) -> Packing {
        pack(
            snap,
            machines,
            &self.order,
            self.scorer,
            self.numa.as_ref(),
            seed,
        )
    }
}

/// Fraction of each resource's capacity allocated, over the enabled machines.
pub fn utilization(snap: &Snapshot, p: &Packing) -> [f64; MAX_DIMS] {
    let cap = total(p.machines.iter().map(|&m| &snap.machines[m]));
    let free = total(p.free.iter());
    std::array::from_fn(|d| {
        if cap[d] == 0 {
            0.0
        } else {
            (cap[d] - free[d]) as f64 / cap[d] as f64
        }
    })
}

/// Hole filling: count the units `unit` (every used dimension together) that fit in each
/// machine's free resources, and return the utilisation per resource had they been placed.
/// Units of a multiple size of another never fill more, so a doubling sweep of `unit` gives a
/// utilisation that does not increase.
pub fn hole_filling(snap: &Snapshot, p: &Packing, unit: Resources) -> [f64; MAX_DIMS] {
    let base = utilization(snap, p);
    let cap = total(p.machines.iter().map(|&m| &snap.machines[m]));
    let mut units: u128 = 0;
    for f in &p.free {
        let n = (0..snap.dims)
            .filter(|&d| unit[d] > 0)
            .map(|d| f[d] / unit[d])
            .min()
            .unwrap_or(0);
        units += n as u128;
    }
    std::array::from_fn(|d| {
        if cap[d] == 0 {
            0.0
        } else {
            base[d] + (units * unit[d] as u128) as f64 / cap[d] as f64
        }
    })
}

/// One compaction trial's outcome.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CompactionTrial {
    /// Machines in the cluster the search started from (after cloning until the workload
    /// fitted).
    pub cluster: usize,
    /// The smallest prefix of the random permutation found to hold the workload with at most
    /// τ pending.
    pub machines: usize,
    /// Packings run.
    pub packings: usize,
    /// Whether the workload fitted (with at most τ pending) in a cluster of at most
    /// [`MAX_MACHINES`](crate::limits::MAX_MACHINES) machines; if not, `machines` is
    /// meaningless and the experiment refuses the snapshot.
    pub fitted: bool,
}

/// Cluster compaction, Algorithm 3 of Verma et al. 2014: clone the cluster until the workload fits
/// with a pending fraction ≤ τ, take a random permutation of its machines, and binary-search
/// the shortest prefix on which the scheduler leaves at most τ of the tasks pending, to within
/// `mu` machines. Returns the smallest prefix shown to fit.
pub(crate) fn compact_trial(
    snap: &Snapshot,
    sched: &Scheduler,
    tau: f64,
    mu: usize,
    seed: u64,
) -> CompactionTrial {
    let mut ids: Vec<usize> = (0..snap.machines.len()).collect();
    let mut work = snap.clone();
    let mut packings = 0;
    // If every task fits some machine (the snapshot readers check it), T copies of the
    // cluster hold T tasks whatever the scorer: each task finds an empty copy of a machine it
    // fits. So ⌈log2 T⌉ doublings always suffice; the cap on machines bounds the memory.
    let doublings = usize::BITS - snap.tasks.len().max(1).leading_zeros();
    let mut fitted = false;
    for _ in 0..=doublings {
        packings += 1;
        if ids.is_empty() || sched.pack(&work, &ids, seed).pending_fraction() <= tau {
            fitted = true;
            break;
        }
        let n = work.machines.len();
        if 2 * n as u64 > crate::limits::MAX_MACHINES {
            break;
        }
        // machines ← machines + clone(machines)
        work.machines.extend_from_within(..);
        if let Some(pl) = &mut work.placement {
            pl.kind.extend_from_within(..);
        }
        ids.extend(n..2 * n);
    }
    if !fitted {
        return CompactionTrial {
            cluster: ids.len(),
            machines: ids.len(),
            packings,
            fitted,
        };
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    ids.shuffle(&mut rng);
    let (mut lo, mut hi) = (0usize, ids.len());
    while hi - lo > mu.max(1) {
        let mid = (lo + hi) / 2;
        packings += 1;
        if sched.pack(&work, &ids[..mid], seed).pending_fraction() > tau {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    CompactionTrial {
        cluster: ids.len(),
        machines: hi,
        packings,
        fitted,
    }
}

/// The result of repeated compaction trials.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Compaction {
    /// Each trial.
    pub trials: Vec<CompactionTrial>,
    /// The 90th percentile (nearest rank) of the trials' sizes, and their range.
    pub p90: usize,
    /// The smallest trial's size.
    pub min: usize,
    /// The largest trial's size.
    pub max: usize,
}

/// `trials` compaction trials in parallel, trial k seeded by (seed, k): results do not depend
/// on the number of threads.
pub fn compact(
    snap: &Snapshot,
    sched: &Scheduler,
    tau: f64,
    mu: usize,
    trials: usize,
    seed: u64,
) -> Compaction {
    // each trial reports its end to the progress of the unit running this, if any
    let span = crate::progress::current();
    let n = trials as u64;
    let trials: Vec<CompactionTrial> = (0..trials)
        .into_par_iter()
        .map(|k| {
            crate::progress::within(span.as_ref().map(|s| s.part(k as u64, n)), || {
                let t = compact_trial(
                    snap,
                    sched,
                    tau,
                    mu,
                    Stream::CompactionTrial(k as u64).seed(seed),
                );
                crate::progress::report(1.0);
                t
            })
        })
        .collect();
    let mut sizes: Vec<usize> = trials.iter().map(|t| t.machines).collect();
    sizes.sort_unstable();
    let rank = (0.9 * sizes.len() as f64).ceil().max(1.0) as usize - 1;
    Compaction {
        p90: sizes[rank],
        min: sizes[0],
        max: *sizes.last().expect("at least one trial"),
        trials,
    }
}

/// How Algorithm 1 grows the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Inflation {
    /// Clone ⌈n·(f − 1)⌉ tasks of each job (as new jobs); task sizes unchanged.
    Horizontal,
    /// Multiply every task's CPU and memory by f, clipped at the largest machine.
    Vertical,
}

/// Verma et al.'s picky threshold: a task is picky if it requests more than this fraction of the
/// median machine in some resource, or is eligible on fewer than this fraction of the machines
/// (it fits the empty machine and its placement constraints allow it). A job is conforming if none of its tasks is picky.
pub(crate) const PICKY: f64 = 0.6;

/// Which jobs are conforming (indexed by job id) for the picky threshold `picky` ([`PICKY`] in
/// Verma et al. 2014).
pub(crate) fn conforming_jobs(snap: &Snapshot, picky: f64) -> Vec<bool> {
    let median = snap.median_machine();
    let jobs = snap.jobs();
    let mut ok = vec![true; jobs];
    let m = snap.machines.len() as f64;
    let mut cache: std::collections::HashMap<(Resources, u32), bool> = Default::default();
    for t in &snap.tasks {
        let picky = *cache.entry((t.request, t.class)).or_insert_with(|| {
            let big = (0..MAX_DIMS).any(|d| t.request[d] as f64 > picky * median[d] as f64);
            // eligible: fits the empty machine, and the task's constraints allow it
            let eligible = snap
                .machines
                .iter()
                .enumerate()
                .filter(|(m, c)| {
                    fits(c, &t.request)
                        && snap
                            .placement
                            .as_ref()
                            .is_none_or(|pl| pl.table.allowed(t.class, pl.kind[*m]))
                })
                .count();
            big || (eligible as f64) < picky * m
        });
        if picky {
            ok[t.job as usize] = false;
        }
    }
    ok
}

/// Options of workload inflation (Verma et al. 2014, Section III-C).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InflationOptions {
    /// Grow only conforming jobs.
    pub conforming_only: bool,
    /// The picky threshold (fraction of the median machine, and of the machines).
    pub picky: f64,
    /// Vertical growth: clip a task at the largest machine (else it may grow past it and pend).
    pub clip: bool,
}

/// Algorithm 1: the workload inflated by factor `f` (≥ 1).
pub(crate) fn inflate(snap: &Snapshot, f: f64, how: Inflation, opt: InflationOptions) -> Snapshot {
    let grow: Vec<bool> = if opt.conforming_only {
        conforming_jobs(snap, opt.picky)
    } else {
        let jobs = snap.jobs();
        vec![true; jobs]
    };
    let mut out = snap.clone();
    match how {
        Inflation::Vertical => {
            let largest: Resources =
                std::array::from_fn(|d| snap.machines.iter().map(|m| m[d]).max().unwrap_or(0));
            for t in out.tasks.iter_mut().filter(|t| grow[t.job as usize]) {
                // CPU and memory grow; a third resource (disk) is left as it is
                for (r, &top) in t.request.iter_mut().zip(&largest).take(2) {
                    let grown = (*r as f64 * f).round() as u64;
                    *r = if opt.clip { grown.min(top) } else { grown };
                }
            }
        }
        Inflation::Horizontal => {
            let mut by_job: Vec<Vec<Task>> = vec![Vec::new(); grow.len()];
            for t in &snap.tasks {
                by_job[t.job as usize].push(*t);
            }
            let mut next = grow.len() as u32;
            for (j, tasks) in by_job.iter().enumerate() {
                if !grow[j] || tasks.is_empty() {
                    continue;
                }
                let k = (tasks.len() as f64 * (f - 1.0) - 1e-9).ceil().max(0.0) as usize;
                if k == 0 {
                    continue;
                }
                out.tasks.extend((0..k).map(|i| Task {
                    job: next,
                    ..tasks[i % tasks.len()]
                }));
                next += 1;
            }
        }
    }
    out
}

/// What an inflation produced.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Inflated {
    /// Tasks after inflation over tasks before.
    pub factor: f64,
    /// Tasks after inflation.
    pub tasks: usize,
    /// Of them, tasks left pending.
    pub pending: usize,
    /// Per resource, the fraction of the capacity in use.
    pub utilization: [f64; MAX_DIMS],
}

/// Algorithm 1 at each factor: inflate, schedule every task on all machines, report.
#[allow(clippy::too_many_arguments)]
pub fn inflation_sweep(
    snap: &Snapshot,
    order: JobOrder,
    scorer: Scorer,
    numa: Option<&Numa>,
    factors: &[f64],
    how: Inflation,
    opt: InflationOptions,
    seed: u64,
) -> Vec<Inflated> {
    let all: Vec<usize> = (0..snap.machines.len()).collect();
    factors
        .par_iter()
        .map(|&f| {
            let w = inflate(snap, f, how, opt);
            let p = Scheduler::new(&w, order, scorer)
                .with_numa(numa.cloned())
                .pack(&w, &all, seed);
            Inflated {
                factor: f,
                tasks: w.tasks.len(),
                pending: p.pending,
                utilization: utilization(&w, &p),
            }
        })
        .collect()
}

/// Algorithm 2, Monte-Carlo inflation: after scheduling the workload, clone a uniformly random
/// (conforming) job and schedule its tasks on the current state, until at least τ of all tasks
/// are pending. `factor` is the number of tasks over the original number.
pub fn monte_carlo_inflation(
    snap: &Snapshot,
    order: JobOrder,
    scorer: Scorer,
    numa: Option<&Numa>,
    tau: f64,
    opt: InflationOptions,
    seed: u64,
) -> Inflated {
    let all: Vec<usize> = (0..snap.machines.len()).collect();
    let mut placer = Placer::new(&snap.machines, &all, snap.machines.clone(), scorer, seed)
        .with_placement(snap.placement.as_ref(), &all);
    if let Some(n) = numa {
        placer = placer.with_numa(n);
    }
    let mut pending = 0usize;
    let mut tasks = 0usize;
    for i in task_order(snap, order) {
        tasks += 1;
        let t = &snap.tasks[i];
        pending += placer.place_class(&t.request, t.class).is_none() as usize;
    }
    let ok = conforming_jobs(snap, opt.picky);
    let mut by_job: Vec<Vec<(Resources, u32)>> = vec![Vec::new(); ok.len()];
    for t in &snap.tasks {
        by_job[t.job as usize].push((t.request, t.class));
    }
    let pool: Vec<usize> = (0..ok.len())
        .filter(|&j| (!opt.conforming_only || ok[j]) && !by_job[j].is_empty())
        .collect();
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x6d63);
    let limit = 1000 * snap.tasks.len().max(1);
    while !pool.is_empty() && (pending as f64) < tau * tasks as f64 && tasks < limit {
        let j = pool[rand::Rng::random_range(&mut rng, 0..pool.len())];
        for (r, class) in &by_job[j] {
            tasks += 1;
            pending += placer.place_class(r, *class).is_none() as usize;
        }
    }
    let cap = total(snap.machines.iter());
    let free = total(placer.frees().iter());
    Inflated {
        factor: tasks as f64 / snap.tasks.len().max(1) as f64,
        tasks,
        pending,
        utilization: std::array::from_fn(|d| {
            if cap[d] == 0 {
                0.0
            } else {
                (cap[d] - free[d]) as f64 / cap[d] as f64
            }
        }),
    }
}

/// The outcome of one Monte-Carlo expansion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Expansion {
    /// Machines at the end, when every task is placed.
    pub machines: usize,
    /// Their total CPU capacity (fixed-point units).
    pub cpu: u128,
    /// NUMA-fit bookkeeping at the end, when the machines have NUMA nodes.
    pub numa: Option<NumaTally>,
}

/// Monte-Carlo cluster expansion (Wu et al., "Evaluation of NUMA-Aware Scheduling in
/// Warehouse-Scale Clusters", IEEE CLOUD 2019): start from a random `start` fraction of the
/// machines (small enough to be over-saturated), schedule the tasks in order; whenever more
/// than τ of the tasks seen so far are pending, add ⌈τ·M⌉ machines (copies of random machines
/// of the original cluster, keeping its mix) and retry the pending tasks. Ends once every
/// task is placed. With `numa`, the machines have NUMA nodes and the scheduler its layer.
pub fn expansion(
    snap: &Snapshot,
    order: JobOrder,
    scorer: Scorer,
    numa: Option<&Numa>,
    tau: f64,
    start: f64,
    seed: u64,
) -> Expansion {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let m0 = snap.machines.len();
    // the machines so far: copies of machines of the snapshot (their indices)
    let mut from: Vec<usize> = Vec::new();
    let pick = |from: &mut Vec<usize>, n: usize, rng: &mut Pcg64Mcg| {
        for _ in 0..n {
            from.push(rand::Rng::random_range(rng, 0..m0));
        }
    };
    pick(
        &mut from,
        ((start * m0 as f64).ceil() as usize).max(1),
        &mut rng,
    );
    let caps_of =
        |from: &[usize]| -> Vec<Resources> { from.iter().map(|&m| snap.machines[m]).collect() };
    let kinds_of = |from: &[usize]| -> Vec<u32> {
        match &snap.placement {
            Some(pl) => from.iter().map(|&m| pl.kind[m]).collect(),
            None => Vec::new(),
        }
    };
    let caps = caps_of(&from);
    let ids: Vec<usize> = (0..caps.len()).collect();
    let mut placer = Placer::new(&caps, &ids, caps.clone(), scorer, seed);
    if let Some(pl) = &snap.placement {
        placer = placer.with_constraints(kinds_of(&from), pl.table.clone());
    }
    if let Some(n) = numa {
        placer = placer.with_numa(n);
    }
    let mut waiting: Vec<(Resources, u32)> = Vec::new();
    let mut seen = 0usize;
    let expand = |from: &mut Vec<usize>, placer: Placer, rng: &mut Pcg64Mcg| {
        let add = ((tau * from.len() as f64).ceil() as usize).max(1);
        pick(from, add, rng);
        placer.grown(&caps_of(from), &kinds_of(from), seed)
    };
    for i in task_order(snap, order) {
        seen += 1;
        let t = &snap.tasks[i];
        if placer.place_class(&t.request, t.class).is_none() {
            waiting.push((t.request, t.class));
        }
        if waiting.len() as f64 > tau * seen as f64 {
            placer = expand(&mut from, placer, &mut rng);
            waiting.retain(|(r, c)| placer.place_class(r, *c).is_none());
        }
    }
    let mut guard = 0;
    while !waiting.is_empty() && guard < 10_000 {
        placer = expand(&mut from, placer, &mut rng);
        waiting.retain(|(r, c)| placer.place_class(r, *c).is_none());
        guard += 1;
    }
    let caps = caps_of(&from);
    Expansion {
        machines: caps.len(),
        cpu: caps.iter().map(|c| c[0] as u128).sum(),
        numa: placer.numa_count(),
    }
}

/// Stein et al.'s T(x): tasks placed when only a random x (fraction) of the machines is used,
/// averaged over `trials` random subsets (trial k seeded by (seed, k)).
pub(crate) fn throughput_at(
    snap: &Snapshot,
    sched: &Scheduler,
    x: f64,
    trials: usize,
    seed: u64,
) -> f64 {
    let placed: usize = (0..trials)
        .into_par_iter()
        .map(|k| {
            let s = Stream::Share(k as u64, x).seed(seed);
            let mut ids: Vec<usize> = (0..snap.machines.len()).collect();
            ids.shuffle(&mut Pcg64Mcg::seed_from_u64(s));
            ids.truncate((x * ids.len() as f64).round() as usize);
            let p = sched.pack(snap, &ids, s);
            snap.tasks.len() - p.pending
        })
        .sum();
    placed as f64 / trials.max(1) as f64
}

/// Stein et al.'s machine fragmentation: machines whose free CPU and free memory are both
/// below the fraction `x` of their capacity ("full" machines).
pub(crate) fn full_machines(snap: &Snapshot, p: &Packing, x: f64) -> usize {
    p.machines
        .iter()
        .zip(&p.free)
        .filter(|(m, f)| {
            let c = snap.machines[**m];
            (0..2).all(|d| (f[d] as f64) < x * c[d] as f64)
        })
        .count()
}

/// Machines with no task.
pub(crate) fn empty_machines(snap: &Snapshot, p: &Packing) -> usize {
    p.machines
        .iter()
        .zip(&p.free)
        .filter(|(m, f)| **f == snap.machines[**m])
        .count()
}

/// Power of a packing under Stein et al.'s model, as a fraction of every machine at full
/// power: an empty machine is off (0); a busy machine with CPU utilisation u draws
/// `idle + (1 − idle)·max(u, 1/2)` of its peak — below half load it costs as much as at half
/// load (inefficient), above it grows linearly to 1. `idle` is the fraction drawn at half load
/// minus the linear part; 0.5 gives 0.75 of peak at half load.
pub(crate) fn power(snap: &Snapshot, p: &Packing, idle: f64) -> f64 {
    let mut w = 0.0;
    for (m, f) in p.machines.iter().zip(&p.free) {
        let c = snap.machines[*m];
        if *f == c {
            continue;
        }
        let u = if c[0] == 0 {
            0.0
        } else {
            1.0 - f[0] as f64 / c[0] as f64
        };
        w += idle + (1.0 - idle) * u.max(0.5);
    }
    w / p.machines.len().max(1) as f64
}
