//! Exact per-class waits of the multiserver-job model on one server: K job classes, each with
//! its size (a fraction of the server), its probability and its own geometric service rate
//! μᵢ, arriving in Poisson(λ) or Bernoulli(λ) batches, under FIFO-FF (FCFS), BF-J/S (on one
//! server, Most-Servers-First with the paper's slot rule), SMASH(w), First-Fit and the
//! preemptive ServerFilling. The Markov chain of the jobs present (in arrival order, each
//! waiting or in service) is enumerated, truncated at N waiting jobs (arrivals beyond are
//! dropped: [`MsjResult::mass_at_cap`] reports the mass there), and solved by Gauss–Seidel.
//!
//! The chain is observed after step 4 of each slot (docs/theory.md section 1): every job in
//! service leaves with probability μ of its class (step 1), a batch arrives with i.i.d.
//! classes (step 2), the policy starts (and, for ServerFilling, preempts) jobs (step 3). By
//! Little's law in slotted time a class's mean wait is its mean number waiting over its
//! arrival rate, Wᵢ = E\[Qᵢ\] / (λ pᵢ), and its mean response time E\[Nᵢ\] / (λ pᵢ), with
//! Nᵢ the jobs of class i present; the simulator's waits are measured per job
//! ([`crate::sim::Waits`]), so the two meet only if both are right.
//!
//! The policies are written again here on class labels from their rules, not copied from
//! `src/policy`: this is an independent check of the simulator. With geometric service a
//! preempted job's remaining service is again geometric, so the state needs no ages.

use std::collections::HashMap;

use super::exact::ExactError;
use crate::model::Size;

/// The most classes the chain takes.
pub const MAX_MSJ_CLASSES: usize = 4;

/// A class of jobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MsjClass {
    /// Its size, a fraction of the server.
    pub size: Size,
    /// The probability that an arriving job is of this class.
    pub prob: f64,
    /// Its service probability per slot μ (geometric service of mean 1/μ slots).
    pub mu: f64,
}

/// How many jobs arrive at the start of a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsjArrivals {
    /// Poisson(λ) jobs (packlab's default arrivals).
    Poisson,
    /// One job with probability λ (λ ≤ 1).
    Bernoulli,
}

/// The system: one server.
#[derive(Clone, Debug)]
pub struct MsjSystem {
    /// The classes (1 to [`MAX_MSJ_CLASSES`]).
    pub classes: Vec<MsjClass>,
    /// Arrival rate λ, jobs per slot.
    pub lambda: f64,
    /// The batch law.
    pub arrivals: MsjArrivals,
    /// Truncation N: at most this many waiting jobs (later arrivals are dropped).
    pub cap: usize,
}

/// Which policy the chain follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsjPolicy {
    /// FIFO-FF: the head of the queue starts while it fits (FCFS).
    FifoFf,
    /// BF-J/S: in a slot with a departure the largest waiting job that fits starts, again and
    /// again; then each arrival of the slot starts if it fits, in arrival order.
    BfJs,
    /// SMASH(w): among the first w waiting jobs the largest that fits (ties: the earliest)
    /// starts, again and again.
    Smash(usize),
    /// First-Fit: every waiting job that fits starts, in arrival order.
    FirstFit,
    /// ServerFilling: M is the shortest prefix of the jobs present adding up to a server (all
    /// of them if less); M's jobs are served largest first while they fit, every other job
    /// waits (preempted if it was in service).
    ServerFilling,
}

/// The exact solution.
#[derive(Clone, Debug)]
pub struct MsjResult {
    /// States of the truncated chain.
    pub states: usize,
    /// Per class, the stationary mean number waiting E\[Qᵢ\] (after placement), jobs.
    pub waiting: Vec<f64>,
    /// Per class, the stationary mean number present E\[Nᵢ\], jobs.
    pub present: Vec<f64>,
    /// Per class, the mean wait Wᵢ = E\[Qᵢ\] / (λ pᵢ), slots.
    pub wait: Vec<f64>,
    /// Per class, the mean response time E\[Nᵢ\] / (λ pᵢ), slots.
    pub response: Vec<f64>,
    /// Stationary probability that N jobs wait (truncation diagnostic).
    pub mass_at_cap: f64,
}

/// A job present: its class, with [`RUN`] set while in service.
type Code = u8;
const RUN: Code = 0x80;

fn class(c: Code) -> usize {
    (c & !RUN) as usize
}

fn running(c: Code) -> bool {
    c & RUN != 0
}

