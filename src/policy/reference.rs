//! Plain versions of the built-in policies' rules: every waiting job in one list in arrival
//! order, every decision a linear scan, every server visited every slot. They are slow and
//! obviously what docs/theory.md says; each built-in policy's entry names its plain version
//! ([`super::PolicyEntry::reference`]), and the suites check the fast policy against it decision
//! by decision on random systems ([`super::testing::check_entry`]).

use super::params::{ParamError, PolicyParams, finite_sizes, partition, stall};
use super::{Policy, PolicySpec, SlotView};
use crate::configurations::{Partition, ReducedSet, VQ2, knapsack};
use crate::model::{Departure, Job, ServerId, Size};
use crate::sim::Cluster;
use crate::workload::SizeLaw;

/// A rule of best fit or first fit (docs/theory.md sections 3 and 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    BfJs,
    BfJ,
    BfS,
    FifoFf,
}

/// BF-J/S, BF-J, BF-S or FIFO-FF by linear scans.
struct FitScan {
    rule: Rule,
    /// Waiting jobs in arrival order.
    queue: Vec<Job>,
    /// Ids of this slot's batch.
    batch: Vec<u64>,
}

impl FitScan {
    fn new(rule: Rule) -> Self {
        FitScan {
            rule,
            queue: Vec::new(),
            batch: Vec::new(),
        }
    }

    /// Largest waiting job with size ≤ free; ties: earliest arrival.
    fn largest_fitting(&self, free: Size) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (k, j) in self.queue.iter().enumerate() {
            if j.size <= free && best.is_none_or(|b| j.size > self.queue[b].size) {
                best = Some(k);
            }
        }
        best
    }

    /// Server with least free ≥ size; ties: lowest index.
    fn best_server(cluster: &Cluster, size: Size) -> Option<ServerId> {
        let mut best: Option<ServerId> = None;
        for i in 0..cluster.servers() as ServerId {
            let f = cluster.free(i);
            if f >= size && best.is_none_or(|b| f < cluster.free(b)) {
                best = Some(i);
            }
        }
        best
    }

    fn bf_s(&mut self, cluster: &mut Cluster, i: ServerId, now: u64) {
        while let Some(k) = self.largest_fitting(cluster.free(i)) {
            let job = self.queue.remove(k);
            cluster.place(i, &job, now);
        }
    }
}

