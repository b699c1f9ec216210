//! Building blocks of the configuration-based policies (VQS, MaxWeight): FIFO queues per class
//! (virtual queue or job type), and indexes of the servers that can act ([`Activity`] for
//! offers of capacity, [`Wants`] for all-or-nothing offers).
//!
//! Those policies visit every server in index order every slot (docs/theory.md sections 6 and 7).
//! A visit changes nothing unless the server is empty while jobs wait (it renews and takes at
//! least one job), or the head-of-line job of a class the server serves fits in what the server
//! offers that class. [`Activity`] keeps the empty servers in a bitmap and, per class, a
//! max-tree of what each server offers, and finds the next server whose visit matters by one
//! descent that looks only at the classes with a waiting job, in O(nonempty classes · log L);
//! the servers it skips would change nothing.

use std::collections::VecDeque;

use super::index::{Bitmap, climb, leftmost_from};
use crate::model::{Job, ServerId, Size};

/// The classes with a waiting job and what each one's head of line needs (its size, `Size`
/// units): what a busy server must offer a class to act. One entry per such class, in no
/// particular order, found by a search (the list is as short as the classes that wait).
#[derive(Clone, Debug, Default)]
struct Needs(Vec<(usize, u64)>);

impl Needs {
    /// Class `c`, not listed, now has a head of line that needs `need`.
    #[inline]
    fn insert(&mut self, c: usize, need: u64) {
        self.0.push((c, need));
    }

    /// Class `c`, listed, now needs `need` (`u64::MAX`: it emptied and leaves the list).
    #[inline]
    fn update(&mut self, c: usize, need: u64) {
        let at = self.position(c).expect("a nonempty class is listed");
        self.update_at(at, need);
    }

    /// Class `c`, listed or not, now needs `need` (`u64::MAX`: it is empty).
    #[inline]
    fn set(&mut self, c: usize, need: u64) {
        match self.position(c) {
            Some(at) => self.update_at(at, need),
            None if need != u64::MAX => self.insert(c, need),
            None => {}
        }
    }

    #[inline]
    fn position(&self, c: usize) -> Option<usize> {
        self.0.iter().position(|&(k, _)| k == c)
    }

    #[inline]
    fn update_at(&mut self, at: usize, need: u64) {
        if need == u64::MAX {
            self.0.swap_remove(at);
        } else {
            self.0[at].1 = need;
        }
    }
}

/// One FIFO queue per class; with `HEADS`, also the list of the nonempty classes with their
/// heads of line, which [`Wants`] reads (VQS's [`Activity`] is told of each change of a head
/// of line instead, and its queues keep no list).
#[derive(Clone, Debug)]
pub(crate) struct ClassQueues<const HEADS: bool> {
    queues: Vec<VecDeque<Job>>,
    lens: Vec<u64>,
    total: usize,
    /// What the heads of line need; empty unless `HEADS`.
    heads: Needs,
}

impl<const HEADS: bool> ClassQueues<HEADS> {
    /// `classes` empty queues.
    pub(crate) fn new(classes: usize) -> Self {
        ClassQueues {
            queues: vec![VecDeque::new(); classes],
            lens: vec![0; classes],
            total: 0,
            heads: Needs(Vec::with_capacity(classes)),
        }
    }

    /// Appends `job` to the queue of `job.class`.
    pub(crate) fn push(&mut self, job: Job) {
        let c = job.class as usize;
        if HEADS && self.queues[c].is_empty() {
            self.heads.insert(c, job.size.0);
        }
        self.queues[c].push_back(job);
        self.lens[c] += 1;
        self.total += 1;
    }

    /// The head-of-line job of class `c`.
    #[inline]
    pub(crate) fn head(&self, c: usize) -> Option<&Job> {
        self.queues[c].front()
    }

    /// What the head of line of class `c` needs: its size (`u64::MAX` when `c` is empty).
    #[inline]
    pub(crate) fn need(&self, c: usize) -> u64 {
        self.queues[c].front().map_or(u64::MAX, |h| h.size.0)
    }

    /// Removes the head-of-line job of class `c`.
    pub(crate) fn pop(&mut self, c: usize) -> Option<Job> {
        let j = self.queues[c].pop_front()?;
        if HEADS {
            self.heads.update(c, self.need(c));
        }
        self.lens[c] -= 1;
        self.total -= 1;
        Some(j)
    }

    /// Queue lengths by class.
    pub(crate) fn lengths(&self) -> &[u64] {
        &self.lens
    }

