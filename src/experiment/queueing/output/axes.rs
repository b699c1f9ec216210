//! What every figure of a queueing file shares: the sweep's axis and the titles.

use crate::experiment::queueing::{Experiment, SweepKind};

pub(super) fn x_label(exp: &Experiment) -> &'static str {
    match exp.sweep {
        SweepKind::Load => "traffic intensity ρ = λ E[R] / (μ L)",
        SweepKind::ArrivalRate => "arrival rate λ (jobs per slot)",
        SweepKind::Fraction => "fraction of ρ* (maximum supportable traffic intensity)",
        SweepKind::Scaling => "traffic scaling c (arrival times divided by c)",
    }
}

/// x of sweep point `pt` on the figures' axis.
pub(super) fn x_of(exp: &Experiment, pt: usize) -> f64 {
    match exp.sweep {
        SweepKind::Load => exp.points[pt].load,
        SweepKind::ArrivalRate => exp.points[pt].arrival_rate,
        SweepKind::Fraction | SweepKind::Scaling => exp.points[pt].key,
    }
}

/// The title of a figure: the file's `title`, else `what` and the experiment's description up
/// to its first colon, semicolon or line end (the experiment's name in words if that is long).
pub(super) fn title_of(exp: &Experiment, title: &Option<String>, what: &str) -> String {
    if let Some(t) = title {
        return t.clone();
    }
    let d = exp.header.description.trim();
    let head = d
        .split([':', '\n', ';'])
        .next()
        .unwrap_or("")
        .trim_end_matches('.');
    if head.is_empty() || head.chars().count() > 70 {
        format!("{what} — {}", exp.name().replace(['_', '-'], " "))
    } else {
        format!("{what} — {head}")
    }
}
