//! `[workload]`: sampled laws, request vectors from a packing source, or a replayed trace.

use super::Workload;
use super::schema::{RawClass, RawTrace, RawWorkload};
use crate::experiment::ExperimentError;
use crate::experiment::common::Shared;
use crate::experiment::common::{Ctx, RawSizes, service_law, size_law};
use crate::model::Size;
use crate::packing::snapshot::Resources;
use crate::workload::replay::{SizeMode, TraceSpec, TraceSummary};
use crate::workload::trace::TraceFormat;
use crate::workload::{ArrivalProcess, ClassMix, JobClass, MAX_CLASSES, SizeLaw};

/// Validates `[workload]`: exactly one of a trace, request vectors (`sizes.dist = "tasks"`) or
/// sampled size and service laws, and the arrival process.
pub(in crate::experiment::queueing) fn workload(
    cx: &Ctx<'_>,
    raw: &RawWorkload,
) -> Result<Workload, ExperimentError> {
    if let Some(classes) = &raw.classes {
        return sampled_classes(cx, raw, classes);
    }
    if let Some(t) = &raw.trace {
        for (k, given) in [
            ("sizes", raw.sizes.is_some()),
            ("service", raw.service.is_some()),
            ("arrivals", raw.arrivals.is_some()),
        ] {
            if given {
                return Err(cx.bad(
                    &format!("workload.{k}"),
                    "no sampled law next to `workload.trace` (the trace gives arrivals, sizes and service)",
                    "a law",
                ));
            }
        }
        let spec = trace_spec(cx, t)?;
        let summary = TraceSummary::read(&spec)
            .map_err(|e| cx.bad("workload.trace.file", "a readable trace", e))?;
        let (sizes, service) = (
            Shared::new(summary.sizes.clone()),
            Shared::new(summary.service.clone()),
        );
        return Ok(Workload::Trace(
            Shared::new((spec, summary)),
            sizes,
            service,
        ));
    }
    let (sizes, service) = match (&raw.sizes, &raw.service) {
        (None, _) => {
            return Err(cx.bad(
                "workload.sizes",
                "a size law `{ dist = … }` (or `workload.trace`)",
                "nothing",
            ));
        }
        (Some(_), None) => {
            return Err(cx.bad(
                "workload.service",
                "a service law `{ dist = … }` (or `workload.trace`)",
                "nothing",
            ));
        }
        (Some(z), Some(v)) => (z, v),
    };
    let arrivals = |cx| arrivals(cx, raw.arrivals.as_ref().map(|a| a.process.as_str()));
    Ok(match sizes {
        RawSizes::Tasks {
            source,
            file,
            scale,
        } => {
            let (requests, dims) = task_requests(cx, source, file, *scale)?;
            // the load is counted on the bottleneck resource (largest mean request)
            let mean = |k: usize| requests.iter().map(|x| x[k] as f64).sum::<f64>();
            let k = (0..dims)
                .max_by(|&a, &b| mean(a).total_cmp(&mean(b)))
                .unwrap_or(0);
            let sizes = SizeLaw::Empirical {
                values: requests.iter().map(|x| Size(x[k])).collect(),
            };
            Workload::Requests {
                requests: Shared::new(requests),
                weights: None,
                dims,
                sizes: Shared::new(sizes),
                service: Shared::new(service_law(cx, "workload.service", service.clone())?),
                arrivals: arrivals(cx)?,
            }
        }
        z => Workload::Sampled {
            sizes: Shared::new(size_law(cx, z.clone())?),
            service: Shared::new(service_law(cx, "workload.service", service.clone())?),
            arrivals: arrivals(cx)?,
            classes: None,
        },
    })
}

/// `workload.classes`: each class's size (a number, or a law over finitely many sizes),
/// probability and service law; in place of `sizes` and `service`, beside `arrivals`.
fn sampled_classes(
    cx: &Ctx<'_>,
    raw: &RawWorkload,
    classes: &[RawClass],
) -> Result<Workload, ExperimentError> {
    for (k, given) in [
        ("sizes", raw.sizes.is_some()),
        ("service", raw.service.is_some()),
        ("trace", raw.trace.is_some()),
    ] {
        if given {
            return Err(cx.bad(
                &format!("workload.{k}"),
                "nothing next to `workload.classes` (each class has its own size and service)",
                "a value",
            ));
        }
    }
    if classes.is_empty() || classes.len() > MAX_CLASSES {
        return Err(cx.bad(
            "workload.classes",
            &format!("1 to {MAX_CLASSES} classes"),
            classes.len(),
        ));
    }
    let mut built = Vec::with_capacity(classes.len());
    for (i, c) in classes.iter().enumerate() {
        let key = |k: &str| format!("workload.classes[{i}].{k}");
        let sizes = match &c.size {
            toml::Value::Float(_) | toml::Value::Integer(_) => {
                let x = c.size.as_float().or(c.size.as_integer().map(|v| v as f64));
                let size = cx.size(&key("size"), x.unwrap_or(f64::NAN))?;
                SizeLaw::discrete(vec![size], vec![1.0])
                    .map_err(|e| cx.bad(&key("size"), "a size", e))?
            }
            toml::Value::Table(t) => {
                let law: crate::experiment::common::RawSizes = t
                    .clone()
                    .try_into()
                    .map_err(|e| cx.bad(&key("size"), "a size law `{ dist = … }`", e))?;
                let law = size_law(cx, law)?;
                if law.atoms().is_none() {
                    return Err(cx.bad(
                        &key("size.dist"),
                        "a law over finitely many sizes (\"discrete\" or \"empirical\") for a class",
                        "\"uniform\"",
                    ));
                }
                law
            }
            other => {
                return Err(cx.bad(
                    &key("size"),
                    "a size in (0, 1] or a size law `{ dist = … }`",
                    other,
                ));
            }
        };
        if !(c.prob.is_finite() && c.prob > 0.0) {
            return Err(cx.bad(&key("prob"), "a probability > 0", c.prob));
        }
        let service = service_law(cx, &key("service"), c.service.clone())?;
        built.push(JobClass {
            prob: c.prob,
            sizes,
            service,
        });
    }
    let total: f64 = built.iter().map(|c| c.prob).sum();
    if (total - 1.0).abs() > 1e-9 {
        return Err(cx.bad(
            "workload.classes",
            "class probabilities (`prob`) adding up to 1",
            total,
        ));
    }
    let mix = ClassMix::new(built).map_err(|e| cx.bad("workload.classes", "valid classes", e))?;
    Ok(Workload::Sampled {
        sizes: Shared::new(mix.work_weighted()),
        service: Shared::new(mix.pooled_service()),
        arrivals: arrivals(cx, raw.arrivals.as_ref().map(|a| a.process.as_str()))?,
        classes: Some(Shared::new(mix)),
    })
}

