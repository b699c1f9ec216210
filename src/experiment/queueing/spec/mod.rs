//! The first stage of a queueing experiment: its file read into the raw tables of [`schema`],
//! each section validated by its own module (cluster, workload, horizon, sweep, policies,
//! plots, claims, compaction; NUMA nodes, placement constraints and region maps as features
//! beside them) into an [`Experiment`] whose laws are ready to sample. Nothing here runs a
//! simulation or plans one.

mod claims;
mod cluster;
mod compaction;
mod constraints;
mod delay;
mod horizon;
mod numa;
mod plots;
mod policies;
mod region_map;
mod schema;
mod sweep;
mod workload;

use std::path::Path;

pub(crate) use constraints::{CHARACTERISED_JOBS, MERGE_TOLERANCE, QueueConstraints};
pub(crate) use delay::{BY_SIZE, DelayQuantity, QUANTILES, Statistic};
pub(in crate::experiment::queueing) use horizon::DEFAULT_EXTENSION;
pub(crate) use numa::NumaRho;
pub(crate) use region_map::{MapBoundary, RegionMapSpec, Restriction, bottleneck, degrees, mix};
pub(in crate::experiment::queueing) use sweep::{BRACKET_INTERVALS, rate_per_load, rho_star_how};

use crate::experiment::ExperimentError;
use crate::experiment::common::{Ctx, Header, Shared, parse_toml};
use crate::packing::numa::{Layer, NumaLayout};
use crate::packing::place::JobOrder;
use crate::packing::snapshot::Resources;
use crate::policy::registry::Registry;
use crate::sim::{SizeClasses, Verdict};
use crate::workload::replay::{SizeMode, TraceSpec, TraceSummary};
use crate::workload::{ArrivalProcess, ClassMix, ServiceLaw, SizeLaw};
pub(crate) use claims::CLAIM_KINDS;
pub(crate) use plots::PLOT_KINDS;
pub(crate) use policies::QueuePolicy;

pub(crate) use crate::stability::search::SearchSpec;

/// Where jobs come from. Its laws and data are [`Shared`]: the plan's units hold them once
/// and are known by their fingerprints.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) enum Workload {
    /// Sizes, service times and arrival counts drawn from laws.
    Sampled {
        /// The law of a job's size (with classes, the work-weighted law of
        /// [`ClassMix::work_weighted`], which the loads and ρ* read).
        sizes: Shared<SizeLaw>,
        /// The law of a job's service time, slots (with classes, the classes' mixture).
        service: Shared<ServiceLaw>,
        /// How many jobs arrive per slot.
        arrivals: ArrivalProcess,
        /// The job classes of `workload.classes`, which the jobs are drawn from when given.
        #[serde(skip_serializing_if = "Option::is_none")]
        classes: Option<Shared<ClassMix>>,
    },
    /// Request vectors drawn from the tasks of a packing source; `sizes` is the law of the
    /// bottleneck resource (the one with the largest mean request), which the load counts.
    Requests {
        /// The request vectors jobs are drawn from, uniformly unless `weights` is given.
        requests: Shared<Vec<Resources>>,
        /// The probabilities of the request vectors (set along a region map's ray; the file's
        /// own request vectors are drawn uniformly).
        #[serde(skip_serializing_if = "Option::is_none")]
        weights: Option<Vec<f64>>,
        /// Resources per job (2 or 3).
        dims: usize,
        /// The law of the bottleneck resource's request.
        sizes: Shared<SizeLaw>,
        /// The law of a job's service time, slots.
        service: Shared<ServiceLaw>,
        /// How many jobs arrive per slot.
        arrivals: ArrivalProcess,
    },
    /// A replayed trace, with what its validation pass learned (its empirical laws).
    Trace(
        Shared<(TraceSpec, TraceSummary)>,
        Shared<SizeLaw>,
        Shared<ServiceLaw>,
    ),
}

impl Workload {
    /// The law of a job's size (the bottleneck resource for request vectors).
    pub(crate) fn sizes(&self) -> &SizeLaw {
        match self {
            Workload::Sampled { sizes, .. } | Workload::Requests { sizes, .. } => sizes,
            Workload::Trace(_, sizes, _) => sizes,
        }
    }

