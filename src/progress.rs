//! Progress on stderr for every long phase: a bar sized to the terminal when stderr is one,
//! plain lines every few seconds (done / total, elapsed, time left) when it is not (a log file,
//! `nohup`, CI, a Slurm job), nothing with `--quiet`. The latest step inside a long unit (a
//! probe of a limit search) is shown on the bar, or at the end of the next line; every step on
//! a line of its own only with `--verbose`.
//!
//! Progress never reaches stdout and never changes a result.

use std::cell::RefCell;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Quiet from the start in the library's own tests, which run experiments by the dozen.
static QUIET: AtomicBool = AtomicBool::new(cfg!(test));
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// The latest step reported by [`note`], shown with the next progress line or on the bar.
static LATEST: Mutex<Option<String>> = Mutex::new(None);

/// Where progress and warning lines go instead of stderr, when set ([`set_sink`]).
type Sink = Box<dyn Fn(&str) + Send + Sync>;
static SINK: Mutex<Option<Sink>> = Mutex::new(None);

/// Sends every progress and warning line to `sink` instead of stderr (`None`: stderr again).
/// A host that shows output elsewhere (a notebook, through the Python package) sets one; the
/// lines are the same. A terminal's bar is drawn as before.
pub fn set_sink(sink: Option<Sink>) {
    if let Ok(mut s) = SINK.lock() {
        *s = sink;
    }
}

/// Writes one line on stderr (or to the sink, [`set_sink`]). A stderr that is closed, full or
/// a broken pipe (`packlab … 2>&1 | head`, `2>/dev/full`) is not an error: the line is lost,
/// the run goes on and writes its outputs, and the exit status is what it would have been.
pub fn stderr_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    if let Ok(sink) = SINK.lock()
        && let Some(sink) = &*sink
    {
        sink(&line.to_string());
        return;
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(line).and_then(|()| err.write_all(b"\n"));
}

/// `eprintln!` that never panics: see [`stderr_line`].
macro_rules! warn_line {
    ($($arg:tt)*) => {
        $crate::progress::stderr_line(format_args!($($arg)*))
    };
}
pub(crate) use warn_line;

/// The bar on screen, if any, so that notes print above it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// A step inside a long item (a probe of a limit search…): with `--verbose`, a line of its own
/// (above the bar on a terminal); otherwise it becomes the status the bar and the next
/// progress line show. Nothing with `--quiet`.
pub(crate) fn note(line: impl FnOnce() -> String) {
    if quiet() {
        return;
    }
    let line = line();
    let bar = BAR.lock().ok().and_then(|b| b.clone());
    if VERBOSE.load(Ordering::Relaxed) {
        match &bar {
            Some(b) => b.println(format!("packlab: {line}")),
            None => warn_line!("packlab: {line}"),
        }
    }
    if let Ok(mut l) = LATEST.lock() {
        *l = Some(line);
    }
}

/// The latest step noted, if any.
fn latest() -> Option<String> {
    LATEST.lock().ok().and_then(|l| l.clone())
}

/// Silences all progress (`--quiet`); the final summary and errors are still printed.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Prints every step inside a long unit (each probe of a limit search) on a line of its own
/// (`--verbose`); without it the latest step rides on the progress line.
pub fn set_verbose(verbose: bool) {
    VERBOSE.store(verbose, Ordering::Relaxed);
}

/// Whether every step is printed (`--verbose`).
pub(crate) fn verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
}

/// Whether progress is silenced.
pub(crate) fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Parts per million of the unit a worker thread is running, as the unit reports it.
type Share = Arc<AtomicU32>;

/// A part of a running unit: its share counter, and where in [0, 1] of the unit the part
/// starts and how much of it it covers.
#[derive(Clone)]
pub(crate) struct Span {
    share: Share,
    start: f64,
    len: f64,
}

impl Span {
    /// The part `k` of `n` equal parts of this one.
    pub(crate) fn part(&self, k: u64, n: u64) -> Span {
        let n = n.max(1) as f64;
        Span {
            share: Arc::clone(&self.share),
            start: self.start + self.len * (k as f64).min(n - 1.0) / n,
            len: self.len / n,
        }
    }
}

thread_local! {
    /// The part of a unit the code running on this thread covers, if any.
    static UNIT: RefCell<Option<Span>> = const { RefCell::new(None) };
}

/// The part of a unit this thread now covers (to hand to work run on other threads).
pub(crate) fn current() -> Option<Span> {
    UNIT.with(|u| u.borrow().clone())
}

/// Runs `f` on this thread as `span` (so that its [`report`]s land there), then restores what
/// this thread covered before (a thread may run work of another unit while it waits).
pub(crate) fn within<R>(span: Option<Span>, f: impl FnOnce() -> R) -> R {
    let Some(span) = span else {
        return f();
    };
    let saved = UNIT.with(|u| u.replace(Some(span)));
    report(0.0);
    let r = f();
    UNIT.with(|u| *u.borrow_mut() = saved);
    r
}

