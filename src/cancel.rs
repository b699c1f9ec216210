//! A request to stop, set by a signal (SIGINT, SIGTERM, SIGHUP): long loops check it now and then and
//! stop early, so a run can save what it finished and exit.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The flag: 0 while running, else the number of the signal that asked to stop.
pub fn flag() -> &'static Arc<AtomicUsize> {
    static FLAG: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicUsize::new(0)))
}

/// The signal that asked to stop, if one did.
#[inline]
pub fn requested() -> Option<i32> {
    match flag().load(Ordering::Relaxed) {
        0 => None,
        s => Some(s as i32),
    }
}

/// What packlab is doing, for the message of an interruption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Phase {
    /// Reading and validating the experiment file and its data.
    Reading = 0,
    /// Running units of work.
    Running = 1,
    /// Writing the outputs.
    Writing = 2,
    /// Submitting Slurm jobs with sbatch.
    Submitting = 3,
}

static PHASE: AtomicU8 = AtomicU8::new(Phase::Reading as u8);

/// Records what packlab is doing now.
pub(crate) fn set_phase(phase: Phase) {
    PHASE.store(phase as u8, Ordering::Relaxed);
}

/// Whether packlab is still reading and validating its input.
pub fn reading() -> bool {
    PHASE.load(Ordering::Relaxed) == Phase::Reading as u8
}

/// What packlab is doing now, in words.
pub fn phase() -> &'static str {
    match PHASE.load(Ordering::Relaxed) {
        0 => "reading and validating its input",
        1 => "running",
        2 => "writing its outputs",
        _ => "submitting Slurm jobs",
    }
}

/// The [`crate::sim::Watch`] of a run inside the `packlab` program: it shows the run's
/// progress and stops it once a signal has asked to stop.
pub(crate) fn watch(fraction: f64) -> bool {
    if requested().is_some() {
        return true;
    }
    crate::progress::report(fraction);
    false
}
