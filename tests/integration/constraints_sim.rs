//! Placement constraints in the slotted simulator: every job in service sits on a server that
//! satisfies all its constraints and no waiting job is admitted by any server (checked after
//! every slot), for every scorer and both disciplines; constraints that every server satisfies
//! change no decision.

use std::sync::Arc;

use packlab::constraints::{Characterisation, Constraint, Eligibility, JobClasses, StatCluster};
use packlab::model::Size;
use packlab::multi::{
    Constrained, Discipline, Marked, ScalarAsVector, ScoredPolicy, VJob, VectorCluster,
    VectorSystem,
};
use packlab::packing::place::Scorer;
use packlab::sim::{self, RunResult};
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};

fn characterisation(gold_share: f64) -> Characterisation {
    let c = |t: &str| Constraint::parse(t).unwrap();
    Characterisation {
        vocabulary: vec![c("tier = gold"), c("cores >= 16"), c("kernel != 3.10")],
        values: [
            ("tier", vec!["gold", "silver"]),
            ("cores", vec!["8", "16", "32"]),
            ("kernel", vec!["3.10", "4.4"]),
        ]
        .into_iter()
        .map(|(a, v)| (a.to_string(), v.into_iter().map(String::from).collect()))
        .collect(),
        machines: vec![StatCluster {
            share: 1.0,
            frequency: vec![gold_share, 0.5, 0.6],
        }],
        tasks: vec![
            StatCluster {
                share: 0.4,
                frequency: vec![0.0, 0.0, 0.0],
            },
            StatCluster {
                share: 0.6,
                frequency: vec![0.5, 0.4, 0.3],
            },
        ],
    }
}

fn source(servers: usize, load: f64, seed: u64) -> ScalarAsVector<JobSource> {
    let law = SizeLaw::uniform(Size::from_f64(0.1).unwrap(), Size::from_f64(0.7).unwrap());
    let service = ServiceLaw::geometric(15.0);
    let rate = load * servers as f64 / (law.mean() * service.mean());
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
    ScalarAsVector::new(JobSource::new(law, service, arrivals, seed))
}

fn run(
    classes: &Arc<JobClasses>,
    scorer: Scorer,
    discipline: Discipline,
    constrained: bool,
    check: bool,
) -> (RunResult, VectorSystem) {
    let servers = classes.kind.len();
    let mut cluster = VectorCluster::new(servers, 1, scorer, 3, 15.0);
    if constrained {
        cluster = cluster.with_constraints(classes.kind.clone(), Arc::new(classes.table.clone()));
    }
    let mut system = VectorSystem::new(cluster, ScoredPolicy::new(discipline));
    let mut jobs = Marked::new(
        source(servers, 0.6, 5),
        Constrained::new(classes.clone(), 9),
    );
    let cfg = crate::util::run_cfg(4_000, check);
    let r = sim::run_system(&mut system, &mut jobs, &cfg).unwrap();
    (r, system)
}

#[test]
fn jobs_run_only_on_eligible_servers_every_slot() {
    let classes = Arc::new(JobClasses::new(&characterisation(0.3), 12, 1).unwrap());
    assert!(
        classes.table.classes().len() > 4,
        "several constraint classes"
    );
    assert!(
        !classes.table.is_trivial(),
        "some class is refused somewhere"
    );
    for discipline in [Discipline::BestFitJS, Discipline::Fifo] {
        for scorer in [
            Scorer::BestFit(1),
            Scorer::FirstFit,
            Scorer::Epvm,
            Scorer::SumOfSquares(1),
            Scorer::Random,
            Scorer::RandomFirstFit,
        ] {
            let (r, system) = run(&classes, scorer, discipline, true, true);
            // the run placed constrained jobs: the check saw them in service
            let constrained: u64 = packlab::multi::class_waits(&r)
                .iter()
                .skip(1)
                .map(|c| c.0)
                .sum();
            assert!(
                constrained > 500,
                "{discipline:?} {scorer:?}: {constrained}"
            );
            assert!(system.cluster.counters().placed > 1000);
        }
    }
}

#[test]
#[should_panic(expected = "which it may not use")]
fn placing_a_job_on_a_server_it_may_not_use_stops_the_run() {
    let classes = JobClasses::new(&characterisation(0.3), 12, 1).unwrap();
    let class = (0..classes.table.classes().len() as u32)
        .find(|&c| classes.kind.iter().any(|&k| !classes.table.allowed(c, k)))
        .unwrap();
    let server = classes
        .kind
        .iter()
        .position(|&k| !classes.table.allowed(class, k))
        .unwrap();
    let mut cluster = VectorCluster::new(12, 1, Scorer::BestFit(1), 0, 10.0)
        .with_constraints(classes.kind.clone(), Arc::new(classes.table.clone()));
    let job = VJob {
        id: 0,
        req: [Size::from_f64(0.2).unwrap().0, 0, 0],
        service: 3,
        arrival: 0,
        strict: false,
        class,
    };
    assert!(!cluster.admits(server, &job));
    cluster.place(server, &job, 0);
}

