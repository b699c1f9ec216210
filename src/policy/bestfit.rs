//! Best-fit policies: BF-S, BF-J and BF-J/S (docs/theory.md section 3; Psychas & Ghaderi, Section
//! IV).
//!
//! - BF-S (server's view): a server repeatedly takes the *largest* waiting job that fits in its
//!   free capacity, until none fits. Among equal sizes, the earliest arrival.
//! - BF-J (job's view): a job goes to the server with the *least* free capacity among those
//!   where it fits (ties: lowest index); if none, it waits.
//! - BF-J/S: BF-S over the servers that had a departure (index order; all at t = 0), drawing
//!   from the whole queue including the new batch, then BF-J over the new batch's jobs still
//!   waiting, in arrival order. Guarantee: at least 1/2 of ρ* (Theorem 2).

use super::entry::PolicyEntry;
use super::index::{
    ArrivalIndex, BestFitServers, FirstFitServers, NO_JOB, SMALL, SizeQueue, SortedBatch, give_back,
};
use super::{Policy, PolicySpec, SlotView};
use crate::model::Discipline;
use crate::model::{Job, ServerId, Size};
use crate::sim::{Cluster, Violation};

/// BF-J/S in experiment files; with `score` (validated by the experiment file), a packing
/// scorer decides both views on the multi-resource path.
pub(crate) const BF_JS: PolicyEntry = PolicyEntry::new(
    "bf-js",
    "BF-J/S: servers with a departure take the largest jobs that fit, then new jobs go to the fullest server they fit (≥ 1/2 of ρ*)",
    |_, _| Ok(PolicySpec::new("", BestFitJS::new)),
)
.keys(&["score"])
.scored(Discipline::BestFitJS)
.colour((31, 119, 180))
.reference(super::reference::bf_js);

/// BF-J on its own.
pub(crate) const BF_J: PolicyEntry = PolicyEntry::new(
    "bf-j",
    "BF-J alone: every waiting job, in arrival order, to the fullest server it fits",
    |_, _| Ok(PolicySpec::new("", BestFitJ::new)),
)
.colour((255, 127, 14))
.reference(super::reference::bf_j);

/// BF-S on its own.
pub(crate) const BF_S: PolicyEntry = PolicyEntry::new(
    "bf-s",
    "BF-S alone: every server, in index order, takes the largest jobs that fit",
    |_, _| Ok(PolicySpec::new("", BestFitS::new)),
)
.colour((148, 103, 189))
.reference(super::reference::bf_s);

/// BF-S on server `i`: take the largest waiting job that fits until none does.
#[inline]
fn best_fit_server(queue: &mut SizeQueue, cluster: &mut Cluster, i: ServerId, now: u64) {
    let mut job = NO_JOB;
    while queue.take_largest_at_most_into(cluster.free(i), &mut job) {
        cluster.place(i, &job, now);
    }
}

/// No waiting job fits on any server: the smallest waiting size exceeds the largest free
/// capacity.
fn nothing_fits(
    min_waiting: Option<crate::model::Size>,
    cluster: &Cluster,
) -> Result<(), Violation> {
    let max_free = cluster.frees().iter().max().copied().unwrap_or_default();
    match min_waiting {
        Some(s) if s <= max_free => Err(Violation(format!(
            "a waiting job of size {s} fits on a server with free capacity {max_free}"
        ))),
        _ => Ok(()),
    }
}

/// BF-J/S: the paper's best-fit policy.
///
/// This slot's batch is kept apart in arrival order and only the jobs still waiting after BF-J
/// enter the size-ordered queue, so a job placed on arrival costs no tree operation. BF-S then
/// looks at both: the largest fitting job of the queue and of the batch (the queue's wins a tie
/// in size, having arrived earlier). A batch up to `BATCH_SCAN` jobs is scanned; a larger one
/// is sorted by size once (`SortedBatch`), so BF-S finds its largest fitting job by bisection.
#[derive(Clone, Debug)]
pub struct BestFitJS {
    queue: SizeQueue,
    servers: BestFitServers,
    batch: Vec<Job>,
    sorted: SortedBatch,
}

/// Largest batch scanned linearly by BF-S.
pub(crate) const BATCH_SCAN: usize = 16;

impl BestFitJS {
    /// BF-J/S for `servers` empty servers.
    pub fn new(servers: usize) -> Self {
        BestFitJS {
            queue: SizeQueue::default(),
            servers: BestFitServers::new(servers),
            batch: Vec::new(),
            sorted: SortedBatch::default(),
        }
    }

    /// BF-S on server `i` over the queue and the sorted (large) batch.
    fn best_fit_server_sorted(&mut self, cluster: &mut Cluster, i: ServerId, now: u64) {
        let mut job = NO_JOB;
        while (self.sorted).take_largest_into(
            &mut self.queue,
            &self.batch,
            Size::ZERO,
            cluster.free(i),
            &mut job,
        ) {
            cluster.place(i, &job, now);
        }
    }

