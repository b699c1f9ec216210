//! Multi-resource jobs: with one resource, BF-J/S scored by Best Fit and FIFO scored by First
//! Fit make exactly the decisions of the single-resource BF-J/S and FIFO-FF; with two
//! resources, every scorer keeps every server within capacity and (inside BF-J/S) leaves no
//! waiting job that fits, slot after slot.

use packlab::model::Size;
use packlab::multi::{
    Discipline, ScalarAsVector, ScoredPolicy, VJob, VectorCluster, VectorJobSource, VectorSystem,
};
use packlab::packing::place::Scorer;
use packlab::policy::PolicySpec;
use packlab::sim::{self, Cluster, RunConfig};
use packlab::workload::Source;
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[path = "../../benches/common/requests.rs"]
mod requests;
use requests::random_requests;

fn cfg(slots: u64, check: bool) -> RunConfig {
    crate::util::run_cfg(slots, check)
}

#[test]
fn one_resource_scored_policies_are_the_paper_policies() {
    let mut rng = Pcg64Mcg::seed_from_u64(6);
    for case in 0..20 {
        let servers = rng.random_range(1..12);
        let lo = rng.random_range(0.05..0.5);
        let hi = rng.random_range(lo..1.0);
        let law = SizeLaw::uniform(Size::from_f64(lo).unwrap(), Size::from_f64(hi).unwrap());
        let service = ServiceLaw::geometric(rng.random_range(2.0..30.0));
        let load = rng.random_range(0.5..1.1);
        let rate = load * servers as f64 / (law.mean() * service.mean());
        let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
        let src = || JobSource::new(law.clone(), service.clone(), arrivals.clone(), case);
        for (name, scorer, discipline) in [
            ("bf-js", Scorer::BestFit(1), Discipline::BestFitJS),
            ("bf-js", Scorer::BestFit(5), Discipline::BestFitJS),
            ("fifo-ff", Scorer::FirstFit, Discipline::Fifo),
        ] {
            let c = cfg(20_000, case < 5);
            let scalar = packlab::policy::run(
                PolicySpec::from_name(name).unwrap().build(servers).as_mut(),
                &mut src(),
                &mut Cluster::new(servers, service.mean()),
                &c,
            )
            .unwrap();
            let mut system = VectorSystem::new(
                VectorCluster::new(servers, 1, scorer, 0, service.mean()),
                ScoredPolicy::new(discipline),
            );
            let vector = sim::run_system(&mut system, &mut ScalarAsVector::new(src()), &c).unwrap();
            assert!(scalar.arrived > 1000);
            assert_eq!(scalar, vector, "case {case}: {name} with {scorer:?}");
        }
    }
}

#[test]
fn two_resources_every_scorer_keeps_capacity_and_the_best_fit_invariant() {
    let requests = random_requests(7, 200);
    let service = ServiceLaw::geometric(10.0);
    for name in Scorer::NAMES {
        let scorer = Scorer::from_name(name).unwrap();
        for discipline in [Discipline::BestFitJS, Discipline::Fifo] {
            let arrivals = Arrivals::new(ArrivalProcess::Poisson, 1.2).unwrap();
            let mut src = VectorJobSource::new(requests.clone(), service.clone(), arrivals, 3);
            let mut system = VectorSystem::new(
                VectorCluster::new(6, 2, scorer, 11, 10.0),
                ScoredPolicy::new(discipline),
            );
            let r = sim::run_system(&mut system, &mut src, &cfg(5_000, true)).unwrap();
            assert!(r.arrived > 5000 && r.throughput > 0.5, "{name}: {r:?}");
            assert!(r.utilization > 0.2 && r.utilization <= 1.0, "{name}");
        }
    }
}

#[test]
fn the_servers_view_follows_the_score() {
    // one server, an empty queue at t = 0 except three jobs arriving together: best fit takes
    // the largest that fits first, E-PVM (worst fit) the smallest, first fit the earliest
    struct Three(bool);
    impl Source<VJob> for Three {
        fn batch(&mut self, t: u64, out: &mut Vec<VJob>) {
            if t == 0 && !self.0 {
                self.0 = true;
                for (id, x) in [(0, 0.3), (1, 0.6), (2, 0.2)] {
                    let s = Size::from_f64(x).unwrap().0;
                    out.push(VJob {
                        id,
                        req: [s, s, 0],
                        service: 100,
                        arrival: 0,
                        strict: false,
                        class: 0,
                    });
                }
            }
        }
        fn arrived(&self) -> u64 {
            if self.0 { 3 } else { 0 }
        }
        fn arrived_work(&self) -> u128 {
            if self.0 {
                [0.3, 0.6, 0.2]
                    .iter()
                    .map(|&x| Size::from_f64(x).unwrap().0 as u128)
                    .sum::<u128>()
            } else {
                0
            }
        }
    }
    for (scorer, waiting_left) in [
        // 0.6 then 0.3 fit (0.9); 0.2 waits
        (Scorer::BestFit(1), 1),
        // 0.2 then 0.3 then — 0.6 does not fit in 0.5: waits
        (Scorer::Epvm, 1),
        // 0.3 then 0.6 (0.9); 0.2 waits
        (Scorer::FirstFit, 1),
    ] {
        let mut system = VectorSystem::new(
            VectorCluster::new(1, 2, scorer, 0, 100.0),
            ScoredPolicy::new(Discipline::BestFitJS),
        );
        let c = RunConfig {
            slots: 1,
            warmup: 0,
            queue_cap: 10,
            samples: 1,
            check_every_slot: true,
            max_slots: 0,
            mean_service: 1.0,
            watch: packlab::sim::Watch::NONE,
            look: packlab::sim::Look::ALWAYS,
        };
        let r = sim::run_system(&mut system, &mut Three(false), &c).unwrap();
        assert_eq!(r.final_queue, waiting_left, "{scorer:?}");
        let free = system.cluster.frees()[0][0];
        let left = match scorer {
            Scorer::Epvm => 0.5,
            _ => 0.1,
        };
        assert_eq!(free, Size::from_f64(left).unwrap().0, "{scorer:?}");
    }
}