    /// The size classes a run's waits are kept by ([`SizeLaw::classes`] of [`Self::sizes`];
    /// with job classes, the job's class), and the resource whose request classes a job: the bottleneck's for request vectors (the
    /// one with the largest mean request, whose law `sizes` is), else the first.
    pub(crate) fn wait_classes(&self) -> (SizeClasses, usize) {
        let resource = match self {
            Workload::Requests { requests, dims, .. } => {
                let total: Vec<f64> = (0..*dims)
                    .map(|k| requests.iter().map(|r| r[k] as f64).sum())
                    .collect();
                (0..*dims).fold(0, |best, k| if total[k] > total[best] { k } else { best })
            }
            _ => 0,
        };
        if let Some(mix) = self.classes() {
            return (SizeClasses::by_kind(mix.largest_sizes()), 0);
        }
        (self.sizes().classes(), resource)
    }

    /// The job classes of `workload.classes`, if the file gives them.
    pub(crate) fn classes(&self) -> Option<&Shared<ClassMix>> {
        match self {
            Workload::Sampled { classes, .. } => classes.as_ref(),
            _ => None,
        }
    }

    /// The size law and the service law, shared (a unit holds them without a copy).
    pub(crate) fn shared_laws(&self) -> (Shared<SizeLaw>, Shared<ServiceLaw>) {
        match self {
            Workload::Sampled { sizes, service, .. }
            | Workload::Requests { sizes, service, .. }
            | Workload::Trace(_, sizes, service) => (sizes.clone(), service.clone()),
        }
    }

    /// [`Workload::wait_classes`], the classes shared.
    fn shared_wait_classes(&self) -> (Shared<SizeClasses>, usize) {
        let (classes, resource) = self.wait_classes();
        (Shared::new(classes), resource)
    }

    /// The law of a job's service time.
    pub(crate) fn service(&self) -> &ServiceLaw {
        match self {
            Workload::Sampled { service, .. } | Workload::Requests { service, .. } => service,
            Workload::Trace(_, _, service) => service,
        }
    }

    /// The arrival process (a trace brings its own arrivals: Poisson is never used then).
    pub(crate) fn arrivals(&self) -> ArrivalProcess {
        match self {
            Workload::Sampled { arrivals, .. } | Workload::Requests { arrivals, .. } => *arrivals,
            Workload::Trace(..) => ArrivalProcess::Poisson,
        }
    }

    /// Resources per job: 1, or 2–3 for request vectors.
    pub(crate) fn dims(&self) -> usize {
        match self {
            Workload::Sampled { .. } => 1,
            Workload::Requests { dims, .. } => *dims,
            Workload::Trace(t, ..) if t.0.size == SizeMode::Both => 2,
            Workload::Trace(..) => 1,
        }
    }

    /// The replayed trace, if any.
    pub(crate) fn trace(&self) -> Option<(&TraceSpec, &TraceSummary)> {
        match self {
            Workload::Trace(t, ..) => Some((&t.0, &t.1)),
            _ => None,
        }
    }
}

/// `workload.classes` goes with single-resource policies and no feature table but a region
/// map: the tables that reshape the jobs (NUMA nodes, placement constraints, a compaction's
/// packing) and the scored multi-resource path do not know job classes (a region map of two
/// classes is checked by its own validation).
/// The tables not modelled together: `[constraints]` with `[numa]` or `[compaction]`, and
/// `[numa]` with `[compaction]`.
fn tables_apart(
    cx: &Ctx<'_>,
    raw: &schema::RawExperiment,
    numa: bool,
    constraints: bool,
) -> Result<(), ExperimentError> {
    if constraints {
        for (table, present) in [("numa", numa), ("compaction", raw.compaction.is_some())] {
            if present {
                return Err(cx.bad(
                    table,
                    &format!("no [{table}] with [constraints] (not modelled together)"),
                    "both tables",
                ));
            }
        }
    }
    if numa && raw.compaction.is_some() {
        return Err(cx.bad(
            "compaction",
            "no [compaction] with [numa] (compaction packs servers without nodes)",
            "both tables",
        ));
    }
    Ok(())
}

fn classes_alone(
    cx: &Ctx<'_>,
    raw: &schema::RawExperiment,
    policies: &[QueuePolicy],
) -> Result<(), ExperimentError> {
    for (table, present) in [
        ("numa", raw.numa.is_some()),
        ("constraints", raw.constraints.is_some()),
        ("compaction", raw.compaction.is_some()),
    ] {
        if present {
            return Err(cx.bad(
                table,
                &format!("no [{table}] with `workload.classes` (not modelled together)"),
                "both",
            ));
        }
    }
    if let Some(i) = policies.iter().position(|p| p.single().is_none()) {
        return Err(cx.bad(
            &format!("policy[{i}].score"),
            "no placement score with `workload.classes` (the scored path does not keep job \
             classes)",
            "a score",
        ));
    }
    Ok(())
}

