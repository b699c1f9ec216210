//! The first stage of a packing experiment: its file into a [`PackingExperiment`] (the
//! snapshot and its source, the schedulers, the evaluators, NUMA nodes and placement
//! constraints, plots and claims).

mod schema;

use std::path::Path;

use crate::experiment::ExperimentError;
use crate::experiment::common::{Ctx, Header, characterisation, node_shares, parse_toml};
use crate::limits::{MAX_TASKS, MAX_TRIALS};
use crate::packing::constrain::{SynthesisTally, synthesise};
use crate::packing::numa::{Layer, Numa, NumaLayout};
use crate::packing::place::{JobOrder, Scorer};
use crate::packing::snapshot::Snapshot;
use crate::packing::snapshot::amount;
use crate::packing::sources::{
    read_alibaba_gpu, read_google_snapshot, read_orlib, read_snapshot_csv, read_triplet,
};
use crate::rng::Stream;
use schema::{Raw, RawClaim, RawEvaluate, RawNuma, RawScheduler, RawSnapshot};

/// A validated packing experiment.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct PackingExperiment {
    /// Name, description, seed and file.
    pub(crate) header: Header,
    /// The machines and tasks.
    pub(crate) snapshot: Snapshot,
    /// The snapshot in words, for outputs.
    pub(crate) snapshot_label: String,
    /// The schedulers, in file order.
    pub(crate) schedulers: Vec<SchedulerSpec>,
    /// Which evaluators run, with what parameters.
    pub(crate) evaluate: Evaluate,
    /// The claims to check.
    pub(crate) claims: Vec<PackingClaim>,
    /// What the synthesis of `[constraints]` did, if the file has one.
    pub(crate) synthesis: Option<SynthesisTally>,
}

/// A `[[scheduler]]`, validated.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct SchedulerSpec {
    /// Its name in outputs (it also seeds its random choices).
    pub(crate) label: String,
    /// The order in which jobs are placed.
    pub(crate) order: JobOrder,
    /// How a machine is chosen for a task.
    pub(crate) scorer: Scorer,
    /// NUMA nodes and the layer of awareness, when the scheduler has a `numa` layer.
    pub(crate) numa: Option<Numa>,
}

/// A claim of a packing file: scheduler indices expected in increasing order of a measure.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) enum PackingClaim {
    /// Compacted size (90th percentile) at τ.
    Compaction {
        /// The schedulers, smallest first.
        order: Vec<usize>,
        /// The pending fraction τ.
        tau: f64,
    },
    /// Mean NUMA-fit fraction of the tasks at the end of expansion.
    NumaFit {
        /// The schedulers, smallest first.
        order: Vec<usize>,
    },
    /// Mean final machine count of expansion.
    Expansion {
        /// The schedulers, smallest first.
        order: Vec<usize>,
    },
}

/// `[evaluate]`, validated: which evaluators run, with what parameters.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Evaluate {
    /// Hole filling's unit sizes, fractions of the median machine.
    pub(crate) hole_units: Vec<f64>,
    /// Inflation's factors f ≥ 1 (Verma et al.'s Algorithm 1).
    pub(crate) factors: Vec<f64>,
    /// Monte-Carlo inflation's pending fraction (Algorithm 2), if it runs.
    pub(crate) mc_tau: Option<f64>,
    /// Compaction's pending fractions τ (Algorithm 3).
    pub(crate) compaction_tau: Vec<f64>,
    /// Trials of the randomised evaluators.
    pub(crate) trials: usize,
    /// Expansion's pending fraction τ (Wu et al.), if it runs.
    pub(crate) expansion_tau: Option<f64>,
    /// The machine fractions x of Stein et al.'s throughput T(x).
    pub(crate) throughput_x: Vec<f64>,
    /// The thresholds x below which a machine counts as full.
    pub(crate) fragmentation_x: Vec<f64>,
    /// Idle power as a fraction of peak.
    pub(crate) power_idle: f64,
    /// The picky threshold of Verma et al.
    pub(crate) picky: f64,
    /// Vertical inflation clips a task at the largest machine.
    pub(crate) clip: bool,
    /// Compaction's error bound μ, machines.
    pub(crate) mu: usize,
    /// The fraction of machines expansion starts from.
    pub(crate) expansion_start: f64,
}

