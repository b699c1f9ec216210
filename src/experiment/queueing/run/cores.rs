//! The cores a limit search's runs simulate on. The runs of a search's request look together
//! ([`super::round`]), so each has a thread of its own, while the search's unit holds one of
//! the `--threads` workers, blocked until they end. Without more, a file searching several
//! limits at once keeps `replications` threads per search simulating, whatever `--threads`
//! says. Here the unit lends its worker's core for as long as its runs go on
//! ([`Cores::lend`]); a run simulates only while it holds a core ([`Cores::hold`]) and gives it
//! back while it waits at a look for the others ([`Cores::aside`]). No more runs simulate at
//! once than cores were lent, so a file keeps at most `--threads` cores busy. Which run holds a
//! core when never changes what a run does: its results depend only on its seed and on the
//! statistics of its round's looks.

use std::sync::{Condvar, Mutex};

/// Cores lent and not held.
pub(super) struct Cores {
    free: Mutex<usize>,
    freed: Condvar,
}

/// The cores of every search in the process.
pub(super) static CORES: Cores = Cores::new();

impl Cores {
    /// No core lent.
    pub(super) const fn new() -> Self {
        Cores {
            free: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    fn give(&self) {
        *self.free.lock().expect("the cores") += 1;
        self.freed.notify_one();
    }

    fn take(&self) {
        let mut free = self.free.lock().expect("the cores");
        while *free == 0 {
            free = self.freed.wait(free).expect("the cores");
        }
        *free -= 1;
    }

    /// Lends the calling worker's core to the runs it waits on, until the guard is dropped
    /// (then it is taken back as soon as one is free).
    pub(super) fn lend(&self) -> Lent<'_> {
        self.give();
        Lent(self)
    }

    /// Waits for a core to simulate on, held until the guard is dropped.
    pub(super) fn hold(&self) -> Held<'_> {
        self.take();
        Held(self)
    }

    /// Gives a held core back while `wait` blocks (a run waiting at a look for the others),
    /// then waits for one again.
    pub(super) fn aside<T>(&self, wait: impl FnOnce() -> T) -> T {
        self.give();
        let out = wait();
        self.take();
        out
    }
}

/// A worker's core, lent.
#[must_use = "the core is taken back when this is dropped"]
pub(super) struct Lent<'a>(&'a Cores);

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        self.0.take();
    }
}

/// A core a run simulates on.
#[must_use = "the core is given back when this is dropped"]
pub(super) struct Held<'a>(&'a Cores);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.give();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Runs that each hold a core, with two cores lent, simulate two at a time at most, and
    /// all end.
    #[test]
    fn runs_simulate_on_no_more_cores_than_were_lent() {
        let cores = Cores::new();
        let (busy, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let lent = [cores.lend(), cores.lend()];
        std::thread::scope(|scope| {
            for _ in 0..6 {
                scope.spawn(|| {
                    let _held = cores.hold();
                    let now = busy.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    busy.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        assert!((1..=2).contains(&most.load(Ordering::SeqCst)));
        drop(lent);
        assert_eq!(*cores.free.lock().unwrap(), 0);
    }
}
