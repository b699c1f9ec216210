//! What a region experiment computed.

use crate::experiment::common::ClaimResult;
use crate::experiment::region::run::{FamilyCase, RegionRow};
use crate::model::Size;
use crate::stability::region::BracketStep;

/// What a region experiment computed.
#[derive(Clone, Debug, Default)]
pub(crate) struct RegionOutcome {
    /// Rows of region.csv.
    pub(crate) rows: Vec<RegionRow>,
    /// Theorem 1's bracket, step by step.
    pub(crate) bracket: Vec<BracketStep>,
    /// The family's distributions.
    pub(crate) family: Vec<FamilyCase>,
    /// An optimal configuration mix of ρ* (finitely many sizes): (counts per size, fraction
    /// of servers), with the sizes.
    pub(crate) mix: Vec<(Vec<(Size, u32)>, f64)>,
    /// The claims' results.
    pub(crate) claims: Vec<ClaimResult>,
}