fn fractions(cx: &Ctx<'_>, key: &str, v: &[f64], max: f64) -> Result<(), ExperimentError> {
    match v
        .iter()
        .find(|x| !(x.is_finite() && **x >= 0.0 && **x <= max))
    {
        Some(x) => Err(cx.bad(key, &format!("values in [0, {max}]"), x)),
        None => Ok(()),
    }
}

impl PackingExperiment {
    /// Validates a packing experiment and reads its snapshot.
    pub(crate) fn parse(file: &Path, source: &str) -> Result<Self, ExperimentError> {
        let raw: Raw = parse_toml(file, source)?;
        let cx = Ctx::new(file);
        let header = Header::new(&cx, source, raw.name, raw.description, raw.seed)?;
        let (mut snapshot, snapshot_label) = snapshot(&cx, &raw.snapshot)?;
        let mut synthesis = None;
        if let Some(rc) = &raw.constraints {
            for (key, set) in [
                ("resynthesise", rc.resynthesise.is_some()),
                ("quota", rc.quota.is_some()),
                ("compare_unconstrained", rc.compare_unconstrained.is_some()),
            ] {
                if set {
                    return Err(cx.bad(
                        &format!("constraints.{key}"),
                        "nothing in a packing file (the synthesis validation and the runs without constraints are for queueing files)",
                        "a value",
                    ));
                }
            }
            let ch = characterisation(&cx, rc)?;
            let seed = Stream::Servers.seed(header.seed);
            let (s, tally) = synthesise(&snapshot, &ch, seed).map_err(|e| {
                cx.bad(
                    "constraints.tasks",
                    "a characterisation whose tasks the machines can run",
                    e,
                )
            })?;
            snapshot = s;
            synthesis = Some(tally);
        }
        if snapshot.machines.is_empty() {
            return Err(cx.bad(
                "snapshot.file",
                "a snapshot with at least one machine",
                "none (a packing needs machines to pack onto)",
            ));
        }
        if snapshot.tasks.is_empty() {
            return Err(cx.bad("snapshot.file", "a snapshot with at least one task", "none"));
        }
        let layout = numa_layout(&cx, raw.numa.as_ref(), &snapshot)?;
        let schedulers = schedulers(&cx, &raw.scheduler, layout.as_ref())?;
        if raw.numa.is_some() && schedulers.iter().all(|s| s.numa.is_none()) {
            return Err(cx.bad(
                "numa",
                "a [numa] table only with a scheduler that has a numa layer",
                "no scheduler with `numa = ...`",
            ));
        }
        let evaluate = evaluate(&cx, raw.evaluate, snapshot.tasks.len())?;
        let claims = claims(&cx, &raw.claim, &schedulers, &evaluate)?;
        Ok(PackingExperiment {
            header: Header {
                inputs: cx.inputs(),
                ..header
            },
            snapshot,
            snapshot_label,
            schedulers,
            evaluate,
            claims,
            synthesis,
        })
    }

    /// About 1/100 of the trials (at least one), and the first two inflation factors.
    pub(crate) fn quick(&mut self) {
        self.evaluate.trials = (self.evaluate.trials / 100).max(1);
        self.evaluate.factors.truncate(2);
    }
}

