//! Maximum supportable workload (docs/theory.md section 2; Psychas & Ghaderi, Section III).
//!
//! For finitely many types with sizes s_i and probabilities p_i, on one server, the largest c
//! with c·p ∈ conv(K) (K = feasible configurations, 0 included) is the linear programme
//!
//! ```text
//! max c   s.t.   c·p_i ≤ Σ_k x_k k_i  (every type i),   Σ_k x_k ≤ 1,   x ≥ 0.
//! ```
//!
//! With L servers and service rate μ, λ is supportable iff λ/μ < L·c: the maximum arrival rate
//! is λ* = c·L·μ and the maximum traffic intensity ρ* = λ* E\[R\] / (μ L) = c·E\[R\].
//!
//! K is never enumerated. We solve the dual, min z s.t. ⟨y, k⟩ ≤ z for every k ∈ K,
//! ⟨y, p⟩ = 1, y ≥ 0, by row generation: the separation oracle is the max-weight (knapsack)
//! configuration for weights y ([`super::knapsack::max_weight`]); a violated row is added and
//! the LP re-solved from its previous basis. The configuration mix is read from the primal
//! restricted to the generated configurations, which has the same optimum.
//!
//! Two things make the row generation converge in fewer re-solves, without changing what it
//! converges to:
//! - **Greedy rows to start.** Besides the homogeneous configurations, one row per type: the
//!   type once, then as many of each type as still fit, largest first. These are the packings a
//!   first-fit-decreasing heuristic makes, close to the rows an optimum uses (pairs x, 1 − x).
//! - **Smoothed pricing** (Wentges, "Weighted Dantzig–Wolfe decomposition for linear mixed-
//!   integer programming", International Transactions in Operational Research 4(2), 1997). Every
//!   oracle call at a normalised y bounds the optimum from above, c ≤ max_k ⟨y, k⟩, while z, the
//!   restricted programme's value, bounds it from below. The oracle is asked at the point between
//!   the best upper bound's y and the programme's own y (weight [`SMOOTHING`] on the former),
//!   which keeps the weights from swinging between re-solves. A row found there that the
//!   programme already satisfies is a mispricing: the next call is at the programme's own y.
//!
//! It stops when the best upper bound is within a relative 1e-9 of z, or when the oracle at the
//! programme's own y finds no violated row (the unsmoothed rule), and returns z.

use std::collections::HashSet;

use microlp::{ComparisonOp, OptimizationDirection, Problem};

use super::knapsack::{self, Counts};
use crate::model::Size;

/// The largest supportable workload of a finite-type system, per server.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Region {
    /// c: the largest λ/(μ L) that can be supported (jobs per server per mean service time).
    pub(crate) per_server: f64,
    /// An optimal mix of configurations: (configuration over the types, fraction of servers).
    pub(crate) mix: Vec<(Counts, f64)>,
}

/// The LP failed (a bug or a degenerate input).
#[derive(Debug, thiserror::Error)]
pub enum RegionError {
    /// The solver failed, with its message.
    #[error("linear programme failed: {0}")]
    Lp(String),
    /// The workload cannot be a programme's input (why).
    #[error("invalid workload: {0}")]
    Input(String),
}

fn lp<E: std::fmt::Display>(e: E) -> RegionError {
    RegionError::Lp(e.to_string())
}

fn check(sizes: &[Size], probs: &[f64]) -> Result<(), RegionError> {
    if sizes.len() != probs.len() || sizes.is_empty() {
        return Err(RegionError::Input("one probability per size".into()));
    }
    if probs.iter().any(|p| !p.is_finite() || *p < 0.0) || probs.iter().sum::<f64>() <= 0.0 {
        return Err(RegionError::Input(
            "probabilities ≥ 0 with a positive sum".into(),
        ));
    }
    Ok(())
}

/// The weight of the best upper bound's point in the smoothed pricing point (the rest on the
/// restricted programme's own weights).
const SMOOTHING: f64 = 0.8;

/// One configuration per type: that type once, then as many of each type as still fit,
/// largest size first (ties by index).
fn greedy_rows(sizes: &[Size]) -> Vec<Counts> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i].0));
    (0..sizes.len())
        .map(|i| {
            let mut k = vec![0u32; sizes.len()];
            k[i] = 1;
            let mut free = Size::UNIT - sizes[i].0;
            for &j in &order {
                let m = free / sizes[j].0;
                k[j] += m as u32;
                free -= m * sizes[j].0;
            }
            k
        })
        .collect()
}

/// ρ* per server over *all* feasible configurations of `sizes` (each in (0, 1]) with arrival
/// probabilities `probs`. Types of size 0 would fit without limit: the caller leaves them out.
pub(crate) fn max_supportable(sizes: &[Size], probs: &[f64]) -> Result<Region, RegionError> {
    max_supportable_until(sizes, probs, f64::INFINITY)
}

