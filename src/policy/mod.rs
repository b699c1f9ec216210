//! Scheduling policies (paper-notes sections 3 to 8).
//!
//! A policy decides and nothing else: it owns its waiting jobs in whatever order it needs and
//! places them on servers when the slot loop asks. The loop owns time, arrivals, departures,
//! metrics and stopping.

mod bestfit;
mod fifo;
pub mod index;

pub use bestfit::{BestFitJ, BestFitJS, BestFitS};
pub use fifo::FifoFirstFit;

use crate::model::{Departure, Job, ServerId};
use crate::sim::Cluster;

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
    /// Step 3: place waiting jobs on servers.
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>);
    /// Jobs waiting (the paper's Q(t)).
    fn waiting(&self) -> usize;
    /// Checks the policy's own invariant against the cluster after a slot (for BF-J/S: no
    /// waiting job fits on any server). O(log n) or cheaper; the slot loop calls it at the end
    /// of every run and tests call it after every slot.
    fn check(&self, _cluster: &Cluster) -> Result<(), String> {
        Ok(())
    }
}

/// A policy as named in an experiment file, with its parameters (validated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicySpec {
    BfJ,
    BfS,
    BfJs,
    FifoFf,
}

impl PolicySpec {
    /// Every policy name an experiment file may use.
    pub const NAMES: &'static [&'static str] = &["bf-j", "bf-s", "bf-js", "fifo-ff"];

    /// From the name in an experiment file.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "bf-j" => PolicySpec::BfJ,
            "bf-s" => PolicySpec::BfS,
            "bf-js" => PolicySpec::BfJs,
            "fifo-ff" => PolicySpec::FifoFf,
            _ => return None,
        })
    }

    /// The label used in outputs and figures.
    pub fn label(&self) -> String {
        match self {
            PolicySpec::BfJ => "bf-j".into(),
            PolicySpec::BfS => "bf-s".into(),
            PolicySpec::BfJs => "bf-js".into(),
            PolicySpec::FifoFf => "fifo-ff".into(),
        }
    }

    /// A fresh policy for `servers` empty servers.
    pub fn build(&self, servers: usize) -> Box<dyn Policy> {
        match self {
            PolicySpec::BfJ => Box::new(BestFitJ::new(servers)),
            PolicySpec::BfS => Box::new(BestFitS::new(servers)),
            PolicySpec::BfJs => Box::new(BestFitJS::new(servers)),
            PolicySpec::FifoFf => Box::new(FifoFirstFit::new(servers)),
        }
    }
}
