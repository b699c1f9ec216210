//! The slotted-time simulator (docs/theory.md section 1).
//!
//! Slot order, the lab's contract: (1) jobs whose service ended in slot t−1 leave; (2) the
//! batch A(t) joins the queue; (3) the policy places jobs; (4) Q(t), the number of jobs still
//! waiting, is recorded.
//!
//! Slots in which nothing can happen (no arrival, no departure, and a policy with nothing to do)
//! are not simulated one by one: the loop jumps to the next slot with an event and accounts
//! the slots in between at once, with the queue, the capacity in use and the waiting work they
//! all share. The result is the same as simulating them, number for number.

mod calendar;
mod cluster;
pub(crate) mod guard;
pub(crate) mod pooled;
mod preemption;
pub(crate) mod verdict;
pub mod waits;

pub use calendar::Calendar;
pub use cluster::{Cluster, Placement};
pub use preemption::PreemptionTally;
pub use verdict::{Verdict, VerdictEvidence, judge};
pub use waits::{SizeClasses, Waits};

use crate::model::Size;
use crate::workload::Source;

/// What a long run tells its caller and asks it, every 65,536 events of the slot loop: the
/// function is called with the fraction of the first horizon done (slots / `slots`, which
/// passes 1 when the horizon is extended) and returns `true` to stop the run at once, which
/// then ends with [`SimError::Cancelled`].
///
/// The simulator holds no process state of its own: a program that wants a run to stop on a
/// signal, or to show its progress, says so here. [`Watch::NONE`] never stops.
#[derive(Clone, Copy)]
pub struct Watch(pub fn(f64) -> bool);

impl Watch {
    /// A watch that never stops a run and shows nothing.
    pub const NONE: Watch = Watch(|_| false);
}

/// Asked by the slot loop at each look whose verdict is inconclusive and after which the run
/// may go on: with the look's index (0 for the first horizon) and its evidence, whether to go
/// on. A limit search's driver stops the runs of a round together once their statistics,
/// pooled, decide the probe; [`Look::ALWAYS`] never stops a run.
#[derive(Clone, Copy)]
pub struct Look(pub fn(u32, &VerdictEvidence) -> bool);

impl Look {
    /// Every run goes on to its longest horizon.
    pub const ALWAYS: Look = Look(|_, _| true);
}

impl std::fmt::Debug for Look {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Look")
    }
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

/// How long to run and when to stop.
#[derive(Clone, Copy, Debug)]
pub struct RunConfig {
    /// Slots to simulate.
    pub slots: u64,
    /// Slots discarded before averaging.
    pub warmup: u64,
    /// A run whose queue exceeds this many jobs stops at once and is reported unstable.
    pub queue_cap: u64,
    /// Number of points of the sampled queue-size time series (about; at most twice this).
    pub samples: u64,
    /// Check the policy's and the cluster's invariants after every slot (slow; for tests).
    pub check_every_slot: bool,
    /// The longest a run may go: while its verdict is inconclusive and the run stays within
    /// this many slots, the measured horizon doubles (the same random streams go on, so the
    /// result depends only on the seed). `slots` (or less) means no extension.
    pub max_slots: u64,
    /// Mean service time, slots: the verdict judges no horizon shorter than
    /// `verdict::MIN_HORIZON_SERVICES` of them.
    pub mean_service: f64,
    /// Called now and then by the slot loop: progress, and whether to stop ([`Watch`]).
    pub watch: Watch,
    /// Asked at each inconclusive look whether the run goes on ([`Look`]).
    pub look: Look,
}

impl RunConfig {
    /// The looks a run takes at most: the verdict at `slots`, then one after each doubling of
    /// the horizon measured after warm-up that ends within `max_slots` (the chain of
    /// [`run_system`]).
    pub(crate) fn looks(&self) -> u32 {
        let mut len = self.slots.saturating_sub(self.warmup) / BATCHES as u64 * BATCHES as u64;
        if len == 0 {
            return 1;
        }
        let (mut end, mut looks) = (self.slots, 1);
        while let Some(next) = end.checked_add(len).filter(|&n| n <= self.max_slots) {
            end = next;
            len = len.saturating_mul(2);
            looks += 1;
        }
        looks
    }

