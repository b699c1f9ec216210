//! Trace-driven workloads (docs/theory.md section 10, Fig. 5): arrivals, sizes and service times
//! replayed from a trace instead of sampled.
//!
//! Time is cut into slots of `slot` seconds (the paper decides every 100 ms). A task arriving
//! `a` seconds after the start of its window arrives in slot ⌊a / (c · slot)⌋, where c is the
//! traffic scaling (arrival times divided by c: larger c, more jobs per second; durations are
//! not scaled). Its service is its duration rounded up to whole slots, at least one. Its size is
//! a function of its (CPU, memory) request, both fractions of a machine, multiplied by `scale`
//! (servers that are 1/scale of the trace's machine): `max` (the paper's preprocessing), `cpu`,
//! `memory`, or both as a vector (multi-resource runs). A task with `instances` identical
//! instances (Alibaba) brings that many jobs in its slot.
//!
//! A trace is read twice: once when the experiment is validated ([`TraceSummary`]: every task
//! converted, the first bad one reported with its line), then streamed by every run
//! ([`TraceSource`], constant memory). Replications are consecutive windows of equal length.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::trace::{TraceError, TraceFormat, TraceReader, TraceTask};
use super::{ServiceLaw, SizeLaw};
use crate::model::{Job, Size};

/// How a task's (CPU, memory) request becomes a job size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum SizeMode {
    /// max(CPU, memory): the paper's single resource.
    Max,
    /// The CPU request.
    Cpu,
    /// The memory request.
    Memory,
    /// Both, as a vector (multi-resource runs).
    Both,
}

impl SizeMode {
    /// The mode named `s` in experiment files (`max`, `cpu`, `memory`, `both`).
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "max" => SizeMode::Max,
            "cpu" => SizeMode::Cpu,
            "memory" => SizeMode::Memory,
            "both" => SizeMode::Both,
            _ => return None,
        })
    }
}

/// A validated trace workload.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TraceSpec {
    /// Not part of the experiment's identity (the same trace may be read from another path).
    #[serde(skip)]
    pub file: PathBuf,
    /// Its format.
    pub format: TraceFormat,
    /// Keep only tasks that finished normally.
    pub finished_only: bool,
    /// Slot length, seconds.
    pub slot: f64,
    /// How a task's request becomes a job's size.
    pub size: SizeMode,
    /// Sizes are multiplied by this (servers are 1/scale of a trace machine).
    pub scale: f64,
    /// Replay window [start, end) in trace seconds (`None`: from the first / to the last arrival).
    pub start: Option<f64>,
    /// The window's end (see `start`).
    pub end: Option<f64>,
    /// Keep every `thin`-th job of the window (1: all). `--quick` thins the trace and shrinks
    /// the cluster by the same factor, so the offered load and its bursts stay while the work
    /// falls about `thin` times.
    pub thin: u32,
}

/// Why a task's request is not a job's.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// A request outside (0, 1] of a server after scaling.
    #[error(
        "{what} request {value} (after scale {scale}) is not in (0, 1] of a server; raise or lower `scale`"
    )]
    Range {
        /// The resource.
        what: &'static str,
        /// The request as written.
        value: f64,
        /// The scale it was multiplied by.
        scale: f64,
    },
    /// A task requesting no resource.
    #[error("a task requesting neither CPU nor memory")]
    Nothing,
    /// A duration longer than a job's service can be.
    #[error(
        "duration {seconds} s is more than {} slots of {slot} s (a job's service is at most that)",
        u32::MAX
    )]
    Duration {
        /// The duration, seconds.
        seconds: f64,
        /// The slot length, seconds.
        slot: f64,
    },
}

/// A task's job: size per resource (CPU, memory) and service, in slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceJob {
    /// Requests per resource; for single-resource modes only `req[0]` is used.
    pub req: [Size; 2],
    /// Service time, slots.
    pub service: u32,
    /// Copies of the task arriving together.
    pub instances: u32,
    /// Its job class ([`TraceTask::class`]).
    pub class: u8,
}

