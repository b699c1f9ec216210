//! A region map's outputs: `region_map.csv` (one row per ray and policy), the figure in the
//! plane (λ₁/μ, λ₂/μ) and the report's section. Formatting only: every number comes from the
//! analysis stage's [`MapLimit`]s and polygons.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::experiment::ExperimentError;
use crate::experiment::common::{F6, MdTable, Report, render_with, write_csv};
use crate::experiment::queueing::analysis::{MapLimit, MapPolygons, Outcome, boundary_inside};
use crate::experiment::queueing::{ClaimSpec, Experiment, MapBoundary, RegionMapSpec, degrees};
use crate::plot::{Band, Outline, PALETTE, RegionPlot, render_region};
use crate::stability::plane::Polygon;

/// `region_map.csv`: one row per (ray, policy). Boundaries and limits are λ/μ over the whole
/// cluster summed over the two types (the point on the ray is that times the shares); with
/// two job classes, the classes' loads in Erlangs λᵢ·E\[Sᵢ\] summed.
#[derive(Serialize, Default)]
struct MapRow {
    theta_deg: F6,
    share_1: F6,
    share_2: F6,
    capacity: F6,
    /// Empty for request vectors (K_RED is of one resource), likewise `dyadic`.
    kred: Option<F6>,
    dyadic: Option<F6>,
    /// Empty where the held types alone are outside 1/2 of the capacity region.
    half: Option<F6>,
    two_thirds: Option<F6>,
    /// With `[numa]`: the node-feasible boundary, which the fractions are of.
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes: Option<F6>,
    /// With `[constraints]`: the boundary under the placement constraints, which the fractions
    /// are of.
    #[serde(skip_serializing_if = "Option::is_none")]
    constrained: Option<F6>,
    policy: String,
    lower: F6,
    upper: F6,
    lower_fraction: F6,
    upper_fraction: F6,
    lower_shown: bool,
    upper_shown: bool,
    /// The probability that the probe showing the lower end decided wrongly, if a run is wrong
    /// with the calibrated 5 % (empty when the end is by theory).
    lower_error: Option<String>,
    /// The same for the upper end.
    upper_error: Option<String>,
    probes: usize,
    runs: usize,
    slots: u64,
    /// Each probe as `fraction:decision`, in the order tried.
    trail: String,
}

