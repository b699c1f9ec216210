//! A stability verdict from one run's queue-size trajectory.
//!
//! The post-warm-up slots are cut into [`BATCHES`](super::BATCHES) equal batches; the batch
//! means are regressed on time. Let `slope` be the least-squares slope (jobs per slot) with its
//! 95 % confidence interval from Student's t (n − 2 degrees of freedom), `growth = slope · h`
//! over the measured horizon h, and `level` the mean queue plus one job. Then:
//! - `unstable` if the run hit the queue cap, or the interval lies above 0,
//!   `growth > level / 2` (the queue grew by a good part of its own level) and
//!   `growth > 4 · sd` with `sd` the batch means' standard deviation around the trend (the
//!   growth dwarfs the fluctuations of the queue; without this, small stable queues were
//!   called unstable in 3.5 % of runs at ρ = 0.8, see `experiments/verdict_calibration.toml`);
//! - `stable` if even the interval's upper end, `ci_high · h`, is at most `level` (whatever
//!   trend there is cannot be told from the fluctuations of a bounded queue);
//! - `inconclusive` otherwise (typically close to the stability limit), and always when the
//!   measured horizon is shorter than [`MIN_HORIZON_SERVICES`] mean service times: the queue
//!   has not had time to forget its empty start, so a trend says nothing yet.
//!
//! Batch means of an autocorrelated queue understate the slope's standard error, so a run far
//! too short for its load tends to `inconclusive` or a wrong call: the horizon matters.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::RunResult;

/// The shortest horizon, in mean service times, on which a run's trend is judged.
pub const MIN_HORIZON_SERVICES: f64 = 100.0;

/// Stable, unstable, or cannot tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Stable,
    Unstable,
    Inconclusive,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Stable => "stable",
            Verdict::Unstable => "unstable",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The numbers behind a verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VerdictEvidence {
    /// Slope of the batch means, jobs per slot.
    pub slope: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Slots measured after warm-up.
    pub horizon: u64,
    /// Mean queue + 1, jobs.
    pub level: f64,
    /// Standard deviation of the batch means around the fitted trend, jobs.
    pub residual_sd: f64,
    pub capped: bool,
    /// The horizon was shorter than [`MIN_HORIZON_SERVICES`] mean service times.
    pub short: bool,
}

impl std::fmt::Display for VerdictEvidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.capped {
            write!(f, "queue cap hit after {} slots", self.horizon)
        } else if self.short {
            write!(
                f,
                "horizon of {} slots is shorter than {MIN_HORIZON_SERVICES} mean service times; \
                 slope {:.3e} jobs/slot not judged",
                self.horizon, self.slope
            )
        } else {
            write!(
                f,
                "slope {:.3e} jobs/slot (95% CI {:.3e} .. {:.3e}) over {} slots, level {:.2}, \
                 residual sd {:.2}",
                self.slope, self.ci_low, self.ci_high, self.horizon, self.level, self.residual_sd
            )
        }
    }
}

/// The verdict on a run with `warmup` slots of warm-up and mean service time `mean_service`
/// slots.
pub fn verdict(r: &RunResult, warmup: u64, mean_service: f64) -> (Verdict, VerdictEvidence) {
    let horizon = r.slots.saturating_sub(warmup);
    let mut ev = VerdictEvidence {
        slope: 0.0,
        ci_low: 0.0,
        ci_high: 0.0,
        horizon,
        level: r.mean_queue + 1.0,
        residual_sd: 0.0,
        capped: r.capped,
        short: (horizon as f64) < MIN_HORIZON_SERVICES * mean_service,
    };
    if r.capped {
        ev.horizon = r.slots;
        return (Verdict::Unstable, ev);
    }
    let y = &r.batch_means;
    let n = y.len();
    if n < 4 {
        return (Verdict::Inconclusive, ev);
    }
    let blen = horizon as f64 / n as f64;
    let x: Vec<f64> = (0..n).map(|b| (b as f64 + 0.5) * blen).collect();
    let mx = x.iter().sum::<f64>() / n as f64;
    let my = y.iter().sum::<f64>() / n as f64;
    let sxx: f64 = x.iter().map(|xi| (xi - mx).powi(2)).sum();
    let sxy: f64 = x.iter().zip(y).map(|(xi, yi)| (xi - mx) * (yi - my)).sum();
    let slope = sxy / sxx;
    let sse: f64 = x
        .iter()
        .zip(y)
        .map(|(xi, yi)| (yi - my - slope * (xi - mx)).powi(2))
        .sum();
    let se = (sse / (n as f64 - 2.0) / sxx).sqrt();
    let t = StudentsT::new(0.0, 1.0, n as f64 - 2.0)
        .expect("n ≥ 4")
        .inverse_cdf(0.975);
    ev.slope = slope;
    ev.residual_sd = (sse / (n as f64 - 2.0)).sqrt();
    ev.ci_low = slope - t * se;
    ev.ci_high = slope + t * se;
    let h = horizon as f64;
    let v = if ev.short {
        Verdict::Inconclusive
    } else if ev.ci_low > 0.0 && slope * h > ev.level / 2.0 && slope * h > 4.0 * ev.residual_sd {
        Verdict::Unstable
    } else if ev.ci_high * h <= ev.level {
        Verdict::Stable
    } else {
        Verdict::Inconclusive
    };
    (v, ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(batch_means: Vec<f64>, slots: u64) -> RunResult {
        let mean = batch_means.iter().sum::<f64>() / batch_means.len() as f64;
        RunResult {
            slots,
            mean_queue: mean,
            max_queue: 0,
            final_queue: 0,
            utilization: 0.0,
            throughput: 0.0,
            mean_wait: 0.0,
            capped: false,
            series: vec![],
            class_series: vec![],
            config_mix: vec![],
            batch_means,
            arrived: 0,
            mean_queued_work: 0.0,
        }
    }

    #[test]
    fn linear_growth_is_unstable() {
        let y = (0..32).map(|b| 10.0 * b as f64 + (b % 3) as f64).collect();
        assert_eq!(verdict(&result(y, 32_000), 0, 10.0).0, Verdict::Unstable);
    }

    #[test]
    fn flat_noise_is_stable() {
        let y = (0..32).map(|b| 50.0 + ((b * 7919) % 11) as f64).collect();
        assert_eq!(verdict(&result(y, 32_000), 0, 10.0).0, Verdict::Stable);
    }

    #[test]
    fn short_runs_are_inconclusive() {
        let y = (0..32).map(|b| 10.0 * b as f64).collect();
        assert_eq!(
            verdict(&result(y, 32_000), 0, 1000.0).0,
            Verdict::Inconclusive
        );
    }

    #[test]
    fn cap_is_unstable() {
        let mut r = result(vec![1.0; 32], 100);
        r.capped = true;
        assert_eq!(verdict(&r, 0, 10.0).0, Verdict::Unstable);
    }
}