impl TraceSpec {
    /// The job of `task`, or why it cannot be one.
    pub fn job(&self, task: &TraceTask) -> Result<TraceJob, RequestError> {
        let [cpu, mem] = task.resources.map(|x| x * self.scale);
        let exact = |x: f64, what: &'static str| {
            Size::from_f64(x).ok_or(RequestError::Range {
                what,
                value: x,
                scale: self.scale,
            })
        };
        let req = match self.size {
            SizeMode::Max => [exact(cpu.max(mem), "max(CPU, memory)")?, Size::ZERO],
            SizeMode::Cpu => [exact(cpu, "CPU")?, Size::ZERO],
            SizeMode::Memory => [exact(mem, "memory")?, Size::ZERO],
            SizeMode::Both => {
                // one resource may be 0; the job needs something
                let part = |x: f64, what: &'static str| {
                    if x == 0.0 {
                        Ok(Size::ZERO)
                    } else {
                        exact(x, what)
                    }
                };
                let r = [part(cpu, "CPU")?, part(mem, "memory")?];
                if r == [Size::ZERO; 2] {
                    return Err(RequestError::Nothing);
                }
                r
            }
        };
        if task.duration / self.slot > u32::MAX as f64 {
            return Err(RequestError::Duration {
                seconds: task.duration,
                slot: self.slot,
            });
        }
        Ok(TraceJob {
            req,
            service: self.service_slots(task.duration),
            instances: task.instances,
            class: task.class,
        })
    }

    /// The job of `task`, read at `reader`'s current line; an error names the file and line.
    fn job_read(&self, task: &TraceTask, reader: &TraceReader) -> Result<TraceJob, TraceError> {
        self.job(task).map_err(|e| TraceError::Format {
            file: self.file.clone(),
            line: reader.line(),
            field: "request".into(),
            what: e.to_string(),
        })
    }

    /// A duration in seconds as whole slots, rounded up, at least 1.
    pub fn service_slots(&self, duration: f64) -> u32 {
        // a relative nudge so that 3 s / 0.1 s is 30 slots, not 31
        let s = (duration / self.slot * (1.0 - 1e-12)).ceil();
        s.clamp(1.0, u32::MAX as f64) as u32
    }
}

/// What the validation pass learned about a trace.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TraceSummary {
    /// First and last arrival in the replay window, seconds.
    pub first: f64,
    /// The last arrival (see `first`).
    pub last: f64,
    /// Task records and jobs (instances) in the window.
    pub tasks: u64,
    /// Jobs (instances) in the window.
    pub jobs: u64,
    /// The most jobs arriving within one slot of `slot` seconds (counted in slots from the
    /// first arrival, traffic scaling 1).
    pub burst: u64,
    /// The line of the first task with the largest size (the first resource for vector modes).
    pub largest_line: usize,
    /// The law of a job's size (the first resource for vector modes) and service, over jobs.
    pub sizes: SizeLaw,
    /// The law of a job's service time, slots.
    pub service: ServiceLaw,
    /// Mean request per resource (CPU, memory) over jobs, fractions of a server.
    pub mean_req: [f64; 2],
    /// Mean of request × service per resource over jobs, E[R S] (server-slots per job).
    pub mean_work: [f64; 2],
}