/// Reports that the code running on this thread has done `fraction` (0 to 1) of its part of
/// the unit in progress (a run: its slots against its horizon). The unit's share only grows
/// (parts run in parallel each report their own), and stays below 1 until the unit is done.
/// Cheap; nothing happens outside a unit.
pub(crate) fn report(fraction: f64) {
    UNIT.with(|u| {
        if let Some(s) = &*u.borrow() {
            let f = (s.start + s.len * fraction.clamp(0.0, 1.0)).clamp(0.0, 0.999);
            s.share.fetch_max((f * 1e6) as u32, Ordering::Relaxed);
        }
    });
}

/// Seconds between two plain progress lines: 5, or `PACKLAB_PROGRESS_SECONDS` (at most a day;
/// a value that is not a number of seconds in [0, 86400] is ignored).
fn every() -> Duration {
    let s = std::env::var("PACKLAB_PROGRESS_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| (0.0..=86_400.0).contains(s))
        .unwrap_or(5.0);
    Duration::from_secs_f64(s)
}

/// The time left after `elapsed` with `share` of the work done: two estimates of it blended,
/// the one made before the run (`expected`, if any: its remainder at this share, (1 − share) ×
/// expected) weighted by the share of work still to do, and the elapsed time extrapolated by
/// the share (elapsed × (1 − share) / share) weighted by the share done; so that the first
/// lines agree with the estimate and the later ones follow the pace the run measures.
fn remaining(elapsed: Duration, share: f64, expected: Option<Duration>) -> Duration {
    let share = share.clamp(1e-9, 1.0);
    let measured = elapsed.as_secs_f64() * (1.0 - share) / share;
    let left = match expected {
        Some(e) => (1.0 - share) * (1.0 - share) * e.as_secs_f64() + share * measured,
        None => measured,
    };
    Duration::from_secs_f64(left.max(0.0))
}

/// The time left in words: "about 4:07 left"; under a few seconds, while work remains, not a
/// time but that the last units are finishing (a share of work reported is an estimate, and a
/// unit near its end may still run a while).
fn time_left(left: Duration) -> String {
    if left < Duration::from_secs(3) {
        "finishing the units still running".into()
    } else {
        format!("about {} left", clock(left))
    }
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

/// A unit running now: its expected work, the share of it it reports done, what it is in
/// words, and since when its share has not moved.
struct Running {
    work: f64,
    share: Share,
    label: String,
    seen: u32,
    since: Instant,
}

/// A running unit whose reported share has not moved for this many progress intervals (a
/// minute at the default 5 s) is named in the progress: a unit reports every 65,536 events of
/// its slot loop, so one that stays silent this long is very slow, or stuck in a policy that
/// does not return.
const STUCK_INTERVALS: u32 = 12;

/// What the phase's thread and its ticker share.
struct Inner {
    what: String,
    items: &'static str,
    total: u64,
    work: f64,
    /// The wall time the run was expected to take before it started, if it was estimated.
    expected: Option<Duration>,
    start: Instant,
    show: Show,
    counts: Mutex<Counts>,
    /// The units running now.
    running: Mutex<Vec<Running>>,
    /// Set when the phase is over; the ticker waits on it.
    stop: (Mutex<bool>, Condvar),
}

impl Inner {
    /// Items done, and the share of the expected work done (finished items, and what the
    /// running ones report).
    fn state(&self) -> (u64, f64) {
        let (done, work) = self.counts.lock().map_or((0, 0.0), |c| (c.done, c.work));
        let partial: f64 = self.running.lock().map_or(0.0, |r| {
            r.iter()
                .map(|u| u.work * f64::from(u.share.load(Ordering::Relaxed)) / 1e6)
                .sum()
        });
        (done, ((work + partial) / self.work).clamp(0.0, 1.0))
    }

    /// The running units whose share has not moved for [`STUCK_INTERVALS`] progress
    /// intervals, in words ("" if none).
    fn stuck(&self) -> String {
        self.stuck_at(Instant::now(), every() * STUCK_INTERVALS)
    }

    /// [`Inner::stuck`] at `now`, for units silent for `after`.
    fn stuck_at(&self, now: Instant, after: Duration) -> String {
        let Ok(mut running) = self.running.lock() else {
            return String::new();
        };
        let mut words = Vec::new();
        for u in running.iter_mut() {
            let v = u.share.load(Ordering::Relaxed);
            if v != u.seen {
                (u.seen, u.since) = (v, now);
            } else if now.duration_since(u.since) >= after {
                words.push(format!(
                    "{} (no progress for {})",
                    u.label,
                    clock(now.duration_since(u.since))
                ));
            }
        }
        if words.is_empty() {
            String::new()
        } else {
            format!("; still running: {}", words.join(", "))
        }
    }

    /// The time elapsed and the time left with `share` of the work done, in words: the one
    /// estimate of the time left ([`remaining`]) that the bar and the lines both show.
    fn times(&self, share: f64) -> String {
        let elapsed = self.start.elapsed();
        if share <= 0.0 {
            return match self.expected {
                Some(e) => format!(
                    "{} elapsed, {}",
                    clock(elapsed),
                    time_left(e.saturating_sub(elapsed))
                ),
                None => format!("{} elapsed", clock(elapsed)),
            };
        }
        format!(
            "{} elapsed, {}",
            clock(elapsed),
            time_left(remaining(elapsed, share, self.expected))
        )
    }

    /// Redraws the bar, or prints a line if one is due.
    fn show(&self) {
        let (done, share) = self.state();
        match &self.show {
            Show::Hidden => {}
            Show::Bar(b) => {
                b.set_position((share * 10_000.0) as u64);
                // the time left first, a unit that stopped reporting next, the latest step
                // last, on one line that the bar cuts at the terminal's width
                b.set_message(format!(
                    "{done}/{} {}, {}{}{}",
                    self.total,
                    self.items,
                    self.times(share),
                    self.stuck(),
                    latest().map_or(String::new(), |l| format!("; latest: {l}")),
                ));
            }
            Show::Lines { every } => {
                let Ok(mut c) = self.counts.lock() else {
                    return;
                };
                let now = Instant::now();
                if now.duration_since(c.last) < *every || done >= self.total || share <= 0.0 {
                    return;
                }
                c.last = now;
                warn_line!(
                    "packlab: {}: {done}/{} {}, {:.0} % of the work, {}{}{}",
                    self.what,
                    self.total,
                    self.items,
                    // rounded down: 100 % only once every item is done
                    (100.0 * share).floor(),
                    self.times(share),
                    latest().map_or(String::new(), |l| format!("; latest: {l}")),
                    self.stuck()
                );
            }
        }
    }
}

/// Progress through `total` items of unequal expected work (the share of work done drives the
/// time left, so long items started first do not make it optimistic). Items report their own
/// progress while they run ([`report`]), so the bar moves and lines appear during a long item.
pub(crate) struct Progress {
    inner: Arc<Inner>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Progress of `what` through `total` `items` (a plural noun) of `work` expected work in
    /// all (any unit), expected to take `expected` of wall time if that was estimated.
    /// Announces itself at once when printing lines.
    pub(crate) fn new(
        what: &str,
        items: &'static str,
        total: u64,
        work: f64,
        expected: Option<Duration>,
    ) -> Progress {
        let show = if quiet() || total == 0 {
            Show::Hidden
        } else if std::io::stderr().is_terminal() {
            let b = ProgressBar::with_draw_target(Some(10_000), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template("{prefix} [{bar:24}] {wide_msg}")
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
            warn_line!("packlab: {what}: {total} {items} to do");
            Show::Lines { every: every() }
        };
        let tick = match &show {
            Show::Hidden => None,
            Show::Bar(_) => Some(Duration::from_millis(200)),
            Show::Lines { every } => Some((*every / 4).max(Duration::from_millis(50))),
        };
        let now = Instant::now();
        let inner = Arc::new(Inner {
            what: what.to_string(),
            items,
            total,
            work: work.max(f64::MIN_POSITIVE),
            expected,
            start: now,
            show,
            counts: Mutex::new(Counts {
                done: 0,
                work: 0.0,
                last: now,
            }),
            running: Mutex::new(Vec::new()),
            stop: (Mutex::new(false), Condvar::new()),
        });
        let ticker = tick.map(|tick| {
            let inner = Arc::clone(&inner);
            std::thread::spawn(move || {
                let (lock, wake) = &inner.stop;
                let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
                while !*stopped {
                    stopped = match wake.wait_timeout(stopped, tick) {
                        Ok((g, _)) => g,
                        Err(e) => e.into_inner().0,
                    };
                    if !*stopped {
                        inner.show();
                    }
                }
            })
        });
        Progress { inner, ticker }
    }

    /// Runs `f`, an item of expected work `work` described by `label`, on this thread; what it
    /// [`report`]s while it runs counts towards the progress shown, and an item that reports
    /// nothing new for a minute is named.
    pub(crate) fn running<R>(
        &self,
        work: f64,
        label: impl FnOnce() -> String,
        f: impl FnOnce() -> R,
    ) -> R {
        if matches!(self.inner.show, Show::Hidden) {
            return f();
        }
        let share: Share = Arc::new(AtomicU32::new(0));
        if let Ok(mut r) = self.inner.running.lock() {
            r.push(Running {
                work,
                share: Arc::clone(&share),
                label: label(),
                seen: 0,
                since: Instant::now(),
            });
        }
        let span = Span {
            share: Arc::clone(&share),
            start: 0.0,
            len: 1.0,
        };
        let out = within(Some(span), f);
        if let Ok(mut r) = self.inner.running.lock() {
            r.retain(|u| !Arc::ptr_eq(&u.share, &share));
        }
        out
    }

    /// One item of expected work `work` is done (not one that was stopped or failed).
    pub(crate) fn item_done(&self, work: f64) {
        if matches!(self.inner.show, Show::Hidden) {
            return;
        }
        if let Ok(mut c) = self.inner.counts.lock() {
            c.done += 1;
            c.work += work;
        }
        if let Show::Bar(_) = self.inner.show {
            self.inner.show();
        }
    }

    /// The phase is over: the bar is cleared, a line states the items done and the time taken.
    pub(crate) fn finish(&mut self) {
        {
            let (lock, wake) = &self.inner.stop;
            if let Ok(mut s) = lock.lock() {
                *s = true;
            }
            wake.notify_all();
        }
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        let inner = &self.inner;
        match &inner.show {
            Show::Hidden => {}
            Show::Bar(b) => {
                b.finish_and_clear();
                if let Ok(mut on) = BAR.lock() {
                    *on = None;
                }
            }
            Show::Lines { .. } => {
                let done = inner.counts.lock().map_or(0, |c| c.done);
                warn_line!(
                    "packlab: {}: {done}/{} {} in {}",
                    inner.what,
                    inner.total,
                    inner.items,
                    clock(inner.start.elapsed())
                );
            }
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.ticker.is_some() {
            self.finish();
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
            warn_line!("packlab: {}: {}, {elapsed} elapsed", self.what, status());
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
    fn a_unit_silent_for_long_is_named_and_one_that_reports_is_not() {
        let start = Instant::now();
        let unit = |label: &str, share: u32| Running {
            work: 1.0,
            share: Arc::new(AtomicU32::new(share)),
            label: label.into(),
            seen: 0,
            since: start,
        };
        let inner = Inner {
            what: "t".into(),
            items: "units",
            total: 2,
            work: 2.0,
            expected: None,
            start,
            show: Show::Hidden,
            counts: Mutex::new(Counts {
                done: 0,
                work: 0.0,
                last: start,
            }),
            running: Mutex::new(vec![unit("bf-js at load 0.9", 0), unit("vqs", 0)]),
            stop: (Mutex::new(false), Condvar::new()),
        };
        let after = Duration::from_secs(60);
        assert_eq!(inner.stuck_at(start + Duration::from_secs(59), after), "");
        // one unit reports progress; the other stays silent past a minute
        inner.running.lock().unwrap()[1]
            .share
            .store(500, Ordering::Relaxed);
        let said = inner.stuck_at(start + Duration::from_secs(61), after);
        assert_eq!(
            said,
            "; still running: bf-js at load 0.9 (no progress for 1:01)"
        );
        // the reporting one is named only once it too goes silent that long
        let later = inner.stuck_at(start + Duration::from_secs(122), after);
        assert!(later.contains("vqs (no progress for 1:01)"), "{later}");
    }

    #[test]
    fn clock_reads_like_a_clock() {
        assert_eq!(clock(Duration::from_secs(12)), "12 s");
        assert_eq!(clock(Duration::from_secs(247)), "4:07");
        assert_eq!(clock(Duration::from_secs(3909)), "1:05:09");
    }

    #[test]
    fn time_left_starts_from_the_estimate_and_ends_with_the_measurement() {
        let s = Duration::from_secs;
        // no estimate: the elapsed time extrapolated
        assert_eq!(remaining(s(10), 0.25, None), s(30));
        // at the start, the estimate's remainder (within a second)
        let early = remaining(s(1), 0.001, Some(s(100))).as_secs_f64();
        assert!((early - 100.0).abs() < 1.0, "{early}");
        // half way, the mean of both: (50 + 20) / 2
        assert_eq!(remaining(s(20), 0.5, Some(s(100))), s(35));
        // an estimate far too long or too short gives way to the pace measured as the work
        // gets done (at 0.9, 0.1·1 + 0.9·50/9), and nothing is left when all of it is
        let late = remaining(s(50), 0.9, Some(s(10))).as_secs_f64();
        assert!((late - 5.1).abs() < 1e-9, "{late}");
        let late = remaining(s(50), 0.9, Some(s(1000))).as_secs_f64();
        assert!((late - 15.0).abs() < 1e-9, "{late}");
        assert_eq!(remaining(s(50), 1.0, Some(s(10))), s(0));
    }
}
