//! With every job too big to share a server (size 1, or sizes in (1/2, 1]), the system is a
//! discrete-time multi-server queue: L servers, Poisson(λ) batches, geometric(μ) service. Its
//! number in system n after step 4 is a Markov chain: n' = n − Bin(min(n, L), μ) + Poisson(λ),
//! and Q = max(n − L, 0). We solve the chain truncated at N exactly (nalgebra LU) and compare the
//! simulated mean queue with it.
//!
//! Tolerance: the simulated mean over R independent replications must lie within
//! t_{0.9995, R−1} · SE of the exact value (a two-sided 99.9 % interval), plus the truncation
//! error bound (the stationary mass at the truncation level times N, negligible here).

use crate::experiment::queueing::analysis::mean_ci;
use crate::experiment::queueing::{Experiment, execute};
use nalgebra::{DMatrix, DVector};
use statrs::distribution::{Binomial, ContinuousCDF, Discrete, Poisson, StudentsT};
use std::path::Path;

/// Exact stationary mean queue of the discrete-time M/Geo/L queue with the slot order of
/// docs/theory.md section 1, truncated at `n_max` jobs in system. Returns (mean queue, mass at
/// the truncation level).
fn exact_mean_queue(servers: usize, lambda: f64, mu: f64, n_max: usize) -> (f64, f64) {
    let n = n_max + 1;
    let arr = Poisson::new(lambda).unwrap();
    let mut p = DMatrix::<f64>::zeros(n, n);
    for from in 0..n {
        let busy = from.min(servers) as u64;
        let dep = Binomial::new(mu, busy).unwrap();
        for d in 0..=busy {
            let pd = dep.pmf(d);
            let base = from - d as usize;
            let mut acc = 0.0;
            for a in 0..(n - base - 1) {
                let pa = arr.pmf(a as u64);
                p[(from, base + a)] += pd * pa;
                acc += pa;
            }
            // every larger batch lands in the truncation state
            p[(from, n - 1)] += pd * (1.0 - acc);
        }
    }
    // π (P − I) = 0 with Σ π = 1: solve (P − I)^T π = 0 with the last equation replaced.
    let mut a = p.transpose() - DMatrix::<f64>::identity(n, n);
    for j in 0..n {
        a[(n - 1, j)] = 1.0;
    }
    let mut b = DVector::<f64>::zeros(n);
    b[n - 1] = 1.0;
    let pi = a.lu().solve(&b).expect("the chain is irreducible");
    let mean = (0..n)
        .map(|k| pi[k] * k.saturating_sub(servers) as f64)
        .sum();
    (mean, pi[n - 1])
}

fn simulate(servers: usize, lambda: f64, mean_service: f64, sizes: &str, policy: &str) -> Vec<f64> {
    let text = format!(
        r#"
name = "markov"
seed = 11
[cluster]
servers = {servers}
[workload]
sizes = {sizes}
service = {{ dist = "geometric", mean = {mean_service} }}
[run]
slots = 1_000_000
warmup = 20_000
replications = 10
[sweep]
arrival_rate = [{lambda}]
[[policy]]
name = "{policy}"
"#
    );
    let exp = Experiment::parse(Path::new("markov.toml"), &text).unwrap();
    let out = execute(&exp, None).unwrap();
    out.runs.iter().map(|r| r.result.mean_queue).collect()
}

fn check(servers: usize, lambda: f64, mean_service: f64, sizes: &str, policy: &str) {
    let (exact, tail) = exact_mean_queue(servers, lambda, 1.0 / mean_service, 600);
    assert!(tail < 1e-12, "truncation too tight: mass {tail} at the cap");
    let q = simulate(servers, lambda, mean_service, sizes, policy);
    agree(
        exact,
        &q,
        &format!("L={servers} λ={lambda} 1/μ={mean_service} {sizes} {policy}"),
    );
}

