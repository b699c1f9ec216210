//! Delays per (policy, point): the waiting and response times of the jobs placed after
//! warm-up, from each run's histograms ([`crate::sim::waits`]), as means and quantiles with 95 %
//! intervals over the replications, overall and by size class.
//!
//! **Which rows.** Only a row that is a measurement ([`SummaryRow::measured`]: every run judged
//! stable, none capped) has delays: a queue that grows has no steady-state wait, and the waits
//! of a run stopped at the cap are those of its first slots. The others say why in
//! [`DelayStatus`].
//!
//! **Estimates.** The mean is each run's exact mean over its jobs, averaged over the
//! replications weighted by their slots after warm-up as the mean queue is, with the Student-t
//! interval of [`weighted_mean_ci`] (the replication method of steady-state simulation: Law &
//! Kelton, *Simulation Modeling and Analysis*, ch. 9), so it equals the summary's `mean_wait`.
//! A quantile is the quantile of the replications pooled (every job of every run, the
//! distribution `waits.csv` writes), with the interval of [`Pooled`]: the replications'
//! distribution functions give a band for the pooled one, inverted at the quantile, an
//! interval that covers the law's quantile, atoms of an integer-valued wait included.
//!
//! A per-run quantile (a quantile of one run's histogram) is used only where runs are paired:
//! a `wait` claim's difference between two policies on the same jobs.

use super::stats::weighted_mean_ci;
use crate::experiment::queueing::run::RunRecord;
use crate::experiment::queueing::{DelayQuantity, Experiment, QUANTILES, Statistic};
use crate::model::Size;
use crate::sim::waits::{ClassWaits, Histogram, Pooled, Waits};

/// An estimate over replications, slots: of a mean, the runs' means averaged; of a quantile,
/// the quantile of the runs pooled (module doc); with its 95 % interval (none with one
/// replication).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    /// The estimate.
    pub value: f64,
    /// Its 95 % interval over replications.
    pub ci95: Option<(f64, f64)>,
}

/// The mean and the quantiles of one delay (waiting or response time), slots.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DelayStats {
    /// The mean.
    pub mean: Estimate,
    /// The [`QUANTILES`], in order.
    pub quantiles: [Estimate; 4],
}

/// The delays of a (policy, point) that is a measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Delay {
    /// Jobs measured over the replications.
    pub jobs: u64,
    /// Waiting time: placement slot − arrival slot.
    pub wait: DelayStats,
    /// Response time: wait + service.
    pub response: DelayStats,
    /// By size class, in increasing size ([`SizeDelay`]).
    pub by_size: Vec<SizeDelay>,
}

/// The delays of one size class.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SizeDelay {
    /// The sizes of the class: above `low` (none for the first class) and up to `high`, as
    /// fractions of a server.
    pub low: Option<f64>,
    /// The class's largest size.
    pub high: f64,
    /// Jobs of the class measured over the replications.
    pub jobs: u64,
    /// Waiting time.
    pub wait: DelayStats,
    /// Mean response time (wait + service), slots.
    pub response_mean: Estimate,
}

/// Why a row has delays or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayStatus {
    /// Every run judged stable, none capped: the delays are measurements.
    Measured,
    /// Some run was not judged stable or was capped: no steady-state delay.
    NotStable,
    /// The runs recorded no waits (a run without a recorder).
    NotRecorded,
    /// No job was placed after warm-up.
    NoJobs,
}

impl DelayStatus {
    /// In words, for `summary.csv` and the report.
    /// With `stable` of `runs` runs judged stable and `capped` stopped at the cap.
    pub fn words(self, stable: u32, runs: u32, capped: u32) -> String {
        match self {
            DelayStatus::Measured => "measured".into(),
            DelayStatus::NotStable => format!(
                "not measured: {stable} of {runs} runs judged stable{}",
                if capped > 0 {
                    format!(", {capped} capped")
                } else {
                    String::new()
                }
            ),
            DelayStatus::NotRecorded => "not recorded".into(),
            DelayStatus::NoJobs => "no job placed after warm-up".into(),
        }
    }
}

/// The mean of the runs' histograms `hists`, averaged weighted by `weights`, and the
/// quantiles of the runs pooled, with their intervals ([`Pooled`]).
fn stats(hists: &[&Histogram], weights: &[f64]) -> DelayStats {
    let means: Vec<f64> = hists.iter().map(|h| h.mean()).collect();
    let (value, ci95) = weighted_mean_ci(&means, weights);
    let pooled = Pooled::new(hists);
    DelayStats {
        mean: Estimate { value, ci95 },
        quantiles: QUANTILES.map(|q| {
            let (value, ci95) = pooled.quantile(q).unwrap_or((f64::NAN, None));
            Estimate {
                value,
                ci95: ci95.map(|(lo, hi)| (lo as f64, hi as f64)),
            }
        }),
    }
}

