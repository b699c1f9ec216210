//! The finished steps of one unit of work: a long unit (a limit search, a region map's ray, a
//! compaction study's search) journals each of its runs as it finishes, so that an interrupted
//! unit resumes with every run it had finished, and only the runs in flight are lost.
//!
//! A step is named by a key (for a search's run: its load's bits and its replication) and gives
//! a value (the run's verdict and slots). A step's value depends only on its key and the unit,
//! never on the order steps ran in, so a unit that recalls some steps from the journal and runs
//! the rest follows the same path as one that ran them all, and gives the same bytes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::ExperimentError;

/// Where a step's record goes: its unit's index in the plan, its key and value, serialised.
pub(crate) type StepSink<'a> = dyn Fn(u32, &[u8], &[u8]) -> Result<(), ExperimentError> + Sync + 'a;

/// One unit's finished steps: those recalled from the journal, and where new ones are written.
pub(crate) struct Steps<'a> {
    /// The unit's index in the plan.
    unit: u32,
    /// The steps the journal holds for this unit: key bytes to value bytes.
    kept: HashMap<Vec<u8>, Vec<u8>>,
    /// Where a finished step is journaled (nowhere for a run without a journal).
    sink: Option<&'a StepSink<'a>>,
    /// Steps run and journaled.
    written: AtomicUsize,
}

impl std::fmt::Debug for Steps<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Steps")
            .field("kept", &self.kept.len())
            .field("journaled", &self.sink.is_some())
            .finish()
    }
}

impl Steps<'static> {
    /// No journal: every step runs, nothing is kept.
    pub(crate) fn none() -> Self {
        Steps::new(0, HashMap::new(), None)
    }
}

impl<'a> Steps<'a> {
    /// Unit `unit`'s steps: `kept` from its journal, new ones written to `sink`.
    pub(crate) fn new(
        unit: u32,
        kept: HashMap<Vec<u8>, Vec<u8>>,
        sink: Option<&'a StepSink<'a>>,
    ) -> Self {
        Steps {
            unit,
            kept,
            sink,
            written: AtomicUsize::new(0),
        }
    }

    /// The value of step `key`: recalled from the journal if it finished before, otherwise
    /// `run` and journaled once it finishes (a failed or interrupted step is not).
    pub(crate) fn step<K, V>(
        &self,
        key: &K,
        run: impl FnOnce() -> Result<V, ExperimentError>,
    ) -> Result<V, ExperimentError>
    where
        K: Serialize,
        V: Serialize + DeserializeOwned,
    {
        let key = postcard::to_stdvec(key).expect("a step's key serialises");
        if let Some(v) = self
            .kept
            .get(&key)
            .and_then(|bytes| postcard::from_bytes(bytes).ok())
        {
            return Ok(v);
        }
        let v = run()?;
        if let Some(sink) = self.sink {
            sink(
                self.unit,
                &key,
                &postcard::to_stdvec(&v).expect("a step's value serialises"),
            )?;
            self.written.fetch_add(1, Ordering::Relaxed);
        }
        Ok(v)
    }

    /// The value the journal holds for `key`, if it held one (what [`Steps::step`] would
    /// recall).
    pub(crate) fn recall<K, V>(&self, key: &K) -> Option<V>
    where
        K: Serialize,
        V: DeserializeOwned,
    {
        let key = postcard::to_stdvec(key).expect("a step's key serialises");
        self.kept
            .get(&key)
            .and_then(|bytes| postcard::from_bytes(bytes).ok())
    }

    /// Steps the journal held for this unit.
    pub(crate) fn kept(&self) -> usize {
        self.kept.len()
    }

    /// Steps run and journaled by this process.
    pub(crate) fn written(&self) -> usize {
        self.written.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn a_kept_step_is_recalled_and_a_new_one_is_run_and_written() {
        let log: Mutex<Vec<(Vec<u8>, Vec<u8>)>> = Mutex::new(Vec::new());
        let sink = |u: u32, k: &[u8], v: &[u8]| {
            assert_eq!(u, 3);
            log.lock().unwrap().push((k.to_vec(), v.to_vec()));
            Ok(())
        };
        let first = Steps::new(3, HashMap::new(), Some(&sink));
        let a: (u8, u64) = first.step(&(7u64, 1u32), || Ok((1, 99))).unwrap();
        assert_eq!(a, (1, 99));
        assert_eq!(first.written(), 1);
        // a failed step is not written
        assert!(
            first
                .step::<_, (u8, u64)>(&(7u64, 2u32), || Err(ExperimentError::Cancelled))
                .is_err()
        );
        let kept: HashMap<_, _> = log.lock().unwrap().drain(..).collect();
        assert_eq!(kept.len(), 1);
        let again = Steps::new(3, kept, Some(&sink));
        // recalled: not run, not written again
        let b: (u8, u64) = again
            .step(&(7u64, 1u32), || panic!("a kept step runs again"))
            .unwrap();
        assert_eq!(b, (1, 99));
        let c: (u8, u64) = again.step(&(7u64, 2u32), || Ok((0, 5))).unwrap();
        assert_eq!(c, (0, 5));
        assert_eq!((again.kept(), again.written()), (1, 1));
        assert_eq!(log.lock().unwrap().len(), 1);
    }
}
