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

use std::path::Path;
use std::time::Instant;

use packlab::experiment::engine::{Options, journal_header, run_in_memory, run_kind};
use packlab::experiment::journal::Journal;
use packlab::experiment::{Experiment, Kind};

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
    let exp = Experiment::parse(Path::new("journal-bench.toml"), SWEEP).unwrap();
    let dir = std::env::temp_dir().join(format!("packlab-bench-journal-{}", std::process::id()));
    direct(&exp, &dir);
    let (mut memory, mut journaled) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..reps {
        let t = Instant::now();
        let out = run_in_memory(&exp, Some(threads)).unwrap();
        memory = memory.min(t.elapsed().as_secs_f64());
        assert_eq!(out.runs.len(), 2_000);
        let _ = std::fs::remove_dir_all(&dir);
        // as shard 1 of 1: the journal only, no output files to write
        let opts = Options {
            threads: Some(threads),
            shard: Some((1, 1)),
            ..Default::default()
        };
        let t = Instant::now();
        run_kind(exp.clone(), opts, &dir).unwrap();
        journaled = journaled.min(t.elapsed().as_secs_f64());
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

/// The journal's own cost per unit against the unit's cost, measured one after the other.
fn direct(exp: &Experiment, dir: &Path) {
    let plan = exp.plan();
    let t = Instant::now();
    let done: Vec<_> = plan.iter().map(|u| exp.run_unit(u).unwrap()).collect();
    let unit = t.elapsed().as_secs_f64() / plan.len() as f64;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let header = journal_header(exp, false, plan.len(), (1, 1));
    let mut journal = Journal::create(&dir.join("journal"), &header).unwrap();
    let t = Instant::now();
    for (i, d) in done.iter().enumerate() {
        journal
            .append_record(&Journal::encode(i as u32, d))
            .unwrap();
    }
    let cost = t.elapsed().as_secs_f64() / plan.len() as f64;
    let t = Instant::now();
    journal.sync().unwrap();
    let sync = t.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(dir.join("journal")).unwrap().len() / plan.len() as u64;
    println!("direct, one thread, {} units:", plan.len());
    println!("  a unit                    {:8.1} us", unit * 1e6);
    println!(
        "  its journal record        {:8.1} us  ({:+.2} %, {bytes} bytes)",
        cost * 1e6,
        100.0 * cost / unit
    );
    // a run syncs every SYNC_EVERY on its own thread, which waits on the disk, not the CPU
    let every = packlab::experiment::journal::SYNC_EVERY.as_secs_f64();
    println!(
        "  a sync to disk            {:8.1} us  (background thread, every {every:.1} s)",
        sync * 1e6,
    );
}