/// The delays of the runs `runs` of one (policy, point), a measurement if `measured` (its
/// summary row is one), with the row's status.
pub(in crate::experiment::queueing) fn delay(
    exp: &Experiment,
    measured: bool,
    runs: &[&RunRecord],
) -> (Option<Delay>, DelayStatus) {
    if !measured {
        return (None, DelayStatus::NotStable);
    }
    let waits: Vec<&Waits> = runs
        .iter()
        .filter_map(|r| r.result.waits.as_ref())
        .collect();
    if waits.len() != runs.len() || waits.is_empty() {
        return (None, DelayStatus::NotRecorded);
    }
    let warmup = exp.run.slots().map_or(0, |s| s.1);
    let wait: Vec<Histogram> = waits.iter().map(|w| w.wait()).collect();
    let jobs: u64 = wait.iter().map(Histogram::count).sum();
    if wait.iter().any(|h| h.count() == 0) {
        return (None, DelayStatus::NoJobs);
    }
    let weights: Vec<f64> = runs
        .iter()
        .map(|r| r.result.slots.saturating_sub(warmup) as f64)
        .collect();
    let bounds = exp.wait_classes.0.bounds();
    let classes = waits[0].classes.len();
    let by_size = (0..classes)
        .filter_map(|k| {
            let cw: Vec<&ClassWaits> = waits.iter().filter_map(|w| w.classes.get(k)).collect();
            // a class some run saw no job of has no per-run estimate there
            if cw.len() != runs.len() || cw.iter().any(|c| c.wait.count() == 0) {
                return None;
            }
            let responses: Vec<f64> = cw.iter().map(|c| c.mean_response()).collect();
            let (value, ci95) = weighted_mean_ci(&responses, &weights);
            Some(SizeDelay {
                // a job class's row names its largest size only
                low: k
                    .checked_sub(1)
                    .filter(|_| !exp.wait_classes.0.is_by_kind())
                    .and_then(|j| bounds.get(j))
                    .map(|s| s.as_f64()),
                high: bounds.get(k).map_or(1.0, |s: &Size| s.as_f64()),
                jobs: cw.iter().map(|c| c.wait.count()).sum(),
                wait: stats(&cw.iter().map(|c| &c.wait).collect::<Vec<_>>(), &weights),
                response_mean: Estimate { value, ci95 },
            })
        })
        .collect();
    (
        Some(Delay {
            jobs,
            wait: stats(&wait.iter().collect::<Vec<_>>(), &weights),
            response: stats(
                &waits.iter().map(|w| &w.response).collect::<Vec<_>>(),
                &weights,
            ),
            by_size,
        }),
        DelayStatus::Measured,
    )
}

/// The waits of the runs merged: every job of every replication in one distribution, the
/// waiting times and the response times.
pub(in crate::experiment::queueing) fn merged(
    runs: &[&RunRecord],
) -> Option<(Histogram, Histogram)> {
    let mut all = Waits::default();
    for r in runs {
        all.merge(r.result.waits.as_ref()?);
    }
    Some((all.wait(), all.response))
}

/// A statistic of one run's waiting or response time (NaN when the run recorded none).
pub(in crate::experiment::queueing) fn of_run(
    r: &RunRecord,
    (statistic, quantity): (Statistic, DelayQuantity),
) -> f64 {
    let Some(w) = &r.result.waits else {
        return f64::NAN;
    };
    let wait = w.wait();
    let h = match quantity {
        DelayQuantity::Wait => &wait,
        DelayQuantity::Response => &w.response,
    };
    match statistic {
        Statistic::Mean => h.mean(),
        Statistic::Quantile(i) => h.quantile(QUANTILES[i]),
    }
}

/// The estimate of a statistic in a row's delays.
pub(in crate::experiment::queueing) fn estimate(
    d: &Delay,
    (statistic, quantity): (Statistic, DelayQuantity),
) -> Estimate {
    let s = match quantity {
        DelayQuantity::Wait => &d.wait,
        DelayQuantity::Response => &d.response,
    };
    s.of(statistic)
}

impl DelayStats {
    /// The estimate of `statistic`.
    pub fn of(&self, statistic: Statistic) -> Estimate {
        match statistic {
            Statistic::Mean => self.mean,
            Statistic::Quantile(i) => self.quantiles[i],
        }
    }
}

impl SizeDelay {
    /// The estimate of `statistic` of `quantity` for the class, if kept by size (of the
    /// response time, only its mean).
    pub fn estimate(&self, (quantity, statistic): (DelayQuantity, Statistic)) -> Option<Estimate> {
        match (quantity, statistic) {
            (DelayQuantity::Wait, s) => Some(self.wait.of(s)),
            (DelayQuantity::Response, Statistic::Mean) => Some(self.response_mean),
            (DelayQuantity::Response, _) => None,
        }
    }
}
