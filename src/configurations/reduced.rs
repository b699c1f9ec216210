//! The reduced configuration set K_RED (docs/theory.md section 5, Definition 5; reconstructed).
//!
//! Over the intervals of X_J with upper-rounded sizes r̄_j, 4J−1 configurations, in this order
//! (which is the tie-breaking order of the max-weight choice):
//! 1. homogeneous: ⌊1/r̄_j⌋·e_j for j = 1 … 2J+1 (1, 1, 2, 3, 4, 6, 8, 12, … jobs);
//! 2. special: e_2 + ⌊(1/3)/r̄_j⌋·e_j for j = 4 … 2J+1 — one VQ_2 job (rounded to 2/3) plus jobs
//!    of one other VQ in the remaining 1/3.
//!
//! Indices in code are 0-based: VQ_2 is index 1.

use super::Partition;
use crate::model::Size;

/// Index of VQ_2 (the interval (1/2, 2/3]).
pub const VQ2: usize = 1;

/// A configuration of K_RED: at most one VQ_2 job, and `count` jobs of one other VQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReducedConfig {
    /// k_2 = 1: one VQ_2 job, with 2/3 of the server reserved for it.
    pub vq2: bool,
    /// (VQ index, k_j) of the other VQ, if any.
    pub other: Option<(usize, u32)>,
}

impl ReducedConfig {
    /// ⟨k, Q⟩ for VQ lengths `q`.
    #[inline]
    pub fn weight(&self, q: &[u64]) -> u64 {
        let a = if self.vq2 { q[VQ2] } else { 0 };
        a + self.other.map_or(0, |(j, n)| n as u64 * q[j])
    }

    /// The paper's notation with 1-based VQs, e.g. `3·VQ4` or `VQ2+2·VQ6`.
    pub fn label(&self) -> String {
        let other = self.other.map(|(j, n)| {
            if n == 1 {
                format!("VQ{}", j + 1)
            } else {
                format!("{n}·VQ{}", j + 1)
            }
        });
        match (self.vq2, other) {
            (true, Some(o)) => format!("VQ2+{o}"),
            (true, None) => "VQ2".into(),
            (false, Some(o)) => o,
            (false, None) => "empty".into(),
        }
    }

    /// As a dense vector over `n` VQs.
    pub fn dense(&self, n: usize) -> Vec<u32> {
        let mut v = vec![0; n];
        if self.vq2 {
            v[VQ2] += 1;
        }
        if let Some((j, c)) = self.other {
            v[j] += c;
        }
        v
    }
}

/// K_RED for a universal partition X_J. On any other partition (dyadic, custom cuts) the set
/// has only the homogeneous configurations ⌊1/r̄_j⌋·e_j and no VQ_2 reservation: the 1/2-only
/// scheme of docs/theory.md section 6.
#[derive(Clone, Debug)]
pub struct ReducedSet {
    configs: Vec<ReducedConfig>,
    /// (k_2, j, k_j) of every configuration (j = 0, k_j = 0 without another VQ), so that
    /// [`ReducedSet::max_weight`] weighs them without branches.
    terms: Vec<(u64, usize, u64)>,
    universal: bool,
}

impl ReducedSet {
    /// K_RED of `p` (see the type's documentation for non-universal partitions).
    pub fn new(p: &Partition) -> ReducedSet {
        let n = p.len();
        if !matches!(p.kind(), super::PartitionKind::Universal { .. }) {
            let configs = (0..n)
                .map(|j| ReducedConfig {
                    vq2: false,
                    other: Some((j, (Size::UNIT / p.upper(j).0) as u32)),
                })
                .collect();
            return ReducedSet::of(configs, false);
        }
        let fit = |cap: u64, j: usize| (cap / p.upper(j).0) as u32;
        let mut configs = Vec::with_capacity(2 * n - 3);
        for j in 0..n {
            let c = fit(Size::UNIT, j);
            configs.push(if j == VQ2 {
                ReducedConfig {
                    vq2: true,
                    other: None,
                }
            } else {
                ReducedConfig {
                    vq2: false,
                    other: Some((j, c)),
                }
            });
        }
        let third = Size::ratio(1, 3).0;
        for j in 3..n {
            configs.push(ReducedConfig {
                vq2: true,
                other: Some((j, fit(third, j))),
            });
        }
        ReducedSet::of(configs, true)
    }

    fn of(configs: Vec<ReducedConfig>, universal: bool) -> ReducedSet {
        let terms = (configs.iter())
            .map(|c| {
                let (j, n) = c.other.unwrap_or((0, 0));
                (u64::from(c.vq2), j, n as u64)
            })
            .collect();
        ReducedSet {
            configs,
            terms,
            universal,
        }
    }

    /// Does the set reserve 2/3 for VQ_2 (built on X_J)?
    pub fn has_vq2(&self) -> bool {
        self.universal
    }

    /// The number of configurations.
    pub fn len(&self) -> usize {
        self.configs.len()
    }

    /// No configuration.
    pub fn is_empty(&self) -> bool {
        self.configs.is_empty()
    }

    /// The VQ other than VQ_2 that configuration `i` serves (`usize::MAX`: none).
    #[inline]
    pub fn other_vq(&self, i: usize) -> usize {
        let (_, j, n) = self.terms[i];
        if n > 0 { j } else { usize::MAX }
    }

    /// Configuration `i`.
    pub fn get(&self, i: usize) -> ReducedConfig {
        self.configs[i]
    }

    /// Every configuration, in index order.
    pub fn iter(&self) -> impl Iterator<Item = &ReducedConfig> {
        self.configs.iter()
    }

