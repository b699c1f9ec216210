//! The cluster's occupancy and its departure calendar (docs/theory.md section 1).
//!
//! L servers of capacity 1. A job placed in slot t with service time S occupies its server in
//! slots t … t+S−1 and leaves at step 1 of slot t+S. Departures come from a calendar keyed by
//! slot (a timing wheel), not from a coin flip per job per slot: the law is the same because the
//! service time was drawn when the job arrived.

use super::preemption::Preemption;
use super::waits::{SizeClasses, WaitRecorder, Waits};
use super::{Calendar, Counters, Observations, Violation};
use crate::model::{Departure, Job, ServerId, Size};

/// One placement decision, for logs and reference comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The slot of the decision.
    pub slot: u64,
    /// The job placed.
    pub job: u64,
    /// The server it went to.
    pub server: ServerId,
}

/// L unit-capacity servers, what they hold, and when it leaves.
#[derive(Debug)]
pub struct Cluster {
    free: Vec<Size>,
    jobs: Vec<u32>,
    calendar: Calendar<Departure>,
    used: u128,
    counts: Counters,
    log: Option<Vec<Placement>>,
    waits: Option<Box<WaitRecorder>>,
    /// Kept when the policy preempts ([`Cluster::enable_preemption`]).
    preemption: Option<Box<Preemption>>,
}

impl Cluster {
    /// `servers` empty servers; the calendar is sized for service times around `typical_service`
    /// slots (longer ones are still exact, they just wrap around the wheel).
    pub fn new(servers: usize, typical_service: f64) -> Self {
        Cluster {
            free: vec![Size::ONE; servers],
            jobs: vec![0; servers],
            calendar: Calendar::new(typical_service),
            used: 0,
            counts: Counters::default(),
            log: None,
            waits: None,
            preemption: None,
        }
    }

    /// Lets the policy take running jobs off their servers ([`Cluster::preempt`]); from now on
    /// the waits are recorded when jobs complete (a preempted job's wait is its response time
    /// less its service). The slot loop calls it for a policy that says it preempts
    /// ([`crate::policy::Policy::preemptive`]) before the run's first slot.
    pub fn enable_preemption(&mut self) {
        if self.preemption.is_none() {
            self.preemption = Some(Box::new(Preemption::new(self.waits.take())));
        }
    }

    /// Whether the cluster lets its policy preempt.
    pub fn preemptive(&self) -> bool {
        self.preemption.is_some()
    }

    /// Takes running job `id` off its server at step 3 of slot `now` (preempt-resume): frees
    /// its capacity and returns the job as it goes back to the policy, its `service` what it
    /// still needs (its id, arrival, size and kind unchanged), and the server it left. Panics
    /// when the cluster does not allow preemption or `id` is not in service: a policy that
    /// tries is wrong.
    pub fn preempt(&mut self, id: u64, now: u64) -> (ServerId, Job) {
        let p = self.preemption.as_mut().unwrap_or_else(|| {
            panic!("policy preempted job {id} without saying it preempts (Policy::preemptive)")
        });
        let (server, job) = p.preempt(id, now);
        let i = server as usize;
        self.free[i].0 += job.size.0;
        self.jobs[i] -= 1;
        self.used -= job.size.0 as u128;
        self.counts.stopped(job.size.0);
        (server, job)
    }

    /// Adds what the cluster's features counted (the preemptions of a preemptive run).
    pub fn observe(&self, out: &mut Observations) {
        if let Some(p) = &self.preemption {
            p.observe(out);
        }
    }

    /// Record the waiting and response time of every job placed from slot `from` on (the end
    /// of warm-up), by size class ([`crate::sim::waits`]).
    pub fn record_waits(&mut self, from: u64, classes: SizeClasses) {
        let w = Some(Box::new(WaitRecorder::new(from, classes)));
        match &mut self.preemption {
            Some(p) => p.waits = w,
            None => self.waits = w,
        }
    }

    /// The waits recorded since [`Cluster::record_waits`], if it was called.
    pub fn waits(&self) -> Option<Waits> {
        match &self.preemption {
            Some(p) => p.waits.as_deref().map(WaitRecorder::waits),
            None => self.waits.as_deref().map(WaitRecorder::waits),
        }
    }

    /// Record every placement (for tests comparing policies decision by decision).
    pub fn enable_log(&mut self) {
        self.log = Some(Vec::new());
    }

    /// The placements recorded since `enable_log`.
    pub fn log(&self) -> &[Placement] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Number of servers L.
    pub fn servers(&self) -> usize {
        self.free.len()
    }

    /// Free capacity of server `i`.
    #[inline]
    pub fn free(&self, i: ServerId) -> Size {
        self.free[i as usize]
    }

    /// Free capacities of all servers, by index.
    pub fn frees(&self) -> &[Size] {
        &self.free
    }

    /// Number of jobs on server `i`.
    #[inline]
    pub fn jobs_on(&self, i: ServerId) -> u32 {
        self.jobs[i as usize]
    }

    /// The running totals (placed, waits, departed, in service, placed work).
    pub fn counters(&self) -> Counters {
        self.counts
    }

