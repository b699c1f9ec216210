//! A policy's limit along one ray of a region map: the scenarios of the experiment with the
//! ray's mix of the two types as their jobs and ρ* the exact one along the ray, searched by
//! the limit search of threshold claims ([`super::limit`]). Every policy on a ray sees the same random
//! streams (the ray's seed derives from the experiment's and the ray's direction only).

use std::borrow::Cow;

use super::limit::{Searched, limit_search};
use super::scenario::{Jobs, Scenario};
use crate::experiment::ExperimentError;
use crate::experiment::queueing::{Experiment, Workload, bottleneck, degrees};
use crate::experiment::steps::Steps;
use crate::model::Resources;
use crate::rng::derive_seed;
use crate::stability::search::Limit;
use crate::workload::SizeLaw;

/// A limit along a ray.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct RayResult {
    /// The ray (index into the map's).
    pub(crate) ray: usize,
    /// The policy (index into the experiment's).
    pub(crate) policy: usize,
    /// The search, on loads of the ray's workload (ρ* its exact one).
    pub(crate) limit: Limit,
}

/// Where the jobs of ray `ray` come from: the ray's size law (the law of the bottleneck
/// resource for two request vectors), and for request vectors the vectors drawn and their
/// shares.
struct RayJobs {
    /// The size law (of the bottleneck resource for request vectors), which the ray's loads
    /// are counted in.
    sizes: SizeLaw,
    /// Two request vectors: those of positive share, and their shares.
    requests: Option<(Vec<Resources>, Vec<f64>)>,
}

/// The jobs along ray `ray` of the map of `exp`.
fn ray_jobs(exp: &Experiment, ray: usize) -> RayJobs {
    let map = exp.region_map.as_ref().expect("a map's unit");
    let r = &map.rays[ray];
    match (&map.vectors, &exp.workload) {
        // two request vectors: drawn with the ray's shares, the load counted on the mix's
        // bottleneck resource
        (Some((v, dims)), Workload::Requests { .. }) => {
            let kept: Vec<(usize, f64)> = [(0, r.mix.0), (1, r.mix.1)]
                .into_iter()
                .filter(|k| k.1 > 0.0)
                .collect();
            let (b, _) = bottleneck((*v, *dims), r.mix);
            let sizes = SizeLaw::discrete(
                kept.iter()
                    .map(|&(k, _)| crate::model::Size(v[k][b]))
                    .collect(),
                kept.iter().map(|k| k.1).collect(),
            )
            .expect("a mix with a positive share");
            RayJobs {
                sizes,
                requests: Some((
                    kept.iter().map(|&(k, _)| v[k]).collect(),
                    kept.iter().map(|k| k.1).collect(),
                )),
            }
        }
        _ => RayJobs {
            sizes: law(r.atoms(map.sizes)),
            requests: None,
        },
    }
}

/// `scenario` with the jobs of the ray: its size law (sampled laws) or its request vectors.
fn on_ray<'a>(mut scenario: Scenario<'a>, jobs: &'a RayJobs) -> Scenario<'a> {
    match &mut scenario.jobs {
        Jobs::Sampled { sizes, .. } => *sizes = Cow::Borrowed(&jobs.sizes),
        Jobs::Requests {
            requests, weights, ..
        } => {
            if let Some((v, w)) = &jobs.requests {
                *requests = v;
                *weights = Some(w);
            }
        }
        Jobs::Trace { .. } => {}
    }
    scenario
}

/// The discrete law of `atoms` (size, probability).
fn law(atoms: Vec<(crate::model::Size, f64)>) -> SizeLaw {
    let (values, probs): (Vec<_>, Vec<_>) = atoms.into_iter().unzip();
    SizeLaw::discrete(values, probs).expect("a mix with a positive share")
}

/// The limit of `policy` along ray `ray`, as an interval on the ray's load (with held types,
/// the free types' traffic: the held types' comes on top).
pub(crate) fn search_ray(
    exp: &Experiment,
    policy: usize,
    ray: usize,
    steps: &Steps<'_>,
) -> Result<RayResult, ExperimentError> {
    let map = exp.region_map.as_ref().expect("a map's unit");
    let r = &map.rays[ray];
    let jobs = ray_jobs(exp, ray);
    let rho = (r.rho, r.rho);
    let who = Searched {
        name: Cow::Owned(format!("{} at {}", exp.header.name, degrees(r.degrees))),
        label: &exp.labels[policy],
        seed: derive_seed(exp.header.seed, &[0x6d61_7073, r.degrees.to_bits()]),
        replications: exp.run.replications,
        steps,
        fraction_of: Some("the ray's capacity"),
    };
    let limit = if map.held.is_empty() {
        let rate = crate::experiment::queueing::spec::rate_per_load(
            exp.servers,
            &jobs.sizes,
            exp.workload.service(),
        );
        limit_search(&who, map.search, rho, &|x, seed| {
            let scenario = Scenario::sampled(exp, policy, x * rate, seed, (0, false))?;
            Ok(on_ray(scenario, &jobs))
        })?
    } else {
        // the free types' traffic x with the held types on top: the law changes with x
        let per_server = exp.servers as f64 / exp.workload.service().mean();
        let at = |x: f64, seed: u64| {
            let (atoms, total) = map.law_at(ray, x / r.mean_size(map.sizes));
            let mut scenario =
                Scenario::sampled(exp, policy, total * per_server, seed, (0, false))?;
            if let Jobs::Sampled { sizes, .. } = &mut scenario.jobs {
                *sizes = Cow::Owned(law(atoms));
            }
            Ok(scenario)
        };
        limit_search(&who, map.search, rho, &at)?
    };
    Ok(RayResult { ray, policy, limit })
}
