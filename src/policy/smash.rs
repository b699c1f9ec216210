//! SMASH with a window of w jobs (the multiserver-job literature's "small-window" relative of
//! Most-Servers-First): again and again, among the first w waiting jobs in arrival order, the
//! largest that fits starts (ties: the earliest), until none of them fits. `window = 1` is
//! FCFS (FIFO-FF); a window as long as the queue is Most-Servers-First. On several servers the
//! job goes to the first server (lowest index) it fits, as FIFO-FF's head does.
//!
//! Each start is O(w + log L): a scan of the window and a max-tree of free capacities over
//! the servers; a pass that starts nothing is O(w).

use std::collections::VecDeque;

use super::entry::PolicyEntry;
use super::index::FirstFitServers;
use super::params::{ParamError, PolicyParams};
use super::{Policy, PolicySpec, SlotView};
use crate::model::{Job, Size};
use crate::sim::{Cluster, Violation};
use crate::workload::SizeLaw;

/// SMASH in experiment files.
pub(crate) const SMASH: PolicyEntry = PolicyEntry::new(
    "smash",
    "SMASH(w): among the first `window` waiting jobs, the largest that fits starts, again and \
     again (window = 1 is FCFS), on the first server it fits",
    parse,
)
.keys(&["window"])
.examples(&["window = 1", "window = 2", "window = 5"])
.colour((156, 39, 176))
.reference(super::plain_msj::smash);

fn parse(params: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    let w = super::msj_keys::window(params)?;
    Ok(PolicySpec::new(format!("window = {w}"), move |servers| {
        Smash::new(servers, w)
    }))
}

/// SMASH with window w.
#[derive(Clone, Debug)]
pub struct Smash {
    window: usize,
    queue: VecDeque<Job>,
    servers: FirstFitServers,
}

impl Smash {
    /// SMASH with a window of `window` jobs (≥ 1) for `servers` empty servers.
    pub fn new(servers: usize, window: usize) -> Self {
        Smash {
            window: window.max(1),
            queue: VecDeque::new(),
            servers: FirstFitServers::new(servers),
        }
    }

    /// The position of the largest job of the window of size ≤ `free` (ties: the earliest).
    fn largest_fitting(&self, free: Size) -> Option<usize> {
        let mut best: Option<(usize, Size)> = None;
        for (k, j) in self.queue.iter().take(self.window).enumerate() {
            if j.size <= free && best.is_none_or(|b| j.size > b.1) {
                best = Some((k, j.size));
            }
        }
        best.map(|b| b.0)
    }
}

impl Policy for Smash {
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
        while let Some(k) = self.largest_fitting(self.servers.max_free()) {
            let job = self.queue.remove(k).expect("in the window");
            self.servers.place_first_fit(cluster, &job, view.now);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// No job of the window fits until something leaves or arrives.
    fn idle(&self) -> bool {
        true
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        let most = cluster.frees().iter().copied().max().unwrap_or_default();
        if self.largest_fitting(most).is_some() {
            return Err(Violation(
                "a job of SMASH's window fits on a server after its pass".into(),
            ));
        }
        Ok(())
    }
}
