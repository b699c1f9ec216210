//! Seeds and random streams: every random number of a run comes from a stream derived from the
//! experiment's seed and a path of indices (load point, replication, …), never from the policy,
//! so every policy at a point sees the same jobs (common random numbers), and never from the
//! thread that runs it. The generator is PCG-64 (MCG variant, `rand_pcg::Pcg64Mcg`).

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// SplitMix64 finaliser: a well-mixed 64-bit value from a 64-bit input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A run's seed from the experiment seed and a path of indices (load point, replication, …).
/// The policy is never part of the path.
pub(crate) fn derive_seed(seed: u64, path: &[u64]) -> u64 {
    path.iter().fold(mix(seed), |acc, &p| mix(acc ^ mix(p)))
}

/// A generator seeded from `seed` along `path`.
pub(crate) fn stream(seed: u64, path: &[u64]) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(derive_seed(seed, path))
}

/// The three random streams of one run: arrival counts, sizes and service times, separate so
/// that changing one law does not change what the others draw.
#[derive(Clone, Debug)]
pub struct Streams {
    /// Draws the number of arrivals per slot.
    pub arrivals: Pcg64Mcg,
    /// Draws the job sizes.
    pub sizes: Pcg64Mcg,
    /// Draws the service times.
    pub service: Pcg64Mcg,
}

impl Streams {
    /// Streams for a run seed (see `derive_seed`).
    pub fn new(run_seed: u64) -> Self {
        Streams {
            arrivals: stream(run_seed, &[1]),
            sizes: stream(run_seed, &[2]),
            service: stream(run_seed, &[3]),
        }
    }
}
