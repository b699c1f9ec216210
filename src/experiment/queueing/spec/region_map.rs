//! `[region_map]`: a policy's stability region mapped in the plane of two job types. The
//! workload's two sizes are the types; along each direction θ of the plane (λ₁/μ, λ₂/μ) the
//! arrivals are a mix of them in proportion (cos θ, sin θ), and the exact boundaries along the
//! direction (the capacity region's, K_RED's over X_J, the dyadic set's) are computed here by the
//! configuration LP; with `[numa]`, also the boundary of servers with NUMA nodes (the LP over
//! nodes), and with `[constraints]` the boundary under the placement constraints (the LP over
//! server groups), which the policies' limits are then compared with. With two job classes
//! (`workload.classes`, each of one size and its own service law) the plane is that of the
//! classes' loads in Erlangs (λ₁·E\[S₁\], λ₂·E\[S₂\]: each class's jobs in service on
//! average): the configuration LP sees a class only through its size and that rate, so the
//! boundaries are the same computation. The run stage searches each listed policy's limit along
//! each direction.

use super::constraints::constrained_traffic;
use super::schema::RawRegionMap;
use super::{QueueConstraints, QueueNuma, SearchSpec, Workload};
use crate::configurations::Partition;
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::model::Size;
use crate::stability::plane::rays::{Boundaries, Boundary, BoundaryOf, slice};
pub(crate) use crate::stability::plane::rays::{Held, bottleneck, mix};
use crate::stability::region::{rho_reduced, rho_star};
use crate::workload::SizeLaw;

/// One direction of the map, with the exact boundaries along it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) struct Ray {
    /// θ, degrees in [0, 90]: 0 is type 1 alone, 90 type 2 alone.
    pub(crate) degrees: f64,
    /// The shares of type 1 and type 2 among arrivals along the ray (cos θ, sin θ normalised
    /// to sum 1).
    pub(crate) mix: (f64, f64),
    /// The capacity region's boundary along the ray: c = λ*/(μ L), jobs per server per mean
    /// service time, over all feasible configurations.
    pub(crate) capacity: f64,
    /// K_RED's boundary over X_J, same unit (the region VQS and VQS-BF are guaranteed); NaN for
    /// request vectors (K_RED is of one resource).
    pub(crate) kred: f64,
    /// The dyadic set's boundary (homogeneous configurations of sizes rounded up to powers of
    /// two), same unit; NaN for request vectors.
    pub(crate) dyadic: f64,
    /// The boundary of restricted servers, same unit: with `[numa]`, of servers with the file's
    /// NUMA nodes and share of strict jobs (the node-feasible configuration LP); with
    /// `[constraints]`, of the ground truth's servers and job classes (the configuration LP
    /// over server groups).
    pub(crate) restricted: Option<f64>,
    /// ρ* along the ray as a traffic intensity (c · E\[R\] of the ray's mix; with `[numa]` or
    /// `[constraints]`, of the restricted boundary): the load the search is relative to. With
    /// held types, the free types' traffic at the boundary (the held types' comes on top).
    pub(crate) rho: f64,
    /// The boundaries along the ray of 1/2 and 2/3 of the capacity region when they are not
    /// `capacity` scaled: with held types its slice at the held rates (`None` where the held
    /// types alone are outside it); for request vectors none (the guarantees are of one
    /// resource). Same unit as `capacity`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) guarantees: Option<(Option<f64>, Option<f64>)>,
}

impl Ray {
    /// The atoms (size, probability) of the ray's size law (one atom on an axis).
    pub(crate) fn atoms(&self, sizes: [Size; 2]) -> Vec<(Size, f64)> {
        let mut atoms = Vec::with_capacity(2);
        if self.mix.0 > 0.0 {
            atoms.push((sizes[0], self.mix.0));
        }
        if self.mix.1 > 0.0 {
            atoms.push((sizes[1], self.mix.1));
        }
        atoms
    }

    /// The boundary the policies' limits are compared with: with NUMA nodes or placement
    /// constraints the restricted one, else the capacity region's (jobs per server per mean
    /// service time).
    pub(crate) fn limit_capacity(&self) -> f64 {
        self.restricted.unwrap_or(self.capacity)
    }

    /// The mean size along the ray, E\[R\] (of the free types' mix).
    pub(crate) fn mean_size(&self, sizes: [Size; 2]) -> f64 {
        self.mix.0 * sizes[0].as_f64() + self.mix.1 * sizes[1].as_f64()
    }

