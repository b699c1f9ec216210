//! Best fit's server index alone: `cargo bench --bench bestfit`.
//!
//! Prints nanoseconds per operation pair (one server's free capacity changes, then one "least
//! free ≥ size" query) at L = 64, 1000, 1024, 10⁴ and 10⁵ servers. Free capacities and sizes are
//! uniform on [0, 1] (continuous, on the fixed-point grid), so every update moves a server to a
//! random rank: the worst case for a sorted array. A second column draws the free capacities
//! and sizes from five values (0, 1/4, …, 1) instead, so that many servers tie: the worst case
//! for buckets of free capacity. `PACKLAB_BENCH_OPS` sets the pairs per measurement (default
//! 4·10⁶), best of 5.

use std::hint::black_box;
use std::time::Instant;

use packlab::model::{ServerId, Size};
use packlab::policy::index::BestFitServers;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

mod common;

fn main() {
    let ops: usize = common::env("PACKLAB_BENCH_OPS", 4_000_000);
    println!("{:>8} {:>14} {:>14}", "L", "continuous", "five values");
    println!("{:>8} {:>29}", "", "ns per update+query");
    for servers in [64usize, 1000, 1024, 10_000, 100_000] {
        let continuous = time(servers, ops, |rng| Size(rng.random_range(0..=Size::UNIT)));
        let five = time(servers, ops, |rng| {
            Size(rng.random_range(0..=4u64) * Size::UNIT / 4)
        });
        println!("{servers:>8} {continuous:>14.1} {five:>14.1}");
    }
}

/// Best of 5 ns per (update, query) pair on `servers` servers, the free capacities and sizes
/// drawn by `draw` (a size of 0 is taken as the least size, 1 unit).
fn time(servers: usize, ops: usize, draw: impl Fn(&mut Pcg64Mcg) -> Size) -> f64 {
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    // the operations, drawn beforehand
    let plan: Vec<(ServerId, Size, Size)> = (0..ops)
        .map(|_| {
            let i = rng.random_range(0..servers) as ServerId;
            let free = draw(&mut rng);
            (i, free, draw(&mut rng).max(Size(1)))
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
    best
}
