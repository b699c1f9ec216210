//! What one machine scored costs, per scorer, on the two real multi-resource snapshots: every
//! task packed in decreasing normalised-sum order onto the whole cluster, once per scorer:
//! `cargo bench --bench scorers`. A scanning scorer looks at every machine for every task, so
//! its time over tasks × machines is its price per machine scored; a first-fit tree descends
//! about log₂ machines levels, so its time is also shown over tasks × log₂ machines. The
//! ratios between scorers are those the time estimate of a packing file charges (its prices
//! themselves also hold an evaluator's other work). `PACKLAB_BENCH_REPS` sets the repetitions
//! (best of, default 3).

use std::path::Path;
use std::time::Instant;

use packlab::model::Scorer;
use packlab::packing::place::{JobOrder, pack, task_order};
use packlab::packing::snapshot::Snapshot;
use packlab::packing::sources::{read_alibaba_gpu, read_google_snapshot};

mod common;

fn main() {
    let reps: usize = common::env("PACKLAB_BENCH_REPS", 3);
    let google = read_google_snapshot(Path::new("data/google2011/task_events_t0_snapshot.csv.gz"))
        .expect("the shipped Google snapshot");
    let alibaba = read_alibaba_gpu(
        Path::new("data/alibaba_gpu2023/openb_pod_list_default.csv.gz"),
        Path::new("data/alibaba_gpu2023/openb_node_list_all_node.csv.gz"),
    )
    .expect("the shipped Alibaba GPU snapshot");
    for (name, snap) in [("google2011", &google), ("alibaba_gpu2023", &alibaba)] {
        bench(name, snap, reps);
    }
}

fn bench(name: &str, snap: &Snapshot, reps: usize) {
    let order = task_order(snap, JobOrder::Sum);
    let all: Vec<usize> = (0..snap.machines.len()).collect();
    let (n, m) = (snap.tasks.len() as f64, snap.machines.len() as f64);
    println!(
        "{name}: {} tasks on {} machines, best of {reps}",
        snap.tasks.len(),
        snap.machines.len()
    );
    println!(
        "  {:<12} {:>10} {:>22} {:>26}",
        "scorer", "packing", "ns per machine scored", "ns per task and tree level"
    );
    for &s in Scorer::NAMES {
        let scorer = Scorer::from_name(s).expect("a scorer's own name");
        let secs = (0..reps)
            .map(|_| {
                let t = Instant::now();
                let p = pack(snap, &all, &order, scorer, None, 1);
                std::hint::black_box(&p);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        println!(
            "  {s:<12} {:>8.1} ms {:>22.2} {:>26.2}",
            secs * 1e3,
            secs * 1e9 / (n * m),
            secs * 1e9 / (n * m.log2())
        );
    }
}
