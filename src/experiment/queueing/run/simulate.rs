//! One run: a [`Scenario`] through the slot loop, on the single-resource or the multi-resource
//! path, sampled or replayed ([`run_scenario`], the one run function); and the record of a
//! sweep point's replication built on it.

use std::path::Path;

use crate::experiment::ExperimentError;
use crate::experiment::queueing::plan::{At, Jobs, Layer, Placement, RunWork, Scenario, bad_rate};
use crate::multi::{
    Constrained, Marked, ScalarAsVector, ScoredPolicy, Strict, VJob, VectorCluster,
    VectorJobSource, VectorSystem,
};
use crate::policy::run_spec;
use crate::rng::Stream;
use crate::sim::{self, Cluster, RunConfig, RunResult, Verdict, VerdictEvidence};
use crate::workload::replay::{TraceSource, TraceSpec};
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

/// The record of the run `w` (its twin's waits per job class beside it when the constraints are
/// also lifted), at `at` in the outputs.
pub(crate) fn record(w: &RunWork, at: At, file: &Path) -> Result<RunRecord, ExperimentError> {
    let At::Run { policy, point, rep } = at else {
        unreachable!("a run's unit is at a run")
    };
    let (result, unconstrained) = match &w.lifted {
        None => (run_scenario(&w.scenario, file)?, None),
        // the run and its twin without constraints, each half of the unit's progress
        Some(lifted) => {
            let span = crate::progress::current();
            let half = |k: u64| span.as_ref().map(|s| s.part(k, 2));
            let result = crate::progress::within(half(0), || run_scenario(&w.scenario, file))?;
            let free = crate::progress::within(half(1), || run_scenario(lifted, file))?;
            (result, Some(crate::multi::class_waits(&free)))
        }
    };
    Ok(RunRecord {
        policy,
        point,
        replication: rep,
        seed: w.scenario.seed,
        verdict: result.verdict,
        evidence: result.evidence,
        result,
        unconstrained,
    })
}

/// Runs `scenario`: the one run function of queueing files (`file`, the experiment file, is
/// named in errors).
pub(in crate::experiment::queueing) fn run_scenario(
    scenario: &Scenario,
    file: &Path,
) -> Result<RunResult, ExperimentError> {
    let (cfg, seed) = (&scenario.chain.config(), scenario.seed);
    let mean_service = cfg.mean_service;
    let bad = |e: TraceError| ExperimentError::Invalid {
        file: file.to_path_buf(),
        key: "workload.trace.file".into(),
        expected: "a readable trace (unchanged since validation)".into(),
        got: e.to_string(),
    };
    let arrivals = || -> Result<Arrivals, ExperimentError> {
        match scenario.jobs.arrivals() {
            Some(Ok(a)) => Ok(a),
            Some(Err(e)) => Err(bad_rate(file, scenario.jobs.rate(), e)),
            None => unreachable!("a sampled scenario's arrivals"),
        }
    };
    match (&scenario.placement, &scenario.jobs) {
        (Placement::Single(spec), Jobs::Sampled { .. }) => {
            let mut cluster = Cluster::new(scenario.servers, mean_service);
            if let Some((classes, _)) = &scenario.waits {
                cluster.record_waits(cfg.warmup.min(cfg.slots), (**classes).clone());
            }
            let mut source = sampled(scenario, file)?;
            Ok(run_spec(spec, &mut source, &mut cluster, cfg)?)
        }
        (
            Placement::Single(spec),
            Jobs::Trace {
                trace,
                scaling,
                window,
                ..
            },
        ) => {
            let mut cluster = Cluster::new(scenario.servers, mean_service);
            if let Some((classes, _)) = &scenario.waits {
                cluster.record_waits(cfg.warmup.min(cfg.slots), (**classes).clone());
            }
            replayed((&trace.0, *scaling, *window), &bad, |source| {
                run_spec(spec, source, &mut cluster, cfg)
            })
        }
        (Placement::Single(spec), Jobs::Requests { .. }) => Err(ExperimentError::Invalid {
            file: file.to_path_buf(),
            key: "policy".into(),
            expected: "a placement score for jobs of several resources".into(),
            got: format!("\"{}\" without one", spec.name()),
        }),
        (
            Placement::Scored {
                discipline,
                scorer,
                dims,
                layer,
            },
            jobs,
        ) => {
            let mut cluster = VectorCluster::new(
                scenario.servers,
                *dims,
                *scorer,
                Stream::Scorer.seed(seed),
                mean_service,
            );
            match layer {
                Layer::Numa { numa, .. } => cluster = cluster.with_numa(numa),
                Layer::Constraints { classes, table } => {
                    cluster = cluster.with_constraints(classes.kind.clone(), table.arc());
                }
                Layer::Plain => {}
            }
            if let Some((classes, resource)) = &scenario.waits {
                cluster.record_waits(cfg.warmup.min(cfg.slots), (**classes).clone(), *resource);
            }
            let mut system = VectorSystem::new(cluster, ScoredPolicy::new(*discipline));
            match jobs {
                Jobs::Sampled { .. } => {
                    let source = ScalarAsVector::new(sampled(scenario, file)?);
                    Ok(run_vector(layer, &mut system, source, cfg, seed)?)
                }
                Jobs::Requests {
                    requests,
                    weights,
                    service,
                    ..
                } => {
                    let mut v = VectorJobSource::new(
                        requests.to_vec(),
                        (**service).clone(),
                        arrivals()?,
                        seed,
                    );
                    if let Some(weights) = weights {
                        v = v.weighted(weights);
                    }
                    Ok(run_vector(layer, &mut system, v, cfg, seed)?)
                }
                Jobs::Trace {
                    trace,
                    scaling,
                    window,
                    ..
                } => replayed((&trace.0, *scaling, *window), &bad, |source| {
                    run_vector(layer, &mut system, source, cfg, seed)
                }),
            }
        }
    }
}

