//! Streaming trace readers for trace-driven workloads (Section VII of Psychas & Ghaderi 2019, Fig.
//! 5): each yields tasks with their arrival, duration and resource requests, in constant memory in
//! the trace length (the Google reader keeps only the tasks submitted and not yet ended). Alibaba,
//! SWF and CSV tasks come in arrival order (checked); Google tasks come when their run ends, i.e.
//! in completion order — a consumer that needs arrival order must buffer them. Gzip input (`.gz`)
//! is accepted. Every malformed line is an error naming the file, the line and the field; an
//! arrival earlier than the previous one is an error too (sort the file first, see
//! `data/README.md`), never a silent reordering.
//!
//! Formats:
//! - Alibaba 2017 `batch_task` (header row): arrival = create time, duration = end − create
//!   (s); CPU = cores/100 / 64 (fraction of a 64-core machine), memory as given; one record per
//!   task with its `instances` count; `finished_only` keeps status `Terminated`; rows without a
//!   recorded request, or without an end within the trace (end time 0, still running), are
//!   skipped.
//! - Google 2011 `task_events` (13 columns, no header; times in µs): a task arrives at its SUBMIT
//!   (0) and its run ends at FINISH (4); EVICT (2), FAIL (3), KILL (5), LOST (6) end a run
//!   abnormally, and a later SUBMIT of the same task is a resubmission (a new arrival). Time 0
//!   ("before the window") and 2^63 − 1 ("after it") are special: a run ending at 2^63 − 1 is
//!   dropped. `finished_only` keeps runs that ended with FINISH.
//! - Standard Workload Format (PWA; `;` comments, 18 fields): arrival = submit time, duration =
//!   run time (s), CPU = allocated processors / MaxProcs (from the header); `finished_only`
//!   drops jobs recorded as failed (status 0) or cancelled (5) and keeps completed (1) and
//!   unrecorded (−1) ones, since many logs (NASA iPSC among them) record no status.
//! - Plain CSV: `arrival,duration,cpu[,memory][,class]` with a header row; fractions of a
//!   machine; `class` the job class (0 to 63) of jobs exported from a workload with classes.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// One task of a trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceTask {
    /// Arrival time, seconds.
    pub arrival: f64,
    /// Service time, seconds.
    pub duration: f64,
    /// CPU and memory requests, fractions of a machine (memory 0 where the trace has none).
    pub resources: [f64; 2],
    /// Identical instances of this task arriving together (1 but for Alibaba 2017).
    pub instances: u32,
    /// The job class of a packlab CSV with a `class` column (jobs exported from a workload
    /// with classes); 0 otherwise.
    pub class: u8,
}

/// A malformed trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be read.
    #[error("{}: {source}", file.display())]
    Io {
        /// The trace.
        file: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A malformed field; `line` 0: about the whole file (its format), not one line.
    #[error("{}", format_error(file, *line, field, what))]
    Format {
        /// The trace.
        file: PathBuf,
        /// The line, from 1 (0: the whole file).
        line: usize,
        /// The field.
        field: String,
        /// What is wrong with it.
        what: String,
    },
    /// Arrivals out of order.
    #[error(
        "{}:{line}: arrival {arrival} is earlier than the previous one, {previous}; sort the \
         trace by arrival first (see data/README.md)",
        file.display()
    )]
    Order {
        /// The trace.
        file: PathBuf,
        /// The line of the earlier arrival.
        line: usize,
        /// Its arrival time.
        arrival: f64,
        /// The previous line's arrival time.
        previous: f64,
    },
}

fn format_error(file: &Path, line: usize, field: &str, what: &str) -> String {
    if line == 0 {
        format!("{}: {what}", file.display())
    } else {
        format!("{}:{line}: field `{field}`: {what}", file.display())
    }
}

/// A trace format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum TraceFormat {
    /// Alibaba cluster-trace-v2017 `batch_task.csv`.
    Alibaba2017,
    /// Google cluster-data 2011 `task_events`.
    GoogleTaskEvents,
    /// The Standard Workload Format of the Parallel Workloads Archive.
    Swf,
    /// packlab's own CSV (arrival, duration, CPU, memory).
    Csv,
}