    /// `slots` slots with `warmup` of warm-up, no extension, the default queue cap (10⁵ jobs)
    /// and 500 samples, never stopped early ([`Watch::NONE`]); `mean_service` in slots.
    pub fn new(slots: u64, warmup: u64, mean_service: f64) -> Self {
        RunConfig {
            slots,
            warmup,
            queue_cap: 100_000,
            samples: 500,
            check_every_slot: false,
            max_slots: slots,
            mean_service,
            watch: Watch::NONE,
            look: Look::ALWAYS,
        }
    }
}

pub(crate) use verdict::BATCHES;

/// What a run measured. Averages are over the slots after warm-up.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    /// Slots actually simulated (fewer than asked if the queue cap stopped the run, more if an
    /// inconclusive verdict extended it).
    pub slots: u64,
    /// Time-average of Q(t), jobs.
    pub mean_queue: f64,
    /// Largest Q(t) seen (over the whole run), jobs.
    pub max_queue: u64,
    /// Q at the last slot, jobs.
    pub final_queue: u64,
    /// Time-average fraction of the cluster's capacity in use (recorded at step 4).
    pub utilization: f64,
    /// Departures per slot.
    pub throughput: f64,
    /// Mean waiting time (placement slot − arrival slot) of jobs placed after warm-up, slots.
    pub mean_wait: f64,
    /// The run hit the queue cap.
    pub capped: bool,
    /// Sampled (slot, Q) pairs.
    pub series: Vec<(u64, u64)>,
    /// Per-class queue lengths (virtual queues, job types) at the same slots as `series`;
    /// empty for policies without classes.
    pub class_series: Vec<Vec<u64>>,
    /// Active-configuration mix: for each configuration used, the time-average fraction of
    /// servers busy with it (over the samples after warm-up), sorted by label.
    pub config_mix: Vec<(String, f64)>,
    /// Means of Q over the `BATCHES` equal batches the verdict judged (the last slots of the
    /// run; empty if the horizon is shorter than `BATCHES` slots).
    pub batch_means: Vec<f64>,
    /// Jobs that arrived.
    pub arrived: u64,
    /// Time-average of the work waiting (sum of the waiting jobs' sizes, first resource), in
    /// servers' capacities.
    pub mean_queued_work: f64,
    /// The stability verdict on the run and the numbers behind it (`verdict`).
    pub verdict: Verdict,
    /// The statistics the verdict was drawn from.
    pub evidence: VerdictEvidence,
    /// What the system's features counted ([`System::observe`]), at the end of warm-up and at
    /// the end of the run; the kernel does not interpret them.
    #[serde(default)]
    pub observed: Vec<Observed>,
    /// Every job's waiting and response time after warm-up, by size class, when the system
    /// recorded them ([`System::waits`]).
    #[serde(default)]
    pub waits: Option<Waits>,
    /// `[z_vn, z_drift]` at each look the run went past (inconclusive), in order; `None` for
    /// a look too short to judge.
    #[serde(default)]
    pub looks: Vec<Option<[f64; 2]>>,
    /// The run ended at an inconclusive look because its [`Look`] said so, not at its
    /// longest horizon.
    #[serde(default)]
    pub stopped: bool,
}

/// One group of counters a feature of the system keeps (NUMA placements, waits per job
/// class, …), read by the slot loop at the end of warm-up and at the end of the run. The
/// feature that named the group reads it back from the [`RunResult`].
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Observed {
    /// The group's name, as the system gave it.
    pub name: String,
    /// The counters at the end of warm-up (empty when the run ended before it).
    pub at_warmup: Vec<u128>,
    /// The counters at the end of the run.
    pub at_end: Vec<u128>,
}

impl RunResult {
    /// The counters the system reported under `name`, if any.
    pub fn observed(&self, name: &str) -> Option<&Observed> {
        self.observed.iter().find(|o| o.name == name)
    }

    /// The tally of feature `T` the system kept ([`FeatureTally`]), at the end of warm-up (all
    /// zero when the run ended before it) and at the end of the run; `None` when the system
    /// kept none.
    pub fn tally<T: FeatureTally>(&self) -> Option<(T, T)> {
        let o = self.observed(T::NAME)?;
        Some((T::from_counters(&o.at_warmup), T::from_counters(&o.at_end)))
    }
}

