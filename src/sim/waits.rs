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
//! mean is exact (the sum is kept).
//!
//! **Memory.** While a run records, each histogram is a dense array of counts up to the largest
//! bucket it has seen: 64 buckets per doubling, [`buckets_up_to`] 10⁵ slots is 738 buckets
//! (5.9 KB). A finished run keeps a [`Histogram`] of its nonzero buckets only, 8 bytes each:
//! never more entries than jobs recorded, nor than [`buckets_up_to`] the longest value the run
//! can record, which is what the memory a plan is admitted with prices.

use serde::{Deserialize, Serialize};

use crate::model::Size;
pub use crate::workload::SizeClasses;

mod pooled;
pub use pooled::Pooled;

/// Values below this have a bucket each.
const EXACT: u64 = 128;
/// log₂ of the buckets per doubling above [`EXACT`].
const SUB_BITS: u32 = 6;
/// Buckets in all: the bucket of `u64::MAX` is the last.
const BUCKETS: usize = 128 + 64 * 57;
/// A finished histogram's entry: the bucket in the top [`INDEX_BITS`] bits, the count below.
const INDEX_BITS: u32 = 12;
/// The largest count one entry holds (2⁵², far above any run's jobs).
const MAX_COUNT: u64 = (1 << (64 - INDEX_BITS)) - 1;

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

/// The number of buckets that values from 0 to `v` can fall in: the most entries a
/// [`Histogram`] of values at most `v` holds.
pub fn buckets_up_to(v: u64) -> usize {
    bucket(v) + 1
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

/// A histogram of durations in slots (module doc): its nonzero buckets with their counts, the
/// exact sum and the largest value. Recording into it is O(log n) in its nonzero buckets; a
/// run records into a dense array and keeps this (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Sparse", into = "Sparse")]
pub struct Histogram {
    /// The nonzero buckets in increasing order, each `bucket << 52 | count`.
    entries: Vec<u64>,
    /// The sum of the values recorded, slots.
    sum: u128,
    /// The largest value recorded (0: none, or only zeros).
    max: u64,
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
            buckets: h.iter().map(|(i, c)| (i as u32, c)).collect(),
            sum: h.sum,
            max: h.max,
        }
    }
}

impl TryFrom<Sparse> for Histogram {
    type Error = String;

    /// A journal's histogram, refused unless its buckets are in increasing order, exist, and
    /// hold counts one entry can (a forged or damaged record never allocates by its numbers).
    fn try_from(s: Sparse) -> Result<Self, String> {
        let mut entries = Vec::with_capacity(s.buckets.len());
        let mut last = None;
        for (i, c) in s.buckets {
            let i = i as usize;
            if i >= BUCKETS || last.is_some_and(|l| l >= i) || c == 0 || c > MAX_COUNT {
                return Err(format!("histogram bucket {i} with count {c}"));
            }
            last = Some(i);
            entries.push(entry(i, c));
        }
        Ok(Histogram {
            entries,
            sum: s.sum,
            max: s.max,
        })
    }
}

/// The entry of bucket `i` with count `c`.
#[inline]
fn entry(i: usize, c: u64) -> u64 {
    ((i as u64) << (64 - INDEX_BITS)) | c
}

/// The bucket and the count of an entry.
#[inline]
fn split(e: u64) -> (usize, u64) {
    ((e >> (64 - INDEX_BITS)) as usize, e & MAX_COUNT)
}

