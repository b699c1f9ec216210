//! The multiserver-job family through the public API: BF-J/S on one server is
//! Most-Servers-First; preemption keeps every job and counts its preemptions; the wait and
//! response definitions of preempt-resume agree with the non-preemptive ones; Little's law per
//! job class; and the closed form of FCFS's limit against the committed limit search.

use std::collections::VecDeque;
use std::path::Path;

use packlab::model::{Job, Size};
use packlab::policy::plain_msj::most_servers_first;
use packlab::policy::{BestFitJS, FifoFirstFit, Policy, ServerFilling, SlotView, run};
use packlab::sim::{Cluster, PreemptionTally, RunConfig, RunResult};
use packlab::stability::msj::fcfs_two_class_limit;
use packlab::workload::{
    ArrivalProcess, Arrivals, ClassMix, JobClass, JobSource, ServiceLaw, SizeClasses, SizeLaw,
};

fn cfg(slots: u64) -> RunConfig {
    RunConfig::new(slots, slots / 10, 10.0)
}

fn size(x: f64) -> Size {
    Size::from_f64(x).unwrap()
}

/// One-core jobs (a quarter of the machine, geometric mean 10) and all-core jobs (mean 2).
fn two_classes() -> ClassMix {
    ClassMix::new(vec![
        JobClass {
            prob: 0.8,
            sizes: SizeLaw::discrete(vec![size(0.25)], vec![1.0]).unwrap(),
            service: ServiceLaw::geometric(10.0),
        },
        JobClass {
            prob: 0.2,
            sizes: SizeLaw::discrete(vec![size(1.0)], vec![1.0]).unwrap(),
            service: ServiceLaw::geometric(2.0),
        },
    ])
    .unwrap()
}

/// `policy` on one server fed by `sizes` (geometric service of mean 10) with `process`
/// arrivals at `rate`, waits recorded per size class.
fn one_server(
    policy: &mut dyn Policy,
    sizes: &SizeLaw,
    process: ArrivalProcess,
    rate: f64,
    seed: u64,
) -> RunResult {
    let arrivals = Arrivals::new(process, rate).unwrap();
    let mut source = JobSource::new(sizes.clone(), ServiceLaw::geometric(10.0), arrivals, seed);
    let mut cluster = Cluster::new(1, 10.0);
    cluster.record_waits(20_000, sizes.classes());
    run(policy, &mut source, &mut cluster, &cfg(200_000)).unwrap()
}

fn same_run(a: &RunResult, b: &RunResult) -> bool {
    (a.mean_queue, a.max_queue, &a.series, &a.waits)
        == (b.mean_queue, b.max_queue, &b.series, &b.waits)
}

/// On one server BF-J/S is Most-Servers-First (whenever the server has room, the largest
/// waiting job that fits starts, again and again) when at most one job arrives per slot: in a
/// slot with a departure its BF-S step is that rule, and in a slot without one the jobs that
/// waited did not fit before and still do not, so only the arrival can start, which BF-J
/// starts if it fits. With batches of Poisson arrivals a slot without a departure starts its
/// arrivals in arrival order (BF-J), where Most-Servers-First would take the largest first:
/// the two then part.
#[test]
fn bf_js_on_one_server_is_most_servers_first_with_one_arrival_a_slot() {
    let laws = [
        SizeLaw::discrete(
            vec![size(0.125), size(0.25), size(0.5), size(1.0)],
            vec![0.4, 0.3, 0.2, 0.1],
        )
        .unwrap(),
        SizeLaw::uniform(size(0.05), size(0.7)),
    ];
    let mut parted = 0;
    for (k, sizes) in laws.iter().enumerate() {
        for (seed, load) in [(1, 0.5), (2, 0.8), (3, 0.95)] {
            let rate = load / (sizes.mean() * 10.0);
            let mut bfjs = BestFitJS::new(1);
            let mut msf = most_servers_first();
            let a = one_server(&mut bfjs, sizes, ArrivalProcess::Bernoulli, rate, seed);
            let b = one_server(msf.as_mut(), sizes, ArrivalProcess::Bernoulli, rate, seed);
            assert!(a.arrived > 10_000);
            assert!(
                same_run(&a, &b),
                "law {k}, load {load}: BF-J/S and MSF differ"
            );
            let mut bfjs = BestFitJS::new(1);
            let mut msf = most_servers_first();
            let a = one_server(&mut bfjs, sizes, ArrivalProcess::Poisson, rate, seed);
            let b = one_server(msf.as_mut(), sizes, ArrivalProcess::Poisson, rate, seed);
            parted += usize::from(!same_run(&a, &b));
        }
    }
    assert!(
        parted > 0,
        "with Poisson batches the two rules should part somewhere"
    );
}

/// FIFO-FF that says it may preempt (so the cluster keeps its jobs the preemptive way and
/// records each wait at completion) but never does.
struct Preemptible(FifoFirstFit);

impl Policy for Preemptible {
    fn enqueue(&mut self, job: Job) {
        self.0.enqueue(job)
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        self.0.schedule(cluster, view)
    }
    fn waiting(&self) -> usize {
        self.0.waiting()
    }
    fn preemptive(&self) -> bool {
        true
    }
}

