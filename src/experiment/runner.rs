//! Runs an experiment's sweep × policies × replications in parallel with rayon.
//!
//! Every run's seed is derived from (experiment seed, sweep value, replication) and never from
//! the policy, so all policies at a point see the same jobs. Runs are independent and collected
//! in plan order, so outputs do not depend on the number of threads.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::ExperimentError;
use super::limit::{SearchSpec, ThresholdResult, threshold_search};
use super::spec::Experiment;
use super::study::StudyRow;
use crate::multi::Discipline;
use crate::multi::{ScalarAsVector, ScoredPolicy, VectorCluster, VectorJobSource, VectorSystem};
use crate::packing::place::Scorer;
use crate::policy::Built;
use crate::rng::derive_seed;
use crate::sim::{self, Cluster, RunConfig, RunResult, Verdict, VerdictEvidence};
use crate::stability::saturation::{Saturation, fifo_saturated};
use crate::workload::replay::TraceSource;
use crate::workload::{Arrivals, JobSource};

/// One simulated run.
#[derive(Clone, Debug)]
pub struct RunRecord {
    pub policy: usize,
    pub point: usize,
    pub replication: u32,
    pub seed: u64,
    pub result: RunResult,
    pub verdict: Verdict,
    pub evidence: VerdictEvidence,
}

/// Mean queue over the replications of one (policy, point).
#[derive(Clone, Debug)]
pub struct SummaryRow {
    pub policy: usize,
    pub point: usize,
    pub replications: u32,
    pub mean_queue: f64,
    /// 95 % Student-t interval; `None` with a single replication.
    pub ci95: Option<(f64, f64)>,
    pub verdict: Verdict,
    /// Replications judged stable, unstable, inconclusive.
    pub verdict_counts: [u32; 3],
    pub utilization: f64,
    pub throughput: f64,
    pub mean_wait: f64,
    /// Time-average work waiting (sum of sizes), servers' capacities.
    pub mean_queued_work: f64,
}

/// A claim's outcome.
#[derive(Clone, Debug)]
pub struct ClaimResult {
    pub claim: String,
    pub expected: String,
    pub observed: String,
    pub evidence: String,
    pub holds: bool,
}

/// Everything a run of an experiment produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub runs: Vec<RunRecord>,
    pub summary: Vec<SummaryRow>,
    pub thresholds: Vec<ThresholdResult>,
    /// Saturated throughput of the FIFO-FF policies with a `saturation` claim.
    pub saturation: Vec<(usize, Saturation)>,
    pub claims: Vec<ClaimResult>,
    /// Stability next to packing, one row per scored policy (with `[compaction]`).
    pub study: Vec<StudyRow>,
}

impl Outcome {
    /// The summary row of (policy, point).
    pub fn row(&self, policy: usize, point: usize) -> Option<&SummaryRow> {
        self.summary
            .iter()
            .find(|r| r.policy == policy && r.point == point)
    }

    /// The limit search of `policy` with `search` (every claim's search runs before the claims).
    pub fn threshold(&self, policy: usize, search: &SearchSpec) -> &ThresholdResult {
        self.thresholds
            .iter()
            .find(|t| t.policy == policy && t.search == *search)
            .expect("searched before the claims")
    }

    /// Did every claim hold?
    pub fn claims_hold(&self) -> bool {
        self.claims.iter().all(|c| c.holds)
    }
}

/// The seed of replication `rep` at sweep point `point` of `exp`.
pub fn run_seed(exp: &Experiment, point: usize, rep: u32) -> u64 {
    derive_seed(exp.seed, &[exp.points[point].key.to_bits(), rep as u64])
}

/// Simulates one (policy, point, replication).
pub fn simulate(
    exp: &Experiment,
    policy: usize,
    point: usize,
    rep: u32,
) -> Result<RunRecord, ExperimentError> {
    let seed = run_seed(exp, point, rep);
    let (result, verdict, evidence) = match &exp.trace {
        Some(_) => run_trace(exp, policy, point, rep, seed)?,
        None => run_at(exp, policy, exp.points[point].arrival_rate, seed)?,
    };
    Ok(RunRecord {
        policy,
        point,
        replication: rep,
        seed,
        result,
        verdict,
        evidence,
    })
}

