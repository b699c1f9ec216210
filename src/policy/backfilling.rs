//! Backfilling with known service times (the rule of EASY backfilling, Lifka, "The ANL/IBM SP
//! scheduling system", JSSPP 1995, in the multiserver-job model): jobs start in arrival order
//! (FCFS, each on the first server it fits); when the head does not fit, it is given a
//! reserved start, the earliest slot at which the remaining service of the jobs in service
//! frees enough room for it on some server, and a later job starts now if it fits now and
//! leaves by that reserved start (its start plus its service at most the reserved slot), so it
//! never delays the head.
//!
//! The policy reads every job's service time when it arrives (`Job::service`): its entry
//! declares it clairvoyant. The reserved start costs O(jobs in service) when the head is
//! blocked; each backfilled job is found by a descent of a tree over the queue in arrival order
//! keeping each subtree's smallest size and smallest service (pruned where either is too large:
//! O(log n) when few jobs qualify, O(n) at worst).

use super::entry::PolicyEntry;
use super::index::FirstFitServers;
use super::{Policy, PolicySpec, SlotView};
use crate::model::{Job, ServerId, Size};
use crate::sim::{Cluster, Violation};

/// Backfilling in experiment files.
pub(crate) const BACKFILLING: PolicyEntry = PolicyEntry::new(
    "backfilling",
    "Backfilling (clairvoyant): FCFS; when the head does not fit, a later job that fits now and \
     ends by the head's reserved start starts now",
    |_, _| Ok(PolicySpec::new("", Backfilling::new)),
)
.clairvoyant()
.colour((121, 85, 72))
.reference(super::plain_msj::backfilling);

/// Waiting jobs in arrival order with, per subtree, the smallest size and the smallest service.
#[derive(Clone, Debug)]
struct Queue {
    jobs: Vec<Option<Job>>,
    /// (smallest size, smallest service) per node; leaves from `leaves`.
    tree: Vec<(u64, u32)>,
    leaves: usize,
    head: usize,
    len: usize,
}

const NONE: (u64, u32) = (u64::MAX, u32::MAX);

impl Queue {
    fn with_leaves(leaves: usize) -> Self {
        Queue {
            jobs: Vec::with_capacity(leaves),
            tree: vec![NONE; 2 * leaves],
            leaves,
            head: 0,
            len: 0,
        }
    }

    fn pull(&mut self, mut v: usize) {
        while v > 1 {
            v /= 2;
            let (a, b) = (self.tree[2 * v], self.tree[2 * v + 1]);
            self.tree[v] = (a.0.min(b.0), a.1.min(b.1));
        }
    }

    fn push(&mut self, job: Job) {
        if self.jobs.len() == self.leaves {
            let live: Vec<Job> = self.jobs.drain(self.head..).flatten().collect();
            *self = Queue::with_leaves((2 * live.len()).next_power_of_two().max(64));
            for j in live {
                self.push(j);
            }
        }
        let pos = self.jobs.len();
        self.jobs.push(Some(job));
        self.tree[self.leaves + pos] = (job.size.0, job.service);
        self.pull(self.leaves + pos);
        self.len += 1;
    }

    fn head(&self) -> Option<(usize, Job)> {
        (self.len > 0).then(|| (self.head, self.jobs[self.head].expect("live head")))
    }

    fn take(&mut self, pos: usize) -> Job {
        let job = self.jobs[pos].take().expect("live position");
        self.tree[self.leaves + pos] = NONE;
        self.pull(self.leaves + pos);
        self.len -= 1;
        while self.head < self.jobs.len() && self.jobs[self.head].is_none() {
            self.head += 1;
        }
        job
    }

    /// The first position after `after` of a job of size ≤ `size` and service ≤ `service`.
    fn first_after(&self, after: usize, size: u64, service: u64) -> Option<usize> {
        let ok = |n: (u64, u32)| n.0 <= size && n.1 as u64 <= service;
        self.descend(1, 0, self.leaves, after, &ok)
    }

