//! Packing evaluators on real data with known answers (OR-Library, Falkenauer triplets) and on
//! the real Google 2011 snapshot.

use std::path::Path;

use packlab::packing::evaluate::{Scheduler, compact, hole_filling, utilization};
use packlab::packing::place::{JobOrder, Scorer, task_order};
use packlab::packing::sources::{read_google_snapshot, read_orlib, read_triplet};

fn ffd(snap: &packlab::packing::snapshot::Snapshot) -> Scheduler {
    Scheduler {
        order: task_order(snap, JobOrder::Sum),
        scorer: Scorer::FirstFit,
        numa: None,
    }
}

#[test]
fn binpack1_compaction_never_beats_the_optimum_and_ffd_is_within_its_bound() {
    let instances = read_orlib(Path::new("data/orlib/binpack1.txt")).unwrap();
    assert_eq!(instances.len(), 20);
    for inst in &instances {
        assert_eq!(inst.items.len(), 120);
        let snap = inst.snapshot();
        for scorer in [
            Scorer::FirstFit,
            Scorer::BestFit(1),
            Scorer::SumOfSquares(1),
        ] {
            let sched = Scheduler {
                order: task_order(&snap, JobOrder::Sum),
                scorer,
                numa: None,
            };
            // τ = 0: every item placed; μ = 1: the exact smallest prefix
            let c = compact(&snap, &sched, 0.0, 1, 3, 7);
            assert!(
                c.min >= inst.optimum,
                "{} {scorer:?}: {} bins < optimum {}",
                inst.name,
                c.min,
                inst.optimum
            );
            if scorer == Scorer::FirstFit {
                // first-fit decreasing: FFD(I) ≤ 11/9 OPT + 6/9
                assert!(
                    9 * c.max <= 11 * inst.optimum + 6,
                    "{}: FFD {} over 11/9·{} + 6/9",
                    inst.name,
                    c.max,
                    inst.optimum
                );
            }
        }
    }
}

#[test]
fn triplets_are_never_beaten_and_ffd_excess_is_reported() {
    let mut excess = Vec::new();
    for n in ["t120", "t249"] {
        for k in 0..20 {
            let path = format!("data/orlib/triplets/Falkenauer_{n}_{k:02}.txt");
            let inst = read_triplet(Path::new(&path)).unwrap();
            let want = if n == "t120" { 40 } else { 83 };
            assert_eq!(inst.optimum, want, "{path}");
            let c = compact(&inst.snapshot(), &ffd(&inst.snapshot()), 0.0, 1, 1, 1);
            assert!(
                c.min >= inst.optimum,
                "{path}: {} < {}",
                c.min,
                inst.optimum
            );
            excess.push(c.min - inst.optimum);
        }
    }
    // first-fit decreasing does badly here: it never finds the perfect triplets
    assert!(excess.iter().all(|&e| e >= 1), "excess {excess:?}");
    eprintln!("FFD excess on the 40 triplet instances: {excess:?}");
}

#[test]
fn compaction_shrinks_as_more_tasks_may_go_pending() {
    let inst = &read_orlib(Path::new("data/orlib/binpack1.txt")).unwrap()[0];
    let snap = inst.snapshot();
    let sched = ffd(&snap);
    let mut last = usize::MAX;
    for tau in [0.0, 0.01, 0.05, 0.1, 0.3] {
        let c = compact(&snap, &sched, tau, 1, 3, 3);
        assert!(c.p90 <= last, "τ = {tau}: {} > {last}", c.p90);
        last = c.p90;
    }
    assert!(
        last < inst.optimum,
        "with 30% pending allowed fewer bins suffice"
    );
}

