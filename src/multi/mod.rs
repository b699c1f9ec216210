//! Multi-resource jobs in the slotted simulator (the paper's Section VIII leaves the
//! multi-resource case open and points at score-based best fit, Stein et al.).
//!
//! A job requests a vector of resources (CPU, memory, and a third one where a source has it),
//! every server has capacity 1 of each, and the placement scorers of the packing module
//! ([`Scorer`]: Best Fit V1–V5, First Fit, Sum-of-Squares, E-PVM, dot product, random) decide
//! inside two scheduling disciplines:
//!
//! - **BF-J/S with a score** (docs/theory.md section 3, the score replacing "free capacity"):
//!   first, every server with a departure (index order; all at t = 0) repeatedly takes the waiting
//!   job with the lowest score on it until none fits (the server's view; ties to the earliest
//!   arrival); then each job of the new batch still waiting goes to the server the scorer chooses
//!   (the job's view), or waits. With one resource and Best Fit this is exactly BF-J/S; E-PVM makes
//!   a server take the job that leaves it emptiest (worst fit), first fit the earliest job that
//!   fits, random a uniformly random fitting job.
//! - **FIFO with a score** (docs/theory.md section 8): the head job goes to the server the scorer
//!   chooses; when it fits nowhere, nothing more is placed this slot. With First Fit this is
//!   FIFO-FF.
//!
//! Sizes are exact fixed point ([`Size::UNIT`] per server per resource), as everywhere.
//! Scan-based scorers cost O(L) per job placed and the server's view O(queue) per departure
//! server; first fit uses the packing module's max-tree.

mod groups;
mod policy;
mod source;
mod tally;

pub use policy::{Discipline, ScoredPolicy, VectorSystem};
pub use source::{Constrained, Mark, Marked, Strict};
pub use source::{ScalarAsVector, VectorJobSource};
pub use tally::{ClassWaits, NumaTally, class_waits};

use std::sync::Arc;

use crate::constraints::Eligibility;
use crate::model::ServerId;
use crate::model::Size;
use crate::packing::numa::{Allocation, Layer, MAX_NODES, NODE_DIMS, Numa};
use crate::packing::place::{Placer, Scorer};
use crate::packing::snapshot::Resources;
use crate::sim::waits::{SizeClasses, WaitRecorder, Waits};
use crate::sim::{Calendar, Counters, Violation};

/// A job with a request per resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VJob {
    /// Arrival sequence number.
    pub id: u64,
    /// Request per resource, fixed-point units of one server's capacity.
    pub req: Resources,
    /// Service time, slots (≥ 1).
    pub service: u32,
    /// Slot of arrival.
    pub arrival: u64,
    /// The job must run inside one NUMA node (on servers with nodes; ignored without).
    pub strict: bool,
    /// Its placement constraint class (0: no constraints) in the cluster's eligibility table
    /// ([`VectorCluster::with_constraints`]).
    pub class: u32,
}

/// A job in service, as the calendar keeps it.
#[derive(Clone, Copy, Debug)]
struct Due {
    server: ServerId,
    /// Index of its node allocation in [`NumaTrack::allocs`] (servers with NUMA nodes).
    alloc: u32,
    strict: bool,
    class: u32,
    req: Resources,
}

/// What a cluster with NUMA nodes remembers besides the placer: where each job in service took
/// its CPU and memory from (a slab indexed by [`Due::alloc`], with a free list) and the tallies.
#[derive(Default)]
struct NumaTrack {
    allocs: Vec<Allocation>,
    vacant: Vec<u32>,
    tally: NumaTally,
}

impl NumaTrack {
    fn store(&mut self, a: Allocation) -> u32 {
        match self.vacant.pop() {
            Some(i) => {
                self.allocs[i as usize] = a;
                i
            }
            None => {
                self.allocs.push(a);
                (self.allocs.len() - 1) as u32
            }
        }
    }
}

