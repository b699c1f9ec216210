//! What the runs of a file with `[constraints]` measured per constraint c, next to u*_c: the
//! mean wait of the jobs requesting c, its ratio to the same jobs' mean wait with the
//! constraints lifted (Sharma et al.'s normalised scheduling delay) and its ratio to the mean
//! wait of all jobs (ours); and, with a re-synthesis, the ground truth against the
//! re-synthesised cluster.

use super::results::SummaryRow;
use super::stats::mean_ci;
use crate::experiment::queueing::run::RunRecord;
use crate::experiment::queueing::{Experiment, QueueConstraints};
use crate::sim::Verdict;

/// One constraint's delay at one (policy, point), pooled over the replications.
#[derive(Clone, Debug)]
pub struct ConstraintDelay {
    /// The policy.
    pub policy: usize,
    /// The sweep point.
    pub point: usize,
    /// Index into the vocabulary.
    pub constraint: usize,
    /// Its share of the demand and of the supply, and u*_c, in the policy's world (the mean
    /// over the replications' worlds for a re-synthesis).
    pub demand_share: f64,
    /// Its share of the supply.
    pub supply_share: f64,
    /// u*_c.
    pub u: f64,
    /// Jobs requesting it placed after warm-up, and their mean wait, slots.
    pub jobs: u64,
    /// Their mean wait, slots.
    pub mean_wait: f64,
    /// Mean wait of all jobs placed after warm-up, slots.
    pub mean_wait_all: f64,
    /// The same jobs (those requesting it) in the runs with the constraints lifted: how many
    /// were placed after warm-up and their mean wait, slots (`None` without those runs).
    pub unconstrained: Option<(u64, f64)>,
    /// The (policy, point)'s verdict over its replications: only a `stable` row's delays are
    /// measurements (a run that grows or stops at the queue cap has no steady-state wait).
    pub verdict: Verdict,
}

impl ConstraintDelay {
    /// Sharma et al.'s normalised scheduling delay (SoCC 2011, Section 6): the mean wait of
    /// the jobs requesting the constraint over the mean wait of the same jobs with every
    /// constraint lifted, on the same random streams (NaN without those runs, or when the
    /// jobs did not wait without constraints).
    pub fn normalised(&self) -> f64 {
        match self.unconstrained {
            Some((k, w)) if k > 0 && w > 0.0 => self.mean_wait / w,
            _ => f64::NAN,
        }
    }

    /// Ours, not the paper's: the mean wait of the jobs requesting the constraint over the
    /// mean wait of all jobs of the same runs (NaN when no job waited).
    pub fn over_all_jobs(&self) -> f64 {
        if self.mean_wait_all > 0.0 {
            self.mean_wait / self.mean_wait_all
        } else {
            f64::NAN
        }
    }
}

/// Every constraint's delay at every (policy, point) with runs, with that (policy, point)'s
/// verdict from `summary`.
pub(crate) fn delays(
    q: &QueueConstraints,
    runs: &[RunRecord],
    summary: &[SummaryRow],
) -> Vec<ConstraintDelay> {
    let n = q.truth.multipliers.len();
    // (policy, point) -> per constraint (jobs, wait sum, Σ demand, Σ supply, Σ u over runs);
    // then (all jobs, all waits, runs), and per constraint (jobs, wait sum) with the
    // constraints lifted (when every run has them)
    type Cell = (
        Vec<(u64, f64, f64, f64, f64)>,
        u64,
        f64,
        u32,
        Option<Vec<(u64, f64)>>,
    );
    let mut pooled: std::collections::BTreeMap<(usize, usize), Cell> = Default::default();
    for r in runs {
        let world = q.world(r.policy, r.replication);
        let cell = pooled.entry((r.policy, r.point)).or_insert_with(|| {
            let lifted = r.unconstrained.as_ref().map(|_| vec![(0, 0.0); n]);
            (vec![(0, 0.0, 0.0, 0.0, 0.0); n], 0, 0.0, 0, lifted)
        });
        match (&mut cell.4, &r.unconstrained) {
            (Some(lifted), Some(waits)) => {
                for (set, &(k, mean)) in world.table.classes().iter().zip(waits) {
                    for (i, m) in world.multipliers.iter().enumerate() {
                        if set.contains(&m.constraint) {
                            lifted[i].0 += k;
                            lifted[i].1 += k as f64 * mean;
                        }
                    }
                }
            }
            // a run without them (a journal of another setting): none for the cell
            _ => cell.4 = None,
        }
        for (set, &(k, mean)) in world
            .table
            .classes()
            .iter()
            .zip(&crate::multi::class_waits(&r.result))
        {
            cell.1 += k;
            cell.2 += k as f64 * mean;
            for (i, m) in world.multipliers.iter().enumerate() {
                if set.contains(&m.constraint) {
                    cell.0[i].0 += k;
                    cell.0[i].1 += k as f64 * mean;
                }
            }
        }
        for (c, m) in cell.0.iter_mut().zip(&world.multipliers) {
            c.2 += m.demand_share;
            c.3 += m.supply_share;
            c.4 += m.u;
        }
        cell.3 += 1;
    }
    let mut rows = Vec::new();
    for ((policy, point), (cells, all_n, all_w, runs, lifted)) in pooled {
        let mean_wait_all = if all_n > 0 { all_w / all_n as f64 } else { 0.0 };
        let runs = runs.max(1) as f64;
        let verdict = summary
            .iter()
            .find(|s| s.policy == policy && s.point == point)
            .map_or(Verdict::Inconclusive, |s| s.verdict);
        for (i, &(k, w, d, s, u)) in cells.iter().enumerate() {
            rows.push(ConstraintDelay {
                policy,
                point,
                constraint: i,
                demand_share: d / runs,
                supply_share: s / runs,
                u: u / runs,
                jobs: k,
                mean_wait: if k > 0 { w / k as f64 } else { 0.0 },
                mean_wait_all,
                unconstrained: lifted.as_ref().map(|l| {
                    let (k, w) = l[i];
                    (k, if k > 0 { w / k as f64 } else { 0.0 })
                }),
                verdict,
            });
        }
    }
    rows
}

