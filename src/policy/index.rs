//! Ordered structures that keep every policy decision at O(log n) per job: no linear scan over
//! the queue or over the servers.
//!
//! - [`SizeQueue`]: waiting jobs by size; "largest job ≤ free" (BF-S).
//! - [`BestFitServers`]: servers by free capacity; "least free ≥ size, lowest index" (BF-J).
//! - [`FirstFitServers`]: max-tree over server indices; "lowest index ≥ i with free ≥ size"
//!   (FIFO-FF, and skipping servers that cannot take anything).
//! - [`ArrivalIndex`]: min-tree over waiting jobs in arrival order; "first job, in arrival
//!   order, of size ≤ x" (BF-J on its own).

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use crate::model::{Job, ServerId, Size};

/// Key of a waiting job in a [`SizeQueue`]: by size, and among equal sizes the earliest arrival
/// is the greatest (so "largest" breaks ties towards the earliest arrival).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SizeKey(u64, u64);

impl SizeKey {
    pub fn of(job: &Job) -> Self {
        SizeKey(job.size.0, u64::MAX - job.id)
    }
}

/// Waiting jobs ordered by size.
#[derive(Clone, Debug, Default)]
pub struct SizeQueue {
    jobs: BTreeMap<SizeKey, Job>,
}

impl SizeQueue {
    pub fn insert(&mut self, job: Job) -> SizeKey {
        let k = SizeKey::of(&job);
        self.jobs.insert(k, job);
        k
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    pub fn contains(&self, k: &SizeKey) -> bool {
        self.jobs.contains_key(k)
    }

    pub fn get(&self, k: &SizeKey) -> Option<&Job> {
        self.jobs.get(k)
    }

    pub fn remove(&mut self, k: &SizeKey) -> Option<Job> {
        self.jobs.remove(k)
    }

    /// The smallest waiting size.
    pub fn min_size(&self) -> Option<Size> {
        self.jobs.keys().next().map(|k| Size(k.0))
    }

    /// The largest waiting job of size ≤ `free` (earliest arrival among equal sizes).
    #[inline]
    pub fn largest_at_most(&self, free: Size) -> Option<(SizeKey, &Job)> {
        self.jobs
            .range(..=SizeKey(free.0, u64::MAX))
            .next_back()
            .map(|(k, j)| (*k, j))
    }

    /// The largest waiting job of size ≤ `free` (earliest arrival among equal sizes), removed.
    #[inline]
    pub fn take_largest_at_most(&mut self, free: Size) -> Option<Job> {
        let (&k, _) = self.jobs.range(..=SizeKey(free.0, u64::MAX)).next_back()?;
        self.jobs.remove(&k)
    }

    /// Waiting jobs from smallest to largest.
    pub fn iter(&self) -> impl Iterator<Item = &Job> {
        self.jobs.values()
    }
}

/// Servers ordered by free capacity, for best fit: a sorted array (updated by one rotation) up
/// to [`SMALL_CLUSTER`] servers, a B-tree above.
#[derive(Clone, Debug)]
pub struct BestFitServers {
    order: ServerOrder,
    free: Vec<Size>,
}

/// Largest cluster kept as a sorted array by [`BestFitServers`].
pub const SMALL_CLUSTER: usize = 1024;
/// Largest cluster whose sorted array is updated by a stepwise shift instead of a binary search
/// and a rotation.
pub const STEPWISE: usize = 64;

#[derive(Clone, Debug)]
enum ServerOrder {
    Sorted(Vec<(u64, ServerId)>),
    Tree(BTreeSet<(u64, ServerId)>),
}

impl BestFitServers {
    /// `servers` servers, all empty.
    pub fn new(servers: usize) -> Self {
        let all = (0..servers as ServerId).map(|i| (Size::UNIT, i));
        BestFitServers {
            order: if servers <= SMALL_CLUSTER {
                ServerOrder::Sorted(all.collect())
            } else {
                ServerOrder::Tree(all.collect())
            },
            free: vec![Size::ONE; servers],
        }
    }

    /// Server `i` now has `free` capacity.
    #[inline]
    pub fn update(&mut self, i: ServerId, free: Size) {
        let old = (self.free[i as usize].0, i);
        let new = (free.0, i);
        if old == new {
            return;
        }
        self.free[i as usize] = free;
        match &mut self.order {
            ServerOrder::Sorted(v) if v.len() <= STEPWISE => {
                // insertion-sort step: find and shift in one pass (short arrays)
                let mut k = v
                    .iter()
                    .position(|x| *x == old)
                    .expect("server is in the order");
                if new > old {
                    while k + 1 < v.len() && v[k + 1] < new {
                        v[k] = v[k + 1];
                        k += 1;
                    }
                } else {
                    while k > 0 && v[k - 1] > new {
                        v[k] = v[k - 1];
                        k -= 1;
                    }
                }
                v[k] = new;
            }
            ServerOrder::Sorted(v) => {
                let p = v.binary_search(&old).expect("server is in the order");
                let q = v.partition_point(|x| *x < new);
                if q > p {
                    v[p..q].rotate_left(1);
                    v[q - 1] = new;
                } else {
                    v[q..=p].rotate_right(1);
                    v[q] = new;
                }
            }
            ServerOrder::Tree(t) => {
                t.remove(&old);
                t.insert(new);
            }
        }
    }

