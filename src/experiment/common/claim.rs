//! A claim's outcome, the same for every kind of experiment.

/// A claim checked after the run: what it says, what was expected and observed, the numbers
/// behind it, and whether it held. Written to `claims.csv` and the report.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ClaimResult {
    pub claim: String,
    pub expected: String,
    pub observed: String,
    pub evidence: String,
    pub holds: bool,
}
