//! Every job's waiting time and response time, recorded cheaply: a log-linear histogram per
//! size class, mergeable exactly across replications, in bounded memory.
//!
//! A job's **waiting time** is its placement slot minus its arrival slot (0: placed in the slot
//! it arrived); its **response time** is that plus its service time (the slots it holds its
//! server), so a job placed on arrival with a service of S slots has response time S. Only
//! jobs placed at or after the end of warm-up are recorded, as for the run's mean wait.
//!
//! **The histogram.** Values below 128 slots have a bucket each (exact); above, every power of
//! two [2ᵉ, 2ᵉ⁺¹) is cut into 64 buckets of equal width 2ᵉ⁻⁶, so a bucket is at most 1/64 of
//! its lower edge wide. A quantile is reported as the midpoint of the bucket that holds it:
//! within 1/128 (0.8 %) of the exact sorted-sample quantile, and exact below 128 slots. The
//! mean is exact (the sum is kept). Memory grows with the largest value recorded, not with the
//! number of jobs: 64 buckets per doubling, about 830 buckets (6.6 KB) up to 10⁵ slots.

use serde::{Deserialize, Serialize};

use crate::model::Size;

/// Values below this have a bucket each.
const EXACT: u64 = 128;
/// log₂ of the buckets per doubling above [`EXACT`].
const SUB_BITS: u32 = 6;

/// The bucket of value `v`.
#[inline]
fn bucket(v: u64) -> usize {
    // One formula for every v, without a branch on v < 128: with e the power of two of v and
    // s = max(e − 6, 0), the bucket is s·64 + ⌊v / 2ˢ⌋. Below 128, s = 0 and that is v; from
    // 2ᵉ with e ≥ 7 it is (e − 6)·64 + 64 + (the 64th of the doubling v falls in), so the
    // doubling's 64 buckets start at 128 + (e − 7)·64.
    let e = 63 - (v | 1).leading_zeros();
    let s = e.max(SUB_BITS) - SUB_BITS;
    (((s as u64) << SUB_BITS) + (v >> s)) as usize
}

/// The values of bucket `i`: its smallest and its largest.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < EXACT {
        return (i, i);
    }
    let k = i - EXACT;
    let e = (k >> SUB_BITS) + 7;
    let sub = k & ((1 << SUB_BITS) - 1);
    let width = 1u64 << (e - SUB_BITS as u64);
    let lo = (1u64 << e) + sub * width;
    (lo, lo + (width - 1))
}

/// A histogram of durations in slots (module doc): counts per log-linear bucket, the count, the
/// exact sum and the largest value.
///
/// The sum and the largest value of the values below 128 are read off their exact buckets, so
/// only values of 128 or more add to `sum_above` and `max_above`, and a value below 128 recorded
/// by [`Histogram::record_small`] touches its count only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Sparse", into = "Sparse")]
pub struct Histogram {
    /// Counts per bucket.
    counts: Vec<u64>,
    /// The sum of the values of 128 or more.
    sum_above: u128,
    /// The largest value of 128 or more (0: none).
    max_above: u64,
}

/// A histogram as written to a journal: its nonzero buckets only.
#[derive(Serialize, Deserialize)]
struct Sparse {
    buckets: Vec<(u32, u64)>,
    sum: u128,
    max: u64,
}

impl From<Histogram> for Sparse {
    fn from(h: Histogram) -> Self {
        Sparse {
            buckets: h
                .counts
                .iter()
                .enumerate()
                .filter(|c| *c.1 > 0)
                .map(|(i, &c)| (i as u32, c))
                .collect(),
            sum: h.sum(),
            max: h.max(),
        }
    }
}

impl From<Sparse> for Histogram {
    fn from(s: Sparse) -> Self {
        let mut h = Histogram::default();
        for (i, c) in s.buckets {
            let i = i as usize;
            if h.counts.len() <= i {
                h.counts.resize(i + 1, 0);
            }
            h.counts[i] += c;
        }
        h.sum_above = s.sum.saturating_sub(h.sum_exact());
        h.max_above = if s.max >= EXACT { s.max } else { 0 };
        h
    }
}

