//! Ordered structures that keep every policy decision at O(log n) per job: no linear scan over
//! the queue or over the servers.
//!
//! - `SizeQueue`: waiting jobs by size; "largest job ≤ free" (BF-S).
//! - [`BestFitServers`]: servers by free capacity; "least free ≥ size, lowest index" (BF-J),
//!   over buckets of free capacity found through a bitmap above a few servers, and
//!   `SortedBlocks` (a two-level B+ tree) for crowded buckets and very large clusters.
//! - `FirstFitServers`: max-tree over server indices; "lowest index ≥ i with free ≥ size"
//!   (FIFO-FF, and skipping servers that cannot take anything).
//! - `ArrivalIndex`: min-tree over waiting jobs in arrival order; "first job, in arrival
//!   order, of size ≤ x" (BF-J on its own).
//! - `SortedBatch`: a slot's large batch sorted by size once, taken from beside the queue.

use std::collections::VecDeque;

mod batch;
mod buckets;
pub(crate) use batch::{SortedBatch, give_back};
pub(super) use buckets::Bitmap;

use buckets::FreeBuckets;

use crate::model::{Job, ServerId, Size};
use crate::sim::Cluster;

/// Waiting jobs ordered by size, for "the largest job ≤ free, earliest among equal sizes".
///
/// While at most [`SMALL`] jobs wait they are kept in one sorted vector: no bucket is touched,
/// and a queue that keeps emptying and refilling stays cheap. Above, jobs are grouped by exact
/// size, each group in arrival order, and the sizes are kept in [`BUCKETS`] buckets of equal
/// width with a bitmap of the non-empty ones (`Long`): a query is one division, a search in one
/// short sorted vector of 8-byte keys, and at most a predecessor in the bitmap, whatever the
/// queue's length. A workload with few distinct sizes (a trace, a discrete law) costs one key
/// per size and 24 bytes per job; a continuous law one key per job, about 25 per bucket at 10⁵
/// waiting.
/// (A `BTreeMap` by size did the same in O(log n) with node moves per insert and remove; near a
/// policy's limit, with thousands of distinct sizes waiting, it was most of BF-J/S's time.)
#[derive(Clone, Debug, Default)]
pub(crate) struct SizeQueue {
    /// Up to [`SMALL`] jobs by (size, arrival), while the long form is empty: whole jobs, so
    /// that a take copies one out as stored rather than rebuilding it field by field.
    small: Vec<Job>,
    /// Above: the buckets (allocated on first use and kept for the next long queue).
    long: Option<Box<Long>>,
    /// Jobs waiting (all in `small`, or all in `long`).
    len: usize,
}

/// A job's place-holder, for a take to write into.
pub(crate) const NO_JOB: Job = Job {
    id: 0,
    size: Size::ZERO,
    service: 0,
    arrival: 0,
    class: 0,
    kind: 0,
};

/// Most jobs a [`SizeQueue`] keeps in its sorted vector.
pub(crate) const SMALL: usize = 32;

/// Buckets of a long [`SizeQueue`]: bucket k holds the sizes in [k·W, (k + 1)·W) with
/// W = `Size::UNIT / BUCKETS` (the last one also a full server).
pub(crate) const BUCKETS: usize = 4096;

/// The width W of a bucket, fixed-point units.
const WIDTH: u64 = Size::UNIT / BUCKETS as u64;

/// Bits of a group's slot in a [`Long`] key, below the size's offset in its bucket.
const SLOT_BITS: u32 = 30;

/// The long form of a [`SizeQueue`].
///
/// A bucket keeps only keys, one per distinct size: the size's offset from the bucket's start
/// above the slot of its group (`offset << SLOT_BITS | slot`), in increasing order. Searches
/// and shifts touch 8 bytes a size (48 when each size was kept beside its jobs); the jobs
/// wait in `groups`, where a freed slot is reused first, so that an insert writes where a take
/// just read.
#[derive(Clone, Debug)]
struct Long {
    /// Per bucket, its keys in increasing order of size.
    buckets: Vec<Vec<u64>>,
    /// The non-empty buckets.
    used: Bitmap,
    /// Per slot, the waiting jobs of one size (a free slot's group is stale).
    groups: Vec<Group>,
    /// The free slots, the last freed at the end.
    free_slots: Vec<u32>,
    /// The smallest size waiting (`u64::MAX` when none): a server with less room is answered
    /// without a look at the buckets.
    min: u64,
}

impl Long {
    fn new() -> Self {
        const _: () = assert!(Size::UNIT.is_multiple_of(BUCKETS as u64));
        // the offset of a size in its bucket (a full server's in the last) fits above a slot
        const _: () = assert!(WIDTH < 1 << (64 - SLOT_BITS));
        // more distinct sizes than a queue may hold jobs never wait at once
        const _: () = assert!(crate::limits::MAX_QUEUE_CAP < 1 << SLOT_BITS);
        Long {
            buckets: vec![Vec::new(); BUCKETS],
            used: Bitmap::new(BUCKETS),
            groups: Vec::new(),
            free_slots: Vec::new(),
            min: u64::MAX,
        }
    }

    #[inline]
    fn bucket(size: u64) -> usize {
        ((size / WIDTH) as usize).min(BUCKETS - 1)
    }

    /// The size's offset from the start of its bucket `b`.
    #[inline]
    fn offset(size: u64, b: usize) -> u64 {
        size - b as u64 * WIDTH
    }

    /// The size of key `k` in bucket `b`.
    #[inline]
    fn size_of(k: u64, b: usize) -> u64 {
        (k >> SLOT_BITS) + b as u64 * WIDTH
    }

    /// The slot of key `k`.
    #[inline]
    fn slot(k: u64) -> usize {
        (k & ((1 << SLOT_BITS) - 1)) as usize
    }

