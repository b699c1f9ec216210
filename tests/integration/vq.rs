//! VQS, VQS-BF and MaxWeight: decisions on hand-built states, and the fast implementations
//! against plain ones that visit every server every slot with linear scans, decision by
//! decision.

use packlab::configurations::{Partition, ReducedSet, VQ2, knapsack};
use packlab::model::{Departure, Job, ServerId, Size};
use packlab::policy::{MaxWeight, Policy, SlotView, Vqs, VqsBf};
use packlab::sim::{Cluster, Placement, RunConfig};
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn sz(x: f64) -> Size {
    Size::from_f64(x).unwrap()
}

/// One slot by hand: departures, then `arrivals` (sizes, service), then scheduling.
fn step(
    p: &mut dyn Policy,
    cluster: &mut Cluster,
    t: u64,
    next_id: &mut u64,
    arrivals: &[(f64, u32)],
) {
    let mut deps = Vec::new();
    let mut servers = Vec::new();
    cluster.depart(t, &mut deps, &mut servers);
    for &(s, service) in arrivals {
        p.enqueue(Job {
            id: *next_id,
            size: sz(s),
            service,
            arrival: t,
            class: 0,
        });
        *next_id += 1;
    }
    let all: Vec<ServerId> = (0..cluster.servers() as ServerId).collect();
    p.schedule(
        cluster,
        SlotView {
            now: t,
            departures: &deps,
            departed: if t == 0 { &all } else { &servers },
        },
    );
}

fn placed_ids(c: &Cluster) -> Vec<u64> {
    c.log().iter().map(|p| p.job).collect()
}

fn configs(p: &dyn Policy) -> Vec<String> {
    let mut v = Vec::new();
    p.config_usage(&mut v);
    v.into_iter().map(|(l, _)| l).collect()
}

fn one_server() -> Cluster {
    let mut c = Cluster::new(1, 10.0);
    c.enable_log();
    c
}

#[test]
fn vqs_reserves_two_thirds_for_vq2() {
    // X_2. Q_2 = 9 (size 0.55), Q_5 = 2 (size 0.2): VQ2+VQ5 weighs 11 > VQ2 (9), 4·VQ5 (8).
    let mut p = Vqs::new(Partition::universal(2), 1, None);
    let mut c = one_server();
    let mut id = 0;
    let mut batch = vec![(0.55, 100); 9];
    batch.extend([(0.2, 100), (0.2, 100)]);
    step(&mut p, &mut c, 0, &mut id, &batch);
    assert_eq!(configs(&p), ["VQ2+VQ5"]);
    // one VQ_2 job (the first) and one 0.2: the second 0.2 would fit in the true free
    // capacity 0.25 but not in the unreserved third (0.2 + 0.2 > 1/3).
    assert_eq!(placed_ids(&c), [0, 9]);
    assert_eq!(c.free(0), sz(0.25));
}

#[test]
fn vqs_true_sizes_may_let_more_than_k_j_in() {
    // Special configuration VQ2+VQ5 has k_5 = 1, but three jobs of 0.1 fit in the third.
    // Q_2 = 10, Q_5 = 3: VQ2+VQ5 weighs 13 > 4·VQ5 (12). (With Q_2 = 9 both weigh 12 and the
    // tie goes to the lower index, 4·VQ5.)
    let mut p = Vqs::new(Partition::universal(2), 1, None);
    let mut c = one_server();
    let mut id = 0;
    let mut batch = vec![(0.6, 100); 10];
    batch.extend([(0.1, 100); 3]);
    step(&mut p, &mut c, 0, &mut id, &batch);
    assert_eq!(configs(&p), ["VQ2+VQ5"]);
    assert_eq!(placed_ids(&c), [0, 10, 11, 12]);
}

#[test]
fn vqs_serves_head_of_line_in_arrival_order() {
    // Only VQ_5 = (0, 1/4] jobs: configuration 4·VQ5. FIFO: 0.05 + 3 × 0.24 = 0.77, then the
    // head 0.24 does not fit and blocks the 0.1 behind it.
    let mut p = Vqs::new(Partition::universal(2), 1, None);
    let mut c = one_server();
    let mut id = 0;
    let batch = [
        (0.05, 100),
        (0.24, 100),
        (0.24, 100),
        (0.24, 100),
        (0.24, 100),
        (0.1, 100),
    ];
    step(&mut p, &mut c, 0, &mut id, &batch);
    assert_eq!(configs(&p), ["4·VQ5"]);
    assert_eq!(placed_ids(&c), [0, 1, 2, 3]);
}