impl Histogram {
    /// Records one value, slots (for values that fall on either side of 128 about as often, as
    /// response times do).
    #[inline]
    pub fn record(&mut self, v: u64) {
        let i = bucket(v);
        match self.counts.get_mut(i) {
            Some(c) => *c += 1,
            None => self.grow(i),
        }
        let above = if v >= EXACT { v } else { 0 };
        self.sum_above += above as u128;
        self.max_above = self.max_above.max(above);
    }

    /// Records one value, slots, fastest when it is most often below 128 (as waits are in a
    /// stable run): those touch their count only.
    #[inline]
    pub fn record_small(&mut self, v: u64) {
        if v < EXACT
            && let Some(c) = self.counts.get_mut(v as usize)
        {
            *c += 1;
            return;
        }
        self.record(v);
    }

    /// The sum of the values below 128, read off their buckets.
    fn sum_exact(&self) -> u128 {
        self.counts
            .iter()
            .take(EXACT as usize)
            .enumerate()
            .map(|(v, &c)| v as u128 * c as u128)
            .sum()
    }

    /// The sum of the values recorded, slots (exact).
    fn sum(&self) -> u128 {
        self.sum_exact() + self.sum_above
    }

    /// Makes room for bucket `i` and counts one value in it.
    #[cold]
    fn grow(&mut self, i: usize) {
        self.counts.resize(i + 1, 0);
        self.counts[i] += 1;
    }

    /// Adds every value of `other` (exact: the result is the histogram of both runs' values).
    pub fn merge(&mut self, other: &Histogram) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.sum_above += other.sum_above;
        self.max_above = self.max_above.max(other.max_above);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Their mean, slots (exact); NaN when none.
    pub fn mean(&self) -> f64 {
        match self.count() {
            0 => f64::NAN,
            n => self.sum() as f64 / n as f64,
        }
    }

    /// The largest value recorded, slots (exact).
    pub fn max(&self) -> u64 {
        if self.max_above > 0 {
            return self.max_above;
        }
        let exact = &self.counts[..self.counts.len().min(EXACT as usize)];
        exact.iter().rposition(|&c| c > 0).unwrap_or(0) as u64
    }

    /// The `q`-quantile (q in [0, 1]) as the smallest and the largest value the bucket holding
    /// the ⌈q·n⌉-th smallest value (at least the first) could be: the exact sorted-sample
    /// quantile lies between them. `None` when nothing was recorded.
    pub fn quantile_bounds(&self, q: f64) -> Option<(u64, u64)> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bounds(i);
                // the largest value seen bounds the last bucket
                return Some((lo, hi.min(self.max())));
            }
        }
        unreachable!("the counts add up to the total")
    }

    /// The `q`-quantile, slots: the midpoint of [`Histogram::quantile_bounds`] (exact below 128
    /// slots, within 1/128 of the sorted-sample quantile above); NaN when nothing was recorded.
    pub fn quantile(&self, q: f64) -> f64 {
        self.quantile_bounds(q)
            .map_or(f64::NAN, |(lo, hi)| (lo as f64 + hi as f64) / 2.0)
    }

    /// The distribution as (t, P(X > t)) on a grid of about eight values of t per doubling
    /// (every t below 16; above, the t with t + 1 a multiple of 2^(⌊log₂(t + 1)⌋ − 3)), each a
    /// bucket's largest value, so every probability is exact; from 0 to the first t with
    /// probability 0.
    pub fn tail_on_grid(&self) -> Vec<(u64, f64)> {
        let total = self.count();
        let n = total as f64;
        let mut above = total;
        let max = self.max();
        let mut out = Vec::new();
        for (i, &c) in self.counts.iter().enumerate() {
            above -= c;
            let t = bounds(i).1;
            let width = 1u64 << (63 - (t + 1).leading_zeros()).saturating_sub(3);
            if (t + 1).is_multiple_of(width) || above == 0 {
                out.push((t.min(max), above as f64 / n));
            }
            if above == 0 {
                break;
            }
        }
        out
    }
}