/// Kendall's τ_b of the pairs (x, y): +1 when y increases with x, −1 when it decreases.
pub(crate) fn kendall_tau(pairs: &[(f64, f64)]) -> f64 {
    let (mut concordant, mut discordant, mut tie_x, mut tie_y) = (0f64, 0f64, 0f64, 0f64);
    for i in 0..pairs.len() {
        for j in i + 1..pairs.len() {
            let dx = pairs[i].0 - pairs[j].0;
            let dy = pairs[i].1 - pairs[j].1;
            match (dx == 0.0, dy == 0.0) {
                (true, true) => {}
                (true, false) => tie_x += 1.0,
                (false, true) => tie_y += 1.0,
                _ if dx * dy > 0.0 => concordant += 1.0,
                _ => discordant += 1.0,
            }
        }
    }
    let denom = ((concordant + discordant + tie_x) * (concordant + discordant + tie_y)).sqrt();
    if denom > 0.0 {
        (concordant - discordant) / denom
    } else {
        0.0
    }
}

/// The (u*_c, delay) of every constraint some job requested at (policy, point), where the delay
/// is defined: Sharma et al.'s normalised delay when `paper`, else ours (over all jobs').
pub(crate) fn trend(
    rows: &[ConstraintDelay],
    policy: usize,
    point: usize,
    paper: bool,
) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| r.policy == policy && r.point == point && r.jobs > 0)
        .map(|r| {
            let d = if paper {
                r.normalised()
            } else {
                r.over_all_jobs()
            };
            (r.u, d)
        })
        .filter(|(u, d)| u.is_finite() && d.is_finite())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::kendall_tau;

    #[test]
    fn kendall_tau_by_hand() {
        assert_eq!(kendall_tau(&[(1.0, 1.0), (2.0, 2.0), (3.0, 5.0)]), 1.0);
        assert_eq!(kendall_tau(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]), -1.0);
        // one discordant pair of three: (2 − 1) / 3
        let t = kendall_tau(&[(1.0, 1.0), (2.0, 3.0), (3.0, 2.0)]);
        assert!((t - 1.0 / 3.0).abs() < 1e-12);
    }
}

/// One policy at one point: the ground truth against the re-synthesis, over replications.
#[derive(Clone, Debug)]
pub(crate) struct Validation {
    pub(crate) policy: usize,
    pub(crate) point: usize,
    /// Replications whose runs on the ground truth and on its re-synthesis were both judged
    /// stable (the means and intervals are over these), and replications whose ground-truth
    /// run was stable and whose re-synthesised cluster could not carry the load (its run not
    /// judged stable).
    pub(crate) replications: usize,
    pub(crate) synthetic_not_stable: usize,
    /// Mean over replications and 95 % interval (none with one replication): the mean wait
    /// (slots) and the utilisation, on the ground truth and on the re-synthesis.
    pub(crate) wait: [(f64, Option<(f64, f64)>); 2],
    pub(crate) utilization: [(f64, Option<(f64, f64)>); 2],
    /// Sharma et al.'s error: the mean over the re-syntheses of each one's absolute relative
    /// error |synthetic − truth| / truth of the mean wait, the truth being its mean over the
    /// replications (NaN when the truth's wait is 0). Not the error of the mean.
    pub(crate) wait_individual: f64,
}

