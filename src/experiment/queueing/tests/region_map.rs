//! Region maps in memory: the simulated boundary meets the exact one where the policy's region
//! is known exactly (VQS on one server of Fig. 3(a)'s workload uses only K_RED's two
//! configurations, so its region is K_RED's), policies on a ray share their random streams,
//! and bad `[region_map]` tables are refused by key.

use crate::experiment::queueing::{Experiment, execute};
use std::path::Path;

const MAP: &str = r#"
name = "map"
seed = 11
[cluster]
servers = 1
[workload]
sizes = { dist = "discrete", values = [0.45, 0.55], probs = [0.5, 0.5] }
service = { dist = "geometric", mean = 10.0 }
[run]
slots = 200_000
warmup = 20_000
replications = 3
queue_cap = 20_000
[[policy]]
name = "vqs"
J = 4
[[policy]]
name = "bf-js"
[region_map]
angles = [22.5, 45.0, 67.5]
resolution = 0.03
max_probes = 8
"#;

#[test]
fn vqs_s_intervals_hold_k_red_s_exact_boundary_on_every_ray() {
    let exp = Experiment::parse(Path::new("map.toml"), MAP).unwrap();
    let map = exp.region_map.as_ref().unwrap();
    let out = execute(&exp, None).unwrap();
    assert_eq!(out.map.len(), 6);
    for m in out.map.iter().filter(|m| m.policy == 0) {
        let ray = &map.rays[m.ray];
        // K_RED's region is 2/3 of the capacity at 45° (Proposition 2's tight case)
        let exact = ray.kred / ray.capacity;
        assert!(
            m.fractions.0 <= exact && exact <= m.fractions.1 && m.upper_shown,
            "{}°: VQS's [{:.4}, {:.4}] misses K_RED's {exact:.4}",
            ray.degrees,
            m.fractions.0,
            m.fractions.1
        );
        assert!(m.fractions.1 - m.fractions.0 <= 0.06 + 1e-9);
    }
    let at45 = map.ray_at(45.0).unwrap();
    assert!((map.rays[at45].kred / map.rays[at45].capacity - 2.0 / 3.0).abs() < 1e-9);
    // BF-J/S pairs a small with a large job: stable well above K_RED's 2/3 at 45°
    let bf = out
        .map
        .iter()
        .find(|m| m.policy == 1 && m.ray == at45)
        .unwrap();
    assert!(bf.fractions.0 > 0.8, "{:?}", bf.fractions);
}

/// A declared boundary is checked on every ray: VQS's limit is K_RED's boundary, BF-J/S's is
/// not (it pairs a small job with a large one, above K_RED's 2/3 at 45°); a boundary the map
/// does not compute is refused.
#[test]
fn a_declared_boundary_is_checked_on_every_ray() {
    let claims = "\n[[claim]]\nkind = \"region-boundary\"\npolicy = \"vqs\"\nboundary = \"kred\"\n\
                  [[claim]]\nkind = \"region-boundary\"\npolicy = \"bf-js\"\nboundary = \"kred\"\n";
    let exp = Experiment::parse(Path::new("map.toml"), &format!("{MAP}{claims}")).unwrap();
    let out = execute(&exp, None).unwrap();
    let vqs = &out.claims[0];
    assert!(vqs.holds, "{vqs:?}");
    assert_eq!(vqs.observed, "inside on 3 of 3 rays");
    let bf = &out.claims[1];
    assert!(!bf.holds, "{bf:?}");
    assert!(
        bf.evidence.contains("45°: 0.6667 outside ["),
        "{}",
        bf.evidence
    );
    for (boundary, said) in [
        ("\"restricted\"", "a boundary this map computes"),
        ("\"thirds\"", "one of the map's boundaries"),
    ] {
        let text = format!(
            "{MAP}\n[[claim]]\nkind = \"region-boundary\"\npolicy = \"vqs\"\nboundary = {boundary}\n"
        );
        let e = Experiment::parse(Path::new("map.toml"), &text).unwrap_err();
        assert!(e.to_string().contains(said), "{e}");
    }
}

#[test]
fn policies_on_a_ray_see_the_same_jobs() {
    // the same policy twice under two labels: identical searches, probe by probe
    let text = MAP.replace(
        "[[policy]]\nname = \"bf-js\"",
        "[[policy]]\nname = \"vqs\"\nJ = 4\nlabel = \"vqs-again\"",
    );
    let mut exp = Experiment::parse(Path::new("map.toml"), &text).unwrap();
    exp.run.replications = 1;
    let out = execute(&exp, None).unwrap();
    for ray in 0..3 {
        let a = out
            .map
            .iter()
            .find(|m| m.ray == ray && m.policy == 0)
            .unwrap();
        let b = out
            .map
            .iter()
            .find(|m| m.ray == ray && m.policy == 1)
            .unwrap();
        let (pa, pb) = (&a.search.limit.probes, &b.search.limit.probes);
        assert_eq!(pa.len(), pb.len());
        for (x, y) in pa.iter().zip(pb) {
            assert_eq!((x.load, x.counts, x.slots), (y.load, y.counts, y.slots));
        }
    }
}

