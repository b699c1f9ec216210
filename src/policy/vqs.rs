//! VQS and VQS-BF (docs/theory.md sections 6, 7 and 9; Psychas & Ghaderi, Sections V-B and VI).
//!
//! A job of size r in interval I_j of the partition waits in virtual queue VQ_j with its true
//! size. Each server keeps an active configuration of K_RED, renewed to the max-weight one
//! (argmax ⟨k, Q⟩ over K_RED with Q the VQ lengths at that moment, ties to the lowest index)
//! only when the server is empty at its visit. Every slot every server is visited in index
//! order; servers whose visit cannot change anything are skipped (see [`super::classes`]).
//!
//! - **VQS**, configuration k: if k_2 = 1 the server reserves 2/3 for VQ_2, holds at most one
//!   VQ_2 job and takes VQ_2's head of line when it holds none; the other VQ j of k is served
//!   from its head of line into the capacity not reserved (1/3 − what VQ_j jobs use, or the
//!   whole free capacity when k_2 = 0) until the head of line does not fit. Guarantee: 2/3 of ρ*
//!   when every job is larger than 2^−J.
//! - **VQS-BF**, configuration k: (1) if k_2 = 1 and the server holds no VQ_2 job, the largest
//!   VQ_2 job that fits (no reservation); (2) the largest VQ_j jobs that fit until the server
//!   holds k_j of them, VQ_j is empty or none fits; (3) BF-S from the whole queue.
//! - **Stalling** (section 9, optional, parameter β): a busy server whose configuration weighs
//!   less than β times the max weight over K_RED at its visit is stalled: it takes no job until
//!   it empties. With stalling every server is visited every slot (no skipping).

use super::bestfit::BATCH_SCAN;
use super::classes::{Activity, ClassQueues};
use super::entry::PolicyEntry;
use super::index::{FirstFitServers, NO_JOB, SMALL, SizeQueue, SortedBatch, give_back};
use super::params::{partition, stall};
use super::{Policy, PolicySpec, SlotView};
use crate::configurations::{Partition, PartitionKind, ReducedConfig, ReducedSet, VQ2};
use crate::model::{Departure, Job, ServerId, Size};
use crate::sim::{Cluster, Violation};

/// VQS in experiment files.
pub(crate) const VQS: PolicyEntry = PolicyEntry::new(
    "vqs",
    "VQS: virtual queues over X_J, K_RED configurations renewed when a server empties, head-of-line service (≥ 2/3 of ρ* for jobs above 2^-J)",
    |p, _| {
        let (partition, stall) = (partition(p)?, stall(p)?);
        let params = vqs_params(&partition, stall);
        Ok(PolicySpec::new(params, move |servers| {
            Vqs::new(partition.clone(), servers, stall)
        }))
    },
)
.keys(&["J", "partition", "cuts", "stall"])
.colour((214, 39, 40))
.cost(1.5)
.examples(VQ_EXAMPLES)
.reference(super::reference::vqs);

/// VQS-BF in experiment files.
pub(crate) const VQS_BF: PolicyEntry = PolicyEntry::new(
    "vqs-bf",
    "VQS-BF: VQS's configurations filled largest-first, then by best fit",
    |p, _| {
        let (partition, stall) = (partition(p)?, stall(p)?);
        let params = vqs_params(&partition, stall);
        Ok(PolicySpec::new(params, move |servers| {
            VqsBf::new(partition.clone(), servers, stall)
        }))
    },
)
.keys(&["J", "partition", "cuts", "stall"])
.colour((44, 160, 44))
.cost(1.5)
.examples(VQ_EXAMPLES)
.reference(super::reference::vqs_bf);

/// The parameters VQS and VQS-BF are checked with: partitions X_2 to X_5, the dyadic one, and
/// stalling.
const VQ_EXAMPLES: &[&str] = &[
    "J = 2",
    "J = 3",
    "J = 5",
    "J = 3\npartition = \"dyadic\"",
    "J = 3\nstall = 0.7",
];

/// A VQS-type policy's parameters in words: the partition (its upper ends in fixed-point units
/// for cut points given by hand) and the stalling β.
fn vqs_params(partition: &Partition, stall: Option<f64>) -> String {
    let p = match partition.kind() {
        PartitionKind::Custom => {
            let uppers: Vec<String> = partition.uppers().iter().map(|u| u.0.to_string()).collect();
            format!("custom[{}]", uppers.join(" "))
        }
        _ => partition.label(),
    };
    match stall {
        Some(b) => format!("partition = {p}, stall = {b}"),
        None => format!("partition = {p}"),
    }
}

