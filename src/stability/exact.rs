//! Exact stationary mean queue of tiny finite-type systems (one or two servers, two sizes,
//! queue truncated at N) under FIFO-FF and BF-J/S, by enumerating the Markov chain's states
//! and solving π P = π with nalgebra (docs/theory.md sections 1, 3, 8).
//!
//! The chain is observed after step 4 of each slot. One step: every job in service leaves with
//! probability μ (geometric service), a Poisson(λ) batch arrives with i.i.d. types, the policy
//! places jobs, and arrivals beyond N waiting jobs are dropped (the truncation: choose N so
//! that the stationary mass near N is negligible; [`ExactResult::mass_at_cap`] reports it).
//!
//! The states are abstract (counts per type on each server; the queue as counts per type for
//! BF-J/S, whose choices depend only on sizes and arrival order, and as the sequence of types
//! for FIFO-FF), and the policies are re-implemented on them from the paper's rules: this is
//! an independent check of the simulator, not a copy of it.

use std::collections::HashMap;

use nalgebra::{DMatrix, DVector};

use crate::model::Size;

/// Which policy the chain follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExactPolicy {
    /// FIFO-FF.
    FifoFf,
    /// BF-J/S.
    BfJs,
}

/// Why a chain could not be solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExactError {
    /// Dense LU costs O(states³): larger chains are refused.
    #[error("more than {0} states")]
    TooManyStates(usize),
    /// The balance equations have no unique solution.
    #[error("the chain's balance equations are singular")]
    Singular,
}

/// A tiny system.
#[derive(Clone, Debug)]
pub struct TinySystem {
    /// Servers L.
    pub servers: usize,
    /// The two job sizes, with the probability of the first.
    pub sizes: [Size; 2],
    /// The probability that a job has the first size.
    pub p_first: f64,
    /// Arrival rate λ (Poisson batches) and service probability μ per slot.
    pub lambda: f64,
    /// The service probability μ per slot (see `lambda`).
    pub mu: f64,
    /// Queue truncation N.
    pub cap: usize,
}

/// The exact solution.
#[derive(Clone, Debug)]
pub struct ExactResult {
    /// States of the truncated chain.
    pub states: usize,
    /// The stationary mean queue, jobs.
    pub mean_queue: f64,
    /// Stationary probability that the queue holds N jobs (truncation diagnostic).
    pub mass_at_cap: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    /// Per server, jobs of type 0 and 1.
    servers: Vec<[u8; 2]>,
    /// Waiting jobs in arrival order (FIFO-FF) or sorted (BF-J/S: only counts matter).
    queue: Vec<u8>,
}

fn free(sys: &TinySystem, s: [u8; 2]) -> u64 {
    Size::UNIT - s[0] as u64 * sys.sizes[0].0 - s[1] as u64 * sys.sizes[1].0
}

fn binom(n: u8, k: u8, p: f64) -> f64 {
    let mut c = 1.0;
    for i in 0..k {
        c *= (n - i) as f64 / (i + 1) as f64;
    }
    c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
}

fn poisson(l: f64, k: usize) -> f64 {
    let mut p = (-l).exp();
    for i in 1..=k {
        p *= l / i as f64;
    }
    p
}

/// Every outcome of the departures of a slot: (remaining server contents, which servers had a
/// departure, probability).
fn departures(sys: &TinySystem, servers: &[[u8; 2]]) -> Vec<(Vec<[u8; 2]>, Vec<bool>, f64)> {
    let mut out = vec![(Vec::new(), Vec::new(), 1.0)];
    for s in servers {
        let mut next = Vec::new();
        for (rest, dep, p) in &out {
            for d0 in 0..=s[0] {
                for d1 in 0..=s[1] {
                    let q = binom(s[0], d0, sys.mu) * binom(s[1], d1, sys.mu);
                    let mut r = rest.clone();
                    r.push([s[0] - d0, s[1] - d1]);
                    let mut dd = dep.clone();
                    dd.push(d0 + d1 > 0);
                    next.push((r, dd, p * q));
                }
            }
        }
        out = next;
    }
    out
}