#[test]
fn constraints_every_server_satisfies_change_no_decision() {
    // every server is gold, has 16 cores or more and is not on 3.10 … except that the
    // synthesis may still leave a value unsatisfied: ask for frequencies of 1
    let mut ch = characterisation(1.0);
    ch.machines[0].frequency = vec![1.0, 1.0, 1.0];
    let classes = Arc::new(JobClasses::new(&ch, 9, 2).unwrap());
    let table: &Eligibility = &classes.table;
    assert!(table.is_trivial());
    for (scorer, discipline) in [
        (Scorer::BestFit(1), Discipline::BestFitJS),
        (Scorer::FirstFit, Discipline::Fifo),
    ] {
        let (mut with, _) = run(&classes, scorer, discipline, true, false);
        let (mut without, _) = run(&classes, scorer, discipline, false, false);
        assert!(!packlab::multi::class_waits(&with).is_empty());
        with.observed.clear();
        without.observed.clear();
        assert_eq!(with, without, "{scorer:?}");
    }
}

#[test]
fn a_constraint_on_few_servers_makes_its_jobs_wait_longer() {
    // gold on about a sixth of the servers, asked by 30 % of the jobs: u* ≈ 1.8
    let classes = Arc::new(JobClasses::new(&characterisation(0.17), 30, 4).unwrap());
    let gold = classes
        .multipliers()
        .into_iter()
        .find(|m| m.constraint.to_string() == "tier = gold")
        .unwrap();
    assert!(gold.u > 1.2, "{}", gold.u);
    let (r, _) = run(
        &classes,
        Scorer::BestFit(1),
        Discipline::BestFitJS,
        true,
        false,
    );
    let (mut gold_n, mut gold_w, mut all_n, mut all_w) = (0u64, 0.0, 0u64, 0.0);
    for (set, &(n, mean)) in classes
        .table
        .classes()
        .iter()
        .zip(&packlab::multi::class_waits(&r))
    {
        all_n += n;
        all_w += n as f64 * mean;
        if set.iter().any(|c| c.to_string() == "tier = gold") {
            gold_n += n;
            gold_w += n as f64 * mean;
        }
    }
    assert!(gold_n > 300 && all_n > gold_n);
    assert!(
        gold_w / gold_n as f64 > 1.5 * all_w / all_n as f64,
        "gold {} vs all {}",
        gold_w / gold_n as f64,
        all_w / all_n as f64
    );
}

/// A small synthesis validation: 30 servers, three constraints, `mode` re-synthesised, with
/// `claims` (TOML `[[claim]]` tables) after the policy.
fn halves_file(mode: &str, claims: &str) -> String {
    format!(
        r#"
name = "halves"
seed = 4
[cluster]
servers = 30
[workload]
sizes = {{ dist = "discrete", values = [0.3, 0.45], probs = [0.5, 0.5] }}
service = {{ dist = "geometric", mean = 10.0 }}
[run]
slots = 2_000
replications = 2
[sweep]
fraction = [0.5]
[[policy]]
name = "bf-js"
score = "bestfit-v1"
{claims}
[constraints]
resynthesise = {mode}
vocabulary = ["tier = gold", "cores >= 16", "kernel = 4.4"]
[constraints.values]
tier = ["gold", "silver"]
cores = [8, 16]
kernel = ["3.10", "4.4"]
[[constraints.machines]]
share = 0.6
frequency = [0.2, 0.7, 0.5]
[[constraints.machines]]
share = 0.4
frequency = [0.6, 0.1, 0.3]
[[constraints.tasks]]
share = 0.5
frequency = [0, 0, 0]
[[constraints.tasks]]
share = 0.5
frequency = [0.5, 0.4, 0.3]
"#
    )
}