/// The capacity left to the other VQ next to a VQ_2 reservation: 1/3.
const THIRD: Size = Size::ratio(1, 3);
/// The VQ_2 reservation: 2/3.
const TWO_THIRDS: Size = Size::ratio(2, 3);

/// What a server holds, as far as its configuration is concerned.
#[derive(Clone, Copy, Debug, Default)]
struct ServerState {
    /// Index of the active configuration in K_RED.
    cfg: usize,
    busy: bool,
    stalled: bool,
    /// VQ_2 jobs on the server.
    vq2_jobs: u32,
    /// Jobs of the configuration's other VQ on the server, and their total size.
    other_jobs: u32,
    other_used: Size,
}

/// What VQS and VQS-BF share: partition, K_RED, server states, configuration usage.
#[derive(Clone, Debug)]
struct Common {
    partition: Partition,
    kred: ReducedSet,
    servers: Vec<ServerState>,
    /// Busy servers per configuration of K_RED.
    usage: Vec<u64>,
    stall: Option<f64>,
    /// The class with a 2/3 reservation (VQ_2 of X_J), if any.
    vq2: Option<usize>,
}

impl Common {
    fn new(partition: Partition, servers: usize, stall: Option<f64>) -> Self {
        let kred = ReducedSet::new(&partition);
        let usage = vec![0; kred.len()];
        let vq2 = kred.has_vq2().then_some(VQ2);
        Common {
            vq2,
            partition,
            kred,
            servers: vec![ServerState::default(); servers],
            usage,
            stall,
        }
    }

    fn config(&self, i: ServerId) -> ReducedConfig {
        self.kred.get(self.servers[i as usize].cfg)
    }

    /// Applies a departure to the server's counts.
    fn depart(&mut self, d: &Departure) {
        let (vq2, other) = self.counted_as(d.server, d.class as usize);
        let s = &mut self.servers[d.server as usize];
        s.vq2_jobs -= u32::from(vq2);
        s.other_jobs -= u32::from(other);
        s.other_used.0 -= d.size.0 * u64::from(other);
    }

    /// Whether a job of class `class` on server `i` counts as its VQ_2 job or as one of its
    /// configuration's other VQ (counts updated without branches: the class is random).
    #[inline]
    fn counted_as(&self, i: ServerId, class: usize) -> (bool, bool) {
        let vq2 = self.vq2 == Some(class);
        let other = !vq2 & (self.kred.other_vq(self.servers[i as usize].cfg) == class);
        (vq2, other)
    }

    /// Once the slot's departures have left the cluster: a server left empty is no longer
    /// busy, and its counts are reset (a second call changes nothing).
    fn settle(&mut self, i: ServerId, cluster: &Cluster) {
        let s = &mut self.servers[i as usize];
        if s.busy && cluster.jobs_on(i) == 0 {
            self.usage[s.cfg] -= 1;
            *s = ServerState {
                cfg: s.cfg,
                ..ServerState::default()
            };
        }
    }

    /// Start of a visit: renew if empty, then apply stalling. Returns false if the server takes
    /// nothing this visit.
    fn begin_visit(&mut self, i: ServerId, q: &[u64]) -> bool {
        let s = &mut self.servers[i as usize];
        if !s.busy {
            s.cfg = self.kred.max_weight(q).0;
            return true;
        }
        if s.stalled {
            return false;
        }
        if let Some(beta) = self.stall {
            let w = self.kred.get(s.cfg).weight(q) as f64;
            if w < beta * self.kred.max_weight(q).1 as f64 {
                s.stalled = true;
                return false;
            }
        }
        true
    }

    /// Records a placement of a job of class `class` and size `size` on server `i`.
    fn placed(&mut self, i: ServerId, class: usize, size: Size) {
        let (vq2, other) = self.counted_as(i, class);
        let s = &mut self.servers[i as usize];
        self.usage[s.cfg] += u64::from(!s.busy);
        s.busy = true;
        s.vq2_jobs += u32::from(vq2);
        s.other_jobs += u32::from(other);
        s.other_used.0 += size.0 * u64::from(other);
    }

    fn usage(&self, out: &mut Vec<(String, u64)>) {
        for (c, &n) in self.kred.iter().zip(&self.usage) {
            if n > 0 {
                out.push((c.label(), n));
            }
        }
    }
}

/// VQS: virtual queues over a partition, K_RED configurations, head-of-line service.
#[derive(Clone, Debug)]
pub struct Vqs {
    c: Common,
    queues: ClassQueues<false>,
    activity: Activity,
    /// After the last slot's visits no server's visit could place a job.
    settled: bool,
}

