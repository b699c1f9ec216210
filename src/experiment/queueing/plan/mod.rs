//! The second stage of a queueing experiment: the validated experiment made, once, into its
//! plan, a list of owned units of work that the run stage runs and the engine prices, journals
//! and resumes. Every derivation is made here: each run's [`Scenario`] (servers, jobs, horizon
//! chain, seed, placement and its layer), each search's family of scenarios as a function of
//! the load (with the earlier first look of its runs), a ray's law, the typed random streams
//! ([`crate::rng::Stream`]). Nothing after this stage reads the experiment to run a unit.
//!
//! A unit is three things: where its result goes in the outputs ([`At`]: indices the analysis
//! reads), what its messages call it ([`Names`]), and what it computes ([`Work`]), whose
//! fingerprint is the unit's identity in the journal: after an edit of the file, exactly the
//! units whose work is unchanged keep their results, wherever they now stand in the plan.

mod family;
mod price;
mod scenario;

use std::sync::Arc;

pub(crate) use family::Family;
pub(in crate::experiment::queueing) use price::{admit, costs, memory, seconds};
pub(crate) use scenario::{Jobs, Layer, Placement, Scenario, bad_rate};

use super::{ClaimSpec, Experiment, SearchSpec, Workload, bottleneck, degrees};
use crate::experiment::common::Shared;
use crate::model::Resources;
use crate::packing::place::{JobOrder, Scorer};
use crate::policy::PolicySpec;
use crate::rng::Stream;
use crate::workload::{ClassMix, ServiceLaw, SizeLaw};

/// Where a unit's result goes in the outputs: the policy, sweep point, replication, ray it is
/// of (indices into the experiment's lists as they stand now, not part of what it computes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum At {
    /// Replication `rep` of `policy` at sweep point `point`.
    Run {
        /// The policy.
        policy: usize,
        /// The sweep point.
        point: usize,
        /// The replication.
        rep: u32,
    },
    /// The limit search of `policy` (its spec is in the work).
    Limit {
        /// The policy.
        policy: usize,
    },
    /// The saturation estimate of `policy`.
    Saturation {
        /// The policy.
        policy: usize,
    },
    /// The stability-versus-packing row of `policy`.
    Study {
        /// The policy.
        policy: usize,
    },
    /// The limit of `policy` along ray `ray` of the region map.
    Ray {
        /// The policy.
        policy: usize,
        /// The ray.
        ray: usize,
    },
}

impl At {
    /// The policy of the unit.
    pub(crate) fn policy(self) -> usize {
        match self {
            At::Run { policy, .. }
            | At::Limit { policy }
            | At::Saturation { policy }
            | At::Study { policy }
            | At::Ray { policy, .. } => policy,
        }
    }
}

/// What a unit's messages call it: its policy's label, and for a search, what its progress
/// lines name (the experiment, with a ray's direction) and what its loads are fractions of.
#[derive(Clone, Debug)]
pub(crate) struct Names {
    /// The policy's label.
    pub(crate) label: Arc<str>,
    /// A search's name in its progress lines.
    pub(crate) search: Arc<str>,
    /// What a search's loads are fractions of in its progress lines (`"ρ*"`, "the ray's
    /// capacity"), if anything.
    pub(crate) fraction_of: Option<&'static str>,
}

/// One unit of the plan.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    /// Where its result goes.
    pub(crate) at: At,
    /// What its messages call it.
    pub(crate) names: Names,
    /// What it computes; its identity.
    pub(crate) work: Work,
}

impl Unit {
    /// The unit's identity: the fingerprint of what it computes.
    pub(crate) fn identity(&self) -> u64 {
        crate::experiment::journal::fingerprint(&self.work)
    }
}

/// What a unit computes.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) enum Work {
    /// One run of a sweep point.
    Run(RunWork),
    /// A limit search (a threshold claim's, or along a region map's ray).
    Search(SearchWork),
    /// A saturation estimate.
    Saturation(SaturationWork),
    /// A row of the stability-versus-packing study.
    Study(StudyWork),
}

/// One run of a sweep point: its scenario (with its jobs' delays recorded), and with
/// `compare_unconstrained` its twin with the constraints lifted (the same jobs).
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct RunWork {
    /// The run.
    pub(crate) scenario: Scenario,
    /// The same run with the constraints lifted.
    pub(crate) lifted: Option<Scenario>,
}