fn classes_run(policy: &mut dyn Policy, rate: f64, seed: u64, slots: u64) -> RunResult {
    let mix = two_classes();
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
    let mut source = JobSource::with_classes(mix.clone(), arrivals, seed);
    let mut cluster = Cluster::new(1, mix.mean_service());
    cluster.record_waits(slots / 10, SizeClasses::by_kind(mix.largest_sizes()));
    run(policy, &mut source, &mut cluster, &cfg(slots)).unwrap()
}

/// A job's response time is its completion less its arrival and its wait the response less
/// its service: for a policy that never preempts, the same numbers as the wait from arrival to
/// placement recorded at placement.
#[test]
fn the_preemptive_definitions_of_wait_and_response_agree_for_a_policy_that_never_preempts() {
    for seed in 0..3 {
        let a = classes_run(&mut FifoFirstFit::new(1), 0.2, seed, 300_000);
        let b = classes_run(&mut Preemptible(FifoFirstFit::new(1)), 0.2, seed, 300_000);
        assert_eq!((a.mean_queue, &a.series), (b.mean_queue, &b.series));
        // a job still in service at the end is in a's waits, not in b's: compare the jobs both
        // recorded, which are all but the last few
        let (wa, wb) = (a.waits.as_ref().unwrap(), b.waits.as_ref().unwrap());
        for (ca, cb) in wa.classes.iter().zip(&wb.classes) {
            let (na, nb) = (ca.wait.count(), cb.wait.count());
            assert!(na >= nb && na - nb <= 8, "{na} {nb}");
            assert!((ca.wait.mean() - cb.wait.mean()).abs() < 1e-3 * ca.wait.mean().max(1.0));
        }
        let (_, end) = b.tally::<PreemptionTally>().unwrap();
        assert_eq!(end.preemptions, 0);
        assert!(
            a.tally::<PreemptionTally>().is_none(),
            "no tally without preemption"
        );
    }
}

/// ServerFilling preempts: every job is kept (the slot loop's conservation checks run every
/// slot here), each completed job's preemptions are counted, and the response time of a job
/// is at least its wait plus its service.
#[test]
fn preemption_keeps_every_job_and_counts_its_preemptions() {
    let mix = two_classes();
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, 0.3).unwrap();
    let mut source = JobSource::with_classes(mix.clone(), arrivals, 9);
    let mut cluster = Cluster::new(1, mix.mean_service());
    cluster.record_waits(10_000, SizeClasses::by_kind(mix.largest_sizes()));
    let c = RunConfig {
        check_every_slot: true,
        ..cfg(100_000)
    };
    let r = run(&mut ServerFilling::new(1), &mut source, &mut cluster, &c).unwrap();
    let (start, end) = r
        .tally::<PreemptionTally>()
        .expect("ServerFilling preempts");
    assert!(end.preemptions > 100, "{end:?}");
    assert!(end.preempted_jobs <= end.completed && end.preempted_jobs <= end.preemptions);
    assert!(end.most >= 1);
    assert!(end.completed - start.completed > 10_000);
    // every job arrived is completed, waiting or in service (at most 4 on the 4 cores)
    let running = r.arrived - end.completed - r.final_queue;
    assert!(r.arrived >= end.completed + r.final_queue && running <= 4);
    let per_job = end.per_job(&start);
    assert!(per_job > 0.0 && per_job < 5.0, "{per_job}");
}

/// FCFS on one server that counts, after every slot's placement, the jobs of each class
/// waiting: the time average of that count against the class's arrival rate times its mean
/// wait (Little's law, per class).
struct CountingFcfs {
    queue: VecDeque<Job>,
    waiting_slots: [u128; 2],
    from: u64,
}

impl Policy for CountingFcfs {
    fn enqueue(&mut self, job: Job) {
        self.queue.push_back(job);
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        while let Some(j) = self.queue.front() {
            if cluster.free(0) < j.size {
                break;
            }
            let j = self.queue.pop_front().unwrap();
            cluster.place(0, &j, view.now);
        }
        if view.now >= self.from {
            for j in &self.queue {
                self.waiting_slots[j.kind as usize] += 1;
            }
        }
    }
    fn waiting(&self) -> usize {
        self.queue.len()
    }
    /// Counted every slot: never skipped.
    fn idle(&self) -> bool {
        false
    }
}

#[test]
fn littles_law_holds_per_class_within_one_percent() {
    let slots = 2_000_000;
    let rate = 0.2;
    let mut p = CountingFcfs {
        queue: VecDeque::new(),
        waiting_slots: [0; 2],
        from: slots / 10,
    };
    let r = classes_run(&mut p, rate, 4, slots);
    let w = r.waits.as_ref().unwrap();
    let judged = (slots - slots / 10) as f64;
    for (k, prob) in [0.8, 0.2].into_iter().enumerate() {
        let queue = p.waiting_slots[k] as f64 / judged;
        let little = rate * prob * w.classes[k].wait.mean();
        assert!(
            (queue / little - 1.0).abs() < 0.01,
            "class {k}: E[Q] = {queue:.4}, λ W = {little:.4}"
        );
        assert!(queue > 0.1, "class {k}: a queue to measure");
    }
}