/// The job stream of a sampled scenario, as its run draws it (`None` for request vectors and
/// traces): the same jobs for every policy at the same (point, replication).
pub(in crate::experiment::queueing) fn job_source(
    scenario: &Scenario,
    file: &Path,
) -> Result<Option<JobSource>, ExperimentError> {
    let Jobs::Sampled {
        sizes,
        service,
        classes,
        ..
    } = &scenario.jobs
    else {
        return Ok(None);
    };
    let arrivals = match scenario.jobs.arrivals() {
        Some(Ok(a)) => a,
        Some(Err(e)) => return Err(bad_rate(file, scenario.jobs.rate(), e)),
        None => return Ok(None),
    };
    let seed = scenario.seed;
    Ok(Some(match classes {
        Some(mix) => JobSource::with_classes((**mix).clone(), arrivals, seed),
        None => JobSource::new((**sizes).clone(), (**service).clone(), arrivals, seed),
    }))
}

/// [`job_source`] of a scenario known to be sampled.
fn sampled(scenario: &Scenario, file: &Path) -> Result<JobSource, ExperimentError> {
    Ok(job_source(scenario, file)?.expect("a sampled scenario's jobs"))
}

/// `run` on the window [from, to) of the trace `spec` replayed at scaling `scaling`; a read
/// error the replay met on the way (the source stops there) is the run's error, through `bad`.
fn replayed(
    (spec, scaling, window): (&TraceSpec, f64, (f64, f64)),
    bad: &dyn Fn(TraceError) -> ExperimentError,
    run: impl FnOnce(&mut TraceSource) -> Result<RunResult, sim::SimError>,
) -> Result<RunResult, ExperimentError> {
    let mut source = TraceSource::open(spec, scaling, window.0, window.1).map_err(bad)?;
    let result = run(&mut source)?;
    match source.error() {
        Some(e) => Err(bad(e)),
        None => Ok(result),
    }
}

/// Runs a multi-resource system on `source`; with NUMA nodes, a share of the jobs marked
/// strict from a stream of the run seed (the same jobs for every policy); with placement
/// constraints, every job's constraint class drawn from another stream of the run seed
/// (likewise).
fn run_vector<S: Source<VJob>>(
    layer: &Layer,
    system: &mut VectorSystem,
    mut source: S,
    cfg: &RunConfig,
    seed: u64,
) -> Result<RunResult, sim::SimError> {
    match layer {
        Layer::Numa { strict, .. } => {
            let mut strict = Marked::new(source, Strict::new(*strict, Stream::Strict.seed(seed)));
            sim::run_system(system, &mut strict, cfg)
        }
        Layer::Constraints { classes, .. } => {
            let stream = Stream::Class.seed(seed);
            let mut constrained = Marked::new(source, Constrained::new(classes.arc(), stream));
            sim::run_system(system, &mut constrained, cfg)
        }
        Layer::Plain => sim::run_system(system, &mut source, cfg),
    }
}
