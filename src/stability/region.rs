//! Stability regions of workloads (docs/theory.md sections 2, 5, 6 and 12): the maximum
//! supportable traffic intensity ρ* of a finite-type workload, the region of a restricted
//! configuration set (K_RED over X_J, the dyadic set), and Theorem 1's bracket for any size
//! distribution.
//!
//! Units: `per_server` is c = λ*/(μ L), the largest number of jobs per server per mean service
//! time; the traffic intensity is ρ = c·E\[R\] (so ρ* ≤ 1), and the arrival rate λ* = c·L·μ.

use crate::configurations::knapsack::Counts;
use crate::configurations::region::{self, RegionError};
use crate::configurations::{Partition, ReducedSet};
use crate::model::Size;
use crate::workload::SizeLaw;

/// A supportable region's edge.
#[derive(Clone, Debug, PartialEq)]
pub struct Supportable {
    /// c = λ*/(μ L), jobs per server per mean service time.
    pub per_server: f64,
    /// ρ = c·E\[R\], traffic intensity.
    pub traffic: f64,
    /// Optimal configuration mix: (counts over the LP's types or classes, fraction of servers).
    pub mix: Vec<(Counts, f64)>,
}

impl Supportable {
    /// The largest arrival rate (jobs per slot) on `servers` servers with mean service
    /// `mean_service` slots.
    pub fn arrival_rate(&self, servers: usize, mean_service: f64) -> f64 {
        self.per_server * servers as f64 / mean_service
    }
}

fn mean(atoms: &[(Size, f64)]) -> f64 {
    atoms.iter().map(|(s, p)| s.as_f64() * p).sum::<f64>() / atoms.iter().map(|a| a.1).sum::<f64>()
}

/// ρ* of a finite-type workload (atoms: size, probability), over all feasible configurations.
pub fn rho_star(atoms: &[(Size, f64)]) -> Result<Supportable, RegionError> {
    let sizes: Vec<Size> = atoms.iter().map(|a| a.0).collect();
    let probs: Vec<f64> = atoms.iter().map(|a| a.1).collect();
    let r = region::max_supportable(&sizes, &probs)?;
    Ok(Supportable {
        per_server: r.per_server,
        traffic: r.per_server * mean(atoms),
        mix: r.mix,
    })
}

/// Class probabilities of `atoms` over the intervals of `p`.
fn class_probs(atoms: &[(Size, f64)], p: &Partition) -> Vec<f64> {
    let mut q = vec![0.0; p.len()];
    for &(s, pr) in atoms {
        q[p.index(s)] += pr;
    }
    q
}

/// K_RED's region over X_J for a finite-type workload (atoms: size, probability): the edge
/// VQS and VQS-BF are guaranteed (Psychas & Ghaderi, Section 5), in the units of
/// [`rho_star`]'s.
pub fn rho_kred(atoms: &[(Size, f64)], j: u32) -> Result<Supportable, RegionError> {
    rho_reduced(atoms, &Partition::universal(j), mean(atoms))
}

/// The dyadic set's region for a finite-type workload: homogeneous configurations of the sizes
/// rounded up to powers of two, down to 2^−J (the same region as every configuration of the
/// rounded sizes), in the units of [`rho_star`]'s.
pub fn rho_dyadic(atoms: &[(Size, f64)], j: u32) -> Result<Supportable, RegionError> {
    rho_reduced(atoms, &Partition::dyadic(j), mean(atoms))
}

/// The region guaranteed by the reduced configuration set of `p` with upper-rounded sizes:
/// K_RED on X_J (what VQS and VQS-BF are guaranteed), the homogeneous set on other partitions
/// (on the dyadic one, the same region as all configurations of the rounded sizes). The traffic
/// intensity uses `mean_size`, the workload's true E\[R\] (atoms may stand for whole intervals).
pub(crate) fn rho_reduced(
    atoms: &[(Size, f64)],
    p: &Partition,
    mean_size: f64,
) -> Result<Supportable, RegionError> {
    let k = ReducedSet::new(p);
    let configs: Vec<Counts> = k.iter().map(|c| c.dense(p.len())).collect();
    let r = region::restricted(&configs, &class_probs(atoms, p))?;
    Ok(Supportable {
        per_server: r.per_server,
        traffic: r.per_server * mean_size,
        mix: r.mix,
    })
}

/// The region of all feasible configurations of the sizes of `atoms` rounded up (`up`) or
/// down to their interval's ends in `p`. Rounded-down sizes of 0 take no room and constrain
/// nothing; if nothing is left, the region is unbounded (`per_server` = ∞).
pub(crate) fn rho_rounded(
    atoms: &[(Size, f64)],
    p: &Partition,
    up: bool,
    mean_size: f64,
) -> Result<Supportable, RegionError> {
    rho_rounded_until(atoms, p, up, mean_size, f64::INFINITY)
}