    /// Jobs waiting in all classes.
    pub(crate) fn total(&self) -> usize {
        self.total
    }
}

/// Which servers can act: empty ones (when jobs wait) and, per class, what capacity each busy
/// server offers to that class's head-of-line job.
///
/// The empty servers are a bitmap by index. The offers are one max-tree over the servers whose
/// nodes are rows with a column per class: a node's row holds, per class, the largest offer
/// below it, and the rows are stored side by side so that a node is read from one place. A
/// server publishes its whole row at once ([`Activity::publish`]), one walk up for the columns
/// that changed. The next busy server that can act is found by one descent that compares, at
/// each node, only the nonempty classes with what their heads of line need.
///
/// On at most 128 servers and 64 classes (`Small`) no tree is kept: which servers can act is
/// one or two words, kept up to date as offers are published and as heads of line change (the
/// owner reports those through [`Activity::head_changed`]), so the next server is a mask and a
/// count of trailing zeros. A change of a head of line then costs a comparison per server
/// offering its class something, against the tree's walks per publish and descent per search;
/// on a hundred servers that trade is a gain (more instructions, fewer mispredicted
/// branches), on 128 it is about even, which is why the word form stops there.
#[derive(Clone, Debug)]
pub(crate) struct Activity {
    servers: usize,
    form: Form,
    /// Leaves of the tree (a power of two).
    leaves: usize,
    /// Columns per row: one per class.
    width: usize,
    /// Row of node v (1 = root, leaf of server i at `leaves + i`) at `v * width`.
    nodes: Vec<u64>,
    empty: Bitmap,
    /// The tree form's list of what the heads of line need, as reported through
    /// [`Activity::head_changed`].
    heads: Needs,
}

/// Columns of a row whose changes [`Activity::publish`] tracks one by one; beyond, it recomputes
/// every column it was given.
const TRACKED: usize = 4;

impl Activity {
    /// All servers empty, nothing offered.
    pub(crate) fn new(servers: usize, classes: usize) -> Self {
        let form = match servers.div_ceil(64) {
            _ if classes > 64 => Form::Tree,
            0 | 1 => Form::One(Box::new(Small::new(servers, classes))),
            w if w <= SMALL_WORDS => Form::Two(Box::new(Small::new(servers, classes))),
            _ => Form::Tree,
        };
        // the tree, unless a word form replaces it
        let tree = if matches!(form, Form::Tree) {
            servers
        } else {
            0
        };
        let leaves = tree.next_power_of_two();
        Activity {
            servers,
            form,
            leaves,
            width: classes,
            nodes: vec![0; 2 * leaves * classes],
            empty: Bitmap::full(tree),
            heads: Needs::default(),
        }
    }

    /// Server `i`'s state: whether it is empty, and what it offers the classes in `offers`
    /// (zero: nothing); the classes not named keep their offers.
    #[inline]
    pub(crate) fn publish(&mut self, i: ServerId, empty: bool, offers: &[(usize, Size)]) {
        match &mut self.form {
            Form::One(small) => return small.publish(i as usize, empty, offers),
            Form::Two(small) => return small.publish(i as usize, empty, offers),
            Form::Tree => {}
        }
        self.empty.set(i as usize, empty);
        let w = self.width;
        let leaf = (self.leaves + i as usize) * w;
        let mut changed = [0; TRACKED];
        let mut n = 0;
        for &(c, cap) in offers {
            if std::mem::replace(&mut self.nodes[leaf + c], cap.0) != cap.0 {
                if n < TRACKED {
                    changed[n] = c;
                }
                n += 1;
            }
        }
        if n == 0 {
            return;
        }
        if n <= TRACKED {
            self.walk_up(i, changed[..n].iter().copied());
        } else {
            self.walk_up(i, offers.iter().map(|&(c, _)| c));
        }
    }

    /// Recomputes the `columns` of server `i`'s ancestors ([`climb`]).
    #[inline]
    fn walk_up(&mut self, i: ServerId, columns: impl Iterator<Item = usize> + Clone) {
        let w = self.width;
        let nodes = &mut self.nodes;
        climb(self.leaves + i as usize, |v| {
            let (at, left, right) = (v * w, 2 * v * w, (2 * v + 1) * w);
            let mut moved = false;
            for c in columns.clone() {
                let m = nodes[left + c].max(nodes[right + c]);
                moved |= std::mem::replace(&mut nodes[at + c], m) != m;
            }
            moved
        });
    }

