//! Cost of the slot loop per arriving job, per policy, beside the floor: `cargo bench --bench
//! policies`.
//!
//! The setting: sizes Unif[0.1, 0.9], geometric service with mean 100 slots, Poisson arrivals
//! at load 0.7 (`PACKLAB_BENCH_LOAD`: near or above a policy's limit the queue holds thousands
//! of jobs of distinct sizes, the regime of a limit search), L = 5, 100, 1000 and 10⁴ servers, `PACKLAB_BENCH_JOBS` arrivals per run
//! (default 6·10⁶). A whole single-threaded run is timed (job generation, queueing, placement,
//! departures, metrics and the verdict) and divided by the jobs that arrived.
//!
//! The **floor** is a loop that does only what every policy must: draw what packlab draws (the
//! next slot with arrivals and its batch size, each job's size and service time, from the same
//! streams) and keep the departure calendar, jumping from event to event. Nothing is placed.
//! The ratio of a policy to the floor is what its decisions and bookkeeping cost. `draws` (not
//! run by default) is the floor without the calendar: the random draws alone.
//!
//! MaxWeight needs finitely many sizes: it runs on two sizes, 0.3 and 0.7 with equal
//! probability (the same mean, 0.5), marked `(2 sizes)`. ServerFilling runs on one server with
//! power-of-two sizes: one machine of 8 cores, jobs of 1, 2, 4 or 8 cores (probabilities 0.4,
//! 0.3, 0.2, 0.1), marked `(1 machine)`, whatever L. SMASH runs with a window of 4 (`smash:w`
//! for another).
//!
//! Each measurement is repeated `PACKLAB_BENCH_REPS` times (default 3, same seed, same work); the
//! best and the median are printed, since wall time on a shared machine only ever gets slower
//! than the code. `PACKLAB_BENCH_SERVERS` picks the cluster sizes (comma-separated),
//! `PACKLAB_BENCH_POLICIES` the policies (`draws`, `floor`, `bf-js`, `fifo-ff`, `bf-j`,
//! `bf-s`, `vqs:J`, `vqs-bf:J`, `max-weight`, `first-fit`, `smash:w`, `backfilling`,
//! `server-filling`), `PACKLAB_BENCH_SIZES` the uniform law's range
//! (`low,high`, default `0.1,0.9`) and `PACKLAB_BENCH_SERVICE` the mean service time (default
//! 100 slots): `PACKLAB_BENCH_SIZES=0.2,0.6 PACKLAB_BENCH_SERVICE=20` is the setting of
//! `scripts/python-comparison.sh`. `PACKLAB_BENCH_WAITS=1` records every job's waiting and
//! response time after warm-up by size class (deciles of the law), as an experiment's sweep
//! runs do; without it none are recorded, as in a limit search's probes.

use std::hint::black_box;
use std::time::Instant;

use packlab::model::Size;
use packlab::policy::PolicyParams;
use packlab::policy::registry::Registry;
use packlab::rng::Streams;
use packlab::sim::{Calendar, Cluster, RunConfig};
use packlab::workload::{ArrivalClock, ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};

mod common;

use common::env;

const SEED: u64 = 42;

fn sz(x: f64) -> Size {
    Size::from_f64(x).expect("a size in (0, 1]")
}

/// What one run of a policy (or of the floor) sees.
struct Setting {
    servers: usize,
    /// Mean service time, slots.
    mean_service: f64,
    sizes: SizeLaw,
    service: ServiceLaw,
    arrivals: Arrivals,
    slots: u64,
}

impl Setting {
    fn new(servers: usize, sizes: SizeLaw, mean_service: f64, jobs: f64, load: f64) -> Self {
        let rate = load * servers as f64 / (sizes.mean() * mean_service);
        Setting {
            servers,
            mean_service,
            service: ServiceLaw::geometric(mean_service),
            arrivals: Arrivals::new(ArrivalProcess::Poisson, rate).expect("a valid rate"),
            slots: (jobs / rate).ceil() as u64,
            sizes,
        }
    }
}