#[test]
fn vqs_bf_takes_largest_first_then_best_fit() {
    // Same jobs under VQS-BF: the four largest VQ_5 jobs (4 × 0.24 = 0.96), then BF-S finds
    // nothing ≤ 0.04.
    let mut p = VqsBf::new(Partition::universal(2), 1, None);
    let mut c = one_server();
    let mut id = 0;
    let batch = [
        (0.05, 100),
        (0.24, 100),
        (0.24, 100),
        (0.24, 100),
        (0.24, 100),
        (0.1, 100),
    ];
    step(&mut p, &mut c, 0, &mut id, &batch);
    assert_eq!(configs(&p), ["4·VQ5"]);
    assert_eq!(placed_ids(&c), [1, 2, 3, 4]);
    // With 0.03 waiting too, BF-S fills the last 0.04 with it.
    let mut p = VqsBf::new(Partition::universal(2), 1, None);
    let mut c = one_server();
    let mut id = 0;
    let mut b = batch.to_vec();
    b.push((0.03, 100));
    step(&mut p, &mut c, 0, &mut id, &b);
    assert_eq!(placed_ids(&c), [1, 2, 3, 4, 6]);
}

#[test]
fn vqs_bf_takes_largest_vq2_job_without_reservation() {
    // Q_2 = 3 (0.52, 0.66, 0.6), Q_4 = 1 (0.3): VQ2+VQ4 (weight 4). VQS-BF takes the largest
    // VQ_2 job, 0.66, then VQ_4's 0.3 (k_4 = 1 reached), then BF-S: nothing ≤ 0.04.
    let mut p = VqsBf::new(Partition::universal(2), 1, None);
    let mut c = one_server();
    let mut id = 0;
    step(
        &mut p,
        &mut c,
        0,
        &mut id,
        &[(0.52, 50), (0.66, 50), (0.6, 50), (0.3, 50)],
    );
    assert_eq!(configs(&p), ["VQ2+VQ4"]);
    assert_eq!(placed_ids(&c), [1, 3]);
    // VQS on the same jobs takes the head of line of VQ_2 (0.52) instead.
    let mut p = Vqs::new(Partition::universal(2), 1, None);
    let mut c = one_server();
    let mut id = 0;
    step(
        &mut p,
        &mut c,
        0,
        &mut id,
        &[(0.52, 50), (0.66, 50), (0.6, 50), (0.3, 50)],
    );
    assert_eq!(placed_ids(&c), [0, 3]);
}

#[test]
fn no_renewal_while_a_server_is_busy() {
    for bf in [false, true] {
        let mut p: Box<dyn Policy> = if bf {
            Box::new(VqsBf::new(Partition::universal(2), 1, None))
        } else {
            Box::new(Vqs::new(Partition::universal(2), 1, None))
        };
        let mut c = one_server();
        let mut id = 0;
        // t = 0: two jobs of 0.45 (VQ_3): configuration 2·VQ3; one leaves at t = 1.
        step(p.as_mut(), &mut c, 0, &mut id, &[(0.45, 1), (0.45, 5)]);
        assert_eq!(configs(p.as_ref()), ["2·VQ3"]);
        // t = 1: many VQ_2 jobs arrive; the server is not empty, so it keeps 2·VQ3 and, the
        // VQ_3 queue being empty, takes nothing (VQS) — VQS-BF's BF-S may not fill it either,
        // since 0.6 > 0.55 free.
        step(p.as_mut(), &mut c, 1, &mut id, &[(0.6, 3); 5]);
        assert_eq!(configs(p.as_ref()), ["2·VQ3"], "bf = {bf}");
        assert_eq!(placed_ids(&c), [0, 1]);
        // t = 5: the last job leaves, the server is empty and renews to VQ2.
        for t in 2..=5 {
            step(p.as_mut(), &mut c, t, &mut id, &[]);
        }
        assert_eq!(configs(p.as_ref()), ["VQ2"], "bf = {bf}");
        assert_eq!(placed_ids(&c), [0, 1, 2]);
    }
}

// ---- linear-scan references ------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Vqs,
    VqsBf,
    MaxWeight,
}

struct Reference {
    kind: Kind,
    partition: Partition,
    kred: ReducedSet,
    types: Vec<Size>,
    /// Waiting jobs in arrival order (class set).
    queue: Vec<Job>,
    /// Per server: (class, size) of the jobs it holds, and its configuration.
    held: Vec<Vec<(usize, Size)>>,
    cfg: Vec<usize>,
    mw_cfg: Vec<Vec<u32>>,
    stall: Option<f64>,
    stalled: Vec<bool>,
}