    /// The head of line of class `c` changed (a job joined an empty class, or the head left):
    /// every change must be reported before the next [`Activity::next`].
    #[inline]
    pub(crate) fn head_changed<const H: bool>(&mut self, c: usize, queues: &ClassQueues<H>) {
        let need = queues.need(c);
        match &mut self.form {
            Form::One(small) => small.set_need(c, need),
            Form::Two(small) => small.set_need(c, need),
            Form::Tree => self.heads.set(c, need),
        }
    }

    /// The lowest server index ≥ `from` whose visit can place a job.
    #[inline]
    pub(crate) fn next<const H: bool>(
        &self,
        from: ServerId,
        queues: &ClassQueues<H>,
    ) -> Option<ServerId> {
        if queues.total() == 0 {
            return None;
        }
        match &self.form {
            Form::One(small) => return small.next(from as usize),
            Form::Two(small) => return small.next(from as usize),
            Form::Tree => {}
        }
        let empty = self.empty.first_from(from as usize).map(|e| e as ServerId);
        if empty == Some(from) || self.heads.0.is_empty() {
            return empty;
        }
        let w = self.width;
        // node v meets when some nonempty class is offered what its head of line needs
        let busy = leftmost_from(self.leaves, self.servers, from, |v| {
            let row = &self.nodes[v * w..v * w + w];
            self.heads
                .0
                .iter()
                .any(|&(c, need)| row.get(c).is_some_and(|&x| x >= need))
        });
        match (empty, busy) {
            (Some(e), Some(b)) => Some(e.min(b)),
            (e, b) => e.or(b),
        }
    }
}

/// Which servers can act when every offer is all or nothing (MaxWeight: a busy server wants a
/// job of type t while it holds fewer than k_t of them, and any job of that type then fits):
/// a bitmap of the empty servers and, per class, one of the servers that want it. The next
/// server that can act is the first member at or after a point of the empty servers' bitmap or
/// of a nonempty class's, a word or two read per class with a waiting job.
#[derive(Clone, Debug)]
pub(crate) struct Wants {
    empty: Bitmap,
    wants: Vec<Bitmap>,
}

impl Wants {
    /// All servers empty, none wanting anything.
    pub(crate) fn new(servers: usize, classes: usize) -> Self {
        Wants {
            empty: Bitmap::full(servers),
            wants: vec![Bitmap::new(servers); classes],
        }
    }

    /// Whether server `i` is empty.
    #[inline]
    pub(crate) fn set_empty(&mut self, i: ServerId, empty: bool) {
        self.empty.set(i as usize, empty);
    }

    /// Whether server `i` wants a job of class `c`.
    #[inline]
    pub(crate) fn set_wants(&mut self, i: ServerId, c: usize, wants: bool) {
        self.wants[c].set(i as usize, wants);
    }

    /// The lowest server index ≥ `from` whose visit can place a job: an empty one while jobs
    /// wait, or one that wants a class with a waiting job.
    #[inline]
    pub(crate) fn next(&self, from: ServerId, queues: &ClassQueues<true>) -> Option<ServerId> {
        if queues.total() == 0 {
            return None;
        }
        let from = from as usize;
        let mut best = self.empty.first_from(from).unwrap_or(usize::MAX);
        for &(c, _) in &queues.heads.0 {
            if best == from {
                break;
            }
            best = best.min(self.wants[c].first_from(from).unwrap_or(usize::MAX));
        }
        (best != usize::MAX).then_some(best as ServerId)
    }
}

/// [`Activity`] on at most `64 · W` servers and 64 classes. Server i is bit i % 64 of word
/// i / 64. Per class: what its head of line needs (as last reported), what each server offers
/// it, the word of servers offering it anything and the word of those whose offer meets the
/// need; the servers that can act are the empty ones and the union of the latter. The union is
/// kept through each server's set of classes met, so a publish changes one bit of it and a
/// change of need only the bits of the servers that started or stopped meeting it (an OR over
/// every class's word, rebuilt after each store to one of them, cost more: the wide loads
/// that read it wait for the narrow store just made).
///
/// A change of a head of line compares the need with the offers of only the servers offering
/// its class something: O(those servers) per change, where the tree pays O(log L) per publish
/// and per search. The form is kept on the few words where that is cheaper ([`SMALL_WORDS`]).
#[derive(Clone, Debug)]
struct Small<const W: usize> {
    /// Per class, what its head of line needs (`u64::MAX`: nobody waits).
    need: [u64; 64],
    /// Offer of server i to class c at `(c · W + i / 64) · 64 + i % 64`.
    caps: Vec<u64>,
    /// Per class, the servers offering it anything.
    offerers: [[u64; W]; 64],
    /// Per class, the servers whose offer is at least its need.
    meets: [[u64; W]; 64],
    /// Per server, the classes whose need its offer meets (bit c for class c).
    classes_met: Vec<u64>,
    empty: [u64; W],
    /// The servers meeting some class's need (a nonzero `classes_met`).
    acts: [u64; W],
}

