//! Placements per second with and without NUMA nodes on the real Google 2011 snapshot (33,302
//! tasks on 12,583 machines, two nodes each): every task packed in arrival order onto the whole
//! cluster, for Best Fit V1, E-PVM and first fit, without nodes and with each layer of
//! awareness: `cargo bench --bench numa`. Target: every layer within 2× of no nodes.
//! `PACKLAB_BENCH_REPS` sets the repetitions (best of, default 5).

use std::path::Path;
use std::time::Instant;

use packlab::packing::numa::{Layer, Numa, NumaLayout};
use packlab::packing::place::{JobOrder, Scorer, pack, task_order};
use packlab::packing::sources::read_google_snapshot;

mod common;

fn main() {
    let snap = read_google_snapshot(Path::new("data/google2011/task_events_t0_snapshot.csv.gz"))
        .expect("the shipped snapshot");
    let reps: usize = common::env("PACKLAB_BENCH_REPS", 5);
    let order = task_order(&snap, JobOrder::Arrival);
    let all: Vec<usize> = (0..snap.machines.len()).collect();
    println!(
        "{} tasks on {} machines, best of {reps}; placements per second (ratio to no nodes)",
        snap.tasks.len(),
        snap.machines.len()
    );
    println!(
        "{:<12} {:>14} {:>22} {:>22} {:>22}",
        "scorer", "no nodes", "default", "machine", "machine+cluster"
    );
    for scorer in [Scorer::BestFit(1), Scorer::Epvm, Scorer::FirstFit] {
        let time = |numa: Option<&Numa>| {
            (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    let p = pack(&snap, &all, &order, scorer, numa, 1);
                    std::hint::black_box(&p);
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min)
        };
        let base = time(None);
        let rate = |s: f64| snap.tasks.len() as f64 / s;
        let mut row = format!("{:<12} {:>14.0}", format!("{scorer:?}"), rate(base));
        for layer in [Layer::Default, Layer::Machine, Layer::Cluster] {
            let numa = Numa {
                layout: NumaLayout::equal(2),
                layer,
            };
            let s = time(Some(&numa));
            row += &format!(" {:>14.0} ({:.2}×)", rate(s), s / base);
        }
        println!("{row}");
    }
}
