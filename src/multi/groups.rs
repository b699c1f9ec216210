//! Waiting jobs grouped by what a placement score sees of them, for the server's view of scored
//! BF-J/S.

use std::collections::{HashMap, VecDeque};

use super::VJob;
use crate::model::Resources;

/// What a server's admission and a deterministic score read of a job: its request, whether it
/// must run inside one NUMA node, and its constraint class.
type Key = (Resources, bool, u32);

/// Waiting jobs grouped by [`Key`], each group in arrival order.
///
/// Jobs of one key are admitted by the same servers and scored alike on each, so with a score
/// that draws nothing the best of a group is its earliest job (ties go to the earliest): a
/// server's view reads one job per key, however many wait. A workload of a few hundred request
/// vectors keeps a few hundred groups while thousands of jobs wait.
#[derive(Debug, Default)]
pub(super) struct Groups {
    /// The group of each key met.
    index: HashMap<Key, usize>,
    groups: Vec<VecDeque<VJob>>,
    /// The non-empty groups, in no particular order.
    active: Vec<usize>,
    /// `at[g]`: group g's position in `active` (stale while g is empty).
    at: Vec<usize>,
    len: usize,
}

impl Groups {
    /// Jobs waiting.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds `job`, which arrived after every job of its key already here.
    pub(super) fn push(&mut self, job: VJob) {
        let key = (job.req, job.strict, job.class);
        let g = *self.index.entry(key).or_insert_with(|| {
            self.groups.push(VecDeque::new());
            self.at.push(0);
            self.groups.len() - 1
        });
        let group = &mut self.groups[g];
        debug_assert!(group.back().is_none_or(|b| b.id < job.id), "arrival order");
        if group.is_empty() {
            self.at[g] = self.active.len();
            self.active.push(g);
        }
        group.push_back(job);
        self.len += 1;
    }

    /// The earliest job of every non-empty group, with the group's number.
    pub(super) fn fronts(&self) -> impl Iterator<Item = (usize, &VJob)> + '_ {
        (self.active.iter()).map(|&g| (g, self.groups[g].front().expect("an active group")))
    }

    /// Removes the earliest job of group `g` (non-empty).
    pub(super) fn take(&mut self, g: usize) -> VJob {
        let job = self.groups[g].pop_front().expect("an active group");
        self.len -= 1;
        if self.groups[g].is_empty() {
            let at = self.at[g];
            self.active.swap_remove(at);
            if let Some(&moved) = self.active.get(at) {
                self.at[moved] = at;
            }
        }
        job
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u64, cpu: u64, class: u32) -> VJob {
        VJob {
            id,
            req: [cpu, 0, 0],
            service: 1,
            arrival: id,
            strict: false,
            class,
        }
    }

    #[test]
    fn each_key_keeps_its_jobs_in_arrival_order_and_empty_groups_leave() {
        let mut g = Groups::default();
        for (id, cpu, class) in [(0, 5, 0), (1, 7, 0), (2, 5, 0), (3, 5, 1), (4, 7, 0)] {
            g.push(job(id, cpu, class));
        }
        assert_eq!(g.len(), 5);
        let mut fronts: Vec<u64> = g.fronts().map(|(_, j)| j.id).collect();
        fronts.sort();
        assert_eq!(fronts, [0, 1, 3]);
        // take every job of the first group: it leaves the active list, the others stay
        let first = g.fronts().find(|(_, j)| j.id == 0).unwrap().0;
        assert_eq!(g.take(first).id, 0);
        assert_eq!(g.take(first).id, 2);
        let mut fronts: Vec<u64> = g.fronts().map(|(_, j)| j.id).collect();
        fronts.sort();
        assert_eq!(fronts, [1, 3]);
        let seven = g.fronts().find(|(_, j)| j.id == 1).unwrap().0;
        assert_eq!(g.take(seven).id, 1);
        assert_eq!(g.take(seven).id, 4);
        // a key seen before comes back as its old group
        g.push(job(9, 5, 0));
        assert_eq!(g.fronts().map(|(k, _)| k).collect::<Vec<_>>().len(), 2);
        assert_eq!(g.len(), 2);
    }
}
