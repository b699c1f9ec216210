//! Building blocks without TOML: ρ* and the K_RED and dyadic regions of a size law, Theorem
//! 1's bracket for a uniform law, and one run of a scenario.

use packlab::Size;
use packlab::policy::PolicyParams;
use packlab::sim::{Cluster, RunConfig};
use packlab::stability::region::{self, Supportable};
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::PacklabError;

/// `atoms` [(size, probability), …] as exact sizes, or a `ValueError` naming the bad one.
fn atoms(atoms: Vec<(f64, f64)>) -> PyResult<Vec<(Size, f64)>> {
    if atoms.is_empty() || atoms.len() > 64 {
        return Err(PyValueError::new_err(format!(
            "sizes: expected 1 to 64 (size, probability) pairs, got {}",
            atoms.len()
        )));
    }
    atoms
        .into_iter()
        .enumerate()
        .map(|(i, (s, p))| {
            let size = Size::from_f64(s)
                .filter(|x| x.0 > 0 && *x <= Size::ONE)
                .ok_or_else(|| {
                    PyValueError::new_err(format!("sizes[{i}]: expected a size in (0, 1], got {s}"))
                })?;
            if !(p.is_finite() && p > 0.0) {
                return Err(PyValueError::new_err(format!(
                    "sizes[{i}]: expected a probability > 0, got {p}"
                )));
            }
            Ok((size, p))
        })
        .collect()
}

/// A supportable region's edge as a dict: `per_server` (jobs per server per mean service
/// time), `rho` (the traffic intensity) and `mix` (the optimal configurations: counts per
/// size, in the order given, and the share of servers using each).
fn edge<'py>(py: Python<'py>, s: &Supportable) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("per_server", s.per_server)?;
    d.set_item("rho", s.traffic)?;
    let mix: Vec<(Vec<u32>, f64)> = s.mix.iter().map(|(c, f)| (c.to_vec(), *f)).collect();
    d.set_item("mix", mix)?;
    Ok(d)
}

fn region_error(e: impl std::fmt::Display) -> PyErr {
    PacklabError::new_err(format!("the configuration LP failed: {e}"))
}

/// The region `what` computes by `f`, as [`edge`]'s dict (an LP failure or a panic raised).
fn region_dict<'py, E: std::fmt::Display>(
    py: Python<'py>,
    what: &str,
    f: impl FnOnce() -> Result<Supportable, E> + std::panic::UnwindSafe,
) -> PyResult<Bound<'py, PyDict>> {
    let s = crate::caught(what, || f().map_err(region_error))?;
    edge(py, &s)
}

/// The depth J of X_J, 1 to 8.
fn depth(j: u32) -> PyResult<u32> {
    if (1..=8).contains(&j) {
        Ok(j)
    } else {
        Err(PyValueError::new_err(format!(
            "J: expected an integer in [1, 8], got {j}"
        )))
    }
}

/// ρ* of a workload of finitely many sizes, by the configuration LP over all feasible
/// configurations.
#[pyfunction]
pub(crate) fn rho_star<'py>(
    py: Python<'py>,
    sizes: Vec<(f64, f64)>,
) -> PyResult<Bound<'py, PyDict>> {
    let a = atoms(sizes)?;
    region_dict(py, "rho_star", || region::rho_star(&a))
}

/// K_RED's region over X_J (VQS's and VQS-BF's guarantee) for finitely many sizes.
#[pyfunction]
#[pyo3(signature = (sizes, j=4))]
pub(crate) fn rho_kred<'py>(
    py: Python<'py>,
    sizes: Vec<(f64, f64)>,
    j: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let (a, j) = (atoms(sizes)?, depth(j)?);
    region_dict(py, "rho_kred", || region::rho_kred(&a, j))
}

/// The dyadic set's region (sizes rounded up to powers of two, down to 2^−J).
#[pyfunction]
#[pyo3(signature = (sizes, j=4))]
pub(crate) fn rho_dyadic<'py>(
    py: Python<'py>,
    sizes: Vec<(f64, f64)>,
    j: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let (a, j) = (atoms(sizes)?, depth(j)?);
    region_dict(py, "rho_dyadic", || region::rho_dyadic(&a, j))
}

/// Theorem 1's bracket on ρ* of sizes uniform on [low, high], refined from 8 equal intervals
/// by halving up to `max_intervals`: each step's (intervals, lower, upper).
#[pyfunction]
#[pyo3(signature = (low, high, max_intervals=512))]
pub(crate) fn rho_star_bracket(
    low: f64,
    high: f64,
    max_intervals: usize,
) -> PyResult<Vec<(usize, f64, f64)>> {
    let size = |x: f64, key: &str| {
        Size::from_f64(x)
            .filter(|s| s.0 > 0 && *s <= Size::ONE)
            .ok_or_else(|| {
                PyValueError::new_err(format!("{key}: expected a size in (0, 1], got {x}"))
            })
    };
    let (lo, hi) = (size(low, "low")?, size(high, "high")?);
    if lo >= hi {
        return Err(PyValueError::new_err(format!(
            "low, high: expected low < high, got {low} and {high}"
        )));
    }
    if !(8..=1280).contains(&max_intervals) {
        return Err(PyValueError::new_err(format!(
            "max_intervals: expected 8 to 1280, got {max_intervals}"
        )));
    }
    let law = SizeLaw::uniform(lo, hi);
    let steps = crate::caught("rho_star_bracket", || {
        region::bracket(&law, 8, max_intervals, 0.0).map_err(region_error)
    })?;
    Ok(steps
        .iter()
        .map(|s| (s.intervals, s.lower_bound, s.upper_bound))
        .collect())
}