#[test]
fn bad_maps_are_refused_by_key() {
    let cases = [
        ("rays = 0", "angles = [22.5, 45.0, 67.5]", "region_map.rays"),
        (
            "angles = []",
            "angles = [22.5, 45.0, 67.5]",
            "region_map.angles",
        ),
        (
            "angles = [10.0, 10.0]",
            "angles = [22.5, 45.0, 67.5]",
            "element #2 of key `region_map.angles`",
        ),
        (
            "angles = [30.0, 95.0]",
            "angles = [22.5, 45.0, 67.5]",
            "element #2 of key `region_map.angles`",
        ),
        (
            "angles = [-5.0]",
            "angles = [22.5, 45.0, 67.5]",
            "element #1 of key `region_map.angles`",
        ),
        (
            "rays = 4\nangles = [1.0]",
            "angles = [22.5, 45.0, 67.5]",
            "region_map.angles",
        ),
        (
            "values = [0.45, 0.55, 0.2], probs = [0.4, 0.4, 0.2]",
            "values = [0.45, 0.55], probs = [0.5, 0.5]",
            "workload.sizes",
        ),
        (
            "dist = \"uniform\", low = 0.1, high = 0.5",
            "dist = \"discrete\", values = [0.45, 0.55], probs = [0.5, 0.5]",
            "workload.sizes",
        ),
        (
            "policies = [\"max-weight\"]\n",
            "resolution = 0.03",
            "region_map.policies",
        ),
        ("J = 0", "resolution = 0.03", "region_map.J"),
        (
            "resolution = 1.5",
            "resolution = 0.03",
            "region_map.resolution",
        ),
        (
            "max_probes = 8\n[[claim]]\nkind = \"region-fraction\"\npolicy = \"vqs\"\nat_least = 0.5\nrays = [30.0]",
            "max_probes = 8",
            "key `rays` of [[claim]] #1",
        ),
        (
            "max_probes = 8\n[[claim]]\nkind = \"region-separated\"\norder = [\"vqs\", \"bf-js\", \"vqs\"]",
            "max_probes = 8",
            "key `order` of [[claim]] #1",
        ),
        (
            "max_probes = 8\n[compaction]\ntasks = 100",
            "max_probes = 8",
            "no [compaction] with [region_map]",
        ),
    ];
    for (with, instead, key) in cases {
        let text = MAP.replace(instead, with);
        assert_ne!(text, MAP, "{with}");
        let e = Experiment::parse(Path::new("map.toml"), &text)
            .err()
            .unwrap_or_else(|| panic!("{with}: accepted"))
            .to_string();
        assert!(e.contains(key), "{with}: {e}");
    }
    // a map claim without a map
    let text = MAP.replace("[region_map]", "[sweep]\nload = [0.5]\n[not_a_map]");
    assert!(Experiment::parse(Path::new("map.toml"), &text).is_err());
}

/// With NUMA nodes the limits are compared with the node-feasible capacity: below the
/// capacity without nodes where strict jobs of 0.3 waste a node's last 0.2, equal where two
/// jobs of 0.45 fill the two nodes.
#[test]
fn with_numa_nodes_the_rays_carry_the_node_feasible_capacity() {
    let text = r#"
name = "numa-map"
[cluster]
servers = 10
[workload]
sizes = { dist = "discrete", values = [0.3, 0.45], probs = [0.5, 0.5] }
service = { dist = "geometric", mean = 20.0 }
[numa]
nodes = 2
strict = 0.8
[run]
slots = 10_000
[[policy]]
name = "bf-js"
score = "bestfit-v1"
numa = "machine"
[region_map]
rays = 4
"#;
    let exp = Experiment::parse(Path::new("numa-map.toml"), text).unwrap();
    let map = exp.region_map.as_ref().unwrap();
    for r in &map.rays {
        let nodes = r.restricted.expect("with [numa]");
        assert!(nodes <= r.capacity + 1e-9, "{r:?}");
        assert_eq!(r.limit_capacity(), nodes);
        // ρ* of the search is the node-feasible one
        assert!((r.rho - nodes * r.mean_size(map.sizes)).abs() < 1e-9);
    }
    let (first, last) = (&map.rays[0], &map.rays[3]);
    assert!(first.restricted.unwrap() < first.capacity - 0.1);
    assert!((last.restricted.unwrap() - last.capacity).abs() < 1e-9);
}

