//! Size and service laws as experiment files write them, validated into samplers.

use serde::Deserialize;

use super::Ctx;
use crate::experiment::ExperimentError;
use crate::model::Size;
use crate::workload::{ServiceLaw, SizeLaw};

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "dist", rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum RawSizes {
    Uniform {
        low: f64,
        high: f64,
    },
    Discrete {
        values: Vec<f64>,
        probs: Vec<f64>,
    },
    Empirical {
        values: Option<Vec<f64>>,
        file: Option<String>,
    },
    /// Request vectors drawn uniformly from the tasks of a packing source (multi-resource).
    Tasks {
        source: String,
        file: String,
        scale: Option<f64>,
    },
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "dist", rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum RawService {
    Geometric {
        mean: f64,
    },
    Deterministic {
        value: i64,
    },
    Empirical {
        values: Vec<i64>,
        probs: Option<Vec<f64>>,
    },
}

/// Validates a `sizes = { dist = … }` table into a size law.
pub(crate) fn size_law(cx: &Ctx<'_>, raw: RawSizes) -> Result<SizeLaw, ExperimentError> {
    Ok(match raw {
        RawSizes::Uniform { low, high } => {
            let lo = cx.size("workload.sizes.low", low)?;
            let hi = cx.size("workload.sizes.high", high)?;
            if lo > hi {
                return Err(cx.bad(
                    "workload.sizes.high",
                    &format!("a value ≥ workload.sizes.low = {low}"),
                    high,
                ));
            }
            SizeLaw::uniform(lo, hi)
        }
        RawSizes::Discrete { values, probs } => {
            if values.is_empty() {
                return Err(cx.bad("workload.sizes.values", "at least one size", "[]"));
            }
            let v = values
                .iter()
                .map(|&x| cx.size("workload.sizes.values", x))
                .collect::<Result<Vec<_>, _>>()?;
            cx.probs("workload.sizes.probs", &probs, v.len())?;
            SizeLaw::discrete(v, probs)
                .map_err(|e| cx.bad("workload.sizes.probs", "valid weights", e))?
        }
        RawSizes::Empirical { values, file: f } => {
            let v = match (values, f) {
                (Some(values), None) => values
                    .iter()
                    .map(|&x| cx.size("workload.sizes.values", x))
                    .collect::<Result<Vec<_>, _>>()?,
                (None, Some(f)) => {
                    cx.numbers("workload.sizes.file", &f, |x, line, full| {
                        Size::from_f64(x).ok_or_else(|| {
                            cx.bad(
                                "workload.sizes.file",
                                "sizes in (0, 1]",
                                format!("{}:{line}: {x}", full.display()),
                            )
                        })
                    })?
                    .1
                }
                _ => {
                    return Err(cx.bad(
                        "workload.sizes",
                        "exactly one of `values` or `file` for dist = \"empirical\"",
                        "both or neither",
                    ));
                }
            };
            if v.is_empty() {
                return Err(cx.bad("workload.sizes.values", "at least one size", "none"));
            }
            SizeLaw::Empirical { values: v }
        }
        RawSizes::Tasks { .. } => {
            return Err(cx.bad(
                "workload.sizes.dist",
                "a single-resource law here (\"tasks\" gives request vectors: queueing files only)",
                "\"tasks\"",
            ));
        }
    })
}

/// Validates a `service = { dist = … }` table into a service law.
pub(crate) fn service_law(cx: &Ctx<'_>, raw: RawService) -> Result<ServiceLaw, ExperimentError> {
    Ok(match raw {
        RawService::Geometric { mean } => {
            if !mean.is_finite() || !(1.0..=1e9).contains(&mean) {
                return Err(cx.bad(
                    "workload.service.mean",
                    "a mean service time in [1, 1e9] slots",
                    mean,
                ));
            }
            ServiceLaw::geometric(mean)
        }
        RawService::Deterministic { value } => {
            let v = cx.positive("workload.service.value", value)?;
            if v > u32::MAX as u64 {
                return Err(cx.bad("workload.service.value", "at most 2^32 − 1 slots", v));
            }
            ServiceLaw::Deterministic(v as u32)
        }
        RawService::Empirical { values, probs } => {
            if values.is_empty() {
                return Err(cx.bad("workload.service.values", "at least one service time", "[]"));
            }
            let v = values
                .iter()
                .map(|&x| {
                    cx.positive("workload.service.values", x).and_then(|v| {
                        u32::try_from(v).map_err(|_| {
                            cx.bad("workload.service.values", "at most 2^32 − 1 slots", v)
                        })
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let probs = match probs {
                Some(p) => {
                    cx.probs("workload.service.probs", &p, v.len())?;
                    p
                }
                None => vec![1.0 / v.len() as f64; v.len()],
            };
            ServiceLaw::empirical(v, probs)
                .map_err(|e| cx.bad("workload.service.probs", "valid weights", e))?
        }
    })
}
