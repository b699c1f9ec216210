//! Throughput of the slot loop per policy: `cargo bench --bench policies`.
//!
//! Prints nanoseconds per job (wall time of a whole single-threaded run divided by the jobs
//! that arrived: job generation, queueing, placement, departures and metrics included) and
//! jobs per second. Cases (issue 2 targets):
//! - L = 100, sizes Unif[0.1, 0.9], geometric service with mean 100 slots, load 0.9;
//! - L = 5, sizes Unif[0.2, 0.6], geometric service with mean 20 slots, load 0.7.
//!
//! `PACKLAB_BENCH_SLOTS` scales the runs (default 2,000,000 slots); `PACKLAB_BENCH_POLICIES`
//! picks policies (comma-separated names).

use std::time::Instant;

use packlab::model::Size;
use packlab::policy::PolicySpec;
use packlab::sim::{self, Cluster, RunConfig};
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
    let names = std::env::var("PACKLAB_BENCH_POLICIES")
        .unwrap_or_else(|_| "bf-js,fifo-ff,bf-j,bf-s".into());
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
        "{:<40} {:<10} {:>12} {:>14} {:>12} {:>10}",
        "case", "policy", "ns/job", "jobs/s", "jobs", "mean Q"
    );
    for case in &cases {
        for name in names.split(',') {
            let Some(spec) = PolicySpec::from_name(name.trim()) else {
                eprintln!("unknown policy {name}");
                continue;
            };
            let sizes = SizeLaw::uniform(
                Size::from_f64(case.low).unwrap(),
                Size::from_f64(case.high).unwrap(),
            );
            let service = ServiceLaw::geometric(case.mean_service);
            let rate = case.load * case.servers as f64 / (sizes.mean() * case.mean_service);
            let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
            let mut source = JobSource::new(sizes, service, arrivals, 42);
            let mut cluster = Cluster::new(case.servers, case.mean_service);
            let mut policy = spec.build(case.servers);
            let cfg = RunConfig {
                slots,
                warmup: slots / 10,
                queue_cap: 50_000_000,
                samples: 100,
                check_every_slot: false,
            };
            let start = Instant::now();
            let r = sim::run(policy.as_mut(), &mut source, &mut cluster, &cfg)
                .expect("invariants hold");
            let secs = start.elapsed().as_secs_f64();
            let ns = secs * 1e9 / r.arrived as f64;
            println!(
                "{:<40} {:<10} {:>12.1} {:>14.0} {:>12} {:>10.1}",
                case.name,
                spec.label(),
                ns,
                1e9 / ns,
                r.arrived,
                r.mean_queue
            );
        }
    }
}
