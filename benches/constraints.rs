//! Placements per second with and without placement constraints on the real Google 2011
//! snapshot (33,302 tasks on 12,583 machines) with the constraints that
//! `experiments/constraints_google2011.toml` synthesises (Sharma et al.'s Table 2 vocabulary):
//! every task packed in arrival order onto the whole cluster, for Best Fit V1, E-PVM and first
//! fit, the same tasks once with their constraints and once without:
//! `cargo bench --bench constraints`. `PACKLAB_BENCH_REPS` sets the repetitions (best of,
//! default 5).

use std::path::Path;
use std::time::Instant;

use packlab::bench_internals::packing_snapshot;
use packlab::packing::place::{JobOrder, Scorer, pack, task_order};

mod common;

fn main() {
    let file = Path::new("experiments/constraints_google2011.toml");
    let text = std::fs::read_to_string(file).expect("the shipped experiment");
    let snap = packing_snapshot(file, &text).expect("a valid experiment");
    let mut plain = snap.clone();
    plain.placement = None;
    for t in &mut plain.tasks {
        t.class = 0;
    }
    let reps: usize = common::env("PACKLAB_BENCH_REPS", 5);
    let order = task_order(&snap, JobOrder::Arrival);
    let all: Vec<usize> = (0..snap.machines.len()).collect();
    let pl = snap.placement.as_ref().expect("constraints");
    println!(
        "{} tasks on {} machines ({} machine kinds, {} constraint classes), best of {reps}; placements per second",
        snap.tasks.len(),
        snap.machines.len(),
        pl.table.kinds().len(),
        pl.table.classes().len()
    );
    println!(
        "{:<12} {:>16} {:>16} {:>8}",
        "scorer", "no constraints", "constraints", "ratio"
    );
    for scorer in [Scorer::BestFit(1), Scorer::Epvm, Scorer::FirstFit] {
        let time = |s: &packlab::packing::snapshot::Snapshot| {
            (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    let p = pack(s, &all, &order, scorer, None, 1);
                    std::hint::black_box(&p);
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min)
        };
        let (a, b) = (time(&plain), time(&snap));
        let rate = |s: f64| snap.tasks.len() as f64 / s;
        println!(
            "{:<12} {:>16.0} {:>16.0} {:>7.2}×",
            format!("{scorer:?}"),
            rate(a),
            rate(b),
            b / a
        );
    }
}
