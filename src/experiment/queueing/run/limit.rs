//! A policy's stability limit as an interval [lower, upper] on the load: lower shown stable,
//! upper shown unstable, by a noisy bisection whose probes repeat until they are decisive.
//!
//! **A probe** at load x runs rounds of `replications` runs (seeds from (experiment seed,
//! x, replication) on a path of their own, never from the policy; each run extends its horizon
//! up to `run.max_slots` while its verdict is inconclusive). After each round, over all N runs
//! so far with S stable, U unstable:
//! - *shown stable* if S > N/2 and U = 0;
//! - *shown unstable* if U > N/2 and S = 0;
//! - otherwise another round, up to `rounds`; then *undecided* (x is close to the limit, at
//!   the resolution the horizon allows). A probe stops early, undecided, as soon as no
//!   outcome of its remaining rounds could decide it (a stable and an unstable run both seen,
//!   or too few stable or unstable runs for a majority even if every later run agreed): the
//!   decision is the one the remaining rounds would have reached, so the search takes the same
//!   path and gives the same interval, for fewer slots.
//!
//! If a single run at or above the limit is called stable with probability at most p (the
//! calibration in `proofs/verdict_calibration.md` measures about 2 % at the critical load and
//! 0 beyond ±1 %), a probe is wrongly shown stable with probability at most
//! P(Bin(N, p) > N/2); [`probe_error`] states it with p = [`RUN_ERROR`] = 5 %, the target the
//! calibration meets, and likewise for a wrong "shown unstable".
//!
//! **The search** keeps lower (shown stable; 0 to start, stable by theory) and upper (shown
//! unstable; ρ*'s upper end to start, beyond which no policy is stable) and the undecided loads
//! between them. Each probe goes to the midpoint of the widest gap between consecutive known
//! loads (ties: the lowest), so an undecided load is approached from both sides (the noisy
//! bisection of Waeber, Frazier & Henderson, "Bisection search with noisy responses", SIAM J.
//! Control Optim. 51(3), 2013, with a three-valued answer in place of a coin). It stops when
//! upper − lower is at most `resolution` × ρ*, when no gap is wider than a quarter of that, or after
//! `max_probes` probes.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::experiment::ExperimentError;
use crate::experiment::queueing::{Experiment, SearchSpec};
use crate::rng::derive_seed;
use crate::sim::Verdict;

/// The per-run error rate assumed when a probe's confidence is stated (the calibration's
/// target: at most 5 % wrong calls within ±1–2 % of a limit, about 2 % measured at it).
pub(crate) const RUN_ERROR: f64 = 0.05;

/// What a probe showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Decision {
    /// Its runs showed the queue stable.
    Stable,
    /// Its runs showed the queue growing.
    Unstable,
    /// Its runs settled neither.
    Undecided,
}

impl Decision {
    /// The decision as written in outputs.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Decision::Stable => "stable",
            Decision::Unstable => "unstable",
            Decision::Undecided => "undecided",
        }
    }
}

/// One load tried by the search.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Probe {
    /// The load tried.
    pub(crate) load: f64,
    /// What its runs showed.
    pub(crate) decision: Decision,
    /// Runs judged stable, unstable, inconclusive (over all its rounds).
    pub(crate) counts: [usize; 3],
    /// Slots simulated by its runs.
    pub(crate) slots: u64,
}

impl Probe {
    /// Runs of the probe.
    pub(crate) fn runs(&self) -> usize {
        self.counts.iter().sum()
    }
}

/// A policy's stability limit as an interval on the load.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct ThresholdResult {
    /// The policy.
    pub(crate) policy: usize,
    /// ρ* (low, high) as a traffic intensity.
    pub(crate) rho_star: (f64, f64),
    /// How the limit was searched.
    pub(crate) search: SearchSpec,
    /// The largest load shown stable (0 if none was: stable by theory).
    pub(crate) lower: f64,
    /// The smallest load shown unstable, or ρ*'s upper end if none was (unstable by theory).
    pub(crate) upper: f64,
    /// Whether `upper` was shown unstable by a probe (not only by theory).
    pub(crate) upper_shown: bool,
    /// Every probe, in the order tried.
    pub(crate) probes: Vec<Probe>,
}

impl ThresholdResult {
    /// The interval as fractions of ρ*, conservatively: (lower / ρ*_high, upper / ρ*_low).
    pub(crate) fn fractions(&self) -> (f64, f64) {
        (self.lower / self.rho_star.1, self.upper / self.rho_star.0)
    }

    /// Runs simulated by the search.
    pub(crate) fn runs(&self) -> usize {
        self.probes.iter().map(Probe::runs).sum()
    }

    /// Slots simulated by the search.
    pub(crate) fn slots(&self) -> u64 {
        self.probes.iter().map(|p| p.slots).sum()
    }

