//! Random request vectors of CPU and memory, shared by the scored bench and the multi-resource
//! integration tests (included by path from both).

use packlab::model::Size;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// `n` request vectors `[cpu, memory, 0]` drawn from `seed`, fixed point: CPU uniform in
/// (0, 1/2] of a server, memory 0 with probability 0.1 and else uniform in (0, 3/5].
pub fn random_requests(seed: u64, n: usize) -> Vec<[u64; 3]> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let cpu = rng.random_range(1..=Size::UNIT / 2);
            let mem = if rng.random_bool(0.1) {
                0
            } else {
                rng.random_range(1..=Size::UNIT * 3 / 5)
            };
            [cpu, mem, 0]
        })
        .collect()
}
