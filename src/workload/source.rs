//! The per-run job source: common random numbers across policies.
//!
//! A run's jobs depend only on its seed, never on the policy: arrival counts, sizes and service
//! times come from three separate streams, so every policy at a (load, replication) point sees
//! exactly the same jobs, and changing the service law does not change the sizes.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::{Arrivals, ServiceLaw, SizeLaw};
use crate::model::Job;

/// SplitMix64 finaliser: a well-mixed 64-bit value from a 64-bit input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A run's seed from the experiment seed and a path of indices (load point, replication, …).
/// The policy is never part of the path.
pub fn derive_seed(seed: u64, path: &[u64]) -> u64 {
    path.iter().fold(mix(seed), |acc, &p| mix(acc ^ mix(p)))
}

/// The three random streams of one run.
#[derive(Clone, Debug)]
pub struct Streams {
    pub arrivals: Pcg64Mcg,
    pub sizes: Pcg64Mcg,
    pub service: Pcg64Mcg,
}

impl Streams {
    /// Streams for a run seed (see [`derive_seed`]).
    pub fn new(run_seed: u64) -> Self {
        let s = |k: u64| Pcg64Mcg::seed_from_u64(derive_seed(run_seed, &[k]));
        Streams {
            arrivals: s(1),
            sizes: s(2),
            service: s(3),
        }
    }
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

    /// Jobs arrived so far.
    pub fn arrived(&self) -> u64 {
        self.next_id
    }

    /// Sum of the sizes of the jobs arrived so far, `Size` units.
    pub fn arrived_work(&self) -> u128 {
        self.work
    }

    /// Appends the batch of slot `t` to `out` (in arrival order).
    #[inline]
    pub fn batch(&mut self, t: u64, out: &mut Vec<Job>) {
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