/// Places jobs by the policy; `batch` is this slot's arrivals in arrival order.
fn place(
    sys: &TinySystem,
    policy: ExactPolicy,
    servers: &mut [[u8; 2]],
    departed: &[bool],
    queue: &mut Vec<u8>,
    batch: &[u8],
) {
    let size = |t: u8| sys.sizes[t as usize].0;
    match policy {
        ExactPolicy::FifoFf => {
            queue.extend_from_slice(batch);
            while let Some(&h) = queue.first() {
                let Some(i) = (0..servers.len()).find(|&i| free(sys, servers[i]) >= size(h)) else {
                    break;
                };
                servers[i][h as usize] += 1;
                queue.remove(0);
            }
        }
        ExactPolicy::BfJs => {
            let mut count = [0usize; 2];
            for &t in queue.iter().chain(batch) {
                count[t as usize] += 1;
            }
            let old = [
                count[0] - batch.iter().filter(|&&t| t == 0).count(),
                count[1] - batch.iter().filter(|&&t| t == 1).count(),
            ];
            // BF-S on servers with a departure, index order: largest waiting type that fits
            // (old jobs before new ones among equal sizes: they arrived earlier).
            let mut taken = [0usize; 2];
            for i in 0..servers.len() {
                if !departed[i] {
                    continue;
                }
                loop {
                    let f = free(sys, servers[i]);
                    let best = (0..2u8)
                        .filter(|&t| count[t as usize] > 0 && size(t) <= f)
                        .max_by_key(|&t| size(t));
                    let Some(t) = best else { break };
                    servers[i][t as usize] += 1;
                    count[t as usize] -= 1;
                    taken[t as usize] += 1;
                }
            }
            // BF-J over the new jobs still waiting, in arrival order. BF-S took old jobs first,
            // then new ones in arrival order, so the k-th new job of type t still waits iff
            // k ≥ taken_t − old_t.
            let mut seen = [0usize; 2];
            for &t in batch {
                let k = seen[t as usize];
                seen[t as usize] += 1;
                if k < taken[t as usize].saturating_sub(old[t as usize]) {
                    continue;
                }
                let best = (0..servers.len())
                    .filter(|&i| free(sys, servers[i]) >= size(t))
                    .min_by_key(|&i| (free(sys, servers[i]), i));
                if let Some(i) = best {
                    servers[i][t as usize] += 1;
                    count[t as usize] -= 1;
                }
            }
            queue.clear();
            queue.extend(std::iter::repeat_n(0u8, count[0]));
            queue.extend(std::iter::repeat_n(1u8, count[1]));
        }
    }
}

