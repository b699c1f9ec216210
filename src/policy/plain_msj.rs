//! Plain versions of the multiserver-job policies' rules (First-Fit, SMASH, ServerFilling,
//! backfilling, and Most-Servers-First): every job in one list in arrival order, every decision
//! a linear scan, every server visited. Slow and obviously the rule; the suites check the fast
//! policies against them decision by decision ([`super::testing::check_entry`]).

use super::params::{ParamError, PolicyParams};
use super::{Policy, PolicySpec, SlotView};
use crate::model::{Job, ServerId, Size};
use crate::sim::Cluster;
use crate::workload::SizeLaw;

/// The first server (lowest index) with free capacity ≥ `size`.
fn first_server(cluster: &Cluster, size: Size) -> Option<ServerId> {
    (0..cluster.servers() as ServerId).find(|&i| cluster.free(i) >= size)
}

/// The largest free capacity of any server.
fn most_free(cluster: &Cluster) -> Size {
    cluster.frees().iter().copied().max().unwrap_or_default()
}

/// First-Fit's rule.
struct PlainFirstFit {
    queue: Vec<Job>,
}

impl Policy for PlainFirstFit {
    fn enqueue(&mut self, job: Job) {
        self.queue.push(job);
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let mut k = 0;
        while k < self.queue.len() {
            match first_server(cluster, self.queue[k].size) {
                Some(i) => {
                    let job = self.queue.remove(k);
                    cluster.place(i, &job, view.now);
                }
                None => k += 1,
            }
        }
    }
    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

/// The plain First-Fit.
pub(super) fn first_fit(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(PolicySpec::new("plain", |_| PlainFirstFit {
        queue: Vec::new(),
    }))
}

/// SMASH's rule with window w.
struct PlainSmash {
    window: usize,
    queue: Vec<Job>,
}

impl Policy for PlainSmash {
    fn enqueue(&mut self, job: Job) {
        self.queue.push(job);
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        loop {
            let free = most_free(cluster);
            let mut best: Option<usize> = None;
            for k in 0..self.window.min(self.queue.len()) {
                let s = self.queue[k].size;
                if s <= free && best.is_none_or(|b| s > self.queue[b].size) {
                    best = Some(k);
                }
            }
            let Some(k) = best else { break };
            let job = self.queue.remove(k);
            let i = first_server(cluster, job.size).expect("fits");
            cluster.place(i, &job, view.now);
        }
    }
    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

/// The plain SMASH.
pub(super) fn smash(params: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    let window = super::msj_keys::window(params)?;
    Ok(PolicySpec::new("plain", move |_| PlainSmash {
        window,
        queue: Vec::new(),
    }))
}

/// Most-Servers-First on one server: at every slot, the largest waiting job that fits starts
/// (ties: the earliest), again and again.
struct PlainMsf {
    queue: Vec<Job>,
}

impl Policy for PlainMsf {
    fn enqueue(&mut self, job: Job) {
        self.queue.push(job);
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        loop {
            let free = cluster.free(0);
            let mut best: Option<usize> = None;
            for (k, j) in self.queue.iter().enumerate() {
                if j.size <= free && best.is_none_or(|b| j.size > self.queue[b].size) {
                    best = Some(k);
                }
            }
            let Some(k) = best else { break };
            let job = self.queue.remove(k);
            cluster.place(0, &job, view.now);
        }
    }
    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

/// Most-Servers-First on one server (for the test that BF-J/S on one server is it).
pub fn most_servers_first() -> Box<dyn Policy> {
    Box::new(PlainMsf { queue: Vec::new() })
}

/// ServerFilling's rule: every job present in one list, M and its service recomputed from
/// scratch every slot.
struct PlainServerFilling {
    /// (job, in service since, due) in arrival order; `job.service` is what it still needs
    /// when it is not in service.
    present: Vec<(Job, Option<u64>)>,
}

impl Policy for PlainServerFilling {
    fn enqueue(&mut self, job: Job) {
        self.present.push((job, None));
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let now = view.now;
        self.present.retain(|(_, due)| due.is_none_or(|d| d > now));
        let mut sum = 0u64;
        let mut len = 0;
        while len < self.present.len() && sum < Size::UNIT {
            sum += self.present[len].0.size.0;
            len += 1;
        }
        // largest first, ties the earliest, while it fits
        let mut served = vec![false; len];
        let mut free = Size::UNIT;
        let mut left: Vec<usize> = (0..len).collect();
        while !left.is_empty() {
            let mut best = 0;
            for (b, &k) in left.iter().enumerate() {
                if self.present[k].0.size > self.present[left[best]].0.size {
                    best = b;
                }
            }
            let k = left.remove(best);
            if self.present[k].0.size.0 <= free {
                free -= self.present[k].0.size.0;
                served[k] = true;
            }
        }
        for (k, p) in self.present.iter_mut().enumerate() {
            let on = k < len && served[k];
            if p.1.is_some() && !on {
                let (_, job) = cluster.preempt(p.0.id, now);
                *p = (job, None);
            }
        }
        for (p, &on) in self.present[..len].iter_mut().zip(&served) {
            if on && p.1.is_none() {
                let job = p.0;
                cluster.place(0, &job, now);
                p.1 = Some(now + job.service as u64);
            }
        }
    }
    fn waiting(&self) -> usize {
        self.present.iter().filter(|p| p.1.is_none()).count()
    }
    fn preemptive(&self) -> bool {
        true
    }
}

/// The plain ServerFilling.
pub(super) fn server_filling(
    _: &PolicyParams<'_>,
    sizes: &SizeLaw,
) -> Result<PolicySpec, ParamError> {
    super::msj_keys::powers_of_two(sizes)?;
    Ok(PolicySpec::new("plain", |_| PlainServerFilling {
        present: Vec::new(),
    }))
}

/// Backfilling's rule.
struct PlainBackfilling {
    queue: Vec<Job>,
    /// Jobs in service: (server, due, size).
    running: Vec<(ServerId, u64, Size)>,
}

impl Policy for PlainBackfilling {
    fn enqueue(&mut self, job: Job) {
        self.queue.push(job);
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let now = view.now;
        self.running.retain(|r| r.1 > now);
        while let Some(head) = self.queue.first() {
            let Some(i) = first_server(cluster, head.size) else {
                break;
            };
            let job = self.queue.remove(0);
            cluster.place(i, &job, now);
            self.running.push((i, now + job.service as u64, job.size));
        }
        let Some(head) = self.queue.first().copied() else {
            return;
        };
        // the earliest slot at which some server holds the head
        let mut reserve = u64::MAX;
        for i in 0..cluster.servers() as ServerId {
            let mut dues: Vec<(u64, Size)> = (self.running.iter())
                .filter(|r| r.0 == i)
                .map(|r| (r.1, r.2))
                .collect();
            dues.sort();
            let mut free = cluster.free(i).0;
            for (due, s) in dues {
                free += s.0;
                if free >= head.size.0 {
                    reserve = reserve.min(due);
                    break;
                }
            }
        }
        let mut k = 1;
        while k < self.queue.len() {
            let j = self.queue[k];
            match first_server(cluster, j.size) {
                Some(i) if now + j.service as u64 <= reserve => {
                    self.queue.remove(k);
                    cluster.place(i, &j, now);
                    self.running.push((i, now + j.service as u64, j.size));
                }
                _ => k += 1,
            }
        }
    }
    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

/// The plain backfilling.
pub(super) fn backfilling(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(PolicySpec::new("plain", |_| PlainBackfilling {
        queue: Vec::new(),
        running: Vec::new(),
    }))
}