/// [`max_supportable`], or less as soon as the restricted programme's value reaches
/// `enough` (then `per_server` is that value, a lower bound on c that is at least `enough`,
/// and the mix supports it): for a caller that only needs to know c ≥ `enough`.
pub(crate) fn max_supportable_until(
    sizes: &[Size],
    probs: &[f64],
    enough: f64,
) -> Result<Region, RegionError> {
    check(sizes, probs)?;
    if sizes.iter().any(|s| s.0 == 0 || *s > Size::ONE) {
        return Err(RegionError::Input("sizes in (0, 1]".into()));
    }
    knapsack::tractable(sizes)
        .map_err(|got| RegionError::Input(format!("{}; got {got}", knapsack::TRACTABLE)))?;
    let n = sizes.len();
    // Dual: variables y_0..y_{n-1} ≥ 0 and z, minimise z.
    let mut dual = Problem::new(OptimizationDirection::Minimize);
    let y: Vec<_> = (0..n)
        .map(|_| dual.add_var(0.0, (0.0, f64::INFINITY)))
        .collect();
    let z = dual.add_var(1.0, (0.0, f64::INFINITY));
    let norm: Vec<_> = y.iter().zip(probs).map(|(&v, &p)| (v, p)).collect();
    dual.add_constraint(norm.as_slice(), ComparisonOp::Eq, 1.0);
    // Start with the homogeneous configurations (they bound the dual) and the greedy ones.
    let mut rows: Vec<Counts> = (0..n)
        .map(|i| {
            let mut k = vec![0; n];
            k[i] = (Size::UNIT / sizes[i].0) as u32;
            k
        })
        .collect();
    let mut seen: HashSet<Counts> = rows.iter().cloned().collect();
    for k in greedy_rows(sizes) {
        if seen.insert(k.clone()) {
            rows.push(k);
        }
    }
    let row = |k: &Counts| {
        let mut r: Vec<_> = y
            .iter()
            .zip(k)
            .filter(|(_, c)| **c > 0)
            .map(|(&v, &c)| (v, c as f64))
            .collect();
        r.push((z, -1.0));
        r
    };
    for k in &rows {
        dual.add_constraint(row(k).as_slice(), ComparisonOp::Le, 0.0);
    }
    let mut sol = dual
        .solve()
        .map_err(lp)?
        .into_solution()
        .map_err(|_| RegionError::Lp("interrupted".into()))?;
    let mut iterations = 0;
    // the normalised weights with the lowest upper bound so far, and that bound
    let mut best: Option<(Vec<f64>, f64)> = None;
    let mut smooth = true;
    let close = |w: f64, z: f64| w <= z * (1.0 + 1e-9) + 1e-12;
    loop {
        let weights: Vec<f64> = y.iter().map(|&v| sol.var_value(v).max(0.0)).collect();
        let zv = sol.var_value(z);
        if zv >= enough {
            break;
        }
        let at = match &best {
            Some((b, _)) if smooth => (b.iter().zip(&weights))
                .map(|(b, w)| SMOOTHING * b + (1.0 - SMOOTHING) * w)
                .collect(),
            _ => weights.clone(),
        };
        let (k, bound) = knapsack::max_weight(sizes, &at);
        if best.as_ref().is_none_or(|b| bound < b.1) {
            best = Some((at, bound));
        }
        if best.as_ref().is_some_and(|b| close(b.1, zv)) {
            break;
        }
        let w: f64 = k.iter().zip(&weights).map(|(&c, &v)| c as f64 * v).sum();
        if close(w, zv) || seen.contains(&k) {
            if !smooth {
                // the unsmoothed oracle finds nothing violated: optimal
                break;
            }
            smooth = false;
            continue;
        }
        smooth = true;
        iterations += 1;
        if iterations > 100_000 {
            return Err(RegionError::Lp("row generation did not converge".into()));
        }
        let r = row(&k);
        seen.insert(k.clone());
        rows.push(k);
        sol = sol
            .add_constraint(r.as_slice(), ComparisonOp::Le, 0.0)
            .map_err(lp)?
            .into_solution()
            .map_err(|_| RegionError::Lp("interrupted".into()))?;
    }
    let c = sol.var_value(z);
    let mix = primal_mix(&rows, probs)?;
    Ok(Region { per_server: c, mix })
}

