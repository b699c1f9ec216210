//! Waiting times checked against exact values: the histogram against every wait kept, Little's
//! law on every stable row of the shipped experiments, and the exact stationary waiting-time
//! distribution of the discrete-time M/Geo/L queue (jobs that each take a whole server, FIFO).

use std::collections::HashMap;
use std::path::Path;

use packlab::model::{Job, Size};
use packlab::policy::{BestFitJS, Policy, SlotView};
use packlab::sim::Cluster;
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};

use crate::util::{packlab, tmp, write};

/// A policy that remembers every job's arrival slot and service, and otherwise is `inner`.
struct Remembering<P> {
    inner: P,
    jobs: HashMap<u64, (u64, u32)>,
}

impl<P: Policy> Policy for Remembering<P> {
    fn enqueue(&mut self, job: Job) {
        self.jobs.insert(job.id, (job.arrival, job.service));
        self.inner.enqueue(job);
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        self.inner.schedule(cluster, view);
    }
    fn waiting(&self) -> usize {
        self.inner.waiting()
    }
}

/// (c): on a run small enough to keep every wait, the histogram's quantiles hold the exact
/// sorted-sample quantiles (x at rank ⌈q·n⌉), within 1/128 of them, and its mean and count are
/// exact, overall and per size class.
#[test]
fn the_histogram_holds_every_exact_sorted_quantile_of_a_run() {
    let servers = 4;
    let law = SizeLaw::uniform(Size::from_f64(0.1).unwrap(), Size::from_f64(0.9).unwrap());
    let service = ServiceLaw::geometric(20.0);
    // near BF-J/S's limit, so that waits spread over several decades
    let rate = 0.95 * servers as f64 / (0.5 * 20.0);
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
    let mut source = JobSource::new(law.clone(), service, arrivals, 11);
    let mut cluster = Cluster::new(servers, 20.0);
    cluster.enable_log();
    let cfg = crate::util::run_cfg(400_000, false);
    let classes = law.classes();
    cluster.record_waits(cfg.warmup, classes.clone());
    let mut policy = Remembering {
        inner: BestFitJS::new(servers),
        jobs: HashMap::new(),
    };
    let result = packlab::policy::run(&mut policy, &mut source, &mut cluster, &cfg).unwrap();
    let waits = result.waits.expect("recorded");
    // every wait and response time, from the placement log and the jobs' arrivals
    let mut all: Vec<(u64, u64)> = Vec::new();
    for p in cluster.log().iter().filter(|p| p.slot >= cfg.warmup) {
        let (arrival, service) = policy.jobs[&p.job];
        let w = p.slot - arrival;
        all.push((w, w + service as u64));
    }
    assert!(all.len() > 50_000, "{} jobs", all.len());
    let wait = waits.wait();
    assert_eq!(wait.count(), all.len() as u64);
    let check = |values: &mut Vec<u64>, h: &packlab::sim::waits::Histogram, what: &str| {
        values.sort_unstable();
        let n = values.len();
        let exact_mean = values.iter().map(|&v| v as f64).sum::<f64>() / n as f64;
        assert!(
            (h.mean() - exact_mean).abs() <= 1e-9 * exact_mean.max(1.0),
            "{what} mean"
        );
        assert_eq!(h.max(), values[n - 1], "{what} max");
        for q in [0.5, 0.9, 0.99, 0.999] {
            let exact = values[((q * n as f64).ceil() as usize).max(1) - 1];
            let (lo, hi) = h.quantile_bounds(q).unwrap();
            assert!(
                lo <= exact && exact <= hi,
                "{what} q {q}: {exact} ∉ [{lo}, {hi}]"
            );
            let mid = h.quantile(q);
            assert!(
                (mid - exact as f64).abs() <= exact as f64 / 128.0 + 0.5,
                "{what} q {q}: {mid} against {exact}"
            );
        }
    };
    let mut w: Vec<u64> = all.iter().map(|x| x.0).collect();
    let mut r: Vec<u64> = all.iter().map(|x| x.1).collect();
    // the waits spread beyond the exact buckets, so the log-linear ones are exercised
    assert!(w.iter().filter(|&&x| x >= 128).count() > 100);
    check(&mut w, &wait, "wait");
    check(&mut r, &waits.response, "response");
    // the classes add up to the whole, their response times too
    let counted: u64 = waits.classes.iter().map(|c| c.wait.count()).sum();
    assert_eq!(counted, all.len() as u64);
    let responses: u128 = waits.classes.iter().map(|c| c.response_sum).sum();
    assert_eq!(responses, r.iter().map(|&x| x as u128).sum::<u128>());
    assert_eq!(waits.classes.len(), classes.len());
}

