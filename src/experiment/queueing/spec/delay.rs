//! What a delay figure, claim or table column is about: the waiting or the response time, and
//! which of its statistics (the mean or a quantile). The one table of quantities and
//! statistics: [`DelayQuantity::ALL`] × [`Statistic::ALL`] make the delay columns of
//! `summary.csv`, [`BY_SIZE`] those of `waits_by_size.csv`, and the names files use.

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
    /// Every quantity, in the order of the outputs' columns.
    pub(crate) const ALL: [DelayQuantity; 2] = [DelayQuantity::Wait, DelayQuantity::Response];

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
/// (index into [`QUANTILES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) enum Statistic {
    /// The mean.
    Mean,
    /// The quantile of this index: 0 p50, 1 p90, 2 p99, 3 p99.9.
    Quantile(usize),
}

/// The quantiles reported, in [`Statistic::Quantile`] order: the median, p90, p99 and p99.9.
pub(crate) const QUANTILES: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

/// The quantiles' names in files, in [`Statistic`] order after `mean`, and in the columns of
/// tables (no dot).
const NAMES: [(&str, &str); 4] = [
    ("p50", "p50"),
    ("p90", "p90"),
    ("p99", "p99"),
    ("p99.9", "p999"),
];

/// The statistics `waits_by_size.csv` gives per size class: the waiting time's mean and p99
/// and the response time's mean (a run keeps each class's waits and only the sum of its
/// response times).
pub(crate) const BY_SIZE: [(DelayQuantity, Statistic); 3] = [
    (DelayQuantity::Wait, Statistic::Mean),
    (DelayQuantity::Wait, Statistic::Quantile(2)),
    (DelayQuantity::Response, Statistic::Mean),
];

impl Statistic {
    /// Every statistic, in the order of the outputs' columns.
    pub(crate) const ALL: [Statistic; 5] = [
        Statistic::Mean,
        Statistic::Quantile(0),
        Statistic::Quantile(1),
        Statistic::Quantile(2),
        Statistic::Quantile(3),
    ];

    /// Its name: `mean`, `p50`, `p90`, `p99` or `p99.9`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Statistic::Mean => "mean",
            Statistic::Quantile(i) => NAMES[i].0,
        }
    }

    /// The column of this statistic of `quantity` in a table: `mean_wait`, `wait_p50`, …,
    /// `response_p999`.
    pub(crate) fn column(self, quantity: DelayQuantity) -> String {
        match self {
            Statistic::Mean => format!("mean_{}", quantity.as_str()),
            Statistic::Quantile(i) => format!("{}_{}", quantity.as_str(), NAMES[i].1),
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
            Some(v) => Statistic::ALL
                .into_iter()
                .find(|s| s.name() == v)
                .ok_or_else(|| {
                    let names: Vec<String> = Statistic::ALL
                        .iter()
                        .map(|s| format!("\"{}\"", s.name()))
                        .collect();
                    cx.bad(
                        key,
                        &format!(
                            "{} or {}",
                            names[..names.len() - 1].join(", "),
                            names[names.len() - 1]
                        ),
                        format!("\"{v}\""),
                    )
                }),
        }
    }
}