#[test]
fn google_snapshot_hole_filling_and_utilisation() {
    let snap =
        read_google_snapshot(Path::new("data/google2011/task_events_t0_snapshot.csv.gz")).unwrap();
    assert_eq!(snap.tasks.len(), 33_302, "one line per task");
    assert_eq!(snap.machines.len(), 12_583);
    let sched = ffd(&snap);
    let machines: Vec<usize> = (0..snap.machines.len()).collect();
    let p = sched.pack(&snap, &machines, 1);
    // utilisation is the placed tasks' demand over capacity, whether or not some pend
    let u = utilization(&snap, &p);
    let cap = snap.capacity();
    let placed: Vec<usize> = (0..snap.tasks.len())
        .filter(|&i| p.assigned[i].is_some())
        .collect();
    assert_eq!(p.pending, snap.tasks.len() - placed.len());
    for d in 0..2 {
        let dem: u128 = placed
            .iter()
            .map(|&i| snap.tasks[i].request[d] as u128)
            .sum();
        assert!(dem <= cap[d], "over capacity in resource {d}");
        assert!((u[d] - dem as f64 / cap[d] as f64).abs() < 1e-9);
    }
    // hole filling with units of 1/64 … 1/2 of the median machine: ≤ 100 %, non-increasing
    let median = snap.median_machine();
    let mut last = [f64::INFINITY; 3];
    for k in [64u64, 32, 16, 8, 4, 2] {
        let unit = [median[0] / k, median[1] / k, 0];
        let h = hole_filling(&snap, &p, unit);
        for d in 0..2 {
            assert!(h[d] <= 1.0 + 1e-12, "over 100 %");
            assert!(h[d] >= u[d] - 1e-12);
            assert!(
                h[d] <= last[d] + 1e-12,
                "unit 1/{k}: {} > {}",
                h[d],
                last[d]
            );
        }
        last = h;
    }
}

fn google() -> packlab::packing::snapshot::Snapshot {
    read_google_snapshot(Path::new("data/google2011/task_events_t0_snapshot.csv.gz")).unwrap()
}

#[test]
fn inflation_at_factor_one_leaves_nothing_pending_and_grows_after() {
    use packlab::packing::evaluate::{Inflation, InflationOptions, inflation_sweep};
    let snap = google();
    for how in [Inflation::Horizontal, Inflation::Vertical] {
        for conforming in [false, true] {
            let r = inflation_sweep(
                &snap,
                JobOrder::Sum,
                Scorer::FirstFit,
                None,
                &[1.0, 1.5, 3.0],
                how,
                InflationOptions {
                    conforming_only: conforming,
                    picky: 0.6,
                    clip: true,
                },
                1,
            );
            assert_eq!(
                r[0].pending, 0,
                "{how:?} conforming={conforming}: pending at f = 1"
            );
            assert_eq!(r[0].tasks, snap.tasks.len());
            // more load never means less allocated, and at f = 3 the cluster overflows
            assert!(r[1].utilization[0] >= r[0].utilization[0]);
            assert!(
                r[2].pending > 0,
                "{how:?} conforming={conforming}: nothing pending at f = 3"
            );
        }
    }
}

#[test]
fn monte_carlo_inflation_stops_at_the_pending_threshold() {
    use packlab::packing::evaluate::{InflationOptions, monte_carlo_inflation};
    let snap = google();
    let opt = InflationOptions {
        conforming_only: true,
        picky: 0.6,
        clip: true,
    };
    let r = monte_carlo_inflation(&snap, JobOrder::Sum, Scorer::FirstFit, None, 0.01, opt, 3);
    assert!(r.pending as f64 >= 0.01 * r.tasks as f64);
    assert!(r.factor > 1.0);
    assert!(r.utilization[0] <= 1.0 && r.utilization[1] <= 1.0);
}

#[test]
fn expansion_ends_with_everything_placed_near_the_compacted_size() {
    use packlab::packing::evaluate::expansion;
    let snap = google();
    let sched = ffd(&snap);
    let c = compact(&snap, &sched, 0.0, 1, 3, 1);
    let e = expansion(&snap, JobOrder::Sum, Scorer::FirstFit, None, 0.01, 0.2, 1).machines;
    // expansion places everything; it cannot need fewer machines than compaction found
    // necessary by much (different random machine mixes), nor more than the whole cluster
    assert!(
        e as f64 >= 0.9 * c.min as f64,
        "expansion {e} vs compaction {}",
        c.min
    );
    assert!(e <= snap.machines.len(), "expansion {e}");
}

#[test]
fn alibaba_gpu_snapshot_loads_with_three_resources() {
    use packlab::packing::sources::read_alibaba_gpu;
    let snap = read_alibaba_gpu(
        Path::new("data/alibaba_gpu2023/openb_pod_list_default.csv.gz"),
        Path::new("data/alibaba_gpu2023/openb_node_list_all_node.csv.gz"),
    )
    .unwrap();
    assert_eq!(snap.tasks.len(), 8152);
    assert_eq!(snap.machines.len(), 1523);
    assert_eq!(snap.dims, 3);
    // some pods need GPUs, some nodes have none
    assert!(snap.tasks.iter().any(|t| t.request[2] > 0));
    assert!(snap.machines.iter().any(|m| m[2] == 0));
    // GPU nodes carry their GPU model as an attribute
    assert!(
        (0..snap.machines.len()).any(|m| snap.properties(m).iter().any(|(k, _)| k == "gpu_model"))
    );
    assert_eq!(
        snap.placement.as_ref().unwrap().kind.len(),
        snap.machines.len()
    );
    let sched = ffd(&snap);
    let all: Vec<usize> = (0..snap.machines.len()).collect();
    let p = sched.pack(&snap, &all, 1);
    let u = utilization(&snap, &p);
    assert!(u.iter().all(|x| (0.0..=1.0).contains(x)));
}