/// A feature's tallies as one typed struct that the system writes ([`Observations::push`])
/// and the reader reads back ([`RunResult::tally`]): the order of its counters is written down
/// once, in its own impl. The slot loop stores and merges nothing of it; it reads the
/// counters at the end of warm-up and at the end of the run.
pub trait FeatureTally: Sized {
    /// The group's name in [`RunResult::observed`]; unique among a system's features.
    const NAME: &'static str;
    /// The tallies as counters, in the order [`FeatureTally::from_counters`] reads them.
    fn to_counters(&self) -> Vec<u128>;
    /// The tallies from counters written by [`FeatureTally::to_counters`] (a missing counter
    /// reads as 0; none at all, before warm-up, as all zero).
    fn from_counters(counters: &[u128]) -> Self;
}

/// What a system's features counted so far ([`System::observe`]).
#[derive(Debug, Default)]
pub struct Observations(Vec<(&'static str, Vec<u128>)>);

impl Observations {
    /// Adds feature `T`'s tallies.
    pub fn push<T: FeatureTally>(&mut self, tally: &T) {
        self.0.push((T::NAME, tally.to_counters()));
    }
}

/// A broken invariant of a cluster or a policy: what went wrong, for a bug report.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Violation(pub String);

/// Errors of the slot loop: only broken invariants, which are bugs.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A cluster's or a policy's invariant broke (a bug).
    #[error("invariant violated at slot {slot}: {what} (this is a bug in packlab)")]
    Invariant {
        /// The slot after which it was found.
        slot: u64,
        /// What was broken.
        what: String,
    },
    /// The run's [`Watch`] asked it to stop (in the `packlab` program: a signal).
    #[error("stopped by a signal")]
    Cancelled,
}

/// Running totals of a cluster, for the metrics of [`RunResult`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Jobs that have left.
    pub departed: u64,
    /// Jobs placed, and the sum of their waits (placement slot − arrival slot).
    pub placed: u64,
    /// The sum of the waits of the jobs placed, slots.
    pub wait_sum: u128,
    /// Jobs in service.
    pub in_service: u64,
    /// Sum of the sizes (first resource) of the jobs placed, `Size` units.
    pub placed_work: u128,
}

impl Counters {
    /// A job placed in slot `now` after arriving in slot `arrival`, of size `work`.
    #[inline]
    pub fn placed(&mut self, now: u64, arrival: u64, work: u64) {
        self.started(work);
        self.waited(now - arrival);
    }

    /// A job of size `work` started service (placed, or resumed after a preemption).
    #[inline]
    pub(crate) fn started(&mut self, work: u64) {
        self.in_service += 1;
        self.placed_work += work as u128;
    }

    /// A job of size `work` taken off its server (preempted): no longer in service.
    #[inline]
    pub(crate) fn stopped(&mut self, work: u64) {
        self.in_service -= 1;
        self.placed_work -= work as u128;
    }

    /// A job's wait of `wait` slots counted: at its placement, or at its completion on a
    /// cluster whose policy may preempt.
    #[inline]
    pub(crate) fn waited(&mut self, wait: u64) {
        self.placed += 1;
        self.wait_sum += wait as u128;
    }

    /// `n` jobs left.
    #[inline]
    pub fn departed(&mut self, n: u64) {
        self.in_service -= n;
        self.departed += n;
    }
}

