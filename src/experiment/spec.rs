//! The experiment file: TOML parsed into raw structs (unknown keys are errors), then validated
//! once into an [`Experiment`] whose laws are ready to sample. See `experiments/README.md` for
//! every key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ExperimentError;
use super::limit::SearchSpec;
use crate::model::Size;
use crate::packing::place::JobOrder;
use crate::packing::snapshot::Resources;
use crate::policy::{PolicyParams, PolicySpec, registry};
use crate::sim::Verdict;
use crate::workload::replay::{SizeMode, TraceSpec, TraceSummary};
use crate::workload::trace::TraceFormat;
use crate::workload::{ArrivalProcess, Arrivals, ServiceLaw, SizeLaw};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExperiment {
    name: String,
    description: Option<String>,
    seed: Option<u64>,
    kind: Option<String>,
    cluster: RawCluster,
    workload: RawWorkload,
    run: RawRun,
    sweep: RawSweep,
    #[serde(default)]
    policy: Vec<RawPolicy>,
    #[serde(default)]
    plot: Vec<RawPlot>,
    #[serde(default)]
    claim: Vec<RawClaim>,
    compaction: Option<RawCompaction>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCluster {
    pub(super) servers: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkload {
    sizes: Option<RawSizes>,
    service: Option<RawService>,
    arrivals: Option<RawArrivals>,
    trace: Option<RawTrace>,
}

/// `workload.trace = { … }`: a trace replayed instead of sampled laws.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrace {
    format: String,
    file: String,
    slot: Option<f64>,
    finished_only: Option<bool>,
    size: Option<String>,
    scale: Option<f64>,
    start: Option<f64>,
    end: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "dist", rename_all = "lowercase", deny_unknown_fields)]
pub(super) enum RawSizes {
    Uniform {
        low: f64,
        high: f64,
    },
    Discrete {
        values: Vec<f64>,
        probs: Vec<f64>,
    },
    Empirical {
        values: Option<Vec<f64>>,
        file: Option<String>,
    },
    /// Request vectors drawn uniformly from the tasks of a packing source (multi-resource).
    Tasks {
        source: String,
        file: String,
        scale: Option<f64>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(tag = "dist", rename_all = "lowercase", deny_unknown_fields)]
pub(super) enum RawService {
    Geometric {
        mean: f64,
    },
    Deterministic {
        value: i64,
    },
    Empirical {
        values: Vec<i64>,
        probs: Option<Vec<f64>>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArrivals {
    process: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    slots: Option<i64>,
    warmup_fraction: Option<f64>,
    warmup: Option<i64>,
    replications: Option<i64>,
    queue_cap: Option<i64>,
    samples: Option<i64>,
    max_slots: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSweep {
    load: Option<Vec<f64>>,
    arrival_rate: Option<Vec<f64>>,
    fraction: Option<Vec<f64>>,
    scaling: Option<Vec<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    name: String,
    #[serde(rename = "J")]
    j: Option<i64>,
    partition: Option<String>,
    cuts: Option<Vec<f64>>,
    stall: Option<f64>,
    label: Option<String>,
    score: Option<String>,
}

/// `[compaction]`: the packing side of a stability-versus-packing study.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCompaction {
    tasks: Option<i64>,
    trials: Option<i64>,
    tau: Option<f64>,
    order: Option<String>,
    limit_steps: Option<i64>,
    limit_resolution: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlot {
    kind: String,
    load: Option<f64>,
    arrival_rate: Option<f64>,
    replication: Option<i64>,
    title: Option<String>,
    file: Option<String>,
    log_y: Option<bool>,
    fraction: Option<f64>,
    scaling: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    kind: Option<String>,
    policy: Option<String>,
    load: Option<f64>,
    arrival_rate: Option<f64>,
    fraction: Option<f64>,
    scaling: Option<f64>,
    expect: Option<String>,
    at_least: Option<f64>,
    at_most: Option<f64>,
    steps: Option<i64>,
    max_probes: Option<i64>,
    resolution: Option<f64>,
    rounds: Option<i64>,
    order: Option<Vec<String>>,
    paired: Option<bool>,
}

/// Which quantity the sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepKind {
    /// Traffic intensity ρ = λ E[R] E[S] / L.
    Load,
    /// Arrival rate λ, jobs per slot.
    ArrivalRate,
    /// A fraction of the maximum supportable traffic intensity ρ*.
    Fraction,
    /// Traffic scaling c of a replayed trace (arrival times divided by c).
    Scaling,
}

/// One point of the sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// ρ = λ E[R] E[S] / L.
    pub load: f64,
    /// λ, jobs per slot.
    pub arrival_rate: f64,
    /// The value written in the sweep (load or rate), whose bits seed the point.
    pub key: f64,
}

/// How long each run is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSpec {
    /// Slots per run; for a trace, 0 means the replay window's length.
    pub slots: u64,
    pub warmup: u64,
    /// For a trace without `slots`: warm-up as a fraction of each run, and the share of the
    /// window replayed (1, or 1/100 with `--quick`).
    pub warmup_fraction: f64,
    pub window_share: f64,
    pub replications: u32,
    pub queue_cap: u64,
    pub samples: u64,
    /// The longest a run may go when its verdict is inconclusive (horizon doublings);
    /// `slots` means no extension.
    pub max_slots: u64,
}

/// A figure to draw.
#[derive(Clone, Debug, PartialEq)]
pub enum PlotSpec {
    /// Mean queue against the sweep variable with 95 % CI bars, one curve per policy.
    MeanQueueVsLoad {
        title: Option<String>,
        file: String,
        log_y: bool,
    },
    /// Each scored policy's stability limit (bracket) against its compacted cluster size
    /// (needs `[compaction]`).
    LimitVsCompaction { title: Option<String>, file: String },
    /// Q(t) against t at one sweep point and replication, one curve per policy.
    QueueVsTime {
        point: usize,
        replication: u32,
        title: Option<String>,
        file: String,
        log_y: bool,
    },
}

/// A claim checked after the run.
#[derive(Clone, Debug, PartialEq)]
pub enum ClaimSpec {
    /// `expect = "stable" | "unstable"` for a policy at a sweep point.
    Verdict {
        policy: usize,
        point: usize,
        expect: Verdict,
    },
    /// The policy's stability limit, an interval [lower, upper] on the load found by noisy
    /// bisection ([`super::limit`]): `at_least` holds if lower ≥ that fraction of ρ*,
    /// `at_most` if upper was shown unstable and is ≤ that fraction of ρ*.
    Threshold {
        policy: usize,
        at_least: Option<f64>,
        at_most: Option<f64>,
        search: SearchSpec,
    },
    /// FIFO-FF's saturated throughput (a queue that never empties) agrees with the interval
    /// the limit search finds for it.
    Saturation { policy: usize, search: SearchSpec },
    /// At a sweep point, the policies' mean queues are in this order (smallest first), each
    /// pair with separated 95 % intervals, or with `paired`, each pair's per-replication
    /// differences with a 95 % interval below 0. One window of a replayed trace is compared
    /// exactly.
    Ranking {
        order: Vec<usize>,
        point: usize,
        paired: bool,
    },
}

/// A validated queueing experiment.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub file: PathBuf,
    pub source: String,
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub servers: usize,
    pub sizes: SizeLaw,
    pub service: ServiceLaw,
    pub arrivals: ArrivalProcess,
    pub run: RunSpec,
    pub sweep: SweepKind,
    pub points: Vec<Point>,
    pub policies: Vec<PolicySpec>,
    /// One label per policy (its name unless the file gives `label`), used in every output.
    pub labels: Vec<String>,
    pub plots: Vec<PlotSpec>,
    pub claims: Vec<ClaimSpec>,
    /// ρ* as a traffic intensity, (low, high): exact for finitely many sizes, else Theorem 1's
    /// bracket on 128 equal intervals. Computed when the sweep or a claim needs it.
    pub rho_star: Option<(f64, f64)>,
    /// A replayed trace, with what its validation pass learned (`sizes` and `service` are then
    /// the trace's empirical laws).
    pub trace: Option<Box<(TraceSpec, TraceSummary)>>,
    /// Resources per job: 1, or 2–3 for request vectors (a `tasks` law or a trace with
    /// `size = "both"`); then every policy has a `score`.
    pub dims: usize,
    /// The request vectors of a `tasks` law (empty otherwise).
    pub requests: Vec<Resources>,
    /// The packing side of a stability-versus-packing study.
    pub compaction: Option<CompactionSpec>,
}

