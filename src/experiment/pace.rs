//! How fast this machine runs packlab, against the machine on which the time estimate's prices
//! were measured: a short reference run, timed once before a long run's estimate is printed.
//!
//! The same build ran the same experiment files twice as fast on one two-core machine as on
//! another of the same kind (26 and 27 November 2026), so fixed prices in nanoseconds could
//! not be right on both. The estimate multiplies its prices by this pace instead.

use std::sync::OnceLock;
use std::time::Instant;

use crate::model::Size;
use crate::policy::BestFitJS;
use crate::sim::{Cluster, RunConfig};
use crate::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};

/// Nanoseconds per job of [`reference_run`] on the machine the estimate's prices were fitted on
/// (the best of three, 27 November 2026; `packlab` release build; on a quiet machine the best
/// of [`RUNS`] differs little). It measured 105 there, and 8 % less once best fit's buckets
/// became log-linear the same day: the reference run is packlab's own code, so a change that
/// speeds it up is taken out here, or the estimate would read the machine as faster than it
/// is.
const REFERENCE_NS_PER_JOB: f64 = 96.5;

/// The slowest pace [`pace`] reports (and the fastest is 1/4).
pub(crate) const SLOWEST: f64 = 8.0;

/// Jobs of one reference run: about 10 ms.
const JOBS: f64 = 1e5;

/// Reference runs [`pace`] takes the best of. A shared machine slows a run in bursts of a
/// tenth of a second or so, and the best of three 10 ms runs often fell inside one: on 29
/// November 2026, ten processes' best of three read this machine as 1.6 to 2.8 times slower
/// than the reference one, their best of twelve 1.6 to 2.1 times (between them FIFO-FF in the
/// policies bench, 2·10⁶ jobs a run, took 1.4 to 1.9 times its time of 27 November). Twelve
/// take about 0.12 s on the reference machine and 0.25 s on that slow day, timed only before a
/// run that could take over ten seconds.
const RUNS: usize = 12;

/// How this machine runs packlab now: its `pace` (its CPU time over the reference machine's for
/// the same work: 2 means twice as slow, kept within [1/4, [`SLOWEST`]]) and its `contention`
/// (wall time over CPU time of a thread that runs: above 1 when other processes take the cores).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pace {
    /// CPU time per unit of work, against the reference machine's.
    pub(crate) pace: f64,
    /// Wall time per unit of CPU time of a running thread (at least 1).
    pub(crate) contention: f64,
}

/// This machine's [`Pace`], from [`RUNS`] reference runs, measured once per process. On a
/// quiet machine the best run's wall time is its CPU time, and gives the pace. On a busy one
/// (the runs' wall time above 1.25 times their CPU time, read from `/proc/thread-self/stat`)
/// the best of a few short runs is still slowed by the others, so the pace is their CPU time
/// (in clock ticks, summed over the runs), and the slowdown is the contention: the printed CPU
/// time stays what the work costs, and the wall time says what the machine's load adds.
pub(crate) fn pace() -> Pace {
    static PACE: OnceLock<Pace> = OnceLock::new();
    *PACE.get_or_init(|| {
        let cpu_before = thread_cpu_seconds();
        let start = Instant::now();
        let runs: Vec<(f64, u64)> = (0..RUNS).filter_map(|_| reference_run()).collect();
        let wall = start.elapsed().as_secs_f64();
        let jobs: u64 = runs.iter().map(|r| r.1).sum();
        let best = runs
            .iter()
            .map(|r| r.0)
            .fold(f64::INFINITY, f64::min)
            .min(REFERENCE_NS_PER_JOB * SLOWEST);
        let (pace, contention) = match (cpu_before, thread_cpu_seconds()) {
            (Some(a), Some(b)) if b > a && wall > 1.25 * (b - a) && jobs > 0 => {
                let cpu_ns = (b - a) * 1e9 / jobs as f64;
                (cpu_ns / REFERENCE_NS_PER_JOB, wall / (b - a))
            }
            _ => (best / REFERENCE_NS_PER_JOB, 1.0),
        };
        Pace {
            pace: pace.clamp(0.25, SLOWEST),
            contention: contention.max(1.0),
        }
    })
}

/// The CPU time this thread has run, seconds (user and system, in clock ticks of 1/100 s, from
/// `/proc/thread-self/stat`); `None` where it cannot be read.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // the fields after the command's closing parenthesis: utime and stime are the 12th and 13th
    let rest = text.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Nanoseconds per job of BF-J/S on 100 servers, sizes Unif[0.1, 0.9], geometric service of
/// mean 100 slots, Poisson arrivals at load 0.7 (the setting of `cargo bench --bench
/// policies`), for about [`JOBS`] jobs, and the jobs; `None` if the run could not be made.
fn reference_run() -> Option<(f64, u64)> {
    let (servers, mean_service, load) = (100, 100.0, 0.7);
    let sizes = SizeLaw::uniform(Size::ratio(1, 10), Size::ratio(9, 10));
    let rate = load * servers as f64 / (sizes.mean() * mean_service);
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).ok()?;
    let slots = (JOBS / rate).ceil() as u64;
    let cfg = RunConfig {
        slots,
        warmup: slots / 10,
        queue_cap: 1_000_000,
        samples: 10,
        check_every_slot: false,
        max_slots: 0,
        mean_service: 1.0,
        watch: crate::sim::Watch(crate::cancel::watch),
        look: crate::sim::Look::ALWAYS,
    };
    let mut source = JobSource::new(sizes, ServiceLaw::geometric(mean_service), arrivals, 1);
    let mut cluster = Cluster::new(servers, mean_service);
    let mut policy = BestFitJS::new(servers);
    let start = Instant::now();
    let r = crate::policy::run(&mut policy, &mut source, &mut cluster, &cfg).ok()?;
    Some((
        start.elapsed().as_secs_f64() * 1e9 / r.arrived.max(1) as f64,
        r.arrived,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_run_runs() {
        let (ns, jobs) = reference_run().expect("the reference setting is valid");
        assert!(ns.is_finite() && ns > 0.0 && jobs > 50_000, "{ns} {jobs}");
        let p = pace();
        assert!(
            p.pace >= 0.25 && p.pace <= SLOWEST && p.contention >= 1.0,
            "{p:?}"
        );
        // a thread's CPU time is readable and grows with work
        let a = thread_cpu_seconds().expect("/proc/thread-self/stat");
        let _ = reference_run();
        let b = thread_cpu_seconds().unwrap();
        assert!(b >= a);
    }
}
