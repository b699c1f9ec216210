//! Size classes: a partition of the sizes (0, 1] by upper bounds, by which a run keeps its
//! jobs' delays (each size of a law with few sizes, else its deciles).

use serde::{Deserialize, Serialize};

use crate::model::Size;

/// Size classes by which waits are kept: class k holds the sizes up to `bounds[k]` (and above
/// `bounds[k − 1]`); the last class also every larger size. For a workload with job classes
/// ([`SizeClasses::by_kind`]) class k is instead the jobs of [`Job::kind`](crate::model::Job)
/// k, whatever their size.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Written", into = "Written")]
pub struct SizeClasses {
    bounds: Vec<Size>,
    /// Classes are the jobs' kinds; `bounds[k]` is then kind k's largest size.
    by_kind: bool,
    /// The class of every size in each of [`CELLS`] equal cells of (0, 1], or [`MIXED`] for a
    /// cell a bound cuts (looked up by binary search): one load per job in the slot loop.
    cells: Vec<u8>,
}

/// Cells of the class lookup table.
const CELLS: usize = 1024;
/// A cell that holds sizes of more than one class.
const MIXED: u8 = u8::MAX;

/// How classes are written: the bounds (by size), or `{ kinds = [largest sizes] }`.
#[derive(Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum Written {
    BySize(Vec<Size>),
    ByKind { kinds: Vec<Size> },
}

impl From<Written> for SizeClasses {
    fn from(w: Written) -> Self {
        match w {
            Written::BySize(bounds) => SizeClasses::new(bounds),
            Written::ByKind { kinds } => SizeClasses::by_kind(kinds),
        }
    }
}

impl From<SizeClasses> for Written {
    fn from(c: SizeClasses) -> Self {
        if c.by_kind {
            Written::ByKind { kinds: c.bounds }
        } else {
            Written::BySize(c.bounds)
        }
    }
}

impl SizeClasses {
    /// Classes with these upper bounds (sorted and deduplicated here; none: one class).
    pub fn new(mut bounds: Vec<Size>) -> Self {
        bounds.sort_unstable();
        bounds.dedup();
        let mut c = SizeClasses {
            bounds,
            by_kind: false,
            cells: Vec::new(),
        };
        c.cells = (0..CELLS)
            .map(|k| {
                // the cell's sizes: (k/CELLS, (k+1)/CELLS] of a server
                let lo = c.search(Size(Size::UNIT / CELLS as u64 * k as u64 + 1));
                let hi = c.search(Size(Size::UNIT / CELLS as u64 * (k as u64 + 1)));
                if lo == hi && lo < MIXED as usize {
                    lo as u8
                } else {
                    MIXED
                }
            })
            .collect();
        c
    }

    /// One class per job kind (a workload's job classes, [`crate::model::Job::kind`]):
    /// `largest[k]` is kind k's largest size, for labels.
    pub fn by_kind(largest: Vec<Size>) -> Self {
        SizeClasses {
            bounds: largest,
            by_kind: true,
            cells: Vec::new(),
        }
    }

    /// Whether the classes are the jobs' kinds rather than ranges of sizes.
    pub fn is_by_kind(&self) -> bool {
        self.by_kind
    }

    /// The class of a job of size `size` and kind `kind`.
    #[inline]
    pub fn of_job(&self, size: Size, kind: u8) -> usize {
        if self.by_kind {
            (kind as usize).min(self.bounds.len().saturating_sub(1))
        } else {
            self.of(size)
        }
    }

    /// The class of `size` by binary search over the bounds.
    fn search(&self, size: Size) -> usize {
        self.bounds
            .partition_point(|&b| b < size)
            .min(self.bounds.len().saturating_sub(1))
    }

    /// The class of a job of size `size`.
    #[inline]
    pub fn of(&self, size: Size) -> usize {
        let k = ((size.0.saturating_sub(1)) / (Size::UNIT / CELLS as u64)) as usize;
        match self.cells.get(k) {
            Some(&c) if c != MIXED => c as usize,
            _ => self.search(size),
        }
    }

    /// The number of classes (at least one).
    pub fn len(&self) -> usize {
        self.bounds.len().max(1)
    }

    /// Whether there is only the one class of every size.
    pub fn is_empty(&self) -> bool {
        self.bounds.len() <= 1
    }

    /// The upper bounds (by kind: each kind's largest size).
    pub fn bounds(&self) -> &[Size] {
        &self.bounds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_goes_to_the_first_class_whose_bound_holds_it() {
        let s = |x: f64| Size::from_f64(x).unwrap();
        let c = SizeClasses::new(vec![s(0.3), s(0.1), s(0.6)]);
        assert_eq!(c.len(), 3);
        assert_eq!(c.of(s(0.1)), 0);
        assert_eq!(c.of(s(0.2)), 1);
        assert_eq!(c.of(s(0.3)), 1);
        assert_eq!(c.of(s(0.6)), 2);
        assert_eq!(c.of(s(0.9)), 2);
        assert_eq!(SizeClasses::default().of(s(0.5)), 0);
        // the lookup table agrees with the binary search on every size near a cell's edge
        let c = SizeClasses::new((1..=10).map(|k| s(0.1 * k as f64 - 0.013)).collect());
        let cell = Size::UNIT / CELLS as u64;
        for k in 0..CELLS as u64 {
            for size in [k * cell, k * cell + 1, (k + 1) * cell - 1, (k + 1) * cell] {
                let size = Size(size.clamp(1, Size::UNIT));
                assert_eq!(c.of(size), c.search(size), "{size:?}");
            }
        }
    }
}