    /// The first slot ≥ `from` in which a job may leave (`None`: the cluster is empty); no job
    /// leaves before it.
    #[inline]
    pub fn next_departure(&self, from: u64) -> Option<u64> {
        self.calendar.next_due(from)
    }

    /// Capacity in use over the whole cluster, in `Size` units.
    pub fn used(&self) -> u128 {
        self.used
    }

    /// Put `job` on server `i` in slot `now`. Panics if it does not fit: a policy that tries is
    /// wrong, and the run must not go on with a server over capacity.
    #[inline]
    pub fn place(&mut self, i: ServerId, job: &Job, now: u64) {
        let f = &mut self.free[i as usize];
        assert!(
            job.size <= *f,
            "policy placed job {} of size {} on server {i} with free {}",
            job.id,
            job.size,
            *f
        );
        f.0 -= job.size.0;
        self.jobs[i as usize] += 1;
        self.used += job.size.0 as u128;
        let due = now + job.service as u64;
        if self.preemption.is_some() {
            self.start_preemptible(i, job, due);
        } else {
            self.counts.placed(now, job.arrival, job.size.0);
            if let Some(w) = &mut self.waits {
                w.placed(now, job.arrival, (job.size, job.kind), job.service);
            }
        }
        self.calendar.push(
            due,
            Departure {
                server: i,
                size: job.size,
                class: job.class,
            },
        );
        if let Some(log) = &mut self.log {
            log.push(Placement {
                slot: now,
                job: job.id,
                server: i,
            });
        }
    }

    /// What [`Self::place`] records on a preemptive cluster, out of the hot path: the job
    /// starts (or a preempted one resumes, its `service` what it still needs, due at step 1 of
    /// slot `due`); its wait is counted when it completes.
    #[inline(never)]
    fn start_preemptible(&mut self, i: ServerId, job: &Job, due: u64) {
        assert!(
            job.service >= 1,
            "policy placed job {} with no service left on server {i}",
            job.id
        );
        self.counts.started(job.size.0);
        self.preemption
            .as_mut()
            .expect("preemptive")
            .placed(i, job, due);
    }

    /// Step 1 of slot `now`: remove every job whose service ended in slot `now − 1`. Fills
    /// `departures` with them and `servers` with the distinct servers they left, in index order.
    /// (A slot whose calendar bucket is empty, about half the slots simulated on a small
    /// cluster, is settled inline, without the call of the full step.)
    #[inline]
    pub fn depart(
        &mut self,
        now: u64,
        departures: &mut Vec<Departure>,
        servers: &mut Vec<ServerId>,
    ) {
        departures.clear();
        servers.clear();
        if self.calendar.may_be_due(now) {
            self.depart_due(now, departures, servers);
        }
    }

    /// [`Self::depart`] when the calendar's bucket of `now` holds something.
    #[inline(never)]
    fn depart_due(
        &mut self,
        now: u64,
        departures: &mut Vec<Departure>,
        servers: &mut Vec<ServerId>,
    ) {
        self.calendar.take_due(now, |d| departures.push(d));
        if let Some(p) = &mut self.preemption {
            p.settle(now, departures, &mut self.counts, |d| (d.server, d.size));
        }
        if departures.is_empty() {
            return;
        }
        for d in departures.iter() {
            let i = d.server as usize;
            self.free[i].0 += d.size.0;
            self.jobs[i] -= 1;
            self.used -= d.size.0 as u128;
            servers.push(d.server);
        }
        self.counts.departed(departures.len() as u64);
        if servers.len() > 1 {
            servers.sort_unstable();
            servers.dedup();
        }
    }

    /// Checks the capacity invariant from scratch: every server's free capacity equals one minus
    /// the sizes of the jobs the calendar says it holds. Returns a description of the first
    /// violation. O(jobs in service); for tests and end-of-run checks.
    pub fn check(&self) -> Result<(), Violation> {
        let mut used = vec![0u128; self.free.len()];
        let mut count = vec![0u32; self.free.len()];
        for d in self.calendar.items() {
            used[d.server as usize] += d.size.0 as u128;
            count[d.server as usize] += 1;
        }
        // a preempted job's entry stays in the calendar until its slot
        for (server, size, c) in self.preemption.iter().flat_map(|p| p.struck_out()) {
            used[server as usize] -= size as u128 * c as u128;
            count[server as usize] -= c;
        }
        for (i, (&u, &c)) in used.iter().zip(&count).enumerate() {
            if u > Size::UNIT as u128 {
                return Err(Violation(format!(
                    "server {i} over capacity: {u} > {}",
                    Size::UNIT
                )));
            }
            if u + self.free[i].0 as u128 != Size::UNIT as u128 || c != self.jobs[i] {
                return Err(Violation(format!("server {i} bookkeeping drifted")));
            }
        }
        let total: u64 = count.iter().map(|&c| c as u64).sum();
        if total != self.counts.in_service {
            return Err(Violation("in-service count drifted".into()));
        }
        Ok(())
    }
}