/// Under placement constraints with classes drawn independently of sizes, every class's traffic
/// has the ray's mix, so the constrained capacity along a ray is the capacity without
/// constraints times Hall's ratio of the classes and server groups, min over sets S of classes
/// of σ(groups S may use) / P(S) (at most 1), the same on every ray: checked against the LP
/// over server groups on each ray, with the ratio computed by enumeration here.
#[test]
fn under_placement_constraints_the_rays_carry_the_constrained_capacity() {
    let text = r#"
name = "constrained-map"
seed = 4
[cluster]
servers = 20
[workload]
sizes = { dist = "discrete", values = [0.35, 0.3], probs = [0.5, 0.5] }
service = { dist = "geometric", mean = 10.0 }
[run]
slots = 10_000
[[policy]]
name = "bf-js"
score = "bestfit-v1"
[constraints]
vocabulary = ["tier = gold"]
compare_unconstrained = false
[constraints.values]
tier = ["gold", "silver"]
[[constraints.machines]]
share = 1.0
frequency = [0.3]
[[constraints.tasks]]
share = 0.4
frequency = [1]
[[constraints.tasks]]
share = 0.6
frequency = [0]
[region_map]
rays = 5
"#;
    let exp = Experiment::parse(Path::new("constrained-map.toml"), text).unwrap();
    let map = exp.region_map.as_ref().unwrap();
    let classes = &exp.constraints.as_ref().unwrap().truth.classes;
    let (group_of_kind, allowed) = classes.table.groups();
    let mut share = vec![0.0; allowed[0].len()];
    for &k in &classes.kind {
        share[group_of_kind[k as usize] as usize] += 1.0 / classes.kind.len() as f64;
    }
    let n = allowed.len();
    let mut hall: f64 = 1.0;
    for set in 1..1u32 << n {
        let p: f64 = (0..n)
            .filter(|a| set >> a & 1 == 1)
            .map(|a| classes.probability[a])
            .sum();
        let reach: f64 = (0..share.len())
            .filter(|&g| (0..n).any(|a| set >> a & 1 == 1 && allowed[a][g]))
            .map(|g| share[g])
            .sum();
        if p > 0.0 {
            hall = hall.min(reach / p);
        }
    }
    // the gold servers cannot take all the gold jobs at the unconstrained capacity
    assert!(hall < 0.95, "{hall}");
    for r in &map.rays {
        let c = r.restricted.expect("with [constraints]");
        assert!((c / r.capacity - hall).abs() < 1e-7, "{r:?}: ratio {hall}");
        assert_eq!(r.limit_capacity(), c);
        assert!((r.rho - c * r.mean_size(map.sizes)).abs() < 1e-9);
    }
}

/// A map of sizes 0.45 and 0.55 on one server with a third type, size 0.5, held at λ/μ = 0.2.
const HELD: &str = r#"
name = "held-map"
seed = 12
[cluster]
servers = 1
[workload]
sizes = { dist = "discrete", values = [0.45, 0.55, 0.5], probs = [0.4, 0.4, 0.2] }
service = { dist = "geometric", mean = 10.0 }
[run]
slots = 200_000
warmup = 20_000
replications = 3
queue_cap = 20_000
[[policy]]
name = "vqs"
J = 4
[region_map]
angles = [45.0]
resolution = 0.03
max_probes = 8
[[region_map.held]]
size = 0.5
rate = 0.2
"#;

