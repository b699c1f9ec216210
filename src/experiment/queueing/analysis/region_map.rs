//! A region map's results: each (ray, policy) limit in the plane's units, the exact polygons
//! of the capacity region, K_RED's region and the dyadic set's region, and the map's claims.
//!
//! Units: a point of the plane is (λ₁/μ, λ₂/μ) over the whole cluster, jobs per mean service
//! time; along a ray, a load x (traffic intensity) is x·L/E\[R\] of them in total, and its
//! fraction of the capacity along the ray is x/ρ*, ρ* being exact there (with NUMA nodes or
//! placement constraints, the restricted capacity: fractions are of it). With held types x is
//! the free types' traffic (the held types' comes on top); for request vectors E\[R\] is the
//! mean request of the mix's bottleneck resource.

use crate::configurations::Partition;
use crate::experiment::common::ClaimResult;
use crate::experiment::queueing::run::RayResult;
use crate::experiment::queueing::{
    Experiment, MapBoundary, RegionMapSpec, Restriction, degrees, mix,
};
use crate::stability::plane::rays::{Boundaries, BoundaryOf, slice};
use crate::stability::plane::{
    Polygon, configurations, reduced_configurations, vector_configurations,
};

/// The exact regions of the map's two types, per server.
#[derive(Clone, Debug)]
pub(crate) struct MapPolygons {
    /// The capacity region (all feasible configurations).
    pub(crate) capacity: Polygon,
    /// K_RED's region over X_J.
    pub(crate) kred: Polygon,
    /// The dyadic set's region.
    pub(crate) dyadic: Polygon,
    /// With `[numa]` or `[constraints]`: the restricted region's boundary per server, by its
    /// LP on the rays of every whole degree from 0° to 90° (not a polygon of configurations:
    /// strict and splittable jobs of each size are four types; constrained jobs are served
    /// per server group).
    pub(crate) restricted: Option<Vec<(f64, f64)>>,
    /// With held types: the slices at the held rates (per server, by bisection over the LP on
    /// the rays of every whole degree), which replace the polygons above in the figure.
    pub(crate) slices: Option<HeldSlices>,
}

/// The regions' slices at the held types' rates, per server, one point per whole degree from
/// 0° to 90° (a region the held types alone are outside has no point there).
#[derive(Clone, Debug)]
pub(crate) struct HeldSlices {
    /// The capacity region's.
    pub(crate) capacity: Vec<(f64, f64)>,
    /// K_RED's over X_J.
    pub(crate) kred: Vec<(f64, f64)>,
    /// The dyadic set's.
    pub(crate) dyadic: Vec<(f64, f64)>,
    /// 1/2 of the capacity region's (BF-J/S's guarantee).
    pub(crate) half: Vec<(f64, f64)>,
    /// 2/3 of it (VQS's guarantee).
    pub(crate) two_thirds: Vec<(f64, f64)>,
}

/// The polygons of the regions of `exp`'s map.
pub(in crate::experiment::queueing) fn polygons(exp: &Experiment) -> Option<MapPolygons> {
    let map = exp.region_map.as_ref()?;
    if let Some(v) = map.vectors {
        // request vectors: the capacity polygon only (K_RED and the dyadic set are of one
        // resource; the same polygon stands in their fields and is not drawn)
        let capacity = Polygon::of(&vector_configurations(v.0, v.1));
        return Some(MapPolygons {
            kred: capacity.clone(),
            dyadic: capacity.clone(),
            capacity,
            restricted: None,
            slices: None,
        });
    }
    let restriction = Restriction::of(exp.numa.as_ref(), exp.constraints.as_ref());
    let (restricted, slices) = if map.held.is_empty() {
        (restricted(map, restriction), None)
    } else {
        held_slices(map, restriction)
    };
    Some(MapPolygons {
        capacity: Polygon::of(&configurations(map.sizes)),
        kred: Polygon::of(&reduced_configurations(
            map.sizes,
            &Partition::universal(map.j),
        )),
        dyadic: Polygon::of(&reduced_configurations(
            map.sizes,
            &Partition::dyadic(map.j),
        )),
        restricted,
        slices,
    })
}