type Lines = Box<dyn Iterator<Item = std::io::Result<String>>>;

fn lines(path: &Path) -> Result<Lines, TraceError> {
    let r = crate::input::open(path).map_err(|source| TraceError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    Ok(Box::new(r.lines()))
}

/// Reads a trace as a stream of tasks in arrival order.
pub struct TraceReader {
    file: PathBuf,
    format: TraceFormat,
    finished_only: bool,
    lines: Lines,
    line: usize,
    last: f64,
    max_procs: f64,
    /// Google: submit time (µs) of tasks waiting for the end of their run.
    open: HashMap<(u64, u64), u64>,
    done: bool,
    /// A first line that turned out to be a task, not a header.
    pending: Option<String>,
    /// The CSV form: whether its header names a `memory` column, and where its `class`
    /// column is.
    memory_column: bool,
    class_column: Option<usize>,
}

impl TraceReader {
    /// Opens `path` in `format`; `finished_only` keeps only tasks that finished normally.
    pub fn open(path: &Path, format: TraceFormat, finished_only: bool) -> Result<Self, TraceError> {
        let mut r = TraceReader {
            file: path.to_path_buf(),
            format,
            finished_only,
            lines: lines(path)?,
            line: 0,
            last: f64::NEG_INFINITY,
            max_procs: 0.0,
            open: HashMap::new(),
            done: false,
            pending: None,
            memory_column: false,
            class_column: None,
        };
        match format {
            TraceFormat::Alibaba2017 | TraceFormat::Csv => r.header()?,
            TraceFormat::Swf => {
                // MaxProcs (or MaxNodes) from the header comments, read lazily below
            }
            TraceFormat::GoogleTaskEvents => {}
        }
        Ok(r)
    }

    /// Reads and checks the header row, which a file without one would otherwise lose its
    /// first task to. The CSV form needs one, checked by name; an Alibaba `batch_task` file may
    /// have one (the published file has none): a first line whose first field is a number is a
    /// task.
    fn header(&mut self) -> Result<(), TraceError> {
        let line = self.next_line()?.unwrap_or_default();
        let names: Vec<String> = line
            .split(',')
            .map(|f| f.trim().to_ascii_lowercase())
            .collect();
        if self.format == TraceFormat::Alibaba2017 {
            if names[0].parse::<f64>().is_ok() {
                self.pending = Some(line);
                self.line -= 1;
            }
            return Ok(());
        }
        let rest: Vec<&str> = names.iter().skip(3).map(String::as_str).collect();
        let ok = names.len() >= 3
            && names[..3] == ["arrival", "duration", "cpu"]
            && matches!(rest[..], [] | ["memory"] | ["class"] | ["memory", "class"]);
        if ok {
            self.memory_column = rest.first() == Some(&"memory");
            self.class_column = rest.iter().position(|&n| n == "class").map(|k| k + 3);
            Ok(())
        } else {
            Err(self.bad(
                "header",
                format!(
                    "expected a header row `arrival,duration,cpu[,memory][,class]`, found `{}`",
                    crate::input::shown(&line)
                ),
            ))
        }
    }

    /// The line last read (1-based; the header counts).
    pub fn line(&self) -> usize {
        self.line
    }

    fn next_line(&mut self) -> Result<Option<String>, TraceError> {
        if let Some(l) = self.pending.take() {
            self.line += 1;
            return Ok(Some(l));
        }
        match self.lines.next() {
            None => Ok(None),
            Some(Err(source)) => Err(TraceError::Io {
                file: self.file.clone(),
                source,
            }),
            Some(Ok(l)) => {
                self.line += 1;
                Ok(Some(l))
            }
        }
    }

    fn bad(&self, field: &str, what: impl Into<String>) -> TraceError {
        TraceError::Format {
            file: self.file.clone(),
            line: self.line,
            field: field.into(),
            what: what.into(),
        }
    }

    fn num(&self, f: &[&str], k: usize, field: &str) -> Result<f64, TraceError> {
        let v = f.get(k).map(|s| s.trim()).unwrap_or("");
        match v.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(self.bad(
                field,
                format!("expected a number, got `{}`", crate::input::shown(v)),
            )),
        }
    }

    fn emit(&mut self, t: TraceTask) -> Result<TraceTask, TraceError> {
        if t.arrival < self.last {
            return Err(TraceError::Order {
                file: self.file.clone(),
                line: self.line,
                arrival: t.arrival,
                previous: self.last,
            });
        }
        if t.duration < 0.0 {
            return Err(self.bad("duration", format!("negative duration {}", t.duration)));
        }
        self.last = t.arrival;
        Ok(t)
    }

    /// The next task, `None` at the end of the trace.
    fn read(&mut self) -> Result<Option<TraceTask>, TraceError> {
        loop {
            let Some(l) = self.next_line()? else {
                return Ok(None);
            };
            if l.trim().is_empty() {
                continue;
            }
            let task = match self.format {
                TraceFormat::Alibaba2017 => self.alibaba(&l)?,
                TraceFormat::Csv => self.csv(&l)?,
                TraceFormat::Swf => self.swf(&l)?,
                // pairs complete in end order, not arrival order: no order check
                TraceFormat::GoogleTaskEvents => match self.google(&l)? {
                    Some(t) => return Ok(Some(t)),
                    None => continue,
                },
            };
            if let Some(t) = task {
                return self.emit(t).map(Some);
            }
        }
    }

    /// A `batch_task` row of the Alibaba 2017 trace. `None`: a line that is not a task to replay.
    fn alibaba(&mut self, l: &str) -> Result<Option<TraceTask>, TraceError> {
        let f: Vec<&str> = l.split(',').collect();
        if f.len() != 8 {
            return Err(self.bad("row", format!("expected 8 fields, found {}", f.len())));
        }
        let status = f[5].trim();
        if self.finished_only && status != "Terminated" {
            return Ok(None);
        }
        if f[6].trim().is_empty() || f[7].trim().is_empty() {
            return Ok(None); // no request recorded (tasks still waiting)
        }
        let create = self.num(&f, 0, "task_create_time")?;
        let end = self.num(&f, 1, "task_end_time")?;
        if end < create && status != "Terminated" {
            return Ok(None); // still running at the end of the trace (end time 0)
        }
        let inst = self.num(&f, 4, "number_of_instances")?;
        let most = crate::limits::MAX_ARRIVALS_PER_SLOT;
        if inst > most || inst.fract() != 0.0 {
            return Err(self.bad(
                "number_of_instances",
                format!(
                    "expected a whole number of instances up to {most:.0e} (they all arrive in \
                     one slot), got {inst}"
                ),
            ));
        }
        let cpu = self.num(&f, 6, "number_of_cpus_requested_per_instance_in_the_task")?;
        let mem = self.num(
            &f,
            7,
            "normalized_memory_requested_per_instance_in_the_task",
        )?;
        let t = TraceTask {
            arrival: create,
            duration: end - create,
            resources: [cpu / 100.0 / 64.0, mem],
            instances: inst.max(1.0) as u32,
            class: 0,
        };
        Ok(Some(t))
    }

    /// A row `arrival,duration,cpu[,memory]`. `None`: a line that is not a task to replay.
    fn csv(&mut self, l: &str) -> Result<Option<TraceTask>, TraceError> {
        let f: Vec<&str> = l.split(',').collect();
        let t = TraceTask {
            arrival: self.num(&f, 0, "arrival")?,
            duration: self.num(&f, 1, "duration")?,
            resources: [
                self.num(&f, 2, "cpu")?,
                if self.memory_column {
                    self.num(&f, 3, "memory")?
                } else {
                    0.0
                },
            ],
            instances: 1,
            class: match self.class_column {
                Some(k) => {
                    let c = self.num(&f, k, "class")?;
                    if !(c >= 0.0 && c < crate::workload::MAX_CLASSES as f64 && c.fract() == 0.0) {
                        return Err(self.bad(
                            "class",
                            format!(
                                "a class 0 to {}, found {c}",
                                crate::workload::MAX_CLASSES - 1
                            ),
                        ));
                    }
                    c as u8
                }
                None => 0,
            },
        };
        Ok(Some(t))
    }

    /// A line of the Standard Workload Format (comments carry the machine size). `None`: a line
    /// that is not a task to replay.
    fn swf(&mut self, l: &str) -> Result<Option<TraceTask>, TraceError> {
        let s = l.trim();
        if let Some(c) = s.strip_prefix(';') {
            for key in ["MaxProcs:", "MaxNodes:"] {
                if let Some(v) = c.trim().strip_prefix(key)
                    && let Ok(x) = v.trim().parse::<f64>()
                    && (self.max_procs == 0.0 || key == "MaxProcs:")
                {
                    self.max_procs = x;
                }
            }
            return Ok(None);
        }
        let f: Vec<&str> = s.split_whitespace().collect();
        if f.len() != 18 {
            return Err(self.bad("row", format!("expected 18 fields, found {}", f.len())));
        }
        if self.max_procs <= 0.0 {
            return Err(self.bad(
                "header",
                "no `; MaxProcs:` or `; MaxNodes:` line before the jobs",
            ));
        }
        let status = self.num(&f, 10, "status")?;
        let run = self.num(&f, 3, "run_time")?;
        let procs = self.num(&f, 4, "allocated_processors")?;
        if run < 0.0 || procs <= 0.0 || (self.finished_only && (status == 0.0 || status == 5.0)) {
            return Ok(None);
        }
        if procs > self.max_procs {
            return Err(self.bad(
                "allocated_processors",
                format!(
                    "{procs} processors, more than the machine's MaxProcs {} (header)",
                    self.max_procs
                ),
            ));
        }
        let t = TraceTask {
            arrival: self.num(&f, 1, "submit_time")?,
            duration: run,
            resources: [procs / self.max_procs, 0.0],
            instances: 1,
            class: 0,
        };
        Ok(Some(t))
    }

    /// A Google 2011 task event: a SUBMIT opens a task, its end event closes it. `None`: a line
    /// that is not a task to replay.
    fn google(&mut self, l: &str) -> Result<Option<TraceTask>, TraceError> {
        let f: Vec<&str> = l.split(',').collect();
        if f.len() != 13 {
            return Err(self.bad("row", format!("expected 13 fields, found {}", f.len())));
        }
        let int = |k: usize, name: &str| -> Result<u64, TraceError> {
            f[k].trim().parse::<u64>().map_err(|_| {
                self.bad(
                    name,
                    format!("expected an integer, got `{}`", crate::input::shown(f[k])),
                )
            })
        };
        let time = int(0, "time")?;
        let job = int(2, "job ID")?;
        let task = int(3, "task index")?;
        let event = int(5, "event type")?;
        match event {
            0 => {
                // SUBMIT (also a resubmission after EVICT/FAIL/KILL/LOST)
                self.open.insert((job, task), time);
                Ok(None)
            }
            2..=6 => {
                let Some(submit) = self.open.remove(&(job, task)) else {
                    return Ok(None); // submitted before the trace: no arrival to pair
                };
                if time == u64::MAX >> 1 || (self.finished_only && event != 4) {
                    return Ok(None);
                }
                let req = |k: usize, name: &str| -> Result<f64, TraceError> {
                    if f[k].trim().is_empty() {
                        Ok(0.0)
                    } else {
                        self.num(&f, k, name)
                    }
                };
                let t = TraceTask {
                    arrival: submit as f64 / 1e6,
                    duration: (time.saturating_sub(submit)) as f64 / 1e6,
                    resources: [req(9, "CPU request")?, req(10, "memory request")?],
                    instances: 1,
                    class: 0,
                };
                // pairs complete in end order, not arrival order: no order check
                if t.duration < 0.0 {
                    return Err(self.bad("time", "end before submit"));
                }
                Ok(Some(t))
            }
            _ => Ok(None), // SCHEDULE, UPDATE_*
        }
    }
}

impl Iterator for TraceReader {
    type Item = Result<TraceTask, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read() {
            Ok(Some(t)) => Some(Ok(t)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
