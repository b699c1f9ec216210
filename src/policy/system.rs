//! The single-resource system the slot loop drives: a [`Cluster`] of unit servers and the
//! [`Policy`] that places jobs on it ([`crate::sim::run_system`] owns time and metrics).

use super::{Policy, PolicySpec, SlotView};
use crate::model::{Departure, Job, ServerId, Size};
use crate::sim::{
    Cluster, Counters, RunConfig, RunResult, SimError, System, Violation, run_system,
};
use crate::workload::Source;

/// A single-resource [`Cluster`] with a [`Policy`], as the slot loop drives them: the twin of
/// [`crate::multi::VectorSystem`].
pub(crate) struct ScalarSystem<'a, P: Policy + ?Sized = dyn Policy> {
    policy: &'a mut P,
    cluster: &'a mut Cluster,
    departures: Vec<Departure>,
    departed: Vec<ServerId>,
    all: Vec<ServerId>,
}

impl<P: Policy + ?Sized> System for ScalarSystem<'_, P> {
    type Job = Job;
    fn servers(&self) -> usize {
        self.cluster.servers()
    }
    #[inline]
    fn depart(&mut self, t: u64) {
        self.cluster
            .depart(t, &mut self.departures, &mut self.departed);
    }
    #[inline]
    fn enqueue(&mut self, job: Job) {
        self.policy.enqueue(job);
    }
    #[inline]
    fn arrive(&mut self, batch: &mut Vec<Job>) {
        self.policy.enqueue_batch(batch);
        batch.clear();
    }
    #[inline]
    fn schedule(&mut self, t: u64) {
        let view = SlotView {
            now: t,
            departures: &self.departures,
            departed: if t == 0 { &self.all } else { &self.departed },
        };
        self.policy.schedule(self.cluster, view);
    }
    #[inline]
    fn waiting(&self) -> u64 {
        self.policy.waiting() as u64
    }
    #[inline]
    fn next_event(&self, from: u64) -> u64 {
        if !self.policy.idle() {
            return from;
        }
        self.cluster.next_departure(from).unwrap_or(u64::MAX)
    }
    #[inline]
    fn used(&self) -> u128 {
        self.cluster.used()
    }
    fn capacity(&self) -> f64 {
        self.cluster.servers() as f64 * Size::UNIT as f64
    }
    fn counters(&self) -> Counters {
        self.cluster.counters()
    }
    fn check(&self) -> Result<(), Violation> {
        self.cluster.check()?;
        self.policy.check(self.cluster)
    }
    fn class_lengths(&self) -> &[u64] {
        self.policy.class_lengths()
    }
    fn config_usage(&self, out: &mut Vec<(String, u64)>) {
        self.policy.config_usage(out)
    }
    fn waits(&self) -> Option<crate::sim::Waits> {
        self.cluster.waits()
    }
    fn observe(&self, out: &mut crate::sim::Observations) {
        self.cluster.observe(out)
    }
}

/// Simulates one run of `policy` on the unit servers of `cluster` fed by `source`.
pub fn run<P: Policy + ?Sized>(
    policy: &mut P,
    source: &mut impl Source<Job>,
    cluster: &mut Cluster,
    cfg: &RunConfig,
) -> Result<RunResult, SimError> {
    let all: Vec<ServerId> = (0..cluster.servers() as ServerId).collect();
    if policy.preemptive() {
        cluster.enable_preemption();
    }
    let mut system = ScalarSystem {
        policy,
        cluster,
        departures: Vec::new(),
        departed: Vec::new(),
        all,
    };
    run_system(&mut system, source, cfg)
}

/// [`run`] with the policy `spec` builds for `cluster`'s servers, the slot loop compiled for
/// the policy's own type (its calls inlined, not dispatched through `dyn Policy`). Same
/// decisions and results as [`run`] on [`PolicySpec::build`]'s policy.
pub fn run_spec<S: Source<Job> + 'static>(
    spec: &PolicySpec,
    source: &mut S,
    cluster: &mut Cluster,
    cfg: &RunConfig,
) -> Result<RunResult, SimError> {
    spec.run(source, cluster, cfg)
}