/// The slice at the held rate, by hand at 45° (t/2 jobs of 0.45 and of 0.55, 0.2 of 0.5 per
/// mean service time; every size exceeds 1/3, so a server holds two jobs at most, and 0.55
/// pairs only with 0.45): the capacity region needs t/2 servers of (0.45, 0.55) and 0.1 of
/// (0.5, 0.5), so t/2 + 0.1 ≤ 1 and t* = 1.8; 1/2 and 2/3 of it, t/2 + 0.1 ≤ 1/2 and 2/3: 0.8
/// and 17/15. K_RED over X_4 rounds 0.45 and 0.5 up to 1/2 and 0.55 up to 1 ("two of the
/// middle class" or "one large"): (t/2 + 0.2)/2 + t/2 ≤ 1, t* = 1.2, 2/3 of the capacity.
/// Without the held type K_RED's would be 4/3, 0.74 of 1.8: VQS's interval, containing 2/3,
/// shows the runs carry the held type.
#[test]
fn a_held_type_slices_the_regions_and_rides_along_in_the_runs() {
    let exp = Experiment::parse(Path::new("held-map.toml"), HELD).unwrap();
    let map = exp.region_map.as_ref().unwrap();
    assert_eq!(map.held.len(), 1);
    let r = &map.rays[0];
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(r.capacity, 1.8), "{r:?}");
    assert!(close(r.kred, 1.2), "{r:?}");
    assert!(close(r.half().unwrap(), 0.8), "{r:?}");
    assert!(close(r.two_thirds().unwrap(), 17.0 / 15.0), "{r:?}");
    // the probes' law: the free types' traffic x with the held type on top
    let (atoms, total) = map.law_at(0, 1.0);
    assert!(close(total, 1.2));
    assert!(
        atoms
            .iter()
            .any(|a| a.0.as_f64() == 0.5 && close(a.1, 0.2 / 1.2))
    );
    let out = execute(&exp, None).unwrap();
    let m = &out.map[0];
    assert!(
        m.fractions.0 <= 2.0 / 3.0 && 2.0 / 3.0 <= m.fractions.1 && m.upper_shown,
        "VQS's [{:.4}, {:.4}] misses K_RED's 2/3",
        m.fractions.0,
        m.fractions.1
    );
    // bad held types, by key
    for (from, to, key) in [
        (
            "size = 0.5\n",
            "size = 0.3\n",
            "key `size` of [[region_map.held]] #1",
        ),
        (
            "rate = 0.2",
            "rate = 0",
            "key `rate` of [[region_map.held]] #1",
        ),
        ("rate = 0.2", "rate = 2.5", "region_map.held"),
    ] {
        let text = HELD.replace(from, to);
        let e = Experiment::parse(Path::new("held-map.toml"), &text).unwrap_err();
        assert!(e.to_string().contains(key), "{key}: {e}");
    }
}

/// A map of two request vectors, (0.6, 0.2) and (0.2, 0.6) of CPU and memory: a server holds
/// one of each at most ((1, 1) uses 0.8 of both; two of either need 1.2 of one resource), so
/// the capacity region per server is the unit square, vertices (0, 1), (1, 1), (1, 0), and
/// its boundary along a ray mixing the two in proportion (m₁, m₂) is 1 / max(m₁, m₂): checked
/// against the LP over the vectors' configurations and the polygon. The load counts the
/// bottleneck resource (0.4 of either at 45°). Best fit pairs the two: its interval reaches the
/// boundary on the diagonal.
#[test]
fn a_map_of_two_request_vectors_has_the_capacity_of_both_resources() {
    let dir = std::env::temp_dir().join(format!("packlab-vector-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("two.csv"),
        "kind,job,cpu,memory,disk,count\nmachine,,1,1,,1\ntask,1,0.6,0.2,,1\ntask,2,0.2,0.6,,1\n",
    )
    .unwrap();
    let text = r#"
name = "vector-map"
seed = 13
[cluster]
servers = 2
[workload]
sizes = { dist = "tasks", source = "csv", file = "two.csv" }
service = { dist = "geometric", mean = 10.0 }
[run]
slots = 100_000
warmup = 10_000
replications = 3
queue_cap = 5_000
[[policy]]
name = "bf-js"
score = "bestfit-v1"
[region_map]
angles = [0.0, 30.0, 45.0]
resolution = 0.03
max_probes = 7
"#;
    let path = dir.join("vector-map.toml");
    let exp = Experiment::parse(&path, text).unwrap();
    let map = exp.region_map.as_ref().unwrap();
    let (v, dims) = map.vectors.expect("a map of request vectors");
    assert_eq!(dims, 2);
    let polygon = crate::stability::plane::Polygon::of(
        &crate::stability::plane::vector_configurations(v, dims),
    );
    assert_eq!(polygon.vertices, vec![(0, 1), (1, 1), (1, 0)]);
    for r in &map.rays {
        let exact = 1.0 / r.mix.0.max(r.mix.1);
        assert!((r.capacity - exact).abs() < 1e-9, "{r:?}");
        assert!((polygon.along(r.mix.0, r.mix.1) - exact).abs() < 1e-9);
        assert!(r.kred.is_nan() && r.half().is_none());
    }
    let diagonal = &map.rays[2];
    assert!((diagonal.rho - 2.0 * 0.4).abs() < 1e-9, "{diagonal:?}");
    let out = execute(&exp, None).unwrap();
    let m = out.map.iter().find(|m| m.ray == 2).unwrap();
    assert!(m.fractions.0 >= 0.9, "{:?}", m.fractions);
    let _ = std::fs::remove_dir_all(&dir);
}
