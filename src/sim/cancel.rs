//! A request to stop, set by a signal (SIGINT, SIGTERM): long loops check it now and then and
//! stop early, so a run can save what it finished and exit.

use std::sync::atomic::{AtomicUsize, Ordering};
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

/// Asks every long loop to stop, as signal `signal` would.
pub fn request(signal: i32) {
    flag().store(signal.max(1) as usize, Ordering::Relaxed);
}

/// Clears a request (for tests).
pub fn reset() {
    flag().store(0, Ordering::Relaxed);
}