/// `[compaction]`, validated: pack `tasks` jobs drawn from the workload onto unit servers with
/// each scored policy's scorer (Algorithm 3 of seed 000), and find each scored policy's
/// stability limit as an interval on the load in [0, 1] ([`super::limit`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionSpec {
    pub tasks: usize,
    pub trials: usize,
    pub tau: f64,
    pub order: JobOrder,
    pub limit: SearchSpec,
}

pub(super) struct Ctx<'a> {
    pub(super) file: &'a Path,
}

impl Ctx<'_> {
    pub(super) fn bad(
        &self,
        key: &str,
        expected: &str,
        got: impl std::fmt::Display,
    ) -> ExperimentError {
        ExperimentError::Invalid {
            file: self.file.to_path_buf(),
            key: key.to_string(),
            expected: expected.to_string(),
            got: got.to_string(),
        }
    }

    /// An experiment name: non-empty, of [a-z0-9_-] (it names the output folder).
    pub(super) fn name(&self, name: &str) -> Result<(), ExperimentError> {
        let ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if ok {
            Ok(())
        } else {
            Err(self.bad("name", "a non-empty name of [a-z0-9_-]", name))
        }
    }

    pub(super) fn size(&self, key: &str, x: f64) -> Result<Size, ExperimentError> {
        Size::from_f64(x).ok_or_else(|| self.bad(key, "a size in (0, 1]", x))
    }

    pub(super) fn positive(&self, key: &str, x: i64) -> Result<u64, ExperimentError> {
        if x > 0 {
            Ok(x as u64)
        } else {
            Err(self.bad(key, "an integer ≥ 1", x))
        }
    }

    pub(super) fn probs(&self, key: &str, p: &[f64], n: usize) -> Result<(), ExperimentError> {
        if p.len() != n {
            return Err(self.bad(key, &format!("{n} probabilities (one per value)"), p.len()));
        }
        if let Some(x) = p.iter().find(|x| !x.is_finite() || **x < 0.0) {
            return Err(self.bad(key, "probabilities ≥ 0", x));
        }
        let s: f64 = p.iter().sum();
        if (s - 1.0).abs() > 1e-9 {
            return Err(self.bad(key, "probabilities adding up to 1", s));
        }
        Ok(())
    }
}

impl Experiment {
    /// Reads and validates an experiment file.
    pub fn load(file: &Path) -> Result<Experiment, ExperimentError> {
        let source = std::fs::read_to_string(file).map_err(|source| ExperimentError::Read {
            file: file.to_path_buf(),
            source,
        })?;
        Self::parse(file, &source)
    }