    /// The boundary along the ray of 1/2 of the capacity region (BF-J/S's guarantee), same
    /// unit as `capacity`; `None` where the held types alone are outside it.
    pub(crate) fn half(&self) -> Option<f64> {
        match self.guarantees {
            Some((h, _)) => h,
            None => Some(0.5 * self.capacity),
        }
    }

    /// The same for 2/3 of it (VQS's guarantee, where it applies).
    pub(crate) fn two_thirds(&self) -> Option<f64> {
        match self.guarantees {
            Some((_, t)) => t,
            None => Some(2.0 / 3.0 * self.capacity),
        }
    }
}

/// One of a map's exact boundaries, which a `region-boundary` claim expects a policy's limit
/// to be (and the figure's legend checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) enum MapBoundary {
    /// The capacity region's.
    Capacity,
    /// K_RED's over X_J (VQS's region).
    Kred,
    /// The dyadic set's.
    Dyadic,
    /// 1/2 of the capacity region (BF-J/S's guarantee).
    Half,
    /// 2/3 of it (VQS's guarantee).
    TwoThirds,
    /// The restricted capacity's (NUMA nodes or placement constraints).
    Restricted,
}

impl MapBoundary {
    /// Every boundary a claim may name.
    const ALL: [MapBoundary; 6] = [
        MapBoundary::Capacity,
        MapBoundary::Kred,
        MapBoundary::Dyadic,
        MapBoundary::Half,
        MapBoundary::TwoThirds,
        MapBoundary::Restricted,
    ];

    /// The boundary a claim's `boundary` names ([`MapBoundary::key`]).
    pub(crate) fn parse(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.key() == key)
    }

    /// Its name in a file.
    pub(crate) fn key(self) -> &'static str {
        match self {
            MapBoundary::Capacity => "capacity",
            MapBoundary::Kred => "kred",
            MapBoundary::Dyadic => "dyadic",
            MapBoundary::Half => "half",
            MapBoundary::TwoThirds => "two-thirds",
            MapBoundary::Restricted => "restricted",
        }
    }

    /// Its name in words.
    pub(crate) fn words(self) -> &'static str {
        match self {
            MapBoundary::Capacity => "the capacity's boundary",
            MapBoundary::Kred => "K_RED's boundary",
            MapBoundary::Dyadic => "the dyadic set's boundary",
            MapBoundary::Half => "1/2 of the capacity",
            MapBoundary::TwoThirds => "2/3 of the capacity",
            MapBoundary::Restricted => "the restricted capacity's boundary",
        }
    }

    /// Where it lies along `ray` as a fraction of the boundary the policies' limits are
    /// measured against ([`Ray::limit_capacity`]); `None` where the ray has no such boundary.
    pub(crate) fn fraction(self, ray: &Ray) -> Option<f64> {
        let at = match self {
            MapBoundary::Capacity => Some(ray.capacity),
            MapBoundary::Kred => Some(ray.kred),
            MapBoundary::Dyadic => Some(ray.dyadic),
            MapBoundary::Half => ray.half(),
            MapBoundary::TwoThirds => ray.two_thirds(),
            MapBoundary::Restricted => ray.restricted,
        }?;
        (at.is_finite() && ray.limit_capacity() > 0.0).then(|| at / ray.limit_capacity())
    }
}

/// `[region_map]`, validated.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) struct RegionMapSpec {
    /// The two job types' sizes, in the order the file writes them (type 1 is the x axis).
    pub(crate) sizes: [Size; 2],
    /// The directions, in the file's order (increasing for `rays = N`).
    pub(crate) rays: Vec<Ray>,
    /// The policies mapped (indices into the experiment's policies).
    pub(crate) policies: Vec<usize>,
    /// J of X_J for K_RED's region and of the dyadic partition.
    pub(crate) j: u32,
    /// How each limit is searched along a ray.
    pub(crate) search: SearchSpec,
    /// The figure's title (a default naming the experiment and the sizes when `None`).
    pub(crate) title: Option<String>,
    /// The types held at fixed rates (`[[region_map.held]]`), in the file's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) held: Vec<Held>,
    /// A map of two request vectors (the multi-resource path): the vectors (fixed point, per
    /// resource) and how many resources they have; `sizes` then holds each one's largest
    /// request, for labels only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) vectors: Option<([[u64; 3]; 2], usize)>,
}

