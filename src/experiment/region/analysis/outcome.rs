//! What a region experiment computed.

use crate::experiment::common::ClaimResult;
use crate::model::Size;
use crate::stability::region::BracketStep;

/// One row of region.csv.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RegionRow {
    pub set: String,
    pub j: Option<u32>,
    pub per_server: f64,
    pub traffic: f64,
    /// Ratio to ρ* (an interval when ρ* is bracketed).
    pub ratio: (f64, f64),
}

/// One random distribution of the family.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FamilyCase {
    pub atoms: Vec<(Size, f64)>,
    pub mean: f64,
    pub rho_star: f64,
    pub kred: f64,
    pub dyadic: f64,
}

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