/// [`rho_rounded`], whose row generation may stop once the traffic intensity reaches
/// `enough` ([`region::max_supportable_until`]): then it is at least `enough`, not exact.
fn rho_rounded_until(
    atoms: &[(Size, f64)],
    p: &Partition,
    up: bool,
    mean_size: f64,
    enough: f64,
) -> Result<Supportable, RegionError> {
    let q = class_probs(atoms, p);
    let mut sizes = Vec::new();
    let mut probs = Vec::new();
    for (j, &pr) in q.iter().enumerate() {
        let s = if up { p.upper(j) } else { p.lower(j) };
        if pr > 0.0 && s > Size::ZERO {
            sizes.push(s);
            probs.push(pr);
        }
    }
    if sizes.is_empty() {
        return Ok(Supportable {
            per_server: f64::INFINITY,
            traffic: f64::INFINITY,
            mix: vec![],
        });
    }
    let enough_per_server = enough / mean_size;
    let r = region::max_supportable_until(&sizes, &probs, enough_per_server)?;
    let mut traffic = r.per_server * mean_size;
    if r.per_server >= enough_per_server {
        // stopped there (or beyond): at least `enough`, whatever the rounding of the product
        traffic = traffic.max(enough);
    }
    Ok(Supportable {
        per_server: r.per_server,
        traffic,
        mix: r.mix,
    })
}

/// One step of Theorem 1's bracket.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BracketStep {
    /// Number of equal-width intervals (k−1)/n < r ≤ k/n.
    pub intervals: usize,
    /// ρ_up(P) ≤ ρ* (sizes rounded up), traffic intensity.
    pub lower_bound: f64,
    /// ρ* ≤ ρ_low(P) (sizes rounded down), traffic intensity.
    pub upper_bound: f64,
}

impl BracketStep {
    /// Upper bound − lower bound.
    pub fn width(&self) -> f64 {
        self.upper_bound - self.lower_bound
    }
}

/// Whether `n` equal intervals have every cut k/n exact in fixed point: `n` divides
/// [`Size::UNIT`] = 3 · 2^30 · 5^6 (the numbers [`EXACT_GRIDS`] describes).
pub(crate) fn exact_grid(n: u64) -> bool {
    n > 0 && Size::UNIT.is_multiple_of(n)
}

/// The numbers of intervals [`exact_grid`] accepts, in words, for error messages.
pub(crate) const EXACT_GRIDS: &str =
    "of the form 2^a · 3^b · 5^c with b ≤ 1, c ≤ 6 (so every cut k/n is exact in fixed point)";

/// The equal-width partition of (0, 1] into n intervals, or an error if a cut k/n would not be
/// exact in fixed point ([`exact_grid`]).
pub(crate) fn grid_partition(n: usize) -> Result<Partition, RegionError> {
    if !exact_grid(n as u64) {
        return Err(RegionError::Input(format!(
            "{n} equal intervals: a number {EXACT_GRIDS}"
        )));
    }
    let cuts: Vec<Size> = (1..n).map(|k| Size::ratio(k as u64, n as u64)).collect();
    Ok(Partition::custom(&cuts).expect("distinct cuts in (0, 1)"))
}

/// The size law's mass on each interval of `p`, as pseudo-atoms at the intervals' upper ends
/// (only the interval matters to rounding).
pub(crate) fn interval_atoms(law: &SizeLaw, p: &Partition) -> Vec<(Size, f64)> {
    (0..p.len())
        .filter_map(|j| {
            let pr = law.cdf(p.upper(j)) - law.cdf(p.lower(j));
            (pr > 0.0).then_some((p.upper(j), pr))
        })
        .collect()
}

/// Theorem 1's bracket ρ_up(P_n) ≤ ρ* ≤ ρ_low(P_n) on equal-width partitions with
/// n = `start`, 2·start, 4·start, … intervals, until the bracket is narrower than `tolerance`
/// or n would exceed `max_intervals`. Refining by halving makes both ends monotone. Every n
/// must divide [`Size::UNIT`] (so every cut k/n is exact): a `start` of the form
/// 2^a · 3^b · 5^c with b ≤ 1, c ≤ 6 and n up to 2^30 · 3^b · 5^c; otherwise an error.
pub fn bracket(
    law: &SizeLaw,
    start: usize,
    max_intervals: usize,
    tolerance: f64,
) -> Result<Vec<BracketStep>, RegionError> {
    let mut out = Vec::new();
    let mut n = start.max(1);
    while n <= max_intervals {
        let step = bracket_step(law, n, f64::INFINITY)?;
        let done = step.width() < tolerance;
        out.push(step);
        if done {
            break;
        }
        n *= 2;
    }
    Ok(out)
}

