//! Placement (Stein et al.): for each task, filter the machines it fits on, score them, take the
//! lowest score (ties: the machine met first in the enabled order). Scores use the machine's
//! free fraction of each resource *after* placing the task, `free_pct_d = (free_d − req_d) /
//! cap_d`:
//! - Best Fit V1 Σ free_pct (CPU + RAM), V2 Σ free_pct², V3 10·Σ, V4 10·Σ over CPU, RAM and
//!   disk, V5 max(free_pct_RAM, free_pct_CPU);
//! - First Fit V1: the machine id; V2: a random rank drawn once per machine;
//! - Sum-of-Squares V1 / V2: Σ_k b(k)² over buckets of absolute free resources (CPU and RAM in
//!   10 / 20 parts, disk in 5) after the placement — the lowest keeps the free profile diverse;
//! - E-PVM (worst fit): −10·Σ free_pct over CPU, RAM, disk;
//! - Random: a uniformly random feasible machine;
//! - Dot product ("alignment"): −Σ_d (req_d / cap_d)·(free_d / cap_d), before placing.
//!
//! Tasks are placed in a job order of Verma et al. 2014: arrival, or jobs by decreasing CPU, memory
//! or normalised sum (CPU + memory, both as fractions of the largest machine) of their largest
//! task; a job's tasks stay together in their order. First fit with decreasing order is first-fit
//! decreasing.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use std::sync::Arc;

use super::numa::{Allocation, Layer, Numa, NumaLayout, NumaMachines, NumaTally};
use super::snapshot::{MAX_DIMS, Placement, Resources, Snapshot, max_each};
use crate::constraints::Eligibility;
pub use crate::model::Scorer;
use crate::model::Size;

/// The order in which tasks are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum JobOrder {
    /// Jobs in arrival order.
    Arrival,
    /// Jobs by decreasing CPU request of their largest task.
    Cpu,
    /// Jobs by decreasing memory request of their largest task.
    Memory,
    /// Jobs by decreasing CPU + memory (fractions of the largest machine) of their largest task.
    Sum,
}

impl JobOrder {
    /// The order named `s` in experiment files.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "arrival" => JobOrder::Arrival,
            "cpu" => JobOrder::Cpu,
            "memory" => JobOrder::Memory,
            "sum" => JobOrder::Sum,
            _ => return None,
        })
    }
}

/// Task indices in the order `order` places them.
pub fn task_order(snap: &Snapshot, order: JobOrder) -> Vec<usize> {
    let key = |r: &Resources| -> u64 {
        match order {
            JobOrder::Arrival => 0,
            JobOrder::Cpu => r[0],
            JobOrder::Memory => r[1],
            JobOrder::Sum => r[0] + r[1],
        }
    };
    let jobs = snap.jobs();
    let mut job_key = vec![0u64; jobs];
    let mut first = vec![usize::MAX; jobs];
    for (i, t) in snap.tasks.iter().enumerate() {
        let j = t.job as usize;
        job_key[j] = job_key[j].max(key(&t.request));
        first[j] = first[j].min(i);
    }
    let mut idx: Vec<usize> = (0..snap.tasks.len()).collect();
    // decreasing job key, then the job's first appearance, then the task's own position
    idx.sort_by_key(|&i| {
        let j = snap.tasks[i].job as usize;
        (std::cmp::Reverse(job_key[j]), first[j], i)
    });
    idx
}

/// The outcome of packing tasks onto a set of machines.
#[derive(Clone, Debug)]
pub struct Packing {
    /// The enabled machines (indices into the snapshot), in enabled order.
    pub machines: Vec<usize>,
    /// Free resources of each enabled machine after packing.
    pub free: Vec<Resources>,
    /// For each task, the position (in `machines`) of its machine, or `None` if pending.
    pub assigned: Vec<Option<u32>>,
    /// Tasks left pending.
    pub pending: usize,
    /// NUMA-fit bookkeeping, when the machines have NUMA nodes.
    pub numa: Option<NumaTally>,
}

impl Packing {
    /// The fraction of the tasks left pending (0 without tasks).
    pub fn pending_fraction(&self) -> f64 {
        if self.assigned.is_empty() {
            0.0
        } else {
            self.pending as f64 / self.assigned.len() as f64
        }
    }
}

/// Does `req` fit in `free`, in every resource?
#[inline]
pub(crate) fn fits(free: &Resources, req: &Resources) -> bool {
    free.iter().zip(req).all(|(f, r)| f >= r)
}

/// Max-tree over machines of per-dimension free resources: the first machine (in tree order)
/// where a request fits, by depth-first search pruned on the per-dimension maxima.
struct FitTree {
    leaves: usize,
    tree: Vec<Resources>,
}

impl FitTree {
    fn new(free: &[Resources]) -> Self {
        let leaves = free.len().next_power_of_two().max(1);
        let mut tree = vec![[0; MAX_DIMS]; 2 * leaves];
        tree[leaves..leaves + free.len()].copy_from_slice(free);
        for v in (1..leaves).rev() {
            tree[v] = max_each(&tree[2 * v], &tree[2 * v + 1]);
        }
        FitTree { leaves, tree }
    }

    fn update(&mut self, i: usize, free: Resources) {
        let mut v = self.leaves + i;
        self.tree[v] = free;
        while v > 1 {
            v /= 2;
            self.tree[v] = max_each(&self.tree[2 * v], &self.tree[2 * v + 1]);
        }
    }

    fn first_fit(&self, req: &Resources) -> Option<usize> {
        self.first_where(req, &|_| true)
    }