/// A limit search: how it searches, rounds of `replications` runs, ρ* (the interval it
/// searches is [0, ρ*'s upper end]), the seed its probes' runs derive from, and the system it
/// probes at each load.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct SearchWork {
    /// How it searches.
    pub(crate) spec: SearchSpec,
    /// Runs per round.
    pub(crate) replications: u32,
    /// ρ* (low, high) as a traffic intensity.
    pub(crate) rho: (f64, f64),
    /// The seed of its probes' runs ([`Stream::Probe`]).
    pub(crate) seed: u64,
    /// The system at each load.
    pub(crate) family: Family,
}

/// A saturation estimate: the named policy with a queue that never empties.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct SaturationWork {
    /// The policy.
    pub(crate) policy: PolicySpec,
    /// L.
    pub(crate) servers: usize,
    /// The size law.
    pub(crate) sizes: Shared<SizeLaw>,
    /// The service law.
    pub(crate) service: Shared<ServiceLaw>,
    /// The job classes, when the workload has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) classes: Option<Shared<ClassMix>>,
    /// Slots discarded before measuring.
    pub(crate) warmup: u64,
    /// Slots measured.
    pub(crate) slots: u64,
    /// The run's seed.
    pub(crate) seed: u64,
}

/// A row of the stability-versus-packing study: the packing side and the limit search.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct StudyWork {
    /// Jobs drawn from the workload and compacted.
    pub(crate) packing: Packing,
    /// The limit, as an interval on the load in [0, 1].
    pub(crate) search: SearchWork,
}

/// The packing side of a study row: `tasks` jobs drawn from the workload (sizes, or request
/// vectors uniformly) on unit servers, compacted with the policy's scorer.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Packing {
    /// Jobs drawn.
    pub(crate) tasks: usize,
    /// Compaction trials.
    pub(crate) trials: usize,
    /// The share of tasks that may be left pending.
    pub(crate) tau: f64,
    /// The order jobs are placed in.
    pub(crate) order: JobOrder,
    /// The scorer.
    pub(crate) scorer: Scorer,
    /// Resources per job.
    pub(crate) dims: usize,
    /// The size law jobs are drawn from, when the workload has no request vectors.
    pub(crate) sizes: Shared<SizeLaw>,
    /// The request vectors jobs are drawn from (empty: sizes).
    pub(crate) requests: Option<Shared<Vec<Resources>>>,
    /// The seed of the tasks drawn ([`Stream::Compaction`]).
    pub(crate) tasks_seed: u64,
    /// The seed of the trials.
    pub(crate) trials_seed: u64,
}

/// Every unit of `exp`: the sweep's runs (point, policy, replication), then one limit search
/// per distinct (policy, search) of the threshold and saturation claims, the saturation
/// estimates, the study's rows, and the region map's (ray, policy) searches, ray by ray.
pub(in crate::experiment::queueing) fn plan(exp: &Experiment) -> Vec<Unit> {
    let labels: Vec<Arc<str>> = exp.labels.iter().map(|l| Arc::from(l.as_str())).collect();
    let experiment: Arc<str> = Arc::from(exp.header.name.as_str());
    let names = |policy: usize, search: Arc<str>, fraction_of| Names {
        label: Arc::clone(&labels[policy]),
        search,
        fraction_of,
    };
    let mut plan = Vec::new();
    for point in 0..exp.points.len() {
        for policy in 0..exp.policies.len() {
            for rep in 0..exp.run.replications {
                plan.push(Unit {
                    at: At::Run { policy, point, rep },
                    names: names(policy, Arc::clone(&experiment), None),
                    work: Work::Run(run(exp, policy, point, rep)),
                });
            }
        }
    }
    let mut searched: Vec<(usize, SearchSpec)> = Vec::new();
    for c in &exp.claims {
        let found: Vec<(usize, SearchSpec)> = match c {
            ClaimSpec::Threshold { policy, search, .. }
            | ClaimSpec::Saturation { policy, search } => vec![(*policy, *search)],
            ClaimSpec::LimitOrder { order, search } => {
                order.iter().map(|&policy| (policy, *search)).collect()
            }
            _ => continue,
        };
        for (policy, spec) in found {
            if searched.contains(&(policy, spec)) {
                continue;
            }
            searched.push((policy, spec));
            plan.push(Unit {
                at: At::Limit { policy },
                names: names(policy, Arc::clone(&experiment), Some("ρ*")),
                work: Work::Search(threshold(exp, policy, spec)),
            });
        }
    }
    let mut saturated = Vec::new();
    for c in &exp.claims {
        if let ClaimSpec::Saturation { policy, .. } = c
            && !saturated.contains(policy)
            && let Some(work) = saturation(exp, *policy)
        {
            saturated.push(*policy);
            plan.push(Unit {
                at: At::Saturation { policy: *policy },
                names: names(*policy, Arc::clone(&experiment), None),
                work: Work::Saturation(work),
            });
        }
    }
    if let Some(spec) = &exp.compaction {
        for (policy, p) in exp.policies.iter().enumerate() {
            if let Some((_, scorer)) = p.placement() {
                plan.push(Unit {
                    at: At::Study { policy },
                    names: names(policy, Arc::clone(&experiment), None),
                    work: Work::Study(study(exp, policy, scorer, spec)),
                });
            }
        }
    }
    if let Some(map) = &exp.region_map {
        for (ray, r) in map.rays.iter().enumerate() {
            let name: Arc<str> =
                Arc::from(format!("{} at {}", exp.header.name, degrees(r.degrees)));
            for &policy in &map.policies {
                plan.push(Unit {
                    at: At::Ray { policy, ray },
                    names: names(policy, Arc::clone(&name), Some("the ray's capacity")),
                    work: Work::Search(along_ray(exp, policy, ray)),
                });
            }
        }
    }
    plan
}

