//! VQS, VQS-BF and MaxWeight: decisions on hand-built states, and the fast implementations
//! against plain ones that visit every server every slot with linear scans, decision by
//! decision.

use packlab::configurations::Partition;
use packlab::model::{Job, ServerId, Size};
use packlab::policy::registry::Registry;
use packlab::policy::testing::{self, Instance};
use packlab::policy::{Policy, PolicyParams, SlotView, Vqs, VqsBf};
use packlab::sim::{Cluster, Placement};
use packlab::workload::{ServiceLaw, SizeLaw};
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
            kind: 0,
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

// ---- against the plain versions the registry names ---------------------------------------

/// `name` with the keys `keys` and its plain version (the entry's reference) on `inst`,
/// decision by decision; the fast policy's placements.
fn same_as_plain(name: &str, keys: &str, inst: &Instance) -> Vec<Placement> {
    let registry = Registry::builtin();
    let e = registry.entry(name).expect("a built-in policy");
    let table: toml::Table = keys.parse().unwrap();
    let params = PolicyParams::new(name, &table);
    let fast = (e.parse)(&params, &inst.sizes).expect("valid keys");
    let plain = (e.reference.expect("a plain version"))(&params, &inst.sizes).unwrap();
    let a = testing::run_logged(inst, fast.build(inst.servers).as_mut(), 2_000).unwrap();
    let b = testing::run_logged(inst, plain.build(inst.servers).as_mut(), 2_000).unwrap();
    assert!(!a.is_empty(), "{name} {keys}: nothing was placed");
    if let Some(d) = (0..a.len().min(b.len())).find(|&d| a[d] != b[d]) {
        panic!(
            "{name} {keys} (L={}): decision {d}: fast {:?}, plain {:?}",
            inst.servers, a[d], b[d]
        );
    }
    assert_eq!(a.len(), b.len(), "{name} {keys}: number of placements");
    a
}

/// Sizes spread over the intervals of X_J, including (1/2, 2/3] and small ones.
const POOL: [f64; 15] = [
    0.05, 0.1, 0.15, 0.2, 0.24, 0.3, 0.34, 0.45, 0.5, 0.55, 0.6, 0.66, 0.7, 0.9, 1.0,
];

/// A system of `servers` servers whose sizes are `k` drawn from [`POOL`], equally likely.
fn pooled(
    rng: &mut Pcg64Mcg,
    servers: usize,
    k: usize,
    load: f64,
    service: ServiceLaw,
) -> Instance {
    let values: Vec<Size> = (0..k)
        .map(|_| sz(POOL[rng.random_range(0..POOL.len())]))
        .collect();
    let sizes = SizeLaw::discrete(values, vec![1.0; k]).unwrap();
    let rate = load * servers as f64 / (sizes.mean() * service.mean());
    Instance {
        servers,
        sizes,
        service,
        rate,
        seed: rng.random(),
    }
}

/// Stalling is a parameter the policies honour: with β = 0.7 they place otherwise in many
/// cases, and still as their plain versions do.
#[test]
fn stalling_changes_what_vqs_and_vqs_bf_do() {
    let mut rng = Pcg64Mcg::seed_from_u64(0x5EED);
    for name in ["vqs", "vqs-bf"] {
        let mut mattered = 0;
        for _ in 0..40 {
            let servers = rng.random_range(1..=6);
            let k = rng.random_range(1..=5);
            let service = if rng.random_bool(0.6) {
                ServiceLaw::geometric(rng.random_range(1.0..12.0))
            } else {
                ServiceLaw::Deterministic(rng.random_range(1..8))
            };
            let load = rng.random_range(0.5..1.2);
            let inst = pooled(&mut rng, servers, k, load, service);
            let j = rng.random_range(2..=5);
            let stalled = same_as_plain(name, &format!("J = {j}\nstall = 0.7"), &inst);
            if stalled != same_as_plain(name, &format!("J = {j}"), &inst) {
                mattered += 1;
            }
        }
        assert!(
            mattered > 5,
            "{name}: stalling changed only {mattered} of 40 cases"
        );
    }
}

/// VQS and VQS-BF on clusters on both sides of 64 and 128 servers, where the index of the
/// servers that can act changes form (one word, two words, a tree).
#[test]
fn vqs_matches_reference_on_larger_clusters() {
    let mut rng = Pcg64Mcg::seed_from_u64(0x64_128);
    for servers in [64, 65, 100, 128, 129, 200] {
        let load = rng.random_range(0.8..1.1);
        let inst = pooled(&mut rng, servers, 8, load, ServiceLaw::geometric(10.0));
        for name in ["vqs", "vqs-bf"] {
            same_as_plain(name, &format!("J = {}", rng.random_range(2..=5)), &inst);
        }
    }
}

/// Batches of dozens of jobs a slot (VQS-BF sorts a batch above 16 jobs and takes from it
/// beside the queue): small sizes from a short list, services of one or two slots, 12
/// servers, with and without stalling, decision by decision against the plain version.
#[test]
fn vqs_bf_matches_reference_on_large_batches() {
    let mut rng = Pcg64Mcg::seed_from_u64(0xBA7C4);
    for case in 0..40 {
        let servers = 12;
        let values: Vec<Size> = [1, 2, 3, 5]
            .iter()
            .map(|&k| Size(k * Size::UNIT / 12))
            .collect();
        let sizes = SizeLaw::discrete(values, vec![1.0; 4]).unwrap();
        let service = ServiceLaw::Deterministic(rng.random_range(1..3));
        let load = rng.random_range(0.8..1.3);
        let rate = load * servers as f64 / (sizes.mean() * service.mean());
        assert!(rate > 16.0, "case {case}: rate {rate} makes small batches");
        let j = rng.random_range(2..=5);
        let keys = if case % 2 == 1 {
            format!("J = {j}\nstall = 0.7")
        } else {
            format!("J = {j}")
        };
        let inst = Instance {
            servers,
            sizes,
            service,
            rate,
            seed: rng.random(),
        };
        same_as_plain("vqs-bf", &keys, &inst);
    }
}
