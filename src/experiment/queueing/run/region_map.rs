//! A policy's limit along one ray of a region map: the experiment with its size law replaced by
//! the ray's mix of the two types and ρ* by the exact one along the ray, then the limit search
//! of threshold claims ([`super::limit`]) on it. Every policy on a ray sees the same random
//! streams (the ray's seed derives from the experiment's and the ray's direction only).

use std::borrow::Cow;

use super::limit::{ThresholdResult, limit_search};
use super::scenario::{Jobs, Scenario};
use crate::experiment::ExperimentError;
use crate::experiment::queueing::{Experiment, Workload, bottleneck, degrees};
use crate::rng::derive_seed;
use crate::workload::SizeLaw;

/// A limit along a ray.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct RayResult {
    /// The ray (index into the map's).
    pub(crate) ray: usize,
    /// The search, on loads of the ray's workload (ρ* its exact one).
    pub(crate) limit: ThresholdResult,
}

/// The experiment along ray `ray` of its map: the ray's size law, ρ* and seed.
fn ray_experiment(exp: &Experiment, ray: usize) -> Experiment {
    let map = exp.region_map.as_ref().expect("a map's unit");
    let r = &map.rays[ray];
    let mut e = exp.clone();
    match (&map.vectors, &mut e.workload) {
        // two request vectors: drawn with the ray's shares, the load counted on the mix's
        // bottleneck resource
        (
            Some((v, dims)),
            Workload::Requests {
                requests,
                weights,
                sizes,
                ..
            },
        ) => {
            let kept: Vec<(usize, f64)> = [(0, r.mix.0), (1, r.mix.1)]
                .into_iter()
                .filter(|k| k.1 > 0.0)
                .collect();
            *requests = kept.iter().map(|&(k, _)| v[k]).collect();
            *weights = Some(kept.iter().map(|k| k.1).collect());
            let (b, _) = bottleneck((*v, *dims), r.mix);
            *sizes = SizeLaw::discrete(
                kept.iter()
                    .map(|&(k, _)| crate::model::Size(v[k][b]))
                    .collect(),
                kept.iter().map(|k| k.1).collect(),
            )
            .expect("a mix with a positive share");
        }
        _ => set_law(&mut e, r.atoms(map.sizes)),
    }
    e.rho_star = Some((r.rho, r.rho));
    e.header.seed = derive_seed(exp.header.seed, &[0x6d61_7073, r.degrees.to_bits()]);
    e.header.name = format!("{} at {}", exp.header.name, degrees(r.degrees));
    e
}

/// Replaces the size law of `e` by the discrete law of `atoms`.
fn set_law(e: &mut Experiment, atoms: Vec<(crate::model::Size, f64)>) {
    if let Workload::Sampled { sizes, .. } = &mut e.workload {
        *sizes = law(atoms);
    }
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
) -> Result<RayResult, ExperimentError> {
    let map = exp.region_map.as_ref().expect("a map's unit");
    let e = ray_experiment(exp, ray);
    let rho = e.rho_star.expect("set along the ray");
    let limit = if map.held.is_empty() {
        let rate = e.rate_per_load();
        limit_search(&e, policy, map.search, rho, &|x, seed| {
            Scenario::sampled(&e, policy, x * rate, seed, (0, false))
        })?
    } else {
        // the free types' traffic x with the held types on top: the law changes with x
        let r = &map.rays[ray];
        let per_server = exp.servers as f64 / exp.workload.service().mean();
        let at = |x: f64, seed: u64| {
            let (atoms, total) = map.law_at(ray, x / r.mean_size(map.sizes));
            let mut scenario = Scenario::sampled(&e, policy, total * per_server, seed, (0, false))?;
            if let Jobs::Sampled { sizes, .. } = &mut scenario.jobs {
                *sizes = Cow::Owned(law(atoms));
            }
            Ok(scenario)
        };
        limit_search(&e, policy, map.search, rho, &at)?
    };
    Ok(RayResult { ray, limit })
}