    /// Validates experiment text; `file` names it in errors and anchors relative paths.
    pub fn parse(file: &Path, source: &str) -> Result<Experiment, ExperimentError> {
        let raw: RawExperiment = parse_toml(file, source)?;
        let cx = Ctx { file };
        cx.name(&raw.name)?;
        if let Some(k) = &raw.kind
            && k != "queueing"
        {
            return Err(cx.bad("kind", "\"queueing\", \"region\" or \"packing\"", k));
        }
        let servers = cx.positive("cluster.servers", raw.cluster.servers)? as usize;
        if servers > 1_000_000 {
            return Err(cx.bad("cluster.servers", "at most 1000000 servers", servers));
        }

        let trace = match raw.workload.trace {
            None => None,
            Some(t) => {
                for (k, given) in [
                    ("sizes", raw.workload.sizes.is_some()),
                    ("service", raw.workload.service.is_some()),
                    ("arrivals", raw.workload.arrivals.is_some()),
                ] {
                    if given {
                        return Err(cx.bad(
                            &format!("workload.{k}"),
                            "no sampled law next to `workload.trace` (the trace gives arrivals, sizes and service)",
                            "a law",
                        ));
                    }
                }
                let spec = trace_spec(&cx, t)?;
                let summary = TraceSummary::read(&spec)
                    .map_err(|e| cx.bad("workload.trace.file", "a readable trace", e))?;
                Some((spec, summary))
            }
        };
        let mut requests = Vec::new();
        let mut dims = match &trace {
            Some((spec, _)) if spec.size == SizeMode::Both => 2,
            _ => 1,
        };
        let (sizes, service) = match (&trace, raw.workload.sizes, raw.workload.service) {
            (Some((_, t)), _, _) => (t.sizes.clone(), t.service.clone()),
            (
                None,
                Some(RawSizes::Tasks {
                    source,
                    file,
                    scale,
                }),
                Some(v),
            ) => {
                let (r, d) = task_requests(&cx, &source, &file, scale)?;
                // the load is counted on the bottleneck resource (largest mean request)
                let mean = |k: usize| r.iter().map(|x| x[k] as f64).sum::<f64>();
                let k = (0..d)
                    .max_by(|&a, &b| mean(a).total_cmp(&mean(b)))
                    .unwrap_or(0);
                let law = SizeLaw::Empirical {
                    values: r.iter().map(|x| Size(x[k])).collect(),
                };
                requests = r;
                dims = d;
                (law, service_law(&cx, v)?)
            }
            (None, Some(z), Some(v)) => (size_law(&cx, z)?, service_law(&cx, v)?),
            (None, None, _) => {
                return Err(cx.bad(
                    "workload.sizes",
                    "a size law `{ dist = … }` (or `workload.trace`)",
                    "nothing",
                ));
            }
            (None, _, None) => {
                return Err(cx.bad(
                    "workload.service",
                    "a service law `{ dist = … }` (or `workload.trace`)",
                    "nothing",
                ));
            }
        };

        let arrivals = match raw.workload.arrivals.as_ref().map(|a| a.process.as_str()) {
            None | Some("poisson") => ArrivalProcess::Poisson,
            Some("bernoulli") => ArrivalProcess::Bernoulli,
            Some("batch") => ArrivalProcess::Batch,
            Some(other) => {
                return Err(cx.bad(
                    "workload.arrivals.process",
                    "one of \"poisson\", \"bernoulli\", \"batch\"",
                    format!("\"{other}\""),
                ));
            }
        };

        let slots = match (raw.run.slots, &trace) {
            (Some(s), _) => cx.positive("run.slots", s)?,
            (None, Some(_)) => 0,
            (None, None) => {
                return Err(cx.bad("run.slots", "the number of slots per run", "nothing"));
            }
        };
        let warmup_fraction = match (raw.run.warmup_fraction, &trace, raw.run.slots) {
            (None, _, _) => 0.1,
            (Some(f), Some(_), None) if (0.0..1.0).contains(&f) => f,
            (Some(f), Some(_), None) => {
                return Err(cx.bad("run.warmup_fraction", "a fraction in [0, 1)", f));
            }
            (Some(_), _, _) => {
                return Err(cx.bad(
                    "run.warmup_fraction",
                    "no `warmup_fraction` unless a trace is replayed without `run.slots` (use `warmup`)",
                    "a value",
                ));
            }
        };
        let warmup = match raw.run.warmup {
            _ if slots == 0 => {
                if raw.run.warmup.is_some() {
                    return Err(cx.bad(
                        "run.warmup",
                        "`warmup_fraction` for a trace replayed without `run.slots`",
                        "`warmup`",
                    ));
                }
                0
            }
            None => slots / 10,
            Some(w) if w >= 0 && (w as u64) < slots => w as u64,
            Some(w) => {
                return Err(cx.bad(
                    "run.warmup",
                    &format!("an integer in [0, run.slots = {slots})"),
                    w,
                ));
            }
        };
        let replications = match raw.run.replications {
            None => 1,
            Some(r) => cx.positive("run.replications", r)?.min(u32::MAX as u64) as u32,
        };
        let queue_cap = match raw.run.queue_cap {
            None => 100_000,
            Some(c) => cx.positive("run.queue_cap", c)?,
        };
        let samples = match raw.run.samples {
            None => 500,
            Some(c) => cx.positive("run.samples", c)?,
        };
        let max_slots = match (raw.run.max_slots, &trace) {
            (None, _) => slots,
            (Some(_), Some(_)) => {
                return Err(cx.bad(
                    "run.max_slots",
                    "no `max_slots` for a replayed trace (a run is its window)",
                    "a value",
                ));
            }
            (Some(m), None) if m >= 0 && m as u64 >= slots => m as u64,
            (Some(m), None) => {
                return Err(cx.bad(
                    "run.max_slots",
                    &format!("an integer ≥ run.slots = {slots}"),
                    m,
                ));
            }
        };
        let run = RunSpec {
            slots,
            warmup,
            warmup_fraction,
            window_share: 1.0,
            replications,
            queue_cap,
            samples,
            max_slots,
        };

        let to_rate = rate_per_load(servers, &sizes, &service);
        let needs_rho = raw.sweep.fraction.is_some()
            || raw.claim.iter().any(|c| {
                c.fraction.is_some()
                    || matches!(c.kind.as_deref(), Some("threshold" | "saturation"))
            })
            || raw.plot.iter().any(|p| p.fraction.is_some());
        if needs_rho && dims > 1 {
            return Err(cx.bad(
                "sweep",
                "`load` or `arrival_rate` and no threshold claims for request vectors (ρ* is computed for one resource; [compaction] finds stability limits)",
                "`fraction` or a threshold claim",
            ));
        }
        let rho_star =
            if needs_rho {
                Some(rho_star_of(&sizes).map_err(|e| {
                    cx.bad("workload.sizes", "a workload whose ρ* can be computed", e)
                })?)
            } else {
                None
            };
        let rho_mid = rho_star.map_or(f64::NAN, |(a, b)| (a + b) / 2.0);
        let (sweep, key, values) = match (
            raw.sweep.load,
            raw.sweep.arrival_rate,
            raw.sweep.fraction,
            raw.sweep.scaling,
            &trace,
        ) {
            (None, None, None, Some(c), Some(_)) => (SweepKind::Scaling, "sweep.scaling", c),
            (_, _, _, _, Some(_)) => {
                return Err(cx.bad(
                    "sweep",
                    "`scaling` (traffic scaling c, arrival times divided by c) alone, for a trace",
                    "another key",
                ));
            }
            (Some(l), None, None, None, None) => (SweepKind::Load, "sweep.load", l),
            (None, Some(r), None, None, None) => (SweepKind::ArrivalRate, "sweep.arrival_rate", r),
            (None, None, Some(f), None, None) => (SweepKind::Fraction, "sweep.fraction", f),
            _ => {
                return Err(cx.bad(
                    "sweep",
                    "exactly one of `load`, `arrival_rate` or `fraction` (`scaling` needs workload.trace)",
                    "several or none",
                ));
            }
        };
        if values.is_empty() {
            return Err(cx.bad(key, "a non-empty list of values", "[]"));
        }
        let mut points = Vec::with_capacity(values.len());
        for &v in &values {
            if !v.is_finite() || v <= 0.0 {
                return Err(cx.bad(key, "values > 0", v));
            }
            let (load, rate) = match (sweep, &trace) {
                (SweepKind::Scaling, Some((spec, t))) => {
                    (t.load(spec, v, servers), t.rate(spec, v))
                }
                (SweepKind::Load, _) => (v, v * to_rate),
                (SweepKind::ArrivalRate, _) => (v / to_rate, v),
                (SweepKind::Fraction, _) => (v * rho_mid, v * rho_mid * to_rate),
                (SweepKind::Scaling, None) => unreachable!("scaling needs a trace"),
            };
            if trace.is_none() {
                Arrivals::new(arrivals, rate).map_err(|e| cx.bad(key, &e, v))?;
            }
            if points.iter().any(|p: &Point| p.key == v) {
                return Err(cx.bad(key, "distinct values", v));
            }
            points.push(Point {
                load,
                arrival_rate: rate,
                key: v,
            });
        }

        if raw.policy.is_empty() {
            return Err(cx.bad("policy", "at least one [[policy]] table", "none"));
        }
        let mut policies = Vec::new();
        let mut labels: Vec<String> = Vec::new();
        for (i, p) in raw.policy.iter().enumerate() {
            let spec = policy_spec(&cx, i, p, &sizes)?;
            if dims > 1 && !matches!(spec, PolicySpec::Scored { .. }) {
                return Err(cx.bad(
                    &format!("policy[{i}].score"),
                    "a placement score (jobs have several resources; bf-js and fifo-ff take one)",
                    "nothing",
                ));
            }
            let label = p.label.clone().unwrap_or_else(|| spec.label());
            if label.is_empty()
                || !label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b))
            {
                return Err(cx.bad(
                    &format!("policy[{i}].label"),
                    "a non-empty label of [a-z0-9_.-]",
                    &label,
                ));
            }
            if labels.contains(&label) {
                return Err(cx.bad(
                    &format!("policy[{i}].label"),
                    "a label different from the other policies' (set `label` when a policy appears twice)",
                    format!("\"{label}\""),
                ));
            }
            policies.push(spec);
            labels.push(label);
        }

        let find_point = |key: &str, at: [Option<f64>; 4]| {
            let (want, name) = match (sweep, at) {
                (SweepKind::Load, [Some(l), None, None, None]) => (l, "sweep.load"),
                (SweepKind::ArrivalRate, [None, Some(r), None, None]) => (r, "sweep.arrival_rate"),
                (SweepKind::Fraction, [None, None, Some(f), None]) => (f, "sweep.fraction"),
                (SweepKind::Scaling, [None, None, None, Some(c)]) => (c, "sweep.scaling"),
                _ => {
                    let which = match sweep {
                        SweepKind::Load => "`load`",
                        SweepKind::ArrivalRate => "`arrival_rate`",
                        SweepKind::Fraction => "`fraction`",
                        SweepKind::Scaling => "`scaling`",
                    };
                    return Err(cx.bad(
                        key,
                        &format!("{which}, the quantity the sweep varies"),
                        "another one or none",
                    ));
                }
            };
            points
                .iter()
                .position(|p| p.key == want)
                .ok_or_else(|| cx.bad(key, &format!("a value listed in {name}"), want))
        };

        let mut plots = Vec::new();
        for (i, p) in raw.plot.iter().enumerate() {
            let file = p.file.clone().unwrap_or_else(|| {
                if raw.plot.len() == 1 {
                    p.kind.clone()
                } else {
                    format!("{}-{i}", p.kind)
                }
            });
            if file.is_empty() || file.contains(['/', '\\']) {
                return Err(cx.bad(
                    &format!("plot[{i}].file"),
                    "a file name without directories",
                    &file,
                ));
            }
            match p.kind.as_str() {
                "mean-queue-vs-load" => {
                    if p.load.is_some()
                        || p.arrival_rate.is_some()
                        || p.fraction.is_some()
                        || p.scaling.is_some()
                        || p.replication.is_some()
                    {
                        return Err(cx.bad(
                            &format!("plot[{i}]"),
                            "no `load`, `arrival_rate` or `replication` for this kind",
                            "one of them",
                        ));
                    }
                    plots.push(PlotSpec::MeanQueueVsLoad {
                        title: p.title.clone(),
                        file,
                        log_y: p.log_y.unwrap_or(false),
                    })
                }
                "queue-vs-time" => {
                    let at = [p.load, p.arrival_rate, p.fraction, p.scaling];
                    let point = if at.iter().all(Option::is_none) {
                        points.len() - 1
                    } else {
                        find_point(&format!("plot[{i}].load"), at)?
                    };
                    let replication = match p.replication {
                        None => 0,
                        Some(r) if r >= 0 && (r as u64) < replications as u64 => r as u32,
                        Some(r) => {
                            return Err(cx.bad(
                                &format!("plot[{i}].replication"),
                                &format!("an index in [0, run.replications = {replications})"),
                                r,
                            ));
                        }
                    };
                    plots.push(PlotSpec::QueueVsTime {
                        point,
                        replication,
                        title: p.title.clone(),
                        file,
                        log_y: p.log_y.unwrap_or(false),
                    })
                }
                "limit-vs-compaction" => {
                    if raw.compaction.is_none() {
                        return Err(cx.bad(
                            &format!("plot[{i}].kind"),
                            "a [compaction] table for \"limit-vs-compaction\"",
                            "none",
                        ));
                    }
                    plots.push(PlotSpec::LimitVsCompaction {
                        title: p.title.clone(),
                        file,
                    })
                }
                other => {
                    return Err(cx.bad(
                        &format!("plot[{i}].kind"),
                        "\"mean-queue-vs-load\", \"queue-vs-time\" or \"limit-vs-compaction\"",
                        format!("\"{other}\""),
                    ));
                }
            }
        }

        let mut claims = Vec::new();
        for (i, c) in raw.claim.iter().enumerate() {
            let key = |k: &str| format!("claim[{i}].{k}");
            let policy_of = |name: &str, k: &str| {
                labels.iter().position(|l| l == name).ok_or_else(|| {
                    cx.bad(
                        k,
                        &format!(
                            "the label of a [[policy]] of this file ({})",
                            labels.join(", ")
                        ),
                        format!("\"{name}\""),
                    )
                })
            };
            let need_policy = || {
                c.policy
                    .as_deref()
                    .ok_or_else(|| cx.bad(&key("policy"), "a policy label", "nothing"))
                    .and_then(|p| policy_of(p, &key("policy")))
            };
            let kind = c.kind.as_deref().unwrap_or("verdict");
            claims.push(match kind {
                "verdict" => {
                    let policy = need_policy()?;
                    let point = find_point(&key("load"), [c.load, c.arrival_rate, c.fraction, c.scaling])?;
                    let expect = match c.expect.as_deref() {
                        Some("stable") => Verdict::Stable,
                        Some("unstable") => Verdict::Unstable,
                        other => {
                            return Err(cx.bad(
                                &key("expect"),
                                "\"stable\" or \"unstable\"",
                                format!("{other:?}"),
                            ));
                        }
                    };
                    ClaimSpec::Verdict {
                        policy,
                        point,
                        expect,
                    }
                }
                "threshold" if trace.is_some() => {
                    return Err(cx.bad(
                        &key("kind"),
                        "\"verdict\" or \"ranking\" for a replayed trace (a threshold needs sampled laws)",
                        "\"threshold\"",
                    ));
                }
                "threshold" => {
                    let policy = need_policy()?;
                    if c.at_least.is_none() && c.at_most.is_none() {
                        return Err(cx.bad(
                            &key("at_least"),
                            "`at_least` and/or `at_most` (fractions of ρ*)",
                            "neither",
                        ));
                    }
                    for (k, v) in [("at_least", c.at_least), ("at_most", c.at_most)] {
                        if let Some(v) = v
                            && !(v > 0.0 && v <= 1.0)
                        {
                            return Err(cx.bad(&key(k), "a fraction of ρ* in (0, 1]", v));
                        }
                    }
                    let search = search_spec(&cx, &key, c)?;
                    ClaimSpec::Threshold {
                        policy,
                        at_least: c.at_least,
                        at_most: c.at_most,
                        search,
                    }
                }
                "saturation" => {
                        let policy = need_policy()?;
                        if trace.is_some() {
                            return Err(cx.bad(
                                &key("kind"),
                                "sampled single-resource laws for a saturation claim",
                                "\"saturation\"",
                            ));
                        }
                        if policies[policy] != PolicySpec::FifoFf {
                            return Err(cx.bad(
                                &key("policy"),
                                "a fifo-ff policy (the saturation rule holds for FIFO service \
                                 only: BF-J/S and VQS choose among waiting jobs, so a queue that \
                                 never empties is not the queue they face at their limit)",
                                format!("\"{}\"", labels[policy]),
                            ));
                        }
                        ClaimSpec::Saturation {
                            policy,
                            search: search_spec(&cx, &key, c)?,
                        }
                    }
                "ranking" => {
                    let names = c.order.as_ref().ok_or_else(|| {
                        cx.bad(
                            &key("order"),
                            "a list of policy labels, best first",
                            "nothing",
                        )
                    })?;
                    if names.len() < 2 {
                        return Err(cx.bad(&key("order"), "at least two policies", names.len()));
                    }
                    let order = names
                        .iter()
                        .map(|n| policy_of(n, &key("order")))
                        .collect::<Result<Vec<_>, _>>()?;
                    let point = find_point(&key("load"), [c.load, c.arrival_rate, c.fraction, c.scaling])?;
                    ClaimSpec::Ranking {
                        order,
                        point,
                        paired: c.paired.unwrap_or(false),
                    }
                }
                other => {
                    return Err(cx.bad(
                        &key("kind"),
                        "\"verdict\" (default), \"threshold\", \"saturation\" or \"ranking\"",
                        format!("\"{other}\""),
                    ));
                }
            });
        }

        let compaction = match raw.compaction {
            None => None,
            Some(c) => {
                if !policies
                    .iter()
                    .any(|p| matches!(p, PolicySpec::Scored { .. }))
                {
                    return Err(cx.bad(
                        "compaction",
                        "at least one [[policy]] with a `score` to compact with",
                        "none",
                    ));
                }
                if trace.is_some() {
                    return Err(cx.bad(
                        "compaction",
                        "sampled laws (a stability limit needs a load to bisect on)",
                        "a replayed trace",
                    ));
                }
                let tasks = match c.tasks {
                    None => 4000,
                    Some(n) if (1..=1_000_000).contains(&n) => n as usize,
                    Some(n) => {
                        return Err(cx.bad("compaction.tasks", "an integer in [1, 10^6]", n));
                    }
                };
                let trials = match c.trials {
                    None => 11,
                    Some(n) if (1..=1000).contains(&n) => n as usize,
                    Some(n) => {
                        return Err(cx.bad("compaction.trials", "an integer in [1, 1000]", n));
                    }
                };
                let tau = c.tau.unwrap_or(0.0);
                if !(0.0..1.0).contains(&tau) {
                    return Err(cx.bad("compaction.tau", "a pending fraction in [0, 1)", tau));
                }
                let order = match c.order.as_deref() {
                    None => JobOrder::Arrival,
                    Some(o) => JobOrder::from_name(o).ok_or_else(|| {
                        cx.bad(
                            "compaction.order",
                            "\"arrival\", \"cpu\", \"memory\" or \"sum\"",
                            format!("\"{o}\""),
                        )
                    })?,
                };
                let max_probes = match c.limit_steps {
                    None => 8,
                    Some(s) if (1..=40).contains(&s) => s as u32,
                    Some(s) => {
                        return Err(cx.bad("compaction.limit_steps", "an integer in [1, 40]", s));
                    }
                };
                let resolution = match c.limit_resolution {
                    None => 0.01,
                    Some(r) if r > 0.0 && r < 1.0 => r,
                    Some(r) => {
                        return Err(cx.bad(
                            "compaction.limit_resolution",
                            "a width in (0, 1) (of the load)",
                            r,
                        ));
                    }
                };
                Some(CompactionSpec {
                    tasks,
                    trials,
                    tau,
                    order,
                    limit: SearchSpec {
                        resolution,
                        max_probes,
                        rounds: 3,
                    },
                })
            }
        };

        Ok(Experiment {
            file: file.to_path_buf(),
            source: source.to_string(),
            name: raw.name,
            description: raw.description.unwrap_or_default(),
            seed: raw.seed.unwrap_or(1),
            servers,
            sizes,
            service,
            arrivals,
            run,
            sweep,
            points,
            policies,
            labels,
            plots,
            claims,
            rho_star,
            trace: trace.map(Box::new),
            dims,
            requests,
            compaction,
        })
    }

    /// Arrival rate per unit of traffic intensity: λ = ρ · L / (E[R] E[S]).
    pub fn rate_per_load(&self) -> f64 {
        rate_per_load(self.servers, &self.sizes, &self.service)
    }

    /// The shortened version for smoke tests: about 1/100 of the slots and replications, at
    /// least one of each; same outputs and columns.
    pub fn quick(&mut self) {
        let r = &mut self.run;
        if r.slots == 0 {
            r.window_share = 0.01;
        } else {
            r.slots = (r.slots / 100).max(1);
            r.warmup = (r.warmup / 100).min(r.slots - 1);
            r.max_slots = (r.max_slots / 100).max(r.slots);
        }
        r.replications = (r.replications / 100).max(1);
        if let Some(c) = &mut self.compaction {
            c.trials = (c.trials / 100).max(1);
        }
        for p in &mut self.plots {
            if let PlotSpec::QueueVsTime { replication, .. } = p {
                *replication = 0;
            }
        }
    }
}

