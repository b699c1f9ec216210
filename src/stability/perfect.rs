//! Perfect packings of uniform size laws (docs/theory.md section 2): when jobs of a uniform law
//! can fill servers exactly, ρ* = 1 without a bracket.
//!
//! A law packs perfectly when k of its jobs can be coupled to sum to exactly 1, or when it
//! splits into two parts that do so with k and with k + 1 jobs. Whether a law can be coupled k
//! at a time to a constant sum is *complete mixability*; the results used here are B. Wang and
//! R. Wang, "The complete mixability and convex minimization problems with monotone marginal
//! densities", Journal of Multivariate Analysis 102 (2011) 1344–1360 (a law with a monotone
//! density on its support \[a, b\] is k-completely mixable iff its mean lies in
//! \[a + (b − a)/k, b − (b − a)/k\]), and that a law symmetric about c is 2-completely mixable
//! with sum 2c.

use crate::model::Size;
use crate::workload::SizeLaw;

/// How a uniform size law fills servers exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PerfectPacking {
    /// Sizes symmetric about 1/2 on the fixed-point grid: pairs (x, 1 − x), exact on the grid.
    Pairs,
    /// The continuous law splits into a part filling servers k jobs at a time (its density
    /// rising) and a part filling them k + 1 at a time (its density falling).
    Mixed {
        /// Jobs per server in the first part; the second has `k + 1`.
        k: u64,
    },
}

impl PerfectPacking {
    /// The bracket on ρ* this packing proves, for a law of mean `mean` (a fraction of a server):
    /// exactly 1 for pairs on the grid. A mixed packing packs the continuous law on
    /// \[low, high + 1/UNIT\], which the grid law rounds down, so ρ* is at least
    /// E\[R\]/(E\[R\] + 1/(2 UNIT)) (1 − 3·10⁻¹⁴ for means near 0.3).
    pub(crate) fn rho_star(self, mean: f64) -> (f64, f64) {
        match self {
            PerfectPacking::Pairs => (1.0, 1.0),
            PerfectPacking::Mixed { .. } => {
                let half_step = 0.5 / Size::UNIT as f64;
                (mean / (mean + half_step), 1.0)
            }
        }
    }
}

/// How a size law fills servers exactly, if packlab can show that it does: a uniform law
/// ([`uniform`]); other laws are not examined.
pub(crate) fn of(law: &SizeLaw) -> Option<PerfectPacking> {
    match law {
        SizeLaw::Uniform { low, high } => uniform(*low, *high),
        _ => None,
    }
}

