//! A claim's outcome, the same for every kind of experiment.

/// A claim checked after the run: what it says, what was expected and observed, the numbers
/// behind it, and whether it held. Written to `claims.csv` and the report.
/// In `claims.csv` the `holds` column reads `true`, `false` or `not checked`.
#[derive(Clone, Debug, Default)]
pub struct ClaimResult {
    /// The claim in words.
    pub claim: String,
    /// What it expects.
    pub expected: String,
    /// What was measured.
    pub observed: String,
    /// The numbers behind the measurement.
    pub evidence: String,
    /// Whether it holds.
    pub holds: bool,
    /// Why the claim could not be checked in this run (only under `--quick`, whose shortened
    /// plan can lack what the claim needs; validation refuses such claims otherwise). A claim
    /// not checked neither holds nor fails.
    pub unchecked: Option<String>,
    /// The check does not depend on the run's length (ρ* by the exact configuration LP), so a
    /// `--quick` run checks it too.
    pub(crate) exact: bool,
}

impl ClaimResult {
    /// Whether it held, or was not checked (so the exit status is not 1).
    pub fn passes(&self) -> bool {
        self.holds || self.unchecked.is_some()
    }

    /// Marks the claim as evaluated on a `--quick` run: what was observed stays, but a
    /// shortened run checks nothing that depends on its length (its horizons and replications
    /// are too short to decide a verdict, an interval or a bracket), so the claim neither holds
    /// nor fails; an exact claim (ρ* by the configuration LP) is checked as in a full run.
    pub fn shortened(&mut self) {
        if self.unchecked.is_some() || self.exact {
            return;
        }
        let why = format!(
            "not checked at this length (--quick shortens the run; the full run checks it){}",
            if self.holds {
                ""
            } else {
                ", and this shortened run does not show it"
            }
        );
        self.evidence = format!("{why}; {}", self.evidence);
        self.unchecked = Some(why);
    }

    /// `holds`, `FAILS` or `not checked`.
    pub fn status(&self) -> &'static str {
        match (&self.unchecked, self.holds) {
            (Some(_), _) => "not checked",
            (None, true) => "holds",
            (None, false) => "FAILS",
        }
    }

    /// A claim that this run cannot check, and why.
    pub fn not_checked(claim: String, expected: String, why: &str) -> ClaimResult {
        ClaimResult {
            claim,
            expected,
            observed: "not checked".into(),
            evidence: why.into(),
            holds: false,
            unchecked: Some(why.into()),
            exact: false,
        }
    }
}

impl serde::Serialize for ClaimResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut r = s.serialize_struct("ClaimResult", 5)?;
        r.serialize_field("claim", &self.claim)?;
        r.serialize_field("expected", &self.expected)?;
        r.serialize_field("observed", &self.observed)?;
        r.serialize_field("evidence", &self.evidence)?;
        match self.unchecked {
            Some(_) => r.serialize_field("holds", "not checked")?,
            None => r.serialize_field("holds", &self.holds)?,
        }
        r.end()
    }
}
