//! The multiserver-job family against exactly solved chains ([`crate::stability::msj`]): one
//! server, two or three job classes with their own sizes and geometric service rates, under
//! FIFO-FF (FCFS), BF-J/S, SMASH, First-Fit and the preemptive ServerFilling. Every class's
//! simulated mean wait (per job, from the runs' histograms) must lie within
//! t_{0.9995, R−1} · SE of the chain's E\[Qᵢ\] / λᵢ, and so must its mean response time (for
//! ServerFilling the one that counts the time a preempted job spends waiting again).

use std::path::Path;

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::experiment::queueing::analysis::mean_ci;
use crate::experiment::queueing::{Experiment, execute};
use crate::model::Size;
use crate::stability::msj::{MsjArrivals, MsjClass, MsjPolicy, MsjSystem, solve_msj};

/// A class: (size, probability, mean service in slots).
type Class = (f64, f64, f64);

/// Per replication, per class: (mean wait, mean response time).
fn simulate(classes: &[Class], lambda: f64, process: &str, policy: &str) -> Vec<Vec<(f64, f64)>> {
    let classes: Vec<String> = classes
        .iter()
        .map(|(s, p, m)| {
            format!(
                "{{ size = {s}, prob = {p}, service = {{ dist = \"geometric\", mean = {m} }} }}"
            )
        })
        .collect();
    let (name, params) = policy.split_once(' ').unwrap_or((policy, ""));
    let text = format!(
        r#"
name = "msj"
seed = 5
[cluster]
servers = 1
[workload]
classes = [{}]
arrivals = {{ process = "{process}" }}
[run]
slots = 1_000_000
warmup = 20_000
max_slots = 1_000_000
replications = 10
[sweep]
arrival_rate = [{lambda}]
[[policy]]
name = "{name}"
{params}
"#,
        classes.join(", ")
    );
    let exp = Experiment::parse(Path::new("msj.toml"), &text).unwrap();
    let out = execute(&exp, None).unwrap();
    out.runs
        .iter()
        .map(|r| {
            let w = r.result.waits.as_ref().expect("waits are recorded");
            w.classes
                .iter()
                .map(|c| (c.wait.mean(), c.mean_response()))
                .collect()
        })
        .collect()
}

/// `x`'s replications agree with `exact` within t_{0.9995, R−1} · SE, an interval narrow
/// enough to fail.
fn agree(exact: f64, x: &[f64], what: &str) {
    let (m, _) = mean_ci(x);
    let r = x.len() as f64;
    let sd = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (r - 1.0)).sqrt();
    let t = StudentsT::new(0.0, 1.0, r - 1.0)
        .unwrap()
        .inverse_cdf(0.9995);
    let half = t * sd / r.sqrt();
    assert!(
        (m - exact).abs() <= half,
        "{what}: simulated {m:.4} ± {half:.4}, exact {exact:.4}"
    );
    assert!(
        half < 0.1 * exact.max(1.0),
        "{what}: interval {half} too wide for exact {exact}"
    );
}

fn check(classes: &[Class], lambda: f64, bernoulli: bool, cap: usize, policy: &str) {
    let sys = MsjSystem {
        classes: classes
            .iter()
            .map(|&(s, p, m)| MsjClass {
                size: Size::from_f64(s).unwrap(),
                prob: p,
                mu: 1.0 / m,
            })
            .collect(),
        lambda,
        arrivals: if bernoulli {
            MsjArrivals::Bernoulli
        } else {
            MsjArrivals::Poisson
        },
        cap,
    };
    let exact_policy = match policy {
        "fifo-ff" => MsjPolicy::FifoFf,
        "bf-js" => MsjPolicy::BfJs,
        "first-fit" => MsjPolicy::FirstFit,
        "server-filling" => MsjPolicy::ServerFilling,
        p => MsjPolicy::Smash(p.trim_start_matches("smash window = ").parse().unwrap()),
    };
    let ex = solve_msj(&sys, exact_policy, 400_000).unwrap();
    // arrivals beyond N are dropped in the chain, never in the simulator: with at most 1e-5
    // of stationary mass at N the effect on a mean wait (about that mass times N / λ, 2e-3
    // slots here) is far below the statistical half-width
    assert!(
        ex.mass_at_cap < 1e-5,
        "{policy}: truncation at {cap} too tight: {}",
        ex.mass_at_cap
    );
    let process = if bernoulli { "bernoulli" } else { "poisson" };
    let runs = simulate(classes, lambda, process, policy);
    for i in 0..classes.len() {
        let what = format!(
            "{policy}, {process} λ = {lambda}, class {i}, {} states",
            ex.states
        );
        let wait: Vec<f64> = runs.iter().map(|r| r[i].0).collect();
        agree(ex.wait[i], &wait, &format!("{what}: mean wait"));
        let response: Vec<f64> = runs.iter().map(|r| r[i].1).collect();
        agree(ex.response[i], &response, &format!("{what}: mean response"));
    }
}

