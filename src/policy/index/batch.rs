//! A slot's batch of arrivals sorted by size once, for the policies that take "the largest
//! waiting job that fits" from the queue and the new batch together (BF-J/S, VQS-BF): a large
//! batch then costs one sort instead of one tree insertion and removal per job.

use super::SizeQueue;
use crate::model::{Job, Size};

/// A large batch sorted for best-fit takes: (size, position in the batch) by size, and among
/// equal sizes the earliest arrival last, so the largest fitting job is the last entry of
/// size ≤ the free capacity. Taken entries are skipped through `link` (a disjoint-set forest
/// with path halving: entry `p` (1-based) is untaken when `link[p] == p`, else it points to a
/// lower one; 0 stands for "none"), so a slot costs O(n log n) for the sort and about O(1) per
/// query and take.
#[derive(Clone, Debug, Default)]
pub(crate) struct SortedBatch {
    order: Vec<(u64, std::cmp::Reverse<u32>)>,
    link: Vec<u32>,
    taken: Vec<bool>,
    /// No untaken entry lies below this one (1-based).
    low: usize,
}

impl SortedBatch {
    /// Sorts `batch` (every job untaken).
    pub(crate) fn fill(&mut self, batch: &[Job]) {
        let n = batch.len();
        give_back(&mut self.order, n);
        give_back(&mut self.link, n + 1);
        give_back(&mut self.taken, n);
        self.order.clear();
        self.order.extend(
            batch
                .iter()
                .enumerate()
                .map(|(p, j)| (j.size.0, std::cmp::Reverse(p as u32))),
        );
        self.order.sort_unstable();
        self.link.clear();
        self.link.extend(0..=batch.len() as u32);
        self.taken.clear();
        self.taken.resize(batch.len(), false);
        self.low = 1;
    }

    /// Whether a batch is loaded.
    #[inline]
    pub(crate) fn is_active(&self) -> bool {
        !self.taken.is_empty()
    }

    /// Empties the batch.
    pub(crate) fn clear(&mut self) {
        self.order.clear();
        self.link.clear();
        self.taken.clear();
    }

    /// The untaken entry (1-based; 0: none) with the largest size ≤ `free`, earliest first.
    #[inline]
    pub(crate) fn largest_at_most(&mut self, free: u64) -> usize {
        let mut p = self.order.partition_point(|&(s, _)| s <= free);
        while self.link[p] as usize != p {
            let up = self.link[p] as usize;
            self.link[p] = self.link[up];
            p = up;
        }
        p
    }

    /// The size of entry `p` (1-based).
    #[inline]
    pub(crate) fn size(&self, p: usize) -> u64 {
        self.order[p - 1].0
    }

    /// Takes entry `p` (1-based, untaken): its position in the batch.
    #[inline]
    pub(crate) fn take(&mut self, p: usize) -> usize {
        self.link[p] = (p - 1) as u32;
        let pos = self.order[p - 1].1.0 as usize;
        self.taken[pos] = true;
        pos
    }

    /// The largest job of size ≤ `free` waiting in `queue` or untaken in this sorted `batch`
    /// (earliest among equal sizes: the queue's on a tie, having arrived earlier), removed into
    /// `out` unless its size is ≤ `above`: whether one was. (Written where the caller keeps
    /// it, as [`SizeQueue::take_largest_between_into`] does, not returned.)
    #[inline]
    pub(crate) fn take_largest_into(
        &mut self,
        queue: &mut SizeQueue,
        batch: &[Job],
        above: Size,
        free: Size,
        out: &mut Job,
    ) -> bool {
        let p = self.largest_at_most(free.0);
        // the queue's job wins a tie in size (it arrived earlier): one search of the queue,
        // for a job above both `above` and just below the batch's
        let floor = match p {
            0 => Some(above),
            _ => self.size(p).checked_sub(1).map(|b| above.max(Size(b))),
        };
        // a batch job of size 0: any of the queue's fitting jobs wins, if above `above`
        if queue.take_largest_between_into(floor.unwrap_or(above), free, out) {
            return true;
        }
        if p == 0 || self.size(p) <= above.0 {
            return false;
        }
        *out = batch[self.take(p)];
        true
    }

    /// Whether the job at position `pos` of the batch was taken.
    #[inline]
    pub(crate) fn is_taken(&self, pos: usize) -> bool {
        self.taken[pos]
    }

    /// The smallest size not taken, if any.
    #[inline]
    pub(crate) fn smallest(&mut self) -> Option<u64> {
        while self.low < self.link.len() && self.link[self.low] as usize != self.low {
            self.low += 1;
        }
        (self.low < self.link.len()).then(|| self.order[self.low - 1].0)
    }
}

/// Most entries a buffer keeps room for beyond what it needs now; above, after a burst, the
/// room is given back.
const SPARE: usize = 1 << 12;

/// Gives back the room of `v` beyond four times `n` entries when that is more than `SPARE`
/// (a burst has passed), so that memory follows the current batch, not the largest one seen.
pub(crate) fn give_back<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() > SPARE.max(4 * n) {
        v.clear();
        v.shrink_to(n.max(SPARE / 4));
    }
}
