//! Runs an experiment: every (point, policy, replication) in parallel with rayon, then the
//! limit searches, saturation estimates and the compaction study, then the claims.
//!
//! Every run's seed is derived from (experiment seed, sweep value, replication) and never from
//! the policy, so all policies at a point see the same jobs. Runs are independent and collected
//! in plan order, so outputs do not depend on the number of threads.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use super::limit::{SearchSpec, ThresholdResult, threshold_search};
use super::results::{Outcome, summarise};
use super::simulate::{RunRecord, simulate};
use super::{ClaimSpec, Experiment};
use crate::experiment::ExperimentError;
use crate::rng::derive_seed;
use crate::stability::saturation::{Saturation, fifo_saturated};

/// Runs every (point, policy, replication) on `threads` threads (all cores if `None`), then
/// what the claims need, then the claims.
pub fn execute(exp: &Experiment, threads: Option<usize>) -> Result<Outcome, ExperimentError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    let pool = builder.build().expect("a thread pool");
    let runs = pool.install(|| runs(exp))?;
    let summary = summarise(exp, &runs);
    let thresholds = pool.install(|| thresholds(exp))?;
    let saturation = pool.install(|| saturation(exp));
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

/// The sweep's runs, in plan order (point, policy, replication).
fn runs(exp: &Experiment) -> Result<Vec<RunRecord>, ExperimentError> {
    let mut plan = Vec::new();
    for point in 0..exp.points.len() {
        for policy in 0..exp.policies.len() {
            for rep in 0..exp.run.replications {
                plan.push((policy, point, rep));
            }
        }
    }
    let bar = progress(exp, plan.len() as u64);
    let runs = plan
        .par_iter()
        .map(|&(policy, point, rep)| {
            let r = simulate(exp, policy, point, rep);
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    runs
}

/// A progress bar on a terminal, nothing otherwise.
fn progress(exp: &Experiment, len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} runs, {elapsed} (eta {eta})")
            .expect("static template")
            .progress_chars("=> "),
    );
    b.set_message(exp.name().to_string());
    b
}

/// One limit search per distinct (policy, search) of the threshold and saturation claims, all
/// at once.
fn thresholds(exp: &Experiment) -> Result<Vec<ThresholdResult>, ExperimentError> {
    let mut searches: Vec<(usize, SearchSpec)> = Vec::new();
    for c in &exp.claims {
        let key = match c {
            ClaimSpec::Threshold { policy, search, .. }
            | ClaimSpec::Saturation { policy, search } => (*policy, *search),
            _ => continue,
        };
        if !searches.contains(&key) {
            searches.push(key);
        }
    }
    searches
        .par_iter()
        .map(|&(policy, search)| threshold_search(exp, policy, search))
        .collect()
}

/// The saturated throughput of every policy with a saturation claim (FIFO-FF), simulated for
/// the file's longest run.
fn saturation(exp: &Experiment) -> Vec<(usize, Saturation)> {
    let mut policies: Vec<usize> = Vec::new();
    for c in &exp.claims {
        if let ClaimSpec::Saturation { policy, .. } = c
            && !policies.contains(policy)
        {
            policies.push(*policy);
        }
    }
    let Some((_, warmup, max_slots)) = exp.run.slots() else {
        return Vec::new();
    };
    policies
        .par_iter()
        .map(|&p| {
            let s = fifo_saturated(
                exp.servers,
                exp.workload.sizes(),
                exp.workload.service(),
                warmup,
                max_slots - warmup,
                derive_seed(exp.header.seed, &[0x7361_7475]),
            );
            (p, s)
        })
        .collect()
}