/// Parses TOML text into `T`, naming the file in errors (the TOML error names line, column
/// and key).
pub(super) fn parse_toml<T: serde::de::DeserializeOwned>(
    file: &Path,
    source: &str,
) -> Result<T, ExperimentError> {
    toml::from_str(source).map_err(|e| ExperimentError::Parse {
        file: file.to_path_buf(),
        message: e.to_string().trim_end().to_string(),
    })
}

/// A threshold claim's search: `resolution` (fraction of ρ*, default 0.01), `max_probes` (or
/// its older name `steps`; default 16) and `rounds` per probe (default 3).
fn search_spec(
    cx: &Ctx<'_>,
    key: &dyn Fn(&str) -> String,
    c: &RawClaim,
) -> Result<SearchSpec, ExperimentError> {
    let max_probes = match (c.max_probes, c.steps) {
        (Some(_), Some(_)) => {
            return Err(cx.bad(
                &key("steps"),
                "`max_probes` or its older name `steps`, not both",
                "both",
            ));
        }
        (None, None) => 16,
        (Some(s), None) | (None, Some(s)) if (1..=60).contains(&s) => s as u32,
        (Some(s), None) | (None, Some(s)) => {
            return Err(cx.bad(&key("max_probes"), "an integer in [1, 60]", s));
        }
    };
    let resolution = match c.resolution {
        None => 0.01,
        Some(r) if r > 0.0 && r < 1.0 => r,
        Some(r) => return Err(cx.bad(&key("resolution"), "a fraction of ρ* in (0, 1)", r)),
    };
    let rounds = match c.rounds {
        None => 3,
        Some(r) if (1..=20).contains(&r) => r as u32,
        Some(r) => return Err(cx.bad(&key("rounds"), "an integer in [1, 20]", r)),
    };
    Ok(SearchSpec {
        resolution,
        max_probes,
        rounds,
    })
}

