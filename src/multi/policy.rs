//! BF-J/S and FIFO with a placement score, on a [`VectorCluster`] (see the module docs).

use std::collections::VecDeque;

use super::groups::Groups;
use super::tally;
use super::{Attempt, VJob, VectorCluster};
pub use crate::model::Discipline;
use crate::model::{MAX_DIMS, Resources, ServerId};
use crate::sim::{Counters, Observations, System, Violation};

/// A scored policy's waiting jobs.
pub struct ScoredPolicy {
    discipline: Discipline,
    /// BF-J/S: the waiting jobs, in no particular order (ties go by id), each scored in this
    /// order; empty while `groups` holds them.
    waiting: Vec<VJob>,
    /// BF-J/S with a scorer that draws nothing, once [`GROUP_FROM`] jobs wait: the waiting
    /// jobs grouped by request.
    groups: Groups,
    /// This slot's batch (BF-J/S) or the whole queue in arrival order (FIFO).
    fifo: VecDeque<VJob>,
}

/// Waiting jobs from which BF-J/S keeps them grouped by request (below, the queue is scanned:
/// a few jobs cost less to read than to hash).
const GROUP_FROM: usize = 64;

/// Offers job `$j` to server `$p` in a pass of the server's view (in the body of the pass's
/// loop, which it continues if the server does not admit the job): if the server admits it,
/// `$least` (the least request admitted in the pass, per dimension) is lowered to its request,
/// it is scored (in the order of the offers, for a scorer that draws), and `$best` becomes
/// (score, id, where it waits) if its (score, id) is the lowest so far.
///
/// A macro, not a function, so that both scans compile as written out: as an inlined function
/// the scans ran up to 8 % slower near a limit (`docs/performance.md`).
macro_rules! offer {
    ($placer:ident, $p:ident, $j:ident, $least:ident, $best:ident, ($at:ident, $k:ident)) => {
        if !($placer.eligible($p, $j.class) && $placer.admits($p, &$j.req, $j.strict)) {
            continue;
        }
        for (l, &r) in $least.iter_mut().zip(&$j.req) {
            *l = (*l).min(r);
        }
        let s = $placer.score_on($p, &$j.req);
        if $best.is_none_or(|(bs, bid, _, _)| s < bs || (s == bs && $j.id < bid)) {
            $best = Some((s, $j.id, $at, $k));
        }
    };
}

impl ScoredPolicy {
    /// No waiting job yet, scheduling by `discipline`.
    pub fn new(discipline: Discipline) -> Self {
        ScoredPolicy {
            discipline,
            waiting: Vec::new(),
            groups: Groups::default(),
            fifo: VecDeque::new(),
        }
    }

    fn waiting(&self) -> usize {
        self.waiting.len() + self.groups.len() + self.fifo.len()
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
        if self.groups.len() > 0 {
            self.fill_grouped(cluster, p, now);
        } else {
            self.fill_scanned(cluster, p, now);
        }
    }

    /// Queues a job of the batch that no server took: in the flat queue, or grouped by request
    /// once [`GROUP_FROM`] wait (never for the random scorer, whose draws follow the order the
    /// jobs are scored in). The flat queue's jobs then join their groups, earliest first; the
    /// queue is flat again once the groups are empty.
    fn queue(&mut self, job: VJob, cluster: &mut VectorCluster) {
        let grouped = self.groups.len() > 0
            || (self.waiting.len() >= GROUP_FROM && !cluster.placer().score_draws());
        if !grouped {
            self.waiting.push(job);
            return;
        }
        if !self.waiting.is_empty() {
            self.waiting.sort_unstable_by_key(|j| j.id);
            for j in self.waiting.drain(..) {
                self.groups.push(j);
            }
        }
        self.groups.push(job);
    }