/// How long each run is.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) enum Horizon {
    /// `slots` per run, the first `warmup` discarded; an inconclusive run may go on up to
    /// `max_slots` (`slots`: no extension; without the key, 16 times `slots`).
    Slots {
        /// Slots per run.
        slots: u64,
        /// Slots discarded before averaging.
        warmup: u64,
        /// The longest a run may be extended to.
        max_slots: u64,
    },
    /// A trace replayed without `run.slots`: each run as long as its window, the first
    /// `warmup_fraction` of it discarded.
    Window {
        /// The share of each window discarded before averaging.
        warmup_fraction: f64,
    },
}

/// The `[run]` table, validated.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) struct RunSpec {
    /// How long each run is.
    pub(crate) horizon: Horizon,
    /// Runs per (policy, point), each on its own random streams.
    pub(crate) replications: u32,
    /// A run whose queue exceeds this many jobs stops and is reported unstable.
    pub(crate) queue_cap: u64,
    /// Points of the sampled queue-size series per run (about).
    pub(crate) samples: u64,
    /// With `probe_groups = g`: each point's replications in consecutive groups of g, each
    /// decided as a limit search's probe of one round is (`probe_groups.csv`).
    pub(crate) probe_groups: Option<u32>,
    /// `export_jobs = true`: each (point, replication)'s job stream is written to
    /// `jobs_p{point}_r{replication}.csv` in the trace CSV form, so that another simulator (or a
    /// replay) can be given the same jobs.
    pub(crate) export_jobs: bool,
}

impl RunSpec {
    /// (slots, warm-up, longest run) of a run with a fixed horizon.
    pub(crate) fn slots(&self) -> Option<(u64, u64, u64)> {
        match self.horizon {
            Horizon::Slots {
                slots,
                warmup,
                max_slots,
            } => Some((slots, warmup, max_slots)),
            Horizon::Window { .. } => None,
        }
    }
}

/// Which quantity the sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) enum SweepKind {
    /// Traffic intensity ρ = λ E\[R\] E\[S\] / L.
    Load,
    /// Arrival rate λ, jobs per slot.
    ArrivalRate,
    /// A fraction of the maximum supportable traffic intensity ρ*.
    Fraction,
    /// Traffic scaling c of a replayed trace (arrival times divided by c).
    Scaling,
}

/// One point of the sweep.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) struct Point {
    /// ρ = λ E\[R\] E\[S\] / L (for a trace, λ E\[R·S\] / L).
    pub(crate) load: f64,
    /// λ, jobs per slot.
    pub(crate) arrival_rate: f64,
    /// The value written in the sweep, whose bits seed the point.
    pub(crate) key: f64,
}