    fn add(&mut self, size: u64, w: Waiting) {
        self.min = self.min.min(size);
        let b = Self::bucket(size);
        let off = Self::offset(size, b);
        let v = &mut self.buckets[b];
        let p = v.partition_point(|&k| k >> SLOT_BITS < off);
        match v.get(p) {
            Some(&k) if k >> SLOT_BITS == off => self.groups[Self::slot(k)].add(w),
            _ => {
                let slot = match self.free_slots.pop() {
                    Some(s) => {
                        self.groups[s as usize] = Group::One(w);
                        s as u64
                    }
                    None => {
                        // the run loop cuts a queue off at 10⁷ jobs, far below
                        assert!(
                            self.groups.len() < 1 << SLOT_BITS,
                            "more than 2^30 distinct sizes waiting"
                        );
                        self.groups.push(Group::One(w));
                        (self.groups.len() - 1) as u64
                    }
                };
                v.insert(p, off << SLOT_BITS | slot);
                if v.len() == 1 {
                    self.used.insert(b);
                }
            }
        }
    }

    /// The bucket and position of the largest size ≤ `free`. (A take answers a `free` below
    /// the smallest size before it calls; here such a search finds no bucket below.)
    #[inline]
    fn find(&self, free: u64) -> Option<(usize, usize)> {
        let b = Self::bucket(free);
        let off = Self::offset(free, b);
        let p = self.buckets[b].partition_point(|&k| k >> SLOT_BITS <= off);
        if p > 0 {
            return Some((b, p - 1));
        }
        let b = self.used.last_to(b.checked_sub(1)?)?;
        Some((b, self.buckets[b].len() - 1))
    }

    /// The size at position `p` of bucket `b`.
    #[inline]
    fn size_at(&self, b: usize, p: usize) -> u64 {
        Self::size_of(self.buckets[b][p], b)
    }

    /// The earliest job of the size at position `p` of bucket `b`, removed with its size.
    #[inline]
    fn take(&mut self, b: usize, p: usize) -> Waiting {
        let v = &mut self.buckets[b];
        let slot = Self::slot(v[p]);
        let (w, emptied) = self.groups[slot].pop();
        if emptied {
            let size = Self::size_of(v[p], b);
            v.remove(p);
            if v.is_empty() {
                self.used.remove(b);
            }
            self.free_slots.push(slot as u32);
            if size == self.min {
                self.min = self
                    .used
                    .first_from(0)
                    .map_or(u64::MAX, |b| Self::size_of(self.buckets[b][0], b));
            }
        }
        w
    }

    /// The smallest size.
    #[inline]
    fn min_size(&self) -> Option<u64> {
        (self.min != u64::MAX).then_some(self.min)
    }

    /// Every size with its group, from the smallest.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = (u64, &Group)> + '_ {
        (self.buckets.iter().enumerate())
            .flat_map(move |(b, v)| v.iter().map(move |&k| (b, k)))
            .map(|(b, k)| (Self::size_of(k, b), &self.groups[Self::slot(k)]))
    }
}

/// What a [`SizeQueue`] keeps of a job besides its size: 24 bytes.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    id: u64,
    arrival: u64,
    service: u32,
    class: u8,
    kind: u8,
}

impl Waiting {
    #[inline]
    fn of(job: &Job) -> Self {
        Waiting {
            id: job.id,
            arrival: job.arrival,
            service: job.service,
            class: job.class,
            kind: job.kind,
        }
    }

    #[inline]
    fn job(self, size: u64) -> Job {
        Job {
            id: self.id,
            size: Size(size),
            service: self.service,
            arrival: self.arrival,
            class: self.class,
            kind: self.kind,
        }
    }
}

/// The waiting jobs of one size, earliest first (a single job without a buffer).
#[derive(Clone, Debug)]
enum Group {
    One(Waiting),
    Many(VecDeque<Waiting>),
}

impl Group {
    #[cfg(test)]
    fn front(&self) -> Waiting {
        match self {
            Group::One(w) => *w,
            Group::Many(q) => q[0],
        }
    }

    /// Adds `w` in arrival order (at the back unless it arrived before a job already here).
    fn add(&mut self, w: Waiting) {
        match self {
            Group::One(first) => {
                let first = *first;
                let pair = if w.id < first.id {
                    [w, first]
                } else {
                    [first, w]
                };
                *self = Group::Many(VecDeque::from(pair));
            }
            Group::Many(q) => {
                if q.back().is_some_and(|b| b.id > w.id) {
                    let p = q.partition_point(|x| x.id < w.id);
                    q.insert(p, w);
                } else {
                    q.push_back(w);
                }
            }
        }
    }

    /// Removes the earliest job; true when the group is left empty.
    #[inline]
    fn pop(&mut self) -> (Waiting, bool) {
        match self {
            Group::One(w) => (*w, true),
            Group::Many(q) => {
                let w = q.pop_front().expect("a group is never empty");
                (w, q.is_empty())
            }
        }
    }
}

impl SizeQueue {
    /// Whether the jobs are in the long form.
    #[inline]
    fn is_long(&self) -> bool {
        self.small.len() != self.len
    }

    /// Adds a waiting job.
    pub(crate) fn insert(&mut self, job: Job) {
        if !self.is_long() && self.small.len() < SMALL {
            self.len += 1;
            let key = (job.size, job.id);
            let p = self.small.partition_point(|x| (x.size, x.id) < key);
            self.small.insert(p, job);
            return;
        }
        self.len += 1;
        let long = self.long.get_or_insert_with(|| Box::new(Long::new()));
        if !self.small.is_empty() {
            // the vector keeps its allocation for when the queue is short again
            for x in &self.small {
                long.add(x.size.0, Waiting::of(x));
            }
            self.small.clear();
        }
        long.add(job.size.0, Waiting::of(&job));
    }

    /// Jobs waiting.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The smallest waiting size.
    pub(crate) fn min_size(&self) -> Option<Size> {
        match self.small.first() {
            Some(j) => Some(j.size),
            None if self.len > 0 => self.long.as_ref()?.min_size().map(Size),
            None => None,
        }
    }

    /// Position in `small` of the earliest of the largest jobs of size ≤ `free`.
    #[inline]
    fn small_pick(&self, free: Size) -> Option<usize> {
        let end = self.small.partition_point(|j| j.size <= free);
        let size = self.small[..end].last()?.size;
        // the earliest of that size: the job just found, unless sizes repeat
        let mut p = end - 1;
        while p > 0 && self.small[p - 1].size == size {
            p -= 1;
        }
        Some(p)
    }

