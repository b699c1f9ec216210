//! The committed limit searches whose limit is known exactly contain it: VQS at 4μ/3 on one
//! server (`experiments/limit_exact_vqs.toml`), FIFO-FF at the saturated throughput of its exact
//! chain (`limit_exact_fifo.toml`), and an M/Geo/2 queue at ρ* (`limit_exact_mgeo2.toml`).

use std::path::Path;

/// The rows of `figures/NAME/thresholds.csv`: (policy, lower, upper) in loads.
fn intervals(name: &str) -> Vec<(String, f64, f64)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("figures")
        .join(name)
        .join("thresholds.csv");
    let mut reader = csv::Reader::from_path(&path).unwrap();
    let h = reader.headers().unwrap().clone();
    let col = |k: &str| h.iter().position(|x| x == k).unwrap();
    let (p, lo, hi) = (col("policy"), col("lower"), col("upper"));
    reader
        .records()
        .map(Result::unwrap)
        .map(|r| {
            (
                r[p].to_string(),
                r[lo].parse().unwrap(),
                r[hi].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_search_on_a_known_limit_contains_it() {
    // FIFO-FF on two servers with sizes 0.6 and 0.3 saturates at 0.340806 jobs per slot (the
    // exact chain: `stability::exact::saturated_fifo_throughput`, checked against simulation in
    // `stability::saturation`'s tests), a load of λ·E[S]·E[R]/L
    let fifo = 0.340806 * 10.0 * 0.45 / 2.0;
    for (name, limit, policies) in [
        ("limit_exact_vqs", 2.0 / 3.0, 1),
        ("limit_exact_fifo", fifo, 1),
        ("limit_exact_mgeo2", 1.0, 2),
    ] {
        let rows = intervals(name);
        assert_eq!(rows.len(), policies, "{name}");
        for (policy, lo, hi) in rows {
            assert!(
                lo <= limit && limit <= hi,
                "{name}: {policy}'s [{lo}, {hi}] misses the limit {limit:.5}"
            );
            // the search's resolution, 1 % of ρ*
            assert!(hi - lo <= 0.01, "{name}: {policy}'s [{lo}, {hi}]");
        }
    }
}