impl Reference {
    fn new(
        kind: Kind,
        partition: Partition,
        types: Vec<Size>,
        servers: usize,
        stall: Option<f64>,
    ) -> Self {
        Reference {
            stall,
            stalled: vec![false; servers],
            kind,
            kred: ReducedSet::new(&partition),
            partition,
            types,
            queue: Vec::new(),
            held: vec![Vec::new(); servers],
            cfg: vec![0; servers],
            mw_cfg: vec![Vec::new(); servers],
        }
    }

    fn classes(&self) -> usize {
        if self.kind == Kind::MaxWeight {
            self.types.len()
        } else {
            self.partition.len()
        }
    }

    fn lengths(&self) -> Vec<u64> {
        let mut q = vec![0; self.classes()];
        for j in &self.queue {
            q[j.class as usize] += 1;
        }
        q
    }

    fn take(&mut self, k: usize, i: ServerId, cluster: &mut Cluster, now: u64) {
        let job = self.queue.remove(k);
        cluster.place(i, &job, now);
        self.held[i as usize].push((job.class as usize, job.size));
    }

    /// Position of the first waiting job of class c (head of line).
    fn head(&self, c: usize) -> Option<usize> {
        self.queue.iter().position(|j| j.class as usize == c)
    }

    /// Position of the largest waiting job with `pred`, size ≤ free; ties: earliest.
    fn largest(&self, free: Size, pred: impl Fn(&Job) -> bool) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (k, j) in self.queue.iter().enumerate() {
            if pred(j) && j.size <= free && best.is_none_or(|b| j.size > self.queue[b].size) {
                best = Some(k);
            }
        }
        best
    }

    fn visit(&mut self, i: ServerId, cluster: &mut Cluster, now: u64) {
        let iu = i as usize;
        let empty = self.held[iu].is_empty();
        if self.kind == Kind::MaxWeight {
            if empty {
                let w: Vec<f64> = self.lengths().iter().map(|&q| q as f64).collect();
                self.mw_cfg[iu] = knapsack::max_weight(&self.types, &w).0;
            }
            for t in 0..self.types.len() {
                loop {
                    let have = self.held[iu].iter().filter(|h| h.0 == t).count() as u32;
                    if have >= self.mw_cfg[iu][t] {
                        break;
                    }
                    let Some(k) = self.head(t) else { break };
                    self.take(k, i, cluster, now);
                }
            }
            return;
        }
        let q = self.lengths();
        let mut best = 0;
        for k in 1..self.kred.len() {
            if self.kred.get(k).weight(&q) > self.kred.get(best).weight(&q) {
                best = k;
            }
        }
        if empty {
            self.cfg[iu] = best;
            self.stalled[iu] = false;
        } else if let Some(beta) = self.stall {
            // section 9: a busy server whose configuration weighs less than β · max stalls
            // until it empties
            let w = self.kred.get(self.cfg[iu]).weight(&q) as f64;
            if w < beta * self.kred.get(best).weight(&q) as f64 {
                self.stalled[iu] = true;
            }
        }
        if self.stalled[iu] {
            return;
        }
        let cfg = self.kred.get(self.cfg[iu]);
        let count = |held: &Vec<(usize, Size)>, c: usize| held.iter().filter(|h| h.0 == c).count();
        let used = |held: &Vec<(usize, Size)>, c: usize| {
            held.iter().filter(|h| h.0 == c).map(|h| h.1.0).sum::<u64>()
        };
        match self.kind {
            Kind::Vqs => {
                if cfg.vq2
                    && count(&self.held[iu], VQ2) == 0
                    && let Some(k) = self.head(VQ2)
                {
                    self.take(k, i, cluster, now);
                }
                if let Some((j, _)) = cfg.other {
                    while let Some(k) = self.head(j) {
                        let room = if cfg.vq2 {
                            Size::ratio(1, 3).0 - used(&self.held[iu], j)
                        } else {
                            cluster.free(i).0
                        };
                        if self.queue[k].size.0 > room {
                            break;
                        }
                        self.take(k, i, cluster, now);
                    }
                }
            }
            Kind::VqsBf => {
                if cfg.vq2
                    && count(&self.held[iu], VQ2) == 0
                    && let Some(k) = self.largest(cluster.free(i), |j| j.class as usize == VQ2)
                {
                    self.take(k, i, cluster, now);
                }
                if let Some((j, n)) = cfg.other {
                    while count(&self.held[iu], j) < n as usize {
                        let Some(k) = self.largest(cluster.free(i), |x| x.class as usize == j)
                        else {
                            break;
                        };
                        self.take(k, i, cluster, now);
                    }
                }
                while let Some(k) = self.largest(cluster.free(i), |_| true) {
                    self.take(k, i, cluster, now);
                }
            }
            Kind::MaxWeight => unreachable!(),
        }
    }
}