impl Vqs {
    /// VQS over the universal partition `partition` (X_J) on `servers` servers, with optional
    /// stalling parameter β.
    pub fn new(partition: Partition, servers: usize, stall: Option<f64>) -> Self {
        let n = partition.len();
        Vqs {
            c: Common::new(partition, servers, stall),
            queues: ClassQueues::new(n),
            activity: Activity::new(servers, n),
            settled: stall.is_none(),
        }
    }

    /// Publishes what server `i` offers each class after a change.
    fn refresh(&mut self, i: ServerId, cluster: &Cluster) {
        let s = self.c.servers[i as usize];
        let cfg = self.c.config(i);
        let live = s.busy && !s.stalled;
        let mut row = [(0, Size::ZERO); 2];
        let mut n = 0;
        if cfg.vq2 {
            let vq2 = if live && s.vq2_jobs == 0 {
                TWO_THIRDS
            } else {
                Size::ZERO
            };
            row[n] = (VQ2, vq2);
            n += 1;
        }
        if let Some((j, _)) = cfg.other {
            let cap = match (live, cfg.vq2) {
                (false, _) => Size::ZERO,
                (true, true) => Size(THIRD.0 - s.other_used.0),
                (true, false) => cluster.free(i),
            };
            row[n] = (j, cap);
            n += 1;
        }
        self.activity.publish(i, !s.busy, &row[..n]);
    }

    fn visit(&mut self, i: ServerId, cluster: &mut Cluster, now: u64) {
        if !self.c.begin_visit(i, self.queues.lengths()) {
            self.refresh(i, cluster);
            return;
        }
        let cfg = self.c.config(i);
        if cfg.vq2
            && self.c.servers[i as usize].vq2_jobs == 0
            && let Some(job) = self.queues.pop(VQ2)
        {
            self.activity.head_changed(VQ2, &self.queues);
            cluster.place(i, &job, now);
            self.c.placed(i, VQ2, job.size);
        }
        if let Some((j, _)) = cfg.other {
            let mut taken = false;
            while let Some(h) = self.queues.head(j) {
                let room = if cfg.vq2 {
                    Size(THIRD.0 - self.c.servers[i as usize].other_used.0)
                } else {
                    cluster.free(i)
                };
                if h.size > room {
                    break;
                }
                let job = self.queues.pop(j).expect("head exists");
                cluster.place(i, &job, now);
                self.c.placed(i, j, job.size);
                taken = true;
            }
            // once for the run of jobs taken, before the offers are published
            if taken {
                self.activity.head_changed(j, &self.queues);
            }
        }
        self.refresh(i, cluster);
    }
}

impl Policy for Vqs {
    fn enqueue(&mut self, mut job: Job) {
        job.class = self.c.partition.index(job.size) as u8;
        let c = job.class as usize;
        let first = self.queues.head(c).is_none();
        self.queues.push(job);
        if first {
            self.activity.head_changed(c, &self.queues);
        }
        self.settled = false;
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for d in view.departures {
            self.c.depart(d);
        }
        for &i in view.departed {
            self.c.settle(i, cluster);
            self.refresh(i, cluster);
        }
        if self.c.stall.is_some() {
            for i in 0..cluster.servers() as ServerId {
                self.visit(i, cluster, view.now);
            }
            self.settled = false;
            return;
        }
        let mut from = 0;
        while let Some(i) = self.activity.next(from, &self.queues) {
            self.visit(i, cluster, view.now);
            from = i + 1;
        }
        // with no visit nothing changed since the search from server 0 found none
        self.settled = from == 0 || self.activity.next(0, &self.queues).is_none();
    }

    fn waiting(&self) -> usize {
        self.queues.total()
    }

    /// No server's visit can place a job (a later server may have taken a head of line that
    /// an earlier one could not, so this is asked at the end of each slot's visits, not
    /// assumed). With stalling every slot runs.
    fn idle(&self) -> bool {
        self.settled
    }

    fn class_lengths(&self) -> &[u64] {
        self.queues.lengths()
    }

    fn config_usage(&self, out: &mut Vec<(String, u64)>) {
        self.c.usage(out);
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        for (i, s) in self.c.servers.iter().enumerate() {
            let cfg = self.c.kred.get(s.cfg);
            if s.busy != (cluster.jobs_on(i as ServerId) > 0) {
                return Err(Violation(format!("server {i}: busy flag drifted")));
            }
            if cfg.vq2 && (s.vq2_jobs > 1 || s.other_used > THIRD) {
                return Err(Violation(format!("server {i}: VQ_2 reservation broken")));
            }
        }
        Ok(())
    }
}

