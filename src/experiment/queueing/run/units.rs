//! A queueing experiment as a plan of units: every (point, policy, replication) run, every
//! limit search, every saturation estimate and every row of the compaction study.

use serde::{Deserialize, Serialize};

use super::limit::{ThresholdResult, threshold_search};
use super::region_map::{RayResult, search_ray};
use super::simulate::{RunRecord, simulate};
use super::study::StudyRow;
use crate::experiment::ExperimentError;
use crate::experiment::queueing::SearchSpec;
use crate::experiment::queueing::{ClaimSpec, CompactionSpec, Experiment, Horizon, Workload};
use crate::experiment::steps::Steps;
use crate::packing::place::Scorer;
use crate::rng::derive_seed;
use crate::stability::saturation::{Saturation, saturated};

/// One unit of a queueing experiment.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Unit {
    Run {
        policy: usize,
        point: usize,
        rep: u32,
    },
    Limit {
        policy: usize,
        search: SearchSpec,
    },
    Saturation {
        policy: usize,
    },
    Study {
        policy: usize,
        scorer: Scorer,
        spec: CompactionSpec,
    },
    Ray {
        policy: usize,
        ray: usize,
    },
}

impl Unit {
    /// The policy the unit runs.
    pub(in crate::experiment::queueing) fn policy(&self) -> usize {
        match self {
            Unit::Run { policy, .. }
            | Unit::Limit { policy, .. }
            | Unit::Saturation { policy }
            | Unit::Study { policy, .. }
            | Unit::Ray { policy, .. } => *policy,
        }
    }
}

/// Unit `unit` of `exp` in words: "bf-js at load 0.9, replication 3", "bf-js's limit search".
pub(in crate::experiment::queueing) fn describe(exp: &Experiment, unit: &Unit) -> String {
    let label = &exp.labels[unit.policy()];
    match unit {
        &Unit::Run { point, rep, .. } => format!(
            "{label} at {}, replication {}",
            exp.point_words(point),
            rep + 1
        ),
        Unit::Limit { .. } => format!("{label}'s limit search"),
        Unit::Saturation { .. } => format!("{label}'s saturation estimate"),
        Unit::Study { scorer, .. } => format!("{label}'s compaction row ({scorer:?})"),
        &Unit::Ray { ray, .. } => format!("{label} along ray {}", ray + 1),
    }
}

/// What a unit gives.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Done {
    Run(Box<RunRecord>),
    Limit(Box<ThresholdResult>),
    Saturation(usize, Saturation),
    Study(Box<StudyRow>),
    Ray(Box<RayResult>),
}

/// Every unit: the sweep's runs (point, policy, replication), then one limit search per
/// distinct (policy, search) of the threshold and saturation claims, the saturation
/// estimates, the study's rows, and the region map's (ray, policy) searches, ray by ray.
pub(in crate::experiment::queueing) fn plan(exp: &Experiment) -> Vec<Unit> {
    let mut plan = Vec::new();
    for point in 0..exp.points.len() {
        for policy in 0..exp.policies.len() {
            for rep in 0..exp.run.replications {
                plan.push(Unit::Run { policy, point, rep });
            }
        }
    }
    for c in &exp.claims {
        let units: Vec<Unit> = match c {
            ClaimSpec::Threshold { policy, search, .. }
            | ClaimSpec::Saturation { policy, search } => vec![Unit::Limit {
                policy: *policy,
                search: *search,
            }],
            ClaimSpec::LimitOrder { order, search } => order
                .iter()
                .map(|&policy| Unit::Limit {
                    policy,
                    search: *search,
                })
                .collect(),
            _ => continue,
        };
        for unit in units {
            if !plan.contains(&unit) {
                plan.push(unit);
            }
        }
    }
    for c in &exp.claims {
        if let ClaimSpec::Saturation { policy, .. } = c {
            let unit = Unit::Saturation { policy: *policy };
            if !plan.contains(&unit) {
                plan.push(unit);
            }
        }
    }
    if let Some(spec) = &exp.compaction {
        for (policy, p) in exp.policies.iter().enumerate() {
            if let Some((_, scorer)) = p.placement() {
                plan.push(Unit::Study {
                    policy,
                    scorer,
                    spec: spec.clone(),
                });
            }
        }
    }
    if let Some(map) = &exp.region_map {
        for ray in 0..map.rays.len() {
            for &policy in &map.policies {
                plan.push(Unit::Ray { policy, ray });
            }
        }
    }
    plan
}