/// L servers of capacity 1 per resource, their free resources (kept by a `Placer`, so the
/// scorers see them) and a departure calendar.
pub struct VectorCluster {
    placer: Placer,
    calendar: Calendar<Due>,
    /// With NUMA nodes: allocations of the jobs in service, and the tallies.
    numa: Option<NumaTrack>,
    /// Capacity in use, and in all, summed over resources, `Size` units.
    used: u128,
    capacity: u128,
    counts: Counters,
    /// With placement constraints: per job class, jobs placed and the sum of their waits.
    class_waits: Vec<(u64, u128)>,
    /// Every job's wait and response time, by the size class of its request of one resource
    /// ([`VectorCluster::record_waits`]).
    waits: Option<Box<(WaitRecorder, usize)>>,
}

impl VectorCluster {
    /// `servers` empty servers with `dims` resources; `scorer` chooses servers, `seed` drives
    /// the random ones; the calendar is sized for service times around `typical_service`.
    pub fn new(
        servers: usize,
        dims: usize,
        scorer: Scorer,
        seed: u64,
        typical_service: f64,
    ) -> Self {
        let mut cap = [0u64; 3];
        for c in cap.iter_mut().take(dims) {
            *c = Size::UNIT;
        }
        let caps = vec![cap; servers];
        let all: Vec<usize> = (0..servers).collect();
        VectorCluster {
            placer: Placer::new(&caps, &all, caps.clone(), scorer, seed),
            calendar: Calendar::new(typical_service),
            numa: None,
            used: 0,
            capacity: servers as u128 * dims as u128 * Size::UNIT as u128,
            counts: Counters::default(),
            class_waits: Vec::new(),
            waits: None,
        }
    }

    /// Record the waiting and response time of every job placed from slot `from` on (the end
    /// of warm-up), by the size class of its request of resource `resource` (the one the load
    /// counts) ([`crate::sim::waits`]).
    pub fn record_waits(&mut self, from: u64, classes: SizeClasses, resource: usize) {
        self.waits = Some(Box::new((WaitRecorder::new(from, classes), resource)));
    }

    /// The waits recorded since [`VectorCluster::record_waits`], if it was called.
    pub fn waits(&self) -> Option<Waits> {
        self.waits.as_deref().map(|w| w.0.waits())
    }

    /// The same cluster with placement constraints (Sharma et al., docs/theory.md section
    /// 11.2): server `p` is of machine kind `kind[p]` in `table`, and a job of class c is
    /// placed only on servers whose kind `table` allows for c. Waits are tallied per class.
    pub fn with_constraints(mut self, kind: Vec<u32>, table: Arc<Eligibility>) -> Self {
        self.class_waits = vec![(0, 0); table.classes().len()];
        self.placer = self.placer.with_constraints(kind, table);
        self
    }

    /// Per job class: jobs placed so far and the sum of their waits, slots (empty without
    /// constraints).
    pub fn class_waits(&self) -> &[(u64, u128)] {
        &self.class_waits
    }

    /// The same cluster with NUMA nodes on every server, laid out by `numa.layout`, and the
    /// awareness `numa.layer` (Wu et al., docs/theory.md section 11.1): jobs marked strict run
    /// inside one node.
    pub fn with_numa(mut self, numa: &Numa) -> Self {
        self.placer = self.placer.with_numa(numa);
        self.numa = Some(NumaTrack::default());
        self
    }

    /// NUMA tallies so far (`None` without nodes).
    pub fn numa_tally(&self) -> Option<NumaTally> {
        self.numa.as_ref().map(|n| n.tally)
    }

    /// With NUMA nodes and no cluster-level awareness: the scheduler may send a strict job to a
    /// server whose nodes cannot hold it.
    pub fn numa_blind(&self) -> bool {
        self.numa.is_some() && self.placer.numa_layer() != Some(Layer::Cluster)
    }

    /// Free CPU and memory of server `p`'s NUMA nodes (empty without nodes).
    pub fn numa_machines_free(&self, p: usize) -> Vec<[u64; NODE_DIMS]> {
        self.placer
            .numa_machines()
            .map_or_else(Vec::new, |m| m.free(p).to_vec())
    }