/// Whether the uniform law over the grid points of \[low, high\] packs servers perfectly, and
/// how.
///
/// Pairs when `low + high` is exactly one server. Otherwise the law is read as the rounding
/// down of the continuous uniform law on \[A, B\] = \[low, high + 1/UNIT\] (rounding down keeps
/// every exact fill feasible), whose mean μ lies in (1/(k + 1), 1/k) for k = ⌊1/μ⌋. A part of
/// mass p = k(k + 1)(1/k − μ) with mean 1/(k + 1) and a falling density, and the rest with mean
/// 1/k and a rising density, exist with the density between 0 and the law's own iff
/// A + p(B − A)/2 < 1/(k + 1) (the lowest mean a falling part of mass p can have is its mass
/// packed at the bottom; a strict inequality leaves both parts on all of \[A, B\]). Each part
/// is then completely mixable, k + 1 and k at a time, iff its mean lies in
/// \[A + (B − A)/j, B − (B − A)/j\] for its j. All comparisons are exact, in units of 1/UNIT.
///
/// The test is sufficient, not necessary: `None` means packlab falls back to Theorem 1's
/// bracket, not that ρ* < 1.
pub(crate) fn uniform(low: Size, high: Size) -> Option<PerfectPacking> {
    let u = Size::UNIT as i128;
    if low.0 == 0 || low.0 > high.0 {
        return None;
    }
    if low.0 + high.0 == Size::UNIT {
        return Some(PerfectPacking::Pairs);
    }
    let (a, b) = (low.0 as i128, high.0 as i128 + 1);
    if b > u {
        return None;
    }
    let (w, s) = (b - a, a + b); // μ = s / 2u
    let k = 2 * u / s;
    if k < 2 || k * s == 2 * u {
        // a mean above 1/2, or exactly 1/k (one tuple size, no mix): not covered here
        return None;
    }
    // p = P / 2u, P = (k + 1)(2u − k s)
    let p = (k + 1) * (2 * u - k * s);
    let falling_part_fits = 4 * u * a * (k + 1) + p * w * (k + 1) < 4 * u * u;
    let mixable = |j: i128| j * a + w <= u && u <= j * b - w;
    (falling_part_fits && mixable(k + 1) && mixable(k))
        .then_some(PerfectPacking::Mixed { k: k as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stability::region::bracket;

    fn s(x: f64) -> Size {
        Size::from_f64(x).unwrap()
    }

    #[test]
    fn which_uniform_laws_pack_perfectly() {
        assert_eq!(uniform(s(0.1), s(0.9)), Some(PerfectPacking::Pairs));
        assert_eq!(uniform(s(0.3), s(0.7)), Some(PerfectPacking::Pairs));
        // mean 0.3: triples (mass 0.6, mean 1/3) and quadruples (mass 0.4, mean 1/4)
        assert_eq!(
            uniform(s(0.1), s(0.5)),
            Some(PerfectPacking::Mixed { k: 3 })
        );
        // at most two jobs a server, and a job below 0.4 has no partner filling it exactly
        assert_eq!(uniform(s(0.35), s(0.6)), None);
        // mean above 1/2: k = 1 would be a job filling a server alone
        assert_eq!(uniform(s(0.2), s(0.9)), None);
    }

    /// The laws said to pack perfectly have 1 inside Theorem 1's bracket at every refinement,
    /// and their rounded-up laws pack perfectly too (the lower end is E[R]/E[R rounded up]);
    /// a law that does not has its bracket's upper end below 1.
    #[test]
    fn perfect_packings_agree_with_theorem_1() {
        for (lo, hi) in [(0.1, 0.5), (0.1, 0.9)] {
            let law = SizeLaw::uniform(s(lo), s(hi));
            for st in bracket(&law, 8, 256, 0.0).unwrap() {
                assert!(
                    st.lower_bound <= 1.0 + 1e-9 && 1.0 <= st.upper_bound + 1e-9,
                    "{st:?}"
                );
            }
        }
        let law = SizeLaw::uniform(s(0.1), s(0.5));
        for st in bracket(&law, 10, 160, 0.0).unwrap() {
            let n = st.intervals as f64;
            let rounded_up_mean = 0.3 + 0.5 / n;
            assert!(
                (st.lower_bound - 0.3 / rounded_up_mean).abs() < 1e-7,
                "{st:?}"
            );
        }
        let not = SizeLaw::uniform(s(0.35), s(0.6));
        let last = bracket(&not, 64, 64, 0.0).unwrap().pop().unwrap();
        assert!(last.upper_bound < 0.99, "{last:?}");
    }

    /// Every uniform law on a grid of 0.05 that is said to pack perfectly keeps Theorem 1's
    /// upper end (sizes rounded down, which only an overstated ρ* = 1 could push below 1) at
    /// 1 or above on 64 intervals; and the test accepts laws beyond the two committed ones.
    #[test]
    fn no_law_said_to_pack_perfectly_has_an_upper_bound_below_one() {
        let mut mixed = 0;
        for lo in 1..20 {
            for hi in lo + 1..=19 {
                let (a, b) = (lo as f64 * 0.05, hi as f64 * 0.05);
                let Some(p) = uniform(s(a), s(b)) else {
                    continue;
                };
                mixed += usize::from(matches!(p, PerfectPacking::Mixed { .. }));
                let law = SizeLaw::uniform(s(a), s(b));
                let last = bracket(&law, 64, 64, 0.0).unwrap().pop().unwrap();
                assert!(last.upper_bound >= 1.0 - 1e-9, "[{a}, {b}] {p:?}: {last:?}");
            }
        }
        assert!(mixed >= 10, "{mixed} mixed packings");
    }

    #[test]
    fn the_mixed_bracket_is_within_a_grid_step_of_one() {
        let (a, b) = PerfectPacking::Mixed { k: 3 }.rho_star(0.3);
        assert!(a < 1.0 && 1.0 - a < 1e-13 && b == 1.0);
        assert_eq!(PerfectPacking::Pairs.rho_star(0.5), (1.0, 1.0));
    }
}
