//! Maximum supportable workload with placement constraints (docs/theory.md section 11.2; beyond
//! Psychas & Ghaderi and Sharma et al.).
//!
//! Servers fall into groups (machine kinds that every job class treats alike), a share σ_g of
//! the L servers in group g; a job has size i and constraint class a with probability d_ia
//! (p_i·q_a when the two are independent), and a job of class a may run only on groups that
//! allow it. A server of any group holds any configuration k of sizes (capacity 1). The largest
//! c = λ/(μL) that can be supported is the linear programme
//!
//! ```text
//! max c  s.t.  c·d_ia ≤     Σ_{g allows a} y_{iag}           (every size i, class a)
//!              Σ_{a allowed on g} y_{iag} ≤ Σ_k x_{gk} k_i   (every group g, size i)
//!              Σ_k x_{gk} ≤ σ_g                              (every group g)
//!              x, y ≥ 0
//! ```
//!
//! x_{gk}: the share of servers in group g holding configuration k; y_{iag}: the rate of size-i
//! class-a jobs served on group g. Without constraints (one group allowing every class) it is
//! [`super::region::max_supportable`]'s programme. The configurations of the sizes are
//! enumerated ([`super::knapsack::enumerate`]), which bounds how many sizes it takes.

use microlp::{ComparisonOp, OptimizationDirection, Problem};

use super::knapsack;
use super::region::RegionError;
use crate::model::Size;

/// Configurations enumerated at most.
pub(crate) const MAX_CONFIGURATIONS: usize = 20_000;

/// The constrained workload: sizes, the probability of each (size, class), which class may
/// use which group, and each group's share of the servers.
#[derive(Clone, Debug)]
pub(crate) struct ConstrainedWorkload<'a> {
    /// The job sizes.
    pub(crate) sizes: &'a [Size],
    /// `demand[i][a]`: the probability that a job has size i and class a.
    pub(crate) demand: &'a [Vec<f64>],
    /// `allowed[a][g]`: may class a run on group g?
    pub(crate) allowed: &'a [Vec<bool>],
    /// σ_g, adding up to 1.
    pub(crate) group_shares: &'a [f64],
}

/// c per server (jobs per server per mean service time) of the constrained workload `w`.
///
/// Classes allowed on the same groups are one class to the programme (their demands add up),
/// so they are merged first: the programme's size is then bounded by the groups, not by the
/// number of constraint sets (thousands, for task clusters with many fractional constraints).
pub(crate) fn max_supportable_constrained(w: &ConstrainedWorkload<'_>) -> Result<f64, RegionError> {
    let mut rows: Vec<&Vec<bool>> = Vec::new();
    let mut index: std::collections::HashMap<&Vec<bool>, usize> = Default::default();
    let merged_of: Vec<usize> = w
        .allowed
        .iter()
        .map(|r| {
            *index.entry(r).or_insert_with(|| {
                rows.push(r);
                rows.len() - 1
            })
        })
        .collect();
    if rows.len() == w.allowed.len() || w.demand.iter().any(|d| d.len() != w.allowed.len()) {
        return solve(w);
    }
    let allowed: Vec<Vec<bool>> = rows.into_iter().cloned().collect();
    let demand: Vec<Vec<f64>> = w
        .demand
        .iter()
        .map(|d| {
            let mut m = vec![0.0; allowed.len()];
            for (a, &x) in d.iter().enumerate() {
                m[merged_of[a]] += x;
            }
            m
        })
        .collect();
    solve(&ConstrainedWorkload {
        sizes: w.sizes,
        demand: &demand,
        allowed: &allowed,
        group_shares: w.group_shares,
    })
}