/// Largest batch VQS-BF sorts: a larger burst goes into the size-ordered queue, which keeps
/// it in about 24 bytes a job rather than the sorted batch's 60.
const SORTED_AT_MOST: usize = 1 << 16;

/// VQS-BF: VQS's configurations with best-fit filling.
///
/// Every take is "the largest waiting job of size in (a, b]". A slot's batch of more than
/// `BATCH_SCAN` (and at most `SORTED_AT_MOST`) jobs that would take a short queue (at most
/// `SMALL` jobs) past its short vector is sorted once and taken from beside the queue
/// (`SortedBatch`; the queue's job wins a tie in size, having arrived earlier); only the
/// jobs still waiting at the end of the slot enter the queue. Into a long queue a batch goes
/// directly, in the same order.
#[derive(Clone, Debug)]
pub struct VqsBf {
    c: Common,
    queue: SizeQueue,
    lens: Vec<u64>,
    free: FirstFitServers,
    batch: Vec<Job>,
    sorted: SortedBatch,
}

impl VqsBf {
    /// VQS-BF over the universal partition `partition` (X_J) on `servers` servers, with optional
    /// stalling parameter β.
    pub fn new(partition: Partition, servers: usize, stall: Option<f64>) -> Self {
        let n = partition.len();
        VqsBf {
            c: Common::new(partition, servers, stall),
            queue: SizeQueue::default(),
            lens: vec![0; n],
            free: FirstFitServers::new(servers),
            batch: Vec::new(),
            sorted: SortedBatch::default(),
        }
    }

    /// Publishes what server `i` offers: its free capacity, or nothing while stalled.
    fn refresh(&mut self, i: ServerId, cluster: &Cluster) {
        let offer = if self.c.servers[i as usize].stalled {
            Size::ZERO
        } else {
            cluster.free(i)
        };
        self.free.update(i, offer);
    }

    /// The largest waiting job of VQ `j` of size ≤ `free`, removed into `out`.
    fn take_largest_in(&mut self, j: usize, free: Size, out: &mut Job) -> bool {
        let above = self.c.partition.lower(j);
        let cap = free.min(self.c.partition.upper(j));
        // no search when no size of the interval fits
        if cap <= above {
            return false;
        }
        self.take_into(above, cap, out)
    }

    /// The largest waiting job of size ≤ `free` (earliest among equal sizes), removed into
    /// `out` unless its size is ≤ `above` (every size is above zero): from the queue, or from
    /// the sorted batch beside it. Whether one was.
    #[inline(always)]
    fn take_into(&mut self, above: Size, free: Size, out: &mut Job) -> bool {
        if !self.sorted.is_active() {
            return self.queue.take_largest_between_into(above, free, out);
        }
        (self.sorted).take_largest_into(&mut self.queue, &self.batch, above, free, out)
    }