/// `[snapshot]`: the snapshot read from its source, and a label for reports.
fn snapshot(cx: &Ctx<'_>, s: &RawSnapshot) -> Result<(Snapshot, String), ExperimentError> {
    let path = cx.path(&s.file);
    let read_err =
        |e: crate::packing::sources::SourceError| cx.bad("snapshot.file", "a readable snapshot", e);
    Ok(match s.source.as_str() {
        "google2011" => (
            read_google_snapshot(&path).map_err(read_err)?,
            "Google 2011".into(),
        ),
        "orlib" => {
            let all = read_orlib(&path).map_err(read_err)?;
            let k = s.instance.unwrap_or(0);
            let inst = all.get(k).ok_or_else(|| {
                cx.bad(
                    "snapshot.instance",
                    &format!("an index below {}", all.len()),
                    k,
                )
            })?;
            (inst.snapshot(), inst.name.clone())
        }
        "triplet" => {
            let inst = read_triplet(&path).map_err(read_err)?;
            (inst.snapshot(), inst.name.clone())
        }
        "alibaba_gpu2023" => {
            let nodes = s.nodes.as_ref().ok_or_else(|| {
                cx.bad(
                    "snapshot.nodes",
                    "the node list file of the trace",
                    "nothing",
                )
            })?;
            (
                read_alibaba_gpu(&path, &cx.path(nodes)).map_err(read_err)?,
                "Alibaba GPU 2023".into(),
            )
        }
        "csv" => {
            let snap = read_snapshot_csv(&path).map_err(read_err)?;
            let label = format!("Snapshot of {} machines", snap.machines.len());
            (snap, label)
        }
        other => {
            return Err(cx.bad(
                "snapshot.source",
                "\"google2011\", \"alibaba_gpu2023\", \"orlib\", \"triplet\" or \"csv\"",
                format!("\"{other}\""),
            ));
        }
    })
}

/// `[[scheduler]]`: job order, scorer, a distinct label each, and a NUMA layer or none.
fn schedulers(
    cx: &Ctx<'_>,
    raw: &[RawScheduler],
    layout: Option<&NumaLayout>,
) -> Result<Vec<SchedulerSpec>, ExperimentError> {
    if raw.is_empty() {
        return Err(cx.bad("scheduler", "at least one [[scheduler]]", "none"));
    }
    let mut schedulers: Vec<SchedulerSpec> = Vec::new();
    for (i, s) in raw.iter().enumerate() {
        let order = JobOrder::from_name(&s.order).ok_or_else(|| {
            cx.bad(
                &format!("scheduler[{i}].order"),
                "\"arrival\", \"cpu\", \"memory\" or \"sum\"",
                format!("\"{}\"", s.order),
            )
        })?;
        let scorer = Scorer::from_name(&s.scorer).ok_or_else(|| {
            cx.bad(
                &format!("scheduler[{i}].scorer"),
                &format!("one of {}", Scorer::NAMES.join(", ")),
                format!("\"{}\"", s.scorer),
            )
        })?;
        let numa = match &s.numa {
            None => None,
            Some(name) => {
                let layer = Layer::from_name(name).ok_or_else(|| {
                    cx.bad(
                        &format!("scheduler[{i}].numa"),
                        "\"default\", \"machine\" or \"machine+cluster\"",
                        format!("\"{name}\""),
                    )
                })?;
                Some(Numa {
                    layout: layout.cloned().unwrap_or_else(|| NumaLayout::equal(2)),
                    layer,
                })
            }
        };
        let label = s.label.clone().unwrap_or_else(|| match &s.numa {
            None => format!("{}-{}", s.scorer, s.order),
            Some(l) => format!("{}-{}-{l}", s.scorer, s.order),
        });
        if schedulers.iter().any(|x| x.label == label) {
            return Err(cx.bad(&format!("scheduler[{i}].label"), "distinct labels", label));
        }
        schedulers.push(SchedulerSpec {
            label,
            order,
            scorer,
            numa,
        });
    }
    Ok(schedulers)
}

