//! The maximum supportable workload when servers have NUMA nodes (beyond Wu et al. 2019, who
//! measure packing, not stability): a server of capacity 1 is divided into k nodes; a job type
//! is *strict* (it must run inside one node) or may split across nodes.
//!
//! A configuration (jobs per type on one server) is feasible when the strict jobs pack into the
//! nodes, each node's strict jobs within its capacity, and all jobs together fit in the server:
//! a job that may split takes whatever capacity is left on any nodes. The capacity region is
//! again the convex hull of the feasible configurations, so ρ* per server is the configuration
//! LP of [`super::region::restricted`] over them; the feasible configurations are enumerated
//! (finitely many for sizes bounded away from 0) and each checked by an exact search over node
//! assignments.
//!
//! With every type strict and k equal nodes, a server is k independent bins of 1/k: its per-
//! server capacity is k times that of a server of capacity 1 holding the sizes scaled by k,
//! which [`super::region::max_supportable`] computes by another route (row generation with a
//! knapsack oracle) — the tests check one against the other.

use super::knapsack::{Counts, enumerate};
use super::region::{Region, RegionError, restricted};
use crate::model::Size;

/// Configurations enumerated at most (beyond, the workload is refused).
pub(crate) const MAX_CONFIGURATIONS: usize = 200_000;

/// Do `items` (sizes, any order) pack into bins of capacities `nodes`? Exact depth-first search,
/// largest item first, skipping bins whose free capacity repeats one already tried.
pub(crate) fn pack_into(items: &[u64], nodes: &[u64]) -> bool {
    let mut items = items.to_vec();
    items.sort_unstable_by(|a, b| b.cmp(a));
    if items.iter().sum::<u64>() > nodes.iter().sum::<u64>() {
        return false;
    }
    fn go(items: &[u64], free: &mut [u64]) -> bool {
        let Some((&x, rest)) = items.split_first() else {
            return true;
        };
        for n in 0..free.len() {
            if free[n] < x || free[..n].contains(&free[n]) {
                continue;
            }
            free[n] -= x;
            let ok = go(rest, free);
            free[n] += x;
            if ok {
                return true;
            }
        }
        false
    }
    let mut free = nodes.to_vec();
    go(&items, &mut free)
}

/// Is configuration `k` feasible on a server with nodes `nodes` (capacities adding up to one
/// server), `strict[i]` saying whether type i must run inside one node?
pub(crate) fn feasible(sizes: &[Size], strict: &[bool], nodes: &[u64], k: &[u32]) -> bool {
    let total: u128 = sizes
        .iter()
        .zip(k)
        .map(|(s, &n)| s.0 as u128 * n as u128)
        .sum();
    if total > Size::UNIT as u128 {
        return false;
    }
    let items: Vec<u64> = (0..sizes.len())
        .filter(|&i| strict[i])
        .flat_map(|i| std::iter::repeat_n(sizes[i].0, k[i] as usize))
        .collect();
    pack_into(&items, nodes)
}

/// Every feasible configuration on a server with `nodes` (see [`feasible`]).
pub(crate) fn configurations(
    sizes: &[Size],
    strict: &[bool],
    nodes: &[u64],
) -> Result<Vec<Counts>, RegionError> {
    let all = enumerate(sizes, MAX_CONFIGURATIONS).ok_or_else(|| {
        RegionError::Input(format!(
            "more than {MAX_CONFIGURATIONS} configurations (sizes too small to enumerate)"
        ))
    })?;
    Ok(all
        .into_iter()
        .filter(|k| feasible(sizes, strict, nodes, k))
        .collect())
}

#[cfg(test)]
/// k equal nodes of a server of capacity 1 (the remainder of the division on the first nodes).
pub(crate) fn equal_nodes(k: usize) -> Vec<u64> {
    let (q, r) = (Size::UNIT / k as u64, Size::UNIT % k as u64);
    (0..k as u64).map(|i| q + u64::from(i < r)).collect()
}

