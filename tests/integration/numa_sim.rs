//! NUMA nodes in the slotted simulator: strict jobs (inside one node) and splittable ones,
//! BF-J/S and FIFO with the three layers. Per-node bookkeeping holds after every slot, strict
//! jobs are never split, one node per server changes nothing, and a scheduler without
//! cluster-level awareness is refused where the hand computation says.

use packlab::model::Size;
use packlab::multi::NumaTally;
use packlab::multi::{
    Attempt, Discipline, Marked, ScalarAsVector, ScoredPolicy, Strict, VJob, VectorCluster,
    VectorJobSource, VectorSystem,
};
use packlab::packing::numa::{Layer, Numa, NumaLayout};
use packlab::packing::place::Scorer;
use packlab::sim::{self, RunConfig};
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const LAYERS: [Layer; 3] = [Layer::Default, Layer::Machine, Layer::Cluster];

fn cfg(slots: u64, check: bool) -> RunConfig {
    crate::util::run_cfg(slots, check)
}

fn numa(k: usize, layer: Layer) -> Numa {
    Numa {
        layout: NumaLayout::equal(k),
        layer,
    }
}

fn system(
    servers: usize,
    dims: usize,
    scorer: Scorer,
    d: Discipline,
    n: Option<&Numa>,
) -> VectorSystem {
    let mut c = VectorCluster::new(servers, dims, scorer, 5, 10.0);
    if let Some(n) = n {
        c = c.with_numa(n);
    }
    VectorSystem::new(c, ScoredPolicy::new(d))
}

#[test]
fn node_bookkeeping_holds_every_slot_and_strict_jobs_are_never_split() {
    let mut rng = Pcg64Mcg::seed_from_u64(16);
    let requests: Vec<[u64; 3]> = (0..150)
        .map(|_| {
            // every request fits a node of 1/3, so strict jobs can always run somewhere
            let cpu = rng.random_range(1..=Size::UNIT * 3 / 10);
            let mem = rng.random_range(0..=Size::UNIT * 3 / 10);
            [cpu, mem, 0]
        })
        .collect();
    let service = ServiceLaw::geometric(10.0);
    for (case, name) in ["bestfit-v1", "epvm", "firstfit-v1", "sos-v2", "random"]
        .iter()
        .enumerate()
    {
        let scorer = Scorer::from_name(name).unwrap();
        for d in [Discipline::BestFitJS, Discipline::Fifo] {
            for layer in LAYERS {
                for k in [2, 3] {
                    let arrivals = Arrivals::new(ArrivalProcess::Poisson, 1.0).unwrap();
                    let src = VectorJobSource::new(requests.clone(), service.clone(), arrivals, 9);
                    let mut src = Marked::new(src, Strict::new(0.5, case as u64));
                    let n = numa(k, layer);
                    let mut s = system(6, 2, scorer, d, Some(&n));
                    let r = sim::run_system(&mut s, &mut src, &cfg(3_000, true)).unwrap();
                    let t = r.tally::<NumaTally>().expect("NUMA tallies").1;
                    assert!(
                        r.arrived > 2500 && t.placed > 1000,
                        "{name} {d:?} {layer:?}"
                    );
                    assert!(t.strict > t.placed / 4 && t.strict < t.placed * 3 / 4);
                    assert!(t.fit >= t.strict, "every strict job is NUMA-fit");
                    if layer == Layer::Cluster {
                        assert_eq!(t.refused, 0, "cluster awareness is never refused");
                    }
                }
            }
        }
    }
}

#[test]
fn one_node_per_server_changes_nothing_run_for_run() {
    let law = SizeLaw::uniform(Size::from_f64(0.1).unwrap(), Size::from_f64(0.7).unwrap());
    let service = ServiceLaw::geometric(20.0);
    for (scorer, d) in [
        (Scorer::BestFit(1), Discipline::BestFitJS),
        (Scorer::Epvm, Discipline::BestFitJS),
        (Scorer::FirstFit, Discipline::Fifo),
    ] {
        let rate = 0.95 * 8.0 / (law.mean() * service.mean());
        let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
        let src = || JobSource::new(law.clone(), service.clone(), arrivals.clone(), 4);
        let mut plain = system(8, 1, scorer, d, None);
        let base = sim::run_system(
            &mut plain,
            &mut ScalarAsVector::new(src()),
            &cfg(40_000, false),
        )
        .unwrap();
        for layer in LAYERS {
            let n = numa(1, layer);
            let mut s = system(8, 1, scorer, d, Some(&n));
            let mut strict = Marked::new(ScalarAsVector::new(src()), Strict::new(1.0, 3));
            let mut r = sim::run_system(&mut s, &mut strict, &cfg(40_000, false)).unwrap();
            let t = r.tally::<NumaTally>().expect("tallies").1;
            assert_eq!(r.observed.len(), 1, "the NUMA tallies alone");
            r.observed.clear();
            assert_eq!(t.fit, t.placed);
            assert_eq!(t.refused, 0);
            assert_eq!(r, base, "{scorer:?} {d:?} {layer:?}");
        }
    }
}