/// Small jobs that are long and whole-server jobs that are short: a quarter of the server for
/// 10 slots on average (80 %), the whole server for 2 (20 %).
const LONG_SMALL: [Class; 2] = [(0.25, 0.8, 10.0), (1.0, 0.2, 2.0)];

#[test]
fn every_policy_of_the_family_has_the_exact_per_class_waits() {
    for policy in [
        "fifo-ff",
        "bf-js",
        "first-fit",
        "smash window = 2",
        "server-filling",
    ] {
        check(&LONG_SMALL, 0.08, true, 13, policy);
    }
}

#[test]
fn three_classes_and_poisson_batches_have_the_exact_per_class_waits() {
    let three: [Class; 3] = [(0.25, 0.5, 8.0), (0.5, 0.3, 4.0), (1.0, 0.2, 2.0)];
    check(&three, 0.07, true, 9, "fifo-ff");
    check(&three, 0.07, true, 9, "server-filling");
    // BF-J/S keeps its queue as counts, so Poisson batches stay small enough to enumerate
    check(&LONG_SMALL, 0.1, false, 30, "bf-js");
}

#[test]
fn exported_jobs_replayed_give_every_policy_the_same_run() {
    let dir = std::env::temp_dir().join(format!("packlab-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let original = r#"
name = "export"
seed = 3
[cluster]
servers = 1
[workload]
classes = [
  { size = 0.25, prob = 0.8, service = { dist = "lognormal", mean = 10, cv = 2 } },
  { size = 1.0, prob = 0.2, service = { dist = "frechet", alpha = 2.5, mean = 2 } },
]
[run]
slots = 100_000
warmup = 10_000
max_slots = 100_000
replications = 2
export_jobs = true
[sweep]
arrival_rate = [0.08]
[[policy]]
name = "first-fit"
[[policy]]
name = "fifo-ff"
[[policy]]
name = "server-filling"
"#;
    let exp = Experiment::parse(&dir.join("export.toml"), original).unwrap();
    let out = execute(&exp, None).unwrap();
    let written = crate::experiment::queueing::write_outputs(&exp, &out, &dir).unwrap();
    assert!(written.contains(&dir.join("jobs_p0_r1.csv")));
    for rep in 0..2u32 {
        let replay = format!(
            r#"
name = "replay"
[cluster]
servers = 1
[workload]
trace = {{ format = "csv", file = "jobs_p0_r{rep}.csv", slot = 1, start = 0, end = 100_000, size = "cpu" }}
[run]
slots = 100_000
warmup = 10_000
[sweep]
scaling = [1]
[[policy]]
name = "first-fit"
[[policy]]
name = "fifo-ff"
[[policy]]
name = "server-filling"
"#
        );
        let again = Experiment::parse(&dir.join("replay.toml"), &replay).unwrap();
        let back = execute(&again, None).unwrap();
        for r in &back.runs {
            let a = &r.result;
            let o = &out
                .runs
                .iter()
                .find(|o| o.policy == r.policy && o.replication == rep)
                .unwrap()
                .result;
            let key = |x: &crate::sim::RunResult| {
                (
                    x.slots,
                    x.arrived,
                    x.mean_queue,
                    x.max_queue,
                    x.final_queue,
                    x.throughput,
                    x.mean_wait,
                    x.series.clone(),
                )
            };
            assert_eq!(key(a), key(o), "policy {} replication {rep}", r.policy);
            // the same jobs waited the same: class 0 of the original (size 1/4) is the replay's
            // smaller size class
            let (wa, wo) = (a.waits.as_ref().unwrap(), o.waits.as_ref().unwrap());
            assert_eq!(wa.response, wo.response);
            assert_eq!(wa.classes, wo.classes);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A region map of two job classes: a ray's shares are of the classes' λᵢ·E[Sᵢ], so along
/// the ray at 30° the reweighted classes' λᵢ·E[Sᵢ] are in proportion (cos 30°, sin 30°); they
/// keep their service laws and their places (a job's class index), and a probe at load x
/// offers the work x.
#[test]
fn a_map_of_two_classes_mixes_their_work_along_each_ray() {
    use crate::experiment::queueing::plan::{Jobs, Work, plan};
    let text = r#"
name = "msj-map"
seed = 1
[cluster]
servers = 2
[workload]
classes = [
  { size = 0.25, prob = 0.8, service = { dist = "geometric", mean = 10.0 } },
  { size = 1.0, prob = 0.2, service = { dist = "lognormal", mean = 2.0, cv = 1.5 } },
]
[run]
slots = 1000
warmup = 100
[[policy]]
name = "fifo-ff"
[region_map]
angles = [0, 30]
"#;
    let exp = Experiment::parse(Path::new("map.toml"), text).unwrap();
    let units = plan(&exp);
    let searches: Vec<_> = units
        .iter()
        .filter_map(|u| match &u.work {
            Work::Search(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(searches.len(), 2);
    for (s, degrees) in searches.iter().zip([0.0f64, 30.0]) {
        let probe = s.family.at(0.7, 1);
        let Jobs::Sampled {
            classes: Some(mix),
            service,
            rate,
            ..
        } = &probe.jobs
        else {
            panic!("a probe of classes")
        };
        let c = mix.classes();
        let work: Vec<f64> = c
            .iter()
            .map(|c| rate * c.prob * c.sizes.mean() * c.service.mean())
            .collect();
        // the offered work per server is the load
        assert!(((work[0] + work[1]) / 2.0 - 0.7).abs() < 1e-9, "{work:?}");
        // the classes' λᵢ·E[Sᵢ] are in proportion (cos θ, sin θ)
        let erlangs: Vec<f64> = c.iter().map(|c| c.prob * c.service.mean()).collect();
        let t = degrees.to_radians();
        let share = t.cos() / (t.cos() + t.sin());
        let got = erlangs[0] / (erlangs[0] + erlangs[1]);
        assert!((got - share).abs() < 1e-9, "{got} against {share}");
        assert_eq!(
            c[1].service.mean(),
            exp.workload.classes().unwrap().classes()[1].service.mean()
        );
        assert!((service.mean() - mix.mean_service()).abs() < 1e-12);
        assert!((probe.chain.mean_service - mix.mean_service()).abs() < 1e-12);
    }
}

/// What a map of job classes refuses, each naming its key.
#[test]
fn a_map_of_classes_refuses_what_it_cannot_map() {
    let file = |classes: &str, extra: &str| {
        format!(
            "name = \"m\"\n[cluster]\nservers = 1\n[workload]\nclasses = [{classes}]\n[run]\n\
             slots = 1000\nwarmup = 100\n[[policy]]\nname = \"fifo-ff\"\n[region_map]\n\
             rays = 3\n{extra}"
        )
    };
    let c = |size: &str, prob: f64| {
        format!(
            "{{ size = {size}, prob = {prob}, service = {{ dist = \"geometric\", mean = 3 }} }}"
        )
    };
    for (classes, extra, said) in [
        (
            [c("0.25", 0.5), c("0.5", 0.3), c("1", 0.2)].join(", "),
            "",
            "`workload.classes`: expected two classes",
        ),
        (
            [
                c("0.25", 0.5),
                c(
                    "{ dist = \"discrete\", values = [0.5, 1], probs = [0.5, 0.5] }",
                    0.5,
                ),
            ]
            .join(", "),
            "",
            "key `size` of element #2 of `workload.classes`: expected one size per class",
        ),
        (
            [c("0.5", 0.5), c("0.5", 0.5)].join(", "),
            "",
            "workload.classes",
        ),
        (
            [c("0.25", 0.5), c("1", 0.5)].join(", "),
            "[[region_map.held]]\nsize = 0.25\nrate = 0.1\n",
            "`region_map.held`: expected no held types",
        ),
    ] {
        let text = file(&classes, extra);
        let e = Experiment::parse(Path::new("m.toml"), &text).unwrap_err();
        assert!(e.to_string().contains(said), "{said}: {e}");
    }
}
