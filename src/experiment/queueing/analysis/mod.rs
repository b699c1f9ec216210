//! The third stage of a queueing experiment: every unit's result assembled into one
//! [`Outcome`] holding each derived table, computed once (the summary per policy and point,
//! the delays per constraint, the synthesis validation, the saturated loads, a region map's
//! limits and polygons), then the claims checked against it. The output stage only formats
//! what is here.

mod claims;
mod constraints;
pub(crate) mod delay;
mod groups;
mod outcome;
mod region_map;
mod results;
mod stats;
mod wait_claim;

pub(crate) use constraints::{kendall_tau, mean_abs_errors, trend};
pub(crate) use groups::GroupRow;
pub(crate) use outcome::Outcome;
pub(crate) use region_map::{MapLimit, MapPolygons, boundary_inside};
pub(crate) use results::SummaryRow;
pub(crate) use stats::mean_ci;

use super::Experiment;
use super::run::Done;
use results::summarise;

/// The outcome from every unit's result, in plan order; then the claims.
pub(in crate::experiment::queueing) fn assemble(exp: &Experiment, done: Vec<Done>) -> Outcome {
    let mut out = Outcome {
        runs: Vec::new(),
        summary: Vec::new(),
        thresholds: Vec::new(),
        saturation: Vec::new(),
        claims: Vec::new(),
        study: Vec::new(),
        delays: Vec::new(),
        validations: Vec::new(),
        map: Vec::new(),
        groups: Vec::new(),
        polygons: region_map::polygons(exp),
    };
    let mut rays = Vec::new();
    for d in done {
        match d {
            Done::Run(r) => out.runs.push(*r),
            Done::Limit(t) => out.thresholds.push(*t),
            Done::Saturation(p, s) => out.saturation.push((p, s)),
            Done::Study(r) => out.study.push(*r),
            Done::Ray(r) => rays.push(*r),
        }
    }
    out.map = region_map::limits(exp, rays);
    out.summary = summarise(exp, &out.runs);
    out.groups = groups::groups(exp, &out);
    if let Some(q) = &exp.constraints {
        out.delays = constraints::delays(q, &out.runs, &out.summary);
        out.validations = constraints::validations(exp, q, &out.runs, &out.summary);
    }
    out.claims = claims::check(exp, &out);
    out
}
