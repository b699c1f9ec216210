//! Preempt-resume, for the policies that take running jobs off their servers
//! ([`crate::policy::Policy::preemptive`]).
//!
//! A preempted job goes back to its policy with the service it still needs: placed in slot t
//! for S slots and taken off at step 3 of slot u (t ≤ u < t + S), it has been served in slots
//! t … u − 1 and needs t + S − u more. Its response time is its completion slot less its
//! arrival slot, its wait the response time less its whole service: for a job never preempted,
//! the definitions of a non-preemptive run.
//!
//! The departure calendar is not searched when a job is preempted: its entry stays, and is
//! struck out when its slot comes (entries of equal slot, server and size are
//! interchangeable, so a count per such key is enough). Everything here is kept only by
//! clusters whose policy preempts; the others pay one branch per slot with a departure.

use std::collections::HashMap;

use super::waits::WaitRecorder;
use super::{Counters, FeatureTally, Observations};
use crate::model::{Job, ServerId, Size};

/// A job in service on a preemptive cluster.
#[derive(Clone, Copy, Debug)]
struct Running {
    id: u64,
    arrival: u64,
    /// Its whole service, slots (not what was left when it last started).
    service: u32,
    kind: u8,
    class: u8,
    preemptions: u32,
}

/// Calendar entries, by (due slot, server, size).
type Key = (u64, ServerId, u64);

/// What a preemptive cluster keeps of its running and preempted jobs.
#[derive(Debug, Default)]
pub(crate) struct Preemption {
    /// The running jobs of each calendar key.
    running: HashMap<Key, Vec<Running>>,
    /// Where each running job's entry is.
    at: HashMap<u64, Key>,
    /// Preempted jobs waiting to resume: their whole service and preemptions so far.
    suspended: HashMap<u64, (u32, u32)>,
    /// Entries of preempted jobs still in the calendar, per key.
    cancelled: HashMap<Key, u32>,
    /// The waits, recorded at completion.
    pub(crate) waits: Option<Box<WaitRecorder>>,
    pub(crate) tally: PreemptionTally,
}

/// What preemption did in a run: a feature tally ([`FeatureTally`]) of the slot loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PreemptionTally {
    /// Preemptions.
    pub preemptions: u64,
    /// Jobs completed.
    pub completed: u64,
    /// Jobs completed that were preempted at least once.
    pub preempted_jobs: u64,
    /// The most preemptions of one completed job.
    pub most: u64,
}

impl FeatureTally for PreemptionTally {
    const NAME: &'static str = "preemption";
    fn to_counters(&self) -> Vec<u128> {
        [
            self.preemptions,
            self.completed,
            self.preempted_jobs,
            self.most,
        ]
        .map(u128::from)
        .to_vec()
    }
    fn from_counters(c: &[u128]) -> Self {
        let at = |k: usize| c.get(k).copied().unwrap_or(0) as u64;
        PreemptionTally {
            preemptions: at(0),
            completed: at(1),
            preempted_jobs: at(2),
            most: at(3),
        }
    }
}

impl PreemptionTally {
    /// Preemptions per completed job between two tallies (`self` the later), NaN without a
    /// completion.
    pub fn per_job(&self, earlier: &PreemptionTally) -> f64 {
        (self.preemptions - earlier.preemptions) as f64
            / (self.completed - earlier.completed) as f64
    }

    /// Between two tallies (`self` the later): the preemptions per job completed, and the
    /// share of the jobs completed that were preempted at least once; both 0 without a
    /// completion (what `runs.csv` and the report write).
    pub fn rates(&self, earlier: &PreemptionTally) -> (f64, f64) {
        let completed = self.completed - earlier.completed;
        if completed == 0 {
            return (0.0, 0.0);
        }
        (
            self.per_job(earlier),
            (self.preempted_jobs - earlier.preempted_jobs) as f64 / completed as f64,
        )
    }
}

