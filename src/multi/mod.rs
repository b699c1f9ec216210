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

mod policy;
mod source;

pub use policy::{Discipline, ScoredPolicy, VectorSystem};
pub use source::{ScalarAsVector, VectorJobSource};

use crate::model::ServerId;
use crate::model::Size;
use crate::packing::place::{Placer, Scorer};
use crate::packing::snapshot::Resources;
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
}

#[derive(Clone, Copy, Debug)]
struct Due {
    server: ServerId,
    req: Resources,
}

/// L servers of capacity 1 per resource, their free resources (kept by a [`Placer`], so the
/// scorers see them) and a departure calendar.
pub struct VectorCluster {
    placer: Placer,
    calendar: Calendar<Due>,
    /// Capacity in use, and in all, summed over resources, `Size` units.
    used: u128,
    capacity: u128,
    counts: Counters,
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
            used: 0,
            capacity: servers as u128 * dims as u128 * Size::UNIT as u128,
            counts: Counters::default(),
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
    pub fn placer(&mut self) -> &mut Placer {
        &mut self.placer
    }

    /// The first slot ≥ `from` in which a job may leave (`None`: the cluster is empty).
    #[inline]
    pub fn next_departure(&self, from: u64) -> Option<u64> {
        self.calendar.next_due(from)
    }

    /// Puts `job` on server `p` in slot `now`; panics if it does not fit.
    pub fn place(&mut self, p: usize, job: &VJob, now: u64) {
        self.placer.take(p, &job.req);
        self.used += job.req.iter().map(|&r| r as u128).sum::<u128>();
        self.counts.placed(now, job.arrival, job.req[0]);
        self.calendar.push(
            now + job.service as u64,
            Due {
                server: p as ServerId,
                req: job.req,
            },
        );
    }

    /// Step 1 of slot `now`: jobs whose service ended leave; `servers` gets the distinct
    /// servers they left, in index order.
    pub fn depart(&mut self, now: u64, servers: &mut Vec<ServerId>) {
        servers.clear();
        let (placer, used) = (&mut self.placer, &mut self.used);
        self.calendar.take_due(now, |d| {
            placer.release(d.server as usize, &d.req);
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
        Ok(())
    }
}