impl Policy for FitScan {
    fn enqueue(&mut self, job: Job) {
        self.batch.push(job.id);
        self.queue.push(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let now = view.now;
        match self.rule {
            Rule::BfJs => {
                for &i in view.departed {
                    self.bf_s(cluster, i, now);
                }
                for id in std::mem::take(&mut self.batch) {
                    let Some(k) = self.queue.iter().position(|j| j.id == id) else {
                        continue;
                    };
                    if let Some(i) = Self::best_server(cluster, self.queue[k].size) {
                        let job = self.queue.remove(k);
                        cluster.place(i, &job, now);
                    }
                }
            }
            Rule::BfJ => {
                let mut k = 0;
                while k < self.queue.len() {
                    if let Some(i) = Self::best_server(cluster, self.queue[k].size) {
                        let job = self.queue.remove(k);
                        cluster.place(i, &job, now);
                    } else {
                        k += 1;
                    }
                }
            }
            Rule::BfS => {
                for i in 0..cluster.servers() as ServerId {
                    self.bf_s(cluster, i, now);
                }
            }
            Rule::FifoFf => {
                while let Some(head) = self.queue.first() {
                    let Some(i) =
                        (0..cluster.servers() as ServerId).find(|&i| cluster.free(i) >= head.size)
                    else {
                        break;
                    };
                    let job = self.queue.remove(0);
                    cluster.place(i, &job, now);
                }
            }
        }
        self.batch.clear();
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

/// A configuration-based rule (docs/theory.md sections 6, 7 and 2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Vqs,
    VqsBf,
    MaxWeight,
}

/// VQS, VQS-BF (with stalling) or MaxWeight, every server visited every slot in index order,
/// every configuration's weight computed afresh.
struct ConfigScan {
    kind: Kind,
    partition: Partition,
    kred: ReducedSet,
    types: Vec<Size>,
    /// Waiting jobs in arrival order (each with its class).
    queue: Vec<Job>,
    /// Per server: (class, size) of the jobs it holds, and its configuration.
    held: Vec<Vec<(usize, Size)>>,
    cfg: Vec<usize>,
    mw_cfg: Vec<Vec<u32>>,
    stall: Option<f64>,
    stalled: Vec<bool>,
}

impl ConfigScan {
    fn new(
        kind: Kind,
        partition: Partition,
        types: Vec<Size>,
        servers: usize,
        stall: Option<f64>,
    ) -> Self {
        ConfigScan {
            stall,
            stalled: vec![false; servers],
            kind,
            kred: ReducedSet::new(&partition),
            partition,
            types,
            queue: Vec::new(),
            held: vec![Vec::new(); servers],
            cfg: vec![0; servers],
            mw_cfg: vec![Vec::new(); servers],
        }
    }

    fn classes(&self) -> usize {
        if self.kind == Kind::MaxWeight {
            self.types.len()
        } else {
            self.partition.len()
        }
    }

    fn lengths(&self) -> Vec<u64> {
        let mut q = vec![0; self.classes()];
        for j in &self.queue {
            q[j.class as usize] += 1;
        }
        q
    }

    fn take(&mut self, k: usize, i: ServerId, cluster: &mut Cluster, now: u64) {
        let job = self.queue.remove(k);
        cluster.place(i, &job, now);
        self.held[i as usize].push((job.class as usize, job.size));
    }

    /// Position of the first waiting job of class c (head of line).
    fn head(&self, c: usize) -> Option<usize> {
        self.queue.iter().position(|j| j.class as usize == c)
    }

    /// Position of the largest waiting job with `pred`, size ≤ free; ties: earliest.
    fn largest(&self, free: Size, pred: impl Fn(&Job) -> bool) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (k, j) in self.queue.iter().enumerate() {
            if pred(j) && j.size <= free && best.is_none_or(|b| j.size > self.queue[b].size) {
                best = Some(k);
            }
        }
        best
    }

    /// MaxWeight's visit of server `i`: a new configuration when it is empty, then the head of
    /// each type's queue while the configuration has room for it.
    fn visit_max_weight(&mut self, i: ServerId, cluster: &mut Cluster, now: u64) {
        let iu = i as usize;
        if self.held[iu].is_empty() {
            let w: Vec<f64> = self.lengths().iter().map(|&q| q as f64).collect();
            self.mw_cfg[iu] = knapsack::max_weight(&self.types, &w).0;
        }
        for t in 0..self.types.len() {
            loop {
                let have = self.held[iu].iter().filter(|h| h.0 == t).count() as u32;
                if have >= self.mw_cfg[iu][t] {
                    break;
                }
                let Some(k) = self.head(t) else { break };
                self.take(k, i, cluster, now);
            }
        }
    }

    fn visit(&mut self, i: ServerId, cluster: &mut Cluster, now: u64) {
        if self.kind == Kind::MaxWeight {
            return self.visit_max_weight(i, cluster, now);
        }
        let iu = i as usize;
        let q = self.lengths();
        let mut best = 0;
        for k in 1..self.kred.len() {
            if self.kred.get(k).weight(&q) > self.kred.get(best).weight(&q) {
                best = k;
            }
        }
        if self.held[iu].is_empty() {
            self.cfg[iu] = best;
            self.stalled[iu] = false;
        } else if let Some(beta) = self.stall {
            // section 9: a busy server whose configuration weighs less than β · max stalls
            // until it empties
            let w = self.kred.get(self.cfg[iu]).weight(&q) as f64;
            if w < beta * self.kred.get(best).weight(&q) as f64 {
                self.stalled[iu] = true;
            }
        }
        if self.stalled[iu] {
            return;
        }
        let cfg = self.kred.get(self.cfg[iu]);
        let count = |held: &Vec<(usize, Size)>, c: usize| held.iter().filter(|h| h.0 == c).count();
        let used = |held: &Vec<(usize, Size)>, c: usize| {
            held.iter().filter(|h| h.0 == c).map(|h| h.1.0).sum::<u64>()
        };
        if self.kind == Kind::Vqs {
            if cfg.vq2
                && count(&self.held[iu], VQ2) == 0
                && let Some(k) = self.head(VQ2)
            {
                self.take(k, i, cluster, now);
            }
            if let Some((j, _)) = cfg.other {
                while let Some(k) = self.head(j) {
                    let room = if cfg.vq2 {
                        Size::ratio(1, 3).0 - used(&self.held[iu], j)
                    } else {
                        cluster.free(i).0
                    };
                    if self.queue[k].size.0 > room {
                        break;
                    }
                    self.take(k, i, cluster, now);
                }
            }
            return;
        }
        if cfg.vq2
            && count(&self.held[iu], VQ2) == 0
            && let Some(k) = self.largest(cluster.free(i), |j| j.class as usize == VQ2)
        {
            self.take(k, i, cluster, now);
        }
        if let Some((j, n)) = cfg.other {
            while count(&self.held[iu], j) < n as usize {
                let Some(k) = self.largest(cluster.free(i), |x| x.class as usize == j) else {
                    break;
                };
                self.take(k, i, cluster, now);
            }
        }
        while let Some(k) = self.largest(cluster.free(i), |_| true) {
            self.take(k, i, cluster, now);
        }
    }
}

impl Policy for ConfigScan {
    fn enqueue(&mut self, mut job: Job) {
        job.class = if self.kind == Kind::MaxWeight {
            self.types
                .iter()
                .position(|&s| s == job.size)
                .expect("a size of the law") as u8
        } else {
            self.partition.index(job.size) as u8
        };
        self.queue.push(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for &Departure {
            server,
            size,
            class,
        } in view.departures
        {
            let h = &mut self.held[server as usize];
            let k = h
                .iter()
                .position(|&(c, s)| c == class as usize && s == size)
                .expect("departing job is held");
            h.remove(k);
        }
        for i in 0..cluster.servers() as ServerId {
            self.visit(i, cluster, view.now);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

/// The plain version of a best-fit or first-fit rule.
fn fit(rule: Rule) -> PolicySpec {
    PolicySpec::new(format!("{rule:?} by linear scans"), move |_| {
        FitScan::new(rule)
    })
}

/// BF-J/S by linear scans.
pub(crate) fn bf_js(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(fit(Rule::BfJs))
}

/// BF-J by linear scans.
pub(crate) fn bf_j(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(fit(Rule::BfJ))
}

/// BF-S by linear scans.
pub(crate) fn bf_s(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(fit(Rule::BfS))
}

/// FIFO-FF by linear scans.
pub(crate) fn fifo_ff(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(fit(Rule::FifoFf))
}

/// A configuration rule by linear scans, for the same keys as its fast version.
fn config(kind: Kind, p: &PolicyParams<'_>, sizes: &SizeLaw) -> Result<PolicySpec, ParamError> {
    let (partition, stall, types) = match kind {
        Kind::MaxWeight => (Partition::universal(1), None, finite_sizes(sizes)?),
        _ => (partition(p)?, stall(p)?, Vec::new()),
    };
    Ok(PolicySpec::new(
        format!("{kind:?} by linear scans"),
        move |servers| ConfigScan::new(kind, partition.clone(), types.clone(), servers, stall),
    ))
}

/// VQS by linear scans.
pub(crate) fn vqs(p: &PolicyParams<'_>, sizes: &SizeLaw) -> Result<PolicySpec, ParamError> {
    config(Kind::Vqs, p, sizes)
}

/// VQS-BF by linear scans.
pub(crate) fn vqs_bf(p: &PolicyParams<'_>, sizes: &SizeLaw) -> Result<PolicySpec, ParamError> {
    config(Kind::VqsBf, p, sizes)
}

/// MaxWeight by linear scans.
pub(crate) fn max_weight(p: &PolicyParams<'_>, sizes: &SizeLaw) -> Result<PolicySpec, ParamError> {
    config(Kind::MaxWeight, p, sizes)
}