/// The synthesis validation's halves (Sharma et al.'s Fig. 17): synthesising only the jobs'
/// constraints keeps the ground truth's servers (the same supply of every constraint), only
/// the servers keeps the ground truth's job law (the same demand); both change both.
#[test]
fn resynthesising_one_half_keeps_the_other() {
    use crate::util::tmp;
    let d = tmp("constraints", "halves");
    // (constraint, demand, supply) of the truth's and the copy's rows
    let shares = |mode: &str| {
        let out = run_quiet(&d, &mode.replace('"', ""), &halves_file(mode, ""));
        let csv = std::fs::read_to_string(out.join("constraint_delay.csv")).unwrap();
        let mut truth = Vec::new();
        let mut copy = Vec::new();
        for line in csv.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let row = [2, 3, 4].map(|k| f[k].to_string());
            if f[0].ends_with("-synthetic") {
                copy.push(row);
            } else {
                truth.push(row);
            }
        }
        assert!(out.join("synthesis_validation.csv").exists());
        (truth, copy)
    };
    // (mode, the column it keeps, the column it synthesises again): 1 demand, 2 supply
    for (mode, kept, changed) in [("\"tasks\"", 2, 1), ("\"machines\"", 1, 2)] {
        let (t, c) = shares(mode);
        assert_eq!(t.len(), 3);
        for (a, b) in t.iter().zip(&c) {
            assert_eq!(
                (&a[0], &a[kept]),
                (&b[0], &b[kept]),
                "{mode}: column {kept} kept"
            );
        }
        assert!(
            t.iter().zip(&c).any(|(a, b)| a[changed] != b[changed]),
            "{mode}: column {changed} synthesised again"
        );
    }
    let (t, c) = shares("true");
    assert!(t.iter().zip(&c).any(|(a, b)| a[1] != b[1]));
    assert!(t.iter().zip(&c).any(|(a, b)| a[2] != b[2]));
    std::fs::remove_dir_all(&d).unwrap();
}

/// The `synthesis-error` claim reports the mean of the validation rows' absolute wait errors
/// (recomputed here from `synthesis_validation.csv`) and holds exactly when that is within its
/// bound.
#[test]
fn synthesis_error_claim_checks_the_mean_absolute_wait_error() {
    use crate::util::{packlab, tmp, write};
    let d = tmp("constraints", "synthesis_claim");
    let claims = "[[claim]]\nkind = \"synthesis-error\"\nat_most = 1e-9\n\
                  [[claim]]\nkind = \"synthesis-error\"\nat_most = 100.0\n";
    // long enough for stable verdicts, which the validation rows need
    let text = halves_file("true", claims).replace("slots = 2_000", "slots = 20_000");
    let exp = write(&d, "claim.toml", text);
    let out = d.join("out");
    let o = packlab(&[
        exp.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let rows = std::fs::read_to_string(out.join("synthesis_validation.csv")).unwrap();
    let header: Vec<&str> = rows.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (bias, err, failed) = (
        col("wait_relative_error"),
        col("wait_error_individual"),
        col("synthetic_not_stable"),
    );
    let mut errors = Vec::new();
    let mut not_stable = 0;
    for line in rows.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        // Sharma et al.'s error of individual re-syntheses is never below the error of their
        // mean (the mean of absolute values against the absolute value of the mean)
        let (individual, of_mean) = (
            f[err].parse::<f64>().unwrap(),
            f[bias].parse::<f64>().unwrap(),
        );
        assert!(individual >= of_mean.abs() - 2e-6, "{line}");
        errors.push(individual);
        not_stable += f[failed].parse::<usize>().unwrap();
    }
    assert!(!errors.is_empty());
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    assert!(mean > 1e-6, "a re-synthesis changes the wait: {mean}");
    let claims = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    let lines: Vec<&str> = claims.lines().skip(1).collect();
    assert_eq!(lines.len(), 2, "{claims}");
    let observed = |line: &str| {
        let pct = line.split(',').nth(2).unwrap().trim_end_matches(" %");
        pct.parse::<f64>().unwrap() / 100.0
    };
    for line in &lines {
        assert!(
            (observed(line) - mean).abs() < 0.0006,
            "{line} against {mean}"
        );
    }
    assert!(lines[0].ends_with(",false"), "{}", lines[0]);
    assert_eq!(lines[1].ends_with(",true"), not_stable == 0, "{}", lines[1]);
    // a claim that does not hold exits 1
    assert_eq!(o.status.code(), Some(1));
    std::fs::remove_dir_all(&d).unwrap();
}

/// Writes `text` as `<name>.toml` in `d`, runs it quietly into `d/<name>` (which must
/// succeed) and returns that folder.
fn run_quiet(d: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    use crate::util::{packlab, write};
    let exp = write(d, &format!("{name}.toml"), text);
    let out = d.join(name);
    let o = packlab(&[
        exp.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// Delays are measurements only where the policy is stable: `constraint_delay.csv` carries each
/// row's verdict, and the report quotes the verdict, not a delay, where it is not stable.
#[test]
fn constraint_delays_carry_their_verdict() {
    use crate::util::tmp;
    let d = tmp("constraints", "verdicts");
    let text = halves_file("false", "")
        .replace("fraction = [0.5]", "fraction = [0.5, 1.5]")
        .replace("slots = 2_000", "slots = 20_000\nqueue_cap = 2_000");
    let out = run_quiet(&d, "v", &text);
    let csv = std::fs::read_to_string(out.join("constraint_delay.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",normalised_delay,verdict"));
    let verdicts: Vec<(&str, &str)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1], *f.last().unwrap())
        })
        .collect();
    assert_eq!(verdicts.len(), 6, "{csv}");
    // 0.5 of ρ* is the lower of the two loads, 1.5 of ρ* the higher
    let first = verdicts[0].0;
    for (load, v) in &verdicts {
        let expected = if *load == first { "stable" } else { "unstable" };
        assert_eq!(*v, expected, "{csv}");
    }
    assert!(verdicts.iter().any(|(l, _)| *l != first), "{csv}");
    // a sweep of fractions names each point's fraction of ρ* beside its load: the same ρ*
    // (load / fraction) on every row
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut r = csv::Reader::from_reader(summary.as_bytes());
    let headers = r.headers().unwrap().clone();
    assert!(
        headers
            .iter()
            .collect::<Vec<_>>()
            .join(",")
            .contains(",fraction,delay_status,"),
        "{summary}"
    );
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (load, fraction) = (col("load"), col("fraction"));
    let rows: Vec<(f64, f64)> = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            (rec[load].parse().unwrap(), rec[fraction].parse().unwrap())
        })
        .collect();
    let fractions: Vec<f64> = rows.iter().map(|r| r.1).collect();
    assert_eq!(fractions, vec![0.5, 1.5], "{summary}");
    assert!(
        (rows[0].0 / rows[0].1 - rows[1].0 / rows[1].1).abs() < 1e-5,
        "{summary}"
    );
    // the report's table is at the last point, where bf-js is unstable: no delay quoted
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("| — (unstable) |"), "{report}");
}