/// Sets bit `i` of `word` to `on`.
#[inline]
fn put(word: &mut u64, i: usize, on: bool) {
    *word = (*word & !(1 << i)) | (u64::from(on) << i);
}

impl<const W: usize> Small<W> {
    fn new(servers: usize, classes: usize) -> Self {
        debug_assert!(servers <= 64 * W && classes <= 64);
        let mut empty = [0; W];
        for (w, word) in empty.iter_mut().enumerate() {
            let n = servers.saturating_sub(64 * w).min(64);
            *word = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        }
        Small {
            need: [u64::MAX; 64],
            caps: vec![0; classes * 64 * W],
            offerers: [[0; W]; 64],
            meets: [[0; W]; 64],
            classes_met: vec![0; 64 * W],
            empty,
            acts: [0; W],
        }
    }

    fn publish(&mut self, i: usize, empty: bool, offers: &[(usize, Size)]) {
        let (w, b) = (i / 64 % W, i % 64);
        let i = 64 * w + b;
        put(&mut self.empty[w], b, empty);
        let mut classes = self.classes_met[i];
        for &(c, cap) in offers {
            let (c, cap) = (c % 64, cap.0);
            self.caps[(c * W + w) * 64 + b] = cap;
            put(&mut self.offerers[c][w], b, cap != 0);
            let met = cap >= self.need[c];
            put(&mut self.meets[c][w], b, met);
            put(&mut classes, c, met);
        }
        self.classes_met[i] = classes;
        // only server i's bit can have changed (a server offering nothing meets no need:
        // every need is at least one unit)
        put(&mut self.acts[w], b, classes != 0);
    }

    fn set_need(&mut self, c: usize, need: u64) {
        let c = c % 64;
        let before = std::mem::replace(&mut self.need[c], need);
        for w in 0..W {
            let caps = &self.caps[(c * W + w) * 64..][..64];
            let met = self.meets[c][w];
            // a higher need is met only by servers that met the lower one, a lower need by
            // those and the others offering something: compare only the servers in doubt
            let (mut meets, mut doubt) = match need {
                u64::MAX => (0, 0),
                _ if need >= before => (0, met),
                _ => (met, self.offerers[c][w] & !met),
            };
            while doubt != 0 {
                let b = doubt.trailing_zeros() as usize;
                meets |= u64::from(caps[b] >= need) << b;
                doubt &= doubt - 1;
            }
            // the servers that started or stopped meeting class c's need
            let mut changed = std::mem::replace(&mut self.meets[c][w], meets) ^ meets;
            while changed != 0 {
                let b = changed.trailing_zeros() as usize;
                let classes = &mut self.classes_met[64 * w + b];
                *classes ^= 1 << c;
                put(&mut self.acts[w], b, *classes != 0);
                changed &= changed - 1;
            }
        }
    }

    #[inline]
    fn next(&self, from: usize) -> Option<ServerId> {
        let first = from / 64;
        if first >= W {
            return None;
        }
        let mut acts = (self.acts[first] | self.empty[first]) >> (from % 64) << (from % 64);
        let mut w = first;
        loop {
            if acts != 0 {
                return Some((64 * w + acts.trailing_zeros() as usize) as ServerId);
            }
            w += 1;
            if w >= W {
                return None;
            }
            acts = self.acts[w] | self.empty[w];
        }
    }
}

/// The largest number of 64-server words on which [`Activity`] keeps the word form
/// ([`Small`]) rather than the tree.
const SMALL_WORDS: usize = 2;

/// The form of [`Activity`]: words of servers that can act, or the tree.
#[derive(Clone, Debug)]
enum Form {
    One(Box<Small<1>>),
    Two(Box<Small<2>>),
    Tree,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// The heads of line kept beside the queues are exactly the nonempty classes with their
    /// first job's size, through random pushes and pops over many classes.
    #[test]
    fn heads_follow_the_queues() {
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        let classes = 9;
        let mut queues = ClassQueues::<true>::new(classes);
        for id in 0..20_000 {
            let c = rng.random_range(0..classes);
            if rng.random_bool(0.5) {
                let size = Size(rng.random_range(1..=Size::ONE.0));
                let job = Job {
                    id,
                    size,
                    service: 1,
                    arrival: 0,
                    class: c as u8,
                    kind: 0,
                };
                queues.push(job);
            } else {
                queues.pop(c);
            }
            let mut heads = queues.heads.0.clone();
            heads.sort_unstable();
            let want: Vec<(usize, u64)> = (0..classes)
                .filter_map(|c| queues.head(c).map(|h| (c, h.size.0)))
                .collect();
            assert_eq!(heads, want);
        }
    }

