//! BF-J/S and FIFO with a placement score, on a [`VectorCluster`] (see the module docs).

use std::collections::VecDeque;

use super::tally;
use super::{Attempt, VJob, VectorCluster};
pub use crate::model::Discipline;
use crate::model::{MAX_DIMS, Resources, ServerId};
use crate::sim::{Counters, System, Violation};

/// A scored policy's waiting jobs.
pub struct ScoredPolicy {
    discipline: Discipline,
    /// BF-J/S: the waiting jobs, in no particular order (ties go by id).
    waiting: Vec<VJob>,
    /// This slot's batch (BF-J/S) or the whole queue in arrival order (FIFO).
    fifo: VecDeque<VJob>,
}

impl ScoredPolicy {
    /// No waiting job yet, scheduling by `discipline`.
    pub fn new(discipline: Discipline) -> Self {
        ScoredPolicy {
            discipline,
            waiting: Vec::new(),
            fifo: VecDeque::new(),
        }
    }

    fn waiting(&self) -> usize {
        self.waiting.len() + self.fifo.len()
    }

    /// The server's view: server `p` takes the job with the lowest score, from the queue and
    /// this slot's batch, until none fits (ties: the earliest arrival).
    ///
    /// A pass also keeps the least request of the jobs the server admitted, dimension by
    /// dimension. The server's free resources only shrink while it fills, so when they no
    /// longer cover that least request no job is admitted, and the next pass is not made: near
    /// a limit a departure usually makes room for one waiting job, and the pass after it would
    /// read the whole queue to find none.
    fn fill_server(&mut self, cluster: &mut VectorCluster, p: usize, now: u64) {
        loop {
            let placer = cluster.placer();
            // (score, id, from the batch?, index)
            let mut best: Option<(f64, u64, bool, usize)> = None;
            let mut least: Resources = [u64::MAX; MAX_DIMS];
            let queue = self.waiting.iter().map(|j| (j, false));
            let batch = self.fifo.iter().map(|j| (j, true));
            for (k, (j, in_batch)) in queue.enumerate().chain(batch.enumerate()) {
                if !(placer.eligible(p, j.class) && placer.admits(p, &j.req, j.strict)) {
                    continue;
                }
                for (l, &r) in least.iter_mut().zip(&j.req) {
                    *l = (*l).min(r);
                }
                let s = placer.score_on(p, &j.req);
                if best.is_none_or(|(bs, bid, _, _)| s < bs || (s == bs && j.id < bid)) {
                    best = Some((s, j.id, in_batch, k));
                }
            }
            let job = match best {
                None => return,
                Some((_, _, false, k)) => self.waiting.swap_remove(k),
                Some((_, _, true, k)) => self.fifo.remove(k).expect("present"),
            };
            cluster.place(p, &job, now);
            if !cluster.placer().fits_on(p, &least) {
                return;
            }
        }
    }

    fn schedule(&mut self, cluster: &mut VectorCluster, departed: &[ServerId], now: u64) {
        match self.discipline {
            Discipline::BestFitJS => {
                for &i in departed {
                    if self.waiting.is_empty() && self.fifo.is_empty() {
                        break;
                    }
                    self.fill_server(cluster, i as usize, now);
                }
                // the batch's jobs still waiting take servers, in arrival order
                while let Some(job) = self.fifo.pop_front() {
                    if cluster.try_place(&job, now) != Attempt::Placed {
                        self.waiting.push(job);
                    }
                }
            }
            Discipline::Fifo => {
                while let Some(head) = self.fifo.front() {
                    if cluster.try_place(head, now) != Attempt::Placed {
                        break;
                    }
                    self.fifo.pop_front();
                }
            }
        }
    }

    /// BF-J/S: no waiting job fits on any server; FIFO: the head fits nowhere. With NUMA
    /// nodes "fits" means "is admitted" (a strict job inside one node), and a strict job that a
    /// scheduler without cluster-level awareness sent to the wrong server may wait while another
    /// server could hold it: the check skips those.
    fn check(&self, cluster: &VectorCluster) -> Result<(), Violation> {
        let blind = cluster.numa_blind();
        let fits_somewhere =
            |j: &VJob| !(j.strict && blind) && (0..cluster.servers()).any(|p| cluster.admits(p, j));
        let bad = match self.discipline {
            Discipline::BestFitJS => self.waiting.iter().chain(&self.fifo).any(fits_somewhere),
            Discipline::Fifo => self.fifo.front().is_some_and(fits_somewhere),
        };
        if bad {
            Err(Violation("a waiting job fits on a server".into()))
        } else {
            Ok(())
        }
    }
}

/// A [`VectorCluster`] with a [`ScoredPolicy`], as the slot loop drives them.
pub struct VectorSystem {
    /// The servers and their free resources.
    pub cluster: VectorCluster,
    /// The waiting jobs and how they are placed.
    pub policy: ScoredPolicy,
    departed: Vec<ServerId>,
    all: Vec<ServerId>,
}

impl VectorSystem {
    /// The system of `cluster` scheduled by `policy`.
    pub fn new(cluster: VectorCluster, policy: ScoredPolicy) -> Self {
        let all = (0..cluster.servers() as ServerId).collect();
        VectorSystem {
            cluster,
            policy,
            departed: Vec::new(),
            all,
        }
    }
}

impl System for VectorSystem {
    type Job = VJob;
    fn servers(&self) -> usize {
        self.cluster.servers()
    }
    fn depart(&mut self, t: u64) {
        self.cluster.depart(t, &mut self.departed);
    }
    fn enqueue(&mut self, job: VJob) {
        self.policy.fifo.push_back(job);
    }
    fn schedule(&mut self, t: u64) {
        let departed = if t == 0 { &self.all } else { &self.departed };
        self.policy.schedule(&mut self.cluster, departed, t);
    }
    fn waiting(&self) -> u64 {
        self.policy.waiting() as u64
    }
    /// Both disciplines act only on departures and new jobs: BF-J/S's batch is always placed or
    /// queued, FIFO's head of line fits nowhere until something leaves.
    fn next_event(&self, from: u64) -> u64 {
        self.cluster.next_departure(from).unwrap_or(u64::MAX)
    }
    fn used(&self) -> u128 {
        self.cluster.used()
    }
    fn capacity(&self) -> f64 {
        self.cluster.capacity() as f64
    }
    fn counters(&self) -> Counters {
        self.cluster.counters()
    }
    fn check(&self) -> Result<(), Violation> {
        self.cluster.check()?;
        self.policy.check(&self.cluster)
    }
    fn observe(&self, out: &mut Vec<(&'static str, Vec<u128>)>) {
        if let Some(t) = self.cluster.numa_tally() {
            out.push((tally::NUMA, t.counters()));
        }
        let waits = self.cluster.class_waits();
        if !waits.is_empty() {
            let flat = waits
                .iter()
                .flat_map(|&(n, w)| [u128::from(n), w])
                .collect();
            out.push((tally::CLASS_WAITS, flat));
        }
    }
}