/// The arrival rate near the limit a unit searches (jobs per slot): the upper end of ρ*; for a
/// map's unit, the ray's boundary c (jobs per server per mean service time) times L / E\[S\].
pub(in crate::experiment::queueing) fn limit_rate(exp: &Experiment, unit: &Unit) -> f64 {
    match (unit, &exp.region_map) {
        (&Unit::Ray { ray, .. }, Some(map)) => {
            (map.rays[ray].limit_capacity() + map.held_rate()) * exp.servers as f64
                / exp.workload.service().mean()
        }
        _ => exp.rho_star.map_or(1.0, |r| r.1) * exp.rate_per_load(),
    }
}

/// Slots of a run (the window's, for a trace run without `slots`).
pub(in crate::experiment::queueing) fn run_slots(exp: &Experiment, point: usize) -> f64 {
    match (exp.run.horizon, &exp.workload) {
        (Horizon::Slots { slots, .. }, _) => slots as f64,
        (Horizon::Window { .. }, Workload::Trace(t)) => {
            let c = exp.points[point].key;
            t.1.slots(&t.0, c, exp.run.replications) as f64
        }
        (Horizon::Window { .. }, _) => 1.0,
    }
}

/// The slots of the run of `policy` at `point`, times the policy's relative cost (1.5 for the
/// configuration-based ones), and twice that when the file also runs it without constraints.
pub(in crate::experiment::queueing) fn run_work(
    exp: &Experiment,
    point: usize,
    policy: usize,
) -> f64 {
    let twins = match &exp.constraints {
        Some(q) if q.compare_unconstrained => 2.0,
        _ => 1.0,
    };
    run_slots(exp, point) * exp.policies[policy].cost() * twins
}

/// Work per slot at λ jobs per slot: the slot loop simulates only slots with an arrival or a
/// departure (at most all of them, about 2λ when λ is small), and every job is placed once.
pub(in crate::experiment::queueing) fn per_slot(lambda: f64) -> f64 {
    (2.0 * lambda).min(1.0) + 2.0 * lambda
}

/// A limit search's cost, in runs to `max_slots` per replication at the near-limit price of a
/// slot. Fitted to the measured CPU time of thresholds_uniform_small and _large: 2.8 until the
/// last probe under ρ* went below the midpoint, then 2.3 (both files within a factor 1.2 of
/// their CPU time, 130 and 49 s on 27 November 2026, on the machine the prices of
/// [`crate::limits::NS_PER_SLOT`] were fitted on), then 1.75 on 29 November 2026, once first
/// rounds stopped at three agreeing runs and where the rest could not tip the pooled test: the
/// small file's estimate had become 1.8 times its wall time (1.4 since). 1.75 is also where
/// the floor below lies for both files (seven probes at 4·10⁶ slots and one run to 3.2·10⁷).
const LIMIT_MAX_SLOTS: f64 = 1.75;

