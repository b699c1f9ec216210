//! The summary per (policy, point) of a queueing experiment's runs, and the statistics it
//! uses.

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::experiment::queueing::Experiment;
use crate::experiment::queueing::run::RunRecord;
use crate::sim::{RunResult, Verdict};

/// Mean queue over the replications of one (policy, point).
#[derive(Clone, Debug)]
pub struct SummaryRow {
    /// The policy.
    pub policy: usize,
    /// The sweep point.
    pub point: usize,
    /// Replications run.
    pub replications: u32,
    /// Mean over replications of the time-average queue, jobs.
    pub mean_queue: f64,
    /// 95 % Student-t interval; `None` with a single replication.
    pub ci95: Option<(f64, f64)>,
    /// The majority verdict of the replications.
    pub verdict: Verdict,
    /// Replications judged stable, unstable, inconclusive.
    pub verdict_counts: [u32; 3],
    /// Mean utilisation.
    pub utilization: f64,
    /// Mean departures per slot.
    pub throughput: f64,
    /// Mean wait of the jobs placed after warm-up, slots.
    pub mean_wait: f64,
    /// Time-average work waiting (sum of sizes), servers' capacities.
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
}

impl SummaryRow {
    /// Whether its mean queue is a measurement: no replication stopped at the cap, and the
    /// row judged stable, or (`trace`) a deterministic replay of a trace window, whose mean is
    /// that of the replay whatever its trend.
    pub fn measured(&self, trace: bool) -> bool {
        self.capped_runs == 0 && (trace || self.verdict == Verdict::Stable)
    }
}

/// Mean and Student-t 95 % interval of `xs`; no interval for fewer than two values.
pub fn mean_ci(xs: &[f64]) -> (f64, Option<(f64, f64)>) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (m, None);
    }
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    let t = StudentsT::new(0.0, 1.0, n - 1.0)
        .expect("n ≥ 2")
        .inverse_cdf(0.975);
    let h = t * (var / n).sqrt();
    (m, Some((m - h, m + h)))
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
    let mut rows = Vec::new();
    for point in 0..exp.points.len() {
        for policy in 0..exp.policies.len() {
            let rs: Vec<&RunRecord> = runs
                .iter()
                .filter(|r| r.policy == policy && r.point == point)
                .collect();
            let q: Vec<f64> = rs.iter().map(|r| r.result.mean_queue).collect();
            let (mean_queue, ci95) = mean_ci(&q);
            let avg = |f: fn(&RunResult) -> f64| {
                rs.iter().map(|r| f(&r.result)).sum::<f64>() / rs.len() as f64
            };
            let verdicts: Vec<Verdict> = rs.iter().map(|r| r.verdict).collect();
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
            rows.push(SummaryRow {
                policy,
                point,
                replications: rs.len() as u32,
                mean_queue,
                ci95,
                verdict: majority(&verdicts),
                verdict_counts: [Verdict::Stable, Verdict::Unstable, Verdict::Inconclusive]
                    .map(|v| verdicts.iter().filter(|&&x| x == v).count() as u32),
                utilization: avg(|r| r.utilization),
                throughput: avg(|r| r.throughput),
                mean_wait: avg(|r| r.mean_wait),
                mean_queued_work: avg(|r| r.mean_queued_work),
                capped_runs: cap_slots.len() as u32,
                cap_slot: cap_slots.get(cap_slots.len() / 2).copied(),
                growth,
                growth_ci95,
            });
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

    #[test]
    fn ci_of_known_sample() {
        let (m, ci) = mean_ci(&[1.0, 2.0, 3.0]);
        assert!((m - 2.0).abs() < 1e-12);
        let (lo, hi) = ci.unwrap();
        // t_{0.975, 2} = 4.302653; s = 1; h = 4.302653 / sqrt(3)
        assert!((hi - m - 4.302_653 / 3f64.sqrt()).abs() < 1e-5);
        assert!((m - lo - (hi - m)).abs() < 1e-12);
        assert_eq!(mean_ci(&[5.0]).1, None);
    }
}