/// ρ* of a size law as a traffic intensity (low, high): exact for finitely many sizes, else
/// Theorem 1's bracket on 128 equal intervals (its upper end capped at 1).
pub fn rho_star_of(law: &SizeLaw) -> Result<(f64, f64), String> {
    use crate::stability::region::{bracket, rho_star};
    match law.atoms() {
        Some(atoms) if atoms.len() <= 256 => {
            let r = rho_star(&atoms).map_err(|e| e.to_string())?;
            Ok((r.traffic, r.traffic))
        }
        _ => {
            let b = bracket(law, 128, 128, 0.0).map_err(|e| e.to_string())?;
            let last = b.last().ok_or("no bracket")?;
            Ok((last.lower_bound, last.upper_bound.min(1.0)))
        }
    }
}

/// Validates `workload.trace = { … }`.
fn trace_spec(cx: &Ctx<'_>, t: RawTrace) -> Result<TraceSpec, ExperimentError> {
    let key = |k: &str| format!("workload.trace.{k}");
    let format = match t.format.as_str() {
        "alibaba2017" => TraceFormat::Alibaba2017,
        "google2011" => TraceFormat::GoogleTaskEvents,
        "swf" => TraceFormat::Swf,
        "csv" => TraceFormat::Csv,
        other => {
            return Err(cx.bad(
                &key("format"),
                "one of \"alibaba2017\", \"swf\", \"csv\" (\"google2011\" is read, not replayed)",
                format!("\"{other}\""),
            ));
        }
    };
    let slot = t.slot.unwrap_or(0.1);
    if !(slot.is_finite() && slot > 0.0) {
        return Err(cx.bad(&key("slot"), "a slot length in seconds > 0", slot));
    }
    let scale = t.scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(cx.bad(&key("scale"), "a factor > 0", scale));
    }
    let size = match t.size.as_deref() {
        None => SizeMode::Max,
        Some(s) => SizeMode::from_name(s).ok_or_else(|| {
            cx.bad(
                &key("size"),
                "\"max\" (max(CPU, memory), default), \"cpu\", \"memory\" or \"both\"",
                format!("\"{s}\""),
            )
        })?,
    };
    for (k, v) in [("start", t.start), ("end", t.end)] {
        if let Some(v) = v
            && !v.is_finite()
        {
            return Err(cx.bad(&key(k), "a time in trace seconds", v));
        }
    }
    if let (Some(a), Some(b)) = (t.start, t.end)
        && a >= b
    {
        return Err(cx.bad(&key("end"), &format!("a time after start = {a}"), b));
    }
    Ok(TraceSpec {
        file: cx
            .file
            .parent()
            .unwrap_or_else(|| Path::new("."))
            .join(&t.file),
        format,
        finished_only: t.finished_only.unwrap_or(true),
        slot,
        size,
        scale,
        start: t.start,
        end: t.end,
    })
}