/// The floor: the draws and the departure calendar, event to event. Returns the jobs drawn.
fn floor(s: &Setting) -> u64 {
    let mut streams = Streams::new(SEED);
    let mut clock = ArrivalClock::new(s.arrivals.clone(), &mut streams.arrivals);
    let mut calendar: Calendar<u32> = Calendar::new(s.mean_service);
    let (mut t, mut jobs, mut in_service, mut work) = (0u64, 0u64, 0u64, 0u64);
    while t < s.slots {
        calendar.take_due(t, |_| in_service -= 1);
        for _ in 0..clock.take(t, &mut streams.arrivals) {
            let size = s.sizes.sample(&mut streams.sizes);
            let service = s.service.sample(&mut streams.service);
            work = work.wrapping_add(size.0);
            calendar.push(t + service as u64, 0);
            in_service += 1;
            jobs += 1;
        }
        let next = calendar.next_due(t + 1).unwrap_or(u64::MAX);
        t = next.min(clock.next_slot()).max(t + 1);
    }
    black_box((work, in_service));
    jobs
}

/// The floor's draws alone, event to event among the arrivals, with no calendar. Returns the
/// jobs drawn.
fn draws(s: &Setting) -> u64 {
    let mut streams = Streams::new(SEED);
    let mut clock = ArrivalClock::new(s.arrivals.clone(), &mut streams.arrivals);
    let (mut t, mut jobs, mut work) = (0u64, 0u64, 0u64);
    while t < s.slots {
        for _ in 0..clock.take(t, &mut streams.arrivals) {
            let size = s.sizes.sample(&mut streams.sizes);
            let service = s.service.sample(&mut streams.service);
            work = work.wrapping_add(size.0 ^ service as u64);
            jobs += 1;
        }
        t = clock.next_slot().max(t + 1);
    }
    black_box(work);
    jobs
}

/// One run of `base` (with `j` for the VQS family); `None` if the policy cannot run here.
fn policy_run(
    s: &Setting,
    base: &str,
    j: u32,
    say: bool,
) -> Option<Box<dyn FnMut() -> (u64, f64)>> {
    let policies = Registry::builtin();
    let mut table = toml::Table::new();
    for key in ["J", "window"] {
        if policies.entry(base).is_some_and(|e| e.keys.contains(&key)) {
            table.insert(key.into(), toml::Value::Integer(j as i64));
        }
    }
    if policies
        .entry(base)
        .is_some_and(|e| e.max_servers < s.servers)
    {
        return None;
    }
    let params = PolicyParams::new(base, &table);
    let spec = match policies.parse(&params, &s.sizes) {
        Ok(spec) => spec,
        Err(e) => {
            if say {
                eprintln!("{base}: {} expected {}", e.key, e.expected);
            }
            return None;
        }
    };
    let cfg = RunConfig {
        slots: s.slots,
        warmup: s.slots / 10,
        queue_cap: 50_000_000,
        samples: 100,
        check_every_slot: false,
        max_slots: 0,
        mean_service: 1.0,
        watch: packlab::sim::Watch::NONE,
        look: packlab::sim::Look::ALWAYS,
    };
    let (sizes, service, arrivals, servers, mean_service) = (
        s.sizes.clone(),
        s.service.clone(),
        s.arrivals.clone(),
        s.servers,
        s.mean_service,
    );
    let waits = std::env::var("PACKLAB_BENCH_WAITS").is_ok_and(|v| v == "1");
    Some(Box::new(move || {
        let mut source = JobSource::new(sizes.clone(), service.clone(), arrivals.clone(), SEED);
        let mut cluster = Cluster::new(servers, mean_service);
        if waits {
            cluster.record_waits(cfg.warmup, sizes.classes());
        }
        let r = if std::env::var_os("PACKLAB_BENCH_DYN").is_some() {
            let mut policy = spec.build(servers);
            packlab::policy::run(policy.as_mut(), &mut source, &mut cluster, &cfg)
        } else {
            packlab::policy::run_spec(&spec, &mut source, &mut cluster, &cfg)
        }
        .expect("invariants hold");
        (r.arrived, r.mean_queue)
    }))
}

/// Best and median ns per job over `reps` runs, the jobs and the mean queue of the last.
fn measure(reps: usize, mut run: impl FnMut() -> (u64, f64)) -> (f64, f64, u64, f64) {
    let mut times = Vec::new();
    let mut last = (0, 0.0);
    for _ in 0..reps {
        let start = Instant::now();
        last = run();
        times.push(start.elapsed().as_secs_f64() * 1e9 / last.0.max(1) as f64);
    }
    times.sort_by(f64::total_cmp);
    (times[0], times[times.len() / 2], last.0, last.1)
}