impl Validation {
    /// (synthetic − truth) / truth of the mean wait and of the utilisation, over the means of
    /// the replications: the error of the mean, a bias.
    pub(crate) fn errors(&self) -> (f64, f64) {
        let rel = |a: f64, b: f64| if a != 0.0 { (b - a) / a } else { f64::NAN };
        (
            rel(self.wait[0].0, self.wait[1].0),
            rel(self.utilization[0].0, self.utilization[1].0),
        )
    }
}

/// The validation rows: every policy of the file at every point where its ground-truth runs
/// were judged stable by a majority. Replications are paired (the same run seed on both
/// clusters); a pair counts when both runs were judged stable (an unstable run's wait and
/// utilisation measure the horizon, not the system), and the others are counted apart.
pub(crate) fn validations(
    exp: &Experiment,
    q: &QueueConstraints,
    runs: &[RunRecord],
    summary: &[SummaryRow],
) -> Vec<Validation> {
    let runs_at = |policy: usize, point: usize| {
        runs.iter()
            .filter(move |r| r.policy == policy && r.point == point)
    };
    use crate::sim::Verdict;
    let n = q.on_synthetic.iter().filter(|s| !**s).count();
    let mut rows = Vec::new();
    if !q.validates() {
        return rows;
    }
    for policy in 0..n {
        for point in 0..exp.points.len() {
            if summary
                .iter()
                .find(|r| r.policy == policy && r.point == point)
                .is_none_or(|r| r.verdict != Verdict::Stable)
            {
                continue;
            }
            let (mut pairs, mut failed) = (Vec::new(), 0);
            for t in runs_at(policy, point) {
                let Some(s) = runs_at(policy + n, point).find(|s| s.replication == t.replication)
                else {
                    continue;
                };
                match (t.verdict, s.verdict) {
                    (Verdict::Stable, Verdict::Stable) => pairs.push((&t.result, &s.result)),
                    (Verdict::Stable, _) => failed += 1,
                    _ => {}
                }
            }
            if pairs.is_empty() {
                continue;
            }
            let of = |side: usize, f: &dyn Fn(&crate::sim::RunResult) -> f64| {
                let xs: Vec<f64> = pairs
                    .iter()
                    .map(|p| f(if side == 0 { p.0 } else { p.1 }))
                    .collect();
                mean_ci(&xs)
            };
            let wait = [of(0, &|r| r.mean_wait), of(1, &|r| r.mean_wait)];
            let truth = wait[0].0;
            let wait_individual = if truth != 0.0 {
                pairs
                    .iter()
                    .map(|p| ((p.1.mean_wait - truth) / truth).abs())
                    .sum::<f64>()
                    / pairs.len() as f64
            } else {
                f64::NAN
            };
            rows.push(Validation {
                policy,
                point,
                replications: pairs.len(),
                synthetic_not_stable: failed,
                wait,
                utilization: [of(0, &|r| r.utilization), of(1, &|r| r.utilization)],
                wait_individual,
            });
        }
    }
    rows
}

/// Over the validation rows with a nonzero ground-truth wait: the mean of Sharma et al.'s
/// per-run wait error, the mean absolute error of the mean wait (the bias) and of the
/// utilisation, and how many rows that is; `None` without such a row.
pub(crate) fn mean_abs_errors(rows: &[Validation]) -> Option<SynthesisErrors> {
    let errors: Vec<(f64, f64, f64)> = rows
        .iter()
        .map(|v| {
            let (w, u) = v.errors();
            (v.wait_individual, w, u)
        })
        .filter(|e| e.1.is_finite())
        .collect();
    let k = errors.len();
    let mean = |f: fn(&(f64, f64, f64)) -> f64| errors.iter().map(f).sum::<f64>() / k as f64;
    (k > 0).then(|| SynthesisErrors {
        wait_individual: mean(|e| e.0),
        wait_of_mean: mean(|e| e.1.abs()),
        utilization: mean(|e| e.2.abs()),
        rows: k,
    })
}

/// The synthesis validation's errors averaged over its rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SynthesisErrors {
    /// Sharma et al.'s: the mean absolute relative error of individual re-synthesised runs'
    /// mean wait against the truth's.
    pub(crate) wait_individual: f64,
    /// The mean absolute relative error of the mean wait over the re-syntheses (a bias).
    pub(crate) wait_of_mean: f64,
    /// The same for the utilisation.
    pub(crate) utilization: f64,
    /// Rows averaged.
    pub(crate) rows: usize,
}