    /// The server with the least free capacity ≥ `size` (lowest index among ties).
    #[inline]
    pub fn best_fit(&self, size: Size) -> Option<ServerId> {
        match &self.order {
            ServerOrder::Sorted(v) => {
                let p = v.partition_point(|x| x.0 < size.0);
                v.get(p).map(|&(_, i)| i)
            }
            ServerOrder::Tree(t) => t.range((size.0, 0)..).next().map(|&(_, i)| i),
        }
    }

    /// The largest free capacity of any server.
    pub fn max_free(&self) -> Size {
        let last = match &self.order {
            ServerOrder::Sorted(v) => v.last(),
            ServerOrder::Tree(t) => t.last(),
        };
        last.map_or(Size::ZERO, |&(f, _)| Size(f))
    }
}

/// Max-tree of free capacities over server indices, for first fit.
#[derive(Clone, Debug)]
pub struct FirstFitServers {
    n: usize,
    leaves: usize,
    tree: Vec<u64>,
}

impl FirstFitServers {
    /// `servers` servers, all empty.
    pub fn new(servers: usize) -> Self {
        Self::with_value(servers, Size::ONE)
    }

    /// `servers` servers, each with value `value`.
    pub fn with_value(servers: usize, value: Size) -> Self {
        let leaves = servers.next_power_of_two().max(1);
        let mut tree = vec![0; 2 * leaves];
        for i in 0..servers {
            tree[leaves + i] = value.0;
        }
        for v in (1..leaves).rev() {
            tree[v] = tree[2 * v].max(tree[2 * v + 1]);
        }
        FirstFitServers {
            n: servers,
            leaves,
            tree,
        }
    }

    /// Server `i` now has `free` capacity.
    #[inline]
    pub fn update(&mut self, i: ServerId, free: Size) {
        let mut v = self.leaves + i as usize;
        if self.tree[v] == free.0 {
            return;
        }
        self.tree[v] = free.0;
        while v > 1 {
            v /= 2;
            let m = self.tree[2 * v].max(self.tree[2 * v + 1]);
            if self.tree[v] == m {
                break;
            }
            self.tree[v] = m;
        }
    }

    /// The largest free capacity of any server.
    pub fn max_free(&self) -> Size {
        Size(self.tree[1])
    }