/// Arrival rate per unit of traffic intensity, L / (E[R] E[S]) jobs per slot.
fn rate_per_load(servers: usize, sizes: &SizeLaw, service: &ServiceLaw) -> f64 {
    servers as f64 / (sizes.mean() * service.mean())
}

/// Validates a `sizes = { dist = … }` table into a size law.
pub(super) fn size_law(cx: &Ctx<'_>, raw: RawSizes) -> Result<SizeLaw, ExperimentError> {
    Ok(match raw {
        RawSizes::Uniform { low, high } => {
            let lo = cx.size("workload.sizes.low", low)?;
            let hi = cx.size("workload.sizes.high", high)?;
            if lo > hi {
                return Err(cx.bad(
                    "workload.sizes.high",
                    &format!("a value ≥ workload.sizes.low = {low}"),
                    high,
                ));
            }
            SizeLaw::uniform(lo, hi)
        }
        RawSizes::Discrete { values, probs } => {
            if values.is_empty() {
                return Err(cx.bad("workload.sizes.values", "at least one size", "[]"));
            }
            let v = values
                .iter()
                .map(|&x| cx.size("workload.sizes.values", x))
                .collect::<Result<Vec<_>, _>>()?;
            cx.probs("workload.sizes.probs", &probs, v.len())?;
            SizeLaw::discrete(v, probs)
                .map_err(|e| cx.bad("workload.sizes.probs", "valid weights", e))?
        }
        RawSizes::Empirical { values, file: f } => {
            let values = match (values, f) {
                (Some(v), None) => v,
                (None, Some(f)) => read_numbers(cx, &f)?,
                _ => {
                    return Err(cx.bad(
                        "workload.sizes",
                        "exactly one of `values` or `file` for dist = \"empirical\"",
                        "both or neither",
                    ));
                }
            };
            if values.is_empty() {
                return Err(cx.bad("workload.sizes.values", "at least one size", "none"));
            }
            let v = values
                .iter()
                .map(|&x| cx.size("workload.sizes.values", x))
                .collect::<Result<Vec<_>, _>>()?;
            SizeLaw::Empirical { values: v }
        }
        RawSizes::Tasks { .. } => {
            return Err(cx.bad(
                "workload.sizes.dist",
                "a single-resource law here (\"tasks\" gives request vectors: queueing files only)",
                "\"tasks\"",
            ));
        }
    })
}

