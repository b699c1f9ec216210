//! Scheduling policies (docs/theory.md sections 3 to 8).
//!
//! A policy decides and nothing else: it owns its waiting jobs in whatever order it needs and
//! places them on servers when the slot loop asks. The loop owns time, arrivals, departures,
//! metrics and stopping.

mod backfilling;
mod bestfit;
pub(crate) mod classes;
mod entry;
mod fifo;
mod first_fit;
pub mod index;
mod maxweight;
mod msj_keys;
pub(crate) mod params;
pub mod plain_msj;
mod reference;
pub mod registry;
mod server_filling;
mod smash;
mod spec;
mod system;
pub mod testing;
mod vqs;

pub use backfilling::Backfilling;
pub use bestfit::{BestFitJ, BestFitJS, BestFitS};
pub use fifo::FifoFirstFit;
pub use first_fit::FirstFit;
pub use maxweight::MaxWeight;
pub use server_filling::ServerFilling;
pub use smash::Smash;
pub use spec::PolicySpec;
pub use system::{run, run_spec};
pub use vqs::{Vqs, VqsBf};

pub use entry::Parse;
pub use params::{ParamError, PolicyParams};
pub use registry::{POLICIES, PolicyEntry};

use crate::model::{Departure, Job, ServerId};
use crate::sim::{Cluster, Violation};

/// What the slot loop tells a policy at step 3 of slot `now`.
#[derive(Clone, Copy, Debug)]
pub struct SlotView<'a> {
    /// The current slot t.
    pub now: u64,
    /// Jobs that left at step 1 of this slot.
    pub departures: &'a [Departure],
    /// The distinct servers that had a departure at step 1 of this slot, in index order; at
    /// t = 0 every server.
    pub departed: &'a [ServerId],
}

/// A scheduling policy.
pub trait Policy: Send {
    /// Step 2: a job of the batch A(t) joins the queue (called in arrival order).
    fn enqueue(&mut self, job: Job);
    /// Step 2: the whole batch A(t), in arrival order (the default enqueues job by job).
    fn enqueue_batch(&mut self, jobs: &[Job]) {
        for &job in jobs {
            self.enqueue(job);
        }
    }
    /// Step 3: place waiting jobs on servers.
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>);
    /// Jobs waiting (the paper's Q(t)).
    fn waiting(&self) -> usize;
    /// Checks the policy's own invariant against the cluster after a slot (for BF-J/S: no
    /// waiting job fits on any server). O(log n) or cheaper; the slot loop calls it at the end
    /// of every run and tests call it after every slot.
    fn check(&self, _cluster: &Cluster) -> Result<(), Violation> {
        Ok(())
    }
    /// True when a slot with no arrival and no departure would change nothing: step 3 would
    /// place no job and touch no state. The slot loop then skips ahead to the next arrival or
    /// departure. The default, false, makes every slot run.
    fn idle(&self) -> bool {
        false
    }
    /// Waiting jobs per class (virtual queue or job type), for policies that have classes.
    fn class_lengths(&self) -> &[u64] {
        &[]
    }
    /// Appends (configuration label, busy servers using it) for configuration-based policies.
    fn config_usage(&self, _out: &mut Vec<(String, u64)>) {}
    /// True when the policy takes running jobs off their servers ([`Cluster::preempt`]): the
    /// slot loop then lets the cluster preempt, and records each job's wait when it completes
    /// (its response time less its service). The default, false, costs nothing.
    fn preemptive(&self) -> bool {
        false
    }
}

/// A boxed policy is a policy (the slot loop is then compiled for the box and calls through
/// it).
impl Policy for Box<dyn Policy> {
    fn enqueue(&mut self, job: Job) {
        (**self).enqueue(job)
    }
    fn enqueue_batch(&mut self, jobs: &[Job]) {
        (**self).enqueue_batch(jobs)
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        (**self).schedule(cluster, view)
    }
    fn waiting(&self) -> usize {
        (**self).waiting()
    }
    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        (**self).check(cluster)
    }
    fn idle(&self) -> bool {
        (**self).idle()
    }
    fn class_lengths(&self) -> &[u64] {
        (**self).class_lengths()
    }
    fn config_usage(&self, out: &mut Vec<(String, u64)>) {
        (**self).config_usage(out)
    }
    fn preemptive(&self) -> bool {
        (**self).preemptive()
    }
}
