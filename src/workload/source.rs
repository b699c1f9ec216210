//! The per-run job source: common random numbers across policies.
//!
//! A run's jobs depend only on its seed, never on the policy: arrival counts, sizes and service
//! times come from three separate streams, so every policy at a (load, replication) point sees
//! exactly the same jobs, and changing the service law does not change the sizes.

use super::{Arrivals, ServiceLaw, SizeLaw};
use crate::model::Job;
use crate::rng::Streams;

/// A source of jobs for the slot loop: the batch A(t) of every slot, in arrival order.
pub trait Source<J> {
    /// Appends the batch of slot `t` to `out`.
    fn batch(&mut self, t: u64, out: &mut Vec<J>);
    /// Jobs arrived so far.
    fn arrived(&self) -> u64;
    /// Sum of the sizes of the jobs arrived so far (first resource), `Size` units.
    fn arrived_work(&self) -> u128;
}

/// Draws the batch A(t) of every slot, with each job's size and service time.
#[derive(Clone, Debug)]
pub struct JobSource {
    sizes: SizeLaw,
    service: ServiceLaw,
    arrivals: Arrivals,
    streams: Streams,
    next_id: u64,
    work: u128,
}

impl JobSource {
    pub fn new(sizes: SizeLaw, service: ServiceLaw, arrivals: Arrivals, run_seed: u64) -> Self {
        JobSource {
            sizes,
            service,
            arrivals,
            streams: Streams::new(run_seed),
            next_id: 0,
            work: 0,
        }
    }
}

impl Source<Job> for JobSource {
    fn arrived(&self) -> u64 {
        self.next_id
    }

    fn arrived_work(&self) -> u128 {
        self.work
    }

    /// Appends the batch of slot `t` to `out` (in arrival order).
    #[inline]
    fn batch(&mut self, t: u64, out: &mut Vec<Job>) {
        let n = self.arrivals.sample(t, &mut self.streams.arrivals);
        for _ in 0..n {
            let size = self.sizes.sample(&mut self.streams.sizes);
            let service = self.service.sample(&mut self.streams.service);
            out.push(Job {
                id: self.next_id,
                size,
                service,
                arrival: t,
                class: 0,
            });
            self.next_id += 1;
            self.work += size.0 as u128;
        }
    }
}
