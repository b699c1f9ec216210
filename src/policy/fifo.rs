//! FIFO-FF, the baseline (docs/theory.md section 8; Psychas & Ghaderi, Section VII-B).
//!
//! The queue is served in arrival order: the head job goes to the first server (lowest index)
//! with enough free capacity; when it fits nowhere, nothing more is placed this slot
//! (head-of-line blocking).

use std::collections::VecDeque;

use super::entry::PolicyEntry;
use super::index::FirstFitServers;
use super::{Policy, PolicySpec, SlotView};
use crate::model::Discipline;
use crate::model::Job;
use crate::sim::{Cluster, Violation};

/// FIFO-FF in experiment files; with `score` (validated by the experiment file), the scorer
/// chooses the head job's server on the multi-resource path.
pub(crate) const FIFO_FF: PolicyEntry = PolicyEntry::new(
    "fifo-ff",
    "FIFO-FF: the head job to the first server it fits; head-of-line blocking (the baseline)",
    |_, _| Ok(PolicySpec::new("", FifoFirstFit::new)),
)
.keys(&["score"])
.scored(Discipline::Fifo)
.colour((60, 60, 60))
.fifo_service()
.reference(super::reference::fifo_ff);

/// First-in first-out with first fit.
#[derive(Clone, Debug)]
pub struct FifoFirstFit {
    queue: VecDeque<Job>,
    servers: FirstFitServers,
    /// The last pass ended with a job waiting: its head of line fits on no server.
    blocked: bool,
}

impl FifoFirstFit {
    /// FIFO-FF for `servers` empty servers.
    pub fn new(servers: usize) -> Self {
        FifoFirstFit {
            queue: VecDeque::new(),
            servers: FirstFitServers::new(servers),
            blocked: false,
        }
    }
}

impl Policy for FifoFirstFit {
    fn enqueue(&mut self, job: Job) {
        self.queue.push_back(job);
    }

    fn enqueue_batch(&mut self, jobs: &[Job]) {
        self.queue.extend(jobs);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for &i in view.departed {
            self.servers.update(i, cluster.free(i));
        }
        // A head of line that fitted nowhere at the end of the last pass can fit now only
        // where a job left, so its first fit is the first such server (in index order) that
        // takes it; every later head is searched for over all servers.
        let mut only_departed = self.blocked;
        while let Some(head) = self.queue.front() {
            let fit = if only_departed {
                only_departed = false;
                (view.departed.iter().copied()).find(|&i| cluster.free(i) >= head.size)
            } else {
                self.servers.first_fit_from(0, head.size)
            };
            let Some(i) = fit else {
                break;
            };
            let job = self.queue.pop_front().expect("non-empty");
            cluster.place(i, &job, view.now);
            self.servers.update(i, cluster.free(i));
        }
        self.blocked = !self.queue.is_empty();
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// The head of the line fits nowhere until something leaves.
    fn idle(&self) -> bool {
        true
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        match self.queue.front() {
            Some(h) if cluster.frees().iter().any(|&f| f >= h.size) => {
                Err(Violation("the head-of-line job fits on a server".into()))
            }
            _ => Ok(()),
        }
    }
}
