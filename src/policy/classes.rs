//! Building blocks of the configuration-based policies (VQS, MaxWeight): FIFO queues per class
//! (virtual queue or job type), and an index of the servers that can act.
//!
//! Those policies visit every server in index order every slot (docs/theory.md sections 6 and 7).
//! A visit changes nothing unless the server is empty while jobs wait (it renews and takes at
//! least one job), or the head-of-line job of a class the server serves fits in what the server
//! offers that class. [`Activity`] keeps, per class, a max-tree of what each server offers, and
//! finds the next server whose visit matters by one descent that looks only at the classes with
//! a waiting job, in O(nonempty classes · log L); the servers it skips would change nothing.

use std::collections::VecDeque;

use super::index::{FirstFitServers, leftmost_from};
use crate::model::{Job, ServerId, Size};

/// One FIFO queue per class.
#[derive(Clone, Debug)]
pub struct ClassQueues {
    queues: Vec<VecDeque<Job>>,
    lens: Vec<u64>,
    total: usize,
    /// What a server must offer to act, by [`Activity`]'s columns: 1 (an empty server), then
    /// each class's head-of-line size (`u64::MAX` for an empty class).
    need: Vec<u64>,
    /// The columns whose need is finite: 0 (empty servers) and 1 + c for every nonempty class c.
    live: Vec<usize>,
}

impl ClassQueues {
    pub fn new(classes: usize) -> Self {
        ClassQueues {
            queues: vec![VecDeque::new(); classes],
            lens: vec![0; classes],
            total: 0,
            need: std::iter::once(Size::ONE.0)
                .chain(std::iter::repeat_n(u64::MAX, classes))
                .collect(),
            live: vec![0],
        }
    }

    /// Appends `job` to the queue of `job.class`.
    pub fn push(&mut self, job: Job) {
        let c = job.class as usize;
        if self.queues[c].is_empty() {
            self.need[1 + c] = job.size.0;
            self.live.push(1 + c);
        }
        self.queues[c].push_back(job);
        self.lens[c] += 1;
        self.total += 1;
    }

    /// The head-of-line job of class `c`.
    #[inline]
    pub fn head(&self, c: usize) -> Option<&Job> {
        self.queues[c].front()
    }

    /// Removes the head-of-line job of class `c`.
    pub fn pop(&mut self, c: usize) -> Option<Job> {
        let j = self.queues[c].pop_front()?;
        match self.queues[c].front() {
            Some(h) => self.need[1 + c] = h.size.0,
            None => {
                self.need[1 + c] = u64::MAX;
                let at = self.live.iter().position(|&k| k == 1 + c);
                self.live.swap_remove(at.expect("a nonempty class is live"));
            }
        }
        self.lens[c] -= 1;
        self.total -= 1;
        Some(j)
    }

    /// Queue lengths by class.
    pub fn lengths(&self) -> &[u64] {
        &self.lens
    }

    /// Jobs waiting in all classes.
    pub fn total(&self) -> usize {
        self.total
    }

    pub fn classes(&self) -> usize {
        self.queues.len()
    }
}

/// Which servers can act: empty ones (when jobs wait) and, per class, what capacity each busy
/// server offers to that class's head-of-line job.
///
/// One max-tree over the servers per column: column 0 is "the server is empty" (capacity 1 or
/// 0) and column 1 + c what it offers class c. The next server that can act is found by one
/// descent that compares, at each node, only the live columns (empty servers and the nonempty
/// classes) with what their heads of line need.
#[derive(Clone, Debug)]
pub struct Activity {
    servers: usize,
    /// Leaves of each column's tree (a power of two).
    leaves: usize,
    columns: Vec<FirstFitServers>,
}

impl Activity {
    /// All servers empty, nothing offered.
    pub fn new(servers: usize, classes: usize) -> Self {
        let columns = std::iter::once(FirstFitServers::new(servers))
            .chain((0..classes).map(|_| FirstFitServers::with_value(servers, Size::ZERO)))
            .collect();
        Activity {
            servers,
            leaves: servers.next_power_of_two().max(1),
            columns,
        }
    }

    /// Marks server `i` empty or busy.
    #[inline]
    pub fn set_empty(&mut self, i: ServerId, empty: bool) {
        self.columns[0].update(i, if empty { Size::ONE } else { Size::ZERO });
    }

    /// Server `i` offers `cap` to class `c`'s head-of-line job (zero: nothing).
    #[inline]
    pub fn offer(&mut self, i: ServerId, c: usize, cap: Size) {
        self.columns[1 + c].update(i, cap);
    }

    /// The lowest server index ≥ `from` whose visit can place a job.
    pub fn next(&self, from: ServerId, queues: &ClassQueues) -> Option<ServerId> {
        if queues.total() == 0 {
            return None;
        }
        // node v meets when some live column offers what its head of line needs
        leftmost_from(self.leaves, self.servers, from, |v| {
            queues
                .live
                .iter()
                .any(|&k| self.columns[k].node(v) >= queues.need[k])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// `next` agrees with a scan of every server against the heads of line, across random
    /// offers, emptiness, pushes and pops, at server counts on and off powers of two.
    #[test]
    fn next_matches_a_linear_scan() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let unit = Size::ONE.0;
        for servers in [1usize, 3, 8, 37, 130] {
            let classes = 4;
            let mut act = Activity::new(servers, classes);
            let mut queues = ClassQueues::new(classes);
            let mut empty = vec![true; servers];
            let mut offers = vec![vec![0u64; classes]; servers];
            let mut id = 0;
            for _ in 0..3000 {
                match rng.random_range(0..4) {
                    0 => {
                        let i = rng.random_range(0..servers);
                        empty[i] = rng.random_bool(0.3);
                        act.set_empty(i as ServerId, empty[i]);
                    }
                    1 => {
                        let (i, c) = (rng.random_range(0..servers), rng.random_range(0..classes));
                        offers[i][c] = rng.random_range(0..=8) * unit / 8;
                        act.offer(i as ServerId, c, Size(offers[i][c]));
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
                        });
                        id += 1;
                    }
                    _ => {
                        queues.pop(rng.random_range(0..classes));
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