/// Every batch with its probability (sequences of classes, arrival order).
fn batches(sys: &MsjSystem) -> Vec<(Vec<Code>, f64)> {
    let k = sys.classes.len();
    match sys.arrivals {
        MsjArrivals::Bernoulli => {
            let mut out = vec![(Vec::new(), 1.0 - sys.lambda)];
            for (c, cl) in sys.classes.iter().enumerate() {
                out.push((vec![c as Code], sys.lambda * cl.prob));
            }
            out
        }
        MsjArrivals::Poisson => {
            let mut out = Vec::new();
            let mut level: Vec<(Vec<Code>, f64)> = vec![(Vec::new(), 1.0)];
            let mut pk = (-sys.lambda).exp();
            let mut tail = 1.0 - pk;
            let mut n = 0usize;
            loop {
                out.extend(level.iter().map(|(s, p)| (s.clone(), p * pk)));
                if tail < 1e-13 {
                    break;
                }
                n += 1;
                pk *= sys.lambda / n as f64;
                tail -= pk;
                let mut next = Vec::with_capacity(level.len() * k);
                for (s, p) in &level {
                    for (c, cl) in sys.classes.iter().enumerate() {
                        let mut t = s.clone();
                        t.push(c as Code);
                        next.push((t, p * cl.prob));
                    }
                }
                level = next;
            }
            // the tail beyond, below 1e-13, spread over the batches kept
            let total: f64 = out.iter().map(|b| b.1).sum();
            out.iter_mut().for_each(|b| b.1 /= total);
            out
        }
    }
}

/// Every outcome of step 1: the jobs left (in order) and the probability.
fn departures(sys: &MsjSystem, present: &[Code]) -> Vec<(Vec<Code>, f64)> {
    let mut out = vec![(Vec::with_capacity(present.len()), 1.0)];
    for &c in present {
        if running(c) {
            let mu = sys.classes[class(c)].mu;
            let mut next = Vec::with_capacity(out.len() * 2);
            for (rest, p) in out {
                next.push((rest.clone(), p * mu));
                let mut kept = rest;
                kept.push(c);
                next.push((kept, p * (1.0 - mu)));
            }
            out = next;
        } else {
            out.iter_mut().for_each(|(rest, _)| rest.push(c));
        }
    }
    out
}

/// Step 3: the policy on the jobs present (arrival order; the last `new` of them arrived in
/// this slot); `departed`: a job left at step 1.
fn place(sys: &MsjSystem, policy: MsjPolicy, present: &mut [Code], new: usize, departed: bool) {
    let size = |c: Code| sys.classes[class(c)].size.0;
    let mut free = Size::UNIT
        - present
            .iter()
            .filter(|&&c| running(c))
            .map(|&c| size(c))
            .sum::<u64>();
    let old = present.len() - new;
    let start = |present: &mut [Code], k: usize, free: &mut u64| {
        *free -= size(present[k]);
        present[k] |= RUN;
    };
    match policy {
        MsjPolicy::FifoFf => {
            for k in 0..present.len() {
                if running(present[k]) {
                    continue;
                }
                if size(present[k]) > free {
                    break;
                }
                start(present, k, &mut free);
            }
        }
        MsjPolicy::FirstFit => {
            for k in 0..present.len() {
                if !running(present[k]) && size(present[k]) <= free {
                    start(present, k, &mut free);
                }
            }
        }
        MsjPolicy::Smash(w) => loop {
            let window = (0..present.len()).filter(|&k| !running(present[k])).take(w);
            // the largest that fits, the earliest among equals
            let mut best: Option<usize> = None;
            for k in window {
                let s = size(present[k]);
                if s <= free && best.is_none_or(|b| s > size(present[b])) {
                    best = Some(k);
                }
            }
            match best {
                Some(k) => start(present, k, &mut free),
                None => break,
            }
        },
        MsjPolicy::BfJs => {
            if departed {
                loop {
                    let mut best: Option<usize> = None;
                    for k in 0..present.len() {
                        let s = size(present[k]);
                        // old jobs before new ones among equal sizes: the earliest
                        if !running(present[k])
                            && s <= free
                            && best.is_none_or(|b| s > size(present[b]))
                        {
                            best = Some(k);
                        }
                    }
                    match best {
                        Some(k) => start(present, k, &mut free),
                        None => break,
                    }
                }
            }
            for k in old..present.len() {
                if !running(present[k]) && size(present[k]) <= free {
                    start(present, k, &mut free);
                }
            }
        }
        MsjPolicy::ServerFilling => {
            let mut sum = 0u64;
            let mut m = 0;
            while m < present.len() && sum < Size::UNIT {
                sum += size(present[m]);
                m += 1;
            }
            let mut order: Vec<usize> = (0..m).collect();
            order.sort_by_key(|&k| (std::cmp::Reverse(size(present[k])), k));
            present.iter_mut().for_each(|c| *c &= !RUN);
            let mut free = Size::UNIT;
            for k in order {
                if size(present[k]) <= free {
                    start(present, k, &mut free);
                }
            }
        }
    }
}

