//! packlab's Python face: the native module `packlab._native`, wrapped by the `packlab`
//! package (`python/packlab/__init__.py`), which turns its results into data frames.
//!
//! - [`run`]: an experiment file, TOML text or dict run by the same engine as the command
//!   line (journal, resume, outputs byte for byte), the GIL released while it simulates,
//!   Ctrl-C raising `KeyboardInterrupt` with the journal kept;
//! - [`policy`]: a policy written as a Python class, registered under a name with its keys and
//!   run through the same runner as a built-in one, behind a guard that names the class;
//! - [`blocks`]: ρ* and the K_RED and dyadic regions of a size law, and a single run of a
//!   scenario, as plain Python values.
//!
//! No panic crosses into Python: every entry point catches one and raises `PacklabError`.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

mod blocks;
mod policy;
mod run;
mod toml_value;

create_exception!(
    packlab,
    PacklabError,
    PyException,
    "An error packlab reports: a file, key or value it refuses, an output it cannot write."
);

/// A panic caught at the boundary as a `PacklabError`: packlab failed `place` (`"in
/// rho_star"`, `"while running"`), with the panic's message.
pub(crate) fn bug(place: &str, p: Box<dyn std::any::Any + Send>) -> PyErr {
    let message = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into());
    PacklabError::new_err(format!(
        "packlab failed {place} (a bug; please report it): {message}"
    ))
}

/// `f`, a panic in it raised as a `PacklabError` ([`bug`]) naming `what`.
pub(crate) fn caught<T>(
    what: &str,
    f: impl FnOnce() -> PyResult<T> + std::panic::UnwindSafe,
) -> PyResult<T> {
    std::panic::catch_unwind(f).unwrap_or_else(|p| Err(bug(&format!("in {what}"), p)))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("PacklabError", m.py().get_type::<PacklabError>())?;
    m.add("VERSION", packlab::experiment::VERSION)?;
    m.add("RESULTS_VERSION", packlab::experiment::RESULTS_VERSION)?;
    m.add("UNIT", packlab::Size::UNIT)?;
    m.add_function(wrap_pyfunction!(run::run_experiment, m)?)?;
    m.add_function(wrap_pyfunction!(toml_value::to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(policy::register_policy, m)?)?;
    m.add_function(wrap_pyfunction!(policy::registered_policies, m)?)?;
    m.add_function(wrap_pyfunction!(blocks::rho_star, m)?)?;
    m.add_function(wrap_pyfunction!(blocks::rho_kred, m)?)?;
    m.add_function(wrap_pyfunction!(blocks::rho_dyadic, m)?)?;
    m.add_function(wrap_pyfunction!(blocks::rho_star_bracket, m)?)?;
    m.add_function(wrap_pyfunction!(blocks::simulate, m)?)?;
    m.add_class::<policy::PyJob>()?;
    m.add_class::<policy::PyCluster>()?;
    Ok(())
}