    /// The largest waiting job of size ≤ `free` (earliest arrival among equal sizes).
    #[cfg(test)]
    pub(crate) fn largest_at_most(&self, free: Size) -> Option<Job> {
        if !self.is_long() {
            let p = self.small_pick(free)?;
            return Some(self.small[p]);
        }
        let long = self.long.as_ref()?;
        let (b, p) = long.find(free.0)?;
        let s = long.size_at(b, p);
        Some(long.groups[Long::slot(long.buckets[b][p])].front().job(s))
    }

    /// The largest waiting job of size ≤ `free` (earliest arrival among equal sizes), removed
    /// into `out`: whether there was one.
    #[inline(always)]
    pub(crate) fn take_largest_at_most_into(&mut self, free: Size, out: &mut Job) -> bool {
        self.take_into(None, free, out)
    }

    /// The largest waiting job of size in (`above`, `free`] (earliest arrival among equal
    /// sizes), removed into `out`: whether there was one.
    #[inline(always)]
    pub(crate) fn take_largest_between_into(
        &mut self,
        above: Size,
        free: Size,
        out: &mut Job,
    ) -> bool {
        self.take_into(Some(above), free, out)
    }

    /// [`Self::take_largest_at_most_into`], returned.
    #[cfg(test)]
    pub(crate) fn take_largest_at_most(&mut self, free: Size) -> Option<Job> {
        let mut job = NO_JOB;
        self.take_into(None, free, &mut job).then_some(job)
    }

    /// [`Self::take_largest_between_into`], returned.
    #[cfg(test)]
    pub(crate) fn take_largest_between(&mut self, above: Size, free: Size) -> Option<Job> {
        let mut job = NO_JOB;
        self.take_into(Some(above), free, &mut job).then_some(job)
    }

    /// The largest waiting job of size ≤ `free`, removed into `out` unless its size is
    /// ≤ `above`: whether one was.
    ///
    /// The short vector's case is inlined into the callers (measured faster for VQS-BF, whose
    /// takes are many and small); the long form's case stays out of line. The job is written
    /// where the caller keeps it, not returned: an `Option<Job>` returned from the call was
    /// written field by field and then copied by 16-byte loads, each of which waited for the
    /// stores it spans to reach the cache (a store-forwarding stall, whose removal made VQS-BF
    /// 5–7 % faster near the limit).
    #[inline(always)]
    fn take_into(&mut self, above: Option<Size>, free: Size, out: &mut Job) -> bool {
        if self.is_long() {
            // a server with less room than the smallest waiting size is answered here, without
            // the call (nearly every visit ends with one such take)
            if self.long.as_ref().is_none_or(|l| free.0 < l.min) {
                return false;
            }
            return self.take_largest_long(above, free, out);
        }
        let Some(p) = self.small_pick(free) else {
            return false;
        };
        if above.is_some_and(|a| self.small[p].size <= a) {
            return false;
        }
        self.len -= 1;
        *out = self.small.remove(p);
        true
    }

    /// [`Self::take_into`] over the buckets.
    #[inline(never)]
    fn take_largest_long(&mut self, above: Option<Size>, free: Size, out: &mut Job) -> bool {
        let Some(long) = self.long.as_mut() else {
            return false;
        };
        let Some((b, p)) = long.find(free.0) else {
            return false;
        };
        let s = long.size_at(b, p);
        if above.is_some_and(|a| s <= a.0) {
            return false;
        }
        let w = long.take(b, p);
        self.len -= 1;
        *out = w.job(s);
        true
    }

    #[cfg(test)]
    /// Waiting jobs from smallest to largest (earliest first among equal sizes).
    pub(crate) fn iter(&self) -> impl Iterator<Item = Job> + '_ {
        let small = self.small.iter().copied();
        let long = self.long.iter().filter(|_| self.is_long());
        let grouped = long.flat_map(|l| l.iter()).flat_map(|(s, g)| {
            let (one, many) = match g {
                Group::One(w) => (Some(*w), None),
                Group::Many(q) => (None, Some(q.iter().copied())),
            };
            one.into_iter()
                .chain(many.into_iter().flatten())
                .map(move |w| w.job(s))
        });
        small.chain(grouped)
    }
}

/// Servers ordered by free capacity, for best fit: "least free ≥ size, lowest index".
///
/// Up to `SCAN` servers the free capacities are scanned (an update is one store). Up to 2^18
/// servers the keys (free, index) are kept in log-linear buckets of free capacity (`buckets`):
/// an update moves a key between two short sorted vectors, and no update costs more than
/// O(log L + B) even when many servers share a free capacity. Above, in `SortedBlocks`, where
/// an update and a query cost O(log L + B) with a fixed block size B, and no update moves more
/// than one block.
///
/// Above `SCAN` servers an update can be deferred ([`Self::defer`]): the server is marked
/// stale, and the order is brought up to date only when a query could find a server. A query
/// for more than every server's free capacity (an upper bound kept beside the order) is
/// answered "none" at once. Near a policy's limit nothing waiting fits anywhere after a slot
/// and arrivals rarely fit, so a server that changes several times between two queries that
/// can find one moves in the order once, or not at all.
#[derive(Clone, Debug)]
pub struct BestFitServers {
    free: Vec<Size>,
    order: Order,
    /// Servers whose key in `order` is out of date, each with the free capacity it holds
    /// there.
    stale: Vec<(ServerId, Size)>,
    /// `is_stale[i]`: server `i` is in `stale`.
    is_stale: Vec<bool>,
    /// At least every server's free capacity.
    bound: Size,
}

/// The sorted keys (free, index) of [`BestFitServers`]: up to [`SCAN`] servers, unsorted and
/// scanned; above, packed in 64 bits while the indices fit beside a capacity (free < 2^46) and
/// bucketed, in 128 bits above.
#[derive(Clone, Debug)]
enum Order {
    Scan(Vec<u64>),
    Narrow(FreeBuckets),
    Wide(SortedBlocks<u128>),
}

/// Bits of a server index in the key of a scanned cluster (at most [`SCAN`] servers).
const SCAN_INDEX_BITS: u32 = 4;