/// The state kept: for the non-preemptive policies the jobs in service only as a sorted list
/// (where they stand in arrival order no longer matters), and for BF-J/S the waiting jobs as
/// counts per class (its choices depend on sizes only; within a class the jobs are alike).
fn canonical(policy: MsjPolicy, present: Vec<Code>) -> Vec<Code> {
    if policy == MsjPolicy::ServerFilling {
        return present;
    }
    let (mut run, mut wait): (Vec<Code>, Vec<Code>) =
        present.into_iter().partition(|&c| running(c));
    run.sort_unstable();
    if policy == MsjPolicy::BfJs {
        wait.sort_unstable();
    }
    run.extend(wait);
    run
}

/// Solves the chain of `sys` under `policy`. Errors if it has more than `max_states` states.
pub fn solve_msj(
    sys: &MsjSystem,
    policy: MsjPolicy,
    max_states: usize,
) -> Result<MsjResult, ExactError> {
    let batches = batches(sys);
    let mut index: HashMap<Vec<Code>, usize> = HashMap::new();
    let mut states: Vec<Vec<Code>> = vec![Vec::new()];
    index.insert(Vec::new(), 0);
    // incoming[j]: (i, P(i → j))
    let mut incoming: Vec<Vec<(usize, f64)>> = vec![Vec::new()];
    let mut row: HashMap<usize, f64> = HashMap::new();
    let mut k = 0;
    while k < states.len() {
        row.clear();
        let from = states[k].clone();
        for (rest, pd) in departures(sys, &from) {
            let departed = rest.len() < from.len();
            for (batch, pb) in &batches {
                let mut next = rest.clone();
                next.extend_from_slice(batch);
                place(sys, policy, &mut next, batch.len(), departed);
                // the truncation: the latest waiting jobs beyond N are dropped
                let mut waiting = next.iter().filter(|&&c| !running(c)).count();
                while waiting > sys.cap {
                    let last = next
                        .iter()
                        .rposition(|&c| !running(c))
                        .expect("a waiting job");
                    next.remove(last);
                    waiting -= 1;
                }
                let next = canonical(policy, next);
                let id = match index.get(&next) {
                    Some(&i) => i,
                    None => {
                        if states.len() >= max_states {
                            return Err(ExactError::TooManyStates(max_states));
                        }
                        index.insert(next.clone(), states.len());
                        states.push(next);
                        incoming.push(Vec::new());
                        states.len() - 1
                    }
                };
                *row.entry(id).or_default() += pd * pb;
            }
        }
        for (&j, &p) in &row {
            incoming[j].push((k, p));
        }
        k += 1;
    }
    let pi = gauss_seidel(&incoming)?;
    let kk = sys.classes.len();
    let (mut waiting, mut present) = (vec![0.0; kk], vec![0.0; kk]);
    let mut mass_at_cap = 0.0;
    for (s, &p) in states.iter().zip(&pi) {
        let mut w = 0;
        for &c in s {
            present[class(c)] += p;
            if !running(c) {
                waiting[class(c)] += p;
                w += 1;
            }
        }
        if w == sys.cap {
            mass_at_cap += p;
        }
    }
    let rate = |i: usize| sys.lambda * sys.classes[i].prob;
    Ok(MsjResult {
        states: states.len(),
        wait: (0..kk).map(|i| waiting[i] / rate(i)).collect(),
        response: (0..kk).map(|i| present[i] / rate(i)).collect(),
        waiting,
        present,
        mass_at_cap,
    })
}