    /// The probe that showed `load`, if one did.
    pub(crate) fn probe_at(&self, load: f64) -> Option<&Probe> {
        self.probes.iter().find(|p| p.load == load)
    }

    /// A line on how each end was shown and how sure it is.
    pub(crate) fn ends(&self) -> String {
        let end = |load: f64, theory: &str| match self.probe_at(load) {
            Some(p) => format!(
                "{load:.4} ({}/{}/{} stable/unstable/inconclusive runs; wrong with probability \
                 ≤ {:.1e})",
                p.counts[0],
                p.counts[1],
                p.counts[2],
                probe_error(p.runs())
            ),
            None => format!("{load:.4} ({theory})"),
        };
        format!(
            "lower {}, upper {}",
            end(self.lower, "load 0: stable by theory"),
            end(self.upper, "ρ*: no policy is stable above it")
        )
    }
}

/// The probability that a probe of `n` runs is decided wrongly when each run is wrong with
/// probability [`RUN_ERROR`]: P(Bin(n, p) > n/2).
pub(crate) fn probe_error(n: usize) -> f64 {
    let p = RUN_ERROR;
    let mut total = 0.0;
    for k in n / 2 + 1..=n {
        let mut c = 1.0;
        for i in 0..k {
            c *= (n - i) as f64 / (i + 1) as f64;
        }
        total += c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32);
    }
    total
}

/// The decision on runs with `counts` = [stable, unstable, inconclusive].
fn decide(counts: [usize; 3]) -> Decision {
    let n: usize = counts.iter().sum();
    if 2 * counts[0] > n && counts[1] == 0 {
        Decision::Stable
    } else if 2 * counts[1] > n && counts[0] == 0 {
        Decision::Unstable
    } else {
        Decision::Undecided
    }
}

/// Whether runs with `counts` = [stable, unstable, inconclusive] could still be decided by
/// `rounds_left` more rounds of `n` runs: shown stable needs no unstable run and a strict
/// majority, 2S + n·k > N after k more rounds if every one of their runs is stable (the
/// best case, easiest at k = `rounds_left`), and likewise for unstable.
fn decidable(counts: [usize; 3], n: usize, rounds_left: usize) -> bool {
    let total: usize = counts.iter().sum();
    let more = n * rounds_left;
    let could = |mine: usize, contrary: usize| contrary == 0 && 2 * mine + more > total;
    could(counts[0], counts[1]) || could(counts[1], counts[0])
}

/// The system a probe at load x runs: the experiment (whose size law may depend on x, as on a
/// region map with held types) and the arrival rate, jobs per slot.
pub(crate) type ProbeAt<'a> = dyn Fn(f64) -> (Cow<'a, Experiment>, f64) + Sync + 'a;

/// Probes load `load` for `policy`: rounds of the file's replications until decisive, or
/// until no later round could decide it. `exp` names the search and seeds its runs; `at` gives
/// the system at the load.
fn probe(
    exp: &Experiment,
    policy: usize,
    load: f64,
    search: &SearchSpec,
    at: &ProbeAt<'_>,
) -> Result<Probe, ExperimentError> {
    let (system, rate) = at(load);
    let n = exp.run.replications;
    let mut counts = [0usize; 3];
    let mut slots = 0u64;
    let mut decision = Decision::Undecided;
    // this probe's part of the search's progress, shared by its runs on every thread
    let span = crate::progress::current();
    for round in 0..search.rounds {
        let runs: Result<Vec<(Verdict, u64)>, ExperimentError> = (round * n..(round + 1) * n)
            .into_par_iter()
            .map(|rep| {
                let seed = derive_seed(exp.header.seed, &[0x7468_7265, load.to_bits(), rep as u64]);
                let part = span.as_ref().map(|s| {
                    s.part(u64::from(round), u64::from(search.rounds))
                        .part(u64::from(rep - round * n), u64::from(n))
                });
                crate::progress::within(part, || {
                    super::simulate::run_at(&system, policy, rate, seed, (0, false))
                        .map(|r| (r.verdict, r.slots))
                })
            })
            .collect();
        for (v, s) in runs? {
            counts[v as usize] += 1;
            slots += s;
        }
        decision = decide(counts);
        let left = (search.rounds - round - 1) as usize;
        if decision != Decision::Undecided || !decidable(counts, n as usize, left) {
            break;
        }
    }
    Ok(Probe {
        load,
        decision,
        counts,
        slots,
    })
}

