//! Servers by free capacity in log-linear buckets, for best fit on large clusters.
//!
//! The keys (free capacity, index) of the servers that hold a job are spread over buckets by
//! their free capacity, a fixed number of equal width between each power of two and the next
//! (so a bucket is narrow where the capacities are small); a bitmap of the non-empty buckets
//! finds the next one. A bucket holds a short sorted vector, so an update is a removal from one
//! bucket and an insertion into another, each a few words moved, whatever the number of
//! servers. A bucket that many servers share (sizes from a short list make many equal free
//! capacities) turns into [`SortedBlocks`], which bounds every update at O(log L + B) as
//! before. Empty servers, whose free capacity is the whole server, are kept apart in a bitmap
//! by index: they are the best fit only when no busy server fits, and then the lowest index
//! wins.

use super::{BLOCK, NARROW_INDEX_BITS, SortedBlocks, narrow};
use crate::model::{ServerId, Size};

/// A set of integers below a bound: one bit each, and a summary bit per word of 64, so that the
/// first member at or after a point costs one or two word reads (at most one per 4096 integers
/// of distance).
#[derive(Clone, Debug)]
pub(in crate::policy) struct Bitmap {
    words: Vec<u64>,
    summary: Vec<u64>,
}

impl Bitmap {
    /// The empty set of integers below `n`.
    pub(in crate::policy) fn new(n: usize) -> Self {
        let words = n.div_ceil(64).max(1);
        Bitmap {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
        }
    }

    /// All integers below `n`.
    pub(in crate::policy) fn full(n: usize) -> Self {
        let mut bits = Bitmap::new(n);
        for i in 0..n {
            bits.insert(i);
        }
        bits
    }

