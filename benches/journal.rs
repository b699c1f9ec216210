//! What the run journal costs on a sweep of short runs: `cargo bench --bench journal`.
//!
//! Two measurements of the same plan (2,000 runs of 5,000 slots: about 0.4 ms each):
//!
//! - *direct*: the units run one after another on one thread (their mean time is the unit
//!   cost), then their results are encoded and appended to a fresh journal exactly as a run does
//!   (one write through to the operating system per unit); the record's cost against the unit's
//!   own cost is the overhead (syncs to disk run on the journal's own thread, every 0.2 s). This is the number to
//!   read: it does not depend on how busy the machine is.
//! - *whole run*: the plan in memory and through the journal into a fresh folder as shard 1 of
//!   1 (so no output files are written), alternately, `PACKLAB_BENCH_REPS` times (default 5) on
//!   `PACKLAB_BENCH_THREADS` threads (default 2), best of each. On a shared machine this
//!   difference moves by several per cent from one invocation to the next.

use packlab::bench_internals::{journal_direct, journal_whole};

mod common;

const SWEEP: &str = r#"
name = "journal-bench"
seed = 1
[cluster]
servers = 5
[workload]
sizes = { dist = "uniform", low = 0.2, high = 0.6 }
service = { dist = "geometric", mean = 20.0 }
[run]
slots = 5_000
warmup = 500
replications = 500
samples = 100
[sweep]
load = [0.5, 0.7]
[[policy]]
name = "bf-js"
[[policy]]
name = "fifo-ff"
"#;

fn main() {
    let reps: usize = common::env("PACKLAB_BENCH_REPS", 5);
    let threads: usize = common::env("PACKLAB_BENCH_THREADS", 2);
    let dir = std::env::temp_dir().join(format!("packlab-bench-journal-{}", std::process::id()));
    let d = journal_direct(SWEEP, &dir).unwrap();
    println!("direct, one thread, {} units:", d.units);
    println!("  a unit                    {:8.1} us", d.unit * 1e6);
    println!(
        "  its journal record        {:8.1} us  ({:+.2} %, {} bytes)",
        d.record * 1e6,
        100.0 * d.record / d.unit,
        d.bytes
    );
    // a run syncs every 0.2 s on its own thread, which waits on the disk, not the CPU
    println!(
        "  a sync to disk            {:8.1} us  (background thread, every {:.1} s)",
        d.sync * 1e6,
        d.sync_every
    );
    let (mut memory, mut journaled) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..reps {
        let (m, j) = journal_whole(SWEEP, &dir, threads).unwrap();
        memory = memory.min(m);
        journaled = journaled.min(j);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("2000 runs of 5000 slots, {threads} threads, best of {reps}:");
    println!("  in memory                 {:8.1} ms", memory * 1e3);
    println!(
        "  journaled                 {:8.1} ms  ({:+.1} %)",
        journaled * 1e3,
        100.0 * (journaled / memory - 1.0)
    );
}