/// The cell of column `name` in the row of a committed output whose first cell is `first`.
fn column(file: &str, first: &str, name: &str) -> f64 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("figures")
        .join(file);
    let mut reader = csv::Reader::from_path(&path).unwrap();
    let k = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == name)
        .unwrap();
    let row = reader
        .records()
        .map(Result::unwrap)
        .find(|r| &r[0] == first)
        .unwrap_or_else(|| panic!("{file}: no row {first}"));
    row[k].parse().unwrap()
}

/// FCFS's limit on the 4-core machine of `experiments/msj_two_classes.toml` by the closed form
/// (`proofs/multiserver_jobs.md`) lies inside the committed limit search's interval and the
/// saturated system's 95 % interval; with Fréchet service of the same mean for the one-core
/// jobs (`experiments/msj_fcfs_frechet.toml`) the limit is lower, the intervals apart.
#[test]
fn fcfs_limit_is_the_closed_form_and_moves_with_the_service_law() {
    let lambda = fcfs_two_class_limit(4, 0.8, 0.1, 2.0);
    // load per job: E[size × service] = 0.8 · 0.25 · 10 + 0.2 · 1 · 2
    let load = lambda * 2.4;
    assert!((load - 0.6084).abs() < 1e-4, "{load}");
    let t = "msj_two_classes/thresholds.csv";
    let (lo, hi) = (column(t, "fcfs", "lower"), column(t, "fcfs", "upper"));
    assert!(lo <= load && load <= hi, "{load} outside [{lo}, {hi}]");
    let (slo, shi) = (
        column(t, "fcfs", "saturated_low"),
        column(t, "fcfs", "saturated_high"),
    );
    assert!(slo <= load && load <= shi, "{load} outside [{slo}, {shi}]");
    // ServerFilling is throughput-optimal: its interval ends at ρ* = 1
    assert_eq!(column(t, "server-filling", "upper"), 1.0);
    assert!(column(t, "server-filling", "lower") >= 0.98);
    let f = "msj_fcfs_frechet/thresholds.csv";
    assert!(
        column(f, "fcfs", "upper") < lo,
        "Fréchet's limit below the geometric one"
    );
}

/// FCFS's limit along every ray of the committed two-class map
/// (`experiments/msj_region_map.toml`) is the closed form: on the ray whose classes' λᵢ·E[Sᵢ]
/// are in proportion (a, b), a job is one-core with probability p ∝ a/10 (against b/2), the
/// closed form gives λ* jobs per slot, and the limit as a fraction of the capacity along the
/// ray (x₁/4 + x₂ = 1) is λ*·(10p + 2(1 − p))·(a/4 + b). On the axes one class alone packs
/// the machine and the limit is the capacity. ServerFilling's interval ends at the capacity
/// on every ray. `proofs/multiserver_jobs.md` states the closed form on each ray.
#[test]
fn fcfs_limit_along_every_ray_of_the_class_map_is_the_closed_form() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("proofs/multiserver_jobs.md"),
    )
    .unwrap()
    // the page marks each closed form as checked here (tests/integration/sourced.rs)
    .replace(
        "<!--# test fcfs_limit_along_every_ray_of_the_class_map_is_the_closed_form -->",
        "",
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("figures/msj_region_map/region_map.csv");
    let mut reader = csv::Reader::from_path(&path).unwrap();
    let h = reader.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let (a_col, b_col, p_col) = (col("share_1"), col("share_2"), col("policy"));
    let (lo_col, hi_col) = (col("lower_fraction"), col("upper_fraction"));
    let mut fcfs_rays = 0;
    for row in reader.records().map(Result::unwrap) {
        let f = |k: usize| row[k].parse::<f64>().unwrap();
        let (a, b, lo, hi) = (f(a_col), f(b_col), f(lo_col), f(hi_col));
        match &row[p_col] {
            "fcfs" => {
                let limit = if a == 1.0 {
                    1.0
                } else {
                    let p = (a / 10.0) / (a / 10.0 + b / 2.0);
                    let lambda = fcfs_two_class_limit(4, p, 0.1, 2.0);
                    lambda * (10.0 * p + 2.0 * (1.0 - p)) * (a / 4.0 + b)
                };
                assert!(
                    lo <= limit && limit <= hi,
                    "shares ({a}, {b}): {limit:.4} outside [{lo}, {hi}]"
                );
                let degrees = row[col("theta_deg")].parse::<f64>().unwrap();
                let line = format!("| {degrees}° | {limit:.4} |");
                assert!(
                    a == 1.0 || b == 1.0 || page.contains(&line),
                    "the page's row {line}"
                );
                fcfs_rays += 1;
            }
            "server-filling" => assert!(hi == 1.0 && lo >= 0.98, "({a}, {b}): [{lo}, {hi}]"),
            _ => {}
        }
    }
    assert_eq!(fcfs_rays, 7);
}
