//! The fast policies against simple, obviously correct implementations with linear scans, on
//! random small instances, decision by decision; and the invariants after every slot.

use packlab::model::{Job, ServerId, Size};
use packlab::policy::testing::{self, Instance};
use packlab::policy::{Policy, PolicySpec, SlotView};
use packlab::sim::{Cluster, Placement, RunConfig};
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Linear-scan versions of the paper's rules (docs/theory.md sections 3 and 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    BfJs,
    BfJ,
    BfS,
    FifoFf,
}

struct Reference {
    rule: Rule,
    /// Waiting jobs in arrival order.
    queue: Vec<Job>,
    /// Ids of this slot's batch.
    batch: Vec<u64>,
}

impl Reference {
    fn new(rule: Rule) -> Self {
        Reference {
            rule,
            queue: Vec::new(),
            batch: Vec::new(),
        }
    }

    /// Largest waiting job with size ≤ free; ties: earliest arrival.
    fn largest_fitting(&self, free: Size) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (k, j) in self.queue.iter().enumerate() {
            if j.size <= free && best.is_none_or(|b| j.size > self.queue[b].size) {
                best = Some(k);
            }
        }
        best
    }

    /// Server with least free ≥ size; ties: lowest index.
    fn best_server(cluster: &Cluster, size: Size) -> Option<ServerId> {
        let mut best: Option<ServerId> = None;
        for i in 0..cluster.servers() as ServerId {
            let f = cluster.free(i);
            if f >= size && best.is_none_or(|b| f < cluster.free(b)) {
                best = Some(i);
            }
        }
        best
    }

    fn bf_s(&mut self, cluster: &mut Cluster, i: ServerId, now: u64) {
        while let Some(k) = self.largest_fitting(cluster.free(i)) {
            let job = self.queue.remove(k);
            cluster.place(i, &job, now);
        }
    }
}

impl Policy for Reference {
    fn enqueue(&mut self, job: Job) {
        self.batch.push(job.id);
        self.queue.push(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let now = view.now;
        match self.rule {
            Rule::BfJs => {
                for &i in view.departed {
                    self.bf_s(cluster, i, now);
                }
                for id in std::mem::take(&mut self.batch) {
                    let Some(k) = self.queue.iter().position(|j| j.id == id) else {
                        continue;
                    };
                    if let Some(i) = Self::best_server(cluster, self.queue[k].size) {
                        let job = self.queue.remove(k);
                        cluster.place(i, &job, now);
                    }
                }
            }
            Rule::BfJ => {
                let mut k = 0;
                while k < self.queue.len() {
                    if let Some(i) = Self::best_server(cluster, self.queue[k].size) {
                        let job = self.queue.remove(k);
                        cluster.place(i, &job, now);
                    } else {
                        k += 1;
                    }
                }
            }
            Rule::BfS => {
                for i in 0..cluster.servers() as ServerId {
                    self.bf_s(cluster, i, now);
                }
            }
            Rule::FifoFf => {
                while let Some(head) = self.queue.first() {
                    let Some(i) =
                        (0..cluster.servers() as ServerId).find(|&i| cluster.free(i) >= head.size)
                    else {
                        break;
                    };
                    let job = self.queue.remove(0);
                    cluster.place(i, &job, now);
                }
            }
        }
        self.batch.clear();
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

fn run_logged(inst: &Instance, policy: &mut dyn Policy, slots: u64) -> Vec<Placement> {
    testing::run_logged(inst, policy, slots).expect("invariants hold every slot")
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

fn compare(spec: PolicySpec, rule: Rule) {
    compare_on(spec, rule, Instance::random);
}

/// The policy against the linear-scan version of its rule, by the public harness.
fn compare_on(spec: PolicySpec, rule: Rule, instance: fn(&mut Pcg64Mcg) -> Instance) {
    let compared = testing::same_decisions_on(
        |servers| spec.build(servers),
        |_| Box::new(Reference::new(rule)),
        60,
        0xB357 + rule as u64,
        instance,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(compared > 0);
}

#[test]
fn bf_js_matches_reference() {
    compare(PolicySpec::from_name("bf-js").unwrap(), Rule::BfJs);
}

#[test]
fn bf_js_matches_reference_on_large_batches() {
    compare_on(
        PolicySpec::from_name("bf-js").unwrap(),
        Rule::BfJs,
        busy_instance,
    );
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
fn bf_js_matches_reference_on_large_clusters() {
    compare_on(
        PolicySpec::from_name("bf-js").unwrap(),
        Rule::BfJs,
        large_cluster_instance,
    );
}

#[test]
fn bf_j_matches_reference_on_large_clusters() {
    compare_on(
        PolicySpec::from_name("bf-j").unwrap(),
        Rule::BfJ,
        large_cluster_instance,
    );
}

#[test]
fn bf_j_matches_reference() {
    compare(PolicySpec::from_name("bf-j").unwrap(), Rule::BfJ);
}

#[test]
fn bf_s_matches_reference() {
    compare(PolicySpec::from_name("bf-s").unwrap(), Rule::BfS);
}

#[test]
fn fifo_ff_matches_reference() {
    compare(PolicySpec::from_name("fifo-ff").unwrap(), Rule::FifoFf);
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
    };
    assert!(packlab::policy::run(&mut Lazy(Vec::new()), &mut source, &mut cluster, &cfg).is_err());
}

/// Every built-in policy is checked decision by decision against a plain version of its rule:
/// here (BF-J/S, BF-J, BF-S, FIFO-FF) or in `vq.rs` (VQS, VQS-BF, MaxWeight). A policy added to
/// the registry without one fails here.
#[test]
fn every_built_in_policy_is_checked_against_a_reference() {
    let sources = [include_str!("reference.rs"), include_str!("vq.rs")];
    let checks = [
        ("bf-js", "fn bf_js_matches_reference()"),
        ("bf-j", "fn bf_j_matches_reference()"),
        ("bf-s", "fn bf_s_matches_reference()"),
        ("fifo-ff", "fn fifo_ff_matches_reference()"),
        ("vqs", "fn vqs_matches_reference()"),
        ("vqs-bf", "fn vqs_bf_matches_reference()"),
        ("max-weight", "fn max_weight_matches_reference()"),
    ];
    for e in packlab::policy::POLICIES {
        let (_, test) = checks
            .iter()
            .find(|c| c.0 == e.name)
            .unwrap_or_else(|| panic!("built-in policy {} has no reference check", e.name));
        assert!(
            sources
                .iter()
                .any(|s| s.contains(&format!("#[test]\n{test}"))),
            "{}: no test `{test}`",
            e.name
        );
    }
}