/// A figure to draw.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) enum PlotSpec {
    /// Mean queue against the sweep variable with 95 % CI bars, one curve per policy.
    MeanQueueVsLoad {
        /// Its title (a default naming the experiment when `None`).
        title: Option<String>,
        /// Its file name, without extension.
        file: String,
        /// A logarithmic queue axis.
        log_y: bool,
    },
    /// Each scored policy's stability limit (interval) against its compacted cluster size
    /// (needs `[compaction]`).
    LimitVsCompaction {
        /// Its title (a default when `None`).
        title: Option<String>,
        /// Its file name, without extension.
        file: String,
    },
    /// Q(t) against t at one sweep point and replication, one curve per policy (`log_y`
    /// unset: logarithmic when the curves' peaks are far apart).
    QueueVsTime {
        /// The sweep point.
        point: usize,
        /// The replication.
        replication: u32,
        /// Its title (a default when `None`).
        title: Option<String>,
        /// Its file name, without extension.
        file: String,
        /// A logarithmic queue axis (`None`: chosen from the curves).
        log_y: Option<bool>,
    },
    /// With `[constraints]`: normalised scheduling delay against u*_c at one sweep point, a
    /// point per constraint and a colour per policy (Sharma et al.'s Fig. 10).
    ConstraintDelay {
        /// The sweep point.
        point: usize,
        /// Its title (a default when `None`).
        title: Option<String>,
        /// Its file name, without extension.
        file: String,
        /// A logarithmic delay axis (`None`: chosen from the points, logarithmic when they
        /// span more than two decades).
        log_y: Option<bool>,
    },
    /// P(X > t) against t (log axes) per policy at one sweep point, X the waiting or the
    /// response time, over every job of every replication.
    WaitCcdf {
        /// The sweep point.
        point: usize,
        /// Waiting or response time.
        quantity: DelayQuantity,
        /// Its title (a default when `None`).
        title: Option<String>,
        /// Its file name, without extension.
        file: String,
    },
    /// A statistic of the waiting or response time against the sweep variable, a curve per
    /// policy with 95 % intervals (measured rows only).
    WaitQuantileVsLoad {
        /// The mean or a quantile.
        statistic: Statistic,
        /// Waiting or response time.
        quantity: DelayQuantity,
        /// Its title (a default when `None`).
        title: Option<String>,
        /// Its file name, without extension.
        file: String,
        /// A logarithmic delay axis (`None`: when the points span more than two decades).
        log_y: Option<bool>,
    },
    /// The mean and p99 of the waiting time against job size (by size class) per policy at
    /// one sweep point.
    WaitBySize {
        /// The sweep point.
        point: usize,
        /// Its title (a default when `None`).
        title: Option<String>,
        /// Its file name, without extension.
        file: String,
        /// A logarithmic delay axis (`None`: when the points span more than two decades).
        log_y: Option<bool>,
    },
}

impl PlotSpec {
    /// The figure's file name, without extension.
    pub(crate) fn file(&self) -> &str {
        match self {
            PlotSpec::MeanQueueVsLoad { file, .. }
            | PlotSpec::LimitVsCompaction { file, .. }
            | PlotSpec::QueueVsTime { file, .. }
            | PlotSpec::ConstraintDelay { file, .. }
            | PlotSpec::WaitCcdf { file, .. }
            | PlotSpec::WaitQuantileVsLoad { file, .. }
            | PlotSpec::WaitBySize { file, .. } => file,
        }
    }
}

