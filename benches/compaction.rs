//! Cluster compaction of the real Google 2011 snapshot (33,302 tasks on the 12,583 machines of
//! Reiss et al.), 11 trials, τ = 0 and 0.005, μ = 1: `cargo bench --bench compaction`.
//! Issue target: under 30 s on 2 cores. Scheduler: first fit by machine id over tasks in
//! decreasing normalised-sum order (first-fit decreasing).

use std::path::Path;
use std::time::Instant;

use packlab::packing::evaluate::{Scheduler, compact};
use packlab::packing::place::{JobOrder, Scorer, task_order};
use packlab::packing::sources::read_google_snapshot;

fn main() {
    let snap = read_google_snapshot(Path::new("data/google2011/task_events_t0_snapshot.csv.gz"))
        .expect("the shipped snapshot");
    let sched = Scheduler {
        order: task_order(&snap, JobOrder::Sum),
        scorer: Scorer::FirstFit,
        numa: None,
    };
    println!(
        "{} tasks, {} machines, {} threads",
        snap.tasks.len(),
        snap.machines.len(),
        rayon::current_num_threads()
    );
    for tau in [0.0, 0.005] {
        let t = Instant::now();
        let c = compact(&snap, &sched, tau, 1, 11, 1);
        let packings: usize = c.trials.iter().map(|t| t.packings).sum();
        println!(
            "tau = {tau}: 90th percentile {} machines (range {}..{}), {} packings, {:.2} s",
            c.p90,
            c.min,
            c.max,
            packings,
            t.elapsed().as_secs_f64()
        );
    }
}
