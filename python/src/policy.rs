//! A policy written as a Python class, run through packlab's runner like a built-in one.
//!
//! The class is registered under a name with its keys ([`register_policy`]); an experiment's
//! `[[policy]] name = …` then builds one object per run, `cls(servers, **keys)`. Each slot
//! (step 2 and 3 of the slot order) packlab calls `enqueue(job)` for every arrival, then
//! `schedule(cluster)` with a view of the servers in which `cluster.place(i, job)` starts a
//! waiting job, and reads `waiting()`. The guard around it (the names are the class's):
//!
//! - a placement on a server without room, or of a job that is not waiting (placed twice,
//!   never enqueued), raises `PacklabError` inside `schedule`;
//! - after `schedule`, `waiting()` must equal the jobs enqueued and not placed, or the run
//!   stops with an error naming the class (a job lost or invented);
//! - any exception in the class stops the run (as a signal would: the journal keeps what
//!   finished) and is raised by `run` or `simulate`, with the class and method named.
//!
//! The view is a snapshot of the servers' free room taken before `schedule`; the placements
//! are applied to the real cluster, in order, when it returns.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use packlab::Size;
use packlab::model::{Job, ServerId};
use packlab::policy::registry::Registry;
use packlab::policy::{ParamError, Policy, PolicyEntry, PolicyParams, PolicySpec, SlotView};
use packlab::sim::Cluster;
use packlab::workload::SizeLaw;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::PacklabError;

/// A key's value from an experiment's `[[policy]]` table.
#[derive(Clone, Debug)]
enum KeyValue {
    Int(i64),
    Float(f64),
    Str(String),
}

/// A registered class and what packlab needs to know of it.
struct Class {
    name: &'static str,
    class: Py<PyAny>,
    class_name: String,
    keys: &'static [&'static str],
    clairvoyant: bool,
    idle: bool,
    entry: PolicyEntry,
}

/// The registered classes, by policy name.
static CLASSES: Mutex<Vec<Arc<Class>>> = Mutex::new(Vec::new());

/// The first error raised inside a Python policy during the current run, with its class.
static FAILURE: Mutex<Option<(String, String, PyErr)>> = Mutex::new(None);

/// The built-in policies with every registered Python class.
pub(crate) fn registry() -> PyResult<Registry> {
    let mut r = Registry::builtin();
    let classes = CLASSES.lock().map(|c| c.clone()).unwrap_or_default();
    for c in classes {
        r = r.with(c.entry).map_err(PacklabError::new_err)?;
    }
    Ok(r)
}

/// Raises the error a Python policy raised during the last run, if one did (and forgets it).
pub(crate) fn raise_failure(py: Python<'_>) -> PyResult<()> {
    let taken = FAILURE.lock().ok().and_then(|mut f| f.take());
    match taken {
        None => Ok(()),
        Some((class, method, e)) => {
            let wrapped = PacklabError::new_err(format!(
                "the policy class {class} raised in {method}: {}",
                e.value(py)
            ));
            wrapped.set_cause(py, Some(e));
            Err(wrapped)
        }
    }
}

/// Forgets a failure left by an earlier call (one interrupted before it could raise it).
pub(crate) fn clear_failure() {
    if let Ok(mut f) = FAILURE.lock() {
        *f = None;
    }
}

/// Records the first failure and asks the run to stop, as a signal would.
fn fail(class: &str, method: &str, e: PyErr) {
    if let Ok(mut f) = FAILURE.lock()
        && f.is_none()
    {
        *f = Some((class.to_string(), method.to_string(), e));
    }
    packlab::cancel::flag().store(15, Ordering::Relaxed);
}