/// The stationary distribution from each state's incoming transitions, by Gauss–Seidel
/// sweeps (πⱼ = Σ_{i≠j} πᵢ Pᵢⱼ / (1 − Pⱼⱼ), normalised after each sweep) until no entry moves
/// by more than 1e-13 of the largest.
fn gauss_seidel(incoming: &[Vec<(usize, f64)>]) -> Result<Vec<f64>, ExactError> {
    let n = incoming.len();
    let mut pi = vec![1.0 / n as f64; n];
    for _ in 0..200_000 {
        let mut moved = 0f64;
        for j in 0..n {
            let (mut sum, mut stay) = (0.0, 0.0);
            for &(i, p) in &incoming[j] {
                if i == j {
                    stay = p;
                } else {
                    sum += pi[i] * p;
                }
            }
            if stay >= 1.0 {
                return Err(ExactError::Singular);
            }
            let v = sum / (1.0 - stay);
            moved = moved.max((v - pi[j]).abs());
            pi[j] = v;
        }
        let total: f64 = pi.iter().sum();
        pi.iter_mut().for_each(|x| *x /= total);
        let top = pi.iter().cloned().fold(0.0, f64::max);
        if moved / total <= 1e-13 * top {
            return Ok(pi);
        }
    }
    Err(ExactError::Singular)
}