    /// BF-S on server `i` over the queue and the (short) batch.
    fn best_fit_server_with_batch(&mut self, cluster: &mut Cluster, i: ServerId, now: u64) {
        let mut job = NO_JOB;
        loop {
            let free = cluster.free(i);
            let mut pick: Option<usize> = None;
            for (k, j) in self.batch.iter().enumerate() {
                if j.size <= free && pick.is_none_or(|p| j.size > self.batch[p].size) {
                    pick = Some(k);
                }
            }
            // the queue's job wins a tie in size (it arrived earlier): one search of the queue
            match pick {
                None => {
                    if !self.queue.take_largest_at_most_into(free, &mut job) {
                        return;
                    }
                }
                Some(p) => {
                    let queued = match self.batch[p].size.0.checked_sub(1) {
                        Some(below) => {
                            (self.queue).take_largest_between_into(Size(below), free, &mut job)
                        }
                        None => self.queue.take_largest_at_most_into(free, &mut job),
                    };
                    if !queued {
                        job = self.batch.remove(p);
                    }
                }
            }
            cluster.place(i, &job, now);
        }
    }
}

impl Policy for BestFitJS {
    fn enqueue(&mut self, job: Job) {
        self.batch.push(job);
    }

    fn enqueue_batch(&mut self, jobs: &[Job]) {
        give_back(&mut self.batch, jobs.len());
        self.batch.extend_from_slice(jobs);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let large = self.batch.len() > BATCH_SCAN;
        // with a long queue, servers change many times between queries that can find one:
        // their keys move in the best-fit order only when needed
        let defer = self.queue.len() > SMALL;
        if large && !view.departed.is_empty() {
            self.sorted.fill(&self.batch);
        }
        for &i in view.departed {
            if large {
                self.best_fit_server_sorted(cluster, i, view.now);
            } else if self.batch.is_empty() {
                best_fit_server(&mut self.queue, cluster, i, view.now);
            } else {
                self.best_fit_server_with_batch(cluster, i, view.now);
            }
            self.servers.set(i, cluster.free(i), defer);
        }
        let sorted = self.sorted.is_active();
        for (pos, job) in self.batch.drain(..).enumerate() {
            if sorted && self.sorted.is_taken(pos) {
                continue; // placed by BF-S
            }
            match self.servers.best_fit(job.size) {
                Some(i) => {
                    cluster.place(i, &job, view.now);
                    self.servers.set(i, cluster.free(i), defer);
                }
                None => {
                    self.queue.insert(job);
                }
            }
        }
        self.sorted.clear();
    }

    fn waiting(&self) -> usize {
        self.queue.len() + self.batch.len()
    }

    /// BF-J/S acts only on servers with a departure and on the new batch.
    fn idle(&self) -> bool {
        self.batch.is_empty()
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        nothing_fits(self.queue.min_size(), cluster)
    }
}

/// BF-S on its own: every slot, every server in index order runs BF-S. Servers that cannot take
/// the smallest waiting job are skipped through a max-tree, with the same outcome.
#[derive(Clone, Debug)]
pub struct BestFitS {
    queue: SizeQueue,
    servers: FirstFitServers,
}

impl BestFitS {
    /// BF-J for `servers` empty servers.
    pub fn new(servers: usize) -> Self {
        BestFitS {
            queue: SizeQueue::default(),
            servers: FirstFitServers::new(servers),
        }
    }
}

impl Policy for BestFitS {
    fn enqueue(&mut self, job: Job) {
        self.queue.insert(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for &i in view.departed {
            self.servers.update(i, cluster.free(i));
        }
        let mut from = 0;
        while let Some(min) = self.queue.min_size() {
            let Some(i) = self.servers.first_fit_from(from, min) else {
                break;
            };
            best_fit_server(&mut self.queue, cluster, i, view.now);
            self.servers.update(i, cluster.free(i));
            from = i + 1;
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// After a pass no server can take the smallest waiting job (a server skipped or filled
    /// early in the pass could not take it then; the smallest size only grew since, and free
    /// capacities only shrank).
    fn idle(&self) -> bool {
        true
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        nothing_fits(self.queue.min_size(), cluster)
    }
}

/// BF-J on its own: every slot, every waiting job in arrival order runs BF-J. Jobs that fit
/// nowhere are skipped through a min-tree in arrival order, with the same outcome.
#[derive(Clone, Debug)]
pub struct BestFitJ {
    queue: ArrivalIndex,
    servers: BestFitServers,
}

impl BestFitJ {
    /// BF-S for `servers` empty servers.
    pub fn new(servers: usize) -> Self {
        BestFitJ {
            queue: ArrivalIndex::default(),
            servers: BestFitServers::new(servers),
        }
    }
}

impl Policy for BestFitJ {
    fn enqueue(&mut self, job: Job) {
        self.queue.push(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for &i in view.departed {
            self.servers.update(i, cluster.free(i));
        }
        let mut from = 0;
        while let Some(pos) = self.queue.first_at_most(from, self.servers.max_free()) {
            let job = self.queue.take(pos);
            let i = self
                .servers
                .best_fit(job.size)
                .expect("size ≤ max free, so some server fits");
            cluster.place(i, &job, view.now);
            self.servers.update(i, cluster.free(i));
            from = pos + 1;
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// After a pass no waiting job fits the largest free capacity (which only shrank during
    /// the pass).
    fn idle(&self) -> bool {
        true
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        nothing_fits(self.queue.min_size(), cluster)
    }
}