/// What the slot loop drives: a cluster and the policy that places jobs on it.
pub trait System {
    /// What a job is on this system (a [`crate::model::Job`], or a multi-resource job).
    type Job;
    /// Number of servers L.
    fn servers(&self) -> usize;
    /// Step 1 of slot `t`: jobs whose service ended in slot t − 1 leave.
    fn depart(&mut self, t: u64);
    /// Step 2: a job of the batch joins the queue.
    fn enqueue(&mut self, job: Self::Job);
    /// Step 2: the whole batch joins the queue, in arrival order, and `batch` is left empty.
    #[inline]
    fn arrive(&mut self, batch: &mut Vec<Self::Job>) {
        for job in batch.drain(..) {
            self.enqueue(job);
        }
    }
    /// Step 3: the policy places jobs.
    fn schedule(&mut self, t: u64);
    /// Q(t): jobs waiting.
    fn waiting(&self) -> u64;
    /// After step 4 of a slot: the first slot ≥ `from` in which the system could change by
    /// itself (a departure, or a policy that still has something to do). The slot loop skips
    /// to it, or to the next arrival if earlier. The default, `from`, runs every slot.
    fn next_event(&self, from: u64) -> u64 {
        from
    }
    /// Capacity in use, in fixed-point units summed over resources.
    fn used(&self) -> u128;
    /// Total capacity in the same units.
    fn capacity(&self) -> f64;
    /// The running totals of the cluster.
    fn counters(&self) -> Counters;
    /// The cluster's and the policy's invariants.
    fn check(&self) -> Result<(), Violation>;
    /// Waiting jobs per class, for policies with classes.
    fn class_lengths(&self) -> &[u64] {
        &[]
    }
    /// (configuration label, busy servers using it), for configuration-based policies.
    fn config_usage(&self, _out: &mut Vec<(String, u64)>) {}
    /// Adds the tallies the system's features keep so far ([`FeatureTally`]): the slot loop
    /// reads them at the end of warm-up and at the end of the run ([`RunResult::tally`]). The
    /// default keeps none.
    fn observe(&self, _out: &mut Observations) {}
    /// The waiting and response times the system recorded, if it was asked to
    /// ([`Cluster::record_waits`]); the default records none.
    fn waits(&self) -> Option<Waits> {
        None
    }
}

/// Index of [`Tally::batch_sums`] that takes the counted slots outside the verdict's batches.
const SINK: usize = 2 * BATCHES;

/// What the slot loop accumulates after warm-up: queue, capacity and work sums, the batch
/// sums the verdict judges, and the sampled series.
///
/// Every slot up to `boundary` (exclusive) is alike: on the same side of the warm-up, in the
/// same batch, with no sample due; a run of such slots is one multiply-add per sum. The
/// boundaries (warm-up, the batches' ends, the sampling slots) are absolute slots.
struct Tally {
    warmup: u64,
    /// Slots from `warmup` on are counted.
    counting: bool,
    q_sum: u128,
    work_sum: u128,
    used_sum: u128,
    counted: u64,
    max_queue: u64,
    /// The verdict's batches: [`BATCHES`] of `batch_len` slots from the slot
    /// `slots − BATCHES · batch_len` (two phases' worth: an extension fills [`BATCHES`] more,
    /// then adjacent pairs merge). `batch_sums[SINK]` takes the counted slots before them.
    batch_len: u64,
    batch_sums: Vec<u128>,
    /// The batch being filled ([`SINK`] before the first), where it ends, and the next one.
    b: usize,
    batch_end: u64,
    next_b: usize,
    series: Vec<(u64, u64)>,
    class_series: Vec<Vec<u64>>,
    mix: std::collections::BTreeMap<String, u64>,
    mix_weight: u64,
    usage: Vec<(String, u64)>,
    sample_every: u64,
    /// The next sampling slot (a multiple of `sample_every`).
    next_sample: u64,
    /// The first slot at which anything but the sums changes.
    boundary: u64,
    /// A sample was taken since the slot loop last checked that jobs are conserved.
    check_due: bool,
}

impl Tally {
    fn new(cfg: &RunConfig) -> Self {
        let warmup = cfg.warmup.min(cfg.slots);
        // the horizon rounded down to a multiple of BATCHES
        let batch_len = (cfg.slots - warmup) / BATCHES as u64;
        let mut tally = Tally {
            warmup,
            counting: false,
            q_sum: 0,
            work_sum: 0,
            used_sum: 0,
            counted: 0,
            max_queue: 0,
            batch_len,
            batch_sums: vec![0; SINK + 1],
            b: SINK,
            batch_end: if batch_len > 0 {
                cfg.slots - batch_len * BATCHES as u64
            } else {
                u64::MAX
            },
            next_b: 0,
            series: Vec::with_capacity(cfg.samples.min(cfg.slots) as usize + 1),
            class_series: Vec::new(),
            mix: Default::default(),
            mix_weight: 0,
            usage: Vec::new(),
            sample_every: (cfg.slots / cfg.samples.max(1)).max(1),
            next_sample: 0,
            boundary: 0,
            check_due: false,
        };
        tally.set_boundary();
        tally
    }

