//! The first stage of a region experiment: its file into a [`RegionExperiment`] (the size
//! law, the bracket, the restricted sets, the random family, plots and claims).

mod schema;

use std::path::Path;

use crate::configurations::MAX_J;
use crate::experiment::ExperimentError;
use crate::experiment::common::{Ctx, Header, parse_toml, service_law, size_law};
use crate::limits::{MAX_FAMILY, MAX_REGION_TYPES};
use crate::stability::region::{EXACT_GRIDS, exact_grid};
use crate::workload::SizeLaw;
use schema::{Raw, RawBracket, RawClaim, RawPlot};

/// Which restricted set a family claim is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) enum SetKind {
    /// The reduced configurations K_RED.
    Kred,
    /// The configurations of the dyadic partition.
    Dyadic,
}

/// A claim of a region experiment.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) enum RegionClaim {
    /// The worst ratio over the family lies within the bounds.
    MinRatio {
        /// The restricted set.
        set: SetKind,
        /// The least worst ratio.
        at_least: Option<f64>,
        /// The largest worst ratio.
        at_most: Option<f64>,
    },
    /// Both ends of the bracket move monotonically inwards.
    BracketMonotone,
    /// The last bracket is at most this wide.
    BracketWidth {
        /// The largest width.
        at_most: f64,
    },
    /// ρ* (or its whole bracket) lies within the bounds.
    RhoStar {
        /// The least ρ*.
        at_least: Option<f64>,
        /// The largest ρ*.
        at_most: Option<f64>,
    },
}

/// The random family: (distributions, most sizes per distribution, J).
pub(crate) type Family = (usize, usize, u32);

/// A validated region experiment.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct RegionExperiment {
    /// Name, description, seed and file.
    pub(crate) header: Header,
    /// The size law whose regions are computed, if any.
    pub(crate) sizes: Option<SizeLaw>,
    /// (servers L, mean service 1/μ in slots), to report λ* = c·L·μ.
    pub(crate) scale: Option<(usize, f64)>,
    /// The depths J of the restricted sets computed.
    pub(crate) js: Vec<u32>,
    /// Theorem 1's bracket: (first number of intervals, most intervals, tolerance).
    pub(crate) bracket: (usize, usize, f64),
    /// The random family, if any.
    pub(crate) family: Option<Family>,
    /// (kind, title, file) of each plot.
    pub(crate) plots: Vec<(String, Option<String>, String)>,
    /// The claims to check.
    pub(crate) claims: Vec<RegionClaim>,
}

fn j_ok(cx: &Ctx<'_>, key: &str, j: i64) -> Result<u32, ExperimentError> {
    if (1..=MAX_J as i64).contains(&j) {
        Ok(j as u32)
    } else {
        Err(cx.bad(key, &format!("J in [1, {MAX_J}]"), j))
    }
}

impl RegionExperiment {
    /// Validates a region experiment's text.
    pub(crate) fn parse(file: &Path, source: &str) -> Result<Self, ExperimentError> {
        let raw: Raw = parse_toml(file, source)?;
        let cx = Ctx::new(file);
        let header = Header::new(&cx, source, raw.name, raw.description, raw.seed)?;
        let (sizes, service) = match raw.workload {
            Some(w) => {
                let law = size_law(&cx, w.sizes)?;
                if let Some(atoms) = law.atoms() {
                    cx.at_most(
                        "workload.sizes",
                        atoms.len(),
                        MAX_REGION_TYPES,
                        "distinct sizes (each region's configurations are enumerated; the cost grows about as the square of the sizes: 4 s at 200)",
                    )?;
                }
                (Some(law), w.service)
            }
            None => (None, None),
        };
        let scale = match (raw.cluster, service) {
            (Some(c), Some(s)) => {
                let l = cx.positive("cluster.servers", c.servers)? as usize;
                Some((l, service_law(&cx, "workload.service", s)?.mean()))
            }
            (None, None) => None,
            _ => {
                return Err(cx.bad(
                    "cluster",
                    "both [cluster] servers and workload.service = { dist = …, mean = … } (to report λ*), or neither",
                    "only one",
                ));
            }
        };
        let js = raw
            .region
            .j
            .unwrap_or_default()
            .into_iter()
            .map(|j| j_ok(&cx, "region.J", j))
            .collect::<Result<Vec<_>, _>>()?;
        let bracket = bracket(&cx, raw.region.bracket)?;
        let family = match raw.region.family {
            None => None,
            Some(f) => {
                let count = cx.positive("region.family.count", f.count)?;
                let count =
                    cx.at_most("region.family.count", count, MAX_FAMILY, "distributions")? as usize;
                let types = cx.positive("region.family.max_types", f.max_types)? as usize;
                if types > 50 {
                    return Err(cx.bad("region.family.max_types", "at most 50", types));
                }
                Some((count, types, j_ok(&cx, "region.family.J", f.j)?))
            }
        };
        if sizes.is_none() && family.is_none() {
            return Err(cx.bad(
                "workload",
                "a [workload] with sizes, or a region.family, or both",
                "neither",
            ));
        }
        let plots = plots(&cx, raw.plot, sizes.is_some(), family.is_some())?;
        let claims = claims(&cx, raw.claim, sizes.is_some(), family.is_some(), bracket)?;
        Ok(RegionExperiment {
            header: Header {
                inputs: cx.inputs(),
                ..header
            },
            sizes,
            scale,
            js,
            bracket,
            family,
            plots,
            claims,
        })
    }