/// Sharma et al.'s normalised delay divides a constraint's mean wait by the same jobs' mean
/// wait in the same run with every constraint lifted: where every server satisfies every
/// constraint, lifting changes nothing and the ratio is exactly 1; where constraints bind, the
/// lifted run differs and the column is the quotient; `compare_unconstrained = false` leaves
/// both columns empty and keeps ours.
#[test]
fn the_normalised_delay_divides_by_the_same_jobs_without_constraints() {
    use crate::util::tmp;
    let d = tmp("constraints", "normalised");
    let rows = |text: &str, name: &str| -> Vec<Vec<String>> {
        let out = run_quiet(&d, name, text);
        let csv = std::fs::read_to_string(out.join("constraint_delay.csv")).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "policy,load,constraint,demand_share,supply_share,u_star,jobs,mean_wait,\
             mean_wait_all,delay_over_all_jobs,mean_wait_unconstrained,normalised_delay,verdict"
        );
        lines
            .map(|l| l.split(',').map(String::from).collect())
            .collect()
    };
    let base = halves_file("false", "")
        .replace("fraction = [0.5]", "fraction = [0.9]")
        .replace("slots = 2_000", "slots = 20_000");
    // every server gold, with 16 cores and kernel 4.4: no constraint binds
    let vacuous = base
        .replace("frequency = [0.2, 0.7, 0.5]", "frequency = [1.0, 1.0, 1.0]")
        .replace("frequency = [0.6, 0.1, 0.3]", "frequency = [1.0, 1.0, 1.0]");
    let v = rows(&vacuous, "vacuous");
    let mut ones = 0;
    for r in &v {
        assert_eq!(r[7], r[10], "mean waits with and without: {r:?}");
        if r[7].parse::<f64>().unwrap() > 0.0 {
            assert_eq!(r[11], "1.000000", "{r:?}");
            ones += 1;
        }
    }
    assert!(ones >= 2, "{v:?}");
    let b = rows(&base, "binding");
    let mut differ = 0;
    for r in &b {
        let (w, free) = (r[7].parse::<f64>().unwrap(), r[10].parse::<f64>().unwrap());
        if free > 0.0 {
            let n: f64 = r[11].parse().unwrap();
            assert!((n - w / free).abs() <= 1e-5 * n.max(1.0) + 1e-5, "{r:?}");
        } else {
            assert_eq!(r[11], "NaN", "{r:?}");
        }
        differ += usize::from(r[7] != r[10]);
    }
    assert!(
        differ >= 1,
        "lifting binding constraints changes the waits: {b:?}"
    );
    let off = base.replace(
        "resynthesise = false",
        "resynthesise = false\ncompare_unconstrained = false",
    );
    for r in rows(&off, "off") {
        assert_eq!((r[10].as_str(), r[11].as_str()), ("", ""), "{r:?}");
        assert!(!r[9].is_empty());
    }
    std::fs::remove_dir_all(&d).unwrap();
}