/// Bits of a server index in a 64-bit key (a capacity needs 46).
const NARROW_INDEX_BITS: u32 = 18;

/// Largest cluster whose best fit is a scan of the free capacities.
pub(crate) const SCAN: usize = 16;

/// The 64-bit key of server `i` with free capacity `free`: by free capacity, then by index.
#[inline]
fn narrow(free: Size, i: ServerId) -> u64 {
    free.0 << NARROW_INDEX_BITS | i as u64
}

/// The 128-bit key of server `i` with free capacity `free`.
#[inline]
fn wide(free: Size, i: ServerId) -> u128 {
    (free.0 as u128) << 32 | i as u128
}

impl BestFitServers {
    /// `servers` servers, all empty.
    pub fn new(servers: usize) -> Self {
        const _: () = assert!(Size::UNIT < 1 << (64 - NARROW_INDEX_BITS));
        const _: () = assert!(SCAN <= 1 << SCAN_INDEX_BITS);
        let ids = 0..servers as ServerId;
        BestFitServers {
            free: vec![Size::ONE; servers],
            stale: Vec::new(),
            is_stale: vec![false; servers],
            bound: Size::ONE,
            order: if servers <= SCAN {
                Order::Scan(ids.map(|i| scan_key(Size::ONE, i)).collect())
            } else if servers <= 1 << NARROW_INDEX_BITS {
                Order::Narrow(FreeBuckets::new(servers))
            } else {
                Order::Wide(SortedBlocks::new(ids.map(|i| wide(Size::ONE, i))))
            },
        }
    }

    /// Server `i` now has `free` capacity.
    #[inline]
    pub fn update(&mut self, i: ServerId, free: Size) {
        self.set(i, free, false);
    }

    /// Server `i` now has `free` capacity, as [`Self::update`], but its key moves in the order
    /// only at the next query that could find a server: the cheaper choice when servers change
    /// several times between queries, or when queries are mostly for more than any server has
    /// (a long queue, near a policy's limit).
    #[inline]
    pub fn defer(&mut self, i: ServerId, free: Size) {
        self.set(i, free, true);
    }

    /// [`Self::update`] or, if `later`, [`Self::defer`], for a caller that chooses at run
    /// time. A server already stale stays so.
    #[inline(always)]
    pub(crate) fn set(&mut self, i: ServerId, free: Size, later: bool) {
        let old = std::mem::replace(&mut self.free[i as usize], free);
        match &mut self.order {
            Order::Scan(keys) => keys[i as usize] = scan_key(free, i),
            _ => {
                self.bound = self.bound.max(free);
                if old == free || self.is_stale[i as usize] {
                    return;
                }
                if later {
                    self.is_stale[i as usize] = true;
                    self.stale.push((i, old));
                } else {
                    self.reorder(i, old, free);
                }
            }
        }
    }

    /// Moves server `i`'s key from free capacity `old` to `free` in the sorted order (kept
    /// out of line, so that the scanned case of [`Self::update`] stays one store).
    #[inline(never)]
    fn reorder(&mut self, i: ServerId, old: Size, free: Size) {
        match &mut self.order {
            Order::Scan(_) => {}
            Order::Narrow(o) => o.replace(i, old, free),
            Order::Wide(o) => o.replace(wide(old, i), wide(free, i)),
        }
    }

    /// Moves every stale server's key to its free capacity in the sorted order.
    #[inline]
    fn refresh(&mut self) {
        if !self.stale.is_empty() {
            self.move_stale();
        }
    }

    /// [`Self::refresh`]'s work, out of line.
    #[inline(never)]
    fn move_stale(&mut self) {
        let mut stale = std::mem::take(&mut self.stale);
        for (i, old) in stale.drain(..) {
            self.is_stale[i as usize] = false;
            let free = self.free[i as usize];
            if old != free {
                self.reorder(i, old, free);
            }
        }
        self.stale = stale;
    }

    /// The server with the least free capacity ≥ `size` (lowest index among ties).
    #[inline]
    pub fn best_fit(&mut self, size: Size) -> Option<ServerId> {
        match &self.order {
            Order::Scan(keys) => {
                // the least key (free, index) among the servers that fit, without branches: a
                // key is at least the threshold exactly when its server's free capacity is at
                // least `size`
                let threshold = scan_key(size, 0);
                let best = keys.iter().fold(u64::MAX, |best, &k| {
                    best.min(if k >= threshold { k } else { u64::MAX })
                });
                const MASK: u64 = (1 << SCAN_INDEX_BITS) - 1;
                (best != u64::MAX).then_some((best & MASK) as ServerId)
            }
            _ => self.best_fit_ordered(size),
        }
    }

    /// [`Self::best_fit`] over the sorted keys: none at once when `size` is above the bound,
    /// otherwise after a refresh; a miss tightens the bound to the largest free capacity (out
    /// of line: the scanned case stays short).
    #[inline(never)]
    fn best_fit_ordered(&mut self, size: Size) -> Option<ServerId> {
        if size > self.bound {
            return None;
        }
        self.refresh();
        let found = match &self.order {
            Order::Scan(_) => unreachable!("scanned clusters are searched inline"),
            Order::Narrow(o) => o.best_fit(size),
            Order::Wide(o) => o.successor(wide(size, 0)).map(|k| k as ServerId),
        };
        if found.is_none() {
            self.bound = self.max_free();
        }
        found
    }

    /// The largest free capacity of any server.
    #[inline]
    pub fn max_free(&mut self) -> Size {
        self.refresh();
        match &self.order {
            Order::Narrow(o) => o.max_free(),
            Order::Wide(o) => o.last().map_or(Size::ZERO, |k| Size((k >> 32) as u64)),
            Order::Scan(_) => self.free.iter().max().copied().unwrap_or(Size::ZERO),
        }
    }
}

/// The key of server `i` (< [`SCAN`]) with free capacity `free` in a scanned cluster.
#[inline]
fn scan_key(free: Size, i: ServerId) -> u64 {
    debug_assert!((i as usize) < SCAN);
    free.0 << SCAN_INDEX_BITS | i as u64
}