/// ρ per server (jobs per server per mean service time) of types `sizes` with probabilities
/// `probs`, strict or not, on servers with `nodes`.
pub(crate) fn max_supportable_numa(
    sizes: &[Size],
    probs: &[f64],
    strict: &[bool],
    nodes: &[u64],
) -> Result<Region, RegionError> {
    if strict.len() != sizes.len() {
        return Err(RegionError::Input("one strictness flag per size".into()));
    }
    if nodes.iter().sum::<u64>() != Size::UNIT || nodes.contains(&0) {
        return Err(RegionError::Input(
            "positive node capacities adding up to one server".into(),
        ));
    }
    let total: f64 = probs.iter().sum();
    let probs: Vec<f64> = probs.iter().map(|p| p / total).collect();
    restricted(&configurations(sizes, strict, nodes)?, &probs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::configurations::region::max_supportable;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    fn s(x: f64) -> Size {
        Size::from_f64(x).unwrap()
    }

    #[test]
    fn hand_computed_cases() {
        let two = equal_nodes(2);
        // 0.3: oblivious three per server, strict one per node (0.6 > 0.5), so two
        for (strict, want) in [(false, 3.0), (true, 2.0)] {
            let r = max_supportable_numa(&[s(0.3)], &[1.0], &[strict], &two).unwrap();
            assert!(
                (r.per_server - want).abs() < 1e-7,
                "{strict}: {}",
                r.per_server
            );
        }
        // 0.55 strict fits no node of 1/2: nothing is supportable
        let r = max_supportable_numa(&[s(0.55)], &[1.0], &[true], &two).unwrap();
        assert!(r.per_server.abs() < 1e-9);
        // mixed: 0.3 strict (at most one per node: 0.6 > 0.5) and 0.4 free to split, equally
        // likely. The maximal configurations are (2, 1), filling the server (one 0.3 per node,
        // the 0.4 split over the two 0.2 holes), and (0, 2). Serving p = (1/2, 1/2) at rate c
        // needs c/2 ≤ 2a and c/2 ≤ a + 2(1 − a) for a share a of (2, 1): a = 2/3, c = 8/3.
        let r = max_supportable_numa(&[s(0.3), s(0.4)], &[0.5, 0.5], &[true, false], &two).unwrap();
        assert!((r.per_server - 8.0 / 3.0).abs() < 1e-7, "{}", r.per_server);
        // both strict: a node holds one job at most (0.3 + 0.4 > 0.5): two per server
        let r = max_supportable_numa(&[s(0.3), s(0.4)], &[0.5, 0.5], &[true, true], &two).unwrap();
        assert!((r.per_server - 2.0).abs() < 1e-7, "{}", r.per_server);
        // neither: three 0.3 fit too, so at least 8/3
        let free = max_supportable(&[s(0.3), s(0.4)], &[0.5, 0.5]).unwrap();
        assert!(free.per_server >= 8.0 / 3.0 - 1e-9);
    }

    #[test]
    fn strict_equals_k_bins_of_one_kth_by_another_route() {
        // brute force against row generation: per server, k times the capacity of one node,
        // computed as a unit server holding the sizes scaled by k
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        for _ in 0..40 {
            let k = rng.random_range(2..=3usize);
            let n = rng.random_range(1..=3usize);
            let grid = 60u64;
            let sizes: Vec<Size> = (0..n)
                .map(|_| Size(Size::UNIT / grid * rng.random_range(3..=grid / k as u64)))
                .collect();
            let probs: Vec<f64> = (0..n).map(|_| rng.random_range(0.1..1.0)).collect();
            let sum: f64 = probs.iter().sum();
            let probs: Vec<f64> = probs.iter().map(|p| p / sum).collect();
            let strict = vec![true; n];
            let numa = max_supportable_numa(&sizes, &probs, &strict, &equal_nodes(k)).unwrap();
            let scaled: Vec<Size> = sizes.iter().map(|x| Size(x.0 * k as u64)).collect();
            let node = max_supportable(&scaled, &probs).unwrap();
            assert!(
                (numa.per_server - k as f64 * node.per_server).abs() < 1e-6,
                "k={k} {sizes:?}: {} vs {}",
                numa.per_server,
                k as f64 * node.per_server
            );
        }
    }

    #[test]
    fn oblivious_equals_the_unit_server_and_strict_never_exceeds_it() {
        let mut rng = Pcg64Mcg::seed_from_u64(10);
        for _ in 0..40 {
            let n = rng.random_range(1..=3usize);
            let sizes: Vec<Size> = (0..n)
                .map(|_| Size(Size::UNIT / 50 * rng.random_range(4..=40)))
                .collect();
            let probs: Vec<f64> = (0..n).map(|_| rng.random_range(0.1..1.0)).collect();
            let sum: f64 = probs.iter().sum();
            let probs: Vec<f64> = probs.iter().map(|p| p / sum).collect();
            let unit = max_supportable(&sizes, &probs).unwrap().per_server;
            let free = max_supportable_numa(&sizes, &probs, &vec![false; n], &equal_nodes(2))
                .unwrap()
                .per_server;
            assert!((free - unit).abs() < 1e-6);
            let strict: Vec<bool> = (0..n).map(|_| rng.random_bool(0.5)).collect();
            let mixed = max_supportable_numa(&sizes, &probs, &strict, &equal_nodes(2))
                .unwrap()
                .per_server;
            let all = max_supportable_numa(&sizes, &probs, &vec![true; n], &equal_nodes(2))
                .unwrap()
                .per_server;
            assert!(
                mixed <= unit + 1e-9 && all <= mixed + 1e-9,
                "{all} {mixed} {unit}"
            );
        }
    }

    #[test]
    fn packing_into_nodes_is_exact() {
        let u = Size::UNIT / 10;
        assert!(pack_into(&[3 * u, 2 * u, 3 * u, 2 * u], &[5 * u, 5 * u]));
        assert!(!pack_into(&[3 * u, 3 * u, 3 * u], &[5 * u, 5 * u]));
        assert!(pack_into(&[], &[u]));
        assert!(!pack_into(&[4 * u, 4 * u, 2 * u], &[5 * u, 5 * u]));
    }
}