impl Histogram {
    /// Records one value, slots.
    pub fn record(&mut self, v: u64) {
        let i = bucket(v);
        match self.entries.binary_search_by_key(&i, |&e| split(e).0) {
            Ok(k) => self.entries[k] += 1,
            Err(k) => self.entries.insert(k, entry(i, 1)),
        }
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    /// The nonzero buckets and their counts, in increasing order of bucket.
    fn iter(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.entries.iter().map(|&e| split(e))
    }

    /// The nonzero buckets held: the histogram's size is 8 bytes each.
    pub fn entries(&self) -> usize {
        self.entries.len()
    }

    /// Adds every value of `other` (exact: the result is the histogram of both runs' values).
    pub fn merge(&mut self, other: &Histogram) {
        if other.entries.is_empty() {
            self.sum += other.sum;
            return;
        }
        let mut out = Vec::with_capacity(self.entries.len().max(other.entries.len()));
        let mine = std::mem::take(&mut self.entries);
        let (mut a, mut b) = (
            mine.iter().map(|&e| split(e)).peekable(),
            other.iter().peekable(),
        );
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&(i, c)), Some(&(j, d))) => match i.cmp(&j) {
                    std::cmp::Ordering::Less => {
                        a.next();
                        (i, c)
                    }
                    std::cmp::Ordering::Greater => {
                        b.next();
                        (j, d)
                    }
                    std::cmp::Ordering::Equal => {
                        a.next();
                        b.next();
                        (i, (c + d).min(MAX_COUNT))
                    }
                },
                (Some(&x), None) => {
                    a.next();
                    x
                }
                (None, Some(&y)) => {
                    b.next();
                    y
                }
                (None, None) => break,
            };
            out.push(entry(next.0, next.1));
        }
        out.shrink_to_fit();
        self.entries = out;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.iter().map(|(_, c)| c).sum()
    }

    /// Their mean, slots (exact); NaN when none.
    pub fn mean(&self) -> f64 {
        match self.count() {
            0 => f64::NAN,
            n => self.sum as f64 / n as f64,
        }
    }

    /// The largest value recorded, slots (exact).
    pub fn max(&self) -> u64 {
        self.max
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
        for (i, c) in self.iter() {
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
        if total == 0 {
            return Vec::new();
        }
        let n = total as f64;
        let mut above = total;
        let max = self.max();
        let mut out = Vec::new();
        let mut entries = self.iter().peekable();
        let last = self.entries.last().map_or(0, |&e| split(e).0);
        for i in 0..=last {
            if let Some(&(j, c)) = entries.peek()
                && j == i
            {
                above -= c;
                entries.next();
            }
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

/// A histogram while a run records into it: counts per bucket up to the largest seen (dense),
/// the sum and the largest value of the values of 128 or more (those below are read off their
/// exact buckets, so a value below 128 recorded by [`Dense::record_small`] touches its count
/// only).
#[derive(Clone, Debug, Default)]
struct Dense {
    counts: Vec<u64>,
    sum_above: u128,
    max_above: u64,
}

impl Dense {
    /// Records one value, slots (for values that fall on either side of 128 about as often, as
    /// response times do).
    #[inline]
    fn record(&mut self, v: u64) {
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
    fn record_small(&mut self, v: u64) {
        if v < EXACT
            && let Some(c) = self.counts.get_mut(v as usize)
        {
            *c += 1;
            return;
        }
        self.record(v);
    }

    /// Makes room for bucket `i` and counts one value in it.
    #[cold]
    fn grow(&mut self, i: usize) {
        self.counts.resize(i + 1, 0);
        self.counts[i] += 1;
    }

    /// The finished histogram: the nonzero buckets, the exact sum and the largest value.
    fn finished(&self) -> Histogram {
        let mut entries = Vec::with_capacity(self.counts.iter().filter(|&&c| c > 0).count());
        entries.extend(
            self.counts
                .iter()
                .enumerate()
                .filter(|c| *c.1 > 0)
                .map(|(i, &c)| entry(i, c.min(MAX_COUNT))),
        );
        let exact = &self.counts[..self.counts.len().min(EXACT as usize)];
        let sum_exact: u128 = exact
            .iter()
            .enumerate()
            .map(|(v, &c)| v as u128 * c as u128)
            .sum();
        let max = if self.max_above > 0 {
            self.max_above
        } else {
            exact.iter().rposition(|&c| c > 0).unwrap_or(0) as u64
        };
        Histogram {
            entries,
            sum: sum_exact + self.sum_above,
            max,
        }
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
    kind: u8,
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
    /// Per class: its waits and the sum of its response times.
    waits: Vec<(Dense, u128)>,
    response: Dense,
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
            waits: vec![(Dense::default(), 0); n],
            response: Dense::default(),
            pending: Box::new([Pending::default(); PENDING]),
            held: 0,
        }
    }

    /// A job of size `size` and kind `kind` that arrived in slot `arrival` placed in slot
    /// `now`, for `service` slots.
    #[inline]
    pub(crate) fn placed(
        &mut self,
        now: u64,
        arrival: u64,
        (size, kind): (Size, u8),
        service: u32,
    ) {
        if now < self.from {
            return;
        }
        let wait = now - arrival;
        self.push(wait, wait + service as u64, size, kind);
    }

    /// A job of size `size` and kind `kind` that arrived in slot `arrival`, needed `service`
    /// slots of service and left at step 1 of slot `left`: its response time is
    /// `left − arrival`, its wait the response time less its service (for a job never
    /// preempted, the same as [`Self::placed`]'s). Recorded when `arrival + wait`, the slot its
    /// service would have started in had it run without a break, is `from` or later.
    pub(crate) fn completed(
        &mut self,
        left: u64,
        arrival: u64,
        (size, kind): (Size, u8),
        service: u32,
    ) {
        let response = left - arrival;
        let wait = response - service as u64;
        if arrival + wait < self.from {
            return;
        }
        self.push(wait, response, size, kind);
    }

    #[inline]
    fn push(&mut self, wait: u64, response: u64, size: Size, kind: u8) {
        if self.held == PENDING {
            self.flush();
        }
        self.pending[self.held] = Pending {
            wait,
            response,
            size,
            kind,
        };
        self.held += 1;
    }

    /// Sorts the buffered jobs into the histograms.
    fn flush(&mut self) {
        for p in &self.pending[..self.held] {
            let c = &mut self.waits[self.classes.of_job(p.size, p.kind)];
            c.0.record_small(p.wait);
            c.1 += p.response as u128;
            self.response.record(p.response);
        }
        self.held = 0;
    }

    /// What was recorded (the jobs still buffered included).
    pub(crate) fn waits(&self) -> Waits {
        let mut all = self.clone();
        all.flush();
        Waits {
            classes: all
                .waits
                .iter()
                .map(|(w, r)| ClassWaits {
                    wait: w.finished(),
                    response_sum: *r,
                })
                .collect(),
            response: all.response.finished(),
        }
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
    fn a_run_records_densely_and_keeps_only_its_nonzero_buckets() {
        let mut dense = Dense::default();
        let mut sparse = Histogram::default();
        // a few jobs with long responses: dense up to bucket ~1,700, three entries kept
        for v in [3u64, 1_000_000_000, 2_500_000_000, 3] {
            dense.record_small(v);
            sparse.record(v);
        }
        let kept = dense.finished();
        assert_eq!(kept, sparse);
        assert!(dense.counts.len() > 1600, "{}", dense.counts.len());
        assert_eq!(kept.entries(), 3);
        assert!(kept.entries() <= buckets_up_to(kept.max()));
        assert_eq!(kept.count(), 4);
        assert_eq!(kept.max(), 2_500_000_000);
        assert_eq!(kept.mean(), 3_500_000_006.0 / 4.0);
        // the dense and the finished histogram agree on every quantile and on the tail
        let mut wide = Dense::default();
        let mut narrow = Histogram::default();
        for v in 0..20_000u64 {
            let x = v * 7919 % 50_000;
            wide.record(x);
            narrow.record(x);
        }
        assert_eq!(wide.finished(), narrow);
        assert_eq!(buckets_up_to(127), 128);
        // the module doc's number
        assert_eq!(buckets_up_to(100_000), 738);
        assert_eq!(buckets_up_to(128), 129);
        assert_eq!(buckets_up_to(u64::MAX), BUCKETS);
        assert!(Histogram::default().tail_on_grid().is_empty());
    }

    #[test]
    fn a_forged_journal_histogram_is_refused_before_it_allocates() {
        let forged = |buckets: Vec<(u32, u64)>| {
            let bytes = postcard::to_allocvec(&Sparse {
                buckets,
                sum: 0,
                max: 0,
            })
            .unwrap();
            postcard::from_bytes::<Histogram>(&bytes)
        };
        assert!(forged(vec![(5, 1), (200, 2)]).is_ok());
        // a bucket past the last, out of order, repeated, empty, or a count no run reaches
        assert!(forged(vec![(u32::MAX, 1)]).is_err());
        assert!(forged(vec![(BUCKETS as u32, 1)]).is_err());
        assert!(forged(vec![(200, 1), (5, 1)]).is_err());
        assert!(forged(vec![(5, 1), (5, 1)]).is_err());
        assert!(forged(vec![(5, 0)]).is_err());
        assert!(forged(vec![(5, u64::MAX)]).is_err());
    }
}
