//! Progress on stderr for every long phase: a bar sized to the terminal when stderr is one,
//! plain lines every few seconds (done / total, elapsed, time left) when it is not (a log file,
//! `nohup`, CI, a Slurm job), nothing with `--quiet`.
//!
//! Progress never reaches stdout and never changes a result.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

static QUIET: AtomicBool = AtomicBool::new(false);

/// The bar on screen, if any, so that notes print above it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// A line about a step inside a long item (a probe of a limit search…): above the bar on a
/// terminal, a plain line otherwise, nothing with `--quiet`.
pub(crate) fn note(line: impl FnOnce() -> String) {
    if quiet() {
        return;
    }
    let bar = BAR.lock().ok().and_then(|b| b.clone());
    match bar {
        Some(b) => b.println(format!("packlab: {}", line())),
        None => eprintln!("packlab: {}", line()),
    }
}

/// Silences all progress (`--quiet`); the final summary and errors are still printed.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether progress is silenced.
pub(crate) fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Seconds between two plain progress lines: 5, or `PACKLAB_PROGRESS_SECONDS`.
fn every() -> Duration {
    let s = std::env::var("PACKLAB_PROGRESS_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(5.0);
    Duration::from_secs_f64(s)
}

/// `1:05:09`, `4:07` or `12 s`.
pub(crate) fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{}:{:02}", s / 60, s % 60),
        _ => format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60),
    }
}

enum Show {
    Hidden,
    Bar(ProgressBar),
    Lines { every: Duration },
}

struct Counts {
    done: u64,
    work: f64,
    last: Instant,
}

/// Progress through `total` items of unequal expected work (the share of work done drives the
/// time left, so long items started first do not make it optimistic).
pub(crate) struct Progress {
    what: String,
    items: &'static str,
    total: u64,
    work: f64,
    start: Instant,
    show: Show,
    counts: Mutex<Counts>,
}

impl Progress {
    /// Progress of `what` through `total` `items` (a plural noun) of `work` expected work in
    /// all (any unit). Announces itself at once when printing lines.
    pub(crate) fn new(what: &str, items: &'static str, total: u64, work: f64) -> Progress {
        let show = if quiet() || total == 0 {
            Show::Hidden
        } else if std::io::stderr().is_terminal() {
            let b = ProgressBar::with_draw_target(Some(10_000), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template("{prefix} [{wide_bar}] {msg}, {elapsed} (eta {eta})")
                    .expect("a static template")
                    .progress_chars("=> "),
            );
            b.set_prefix(what.to_string());
            b.set_message(format!("0/{total} {items}"));
            if let Ok(mut on) = BAR.lock() {
                *on = Some(b.clone());
            }
            Show::Bar(b)
        } else {
            eprintln!("packlab: {what}: {total} {items} to do");
            Show::Lines { every: every() }
        };
        let now = Instant::now();
        Progress {
            what: what.to_string(),
            items,
            total,
            work: work.max(f64::MIN_POSITIVE),
            start: now,
            show,
            counts: Mutex::new(Counts {
                done: 0,
                work: 0.0,
                last: now,
            }),
        }
    }

    /// One item of expected work `work` is done.
    pub(crate) fn item_done(&self, work: f64) {
        if matches!(self.show, Show::Hidden) {
            return;
        }
        let Ok(mut c) = self.counts.lock() else {
            return;
        };
        c.done += 1;
        c.work += work;
        let share = (c.work / self.work).clamp(0.0, 1.0);
        match &self.show {
            Show::Hidden => {}
            Show::Bar(b) => {
                b.set_position((share * 10_000.0) as u64);
                b.set_message(format!("{}/{} {}", c.done, self.total, self.items));
            }
            Show::Lines { every } => {
                let now = Instant::now();
                if now.duration_since(c.last) >= *every && c.done < self.total {
                    c.last = now;
                    let elapsed = now.duration_since(self.start);
                    let left = elapsed.mul_f64((1.0 - share) / share.max(1e-9));
                    eprintln!(
                        "packlab: {}: {}/{} {}, {:.0} % of the work, {} elapsed, about {} left",
                        self.what,
                        c.done,
                        self.total,
                        self.items,
                        100.0 * share,
                        clock(elapsed),
                        clock(left)
                    );
                }
            }
        }
    }

    /// The phase is over: the bar is cleared, a line states the time taken.
    pub(crate) fn finish(&self) {
        match &self.show {
            Show::Hidden => {}
            Show::Bar(b) => {
                b.finish_and_clear();
                if let Ok(mut on) = BAR.lock() {
                    *on = None;
                }
            }
            Show::Lines { .. } => {
                let done = self.counts.lock().map_or(0, |c| c.done);
                eprintln!(
                    "packlab: {}: {done}/{} {} in {}",
                    self.what,
                    self.total,
                    self.items,
                    clock(self.start.elapsed())
                );
            }
        }
    }
}

/// Progress of a phase whose size is not known in advance (reading a trace): a spinner on a
/// terminal, a line every few seconds otherwise.
pub(crate) struct Ticker {
    what: String,
    start: Instant,
    last: Instant,
    every: Duration,
    spinner: Option<ProgressBar>,
    terminal: bool,
}

impl Ticker {
    /// Starts a phase doing `what` (nothing is shown for its first second).
    pub(crate) fn new(what: impl Into<String>) -> Ticker {
        let now = Instant::now();
        let terminal = std::io::stderr().is_terminal();
        Ticker {
            what: what.into(),
            start: now,
            last: now,
            every: if terminal {
                Duration::from_millis(200)
            } else {
                every()
            },
            spinner: None,
            terminal,
        }
    }

    /// Reports `status()` if it is time to (call it as often as convenient; it is cheap).
    pub(crate) fn tick(&mut self, status: impl FnOnce() -> String) {
        if quiet() {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.last) < self.every
            || now.duration_since(self.start) < Duration::from_secs(1)
        {
            return;
        }
        self.last = now;
        let elapsed = clock(now.duration_since(self.start));
        if !self.terminal {
            eprintln!("packlab: {}: {}, {elapsed} elapsed", self.what, status());
        } else {
            let s = self.spinner.get_or_insert_with(|| {
                let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                b.set_style(
                    ProgressStyle::with_template("{spinner} {msg}").expect("a static template"),
                );
                b
            });
            s.set_message(format!("{}: {}, {elapsed}", self.what, status()));
            s.tick();
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        if let Some(s) = &self.spinner {
            s.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_like_a_clock() {
        assert_eq!(clock(Duration::from_secs(12)), "12 s");
        assert_eq!(clock(Duration::from_secs(247)), "4:07");
        assert_eq!(clock(Duration::from_secs(3909)), "1:05:09");
    }
}