/// The discrete-time M/Geo/L queue of packlab's slot order with jobs of size 1 under FIFO:
/// Poisson(λ) arrivals per slot, each job's service geometric with parameter μ, L servers.
/// Returns P(W > t) for t = 0, 1, … up to `tmax`, and E[W].
///
/// The number in system n just after placement (step 3) is a Markov chain: each of the
/// min(n, L) jobs in service leaves at the next slot's step 1 with probability μ, then
/// Poisson(λ) jobs arrive. An arriving job (by the Poisson batches, the state it finds is the
/// stationary one) finds n, sees D ~ Bin(min(n, L), μ) leave, and has K jobs of its own batch
/// ahead of it, K uniform on {0, …, B} with B ~ Poisson(λ) the others of its batch. With
/// r = max(n − L, 0) + K − (L − min(n, L) + D) jobs ahead of it that do not get a server in
/// its slot, it waits 0 slots if r < 0; otherwise all L servers stay busy while it waits, and
/// W > j ⟺ the departures of the next j slots, Bin(jL, μ), are at most r.
fn m_geo_l(lambda: f64, mu: f64, l: usize, tmax: usize) -> (Vec<f64>, f64) {
    let nmax = 400;
    let pois = |k: usize| -> f64 {
        let mut p = (-lambda).exp();
        for i in 1..=k {
            p *= lambda / i as f64;
        }
        p
    };
    let binom = |n: usize, k: usize, p: f64| -> f64 {
        if k > n {
            return 0.0;
        }
        let mut c = 1.0;
        for i in 0..k {
            c *= (n - i) as f64 / (i + 1) as f64;
        }
        c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
    };
    let amax = (lambda * 10.0 + 40.0) as usize;
    let pa: Vec<f64> = (0..=amax).map(pois).collect();
    // the stationary distribution: π P = π, Σ π = 1, solved directly (the chain is truncated
    // at nmax, far beyond where its mass is)
    let size = nmax + 1;
    let mut a = nalgebra::DMatrix::<f64>::zeros(size, size);
    for n in 0..size {
        let busy = n.min(l);
        for d in 0..=busy {
            let pd = binom(busy, d, mu);
            for (k, &p) in pa.iter().enumerate() {
                let m = (n - d + k).min(nmax);
                // row m of (Pᵀ − I) gets π(n)'s share
                a[(m, n)] += pd * p;
            }
        }
        a[(n, n)] -= 1.0;
    }
    // one balance equation is redundant: replace it by Σ π = 1
    for n in 0..size {
        a[(nmax, n)] = 1.0;
    }
    let mut rhs = nalgebra::DVector::<f64>::zeros(size);
    rhs[nmax] = 1.0;
    let pi: Vec<f64> = a
        .lu()
        .solve(&rhs)
        .expect("a regular system")
        .iter()
        .copied()
        .collect();
    assert!(pi[nmax] < 1e-12, "truncation");
    // K: jobs of its own batch ahead of a random arriving job
    let pk: Vec<f64> = (0..=amax)
        .map(|k| (k..=amax).map(|b| pa[b] / (b + 1) as f64).sum())
        .collect();
    // the distribution of r (jobs ahead that get no server in the job's slot), r ≥ 0
    let mut pr: HashMap<usize, f64> = HashMap::new();
    for (n, &pn) in pi.iter().enumerate() {
        if pn < 1e-16 {
            continue;
        }
        let busy = n.min(l);
        let waiting = n.saturating_sub(l);
        for d in 0..=busy {
            let pd = binom(busy, d, mu);
            let free = l - busy + d;
            for (k, &p) in pk.iter().enumerate() {
                let ahead = waiting + k;
                if ahead >= free {
                    *pr.entry(ahead - free).or_default() += pn * pd * p;
                }
            }
        }
    }
    // P(Bin(n, μ) ≤ r), its terms in logarithms (the coefficients of n in the thousands
    // overflow a float)
    let binom_cdf = |n: usize, r: usize| -> f64 {
        let (lp, lq) = (mu.ln(), (1.0 - mu).ln());
        let mut log_term = n as f64 * lq;
        let mut sum = log_term.exp();
        for x in 0..r.min(n) {
            log_term += ((n - x) as f64 / (x + 1) as f64).ln() + lp - lq;
            sum += log_term.exp();
        }
        sum
    };
    let tail: Vec<f64> = (0..=tmax)
        .map(|j| pr.iter().map(|(&r, &p)| p * binom_cdf(j * l, r)).sum())
        .collect();
    let mean = tail.iter().sum::<f64>();
    (tail, mean)
}