    fn set_boundary(&mut self) {
        let warm = if self.counting { u64::MAX } else { self.warmup };
        self.boundary = self.next_sample.min(self.batch_end).min(warm);
    }

    /// Step 4 of the `n` slots t … t+n−1, in which Q = `q`, the capacity in use is `used` and
    /// the waiting work is `work` (`n` > 1 when the slots after t have no event). Slots are
    /// recorded in order, none left out. Split at the warm-up, batch and sampling boundaries
    /// so that the sums are those of `n` single slots.
    #[inline]
    fn record<S: System>(&mut self, t: u64, n: u64, q: u64, used: u128, work: u128, system: &S) {
        self.max_queue = self.max_queue.max(q);
        if t + n <= self.boundary {
            if self.counting {
                self.add(n, q, used, work);
            }
            return;
        }
        self.record_split(t, n, q, used, work, system);
    }

    /// Adds `n` counted slots of queue `q`, capacity in use `used` and waiting work `work` to
    /// the sums and to the batch being filled.
    #[inline]
    fn add(&mut self, n: u64, q: u64, used: u128, work: u128) {
        let k = n as u128;
        let qn = q as u128 * k;
        self.q_sum += qn;
        self.batch_sums[self.b] += qn;
        self.used_sum += used * k;
        self.work_sum += work * k;
        self.counted += n;
    }

    /// [`Self::record`] run by run of like slots, crossing every boundary on the way.
    #[inline(never)]
    fn record_split<S: System>(
        &mut self,
        t: u64,
        n: u64,
        q: u64,
        used: u128,
        work: u128,
        system: &S,
    ) {
        let (mut t, end) = (t, t + n);
        while t < end {
            if t == self.next_sample {
                self.sample(t, q, system);
                self.next_sample += self.sample_every;
            }
            if t == self.warmup {
                self.counting = true;
            }
            if t == self.batch_end {
                self.b = self.next_b;
                self.next_b += 1;
                self.batch_end += self.batch_len;
            }
            self.set_boundary();
            let m = end.min(self.boundary) - t;
            if self.counting {
                self.add(m, q, used, work);
            }
            t += m;
        }
    }

    /// A point of the time series (and of the configuration mix after warm-up).
    fn sample<S: System>(&mut self, t: u64, q: u64, system: &S) {
        self.check_due = true;
        self.series.push((t, q));
        let lens = system.class_lengths();
        if !lens.is_empty() {
            self.class_series.push(lens.to_vec());
        }
        if t >= self.warmup {
            self.usage.clear();
            system.config_usage(&mut self.usage);
            for (label, n) in self.usage.drain(..) {
                *self.mix.entry(label).or_default() += n * self.sample_every;
            }
            self.mix_weight += self.sample_every;
        }
    }

    /// The batch means judged so far (empty if the horizon is shorter than [`BATCHES`]).
    fn batch_means(&self) -> Vec<f64> {
        if self.batch_len == 0 {
            return Vec::new();
        }
        self.batch_sums[..BATCHES]
            .iter()
            .map(|&s| s as f64 / self.batch_len as f64)
            .collect()
    }

    /// After an extension filled [`BATCHES`] more batches: merge adjacent pairs.
    fn merge(&mut self) {
        for i in 0..BATCHES {
            self.batch_sums[i] = self.batch_sums[2 * i] + self.batch_sums[2 * i + 1];
        }
        self.batch_sums[BATCHES..SINK].fill(0);
        self.batch_len *= 2;
    }

    /// The horizon doubles from slot `t` (the end of the batches so far) on: fill the second
    /// half of the batches, keep every other point of the series and sample half as often.
    fn extend(&mut self, t: u64) {
        debug_assert_eq!(t, self.batch_end);
        self.next_b = BATCHES;
        keep_every_other(&mut self.series);
        keep_every_other(&mut self.class_series);
        self.sample_every *= 2;
        self.next_sample = t.div_ceil(self.sample_every) * self.sample_every;
        self.set_boundary();
    }
}

