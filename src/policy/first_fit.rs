//! First-Fit of the multiserver-job literature: the waiting jobs are visited in arrival order
//! and every one that fits starts, on the first server (lowest index) it fits; a job that does
//! not fit waits without blocking the jobs behind it (no head-of-line blocking, unlike
//! FIFO-FF).
//!
//! The pass is a sequence of "the earliest waiting job that fits somewhere": the free
//! capacity only shrinks during a pass, so a job passed over never fits later in it, and the
//! next job the visit in arrival order starts is the earliest whose size is at most the
//! largest free capacity. Each start is then O(log n + log L): a min-tree of sizes over the
//! queue in arrival order and a max-tree of free capacities over the servers.

use super::entry::PolicyEntry;
use super::index::{ArrivalIndex, FirstFitServers};
use super::{Policy, PolicySpec, SlotView};
use crate::model::Job;
use crate::sim::{Cluster, Violation};

/// First-Fit in experiment files.
pub(crate) const FIRST_FIT: PolicyEntry = PolicyEntry::new(
    "first-fit",
    "First-Fit: in arrival order, every waiting job that fits starts, on the first server it fits \
     (no head-of-line blocking)",
    |_, _| Ok(PolicySpec::new("", FirstFit::new)),
)
.colour((0, 150, 136))
.reference(super::plain_msj::first_fit);

/// First-Fit without head-of-line blocking.
#[derive(Clone, Debug)]
pub struct FirstFit {
    queue: ArrivalIndex,
    servers: FirstFitServers,
}

impl FirstFit {
    /// First-Fit for `servers` empty servers.
    pub fn new(servers: usize) -> Self {
        FirstFit {
            queue: ArrivalIndex::default(),
            servers: FirstFitServers::new(servers),
        }
    }
}

impl Policy for FirstFit {
    fn enqueue(&mut self, job: Job) {
        self.queue.push(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for &i in view.departed {
            self.servers.update(i, cluster.free(i));
        }
        while let Some(pos) = self.queue.first_at_most(0, self.servers.max_free()) {
            let job = self.queue.take(pos);
            self.servers.place_first_fit(cluster, &job, view.now);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// Nothing waiting fits until something leaves or arrives.
    fn idle(&self) -> bool {
        true
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        let most = cluster.frees().iter().copied().max().unwrap_or_default();
        match self.queue.min_size() {
            Some(s) if s <= most => Err(Violation(
                "a waiting job fits on a server after First-Fit's pass".into(),
            )),
            _ => Ok(()),
        }
    }
}