/// Solves the chain of `sys` under `policy` exactly. Errors if it has more than `max_states`
/// states (dense LU costs O(states³)).
pub fn solve(
    sys: &TinySystem,
    policy: ExactPolicy,
    max_states: usize,
) -> Result<ExactResult, ExactError> {
    // batches: every sequence of types up to a length whose Poisson tail is below 1e-14
    let mut kmax = 0;
    let mut tail = 1.0 - poisson(sys.lambda, 0);
    while tail > 1e-14 {
        kmax += 1;
        tail -= poisson(sys.lambda, kmax);
    }
    let mut batches: Vec<(Vec<u8>, f64)> = vec![(vec![], poisson(sys.lambda, 0))];
    let mut level: Vec<(Vec<u8>, f64)> = vec![(vec![], 1.0)];
    for k in 1..=kmax {
        let mut next = Vec::new();
        for (seq, p) in &level {
            for t in 0..2u8 {
                let pt = if t == 0 {
                    sys.p_first
                } else {
                    1.0 - sys.p_first
                };
                let mut s = seq.clone();
                s.push(t);
                next.push((s, p * pt));
            }
        }
        let pk = poisson(sys.lambda, k);
        batches.extend(next.iter().map(|(s, p)| (s.clone(), p * pk)));
        level = next;
    }
    let start = State {
        servers: vec![[0, 0]; sys.servers],
        queue: vec![],
    };
    let mut index: HashMap<State, usize> = HashMap::new();
    let mut states = vec![start.clone()];
    index.insert(start, 0);
    let mut rows: Vec<Vec<(usize, f64)>> = Vec::new();
    let mut k = 0;
    while k < states.len() {
        let st = states[k].clone();
        let mut row: HashMap<usize, f64> = HashMap::new();
        for (rest, departed, pd) in departures(sys, &st.servers) {
            for (batch, pb) in &batches {
                let mut servers = rest.clone();
                let mut queue = st.queue.clone();
                place(sys, policy, &mut servers, &departed, &mut queue, batch);
                queue.truncate(sys.cap);
                let next = State { servers, queue };
                let id = match index.get(&next) {
                    Some(&i) => i,
                    None => {
                        if states.len() >= max_states {
                            return Err(ExactError::TooManyStates(max_states));
                        }
                        states.push(next.clone());
                        index.insert(next, states.len() - 1);
                        states.len() - 1
                    }
                };
                *row.entry(id).or_default() += pd * pb;
            }
        }
        let mut r: Vec<(usize, f64)> = row.into_iter().collect();
        r.sort_by_key(|e| e.0);
        rows.push(r);
        k += 1;
    }
    let n = states.len();
    let pi = stationary(&rows)?;
    let mean_queue = (0..n).map(|i| pi[i] * states[i].queue.len() as f64).sum();
    let mass_at_cap = (0..n)
        .filter(|&i| states[i].queue.len() == sys.cap)
        .map(|i| pi[i])
        .sum();
    Ok(ExactResult {
        states: n,
        mean_queue,
        mass_at_cap,
    })
}

#[cfg(test)]
/// The throughput (departures per slot) of the *saturated* FIFO-FF system: a queue that never
/// runs out, whose head-of-line job is placed on the first server it fits, the next one drawn
/// afresh, until the head fits nowhere. By the saturation rule (Baccelli & Foss, "On the
/// saturation rule for the stability of queues", J. Appl. Prob. 32, 1995; for multiserver jobs
/// in FIFO order, Rumyantsev & Morozov, "Stability criterion of a multiserver model with
/// simultaneous service", Annals of Operations Research 252, 2017) FIFO-FF is stable exactly
/// for arrival rates below it. The chain is (server contents, head-of-line type), observed
/// after placement; `sys.lambda` and `sys.cap` are not used.
pub(crate) fn saturated_fifo_throughput(
    sys: &TinySystem,
    max_states: usize,
) -> Result<f64, ExactError> {
    type Sat = (Vec<[u8; 2]>, u8);
    // every outcome of placing heads until one does not fit
    fn place(sys: &TinySystem, servers: Vec<[u8; 2]>, head: u8, p: f64, out: &mut Vec<(Sat, f64)>) {
        let size = sys.sizes[head as usize].0;
        match (0..servers.len()).find(|&i| free(sys, servers[i]) >= size) {
            None => out.push(((servers, head), p)),
            Some(i) => {
                let mut s = servers;
                s[i][head as usize] += 1;
                place(sys, s.clone(), 0, p * sys.p_first, out);
                place(sys, s, 1, p * (1.0 - sys.p_first), out);
            }
        }
    }
    let start: Sat = (vec![[0, 0]; sys.servers], 0);
    let mut index: HashMap<Sat, usize> = HashMap::new();
    let mut states = vec![start.clone()];
    index.insert(start, 0);
    let mut rows: Vec<Vec<(usize, f64)>> = Vec::new();
    let mut k = 0;
    while k < states.len() {
        let (servers, head) = states[k].clone();
        let mut row: HashMap<usize, f64> = HashMap::new();
        for (rest, _, pd) in departures(sys, &servers) {
            let mut outcomes = Vec::new();
            place(sys, rest, head, pd, &mut outcomes);
            for (next, p) in outcomes {
                let id = match index.get(&next) {
                    Some(&i) => i,
                    None => {
                        if states.len() >= max_states {
                            return Err(ExactError::TooManyStates(max_states));
                        }
                        states.push(next.clone());
                        index.insert(next, states.len() - 1);
                        states.len() - 1
                    }
                };
                *row.entry(id).or_default() += p;
            }
        }
        let mut r: Vec<(usize, f64)> = row.into_iter().collect();
        r.sort_by_key(|e| e.0);
        rows.push(r);
        k += 1;
    }
    let pi = stationary(&rows)?;
    let in_service = |s: &Sat| s.0.iter().map(|c| (c[0] + c[1]) as f64).sum::<f64>();
    Ok(states
        .iter()
        .enumerate()
        .map(|(i, s)| pi[i] * sys.mu * in_service(s))
        .sum())
}