impl Policy for Reference {
    fn enqueue(&mut self, mut job: Job) {
        job.class = if self.kind == Kind::MaxWeight {
            self.types.iter().position(|&s| s == job.size).unwrap() as u8
        } else {
            self.partition.index(job.size) as u8
        };
        self.queue.push(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for &Departure {
            server,
            size,
            class,
        } in view.departures
        {
            let h = &mut self.held[server as usize];
            let k = h
                .iter()
                .position(|&(c, s)| c == class as usize && s == size)
                .expect("departing job is held");
            h.remove(k);
        }
        for i in 0..cluster.servers() as ServerId {
            self.visit(i, cluster, view.now);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

fn run_logged(
    p: &mut dyn Policy,
    servers: usize,
    sizes: &SizeLaw,
    service: &ServiceLaw,
    rate: f64,
    seed: u64,
) -> Vec<Placement> {
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
    let mut source = JobSource::new(sizes.clone(), service.clone(), arrivals, seed);
    let mut cluster = Cluster::new(servers, service.mean());
    cluster.enable_log();
    let cfg = RunConfig {
        slots: 2_000,
        warmup: 0,
        queue_cap: 3_000,
        samples: 10,
        check_every_slot: true,
        max_slots: 0,
        mean_service: 1.0,
        watch: packlab::sim::Watch::NONE,
    };
    packlab::policy::run(p, &mut source, &mut cluster, &cfg).expect("invariants hold every slot");
    cluster.log().to_vec()
}

/// The fast policy's placements `a` are the reference's `b`, decision by decision, and there
/// are some.
fn same_decisions(a: &[Placement], b: &[Placement], case: &str) {
    assert!(!a.is_empty(), "{case}: nothing was placed");
    if let Some(d) = (0..a.len().min(b.len())).find(|&d| a[d] != b[d]) {
        panic!(
            "{case}: decision {d}: fast {:?}, reference {:?}",
            a[d], b[d]
        );
    }
    assert_eq!(a.len(), b.len(), "{case}: number of placements");
}

/// One run of a fast policy and of the reference on the same jobs.
struct Case<'a> {
    kind: Kind,
    stall: Option<f64>,
    servers: usize,
    /// The partition X_J.
    j: u32,
    /// Job sizes, equally likely.
    values: &'a [Size],
    service: &'a ServiceLaw,
    /// Arrivals per slot.
    rate: f64,
    seed: u64,
}

impl Case<'_> {
    /// Runs both and checks they place alike; returns the fast policy's placements.
    fn same_as_reference(&self, name: &str) -> Vec<Placement> {
        let &Case {
            kind,
            stall,
            servers,
            j,
            ..
        } = self;
        let sizes = SizeLaw::discrete(self.values.to_vec(), vec![1.0; self.values.len()]).unwrap();
        let partition = Partition::universal(j);
        let mut types: Vec<Size> = self.values.to_vec();
        types.sort_unstable();
        types.dedup();
        let mut fast: Box<dyn Policy> = match kind {
            Kind::Vqs => Box::new(Vqs::new(partition.clone(), servers, stall)),
            Kind::VqsBf => Box::new(VqsBf::new(partition.clone(), servers, stall)),
            Kind::MaxWeight => Box::new(MaxWeight::new(types.clone(), servers)),
        };
        let mut slow = Reference::new(kind, partition, types, servers, stall);
        let (rate, seed) = (self.rate, self.seed);
        let a = run_logged(fast.as_mut(), servers, &sizes, self.service, rate, seed);
        let b = run_logged(&mut slow, servers, &sizes, self.service, rate, seed);
        same_decisions(&a, &b, &format!("{kind:?} {name} (L={servers}, J={j})"));
        a
    }
}

fn compare(kind: Kind, stall: Option<f64>) {
    let mut rng = Pcg64Mcg::seed_from_u64(0x5EED + kind as u64);
    let mut stall_mattered = 0;
    for case in 0..50 {
        let servers = rng.random_range(1..=6);
        let j = rng.random_range(2..=5);
        // sizes spread over the intervals, including (1/2, 2/3] and small ones
        let pool = [
            0.05, 0.1, 0.15, 0.2, 0.24, 0.3, 0.34, 0.45, 0.5, 0.55, 0.6, 0.66, 0.7, 0.9, 1.0,
        ];
        let k = rng.random_range(1..=5);
        let values: Vec<Size> = (0..k)
            .map(|_| sz(pool[rng.random_range(0..pool.len())]))
            .collect();
        let sizes = SizeLaw::discrete(values.clone(), vec![1.0; k]).unwrap();
        let service = if rng.random_bool(0.6) {
            ServiceLaw::geometric(rng.random_range(1.0..12.0))
        } else {
            ServiceLaw::Deterministic(rng.random_range(1..8))
        };
        let load = rng.random_range(0.5..1.2);
        let rate = load * servers as f64 / (sizes.mean() * service.mean());
        let seed = rng.random();
        let run = Case {
            kind,
            stall,
            servers,
            j,
            values: &values,
            service: &service,
            rate,
            seed,
        };
        let a = run.same_as_reference(&format!("case {case}"));
        if stall.is_some() {
            let partition = Partition::universal(j);
            let mut plain: Box<dyn Policy> = match kind {
                Kind::Vqs => Box::new(Vqs::new(partition, servers, None)),
                _ => Box::new(VqsBf::new(partition, servers, None)),
            };
            if run_logged(plain.as_mut(), servers, &sizes, &service, rate, seed) != a {
                stall_mattered += 1;
            }
        }
    }
    if stall.is_some() {
        assert!(
            stall_mattered > 5,
            "stalling changed only {stall_mattered} of 50 cases"
        );
    }
}

#[test]
fn vqs_matches_reference() {
    compare(Kind::Vqs, None);
}

#[test]
fn vqs_bf_matches_reference() {
    compare(Kind::VqsBf, None);
}

/// VQS and VQS-BF on clusters on both sides of 64 and 128 servers, where the index of the
/// servers that can act changes form (one word, two words, a tree).
#[test]
fn vqs_matches_reference_on_larger_clusters() {
    let mut rng = Pcg64Mcg::seed_from_u64(0x64_128);
    let pool = [
        0.05, 0.1, 0.15, 0.2, 0.24, 0.3, 0.34, 0.45, 0.5, 0.55, 0.6, 0.66, 0.7, 0.9, 1.0,
    ];
    for servers in [64, 65, 100, 128, 129, 200] {
        let values: Vec<Size> = (0..8)
            .map(|_| sz(pool[rng.random_range(0..pool.len())]))
            .collect();
        let mean = values.iter().map(|s| s.as_f64()).sum::<f64>() / values.len() as f64;
        let service = ServiceLaw::geometric(10.0);
        let rate = rng.random_range(0.8..1.1) * servers as f64 / (mean * 10.0);
        for kind in [Kind::Vqs, Kind::VqsBf] {
            let run = Case {
                kind,
                stall: None,
                servers,
                j: rng.random_range(2..=5),
                values: &values,
                service: &service,
                rate,
                seed: rng.random(),
            };
            run.same_as_reference("larger cluster");
        }
    }
}

#[test]
fn max_weight_matches_reference() {
    compare(Kind::MaxWeight, None);
}

#[test]
fn stalling_vqs_and_vqs_bf_match_reference() {
    compare(Kind::Vqs, Some(0.7));
    compare(Kind::VqsBf, Some(0.7));
}

/// Batches of dozens of jobs a slot (VQS-BF sorts a batch above 16 jobs and takes from it
/// beside the queue): small sizes from a short list, services of one or two slots, 12
/// servers, with and without stalling, decision by decision against the reference.
#[test]
fn vqs_bf_matches_reference_on_large_batches() {
    let mut rng = Pcg64Mcg::seed_from_u64(0xBA7C4);
    for case in 0..40 {
        let servers = 12;
        let j = rng.random_range(2..=5);
        let values: Vec<Size> = [1, 2, 3, 5]
            .iter()
            .map(|&k| Size(k * Size::UNIT / 12))
            .collect();
        let sizes = SizeLaw::discrete(values, vec![1.0; 4]).unwrap();
        let service = ServiceLaw::Deterministic(rng.random_range(1..3));
        let load = rng.random_range(0.8..1.3);
        let rate = load * servers as f64 / (sizes.mean() * service.mean());
        assert!(rate > 16.0, "case {case}: rate {rate} makes small batches");
        let stall = (case % 2 == 1).then_some(0.7);
        let seed = rng.random();
        let partition = Partition::universal(j);
        let mut fast = VqsBf::new(partition.clone(), servers, stall);
        let mut slow = Reference::new(Kind::VqsBf, partition, Vec::new(), servers, stall);
        let a = run_logged(&mut fast, servers, &sizes, &service, rate, seed);
        let b = run_logged(&mut slow, servers, &sizes, &service, rate, seed);
        same_decisions(&a, &b, &format!("case {case} (J={j}, stall {stall:?})"));
    }
}