/// The programme of `w` as it is.
fn solve(w: &ConstrainedWorkload<'_>) -> Result<f64, RegionError> {
    let (ns, na, ng) = (w.sizes.len(), w.allowed.len(), w.group_shares.len());
    if w.demand.len() != ns
        || w.demand.iter().any(|r| r.len() != na)
        || w.allowed.iter().any(|r| r.len() != ng)
    {
        return Err(RegionError::Input(
            "one demand per size and class, one eligibility per class and group".into(),
        ));
    }
    if w.sizes.iter().any(|s| s.0 == 0 || *s > Size::ONE) {
        return Err(RegionError::Input("sizes in (0, 1]".into()));
    }
    let configs = knapsack::enumerate(w.sizes, MAX_CONFIGURATIONS).ok_or_else(|| {
        RegionError::Input(format!(
            "more than {MAX_CONFIGURATIONS} configurations of these sizes"
        ))
    })?;
    let mut pr = Problem::new(OptimizationDirection::Maximize);
    let c = pr.add_var(1.0, (0.0, f64::INFINITY));
    let x: Vec<Vec<_>> = (0..ng)
        .map(|_| {
            configs
                .iter()
                .map(|_| pr.add_var(0.0, (0.0, f64::INFINITY)))
                .collect()
        })
        .collect();
    // y[i][a][g], only where class a may use group g
    let y: Vec<Vec<Vec<Option<_>>>> = (0..ns)
        .map(|_| {
            (0..na)
                .map(|a| {
                    (0..ng)
                        .map(|g| w.allowed[a][g].then(|| pr.add_var(0.0, (0.0, f64::INFINITY))))
                        .collect()
                })
                .collect()
        })
        .collect();
    for (demands, ys) in w.demand.iter().zip(&y) {
        for (&demand, ya) in demands.iter().zip(ys) {
            if demand <= 0.0 {
                continue;
            }
            let mut row = vec![(c, demand)];
            row.extend(ya.iter().flatten().map(|&v| (v, -1.0)));
            pr.add_constraint(row.as_slice(), ComparisonOp::Le, 0.0);
        }
    }
    for g in 0..ng {
        for i in 0..ns {
            let mut row: Vec<_> = (0..na)
                .filter_map(|a| y[i][a][g])
                .map(|v| (v, 1.0))
                .collect();
            for (k, &v) in configs.iter().zip(&x[g]) {
                if k[i] > 0 {
                    row.push((v, -(k[i] as f64)));
                }
            }
            pr.add_constraint(row.as_slice(), ComparisonOp::Le, 0.0);
        }
        let all: Vec<_> = x[g].iter().map(|&v| (v, 1.0)).collect();
        pr.add_constraint(all.as_slice(), ComparisonOp::Le, w.group_shares[g]);
    }
    let sol = pr
        .solve()
        .map_err(|e| RegionError::Lp(e.to_string()))?
        .into_solution()
        .map_err(|_| RegionError::Lp("interrupted".into()))?;
    Ok(sol.var_value(c))
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

    /// Brute force on a tiny cluster with two job types (size, class) of positive demand:
    /// every joint choice of a configuration per server and of a class per slot of it, summed
    /// into a vector of jobs per type; c is the largest with c·d in the downward closure of
    /// their convex hull, which in two dimensions is reached on a segment between two of
    /// them: max over pairs and θ ∈ {0, 1, crossing} of min_t (θ u_t + (1−θ) v_t) / d_t.
    fn brute(
        sizes: &[Size],
        types: &[(usize, usize, f64)],
        allowed: &[Vec<bool>],
        group_of_server: &[usize],
    ) -> f64 {
        assert_eq!(types.len(), 2);
        let configs = knapsack::enumerate(sizes, 1000).unwrap();
        // per server, every vector it can serve
        let per_server: Vec<Vec<[f64; 2]>> = group_of_server
            .iter()
            .map(|&g| {
                let mut out = Vec::new();
                for k in &configs {
                    // each size's slots go to the types of that size the group allows (a
                    // type not allowed gets none; slots may stay empty)
                    let mut vs = vec![[0.0f64; 2]];
                    for (i, &n) in k.iter().enumerate() {
                        let mine: Vec<usize> = (0..2)
                            .filter(|&t| types[t].0 == i && allowed[types[t].1][g])
                            .collect();
                        let mut next = Vec::new();
                        for v in &vs {
                            match mine[..] {
                                [] => next.push(*v),
                                [t] => next.push({
                                    let mut w = *v;
                                    w[t] += n as f64;
                                    w
                                }),
                                _ => {
                                    for m in 0..=n {
                                        let mut w = *v;
                                        w[mine[0]] += m as f64;
                                        w[mine[1]] += (n - m) as f64;
                                        next.push(w);
                                    }
                                }
                            }
                        }
                        vs = next;
                    }
                    out.extend(vs);
                }
                out
            })
            .collect();
        let mut totals = vec![[0.0f64; 2]];
        for options in &per_server {
            let mut next = Vec::new();
            for t in &totals {
                for o in options {
                    next.push([t[0] + o[0], t[1] + o[1]]);
                }
            }
            next.sort_by(|a, b| a.partial_cmp(b).unwrap());
            next.dedup();
            totals = next;
        }
        let l = group_of_server.len() as f64;
        let d = [types[0].2, types[1].2];
        let value = |v: [f64; 2]| (v[0] / d[0]).min(v[1] / d[1]) / l;
        let mut best: f64 = 0.0;
        for u in &totals {
            for v in &totals {
                best = best.max(value(*u)).max(value(*v));
                // where θ u + (1 − θ) v gives equal ratios on both types
                let (a0, b0) = ((u[0] - v[0]) / d[0], v[0] / d[0]);
                let (a1, b1) = ((u[1] - v[1]) / d[1], v[1] / d[1]);
                if (a0 - a1).abs() > 1e-12 {
                    let th = (b1 - b0) / (a0 - a1);
                    if (0.0..=1.0).contains(&th) {
                        best = best.max(value([
                            th * u[0] + (1.0 - th) * v[0],
                            th * u[1] + (1.0 - th) * v[1],
                        ]));
                    }
                }
            }
        }
        best
    }

    #[test]
    fn a_constraint_on_few_servers_caps_the_workload_by_hand() {
        // sizes 1/2, two per server; half the jobs may use only group 1, a quarter of the
        // servers: c·(1/2) ≤ 2·(1/4), so c ≤ 1, against 2 without the constraint
        let sizes = [s(0.5)];
        let allowed = [vec![true, true], vec![false, true]];
        let w = ConstrainedWorkload {
            sizes: &sizes,
            demand: &[vec![0.5, 0.5]],
            allowed: &allowed,
            group_shares: &[0.75, 0.25],
        };
        let c = max_supportable_constrained(&w).unwrap();
        assert!((c - 1.0).abs() < 1e-7, "{c}");
        // u*_c = 0.5 / 0.25 = 2: c is the unconstrained 2 over u*
        let free = max_supportable(&sizes, &[1.0]).unwrap().per_server;
        assert!((free / 2.0 - c).abs() < 1e-7);
        // with the constrained class rarer, the constraint stops binding
        let w = ConstrainedWorkload {
            demand: &[vec![0.8, 0.2]],
            ..w
        };
        let c = max_supportable_constrained(&w).unwrap();
        assert!((c - 2.0).abs() < 1e-7, "{c}");
    }

    #[test]
    fn without_constraints_it_is_the_unconstrained_programme() {
        let sizes = [s(0.2), s(0.45)];
        let w = ConstrainedWorkload {
            sizes: &sizes,
            demand: &[vec![2.0 / 3.0], vec![1.0 / 3.0]],
            allowed: &[vec![true]],
            group_shares: &[1.0],
        };
        let c = max_supportable_constrained(&w).unwrap();
        assert!((c - 10.0 / 3.0).abs() < 1e-7, "{c}");
    }

    #[test]
    fn classes_allowed_on_the_same_groups_merge_without_changing_the_programme() {
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        for _ in 0..40 {
            let sizes = [s(0.3), s(0.45), s(0.2)];
            let ng = rng.random_range(1..4usize);
            let na = rng.random_range(2..7usize);
            // rows drawn from few patterns, so that several classes share one
            let patterns: Vec<Vec<bool>> = (0..2)
                .map(|_| {
                    let mut r: Vec<bool> = (0..ng).map(|_| rng.random_bool(0.6)).collect();
                    r[rng.random_range(0..ng)] = true;
                    r
                })
                .collect();
            let allowed: Vec<Vec<bool>> = (0..na)
                .map(|_| patterns[rng.random_range(0..2)].clone())
                .collect();
            let mut demand: Vec<Vec<f64>> = (0..sizes.len())
                .map(|_| (0..na).map(|_| rng.random::<f64>()).collect())
                .collect();
            let total: f64 = demand.iter().flatten().sum();
            demand.iter_mut().flatten().for_each(|d| *d /= total);
            let mut shares: Vec<f64> = (0..ng).map(|_| rng.random_range(0.1..1.0)).collect();
            let sum: f64 = shares.iter().sum();
            shares.iter_mut().for_each(|x| *x /= sum);
            let w = ConstrainedWorkload {
                sizes: &sizes,
                demand: &demand,
                allowed: &allowed,
                group_shares: &shares,
            };
            let (merged, whole) = (max_supportable_constrained(&w).unwrap(), solve(&w).unwrap());
            assert!(
                (merged - whole).abs() < 1e-9 * whole.max(1.0),
                "{merged} {whole}"
            );
        }
    }

    #[test]
    fn agrees_with_brute_force_on_tiny_clusters() {
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let grid = [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7];
        // class 0 may run anywhere, class 1 only on group 1
        let allowed = vec![vec![true, true], vec![false, true]];
        let mut binding = 0;
        for case in 0..60 {
            let servers = rng.random_range(2..=4);
            let group_of_server: Vec<usize> = (0..servers)
                .map(|i| usize::from(i == 0 || rng.random_bool(0.3)))
                .collect();
            let l = servers as f64;
            let shares: Vec<f64> = (0..2)
                .map(|g| group_of_server.iter().filter(|&&x| x == g).count() as f64 / l)
                .collect();
            let p = rng.random_range(0.1..0.9);
            // two types: either two sizes (the first constrained) or one size in both classes
            let (sizes, types) = if rng.random_bool(0.5) {
                let a = grid[rng.random_range(0..grid.len())];
                let b = grid[rng.random_range(0..grid.len())];
                let b = if a == b { 0.65 } else { b };
                (vec![s(a), s(b)], vec![(0, 1, p), (1, 0, 1.0 - p)])
            } else {
                let a = grid[rng.random_range(0..grid.len())];
                (vec![s(a)], vec![(0, 1, p), (0, 0, 1.0 - p)])
            };
            let mut demand = vec![vec![0.0; 2]; sizes.len()];
            for &(i, a, d) in &types {
                demand[i][a] += d;
            }
            let w = ConstrainedWorkload {
                sizes: &sizes,
                demand: &demand,
                allowed: &allowed,
                group_shares: &shares,
            };
            let c = max_supportable_constrained(&w).unwrap();
            let b = brute(&sizes, &types, &allowed, &group_of_server);
            assert!(
                (c - b).abs() < 1e-6,
                "case {case}: sizes {sizes:?} types {types:?} groups {group_of_server:?}: lp {c} brute {b}"
            );
            let probs: Vec<f64> = demand.iter().map(|r| r.iter().sum()).collect();
            if c < max_supportable(&sizes, &probs).unwrap().per_server - 1e-6 {
                binding += 1;
            }
        }
        // the cases exercise the constraint, not only the sizes
        assert!(
            binding >= 10,
            "the constraint binds in {binding} cases only"
        );
    }
}