/// Replication `rep` of `policy` at sweep point `point`: the run seed from the experiment seed,
/// the value written in the sweep and the replication, never from the policy; its jobs' delays
/// recorded; with `compare_unconstrained` its twin on the same streams with the constraints
/// lifted.
pub(in crate::experiment::queueing) fn run(
    exp: &Experiment,
    policy: usize,
    point: usize,
    rep: u32,
) -> RunWork {
    let p = exp.points[point];
    let seed = Stream::Run { key: p.key, rep }.seed(exp.header.seed);
    let once = |lifted: bool| match &exp.workload {
        Workload::Trace(..) => {
            Scenario::trace(exp, policy, point, seed, (rep, lifted)).expect("a trace workload")
        }
        _ => Scenario::sampled(exp, policy, p.arrival_rate, seed, (rep, lifted)),
    };
    let mut scenario = once(false);
    scenario.waits = Some(exp.wait_classes.clone());
    let lifted = exp
        .constraints
        .as_ref()
        .is_some_and(|q| q.compare_unconstrained)
        .then(|| once(true));
    RunWork { scenario, lifted }
}

/// The limit search of `policy` with `spec`, on loads of the experiment's own workload
/// (relative to its ρ*).
fn threshold(exp: &Experiment, policy: usize, spec: SearchSpec) -> SearchWork {
    let base = Scenario::sampled(exp, policy, 0.0, 0, (0, false));
    SearchWork {
        spec,
        replications: exp.run.replications,
        rho: exp.rho_star.unwrap_or((1.0, 1.0)),
        seed: exp.header.seed,
        family: Family::scaled(base, exp.rate_per_load()),
    }
}

/// The saturation estimate of `policy`: the named policy itself, never another one in its
/// place (`None` for a scored policy, which validation refuses a saturation claim for).
fn saturation(exp: &Experiment, policy: usize) -> Option<SaturationWork> {
    let spec = exp.policies[policy].single()?;
    let (_, warmup, max_slots) = exp.run.slots().unwrap_or((1, 0, 1));
    let (sizes, service) = exp.workload.shared_laws();
    Some(SaturationWork {
        policy: spec.clone(),
        servers: exp.servers,
        sizes,
        service,
        classes: exp.workload.classes().cloned(),
        warmup,
        slots: max_slots - warmup,
        seed: Stream::Saturation.seed(exp.header.seed),
    })
}