/// One run of `policy` at arrival rate `rate` with run seed `seed`.
pub(super) fn run_at(
    exp: &Experiment,
    policy: usize,
    rate: f64,
    seed: u64,
) -> Result<(RunResult, Verdict, VerdictEvidence), ExperimentError> {
    let arrivals = Arrivals::new(exp.arrivals, rate).map_err(|e| ExperimentError::Invalid {
        file: exp.file.clone(),
        key: "sweep".into(),
        expected: e,
        got: format!("arrival rate {rate}"),
    })?;
    let source = JobSource::new(exp.sizes.clone(), exp.service.clone(), arrivals, seed);
    let cfg = RunConfig {
        slots: exp.run.slots,
        warmup: exp.run.warmup,
        queue_cap: exp.run.queue_cap,
        samples: exp.run.samples,
        check_every_slot: false,
        max_slots: exp.run.max_slots,
        mean_service: exp.service.mean(),
    };
    let result = match exp.policies[policy].instantiate(exp.servers) {
        Built::Scalar(mut p) => {
            let mut cluster = Cluster::new(exp.servers, exp.service.mean());
            crate::policy::run(p.as_mut(), &mut { source }, &mut cluster, &cfg)?
        }
        Built::Scored { discipline, scorer } => {
            let mut system = vector_system(exp, discipline, scorer, seed);
            if exp.requests.is_empty() {
                sim::run_system(&mut system, &mut ScalarAsVector::new(source), &cfg)?
            } else {
                let mut v = VectorJobSource::new(
                    exp.requests.clone(),
                    exp.service.clone(),
                    Arrivals::new(exp.arrivals, rate).expect("checked above"),
                    seed,
                );
                sim::run_system(&mut system, &mut v, &cfg)?
            }
        }
    };
    let (verdict, evidence) = (result.verdict, result.evidence);
    Ok((result, verdict, evidence))
}

/// The multi-resource system of a scored policy. The random scorers draw from a stream of the
/// run seed, like the jobs.
fn vector_system(
    exp: &Experiment,
    discipline: Discipline,
    scorer: Scorer,
    seed: u64,
) -> VectorSystem {
    VectorSystem::new(
        VectorCluster::new(
            exp.servers,
            exp.dims,
            scorer,
            derive_seed(seed, &[4]),
            exp.service.mean(),
        ),
        ScoredPolicy::new(discipline),
    )
}

/// Replays window `rep` of the experiment's trace at the scaling of sweep point `point`
/// (`seed` drives the random scorers only).
fn run_trace(
    exp: &Experiment,
    policy: usize,
    point: usize,
    rep: u32,
    seed: u64,
) -> Result<(RunResult, Verdict, VerdictEvidence), ExperimentError> {
    let (spec, summary) = exp.trace.as_deref().expect("a trace experiment");
    let c = exp.points[point].key;
    let windows = exp.run.replications;
    let (from, to) = summary.window(spec, rep, windows);
    let bad = |e: crate::workload::trace::TraceError| ExperimentError::Invalid {
        file: exp.file.clone(),
        key: "workload.trace.file".into(),
        expected: "a readable trace (unchanged since validation)".into(),
        got: e.to_string(),
    };
    let mut source = TraceSource::open(spec, c, from, to).map_err(bad)?;
    let (slots, warmup) = if exp.run.slots > 0 {
        (exp.run.slots, exp.run.warmup)
    } else {
        let all = summary.slots(spec, c, windows);
        let slots = ((all as f64 * exp.run.window_share).ceil() as u64).max(1);
        let warmup = (slots as f64 * exp.run.warmup_fraction) as u64;
        (slots, warmup.min(slots - 1))
    };
    let cfg = RunConfig {
        slots,
        warmup,
        queue_cap: exp.run.queue_cap,
        samples: exp.run.samples,
        check_every_slot: false,
        // a trace's window is what it is: no extension
        max_slots: slots,
        mean_service: exp.service.mean(),
    };
    let result = match exp.policies[policy].instantiate(exp.servers) {
        Built::Scalar(mut p) => {
            let mut cluster = Cluster::new(exp.servers, exp.service.mean());
            crate::policy::run(p.as_mut(), &mut source, &mut cluster, &cfg)?
        }
        Built::Scored { discipline, scorer } => {
            let mut system = vector_system(exp, discipline, scorer, seed);
            sim::run_system(&mut system, &mut source, &cfg)?
        }
    };
    if let Some(e) = source.error() {
        return Err(bad(e));
    }
    let (verdict, evidence) = (result.verdict, result.evidence);
    Ok((result, verdict, evidence))
}

