//! MaxWeight over all feasible configurations, for finitely many job types (docs/theory.md
//! section 2; the classical optimal-throughput baseline of the finite-type literature).
//!
//! Each type (a distinct job size) has a FIFO queue. Every slot every server is visited in index
//! order; an empty server renews its configuration to argmax ⟨k, Q⟩ over *all* feasible
//! configurations k (Σ k_i s_i ≤ 1 with true sizes), found by the exact branch-and-bound knapsack
//! of [`crate::configurations::knapsack`]; a busy server keeps it until it empties and takes
//! head-of-line jobs of each type i while it holds fewer than k_i of them.

use std::collections::BTreeMap;

use super::classes::{ClassQueues, Wants};
use super::entry::PolicyEntry;
use super::params::finite_sizes;
use super::{Policy, PolicySpec, SlotView};
use crate::configurations::knapsack::{Counts, Knapsack};
use crate::model::{Job, ServerId, Size};
use crate::sim::Cluster;

/// MaxWeight in experiment files (finitely many sizes only).
pub(crate) const MAX_WEIGHT: PolicyEntry = PolicyEntry::new(
    "max-weight",
    "MaxWeight over all feasible configurations (finitely many sizes), renewed when a server empties",
    |_, sizes| {
        let types = finite_sizes(sizes)?;
        let units: Vec<String> = types.iter().map(|t| t.0.to_string()).collect();
        let params = format!("sizes = [{}]", units.join(" "));
        Ok(PolicySpec::new(params, move |servers| {
            MaxWeight::new(types.clone(), servers)
        }))
    },
)
.colour((140, 86, 75))
.cost(1.5)
.reference(super::reference::max_weight);

#[derive(Clone, Debug, Default)]
struct ServerState {
    busy: bool,
    cfg: Counts,
    held: Vec<u32>,
}

/// MaxWeight with configurations renewed when a server empties.
#[derive(Clone, Debug)]
pub struct MaxWeight {
    /// The job sizes, ascending; a job's class is its index here.
    types: Vec<Size>,
    queues: ClassQueues<true>,
    wants: Wants,
    servers: Vec<ServerState>,
    /// Busy servers per configuration (entries that fell to zero are kept).
    usage: BTreeMap<Counts, u64>,
    weights: Vec<f64>,
    /// The knapsack's working memory, kept between renewals.
    knapsack: Knapsack,
}

impl MaxWeight {
    /// `types`: the distinct job sizes (any order; every job must have one of them).
    pub fn new(mut types: Vec<Size>, servers: usize) -> Self {
        types.sort_unstable();
        types.dedup();
        assert!(types.len() <= u8::MAX as usize + 1, "at most 256 types");
        let n = types.len();
        MaxWeight {
            queues: ClassQueues::new(n),
            wants: Wants::new(servers, n),
            servers: vec![
                ServerState {
                    busy: false,
                    cfg: vec![0; n],
                    held: vec![0; n],
                };
                servers
            ],
            usage: BTreeMap::new(),
            weights: vec![0.0; n],
            knapsack: Knapsack::default(),
            types,
        }
    }

    /// Publishes whether server `i` is empty and which types it wants.
    fn refresh(&mut self, i: ServerId) {
        let s = &self.servers[i as usize];
        self.wants.set_empty(i, !s.busy);
        for t in 0..self.types.len() {
            self.wants.set_wants(i, t, s.busy && s.held[t] < s.cfg[t]);
        }
    }

    fn visit(&mut self, i: ServerId, cluster: &mut Cluster, now: u64) {
        let s = &mut self.servers[i as usize];
        if !s.busy {
            for (w, &q) in self.weights.iter_mut().zip(self.queues.lengths()) {
                *w = q as f64;
            }
            self.knapsack.solve(&self.types, &self.weights, &mut s.cfg);
        }
        for t in 0..self.types.len() {
            while s.held[t] < s.cfg[t] {
                let Some(job) = self.queues.pop(t) else { break };
                cluster.place(i, &job, now);
                s.held[t] += 1;
                if !s.busy {
                    s.busy = true;
                    match self.usage.get_mut(&s.cfg) {
                        Some(n) => *n += 1,
                        None => {
                            self.usage.insert(s.cfg.clone(), 1);
                        }
                    }
                }
            }
        }
        self.refresh(i);
    }

    fn label(&self, k: &Counts) -> String {
        let parts: Vec<String> = k
            .iter()
            .zip(&self.types)
            .filter(|(n, _)| **n > 0)
            .map(|(n, s)| format!("{n}×{s}"))
            .collect();
        parts.join("+")
    }
}

impl Policy for MaxWeight {
    fn enqueue(&mut self, mut job: Job) {
        let t = self
            .types
            .binary_search(&job.size)
            .expect("every job size is one of the types (checked with the spec)");
        job.class = t as u8;
        self.queues.push(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for d in view.departures {
            self.servers[d.server as usize].held[d.class as usize] -= 1;
        }
        for &i in view.departed {
            let s = &mut self.servers[i as usize];
            if s.busy && cluster.jobs_on(i) == 0 {
                s.busy = false;
                let n = self
                    .usage
                    .get_mut(&s.cfg)
                    .expect("counted when it became busy");
                // kept at zero: the configuration is likely to be chosen again
                *n -= 1;
            }
            self.refresh(i);
        }
        let mut from = 0;
        while let Some(i) = self.wants.next(from, &self.queues) {
            self.visit(i, cluster, view.now);
            from = i + 1;
        }
    }

    /// After a pass no server's visit can place a job: a server visited took jobs of each type
    /// until it held its configuration's count or the type ran out (an empty one renews to a
    /// configuration with a job of a waiting type, so it takes one), one skipped wanted only
    /// types with no job waiting, and since then queues only shrank.
    fn idle(&self) -> bool {
        true
    }

    fn waiting(&self) -> usize {
        self.queues.total()
    }

    fn class_lengths(&self) -> &[u64] {
        self.queues.lengths()
    }

    fn config_usage(&self, out: &mut Vec<(String, u64)>) {
        for (k, &n) in self.usage.iter().filter(|(_, n)| **n > 0) {
            out.push((self.label(k), n));
        }
    }
}