impl TraceSummary {
    /// Reads the whole trace once, converting every task.
    pub fn read(spec: &TraceSpec) -> Result<Self, TraceError> {
        if spec.format == TraceFormat::GoogleTaskEvents {
            return Err(TraceError::Format {
                file: spec.file.clone(),
                line: 0,
                field: "format".into(),
                what: "Google task_events pair in completion order; replay needs arrival order: \
                       convert it to the plain CSV format sorted by arrival first"
                    .into(),
            });
        }
        let mut reader = TraceReader::open(&spec.file, spec.format, spec.finished_only)?;
        let (mut first, mut last) = (f64::NAN, f64::NAN);
        let (mut tasks, mut jobs) = (0u64, 0u64);
        let mut sizes: BTreeMap<Size, u64> = BTreeMap::new();
        let mut service: BTreeMap<u32, u64> = BTreeMap::new();
        let mut req_sum = [0f64; 2];
        let mut work_sum = [0f64; 2];
        let (mut burst, mut bucket, mut in_bucket) = (0u64, f64::NAN, 0u64);
        let (mut largest, mut largest_line) = (Size::ZERO, 0usize);
        let mut ticker = crate::progress::Ticker::new(format!("reading {}", spec.file.display()));
        while let Some(t) = reader.next() {
            let t = t?;
            if tasks.is_multiple_of(4096) {
                ticker.tick(|| format!("{} lines, {tasks} task records", reader.line()));
            }
            if spec.start.is_some_and(|s| t.arrival < s) {
                continue;
            }
            if spec.end.is_some_and(|e| t.arrival >= e) {
                break;
            }
            let j = spec.job_read(&t, &reader)?;
            if tasks == 0 {
                first = t.arrival;
            }
            last = t.arrival;
            tasks += 1;
            let n = j.instances as u64;
            jobs += n;
            let b = ((t.arrival - first) / spec.slot).floor();
            in_bucket = if b == bucket { in_bucket + n } else { n };
            bucket = b;
            burst = burst.max(in_bucket);
            if j.req[0] > largest {
                (largest, largest_line) = (j.req[0], reader.line());
            }
            *sizes.entry(j.req[0]).or_default() += n;
            *service.entry(j.service).or_default() += n;
            for (k, r) in j.req.iter().enumerate() {
                req_sum[k] += r.as_f64() * n as f64;
                work_sum[k] += r.as_f64() * j.service as f64 * n as f64;
            }
        }
        if jobs == 0 {
            return Err(TraceError::Format {
                file: spec.file.clone(),
                line: reader.line(),
                field: "tasks".into(),
                what: "no task in the replay window (check `start`, `end`, `finished_only`)".into(),
            });
        }
        if let Some(s) = spec.start {
            first = s;
        }
        if let Some(e) = spec.end {
            last = e;
        }
        fn weights<K>(m: &BTreeMap<K, u64>, jobs: u64) -> Vec<f64> {
            m.values().map(|&n| n as f64 / jobs as f64).collect()
        }
        let size_law = SizeLaw::discrete(sizes.keys().copied().collect(), weights(&sizes, jobs))
            .expect("positive weights");
        let service_law =
            ServiceLaw::empirical(service.keys().copied().collect(), weights(&service, jobs))
                .expect("positive weights");
        Ok(TraceSummary {
            first,
            last,
            tasks,
            jobs,
            burst,
            largest_line,
            sizes: size_law,
            service: service_law,
            mean_req: req_sum.map(|s| s / jobs as f64),
            mean_work: work_sum.map(|s| s / jobs as f64),
        })
    }

    /// Length of the replay window, seconds (at least one slot's worth).
    pub fn span(&self, spec: &TraceSpec) -> f64 {
        (self.last - self.first).max(spec.slot)
    }

    /// Jobs per slot at traffic scaling `c` (of the thinned trace).
    pub fn rate(&self, spec: &TraceSpec, c: f64) -> f64 {
        self.jobs as f64 * c * spec.slot / self.span(spec) / spec.thin.max(1) as f64
    }

    /// The offered load at scaling `c` on `servers` servers: λ E[R S] / L, with E[R S] the mean
    /// of size × service (slots) over the replayed jobs, on the resource with the most work. In
    /// a trace, size and duration are not independent, so λ E\[R\] E\[S\] / L would be wrong.
    pub fn load(&self, spec: &TraceSpec, c: f64, servers: usize) -> f64 {
        let work = self.mean_work[0].max(self.mean_work[1]);
        self.rate(spec, c) * work / servers as f64
    }

    /// Slots of replication window `w` of `windows` at scaling `c` (the window's span).
    pub fn slots(&self, spec: &TraceSpec, c: f64, windows: u32) -> u64 {
        // the last arrival, at the window's end, falls in the slot ⌊span / (c · slot)⌋
        let s = self.span(spec) / windows as f64 / (c * spec.slot);
        (s.floor() as u64).saturating_add(1)
    }