    /// The first leaf (in tree order) whose maxima hold `req` and that passes `ok`; the
    /// maxima are only a necessary condition there, `ok` decides.
    fn first_where(&self, req: &Resources, ok: &dyn Fn(usize) -> bool) -> Option<usize> {
        fn go(t: &FitTree, v: usize, req: &Resources, ok: &dyn Fn(usize) -> bool) -> Option<usize> {
            if !fits(&t.tree[v], req) {
                return None;
            }
            if v >= t.leaves {
                return ok(v - t.leaves).then_some(v - t.leaves);
            }
            go(t, 2 * v, req, ok).or_else(|| go(t, 2 * v + 1, req, ok))
        }
        go(self, 1, req, ok)
    }
}

/// A placer's placement constraints. Machine kinds that every task class treats alike (the
/// same column of the eligibility table) form one *group*: a placement looks at groups, of
/// which there are at most as many as distinct answers the classes give, however many distinct
/// attribute rows the machines have. For first fit, one tree per group over its machines in
/// first-fit order, so a constrained task searches only the groups it may use.
struct Constrained {
    table: Arc<Eligibility>,
    /// Per position, its group; `allowed[class][group]`.
    group: Vec<u32>,
    allowed: Vec<Vec<bool>>,
    /// First fit: per group, its tree and each leaf's rank in the first-fit order; per
    /// position, its leaf in its group's tree.
    trees: Vec<(FitTree, Vec<usize>)>,
    leaf: Vec<usize>,
}

impl Constrained {
    /// Machines of kinds `kind` (by position) under `table`.
    fn new(kind: &[u32], table: Arc<Eligibility>) -> Self {
        let (group_of_kind, allowed) = table.groups();
        Constrained {
            group: kind.iter().map(|&k| group_of_kind[k as usize]).collect(),
            allowed,
            table,
            trees: Vec::new(),
            leaf: Vec::new(),
        }
    }

    /// The per-group first-fit trees over the order `by` (positions), with free resources
    /// `free`.
    fn build_trees(&mut self, by: &[usize], free: &[Resources]) {
        let groups = self.allowed[0].len();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups];
        self.leaf = vec![0; self.group.len()];
        for (rank, &p) in by.iter().enumerate() {
            let k = self.group[p] as usize;
            self.leaf[p] = members[k].len();
            members[k].push(rank);
        }
        self.trees = members
            .into_iter()
            .map(|ranks| {
                let leaves: Vec<Resources> = ranks.iter().map(|&r| free[by[r]]).collect();
                (FitTree::new(&leaves), ranks)
            })
            .collect();
    }
}

/// A placer's NUMA state: the machines' nodes, the layer, and the fit bookkeeping.
struct NumaState {
    layout: NumaLayout,
    layer: Layer,
    machines: NumaMachines,
    count: NumaTally,
    /// Machine + cluster with first fit: per machine the per-dimension maxima over its nodes
    /// (and the machine's free disk/GPU), in the first-fit order, to find the first machine
    /// with a node that holds a task.
    tree: Option<FitTree>,
}

impl NumaState {
    /// The tree leaf of machine `p`: its nodes' maxima, and the machine-wide resources.
    fn leaf(&self, p: usize, free: &Resources) -> Resources {
        let m = self.machines.max_free(p);
        let mut r = *free;
        r[..m.len()].copy_from_slice(&m);
        r
    }
}

/// Bucket index of free resources for Sum-of-Squares with `n` parts per dimension.
fn bucket_of(f: &Resources, n: &[u64; 3]) -> usize {
    let b = |d: usize| {
        ((f[d] as u128 * n[d] as u128 / Size::UNIT as u128) as u64).min(n[d] - 1) as usize
    };
    (b(0) * n[1] as usize + b(1)) * n[2] as usize + b(2)
}

/// Places tasks one at a time on a set of machines (an online scheduler's state).
pub(crate) struct Placer {
    /// Snapshot indices of the enabled machines, in enabled order.
    machines: Vec<usize>,
    cap: Vec<Resources>,
    /// Free resources per enabled machine.
    free: Vec<Resources>,
    scorer: Scorer,
    rng: Pcg64Mcg,
    /// First fit: the machines' order (positions) and the tree over it.
    by: Vec<usize>,
    leaf_of: Vec<usize>,
    tree: Option<FitTree>,
    /// Sum of squares: parts per dimension and machines per bucket.
    buckets: Option<[u64; 3]>,
    counts: Vec<i64>,
    numa: Option<NumaState>,
    constrained: Option<Constrained>,
}

impl Placer {
    /// Enabled machines `machines` (indices into `caps`) with free resources `free` (their
    /// capacities for an empty cluster). `seed` drives the random scorers.
    pub(crate) fn new(
        caps: &[Resources],
        machines: &[usize],
        free: Vec<Resources>,
        scorer: Scorer,
        seed: u64,
    ) -> Self {
        let cap: Vec<Resources> = machines.iter().map(|&m| caps[m]).collect();
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let (mut by, mut tree, mut leaf_of) = (Vec::new(), None, Vec::new());
        if matches!(scorer, Scorer::FirstFit | Scorer::RandomFirstFit) {
            by = (0..machines.len()).collect();
            if scorer == Scorer::FirstFit {
                by.sort_by_key(|&p| machines[p]);
            } else {
                by.shuffle(&mut rng);
            }
            leaf_of = vec![0; machines.len()];
            for (k, &p) in by.iter().enumerate() {
                leaf_of[p] = k;
            }
            let ordered: Vec<Resources> = by.iter().map(|&p| free[p]).collect();
            tree = Some(FitTree::new(&ordered));
        }
        let buckets = match scorer {
            Scorer::SumOfSquares(1) => Some([10u64, 10, 5]),
            Scorer::SumOfSquares(_) => Some([20u64, 20, 5]),
            _ => None,
        };
        let counts = match buckets {
            Some(n) => {
                let mut c = vec![0i64; (n[0] * n[1] * n[2]) as usize];
                for f in &free {
                    c[bucket_of(f, &n)] += 1;
                }
                c
            }
            None => Vec::new(),
        };
        Placer {
            machines: machines.to_vec(),
            cap,
            free,
            scorer,
            rng,
            by,
            leaf_of,
            tree,
            buckets,
            counts,
            numa: None,
            constrained: None,
        }
    }