    fn descend(
        &self,
        v: usize,
        lo: usize,
        hi: usize,
        after: usize,
        ok: &impl Fn((u64, u32)) -> bool,
    ) -> Option<usize> {
        if hi <= after + 1 || !ok(self.tree[v]) {
            return None;
        }
        if v >= self.leaves {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        self.descend(2 * v, lo, mid, after, ok)
            .or_else(|| self.descend(2 * v + 1, mid, hi, after, ok))
    }
}

/// Backfilling with known service times.
#[derive(Clone, Debug)]
pub struct Backfilling {
    queue: Queue,
    servers: FirstFitServers,
    /// Per server, the jobs in service: (the slot they leave at step 1 of, size).
    running: Vec<Vec<(u64, u64)>>,
    /// The last slot scheduled (for [`Policy::check`]).
    now: u64,
}

impl Backfilling {
    /// Backfilling for `servers` empty servers.
    pub fn new(servers: usize) -> Self {
        Backfilling {
            queue: Queue::with_leaves(64),
            servers: FirstFitServers::new(servers),
            running: vec![Vec::new(); servers],
            now: 0,
        }
    }

    /// Starts `job` (which fits somewhere) on the first server it fits, and keeps when it leaves.
    fn start(&mut self, cluster: &mut Cluster, job: &Job, now: u64) {
        let i = self.servers.place_first_fit(cluster, job, now);
        self.running[i as usize].push((now + job.service as u64, job.size.0));
    }

    /// The head's reserved start: the earliest slot at which some server's free capacity,
    /// with the jobs in service that have left by then, holds `size`.
    fn reserved_start(&self, cluster: &Cluster, size: Size) -> u64 {
        let mut best = u64::MAX;
        let mut leaving = Vec::new();
        for (i, jobs) in self.running.iter().enumerate() {
            leaving.clear();
            leaving.extend_from_slice(jobs);
            leaving.sort_unstable();
            let mut free = cluster.free(i as ServerId).0;
            for &(due, s) in &leaving {
                if due >= best {
                    break;
                }
                free += s;
                if free >= size.0 {
                    best = due;
                    break;
                }
            }
        }
        best
    }
}

impl Policy for Backfilling {
    fn enqueue(&mut self, job: Job) {
        self.queue.push(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let now = view.now;
        self.now = now;
        for &i in view.departed {
            self.servers.update(i, cluster.free(i));
            self.running[i as usize].retain(|&(due, _)| due > now);
        }
        // FCFS while the head fits
        while let Some((pos, head)) = self.queue.head() {
            if head.size > self.servers.max_free() {
                break;
            }
            self.queue.take(pos);
            self.start(cluster, &head, now);
        }
        let Some((head_pos, head)) = self.queue.head() else {
            return;
        };
        if self.queue.len == 1 {
            return;
        }
        let reserve = self.reserved_start(cluster, head.size);
        let mut after = head_pos;
        while let Some(pos) = self.queue.first_after(
            after,
            self.servers.max_free().0,
            reserve.saturating_sub(now),
        ) {
            let job = self.queue.take(pos);
            self.start(cluster, &job, now);
            after = pos;
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len
    }

    /// Nothing starts until a job leaves or arrives (the window before the reserved start only
    /// shrinks).
    fn idle(&self) -> bool {
        true
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        let Some((head_pos, head)) = self.queue.head() else {
            return Ok(());
        };
        let most = cluster.frees().iter().copied().max().unwrap_or_default();
        if head.size <= most {
            return Err(Violation("backfilling's head fits on a server".into()));
        }
        let reserve = self.reserved_start(cluster, head.size);
        if self
            .queue
            .first_after(head_pos, most.0, reserve.saturating_sub(self.now))
            .is_some()
        {
            return Err(Violation(
                "a job backfilling would start now is still waiting".into(),
            ));
        }
        Ok(())
    }
}