/// One run of `policy` (a built-in or registered name, with `params` as its keys) on
/// `servers` servers: sizes from `sizes` ([(size, probability), …]), geometric service of mean
/// `service_mean` slots, Poisson (or `arrivals = "bernoulli"`) arrivals at traffic intensity
/// `load` (λ·E\[R\]·E\[S\]/L), `slots` slots of which the first `warmup` are discarded. A dict of
/// the run's numbers: `verdict`, `mean_queue`, `max_queue`, `final_queue`, `utilization`,
/// `throughput`, `mean_wait`, `arrived`, `slots`, `capped`, `arrival_rate`.
#[pyfunction]
#[pyo3(signature = (policy, sizes, service_mean, servers, load, slots, warmup=None, seed=1, params=None, arrivals="poisson"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    policy: String,
    sizes: Vec<(f64, f64)>,
    service_mean: f64,
    servers: usize,
    load: f64,
    slots: u64,
    warmup: Option<u64>,
    seed: u64,
    params: Option<Bound<'py, PyDict>>,
    arrivals: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let a = atoms(sizes)?;
    let bad =
        |k: &str, e: &str, g: String| PyValueError::new_err(format!("{k}: expected {e}, got {g}"));
    if !(service_mean.is_finite() && service_mean >= 1.0) {
        return Err(bad(
            "service_mean",
            "a mean of at least 1 slot",
            service_mean.to_string(),
        ));
    }
    if !(1..=100_000).contains(&servers) {
        return Err(bad("servers", "1 to 100000", servers.to_string()));
    }
    if !(load.is_finite() && load > 0.0) {
        return Err(bad("load", "a traffic intensity > 0", load.to_string()));
    }
    if !(1..=1_000_000_000).contains(&slots) {
        return Err(bad("slots", "1 to 10⁹", slots.to_string()));
    }
    let warmup = warmup.unwrap_or(slots / 10);
    if warmup >= slots {
        return Err(bad(
            "warmup",
            "fewer slots than `slots`",
            warmup.to_string(),
        ));
    }
    let process = match arrivals {
        "poisson" => ArrivalProcess::Poisson,
        "bernoulli" => ArrivalProcess::Bernoulli,
        other => {
            return Err(bad(
                "arrivals",
                "\"poisson\" or \"bernoulli\"",
                format!("{other:?}"),
            ));
        }
    };
    let (values, probs): (Vec<Size>, Vec<f64>) = a.into_iter().unzip();
    let law = SizeLaw::discrete(values, probs).map_err(|e| bad("sizes", "a law", e.to_string()))?;
    let table = match &params {
        Some(d) => crate::toml_value::table(d, "params")?,
        None => toml::Table::new(),
    };
    let registry = crate::policy::registry()?;
    let spec = registry
        .parse(&PolicyParams::new(&policy, &table), &law)
        .map_err(|e| {
            PacklabError::new_err(format!(
                "policy {policy:?}: {}: expected {}, got {}",
                e.key, e.expected, e.got
            ))
        })?;
    let service = ServiceLaw::geometric(service_mean);
    let rate = load * servers as f64 / (law.mean() * service_mean);
    let arrivals = Arrivals::new(process, rate).map_err(|e| {
        bad(
            "load",
            "an arrival rate the process can have",
            e.to_string(),
        )
    })?;
    crate::policy::clear_failure();
    let result = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut jobs = JobSource::new(law, service, arrivals, seed);
            let mut cluster = Cluster::new(servers, service_mean);
            let cfg = RunConfig::new(slots, warmup, service_mean);
            packlab::policy::run_spec(&spec, &mut jobs, &mut cluster, &cfg)
        }))
    });
    // a failing Python policy asked packlab to stop; nothing else is running to see it
    packlab::cancel::flag().store(0, std::sync::atomic::Ordering::Relaxed);
    crate::policy::raise_failure(py)?;
    let r = result
        .map_err(|p| crate::bug("in simulate", p))?
        .map_err(|e| PacklabError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    d.set_item("verdict", format!("{:?}", r.verdict).to_lowercase())?;
    d.set_item("mean_queue", r.mean_queue)?;
    d.set_item("max_queue", r.max_queue)?;
    d.set_item("final_queue", r.final_queue)?;
    d.set_item("utilization", r.utilization)?;
    d.set_item("throughput", r.throughput)?;
    d.set_item("mean_wait", r.mean_wait)?;
    d.set_item("arrived", r.arrived)?;
    d.set_item("slots", r.slots)?;
    d.set_item("capped", r.capped)?;
    d.set_item("arrival_rate", rate)?;
    Ok(d)
}