/// Registers `cls` as the policy `name` (lowercase letters, digits and `-`), whose
/// `[[policy]]` tables may carry `keys`; `doc` is its line in the docs; `fifo_service` says it
/// serves jobs in arrival order (so a `saturation` claim may simulate it saturated);
/// `clairvoyant` lets it read each job's service time; `idle = True` on the class says a
/// slot with no arrival and no departure changes nothing (packlab then skips such slots).
#[pyfunction]
#[pyo3(signature = (name, cls, keys=Vec::new(), doc=String::new(), fifo_service=false, clairvoyant=false))]
pub(crate) fn register_policy(
    py: Python<'_>,
    name: String,
    cls: Py<PyAny>,
    keys: Vec<String>,
    doc: String,
    fifo_service: bool,
    clairvoyant: bool,
) -> PyResult<()> {
    let b = cls.bind(py);
    if !b.is_callable() {
        return Err(PyValueError::new_err(format!(
            "cls: expected a class, got {}",
            b.get_type().name()?
        )));
    }
    for m in ["enqueue", "schedule", "waiting"] {
        if !b.hasattr(m)? {
            return Err(PyValueError::new_err(format!(
                "cls: expected a class with methods enqueue, schedule and waiting; {} has no {m}",
                b.repr()?
            )));
        }
    }
    let class_name: String = b
        .getattr("__qualname__")
        .and_then(|n| n.extract())
        .unwrap_or_else(|_| name.clone());
    let idle = b
        .getattr("idle")
        .ok()
        .and_then(|v| v.extract::<bool>().ok())
        .unwrap_or(false);
    let mut classes = CLASSES
        .lock()
        .map_err(|_| PacklabError::new_err("the registry is poisoned"))?;
    if classes.iter().any(|c| c.name == name) {
        return Err(PyValueError::new_err(format!(
            "name: a Python policy named {name:?} is registered already"
        )));
    }
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let keys: &'static [&'static str] = Box::leak(
        keys.into_iter()
            .map(leak)
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let name: &'static str = leak(name);
    let doc: &'static str = leak(if doc.is_empty() {
        format!("the Python class {class_name}")
    } else {
        doc
    });
    let mut entry = PolicyEntry::new(name, doc, parse)
        .keys(keys)
        .colour((121, 85, 72))
        .cost(100.0);
    if fifo_service {
        entry = entry.fifo_service();
    }
    if clairvoyant {
        entry = entry.clairvoyant();
    }
    // the name and keys must be ones packlab accepts: checked against the built-in registry
    Registry::builtin()
        .with(entry)
        .map_err(|e| PyValueError::new_err(format!("name: {e}")))?;
    classes.push(Arc::new(Class {
        name,
        class: cls,
        class_name,
        keys,
        clairvoyant,
        idle,
        entry,
    }));
    Ok(())
}

/// The names of the registered Python policies.
#[pyfunction]
pub(crate) fn registered_policies() -> Vec<String> {
    CLASSES
        .lock()
        .map(|c| c.iter().map(|c| c.name.to_string()).collect())
        .unwrap_or_default()
}

/// A `[[policy]]` table of a registered class: its keys read as integers, floats or strings.
fn parse(params: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    let class = CLASSES
        .lock()
        .ok()
        .and_then(|c| c.iter().find(|c| c.name == params.name()).cloned())
        .ok_or_else(|| ParamError::new("name", "a registered policy", params.name()))?;
    let mut values = Vec::new();
    for &k in class.keys {
        let v = match params.int(k) {
            Ok(Some(i)) => Some(KeyValue::Int(i)),
            Ok(None) => None,
            Err(_) => match params.float(k) {
                Ok(f) => f.map(KeyValue::Float),
                Err(_) => Some(KeyValue::Str(
                    params
                        .str(k)?
                        .ok_or_else(|| ParamError::new(k, "a number or a string", "another value"))?
                        .to_string(),
                )),
            },
        };
        if let Some(v) = v {
            values.push((k, v));
        }
    }
    let words = values
        .iter()
        .map(|(k, v)| match v {
            KeyValue::Int(i) => format!("{k} = {i}"),
            KeyValue::Float(f) => format!("{k} = {f}"),
            KeyValue::Str(s) => format!("{k} = {s:?}"),
        })
        .collect::<Vec<_>>()
        .join(", ");
    Ok(PolicySpec::new(words, move |servers| {
        PyPolicy::new(Arc::clone(&class), servers, &values)
    }))
}