/// The stationary distribution of a chain given by its rows (state → (next, probability)).
fn stationary(rows: &[Vec<(usize, f64)>]) -> Result<DVector<f64>, ExactError> {
    let n = rows.len();
    // (P^T − I) π = 0 with the last equation replaced by Σ π = 1
    let mut a = DMatrix::<f64>::zeros(n, n);
    for (i, r) in rows.iter().enumerate() {
        for &(j, p) in r {
            a[(j, i)] += p;
        }
        a[(i, i)] -= 1.0;
    }
    for j in 0..n {
        a[(n - 1, j)] = 1.0;
    }
    let mut b = DVector::<f64>::zeros(n);
    b[n - 1] = 1.0;
    a.lu().solve(&b).ok_or(ExactError::Singular)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_jobs_on_one_server_match_the_birth_death_chain() {
        // Both sizes 0.6: one job per server; the same chain as the M/Geo/1 queue.
        let s = Size::from_f64(0.6).unwrap();
        let sys = TinySystem {
            servers: 1,
            sizes: [s, Size::from_f64(0.7).unwrap()],
            p_first: 0.5,
            lambda: 0.1,
            mu: 0.3,
            cap: 30,
        };
        let a = solve(&sys, ExactPolicy::BfJs, 5000).unwrap();
        let sys1 = TinySystem {
            sizes: [s, s],
            ..sys.clone()
        };
        let b = solve(&sys1, ExactPolicy::BfJs, 5000).unwrap();
        // the type does not matter when every job takes a whole server
        assert!((a.mean_queue - b.mean_queue).abs() < 1e-10);
        assert!(a.mass_at_cap < 1e-12);
        let f = solve(&sys, ExactPolicy::FifoFf, 5000);
        assert!(f.is_err(), "FIFO sequences up to 30 are too many states");
    }

    #[test]
    fn saturated_fifo_throughput_of_simple_systems() {
        let sys = |a: f64, b: f64, servers| TinySystem {
            servers,
            sizes: [Size::from_f64(a).unwrap(), Size::from_f64(b).unwrap()],
            p_first: 0.5,
            lambda: 0.0,
            mu: 0.1,
            cap: 0,
        };
        // whole-server jobs: every server always busy with one job
        let t = saturated_fifo_throughput(&sys(1.0, 1.0, 3), 1000).unwrap();
        assert!((t - 0.3).abs() < 1e-12, "{t}");
        // halves: two per server
        let t = saturated_fifo_throughput(&sys(0.5, 0.5, 2), 1000).unwrap();
        assert!((t - 0.4).abs() < 1e-12, "{t}");
        // 0.6 and 0.3 on one server lie in between
        let t = saturated_fifo_throughput(&sys(0.6, 0.3, 1), 1000).unwrap();
        assert!(t > 0.1 && t < 0.3, "{t}");
    }
}