impl RegionMapSpec {
    /// Whether the 2/3 guarantee applies: every job larger than 2^−J (Psychas & Ghaderi,
    /// Theorem 3 with Proposition 1).
    pub(crate) fn two_thirds_applies(&self) -> bool {
        let floor = Size::ratio(1, 1 << self.j);
        self.vectors.is_none()
            && self.sizes.iter().all(|&s| s > floor)
            && self.held.iter().all(|h| h.size > floor)
    }

    /// The ray at `degrees` (to [`ANGLE_TOLERANCE`], so that a claim may name the rays of
    /// `rays = N` by their six-decimal values), if the map has it.
    pub(crate) fn ray_at(&self, degrees: f64) -> Option<usize> {
        self.rays
            .iter()
            .position(|r| (r.degrees - degrees).abs() < ANGLE_TOLERANCE)
    }

    /// Type `k` (0 or 1) in words: its size, or its request vector.
    pub(crate) fn type_words(&self, k: usize) -> String {
        match &self.vectors {
            Some((v, dims)) => format!(
                "request ({})",
                v[k][..*dims]
                    .iter()
                    .map(|&x| Size(x).as_f64().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!("size {}", self.sizes[k].as_f64()),
        }
    }

    /// The size law at a point of ray `ray` where the free types arrive at `free` jobs per
    /// server per mean service time in total, the held types at their rates: its atoms (size,
    /// probability) and the total rate, jobs per server per mean service time.
    #[cfg(test)]
    pub(crate) fn law_at(&self, ray: usize, free: f64) -> (Vec<(Size, f64)>, f64) {
        let r = &self.rays[ray];
        crate::stability::plane::rays::rates_law(
            [
                (self.sizes[0], free * r.mix.0),
                (self.sizes[1], free * r.mix.1),
            ],
            &self.held,
        )
    }
}

/// Two directions closer than this (degrees) are the same one.
pub(crate) const ANGLE_TOLERANCE: f64 = 1e-5;

/// How close to the capacity region's boundary the held types alone may be (a fraction of it):
/// closer, the free types' slice is within the LP's precision of zero and every ratio to it
/// is noise.
const HELD_MARGIN: f64 = 1e-3;

/// The most copies of one type a server may hold in a map: the plane's configurations are
/// enumerated one count of a type at a time.
const MAX_PLANE_COPIES: u64 = 1 << 20;

/// The most held types of a map: each boundary along each ray is cut by bisection, one
/// configuration LP over every type per step.
const MAX_HELD: usize = 8;

/// The least rate of a held type, jobs per server per mean service time: below it a type
/// carries no measurable load (and the LP's coefficients underflow).
const MIN_HELD_RATE: f64 = 1e-9;

/// The least gap between two directions of `angles` (degrees): outputs write four decimals;
/// a rounding's worth below 10⁻⁴, so that angles written 0.0001 apart are accepted.
const MIN_ANGLE_GAP: f64 = 1e-4 * (1.0 - 1e-9);

/// A direction as written in outputs: degrees with at most four decimals.
pub(crate) fn degrees(d: f64) -> String {
    let s = format!("{d:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}°")
}

/// The most directions a map may have.
const MAX_RAYS: usize = 256;

/// Validates `[region_map]` against the workload (two sizes, sampled) and the policy labels.
pub(in crate::experiment::queueing) fn region_map(
    cx: &Ctx<'_>,
    raw: Option<&RawRegionMap>,
    workload: &Workload,
    labels: &[String],
    servers: usize,
    restriction: Restriction<'_>,
) -> Result<Option<RegionMapSpec>, ExperimentError> {
    let Some(m) = raw else {
        return Ok(None);
    };
    if let Workload::Requests { requests, dims, .. } = workload {
        return vector_map(cx, m, (requests, *dims), labels, restriction).map(Some);
    }
    if let Some(mix) = workload.classes() {
        class_map(cx, m, mix)?;
    }
    // the distinct sizes in the file's order: the first written is type 1 (the x axis)
    let written = match workload {
        Workload::Sampled { sizes, .. } if let SizeLaw::Discrete { values, .. } = &**sizes => {
            let mut v: Vec<Size> = Vec::new();
            for &x in values {
                if !v.contains(&x) {
                    v.push(x);
                }
            }
            Some(v)
        }
        _ => None,
    };
    let Some(written) = written.filter(|_| matches!(workload, Workload::Sampled { .. })) else {
        return Err(match workload {
            Workload::Sampled { .. } => cx.bad(
                "workload.sizes",
                "a discrete law of two sizes for a [region_map] (its two job types)",
                "a continuous law",
            ),
            _ => cx.bad(
                "region_map",
                "sampled sizes or two request vectors (a map of a replayed trace is not built)",
                "a trace",
            ),
        });
    };
    if let Some(s) = written
        .iter()
        .find(|s| Size::UNIT / s.0.max(1) > MAX_PLANE_COPIES)
    {
        return Err(cx.bad(
            "workload.sizes",
            &format!(
                "sizes of at least 2⁻²⁰ of a server (≈ 9.5e-7) for a [region_map]: its \
                 boundaries enumerate the configurations of the plane, up to {MAX_PLANE_COPIES} \
                 copies of a type per server"
            ),
            format!("{:.3e}", s.as_f64()),
        ));
    }
    let held = held(cx, m, &written, servers)?;
    let free: Vec<Size> = written
        .iter()
        .copied()
        .filter(|s| !held.iter().any(|h| h.size == *s))
        .collect();
    let sizes = match free[..] {
        [a, b] => [a, b],
        _ if free.len() > 2 => {
            return Err(cx.bad(
                "workload.sizes",
                "two free sizes for a [region_map] (more than two free types cannot be mapped \
                 in a plane: hold the others at fixed rates with [[region_map.held]])",
                format!("{} free sizes", free.len()),
            ));
        }
        _ => {
            return Err(cx.bad(
                "workload.sizes",
                "two free sizes for a [region_map] (its two job types), besides any held ones",
                format!(
                    "{} free size{}",
                    free.len(),
                    if free.len() == 1 { "" } else { "s" }
                ),
            ));
        }
    };
    let degrees = directions(cx, m)?;
    let policies = map_policies(cx, m, labels)?;
    let j = map_j(cx, m)?;
    let search = search(cx, m)?;
    let rays = degrees
        .into_iter()
        .map(|d| ray(cx, (sizes, &held), d, j, restriction))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(RegionMapSpec {
        sizes,
        rays,
        policies,
        j,
        search,
        title: m.title.clone(),
        held,
        vectors: None,
    }))
}

/// `region_map.policies`: labels of the file's policies, distinct (all when absent).
fn map_policies(
    cx: &Ctx<'_>,
    m: &RawRegionMap,
    labels: &[String],
) -> Result<Vec<usize>, ExperimentError> {
    Ok(match &m.policies {
        None => (0..labels.len()).collect(),
        Some(names) => {
            if names.is_empty() {
                return Err(cx.bad("region_map.policies", "at least one policy label", "[]"));
            }
            let mut out: Vec<usize> = Vec::new();
            for n in names {
                let p = labels.iter().position(|l| l == n).ok_or_else(|| {
                    cx.bad(
                        "region_map.policies",
                        &format!("labels of this file's policies ({})", labels.join(", ")),
                        format!("\"{n}\""),
                    )
                })?;
                if out.contains(&p) {
                    return Err(cx.bad(
                        "region_map.policies",
                        "distinct policy labels",
                        format!("\"{n}\" twice"),
                    ));
                }
                out.push(p);
            }
            out
        }
    })
}

/// `region_map.J` (default 4).
fn map_j(cx: &Ctx<'_>, m: &RawRegionMap) -> Result<u32, ExperimentError> {
    Ok(match m.j {
        None => 4,
        Some(j) if (1..=crate::configurations::MAX_J as i64).contains(&j) => j as u32,
        Some(j) => {
            return Err(cx.bad(
                "region_map.J",
                &format!(
                    "an integer in [1, {}] (depth of X_J)",
                    crate::configurations::MAX_J
                ),
                j,
            ));
        }
    })
}

/// A map of two request vectors: the file's `tasks` law must hold exactly two distinct
/// vectors; the boundary along each ray is the configuration LP over their configurations
/// (exact, in fixed point, every resource). No K_RED, dyadic set or guarantees (they are of
/// one resource), no held types, NUMA nodes or placement constraints.
fn vector_map(
    cx: &Ctx<'_>,
    m: &RawRegionMap,
    (requests, dims): (&[[u64; 3]], usize),
    labels: &[String],
    restriction: Restriction<'_>,
) -> Result<RegionMapSpec, ExperimentError> {
    let mut v: Vec<[u64; 3]> = Vec::new();
    for r in requests {
        if !v.contains(r) {
            v.push(*r);
            if v.len() > 2 {
                break; // too many already: no need to read the rest
            }
        }
    }
    let [a, b] = v[..] else {
        return Err(cx.bad(
            "workload.sizes",
            "two distinct request vectors for a [region_map] of request vectors (its two job \
             types)",
            if v.len() > 2 {
                "more than two distinct request vectors".to_string()
            } else {
                format!("{} distinct request vector", v.len())
            },
        ));
    };
    let copies = |r: &[u64; 3]| {
        (0..dims)
            .filter(|&d| r[d] > 0)
            .map(|d| Size::UNIT / r[d])
            .min()
            .unwrap_or(0)
    };
    if let Some(r) = [a, b].iter().find(|r| copies(r) > MAX_PLANE_COPIES) {
        return Err(cx.bad(
            "workload.sizes.file",
            &format!(
                "request vectors of which a server holds at most {MAX_PLANE_COPIES} copies, for \
                 a [region_map] (its boundaries enumerate the configurations of the plane)"
            ),
            format!(
                "({}), of which it holds {}",
                r[..dims]
                    .iter()
                    .map(|&x| format!("{:.3e}", Size(x).as_f64()))
                    .collect::<Vec<_>>()
                    .join(", "),
                copies(r)
            ),
        ));
    }
    if m.held.as_ref().is_some_and(|h| !h.is_empty()) {
        return Err(cx.bad(
            "region_map.held",
            "no held types with request vectors (a slice needs the one-resource LP)",
            "held types",
        ));
    }
    if !matches!(restriction, Restriction::None) {
        return Err(cx.bad(
            "region_map",
            "a map of request vectors on servers without NUMA nodes or placement constraints",
            "[numa] or [constraints]",
        ));
    }
    let vectors = [a, b];
    let rays = directions(cx, m)?
        .into_iter()
        .map(|d| vector_ray(cx, (vectors, dims), d))
        .collect::<Result<Vec<_>, _>>()?;
    let largest = |r: &[u64; 3]| Size(r[..dims].iter().copied().max().unwrap_or(0));
    Ok(RegionMapSpec {
        sizes: [largest(&a), largest(&b)],
        rays,
        policies: map_policies(cx, m, labels)?,
        j: map_j(cx, m)?,
        search: search(cx, m)?,
        title: m.title.clone(),
        held: Vec::new(),
        vectors: Some((vectors, dims)),
    })
}

/// A map of two job classes: the plane of the classes' loads in Erlangs (λᵢ·E\[Sᵢ\] over the
/// cluster), each class of one size, the two sizes distinct, no held types (a held type's
/// rate is of the common service law).
fn class_map(
    cx: &Ctx<'_>,
    m: &RawRegionMap,
    mix: &crate::workload::ClassMix,
) -> Result<(), ExperimentError> {
    let classes = mix.classes();
    if classes.len() != 2 {
        return Err(cx.bad(
            "workload.classes",
            "two classes for a [region_map] (its two job types)",
            format!("{} classes", classes.len()),
        ));
    }
    let mut sizes = Vec::with_capacity(2);
    for (i, c) in classes.iter().enumerate() {
        match c.sizes.atoms().as_deref() {
            Some([(size, _)]) => sizes.push(*size),
            _ => {
                return Err(cx.bad(
                    &format!("workload.classes[{i}].size"),
                    "one size per class for a [region_map] (each class is a point type of the \
                     plane)",
                    "a law of several sizes",
                ));
            }
        }
    }
    if sizes[0] == sizes[1] {
        return Err(cx.bad(
            "workload.classes",
            "two classes of different sizes for a [region_map] (the configuration LP tells \
             the types apart by size)",
            format!("both of size {}", sizes[0].as_f64()),
        ));
    }
    if m.held.as_ref().is_some_and(|h| !h.is_empty()) {
        return Err(cx.bad(
            "region_map.held",
            "no held types with `workload.classes` (a held type's rate is of one service law)",
            "held types",
        ));
    }
    Ok(())
}

/// The ray of two request vectors at `degrees`: its boundary by the LP over the vectors'
/// configurations.
fn vector_ray(
    cx: &Ctx<'_>,
    (v, dims): ([[u64; 3]; 2], usize),
    degrees: f64,
) -> Result<Ray, ExperimentError> {
    let mix = mix(degrees);
    let configs: Vec<Vec<u32>> = crate::stability::plane::vector_configurations(v, dims)
        .into_iter()
        .map(|(a, b)| vec![a, b])
        .collect();
    let capacity = crate::configurations::region::restricted(&configs, &[mix.0, mix.1])
        .map_err(|e| {
            cx.bad(
                "region_map",
                "request vectors whose configuration LP solves",
                format!("at {degrees}°: {e}"),
            )
        })?
        .per_server;
    Ok(Ray {
        degrees,
        mix,
        capacity,
        kred: f64::NAN,
        dyadic: f64::NAN,
        restricted: None,
        rho: capacity * bottleneck((v, dims), mix).1,
        guarantees: Some((None, None)),
    })
}

/// `[[region_map.held]]`: each a size of the workload's law and a rate, λ/μ over the cluster
/// (> 0), distinct sizes.
fn held(
    cx: &Ctx<'_>,
    m: &RawRegionMap,
    written: &[Size],
    servers: usize,
) -> Result<Vec<Held>, ExperimentError> {
    let mut out: Vec<Held> = Vec::new();
    let count = m.held.as_ref().map_or(0, Vec::len);
    if count > MAX_HELD {
        return Err(cx.bad(
            "region_map.held",
            &format!(
                "at most {MAX_HELD} held types (each boundary of each ray is found by bisection, \
                 one configuration LP over every type per step)"
            ),
            count,
        ));
    }
    for (i, h) in m.held.iter().flatten().enumerate() {
        let key = |k: &str| format!("region_map.held[{i}].{k}");
        let size = Size::from_f64(h.size)
            .filter(|s| written.contains(s))
            .ok_or_else(|| {
                cx.bad(
                    &key("size"),
                    "one of the sizes of workload.sizes (the type to hold)",
                    h.size,
                )
            })?;
        if out.iter().any(|o| o.size == size) {
            return Err(cx.bad(
                &key("size"),
                "distinct held sizes",
                format!("{} twice", h.size),
            ));
        }
        if !(h.rate.is_finite() && h.rate / servers as f64 >= MIN_HELD_RATE) {
            return Err(cx.bad(
                &key("rate"),
                &format!(
                    "a rate of at least {MIN_HELD_RATE:e} per server, λ/μ over the whole cluster \
                     (jobs per mean service time, the plane's unit; a type below it carries no \
                     load: remove it)"
                ),
                h.rate,
            ));
        }
        out.push(Held {
            size,
            per_server: h.rate / servers as f64,
        });
    }
    Ok(out)
}

/// The directions in degrees: `rays = N` evenly from 0 to 90 (both axes included), or
/// `angles`, each in [0, 90] and distinct.
fn directions(cx: &Ctx<'_>, m: &RawRegionMap) -> Result<Vec<f64>, ExperimentError> {
    match (m.rays, &m.angles) {
        (Some(_), Some(_)) => Err(cx.bad(
            "region_map.angles",
            "`rays` (a number of directions) or `angles` (a list), not both",
            "both",
        )),
        (None, None) => Err(cx.bad(
            "region_map.rays",
            "a number of directions from 0° to 90° (e.g. 16), or `angles` in degrees",
            "neither",
        )),
        (Some(n), None) => {
            if !(2..=MAX_RAYS as i64).contains(&n) {
                return Err(cx.bad(
                    "region_map.rays",
                    &format!("an integer in [2, {MAX_RAYS}] (directions from 0° to 90°)"),
                    n,
                ));
            }
            Ok((0..n).map(|k| 90.0 * k as f64 / (n - 1) as f64).collect())
        }
        (None, Some(a)) => {
            if a.is_empty() {
                return Err(cx.bad(
                    "region_map.angles",
                    "at least one direction, degrees in [0, 90]",
                    "[]",
                ));
            }
            if a.len() > MAX_RAYS {
                return Err(cx.bad(
                    "region_map.angles",
                    &format!("at most {MAX_RAYS} directions"),
                    a.len(),
                ));
            }
            for (i, &d) in a.iter().enumerate() {
                if !(0.0..=90.0).contains(&d) {
                    return Err(cx.bad(
                        &format!("region_map.angles[{i}]"),
                        "a direction in the positive quadrant, degrees in [0, 90]",
                        d,
                    ));
                }
                if let Some(j) = a[..i].iter().position(|&e| (e - d).abs() < MIN_ANGLE_GAP) {
                    return Err(cx.bad(
                        &format!("region_map.angles[{i}]"),
                        "distinct directions, at least 0.0001° apart (outputs write directions \
                         to four decimals)",
                        format!("{d}, within 0.0001° of region_map.angles[{j}] = {}", a[j]),
                    ));
                }
            }
            Ok(a.clone())
        }
    }
}

/// The map's search: `resolution` (fraction of the capacity along the ray, default 0.02),
/// `max_probes` (default 12) and `rounds` per probe (default 3).
fn search(cx: &Ctx<'_>, m: &RawRegionMap) -> Result<SearchSpec, ExperimentError> {
    let max_probes = match m.max_probes {
        None => 12,
        Some(s) if (1..=60).contains(&s) => s as u32,
        Some(s) => return Err(cx.bad("region_map.max_probes", "an integer in [1, 60]", s)),
    };
    let resolution = match m.resolution {
        None => 0.02,
        Some(r) if r > 0.0 && r < 1.0 => r,
        Some(r) => {
            return Err(cx.bad(
                "region_map.resolution",
                "a fraction of the capacity along a ray, in (0, 1)",
                r,
            ));
        }
    };
    let rounds = match m.rounds {
        None => 3,
        Some(r) if (1..=20).contains(&r) => r as u32,
        Some(r) => return Err(cx.bad("region_map.rounds", "an integer in [1, 20]", r)),
    };
    Ok(SearchSpec {
        resolution,
        max_probes,
        rounds,
    })
}

/// The ray at `degrees` and its exact boundaries.
fn ray(
    cx: &Ctx<'_>,
    (sizes, held): ([Size; 2], &[Held]),
    degrees: f64,
    j: u32,
    restriction: Restriction<'_>,
) -> Result<Ray, ExperimentError> {
    let mut ray = Ray {
        degrees,
        mix: mix(degrees),
        capacity: 0.0,
        kred: 0.0,
        dyadic: 0.0,
        restricted: None,
        rho: 0.0,
        guarantees: None,
    };
    if !held.is_empty() {
        return held_ray(cx, ray, (sizes, held), j, restriction);
    }
    let atoms = ray.atoms(sizes);
    let mean = ray.mean_size(sizes);
    let lp = |e: crate::configurations::region::RegionError| {
        cx.bad(
            "region_map",
            "a workload whose configuration LP solves",
            format!("at {degrees}°: {e}"),
        )
    };
    let all = rho_star(&atoms).map_err(lp)?;
    ray.capacity = all.per_server;
    ray.rho = all.traffic;
    ray.kred = rho_reduced(&atoms, &Partition::universal(j), mean)
        .map_err(lp)?
        .per_server;
    ray.dyadic = rho_reduced(&atoms, &Partition::dyadic(j), mean)
        .map_err(lp)?
        .per_server;
    if let Some(traffic) = restriction.traffic(&atoms) {
        let traffic = traffic.map_err(|e| {
            let (key, what) = match restriction {
                Restriction::Constraints(_) => ("constraints", "placement constraints"),
                _ => ("numa", "NUMA nodes"),
            };
            cx.bad(
                key,
                &format!("sizes whose ρ* with {what} can be computed"),
                format!("at {degrees}°: {e}"),
            )
        })?;
        ray.restricted = Some(traffic / mean);
        ray.rho = traffic;
    }
    Ok(ray)
}

/// The boundaries of `ray` with the `held` types at their rates: each region's slice along
/// the ray.
fn held_ray(
    cx: &Ctx<'_>,
    mut ray: Ray,
    (sizes, held): ([Size; 2], &[Held]),
    j: u32,
    restriction: Restriction<'_>,
) -> Result<Ray, ExperimentError> {
    let degrees = ray.degrees;
    let along = |c_of: &BoundaryOf<'_>| {
        slice(sizes, ray.mix, held, c_of).map_err(|e| {
            cx.bad(
                "region_map",
                "a workload whose configuration LP solves",
                format!("at {degrees}°: {e}"),
            )
        })
    };
    let outside = |what: &str| {
        cx.bad(
            "region_map.held",
            &format!(
                "rates inside the {what}: the held types alone must be supportable \
                 (λ/μ over the whole cluster)"
            ),
            "rates outside it",
        )
    };
    let boundaries = Boundaries::new(j, restriction.boundary());
    // the held types alone must leave the free ones a slice the LP can measure
    let total: f64 = held.iter().map(|h| h.per_server).sum();
    let own: Vec<(Size, f64)> = held
        .iter()
        .map(|h| (h.size, h.per_server / total))
        .collect();
    let room = |c_of: &BoundaryOf<'_>, what: &str| -> Result<(), ExperimentError> {
        let c = c_of(&own).map_err(|e| {
            cx.bad(
                "region_map.held",
                "held rates whose configuration LP solves",
                e,
            )
        })?;
        if total > c * (1.0 - HELD_MARGIN) {
            return Err(cx.bad(
                "region_map.held",
                &format!(
                    "held rates at most {:.1} % of the {what} along the held types' own mix \
                     (closer to it, the free types' slice is below the LP's precision)",
                    100.0 * (1.0 - HELD_MARGIN)
                ),
                format!("{:.7} % of it", 100.0 * total / c),
            ));
        }
        Ok(())
    };
    room(&boundaries.capacity, "capacity region")?;
    if let Some(c_of) = &boundaries.restricted {
        room(c_of, "restricted capacity region")?;
    }
    ray.capacity = along(&boundaries.capacity)?.ok_or_else(|| outside("capacity region"))?;
    ray.kred = along(&boundaries.kred)?.unwrap_or(0.0);
    ray.dyadic = along(&boundaries.dyadic)?.unwrap_or(0.0);
    ray.guarantees = Some((along(&boundaries.half)?, along(&boundaries.two_thirds)?));
    if let Some(c_of) = &boundaries.restricted {
        let what = match restriction {
            Restriction::Constraints(_) => "capacity under the placement constraints",
            _ => "node-feasible capacity",
        };
        ray.restricted = Some(along(c_of)?.ok_or_else(|| outside(what))?);
    }
    ray.rho = ray.limit_capacity() * ray.mean_size(sizes);
    Ok(ray)
}

