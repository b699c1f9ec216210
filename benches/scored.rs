//! Cost of the multi-resource slot loop per arriving job, for scored BF-J/S and scored FIFO:
//! `cargo bench --bench scored`.
//!
//! The setting: L = 20 servers with two resources (CPU and memory, capacity 1 each); each job
//! asks for one of 200 request vectors drawn once (CPU uniform in (0, 1/2], memory in
//! (0, 3/5], a tenth of them without memory), geometric service with mean 100 slots, Poisson
//! arrivals at `PACKLAB_BENCH_LOAD` (comma-separated, default `0.7,0.85`) of the CPU capacity.
//! At 0.7 a few jobs wait; at 0.85 tens (best fit), a hundred (random) and thousands (E-PVM),
//! the regime of a limit search, where each departure's server reads the whole queue.
//! `PACKLAB_BENCH_JOBS` arrivals per run (default 5·10⁵),
//! `PACKLAB_BENCH_SERVERS` the cluster size, `PACKLAB_BENCH_REPS` the repetitions (best and
//! median printed, default 3). A whole single-threaded run is timed and divided by the jobs
//! that arrived; the mean queue is printed beside it, to compare builds on the same work.

use std::time::Instant;

use packlab::model::{Discipline, Size};
use packlab::multi::{ScoredPolicy, VectorCluster, VectorJobSource, VectorSystem};
use packlab::packing::place::Scorer;
use packlab::sim::{self, RunConfig};
use packlab::workload::{ArrivalProcess, Arrivals, ServiceLaw};

mod common;
#[path = "common/requests.rs"]
mod requests;

use common::env;
use requests::random_requests;

const SEED: u64 = 42;
const MEAN_SERVICE: f64 = 100.0;

/// The request vectors jobs draw from (uniformly), and their mean CPU request.
fn requests() -> (Vec<[u64; 3]>, f64) {
    let requests = random_requests(7, 200);
    let mean = requests.iter().map(|r| r[0] as f64).sum::<f64>()
        / requests.len() as f64
        / Size::UNIT as f64;
    (requests, mean)
}

fn main() {
    let jobs: f64 = env("PACKLAB_BENCH_JOBS", 5e5);
    let reps: usize = env::<usize>("PACKLAB_BENCH_REPS", 3).max(1);
    let servers: usize = env("PACKLAB_BENCH_SERVERS", 20);
    let loads: String = env("PACKLAB_BENCH_LOAD", "0.7,0.85".to_string());
    let (requests, mean_cpu) = requests();
    println!(
        "two resources, {servers} servers, geometric service mean {MEAN_SERVICE}, \
         {jobs:.0} jobs per run, best of {reps}"
    );
    println!(
        "{:>5} {:<16} {:>12} {:>10} {:>10}",
        "load", "policy", "best ns/job", "median", "mean Q"
    );
    for load in loads
        .split(',')
        .map(|s| s.trim().parse::<f64>().expect("a load"))
    {
        let rate = load * servers as f64 / (mean_cpu * MEAN_SERVICE);
        let slots = (jobs / rate).ceil() as u64;
        let cfg = RunConfig {
            slots,
            warmup: 0,
            queue_cap: 1_000_000,
            samples: 100,
            check_every_slot: false,
            max_slots: 0,
            mean_service: MEAN_SERVICE,
            watch: packlab::sim::Watch::NONE,
            look: packlab::sim::Look::ALWAYS,
        };
        for (name, scorer, discipline) in [
            ("bf-js best-fit", Scorer::BestFit(1), Discipline::BestFitJS),
            ("bf-js e-pvm", Scorer::Epvm, Discipline::BestFitJS),
            ("bf-js random", Scorer::Random, Discipline::BestFitJS),
            ("fifo first-fit", Scorer::FirstFit, Discipline::Fifo),
        ] {
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..reps {
                let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).expect("a rate");
                let service = ServiceLaw::geometric(MEAN_SERVICE);
                let mut source = VectorJobSource::new(requests.clone(), service, arrivals, SEED);
                let mut system = VectorSystem::new(
                    VectorCluster::new(servers, 2, scorer, SEED, MEAN_SERVICE),
                    ScoredPolicy::new(discipline),
                );
                let start = Instant::now();
                let r = sim::run_system(&mut system, &mut source, &cfg).expect("a run");
                times.push(start.elapsed().as_secs_f64() * 1e9 / r.arrived.max(1) as f64);
                last = Some(r);
            }
            times.sort_by(f64::total_cmp);
            let r = last.expect("at least one repetition");
            println!(
                "{load:>5} {name:<16} {:>12.1} {:>10.1} {:>10.1}{}",
                times[0],
                times[times.len() / 2],
                r.mean_queue,
                if r.capped { " (capped)" } else { "" }
            );
        }
    }
}
