//! The policies' suites, driven by the registry: every built-in policy (and a program's own,
//! through the same public [`testing::check_entry`]) against the plain version of its rule its
//! entry names, decision by decision, with its invariants after every slot and the slot loop's
//! shortcuts giving the loop's result; and the invariants on their own.

use packlab::model::{Job, Size};
use packlab::policy::registry::Registry;
use packlab::policy::testing::{self, Instance};
use packlab::policy::{Policy, PolicyEntry, PolicyParams, PolicySpec, SlotView};
use packlab::sim::{Cluster, RunConfig};
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Every built-in policy names a plain version of its rule and passes the suites with it, on
/// each of its parameter sets: a built-in policy added without one fails here.
#[test]
fn every_built_in_policy_passes_its_suites() {
    for e in Registry::builtin().entries() {
        assert!(
            e.reference.is_some(),
            "built-in policy {} names no plain version of its rule",
            e.name
        );
        let checked = testing::check_entry(e, 24, 0xB357).unwrap_or_else(|m| panic!("{m}"));
        assert!(
            checked.compared > 0 && checked.runs > 0,
            "{}: {checked:?}",
            e.name
        );
    }
}

/// `entry` with no keys against its plain version on instances drawn by `instance`.
fn against_reference(name: &str, instance: fn(&mut Pcg64Mcg) -> Instance, cases: usize) {
    let registry = Registry::builtin();
    let e: &PolicyEntry = registry.entry(name).expect("a built-in policy");
    let table = toml::Table::new();
    let params = PolicyParams::new(e.name, &table);
    let spec = |sizes: &SizeLaw| (e.parse)(&params, sizes).expect("keys valid");
    let plain = |sizes: &SizeLaw| (e.reference.expect("a plain version"))(&params, sizes).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(0xB357);
    for case in 0..cases {
        let inst = instance(&mut rng);
        let (fast, slow) = (spec(&inst.sizes), plain(&inst.sizes));
        let compared = testing::same_decisions_on(
            |servers| fast.build(servers),
            |servers| slow.build(servers),
            1,
            case as u64,
            |_| inst.clone(),
        )
        .unwrap_or_else(|m| panic!("{name}: {m}"));
        assert!(compared > 0);
    }
}

/// Batches of dozens of jobs a slot: small sizes, short services, 8 servers (BF-J/S sorts a
/// batch above 16 jobs instead of scanning it).
fn busy_instance(rng: &mut Pcg64Mcg) -> Instance {
    let values: Vec<Size> = [1, 2, 5]
        .iter()
        .map(|&k| Size(k * Size::UNIT / 12))
        .collect();
    let sizes = SizeLaw::discrete(values, vec![1.0; 3]).unwrap();
    let service = ServiceLaw::Deterministic(rng.random_range(1..4));
    let load = rng.random_range(0.8..1.3);
    let rate = load * 8.0 / (sizes.mean() * service.mean());
    Instance {
        servers: 8,
        sizes,
        service,
        rate,
        seed: rng.random(),
    }
}

#[test]
fn bf_js_matches_reference_on_large_batches() {
    against_reference("bf-js", busy_instance, 40);
}

/// Above 16 servers best fit keeps the servers in order by free capacity rather than scanning
/// them, and near or over the limit (queues of hundreds of jobs) BF-J/S moves a server in that
/// order only when a query could find it.
fn large_cluster_instance(rng: &mut Pcg64Mcg) -> Instance {
    let mut inst = Instance::random(rng);
    let servers = rng.random_range(17..=120);
    let load = rng.random_range(0.85..1.3);
    inst.rate = load * servers as f64 / (inst.sizes.mean() * inst.service.mean());
    inst.servers = servers;
    inst
}

#[test]
fn bf_js_and_bf_j_match_reference_on_large_clusters() {
    against_reference("bf-js", large_cluster_instance, 30);
    against_reference("bf-j", large_cluster_instance, 30);
}

fn run_logged(
    inst: &Instance,
    policy: &mut dyn Policy,
    slots: u64,
) -> Vec<packlab::sim::Placement> {
    testing::run_logged(inst, policy, slots).expect("invariants hold every slot")
}

#[test]
fn bf_js_never_leaves_a_fitting_job_waiting() {
    // run_logged checks, after every slot: no server over capacity, jobs conserved, and the
    // policy's invariant (for BF-J/S: no waiting job fits anywhere).
    let mut rng = Pcg64Mcg::seed_from_u64(99);
    for _ in 0..40 {
        let inst = Instance::random(&mut rng);
        for spec in [
            PolicySpec::from_name("bf-js").unwrap(),
            PolicySpec::from_name("bf-j").unwrap(),
            PolicySpec::from_name("bf-s").unwrap(),
            PolicySpec::from_name("fifo-ff").unwrap(),
        ] {
            let mut p = spec.build(inst.servers);
            run_logged(&inst, p.as_mut(), 2_000);
        }
    }
}

#[test]
fn invariant_check_catches_a_lazy_policy() {
    // A policy that never places anything breaks BF-J/S's invariant; the check must say so.
    struct Lazy(Vec<Job>);
    impl Policy for Lazy {
        fn enqueue(&mut self, job: Job) {
            self.0.push(job);
        }
        fn schedule(&mut self, _: &mut Cluster, _: SlotView<'_>) {}
        fn waiting(&self) -> usize {
            self.0.len()
        }
        fn check(&self, cluster: &Cluster) -> Result<(), packlab::sim::Violation> {
            let max = cluster.frees().iter().max().copied().unwrap_or_default();
            match self.0.iter().map(|j| j.size).min() {
                Some(s) if s <= max => Err(packlab::sim::Violation("a waiting job fits".into())),
                _ => Ok(()),
            }
        }
    }
    let inst = Instance {
        servers: 2,
        sizes: SizeLaw::uniform(Size::ratio(1, 10), Size::ratio(1, 2)),
        service: ServiceLaw::geometric(5.0),
        rate: 0.5,
        seed: 1,
    };
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, inst.rate).unwrap();
    let mut source = JobSource::new(inst.sizes, inst.service, arrivals, 1);
    let mut cluster = Cluster::new(2, 5.0);
    let cfg = RunConfig {
        slots: 100,
        warmup: 0,
        queue_cap: 1000,
        samples: 10,
        check_every_slot: true,
        max_slots: 0,
        mean_service: 1.0,
        watch: packlab::sim::Watch::NONE,
        look: packlab::sim::Look::ALWAYS,
    };
    assert!(packlab::policy::run(&mut Lazy(Vec::new()), &mut source, &mut cluster, &cfg).is_err());
}