/// A claim checked after the run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) enum ClaimSpec {
    /// `expect = "stable" | "unstable"` for a policy at a sweep point.
    Verdict {
        /// The policy (index into the policies).
        policy: usize,
        /// The sweep point.
        point: usize,
        /// The expected verdict.
        expect: Verdict,
    },
    /// The policy's stability limit, an interval [lower, upper] on the load found by noisy
    /// bisection (the run stage's limit search): `at_least` holds if lower ≥ that fraction of ρ*, `at_most` if
    /// upper was shown unstable and is ≤ that fraction of ρ*.
    Threshold {
        /// The policy.
        policy: usize,
        /// The lower end must be at least this fraction of ρ*.
        at_least: Option<f64>,
        /// The upper end must be shown unstable at most at this fraction of ρ*.
        at_most: Option<f64>,
        /// How the limit is searched.
        search: SearchSpec,
    },
    /// FIFO-FF's saturated throughput (a queue that never empties) agrees with the interval
    /// the limit search finds for it.
    Saturation {
        /// The FIFO policy.
        policy: usize,
        /// How its limit is searched.
        search: SearchSpec,
    },
    /// The policies' stability limits are in this order, lowest first, and separated: each
    /// policy's upper end was shown unstable at a load no higher than the next one's lower
    /// end, shown stable.
    LimitOrder {
        /// The policies, lowest limit first.
        order: Vec<usize>,
        /// How the limits are searched.
        search: SearchSpec,
    },
    /// At a sweep point, the policies' mean queues are in this order (smallest first), each
    /// pair with separated 95 % intervals, or with `paired`, each pair's per-replication
    /// differences with a 95 % interval below 0. One window of a replayed trace is compared
    /// exactly.
    Ranking {
        /// The policies, smallest mean queue first.
        order: Vec<usize>,
        /// The sweep point.
        point: usize,
        /// Compare per-replication differences rather than intervals.
        paired: bool,
    },
    /// A statistic of a policy's waiting or response time at a sweep point against a value
    /// (its 95 % interval at most `at_most`, at least `at_least`), or below another policy's
    /// (the per-replication differences, on common random numbers, with a 95 % interval below
    /// 0). Checked only where the rows are measurements (every run judged stable).
    Wait {
        /// The policy.
        policy: usize,
        /// The sweep point.
        point: usize,
        /// The mean or a quantile.
        statistic: Statistic,
        /// Waiting or response time.
        quantity: DelayQuantity,
        /// The interval's upper end must be at most this many slots.
        at_most: Option<f64>,
        /// The interval's lower end must be at least this many slots.
        at_least: Option<f64>,
        /// The statistic must be below this policy's, paired by replication.
        below: Option<usize>,
    },
    /// With `[constraints]`: at a sweep point, the policy's normalised scheduling delay per
    /// constraint grows with the constraint's Utilization Multiplier u*_c: Kendall's τ_b over
    /// the constraints some job requested is at least `at_least`.
    DelayTrend {
        /// The policy.
        policy: usize,
        /// The sweep point.
        point: usize,
        /// The least Kendall's τ_b.
        at_least: f64,
        /// Of Sharma et al.'s normalised delay (else of ours, over all jobs' delay).
        paper: bool,
    },
    /// `kind = "synthesis-error"` (with `[constraints] resynthesise`): over the synthesis
    /// validation's rows, the mean absolute relative error of the mean wait is at most
    /// `at_most`, and every re-synthesised cluster carried the load its ground truth carried.
    SynthesisError {
        /// The largest mean absolute relative error allowed.
        at_most: f64,
    },
    /// With `[region_map]`: along each listed ray (all if empty), the policy's limit is at
    /// least `at_least` of the capacity boundary (its lower end, shown stable) and/or at most
    /// `at_most` of it (its upper end, shown unstable).
    RegionFraction {
        /// The policy.
        policy: usize,
        /// The lower end must be at least this fraction of the capacity along every ray.
        at_least: Option<f64>,
        /// The upper end must be shown unstable at most at this fraction along every ray.
        at_most: Option<f64>,
        /// The rays (indices into the map's), all if empty.
        rays: Vec<usize>,
    },
    /// With `[region_map]`: along each listed ray (all if empty), the policy's limit is the
    /// map's exact `boundary`: the boundary lies inside the policy's interval.
    RegionBoundary {
        /// The policy.
        policy: usize,
        /// The boundary expected.
        boundary: MapBoundary,
        /// The rays (indices into the map's), all if empty.
        rays: Vec<usize>,
    },
    /// With `[region_map]`: along each listed ray (all if empty), the first policy's limit is
    /// below the second's and separated: its upper end shown unstable at a load no higher than
    /// the second's lower end, shown stable.
    RegionSeparated {
        /// The policies, lower limit first.
        order: [usize; 2],
        /// The rays (indices into the map's), all if empty.
        rays: Vec<usize>,
    },
}

/// `[compaction]`, validated: pack `tasks` jobs drawn from the workload onto unit servers with
/// each scored policy's scorer (cluster compaction, Verma et al.'s Algorithm 3), and find each
/// scored policy's stability limit as an interval on the load in [0, 1] (the run stage's
/// limit search).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) struct CompactionSpec {
    /// Jobs drawn from the workload to pack.
    pub(crate) tasks: usize,
    /// Compaction trials.
    pub(crate) trials: usize,
    /// The share of tasks that may be left pending (Verma et al.'s τ).
    pub(crate) tau: f64,
    /// The order in which jobs are placed.
    pub(crate) order: JobOrder,
    /// How each scored policy's limit is searched.
    pub(crate) limit: SearchSpec,
}

/// `[numa]`, validated: every server has NUMA nodes laid out by `layout`; a share `strict` of
/// the jobs must run inside one node; policy i schedules with awareness `layers[i]`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) struct QueueNuma {
    /// How a server's resources are split into nodes.
    pub(crate) layout: NumaLayout,
    /// The share of jobs that must run inside one node.
    pub(crate) strict: f64,
    /// Per policy, its layer of NUMA awareness.
    pub(crate) layers: Vec<Layer>,
    /// ρ* for all-strict, the file's share and no strict jobs (finitely many sizes of one
    /// resource only).
    pub(crate) rho: Option<NumaRho>,
}