    /// Can server `p` host `job` now (the job may run there, it fits, and a strict job fits
    /// inside one node)?
    #[inline]
    pub fn admits(&self, p: usize, job: &VJob) -> bool {
        self.placer.eligible(p, job.class) && self.placer.admits(p, &job.req, job.strict)
    }

    /// The server the scheduler sends `job` to, if any fits it (`Placer::choose_job`): one
    /// that admits it, except that a scheduler without cluster-level NUMA awareness may send a
    /// strict job to a server whose nodes cannot hold it ([`VectorCluster::try_place`]).
    #[inline]
    pub fn choose(&mut self, job: &VJob) -> Option<usize> {
        self.placer.choose_job(&job.req, job.strict, job.class)
    }

    /// Sends `job` to the server the scheduler chooses in slot `now`. `Placed` if it went
    /// there; `Refused` if that server's nodes cannot hold the strict job (it is counted and
    /// stays with the caller); `NoServer` if no server fits it.
    pub fn try_place(&mut self, job: &VJob, now: u64) -> Attempt {
        let Some(p) = self.choose(job) else {
            return Attempt::NoServer;
        };
        if self.admits(p, job) {
            self.place(p, job, now);
            Attempt::Placed
        } else {
            if let Some(n) = &mut self.numa {
                n.tally.refused += 1;
            }
            Attempt::Refused
        }
    }

    /// The running totals (placed, waits, departed, in service, placed work).
    pub fn counters(&self) -> Counters {
        self.counts
    }

    /// Capacity in use, summed over resources, `Size` units.
    pub fn used(&self) -> u128 {
        self.used
    }

    /// Total capacity, summed over servers and resources, `Size` units.
    pub fn capacity(&self) -> u128 {
        self.capacity
    }

    /// Number of servers L.
    pub fn servers(&self) -> usize {
        self.placer.frees().len()
    }

    /// Free resources of every server.
    pub fn frees(&self) -> &[Resources] {
        self.placer.frees()
    }

    /// The placer (scores and choices on the current free resources).
    pub(crate) fn placer(&mut self) -> &mut Placer {
        &mut self.placer
    }

    /// The first slot ≥ `from` in which a job may leave (`None`: the cluster is empty).
    #[inline]
    pub fn next_departure(&self, from: u64) -> Option<u64> {
        self.calendar.next_due(from)
    }

    /// Puts `job` on server `p` in slot `now`; panics if `p` does not admit it (a policy that
    /// tries is wrong, and the run must not go on).
    pub fn place(&mut self, p: usize, job: &VJob, now: u64) {
        assert!(
            self.placer.eligible(p, job.class),
            "policy placed job {} of constraint class {} on server {p}, which it may not use",
            job.id,
            job.class
        );
        if let Some(w) = self.class_waits.get_mut(job.class as usize) {
            w.0 += 1;
            w.1 += (now - job.arrival) as u128;
        }
        let alloc = self.placer.take_job(p, &job.req, job.strict);
        let slot = match (&mut self.numa, alloc) {
            (Some(n), Some(a)) => {
                n.tally.placed += 1;
                if a.fit {
                    n.tally.fit += 1;
                    n.tally.fit_cpu += u128::from(job.req[0]);
                }
                if job.strict {
                    n.tally.strict += 1;
                }
                n.store(a)
            }
            _ => u32::MAX,
        };
        self.used += job.req.iter().map(|&r| r as u128).sum::<u128>();
        self.counts.placed(now, job.arrival, job.req[0]);
        if let Some(w) = &mut self.waits {
            w.0.placed(now, job.arrival, (Size(job.req[w.1]), 0), job.service);
        }
        self.calendar.push(
            now + job.service as u64,
            Due {
                server: p as ServerId,
                alloc: slot,
                strict: job.strict,
                class: job.class,
                req: job.req,
            },
        );
    }

