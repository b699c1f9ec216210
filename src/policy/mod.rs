//! Scheduling policies (docs/theory.md sections 3 to 8).
//!
//! A policy decides and nothing else: it owns its waiting jobs in whatever order it needs and
//! places them on servers when the slot loop asks. The loop owns time, arrivals, departures,
//! metrics and stopping.

mod bestfit;
pub mod classes;
mod custom;
mod entry;
mod fifo;
pub mod index;
mod maxweight;
pub mod params;
pub mod registry;
mod system;
pub mod testing;
mod vqs;

pub use bestfit::{BestFitJ, BestFitJS, BestFitS};
pub use custom::CustomSpec;
pub use fifo::FifoFirstFit;
pub use maxweight::MaxWeight;
pub use system::{ScalarSystem, run, run_spec};
pub use vqs::{Vqs, VqsBf};

pub use params::{ParamError, PolicyParams};
pub use registry::{POLICIES, PolicyEntry};

use crate::configurations::Partition;
use crate::model::{Departure, Job, ServerId, Size};
use crate::multi::Discipline;
use crate::packing::place::Scorer;
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
}

/// A boxed policy is a policy (a [`CustomSpec`] builds one; the slot loop is then compiled
/// for the box and calls through it).
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
}

/// A policy as named in an experiment file, with its parameters (validated).
#[derive(Clone, Debug, PartialEq)]
pub enum PolicySpec {
    BfJ,
    BfS,
    BfJs,
    FifoFf,
    /// VQS over a partition (X_J unless given otherwise), with optional stalling β.
    Vqs {
        partition: Partition,
        stall: Option<f64>,
    },
    /// VQS-BF over a partition, with optional stalling β.
    VqsBf {
        partition: Partition,
        stall: Option<f64>,
    },
    /// MaxWeight over all feasible configurations of these job sizes.
    MaxWeight {
        types: Vec<Size>,
    },
    /// BF-J/S or FIFO with a packing scorer, on the multi-resource path ([`crate::multi`]).
    Scored {
        discipline: Discipline,
        scorer: Scorer,
        /// The scorer's name as written in the file.
        score: String,
    },
    /// A policy registered from outside the crate ([`registry::register`]).
    Custom(CustomSpec),
}

impl PolicySpec {
    /// A parameterless policy from its name (`None` for unknown names and for the policies that
    /// need parameters).
    pub fn from_name(name: &str) -> Option<Self> {
        registry::parse(
            &PolicyParams {
                name,
                ..Default::default()
            },
            &crate::workload::SizeLaw::Empirical { values: vec![] },
        )
        .ok()
        .filter(|s| !matches!(s, PolicySpec::MaxWeight { .. }))
    }

    /// The policy's name as written in experiment files.
    pub fn name(&self) -> &'static str {
        match self {
            PolicySpec::BfJ => bestfit::BF_J.name,
            PolicySpec::BfS => bestfit::BF_S.name,
            PolicySpec::BfJs => bestfit::BF_JS.name,
            PolicySpec::FifoFf => fifo::FIFO_FF.name,
            PolicySpec::Vqs { .. } => vqs::VQS.name,
            PolicySpec::VqsBf { .. } => vqs::VQS_BF.name,
            PolicySpec::MaxWeight { .. } => maxweight::MAX_WEIGHT.name,
            PolicySpec::Scored {
                discipline: Discipline::BestFitJS,
                ..
            } => bestfit::BF_JS.name,
            PolicySpec::Scored {
                discipline: Discipline::Fifo,
                ..
            } => fifo::FIFO_FF.name,
            PolicySpec::Custom(c) => c.name(),
        }
    }

    /// The default label used in outputs and figures: the name (with the score for a scored
    /// policy).
    pub fn label(&self) -> String {
        match self {
            PolicySpec::Scored { score, .. } => format!("{}-{score}", self.name()),
            _ => self.name().to_string(),
        }
    }

    /// Whether it runs on the multi-resource path ([`crate::multi`]) with a packing scorer.
    pub fn is_scored(&self) -> bool {
        matches!(self, PolicySpec::Scored { .. })
    }

    /// A fresh single-resource policy for `servers` empty servers; `None` for a scored policy,
    /// which runs on the multi-resource path ([`crate::multi::VectorSystem`]).
    pub fn build(&self, servers: usize) -> Option<Box<dyn Policy>> {
        struct Boxed;
        impl WithPolicy for Boxed {
            type Output = Box<dyn Policy>;
            fn with<P: Policy + 'static>(self, policy: P) -> Box<dyn Policy> {
                Box::new(policy)
            }
        }
        self.with_policy(servers, Boxed)
    }

    /// Hands a fresh single-resource policy for `servers` empty servers, of its own type, to
    /// `w` (so that what `w` does is compiled for that type); `None` for a scored policy.
    pub fn with_policy<W: WithPolicy>(&self, servers: usize, w: W) -> Option<W::Output> {
        Some(match self {
            PolicySpec::BfJ => w.with(BestFitJ::new(servers)),
            PolicySpec::BfS => w.with(BestFitS::new(servers)),
            PolicySpec::BfJs => w.with(BestFitJS::new(servers)),
            PolicySpec::FifoFf => w.with(FifoFirstFit::new(servers)),
            PolicySpec::Vqs { partition, stall } => {
                w.with(Vqs::new(partition.clone(), servers, *stall))
            }
            PolicySpec::VqsBf { partition, stall } => {
                w.with(VqsBf::new(partition.clone(), servers, *stall))
            }
            PolicySpec::MaxWeight { types } => w.with(MaxWeight::new(types.clone(), servers)),
            PolicySpec::Custom(c) => w.with(c.build(servers)),
            PolicySpec::Scored { .. } => return None,
        })
    }
}

/// What to do with a single-resource policy whose type is known
/// ([`PolicySpec::with_policy`]).
pub trait WithPolicy {
    type Output;
    fn with<P: Policy + 'static>(self, policy: P) -> Self::Output;
}