/// The stability limit of `policy` as an interval in [0, `rho`.1] (see the module doc); `rho`
/// is reported with the result. A probe at load x runs the system `at(x)`.
pub(crate) fn limit_search(
    exp: &Experiment,
    policy: usize,
    search: SearchSpec,
    rho: (f64, f64),
    at: &ProbeAt<'_>,
) -> Result<ThresholdResult, ExperimentError> {
    let (mut lower, mut upper) = (0.0, rho.1);
    let mut upper_shown = false;
    let mut undecided: Vec<f64> = Vec::new();
    let mut probes = Vec::new();
    let target = search.resolution * rho.1;
    while (probes.len() as u32) < search.max_probes && upper - lower > target {
        let mut known = vec![lower];
        known.extend(&undecided);
        known.push(upper);
        let (a, b) = known
            .windows(2)
            .map(|w| (w[0], w[1]))
            .fold((0.0, 0.0), |best, g| {
                if g.1 - g.0 > best.1 - best.0 { g } else { best }
            });
        if b - a <= target / 4.0 {
            break;
        }
        let mid = (a + b) / 2.0;
        let part = crate::progress::current()
            .map(|s| s.part(probes.len() as u64, u64::from(search.max_probes)));
        let p = crate::progress::within(part, || probe(exp, policy, mid, &search, at))?;
        crate::progress::note(|| {
            format!(
                "{}: limit of {}: probe {} at load {mid:.4} {} ({} runs)",
                exp.header.name,
                exp.labels[policy],
                probes.len() + 1,
                p.decision.as_str(),
                p.runs()
            )
        });
        match p.decision {
            Decision::Stable => {
                lower = mid;
                undecided.retain(|&u| u > mid);
            }
            Decision::Unstable => {
                upper = mid;
                upper_shown = true;
                undecided.retain(|&u| u < mid);
            }
            Decision::Undecided => {
                undecided.push(mid);
                undecided.sort_by(f64::total_cmp);
            }
        }
        probes.push(p);
    }
    Ok(ThresholdResult {
        policy,
        rho_star: rho,
        search,
        lower,
        upper,
        upper_shown,
        probes,
    })
}

/// The stability limit of `policy` relative to the experiment's ρ* (see [`limit_search`]).
pub(crate) fn threshold_search(
    exp: &Experiment,
    policy: usize,
    search: SearchSpec,
) -> Result<ThresholdResult, ExperimentError> {
    let rho = exp.rho_star.expect("computed for threshold claims");
    let rate = exp.rate_per_load();
    limit_search(exp, policy, search, rho, &|x| {
        (Cow::Borrowed(exp), x * rate)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_need_a_majority_and_no_contrary_run() {
        assert_eq!(decide([3, 0, 2]), Decision::Stable);
        assert_eq!(decide([4, 1, 0]), Decision::Undecided);
        assert_eq!(decide([2, 0, 3]), Decision::Undecided);
        assert_eq!(decide([0, 5, 0]), Decision::Unstable);
        assert_eq!(decide([0, 3, 2]), Decision::Unstable);
    }

    /// A probe stops only when its remaining rounds cannot decide it: checked against every
    /// outcome of the remaining runs.
    #[test]
    fn a_probe_stops_exactly_when_no_later_round_can_decide_it() {
        let n = 3;
        for rounds in 1..=3usize {
            for done in 1..=rounds {
                let total = n * done;
                for s in 0..=total {
                    for u in 0..=total - s {
                        let counts = [s, u, total - s - u];
                        if decide(counts) != Decision::Undecided {
                            continue;
                        }
                        // can some outcome of the next k rounds decide it, for some k?
                        let left = rounds - done;
                        let reachable = (1..=left).any(|k| {
                            (0..=n * k).any(|s2| {
                                (0..=n * k - s2).any(|u2| {
                                    let c = [s + s2, u + u2, total + n * k - s - s2 - u - u2];
                                    decide(c) != Decision::Undecided
                                })
                            })
                        });
                        assert_eq!(decidable(counts, n, left), reachable, "{counts:?} {left}");
                    }
                }
            }
        }
        // the committed searches' cases: two rounds of five all inconclusive cannot become a
        // majority of fifteen; a stable and an unstable run end a probe at once
        assert!(!decidable([0, 0, 10], 5, 1));
        assert!(decidable([0, 0, 5], 5, 2));
        assert!(!decidable([1, 1, 3], 5, 2));
    }

    #[test]
    fn probe_error_is_a_binomial_tail() {
        // n = 1: wrong when the one run is wrong
        assert!((probe_error(1) - 0.05).abs() < 1e-12);
        // n = 5: P(≥ 3 of 5) = 10 p³ q² + 5 p⁴ q + p⁵
        let (p, q) = (0.05f64, 0.95f64);
        let want = 10.0 * p.powi(3) * q * q + 5.0 * p.powi(4) * q + p.powi(5);
        assert!((probe_error(5) - want).abs() < 1e-15);
    }
}
