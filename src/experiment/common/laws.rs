//! Size and service laws as experiment files write them, validated into samplers.

use serde::Deserialize;

use super::Ctx;
use crate::experiment::ExperimentError;
use crate::model::Size;
use crate::workload::continuous::SLOT_CAP;
use crate::workload::{ContinuousLaw, ServiceLaw, SizeLaw};

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
    Uniform {
        low: f64,
        high: f64,
    },
    Lognormal {
        mean: Option<f64>,
        cv: Option<f64>,
        mu: Option<f64>,
        sigma: Option<f64>,
    },
    #[serde(rename = "bounded-pareto")]
    BoundedPareto {
        alpha: f64,
        low: f64,
        high: f64,
    },
    Frechet {
        alpha: f64,
        mean: Option<f64>,
        scale: Option<f64>,
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

/// Validates the service law `raw` written at `key` (`workload.service`, or a class's) into a
/// service law.
pub(crate) fn service_law(
    cx: &Ctx<'_>,
    key: &str,
    raw: RawService,
) -> Result<ServiceLaw, ExperimentError> {
    let k = |name: &str| format!("{key}.{name}");
    Ok(match raw {
        RawService::Geometric { mean } => {
            if !mean.is_finite() || !(1.0..=1e9).contains(&mean) {
                return Err(cx.bad(&k("mean"), "a mean service time in [1, 1e9] slots", mean));
            }
            ServiceLaw::geometric(mean)
        }
        RawService::Deterministic { value } => {
            let v = cx.positive(&k("value"), value)?;
            if v > u32::MAX as u64 {
                return Err(cx.bad(&k("value"), "at most 2^32 − 1 slots", v));
            }
            ServiceLaw::Deterministic(v as u32)
        }
        RawService::Empirical { values, probs } => {
            if values.is_empty() {
                return Err(cx.bad(&k("values"), "at least one service time", "[]"));
            }
            let v = values
                .iter()
                .map(|&x| {
                    cx.positive(&k("values"), x).and_then(|v| {
                        u32::try_from(v)
                            .map_err(|_| cx.bad(&k("values"), "at most 2^32 − 1 slots", v))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let probs = match probs {
                Some(p) => {
                    cx.probs(&k("probs"), &p, v.len())?;
                    p
                }
                None => vec![1.0 / v.len() as f64; v.len()],
            };
            ServiceLaw::empirical(v, probs).map_err(|e| cx.bad(&k("probs"), "valid weights", e))?
        }
        raw => ServiceLaw::continuous(continuous(cx, key, raw)?),
    })
}

/// A positive finite time in slots at most `u32::MAX`, or a parameter in `range`.
fn within(
    cx: &Ctx<'_>,
    key: &str,
    x: f64,
    range: std::ops::RangeInclusive<f64>,
    expected: &str,
) -> Result<f64, ExperimentError> {
    if x.is_finite() && range.contains(&x) {
        Ok(x)
    } else {
        Err(cx.bad(key, expected, x))
    }
}

/// The continuous laws of service (`uniform`, `lognormal`, `bounded-pareto`, `frechet`): every
/// impossible parameter refused at its key.
fn continuous(cx: &Ctx<'_>, key: &str, raw: RawService) -> Result<ContinuousLaw, ExperimentError> {
    let law = match raw {
        RawService::Uniform { low, high } => {
            let (low, high) = times(cx, key, (low, high), 0.0)?;
            ContinuousLaw::Uniform { low, high }
        }
        RawService::Lognormal {
            mean,
            cv,
            mu,
            sigma,
        } => lognormal(cx, key, (mean, cv), (mu, sigma))?,
        RawService::BoundedPareto { alpha, low, high } => {
            let alpha = within(
                cx,
                &format!("{key}.alpha"),
                alpha,
                0.01..=100.0,
                "a tail index α in [0.01, 100]",
            )?;
            let (low, high) = times(cx, key, (low, high), 1e-3)?;
            ContinuousLaw::BoundedPareto { alpha, low, high }
        }
        RawService::Frechet { alpha, mean, scale } => {
            if !(alpha.is_finite() && alpha > 1.0 && alpha <= 100.0) {
                return Err(cx.bad(
                    &format!("{key}.alpha"),
                    "a tail index α in (1, 100] (α ≤ 1: the mean is infinite)",
                    alpha,
                ));
            }
            match (mean, scale) {
                (Some(mean), None) => {
                    ContinuousLaw::frechet_mean(alpha, in_slots(cx, key, "mean", mean)?)
                }
                (None, Some(scale)) => ContinuousLaw::Frechet {
                    alpha,
                    scale: in_slots(cx, key, "scale", scale)?,
                },
                _ => {
                    return Err(cx.bad(
                        key,
                        "exactly one of `mean` or `scale` next to `alpha` for dist = \"frechet\"",
                        "both or neither",
                    ));
                }
            }
        }
        _ => unreachable!("the discrete laws are read by service_law"),
    };
    let m = law.slot_mean();
    if !(m.is_finite() && m <= 1e9) {
        return Err(cx.bad(key, "a law whose mean is at most 1e9 slots", m));
    }
    Ok(law)
}

/// `key.low` and `key.high`, times in slots in [`floor`, 2^32 − 1], `high` above `low`.
fn times(
    cx: &Ctx<'_>,
    key: &str,
    (low, high): (f64, f64),
    floor: f64,
) -> Result<(f64, f64), ExperimentError> {
    let time = |name: &str, x: f64| {
        within(
            cx,
            &format!("{key}.{name}"),
            x,
            floor..=SLOT_CAP,
            &format!("a time in slots in [{floor}, 2^32 − 1]"),
        )
    };
    let (low, high) = (time("low", low)?, time("high", high)?);
    if high <= low {
        return Err(cx.bad(
            &format!("{key}.high"),
            &format!("a time > low = {low}"),
            high,
        ));
    }
    Ok((low, high))
}

/// `key.name`, a mean or a scale in [0.001, 10⁹] slots.
fn in_slots(cx: &Ctx<'_>, key: &str, name: &str, x: f64) -> Result<f64, ExperimentError> {
    within(
        cx,
        &format!("{key}.{name}"),
        x,
        1e-3..=1e9,
        &format!("a {name} in [0.001, 1e9] slots"),
    )
}

/// `dist = "lognormal"`: `mean` and `cv`, or `mu` and `sigma`.
fn lognormal(
    cx: &Ctx<'_>,
    key: &str,
    (mean, cv): (Option<f64>, Option<f64>),
    (mu, sigma): (Option<f64>, Option<f64>),
) -> Result<ContinuousLaw, ExperimentError> {
    let k = |name: &str| format!("{key}.{name}");
    match (mean, cv, mu, sigma) {
        (Some(mean), Some(cv), None, None) => {
            let mean = in_slots(cx, key, "mean", mean)?;
            let cv = within(
                cx,
                &k("cv"),
                cv,
                1e-3..=1e3,
                "a coefficient of variation in [0.001, 1000]",
            )?;
            Ok(ContinuousLaw::lognormal_mean_cv(mean, cv))
        }
        (None, None, Some(mu), Some(sigma)) => {
            let mu = within(
                cx,
                &k("mu"),
                mu,
                -20.0..=21.0,
                "a mean of ln X in [−20, 21]",
            )?;
            let sigma = within(
                cx,
                &k("sigma"),
                sigma,
                1e-3..=10.0,
                "a standard deviation of ln X in [0.001, 10]",
            )?;
            Ok(ContinuousLaw::LogNormal { mu, sigma })
        }
        _ => Err(cx.bad(
            key,
            "either `mean` and `cv`, or `mu` and `sigma`, for dist = \"lognormal\"",
            "another combination",
        )),
    }
}
