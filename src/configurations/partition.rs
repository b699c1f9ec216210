//! Partitions of (0, 1] into intervals open below and closed above (docs/theory.md sections 2
//! and 4): the universal partition X_J, the dyadic partition, and user-given cut points.

use crate::model::Size;

/// Which family a partition belongs to (for labels and K_RED).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartitionKind {
    /// X_J: cuts at 2^−m and (2/3)·2^−m, 2J+1 intervals (section 4).
    Universal {
        /// The depth J.
        j: u32,
    },
    /// Cuts at 2^−m only, J+1 intervals (section 6's 1/2-only partition).
    Dyadic {
        /// The depth J.
        j: u32,
    },
    /// Any list of cut points.
    Custom,
}

/// A partition of (0, 1] into intervals I_1 = (c_1, 1], I_2 = (c_2, c_1], …, I_n = (0, c_{n−1}],
/// numbered from the largest sizes down (the paper's order: VQ_1 holds the largest jobs).
/// Index k (0-based) is the paper's interval k+1.
#[derive(Clone, PartialEq, Eq)]
pub struct Partition {
    /// Upper ends, strictly decreasing, `uppers[0] = 1`.
    uppers: Vec<Size>,
    kind: PartitionKind,
    /// Per size range of 2^[`SHIFT`] units, the interval of the range's largest size: the
    /// least index any size of the range can have ([`Partition::index`]).
    table: Box<[u32]>,
}

/// The upper ends and the family (the table derives from them).
impl std::fmt::Debug for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partition")
            .field("uppers", &self.uppers)
            .field("kind", &self.kind)
            .finish()
    }
}

/// Sizes per entry of [`Partition`]'s table: 2^36 units, so that (0, 1] takes 733 entries.
const SHIFT: u32 = 36;

/// Largest J accepted: every cut point of X_J is exact on the fixed-point grid up to 2^−30.
pub const MAX_J: u32 = 30;

/// Why cut points do not make a partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PartitionError {
    /// A cut point given twice.
    #[error("distinct cut points")]
    Repeated,
    /// A cut point outside (0, 1).
    #[error("cut points strictly between 0 and 1")]
    OutOfRange,
}

impl Partition {
    /// The partition with upper ends `uppers` (strictly decreasing from 1), with its lookup
    /// table.
    fn new(uppers: Vec<Size>, kind: PartitionKind) -> Partition {
        let by_search = |s: u64| uppers.partition_point(|&u| u.0 >= s) - 1;
        let table = (0..=Size::UNIT >> SHIFT)
            .map(|b| by_search(((b + 1) << SHIFT).min(Size::UNIT + 1) - 1) as u32)
            .collect();
        Partition {
            uppers,
            kind,
            table,
        }
    }

    /// The universal partition X_J (2J+1 intervals), 1 ≤ J ≤ [`MAX_J`].
    pub fn universal(j: u32) -> Partition {
        assert!((1..=MAX_J).contains(&j), "J in 1..=30");
        let mut uppers = Vec::with_capacity(2 * j as usize + 1);
        for m in 1..=j {
            let p = 1u64 << (m - 1);
            uppers.push(Size::ratio(1, p)); // 2^−(m−1)
            uppers.push(Size::ratio(2, 3 * p)); // (2/3)·2^−(m−1)
        }
        uppers.push(Size::ratio(1, 1 << j)); // 2^−J
        Partition::new(uppers, PartitionKind::Universal { j })
    }

    /// The dyadic partition (2^−m, 2^−(m−1)], m = 1…J, and (0, 2^−J]: J+1 intervals.
    pub fn dyadic(j: u32) -> Partition {
        assert!((1..=MAX_J).contains(&j), "J in 1..=30");
        let uppers = (0..=j).map(|m| Size::ratio(1, 1 << m)).collect();
        Partition::new(uppers, PartitionKind::Dyadic { j })
    }

    /// A partition with the given cut points, each strictly inside (0, 1), in any order.
    pub fn custom(cuts: &[Size]) -> Result<Partition, PartitionError> {
        let mut c: Vec<Size> = cuts.to_vec();
        c.sort_unstable_by(|a, b| b.cmp(a));
        if c.windows(2).any(|w| w[0] == w[1]) {
            return Err(PartitionError::Repeated);
        }
        if c.iter().any(|&x| x == Size::ZERO || x >= Size::ONE) {
            return Err(PartitionError::OutOfRange);
        }
        let mut uppers = vec![Size::ONE];
        uppers.extend(c);
        Ok(Partition::new(uppers, PartitionKind::Custom))
    }

    /// Its family.
    pub fn kind(&self) -> PartitionKind {
        self.kind
    }

    /// Number of intervals n.
    pub fn len(&self) -> usize {
        self.uppers.len()
    }

    /// Never true: a partition has at least the interval (0, 1].
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The 0-based interval containing `s` (s in (0, 1]).
    #[inline]
    pub fn index(&self, s: Size) -> usize {
        // the least index of s's range, then up past the ends at or above s (few: the cut
        // points are far apart but near 0)
        let mut k = self.table[(s.0 >> SHIFT) as usize] as usize;
        while self.uppers.get(k + 1).is_some_and(|&u| u >= s) {
            k += 1;
        }
        k
    }

    /// Upper end of interval k (the upper-rounded size r̄_k).
    pub fn upper(&self, k: usize) -> Size {
        self.uppers[k]
    }

    /// Lower end of interval k (0 for the last interval).
    pub fn lower(&self, k: usize) -> Size {
        self.uppers.get(k + 1).copied().unwrap_or(Size::ZERO)
    }

    /// `s` rounded up to its interval's upper end.
    pub fn round_up(&self, s: Size) -> Size {
        self.upper(self.index(s))
    }

