//! Time to compute ρ* by row generation, against the number of job types:
//! `cargo bench --bench region`. Random sizes in [0.05, 0.7] with equal probabilities (seeded),
//! and the bracket of Unif[0.1, 0.9] on n-interval grids. Prints the best of 3 wall times.

use std::time::Instant;

use packlab::model::Size;
use packlab::stability::region::{bracket, rho_star};
use packlab::workload::SizeLaw;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn best_of<T>(f: impl Fn() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..3 {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (out.expect("ran"), best)
}

fn main() {
    println!(
        "{:<28} {:>12} {:>14}",
        "instance", "seconds", "c = rho*/E[R]"
    );
    for n in [10usize, 25, 50, 100, 200] {
        let mut rng = Pcg64Mcg::seed_from_u64(n as u64);
        let atoms: Vec<(Size, f64)> = (0..n)
            .map(|_| {
                (
                    Size::from_f64(rng.random_range(0.05..0.7)).unwrap(),
                    1.0 / n as f64,
                )
            })
            .collect();
        let (r, secs) = best_of(|| rho_star(&atoms).expect("LP solves"));
        println!(
            "{:<28} {:>12.4} {:>14.6}",
            format!("{n} random types"),
            secs,
            r.per_server
        );
    }
    let law = SizeLaw::uniform(Size::from_f64(0.1).unwrap(), Size::from_f64(0.9).unwrap());
    for n in [32usize, 64, 128, 256] {
        let (b, secs) = best_of(|| bracket(&law, n, n, 0.0).expect("LP solves"));
        println!(
            "{:<28} {:>12.4} {:>14}",
            format!("bracket, {n} intervals"),
            secs,
            format!("[{:.4}, {:.4}]", b[0].lower_bound, b[0].upper_bound)
        );
    }
}