/// Expected work of a unit, in events (slots with something to do and arrivals): slots × work
/// per slot, times the policy's relative cost (1.5 for the configuration-based ones); a limit
/// search as its probes' runs near the limit, which often double their horizon. The admission
/// measure ([`crate::limits::MAX_EVENTS`]), which the prices of `budget` turn into time.
pub(in crate::experiment::queueing) fn events(exp: &Experiment, unit: &Unit) -> f64 {
    let factor = |p: usize| exp.policies[p].cost();
    let (slots, _, max_slots) = exp.run.slots().unwrap_or((1, 0, 1));
    let reps = exp.run.replications as f64;
    let near_limit = per_slot(limit_rate(exp, unit));
    match unit {
        &Unit::Run { policy, point, .. } => {
            run_work(exp, point, policy) * per_slot(exp.points[point].arrival_rate)
        }
        // most probes are decided at the first horizon; the few near the limit run to
        // max_slots, and a search stops spending where its probes stay undecided, so its cost
        // does not grow with max_probes: LIMIT_MAX_SLOTS runs' worth of max_slots per
        // replication, measured on thresholds_uniform_small and _large; and never less than
        // the bisection's probes at their horizon and one run to max_slots (which is what a
        // search with max_slots close to slots costs: numa_stability_split, max_slots twice
        // slots, simulated 6 to 10 horizons per replication)
        &Unit::Limit { policy, search } => {
            let probes = (1.0 / search.resolution)
                .log2()
                .ceil()
                .min(f64::from(search.max_probes));
            let floor = probes * slots as f64 + max_slots.saturating_sub(slots) as f64;
            (LIMIT_MAX_SLOTS * max_slots as f64).max(floor) * reps * near_limit * factor(policy)
        }
        &Unit::Ray { policy, .. } => ray_slots(exp) * near_limit * factor(policy),
        Unit::Saturation { .. } => max_slots as f64 * near_limit,
        // a study's search: every probe of its `limit_steps` all its rounds at max_slots
        // (fitted on stability_vs_packing, the shipped study, whose runs are not extended and
        // whose probes near the limit stay undecided to the end: 681 s on two cores on 26
        // November 2026 against 10 minutes estimated; a quarter of that before)
        Unit::Study { policy, spec, .. } => {
            spec.limit.max_probes as f64
                * reps
                * f64::from(spec.limit.rounds)
                * max_slots as f64
                * near_limit
                * factor(*policy)
        }
    }
}

/// The horizon a map's run is expected to simulate, in multiples of `slots`. The seven
/// committed maps measured 1.9 to 5.3 per run (27 November 2026: `region_map_servers` 1.9,
/// `_fig3b` 2.6, `_vectors` 2.8, `_constraints` 3.7, `_numa` 4.0, `_fig3a` 4.4, `_held` 5.3)
/// and 6.3 to 7.1 probes per search. How soon a ray's runs decide depends on where its
/// policies' limits lie, which is not known before the run; 2.4 (3.3 before that day, the
/// geometric middle of four maps) puts the estimates of the six maps that print one (two of
/// them only with `--threads 1`) within a factor 1.5 of their measured wall times on two
/// cores (0.71 to 1.42 of them).
const MAP_STRETCH: f64 = 2.4;

/// Slots a region map's search along one ray is expected to simulate: a bisection to the
/// map's resolution, log₂(1/resolution) probes and one more (at most `max_probes`), each of
/// `replications` runs averaging [`MAP_STRETCH`] × `slots` (capped at `max_slots`).
pub(in crate::experiment::queueing) fn ray_slots(exp: &Experiment) -> f64 {
    let Some(map) = &exp.region_map else {
        return 0.0;
    };
    let (slots, _, max_slots) = exp.run.slots().unwrap_or((1, 0, 1));
    let s = map.search;
    let probes = (1.0 / s.resolution).log2().ceil() + 1.0;
    probes.min(f64::from(s.max_probes))
        * f64::from(exp.run.replications)
        * (MAP_STRETCH * slots as f64).min(max_slots as f64)
}