/// The slot loop of docs/theory.md section 1 over any [`System`] and [`Source`], with the
/// stability verdict at the end and, while it is inconclusive, horizon doublings up to
/// `cfg.max_slots`.
pub fn run_system<S: System>(
    system: &mut S,
    source: &mut impl Source<S::Job>,
    cfg: &RunConfig,
) -> Result<RunResult, SimError> {
    let mut batch: Vec<S::Job> = Vec::new();
    let mut tally = Tally::new(cfg);
    let mut at_warmup = system.counters();
    let mut observed_at_warmup = Observations::default();
    let mut warm = false;
    let (mut t, mut q, mut end) = (0u64, 0u64, cfg.slots);
    let mut steps = 0u64;
    let mut capped = false;
    let mut extensions = 0u32;
    let mut looks = Vec::new();
    let mut stopped = false;
    let (verdict, mut evidence) = loop {
        while t < end {
            if !warm && t >= tally.warmup {
                // the counters have not changed in the skipped slots before t
                at_warmup = system.counters();
                system.observe(&mut observed_at_warmup);
                warm = true;
            }
            // (1) departures
            system.depart(t);
            // (2) arrivals
            if source.next_arrival() <= t {
                source.batch(t, &mut batch);
                system.arrive(&mut batch);
            }
            // (3) placement
            system.schedule(t);
            // (4) record, for this slot and the slots without events after it
            q = system.waiting();
            let next = if q > cfg.queue_cap {
                t + 1
            } else {
                system
                    .next_event(t + 1)
                    .min(source.next_arrival())
                    .clamp(t + 1, end)
            };
            // the capacity in use and the waiting work count only after warm-up; the work is
            // never negative for a faithful source (checked at the end of the run)
            let (used, work) = if next > tally.warmup {
                let placed = system.counters().placed_work;
                (system.used(), source.arrived_work().saturating_sub(placed))
            } else {
                (0, 0)
            };
            tally.record(t, next - t, q, used, work, system);
            if cfg.check_every_slot {
                check(system, source, t)?;
            } else if tally.check_due || cfg!(debug_assertions) {
                // at every sample (every slot in a debug build): a policy that miscounts its
                // queue is named at the first sample it lies, not only at the run's end
                tally.check_due = false;
                conserved(system, source, t)?;
            }
            if steps & 0xFFFF == 0 {
                // a long run's own progress (its slots against its first horizon), and the
                // caller's chance to stop it
                if (cfg.watch.0)(t as f64 / cfg.slots.max(1) as f64) {
                    return Err(SimError::Cancelled);
                }
            }
            steps += 1;
            t = next;
            if q > cfg.queue_cap {
                capped = true;
                break;
            }
        }
        if extensions > 0 && !capped {
            tally.merge();
        }
        let means = if capped {
            Vec::new()
        } else {
            tally.batch_means()
        };
        let (v, ev) = verdict::judge(&means, tally.batch_len, capped, t, cfg.mean_service);
        let next_end = end.saturating_add(tally.batch_len * BATCHES as u64);
        if v != Verdict::Inconclusive || capped || tally.batch_len == 0 || next_end > cfg.max_slots
        {
            break (v, ev);
        }
        if !(cfg.look.0)(extensions, &ev) {
            stopped = true;
            break (v, ev);
        }
        looks.push(ev.judged().then_some([ev.z_vn, ev.z_drift]));
        // go on: the horizon doubles on the same random streams
        extensions += 1;
        end = next_end;
        tally.extend(t);
    };
    evidence.extensions = extensions;
    check(system, source, t)?;
    if tally.series.last().map(|s| s.0) != Some(t - 1) && t > 0 {
        tally.series.push((t - 1, q));
        let lens = system.class_lengths();
        if !lens.is_empty() {
            tally.class_series.push(lens.to_vec());
        }
    }
    let end = End {
        at_warmup,
        observed_at_warmup,
        t,
        q,
        capped,
        verdict,
        evidence,
        looks,
        stopped,
    };
    Ok(finish(system, source, tally, end))
}

/// How a run ended: its last slot, queue and verdict, and the counters at warm-up.
struct End {
    at_warmup: Counters,
    /// What the system observed at warm-up ([`System::observe`]; empty before it).
    observed_at_warmup: Observations,
    /// Slots simulated.
    t: u64,
    /// The last Q(t).
    q: u64,
    capped: bool,
    verdict: Verdict,
    evidence: VerdictEvidence,
    /// `[z_vn, z_drift]` at each look the run went past.
    looks: Vec<Option<[f64; 2]>>,
    /// Its [`Look`] stopped it.
    stopped: bool,
}

