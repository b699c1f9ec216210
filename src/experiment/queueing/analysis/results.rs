//! The summary per (policy, point) of a queueing experiment's runs, and the statistics it
//! uses.

use super::stats::{mean_ci, nonnegative, weighted_mean_ci};

use crate::experiment::queueing::Experiment;
use crate::experiment::queueing::run::RunRecord;
use crate::sim::{RunResult, Verdict};

use super::delay::{Delay, DelayStatus};

/// Mean queue over the replications of one (policy, point).
#[derive(Clone, Debug)]
pub struct SummaryRow {
    /// The policy.
    pub policy: usize,
    /// The sweep point.
    pub point: usize,
    /// Replications run.
    pub replications: u32,
    /// Time-average queue over the pooled runs (see [`SummaryRow::pooled`]), weighted by their
    /// slots after warm-up, jobs; NaN when no run is pooled.
    pub mean_queue: f64,
    /// Its 95 % interval over replications, only for a row that is a measurement
    /// ([`SummaryRow::measured`]) of at least two runs; never below zero ([`nonnegative`]).
    pub ci95: Option<(f64, f64)>,
    /// Runs behind the means (queue, wait, queued work): those judged stable, or every replay
    /// of a trace window not stopped at the cap.
    pub pooled: u32,
    /// Their slots after warm-up.
    pub pooled_slots: u64,
    /// The majority verdict of the replications.
    pub verdict: Verdict,
    /// Replications judged stable, unstable, inconclusive.
    pub verdict_counts: [u32; 3],
    /// Mean utilisation.
    pub utilization: f64,
    /// Mean departures per slot.
    pub throughput: f64,
    /// Mean wait of the jobs placed after warm-up, over the pooled runs weighted by their
    /// slots, slots; NaN when no run is pooled.
    pub mean_wait: f64,
    /// Time-average work waiting (sum of sizes) over the pooled runs weighted by their slots,
    /// servers' capacities; NaN when no run is pooled.
    pub mean_queued_work: f64,
    /// Replications stopped at the queue cap, and the median slot at which they hit it.
    pub capped_runs: u32,
    /// The median slot at which they hit it.
    pub cap_slot: Option<u64>,
    /// Net growth of the queue from the empty start, Q at the end / slots run (jobs per slot),
    /// with its 95 % interval over replications: the evidence of a row that is not stable,
    /// whose mean queue depends on the cap and on when it was reached.
    pub growth: f64,
    /// Its 95 % interval (none with one replication).
    pub growth_ci95: Option<(f64, f64)>,
    /// The waiting and response times of the jobs placed after warm-up, overall and by size
    /// class, when the row is a measurement ([`super::delay`]).
    pub delay: Option<Delay>,
    /// Why `delay` is there or not.
    pub delay_status: DelayStatus,
}

impl SummaryRow {
    /// Whether its means are a measurement: every replication pooled (judged stable, or a
    /// replay of a trace window, whose mean is that of the replay whatever its trend) and none
    /// stopped at the cap. A row judged stable by a majority with a run that was not is not
    /// one: its runs disagree.
    pub fn measured(&self) -> bool {
        self.capped_runs == 0 && self.replications > 0 && self.pooled == self.replications
    }

    /// Why its delays are, or are not, a measurement, in words ([`DelayStatus::words`]).
    pub fn delay_words(&self) -> String {
        self.delay_status
            .words(self.verdict_counts[0], self.replications, self.capped_runs)
    }
}

/// The verdict of a set of replications: the one a strict majority gives, else inconclusive.
pub fn majority(verdicts: &[Verdict]) -> Verdict {
    for v in [Verdict::Unstable, Verdict::Stable, Verdict::Inconclusive] {
        if 2 * verdicts.iter().filter(|&&x| x == v).count() > verdicts.len() {
            return v;
        }
    }
    Verdict::Inconclusive
}

/// One row per (point, policy), in that order.
pub(in crate::experiment::queueing) fn summarise(
    exp: &Experiment,
    runs: &[RunRecord],
) -> Vec<SummaryRow> {
    let trace = exp.workload.trace().is_some();
    let warmup = exp.run.slots().map_or(0, |s| s.1);
    let mut rows = Vec::new();
    for point in 0..exp.points.len() {
        for policy in 0..exp.policies.len() {
            let rs: Vec<&RunRecord> = runs
                .iter()
                .filter(|r| r.policy == policy && r.point == point)
                .collect();
            let avg = |f: fn(&RunResult) -> f64| {
                rs.iter().map(|r| f(&r.result)).sum::<f64>() / rs.len() as f64
            };
            let verdicts: Vec<Verdict> = rs.iter().map(|r| r.verdict).collect();
            // the means pool the runs judged stable (every replay of a trace), weighted by
            // their slots after warm-up
            let pooled: Vec<&&RunRecord> = rs
                .iter()
                .filter(|r| trace || r.verdict == Verdict::Stable)
                .collect();
            let weights: Vec<f64> = pooled
                .iter()
                .map(|r| r.result.slots.saturating_sub(warmup) as f64)
                .collect();
            let pool = |f: fn(&RunResult) -> f64| {
                let xs: Vec<f64> = pooled.iter().map(|r| f(&r.result)).collect();
                match xs.len() {
                    0 => (f64::NAN, None),
                    _ => weighted_mean_ci(&xs, &weights),
                }
            };
            let (mean_queue, ci95) = pool(|r| r.mean_queue);
            let mut cap_slots: Vec<u64> = rs
                .iter()
                .filter(|r| r.result.capped)
                .map(|r| r.result.slots)
                .collect();
            cap_slots.sort_unstable();
            let growth: Vec<f64> = rs
                .iter()
                .map(|r| r.result.final_queue as f64 / r.result.slots.max(1) as f64)
                .collect();
            let (growth, growth_ci95) = mean_ci(&growth);
            let capped_runs = cap_slots.len() as u32;
            // an interval only where the mean is a measurement
            let measured = capped_runs == 0 && !rs.is_empty() && pooled.len() == rs.len();
            let mut row = SummaryRow {
                policy,
                point,
                replications: rs.len() as u32,
                mean_queue,
                ci95: ci95.filter(|_| measured),
                pooled: pooled.len() as u32,
                pooled_slots: weights.iter().map(|&w| w as u64).sum(),
                verdict: majority(&verdicts),
                verdict_counts: [Verdict::Stable, Verdict::Unstable, Verdict::Inconclusive]
                    .map(|v| verdicts.iter().filter(|&&x| x == v).count() as u32),
                utilization: avg(|r| r.utilization),
                throughput: avg(|r| r.throughput),
                mean_wait: pool(|r| r.mean_wait).0,
                mean_queued_work: pool(|r| r.mean_queued_work).0,
                capped_runs,
                cap_slot: cap_slots.get(cap_slots.len() / 2).copied(),
                growth,
                // the net growth is not negative either
                growth_ci95: growth_ci95.map(|c| nonnegative(growth, c)),
                delay: None,
                delay_status: DelayStatus::NotStable,
            };
            (row.delay, row.delay_status) = super::delay::delay(exp, row.measured(), &rs);
            rows.push(row);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majority_rule() {
        use Verdict::*;
        assert_eq!(majority(&[Stable, Stable, Unstable]), Stable);
        assert_eq!(majority(&[Stable, Unstable]), Inconclusive);
        assert_eq!(majority(&[Unstable]), Unstable);
    }
}