/// The study's row of the scored policy `policy`, whose scorer is `scorer`: the packing of
/// `spec.tasks` jobs drawn from the workload, and the limit on loads in [0, 1].
fn study(
    exp: &Experiment,
    policy: usize,
    scorer: Scorer,
    spec: &super::CompactionSpec,
) -> StudyWork {
    let (sizes, _) = exp.workload.shared_laws();
    let requests = match &exp.workload {
        Workload::Requests { requests, .. } => Some(requests.clone()),
        _ => None,
    };
    let base = Scenario::sampled(exp, policy, 0.0, 0, (0, false));
    StudyWork {
        packing: Packing {
            tasks: spec.tasks,
            trials: spec.trials,
            tau: spec.tau,
            order: spec.order,
            scorer,
            dims: exp.workload.dims(),
            sizes,
            requests,
            tasks_seed: Stream::Compaction { trials: false }.seed(exp.header.seed),
            trials_seed: Stream::Compaction { trials: true }.seed(exp.header.seed),
        },
        search: SearchWork {
            spec: spec.limit,
            replications: exp.run.replications,
            rho: (1.0, 1.0),
            seed: exp.header.seed,
            family: Family::scaled(base, exp.rate_per_load()),
        },
    }
}

/// The limit search of `policy` along ray `ray` of the region map: the scenarios of the
/// experiment with the ray's mix of the two types as their jobs and ρ* the exact one along the
/// ray; with held types, the free types' traffic x with the held types' on top. Every policy
/// on a ray sees the same random streams (the ray's seed derives from the experiment's and the
/// ray's direction only).
fn along_ray(exp: &Experiment, policy: usize, ray: usize) -> SearchWork {
    let map = exp.region_map.as_ref().expect("a map's unit");
    let r = &map.rays[ray];
    let mut base = Scenario::sampled(exp, policy, 0.0, 0, (0, false));
    let family = if map.held.is_empty() {
        // the ray's jobs: its size law (sampled laws), or for two request vectors those of
        // positive share with their shares, the load counted on the mix's bottleneck resource
        let sizes = match (&map.vectors, &mut base.jobs) {
            (
                Some((v, dims)),
                Jobs::Requests {
                    requests, weights, ..
                },
            ) => {
                let kept: Vec<(usize, f64)> = [(0, r.mix.0), (1, r.mix.1)]
                    .into_iter()
                    .filter(|k| k.1 > 0.0)
                    .collect();
                let (b, _) = bottleneck((*v, *dims), r.mix);
                *requests = Shared::new(kept.iter().map(|&(k, _)| v[k]).collect());
                *weights = Some(kept.iter().map(|k| k.1).collect());
                law(kept
                    .iter()
                    .map(|&(k, p)| (crate::model::Size(v[k][b]), p))
                    .collect())
            }
            (
                _,
                Jobs::Sampled {
                    sizes,
                    service,
                    classes,
                    ..
                },
            ) => {
                let ray_law = law(r.atoms(map.sizes));
                *sizes = Shared::new(ray_law.clone());
                if let Some(mix) = classes {
                    // two classes: the ray's shares are of the classes' λᵢ·E[Sᵢ], their
                    // probabilities follow (the ray's size law is then the reweighted
                    // classes' work-weighted one), and so do the service law and its mean
                    let ray_mix = mix
                        .reweighted(&[r.mix.0, r.mix.1])
                        .expect("a mix with a positive share");
                    *service = Shared::new(ray_mix.pooled_service());
                    base.chain.mean_service = ray_mix.mean_service();
                    *mix = Shared::new(ray_mix);
                }
                ray_law
            }
            _ => law(r.atoms(map.sizes)),
        };
        let service = match &base.jobs {
            Jobs::Sampled { service, .. } | Jobs::Requests { service, .. } => service.clone(),
            Jobs::Trace { .. } => unreachable!("a map of a trace is refused"),
        };
        let per_load =
            crate::experiment::queueing::spec::rate_per_load(exp.servers, &sizes, &service);
        Family::scaled(base, per_load)
    } else {
        Family::held(
            base,
            exp.servers as f64 / exp.workload.service().mean(),
            (map.sizes, r.mix),
            map.held.clone(),
        )
    };
    SearchWork {
        spec: map.search,
        replications: exp.run.replications,
        rho: (r.rho, r.rho),
        seed: Stream::Ray { degrees: r.degrees }.seed(exp.header.seed),
        family,
    }
}

/// The discrete law of `atoms` (size, probability).
pub(crate) fn law(atoms: Vec<(crate::model::Size, f64)>) -> SizeLaw {
    let (values, probs): (Vec<_>, Vec<_>) = atoms.into_iter().unzip();
    SizeLaw::discrete(values, probs).expect("a mix with a positive share")
}