    /// About 1/100 of the family, and brackets to 32 intervals at most.
    pub(crate) fn quick(&mut self) {
        if let Some(f) = &mut self.family {
            f.0 = (f.0 / 100).max(1);
        }
        self.bracket.1 = self.bracket.1.min(32.max(self.bracket.0));
    }
}

/// `region.bracket`: (start, max_intervals, tolerance).
fn bracket(cx: &Ctx<'_>, raw: Option<RawBracket>) -> Result<(usize, usize, f64), ExperimentError> {
    let b = raw.unwrap_or(RawBracket {
        start: None,
        max_intervals: None,
        tolerance: None,
    });
    let start = cx.positive("region.bracket.start", b.start.unwrap_or(8))?;
    // every cut k/n of every grid must be exact (doubling keeps it so up to 1024)
    if start > 1024 || !exact_grid(start) {
        return Err(cx.bad(
            "region.bracket.start",
            &format!(
                "a number of intervals ≤ 1024 {EXACT_GRIDS}: for example 8, 10, 12, 15, 16, 20, 24"
            ),
            start,
        ));
    }
    let start = start as usize;
    let max = cx.positive(
        "region.bracket.max_intervals",
        b.max_intervals.unwrap_or(256),
    )? as usize;
    if max > 1024 || max < start {
        return Err(cx.bad(
            "region.bracket.max_intervals",
            &format!("an integer in [start = {start}, 1024] (the cost grows as n³)"),
            max,
        ));
    }
    let tol = b.tolerance.unwrap_or(0.0);
    if !tol.is_finite() || tol < 0.0 {
        return Err(cx.bad("region.bracket.tolerance", "a width ≥ 0", tol));
    }
    Ok((start, max, tol))
}

/// `[[plot]]`: `bracket` needs sizes, `family-ratios` a family.
fn plots(
    cx: &Ctx<'_>,
    raw: Vec<RawPlot>,
    sizes: bool,
    family: bool,
) -> Result<Vec<(String, Option<String>, String)>, ExperimentError> {
    let mut plots = Vec::new();
    for (i, p) in raw.into_iter().enumerate() {
        let ok = match p.kind.as_str() {
            "bracket" => sizes,
            "family-ratios" => family,
            _ => {
                return Err(cx.bad(
                    &format!("plot[{i}].kind"),
                    "\"bracket\" or \"family-ratios\"",
                    format!("\"{}\"", p.kind),
                ));
            }
        };
        if !ok {
            return Err(cx.bad(
                &format!("plot[{i}].kind"),
                "a plot of something this file computes ([workload] for bracket, region.family for family-ratios)",
                &p.kind,
            ));
        }
        let file = p.file.unwrap_or_else(|| p.kind.clone());
        cx.figure_name(&format!("plot[{i}].file"), &file)?;
        if plots
            .iter()
            .any(|(_, _, f): &(String, Option<String>, String)| *f == file)
        {
            return Err(cx.bad(
                &format!("plot[{i}].file"),
                "a file name no other plot of this file uses (each plot writes FILE.png and FILE.svg)",
                &file,
            ));
        }
        plots.push((p.kind, p.title, file));
    }
    Ok(plots)
}

/// `[[claim]]`: family claims need a family, the others sizes.
fn claims(
    cx: &Ctx<'_>,
    raw: Vec<RawClaim>,
    sizes: bool,
    family: bool,
    bracket: (usize, usize, f64),
) -> Result<Vec<RegionClaim>, ExperimentError> {
    let mut claims = Vec::new();
    for (i, c) in raw.into_iter().enumerate() {
        let key = |k: &str| format!("claim[{i}].{k}");
        let bounds = || {
            if c.at_least.is_none() && c.at_most.is_none() {
                Err(cx.bad(&key("at_least"), "`at_least` and/or `at_most`", "neither"))
            } else {
                Ok((c.at_least, c.at_most))
            }
        };
        let claim = match c.kind.as_str() {
            "min-ratio" => {
                let set = match c.set.as_deref() {
                    Some("kred") => SetKind::Kred,
                    Some("dyadic") => SetKind::Dyadic,
                    other => {
                        return Err(cx.bad(
                            &key("set"),
                            "\"kred\" or \"dyadic\"",
                            other.map_or("nothing".into(), |o| format!("\"{o}\"")),
                        ));
                    }
                };
                if !family {
                    return Err(cx.bad(&key("kind"), "a region.family to check", "none"));
                }
                let (at_least, at_most) = bounds()?;
                RegionClaim::MinRatio {
                    set,
                    at_least,
                    at_most,
                }
            }
            "bracket-monotone" => {
                if bracket.0 * 2 > bracket.1 {
                    return Err(cx.bad(
                        &key("kind"),
                        "a bracket of at least two levels for `bracket-monotone` (region.bracket.max_intervals ≥ 2 × start)",
                        format!("start = {}, max_intervals = {}", bracket.0, bracket.1),
                    ));
                }
                RegionClaim::BracketMonotone
            }
            "bracket-width" => RegionClaim::BracketWidth {
                at_most: c
                    .at_most
                    .ok_or_else(|| cx.bad(&key("at_most"), "a width", "nothing"))?,
            },
            "rho-star" => {
                let (at_least, at_most) = bounds()?;
                RegionClaim::RhoStar { at_least, at_most }
            }
            other => {
                return Err(cx.bad(
                    &key("kind"),
                    "\"min-ratio\", \"bracket-monotone\", \"bracket-width\" or \"rho-star\"",
                    format!("\"{other}\""),
                ));
            }
        };
        if !matches!(claim, RegionClaim::MinRatio { .. }) && !sizes {
            return Err(cx.bad(&key("kind"), "a [workload] to check", "none"));
        }
        claims.push(claim);
    }
    Ok(claims)
}