/// The primal over an explicit list of configurations (given as counts over the classes):
/// max c s.t. c·p ≤ Σ x_k k, Σ x_k ≤ 1. Returns the mix with positive weights.
fn primal(configs: &[Counts], probs: &[f64]) -> Result<(f64, Vec<(Counts, f64)>), RegionError> {
    let n = probs.len();
    let mut pr = Problem::new(OptimizationDirection::Maximize);
    let c = pr.add_var(1.0, (0.0, f64::INFINITY));
    let x: Vec<_> = configs
        .iter()
        .map(|_| pr.add_var(0.0, (0.0, f64::INFINITY)))
        .collect();
    for i in 0..n {
        if probs[i] <= 0.0 {
            continue;
        }
        let mut r = vec![(c, probs[i])];
        for (k, &v) in configs.iter().zip(&x) {
            if k[i] > 0 {
                r.push((v, -(k[i] as f64)));
            }
        }
        pr.add_constraint(r.as_slice(), ComparisonOp::Le, 0.0);
    }
    let all: Vec<_> = x.iter().map(|&v| (v, 1.0)).collect();
    pr.add_constraint(all.as_slice(), ComparisonOp::Le, 1.0);
    let sol = pr
        .solve()
        .map_err(lp)?
        .into_solution()
        .map_err(|_| RegionError::Lp("interrupted".into()))?;
    let mix = configs
        .iter()
        .zip(&x)
        .map(|(k, &v)| (k.clone(), sol.var_value(v)))
        .filter(|(_, f)| *f > 1e-9)
        .collect();
    Ok((sol.var_value(c), mix))
}

fn primal_mix(configs: &[Counts], probs: &[f64]) -> Result<Vec<(Counts, f64)>, RegionError> {
    primal(configs, probs).map(|(_, m)| m)
}

/// ρ per server over an explicit configuration set (e.g. K_RED over the classes of a
/// partition), with class probabilities `probs`.
pub(crate) fn restricted(configs: &[Counts], probs: &[f64]) -> Result<Region, RegionError> {
    if configs.iter().any(|k| k.len() != probs.len()) {
        return Err(RegionError::Input("configurations over the classes".into()));
    }
    let (c, mix) = primal(configs, probs)?;
    Ok(Region { per_server: c, mix })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: f64) -> Size {
        Size::from_f64(x).unwrap()
    }

    #[test]
    fn one_size_supports_floor_of_its_inverse() {
        for (x, want) in [
            (1.0, 1.0),
            (0.5, 2.0),
            (0.34, 2.0),
            (0.3, 3.0),
            (0.2, 5.0),
            (0.07, 14.0),
        ] {
            let r = max_supportable(&[s(x)], &[1.0]).unwrap();
            assert!(
                (r.per_server - want).abs() < 1e-7,
                "size {x}: {}",
                r.per_server
            );
        }
    }

    #[test]
    fn fig3a_pair_supports_two_per_server() {
        // 0.45 and 0.55 equally likely: the pair fits, so c = 2 (λ < 2μ on one server).
        let r = max_supportable(&[s(0.45), s(0.55)], &[0.5, 0.5]).unwrap();
        assert!((r.per_server - 2.0).abs() < 1e-7, "{}", r.per_server);
        assert_eq!(r.mix.len(), 1);
        assert_eq!(r.mix[0].0, vec![1, 1]);
    }

    #[test]
    fn fig3b_supports_ten_thirds() {
        // a = 0.2 (2/3), b = 0.45 (1/3): alternate five a's and two b's: c = 10/3.
        let r = max_supportable(&[s(0.2), s(0.45)], &[2.0 / 3.0, 1.0 / 3.0]).unwrap();
        assert!((r.per_server - 10.0 / 3.0).abs() < 1e-7, "{}", r.per_server);
    }

    #[test]
    fn row_generation_reaches_the_programme_over_every_configuration() {
        // Greedy starting rows and smoothed pricing change the path, not the optimum: against
        // the primal over the enumerated configurations, on random sets of 2 to 7 sizes.
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..60 {
            let n = rng.random_range(2..=7);
            let sizes: Vec<Size> = (0..n)
                .map(|_| Size::ratio(rng.random_range(15..=100), 100))
                .collect();
            let probs: Vec<f64> = (0..n).map(|_| rng.random_range(0.05..1.0)).collect();
            let all = knapsack::enumerate(&sizes, 1 << 20).expect("few configurations");
            let (want, _) = primal(&all, &probs).unwrap();
            let got = max_supportable(&sizes, &probs).unwrap();
            assert!(
                (got.per_server - want).abs() <= 1e-9 * want,
                "sizes {sizes:?}, probs {probs:?}: row generation {} against {want}",
                got.per_server
            );
            let (mixed, _) = primal(
                &got.mix.iter().map(|m| m.0.clone()).collect::<Vec<_>>(),
                &probs,
            )
            .unwrap();
            assert!(
                (mixed - want).abs() <= 1e-9 * want,
                "its mix supports {mixed}"
            );
        }
    }

    #[test]
    fn restricted_set_of_fig3a() {
        // K_RED's two relevant configurations: 2 of the small class, 1 of the large one.
        let r = restricted(&[vec![2, 0], vec![0, 1]], &[0.5, 0.5]).unwrap();
        assert!((r.per_server - 4.0 / 3.0).abs() < 1e-7);
    }
}