/// The run's result from its tally.
fn finish<S: System>(
    system: &S,
    source: &impl Source<S::Job>,
    tally: Tally,
    end: End,
) -> RunResult {
    let End {
        at_warmup,
        observed_at_warmup,
        t,
        q,
        capped,
        verdict,
        evidence,
        looks,
        stopped,
    } = end;
    let denom = (tally.mix_weight.max(1) * system.servers() as u64) as f64;
    let config_mix = tally
        .mix
        .iter()
        .map(|(label, n)| (label.clone(), *n as f64 / denom))
        .collect();
    let warmup = tally.warmup;
    let stop = system.counters();
    let start = if t > warmup {
        at_warmup
    } else {
        Counters::default()
    };
    let measured = if t > warmup { t - warmup } else { t };
    let capacity = system.capacity();
    let n_placed = stop.placed - start.placed;
    let waits = stop.wait_sum - start.wait_sum;
    let departed_count = stop.departed - start.departed;
    let counted = tally.counted;
    RunResult {
        slots: t,
        mean_queue: if counted > 0 {
            tally.q_sum as f64 / counted as f64
        } else {
            q as f64
        },
        max_queue: tally.max_queue,
        final_queue: q,
        utilization: if counted > 0 {
            tally.used_sum as f64 / counted as f64 / capacity
        } else {
            system.used() as f64 / capacity
        },
        throughput: departed_count as f64 / measured.max(1) as f64,
        mean_wait: if n_placed > 0 {
            waits as f64 / n_placed as f64
        } else {
            0.0
        },
        capped,
        batch_means: if capped {
            Vec::new()
        } else {
            tally.batch_means()
        },
        series: tally.series,
        class_series: tally.class_series,
        config_mix,
        arrived: source.arrived(),
        mean_queued_work: if counted > 0 {
            tally.work_sum as f64 / counted as f64 / Size::UNIT as f64
        } else {
            0.0
        },
        verdict,
        evidence,
        observed: observed(system, observed_at_warmup, t > warmup),
        waits: system.waits(),
        looks,
        stopped,
    }
}

/// The system's observations at the end, each beside the same group at warm-up (empty when
/// the run ended before warm-up).
fn observed<S: System>(system: &S, at_warmup: Observations, warm: bool) -> Vec<Observed> {
    let mut at_end = Observations::default();
    system.observe(&mut at_end);
    let mut at_warmup = if warm { at_warmup.0 } else { Vec::new() };
    at_end
        .0
        .into_iter()
        .map(|(name, end)| {
            let start = at_warmup
                .iter()
                .position(|(n, _)| *n == name)
                .map(|k| at_warmup.swap_remove(k).1)
                .unwrap_or_default();
            Observed {
                name: name.to_string(),
                at_warmup: start,
                at_end: end,
            }
        })
        .collect()
}

/// Keeps the points of even index (the samples at every other sampling slot).
fn keep_every_other<T>(v: &mut Vec<T>) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        i % 2 == 1
    });
}

/// The cluster's and the policy's invariants ([`System::check`]) and the conservation of jobs
/// and work ([`conserved`]).
fn check<S: System>(system: &S, source: &impl Source<S::Job>, slot: u64) -> Result<(), SimError> {
    system
        .check()
        .map_err(|v| SimError::Invariant { slot, what: v.0 })?;
    conserved(system, source, slot)
}

/// Jobs and work conserved, read off counters only (cheap): every job that arrived is waiting,
/// in service or gone, and no more work was placed than arrived.
fn conserved<S: System>(
    system: &S,
    source: &impl Source<S::Job>,
    slot: u64,
) -> Result<(), SimError> {
    let err = |what: String| SimError::Invariant { slot, what };
    let c = system.counters();
    let accounted = system.waiting() + c.in_service + c.departed;
    if accounted != source.arrived() {
        return Err(err(format!(
            "jobs not conserved: arrived {} ≠ waiting + in service + departed = {accounted}",
            source.arrived()
        )));
    }
    if c.placed_work > source.arrived_work() {
        return Err(err(format!(
            "work not conserved: placed {} > arrived {} (Size units; a source under-reports its work)",
            c.placed_work,
            source.arrived_work()
        )));
    }
    Ok(())
}