/// Writes `region_map.csv`.
pub(super) fn write_table(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<Option<PathBuf>, ExperimentError> {
    let Some(map) = &exp.region_map else {
        return Ok(None);
    };
    let l = exp.servers as f64;
    let rows: Vec<MapRow> = out
        .map
        .iter()
        .map(|m| {
            let r = &map.rays[m.ray];
            let t = &m.search.limit;
            MapRow {
                theta_deg: F6(r.degrees),
                share_1: F6(r.mix.0),
                share_2: F6(r.mix.1),
                capacity: F6(r.capacity * l),
                kred: Some(r.kred).filter(|k| k.is_finite()).map(|k| F6(k * l)),
                dyadic: Some(r.dyadic).filter(|k| k.is_finite()).map(|k| F6(k * l)),
                half: r.half().map(|c| F6(c * l)),
                two_thirds: r
                    .two_thirds()
                    .filter(|_| map.two_thirds_applies())
                    .map(|c| F6(c * l)),
                nodes: exp.numa.as_ref().and(r.restricted).map(|c| F6(c * l)),
                constrained: exp
                    .constraints
                    .as_ref()
                    .and(r.restricted)
                    .map(|c| F6(c * l)),
                policy: exp.labels[m.policy].clone(),
                lower: F6(m.totals.0),
                upper: F6(m.totals.1),
                lower_fraction: F6(m.fractions.0),
                upper_fraction: F6(m.fractions.1),
                lower_shown: m.lower_shown,
                upper_shown: m.upper_shown,
                lower_error: t.probe_at(t.lower).map(|p| format!("{:.1e}", p.error())),
                upper_error: t.probe_at(t.upper).map(|p| format!("{:.1e}", p.error())),
                probes: t.probes.len(),
                runs: t.runs(),
                slots: t.slots(),
                trail: t
                    .probes
                    .iter()
                    .map(|p| format!("{:.4}:{}", p.load / r.rho, p.decided_as()))
                    .collect::<Vec<_>>()
                    .join(" "),
            }
        })
        .collect();
    write_csv(dir.join("region_map.csv"), &rows).map(Some)
}

/// The held types in words (empty without), after `lead`.
fn held_words(map: &RegionMapSpec, l: f64, lead: &str) -> String {
    if map.held.is_empty() {
        return String::new();
    }
    let each: Vec<String> = map
        .held
        .iter()
        .map(|h| {
            let rate = (h.per_server * l * 1e9).round() / 1e9;
            format!("size {} held at λ/μ = {rate}", h.size.as_f64())
        })
        .collect();
    format!("{lead}{}", each.join(", "))
}

/// A polygon's vertices in the plane of the whole cluster.
fn scaled(p: &Polygon, by: f64) -> Vec<(f64, f64)> {
    p.vertices
        .iter()
        .map(|&(x, y)| (f64::from(x) * by, f64::from(y) * by))
        .collect()
}

/// A limit's two ends as points of the plane.
fn ends(map: &RegionMapSpec, m: &MapLimit) -> ((f64, f64), (f64, f64)) {
    let (a, b) = map.rays[m.ray].mix;
    (
        (m.totals.0 * a, m.totals.0 * b),
        (m.totals.1 * a, m.totals.1 * b),
    )
}

/// The map's exact regions as outlines, in the plane's units (λ/μ over the cluster): the
/// capacity region (restricted by NUMA nodes or constraints beside it), K_RED's, the dyadic
/// set's and the guarantees, or their slices at the held rates.
fn outlines(exp: &Experiment, map: &RegionMapSpec, polys: &MapPolygons) -> Vec<Outline> {
    let l = exp.servers as f64;
    let grey = (90, 90, 90);
    // the polygons of the two types, or with held types their slices at the held rates
    let [capacity, kred, dyadic, half, two_thirds] = match &polys.slices {
        Some(s) => [&s.capacity, &s.kred, &s.dyadic, &s.half, &s.two_thirds]
            .map(|v| v.iter().map(|&(x, y)| (x * l, y * l)).collect()),
        None => [
            scaled(&polys.capacity, l),
            scaled(&polys.kred, l),
            scaled(&polys.dyadic, l),
            scaled(&polys.capacity, l * 0.5),
            scaled(&polys.capacity, l * 2.0 / 3.0),
        ],
    };
    let mut outlines = vec![Outline {
        label: if map.vectors.is_some() {
            "capacity region (all configurations, every resource)".into()
        } else if !map.held.is_empty() {
            "capacity region at the held rates (all configurations)".into()
        } else {
            "capacity region (all configurations)".into()
        },
        points: capacity,
        colour: (0, 0, 0),
        dash: None,
        width: 2,
    }];
    // K_RED, the dyadic set and the 1/2 and 2/3 guarantees are of servers that take any job
    // (VQS and VQS-BF have no constrained form) of one resource: under placement constraints
    // they are not drawn beside the constrained capacity (region_map.csv keeps their columns),
    // and for request vectors they are not defined
    let any_job = exp.constraints.is_none() && map.vectors.is_none();
    if any_job {
        outlines.extend([
            Outline {
                label: format!("K_RED over X_{} (VQS's region)", map.j),
                points: kred,
                colour: (120, 60, 160),
                dash: None,
                width: 2,
            },
            Outline {
                label: format!("dyadic set, J = {}", map.j),
                points: dyadic,
                colour: (200, 120, 30),
                dash: Some(8.0),
                width: 2,
            },
        ]);
    }
    if let Some(restricted) = &polys.restricted {
        let label = match &exp.numa {
            Some(n) => format!(
                "capacity with NUMA nodes, {}% of jobs strict (LP per degree)",
                (n.strict * 100.0).round()
            ),
            None => "capacity with the placement constraints (LP per degree)".to_string(),
        };
        outlines.insert(
            1,
            Outline {
                label,
                points: restricted.iter().map(|&(x, y)| (x * l, y * l)).collect(),
                colour: (0, 140, 140),
                dash: None,
                width: 2,
            },
        );
    }
    if any_job {
        if map.two_thirds_applies() {
            outlines.push(Outline {
                label: "2/3 of capacity (VQS's guarantee)".into(),
                points: two_thirds,
                colour: grey,
                dash: Some(8.0),
                width: 1,
            });
        }
        outlines.push(Outline {
            label: "1/2 of capacity (BF-J/S's guarantee)".into(),
            points: half,
            colour: grey,
            // dotted, where 2/3 is dashed
            dash: Some(2.5),
            width: 1,
        });
    }
    outlines
}

/// Each mapped policy's colour: its own, or (a label that is not a policy's name, or a colour
/// taken) the next of the figures' palette.
fn colours(exp: &Experiment, map: &RegionMapSpec) -> Vec<(u8, u8, u8)> {
    // a policy's own colour, or (a label that is not a policy's name, or a colour taken)
    // the next of the figures' palette
    let mut used: Vec<(u8, u8, u8)> = Vec::new();
    let mut next = PALETTE.iter().cycle();
    map.policies
        .iter()
        .map(|&p| {
            let c = match exp.colours[p] {
                Some(c) if !used.contains(&c) => c,
                // at most one turn of the palette (more policies than colours reuse them)
                _ => *next
                    .by_ref()
                    .take(PALETTE.len())
                    .find(|c| !used.contains(c))
                    .unwrap_or(&PALETTE[used.len() % PALETTE.len()]),
            };
            used.push(c);
            c
        })
        .collect()
}

/// The report section's first paragraph: the plane, the exact regions and how to read the
/// intervals.
fn intro(r: &mut Report, exp: &Experiment, map: &RegionMapSpec, polys: &MapPolygons) {
    let l = exp.servers as f64;
    let verts = |p: &Polygon| {
        p.vertices
            .iter()
            .map(|(x, y)| format!("({x}, {y})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some((_, dims)) = map.vectors {
        r.line(format!(
            "\n## Region map\n\nThe plane of the two job types' arrival rates over the mean \
             service rate, (λ₁/μ, λ₂/μ), on {} server{} (type 1: {}; type 2: {}; {dims} \
             resources). Along each ray θ the arrivals mix the two types in proportion (cos θ, \
             sin θ). The capacity region is L times the convex hull of the configurations \
             (k₁, k₂) that fit a server in every resource, per server: vertices {}. K_RED, the \
             dyadic set and the 1/2 and 2/3 guarantees are of one resource and are not defined \
             for request vectors; a search's load counts the bottleneck resource of the ray's \
             mix. Each policy's limit along a ray is an interval from the limit search (lower \
             end shown stable, upper end shown unstable), here as fractions of the exact \
             capacity along the ray (the configuration LP); `region_map.csv` has them in the \
             plane's units with every probe.\n",
            exp.servers,
            if exp.servers == 1 { "" } else { "s" },
            map.type_words(0),
            map.type_words(1),
            verts(&polys.capacity),
        ));
    } else {
        r.line(format!(
            "\n## Region map\n\n{} The capacity region is L times the convex \
             hull of the configurations, per server: vertices {}; K_RED's over X_{}: {}; the dyadic \
             set's: {}. The 2/3 guarantee {}. Each policy's limit along a ray is an interval from the \
             limit search (lower end shown stable, upper end shown unstable), here as fractions of \
             the exact capacity along the ray; `region_map.csv` has them in the plane's units with \
             every probe.{}{}\n",
            plane_words(exp, map),
            verts(&polys.capacity),
            map.j,
            verts(&polys.kred),
            verts(&polys.dyadic),
            if map.two_thirds_applies() {
                format!("applies (both sizes exceed 2^−{})", map.j)
            } else {
                format!("does not apply (a size is at most 2^−{})", map.j)
            },
            match &exp.numa {
                Some(n) => format!(
                    " The servers have NUMA nodes and {}% of the jobs must run inside one: the \
                     fractions are of the node-feasible capacity along each ray (the LP over nodes), \
                     and the K_RED and dyadic columns stay relative to the capacity without nodes.",
                    (n.strict * 100.0).round()
                ),
                None if exp.constraints.is_some() => " Jobs have placement constraints: the \
                     fractions are of the capacity under the constraints along each ray (the LP over \
                     server groups of the ground truth's servers and job classes), and the K_RED and \
                     dyadic columns stay relative to the capacity without them."
                    .to_string(),
                None => String::new(),
            },
            if map.held.is_empty() {
                String::new()
            } else {
                format!(
                    " The map is a slice: {}. The vertices above are of the two free types alone; \
                     with the held types the regions are cut at their rates, and every boundary \
                     along a ray (the capacity region's, K_RED's, the dyadic set's and the \
                     guarantees', 1/2 and 2/3 of the capacity region cut at the same rates) is \
                     found by bisection over the configuration LP of all the types. The \
                     fractions are of the sliced capacity along the ray.",
                    held_words(map, l, "")
                )
            },
        ));
    }
}

/// The report's sentences saying what the plane is (one resource): the types' arrival rates
/// over the common service rate, or with two job classes their loads in Erlangs.
fn plane_words(exp: &Experiment, map: &RegionMapSpec) -> String {
    let servers = format!(
        "{} server{}",
        exp.servers,
        if exp.servers == 1 { "" } else { "s" }
    );
    match exp.workload.classes() {
        Some(mix) => {
            let class = |k: usize| {
                format!(
                    "class {}: size {}, mean service {:.6} slots",
                    k + 1,
                    map.sizes[k].as_f64(),
                    mix.classes()[k].service.mean()
                )
            };
            format!(
                "The plane of the two job classes' loads in Erlangs, (λ₁·E[S₁], λ₂·E[S₂]) over \
                 the cluster (a class's arrival rate times its mean service: how many of its \
                 jobs are in service on average), on {servers} ({}; {}). Along each ray θ the \
                 two classes' λᵢ·E[Sᵢ] are in proportion (cos θ, sin θ); a job is of class i \
                 with probability proportional to its share over E[Sᵢ]. The configuration LP \
                 sees a class only through its size and that rate, so the exact regions are \
                 those of the two sizes.",
                class(0),
                class(1)
            )
        }
        None => format!(
            "The plane of the two job types' arrival rates over the mean service rate, (λ₁/μ, \
             λ₂/μ), on {servers} (sizes {} and {}). Along each ray θ the arrivals mix the two \
             types in proportion (cos θ, sin θ).",
            map.sizes[0].as_f64(),
            map.sizes[1].as_f64()
        ),
    }
}

/// The figure's axis label of type `k` (0 or 1).
fn axis_label(exp: &Experiment, map: &RegionMapSpec, k: usize) -> String {
    let sub = ["₁", "₂"][k];
    match exp.workload.classes() {
        Some(mix) => format!(
            "λ{sub}·E[S{sub}] (class {}, size {}, E[S{sub}] = {} slots)",
            k + 1,
            map.sizes[k].as_f64(),
            mix.classes()[k].service.mean()
        ),
        None => format!("λ{sub}/μ (type {}, {})", k + 1, map.type_words(k)),
    }
}

/// Draws `region_map.png` and `.svg`.
pub(super) fn draw(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<Option<[PathBuf; 2]>, ExperimentError> {
    let (Some(map), Some(polys)) = (&exp.region_map, &out.polygons) else {
        return Ok(None);
    };
    let l = exp.servers as f64;
    let mut outlines = outlines(exp, map, polys);
    // a held type's outside a region (e.g. K_RED's): nothing to draw
    outlines.retain(|o| !o.points.is_empty());
    // the configurations are the capacity polygon's vertices only without held types
    let vertices = if map.held.is_empty() {
        polys
            .capacity
            .vertices
            .iter()
            .map(|&(x, y)| ((f64::from(x) * l, f64::from(y) * l), format!("({x}, {y})")))
            .collect()
    } else {
        Vec::new()
    };
    let colours = colours(exp, map);
    let bands = map
        .policies
        .iter()
        .zip(colours)
        .map(|(&p, colour)| Band {
            label: match expected_inside(exp, map, out, p) {
                Some((b, k, n)) => format!(
                    "{}: {} inside its interval on {k} of {n} rays",
                    exp.labels[p],
                    b.words()
                ),
                None => exp.labels[p].clone(),
            },
            colour,
            segments: out
                .map
                .iter()
                .filter(|m| m.policy == p)
                .map(|m| ends(map, m))
                .collect(),
        })
        .collect();
    let plot = RegionPlot {
        title: map.title.clone().unwrap_or_else(|| {
            format!(
                "{}: stability regions, {} and {}",
                exp.header.name,
                map.type_words(0),
                map.type_words(1)
            )
        }),
        note: Some(format!(
            "{} server{}, {} rays; limits searched to {} of the {}capacity along each ray{}",
            exp.servers,
            if exp.servers == 1 { "" } else { "s" },
            map.rays.len(),
            map.search.resolution,
            if exp.numa.is_some() {
                "node-feasible "
            } else if exp.constraints.is_some() {
                "constrained "
            } else {
                ""
            },
            held_words(map, l, "; ")
        )),
        x_label: axis_label(exp, map, 0),
        y_label: axis_label(exp, map, 1),
        outlines,
        vertices,
        bands,
    };
    render_with(dir, "region_map", |stem| render_region(&plot, stem)).map(Some)
}

/// The boundary policy `p`'s limit is expected to be, and on how many of the rays searched
/// for it that boundary lies inside its interval, of how many: the boundary a
/// `region-boundary` claim declares for it (the first), else for VQS K_RED's (its region: for
/// other policies K_RED's count says nothing) where the map has K_RED and the limits are of
/// servers without NUMA nodes or constraints; `None` otherwise.
fn expected_inside(
    exp: &Experiment,
    map: &RegionMapSpec,
    out: &Outcome,
    p: usize,
) -> Option<(MapBoundary, usize, usize)> {
    let declared = exp.claims.iter().find_map(|c| match c {
        ClaimSpec::RegionBoundary {
            policy, boundary, ..
        } if *policy == p => Some(*boundary),
        _ => None,
    });
    let vqs = exp.policies[p].single().is_some_and(|s| s.name() == "vqs");
    let boundary = match declared {
        Some(b) => b,
        None if vqs && map.vectors.is_none() && exp.numa.is_none() && exp.constraints.is_none() => {
            MapBoundary::Kred
        }
        None => return None,
    };
    let (inside, searched, _) = boundary_inside(map, &out.map, p, boundary, &[]);
    (searched > 0).then_some((boundary, inside, searched))
}

/// The report's section: how to read the map, the exact regions, and each ray's intervals.
pub(super) fn report(r: &mut Report, exp: &Experiment, out: &Outcome) {
    let (Some(map), Some(polys)) = (&exp.region_map, &out.polygons) else {
        return;
    };
    let l = exp.servers as f64;
    intro(r, exp, map, polys);
    let one_resource = map.vectors.is_none();
    let unit = if exp.workload.classes().is_some() {
        "capacity λ·E[S]"
    } else {
        "capacity λ/μ"
    };
    let mut header = vec!["θ".to_string(), unit.into()];
    if one_resource {
        header.extend(["K_RED / capacity".into(), "dyadic / capacity".into()]);
    }
    if exp.numa.is_some() {
        header.push("with nodes / capacity".into());
    } else if exp.constraints.is_some() {
        header.push("with constraints / capacity".into());
    }
    header.extend(map.policies.iter().map(|&p| exp.labels[p].clone()));
    let mut tab = MdTable::new(header);
    for (i, ray) in map.rays.iter().enumerate() {
        let mut row = vec![degrees(ray.degrees), format!("{:.4}", ray.capacity * l)];
        if one_resource {
            row.extend([
                format!("{:.4}", ray.kred / ray.capacity),
                format!("{:.4}", ray.dyadic / ray.capacity),
            ]);
        }
        if let Some(c) = ray.restricted {
            row.push(format!("{:.4}", c / ray.capacity));
        }
        for &p in &map.policies {
            row.push(out.map.iter().find(|m| m.ray == i && m.policy == p).map_or(
                "not searched".into(),
                |m| {
                    format!(
                        "[{:.3}, {:.3}{}]",
                        m.fractions.0,
                        m.fractions.1,
                        if m.upper_shown { "" } else { "*" }
                    )
                },
            ));
        }
        tab.row(row);
    }
    r.table(&tab);
    r.line(
        "\n`*`: no probe showed the upper end unstable; it is the capacity, above which no \
         policy is stable. Each end shown by a probe is wrong with probability at most \
         P(Bin(n, 0.05) > n/2) for its n runs if a run is wrong with the calibrated 5 % \
         (7.3·10⁻³ for 3 runs, 8.6·10⁻⁵ for 6): `lower_error` and `upper_error` in \
         `region_map.csv`.\n",
    );
}