    /// `s` rounded down to its interval's lower end (0 in the last interval).
    pub fn round_down(&self, s: Size) -> Size {
        self.lower(self.index(s))
    }

    /// All upper ends, from 1 down.
    pub fn uppers(&self) -> &[Size] {
        &self.uppers
    }

    /// A short name: `X_4`, `dyadic_4`, `custom(0.5,0.25)`.
    pub fn label(&self) -> String {
        match self.kind {
            PartitionKind::Universal { j } => format!("X_{j}"),
            PartitionKind::Dyadic { j } => format!("dyadic_{j}"),
            PartitionKind::Custom => {
                let cuts: Vec<String> = self.uppers[1..].iter().map(|c| c.to_string()).collect();
                format!("custom({})", cuts.join(","))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-written interval table of X_J (docs/theory.md section 4), as (lower, upper) with
    /// exact rationals (num, den).
    fn xj_table(j: u32) -> Vec<((u64, u64), (u64, u64))> {
        let mut v = Vec::new();
        for m in 1..=j as u64 {
            let p = 1u64 << (m - 1);
            v.push(((2, 3 * p), (1, p))); // I_{2m−1} = ((2/3)2^−(m−1), 2^−(m−1)]
            v.push(((1, 2 * p), (2, 3 * p))); // I_{2m} = (2^−m, (2/3)2^−(m−1)]
        }
        v.push(((0, 1), (1, 1 << j))); // I_{2J+1} = (0, 2^−J]
        v
    }

    #[test]
    fn universal_partition_intervals_for_j_1_to_6() {
        for j in 1..=6 {
            let p = Partition::universal(j);
            let table = xj_table(j);
            assert_eq!(p.len(), 2 * j as usize + 1);
            for (k, &((ln, ld), (un, ud))) in table.iter().enumerate() {
                let lo = if ln == 0 {
                    Size::ZERO
                } else {
                    Size::ratio(ln, ld)
                };
                let hi = Size::ratio(un, ud);
                assert_eq!(p.lower(k), lo, "J={j} interval {k} lower");
                assert_eq!(p.upper(k), hi, "J={j} interval {k} upper");
                // open below, closed above
                assert_eq!(p.index(hi), k);
                assert_eq!(p.index(Size(lo.0 + 1)), k);
                if lo > Size::ZERO {
                    assert_eq!(p.index(lo), k + 1);
                }
                assert_eq!(p.round_up(Size(lo.0 + 1)), hi);
                assert_eq!(p.round_down(hi), lo);
            }
        }
    }

    #[test]
    fn named_cut_points() {
        let p = Partition::universal(3);
        let cuts: Vec<f64> = p.uppers().iter().map(|s| s.as_f64()).collect();
        let want = [1.0, 2.0 / 3.0, 0.5, 1.0 / 3.0, 0.25, 1.0 / 6.0, 0.125];
        for (a, b) in cuts.iter().zip(want) {
            assert!((a - b).abs() < 1e-12);
        }
        // sizes of Fig. 3(a): 0.55 in I_2, 0.45 in I_3
        assert_eq!(p.index(Size::from_f64(0.55).unwrap()), 1);
        assert_eq!(p.index(Size::from_f64(0.45).unwrap()), 2);
        // Fig. 3(b): 0.2 in I_5 = (1/6, 1/4]
        assert_eq!(p.index(Size::from_f64(0.2).unwrap()), 4);
    }

    #[test]
    fn dyadic_and_custom() {
        let d = Partition::dyadic(3);
        assert_eq!(d.len(), 4);
        assert_eq!(d.index(Size::from_f64(0.55).unwrap()), 0);
        assert_eq!(d.index(Size::from_f64(0.5).unwrap()), 1);
        assert_eq!(d.round_up(Size::from_f64(0.3).unwrap()), Size::ratio(1, 2));
        let c = Partition::custom(&[Size::ratio(1, 4), Size::ratio(1, 2)]).unwrap();
        assert_eq!(
            c.uppers(),
            &[Size::ONE, Size::ratio(1, 2), Size::ratio(1, 4)]
        );
        assert!(Partition::custom(&[Size::ONE]).is_err());
        assert!(Partition::custom(&[Size::ratio(1, 2), Size::ratio(1, 2)]).is_err());
    }

    /// The table lookup agrees with a bisection of the upper ends: on every cut point and its
    /// neighbours, at the ends of (0, 1], and on random sizes, for X_J up to J = 30 (cuts far
    /// finer than a table range), dyadic partitions and custom cuts packed into one range.
    #[test]
    fn index_matches_a_bisection() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let packed: Vec<Size> = (1..40).map(|k| Size((1 << 40) + k * 977)).collect();
        let mut partitions: Vec<Partition> = (1..=MAX_J).map(Partition::universal).collect();
        partitions.extend((1..=MAX_J).map(Partition::dyadic));
        partitions.push(Partition::custom(&packed).unwrap());
        partitions.push(Partition::custom(&[Size(1), Size(Size::UNIT - 1)]).unwrap());
        for p in &partitions {
            let bisect = |s: Size| p.uppers().partition_point(|&u| u >= s) - 1;
            let mut sizes = vec![Size(1), Size(2), Size::ONE, Size(Size::UNIT - 1)];
            for &u in p.uppers() {
                sizes.extend([Size(u.0 - 1), u, Size((u.0 + 1).min(Size::UNIT))]);
            }
            sizes.extend((0..2000).map(|_| Size(rng.random_range(1..=Size::UNIT))));
            for s in sizes.into_iter().filter(|s| s.0 >= 1) {
                assert_eq!(p.index(s), bisect(s), "{} at size {}", p.label(), s.0);
            }
        }
    }
}