/// Request vectors from `sizes = { dist = "tasks", source, file, scale }`: every task of the
/// source with a non-zero request, its requests multiplied by `scale`. Returns the vectors and
/// the number of resources.
fn task_requests(
    cx: &Ctx<'_>,
    source: &str,
    file: &str,
    scale: Option<f64>,
) -> Result<(Vec<Resources>, usize), ExperimentError> {
    let path = cx
        .file
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(file);
    let read_err = |e: crate::packing::sources::SourceError| {
        cx.bad("workload.sizes.file", "a readable task file", e)
    };
    let snap = match source {
        "google2011" => crate::packing::sources::read_google_snapshot(&path).map_err(read_err)?,
        "csv" => crate::packing::sources::read_snapshot_csv(&path).map_err(read_err)?,
        other => {
            return Err(cx.bad(
                "workload.sizes.source",
                "\"google2011\" (task_events snapshot) or \"csv\" (packlab snapshot CSV)",
                format!("\"{other}\""),
            ));
        }
    };
    let scale = scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(cx.bad("workload.sizes.scale", "a factor > 0", scale));
    }
    let mut out = Vec::with_capacity(snap.tasks.len());
    for t in &snap.tasks {
        if t.request.iter().all(|&r| r == 0) {
            continue; // requests nothing: never waits, never blocks
        }
        let mut r = [0u64; 3];
        for (d, x) in r.iter_mut().enumerate().take(snap.dims) {
            let v = (t.request[d] as f64 * scale).round();
            if v > Size::UNIT as f64 {
                return Err(cx.bad(
                    "workload.sizes.scale",
                    "a scale that keeps every request within one server",
                    format!("{scale} (a request becomes {})", v / Size::UNIT as f64),
                ));
            }
            *x = v as u64;
        }
        out.push(r);
    }
    if out.is_empty() {
        return Err(cx.bad(
            "workload.sizes.file",
            "at least one task with a request",
            "none",
        ));
    }
    Ok((out, snap.dims))
}