/// The slices of every region at the held rates on the rays of every whole degree, and the
/// restricted region's if any.
fn held_slices(
    map: &RegionMapSpec,
    restriction: Restriction<'_>,
) -> (Option<Vec<(f64, f64)>>, Option<HeldSlices>) {
    let boundaries = Boundaries::new(map.j, restriction.boundary());
    let [capacity, kred, dyadic, half, two_thirds] =
        boundaries.regions().map(|b| on_whole_degrees(map, b));
    let slices = HeldSlices {
        capacity,
        kred,
        dyadic,
        half,
        two_thirds,
    };
    let restricted = boundaries
        .restricted
        .as_deref()
        .map(|b| on_whole_degrees(map, b));
    (restricted, Some(slices))
}

/// A region's boundary (its slice at the map's held rates, if any) on the rays of every whole
/// degree, as points of the plane; validated on the map's rays, so a failure here leaves the
/// point out.
fn on_whole_degrees(map: &RegionMapSpec, b: &BoundaryOf<'_>) -> Vec<(f64, f64)> {
    (0..=90)
        .filter_map(|d| {
            let m = mix(f64::from(d));
            match slice(map.sizes, m, &map.held, b) {
                Ok(Some(t)) => Some((t * m.0, t * m.1)),
                _ => None,
            }
        })
        .collect()
}

/// The restricted region's boundary on the rays of every whole degree, if any.
fn restricted(map: &RegionMapSpec, restriction: Restriction<'_>) -> Option<Vec<(f64, f64)>> {
    restriction
        .boundary()
        .map(|b| on_whole_degrees(map, b.as_ref()))
}

/// One policy's limit along one ray, in the plane's units.
#[derive(Clone, Debug)]
pub(crate) struct MapLimit {
    /// The ray (index into the map's).
    pub(crate) ray: usize,
    /// The policy.
    pub(crate) policy: usize,
    /// The interval's ends as fractions of the capacity along the ray.
    pub(crate) fractions: (f64, f64),
    /// The interval's ends as λ/μ over the cluster, in total over the two types.
    pub(crate) totals: (f64, f64),
    /// Whether the lower end was shown stable by a probe (else it is 0, stable by theory).
    pub(crate) lower_shown: bool,
    /// Whether the upper end was shown unstable by a probe (else it is the capacity).
    pub(crate) upper_shown: bool,
    /// The search behind it.
    pub(crate) search: RayResult,
}

/// Each search of the map in the plane's units, in plan order (ray by ray).
pub(in crate::experiment::queueing) fn limits(
    exp: &Experiment,
    done: Vec<RayResult>,
) -> Vec<MapLimit> {
    let Some(map) = &exp.region_map else {
        return Vec::new();
    };
    done.into_iter()
        .map(|s| {
            let r = &map.rays[s.ray];
            let t = &s.limit;
            let total = |x: f64| x / r.rho * r.limit_capacity() * exp.servers as f64;
            MapLimit {
                ray: s.ray,
                policy: s.policy,
                fractions: (t.lower / r.rho, t.upper / r.rho),
                totals: (total(t.lower), total(t.upper)),
                lower_shown: t.probe_at(t.lower).is_some(),
                upper_shown: t.upper_shown,
                search: s,
            }
        })
        .collect()
}

/// The rays a claim is about: the listed ones, or all.
fn rays_of(map: &RegionMapSpec, rays: &[usize]) -> Vec<usize> {
    if rays.is_empty() {
        (0..map.rays.len()).collect()
    } else {
        rays.to_vec()
    }
}

/// The claim's rays in words.
fn rays_words(map: &RegionMapSpec, rays: &[usize]) -> String {
    if rays.is_empty() {
        format!("every ray ({})", map.rays.len())
    } else {
        let d: Vec<String> = rays.iter().map(|&r| degrees(map.rays[r].degrees)).collect();
        format!("rays {}", d.join(", "))
    }
}