    /// The max-weight configuration for VQ lengths `q`: argmax ⟨k, Q⟩, ties to the lowest
    /// index. O(J). Returns (index, weight).
    #[inline]
    pub fn max_weight(&self, q: &[u64]) -> (usize, u64) {
        let q2 = q.get(VQ2).copied().unwrap_or(0);
        let weight = |&(a, j, n): &(u64, usize, u64)| a * q2 + n * q[j];
        let (mut best, mut best_w) = (0, weight(&self.terms[0]));
        for (i, t) in self.terms.iter().enumerate().skip(1) {
            let w = weight(t);
            let better = w > best_w;
            best = if better { i } else { best };
            best_w = if better { w } else { best_w };
        }
        (best, best_w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_red_for_j_2_and_3_matches_hand_table() {
        // J = 2: X_2 = (2/3,1], (1/2,2/3], (1/3,1/2], (1/4,1/3], (0,1/4]; 4J−1 = 7 configs.
        let want2 = [
            "VQ1", "VQ2", "2·VQ3", "3·VQ4", "4·VQ5", "VQ2+VQ4", "VQ2+VQ5",
        ];
        // J = 3: adds (1/6,1/4] and (0,1/8] in place of (0,1/4]; 11 configs.
        let want3 = [
            "VQ1",
            "VQ2",
            "2·VQ3",
            "3·VQ4",
            "4·VQ5",
            "6·VQ6",
            "8·VQ7",
            "VQ2+VQ4",
            "VQ2+VQ5",
            "VQ2+2·VQ6",
            "VQ2+2·VQ7",
        ];
        for (j, want) in [(2, &want2[..]), (3, &want3[..])] {
            let k = ReducedSet::new(&Partition::universal(j));
            let got: Vec<String> = k.iter().map(|c| c.label()).collect();
            assert_eq!(got, want, "J = {j}");
            assert_eq!(k.len(), 4 * j as usize - 1);
        }
    }

    #[test]
    fn k_red_configs_fit_when_rounded_up() {
        for j in 1..=8 {
            let p = Partition::universal(j);
            for c in ReducedSet::new(&p).iter() {
                let used: u64 = c
                    .dense(p.len())
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| n as u64 * p.upper(i).0)
                    .sum();
                assert!(used <= Size::UNIT, "{} over capacity", c.label());
            }
        }
    }

    #[test]
    fn dyadic_set_is_homogeneous() {
        let k = ReducedSet::new(&Partition::dyadic(3));
        let got: Vec<String> = k.iter().map(|c| c.label()).collect();
        assert_eq!(got, ["VQ1", "2·VQ2", "4·VQ3", "8·VQ4"]);
        assert!(!k.has_vq2());
    }

    #[test]
    fn max_weight_ties_to_lowest_index() {
        let k = ReducedSet::new(&Partition::universal(2));
        assert_eq!(k.max_weight(&[0, 0, 0, 0, 0]), (0, 0));
        // Q_2 = 3, Q_4 = 1: VQ2 weighs 3, VQ2+VQ4 weighs 4, 3·VQ4 weighs 3.
        assert_eq!(k.max_weight(&[0, 3, 0, 1, 0]), (5, 4));
        // Q_3 = 2: 2·VQ3 weighs 4; Q_5 = 1: 4·VQ5 weighs 4 too — the lower index wins.
        assert_eq!(k.max_weight(&[0, 0, 2, 0, 1]), (2, 4));
    }
}

#[cfg(test)]
mod proposition1 {
    //! Proposition 1 (docs/theory.md section 5, reconstructed): for any refinement of X_J and any
    //! queue contents, K_RED's max-weight configuration has at least 2/3 of the weight of the
    //! best configuration of the refinement (sizes rounded up to the refinement's intervals).
    use super::*;
    use crate::configurations::knapsack;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn k_red_keeps_two_thirds_of_any_refinement() {
        let mut rng = Pcg64Mcg::seed_from_u64(12);
        let mut worst = f64::INFINITY;
        let cases = 3000;
        for _ in 0..cases {
            let j = rng.random_range(1..=5);
            let x = Partition::universal(j);
            // a random refinement: X_J's cuts plus up to 6 random ones above 2^−J
            let mut cuts: Vec<Size> = x.uppers()[1..].to_vec();
            let floor = x.upper(x.len() - 1).0;
            for _ in 0..rng.random_range(0..=6) {
                let c = Size(rng.random_range(floor + 1..Size::UNIT));
                if !cuts.contains(&c) {
                    cuts.push(c);
                }
            }
            let refined = Partition::custom(&cuts).unwrap();
            // random queue contents on the refinement's classes (some empty)
            let q: Vec<u64> = (0..refined.len())
                .map(|_| {
                    if rng.random_bool(0.4) {
                        0
                    } else {
                        rng.random_range(1..50)
                    }
                })
                .collect();
            let sizes: Vec<Size> = (0..refined.len()).map(|k| refined.upper(k)).collect();
            let weights: Vec<f64> = q.iter().map(|&v| v as f64).collect();
            let (_, best) = knapsack::max_weight(&sizes, &weights);
            // the same jobs as X_J's virtual queues
            let mut qx = vec![0u64; x.len()];
            for (k, &v) in q.iter().enumerate() {
                qx[x.index(refined.upper(k))] += v;
            }
            let (_, w) = ReducedSet::new(&x).max_weight(&qx);
            if best > 0.0 {
                worst = worst.min(w as f64 / best);
                assert!(
                    3.0 * w as f64 >= 2.0 * best - 1e-9,
                    "J={j}: K_RED {w} < 2/3 of {best} (cuts {cuts:?}, q {q:?})"
                );
            }
        }
        eprintln!("proposition 1: worst ratio {worst:.6} over {cases} cases");
        assert!(
            worst < 0.8,
            "the test never came near the bound (worst {worst})"
        );
    }
}