/// Validates a `service = { dist = … }` table into a service law.
pub(super) fn service_law(cx: &Ctx<'_>, raw: RawService) -> Result<ServiceLaw, ExperimentError> {
    Ok(match raw {
        RawService::Geometric { mean } => {
            if !mean.is_finite() || !(1.0..=1e9).contains(&mean) {
                return Err(cx.bad(
                    "workload.service.mean",
                    "a mean service time in [1, 1e9] slots",
                    mean,
                ));
            }
            ServiceLaw::geometric(mean)
        }
        RawService::Deterministic { value } => {
            let v = cx.positive("workload.service.value", value)?;
            if v > u32::MAX as u64 {
                return Err(cx.bad("workload.service.value", "at most 2^32 − 1 slots", v));
            }
            ServiceLaw::Deterministic(v as u32)
        }
        RawService::Empirical { values, probs } => {
            if values.is_empty() {
                return Err(cx.bad("workload.service.values", "at least one service time", "[]"));
            }
            let v = values
                .iter()
                .map(|&x| {
                    cx.positive("workload.service.values", x).and_then(|v| {
                        u32::try_from(v).map_err(|_| {
                            cx.bad("workload.service.values", "at most 2^32 − 1 slots", v)
                        })
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let probs = match probs {
                Some(p) => {
                    cx.probs("workload.service.probs", &p, v.len())?;
                    p
                }
                None => vec![1.0 / v.len() as f64; v.len()],
            };
            ServiceLaw::empirical(v, probs)
                .map_err(|e| cx.bad("workload.service.probs", "valid weights", e))?
        }
    })
}

/// Validates one `[[policy]]` table with the policy registry.
fn policy_spec(
    cx: &Ctx<'_>,
    i: usize,
    p: &RawPolicy,
    sizes: &SizeLaw,
) -> Result<PolicySpec, ExperimentError> {
    let params = PolicyParams {
        name: &p.name,
        j: p.j,
        partition: p.partition.as_deref(),
        cuts: p.cuts.as_deref(),
        stall: p.stall,
        score: p.score.as_deref(),
    };
    registry::parse(&params, sizes).map_err(|e| {
        let key = if e.key.contains('.') {
            e.key.to_string()
        } else {
            format!("policy[{i}].{}", e.key)
        };
        cx.bad(&key, &e.expected, e.got)
    })
}

/// Numbers separated by whitespace, commas or new lines; `#` starts a comment. The path is
/// relative to the experiment file's folder.
fn read_numbers(cx: &Ctx<'_>, path: &str) -> Result<Vec<f64>, ExperimentError> {
    let full = cx
        .file
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(path);
    let text = std::fs::read_to_string(&full).map_err(|e| {
        cx.bad(
            "workload.sizes.file",
            "a readable file of sizes",
            format!("{}: {e}", full.display()),
        )
    })?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for tok in line.split(|c: char| c == ',' || c.is_whitespace()) {
            if tok.is_empty() {
                continue;
            }
            let x: f64 = tok.parse().map_err(|_| {
                cx.bad(
                    "workload.sizes.file",
                    "numbers only",
                    format!("{}:{}: `{tok}`", full.display(), n + 1),
                )
            })?;
            out.push(x);
        }
    }
    Ok(out)
}