/// Theorem 1's bracket on `n` equal intervals as ρ* is read (ρ* ≤ 1, so its upper end capped
/// at 1): the same ends as [`bracket`]`(law, n, n, 0.0)`, the upper one `min(1, ·)`, whose
/// programme stops once it reaches 1.
pub(crate) fn bracket_capped(law: &SizeLaw, n: usize) -> Result<BracketStep, RegionError> {
    let mut step = bracket_step(law, n.max(1), 1.0)?;
    step.upper_bound = step.upper_bound.min(1.0);
    Ok(step)
}

/// One step of the bracket on `n` equal intervals, the two ends' programmes side by side; the
/// upper end's may stop once it reaches `enough` ([`rho_rounded_until`]; ∞: exact).
fn bracket_step(law: &SizeLaw, n: usize, enough: f64) -> Result<BracketStep, RegionError> {
    let p = grid_partition(n)?;
    let atoms = interval_atoms(law, &p);
    let m = law.mean();
    let (up, low) = rayon::join(
        || rho_rounded(&atoms, &p, true, m),
        || rho_rounded_until(&atoms, &p, false, m, enough),
    );
    Ok(BracketStep {
        intervals: n,
        lower_bound: up?.traffic,
        upper_bound: low?.traffic,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: f64) -> Size {
        Size::from_f64(x).unwrap()
    }

    #[test]
    fn fig3a_ratio_is_two_thirds() {
        let atoms = [(s(0.45), 0.5), (s(0.55), 0.5)];
        let star = rho_star(&atoms).unwrap();
        let red = rho_reduced(&atoms, &Partition::universal(4), 0.5).unwrap();
        assert!((star.per_server - 2.0).abs() < 1e-7);
        assert!((red.per_server - 4.0 / 3.0).abs() < 1e-7);
        assert!((star.traffic - 1.0).abs() < 1e-7);
        // λ* on one server with μ = 0.1: 2μ = 0.2; K_RED: 4μ/3.
        assert!((star.arrival_rate(1, 10.0) - 0.2).abs() < 1e-8);
        assert!((red.arrival_rate(1, 10.0) - 0.4 / 3.0).abs() < 1e-8);
    }

    #[test]
    fn the_capped_bracket_is_the_bracket_with_its_upper_end_at_most_one() {
        // ρ_low above 1 (Unif[0.2, 0.6]) and below it (Unif[0.3, 0.45], ρ* ≈ 0.88)
        for (a, b) in [(0.2, 0.6), (0.3, 0.45)] {
            let law = SizeLaw::uniform(s(a), s(b));
            let full = bracket(&law, 64, 64, 0.0).unwrap().pop().unwrap();
            let capped = bracket_capped(&law, 64).unwrap();
            assert_eq!(capped.intervals, 64);
            assert_eq!(capped.lower_bound, full.lower_bound);
            assert_eq!(
                capped.upper_bound,
                full.upper_bound.min(1.0),
                "Unif[{a}, {b}]"
            );
        }
    }

    #[test]
    fn a_grid_off_the_fixed_point_unit_is_an_error_not_a_panic() {
        let law = SizeLaw::uniform(s(0.2), s(0.6));
        for n in [7, 9, 1152] {
            assert!(
                matches!(bracket(&law, n, n, 0.0), Err(RegionError::Input(_))),
                "{n}"
            );
            assert!(bracket_capped(&law, n).is_err(), "{n}");
        }
        assert!(bracket(&law, 10, 20, 0.0).is_ok());
    }

    #[test]
    fn bracket_of_a_single_size_collapses() {
        // All jobs of size 0.3: ρ* = 3 · 0.3 = 0.9; at n = 10 the size is a cut point.
        let law = SizeLaw::discrete(vec![s(0.3)], vec![1.0]).unwrap();
        let b = bracket(&law, 10, 10, 0.0).unwrap();
        assert!((b[0].lower_bound - 0.9).abs() < 1e-7, "{:?}", b);
        assert!(b[0].upper_bound >= 0.9 - 1e-7);
    }

    #[test]
    fn bracket_of_uniform_narrows_monotonically() {
        let law = SizeLaw::uniform(s(0.1), s(0.9));
        let b = bracket(&law, 8, 128, 0.0).unwrap();
        assert_eq!(b.len(), 5);
        for w in b.windows(2) {
            assert!(w[1].lower_bound >= w[0].lower_bound - 1e-7, "{b:?}");
            assert!(w[1].upper_bound <= w[0].upper_bound + 1e-7, "{b:?}");
        }
        for st in &b {
            assert!(st.lower_bound <= st.upper_bound + 1e-7);
        }
        assert!(b.last().unwrap().width() < b[0].width() / 4.0);
    }
}