    /// The same placer with placement constraints: machine `p` (a position) is of kind
    /// `kind[p]` in `table`, and a task of class c goes only where `table` allows c. A table
    /// that allows everything changes nothing.
    pub(crate) fn with_constraints(mut self, kind: Vec<u32>, table: Arc<Eligibility>) -> Self {
        assert_eq!(kind.len(), self.free.len(), "one kind per machine");
        if table.is_trivial() {
            return self;
        }
        let mut c = Constrained::new(&kind, table);
        if self.tree.is_some() {
            c.build_trees(&self.by, &self.free);
        }
        self.constrained = Some(c);
        self
    }

    /// The same placer with the snapshot's constraints for the enabled machines `machines`
    /// (snapshot indices, as given to [`Placer::new`]).
    pub(crate) fn with_placement(self, placement: Option<&Placement>, machines: &[usize]) -> Self {
        match placement {
            Some(pl) => {
                let kind = machines.iter().map(|&m| pl.kind[m]).collect();
                self.with_constraints(kind, pl.table.clone())
            }
            None => self,
        }
    }

    /// May a task of class `class` run on machine `p`?
    #[inline]
    pub(crate) fn eligible(&self, p: usize, class: u32) -> bool {
        class == 0
            || self
                .constrained
                .as_ref()
                .is_none_or(|c| c.allowed[class as usize][c.group[p] as usize])
    }

    /// The same placer with NUMA nodes laid out by `numa.layout` on empty machines (every
    /// machine's free resources must still be its capacity) and the layer `numa.layer`.
    pub(crate) fn with_numa(mut self, numa: &Numa) -> Self {
        assert!(
            self.free.iter().zip(&self.cap).all(|(f, c)| f == c),
            "NUMA nodes start empty"
        );
        let machines = NumaMachines::new(&numa.layout, &self.cap);
        self.numa = Some(NumaState {
            layout: numa.layout.clone(),
            layer: numa.layer,
            machines,
            count: NumaTally::default(),
            tree: None,
        });
        self.rebuild_numa_tree();
        self
    }

    /// The machine + cluster first-fit tree, from the current state.
    fn rebuild_numa_tree(&mut self) {
        let Some(n) = &self.numa else { return };
        let tree = (n.layer == Layer::Cluster && self.tree.is_some()).then(|| {
            let leaves: Vec<Resources> =
                self.by.iter().map(|&p| n.leaf(p, &self.free[p])).collect();
            FitTree::new(&leaves)
        });
        if let Some(n) = &mut self.numa {
            n.tree = tree;
        }
    }

    /// This placer over `caps` (the machines it has, then new empty ones): as a new placer on
    /// every machine with the free resources so far, keeping the NUMA nodes' state and
    /// bookkeeping. `seed` drives the random scorers, as in [`Placer::new`].
    /// With placement constraints, `kinds` gives every machine's kind (the new ones' too).
    pub(crate) fn grown(self, caps: &[Resources], kinds: &[u32], seed: u64) -> Self {
        let before = self.free.len();
        let mut free = self.free;
        free.extend_from_slice(&caps[before..]);
        let ids: Vec<usize> = (0..caps.len()).collect();
        let mut next = Placer::new(caps, &ids, free, self.scorer, seed);
        if let Some(c) = self.constrained {
            next = next.with_constraints(kinds.to_vec(), c.table);
        }
        if let Some(mut n) = self.numa {
            for c in &caps[before..] {
                n.machines.push(&n.layout, c);
            }
            next.numa = Some(n);
            next.rebuild_numa_tree();
        }
        next
    }

    /// NUMA-fit bookkeeping so far (`None` without NUMA nodes).
    pub(crate) fn numa_count(&self) -> Option<NumaTally> {
        self.numa.as_ref().map(|n| n.count)
    }

    /// The NUMA layer (`None` without NUMA nodes).
    pub(crate) fn numa_layer(&self) -> Option<Layer> {
        self.numa.as_ref().map(|n| n.layer)
    }

    /// The NUMA nodes' state (`None` without NUMA nodes).
    pub(crate) fn numa_machines(&self) -> Option<&NumaMachines> {
        self.numa.as_ref().map(|n| &n.machines)
    }

