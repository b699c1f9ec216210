//! The experiment file: TOML parsed into raw structs (unknown keys are errors), then validated
//! once into an [`Experiment`] whose laws are ready to sample. See `experiments/README.md` for
//! every key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ExperimentError;
use crate::configs::{MAX_J, Partition};
use crate::model::Size;
use crate::policy::PolicySpec;
use crate::sim::Verdict;
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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCluster {
    pub(super) servers: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkload {
    sizes: RawSizes,
    service: RawService,
    arrivals: Option<RawArrivals>,
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
    slots: i64,
    warmup: Option<i64>,
    replications: Option<i64>,
    queue_cap: Option<i64>,
    samples: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSweep {
    load: Option<Vec<f64>>,
    arrival_rate: Option<Vec<f64>>,
    fraction: Option<Vec<f64>>,
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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    kind: Option<String>,
    policy: Option<String>,
    load: Option<f64>,
    arrival_rate: Option<f64>,
    fraction: Option<f64>,
    expect: Option<String>,
    at_least: Option<f64>,
    at_most: Option<f64>,
    steps: Option<i64>,
    order: Option<Vec<String>>,
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
    pub slots: u64,
    pub warmup: u64,
    pub replications: u32,
    pub queue_cap: u64,
    pub samples: u64,
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
    /// The policy's empirical stability limit, found by bisection on the load, is at least
    /// and/or at most these fractions of ρ*.
    Threshold {
        policy: usize,
        at_least: Option<f64>,
        at_most: Option<f64>,
        steps: u32,
    },
    /// At a sweep point, the policies' mean queues are in this order (smallest first), each
    /// pair with separated 95 % intervals.
    Ranking { order: Vec<usize>, point: usize },
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

        let sizes = size_law(&cx, raw.workload.sizes)?;

        let service = service_law(&cx, raw.workload.service)?;

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

        let slots = cx.positive("run.slots", raw.run.slots)?;
        let warmup = match raw.run.warmup {
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
        let run = RunSpec {
            slots,
            warmup,
            replications,
            queue_cap,
            samples,
        };

        let to_rate = rate_per_load(servers, &sizes, &service);
        let needs_rho = raw.sweep.fraction.is_some()
            || raw
                .claim
                .iter()
                .any(|c| c.fraction.is_some() || c.kind.as_deref() == Some("threshold"))
            || raw.plot.iter().any(|p| p.fraction.is_some());
        let rho_star =
            if needs_rho {
                Some(rho_star_of(&sizes).map_err(|e| {
                    cx.bad("workload.sizes", "a workload whose ρ* can be computed", e)
                })?)
            } else {
                None
            };
        let rho_mid = rho_star.map_or(f64::NAN, |(a, b)| (a + b) / 2.0);
        let (sweep, key, values) =
            match (raw.sweep.load, raw.sweep.arrival_rate, raw.sweep.fraction) {
                (Some(l), None, None) => (SweepKind::Load, "sweep.load", l),
                (None, Some(r), None) => (SweepKind::ArrivalRate, "sweep.arrival_rate", r),
                (None, None, Some(f)) => (SweepKind::Fraction, "sweep.fraction", f),
                _ => {
                    return Err(cx.bad(
                        "sweep",
                        "exactly one of `load`, `arrival_rate` or `fraction`",
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
            let (load, rate) = match sweep {
                SweepKind::Load => (v, v * to_rate),
                SweepKind::ArrivalRate => (v / to_rate, v),
                SweepKind::Fraction => (v * rho_mid, v * rho_mid * to_rate),
            };
            Arrivals::new(arrivals, rate).map_err(|e| cx.bad(key, &e, v))?;
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

        let find_point = |key: &str, load: Option<f64>, rate: Option<f64>, frac: Option<f64>| {
            let (want, name) = match (sweep, load, rate, frac) {
                (SweepKind::Load, Some(l), None, None) => (l, "sweep.load"),
                (SweepKind::ArrivalRate, None, Some(r), None) => (r, "sweep.arrival_rate"),
                (SweepKind::Fraction, None, None, Some(f)) => (f, "sweep.fraction"),
                _ => {
                    let which = match sweep {
                        SweepKind::Load => "`load`",
                        SweepKind::ArrivalRate => "`arrival_rate`",
                        SweepKind::Fraction => "`fraction`",
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
                    let point =
                        if p.load.is_none() && p.arrival_rate.is_none() && p.fraction.is_none() {
                            points.len() - 1
                        } else {
                            find_point(
                                &format!("plot[{i}].load"),
                                p.load,
                                p.arrival_rate,
                                p.fraction,
                            )?
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
                other => {
                    return Err(cx.bad(
                        &format!("plot[{i}].kind"),
                        "\"mean-queue-vs-load\" or \"queue-vs-time\"",
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
                    let point = find_point(&key("load"), c.load, c.arrival_rate, c.fraction)?;
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
                    let steps = match c.steps {
                        None => 6,
                        Some(s) if (1..=20).contains(&s) => s as u32,
                        Some(s) => {
                            return Err(cx.bad(&key("steps"), "an integer in [1, 20]", s));
                        }
                    };
                    ClaimSpec::Threshold {
                        policy,
                        at_least: c.at_least,
                        at_most: c.at_most,
                        steps,
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
                    let point = find_point(&key("load"), c.load, c.arrival_rate, c.fraction)?;
                    ClaimSpec::Ranking { order, point }
                }
                other => {
                    return Err(cx.bad(
                        &key("kind"),
                        "\"verdict\" (default), \"threshold\" or \"ranking\"",
                        format!("\"{other}\""),
                    ));
                }
            });
        }

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
        r.slots = (r.slots / 100).max(1);
        r.warmup = (r.warmup / 100).min(r.slots - 1);
        r.replications = (r.replications / 100).max(1);
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
    })
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

/// Validates one `[[policy]]` table.
fn policy_spec(
    cx: &Ctx<'_>,
    i: usize,
    p: &RawPolicy,
    sizes: &SizeLaw,
) -> Result<PolicySpec, ExperimentError> {
    let key = |k: &str| format!("policy[{i}].{k}");
    let takes_partition = matches!(p.name.as_str(), "vqs" | "vqs-bf");
    if !takes_partition {
        for (k, given) in [
            ("J", p.j.is_some()),
            ("partition", p.partition.is_some()),
            ("cuts", p.cuts.is_some()),
            ("stall", p.stall.is_some()),
        ] {
            if given {
                return Err(cx.bad(
                    &key(k),
                    &format!(
                        "no `{k}` for policy \"{}\" (only vqs and vqs-bf take it)",
                        p.name
                    ),
                    "a value",
                ));
            }
        }
    }
    if let Some(spec) = PolicySpec::from_name(&p.name) {
        return Ok(spec);
    }
    match p.name.as_str() {
        "vqs" | "vqs-bf" => {
            let partition = match (&p.cuts, p.partition.as_deref(), p.j) {
                (Some(cuts), None | Some("custom"), None) => {
                    let c = cuts
                        .iter()
                        .map(|&x| {
                            Size::from_f64(x)
                                .filter(|s| *s < Size::ONE)
                                .ok_or_else(|| cx.bad(&key("cuts"), "cut points in (0, 1)", x))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Partition::custom(&c)
                        .map_err(|e| cx.bad(&key("cuts"), &e, format!("{cuts:?}")))?
                }
                (Some(_), _, _) => {
                    return Err(cx.bad(
                        &key("cuts"),
                        "no `J` and no `partition` other than \"custom\" next to `cuts`",
                        "both",
                    ));
                }
                (None, kind, j) => {
                    let j = match j {
                        Some(j) if (1..=MAX_J as i64).contains(&j) => j as u32,
                        Some(j) => {
                            return Err(cx.bad(
                                &key("J"),
                                &format!("an integer in [1, {MAX_J}]"),
                                j,
                            ));
                        }
                        None => {
                            return Err(cx.bad(
                                &key("J"),
                                "the partition depth J (an integer in [1, 30]) or `cuts`",
                                "nothing",
                            ));
                        }
                    };
                    match kind {
                        None | Some("universal") => Partition::universal(j),
                        Some("dyadic") => Partition::dyadic(j),
                        Some(other) => {
                            return Err(cx.bad(
                                &key("partition"),
                                "\"universal\" (X_J, default), \"dyadic\" or \"custom\" (with `cuts`)",
                                format!("\"{other}\""),
                            ));
                        }
                    }
                }
            };
            let stall = match p.stall {
                None => None,
                Some(b) if b > 0.0 && b <= 1.0 => Some(b),
                Some(b) => return Err(cx.bad(&key("stall"), "a fraction β in (0, 1]", b)),
            };
            Ok(if p.name == "vqs" {
                PolicySpec::Vqs { partition, stall }
            } else {
                PolicySpec::VqsBf { partition, stall }
            })
        }
        "max-weight" => {
            let atoms = sizes.atoms().ok_or_else(|| {
                cx.bad(
                    &key("name"),
                    "finitely many job sizes for \"max-weight\" (workload.sizes with dist = \"discrete\" or \"empirical\")",
                    "a continuous size distribution",
                )
            })?;
            if atoms.len() > 256 {
                return Err(cx.bad(
                    "workload.sizes",
                    "at most 256 distinct sizes for \"max-weight\"",
                    atoms.len(),
                ));
            }
            Ok(PolicySpec::MaxWeight {
                types: atoms.into_iter().map(|(s, _)| s).collect(),
            })
        }
        other => Err(cx.bad(
            &key("name"),
            &format!("one of {}", PolicySpec::NAMES.join(", ")),
            format!("\"{other}\""),
        )),
    }
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