/// Per unit of `plan`, a hash of everything its result depends on: the experiment as
/// validated, with only the unit's own policy (its spec, label and NUMA layer) in place of the
/// list of policies, and without what no unit reads (the claims, the plots, the description,
/// the map's list of policies and title), then the unit itself (its indices, its search). An
/// edit of another policy's keys, a claim, a plot or the description leaves it as it was; an
/// edit that moves the unit in the plan or changes what it reads does not. The experiment's
/// part is hashed once per policy.
pub(in crate::experiment::queueing) fn unit_fingerprints(
    exp: &Experiment,
    plan: &[Unit],
    quick: bool,
) -> Vec<u64> {
    let per_policy: Vec<u64> = (0..exp.policies.len())
        .map(|policy| {
            let mut own = exp.clone();
            own.policies = vec![exp.policies[policy].clone()];
            own.labels = vec![exp.labels[policy].clone()];
            if let Some(n) = &mut own.numa {
                n.layers = n.layers.get(policy).cloned().into_iter().collect();
            }
            own.claims.clear();
            own.plots.clear();
            own.header.description.clear();
            if let Some(m) = &mut own.region_map {
                m.policies.clear();
                m.title = None;
            }
            crate::experiment::journal::fingerprint(&(crate::experiment::VERSION, quick, &own))
        })
        .collect();
    plan.iter()
        .map(|unit| {
            crate::experiment::journal::fingerprint(&(
                per_policy[unit.policy()],
                format!("{unit:?}"),
            ))
        })
        .collect()
}

/// Runs one unit. A policy that breaks the model's rules (a panic in its run, or a run whose
/// bookkeeping does not add up) stops the unit with an error naming the policy, never the
/// process.
pub(in crate::experiment::queueing) fn run(
    exp: &Experiment,
    unit: &Unit,
    steps: &Steps<'_>,
) -> Result<Done, ExperimentError> {
    let policy = unit.policy();
    let broke = |what: String| ExperimentError::Policy {
        file: exp.header.file.clone(),
        policy: exp.labels[policy].clone(),
        what,
    };
    match crate::sim::guard::caught(|| run_unit(exp, unit, steps)) {
        Ok(Err(ExperimentError::Sim(crate::sim::SimError::Invariant { slot, what }))) => {
            Err(broke(format!("at slot {slot}, {what}")))
        }
        Ok(r) => r,
        Err(what) => Err(broke(what)),
    }
}

/// Runs one unit (see [`run`]); a search journals its runs through `steps`.
fn run_unit(exp: &Experiment, unit: &Unit, steps: &Steps<'_>) -> Result<Done, ExperimentError> {
    Ok(match unit {
        &Unit::Run { policy, point, rep } => {
            Done::Run(Box::new(simulate(exp, policy, point, rep)?))
        }
        &Unit::Limit { policy, search } => {
            Done::Limit(Box::new(threshold_search(exp, policy, search, steps)?))
        }
        &Unit::Saturation { policy } => {
            let (_, warmup, max_slots) = exp.run.slots().unwrap_or((1, 0, 1));
            // the named policy itself, never another one in its place
            let spec = &exp.policies[policy];
            let mut built = spec.single().map(|s| s.build(exp.servers)).ok_or_else(|| {
                ExperimentError::Invalid {
                    file: exp.header.file.clone(),
                    key: "claim".into(),
                    expected: "a single-resource policy for a saturation claim".into(),
                    got: format!("\"{}\"", spec.label()),
                }
            })?;
            let s = saturated(
                built.as_mut(),
                exp.servers,
                exp.workload.sizes(),
                exp.workload.service(),
                warmup,
                max_slots - warmup,
                derive_seed(exp.header.seed, &[0x7361_7475]),
            );
            Done::Saturation(policy, s)
        }
        Unit::Study {
            policy,
            scorer,
            spec,
        } => Done::Study(Box::new(super::study::row(
            exp, spec, *policy, *scorer, steps,
        )?)),
        &Unit::Ray { policy, ray } => Done::Ray(Box::new(search_ray(exp, policy, ray, steps)?)),
    })
}
