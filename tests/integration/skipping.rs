//! The slot loop's skipping of slots without events changes nothing: every policy, run with
//! and without it on the same jobs, gives the same result number for number (means, series,
//! batch means, verdicts, configuration mix), across loads below and above the limit, warm-up
//! and sampling boundaries, horizon extensions and the queue cap. So does the slot loop
//! compiled for each policy's own type ([`packlab::policy::run_spec`]) against the loop over
//! `dyn Policy`.

use packlab::model::{Job, Size};
use packlab::policy::{PolicyParams, registry};
use packlab::sim::{Cluster, RunConfig, RunResult};
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw, Source};

/// A source that counts the slots the loop simulates and, unless `tell`, hides when its next
/// batch comes, so that the loop runs every slot.
struct Counted {
    source: JobSource,
    tell: bool,
    slots: u64,
}

impl Source<Job> for Counted {
    fn batch(&mut self, t: u64, out: &mut Vec<Job>) {
        self.slots += 1;
        self.source.batch(t, out)
    }
    fn arrived(&self) -> u64 {
        self.source.arrived()
    }
    fn arrived_work(&self) -> u128 {
        self.source.arrived_work()
    }
    fn next_arrival(&self) -> u64 {
        if self.tell {
            self.source.next_arrival()
        } else {
            0
        }
    }
}

fn sz(x: f64) -> Size {
    Size::from_f64(x).unwrap()
}

/// How the slot loop is run.
#[derive(Clone, Copy, PartialEq)]
enum Loop {
    /// Skipping slots without events, over `dyn Policy`.
    Skip,
    /// Every slot, over `dyn Policy`.
    Every,
    /// Skipping, compiled for the policy's own type.
    Static,
}

/// The run's result and the number of slots simulated one by one: policy `name` of the built-in
/// registry with the keys `keys` (TOML).
fn run(name: &str, keys: &str, case: &Case, how: Loop) -> (RunResult, u64) {
    let table: toml::Table = keys.parse().expect("TOML keys");
    let params = PolicyParams::new(name, &table);
    let spec = registry::Registry::builtin()
        .parse(&params, &case.sizes)
        .expect("valid policy");
    let rate = case.load * case.servers as f64 / (case.sizes.mean() * case.service.mean());
    let arrivals = Arrivals::new(case.process, rate).unwrap();
    let mut source = Counted {
        source: JobSource::new(
            case.sizes.clone(),
            case.service.clone(),
            arrivals,
            case.seed,
        ),
        tell: how != Loop::Every,
        slots: 0,
    };
    let mut cluster = Cluster::new(case.servers, case.service.mean());
    let result = if how == Loop::Static {
        packlab::policy::run_spec(&spec, &mut source, &mut cluster, &case.cfg)
    } else {
        let mut policy = spec.build(case.servers);
        packlab::policy::run(policy.as_mut(), &mut source, &mut cluster, &case.cfg)
    };
    (result.expect("invariants hold"), source.slots)
}

struct Case {
    servers: usize,
    sizes: SizeLaw,
    service: ServiceLaw,
    process: ArrivalProcess,
    load: f64,
    seed: u64,
    cfg: RunConfig,
}

#[test]
fn skipping_empty_slots_changes_no_result() {
    let grid = SizeLaw::discrete(
        [0.05, 0.2, 0.3, 0.35, 0.55, 0.66, 0.9].map(sz).to_vec(),
        vec![1.0; 7],
    )
    .unwrap();
    let uniform = SizeLaw::uniform(sz(0.1), sz(0.9));
    let mut cases = Vec::new();
    for (k, (servers, load, mean, process)) in [
        (1, 0.3, 40.0, ArrivalProcess::Poisson),
        (3, 0.7, 25.0, ArrivalProcess::Poisson),
        (5, 0.95, 30.0, ArrivalProcess::Bernoulli),
        (4, 1.3, 8.0, ArrivalProcess::Poisson),
        (20, 0.8, 4.0, ArrivalProcess::Poisson),
        (2, 0.5, 30.0, ArrivalProcess::Batch),
    ]
    .into_iter()
    .enumerate()
    {
        for (sizes, discrete) in [(&grid, true), (&uniform, false)] {
            let mut cfg = RunConfig::new(30_000 + 777 * k as u64, 3_001, mean);
            cfg.samples = 97;
            cfg.queue_cap = 400;
            // some runs may double their horizon while inconclusive
            cfg.max_slots = 4 * cfg.slots;
            cases.push((
                discrete,
                Case {
                    servers,
                    sizes: sizes.clone(),
                    service: if k % 2 == 0 {
                        ServiceLaw::geometric(mean)
                    } else {
                        ServiceLaw::Deterministic(mean as u32)
                    },
                    process,
                    load,
                    seed: 1000 + k as u64,
                    cfg,
                },
            ));
        }
    }
    for (_, case) in &cases {
        // every policy of the registry, with each of its entry's parameter sets (a policy
        // that needs finitely many sizes only on the discrete law)
        let policies: Vec<(&str, &str)> = registry::Registry::builtin()
            .entries()
            .flat_map(|e| e.examples.iter().map(move |&k| (e.name, k)))
            .filter(|&(name, keys)| {
                let table: toml::Table = keys.parse().expect("TOML keys");
                registry::Registry::builtin()
                    .parse(&PolicyParams::new(name, &table), &case.sizes)
                    .is_ok()
            })
            .collect();
        assert!(policies.len() >= 7, "{}", policies.len());
        for (name, keys) in policies {
            let stall = keys.contains("stall");
            let (with, stepped) = run(name, keys, case, Loop::Skip);
            let (without, every) = run(name, keys, case, Loop::Every);
            let (compiled, compiled_steps) = run(name, keys, case, Loop::Static);
            assert!(
                compiled == with && compiled_steps == stepped,
                "{name} on {} servers at load {}: the loop compiled for the policy differs \
                 (mean queue {} vs {})",
                case.servers,
                case.load,
                compiled.mean_queue,
                with.mean_queue
            );
            assert!(
                with == without,
                "{name} on {} servers at load {}: skipping changed the result (mean queue {} \
                 vs {}, series {:?} vs {:?})",
                case.servers,
                case.load,
                with.mean_queue,
                without.mean_queue,
                with.series.len(),
                without.series.len()
            );
            assert_eq!(every, without.slots);
            // a lightly loaded single server is idle most of the time: most slots are skipped
            // (with stalling, every slot runs)
            if case.servers == 1 && !stall {
                assert!(
                    stepped * 2 < every,
                    "{name}: {stepped} of {every} slots simulated"
                );
            }
        }
    }
}
