//! Throughput of the slot loop per policy: `cargo bench --bench policies`.
//!
//! Prints nanoseconds per job (wall time of a whole single-threaded run divided by the jobs
//! that arrived: job generation, queueing, placement, departures and metrics included) and
//! jobs per second. Cases (with their targets):
//! - L = 100, sizes Unif[0.1, 0.9], geometric service with mean 100 slots, load 0.9;
//! - L = 5, sizes Unif[0.2, 0.6], geometric service with mean 20 slots, load 0.7.
//!
//! Each measurement is repeated `PACKLAB_BENCH_REPS` times (default 5, same seed, same work); the
//! best and the median are printed, since wall time on a shared machine only ever gets slower than
//! the code. `PACKLAB_BENCH_SLOTS` scales the runs (default 2,000,000 slots);
//! `PACKLAB_BENCH_POLICIES` picks policies (comma-separated: `bf-js`, `fifo-ff`, `bf-j`, `bf-s`,
//! `vqs:J`, `vqs-bf:J`, `max-weight`). MaxWeight needs finitely many sizes: it runs on the same
//! range discretised to a 0.1 grid (9 types for [0.1, 0.9], 5 for [0.2, 0.6]), marked `(grid)`.

use std::time::Instant;

use packlab::model::Size;
use packlab::policy::{PolicyParams, registry};
use packlab::sim::{Cluster, RunConfig};
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};

struct Case {
    name: &'static str,
    servers: usize,
    low: f64,
    high: f64,
    mean_service: f64,
    load: f64,
}

fn main() {
    let slots: u64 = std::env::var("PACKLAB_BENCH_SLOTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let reps: usize = std::env::var("PACKLAB_BENCH_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    let names = std::env::var("PACKLAB_BENCH_POLICIES").unwrap_or_else(|_| {
        "bf-js,fifo-ff,bf-j,bf-s,vqs:4,vqs:6,vqs-bf:4,vqs-bf:6,max-weight".into()
    });
    let cases = [
        Case {
            name: "L=100 Unif[0.1,0.9] 1/mu=100 rho=0.9",
            servers: 100,
            low: 0.1,
            high: 0.9,
            mean_service: 100.0,
            load: 0.9,
        },
        Case {
            name: "L=5 Unif[0.2,0.6] 1/mu=20 rho=0.7",
            servers: 5,
            low: 0.2,
            high: 0.6,
            mean_service: 20.0,
            load: 0.7,
        },
    ];
    println!(
        "{:<40} {:<18} {:>12} {:>12} {:>14} {:>12} {:>10}",
        "case", "policy", "best ns/job", "median", "best jobs/s", "jobs", "mean Q"
    );
    for case in &cases {
        for name in names.split(',') {
            let name = name.trim();
            let (base, j) = match name.split_once(':') {
                Some((b, j)) => (b, j.parse::<u32>().expect("J after the colon")),
                None => (name, 4),
            };
            let mut sizes = SizeLaw::uniform(
                Size::from_f64(case.low).unwrap(),
                Size::from_f64(case.high).unwrap(),
            );
            if base == "max-weight" {
                // MaxWeight needs finitely many sizes: the range on a 0.1 grid
                let n = ((case.high - case.low) * 10.0).round() as usize + 1;
                let grid: Vec<Size> = (0..n)
                    .map(|k| Size::from_f64(case.low + k as f64 / 10.0).unwrap())
                    .collect();
                sizes = SizeLaw::discrete(grid, vec![1.0 / n as f64; n]).unwrap();
            }
            // the policy as an experiment file would name it, through the registry
            let takes_j = registry::entry(base).is_some_and(|e| e.keys.contains(&"J"));
            let params = PolicyParams {
                name: base,
                j: takes_j.then_some(j as i64),
                ..Default::default()
            };
            let spec = match registry::parse(&params, &sizes) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{base}: {} expected {}", e.key, e.expected);
                    continue;
                }
            };
            if spec.build(case.servers).is_none() {
                continue;
            }
            let label = if base == "max-weight" {
                "max-weight (grid)".to_string()
            } else {
                name.to_string()
            };
            let service = ServiceLaw::geometric(case.mean_service);
            let rate = case.load * case.servers as f64 / (sizes.mean() * case.mean_service);
            let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
            let cfg = RunConfig {
                slots,
                warmup: slots / 10,
                queue_cap: 50_000_000,
                samples: 100,
                check_every_slot: false,
                max_slots: 0,
                mean_service: 1.0,
            };
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..reps {
                let mut source =
                    JobSource::new(sizes.clone(), service.clone(), arrivals.clone(), 42);
                let mut cluster = Cluster::new(case.servers, case.mean_service);
                let mut policy = spec.build(case.servers).expect("a single-resource policy");
                let start = Instant::now();
                let r = packlab::policy::run(policy.as_mut(), &mut source, &mut cluster, &cfg)
                    .expect("invariants hold");
                times.push(start.elapsed().as_secs_f64() * 1e9 / r.arrived as f64);
                last = Some(r);
            }
            let r = last.expect("at least one repetition");
            times.sort_by(f64::total_cmp);
            let ns = times[0];
            let median = times[times.len() / 2];
            println!(
                "{:<40} {:<18} {:>12.1} {:>12.1} {:>14.0} {:>12} {:>10.1}",
                case.name,
                label,
                ns,
                median,
                1e9 / ns,
                r.arrived,
                r.mean_queue
            );
        }
    }
}
