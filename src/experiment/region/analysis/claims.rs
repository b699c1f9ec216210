//! The claims of a region experiment.

use super::outcome::RegionOutcome;
use crate::experiment::common::ClaimResult;
use crate::experiment::region::{RegionClaim, RegionExperiment, SetKind};

pub(crate) fn worst(out: &RegionOutcome, set: SetKind) -> Option<(usize, f64)> {
    out.family
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let v = match set {
                SetKind::Kred => c.kred,
                SetKind::Dyadic => c.dyadic,
            };
            (i, v / c.rho_star)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn within(x: f64, lo: Option<f64>, hi: Option<f64>) -> bool {
    lo.is_none_or(|l| x >= l) && hi.is_none_or(|h| x <= h)
}

fn bounds_text(lo: Option<f64>, hi: Option<f64>) -> String {
    match (lo, hi) {
        (Some(l), Some(h)) => format!("in [{l}, {h}]"),
        (Some(l), None) => format!("≥ {l}"),
        (None, Some(h)) => format!("≤ {h}"),
        (None, None) => "anything".into(),
    }
}

/// Checks every claim against the outcome.
pub(super) fn check(exp: &RegionExperiment, out: &RegionOutcome) -> Vec<ClaimResult> {
    exp.claims
        .iter()
        .map(|c| match c {
            RegionClaim::MinRatio {
                set,
                at_least,
                at_most,
            } => {
                let name = match set {
                    SetKind::Kred => "rho(K_RED)/rho*",
                    SetKind::Dyadic => "rho(dyadic)/rho*",
                };
                let (i, r) = worst(out, *set).unwrap_or((0, f64::NAN));
                let case = out.family.get(i);
                let sizes = case
                    .map(|c| {
                        c.atoms
                            .iter()
                            .map(|(s, p)| format!("{:.4}@{:.3}", s.as_f64(), p))
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                ClaimResult {
                    claim: format!(
                        "worst {name} over {} distributions is {}",
                        out.family.len(),
                        bounds_text(*at_least, *at_most)
                    ),
                    expected: bounds_text(*at_least, *at_most),
                    observed: format!("{r:.6}"),
                    evidence: format!("worst case {i}: sizes@probabilities {sizes}"),
                    holds: within(r, *at_least, *at_most),
                    unchecked: None,
                    exact: false,
                }
            }
            RegionClaim::BracketMonotone if out.bracket.len() < 2 => ClaimResult::not_checked(
                "the bracket narrows monotonically as the partition is refined".into(),
                "monotone".into(),
                "one level of the bracket (--quick stops at 32 intervals)",
            ),
            RegionClaim::BracketMonotone => {
                let b = &out.bracket;
                let ok = b.windows(2).all(|w| {
                    w[1].lower_bound >= w[0].lower_bound - 1e-9
                        && w[1].upper_bound <= w[0].upper_bound + 1e-9
                });
                ClaimResult {
                    claim: "the bracket narrows monotonically as the partition is refined".into(),
                    expected: "monotone".into(),
                    observed: if ok { "monotone" } else { "not monotone" }.into(),
                    evidence: b
                        .iter()
                        .map(|s| {
                            format!(
                                "n={}: [{:.6}, {:.6}]",
                                s.intervals, s.lower_bound, s.upper_bound
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("; "),
                    holds: ok && b.len() >= 2,
                    unchecked: None,
                    exact: false,
                }
            }
            RegionClaim::BracketWidth { at_most } => {
                let last = out.bracket.last();
                let w = last.map_or(f64::INFINITY, |s| s.width());
                ClaimResult {
                    claim: format!("the final bracket is at most {at_most} wide"),
                    expected: format!("≤ {at_most}"),
                    observed: format!("{w:.6}"),
                    evidence: last
                        .map(|s| {
                            format!(
                                "n={}: [{:.6}, {:.6}]",
                                s.intervals, s.lower_bound, s.upper_bound
                            )
                        })
                        .unwrap_or_default(),
                    holds: w <= *at_most,
                    unchecked: None,
                    exact: false,
                }
            }
            RegionClaim::RhoStar { at_least, at_most } => {
                let exact = out.rows.first().is_some_and(|r| r.j.is_none());
                let (lo, hi) = match out.rows.first() {
                    Some(r) if r.j.is_none() => (r.traffic, r.traffic),
                    _ => out
                        .bracket
                        .last()
                        .map_or((f64::NAN, f64::NAN), |s| (s.lower_bound, s.upper_bound)),
                };
                ClaimResult {
                    claim: format!("rho* is {}", bounds_text(*at_least, *at_most)),
                    expected: bounds_text(*at_least, *at_most),
                    observed: format!("[{lo:.6}, {hi:.6}]"),
                    evidence:
                        "exact for finitely many sizes or a perfect packing, else the last bracket"
                            .into(),
                    holds: within(lo, *at_least, None) && within(hi, None, *at_most),
                    unchecked: None,
                    exact,
                }
            }
        })
        .collect()
}