fn main() {
    let jobs: f64 = env("PACKLAB_BENCH_JOBS", 6e6);
    let reps: usize = env::<usize>("PACKLAB_BENCH_REPS", 3).max(1);
    let servers: String = env("PACKLAB_BENCH_SERVERS", "5,100,1000,10000".to_string());
    // by default the floor and every policy of the registry (J = 4 for those that take it)
    let every: Vec<String> = std::iter::once("floor".to_string())
        .chain(Registry::builtin().entries().map(|e| {
            if e.keys.contains(&"J") || e.keys.contains(&"window") {
                format!("{}:4", e.name)
            } else {
                e.name.to_string()
            }
        }))
        .collect();
    let names: String = env("PACKLAB_BENCH_POLICIES", every.join(","));
    let mean_service: f64 = env("PACKLAB_BENCH_SERVICE", 100.0);
    let load: f64 = env("PACKLAB_BENCH_LOAD", 0.7);
    let range: String = env("PACKLAB_BENCH_SIZES", "0.1,0.9".to_string());
    let (low, high) = range
        .split_once(',')
        .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
        .expect("PACKLAB_BENCH_SIZES: two sizes, low,high");
    println!(
        "Unif[{low},{high}], geometric service mean {mean_service}, load {load}, {jobs:.0} jobs per run, best of {reps}"
    );
    println!(
        "{:>6} {:<18} {:>12} {:>10} {:>9} {:>9} {:>11} {:>9}",
        "L", "policy", "best ns/job", "median", "/ floor", "/ bf-js", "jobs", "mean Q"
    );
    for l in servers.split(',') {
        let l: usize = l.trim().parse().expect("a number of servers");
        let uniform = Setting::new(
            l,
            SizeLaw::uniform(sz(low), sz(high)),
            mean_service,
            jobs,
            load,
        );
        let two = SizeLaw::discrete(vec![sz(0.3), sz(0.7)], vec![1.0, 1.0]).expect("two sizes");
        let two = Setting::new(l, two, mean_service, jobs, load);
        // one machine of 8 cores, jobs of 1, 2, 4 or 8 cores: for the policies that run on one
        // server with power-of-two sizes (ServerFilling)
        let cores = SizeLaw::discrete(
            vec![sz(0.125), sz(0.25), sz(0.5), sz(1.0)],
            vec![0.4, 0.3, 0.2, 0.1],
        )
        .expect("four sizes");
        let machine = Setting::new(1, cores, mean_service, jobs, load);
        let (mut floor_ns, mut bf_js_ns) = (f64::NAN, f64::NAN);
        for name in names.split(',') {
            let name = name.trim();
            let (base, j) = match name.split_once(':') {
                Some((b, j)) => (b, j.parse::<u32>().expect("J after the colon")),
                None => (name, 4),
            };
            let (label, (best, median, n, q)) = if base == "draws" {
                (
                    "draws".to_string(),
                    measure(reps, || (draws(&uniform), f64::NAN)),
                )
            } else if base == "floor" {
                let m = measure(reps, || (floor(&uniform), f64::NAN));
                floor_ns = m.0;
                ("floor".to_string(), m)
            } else {
                // a policy that needs finitely many sizes runs on the two-size law
                let (run, label) = match policy_run(&uniform, base, j, false) {
                    Some(run) => (run, name.to_string()),
                    None => match policy_run(&two, base, j, false) {
                        Some(run) => (run, format!("{name} (2 sizes)")),
                        None => match policy_run(&machine, base, j, true) {
                            Some(run) => (run, format!("{name} (1 machine)")),
                            None => continue,
                        },
                    },
                };
                let m = measure(reps, run);
                if base == "bf-js" {
                    bf_js_ns = m.0;
                }
                (label, m)
            };
            println!(
                "{l:>6} {label:<18} {best:>12.1} {median:>10.1} {:>9.2} {:>9.2} {n:>11} {q:>9.1}",
                best / floor_ns,
                best / bf_js_ns,
            );
        }
    }
}
