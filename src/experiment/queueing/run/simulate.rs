//! One run: the jobs of a (point, replication) through one policy, on the single-resource or
//! the multi-resource path, sampled or replayed.

use crate::experiment::ExperimentError;
use crate::experiment::queueing::{Experiment, Horizon, QueuePolicy, Workload};
use crate::model::Job;
use crate::multi::{
    Constrained, Discipline, Marked, ScalarAsVector, ScoredPolicy, Strict, VJob, VectorCluster,
    VectorJobSource, VectorSystem,
};
use crate::packing::numa::Numa;
use crate::packing::place::Scorer;
use crate::policy::{PolicySpec, run_spec};
use crate::rng::derive_seed;
use crate::sim::{self, Cluster, RunConfig, RunResult, Verdict, VerdictEvidence};
use crate::workload::replay::{TraceSource, TraceSpec, TraceSummary};
use crate::workload::trace::TraceError;
use crate::workload::{Arrivals, JobSource, Source};

/// One simulated run.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct RunRecord {
    /// The policy.
    pub(crate) policy: usize,
    /// The sweep point.
    pub(crate) point: usize,
    /// The replication.
    pub(crate) replication: u32,
    /// The run's seed (every random stream of the run derives from it).
    pub(crate) seed: u64,
    /// What the run measured.
    pub(crate) result: RunResult,
    /// Its verdict.
    pub(crate) verdict: Verdict,
    /// The numbers behind the verdict.
    pub(crate) evidence: VerdictEvidence,
    /// With `[constraints]` and `compare_unconstrained`: per job class, the jobs placed after
    /// warm-up and their mean wait (slots) in the same run with the constraints lifted (the
    /// same jobs on the same random streams).
    #[serde(default)]
    pub(crate) unconstrained: Option<Vec<(u64, f64)>>,
}

/// The seed of replication `rep` at sweep point `point` of `exp`: from the experiment seed, the
/// value written in the sweep and the replication, never from the policy.
pub(crate) fn run_seed(exp: &Experiment, point: usize, rep: u32) -> u64 {
    derive_seed(
        exp.header.seed,
        &[exp.points[point].key.to_bits(), rep as u64],
    )
}

/// Simulates one (policy, point, replication).
pub(crate) fn simulate(
    exp: &Experiment,
    policy: usize,
    point: usize,
    rep: u32,
) -> Result<RunRecord, ExperimentError> {
    let seed = run_seed(exp, point, rep);
    let once = |lifted: bool| match &exp.workload {
        Workload::Trace(t) => run_trace(exp, &t.0, &t.1, (policy, rep, lifted), point, seed),
        _ => run_at(
            exp,
            policy,
            exp.points[point].arrival_rate,
            seed,
            (rep, lifted),
        ),
    };
    let lifted = exp
        .constraints
        .as_ref()
        .is_some_and(|q| q.compare_unconstrained);
    if !lifted {
        return Ok(record((policy, point, rep), seed, once(false)?, None));
    }
    // the run and its twin without constraints, each half of the unit's progress
    let span = crate::progress::current();
    let half = |k: u64| span.as_ref().map(|s| s.part(k, 2));
    let result = crate::progress::within(half(0), || once(false))?;
    let free = crate::progress::within(half(1), || once(true))?;
    let waits = crate::multi::class_waits(&free);
    Ok(record((policy, point, rep), seed, result, Some(waits)))
}

/// The record of one run.
fn record(
    (policy, point, rep): (usize, usize, u32),
    seed: u64,
    result: RunResult,
    unconstrained: Option<Vec<(u64, f64)>>,
) -> RunRecord {
    RunRecord {
        policy,
        point,
        replication: rep,
        seed,
        verdict: result.verdict,
        evidence: result.evidence,
        result,
        unconstrained,
    }
}

/// The run configuration of a fixed horizon.
fn config(exp: &Experiment, slots: u64, warmup: u64, max_slots: u64) -> RunConfig {
    RunConfig {
        slots,
        warmup,
        queue_cap: exp.run.queue_cap,
        samples: exp.run.samples,
        check_every_slot: false,
        max_slots,
        mean_service: exp.workload.service().mean(),
        watch: crate::sim::Watch(crate::cancel::watch),
    }
}

/// One run of `policy` at arrival rate `rate` with run seed `seed` (sampled laws), as
/// replication `rep`; `lifted`: with the constraints of `[constraints]` lifted.
pub(in crate::experiment::queueing) fn run_at(
    exp: &Experiment,
    policy: usize,
    rate: f64,
    seed: u64,
    (rep, lifted): (u32, bool),
) -> Result<RunResult, ExperimentError> {
    let w = &exp.workload;
    let arrivals = Arrivals::new(w.arrivals(), rate).map_err(|e| ExperimentError::Invalid {
        file: exp.header.file.clone(),
        key: "sweep".into(),
        expected: e.to_string(),
        got: format!("arrival rate {rate}"),
    })?;
    let (slots, warmup, max_slots) = exp.run.slots().ok_or_else(|| ExperimentError::Invalid {
        file: exp.header.file.clone(),
        key: "run.slots".into(),
        expected: "the number of slots per run (sampled laws)".into(),
        got: "nothing".into(),
    })?;
    let cfg = config(exp, slots, warmup, max_slots);
    let source = JobSource::new(
        w.sizes().clone(),
        w.service().clone(),
        arrivals.clone(),
        seed,
    );
    Ok(match &exp.policies[policy] {
        QueuePolicy::Scored(s) => {
            let mut system =
                vector_system(exp, (policy, rep, lifted), s.discipline, s.scorer, seed);
            if w.requests().is_empty() {
                run_vector(
                    exp,
                    (policy, rep),
                    &mut system,
                    ScalarAsVector::new(source),
                    &cfg,
                    seed,
                )?
            } else {
                let mut v = VectorJobSource::new(
                    w.requests().to_vec(),
                    w.service().clone(),
                    arrivals,
                    seed,
                );
                if let Some(weights) = w.request_weights() {
                    v = v.weighted(weights);
                }
                run_vector(exp, (policy, rep), &mut system, v, &cfg, seed)?
            }
        }
        QueuePolicy::Single(spec) => {
            run_single(spec, &mut { source }, exp.servers, w.service().mean(), &cfg)?
        }
    })
}