    #[inline]
    pub(in crate::policy) fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
        self.summary[i / 4096] |= 1 << ((i / 64) % 64);
    }

    #[inline]
    pub(in crate::policy) fn remove(&mut self, i: usize) {
        let w = i / 64;
        self.words[w] &= !(1 << (i % 64));
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
    }

    /// Inserts `i` if `on`, removes it otherwise.
    #[inline]
    pub(in crate::policy) fn set(&mut self, i: usize, on: bool) {
        if on {
            self.insert(i);
        } else {
            self.remove(i);
        }
    }

    /// The least member ≥ `i`.
    #[inline]
    pub(in crate::policy) fn first_from(&self, i: usize) -> Option<usize> {
        let w = i / 64;
        let bits = self.words.get(w)? & (!0u64 << (i % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        let next = w + 1;
        let mut s = next / 64;
        let mut sbits = self.summary.get(s)? & (!0u64 << (next % 64));
        loop {
            if sbits != 0 {
                let word = s * 64 + sbits.trailing_zeros() as usize;
                return Some(word * 64 + self.words[word].trailing_zeros() as usize);
            }
            s += 1;
            sbits = *self.summary.get(s)?;
        }
    }

    /// The greatest member ≤ `i` (`i` below the bitmap's size).
    #[inline]
    pub(in crate::policy) fn last_to(&self, i: usize) -> Option<usize> {
        let w = i / 64;
        let bits = self.words[w] & (!0u64 >> (63 - i % 64));
        if bits != 0 {
            return Some(w * 64 + 63 - bits.leading_zeros() as usize);
        }
        let prev = w.checked_sub(1)?;
        let mut s = prev / 64;
        let mut sbits = self.summary[s] & (!0u64 >> (63 - prev % 64));
        loop {
            if sbits != 0 {
                let word = s * 64 + 63 - sbits.leading_zeros() as usize;
                return Some(word * 64 + 63 - self.words[word].leading_zeros() as usize);
            }
            s = s.checked_sub(1)?;
            sbits = self.summary[s];
        }
    }

    /// The greatest member.
    pub(in crate::policy) fn last(&self) -> Option<usize> {
        let s = self.summary.iter().rposition(|&b| b != 0)?;
        let word = s * 64 + 63 - self.summary[s].leading_zeros() as usize;
        Some(word * 64 + 63 - self.words[word].leading_zeros() as usize)
    }
}

/// The keys of one bucket, sorted: a vector while short, [`SortedBlocks`] when crowded.
#[derive(Clone, Debug)]
enum Bucket {
    Few(Vec<u64>),
    Many(Box<SortedBlocks<u64>>),
}

/// Keys a bucket keeps in a vector; one more makes it [`SortedBlocks`], and it goes back to a
/// vector below a quarter of this.
const FEW: usize = 2 * BLOCK;

impl Bucket {
    fn len(&self) -> usize {
        match self {
            Bucket::Few(v) => v.len(),
            Bucket::Many(b) => b.len(),
        }
    }

    /// The least key ≥ `k`.
    #[inline]
    fn successor(&self, k: u64) -> Option<u64> {
        match self {
            Bucket::Few(v) => v.get(v.partition_point(|&x| x < k)).copied(),
            Bucket::Many(b) => b.successor(k),
        }
    }

    #[inline]
    fn first(&self) -> u64 {
        match self {
            Bucket::Few(v) => v[0],
            Bucket::Many(b) => b.first().expect("an occupied bucket"),
        }
    }

    fn last(&self) -> u64 {
        match self {
            Bucket::Few(v) => v[v.len() - 1],
            Bucket::Many(b) => b.last().expect("an occupied bucket"),
        }
    }

    #[inline]
    fn insert(&mut self, k: u64) {
        match self {
            Bucket::Few(v) => {
                let p = v.partition_point(|&x| x < k);
                v.insert(p, k);
                if v.len() > FEW {
                    *self = Bucket::Many(Box::new(SortedBlocks::new(v.iter().copied())));
                }
            }
            Bucket::Many(b) => b.insert(k),
        }
    }

    #[inline]
    fn remove(&mut self, k: u64) {
        match self {
            Bucket::Few(v) => {
                let p = v.partition_point(|&x| x < k);
                debug_assert_eq!(v.get(p), Some(&k), "the key is in its bucket");
                v.remove(p);
            }
            Bucket::Many(b) => {
                b.remove(k);
                if b.len() < FEW / 4 {
                    *self = Bucket::Few(b.iter().copied().collect());
                }
            }
        }
    }
}

/// Servers by (free capacity, index) for "least free ≥ size, lowest index": busy servers in
/// buckets of free capacity, empty servers in a bitmap by index. For up to 2^18 servers.
///
/// The buckets are log-linear in the free capacity (as a floating-point number's exponent and
/// leading mantissa bits): 2^`sub` buckets of equal width between each power of two and the
/// next, down to 2^−24 of a server. Near a policy's limit best fit leaves each server a sliver,
/// a gap between the sizes waiting (about 10⁻⁴ of a server with thousands waiting); buckets
/// of equal width would crowd every busy server into the lowest one.
#[derive(Clone, Debug)]
pub(super) struct FreeBuckets {
    /// Bits of a bucket's position within its power of two.
    sub: u32,
    buckets: Vec<Bucket>,
    /// The non-empty buckets.
    occupied: Bitmap,
    /// The servers whose free capacity is the whole server.
    empty: Bitmap,
}

/// Mask of the index bits of a key.
const INDEX: u64 = (1 << NARROW_INDEX_BITS) - 1;

/// Free capacities below 2^`FLOOR` units (about 10⁻⁷ of a server) share the lowest buckets.
const FLOOR: u32 = 22;

/// Bits of a free capacity above [`FLOOR`] (a capacity is below 2^46 units).
const LEVEL_BITS: u32 = 46 - FLOOR;

/// The bucket of free capacity `v` units (shifted right by [`FLOOR`]) with 2^`sub` buckets per
/// power of two: non-decreasing in `v`.
#[inline]
fn bucket_of(v: u64, sub: u32) -> usize {
    if v < 1 << sub {
        return v as usize;
    }
    let e = 63 - v.leading_zeros();
    let within = (v >> (e - sub)) & ((1 << sub) - 1);
    (((e - sub + 1) as u64) << sub | within) as usize
}

impl FreeBuckets {
    /// `servers` empty servers.
    pub(in crate::policy) fn new(servers: usize) -> Self {
        // a quarter as many buckets per power of two as servers, 4 to 2^10 (so 92 to 15,360
        // buckets): free capacities spread over the whole server put about two servers in a
        // bucket of the top power up to 4,096 servers; above, fewer buckets stay in the cache
        // (with 2^12 per power BF-J/S was 15-25 % slower at 10^4 servers)
        let sub = servers
            .next_power_of_two()
            .trailing_zeros()
            .saturating_sub(2)
            .clamp(2, 10);
        let n = bucket_of((1 << LEVEL_BITS) - 1, sub) + 1;
        FreeBuckets {
            sub,
            buckets: vec![Bucket::Few(Vec::new()); n],
            occupied: Bitmap::new(n),
            empty: Bitmap::full(servers),
        }
    }

    fn add(&mut self, free: Size, i: ServerId) {
        if free == Size::ONE {
            self.empty.insert(i as usize);
            return;
        }
        let k = narrow(free, i);
        let b = self.bucket(free);
        if self.buckets[b].len() == 0 {
            self.occupied.insert(b);
        }
        self.buckets[b].insert(k);
    }

    fn take(&mut self, free: Size, i: ServerId) {
        if free == Size::ONE {
            self.empty.remove(i as usize);
            return;
        }
        let k = narrow(free, i);
        let b = self.bucket(free);
        self.buckets[b].remove(k);
        if self.buckets[b].len() == 0 {
            self.occupied.remove(b);
        }
    }

    /// The bucket of free capacity `free` (below a whole server).
    #[inline]
    fn bucket(&self, free: Size) -> usize {
        bucket_of(free.0 >> FLOOR, self.sub)
    }

    /// Server `i`'s free capacity went from `old` to `free`.
    #[inline]
    pub(super) fn replace(&mut self, i: ServerId, old: Size, free: Size) {
        self.take(old, i);
        self.add(free, i);
    }

    /// The server with the least free capacity ≥ `size` (lowest index among ties).
    #[inline]
    pub(super) fn best_fit(&self, size: Size) -> Option<ServerId> {
        let k = narrow(size, 0);
        let b = self.bucket(size);
        if let Some(found) = self.buckets.get(b).and_then(|bucket| bucket.successor(k)) {
            return Some((found & INDEX) as ServerId);
        }
        if let Some(next) = self.occupied.first_from(b + 1) {
            return Some((self.buckets[next].first() & INDEX) as ServerId);
        }
        if size <= Size::ONE {
            return self.empty.first_from(0).map(|i| i as ServerId);
        }
        None
    }

    /// The largest free capacity of any server (zero without servers).
    pub(super) fn max_free(&self) -> Size {
        if self.empty.first_from(0).is_some() {
            return Size::ONE;
        }
        self.occupied.last().map_or(Size::ZERO, |b| {
            Size(self.buckets[b].last() >> NARROW_INDEX_BITS)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn bitmap_matches_a_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        for n in [1usize, 63, 64, 65, 4096, 4097, 20_000] {
            let full = Bitmap::full(n);
            assert_eq!(full.first_from(0), Some(0));
            assert_eq!(full.first_from(n - 1), Some(n - 1));
            assert_eq!(full.first_from(n), None);
            assert_eq!(full.last(), Some(n - 1));
            let mut bits = Bitmap::new(n);
            let mut set = vec![false; n];
            for _ in 0..3000 {
                let i = rng.random_range(0..n);
                set[i] = rng.random_bool(0.3);
                if set[i] {
                    bits.insert(i);
                } else {
                    bits.remove(i);
                }
                let from = rng.random_range(0..=n);
                assert_eq!(bits.first_from(from), (from..n).find(|&j| set[j]));
                assert_eq!(bits.last(), (0..n).rev().find(|&j| set[j]));
                let to = rng.random_range(0..n);
                assert_eq!(bits.last_to(to), (0..=to).rev().find(|&j| set[j]));
            }
        }
    }

    /// Free capacities drawn four ways: any value, a sliver (2^−8 to 2^−40 of a server, across
    /// the log-linear buckets and below their floor), one of five (ties that crowd a bucket
    /// into sorted blocks and back), or a whole empty server.
    #[test]
    fn free_buckets_match_a_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        for n in [17usize, 100, 1000, 5000] {
            let mut b = FreeBuckets::new(n);
            let mut free = vec![Size::ONE; n];
            for step in 0..20_000 {
                let i = rng.random_range(0..n);
                let value = match (step / 5000) % 2 * 3 + rng.random_range(0..3) {
                    0 | 3 => Size::ONE,
                    1 => Size(rng.random_range(0..Size::UNIT)),
                    // slivers, spread over many powers of two down to below the floor
                    2 => Size(Size::UNIT >> rng.random_range(8..40) | rng.random_range(0..64)),
                    _ => Size(rng.random_range(0..5) * Size::UNIT / 5),
                };
                let old = std::mem::replace(&mut free[i], value);
                if old != value {
                    b.replace(i as ServerId, old, value);
                }
                let size = if rng.random_bool(0.25) {
                    Size(rng.random_range(1..=Size::UNIT))
                } else if rng.random_bool(0.33) {
                    Size((Size::UNIT >> rng.random_range(8..40)).max(1))
                } else {
                    free[rng.random_range(0..n)].max(Size(1))
                };
                let want = (0..n)
                    .filter(|&j| free[j] >= size)
                    .min_by_key(|&j| (free[j], j))
                    .map(|j| j as ServerId);
                assert_eq!(b.best_fit(size), want, "n = {n}, step {step}");
                assert_eq!(b.max_free(), *free.iter().max().unwrap());
            }
        }
    }

    /// Buckets never go down as the free capacity goes up, and fill their range.
    #[test]
    fn buckets_are_monotone() {
        let top = (1u64 << LEVEL_BITS) - 1;
        let mut values: Vec<u64> = (0..LEVEL_BITS)
            .flat_map(|e| {
                let p = 1u64 << e;
                [p - 1, p, p + 1, p + p / 2, p + p / 3]
            })
            .chain((0..3000).map(|k| k * 7919 % (top + 1)))
            .chain([top])
            .filter(|&v| v <= top)
            .collect();
        values.sort_unstable();
        values.dedup();
        for sub in 2..=10 {
            let n = bucket_of(top, sub) + 1;
            let buckets: Vec<usize> = values.iter().map(|&v| bucket_of(v, sub)).collect();
            assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "sub {sub}");
            assert_eq!(buckets[0], 0);
            assert_eq!(buckets[buckets.len() - 1], n - 1);
        }
    }
}
