//! Building blocks of the configuration-based policies (VQS, MaxWeight): FIFO queues per class
//! (virtual queue or job type), and an index of the servers that can act.
//!
//! Those policies visit every server in index order every slot (docs/theory.md sections 6 and 7).
//! A visit changes nothing unless the server is empty while jobs wait (it renews and takes at
//! least one job), or the head-of-line job of a class the server serves fits in what the server
//! offers that class. [`Activity`] keeps, per class, a max-tree of what each server offers, so
//! the next server whose visit matters is found in O(classes · log L) and the others are
//! skipped with the same outcome as visiting them.

use std::collections::VecDeque;

use super::index::FirstFitServers;
use crate::model::{Job, ServerId, Size};

/// One FIFO queue per class.
#[derive(Clone, Debug)]
pub struct ClassQueues {
    queues: Vec<VecDeque<Job>>,
    lens: Vec<u64>,
    total: usize,
}

impl ClassQueues {
    pub fn new(classes: usize) -> Self {
        ClassQueues {
            queues: vec![VecDeque::new(); classes],
            lens: vec![0; classes],
            total: 0,
        }
    }

    /// Appends `job` to the queue of `job.class`.
    pub fn push(&mut self, job: Job) {
        let c = job.class as usize;
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
#[derive(Clone, Debug)]
pub struct Activity {
    servers: usize,
    empty: FirstFitServers,
    offers: Vec<FirstFitServers>,
}

impl Activity {
    /// All servers empty, nothing offered.
    pub fn new(servers: usize, classes: usize) -> Self {
        Activity {
            servers,
            empty: FirstFitServers::new(servers),
            offers: (0..classes)
                .map(|_| FirstFitServers::with_value(servers, Size::ZERO))
                .collect(),
        }
    }

    /// Marks server `i` empty or busy.
    #[inline]
    pub fn set_empty(&mut self, i: ServerId, empty: bool) {
        self.empty
            .update(i, if empty { Size::ONE } else { Size::ZERO });
    }

    /// Server `i` offers `cap` to class `c`'s head-of-line job (zero: nothing).
    #[inline]
    pub fn offer(&mut self, i: ServerId, c: usize, cap: Size) {
        self.offers[c].update(i, cap);
    }

    /// The lowest server index ≥ `from` whose visit can place a job.
    pub fn next(&self, from: ServerId, queues: &ClassQueues) -> Option<ServerId> {
        if queues.total() == 0 || from as usize >= self.servers {
            return None;
        }
        let mut best = self.empty.first_fit_from(from, Size::ONE);
        for c in 0..queues.classes() {
            let Some(h) = queues.head(c) else { continue };
            if best == Some(from) {
                break;
            }
            if let Some(i) = self.offers[c].first_fit_from(from, h.size)
                && best.is_none_or(|b| i < b)
            {
                best = Some(i);
            }
        }
        best
    }
}
