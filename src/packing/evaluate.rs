//! Packing evaluators of seed 000 (Verma, Korupolu, Wilkes): aggregate utilisation, hole
//! filling and cluster compaction (Algorithm 3), on the placement of [`super::place`].

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use super::place::{Packing, Scorer, pack};
use super::snapshot::{MAX_DIMS, Resources, Snapshot, total};
use crate::workload::derive_seed;

/// A scheduler to evaluate: a task order and a scorer.
#[derive(Clone, Debug)]
pub struct Scheduler {
    /// Task indices in placement order (see [`super::place::task_order`]).
    pub order: Vec<usize>,
    pub scorer: Scorer,
}

impl Scheduler {
    /// Packs the snapshot's tasks onto `machines`.
    pub fn pack(&self, snap: &Snapshot, machines: &[usize], seed: u64) -> Packing {
        pack(snap, machines, &self.order, self.scorer, seed)
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
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionTrial {
    /// Machines in the cluster the search started from (after cloning until the workload
    /// fitted).
    pub cluster: usize,
    /// The smallest prefix of the random permutation found to hold the workload with at most
    /// τ pending.
    pub machines: usize,
    /// Packings run.
    pub packings: usize,
}

/// Cluster compaction, Algorithm 3 of seed 000: clone the cluster until the workload fits
/// with a pending fraction ≤ τ, take a random permutation of its machines, and binary-search
/// the shortest prefix on which the scheduler leaves at most τ of the tasks pending, to within
/// `mu` machines. Returns the smallest prefix shown to fit.
pub fn compact_trial(
    snap: &Snapshot,
    sched: &Scheduler,
    tau: f64,
    mu: usize,
    seed: u64,
) -> CompactionTrial {
    let mut ids: Vec<usize> = (0..snap.machines.len()).collect();
    let mut work = snap.clone();
    let mut packings = 0;
    loop {
        packings += 1;
        if sched.pack(&work, &ids, seed).pending_fraction() <= tau || ids.is_empty() {
            break;
        }
        // machines ← machines + clone(machines)
        let n = work.machines.len();
        work.machines.extend_from_within(..);
        ids.extend(n..2 * n);
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
    }
}

/// The result of repeated compaction trials.
#[derive(Clone, Debug, PartialEq)]
pub struct Compaction {
    pub trials: Vec<CompactionTrial>,
    /// The 90th percentile (nearest rank) of the trials' sizes, and their range.
    pub p90: usize,
    pub min: usize,
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
    let trials: Vec<CompactionTrial> = (0..trials)
        .into_par_iter()
        .map(|k| compact_trial(snap, sched, tau, mu, derive_seed(seed, &[k as u64])))
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
