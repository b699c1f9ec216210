//! The third stage of a region experiment: the units' results into one [`RegionOutcome`], and
//! the claims checked against it.

mod claims;
mod outcome;

pub(in crate::experiment::region) use claims::worst;
pub(crate) use outcome::RegionOutcome;

use super::RegionExperiment;
use super::run::Done;

/// The outcome from every unit's result, in plan order; then the claims.
pub(super) fn assemble(exp: &RegionExperiment, done: Vec<Done>) -> RegionOutcome {
    let mut out = RegionOutcome::default();
    for d in done {
        match d {
            Done::Regions { rows, bracket, mix } => {
                out.rows = rows;
                out.bracket = bracket;
                out.mix = mix;
            }
            Done::Case(c) => out.family.push(c),
        }
    }
    out.claims = claims::check(exp, &out);
    out
}