    /// [`Self::fill_server`] over every waiting job, in the queue's order (the flat queue: a
    /// short one, or any with the random scorer).
    fn fill_scanned(&mut self, cluster: &mut VectorCluster, p: usize, now: u64) {
        loop {
            let placer = cluster.placer();
            // (score, id, from the batch?, index)
            let mut best: Option<(f64, u64, bool, usize)> = None;
            let mut least: Resources = [u64::MAX; MAX_DIMS];
            let queue = self.waiting.iter().map(|j| (j, false));
            let batch = self.fifo.iter().map(|j| (j, true));
            for (k, (j, in_batch)) in queue.enumerate().chain(batch.enumerate()) {
                offer!(placer, p, j, least, best, (in_batch, k));
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

    /// [`Self::fill_server`] over the earliest job of each group and this slot's batch: a
    /// score that draws nothing is the same for every job of a group, so the lowest (score,
    /// id) is among those, and the same job is chosen as by a scan of every waiting job.
    fn fill_grouped(&mut self, cluster: &mut VectorCluster, p: usize, now: u64) {
        loop {
            let placer = cluster.placer();
            // (score, id, its group, or None for the batch, and its index there)
            let mut best: Option<(f64, u64, Option<usize>, usize)> = None;
            let mut least: Resources = [u64::MAX; MAX_DIMS];
            let fronts = self.groups.fronts().map(|(g, j)| (j, Some(g), 0));
            let batch = self.fifo.iter().enumerate().map(|(k, j)| (j, None, k));
            for (j, group, k) in fronts.chain(batch) {
                offer!(placer, p, j, least, best, (group, k));
            }
            let job = match best {
                None => return,
                Some((_, _, Some(g), _)) => self.groups.take(g),
                Some((_, _, None, k)) => self.fifo.remove(k).expect("present"),
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
                    if self.waiting() == 0 {
                        break;
                    }
                    self.fill_server(cluster, i as usize, now);
                }
                // the batch's jobs still waiting take servers, in arrival order
                while let Some(job) = self.fifo.pop_front() {
                    if cluster.try_place(&job, now) != Attempt::Placed {
                        self.queue(job, cluster);
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
            Discipline::BestFitJS => {
                let fronts = self.groups.fronts().map(|(_, j)| j);
                (self.waiting.iter().chain(fronts).chain(&self.fifo)).any(fits_somewhere)
            }
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
    fn waits(&self) -> Option<crate::sim::Waits> {
        self.cluster.waits()
    }
    fn observe(&self, out: &mut Observations) {
        if let Some(t) = self.cluster.numa_tally() {
            out.push(&t);
        }
        let waits = self.cluster.class_waits();
        if !waits.is_empty() {
            out.push(&tally::ClassWaits(waits.to_vec()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Size;
    use crate::packing::place::Scorer;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// A cluster of four servers with two resources, partly filled by placements drawn from
    /// `rng`.
    fn cluster(scorer: Scorer, rng: &mut Pcg64Mcg) -> VectorCluster {
        let mut c = VectorCluster::new(4, 2, scorer, 0, 10.0);
        for p in 0..4 {
            let used = [
                rng.random_range(0..Size::UNIT / 2),
                rng.random_range(0..Size::UNIT / 2),
            ];
            let job = VJob {
                id: 1_000_000 + p as u64,
                req: [used[0].max(1), used[1].max(1), 0],
                service: 5,
                arrival: 0,
                strict: false,
                class: 0,
            };
            c.place(p, &job, 0);
        }
        c
    }

    #[test]
    fn a_grouped_fill_takes_the_jobs_a_scan_of_every_waiting_job_takes() {
        let mut rng = Pcg64Mcg::seed_from_u64(12);
        for name in Scorer::NAMES.iter().filter(|&&n| n != "random") {
            let scorer = Scorer::from_name(name).unwrap();
            for case in 0..30 {
                // a few request vectors, many jobs of each: groups of many jobs
                let kinds: Vec<[u64; 3]> = (0..rng.random_range(1..6))
                    .map(|_| {
                        let cpu = rng.random_range(1..=Size::UNIT / 2);
                        let mem = rng.random_range(0..=Size::UNIT / 2);
                        [cpu, mem, 0]
                    })
                    .collect();
                let jobs: Vec<VJob> = (0..rng.random_range(65..200))
                    .map(|id| VJob {
                        id,
                        req: kinds[rng.random_range(0..kinds.len())],
                        service: 5,
                        arrival: 0,
                        strict: false,
                        class: 0,
                    })
                    .collect();
                let seed = rng.random::<u64>();
                let mut a_cluster = cluster(scorer, &mut Pcg64Mcg::seed_from_u64(seed));
                let mut b_cluster = cluster(scorer, &mut Pcg64Mcg::seed_from_u64(seed));
                // the scan reads the jobs in a scrambled order, as swap_remove leaves them
                let mut scanned = ScoredPolicy::new(Discipline::BestFitJS);
                scanned.waiting = jobs.clone();
                scanned.waiting.shuffle(&mut rng);
                let mut grouped = ScoredPolicy::new(Discipline::BestFitJS);
                for &j in &jobs {
                    grouped.groups.push(j);
                }
                for p in 0..4 {
                    scanned.fill_scanned(&mut a_cluster, p, 1);
                    grouped.fill_grouped(&mut b_cluster, p, 1);
                }
                assert_eq!(a_cluster.frees(), b_cluster.frees(), "{name}, case {case}");
                let mut left: Vec<u64> = scanned.waiting.iter().map(|j| j.id).collect();
                left.sort_unstable();
                let mut also = Vec::new();
                loop {
                    let Some(g) = grouped.groups.fronts().map(|(g, _)| g).next() else {
                        break;
                    };
                    also.push(grouped.groups.take(g).id);
                }
                also.sort_unstable();
                assert_eq!(left, also, "{name}, case {case}");
                assert!(
                    left.len() < jobs.len(),
                    "{name}, case {case}: something was placed"
                );
            }
        }
    }
}
