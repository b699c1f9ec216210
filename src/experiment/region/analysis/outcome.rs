//! What a region experiment computed.

use crate::experiment::common::ClaimResult;
use crate::experiment::region::run::{FamilyCase, RegionRow};
use crate::model::Size;
use crate::stability::region::BracketStep;

/// What a region experiment computed.
#[derive(Clone, Debug, Default)]
pub struct RegionOutcome {
    pub rows: Vec<RegionRow>,
    pub bracket: Vec<BracketStep>,
    pub family: Vec<FamilyCase>,
    /// An optimal configuration mix of ρ* (finitely many sizes): (counts per size, fraction
    /// of servers), with the sizes.
    pub mix: Vec<(Vec<(Size, u32)>, f64)>,
    pub claims: Vec<ClaimResult>,
}