    /// The scorer's score of putting `req` on machine `p` (which it must fit), lower is
    /// better. First fit scores every machine 0 and Random draws a uniform number: used where
    /// a machine chooses among tasks (the server's view of BF-J/S). Inlined into the scans,
    /// which call it for every machine where the task fits: out of line, it made E-PVM's
    /// packings a quarter slower.
    #[inline(always)]
    pub(crate) fn score_on(&mut self, p: usize, req: &Resources) -> f64 {
        let f = &self.free[p];
        let c = &self.cap[p];
        let pct = |d: usize| {
            if c[d] == 0 {
                0.0
            } else {
                (f[d] - req[d]) as f64 / c[d] as f64
            }
        };
        match self.scorer {
            Scorer::BestFit(1) => pct(0) + pct(1),
            Scorer::BestFit(2) => pct(0).powi(2) + pct(1).powi(2),
            Scorer::BestFit(3) => 10.0 * pct(0) + 10.0 * pct(1),
            Scorer::BestFit(4) => 10.0 * (pct(0) + pct(1) + pct(2)),
            Scorer::BestFit(_) => pct(0).max(pct(1)),
            Scorer::Epvm => -10.0 * (pct(0) + pct(1) + pct(2)),
            Scorer::DotProduct => -(0..MAX_DIMS)
                .filter(|&d| c[d] > 0)
                .map(|d| (req[d] as f64 / c[d] as f64) * (f[d] as f64 / c[d] as f64))
                .sum::<f64>(),
            Scorer::Random => self.rng.random::<f64>(),
            Scorer::SumOfSquares(_) => {
                let n = self.buckets.expect("sum of squares has buckets");
                let after = [f[0] - req[0], f[1] - req[1], f[2] - req[2]];
                let (k1, k2) = (bucket_of(f, &n), bucket_of(&after, &n));
                // change of Σ b(k)² when this machine moves from bucket k1 to k2
                if k1 == k2 {
                    0.0
                } else {
                    (2 * (self.counts[k2] - self.counts[k1]) + 2) as f64
                }
            }
            Scorer::FirstFit | Scorer::RandomFirstFit => 0.0,
        }
    }

    /// Whether [`Self::score_on`] draws a random number (the random scorer): then its score
    /// for a request depends on how many were drawn before, not only on the machine and the
    /// request.
    pub(crate) fn score_draws(&self) -> bool {
        self.scorer == Scorer::Random
    }

    /// Does `req` fit on machine `p`?
    #[inline]
    pub(crate) fn fits_on(&self, p: usize, req: &Resources) -> bool {
        fits(&self.free[p], req)
    }

    #[cfg(test)]
    /// The scorer's choice for `req` (a position in the enabled order), if any machine fits:
    /// the lowest score, ties to the machine met first.
    /// With machine + cluster NUMA awareness, the choice among the machines with a node that
    /// holds `req`, if any has; else among all.
    pub(crate) fn choose(&mut self, req: &Resources) -> Option<usize> {
        self.choose_class(req, 0)
    }

    /// [`Placer::choose`] for a task of constraint class `class`: only machines it may run on.
    pub(crate) fn choose_class(&mut self, req: &Resources, class: u32) -> Option<usize> {
        if self.numa_layer() == Some(Layer::Cluster)
            && let Some(p) = self.choose_among(req, class, true)
        {
            return Some(p);
        }
        self.choose_among(req, class, false)
    }

    /// First fit among the machines class `class` may use: the earliest in the first-fit
    /// order over the kinds it may use, each searched in its own tree.
    fn first_fit_class(&self, req: &Resources, class: u32) -> Option<usize> {
        let c = self.constrained.as_ref().expect("a constrained placer");
        let allowed = &c.allowed[class as usize];
        c.trees
            .iter()
            .enumerate()
            .filter(|(k, _)| allowed[*k])
            // a kind with no machine here has a tree of one empty leaf
            .filter_map(|(_, (tree, ranks))| {
                tree.first_fit(req).and_then(|l| ranks.get(l).copied())
            })
            .min()
            .map(|rank| self.by[rank])
    }

    /// The scorer's choice for class `class`, among the machines with a node that holds `req`
    /// if `numa_fit`.
    fn choose_among(&mut self, req: &Resources, class: u32, numa_fit: bool) -> Option<usize> {
        let numa_fit = numa_fit && self.numa.is_some();
        let filtered = class != 0 && self.constrained.is_some();
        if let Some(tree) = &self.tree {
            return match (numa_fit, self.numa.as_ref()) {
                (true, Some(n)) => n
                    .tree
                    .as_ref()
                    .expect("machine + cluster first fit keeps a node tree")
                    .first_where(req, &|k| {
                        let p = self.by[k];
                        fits(&self.free[p], req)
                            && n.machines.has_fit(p, req)
                            && self.eligible(p, class)
                    })
                    .map(|k| self.by[k]),
                _ if filtered => self.first_fit_class(req, class),
                _ => tree.first_fit(req).map(|k| self.by[k]),
            };
        }
        if filtered && let Some(c) = self.constrained.take() {
            // the machines' groups and the groups the class may use, read once (held out of
            // `self` for the scan, which scores with `&mut self`, and put back after it)
            let (group, allowed) = (&c.group, &c.allowed[class as usize]);
            let chosen = self.scan(req, numa_fit, |p| allowed[group[p] as usize]);
            self.constrained = Some(c);
            return chosen;
        }
        self.scan(req, numa_fit, |_| true)
    }

    /// The scorer's choice among the machines `admit` lets through where `req` fits (and a
    /// node holds it whole if `numa_fit`). Compiled once per `admit`, so an unconstrained
    /// scan checks nothing more than the fit.
    #[inline(always)]
    fn scan(
        &mut self,
        req: &Resources,
        numa_fit: bool,
        admit: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        let mut seen = 0u64;
        for p in 0..self.free.len() {
            // one branch for both checks (`&`, not `&&`): which machines a class may use
            // follows no order a branch predictor could learn
            if !(admit(p) & fits(&self.free[p], req))
                || (numa_fit
                    && !self
                        .numa
                        .as_ref()
                        .is_some_and(|n| n.machines.has_fit(p, req)))
            {
                continue;
            }
            if self.scorer == Scorer::Random {
                // reservoir sampling: every feasible machine equally likely
                seen += 1;
                if self.rng.random_range(0..seen) == 0 {
                    best = Some((0.0, p));
                }
                continue;
            }
            let score = self.score_on(p, req);
            if best.is_none_or(|(sc, _)| score < sc) {
                best = Some((score, p));
            }
        }
        best.map(|(_, p)| p)
    }