fn job(id: u64, x: f64, strict: bool) -> VJob {
    VJob {
        id,
        req: [Size::from_f64(x).unwrap().0, 0, 0],
        service: 100,
        arrival: 0,
        strict,
        class: 0,
    }
}

#[test]
fn a_scheduler_blind_to_nodes_is_refused_where_the_hand_computation_says() {
    // two servers of two nodes of 1/2; server 0 holds 0.3 in each node (0.4 free in all, no
    // node holds another 0.3), server 1 is empty
    for layer in LAYERS {
        let n = numa(2, layer);
        let mut c = VectorCluster::new(2, 1, Scorer::FirstFit, 0, 100.0).with_numa(&n);
        for id in 0..2 {
            assert_eq!(c.try_place(&job(id, 0.3, true), 0), Attempt::Placed);
        }
        assert_eq!(
            c.numa_machines_free(0),
            vec![[Size::UNIT / 2 - Size::from_f64(0.3).unwrap().0, 0]; 2]
        );
        // a third strict 0.3: first fit by the totals picks server 0, whose nodes refuse it,
        // unless the scheduler looks at the nodes (machine + cluster), which picks server 1
        let third = job(2, 0.3, true);
        let aware = layer == Layer::Cluster;
        let expect = if aware {
            Attempt::Placed
        } else {
            Attempt::Refused
        };
        assert_eq!(c.try_place(&third, 0), expect, "{layer:?}");
        // a splittable 0.3: the blind layers put it on server 0, across its nodes; machine +
        // cluster prefers server 1, where a node holds it
        assert_eq!(c.try_place(&job(3, 0.3, false), 0), Attempt::Placed);
        let x = |v: f64| Size::from_f64(v).unwrap().0;
        if aware {
            assert_eq!(c.frees()[1][0], x(0.4));
            assert_eq!(c.frees()[0][0], x(0.4));
        } else {
            assert_eq!(c.frees()[0][0], x(0.1));
            assert_eq!(c.frees()[1][0], Size::UNIT);
        }
        let t = c.numa_tally().unwrap();
        assert_eq!(t.refused, u64::from(!aware));
        assert_eq!(t.placed, 3 + u64::from(aware));
        assert_eq!(
            t.fit,
            t.placed - u64::from(!aware),
            "only the blind layers split"
        );
        c.check().unwrap();
    }
}

#[test]
fn strict_jobs_go_to_the_first_node_by_default_and_the_best_node_when_aware() {
    // one server of two nodes; node 1 is left with less room than node 0 after 0.1 and 0.35
    for layer in LAYERS {
        let n = numa(2, layer);
        let mut c = VectorCluster::new(1, 1, Scorer::BestFit(1), 0, 100.0).with_numa(&n);
        // 0.45 strict: node 0 both ways (empty nodes, ties to the lower index)
        assert_eq!(c.try_place(&job(0, 0.45, true), 0), Attempt::Placed);
        // 0.05 strict: node 0 (0.05 left) is first and best
        assert_eq!(c.try_place(&job(1, 0.05, true), 0), Attempt::Placed);
        // 0.1 strict: only node 1; then 0.2 strict: node 1 has 0.4
        assert_eq!(c.try_place(&job(2, 0.1, true), 0), Attempt::Placed);
        assert_eq!(
            c.numa_machines_free(0)[1][0],
            Size::from_f64(0.4).unwrap().0
        );
        c.check().unwrap();
    }
    // where the layers differ: 0.4 goes to node 0 and 0.3 to node 1, then the 0.4 leaves, so
    // node 0 has 0.5 free and node 1 0.2; a strict 0.15 goes to node 0 by default (the first
    // that holds it) and to node 1 when aware (the least room left)
    let x = |v: f64| Size::from_f64(v).unwrap().0;
    for (layer, node) in [
        (Layer::Default, 0),
        (Layer::Machine, 1),
        (Layer::Cluster, 1),
    ] {
        let n = numa(2, layer);
        let mut c = VectorCluster::new(1, 1, Scorer::BestFit(1), 0, 100.0).with_numa(&n);
        c.place(
            0,
            &VJob {
                service: 1,
                ..job(0, 0.4, true)
            },
            0,
        );
        c.place(0, &job(1, 0.3, true), 0);
        assert_eq!(c.numa_machines_free(0), vec![[x(0.1), 0], [x(0.2), 0]]);
        c.depart(1, &mut Vec::new());
        assert_eq!(c.numa_machines_free(0), vec![[x(0.5), 0], [x(0.2), 0]]);
        c.place(0, &job(2, 0.15, true), 1);
        let mut expect = vec![[x(0.5), 0], [x(0.2), 0]];
        expect[node][0] -= x(0.15);
        assert_eq!(c.numa_machines_free(0), expect, "{layer:?}");
        c.check().unwrap();
    }
}