    /// The smallest waiting size, in the queue or the sorted batch.
    #[inline]
    fn min_size(&mut self) -> Option<Size> {
        let queued = self.queue.min_size();
        if !self.sorted.is_active() {
            return queued;
        }
        match (queued, self.sorted.smallest().map(Size)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn put(&mut self, i: ServerId, job: &Job, cluster: &mut Cluster, now: u64) {
        cluster.place(i, job, now);
        self.lens[job.class as usize] -= 1;
        self.c.placed(i, job.class as usize, job.size);
    }

    fn visit(&mut self, i: ServerId, cluster: &mut Cluster, now: u64) {
        if self.c.begin_visit(i, &self.lens) {
            let cfg = self.c.config(i);
            // each take writes into `job`, which `put` reads in place
            let mut job = NO_JOB;
            // a virtual queue with no job is not searched
            if cfg.vq2
                && self.c.servers[i as usize].vq2_jobs == 0
                && self.lens[VQ2] > 0
                && self.take_largest_in(VQ2, cluster.free(i), &mut job)
            {
                self.put(i, &job, cluster, now);
            }
            if let Some((j, k)) = cfg.other {
                while self.c.servers[i as usize].other_jobs < k && self.lens[j] > 0 {
                    if !self.take_largest_in(j, cluster.free(i), &mut job) {
                        break;
                    }
                    self.put(i, &job, cluster, now);
                }
            }
            while self.take_into(Size::ZERO, cluster.free(i), &mut job) {
                self.put(i, &job, cluster, now);
            }
        }
        self.refresh(i, cluster);
    }
}

impl Policy for VqsBf {
    fn enqueue(&mut self, mut job: Job) {
        job.class = self.c.partition.index(job.size) as u8;
        self.lens[job.class as usize] += 1;
        self.queue.insert(job);
    }

    fn enqueue_batch(&mut self, jobs: &[Job]) {
        // kept apart and sorted when the queue would otherwise leave its short vector for the
        // tree, unless the batch is a burst that the tree holds in less memory, or the queue
        // is long already (then every take would search both, and most of the batch would
        // join the queue at the end of the slot all the same)
        if jobs.len() <= BATCH_SCAN
            || jobs.len() + self.queue.len() <= SMALL
            || jobs.len() > SORTED_AT_MOST
            || self.queue.len() > SMALL
        {
            for &job in jobs {
                self.enqueue(job);
            }
            return;
        }
        give_back(&mut self.batch, jobs.len());
        for &job in jobs {
            let class = self.c.partition.index(job.size);
            self.lens[class] += 1;
            self.batch.push(Job {
                class: class as u8,
                ..job
            });
        }
        self.sorted.fill(&self.batch);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        // a server left empty is settled (no longer busy, its counts reset) rather than
        // counted down: the same state, without a second pass over the servers
        for d in view.departures {
            if cluster.jobs_on(d.server) == 0 {
                self.c.settle(d.server, cluster);
            } else {
                self.c.depart(d);
            }
        }
        if self.c.stall.is_some() {
            for &i in view.departed {
                self.refresh(i, cluster);
            }
            for i in 0..cluster.servers() as ServerId {
                self.visit(i, cluster, view.now);
            }
        } else {
            // A visit places something iff the smallest waiting job fits in the server's free
            // capacity (an empty server renews and then always takes a job). With a long queue
            // nearly every server with a departure is visited: those servers are met in index
            // order beside the tree, whose offers for them stay stale (below their free
            // capacity) until their visit publishes them, so each offer is written once, not
            // twice. With a short one most are not visited, and their offers go first.
            let long = self.waiting() > SMALL;
            if !long {
                for &i in view.departed {
                    self.refresh(i, cluster);
                }
            }
            let departed = if long { view.departed } else { &[] };
            let (mut from, mut k) = (0, 0);
            // The tree's last answer (`None` before it is asked). Within a slot the offers of
            // the servers not yet visited only stay or shrink, and the smallest waiting size
            // only grows: so "none from here on" stays true, and an answer stays the first
            // until it is passed or its offer falls below the smallest size.
            let mut tree: Option<Option<ServerId>> = None;
            while let Some(min) = self.min_size() {
                // a server with less room than the smallest job has none later in the slot: it
                // is not visited, and its offer is published now (below the smallest size, it
                // answers no later query)
                while k < departed.len() && (departed[k] < from || cluster.free(departed[k]) < min)
                {
                    if departed[k] >= from {
                        self.refresh(departed[k], cluster);
                    }
                    k += 1;
                }
                let next = match tree {
                    Some(None) => None,
                    Some(Some(t)) if t >= from && self.free.offer(t) >= min => Some(t),
                    _ => self.free.first_fit_from(from, min),
                };
                tree = Some(next);
                let Some(i) = departed.get(k).copied().into_iter().chain(next).min() else {
                    break;
                };
                self.visit(i, cluster, view.now);
                from = i + 1;
            }
            // the offers of the servers left (each one visited wrote its own)
            for &i in &departed[k..] {
                if i >= from {
                    self.refresh(i, cluster);
                }
            }
        }
        if self.sorted.is_active() {
            // the jobs left waiting join the queue, in arrival order
            for (pos, job) in self.batch.drain(..).enumerate() {
                if !self.sorted.is_taken(pos) {
                    self.queue.insert(job);
                }
            }
            self.sorted.clear();
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len() + self.batch.len()
    }

    /// After a pass no server offers room for the smallest waiting job: a server visited
    /// took jobs until none fitted, one skipped had no room for the smallest then, and since
    /// then the smallest waiting size only grew and free capacities only shrank. With stalling
    /// every slot runs.
    fn idle(&self) -> bool {
        self.c.stall.is_none()
    }

    fn class_lengths(&self) -> &[u64] {
        &self.lens
    }

    fn config_usage(&self, out: &mut Vec<(String, u64)>) {
        self.c.usage(out);
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        for (i, s) in self.c.servers.iter().enumerate() {
            if s.busy != (cluster.jobs_on(i as ServerId) > 0) {
                return Err(Violation(format!("server {i}: busy flag drifted")));
            }
        }
        Ok(())
    }
}