/// A validated queueing experiment.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Experiment {
    /// Name, description, seed and file.
    pub header: Header,
    /// L, servers of capacity 1 (per resource).
    pub servers: usize,
    /// Where jobs come from.
    pub workload: Workload,
    /// The `[run]` table.
    pub run: RunSpec,
    /// Which quantity the sweep varies.
    pub sweep: SweepKind,
    /// The sweep's points.
    pub points: Vec<Point>,
    /// The policies, in file order (with a re-synthesis, their copies on the re-synthesised cluster
    /// after them).
    pub policies: Vec<QueuePolicy>,
    /// One label per policy (its name unless the file gives `label`), used in every output.
    pub labels: Vec<String>,
    /// Per policy, its colour in figures when its label names a policy of the registry the file
    /// was read with (else the next colour of the palette).
    #[serde(skip)]
    pub colours: Vec<Option<(u8, u8, u8)>>,
    /// The figures to draw.
    pub plots: Vec<PlotSpec>,
    /// The claims to check.
    pub claims: Vec<ClaimSpec>,
    /// ρ* as a traffic intensity, (low, high): 1 for a perfect packing, exact for finitely many
    /// sizes, else Theorem 1's bracket on [`Experiment::rho_star_intervals`] equal intervals
    /// (with NUMA nodes or placement constraints, their linear programme's). Computed when the
    /// sweep or a claim needs it.
    pub rho_star: Option<(f64, f64)>,
    /// `workload.rho_star_intervals`: the equal intervals of Theorem 1's bracket when ρ* is
    /// bracketed (`None`: the default, 512).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rho_star_intervals: Option<usize>,
    /// The packing side of a stability-versus-packing study.
    pub compaction: Option<CompactionSpec>,
    /// Servers with NUMA nodes.
    pub numa: Option<QueueNuma>,
    /// Servers with attributes and jobs with placement constraints.
    pub constraints: Option<QueueConstraints>,
    /// The stability region mapped in the plane of two job types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_map: Option<RegionMapSpec>,
    /// The size classes a sweep run's waits are kept by, and the resource that classes a job
    /// ([`Workload::wait_classes`]; derived from the workload, so not part of the fingerprint).
    #[serde(skip)]
    pub(crate) wait_classes: (Shared<SizeClasses>, usize),
}

impl Experiment {
    /// Sweep point `point` in the sweep's own unit: "load 0.9", "λ = 0.3", "0.98 of ρ* (load
    /// 0.9800)", "c = 2".
    pub(crate) fn point_words(&self, point: usize) -> String {
        let p = self.points[point];
        match self.sweep {
            SweepKind::Load => format!("load {}", p.load),
            SweepKind::ArrivalRate => format!("λ = {}", p.arrival_rate),
            SweepKind::Fraction => format!("{} of ρ* (load {:.4})", p.key, p.load),
            SweepKind::Scaling => format!("c = {}", p.key),
        }
    }

    /// Sweep point `point` as claims name it (ASCII): "load 0.9", "arrival rate 0.3", "0.98 of
    /// rho* (load 0.9800)", "traffic scaling 2 (load 0.9500)".
    pub(crate) fn claim_point_words(&self, point: usize) -> String {
        let p = self.points[point];
        match self.sweep {
            SweepKind::Load => format!("load {}", p.load),
            SweepKind::ArrivalRate => format!("arrival rate {}", p.arrival_rate),
            SweepKind::Fraction => format!("{} of rho* (load {:.4})", p.key, p.load),
            SweepKind::Scaling => format!("traffic scaling {} (load {:.4})", p.key, p.load),
        }
    }