/// Size classes by which waits are kept: class k holds the sizes up to `bounds[k]` (and above
/// `bounds[k − 1]`); the last class also every larger size.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<Size>", into = "Vec<Size>")]
pub struct SizeClasses {
    bounds: Vec<Size>,
    /// The class of every size in each of [`CELLS`] equal cells of (0, 1], or [`MIXED`] for a
    /// cell a bound cuts (looked up by binary search): one load per job in the slot loop.
    cells: Vec<u8>,
}

/// Cells of the class lookup table.
const CELLS: usize = 1024;
/// A cell that holds sizes of more than one class.
const MIXED: u8 = u8::MAX;

impl From<Vec<Size>> for SizeClasses {
    fn from(bounds: Vec<Size>) -> Self {
        SizeClasses::new(bounds)
    }
}

impl From<SizeClasses> for Vec<Size> {
    fn from(c: SizeClasses) -> Self {
        c.bounds
    }
}

impl SizeClasses {
    /// Classes with these upper bounds (sorted and deduplicated here; none: one class).
    pub fn new(mut bounds: Vec<Size>) -> Self {
        bounds.sort_unstable();
        bounds.dedup();
        let mut c = SizeClasses {
            bounds,
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

    /// The upper bounds.
    pub fn bounds(&self) -> &[Size] {
        &self.bounds
    }
}

/// The waiting times of one class of jobs, and the sum of their response times.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassWaits {
    /// Waiting times, slots.
    pub wait: Histogram,
    /// The sum of the class's response times (wait + service), slots.
    pub response_sum: u128,
}

impl ClassWaits {
    /// The class's mean response time, slots (NaN when it has no job).
    pub fn mean_response(&self) -> f64 {
        self.response_sum as f64 / self.wait.count() as f64
    }
}

/// What a run recorded of its jobs' delays: the waiting times per size class, and the response
/// times of all jobs (a response-time histogram per class would put a second scattered
/// histogram per class in the slot loop's cache, for a quantity whose by-size mean is enough).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waits {
    /// Per class, in the order of the classes' bounds.
    pub classes: Vec<ClassWaits>,
    /// Response times (wait + service) of every job, slots.
    pub response: Histogram,
}

impl Waits {
    /// The waiting times of every class merged.
    pub fn wait(&self) -> Histogram {
        let mut all = Histogram::default();
        for c in &self.classes {
            all.merge(&c.wait);
        }
        all
    }

    /// Adds another run's (same classes).
    pub fn merge(&mut self, other: &Waits) {
        if self.classes.len() < other.classes.len() {
            self.classes
                .resize(other.classes.len(), ClassWaits::default());
        }
        for (a, b) in self.classes.iter_mut().zip(&other.classes) {
            a.wait.merge(&b.wait);
            a.response_sum += b.response_sum;
        }
        self.response.merge(&other.response);
    }
}

/// Jobs a [`WaitRecorder`] holds before it sorts them into histograms.
const PENDING: usize = 256;

/// One placed job not yet in the histograms: its wait, its response time and its size.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    wait: u64,
    response: u64,
    size: Size,
}

/// The recorder a cluster keeps: from slot `from` on, each placed job's wait goes to its size
/// class, its response time to the run's.
///
/// Placing a job only writes it into a buffer of [`PENDING`]; a full buffer is sorted into the
/// histograms in one loop, which the processor runs several jobs at a time: recording each job
/// at its placement cost about 1 ns a job more (`docs/performance.md`, "Waiting times").
#[derive(Clone, Debug)]
pub(crate) struct WaitRecorder {
    from: u64,
    classes: SizeClasses,
    waits: Waits,
    pending: Box<[Pending; PENDING]>,
    held: usize,
}

impl WaitRecorder {
    /// Records jobs placed at slot `from` (the end of warm-up) or later, by `classes`.
    pub(crate) fn new(from: u64, classes: SizeClasses) -> Self {
        let n = classes.len();
        WaitRecorder {
            from,
            classes,
            waits: Waits {
                classes: vec![ClassWaits::default(); n],
                response: Histogram::default(),
            },
            pending: Box::new([Pending::default(); PENDING]),
            held: 0,
        }
    }