    /// The lowest server index ≥ `from` with free capacity ≥ `size`.
    #[inline]
    pub fn first_fit_from(&self, from: ServerId, size: Size) -> Option<ServerId> {
        let from = from as usize;
        if from >= self.n || self.tree[1] < size.0 {
            return None;
        }
        // Walk up from the leaf `from`, looking at right siblings, then descend.
        let mut v = self.leaves + from;
        if self.tree[v] >= size.0 {
            return Some(from as ServerId);
        }
        // go up until v is a left child whose right sibling holds a fit, then descend into it
        while v > 1 && (v & 1 == 1 || self.tree[v + 1] < size.0) {
            v /= 2;
        }
        if v <= 1 {
            return None;
        }
        v += 1;
        while v < self.leaves {
            v = if self.tree[2 * v] >= size.0 {
                2 * v
            } else {
                2 * v + 1
            };
        }
        Some((v - self.leaves) as ServerId)
    }
}

/// Waiting jobs in arrival order with a min-tree of their sizes.
#[derive(Clone, Debug)]
pub struct ArrivalIndex {
    jobs: Vec<Option<Job>>,
    tree: Vec<u64>,
    leaves: usize,
    head: usize,
    len: usize,
}

impl Default for ArrivalIndex {
    fn default() -> Self {
        Self::with_leaves(64)
    }
}

impl ArrivalIndex {
    fn with_leaves(leaves: usize) -> Self {
        ArrivalIndex {
            jobs: Vec::with_capacity(leaves),
            tree: vec![u64::MAX; 2 * leaves],
            leaves,
            head: 0,
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn set(&mut self, pos: usize, value: u64) {
        let mut v = self.leaves + pos;
        self.tree[v] = value;
        while v > 1 {
            v /= 2;
            self.tree[v] = self.tree[2 * v].min(self.tree[2 * v + 1]);
        }
    }

    /// Append a job at the back (latest arrival).
    pub fn push(&mut self, job: Job) {
        if self.jobs.len() == self.leaves {
            self.rebuild();
        }
        let pos = self.jobs.len();
        self.jobs.push(Some(job));
        self.set(pos, job.size.0);
        self.len += 1;
    }

    /// Drop removed jobs at the front and resize to fit what remains.
    fn rebuild(&mut self) {
        let live: Vec<Job> = self.jobs.drain(self.head..).flatten().collect();
        let leaves = (2 * live.len()).next_power_of_two().max(64);
        *self = Self::with_leaves(leaves);
        for (p, job) in live.into_iter().enumerate() {
            self.jobs.push(Some(job));
            self.tree[leaves + p] = job.size.0;
        }
        self.len = self.jobs.len();
        for v in (1..leaves).rev() {
            self.tree[v] = self.tree[2 * v].min(self.tree[2 * v + 1]);
        }
    }

    /// Position of the first job at or after position `from` (in arrival order) of size ≤ `x`.
    pub fn first_at_most(&self, from: usize, x: Size) -> Option<usize> {
        let from = from.max(self.head);
        if from >= self.jobs.len() {
            return None;
        }
        let mut v = self.leaves + from;
        if self.tree[v] <= x.0 {
            return Some(from);
        }
        while v > 1 && (v & 1 == 1 || self.tree[v + 1] > x.0) {
            v /= 2;
        }
        if v <= 1 {
            return None;
        }
        v += 1;
        while v < self.leaves {
            v = if self.tree[2 * v] <= x.0 {
                2 * v
            } else {
                2 * v + 1
            };
        }
        Some(v - self.leaves)
    }

    /// Remove and return the job at `pos`.
    pub fn take(&mut self, pos: usize) -> Job {
        let job = self.jobs[pos].take().expect("live position");
        self.set(pos, u64::MAX);
        self.len -= 1;
        while self.head < self.jobs.len() && self.jobs[self.head].is_none() {
            self.head += 1;
        }
        job
    }

    /// The smallest waiting size.
    pub fn min_size(&self) -> Option<Size> {
        (self.len > 0).then(|| Size(self.tree[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    fn job(id: u64, size: u64) -> Job {
        Job {
            id,
            size: Size(size),
            service: 1,
            arrival: 0,
            class: 0,
        }
    }

    #[test]
    fn first_fit_tree_matches_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        for n in [1usize, 2, 3, 5, 8, 13, 100] {
            let mut t = FirstFitServers::new(n);
            let mut free = vec![Size::UNIT; n];
            for _ in 0..2000 {
                let i = rng.random_range(0..n);
                free[i] = rng.random_range(0..=Size::UNIT);
                t.update(i as ServerId, Size(free[i]));
                let s = rng.random_range(1..=Size::UNIT);
                let from = rng.random_range(0..n + 1);
                let want = (from..n).find(|&j| free[j] >= s).map(|j| j as ServerId);
                assert_eq!(t.first_fit_from(from as ServerId, Size(s)), want);
            }
        }
    }

    #[test]
    fn best_fit_servers_match_scan() {
        for n in [1, 5, 17, STEPWISE + 1, SMALL_CLUSTER + 3] {
            best_fit_servers_match_scan_for(n);
        }
    }

    fn best_fit_servers_match_scan_for(n: usize) {
        let mut rng = Pcg64Mcg::seed_from_u64(8);
        let mut b = BestFitServers::new(n);
        let mut free = vec![Size::UNIT; n];
        for _ in 0..3000 {
            let i = rng.random_range(0..n);
            // few distinct values so that ties happen
            free[i] = rng.random_range(0..=4) * Size::UNIT / 4;
            b.update(i as ServerId, Size(free[i]));
            let s = rng.random_range(1..=4) * Size::UNIT / 4;
            let want = (0..n)
                .filter(|&j| free[j] >= s)
                .min_by_key(|&j| (free[j], j))
                .map(|j| j as ServerId);
            assert_eq!(b.best_fit(Size(s)), want);
            assert_eq!(b.max_free(), Size(*free.iter().max().unwrap()));
        }
    }

    #[test]
    fn arrival_index_matches_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        let mut idx = ArrivalIndex::default();
        let mut model: Vec<Job> = Vec::new();
        let mut next = 0;
        for _ in 0..20000 {
            if rng.random_bool(0.55) {
                let j = job(next, rng.random_range(1..=10));
                next += 1;
                idx.push(j);
                model.push(j);
            } else {
                let x = Size(rng.random_range(1..=10));
                let want = model.iter().position(|j| j.size <= x);
                let got = idx.first_at_most(0, x);
                assert_eq!(got.is_some(), want.is_some());
                if let (Some(p), Some(w)) = (got, want) {
                    let taken = idx.take(p);
                    assert_eq!(taken, model.remove(w));
                }
            }
            assert_eq!(idx.len(), model.len());
        }
    }

    #[test]
    fn size_queue_takes_largest_fitting_earliest_first() {
        let mut q = SizeQueue::default();
        q.insert(job(0, 5));
        q.insert(job(1, 7));
        q.insert(job(2, 7));
        q.insert(job(3, 9));
        assert_eq!(q.take_largest_at_most(Size(8)).unwrap().id, 1);
        assert_eq!(q.take_largest_at_most(Size(8)).unwrap().id, 2);
        assert_eq!(q.take_largest_at_most(Size(8)).unwrap().id, 0);
        assert!(q.take_largest_at_most(Size(8)).is_none());
        assert_eq!(q.min_size(), Some(Size(9)));
    }
}
