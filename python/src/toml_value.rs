//! A Python dict as TOML text: tables, arrays (of tables too), strings, integers, floats and
//! booleans, so that a dict with an experiment file's keys is validated exactly as the file.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// `value` (at `path`, for messages) as a TOML value.
fn value(v: &Bound<'_, PyAny>, path: &str) -> PyResult<toml::Value> {
    // bool before int: Python's bool is an int
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        let i: i64 = v.extract().map_err(|_| {
            PyTypeError::new_err(format!("{path}: an integer that fits in 64 bits"))
        })?;
        return Ok(toml::Value::Integer(i));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml::Value::String(s.extract::<String>()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return table(d, path).map(toml::Value::Table);
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, x) in v.try_iter()?.enumerate() {
            out.push(value(&x?, &format!("{path}[{i}]"))?);
        }
        return Ok(toml::Value::Array(out));
    }
    Err(PyTypeError::new_err(format!(
        "{path}: a str, int, float, bool, dict or list for an experiment's key, not {}",
        v.get_type().name()?
    )))
}

/// A dict as a TOML table (keys must be strings; `None` values are left out, as absent keys).
pub(crate) fn table(d: &Bound<'_, PyDict>, path: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k.extract().map_err(|_| {
            PyTypeError::new_err(format!("{path}: keys must be strings, not {k:?}"))
        })?;
        if v.is_none() {
            continue;
        }
        let at = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        t.insert(key, value(&v, &at)?);
    }
    Ok(t)
}

/// A dict with an experiment file's keys as TOML text (what `run` validates for a dict).
#[pyfunction]
pub(crate) fn to_toml(d: &Bound<'_, PyDict>) -> PyResult<String> {
    let t = table(d, "")?;
    toml::to_string(&t).map_err(|e| PyTypeError::new_err(format!("not writable as TOML: {e}")))
}