/// `[numa]`: the node layout (two equal nodes unless told).
fn numa_layout(
    cx: &Ctx<'_>,
    raw: Option<&RawNuma>,
    snap: &Snapshot,
) -> Result<Option<NumaLayout>, ExperimentError> {
    let Some(raw) = raw else { return Ok(None) };
    let shares =
        node_shares(cx, "numa", raw.nodes, raw.shares.as_ref())?.unwrap_or_else(|| vec![0.5, 0.5]);
    let mut types = Vec::new();
    for (i, m) in raw.machine.iter().enumerate() {
        let key = format!("numa.machine[{i}]");
        let cap = match (amount(m.cpu), amount(m.memory)) {
            (Some(c), Some(r)) => [c, r],
            _ => {
                return Err(cx.bad(
                    &format!("{key}.cpu"),
                    "CPU and memory capacities ≥ 0 (fractions of the largest machine)",
                    format!("{}, {}", m.cpu, m.memory),
                ));
            }
        };
        if !snap.machines.iter().any(|c| c[..2] == cap) {
            return Err(cx.bad(
                &key,
                "the CPU and memory capacity of a machine of the snapshot",
                format!("cpu = {}, memory = {} (no such machine)", m.cpu, m.memory),
            ));
        }
        let s = node_shares(cx, &key, m.nodes, m.shares.as_ref())?
            .ok_or_else(|| cx.bad(&format!("{key}.nodes"), "nodes or shares", "neither"))?;
        if types.iter().any(|(c, _)| *c == cap) {
            return Err(cx.bad(&key, "one entry per machine type", "a repeated type"));
        }
        types.push((cap, s));
    }
    Ok(Some(NumaLayout { shares, types }))
}

/// `[evaluate]`.
fn evaluate(cx: &Ctx<'_>, e: RawEvaluate, tasks: usize) -> Result<Evaluate, ExperimentError> {
    let hole_units = e.hole_filling.unwrap_or_default();
    for (k, v) in [
        ("evaluate.hole_filling", &hole_units),
        (
            "evaluate.inflation",
            e.inflation.as_ref().unwrap_or(&Vec::new()),
        ),
        (
            "evaluate.compaction_tau",
            e.compaction_tau.as_ref().unwrap_or(&Vec::new()),
        ),
        (
            "evaluate.throughput",
            e.throughput.as_ref().unwrap_or(&Vec::new()),
        ),
        (
            "evaluate.fragmentation",
            e.fragmentation.as_ref().unwrap_or(&Vec::new()),
        ),
    ] {
        cx.short_list(k, v)?;
    }
    fractions(cx, "evaluate.hole_filling", &hole_units, 10.0)?;
    if hole_units.contains(&0.0) {
        return Err(cx.bad("evaluate.hole_filling", "unit sizes > 0", 0.0));
    }
    let factors = e.inflation.unwrap_or_default();
    if let Some(f) = factors
        .iter()
        .find(|f| !(f.is_finite() && **f >= 1.0 && **f <= 100.0))
    {
        return Err(cx.bad("evaluate.inflation", "factors in [1, 100]", f));
    }
    // horizontal inflation multiplies the tasks
    let most = factors.iter().copied().fold(1.0, f64::max);
    if tasks as f64 * most > MAX_TASKS as f64 {
        return Err(cx.bad(
            "evaluate.inflation",
            &format!("factors that keep the inflated workload within {MAX_TASKS} tasks ({tasks} tasks now)"),
            most,
        ));
    }
    let compaction_tau = e.compaction_tau.unwrap_or_default();
    fractions(cx, "evaluate.compaction_tau", &compaction_tau, 1.0)?;
    let throughput_x = e.throughput.unwrap_or_default();
    fractions(cx, "evaluate.throughput", &throughput_x, 1.0)?;
    let fragmentation_x = e.fragmentation.unwrap_or_default();
    fractions(cx, "evaluate.fragmentation", &fragmentation_x, 1.0)?;
    // Monte-Carlo inflation stops when this fraction pends (and after 1000 times the tasks at
    // most); expansion adds a fraction τ of the machines at a time
    for (k, v, max) in [
        ("evaluate.monte_carlo_tau", e.monte_carlo_tau, 0.5),
        ("evaluate.expansion_tau", e.expansion_tau, 1.0),
    ] {
        if let Some(t) = v {
            fractions(cx, k, &[t], max)?;
        }
    }
    let trials = match e.trials {
        None => 11,
        Some(t) => {
            let t = cx.positive("evaluate.trials", t)?;
            cx.at_most("evaluate.trials", t, MAX_TRIALS, "trials")? as usize
        }
    };
    let power_idle = e.power_idle.unwrap_or(0.5);
    fractions(cx, "evaluate.power_idle", &[power_idle], 1.0)?;
    let picky = e.picky.unwrap_or(crate::packing::evaluate::PICKY);
    fractions(cx, "evaluate.picky", &[picky], 1.0)?;
    let mu = match e.mu {
        None => 1,
        Some(m) => cx.positive("evaluate.mu", m)? as usize,
    };
    let expansion_start = e.expansion_start.unwrap_or(0.2);
    if !(expansion_start > 0.0 && expansion_start <= 1.0) {
        return Err(cx.bad(
            "evaluate.expansion_start",
            "a fraction in (0, 1]",
            expansion_start,
        ));
    }
    Ok(Evaluate {
        hole_units,
        factors,
        mc_tau: e.monte_carlo_tau,
        compaction_tau,
        trials,
        expansion_tau: e.expansion_tau,
        throughput_x,
        fragmentation_x,
        power_idle,
        picky,
        clip: e.clip.unwrap_or(true),
        mu,
        expansion_start,
    })
}