    /// `Wants::next` agrees with a scan of every server, across random wants, emptiness,
    /// pushes and pops, at server counts around word and summary boundaries.
    #[test]
    fn wants_next_matches_a_linear_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        for servers in [1usize, 5, 64, 65, 300, 4200] {
            let classes = 3;
            let mut w = Wants::new(servers, classes);
            let mut queues = ClassQueues::<true>::new(classes);
            let mut empty = vec![true; servers];
            let mut wants = vec![vec![false; classes]; servers];
            let mut id = 0;
            for _ in 0..3000 {
                let i = rng.random_range(0..servers);
                match rng.random_range(0..4) {
                    0 => {
                        empty[i] = rng.random_bool(0.3);
                        w.set_empty(i as ServerId, empty[i]);
                    }
                    1 => {
                        let c = rng.random_range(0..classes);
                        wants[i][c] = rng.random_bool(0.4);
                        w.set_wants(i as ServerId, c, wants[i][c]);
                    }
                    2 => {
                        queues.push(Job {
                            id,
                            size: Size::ONE,
                            service: 1,
                            arrival: 0,
                            class: rng.random_range(0..classes) as u8,
                            kind: 0,
                        });
                        id += 1;
                    }
                    _ => {
                        queues.pop(rng.random_range(0..classes));
                    }
                }
                let from = rng.random_range(0..=servers);
                let scan = (from..servers).find(|&i| {
                    queues.total() > 0
                        && (empty[i]
                            || (0..classes).any(|c| wants[i][c] && queues.head(c).is_some()))
                });
                assert_eq!(
                    w.next(from as ServerId, &queues),
                    scan.map(|i| i as ServerId)
                );
            }
        }
    }

    /// `next` agrees with a scan of every server against the heads of line, across random
    /// offers, emptiness, pushes and pops, at server counts on and off powers of two and on
    /// both sides of the word forms' limit; over queues that keep no list of their heads of
    /// line (the tree keeps its own).
    #[test]
    fn next_matches_a_linear_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let unit = Size::ONE.0;
        for servers in [1usize, 3, 8, 37, 63, 64, 65, 100, 128, 129, 300] {
            let classes = 4;
            let mut act = Activity::new(servers, classes);
            let mut queues = ClassQueues::<false>::new(classes);
            let mut empty = vec![true; servers];
            let mut offers = vec![vec![0u64; classes]; servers];
            let mut id = 0;
            for _ in 0..3000 {
                match rng.random_range(0..4) {
                    0 => {
                        let i = rng.random_range(0..servers);
                        empty[i] = rng.random_bool(0.3);
                        act.publish(i as ServerId, empty[i], &[]);
                    }
                    1 => {
                        // a row with up to three classes changed at once
                        let i = rng.random_range(0..servers);
                        let mut row = Vec::new();
                        for _ in 0..rng.random_range(1..=3) {
                            let c = rng.random_range(0..classes);
                            offers[i][c] = rng.random_range(0..=8) * unit / 8;
                            row.push((c, Size(offers[i][c])));
                        }
                        act.publish(i as ServerId, empty[i], &row);
                    }
                    2 => {
                        let c = rng.random_range(0..classes);
                        let size = Size(rng.random_range(1..=8) * unit / 8);
                        queues.push(Job {
                            id,
                            size,
                            service: 1,
                            arrival: 0,
                            class: c as u8,
                            kind: 0,
                        });
                        act.head_changed(c, &queues);
                        id += 1;
                    }
                    _ => {
                        let c = rng.random_range(0..classes);
                        queues.pop(c);
                        act.head_changed(c, &queues);
                    }
                }
                let from = rng.random_range(0..=servers) as ServerId;
                let scan = (from as usize..servers).find(|&i| {
                    queues.total() > 0
                        && (empty[i]
                            || (0..classes)
                                .any(|c| queues.head(c).is_some_and(|h| h.size.0 <= offers[i][c])))
                });
                assert_eq!(act.next(from, &queues), scan.map(|i| i as ServerId));
            }
        }
    }
}