fn run_cli(text: &str, name: &str) -> (Option<i32>, String, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("packlab-multi-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("exp.toml");
    std::fs::write(&f, text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_packlab"))
        .args([f.to_str().unwrap(), "--out", d.join("o").to_str().unwrap()])
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into(),
        d.join("o"),
    )
}

fn study_file(policies: &str, extra: &str) -> String {
    let data = std::env::current_dir()
        .unwrap()
        .join("data/google2011/task_events_t0_snapshot.csv.gz");
    format!(
        "name = \"study\"\nseed = 3\n[cluster]\nservers = 4\n[workload]\n\
         sizes = {{ dist = \"tasks\", source = \"google2011\", file = \"{}\" }}\n\
         service = {{ dist = \"geometric\", mean = 10.0 }}\n[run]\nslots = 20_000\n\
         replications = 2\n[sweep]\nload = [0.6]\n{policies}\n{extra}\n",
        data.display()
    )
}

#[test]
fn a_study_reports_compaction_and_limits_per_rule() {
    let policies = "[[policy]]\nname = \"bf-js\"\nscore = \"bestfit-v1\"\n\
                    [[policy]]\nname = \"bf-js\"\nscore = \"epvm\"\n\
                    [[policy]]\nname = \"fifo-ff\"\nscore = \"firstfit-v1\"\n";
    let extra = "[compaction]\ntasks = 300\ntrials = 2\nlimit_steps = 3\n\
                 [[plot]]\nkind = \"limit-vs-compaction\"\n";
    let (code, err, out) = run_cli(&study_file(policies, extra), "study");
    assert_eq!(code, Some(0), "{err}");
    let csv = std::fs::read_to_string(out.join("study.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 3);
    for r in &rows {
        let demand: f64 = r[3].parse().unwrap();
        let p90: f64 = r[4].parse().unwrap();
        let (stable, upper): (f64, f64) = (r[7].parse().unwrap(), r[8].parse().unwrap());
        // no packing beats the total request; the bisection brackets the limit in [0, 1]
        assert!(p90 >= demand.ceil() && p90 < 3.0 * demand, "{r:?}");
        assert!(
            stable < upper && upper <= 1.0 && upper - stable <= 0.125 + 1e-9,
            "{r:?}"
        );
    }
    assert!(out.join("limit-vs-compaction.svg").exists());
}

#[test]
fn bad_multi_resource_keys_exit_2() {
    let bf = "[[policy]]\nname = \"bf-js\"\n";
    for (policies, extra, key) in [
        (bf, "", "key `score` of [[policy]] #1"),
        (
            "[[policy]]\nname = \"vqs\"\nJ = 3\nscore = \"epvm\"\n",
            "",
            "key `score` of [[policy]] #1",
        ),
        (
            "[[policy]]\nname = \"bf-js\"\nscore = \"bestest-fit\"\n",
            "",
            "key `score` of [[policy]] #1",
        ),
        (
            "[[policy]]\nname = \"bf-js\"\nscore = \"epvm\"\n",
            "[compaction]\ntasks = 0\n",
            "compaction.tasks",
        ),
        (
            "[[policy]]\nname = \"bf-js\"\nscore = \"epvm\"\n",
            "[[claim]]\nkind = \"threshold\"\npolicy = \"bf-js-epvm\"\nat_least = 0.5\n",
            "sweep",
        ),
    ] {
        let (code, err, _) = run_cli(
            &study_file(policies, extra),
            &key.replace(['[', ']', '.'], "_"),
        );
        assert_eq!(code, Some(2), "{key}: {err}");
        assert!(
            err.contains(key) && !err.contains("panicked"),
            "{key}: {err}"
        );
    }
}

#[test]
fn a_source_under_reporting_its_work_is_an_invariant_error() {
    struct Silent(bool);
    impl Source<VJob> for Silent {
        fn batch(&mut self, t: u64, out: &mut Vec<VJob>) {
            if t == 0 {
                self.0 = true;
                out.push(VJob {
                    id: 0,
                    req: [Size::from_f64(0.5).unwrap().0, 0, 0],
                    service: 3,
                    arrival: 0,
                    strict: false,
                    class: 0,
                });
            }
        }
        fn arrived(&self) -> u64 {
            self.0 as u64
        }
        fn arrived_work(&self) -> u128 {
            0
        }
    }
    let mut system = VectorSystem::new(
        VectorCluster::new(1, 1, Scorer::BestFit(1), 0, 3.0),
        ScoredPolicy::new(Discipline::BestFitJS),
    );
    let e = sim::run_system(&mut system, &mut Silent(false), &cfg(10, false)).unwrap_err();
    assert!(e.to_string().contains("work not conserved"), "{e}");
}
