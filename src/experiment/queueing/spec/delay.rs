//! What a delay figure or claim is about: the waiting or the response time, and which of its
//! statistics (the mean or a quantile).

use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;

/// A job's delay: its waiting time (placement − arrival) or its response time (wait +
/// service), slots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) enum DelayQuantity {
    /// Waiting time.
    #[default]
    Wait,
    /// Response time.
    Response,
}

impl DelayQuantity {
    /// As written in a file and in `waits.csv`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DelayQuantity::Wait => "wait",
            DelayQuantity::Response => "response",
        }
    }

    /// The key `key` of the file (`None`: the waiting time).
    pub(in crate::experiment::queueing) fn parse(
        cx: &Ctx<'_>,
        key: &str,
        value: Option<&str>,
    ) -> Result<Self, ExperimentError> {
        match value {
            None | Some("wait") => Ok(DelayQuantity::Wait),
            Some("response") => Ok(DelayQuantity::Response),
            Some(other) => Err(cx.bad(key, "\"wait\" or \"response\"", format!("\"{other}\""))),
        }
    }
}

/// A statistic of a delay's distribution: its mean, or one of the reported quantiles
/// (index into [`crate::experiment::queueing::analysis::delay::QUANTILES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) enum Statistic {
    /// The mean.
    Mean,
    /// The quantile of this index: 0 p50, 1 p90, 2 p99, 3 p99.9.
    Quantile(usize),
}

/// The statistics' names in files, in [`Statistic`] order after `mean`.
const NAMES: [&str; 4] = ["p50", "p90", "p99", "p99.9"];

impl Statistic {
    /// Its name: `mean`, `p50`, `p90`, `p99` or `p99.9`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Statistic::Mean => "mean",
            Statistic::Quantile(i) => NAMES[i],
        }
    }

    /// The key `key` of the file (`None`: `default`).
    pub(in crate::experiment::queueing) fn parse(
        cx: &Ctx<'_>,
        key: &str,
        value: Option<&str>,
        default: Statistic,
    ) -> Result<Self, ExperimentError> {
        match value {
            None => Ok(default),
            Some("mean") => Ok(Statistic::Mean),
            Some(v) => NAMES
                .iter()
                .position(|n| *n == v)
                .map(Statistic::Quantile)
                .ok_or_else(|| {
                    cx.bad(
                        key,
                        "\"mean\", \"p50\", \"p90\", \"p99\" or \"p99.9\"",
                        format!("\"{v}\""),
                    )
                }),
        }
    }
}