/// What limits the servers beyond capacity 1, if anything: the boundary a map's policies are
/// measured against.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Restriction<'a> {
    /// Servers of capacity 1 and nothing else.
    None,
    /// NUMA nodes with the file's share of strict jobs.
    Nodes(&'a QueueNuma),
    /// Placement constraints: the ground truth's servers and job classes.
    Constraints(&'a QueueConstraints),
}

impl<'a> Restriction<'a> {
    /// The restriction of an experiment's `[numa]` or `[constraints]` (never both).
    pub(crate) fn of(
        numa: Option<&'a QueueNuma>,
        constraints: Option<&'a QueueConstraints>,
    ) -> Self {
        match (numa, constraints) {
            (Some(n), _) => Restriction::Nodes(n),
            (None, Some(q)) => Restriction::Constraints(q),
            (None, None) => Restriction::None,
        }
    }

    /// The restricted region's boundary along any law (jobs per server per mean service time),
    /// `None` without a restriction.
    pub(crate) fn boundary(self) -> Option<Boundary<'a>> {
        (!matches!(self, Restriction::None)).then(|| {
            Box::new(move |a: &[(Size, f64)]| {
                let mean: f64 = a.iter().map(|(s, p)| s.as_f64() * p).sum();
                self.traffic(a).expect("a restriction").map(|t| t / mean)
            }) as Boundary<'a>
        })
    }

    /// ρ* (traffic intensity) of size law `atoms` on the restricted servers, `None` without a
    /// restriction.
    pub(crate) fn traffic(self, atoms: &[(Size, f64)]) -> Option<Result<f64, String>> {
        match self {
            Restriction::None => None,
            Restriction::Nodes(n) => Some(node_traffic(atoms, n)),
            Restriction::Constraints(q) => Some(constrained_traffic(&q.truth.classes, atoms)),
        }
    }
}

/// ρ* (traffic intensity) of `atoms` on the servers of `numa` with its share of strict jobs.
pub(crate) fn node_traffic(atoms: &[(Size, f64)], numa: &QueueNuma) -> Result<f64, String> {
    let nodes = numa.layout.nodes(&[Size::UNIT, Size::UNIT, 0]);
    let cpu: Vec<u64> = nodes.iter().map(|n| n[0]).collect();
    super::numa::numa_rho(atoms, numa.strict, &cpu)
}