    /// Step 1 of slot `now`: jobs whose service ended leave; `servers` gets the distinct
    /// servers they left, in index order.
    pub fn depart(&mut self, now: u64, servers: &mut Vec<ServerId>) {
        servers.clear();
        let (placer, used, numa) = (&mut self.placer, &mut self.used, &mut self.numa);
        self.calendar.take_due(now, |d| {
            match numa {
                Some(n) => {
                    placer.release_allocation(
                        d.server as usize,
                        &d.req,
                        &n.allocs[d.alloc as usize],
                    );
                    n.vacant.push(d.alloc);
                }
                None => placer.release(d.server as usize, &d.req),
            }
            *used -= d.req.iter().map(|&r| r as u128).sum::<u128>();
            servers.push(d.server);
        });
        self.counts.departed(servers.len() as u64);
        servers.sort_unstable();
        servers.dedup();
    }

    /// Every server's free resources equal its capacity minus what the calendar says it holds.
    pub fn check(&self) -> Result<(), Violation> {
        let n = self.servers();
        let mut used = vec![[0u128; 3]; n];
        let mut count = 0u64;
        for d in self.calendar.items() {
            for (u, &r) in used[d.server as usize].iter_mut().zip(&d.req) {
                *u += r as u128;
            }
            if !self.placer.eligible(d.server as usize, d.class) {
                return Err(Violation(format!(
                    "a job of constraint class {} runs on server {}, which it may not use",
                    d.class, d.server
                )));
            }
            count += 1;
        }
        for (p, u) in used.iter().enumerate() {
            let cap = self.placer.capacity(p);
            for k in 0..3 {
                if u[k] + self.placer.frees()[p][k] as u128 != cap[k] as u128 {
                    return Err(Violation(format!(
                        "server {p} resource {k} bookkeeping drifted"
                    )));
                }
            }
        }
        if count != self.counts.in_service {
            return Err(Violation("in-service count drifted".into()));
        }
        if let Some(n) = &self.numa {
            self.check_nodes(n)?;
        }
        Ok(())
    }

    /// Per node: free plus what the jobs in service took from it equals its capacity; the
    /// nodes' free CPU and memory add up to the server's; every strict job sits in one node.
    fn check_nodes(&self, n: &NumaTrack) -> Result<(), Violation> {
        let machines = self
            .placer
            .numa_machines()
            .ok_or_else(|| Violation("NUMA tallies without NUMA nodes".into()))?;
        let mut taken = vec![[[0u128; NODE_DIMS]; MAX_NODES]; self.servers()];
        for d in self.calendar.items() {
            let a = &n.allocs[d.alloc as usize];
            if d.strict && !a.fit {
                return Err(Violation(format!(
                    "a strict job on server {} is split across nodes",
                    d.server
                )));
            }
            let mut sum = [0u64; NODE_DIMS];
            for (t, part) in taken[d.server as usize].iter_mut().zip(&a.parts) {
                for k in 0..NODE_DIMS {
                    t[k] += part[k] as u128;
                    sum[k] += part[k];
                }
            }
            if sum[..] != d.req[..NODE_DIMS] {
                return Err(Violation(format!(
                    "a job on server {} took {sum:?} from its nodes for a request of {:?}",
                    d.server, d.req
                )));
            }
        }
        for (p, t) in taken.iter().enumerate() {
            let (free, cap) = (machines.free(p), machines.capacity(p));
            for k in 0..NODE_DIMS {
                let mut node_free = 0u128;
                for i in 0..free.len() {
                    if t[i][k] + free[i][k] as u128 != cap[i][k] as u128 {
                        return Err(Violation(format!(
                            "server {p} node {i} resource {k} bookkeeping drifted"
                        )));
                    }
                    node_free += free[i][k] as u128;
                }
                if node_free != self.placer.frees()[p][k] as u128 {
                    return Err(Violation(format!(
                        "server {p}: its nodes' free resource {k} differs from the server's"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// What [`VectorCluster::try_place`] did with a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// On the chosen server.
    Placed,
    /// The chosen server's nodes cannot hold the strict job.
    Refused,
    /// No server fits it.
    NoServer,
}