/// One run's object of a registered class, behind the guard.
struct PyPolicy {
    class: Arc<Class>,
    obj: Option<Py<PyAny>>,
    /// Jobs enqueued and not placed.
    waiting: HashSet<u64>,
    /// After a failure: nothing is called any more, jobs are only counted.
    failed: bool,
}

impl PyPolicy {
    fn new(class: Arc<Class>, servers: usize, values: &[(&str, KeyValue)]) -> Self {
        let obj = Python::attach(|py| {
            let kwargs = PyDict::new(py);
            for (k, v) in values {
                let r = match v {
                    KeyValue::Int(i) => kwargs.set_item(k, i),
                    KeyValue::Float(f) => kwargs.set_item(k, f),
                    KeyValue::Str(s) => kwargs.set_item(k, s),
                };
                r?;
            }
            class
                .class
                .bind(py)
                .call((servers,), Some(&kwargs))
                .map(Bound::unbind)
        });
        let (obj, failed) = match obj {
            Ok(o) => (Some(o), false),
            Err(e) => {
                fail(&class.class_name, "__init__", e);
                (None, true)
            }
        };
        PyPolicy {
            class,
            obj,
            waiting: HashSet::new(),
            failed,
        }
    }

    fn call(
        &mut self,
        method: &str,
        f: impl FnOnce(Python<'_>, &Bound<'_, PyAny>) -> PyResult<()>,
    ) {
        if self.failed {
            return;
        }
        let Some(obj) = &self.obj else {
            return;
        };
        let r = Python::attach(|py| f(py, obj.bind(py)));
        if let Err(e) = r {
            self.failed = true;
            fail(&self.class.class_name, method, e);
        }
    }
}

impl Policy for PyPolicy {
    fn enqueue(&mut self, job: Job) {
        self.waiting.insert(job.id);
        let clairvoyant = self.class.clairvoyant;
        self.call("enqueue", |py, obj| {
            let j = Py::new(py, PyJob { job, clairvoyant })?;
            obj.call_method1("enqueue", (j,)).map(drop)
        });
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        if self.failed {
            return;
        }
        let servers = cluster.servers();
        let snapshot = PyCluster {
            free: cluster.frees().iter().map(|s| s.0).collect(),
            jobs: (0..servers as ServerId)
                .map(|i| cluster.jobs_on(i))
                .collect(),
            now: view.now,
            departed: view.departed.to_vec(),
            placements: Vec::new(),
            waiting: std::mem::take(&mut self.waiting),
            class: self.class.class_name.clone(),
        };
        let mut placements = Vec::new();
        let mut back = HashSet::new();
        let class = self.class.class_name.clone();
        self.call("schedule", |py, obj| {
            let c = Py::new(py, snapshot)?;
            let r = obj.call_method1("schedule", (c.clone_ref(py),));
            let mut c = c.borrow_mut(py);
            placements = std::mem::take(&mut c.placements);
            back = std::mem::take(&mut c.waiting);
            r?;
            let said: usize = obj.call_method0("waiting")?.extract()?;
            if said != back.len() {
                return Err(PacklabError::new_err(format!(
                    "{class}.waiting() says {said} jobs wait, but {} were enqueued and not \
                     placed (a job lost or invented)",
                    back.len()
                )));
            }
            Ok(())
        });
        self.waiting = back;
        for (i, job) in placements {
            cluster.place(i, &job, view.now);
        }
    }

    fn waiting(&self) -> usize {
        self.waiting.len()
    }

    fn idle(&self) -> bool {
        self.class.idle
    }
}

/// A job as a Python policy sees it.
#[pyclass(frozen, name = "Job", module = "packlab")]
pub(crate) struct PyJob {
    job: Job,
    clairvoyant: bool,
}

#[pymethods]
impl PyJob {
    /// Its arrival number, 0, 1, 2, … in order of arrival.
    #[getter]
    fn id(&self) -> u64 {
        self.job.id
    }

    /// Its size, a fraction of a server (rounded to a float: compare `units` for exactness).
    #[getter]
    fn size(&self) -> f64 {
        self.job.size.as_f64()
    }