/// A single-resource policy's run on `servers` empty servers (`mean_service` slots sizes the
/// departure calendar).
fn run_single<S: Source<Job> + 'static>(
    spec: &PolicySpec,
    source: &mut S,
    servers: usize,
    mean_service: f64,
    cfg: &RunConfig,
) -> Result<RunResult, sim::SimError> {
    let mut cluster = Cluster::new(servers, mean_service);
    run_spec(spec, source, &mut cluster, cfg)
}

/// The stream of a run seed the jobs' constraint classes are drawn from.
const CLASS_STREAM: u64 = 6;

/// Runs a multi-resource system on `source`; with `[numa]`, a share of the jobs marked strict
/// from a stream of the run seed (the same jobs for every policy); with `[constraints]`, every
/// job's constraint class drawn from another stream of the run seed (likewise).
fn run_vector<S: Source<VJob>>(
    exp: &Experiment,
    (policy, rep): (usize, u32),
    system: &mut VectorSystem,
    mut source: S,
    cfg: &RunConfig,
    seed: u64,
) -> Result<RunResult, sim::SimError> {
    match (&exp.numa, &exp.constraints) {
        (Some(n), _) => {
            let mut strict = Marked::new(source, Strict::new(n.strict, derive_seed(seed, &[5])));
            sim::run_system(system, &mut strict, cfg)
        }
        (None, Some(q)) => {
            let stream = derive_seed(seed, &[CLASS_STREAM]);
            let classes = q.world(policy, rep).classes.clone();
            let mut constrained = Marked::new(source, Constrained::new(classes, stream));
            sim::run_system(system, &mut constrained, cfg)
        }
        (None, None) => sim::run_system(system, &mut source, cfg),
    }
}

/// The multi-resource system of scored policy `policy`, with its NUMA layer under `[numa]`
/// and the constraints of `[constraints]` (lifted when `lifted`: every job still knows its
/// class). The random scorers draw from a stream of the run seed, like the jobs.
fn vector_system(
    exp: &Experiment,
    (policy, rep, lifted): (usize, u32, bool),
    discipline: Discipline,
    scorer: Scorer,
    seed: u64,
) -> VectorSystem {
    let mut cluster = VectorCluster::new(
        exp.servers,
        exp.workload.dims(),
        scorer,
        derive_seed(seed, &[4]),
        exp.workload.service().mean(),
    );
    if let Some(n) = &exp.numa {
        cluster = cluster.with_numa(&Numa {
            layout: n.layout.clone(),
            layer: n.layers[policy],
        });
    }
    if let Some(q) = &exp.constraints {
        let w = q.world(policy, rep);
        let table = if lifted { &w.lifted } else { &w.table };
        cluster = cluster.with_constraints(w.classes.kind.clone(), table.clone());
    }
    VectorSystem::new(cluster, ScoredPolicy::new(discipline))
}

/// Replays window `rep` of the trace at the scaling of sweep point `point` (`seed` drives the
/// random scorers only); `lifted` as for [`run_at`].
fn run_trace(
    exp: &Experiment,
    spec: &TraceSpec,
    summary: &TraceSummary,
    (policy, rep, lifted): (usize, u32, bool),
    point: usize,
    seed: u64,
) -> Result<RunResult, ExperimentError> {
    let c = exp.points[point].key;
    let windows = exp.run.replications;
    let (from, to) = summary.window(spec, rep, windows);
    let bad = |e: TraceError| ExperimentError::Invalid {
        file: exp.header.file.clone(),
        key: "workload.trace.file".into(),
        expected: "a readable trace (unchanged since validation)".into(),
        got: e.to_string(),
    };
    let mut source = TraceSource::open(spec, c, from, to).map_err(bad)?;
    let (slots, warmup) = match exp.run.horizon {
        Horizon::Slots { slots, warmup, .. } => (slots, warmup),
        Horizon::Window { warmup_fraction } => {
            let slots = summary.slots(spec, c, windows);
            let warmup = (slots as f64 * warmup_fraction) as u64;
            (slots, warmup.min(slots - 1))
        }
    };
    // a trace's window is what it is: no extension
    let cfg = config(exp, slots, warmup, slots);
    let result = match &exp.policies[policy] {
        QueuePolicy::Scored(s) => {
            let mut system =
                vector_system(exp, (policy, rep, lifted), s.discipline, s.scorer, seed);
            run_vector(exp, (policy, rep), &mut system, &mut source, &cfg, seed)?
        }
        QueuePolicy::Single(spec) => run_single(
            spec,
            &mut source,
            exp.servers,
            exp.workload.service().mean(),
            &cfg,
        )?,
    };
    if let Some(e) = source.error() {
        return Err(bad(e));
    }
    Ok(result)
}