/// A sorted set of distinct keys in blocks of between [`BLOCK`]/4 and 2·[`BLOCK`] keys (a B+
/// tree of height two): the first key of every block in one sorted array, searched by
/// bisection; an insertion or removal shifts keys inside one block only. Splitting or merging
/// a block shifts the array of blocks, once per about [`BLOCK`] updates of that block.
#[derive(Clone, Debug)]
pub(crate) struct SortedBlocks<K> {
    blocks: Vec<Vec<K>>,
    /// `firsts[b]` = `blocks[b][0]`.
    firsts: Vec<K>,
    /// Keys held.
    len: usize,
}

/// Target block length of [`SortedBlocks`].
pub(crate) const BLOCK: usize = 32;

impl<K: Copy + Ord + Default> SortedBlocks<K> {
    /// The keys of `sorted`, which must be increasing.
    pub(crate) fn new(sorted: impl Iterator<Item = K>) -> Self {
        let all: Vec<K> = sorted.collect();
        debug_assert!(all.windows(2).all(|w| w[0] < w[1]));
        let blocks: Vec<Vec<K>> = if all.is_empty() {
            vec![Vec::new()]
        } else {
            all.chunks(BLOCK).map(|c| c.to_vec()).collect()
        };
        let firsts = blocks
            .iter()
            .map(|b| b.first().copied().unwrap_or_default())
            .collect();
        SortedBlocks {
            len: all.len(),
            blocks,
            firsts,
        }
    }

    /// Keys held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The least key.
    pub(crate) fn first(&self) -> Option<K> {
        self.blocks[0].first().copied()
    }

    /// Removes key `k` (present).
    pub(crate) fn remove(&mut self, k: K) {
        let b = self.block_of(k);
        let p = self.blocks[b]
            .binary_search(&k)
            .expect("the key is in the set");
        self.remove_at(b, p);
    }

    /// The block that holds `k` if present: the last whose first key is ≤ `k` (or the first).
    #[inline]
    fn block_of(&self, k: K) -> usize {
        self.firsts.partition_point(|&f| f <= k).saturating_sub(1)
    }

    /// The least key ≥ `k`.
    #[inline]
    pub(crate) fn successor(&self, k: K) -> Option<K> {
        let b = self.block_of(k);
        let block = &self.blocks[b];
        let p = rank(block, k);
        match block.get(p) {
            Some(&x) => Some(x),
            None => self.blocks.get(b + 1).map(|n| n[0]),
        }
    }

    /// The greatest key.
    pub(crate) fn last(&self) -> Option<K> {
        self.blocks.last().and_then(|b| b.last()).copied()
    }

    /// Replaces key `old` (present) by `new` (absent).
    #[inline]
    pub(crate) fn replace(&mut self, old: K, new: K) {
        let b = self.block_of(old);
        let p = self.blocks[b]
            .binary_search(&old)
            .expect("the key is in the set");
        // the new key keeps the order in the same block (between the neighbouring blocks'
        // keys): one shift inside it
        let after_previous = b == 0 || self.blocks[b - 1].last().is_none_or(|&x| new > x);
        let before_next = self.firsts.get(b + 1).is_none_or(|&f| new < f);
        if after_previous && before_next {
            let block = &mut self.blocks[b];
            let q = rank(block, new);
            if q > p {
                block[p..q].rotate_left(1);
                block[q - 1] = new;
            } else {
                block[q..=p].rotate_right(1);
                block[q] = new;
            }
            self.firsts[b] = block[0];
            return;
        }
        self.remove_at(b, p);
        self.insert(new);
    }

    /// Inserts `k` (absent).
    pub(crate) fn insert(&mut self, k: K) {
        self.len += 1;
        let b = self.block_of(k);
        let block = &mut self.blocks[b];
        let p = rank(block, k);
        block.insert(p, k);
        self.firsts[b] = block[0];
        if block.len() > 2 * BLOCK {
            let tail = block.split_off(BLOCK);
            self.firsts.insert(b + 1, tail[0]);
            self.blocks.insert(b + 1, tail);
        }
    }

    /// Removes the `p`-th key of block `b`; merges a block that became short with a neighbour.
    fn remove_at(&mut self, b: usize, p: usize) {
        self.len -= 1;
        let block = &mut self.blocks[b];
        block.remove(p);
        if let Some(&f) = block.first() {
            self.firsts[b] = f;
        }
        if block.len() >= BLOCK / 4 || self.blocks.len() == 1 {
            return;
        }
        // merge with the next block (or the previous), splitting again if too long
        let (l, r) = if b + 1 < self.blocks.len() {
            (b, b + 1)
        } else {
            (b - 1, b)
        };
        let right = self.blocks.remove(r);
        self.firsts.remove(r);
        self.blocks[l].extend(right);
        if self.blocks[l].len() > 2 * BLOCK {
            let half = self.blocks[l].len() / 2;
            let tail = self.blocks[l].split_off(half);
            self.firsts.insert(l + 1, tail[0]);
            self.blocks.insert(l + 1, tail);
        }
        self.firsts[l] = self.blocks[l][0];
    }

    /// Every key, in order (for tests).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &K> {
        self.blocks.iter().flatten()
    }
}

/// The number of keys of the (short) sorted `block` below `k`: a count without branches, which
/// the compiler vectorises, rather than a bisection.
#[inline]
fn rank<K: Copy + Ord>(block: &[K], k: K) -> usize {
    block.iter().map(|&x| usize::from(x < k)).sum()
}

/// Levels of a max-tree that an update always recomputes, changed or not. Stopping at the
/// first unchanged ancestor saves a few steps, but where it stops varies from update to update
/// and the branch is often mispredicted, which costs more than the steps; above this many levels
/// (more than 1024 servers) an update stops there. Measured against stopping early at every
/// level (paired runs, 3·10⁶ jobs, sizes Unif[0.1, 0.9], load 0.7): FIFO-FF 16 % faster at 100
/// servers and 9 % at 1000, VQS-BF 9, 8 and 6 % at 100, 1000 and 10⁴, VQS 5 and 4 % at 1000
/// and 10⁴.
const FULL_CLIMB: u32 = 10;