    /// Changes machine `p`'s free resources with `apply` (a task arriving or leaving), keeping
    /// the sum-of-squares buckets and the first-fit tree up to date.
    fn update(&mut self, p: usize, apply: impl FnOnce(&mut Resources)) {
        if let Some(n) = self.buckets {
            self.counts[bucket_of(&self.free[p], &n)] -= 1;
        }
        apply(&mut self.free[p]);
        if let Some(n) = self.buckets {
            self.counts[bucket_of(&self.free[p], &n)] += 1;
        }
        if let Some(tree) = &mut self.tree {
            tree.update(self.leaf_of[p], self.free[p]);
            if let Some(c) = &mut self.constrained {
                c.trees[c.group[p] as usize]
                    .0
                    .update(c.leaf[p], self.free[p]);
            }
        }
        if let Some(n) = &mut self.numa {
            let leaf = n.leaf(p, &self.free[p]);
            if let Some(t) = &mut n.tree {
                t.update(self.leaf_of[p], leaf);
            }
        }
    }

    /// Can machine `p` host `req` now: it fits in total and, for a job that must be NUMA-fit
    /// (`strict`) on a placer with NUMA nodes, some node holds it whole.
    #[inline]
    pub(crate) fn admits(&self, p: usize, req: &Resources, strict: bool) -> bool {
        fits(&self.free[p], req)
            && (!strict
                || self
                    .numa
                    .as_ref()
                    .is_none_or(|n| n.machines.has_fit(p, req)))
    }

    /// The scheduler's choice for a job with request `req` that must be NUMA-fit if `strict`:
    /// with machine + cluster awareness, a strict job is offered only the machines with a node
    /// that holds it; otherwise as [`Placer::choose`]. Without cluster awareness the machine
    /// chosen may not admit a strict job ([`Placer::admits`]): the caller finds out.
    /// Only machines a job of constraint class `class` may run on are offered.
    pub(crate) fn choose_job(
        &mut self,
        req: &Resources,
        strict: bool,
        class: u32,
    ) -> Option<usize> {
        if strict && self.numa_layer() == Some(Layer::Cluster) {
            self.choose_among(req, class, true)
        } else {
            self.choose_class(req, class)
        }
    }

    /// Puts a job with request `req` on machine `p`, which must admit it
    /// ([`Placer::admits`]). A strict job takes its CPU and memory whole from one node: the
    /// first that holds it under the default layer, the best-fitting one under the aware
    /// layers. Otherwise as [`Placer::take`].
    pub(crate) fn take_job(
        &mut self,
        p: usize,
        req: &Resources,
        strict: bool,
    ) -> Option<Allocation> {
        let node = match (&self.numa, strict) {
            (Some(n), true) => Some(
                match n.layer {
                    Layer::Default => n.machines.first_node(p, req),
                    Layer::Machine | Layer::Cluster => n.machines.best_node(p, req),
                }
                .unwrap_or_else(|| panic!("machine {p} has no node that holds a strict job")),
            ),
            _ => None,
        };
        self.take_from(p, req, node)
    }

    /// Puts `req` on machine `p`, which it must fit; with NUMA nodes, takes its CPU and
    /// memory from the nodes as the layer says and returns where from.
    pub(crate) fn take(&mut self, p: usize, req: &Resources) -> Option<Allocation> {
        self.take_from(p, req, None)
    }

    /// [`Placer::take`], from node `node` whole if given.
    fn take_from(&mut self, p: usize, req: &Resources, node: Option<usize>) -> Option<Allocation> {
        assert!(
            fits(&self.free[p], req),
            "request over machine {p}'s capacity"
        );
        let alloc = self.numa.as_mut().map(|n| {
            let a = match node {
                Some(k) => n.machines.allocate_on(p, req, k),
                None => n.machines.allocate(p, req, n.layer != Layer::Default),
            };
            n.count.placed += 1;
            if a.fit {
                n.count.fit += 1;
                n.count.fit_cpu += req[0] as u128;
            }
            a
        });
        self.update(p, |f| {
            for (f, r) in f.iter_mut().zip(req) {
                *f -= r;
            }
        });
        alloc
    }

    /// Gives `req` back to machine `p` (a task leaving); with NUMA nodes, `alloc` is where
    /// [`Placer::take`] took it from.
    pub(crate) fn release_allocation(&mut self, p: usize, req: &Resources, alloc: &Allocation) {
        if let Some(n) = &mut self.numa {
            n.machines.release(p, alloc);
            n.count.placed -= 1;
            if alloc.fit {
                n.count.fit -= 1;
                n.count.fit_cpu -= req[0] as u128;
            }
        }
        self.release_total(p, req);
    }

    /// Gives `req` back to machine `p` (a task leaving), on a placer without NUMA nodes.
    pub(crate) fn release(&mut self, p: usize, req: &Resources) {
        assert!(
            self.numa.is_none(),
            "release a NUMA allocation with release_allocation"
        );
        self.release_total(p, req);
    }

    fn release_total(&mut self, p: usize, req: &Resources) {
        let cap = self.cap[p];
        self.update(p, |f| {
            for ((f, r), c) in f.iter_mut().zip(req).zip(cap) {
                *f += r;
                assert!(*f <= c, "machine {p} freed beyond its capacity");
            }
        });
    }