#[test]
fn readers_reject_malformed_input_with_file_and_line() {
    use packlab::packing::sources::read_snapshot_csv;
    let dir = std::env::temp_dir().join(format!("packlab-src-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = dir.join("ok.csv");
    std::fs::write(
        &ok,
        "# a test\nkind,job,cpu,memory,disk,count,attributes\nmachine,,1,1,,3,arch=x86;zone=a\ntask,70000000,0.5,0.25,,4,\ntask,9,0.1,0.1,,,\n",
    )
    .unwrap();
    let s = read_snapshot_csv(&ok).unwrap();
    assert_eq!((s.machines.len(), s.tasks.len(), s.dims), (3, 5, 2));
    assert_eq!(s.tasks[4].job, 1, "job ids are renumbered densely");
    assert_eq!(
        s.properties(2),
        &[("arch".into(), "x86".into()), ("zone".into(), "a".into())]
    );
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "kind,job,cpu,memory,disk,count\nmachine,,1,x,,1\n").unwrap();
    let e = read_snapshot_csv(&bad).unwrap_err().to_string();
    assert!(e.contains("bad.csv:2") && e.contains("`x`"), "{e}");
    let g = dir.join("trunc.csv.gz");
    let full = std::fs::read("data/google2011/task_events_t0_snapshot.csv.gz").unwrap();
    std::fs::write(&g, &full[..full.len() / 2]).unwrap();
    let e = read_google_snapshot(&g).unwrap_err().to_string();
    assert!(e.contains("trunc.csv.gz"), "{e}");
    let o = dir.join("orlib.txt");
    std::fs::write(&o, "1\n u1\n 150 3 1\n 20\n 200\n 30\n").unwrap();
    let e = read_orlib(&o).unwrap_err().to_string();
    assert!(
        e.contains("orlib.txt:5") && e.contains("above the capacity 150"),
        "{e}"
    );
}

#[test]
fn compaction_does_not_depend_on_the_thread_count() {
    let inst = &read_orlib(Path::new("data/orlib/binpack1.txt")).unwrap()[3];
    let snap = inst.snapshot();
    let sched = Scheduler {
        order: task_order(&snap, JobOrder::Arrival),
        scorer: Scorer::RandomFirstFit,
        numa: None,
    };
    let run = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(|| compact(&snap, &sched, 0.01, 1, 7, 9))
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn one_numa_node_expands_as_machines_without_nodes_run_for_run() {
    use packlab::packing::evaluate::expansion;
    use packlab::packing::numa::{Layer, Numa, NumaLayout};
    let snap = google();
    for scorer in [Scorer::BestFit(1), Scorer::Epvm, Scorer::FirstFit] {
        let plain = expansion(&snap, JobOrder::Arrival, scorer, None, 0.01, 0.2, 5);
        assert!(plain.numa.is_none());
        for layer in [Layer::Default, Layer::Machine, Layer::Cluster] {
            let numa = Numa {
                layout: NumaLayout::equal(1),
                layer,
            };
            let e = expansion(&snap, JobOrder::Arrival, scorer, Some(&numa), 0.01, 0.2, 5);
            assert_eq!(e.machines, plain.machines, "{scorer:?} {layer:?}");
            assert_eq!(e.cpu, plain.cpu);
            let c = e.numa.unwrap();
            assert_eq!(c.placed as usize, snap.tasks.len());
            assert_eq!(c.fit, c.placed, "one node: every task is NUMA-fit");
        }
        // two nodes: every task still placed, and awareness raises the NUMA-fit share
        let two = |layer| {
            let numa = Numa {
                layout: NumaLayout::equal(2),
                layer,
            };
            expansion(&snap, JobOrder::Arrival, scorer, Some(&numa), 0.01, 0.2, 5)
                .numa
                .unwrap()
        };
        let (d, m) = (two(Layer::Default), two(Layer::Machine));
        assert_eq!(d.placed as usize, snap.tasks.len());
        assert!(
            m.fit > d.fit,
            "{scorer:?}: machine {} vs default {}",
            m.fit,
            d.fit
        );
    }
}