/// `region-fraction`: the policy's lower end at least `at_least` of the capacity along every
/// listed ray (shown stable there, or `at_least` ≤ 0), its upper end shown unstable at most at
/// `at_most`.
pub(in crate::experiment::queueing) fn fraction(
    exp: &Experiment,
    limits: &[MapLimit],
    policy: usize,
    (at_least, at_most): (Option<f64>, Option<f64>),
    rays: &[usize],
) -> ClaimResult {
    let map = exp.region_map.as_ref().expect("validated with a map");
    let claim = format!(
        "{}'s stability region along {} of the map",
        exp.labels[policy],
        rays_words(map, rays)
    );
    let mut expected = Vec::new();
    if let Some(f) = at_least {
        expected.push(format!("at least {f} of the capacity (shown stable)"));
    }
    if let Some(f) = at_most {
        expected.push(format!("at most {f} of it (shown unstable)"));
    }
    let mut holds = true;
    let mut worst_lo: Option<(f64, usize)> = None;
    let mut worst_hi: Option<(f64, usize, bool)> = None;
    let mut failed: Vec<String> = Vec::new();
    for r in rays_of(map, rays) {
        let Some(l) = limits.iter().find(|l| l.ray == r && l.policy == policy) else {
            holds = false;
            failed.push(format!("{}: not searched", degrees(map.rays[r].degrees)));
            continue;
        };
        if let Some(f) = at_least {
            if worst_lo.is_none_or(|w| l.fractions.0 < w.0) {
                worst_lo = Some((l.fractions.0, r));
            }
            if l.fractions.0 < f {
                holds = false;
                failed.push(format!(
                    "{}: lower {:.4}",
                    degrees(map.rays[r].degrees),
                    l.fractions.0
                ));
            }
        }
        if let Some(f) = at_most {
            if worst_hi.is_none_or(|w| l.fractions.1 > w.0) {
                worst_hi = Some((l.fractions.1, r, l.upper_shown));
            }
            if !l.upper_shown || l.fractions.1 > f {
                holds = false;
                failed.push(format!(
                    "{}: upper {:.4}{}",
                    degrees(map.rays[r].degrees),
                    l.fractions.1,
                    if l.upper_shown {
                        ""
                    } else {
                        " (not shown unstable)"
                    }
                ));
            }
        }
    }
    let mut observed = Vec::new();
    if let Some((f, r)) = worst_lo {
        observed.push(format!(
            "lowest lower end {f:.4} (at {})",
            degrees(map.rays[r].degrees)
        ));
    }
    if let Some((f, r, shown)) = worst_hi {
        observed.push(format!(
            "highest upper end {f:.4} (at {}{})",
            degrees(map.rays[r].degrees),
            if shown { "" } else { ", not shown unstable" }
        ));
    }
    ClaimResult {
        claim,
        expected: expected.join(", "),
        observed: observed.join(", "),
        evidence: if failed.is_empty() {
            "every ray's interval as fractions of the exact capacity along it: region_map.csv"
                .into()
        } else {
            format!("short on {}", failed.join("; "))
        },
        holds,
        unchecked: None,
        exact: false,
    }
}