/// The stability limit of FIFO-FF (FCFS) on one server of `cores` cores with two classes, as
/// an arrival rate (jobs per slot): with probability `p_small` a job needs one core (size
/// 1/cores) for a geometric service of rate `mu_small`, otherwise the whole server for a
/// service of mean `mean_large` slots (any law); `p_small` in [0, 1). FCFS is stable exactly below the throughput
/// of its saturated system (the saturation rule), computed here in closed form.
///
/// In the saturated system an all-core job is followed by N one-core jobs before the next
/// all-core job, N geometric with P(N = n) = (1 − p) pⁿ. The N jobs start as cores free;
/// the all-core job behind them starts in the slot the last of them leaves, D(N) slots after
/// the first started (D(0) = 0), and leaves S slots later, when the next cycle begins. By
/// the renewal–reward theorem the throughput is
/// λ* = E\[N + 1\] / (E\[D(N)\] + E\[S\]) = 1 / ((1 − p)(E\[D(N)\] + E\[S\])).
/// E\[D(n)\] = E(r, m) with r = min(n, cores) running and m = n − r not started, where
/// E(0, 0) = 0 and, with d ~ Bin(r, μ) jobs leaving in the next slot,
/// E(r, m) = 1 + Σ_d P(d) E(r′, m′), r′ = min(cores, r − d + m), m′ = r − d + m − r′:
/// a finite recursion in r + m, the d = 0 term moved to the left side. The sum over n stops
/// where pⁿ < 1e-16.
pub fn fcfs_two_class_limit(cores: usize, p_small: f64, mu_small: f64, mean_large: f64) -> f64 {
    let (k, p, mu) = (cores, p_small, mu_small);
    let mut n_max = 0usize;
    while p.powi(n_max as i32) >= 1e-16 {
        n_max += 1;
    }
    // bin[r][d] = P(Bin(r, μ) = d)
    let bin: Vec<Vec<f64>> = (0..=k)
        .map(|r| {
            let mut c = 1.0;
            (0..=r)
                .map(|d| {
                    if d > 0 {
                        c *= (r - d + 1) as f64 / d as f64;
                    }
                    c * mu.powi(d as i32) * (1.0 - mu).powi((r - d) as i32)
                })
                .collect()
        })
        .collect();
    // e[total][r]: E(r, total − r), total = r + m, for r = min(k, total) and every smaller r
    let mut e: Vec<Vec<f64>> = Vec::with_capacity(n_max + 1);
    for total in 0..=n_max {
        let mut row = vec![0.0; k.min(total) + 1];
        for r in 1..=k.min(total) {
            let m = total - r;
            let mut sum = 1.0;
            for (d, &pd) in bin[r].iter().enumerate().skip(1) {
                let left = r - d + m;
                sum += pd * if left == 0 { 0.0 } else { e[left][k.min(left)] };
            }
            row[r] = sum / (1.0 - bin[r][0]);
        }
        e.push(row);
    }
    let mean_d: f64 = (0..=n_max)
        .map(|n| (1.0 - p) * p.powi(n as i32) * e[n][k.min(n)])
        .sum();
    1.0 / ((1.0 - p) * (mean_d + mean_large))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(
        classes: &[(f64, f64, f64)],
        lambda: f64,
        arrivals: MsjArrivals,
        cap: usize,
    ) -> MsjSystem {
        MsjSystem {
            classes: classes
                .iter()
                .map(|&(s, p, mu)| MsjClass {
                    size: Size::from_f64(s).unwrap(),
                    prob: p,
                    mu,
                })
                .collect(),
            lambda,
            arrivals,
            cap,
        }
    }

    #[test]
    fn whole_server_jobs_are_the_geo_geo_one_queue() {
        // Bernoulli(λ) arrivals, geometric(μ) service, one job at a time: the discrete-time
        // Geo/Geo/1 queue. Its number present after step 4 is a birth–death chain on
        // {0, 1, …}: from n ≥ 1 up λ(1 − μ) and down μ(1 − λ), from 0 up λ; solved in closed
        // form here.
        let (lambda, mu) = (0.2, 0.4);
        let s = sys(&[(1.0, 1.0, mu)], lambda, MsjArrivals::Bernoulli, 60);
        let r = solve_msj(&s, MsjPolicy::FifoFf, 10_000).unwrap();
        let (up, down) = (lambda * (1.0 - mu), mu * (1.0 - lambda));
        // π_n = π_1 (up/down)^(n−1) for n ≥ 1, π_1 = π_0 λ/down
        let a = up / down;
        let p1_over_p0 = lambda / down;
        let norm = 1.0 + p1_over_p0 / (1.0 - a);
        // E[N] = π_0 p1/p0 Σ n a^(n−1) = π_0 p1/p0 / (1 − a)²; E[Q] = E[N] − P(N ≥ 1)
        let en = p1_over_p0 / (1.0 - a).powi(2) / norm;
        let busy = p1_over_p0 / (1.0 - a) / norm;
        assert!((r.present[0] - en).abs() < 1e-9, "{} vs {en}", r.present[0]);
        assert!((r.waiting[0] - (en - busy)).abs() < 1e-9);
        assert!(r.mass_at_cap < 1e-20);
        // every policy is FCFS when every job takes the server
        for p in [
            MsjPolicy::BfJs,
            MsjPolicy::Smash(3),
            MsjPolicy::FirstFit,
            MsjPolicy::ServerFilling,
        ] {
            let q = solve_msj(&s, p, 10_000).unwrap();
            assert!((q.waiting[0] - r.waiting[0]).abs() < 1e-9, "{p:?}");
        }
    }

    #[test]
    fn smash_of_window_one_is_fifo_ff_and_policies_differ_otherwise() {
        let s = sys(
            &[(0.25, 0.6, 0.1), (1.0, 0.4, 0.3)],
            0.12,
            MsjArrivals::Bernoulli,
            12,
        );
        let fifo = solve_msj(&s, MsjPolicy::FifoFf, 200_000).unwrap();
        let w1 = solve_msj(&s, MsjPolicy::Smash(1), 200_000).unwrap();
        for i in 0..2 {
            assert!((fifo.wait[i] - w1.wait[i]).abs() < 1e-9);
        }
        let ff = solve_msj(&s, MsjPolicy::FirstFit, 200_000).unwrap();
        // First-Fit lets small jobs pass a blocked large one: they wait far less
        assert!(
            ff.wait[0] < 0.5 * fifo.wait[0],
            "{:?} {:?}",
            ff.wait,
            fifo.wait
        );
    }

    #[test]
    fn server_filling_is_work_conserving_in_the_server() {
        // with power-of-two sizes, the server is full whenever the work present fills it
        let s = sys(
            &[(0.25, 0.7, 0.2), (0.5, 0.3, 0.1)],
            0.3,
            MsjArrivals::Bernoulli,
            10,
        );
        let sf = solve_msj(&s, MsjPolicy::ServerFilling, 200_000).unwrap();
        let fifo = solve_msj(&s, MsjPolicy::FifoFf, 200_000).unwrap();
        let total = |r: &MsjResult| r.waiting.iter().sum::<f64>();
        assert!(total(&sf) < total(&fifo), "{} {}", total(&sf), total(&fifo));
    }

    #[test]
    fn the_fcfs_closed_form_on_one_core_is_the_whole_server() {
        // one core: every job takes the server, the limit is load 1
        let (p, mu, s) = (0.7, 0.1, 3.0);
        let limit = fcfs_two_class_limit(1, p, mu, s);
        assert!(
            (limit * (p / mu + (1.0 - p) * s) - 1.0).abs() < 1e-12,
            "{limit}"
        );
        // no one-core jobs: one all-core job at a time, for 5 slots on average
        let limit = fcfs_two_class_limit(2, 0.0, 0.2, 5.0);
        assert!((limit - 1.0 / 5.0).abs() < 1e-12, "{limit}");
        // mostly one-core jobs on 4 cores: nearly 4 served at a time, never more
        let limit = fcfs_two_class_limit(4, 0.999, 0.1, 2.0);
        assert!(limit < 0.4 && limit > 0.35, "{limit}");
    }
}
