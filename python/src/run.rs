//! Running an experiment from Python: the engine of the command line on a thread of its own,
//! the GIL released while it runs; the calling thread waits in short steps, shows progress
//! lines through Python's `sys.stderr` and turns Ctrl-C into packlab's stop request (the units
//! in flight stop, the journal keeps what finished) and then into `KeyboardInterrupt`.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use packlab::experiment::{ExperimentError, ExperimentFile, Options, Ran};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::PacklabError;

/// How often the waiting thread looks for Ctrl-C and progress lines.
const STEP: Duration = Duration::from_millis(100);

/// packlab's error as a `PacklabError` carrying `file`, `key`, `expected` and `got` where the
/// error names them (a value refused), `None` otherwise.
pub(crate) fn error(py: Python<'_>, e: &ExperimentError) -> PyErr {
    let err = PacklabError::new_err(e.to_string());
    let v = err.value(py);
    let (file, key, expected, got) = match e {
        ExperimentError::Invalid {
            file,
            key,
            expected,
            got,
        } => (
            Some(file.display().to_string()),
            Some(key.clone()),
            Some(expected.clone()),
            Some(got.clone()),
        ),
        ExperimentError::Parse { file, .. } | ExperimentError::Read { file, .. } => {
            (Some(file.display().to_string()), None, None, None)
        }
        _ => (None, None, None, None),
    };
    for (name, x) in [
        ("file", file),
        ("key", key),
        ("expected", expected),
        ("got", got),
    ] {
        let _ = v.setattr(name, x);
    }
    err
}

/// Runs `source` (a path when `is_path`, else TOML text read as the file `name`) into `out`
/// and returns what the command line prints: the line, the files written, the claims.
#[pyfunction]
#[pyo3(signature = (source, is_path, out, threads=None, quick=false, fresh=false, progress=true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_experiment<'py>(
    py: Python<'py>,
    source: String,
    is_path: bool,
    out: String,
    threads: Option<usize>,
    quick: bool,
    fresh: bool,
    progress: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let registry = crate::policy::registry()?;
    crate::policy::clear_failure();
    let file = crate::caught("reading the experiment", || {
        Ok(if is_path {
            ExperimentFile::load_with(Path::new(&source), &registry)
        } else {
            ExperimentFile::parse_with(Path::new("experiment.toml"), &source, &registry)
        })
    })?
    .map_err(|e| error(py, &e))?;
    if threads == Some(0) {
        return Err(PacklabError::new_err(
            "threads: expected a number of worker threads ≥ 1 (None: all cores), got 0",
        ));
    }
    let opts = Options {
        quick,
        threads,
        fresh,
        shard: None,
        max_memory: None,
    };
    let dir = PathBuf::from(&out);
    let ran = supervise(py, progress, move || file.run(opts, &dir))?;
    crate::policy::raise_failure(py)?;
    let ran = ran.map_err(|e| error(py, &e))?;
    outcome(py, &ran)
}

/// Runs `work` on a thread of its own while this one, the GIL released, waits in steps of
/// [`STEP`], writes progress lines to `sys.stderr` and checks for Ctrl-C, which stops the work
/// as a signal would and raises `KeyboardInterrupt` once it has stopped.
fn supervise<T: Send + 'static>(
    py: Python<'_>,
    progress: bool,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let lines: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    packlab::progress::set_quiet(!progress);
    packlab::progress::set_sink(Some(Box::new(move |l: &str| {
        if let Ok(mut v) = sink.lock() {
            v.push(l.to_string());
        }
    })));
    packlab::cancel::flag().store(0, std::sync::atomic::Ordering::Relaxed);
    let (tx, rx) = channel();
    // behind a lock so that the wait can be handed to a thread without the GIL
    let rx = Mutex::new(rx);
    let handle = std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        let _ = tx.send(());
        r
    });
    let mut interrupted: Option<PyErr> = None;
    loop {
        let state = py.detach(|| {
            rx.lock().map_or(Err(RecvTimeoutError::Disconnected), |r| {
                r.recv_timeout(STEP)
            })
        });
        flush(py, &lines);
        match state {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if interrupted.is_none()
            && let Err(e) = py.check_signals()
        {
            // packlab's own stop request: the units in flight stop, the journal keeps the rest
            packlab::cancel::flag().store(2, std::sync::atomic::Ordering::Relaxed);
            interrupted = Some(e);
        }
    }
    let joined = py.detach(|| handle.join());
    flush(py, &lines);
    packlab::progress::set_sink(None);
    packlab::progress::set_quiet(false);
    packlab::cancel::flag().store(0, std::sync::atomic::Ordering::Relaxed);
    if let Some(e) = interrupted {
        return Err(e);
    }
    match joined {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(p)) | Err(p) => Err(crate::bug("while running", p)),
    }
}

/// Writes the progress lines gathered so far to `sys.stderr`.
fn flush(py: Python<'_>, lines: &Mutex<Vec<String>>) {
    let taken: Vec<String> = lines.lock().map(|mut v| v.split_off(0)).unwrap_or_default();
    if taken.is_empty() {
        return;
    }
    if let Ok(err) = py.import("sys").and_then(|s| s.getattr("stderr")) {
        for l in taken {
            let _ = err.call_method1("write", (format!("{l}\n"),));
        }
        let _ = err.call_method0("flush");
    }
}

/// What a run gave, as a dict: `done` (the line the command line prints), `files`, `quick`
/// and `claims` (each a dict of `claim`, `status`, `expected`, `observed`, `evidence`).
fn outcome<'py>(py: Python<'py>, ran: &Ran) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("done", &ran.done)?;
    d.set_item("quick", ran.quick)?;
    let files: Vec<String> = ran.files.iter().map(|f| f.display().to_string()).collect();
    d.set_item("files", files)?;
    let claims = PyList::empty(py);
    for c in &ran.claims {
        let x = PyDict::new(py);
        x.set_item("claim", &c.claim)?;
        x.set_item("status", c.status())?;
        x.set_item("holds", c.holds)?;
        x.set_item("expected", &c.expected)?;
        x.set_item("observed", &c.observed)?;
        x.set_item("evidence", &c.evidence)?;
        x.set_item("not_checked", c.unchecked.as_deref())?;
        claims.append(x)?;
    }
    d.set_item("claims", claims)?;
    Ok(d)
}
