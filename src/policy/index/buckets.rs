//! Servers by free capacity in buckets of equal width, for best fit on large clusters.
//!
//! The keys (free capacity, index) of the servers that hold a job are spread over about two
//! buckets per server by their free capacity; a bitmap of the non-empty buckets finds the next
//! one. A bucket holds a short sorted vector, so an update is a removal from one bucket and an
//! insertion into another, each a few words moved, whatever the number of servers. A bucket
//! that many servers share (sizes from a short list make many equal free capacities) turns
//! into [`SortedBlocks`], which bounds every update at O(log L + B) as before. Empty servers,
//! whose free capacity is the whole server, are kept apart in a bitmap by index: they are the
//! best fit only when no busy server fits, and then the lowest index wins.

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
#[derive(Clone, Debug)]
pub(super) struct FreeBuckets {
    /// A key's bucket is `key >> shift`.
    shift: u32,
    buckets: Vec<Bucket>,
    /// The non-empty buckets.
    occupied: Bitmap,
    /// The servers whose free capacity is the whole server.
    empty: Bitmap,
}

/// Mask of the index bits of a key.
const INDEX: u64 = (1 << NARROW_INDEX_BITS) - 1;

impl FreeBuckets {
    /// `servers` empty servers.
    pub(in crate::policy) fn new(servers: usize) -> Self {
        // about two buckets per server, 64 to 2^16 of them, over the free capacities below one
        // server (< 2^46 units)
        let buckets = (2 * servers).next_power_of_two().clamp(64, 1 << 16);
        let shift = NARROW_INDEX_BITS + 46 - buckets.trailing_zeros();
        let n = ((narrow(Size::ONE, 0) >> shift) + 1) as usize;
        FreeBuckets {
            shift,
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
        let b = (k >> self.shift) as usize;
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
        let b = (k >> self.shift) as usize;
        self.buckets[b].remove(k);
        if self.buckets[b].len() == 0 {
            self.occupied.remove(b);
        }
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
        let b = (k >> self.shift) as usize;
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

    /// Free capacities drawn three ways: any value, one of five (ties that crowd a bucket into
    /// sorted blocks and back), or a whole empty server.
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
                    1 | 2 => Size(rng.random_range(0..Size::UNIT)),
                    _ => Size(rng.random_range(0..5) * Size::UNIT / 5),
                };
                let old = std::mem::replace(&mut free[i], value);
                if old != value {
                    b.replace(i as ServerId, old, value);
                }
                let size = if rng.random_bool(0.5) {
                    Size(rng.random_range(1..=Size::UNIT))
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
}