impl Preemption {
    /// Nothing running yet; the waits (if recorded) move here from the cluster.
    pub(crate) fn new(waits: Option<Box<WaitRecorder>>) -> Self {
        Preemption {
            waits,
            ..Preemption::default()
        }
    }

    /// `job` placed on server `i` in slot `now`, due to leave at step 1 of slot `due`;
    /// returns whether it is a preempted job resuming.
    pub(crate) fn placed(&mut self, i: ServerId, job: &Job, due: u64) -> bool {
        let (service, preemptions, resumed) = match self.suspended.remove(&job.id) {
            Some((service, preemptions)) => (service, preemptions, true),
            None => (job.service, 0, false),
        };
        let key = (due, i, job.size.0);
        self.running.entry(key).or_default().push(Running {
            id: job.id,
            arrival: job.arrival,
            service,
            kind: job.kind,
            class: job.class,
            preemptions,
        });
        let clash = self.at.insert(job.id, key);
        assert!(clash.is_none(), "job {} placed while in service", job.id);
        resumed
    }

    /// Takes running job `id` off its server at step 3 of slot `now`: its server, and the job
    /// as it goes back to the policy (service: what it still needs). Panics if `id` is not
    /// running: a policy that tries is wrong.
    pub(crate) fn preempt(&mut self, id: u64, now: u64) -> (ServerId, Job) {
        let key = self
            .at
            .remove(&id)
            .unwrap_or_else(|| panic!("policy preempted job {id}, which is not in service"));
        let list = self.running.get_mut(&key).expect("a running job's key");
        let k = list.iter().position(|r| r.id == id).expect("listed");
        let r = list.swap_remove(k);
        if list.is_empty() {
            self.running.remove(&key);
        }
        *self.cancelled.entry(key).or_default() += 1;
        self.suspended.insert(id, (r.service, r.preemptions + 1));
        self.tally.preemptions += 1;
        let (due, server, size) = key;
        let job = Job {
            id,
            size: Size(size),
            service: (due - now) as u32,
            arrival: r.arrival,
            class: r.class,
            kind: r.kind,
        };
        (server, job)
    }

    /// The entries taken from the calendar at step 1 of slot `now`: those of preempted jobs
    /// are struck out of `departures` (their capacity was freed when they were preempted), the
    /// others complete, each counted in `counts` as a job placed with its wait (a preemptive
    /// run's mean wait is over the jobs completed). `of` gives an entry's (server, size).
    pub(crate) fn settle<D: Copy>(
        &mut self,
        now: u64,
        departures: &mut Vec<D>,
        counts: &mut Counters,
        of: impl Fn(&D) -> (ServerId, Size),
    ) {
        departures.retain(|d| {
            let (server, size) = of(d);
            let key = (now, server, size.0);
            if let Some(c) = self.cancelled.get_mut(&key) {
                *c -= 1;
                if *c == 0 {
                    self.cancelled.remove(&key);
                }
                return false;
            }
            let list = self.running.get_mut(&key).expect("a completing job's key");
            let r = list.pop().expect("listed");
            if list.is_empty() {
                self.running.remove(&key);
            }
            self.at.remove(&r.id);
            counts.waited(now - r.arrival - r.service as u64);
            self.tally.completed += 1;
            if r.preemptions > 0 {
                self.tally.preempted_jobs += 1;
                self.tally.most = self.tally.most.max(r.preemptions as u64);
            }
            if let Some(w) = &mut self.waits {
                w.completed(now, r.arrival, (size, r.kind), r.service);
            }
            true
        });
    }

    /// The calendar entries of preempted jobs still there: (server, size, count).
    pub(crate) fn struck_out(&self) -> impl Iterator<Item = (ServerId, u64, u32)> + '_ {
        self.cancelled.iter().map(|(k, &c)| (k.1, k.2, c))
    }

    /// Adds the run's preemption tally.
    pub(crate) fn observe(&self, out: &mut Observations) {
        out.push(&self.tally);
    }
}