/// Runs every (point, policy, replication) on `threads` threads (all cores if `None`).
pub fn execute(exp: &Experiment, threads: Option<usize>) -> Result<Outcome, ExperimentError> {
    let mut plan = Vec::new();
    for point in 0..exp.points.len() {
        for policy in 0..exp.policies.len() {
            for rep in 0..exp.run.replications {
                plan.push((policy, point, rep));
            }
        }
    }
    let bar = if std::io::stderr().is_terminal() {
        let b =
            ProgressBar::with_draw_target(Some(plan.len() as u64), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:40}] {pos}/{len} runs, {elapsed} (eta {eta})",
            )
            .expect("static template")
            .progress_chars("=> "),
        );
        b.set_message(exp.name.clone());
        b
    } else {
        ProgressBar::hidden()
    };
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    let pool = builder.build().expect("a thread pool");
    let runs: Result<Vec<RunRecord>, ExperimentError> = pool.install(|| {
        plan.par_iter()
            .map(|&(policy, point, rep)| {
                let r = simulate(exp, policy, point, rep);
                bar.inc(1);
                r
            })
            .collect()
    });
    bar.finish_and_clear();
    let runs = runs?;
    let summary = summarise(exp, &runs);
    // one search per distinct (policy, search), all at once
    let mut searches: Vec<(usize, SearchSpec)> = Vec::new();
    for c in &exp.claims {
        let key = match c {
            super::ClaimSpec::Threshold { policy, search, .. }
            | super::ClaimSpec::Saturation { policy, search } => (*policy, *search),
            _ => continue,
        };
        if !searches.contains(&key) {
            searches.push(key);
        }
    }
    let mut saturated: Vec<usize> = Vec::new();
    for c in &exp.claims {
        if let super::ClaimSpec::Saturation { policy, .. } = c
            && !saturated.contains(policy)
        {
            saturated.push(*policy);
        }
    }
    let saturation: Vec<(usize, Saturation)> = pool.install(|| {
        saturated
            .par_iter()
            .map(|&p| {
                let s = fifo_saturated(
                    exp.servers,
                    &exp.sizes,
                    &exp.service,
                    exp.run.warmup,
                    exp.run.max_slots - exp.run.warmup,
                    derive_seed(exp.seed, &[0x7361_7475]),
                );
                (p, s)
            })
            .collect()
    });
    let thresholds: Vec<ThresholdResult> = pool.install(|| {
        searches
            .par_iter()
            .map(|&(policy, search)| threshold_search(exp, policy, search))
            .collect::<Result<_, _>>()
    })?;
    let study = match &exp.compaction {
        Some(spec) => pool.install(|| super::study::run(exp, spec))?,
        None => Vec::new(),
    };
    let mut out = Outcome {
        runs,
        summary,
        thresholds,
        saturation,
        claims: Vec::new(),
        study,
    };
    out.claims = super::claims::check(exp, &out);
    Ok(out)
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

fn summarise(exp: &Experiment, runs: &[RunRecord]) -> Vec<SummaryRow> {
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
