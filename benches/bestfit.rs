//! Best fit's server index alone: `cargo bench --bench bestfit`.
//!
//! Prints nanoseconds per operation pair (one server's free capacity changes, then one "least
//! free ≥ size" query) at L = 64, 1000, 1024, 10⁴ and 10⁵ servers. Free capacities and sizes are
//! uniform on [0, 1] (continuous, on the fixed-point grid), so every update moves a server to a
//! random rank: the worst case for a sorted array. `PACKLAB_BENCH_OPS` sets the pairs per
//! measurement (default 4·10⁶), best of 5.

use std::hint::black_box;
use std::time::Instant;

use packlab::model::{ServerId, Size};
use packlab::policy::index::BestFitServers;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

mod common;

fn main() {
    let ops: usize = common::env("PACKLAB_BENCH_OPS", 4_000_000);
    println!("{:>8} {:>14}", "L", "ns per update+query");
    for servers in [64usize, 1000, 1024, 10_000, 100_000] {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        // the operations, drawn beforehand
        let plan: Vec<(ServerId, Size, Size)> = (0..ops)
            .map(|_| {
                (
                    rng.random_range(0..servers) as ServerId,
                    Size(rng.random_range(0..=Size::UNIT)),
                    Size(rng.random_range(1..=Size::UNIT)),
                )
            })
            .collect();
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let mut index = BestFitServers::new(servers);
            let mut found = 0u64;
            let start = Instant::now();
            for &(i, free, size) in &plan {
                index.update(i, free);
                found += index.best_fit(size).map_or(0, |s| s as u64);
            }
            black_box(found);
            best = best.min(start.elapsed().as_secs_f64() * 1e9 / ops as f64);
        }
        println!("{servers:>8} {best:>14.1}");
    }
}