/// The simulated replication means `q` agree with `exact` within t_{0.9995, R−1} · SE.
fn agree(exact: f64, q: &[f64], what: &str) {
    let (m, _) = mean_ci(q);
    let r = q.len() as f64;
    let sd = (q.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (r - 1.0)).sqrt();
    let t = StudentsT::new(0.0, 1.0, r - 1.0)
        .unwrap()
        .inverse_cdf(0.9995);
    let half = t * sd / r.sqrt();
    assert!(
        (m - exact).abs() <= half,
        "{what}: simulated {m:.4} ± {half:.4}, exact {exact:.4}"
    );
    // the interval must be informative, or the test could not fail
    assert!(
        half < 0.1 * exact,
        "interval {half} too wide for exact {exact}"
    );
}

#[test]
fn exact_chain_sanity() {
    // One server, tiny load: almost never a queue; M/Geo/1 with λ small.
    let (m, _) = exact_mean_queue(1, 0.01, 0.5, 200);
    assert!(m > 0.0 && m < 0.01);
    // More load, more queue.
    let (a, _) = exact_mean_queue(2, 0.12, 0.1, 400);
    let (b, _) = exact_mean_queue(2, 0.16, 0.1, 400);
    assert!(b > a);
}

#[test]
fn unit_jobs_two_servers_match_exact_chain() {
    let sizes = r#"{ dist = "discrete", values = [1.0], probs = [1.0] }"#;
    check(2, 0.15, 10.0, sizes, "bf-js");
    check(2, 0.15, 10.0, sizes, "fifo-ff");
}

#[test]
fn unit_jobs_five_servers_match_exact_chain() {
    let sizes = r#"{ dist = "discrete", values = [1.0], probs = [1.0] }"#;
    check(5, 0.2, 20.0, sizes, "bf-js");
}

#[test]
fn large_jobs_behave_as_unit_jobs() {
    // Sizes in (1/2, 1]: never two on a server, so the same chain.
    let sizes = r#"{ dist = "uniform", low = 0.51, high = 1.0 }"#;
    check(3, 0.2, 12.0, sizes, "bf-js");
    check(3, 0.2, 12.0, sizes, "fifo-ff");
}

/// Tiny finite-type systems solved exactly by `crate::stability::exact` (states enumerated,
/// π P = π by LU) against the simulator: one or two servers, two sizes.
fn tiny(servers: usize, a: f64, b: f64, lambda: f64, mu: f64, cap: usize, policy: &str) {
    use crate::model::Size;
    use crate::stability::exact::{ExactPolicy, TinySystem, solve};
    let sys = TinySystem {
        servers,
        sizes: [Size::from_f64(a).unwrap(), Size::from_f64(b).unwrap()],
        p_first: 0.5,
        lambda,
        mu,
        cap,
    };
    let p = if policy == "bf-js" {
        ExactPolicy::BfJs
    } else {
        ExactPolicy::FifoFf
    };
    let ex = solve(&sys, p, 4000).unwrap();
    // Arrivals beyond N are dropped in the chain, never in the simulator. With at most 1e-5 of
    // stationary mass at N, the effect on the mean (about that mass times a few jobs) is far
    // below the statistical half-width; FIFO-FF's queue is a sequence, so N stays small.
    assert!(
        ex.mass_at_cap < 1e-5,
        "truncation at {cap} too tight: {}",
        ex.mass_at_cap
    );
    let sizes = format!(r#"{{ dist = "discrete", values = [{a}, {b}], probs = [0.5, 0.5] }}"#);
    let q = simulate(servers, lambda, 1.0 / mu, &sizes, policy);
    agree(
        ex.mean_queue,
        &q,
        &format!(
            "{servers} server(s), sizes {a}/{b}, λ={lambda}, μ={mu}, {policy}, {} states",
            ex.states
        ),
    );
}

#[test]
fn exact_tiny_chains_agree_with_the_simulator() {
    // one server, the Fig. 3(a) sizes
    tiny(1, 0.45, 0.55, 0.12, 0.2, 20, "bf-js");
    tiny(1, 0.45, 0.55, 0.08, 0.2, 8, "fifo-ff");
    // two servers, sizes 0.3 and 0.6
    tiny(2, 0.3, 0.6, 0.2, 0.25, 8, "bf-js");
    tiny(2, 0.3, 0.6, 0.15, 0.25, 6, "fifo-ff");
}