    /// Validates experiment text; `file` names it in errors and anchors relative paths. (The
    /// run stage then admits its plan: [`Experiment::parse`].)
    pub(in crate::experiment::queueing) fn validate(
        file: &Path,
        source: &str,
        policies: &Registry,
    ) -> Result<Experiment, ExperimentError> {
        let raw: schema::RawExperiment = parse_toml(file, source)?;
        let cx = Ctx::with_policies(file, policies);
        let header = Header::new(
            &cx,
            source,
            raw.name.clone(),
            raw.description.clone(),
            raw.seed,
        )?;
        if let Some(k) = &raw.kind
            && k != "queueing"
        {
            return Err(cx.bad("kind", "\"queueing\", \"region\" or \"packing\"", k));
        }
        let servers = cluster::servers(&cx, &raw.cluster)?;
        let workload = workload::workload(&cx, &raw.workload)?;
        let run = horizon::run_spec(&cx, &raw.run, workload.trace().is_some())?;
        let mut numa = numa::setup(&cx, raw.numa.as_ref(), &workload)?;
        let mut constraints = constraints::setup(
            &cx,
            raw.constraints.as_ref(),
            servers,
            &workload,
            header.seed,
            run.replications,
        )?;
        let rho = sweep::rho_star(&cx, &raw, &workload, numa.as_ref(), constraints.as_ref())?;
        let (sweep, points) = match &raw.sweep {
            Some(s) => sweep::points(&cx, s, &workload, servers, rho.value)?,
            // a file that only maps a region needs no sweep
            None if raw.region_map.is_some() => (SweepKind::Load, Vec::new()),
            None => {
                return Err(cx.bad(
                    "sweep",
                    "a [sweep] table (loads, arrival rates or fractions of ρ* to run at)",
                    "none",
                ));
            }
        };
        let at = sweep::Finder {
            cx: &cx,
            sweep,
            points: &points,
        };
        let (mut policies, mut labels) = policies::policies(&cx, &raw.policy, &workload, servers)?;
        numa::layers(&cx, &raw.policy, &policies, &mut numa)?;
        if let Some(q) = &mut constraints {
            constraints::policies(&cx, &raw.policy, &policies)?;
            constraints::resynthesised_copies(&cx, q, &mut policies, &mut labels)?;
        }
        tables_apart(&cx, &raw, numa.is_some(), constraints.is_some())?;
        if run.export_jobs
            && (matches!(workload, Workload::Requests { .. }) || constraints.is_some())
        {
            return Err(cx.bad(
                "run.export_jobs",
                "false with request vectors or [constraints] (a job is exported as one size)",
                true,
            ));
        }
        let region_map = region_map::region_map(
            &cx,
            raw.region_map.as_ref(),
            &workload,
            &labels,
            servers,
            Restriction::of(numa.as_ref(), constraints.as_ref()),
        )?;
        if region_map.is_some() && raw.compaction.is_some() {
            return Err(cx.bad(
                "compaction",
                "no [compaction] with [region_map] (a map's limits are of the file's servers, \
                 not of a compacted cluster)",
                "both tables",
            ));
        }
        if workload.classes().is_some() {
            classes_alone(&cx, &raw, &policies)?;
        }
        let plots = plots::plots(&at, &raw, run.replications)?;
        let claims = claims::claims(
            &raw.claim,
            &at,
            &policies,
            &labels,
            &workload,
            region_map.as_ref(),
        )?;
        let compaction =
            compaction::compaction(&cx, raw.compaction.as_ref(), &policies, &workload)?;
        let exp = Experiment {
            header: Header {
                inputs: cx.inputs(),
                ..header
            },
            servers,
            wait_classes: workload.shared_wait_classes(),
            workload,
            run,
            sweep,
            points,
            policies,
            colours: labels.iter().map(|l| cx.policies().colour(l)).collect(),
            labels,
            plots,
            claims,
            rho_star: rho.value,
            rho_star_intervals: rho.intervals,
            compaction,
            numa,
            constraints,
            region_map,
        };
        claims::passable(&cx, &exp)?;
        Ok(exp)
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        &self.header.name
    }

    /// Arrival rate per unit of traffic intensity: λ = ρ · L / (E\[R\] E\[S\]).
    pub fn rate_per_load(&self) -> f64 {
        sweep::rate_per_load(self.servers, self.workload.sizes(), self.workload.service())
    }

    /// The shortened version for smoke tests: about 1/100 of the slots and replications, at
    /// least one of each; same outputs and columns. A replayed trace keeps its horizon but
    /// every 100th job, on 1/100 of the servers (at least one), so that its load and bursts,
    /// hence its queueing, stay.
    pub fn quick(&mut self) {
        if let Workload::Trace(t, ..) = &mut self.workload {
            let thin = self.servers.min(100);
            *t = t.edited(|t| t.0.thin = thin as u32);
            self.servers = self.servers.div_ceil(thin);
        }
        let r = &mut self.run;
        match &mut r.horizon {
            Horizon::Window { .. } => {}
            Horizon::Slots { .. } if matches!(self.workload, Workload::Trace(..)) => {}
            Horizon::Slots {
                slots,
                warmup,
                max_slots,
            } => {
                *slots = (*slots / 100).max(1);
                *warmup = (*warmup / 100).min(*slots - 1);
                *max_slots = (*max_slots / 100).max(*slots);
            }
        }
        r.replications = (r.replications / 100).max(1);
        r.probe_groups = r.probe_groups.map(|g| g.min(r.replications));
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