/// Recomputes the ancestors of node `v` of a max-tree, lowest first, by `recompute(node)`, which
/// sets a node from its children and says whether it changed: the lowest [`FULL_CLIMB`] levels
/// always, above them up to the first that does not change.
#[inline]
pub(super) fn climb(mut v: usize, mut recompute: impl FnMut(usize) -> bool) {
    for _ in 0..FULL_CLIMB {
        if v == 1 {
            return;
        }
        v /= 2;
        recompute(v);
    }
    while v > 1 {
        v /= 2;
        if !recompute(v) {
            break;
        }
    }
}

/// Max-tree of free capacities over server indices, for first fit (a plain array of them, up
/// to [`SCAN`] servers).
#[derive(Clone, Debug)]
pub(crate) struct FirstFitServers {
    n: usize,
    leaves: usize,
    tree: Vec<u64>,
}

impl FirstFitServers {
    /// `servers` servers, all empty.
    pub(crate) fn new(servers: usize) -> Self {
        let leaves = servers.next_power_of_two().max(1);
        let mut tree = vec![0; 2 * leaves];
        for i in 0..servers {
            tree[leaves + i] = Size::ONE.0;
        }
        for v in (1..leaves).rev() {
            tree[v] = tree[2 * v].max(tree[2 * v + 1]);
        }
        FirstFitServers {
            n: servers,
            leaves,
            tree,
        }
    }

    /// Server `i` now has `free` capacity.
    #[inline]
    pub(crate) fn update(&mut self, i: ServerId, free: Size) {
        let v = self.leaves + i as usize;
        if self.tree[v] == free.0 {
            return;
        }
        self.tree[v] = free.0;
        if self.n <= SCAN {
            return;
        }
        // [`climb`]'s rule (the lowest FULL_CLIMB levels always), with the new maximum carried
        // up in a register: each level reads only the sibling, not the child just written
        // (whose store would have to be forwarded to the next load). The lowest levels are a
        // loop counted in advance, without a test of each level for the root or for a change.
        let tree = &mut self.tree[..];
        let (mut v, mut m) = (v, free.0);
        for _ in 0..self.leaves.trailing_zeros().min(FULL_CLIMB) {
            m = m.max(tree[v ^ 1]);
            v /= 2;
            tree[v] = m;
        }
        while v > 1 {
            m = m.max(tree[v ^ 1]);
            v /= 2;
            if std::mem::replace(&mut tree[v], m) == m {
                return;
            }
        }
    }

    /// Places `job`, which fits the largest free capacity, on the first server it fits in
    /// `cluster` in slot `now`, and records that server's new free capacity; returns it.
    #[inline]
    pub(crate) fn place_first_fit(
        &mut self,
        cluster: &mut Cluster,
        job: &Job,
        now: u64,
    ) -> ServerId {
        let i = (self.first_fit_from(0, job.size)).expect("fits the largest free");
        cluster.place(i, job, now);
        self.update(i, cluster.free(i));
        i
    }

    /// The largest free capacity of any server.
    #[inline]
    pub(crate) fn max_free(&self) -> Size {
        if self.n <= SCAN {
            return Size(self.leaves().iter().copied().max().unwrap_or(0));
        }
        Size(self.tree[1])
    }

    /// What server `i` offers (its free capacity as last updated).
    #[inline]
    pub(crate) fn offer(&self, i: ServerId) -> Size {
        Size(self.tree[self.leaves + i as usize])
    }

    /// The free capacities, by server.
    fn leaves(&self) -> &[u64] {
        &self.tree[self.leaves..self.leaves + self.n]
    }

    /// The lowest server index ≥ `from` with free capacity ≥ `size`: up to [`SCAN`] servers,
    /// every server compared at once into a word of bits; above, a descent of the tree (whose
    /// inner nodes are kept only then).
    #[inline]
    pub(crate) fn first_fit_from(&self, from: ServerId, size: Size) -> Option<ServerId> {
        if self.n <= SCAN {
            let fits = (self.leaves().iter().enumerate())
                .fold(0u32, |bits, (i, &f)| bits | u32::from(f >= size.0) << i);
            let fits = fits.checked_shr(from).unwrap_or(0) << from;
            return (fits != 0).then(|| fits.trailing_zeros());
        }
        leftmost_from(self.leaves, self.n, from, |v| self.tree[v] >= size.0)
    }
}

/// The lowest leaf index ≥ `from` (of `n` used among `leaves`, a power of two) whose node
/// `meets`, in a tree where a node meets whenever one of its children does (a max-tree with a
/// threshold, or several at once): up from the leaf until a right sibling meets, then down (from
/// the root when `from` is 0).
#[inline]
pub(super) fn leftmost_from(
    leaves: usize,
    n: usize,
    from: ServerId,
    meets: impl Fn(usize) -> bool,
) -> Option<ServerId> {
    let from = from as usize;
    if from >= n || !meets(1) {
        return None;
    }
    let mut v = if from == 0 {
        // the whole tree: one descent from the root, as many steps as levels
        1
    } else {
        let mut v = leaves + from;
        if meets(v) {
            return Some(from as ServerId);
        }
        // go up until v is a left child whose right sibling meets, then descend into it
        while v > 1 && (v & 1 == 1 || !meets(v + 1)) {
            v /= 2;
        }
        if v <= 1 {
            return None;
        }
        v + 1
    };
    while v < leaves {
        v = 2 * v + usize::from(!meets(2 * v));
    }
    Some((v - leaves) as ServerId)
}

/// Waiting jobs in arrival order with a min-tree of their sizes.
#[derive(Clone, Debug)]
pub(crate) struct ArrivalIndex {
    jobs: Vec<Option<Job>>,
    tree: Vec<u64>,
    leaves: usize,
    head: usize,
    len: usize,
}

impl Default for ArrivalIndex {
    fn default() -> Self {
        Self::with_leaves(64)
    }
}

impl ArrivalIndex {
    fn with_leaves(leaves: usize) -> Self {
        ArrivalIndex {
            jobs: Vec::with_capacity(leaves),
            tree: vec![u64::MAX; 2 * leaves],
            leaves,
            head: 0,
            len: 0,
        }
    }

