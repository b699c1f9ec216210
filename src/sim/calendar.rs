//! The departure calendar shared by the single- and multi-resource clusters: items due at a
//! slot, in a timing wheel sized for the typical service time (longer services are still exact,
//! they wait for the wheel to come round again).
//!
//! What is beyond a plain wheel:
//! - a two-level bitmap of the non-empty buckets, so that the slot loop can ask for the next
//!   slot that may have a departure and skip the slots in between ([`Calendar::next_due`]),
//!   whose last answer is kept while only pushes change the wheel (a slot with arrivals but no
//!   departure asks again without a search);
//! - the items live in one pool of nodes, each bucket a linked list through it (in the order
//!   pushed), so memory follows the number of items scheduled, not the sum of every bucket's
//!   busiest moment; when a burst has passed and the pool is four times larger than what it
//!   holds, it is compacted and the memory given back.

/// No node.
const NIL: u32 = u32::MAX;

/// Smallest pool worth compacting, nodes.
const COMPACT_FROM: usize = 4096;

#[derive(Clone, Copy, Debug)]
struct Node<T> {
    due: u64,
    next: u32,
    item: T,
}

/// Items keyed by the slot they are due in.
#[derive(Clone, Debug)]
pub struct Calendar<T> {
    /// First and last node of every bucket's list.
    heads: Vec<u32>,
    tails: Vec<u32>,
    /// The pool: scheduled items and free nodes (a list from `free`).
    nodes: Vec<Node<T>>,
    free: u32,
    mask: u64,
    /// Bit b of `occupied[b / 64]` is set when bucket b is non-empty.
    occupied: Vec<u64>,
    /// Bit w of `summary[w / 64]` is set when `occupied[w]` is non-zero.
    summary: Vec<u64>,
    /// Items scheduled.
    len: usize,
    /// The last answer of [`Calendar::next_due`], (from, slot): no bucket is occupied in the
    /// slots from `from` up to `slot`, whose bucket is. Kept through pushes (which can only
    /// bring `slot` earlier), dropped when a take removes anything; `from = u64::MAX`: none.
    hint: std::cell::Cell<(u64, u64)>,
}

/// No hint.
const NO_HINT: (u64, u64) = (u64::MAX, 0);

impl<T: Copy> Calendar<T> {
    /// A wheel of about four typical service times (a power of two, 64 to 2^20 slots).
    pub fn new(typical_service: f64) -> Self {
        let want = (4.0 * typical_service.max(1.0)).min((1u64 << 20) as f64) as u64;
        let size = want.next_power_of_two().max(64);
        let words = (size / 64) as usize;
        Calendar {
            heads: vec![NIL; size as usize],
            tails: vec![NIL; size as usize],
            nodes: Vec::new(),
            free: NIL,
            mask: size - 1,
            occupied: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            len: 0,
            hint: std::cell::Cell::new(NO_HINT),
        }
    }

    /// Items scheduled.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No departure is due.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Schedules `item` for slot `due` (always inlined: it is the hot half of a placement).
    #[inline(always)]
    pub fn push(&mut self, due: u64, item: T) {
        let node = Node {
            due,
            next: NIL,
            item,
        };
        let n = if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            assert!(
                self.nodes.len() < NIL as usize,
                "at most 2^32 − 1 items scheduled"
            );
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        let b = (due & self.mask) as usize;
        if self.heads[b] == NIL {
            self.heads[b] = n;
            self.occupied[b / 64] |= 1 << (b % 64);
            self.summary[b / 4096] |= 1 << ((b / 64) % 64);
        } else {
            self.nodes[self.tails[b] as usize].next = n;
        }
        self.tails[b] = n;
        self.len += 1;
        let (from, slot) = self.hint.get();
        if from != u64::MAX {
            if due >= from {
                // the first slot from `from` on whose bucket is `b`
                self.hint
                    .set((from, slot.min(from + ((due - from) & self.mask))));
            } else {
                self.hint.set(NO_HINT);
            }
        }
    }

    /// Whether slot `now`'s bucket holds anything (items due in `now`, or in a later turn of
    /// the wheel): when not, [`Self::take_due`] has nothing to take.
    #[inline]
    pub fn may_be_due(&self, now: u64) -> bool {
        self.heads[(now & self.mask) as usize] != NIL
    }

    /// Removes every item due in slot `now`, handing each to `f` in the order pushed.
    #[inline]
    pub fn take_due(&mut self, now: u64, mut f: impl FnMut(T)) {
        let b = (now & self.mask) as usize;
        if self.heads[b] == NIL {
            return;
        }
        self.hint.set(NO_HINT);
        let (mut prev, mut n) = (NIL, self.heads[b]);
        while n != NIL {
            let node = self.nodes[n as usize];
            if node.due == now {
                f(node.item);
                if prev == NIL {
                    self.heads[b] = node.next;
                } else {
                    self.nodes[prev as usize].next = node.next;
                }
                if self.tails[b] == n {
                    self.tails[b] = prev;
                }
                self.nodes[n as usize].next = self.free;
                self.free = n;
                self.len -= 1;
            } else {
                prev = n;
            }
            n = node.next;
        }
        if self.heads[b] == NIL {
            let w = b / 64;
            self.occupied[w] &= !(1 << (b % 64));
            if self.occupied[w] == 0 {
                self.summary[w / 64] &= !(1 << (w % 64));
            }
        }
        if self.nodes.len() >= COMPACT_FROM && self.len * 4 < self.nodes.len() {
            self.compact();
        }
    }