/// The rows of `summary.csv` of FIFO-FF with jobs of size 1 (the M/Geo/L queue: `l` servers,
/// geometric service of mean 10 slots) at `loads`, 8 replications with the `[run]` keys
/// `horizon`, run with `seed` in `dir` (one thread, so that runs in parallel do not crowd).
fn m_geo_summary(
    dir: &Path,
    seed: u64,
    l: usize,
    horizon: &str,
    loads: &[f64],
) -> Vec<HashMap<String, String>> {
    std::fs::create_dir_all(dir).unwrap();
    let loads: Vec<String> = loads.iter().map(|x| x.to_string()).collect();
    let exp = write(
        dir,
        "mgeo.toml",
        format!(
            r#"
name = "mgeo{l}"
seed = {seed}
[cluster]
servers = {l}
[workload]
sizes = {{ dist = "discrete", values = [1.0], probs = [1.0] }}
service = {{ dist = "geometric", mean = 10.0 }}
[run]
{horizon}
replications = 8
[sweep]
load = [{}]
[[policy]]
name = "fifo-ff"
"#,
            loads.join(", ")
        ),
    );
    let out = dir.join("out");
    let o = packlab(&[
        exp.to_str().unwrap(),
        "--quiet",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    read_csv(&out.join("summary.csv"))
}

/// The smallest t with P(W > t) < 1 − q, from the exact tail: the q-quantile.
fn quantile(tail: &[f64], q: f64) -> usize {
    tail.iter()
        .position(|&p| 1.0 - p >= q)
        .expect("tmax large enough")
}

/// (b): FIFO-FF with jobs of size 1 is the M/Geo/L queue: the simulated p50, p90 and p99 of the
/// wait agree with the exact ones, on one and three servers at two loads each.
///
/// A quantile of an integer-valued law jumps where its distribution function crosses q, so the
/// simulated 95 % interval of a quantile is compared with the exact quantiles at q ± 0.002
/// (about the probability resolution of one run's 10⁵ jobs), set once: it must meet that range.
/// The mean, which does not jump, must lie in its own 95 % interval.
#[test]
fn fifo_with_unit_jobs_waits_as_the_exact_m_geo_l_queue() {
    let d = tmp("delay", "mgeol");
    for (l, loads) in [(1usize, [0.5, 0.8]), (3, [0.5, 0.8])] {
        let rows = m_geo_summary(&d.join(format!("l{l}")), 3, l, "slots = 1_000_000", &loads);
        for (row, &load) in rows.iter().zip(&loads) {
            let mu = 0.1;
            let lambda = load * l as f64 * mu;
            let (tail, mean) = m_geo_l(lambda, mu, l, 3000);
            let num = |k: &str| {
                row[k]
                    .parse::<f64>()
                    .unwrap_or_else(|_| panic!("{k}: {row:?}"))
            };
            assert_eq!(row["delay_status"], "measured", "{row:?}");
            let (lo, hi) = (num("mean_wait_ci95_low"), num("mean_wait_ci95_high"));
            assert!(
                lo <= mean && mean <= hi,
                "L = {l}, load {load}: exact mean wait {mean} ∉ [{lo}, {hi}]"
            );
            for (name, q) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
                let (a, b) = (quantile(&tail, q - 0.002), quantile(&tail, q + 0.002));
                let lo = num(&format!("wait_{name}_ci95_low"));
                let hi = num(&format!("wait_{name}_ci95_high"));
                assert!(
                    lo <= b as f64 + 1e-9 && a as f64 <= hi + 1e-9,
                    "L = {l}, load {load}: {name} interval [{lo}, {hi}] misses the exact [{a}, {b}]"
                );
            }
        }
    }
}

/// Invocations of the coverage test per system: enough that a coverage of 95 % measures within
/// about ±0.7 % (one standard error), so 93 % is three standard errors below it.
const INVOCATIONS: u64 = 1000;

/// (d): a quantile's 95 % interval in `summary.csv` covers the exact quantile of the law: over
/// [`INVOCATIONS`] independent invocations (seeds) of 8 replications of 4·10⁵ slots each, the
/// intervals of p50, p90 and p99 of the wait of the M/Geo/1 and M/Geo/3 queues at load 0.8
/// (exact p99 208 on one server, p90 30 and p99 66 on three) each hold the exact quantile in at
/// least 93 % of them.
///
/// Runs this long matter: with 10⁵ slots (8,000 jobs a run on one server) the p99 interval of
/// M/Geo/1 held 208 in under 93 % of invocations, missing low (a run's count of waits above it
/// rests on a few long busy periods, and 8 such counts are skewed). The coverage measured is printed and stated in `docs/theory.md` §10.2, which this test
/// reads.
#[test]
fn quantile_intervals_cover_the_exact_quantiles_of_m_geo_l() {
    use rayon::prelude::*;
    let d = tmp("delay", "coverage");
    let theory =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/theory.md"))
            .unwrap();
    let mut failures = Vec::new();
    for l in [1usize, 3] {
        let (mu, load) = (0.1, 0.8);
        let (tail, _) = m_geo_l(load * l as f64 * mu, mu, l, 3000);
        let qs = [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)];
        let exact = qs.map(|(_, q)| quantile(&tail, q) as f64);
        let covered: Vec<[bool; 3]> = (1..=INVOCATIONS)
            .into_par_iter()
            .map(|seed| {
                let dir = d.join(format!("l{l}-{seed}"));
                let rows = m_geo_summary(&dir, seed, l, "slots = 400_000\nwarmup = 5_000", &[load]);
                let row = &rows[0];
                assert_eq!(row["delay_status"], "measured", "{row:?}");
                let num = |k: String| row[&k].parse::<f64>().unwrap();
                let _ = std::fs::remove_dir_all(&dir);
                [0, 1, 2].map(|i| {
                    let name = qs[i].0;
                    let (lo, hi) = (
                        num(format!("wait_{name}_ci95_low")),
                        num(format!("wait_{name}_ci95_high")),
                    );
                    lo <= exact[i] && exact[i] <= hi
                })
            })
            .collect();
        let rates: Vec<f64> = (0..3)
            .map(|i| covered.iter().filter(|c| c[i]).count() as f64 / INVOCATIONS as f64)
            .collect();
        let stated = format!(
            "M/Geo/{l}: p50 {:.1} %, p90 {:.1} %, p99 {:.1} %",
            100.0 * rates[0],
            100.0 * rates[1],
            100.0 * rates[2]
        );
        eprintln!("coverage over {INVOCATIONS} invocations, {stated}");
        for (i, r) in rates.iter().enumerate() {
            if *r < 0.93 {
                failures.push(format!(
                    "M/Geo/{l}: the {} interval covers the exact {} in {:.1} % of {INVOCATIONS} \
                     invocations, under 93 %",
                    qs[i].0,
                    exact[i],
                    100.0 * r
                ));
            }
        }
        if !theory.contains(&stated) {
            failures.push(format!(
                "docs/theory.md does not state the coverage measured, \"{stated}\""
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn read_csv(path: &Path) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// (a): Little's law on every row of every shipped summary that is a measurement: the mean
/// queue (jobs waiting, time-averaged) is λ times the mean wait; their 95 % intervals overlap.
#[test]
fn littles_law_holds_on_every_stable_row_of_the_shipped_experiments() {
    let figures = Path::new(env!("CARGO_MANIFEST_DIR")).join("figures");
    let mut checked = 0;
    for entry in std::fs::read_dir(&figures).unwrap() {
        let summary = entry.unwrap().path().join("summary.csv");
        if !summary.exists() {
            continue;
        }
        for row in read_csv(&summary) {
            if row.get("delay_status").map(String::as_str) != Some("measured") {
                continue;
            }
            let num = |k: &str| row[k].parse::<f64>();
            let (Ok(q_lo), Ok(q_hi), Ok(w_lo), Ok(w_hi), Ok(lambda)) = (
                num("ci95_low"),
                num("ci95_high"),
                num("mean_wait_ci95_low"),
                num("mean_wait_ci95_high"),
                num("arrival_rate"),
            ) else {
                continue;
            };
            assert!(
                q_lo <= lambda * w_hi && lambda * w_lo <= q_hi,
                "{}: {} at load {}: mean queue [{q_lo}, {q_hi}] against λ·wait [{}, {}]",
                summary.display(),
                row["policy"],
                row["load"],
                lambda * w_lo,
                lambda * w_hi
            );
            // and the point estimates themselves, within 1 % (they differ only by the jobs in
            // the queue at the ends of the measured period and by λ against the realised rate)
            let (Ok(q), Ok(w)) = (num("mean_queue"), num("mean_wait")) else {
                continue;
            };
            assert!(
                (q - lambda * w).abs() <= 0.01 * q.max(1e-4),
                "{}: {} at load {}: mean queue {q} against λ·wait {} (more than 1 % apart)",
                summary.display(),
                row["policy"],
                row["load"],
                lambda * w
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} rows checked");
}