    /// Jobs held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn set(&mut self, pos: usize, value: u64) {
        let mut v = self.leaves + pos;
        self.tree[v] = value;
        while v > 1 {
            v /= 2;
            self.tree[v] = self.tree[2 * v].min(self.tree[2 * v + 1]);
        }
    }

    /// Append a job at the back (latest arrival).
    pub(crate) fn push(&mut self, job: Job) {
        if self.jobs.len() == self.leaves {
            self.rebuild();
        }
        let pos = self.jobs.len();
        self.jobs.push(Some(job));
        self.set(pos, job.size.0);
        self.len += 1;
    }

    /// Drop removed jobs at the front and resize to fit what remains.
    fn rebuild(&mut self) {
        let live: Vec<Job> = self.jobs.drain(self.head..).flatten().collect();
        let leaves = (2 * live.len()).next_power_of_two().max(64);
        *self = Self::with_leaves(leaves);
        for (p, job) in live.into_iter().enumerate() {
            self.jobs.push(Some(job));
            self.tree[leaves + p] = job.size.0;
        }
        self.len = self.jobs.len();
        for v in (1..leaves).rev() {
            self.tree[v] = self.tree[2 * v].min(self.tree[2 * v + 1]);
        }
    }

    /// Position of the first job at or after position `from` (in arrival order) of size ≤ `x`.
    pub(crate) fn first_at_most(&self, from: usize, x: Size) -> Option<usize> {
        let from = from.max(self.head);
        if from >= self.jobs.len() {
            return None;
        }
        let mut v = self.leaves + from;
        if self.tree[v] <= x.0 {
            return Some(from);
        }
        while v > 1 && (v & 1 == 1 || self.tree[v + 1] > x.0) {
            v /= 2;
        }
        if v <= 1 {
            return None;
        }
        v += 1;
        while v < self.leaves {
            v = if self.tree[2 * v] <= x.0 {
                2 * v
            } else {
                2 * v + 1
            };
        }
        Some(v - self.leaves)
    }

    /// Remove and return the job at `pos`.
    pub(crate) fn take(&mut self, pos: usize) -> Job {
        let job = self.jobs[pos].take().expect("live position");
        self.set(pos, u64::MAX);
        self.len -= 1;
        while self.head < self.jobs.len() && self.jobs[self.head].is_none() {
            self.head += 1;
        }
        job
    }

    /// The smallest waiting size.
    pub(crate) fn min_size(&self) -> Option<Size> {
        (self.len > 0).then(|| Size(self.tree[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    fn job(id: u64, size: u64) -> Job {
        Job {
            id,
            size: Size(size),
            service: 1,
            arrival: 0,
            class: 0,
            kind: 0,
        }
    }

    #[test]
    fn first_fit_tree_matches_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        for n in [1usize, 2, 3, 5, 8, 9, 13, 64, 65, 100, 513, 5000] {
            let mut t = FirstFitServers::new(n);
            let mut free = vec![Size::UNIT; n];
            // coarse values half the time: many equal maxima
            let coarse = n % 2 == 0;
            for _ in 0..4000 {
                let i = rng.random_range(0..n);
                free[i] = if coarse {
                    rng.random_range(0..=4) * (Size::UNIT / 4)
                } else {
                    rng.random_range(0..=Size::UNIT)
                };
                t.update(i as ServerId, Size(free[i]));
                let s = rng.random_range(1..=Size::UNIT);
                let from = rng.random_range(0..n + 1);
                let want = (from..n).find(|&j| free[j] >= s).map(|j| j as ServerId);
                assert_eq!(t.first_fit_from(from as ServerId, Size(s)), want);
                assert_eq!(t.max_free().0, *free.iter().max().expect("n ≥ 1"));
            }
        }
    }

    #[test]
    fn best_fit_servers_match_scan() {
        for n in [1, 5, SCAN, SCAN + 1, 64, 300, 2 * BLOCK + 1, 1027] {
            best_fit_servers_match_scan_for(n);
        }
    }

    fn best_fit_servers_match_scan_for(n: usize) {
        let mut rng = Pcg64Mcg::seed_from_u64(8);
        let mut b = BestFitServers::new(n);
        let mut free = vec![Size::UNIT; n];
        for _ in 0..3000 {
            let i = rng.random_range(0..n);
            // few distinct values so that ties happen
            free[i] = rng.random_range(0..=4) * Size::UNIT / 4;
            // deferred and immediate updates mixed, several between two queries
            if rng.random_bool(0.5) {
                b.defer(i as ServerId, Size(free[i]));
            } else {
                b.update(i as ServerId, Size(free[i]));
            }
            if rng.random_bool(0.5) {
                continue;
            }
            let s = rng.random_range(1..=4) * Size::UNIT / 4;
            let want = (0..n)
                .filter(|&j| free[j] >= s)
                .min_by_key(|&j| (free[j], j))
                .map(|j| j as ServerId);
            assert_eq!(b.best_fit(Size(s)), want);
            assert_eq!(b.max_free(), Size(*free.iter().max().unwrap()));
        }
    }

    #[test]
    fn sorted_blocks_match_a_btree_set() {
        use std::collections::BTreeSet;
        let mut rng = Pcg64Mcg::seed_from_u64(10);
        for (n, spread) in [(1u128, 4u128), (50, 100), (700, 1_000_000), (3000, 5000)] {
            let mut set: BTreeSet<u128> = (0..n).map(|k| k * 3).collect();
            let mut blocks = SortedBlocks::<u128>::new(set.iter().copied());
            for step in 0..40_000 {
                // drift: keys move up for a while, then down, so blocks split and merge
                let up = (step / 5000) % 2 == 0;
                let old = *set.iter().nth(rng.random_range(0..set.len())).unwrap();
                let new = loop {
                    let d = rng.random_range(0..spread);
                    let k = if up { old + d } else { old.saturating_sub(d) };
                    if !set.contains(&k) || k == old {
                        break k;
                    }
                };
                if new != old {
                    set.remove(&old);
                    set.insert(new);
                    blocks.replace(old, new);
                }
                let probe = rng.random_range(0..=set.last().unwrap() + 2);
                assert_eq!(blocks.successor(probe), set.range(probe..).next().copied());
                assert_eq!(blocks.last(), set.last().copied());
                if step % 1000 == 0 {
                    assert!(blocks.iter().eq(set.iter()));
                    assert!(
                        blocks
                            .blocks
                            .iter()
                            .all(|b| b.len() <= 2 * BLOCK && !b.is_empty())
                    );
                }
            }
        }
    }

    #[test]
    fn arrival_index_matches_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        let mut idx = ArrivalIndex::default();
        let mut model: Vec<Job> = Vec::new();
        let mut next = 0;
        for _ in 0..20000 {
            if rng.random_bool(0.55) {
                let j = job(next, rng.random_range(1..=10));
                next += 1;
                idx.push(j);
                model.push(j);
            } else {
                let x = Size(rng.random_range(1..=10));
                let want = model.iter().position(|j| j.size <= x);
                let got = idx.first_at_most(0, x);
                assert_eq!(got.is_some(), want.is_some());
                if let (Some(p), Some(w)) = (got, want) {
                    let taken = idx.take(p);
                    assert_eq!(taken, model.remove(w));
                }
            }
            assert_eq!(idx.len(), model.len());
        }
    }

    /// The linear model's answer: the position in `model` of the largest job of size ≤ `x`,
    /// earliest among equal sizes.
    fn model_pick(model: &[Job], x: Size) -> Option<usize> {
        model
            .iter()
            .enumerate()
            .filter(|(_, m)| m.size <= x)
            .max_by_key(|(_, m)| (m.size, std::cmp::Reverse(m.id)))
            .map(|(k, _)| k)
    }

    /// Against a linear model, through the switch between the sorted vector and the groups
    /// both ways, with sizes from a small set (long groups) and jobs sometimes inserted out of
    /// arrival order.
    #[test]
    fn size_queue_matches_a_linear_model() {
        let mut rng = Pcg64Mcg::seed_from_u64(17);
        let mut q = SizeQueue::default();
        let mut model: Vec<Job> = Vec::new();
        let mut next = 0u64;
        let mut grouped = false;
        for step in 0..60_000 {
            // phases that fill past SMALL and drain to empty
            let fill = (step / 2000) % 2 == 0;
            if rng.random_bool(if fill { 0.6 } else { 0.35 }) {
                let id = if rng.random_bool(0.1) && next > 5 {
                    // an id below the latest, never used: out of arrival order
                    next += 3;
                    next - 5
                } else {
                    next += 1;
                    next - 1
                };
                let j = job(id, rng.random_range(1..=6));
                if model.iter().any(|m| m.id == j.id) {
                    continue;
                }
                q.insert(j);
                model.push(j);
            } else {
                let x = Size(rng.random_range(1..=7));
                let want = model_pick(&model, x);
                assert_eq!(q.largest_at_most(x), want.map(|k| model[k]));
                if rng.random_bool(0.5) {
                    let got = q.take_largest_at_most(x);
                    assert_eq!(got, want.map(|k| model.swap_remove(k)));
                } else {
                    // only above a floor: nothing when the largest fitting is at or below it
                    let above = Size(rng.random_range(0..=6));
                    let want = want.filter(|&k| model[k].size > above);
                    let got = q.take_largest_between(above, x);
                    assert_eq!(got, want.map(|k| model.swap_remove(k)));
                }
            }
            grouped |= q.is_long();
            assert_eq!(q.len(), model.len());
            assert_eq!(q.min_size(), model.iter().map(|m| m.size).min());
            let mut sorted = model.clone();
            sorted.sort_by_key(|m| (m.size, m.id));
            assert!(q.iter().eq(sorted.into_iter()));
        }
        assert!(grouped, "the queue never left its sorted vector");
    }

    /// The long form over the whole range of sizes: many buckets, sizes at bucket edges and a
    /// full server, crowded buckets of a narrow law and of repeated sizes, against a linear model;
    /// every take is checked, and the queue drains to empty and fills again.
    #[test]
    fn size_queue_over_the_buckets_matches_a_linear_model() {
        let mut rng = Pcg64Mcg::seed_from_u64(23);
        let mut q = SizeQueue::default();
        let mut model: Vec<Job> = Vec::new();
        let edges = [
            WIDTH - 1,
            WIDTH,
            WIDTH + 1,
            5 * WIDTH,
            Size::UNIT - 1,
            Size::UNIT,
        ];
        for step in 0..40_000u64 {
            let fill = (step / 4000) % 2 == 0;
            if rng.random_bool(if fill { 0.7 } else { 0.3 }) {
                let size = match rng.random_range(0..4) {
                    0 => rng.random_range(1..=Size::UNIT),
                    1 => edges[rng.random_range(0..edges.len())],
                    // a narrow law: a few buckets, many entries each
                    2 => rng.random_range(Size::UNIT / 2..Size::UNIT / 2 + 3 * WIDTH),
                    _ => Size::UNIT / 8 * rng.random_range(1..=8),
                };
                let j = job(step, size);
                q.insert(j);
                model.push(j);
            } else {
                let x = Size(rng.random_range(0..=Size::UNIT));
                let want = model_pick(&model, x);
                assert_eq!(q.largest_at_most(x), want.map(|k| model[k]));
                let got = q.take_largest_at_most(x);
                assert_eq!(got, want.map(|k| model.swap_remove(k)));
            }
            assert_eq!(q.len(), model.len());
            assert_eq!(q.min_size(), model.iter().map(|m| m.size).min());
            if step % 97 == 0 {
                let mut sorted = model.clone();
                sorted.sort_by_key(|m| (m.size, m.id));
                assert!(q.iter().eq(sorted.into_iter()));
            }
        }
    }

    #[test]
    fn size_queue_takes_largest_fitting_earliest_first() {
        let mut q = SizeQueue::default();
        q.insert(job(0, 5));
        q.insert(job(1, 7));
        q.insert(job(2, 7));
        q.insert(job(3, 9));
        assert_eq!(q.take_largest_at_most(Size(8)).unwrap().id, 1);
        assert_eq!(q.take_largest_at_most(Size(8)).unwrap().id, 2);
        assert_eq!(q.take_largest_at_most(Size(8)).unwrap().id, 0);
        assert!(q.take_largest_at_most(Size(8)).is_none());
        assert_eq!(q.min_size(), Some(Size(9)));
    }
}