    /// Moves every scheduled item to the front of a new pool of twice their number, bucket by
    /// bucket in list order, and frees the old pool.
    fn compact(&mut self) {
        let mut nodes = Vec::with_capacity(2 * self.len);
        for b in 0..self.heads.len() {
            let mut n = self.heads[b];
            if n == NIL {
                continue;
            }
            self.heads[b] = nodes.len() as u32;
            while n != NIL {
                let node = self.nodes[n as usize];
                n = node.next;
                let next = if n == NIL {
                    NIL
                } else {
                    nodes.len() as u32 + 1
                };
                nodes.push(Node { next, ..node });
            }
            self.tails[b] = nodes.len() as u32 - 1;
        }
        self.nodes = nodes;
        self.free = NIL;
    }

    /// The first slot ≥ `from` whose bucket holds an item, or `None` if the calendar is empty.
    /// No item is due in a slot before it; items of a later turn of the wheel may make it
    /// earlier than the next actual departure (a lower bound, never too late).
    #[inline]
    pub fn next_due(&self, from: u64) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let (hint_from, slot) = self.hint.get();
        if hint_from <= from && from <= slot {
            return Some(slot);
        }
        let start = (from & self.mask) as usize;
        let b = self
            .first_occupied_from(start)
            .or_else(|| self.first_occupied_from(0))
            .expect("a non-empty calendar has an occupied bucket");
        let ahead = (b as u64).wrapping_sub(start as u64) & self.mask;
        let slot = from.saturating_add(ahead);
        self.hint.set((from, slot));
        Some(slot)
    }

    /// The lowest occupied bucket ≥ `start`.
    #[inline]
    fn first_occupied_from(&self, start: usize) -> Option<usize> {
        let w = start / 64;
        let bits = self.occupied[w] & (!0u64 << (start % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        // the next non-zero word after w, through the summary
        let next = w + 1;
        if next >= self.occupied.len() {
            return None;
        }
        let mut s = next / 64;
        let mut sbits = self.summary[s] & (!0u64 << (next % 64));
        loop {
            if sbits != 0 {
                let word = s * 64 + sbits.trailing_zeros() as usize;
                return Some(word * 64 + self.occupied[word].trailing_zeros() as usize);
            }
            s += 1;
            if s >= self.summary.len() {
                return None;
            }
            sbits = self.summary[s];
        }
    }

    /// Every scheduled item, in no particular order.
    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.heads.iter().flat_map(move |&h| {
            std::iter::successors((h != NIL).then_some(h), move |&n| {
                let next = self.nodes[n as usize].next;
                (next != NIL).then_some(next)
            })
            .map(move |n| &self.nodes[n as usize].item)
        })
    }

    /// Nodes held by the pool, scheduled or free (for memory tests).
    pub fn capacity(&self) -> usize {
        self.nodes.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn next_due_is_the_first_slot_with_a_due_item() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        for typical in [1.0, 20.0, 3000.0, 1e6] {
            let mut cal: Calendar<u64> = Calendar::new(typical);
            let mut model: Vec<u64> = Vec::new();
            let mut now = 0u64;
            for _ in 0..20_000 {
                if rng.random_bool(0.5) {
                    let due = now + rng.random_range(0..(4.0 * typical) as u64 * 3 + 2);
                    cal.push(due, due);
                    model.push(due);
                }
                let next = cal.next_due(now);
                let want = model.iter().copied().min();
                assert_eq!(next.is_some(), want.is_some());
                if let (Some(n), Some(w)) = (next, want) {
                    // never later than the next due item, and no item due before it
                    assert!(n >= now && n <= w, "next {n}, first due {w}, now {now}");
                    // advance to it, taking what is due on the way
                    now = n;
                }
                let mut got = Vec::new();
                cal.take_due(now, |d| got.push(d));
                let mut due: Vec<u64> = model.iter().copied().filter(|&d| d == now).collect();
                model.retain(|&d| d != now);
                got.sort_unstable();
                due.sort_unstable();
                assert_eq!(got, due);
                assert_eq!(cal.len(), model.len());
                now += 1;
            }
        }
    }

    #[test]
    fn capacity_is_given_back_after_a_burst() {
        let mut cal: Calendar<u32> = Calendar::new(100.0);
        // a burst: 200,000 items over the 512 buckets
        for k in 0..200_000u64 {
            cal.push(k % 512, 0);
        }
        let burst = cal.capacity();
        assert!(burst >= 200_000);
        // items come out in the order pushed
        let mut order = Vec::new();
        let mut probe: Calendar<u32> = Calendar::new(100.0);
        for k in 0..10u32 {
            probe.push(7 + 512 * (k % 2) as u64, k);
        }
        probe.take_due(7, |k| order.push(k));
        probe.take_due(7 + 512, |k| order.push(k));
        assert_eq!(order, [0, 2, 4, 6, 8, 1, 3, 5, 7, 9]);
        for now in 0..512 {
            cal.take_due(now, |_| {});
        }
        assert!(cal.is_empty());
        // steady load afterwards: 10 items per slot
        for now in 512..2048u64 {
            for _ in 0..10 {
                cal.push(now + 100, 0);
            }
            cal.take_due(now, |_| {});
        }
        assert!(
            cal.capacity() * 20 < burst,
            "{} of {burst} kept",
            cal.capacity()
        );
    }
}