    /// Free resources of every enabled machine, by position.
    pub(crate) fn frees(&self) -> &[Resources] {
        &self.free
    }

    /// Capacity of machine `p`.
    pub(crate) fn capacity(&self, p: usize) -> Resources {
        self.cap[p]
    }

    /// [`Placer::place`] for a task of constraint class `class`.
    pub(crate) fn place_class(&mut self, req: &Resources, class: u32) -> Option<usize> {
        let p = self.choose_class(req, class)?;
        self.take(p, req);
        Some(p)
    }
}

/// Packs every task of `snap` (in `order`) onto the machines `machines` (indices into the
/// snapshot, enabled in this order), starting empty, with NUMA nodes if `numa`. `seed` drives
/// the random scorers.
pub fn pack(
    snap: &Snapshot,
    machines: &[usize],
    order: &[usize],
    scorer: Scorer,
    numa: Option<&Numa>,
    seed: u64,
) -> Packing {
    let free = machines.iter().map(|&m| snap.machines[m]).collect();
    let mut placer = Placer::new(&snap.machines, machines, free, scorer, seed)
        .with_placement(snap.placement.as_ref(), machines);
    if let Some(n) = numa {
        placer = placer.with_numa(n);
    }
    let mut assigned = vec![None; snap.tasks.len()];
    let mut pending = 0;
    for &t in order {
        match placer.place_class(&snap.tasks[t].request, snap.tasks[t].class) {
            Some(p) => assigned[t] = Some(p as u32),
            None => pending += 1,
        }
    }
    Packing {
        numa: placer.numa_count(),
        machines: placer.machines,
        free: placer.free,
        assigned,
        pending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packing::snapshot::Task;
    use rand::{Rng, SeedableRng};

    fn random_snapshot(rng: &mut Pcg64Mcg) -> Snapshot {
        let dims = rng.random_range(1..=3);
        let machines: Vec<Resources> = (0..rng.random_range(1..20))
            .map(|_| {
                let mut m = [0; 3];
                for x in m.iter_mut().take(dims) {
                    *x = rng.random_range(Size::UNIT / 4..=Size::UNIT);
                }
                m
            })
            .collect();
        let tasks = (0..rng.random_range(0..80))
            .map(|i| {
                let mut r = [0; 3];
                for x in r.iter_mut().take(dims) {
                    *x = rng.random_range(0..=Size::UNIT / 2);
                }
                Task::new((i / 3) as u32, r)
            })
            .collect();
        Snapshot::new(dims, machines, tasks)
    }

    #[test]
    fn no_machine_is_ever_over_capacity() {
        let mut rng = Pcg64Mcg::seed_from_u64(31);
        for case in 0..300 {
            let snap = random_snapshot(&mut rng);
            for name in Scorer::NAMES {
                let scorer = Scorer::from_name(name).unwrap();
                for order in [JobOrder::Arrival, JobOrder::Sum] {
                    let o = task_order(&snap, order);
                    let machines: Vec<usize> = (0..snap.machines.len()).collect();
                    let p = pack(&snap, &machines, &o, scorer, None, case);
                    // recompute the load of every machine from the assignment
                    for (m, cap) in snap.machines.iter().enumerate() {
                        let on = p
                            .assigned
                            .iter()
                            .enumerate()
                            .filter(|(_, a)| **a == Some(m as u32));
                        let used = crate::packing::snapshot::total(
                            on.map(|(t, _)| &snap.tasks[t].request),
                        );
                        for d in 0..3 {
                            assert!(used[d] <= cap[d] as u128, "{name}: machine {m} over");
                            assert_eq!(used[d] + p.free[m][d] as u128, cap[d] as u128);
                        }
                    }
                    // a pending task fits nowhere at the end (every scorer only leaves a task
                    // pending when no machine fits it at its turn, and free space only shrinks)
                    for (t, a) in p.assigned.iter().enumerate() {
                        if a.is_none() {
                            assert!(p.free.iter().all(|f| !fits(f, &snap.tasks[t].request)));
                        }
                    }
                    assert_eq!(p.pending, p.assigned.iter().filter(|a| a.is_none()).count());
                }
            }
        }
    }

    /// A random snapshot whose machines have attributes (a categorical `zone` of a, b, c and a
    /// numeric `cores` of 1 to 4) and whose tasks have random constraints on them.
    fn constrained_snapshot(rng: &mut Pcg64Mcg) -> Snapshot {
        use crate::constraints::{Constraint, Op};
        let mut snap = random_snapshot(rng);
        let rows: Vec<crate::constraints::Properties> = (0..snap.machines.len())
            .map(|_| {
                vec![
                    ("cores".into(), rng.random_range(1..=4).to_string()),
                    (
                        "zone".into(),
                        ["a", "b", "c"][rng.random_range(0..3)].into(),
                    ),
                ]
            })
            .collect();
        let mut pl = Placement::from_machines(&rows);
        let table = Arc::get_mut(&mut pl.table).unwrap();
        let ops = [Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge];
        for t in &mut snap.tasks {
            let mut set = Vec::new();
            if rng.random_bool(0.5) {
                set.push(Constraint {
                    attr: "cores".into(),
                    op: ops[rng.random_range(0..6)],
                    value: rng.random_range(1..=4).to_string(),
                });
            }
            if rng.random_bool(0.4) {
                set.push(Constraint {
                    attr: "zone".into(),
                    op: ops[rng.random_range(0..2)],
                    value: ["a", "b", "c"][rng.random_range(0..3)].into(),
                });
            }
            set.sort();
            // a set no machine satisfies stays unconstrained
            t.class = table.class_of(&set).unwrap_or(0);
        }
        snap.placement = Some(pl);
        snap
    }

    #[test]
    fn constrained_tasks_go_only_where_allowed_and_first_fit_matches_a_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(41);
        for case in 0..300 {
            let snap = constrained_snapshot(&mut rng);
            let pl = snap.placement.as_ref().unwrap();
            let ok = |t: usize, m: usize| {
                let (class, kind) = (snap.tasks[t].class, pl.kind[m]);
                // Algorithm 4 from the constraints themselves, not the table
                pl.table.classes()[class as usize]
                    .iter()
                    .all(|c| pl.table.satisfies(kind, c))
            };
            let machines: Vec<usize> = (0..snap.machines.len()).rev().collect();
            let o = task_order(&snap, JobOrder::Arrival);
            for name in Scorer::NAMES {
                let scorer = Scorer::from_name(name).unwrap();
                let p = pack(&snap, &machines, &o, scorer, None, case);
                for (t, a) in p.assigned.iter().enumerate() {
                    match a {
                        Some(k) => assert!(ok(t, machines[*k as usize]), "{name}: ineligible"),
                        // pending: no eligible machine has room at the end
                        None => {
                            assert!((0..machines.len()).all(|k| !ok(t, machines[k])
                                || !fits(&p.free[k], &snap.tasks[t].request)))
                        }
                    }
                }
            }
            // on a subset of the machines (some kinds may be absent) the rules hold too
            let half: Vec<usize> = (0..snap.machines.len()).step_by(2).collect();
            for name in ["firstfit-v1", "bestfit-v1"] {
                let p = pack(
                    &snap,
                    &half,
                    &o,
                    Scorer::from_name(name).unwrap(),
                    None,
                    case,
                );
                for (t, a) in p.assigned.iter().enumerate() {
                    if let Some(k) = a {
                        assert!(ok(t, half[*k as usize]), "{name} on a subset");
                    }
                }
            }
            // first fit: the first eligible machine by id where the task fits
            let p = pack(&snap, &machines, &o, Scorer::FirstFit, None, 0);
            let mut free: Vec<Resources> = snap.machines.clone();
            for &t in &o {
                let r = snap.tasks[t].request;
                let got = p.assigned[t].map(|k| machines[k as usize]);
                let want = (0..free.len()).find(|&m| ok(t, m) && fits(&free[m], &r));
                assert_eq!(got, want, "case {case}");
                if let Some(m) = want {
                    for d in 0..3 {
                        free[m][d] -= r[d];
                    }
                }
            }
        }
    }

    #[test]
    fn unconstrained_tasks_place_as_without_constraints() {
        let mut rng = Pcg64Mcg::seed_from_u64(42);
        for case in 0..100 {
            let mut snap = constrained_snapshot(&mut rng);
            let all: Vec<usize> = (0..snap.machines.len()).collect();
            let o = task_order(&snap, JobOrder::Arrival);
            for t in &mut snap.tasks {
                t.class = 0;
            }
            for name in ["bestfit-v1", "firstfit-v1", "random", "sos-v1"] {
                let scorer = Scorer::from_name(name).unwrap();
                let with = pack(&snap, &all, &o, scorer, None, case);
                let mut plain = snap.clone();
                plain.placement = None;
                let without = pack(&plain, &all, &o, scorer, None, case);
                assert_eq!(with.assigned, without.assigned, "{name}");
            }
        }
    }

    #[test]
    fn first_fit_tree_matches_a_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        for _ in 0..100 {
            let snap = random_snapshot(&mut rng);
            let o = task_order(&snap, JobOrder::Arrival);
            let machines: Vec<usize> = (0..snap.machines.len()).rev().collect();
            let p = pack(&snap, &machines, &o, Scorer::FirstFit, None, 0);
            // reference: scan machines by id
            let mut free: Vec<Resources> = snap.machines.clone();
            for &t in &o {
                let r = snap.tasks[t].request;
                let got = p.assigned[t].map(|k| machines[k as usize]);
                let want = (0..free.len()).find(|&m| fits(&free[m], &r));
                assert_eq!(got, want);
                if let Some(m) = want {
                    for d in 0..3 {
                        free[m][d] -= r[d];
                    }
                }
            }
        }
    }

    #[test]
    fn sum_of_squares_prefers_the_move_that_keeps_buckets_even() {
        // After Stein et al.'s slide: free space 1, 1, 0.75, 0.25 (as capacities here), a job
        // of 0.5. With 10 buckets, an empty machine moving from bucket 9 to 5 changes Σ b² by
        // 2·(0 − 2) + 2 = −2; the 0.75 machine moving from bucket 7 to 2 by 2·(1 − 1) + 2 = 2.
        let g = |x: f64| crate::packing::snapshot::amount(x).unwrap();
        let snap = Snapshot::new(
            1,
            vec![
                [g(1.0), 0, 0],
                [g(1.0), 0, 0],
                [g(0.75), 0, 0],
                [g(0.25), 0, 0],
            ],
            vec![Task::new(0, [g(0.5), 0, 0])],
        );
        let p = pack(&snap, &[2, 3, 0, 1], &[0], Scorer::SumOfSquares(1), None, 0);
        assert_eq!(
            p.assigned[0],
            Some(2),
            "position 2 of the enabled order is machine 0"
        );
        // best fit takes the fullest machine that fits instead
        let p = pack(&snap, &[2, 3, 0, 1], &[0], Scorer::BestFit(1), None, 0);
        assert_eq!(p.assigned[0], Some(0), "machine 2, the 0.75 one");
    }

    fn numa(k: usize, layer: Layer) -> Numa {
        Numa {
            layout: NumaLayout::equal(k),
            layer,
        }
    }

    #[test]
    fn one_node_per_machine_places_as_no_numa_does() {
        let mut rng = Pcg64Mcg::seed_from_u64(77);
        for case in 0..150 {
            let snap = random_snapshot(&mut rng);
            let machines: Vec<usize> = (0..snap.machines.len()).collect();
            let o = task_order(&snap, JobOrder::Arrival);
            for name in Scorer::NAMES {
                let scorer = Scorer::from_name(name).unwrap();
                let plain = pack(&snap, &machines, &o, scorer, None, case);
                for layer in [Layer::Default, Layer::Machine, Layer::Cluster] {
                    let n = numa(1, layer);
                    let p = pack(&snap, &machines, &o, scorer, Some(&n), case);
                    assert_eq!(p.assigned, plain.assigned, "{name} {layer:?}");
                    assert_eq!(p.free, plain.free);
                    let c = p.numa.unwrap();
                    assert_eq!(c.fit as usize, o.len() - p.pending, "one node: all fit");
                }
            }
        }
    }

    #[test]
    fn nodes_always_add_up_to_the_machine_and_cluster_layer_only_falls_back_when_it_must() {
        let mut rng = Pcg64Mcg::seed_from_u64(78);
        for case in 0..150 {
            let snap = random_snapshot(&mut rng);
            let machines: Vec<usize> = (0..snap.machines.len()).collect();
            for name in Scorer::NAMES {
                let scorer = Scorer::from_name(name).unwrap();
                for k in [2, 3] {
                    for layer in [Layer::Default, Layer::Machine, Layer::Cluster] {
                        let mut placer = Placer::new(
                            &snap.machines,
                            &machines,
                            snap.machines.clone(),
                            scorer,
                            case,
                        )
                        .with_numa(&numa(k, layer));
                        let mut fit = 0;
                        for t in &snap.tasks {
                            let r = t.request;
                            let any_fit = (0..machines.len()).any(|p| {
                                placer.fits_on(p, &r)
                                    && placer.numa_machines().unwrap().has_fit(p, &r)
                            });
                            let Some(p) = placer.choose(&r) else { continue };
                            let had = placer.numa_machines().unwrap().has_fit(p, &r);
                            let alloc = placer.take(p, &r).unwrap();
                            if layer != Layer::Default {
                                // aware layers split only when no node of the machine holds it
                                assert_eq!(alloc.fit, had, "{name} k={k} {layer:?}");
                            }
                            fit += alloc.fit as u64;
                            if layer == Layer::Cluster {
                                // the cluster layer takes a NUMA-fit machine whenever one exists
                                assert_eq!(alloc.fit, any_fit, "{name} k={k}");
                            }
                            let nm = placer.numa_machines().unwrap();
                            for q in 0..machines.len() {
                                for d in 0..2 {
                                    let sum: u64 = nm.free(q).iter().map(|f| f[d]).sum();
                                    assert_eq!(sum, placer.frees()[q][d], "node sum, machine {q}");
                                }
                            }
                        }
                        assert_eq!(placer.numa_count().unwrap().fit, fit);
                    }
                }
            }
        }
    }

    #[test]
    fn the_three_layers_choose_the_expected_machines_and_nodes() {
        // Machine 0 of (0.6, 0.6): two nodes of (0.3, 0.3). Machine 1 of (1, 1): two nodes of
        // (0.5, 0.5), one task (0.1, 0.1) already on node 0 (every layer puts it there). A
        // task (0.35, 0.1): best fit V1 scores machine 0 at 0.25/0.6 + 0.5/0.6 = 1.25 and
        // machine 1 at 0.55 + 0.8 = 1.35, so it prefers machine 0, where no node holds 0.35.
        let g = |x: f64| crate::packing::snapshot::amount(x).unwrap();
        let caps = vec![[g(0.6), g(0.6), 0], [g(1.0), g(1.0), 0]];
        let req = [g(0.35), g(0.1), 0];
        let run = |layer: Layer| {
            let mut p = Placer::new(&caps, &[0, 1], caps.clone(), Scorer::BestFit(1), 0)
                .with_numa(&numa(2, layer));
            let first = p.take(1, &[g(0.1), g(0.1), 0]).unwrap();
            assert_eq!(first.parts[0], [g(0.1), g(0.1)], "{layer:?}");
            let m = p.choose(&req).unwrap();
            (m, p.take(m, &req).unwrap())
        };
        let (m, a) = run(Layer::Default);
        assert_eq!(m, 0, "best fit picks the fuller machine");
        assert!(!a.fit);
        // oblivious first fit over nodes: node 0's 0.3 CPU, then 0.05 from node 1
        assert_eq!(a.parts[0], [g(0.3), g(0.1)]);
        assert_eq!(a.parts[1], [g(0.05), 0]);
        let (m, a) = run(Layer::Machine);
        assert_eq!(m, 0, "machine level keeps the scorer's machine");
        assert!(!a.fit, "and must split there");
        let (m, a) = run(Layer::Cluster);
        assert_eq!(
            m, 1,
            "the cluster layer filters to machine 1, whose nodes hold it"
        );
        assert!(a.fit);
        // node 0 leaves 0.05/0.5 + 0.3/0.5 = 0.7, node 1 0.15/0.5 + 0.4/0.5 = 1.1: node 0
        assert_eq!(a.parts[0], [g(0.35), g(0.1)]);
    }
}