/// Along how many of the listed rays (all if empty) `boundary` lies inside `policy`'s
/// interval (both ends included, an upper end not shown unstable being the capacity), of how
/// many it was searched on, and the rays where it does not, in words.
pub(crate) fn boundary_inside(
    map: &RegionMapSpec,
    limits: &[MapLimit],
    policy: usize,
    boundary: MapBoundary,
    rays: &[usize],
) -> (usize, usize, Vec<String>) {
    let (mut inside, mut searched, mut outside) = (0, 0, Vec::new());
    for r in rays_of(map, rays) {
        let Some(l) = limits.iter().find(|l| l.ray == r && l.policy == policy) else {
            outside.push(format!("{}: not searched", degrees(map.rays[r].degrees)));
            continue;
        };
        let Some(b) = boundary.fraction(&map.rays[r]) else {
            continue;
        };
        searched += 1;
        // the same rounding slack on both sides: the ends and the boundary are computed apart
        let slack = 1e-9;
        if l.fractions.0 <= b + slack && b <= l.fractions.1 + slack {
            inside += 1;
        } else {
            outside.push(format!(
                "{}: {b:.4} outside [{:.4}, {:.4}]",
                degrees(map.rays[r].degrees),
                l.fractions.0,
                l.fractions.1
            ));
        }
    }
    (inside, searched, outside)
}

/// `region-boundary`: along every listed ray the map's `boundary` lies inside the policy's
/// interval: the limit is that boundary, as far as the search can tell.
pub(in crate::experiment::queueing) fn boundary(
    exp: &Experiment,
    limits: &[MapLimit],
    policy: usize,
    boundary: MapBoundary,
    rays: &[usize],
) -> ClaimResult {
    let map = exp.region_map.as_ref().expect("validated with a map");
    let (inside, searched, outside) = boundary_inside(map, limits, policy, boundary, rays);
    ClaimResult {
        claim: format!(
            "{}'s limit is {} along {} of the map",
            exp.labels[policy],
            boundary.words(),
            rays_words(map, rays)
        ),
        expected: format!("{} inside its interval on every ray", boundary.words()),
        observed: format!("inside on {inside} of {searched} rays"),
        evidence: if outside.is_empty() {
            "every ray's interval as fractions of the exact capacity along it: region_map.csv"
                .into()
        } else {
            format!("outside on {}", outside.join("; "))
        },
        holds: outside.is_empty() && searched > 0,
        unchecked: None,
        exact: false,
    }
}

/// `region-separated`: along every listed ray, the first policy's upper end was shown unstable
/// at a load no higher than the second's lower end, shown stable.
pub(in crate::experiment::queueing) fn separated(
    exp: &Experiment,
    limits: &[MapLimit],
    [a, b]: [usize; 2],
    rays: &[usize],
) -> ClaimResult {
    let map = exp.region_map.as_ref().expect("validated with a map");
    let claim = format!(
        "{}'s region below {}'s along {} of the map",
        exp.labels[a],
        exp.labels[b],
        rays_words(map, rays)
    );
    let mut holds = true;
    let mut gaps: Vec<String> = Vec::new();
    let mut fails: Vec<String> = Vec::new();
    for r in rays_of(map, rays) {
        let find = |p: usize| limits.iter().find(|l| l.ray == r && l.policy == p);
        let (Some(la), Some(lb)) = (find(a), find(b)) else {
            holds = false;
            fails.push(format!("{}: not searched", degrees(map.rays[r].degrees)));
            continue;
        };
        let ok = la.upper_shown && lb.lower_shown && la.fractions.1 <= lb.fractions.0;
        let words = format!(
            "{}: [{:.4}, {:.4}] against [{:.4}, {:.4}]",
            degrees(map.rays[r].degrees),
            la.fractions.0,
            la.fractions.1,
            lb.fractions.0,
            lb.fractions.1
        );
        if ok {
            gaps.push(words);
        } else {
            holds = false;
            fails.push(words);
        }
    }
    ClaimResult {
        claim,
        expected: format!(
            "{}'s upper end shown unstable ≤ {}'s lower end shown stable, on each ray",
            exp.labels[a], exp.labels[b]
        ),
        observed: if holds {
            format!("separated on {} rays", gaps.len())
        } else {
            format!("not separated on {}", fails.join("; "))
        },
        evidence: format!(
            "intervals as fractions of the capacity along each ray; separated: {}",
            if gaps.is_empty() {
                "none".into()
            } else {
                gaps.join("; ")
            }
        ),
        holds,
        unchecked: None,
        exact: false,
    }
}