/// `workload.arrivals.process`.
fn arrivals(cx: &Ctx<'_>, process: Option<&str>) -> Result<ArrivalProcess, ExperimentError> {
    Ok(match process {
        None | Some("poisson") => ArrivalProcess::Poisson,
        Some("bernoulli") => ArrivalProcess::Bernoulli,
        Some("batch") => ArrivalProcess::Batch,
        Some(other) => {
            return Err(cx.bad(
                "workload.arrivals.process",
                "one of \"poisson\", \"bernoulli\", \"batch\"",
                format!("\"{other}\""),
            ));
        }
    })
}

/// Validates `workload.trace = { … }`.
fn trace_spec(cx: &Ctx<'_>, t: &RawTrace) -> Result<TraceSpec, ExperimentError> {
    let key = |k: &str| format!("workload.trace.{k}");
    let format = match t.format.as_str() {
        "alibaba2017" => TraceFormat::Alibaba2017,
        "google2011" => TraceFormat::GoogleTaskEvents,
        "swf" => TraceFormat::Swf,
        "csv" => TraceFormat::Csv,
        other => {
            return Err(cx.bad(
                &key("format"),
                "one of \"alibaba2017\", \"swf\", \"csv\" (\"google2011\" is read, not replayed)",
                format!("\"{other}\""),
            ));
        }
    };
    let slot = t.slot.unwrap_or(0.1);
    if !(slot.is_finite() && slot > 0.0 && slot <= 1e6) {
        return Err(cx.bad(
            &key("slot"),
            "a slot length in seconds, > 0 and at most 10⁶ (11.6 days)",
            slot,
        ));
    }
    let scale = t.scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(cx.bad(&key("scale"), "a factor > 0", scale));
    }
    let size = match t.size.as_deref() {
        None => SizeMode::Max,
        Some(s) => SizeMode::from_name(s).ok_or_else(|| {
            cx.bad(
                &key("size"),
                "\"max\" (max(CPU, memory), default), \"cpu\", \"memory\" or \"both\"",
                format!("\"{s}\""),
            )
        })?,
    };
    for (k, v) in [("start", t.start), ("end", t.end)] {
        if let Some(v) = v
            && !v.is_finite()
        {
            return Err(cx.bad(&key(k), "a time in trace seconds", v));
        }
    }
    if let (Some(a), Some(b)) = (t.start, t.end)
        && a >= b
    {
        return Err(cx.bad(&key("end"), &format!("a time after start = {a}"), b));
    }
    Ok(TraceSpec {
        file: cx.path(&t.file),
        format,
        finished_only: t.finished_only.unwrap_or(true),
        slot,
        size,
        scale,
        start: t.start,
        end: t.end,
        thin: 1,
    })
}

/// Request vectors from `sizes = { dist = "tasks", source, file, scale }`: every task of the
/// source with a non-zero request, its requests multiplied by `scale`. Returns the vectors and
/// the number of resources.
fn task_requests(
    cx: &Ctx<'_>,
    source: &str,
    file: &str,
    scale: Option<f64>,
) -> Result<(Vec<Resources>, usize), ExperimentError> {
    let path = cx.path(file);
    let read_err = |e: crate::packing::sources::SourceError| {
        cx.bad("workload.sizes.file", "a readable task file", e)
    };
    let snap = match source {
        "google2011" => crate::packing::sources::read_google_snapshot(&path).map_err(read_err)?,
        "csv" => crate::packing::sources::read_snapshot_csv(&path).map_err(read_err)?,
        other => {
            return Err(cx.bad(
                "workload.sizes.source",
                "\"google2011\" (task_events snapshot) or \"csv\" (packlab snapshot CSV)",
                format!("\"{other}\""),
            ));
        }
    };
    let scale = scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(cx.bad("workload.sizes.scale", "a factor > 0", scale));
    }
    let mut out = Vec::with_capacity(snap.tasks.len());
    for t in &snap.tasks {
        if t.request.iter().all(|&r| r == 0) {
            continue; // requests nothing: never waits, never blocks
        }
        let mut r = [0u64; 3];
        for (d, x) in r.iter_mut().enumerate().take(snap.dims) {
            let v = (t.request[d] as f64 * scale).round();
            if v > Size::UNIT as f64 {
                return Err(cx.bad(
                    "workload.sizes.scale",
                    "a scale that keeps every request within one server",
                    format!("{scale} (a request becomes {})", v / Size::UNIT as f64),
                ));
            }
            *x = v as u64;
        }
        out.push(r);
    }
    if out.is_empty() {
        return Err(cx.bad(
            "workload.sizes.file",
            "at least one task with a request",
            "none",
        ));
    }
    Ok((out, snap.dims))
}