    /// The replay window of replication `w` of `windows`, trace seconds [from, to).
    pub fn window(&self, spec: &TraceSpec, w: u32, windows: u32) -> (f64, f64) {
        let len = self.span(spec) / windows as f64;
        let from = self.first + len * w as f64;
        let to = if w + 1 == windows {
            spec.end.unwrap_or(f64::INFINITY)
        } else {
            from + len
        };
        (from, to)
    }
}

/// Streams one window of a trace as jobs, slot by slot.
pub struct TraceSource {
    spec: TraceSpec,
    reader: TraceReader,
    /// Scaling c and the window [from, to), trace seconds.
    c: f64,
    from: f64,
    to: f64,
    /// The next task and its slot.
    next: Option<(u64, TraceJob)>,
    next_id: u64,
    /// Jobs of the window seen so far, kept or thinned out.
    seen: u64,
    /// Sum over arrived jobs of their first resource, `Size` units.
    work: u128,
    error: Option<TraceError>,
}

impl TraceSource {
    /// Replays window [from, to) of `spec` at scaling `c`.
    pub fn open(spec: &TraceSpec, c: f64, from: f64, to: f64) -> Result<Self, TraceError> {
        let reader = TraceReader::open(&spec.file, spec.format, spec.finished_only)?;
        let mut s = TraceSource {
            spec: spec.clone(),
            reader,
            c,
            from,
            to,
            next: None,
            next_id: 0,
            seen: 0,
            work: 0,
            error: None,
        };
        s.advance();
        Ok(s)
    }

    /// The error that ended the replay early, if any (the trace changed since validation).
    pub fn error(self) -> Option<TraceError> {
        self.error
    }

    fn advance(&mut self) {
        self.next = None;
        if self.error.is_some() {
            return;
        }
        for t in self.reader.by_ref() {
            let t = match t {
                Ok(t) => t,
                Err(e) => {
                    self.error = Some(e);
                    return;
                }
            };
            if t.arrival < self.from {
                continue;
            }
            if t.arrival >= self.to {
                return;
            }
            match self.spec.job_read(&t, &self.reader) {
                Ok(j) => {
                    let slot = ((t.arrival - self.from) / (self.c * self.spec.slot)).floor();
                    self.next = Some((slot as u64, j));
                }
                Err(e) => self.error = Some(e),
            }
            return;
        }
    }

    /// Jobs arrived so far.
    pub fn arrived(&self) -> u64 {
        self.next_id
    }

    /// The slot of the next task of the window (`u64::MAX`: none left).
    #[inline]
    pub fn next_slot(&self) -> u64 {
        self.next.as_ref().map_or(u64::MAX, |(slot, _)| *slot)
    }

    /// Calls `emit(id, job)` for every job arriving in slot `t`, in trace order.
    #[inline]
    pub fn each_in_slot(&mut self, t: u64, mut emit: impl FnMut(u64, &TraceJob)) {
        while let Some((slot, job)) = self.next {
            if slot > t {
                return;
            }
            let thin = u64::from(self.spec.thin.max(1));
            for _ in 0..job.instances {
                if self.seen.is_multiple_of(thin) {
                    emit(self.next_id, &job);
                    self.next_id += 1;
                    self.work += job.req[0].0 as u128;
                }
                self.seen += 1;
            }
            self.advance();
        }
    }
}

impl super::Source<Job> for TraceSource {
    #[inline]
    fn batch(&mut self, t: u64, out: &mut Vec<Job>) {
        self.each_in_slot(t, |id, j| {
            out.push(Job {
                id,
                size: j.req[0],
                service: j.service,
                arrival: t,
                class: 0,
                kind: j.class,
            })
        });
    }
    fn arrived(&self) -> u64 {
        self.next_id
    }
    fn arrived_work(&self) -> u128 {
        self.work
    }
    fn next_arrival(&self) -> u64 {
        self.next_slot()
    }
}