    /// A job of size `size` that arrived in slot `arrival` placed in slot `now`, for `service`
    /// slots.
    #[inline]
    pub(crate) fn placed(&mut self, now: u64, arrival: u64, size: Size, service: u32) {
        if now < self.from {
            return;
        }
        let wait = now - arrival;
        if self.held == PENDING {
            self.flush();
        }
        self.pending[self.held] = Pending {
            wait,
            response: wait + service as u64,
            size,
        };
        self.held += 1;
    }

    /// Sorts the buffered jobs into the histograms.
    fn flush(&mut self) {
        Self::sort_into(&mut self.waits, &self.classes, &self.pending[..self.held]);
        self.held = 0;
    }

    fn sort_into(waits: &mut Waits, classes: &SizeClasses, jobs: &[Pending]) {
        for p in jobs {
            let c = &mut waits.classes[classes.of(p.size)];
            c.wait.record_small(p.wait);
            c.response_sum += p.response as u128;
            waits.response.record(p.response);
        }
    }

    /// What was recorded.
    pub(crate) fn waits(&self) -> Waits {
        let mut waits = self.waits.clone();
        Self::sort_into(&mut waits, &self.classes, &self.pending[..self.held]);
        waits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_exact_below_128_and_at_most_a_64th_wide_above() {
        for v in 0..128 {
            assert_eq!(bounds(bucket(v)), (v, v));
        }
        let mut last = 127;
        for i in 128..(128 + 64 * 40) {
            let (lo, hi) = bounds(i);
            assert_eq!(lo, last + 1, "buckets tile the values");
            assert!((hi - lo + 1) * 64 <= lo, "bucket {i}: [{lo}, {hi}]");
            assert_eq!(bucket(lo), i);
            assert_eq!(bucket(hi), i);
            last = hi;
        }
        assert_eq!(bucket(u64::MAX), 128 + 64 * 57 - 1);
    }

    /// Exact sorted-sample quantiles (x at rank ⌈q·n⌉) of a sample, against the histogram's.
    #[test]
    fn quantiles_hold_the_sorted_sample_quantile_within_a_128th() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut values: Vec<u64> = (0..100_000)
            .map(|_| {
                // a heavy tail over seven decades, with many zeros
                let u: f64 = rng.random();
                if u < 0.3 {
                    0
                } else {
                    (10f64.powf(7.0 * rng.random::<f64>())) as u64
                }
            })
            .collect();
        let mut h = Histogram::default();
        for &v in &values {
            h.record(v);
        }
        values.sort_unstable();
        let n = values.len();
        for q in [0.0, 0.1, 0.3, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let rank = ((q * n as f64).ceil() as usize).max(1);
            let exact = values[rank - 1];
            let (lo, hi) = h.quantile_bounds(q).unwrap();
            assert!(
                lo <= exact && exact <= hi,
                "q {q}: {exact} not in [{lo}, {hi}]"
            );
            let mid = h.quantile(q);
            assert!(
                (mid - exact as f64).abs() <= exact as f64 / 128.0 + 0.5,
                "q {q}: {mid} vs {exact}"
            );
        }
        assert_eq!(h.max(), values[n - 1]);
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n as f64;
        assert!((h.mean() - mean).abs() <= 1e-9 * mean);
    }

    #[test]
    fn merged_histograms_are_the_histogram_of_both_and_survive_a_journal() {
        let (mut a, mut b, mut both) = (
            Histogram::default(),
            Histogram::default(),
            Histogram::default(),
        );
        for v in 0..5000u64 {
            let x = v * v % 9973;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            both.record(x);
        }
        a.merge(&b);
        assert_eq!(a, both);
        let bytes = postcard::to_allocvec(&a).unwrap();
        let back: Histogram = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, a);
        assert!(back.tail_on_grid().last().unwrap().1 == 0.0);
    }

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