    /// Its size in packlab's fixed-point units (`packlab.UNIT` is a whole server): exact.
    #[getter]
    fn units(&self) -> u64 {
        self.job.size.0
    }

    /// The slot it arrived in.
    #[getter]
    fn arrival(&self) -> u64 {
        self.job.arrival
    }

    /// Its class in a workload with `classes` (0 for the first), else 0.
    #[getter]
    fn kind(&self) -> u8 {
        self.job.kind
    }

    /// Its service time in slots, for a policy registered as clairvoyant; else `None`.
    #[getter]
    fn service(&self) -> Option<u32> {
        self.clairvoyant.then_some(self.job.service)
    }

    fn __repr__(&self) -> String {
        format!(
            "Job(id={}, size={}, arrival={}, kind={})",
            self.job.id,
            self.job.size.as_f64(),
            self.job.arrival,
            self.job.kind
        )
    }
}

/// The servers as a Python policy's `schedule` sees them: free room, jobs per server, the
/// slot, the servers with a departure this slot; `place` starts a waiting job.
#[pyclass(name = "Cluster", module = "packlab")]
pub(crate) struct PyCluster {
    free: Vec<u64>,
    jobs: Vec<u32>,
    now: u64,
    departed: Vec<ServerId>,
    placements: Vec<(ServerId, Job)>,
    waiting: HashSet<u64>,
    class: String,
}

impl PyCluster {
    fn server(&self, i: i64) -> PyResult<usize> {
        usize::try_from(i)
            .ok()
            .filter(|&i| i < self.free.len())
            .ok_or_else(|| {
                PyIndexError::new_err(format!(
                    "{}: server {i} does not exist (servers 0 to {})",
                    self.class,
                    self.free.len() - 1
                ))
            })
    }
}

#[pymethods]
impl PyCluster {
    /// L, the number of servers.
    #[getter]
    fn servers(&self) -> usize {
        self.free.len()
    }

    /// The current slot t.
    #[getter]
    fn now(&self) -> u64 {
        self.now
    }

    /// The servers that had a departure at the start of this slot, in index order (every
    /// server at t = 0).
    #[getter]
    fn departed(&self) -> Vec<ServerId> {
        self.departed.clone()
    }

    /// Free room on server `i` in fixed-point units (exact; `packlab.UNIT` is a whole server).
    fn free(&self, i: i64) -> PyResult<u64> {
        Ok(self.free[self.server(i)?])
    }

    /// Free room on server `i` as a fraction of a server (a float: for display).
    fn free_fraction(&self, i: i64) -> PyResult<f64> {
        Ok(Size(self.free[self.server(i)?]).as_f64())
    }

    /// Jobs on server `i`.
    fn jobs_on(&self, i: i64) -> PyResult<u32> {
        Ok(self.jobs[self.server(i)?])
    }

    /// Whether `job` fits on server `i` now (exact).
    fn fits(&self, i: i64, job: &PyJob) -> PyResult<bool> {
        Ok(job.job.size.0 <= self.free[self.server(i)?])
    }

    /// Starts the waiting `job` on server `i` in this slot.
    fn place(&mut self, i: i64, job: &PyJob) -> PyResult<()> {
        let s = self.server(i)?;
        let j = job.job;
        if !self.waiting.contains(&j.id) {
            return Err(PacklabError::new_err(format!(
                "{}: placed job {}, which is not waiting (placed twice, or never enqueued)",
                self.class, j.id
            )));
        }
        if j.size.0 > self.free[s] {
            return Err(PacklabError::new_err(format!(
                "{}: placed job {} of size {} on server {s}, which has {} free: it does not fit",
                self.class,
                j.id,
                j.size.as_f64(),
                Size(self.free[s]).as_f64()
            )));
        }
        self.waiting.remove(&j.id);
        self.free[s] -= j.size.0;
        self.jobs[s] += 1;
        self.placements.push((s as ServerId, j));
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("Cluster(servers={}, now={})", self.free.len(), self.now)
    }
}