/// `[[claim]]`: `kind = "compaction-order"` (with `tau`, one of `evaluate.compaction_tau`),
/// `"numa-fit-order"` or `"expansion-order"` (both need `evaluate.expansion_tau`, the first
/// NUMA layers on the schedulers it names).
fn claims(
    cx: &Ctx<'_>,
    raw: &[RawClaim],
    schedulers: &[SchedulerSpec],
    evaluate: &Evaluate,
) -> Result<Vec<PackingClaim>, ExperimentError> {
    let mut claims = Vec::new();
    for (i, c) in raw.iter().enumerate() {
        let order = c
            .order
            .iter()
            .map(|l| {
                schedulers
                    .iter()
                    .position(|x| x.label == *l)
                    .ok_or_else(|| cx.bad(&format!("claim[{i}].order"), "scheduler labels", l))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if order.len() < 2 {
            return Err(cx.bad(
                &format!("claim[{i}].order"),
                "at least two scheduler labels",
                order.len(),
            ));
        }
        let no_tau = |what: &str| match c.tau {
            Some(t) => Err(cx.bad(
                &format!("claim[{i}].tau"),
                &format!("no tau for a {what} claim"),
                t,
            )),
            None => Ok(()),
        };
        let needs_expansion = || match evaluate.expansion_tau {
            Some(_) => Ok(()),
            None => Err(cx.bad(
                "evaluate.expansion_tau",
                &format!("an expansion τ for claim[{i}]"),
                "none",
            )),
        };
        claims.push(match c.kind.as_str() {
            "compaction-order" => {
                let tau = c.tau.unwrap_or(f64::NAN);
                if !evaluate.compaction_tau.contains(&tau) {
                    return Err(cx.bad(
                        &format!("claim[{i}].tau"),
                        "a value listed in evaluate.compaction_tau",
                        tau,
                    ));
                }
                PackingClaim::Compaction { order, tau }
            }
            "numa-fit-order" => {
                no_tau("numa-fit-order")?;
                needs_expansion()?;
                if let Some(&s) = order.iter().find(|&&s| schedulers[s].numa.is_none()) {
                    return Err(cx.bad(
                        &format!("claim[{i}].order"),
                        "schedulers with a numa layer",
                        &schedulers[s].label,
                    ));
                }
                PackingClaim::NumaFit { order }
            }
            "expansion-order" => {
                no_tau("expansion-order")?;
                needs_expansion()?;
                PackingClaim::Expansion { order }
            }
            other => {
                return Err(cx.bad(
                    &format!("claim[{i}].kind"),
                    "\"compaction-order\", \"numa-fit-order\" or \"expansion-order\"",
                    format!("\"{other}\""),
                ));
            }
        });
    }
    Ok(claims)
}
