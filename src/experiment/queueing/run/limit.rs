//! A policy's stability limit as an interval [lower, upper] on the load: lower shown stable,
//! upper shown unstable, by a noisy bisection whose probes repeat until they are decisive.
//!
//! **A probe** at load x runs rounds of `replications` runs (seeds from (experiment seed,
//! x, replication) on a path of their own, never from the policy; each run extends its horizon
//! up to `run.max_slots` while its verdict is inconclusive, and looks first at half of
//! `run.slots`'s horizon after warm-up when its looks would otherwise be fewer than the five
//! the verdict was calibrated on: [`look_earlier`]). After each round, over all N runs so far
//! with S stable, U unstable:
//! - *shown stable* if S > N/2 and U = 0;
//! - *shown unstable* if U > N/2 and S = 0;
//! - otherwise, when every inconclusive run was judged at the longest horizon, the *pooled
//!   test* of [`crate::sim::pooled`] on those runs: *shown stable* if the mean of their
//!   decorrelation statistics is below its 1 % point at the critical load and U = 0, *shown
//!   unstable* if the mean of their drift statistics is above its 99 % point and S = 0
//!   (written `pooled-stable` / `pooled-unstable`). Near a limit most runs end inconclusive,
//!   yet their statistics still lean; their mean decides loads that a majority of single-run
//!   calls would leave undecided, without more runs;
//! - otherwise *undecided*: another round may follow, up to `rounds`, while the probe is
//!   *open* (below); x is close to the limit, at the resolution the horizon allows.
//!
//! **A first round starts with a majority.** With rounds of n ≥ 4, its first ⌊n/2⌋ + 1 runs
//! (3 of 5) run before the others; when they are all stable, or all unstable, they are a
//! majority of the round whatever its other runs would show, and the probe is decided on them
//! alone (written `3/0/0`). Far from a limit nearly every probe is decided so, with the runs of
//! its majority. Otherwise the rest of the round runs and the probe is decided on all n runs as
//! above. The stated error is the round's: a probe decided on its first part is wrong only if
//! all those runs are wrong, an event within "more than n/2 of the n runs wrong". What the
//! first part gives up is the check that no other run went the other way; rounds of 3, whose
//! first part would be two runs, run whole ([`MIN_FIRST_PART`]). When the first part's runs
//! all ended inconclusive at the longest horizon, no majority of the round can form, and the
//! rest of the round runs only if it could plausibly tip the pooled test
//! ([`crate::sim::pooled::chance_to_decide`] at least [`HOPELESS`]); otherwise the probe is
//! undecided on those runs (written `0/0/3`), and the search reads it as the whole round of
//! inconclusive runs it predicted ([`Probe::seen`]). No call is made on fewer runs, so no
//! error is added.
//!
//! A probe is closed, undecided, when more rounds cannot decide it or are bound not to:
//! - *cannot*: a stable and an unstable run both seen, or too few stable or unstable runs for
//!   a majority even if every later run agreed. The remaining rounds would have reached the
//!   same decision.
//! - *bound not to*: every run so far ended inconclusive, and the remaining rounds would
//!   decide it with probability below 5 % ([`hopeless`]). A run ends inconclusive only at the
//!   longest horizon allowed, so x is within what that horizon resolves. With rounds of 5,
//!   after one round of 5 inconclusive runs a decision needs 8 of the next 10 runs to agree
//!   and none to contradict, while a run decides at all with probability at most 45 % (95 %
//!   confidence): together below 3 %.
//!
//! Neither stop, nor when a probe's later rounds run (below), changes how a decided probe is
//! decided, so the error stated for it holds as before: if a single run at or above the
//! limit is called stable with probability at most p (the calibration in
//! `proofs/verdict_calibration.md` measures about 2 % at the critical load and 0 beyond
//! ±1 %), a probe decided stable on N runs is wrong with probability at most P(Bin(N, p) >
//! N/2), since all its more than N/2 stable runs would be wrong calls;
//! [`probe_error`] states it with p = [`RUN_ERROR`] = 5 %, the target the calibration meets,
//! and likewise for a wrong "shown unstable". Each time the pooled test is applied it adds at
//! most [`POOLED_ERROR`] = 1 % (its stated error at the limit), so a probe's bound
//! ([`Probe::error`]) is the majority's plus 1 % per pooled look.
//!
//! **The search** keeps lower (shown stable; 0 to start, stable by theory) and upper (shown
//! unstable; ρ*'s upper end to start, beyond which no policy is stable) and the undecided loads
//! between them. Each probe goes to the midpoint of the widest gap between consecutive known
//! loads (ties: the lowest), so an undecided load is approached from both sides (the noisy
//! bisection of Waeber, Frazier & Henderson, "Bisection search with noisy responses", SIAM J.
//! Control Optim. 51(3), 2013, with a three-valued answer in place of a coin). Only gaps whose
//! probe could move an end are tried: a gap between two undecided loads is passed over unless
//! the lower one *leans stable* or the upper one *leans unstable* (one more round of agreeing
//! runs would have decided it). A run at a higher load is no more likely to be called stable,
//! nor one at a lower load unstable, so a load between two undecided probes that came nowhere
//! near a decision is bound to be undecided too. The search stops when upper − lower is at
//! most `resolution` × ρ*, or when no gap worth a probe is wider than a quarter of that (or
//! `max_probes` loads were tried) and no probe is open.
//!
//! **Where the horizon gives out.** A gap between an end and the undecided probe next to it is
//! passed over when the longest horizon failed on both its sides (the end's own probe had an
//! inconclusive run, and most runs of the probe beside it were inconclusive) and the end, moved
//! all the way to that probe, would still leave the interval wider than the resolution: its
//! loads are as close to the limit as `run.max_slots` resolves, each round there costs
//! `replications` × `run.max_slots` slots, and no outcome in it ends the search. This is a bet,
//! like the deferred rounds' (below): a probe in such a gap is sometimes decided and narrows the
//! interval, short of the resolution. A search that stops wider than the resolution with
//! nothing left to try ends *at the horizon*, and says so with the loads it left undecided.
//!
//! **The last probe under ρ\*.** While no probe has shown instability, the upper end is ρ*'s,
//! and a policy may be stable right up to it (BF-J/S nearly is), so the loads just below it
//! are the ones no run can decide. Once one decided probe can end the search (upper − lower at
//! most twice the resolution), and the probe that showed the lower end stable had an
//! inconclusive run (the longest horizon barely resolves loads that close to the limit), the
//! probe goes not to the midpoint but to the lowest load that ends the search if shown stable
//! ([`below_theory`], a load on the bisection's own lattice), the farthest such load from ρ*.
//! The interval is then as wide as the resolution asks; after a lower end every run decided,
//! the midpoint is likely decided too and gives a narrower one.
//!
//! **Later rounds wait.** A probe undecided after a round stays open, and the search first
//! tries new loads: its later rounds run only when no gap is left worth a probe, the open
//! probe closest to a decision first (2·S − N or 2·U − N, with no contrary run). A search that
//! ends before needing them never pays for them, and near the limit, where a round of
//! inconclusive runs costs `replications` × `run.max_slots` slots, they are the dearest runs
//! of a search. An open probe's lean is provisional (after one round nearly every probe
//! leans), so a gap next to one is tried only if it touches an end or if its midpoint, decided
//! on a side it can move, would end the search; other gaps wait until the probes beside them
//! are closed and lean by all their runs. This is a bet, not a bound: a deferred round might
//! have decided its probe and ended the search at once (`docs/performance.md` measures both
//! ways).

use super::scenario::Scenario;

use rayon::prelude::*;

use crate::experiment::ExperimentError;
use crate::experiment::queueing::spec::DEFAULT_EXTENSION;
use crate::experiment::queueing::{Experiment, SearchSpec};
use crate::experiment::steps::Steps;
use crate::rng::derive_seed;
use crate::sim::pooled::{POOLED_ERROR, chance_to_decide, pooled};
use crate::sim::verdict::MIN_HORIZON_SERVICES;
use crate::sim::{BATCHES, RunConfig, Verdict};

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

/// Why a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Ended {
    /// upper − lower reached the resolution.
    Resolution,
    /// No load between the ends was worth a probe, nor any open probe another round: the
    /// loads left are as close to the limit as the longest horizon resolves.
    Horizon,
    /// `max_probes` loads were tried.
    Probes,
}

impl Ended {
    /// The reason as written in `thresholds.csv`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Ended::Resolution => "resolution",
            Ended::Horizon => "horizon",
            Ended::Probes => "max_probes",
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
    /// `[z_vn, z_drift]` of each run that ended inconclusive after judging its longest
    /// horizon, in replication order: what the pooled test pools.
    pub(crate) pool: Vec<[f64; 2]>,
    /// Rounds after which the pooled test was applied (the majority had not decided).
    pub(crate) pooled_looks: u32,
    /// The decision is the pooled test's, not the majority's.
    pub(crate) pooled: bool,
    /// Runs its rounds were planned with (`replications` per round started): more than
    /// [`Probe::runs`] when the first round stopped after its first part ([`first_part`]).
    pub(crate) planned: usize,
    /// The first round stopped after its first part, all of whose runs ended inconclusive,
    /// because the rest of the round was not expected to let the pooled test decide
    /// ([`Probe::first_part_futile`]).
    pub(crate) futile: bool,
}

impl Probe {
    /// A probe at `load` before its first round.
    fn at(load: f64) -> Self {
        Probe {
            load,
            decision: Decision::Undecided,
            counts: [0; 3],
            slots: 0,
            pool: Vec::new(),
            pooled_looks: 0,
            pooled: false,
            planned: 0,
            futile: false,
        }
    }

    /// The probe at `load` of one round made of `runs` (verdict and evidence each, in
    /// replication order), decided as a search decides a first round: its first part alone
    /// if that is unanimous or futile ([`first_part`]), else all its runs. How a calibration
    /// file measures the probe rule on groups of its replications.
    pub(crate) fn of_runs(load: f64, runs: &[(Verdict, &crate::sim::VerdictEvidence)]) -> Self {
        let mut p = Probe::at(load);
        p.planned = runs.len();
        let Ok(()) = p.first_round(runs.len(), |p, part| {
            for &(v, e) in &runs[part] {
                p.add(v, pooled_stats(v, e));
            }
            Ok::<(), std::convert::Infallible>(())
        });
        p
    }

    /// A first round of `n` runs as a search runs it, then the probe decided: `run(p, a..b)`
    /// adds the round's runs a … b − 1 to `p`. Its [`first_part`] runs first, and the rest
    /// only if those are not all stable or all unstable ([`Self::first_part_decides`]) and
    /// not futile ([`Self::first_part_futile`]).
    fn first_round<E>(
        &mut self,
        n: usize,
        mut run: impl FnMut(&mut Self, std::ops::Range<usize>) -> Result<(), E>,
    ) -> Result<(), E> {
        let k = first_part(n);
        run(self, 0..k)?;
        if self.first_part_futile(k, n) {
            self.futile = true;
        } else if !self.first_part_decides(k) {
            run(self, k..n)?;
        }
        self.decide();
        Ok(())
    }

    /// Adds a run's verdict and what it gives the pooled test.
    fn add(&mut self, v: Verdict, stats: Option<[f64; 2]>) {
        self.counts[v as usize] += 1;
        self.pool.extend(stats);
    }

    /// Whether the first `k` runs of a first round, just run, were all stable or all unstable:
    /// a majority of the whole round then, whatever its other runs would show.
    fn first_part_decides(&self, k: usize) -> bool {
        self.runs() == k && (self.counts[0] == k || self.counts[1] == k)
    }

    /// Whether the first `k` runs of a first round of `n`, just run, leave the rest of the
    /// round nothing to do: `k` < `n`, every one of them ended inconclusive after judging the
    /// longest horizon (so no majority of the round can form), and the chance that the pooled
    /// test on the whole round decides ([`chance_to_decide`], the rest inconclusive too) is
    /// below [`HOPELESS`]. The pooled test is then applied to the first part alone, and
    /// cannot decide it: the rule fires only with the first runs' means beyond the round's
    /// bounds, which are looser than the first part's. The probe stays undecided. No call is
    /// made that the whole round would not have made, so no error is added; what it gives up
    /// is the rare round whose last runs would have tipped the pooled test.
    fn first_part_futile(&self, k: usize, n: usize) -> bool {
        k < n
            && self.runs() == k
            && self.counts[2] == k
            && self.pool.len() == k
            && chance_to_decide(&self.pool, n) < HOPELESS
    }

    /// Runs of the probe.
    pub(crate) fn runs(&self) -> usize {
        self.counts.iter().sum()
    }

    /// Runs by outcome as the search reads them to choose its next step ([`open`],
    /// [`next_gap`]): [`Self::counts`] with the runs a futile first round did not run counted
    /// inconclusive, as it predicted them. A futile probe then weighs as its whole round of
    /// inconclusive runs would have; its decision and error use only the runs it ran.
    fn seen(&self) -> [usize; 3] {
        let mut c = self.counts;
        if self.futile {
            c[2] += self.planned.saturating_sub(self.runs());
        }
        c
    }

    /// Rounds of `n` runs the probe has run as the search reads them ([`Self::seen`]: a first
    /// round that stopped as futile counts whole).
    fn rounds_seen(&self, n: usize) -> usize {
        self.seen().iter().sum::<usize>() / n
    }

    /// The decision as written in outputs: `stable`, `unstable`, `undecided`, or
    /// `pooled-stable` / `pooled-unstable` when the pooled test made it.
    pub(crate) fn decided_as(&self) -> &'static str {
        match (self.pooled, self.decision) {
            (true, Decision::Stable) => "pooled-stable",
            (true, Decision::Unstable) => "pooled-unstable",
            (_, d) => d.as_str(),
        }
    }

    /// The bound on the chance that the probe's decision is wrong: the majority's
    /// ([`probe_error`] of the runs its rounds were planned with, which also bounds a first
    /// round decided by its unanimous first part) and [`POOLED_ERROR`] for each time the
    /// pooled test was applied (a union bound over its looks).
    pub(crate) fn error(&self) -> f64 {
        probe_error(self.planned.max(self.runs())) + POOLED_ERROR * f64::from(self.pooled_looks)
    }

    /// Decides the probe on its runs so far: the majority rule ([`decide`]); if it leaves the
    /// probe undecided, the pooled test on its inconclusive runs ([`pooled`]), when every
    /// inconclusive run was judged and no run went the other way.
    fn decide(&mut self) {
        self.decision = decide(self.counts);
        self.pooled = false;
        if self.decision != Decision::Undecided || self.counts[2] == 0 {
            return;
        }
        if self.pool.len() != self.counts[2] {
            // a run too short to judge: nothing to pool
            return;
        }
        self.pooled_looks += 1;
        let by_pool = match pooled(&self.pool) {
            Verdict::Stable if self.counts[1] == 0 => Decision::Stable,
            Verdict::Unstable if self.counts[0] == 0 => Decision::Unstable,
            _ => Decision::Undecided,
        };
        if by_pool != Decision::Undecided {
            self.decision = by_pool;
            self.pooled = true;
        }
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
    /// Every probe, in the order first tried.
    pub(crate) probes: Vec<Probe>,
    /// Why the search ended.
    pub(crate) ended: Ended,
}

impl ThresholdResult {
    /// The lowest and the highest load between the ends that a probe left undecided, if any:
    /// where the longest horizon could not tell the policy stable or not.
    pub(crate) fn undecided_span(&self) -> Option<(f64, f64)> {
        let loads = self
            .probes
            .iter()
            .filter(|p| {
                p.decision == Decision::Undecided && p.load > self.lower && p.load < self.upper
            })
            .map(|p| p.load);
        loads.fold(None, |span, x| match span {
            None => Some((x, x)),
            Some((a, b)) => Some((f64::min(a, x), f64::max(b, x))),
        })
    }

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
                "{load:.4} ({}{}/{}/{} stable/unstable/inconclusive runs; wrong with probability \
                 ≤ {:.1e})",
                if p.pooled {
                    format!("{}: ", p.decided_as())
                } else {
                    String::new()
                },
                p.counts[0],
                p.counts[1],
                p.counts[2],
                p.error()
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
    (n / 2 + 1..=n).map(|k| binomial(n, k, RUN_ERROR)).sum()
}

/// The runs of a first round of `n` run before the rest: a strict majority of the round,
/// ⌊n/2⌋ + 1, if that is at least [`MIN_FIRST_PART`] runs (else the whole round, `n`). When
/// they are all stable (or all unstable) they are a majority of the round whatever its other
/// runs would show, and the probe is decided without them.
pub(crate) fn first_part(n: usize) -> usize {
    let k = n / 2 + 1;
    if k >= MIN_FIRST_PART { k } else { n }
}

/// The fewest runs a first part may have. A first part decides without the check that no
/// other run of the round went the other way, a check that guards against what the per-run
/// error rate does not model (a metastable policy whose runs lock in at random times, say).
/// With rounds of 3, two agreeing runs decided 8 of the 355 limits of the committed region
/// maps differently, four of them on VQS-BF's metastable rays of the Fig. 3(b) map, where
/// the third run had kept them undecided; with rounds of 5 three agreeing runs decided every
/// probe of every committed search as the whole round did.
const MIN_FIRST_PART: usize = 3;

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

/// How far runs with `counts` = [stable, unstable, inconclusive] are from a majority toward
/// `side` (0: stable, 1: unstable): 2·S − N with S the runs on that side, positive when they
/// have one; none if a run went the other way.
fn margin(counts: [usize; 3], side: usize) -> Option<i64> {
    let total: usize = counts.iter().sum();
    (counts[1 - side] == 0).then(|| 2 * counts[side] as i64 - total as i64)
}

/// Whether runs with `counts` could be decided toward `side` by `more` further runs if every
/// one of them were on that side (the best case): no contrary run and a strict majority,
/// 2(S + `more`) > N + `more`, that is [`margin`] + `more` positive.
fn within_reach(counts: [usize; 3], side: usize, more: usize) -> bool {
    margin(counts, side).is_some_and(|m| m + more as i64 > 0)
}

/// Whether runs with `counts` could still be decided by `rounds_left` more rounds of `n` runs,
/// either way ([`within_reach`] is easiest with every round left).
fn decidable(counts: [usize; 3], n: usize, rounds_left: usize) -> bool {
    (0..2).any(|side| within_reach(counts, side, n * rounds_left))
}

/// Whether an undecided probe with `counts` leans toward `side` (0: stable, 1: unstable): one
/// more round of `n` runs, all on that side, would have decided it.
fn leans(counts: [usize; 3], n: usize, side: usize) -> bool {
    within_reach(counts, side, n)
}

/// The chance below which more rounds are bound not to decide a probe (see [`hopeless`]).
const HOPELESS: f64 = 0.05;

/// Whether more rounds are bound not to decide a probe whose runs so far, `counts`, were all
/// inconclusive, with `rounds_left` rounds of `n` runs left: with m = N inconclusive runs, a
/// run decides at all with probability at most d = 1 − 0.05^(1/m) (the one-sided 95 % upper
/// confidence bound), and the remaining rounds decide the probe with probability at most
/// Σₖ P(Bin(n·k, d) > (m + n·k)/2) over k = 1 … `rounds_left` (a majority of all its runs
/// must agree), which must be below [`HOPELESS`]. With rounds of 5, after one round: 8 of the
/// next 10 runs must agree, with probability below 3 %.
fn hopeless(counts: [usize; 3], n: usize, rounds_left: usize) -> bool {
    let m = counts[2];
    if m == 0 || counts[0] + counts[1] > 0 {
        return false;
    }
    let d = 1.0 - 0.05f64.powf(1.0 / m as f64);
    let chance: f64 = (1..=rounds_left)
        .map(|k| {
            let more = n * k;
            let need = (m + more) / 2 + 1;
            (need..=more).map(|j| binomial(more, j, d)).sum::<f64>()
        })
        .sum();
    chance < HOPELESS
}

/// What a run gives the pooled test: its `[z_vn, z_drift]` if it ended inconclusive after
/// judging its horizon (not capped, not too short).
fn pooled_stats(v: Verdict, e: &crate::sim::VerdictEvidence) -> Option<[f64; 2]> {
    (v == Verdict::Inconclusive && e.judged()).then_some([e.z_vn, e.z_drift])
}

/// P(Bin(n, p) = k).
fn binomial(n: usize, k: usize, p: f64) -> f64 {
    let c: f64 = (0..k).map(|i| (n - i) as f64 / (i + 1) as f64).product();
    c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
}

/// Whose limit a search finds, as its messages name it and its runs are seeded: the policy,
/// the experiment's name (with a region map's direction), the policy's label, the seed its runs'
/// seeds derive from, and the replications of a round.
pub(crate) struct Searched<'a> {
    /// The policy (index into the experiment's).
    pub(crate) policy: usize,
    /// The experiment's name, for progress lines.
    pub(crate) name: std::borrow::Cow<'a, str>,
    /// The policy's label.
    pub(crate) label: &'a str,
    /// The seed the probes' run seeds derive from.
    pub(crate) seed: u64,
    /// Runs per round.
    pub(crate) replications: u32,
    /// Where its finished runs are journaled, and recalled from when it resumes.
    pub(crate) steps: &'a Steps<'a>,
    /// What the search's loads are fractions of, for progress lines (`"ρ*"`, "the ray's
    /// capacity"); `None` where the loads are the quantity the user wrote.
    pub(crate) fraction_of: Option<&'static str>,
}

impl<'a> Searched<'a> {
    /// The search of `policy` over the experiment's own loads.
    pub(crate) fn of(exp: &'a Experiment, policy: usize, steps: &'a Steps<'a>) -> Self {
        Searched {
            policy,
            name: std::borrow::Cow::Borrowed(&exp.header.name),
            label: &exp.labels[policy],
            seed: exp.header.seed,
            replications: exp.run.replications,
            steps,
            fraction_of: None,
        }
    }
}

/// The system a probe at load x runs with run seed `seed`: its [`Scenario`] (whose size law may
/// depend on x, as on a region map with held types).
pub(crate) type ProbeAt<'a> = dyn Fn(f64, u64) -> Result<Scenario<'a>, ExperimentError> + Sync + 'a;

/// Runs round `round` of the probe at `load` (the file's replications, in parallel): the runs'
/// verdicts added to `p`, and the probe decided on all its runs. A first round runs its
/// [`first_part`] first, and stops there if those runs are all stable or all unstable.
/// `who` seeds its runs; `at` gives the scenario at the load.
fn run_round(
    who: &Searched<'_>,
    p: &mut Probe,
    round: u32,
    at: &ProbeAt<'_>,
) -> Result<(), ExperimentError> {
    let n = who.replications;
    p.planned += n as usize;
    // the round's runs a … b − 1, replications round · n + a onwards
    let run = |p: &mut Probe, part: std::ops::Range<usize>| {
        let reps = round * n + part.start as u32..round * n + part.end as u32;
        run_reps(who, p, round, reps, at)
    };
    if round == 0 {
        return p.first_round(n as usize, run);
    }
    run(p, 0..n as usize)?;
    p.decide();
    Ok(())
}

/// Runs replications `reps` of round `round` of the probe at `p.load` in parallel and adds
/// their verdicts, slots and pooled statistics to `p` (in replication order).
fn run_reps(
    who: &Searched<'_>,
    p: &mut Probe,
    round: u32,
    reps: std::ops::Range<u32>,
    at: &ProbeAt<'_>,
) -> Result<(), ExperimentError> {
    let load = p.load;
    let n = who.replications;
    // this round's part of the search's progress, shared by its runs on every thread
    let span = crate::progress::current();
    type Judged = (Verdict, u64, Option<[f64; 2]>);
    let runs: Result<Vec<Judged>, ExperimentError> = reps
        .into_par_iter()
        .map(|rep| {
            let seed = derive_seed(who.seed, &[0x7468_7265, load.to_bits(), rep as u64]);
            let part = span
                .as_ref()
                .map(|s| s.part(u64::from(rep - round * n), u64::from(n)));
            // a run journaled by an interrupted search is recalled, not run again
            who.steps.step(&(load.to_bits(), rep), || {
                crate::progress::within(part, || {
                    let mut scenario = at(load, seed)?;
                    look_earlier(&mut scenario.config);
                    super::simulate::run_scenario(&scenario)
                        .map(|r| (r.verdict, r.slots, pooled_stats(r.verdict, &r.evidence)))
                })
            })
        })
        .collect();
    for (v, s, stats) in runs? {
        p.add(v, stats);
        p.slots += s;
    }
    Ok(())
}

/// Looks of the horizon chain the single-run verdict's error rates were measured on: `slots`
/// and four doublings, up to the default `max_slots` of 16 × `slots`.
const CALIBRATED_LOOKS: u32 = DEFAULT_EXTENSION.ilog2() + 1;

/// A probe's run takes its first look at half the horizon after warm-up that `run.slots`
/// gives, when its chain of looks up to `run.max_slots` is shorter than the calibrated one
/// ([`CALIBRATED_LOOKS`]): one look more, at the front. The later looks are those of the chain
/// from `run.slots`, on the same random streams (exactly when the horizon after warm-up is a
/// multiple of 2 × [`BATCHES`] slots; otherwise each ends less than one of its batches away).
/// A run decided at the new look (far from a limit, most of them) costs about half as much;
/// one still inconclusive goes on as before. Nothing changes where that half would be shorter
/// than [`BATCHES`] slots or its horizon shorter than the verdict judges
/// ([`MIN_HORIZON_SERVICES`] mean service times). Its error rates, measured as a chain of their
/// own, are in `proofs/verdict_calibration.md` ("A limit search's first look").
fn look_earlier(c: &mut RunConfig) {
    if c.looks() >= CALIBRATED_LOOKS {
        return;
    }
    let half = c.slots.saturating_sub(c.warmup) / 2;
    let first = c.warmup + half;
    if half < BATCHES as u64 || (first as f64) < MIN_HORIZON_SERVICES * c.mean_service {
        return;
    }
    c.slots = first;
}

/// Whether an undecided probe `p` may run another round: rounds are left, and they could
/// decide it ([`decidable`]) and are not bound not to ([`hopeless`]).
fn open(p: &Probe, n: usize, rounds: u32) -> bool {
    let seen = p.seen();
    let left = (rounds as usize).saturating_sub(p.rounds_seen(n));
    p.decision == Decision::Undecided
        && left > 0
        && decidable(seen, n, left)
        && !hopeless(seen, n, left)
}

/// How close runs with `counts` are to a decision: the larger [`margin`] of the two sides
/// (2·S − N if no run was unstable, 2·U − N if none was stable); a probe is decided when it is
/// positive.
fn closeness(counts: [usize; 3]) -> i64 {
    (0..2)
        .filter_map(|side| margin(counts, side))
        .max()
        .unwrap_or(i64::MIN)
}

/// The gap whose midpoint the next probe tries: the widest (ties: the lowest) of the gaps
/// between consecutive known loads whose probe could move an end, if one is wider than
/// `target` / 4. `undecided` holds the undecided loads between the ends, ascending, with their
/// runs' counts and whether the probe is open (may run more rounds).
///
/// A gap can move the lower end if its lower load is `lower` or leans stable, the upper end
/// if its upper load is `upper` or leans unstable ([`leans`], rounds of `n`). Next to an open
/// probe, whose lean is provisional, a gap is tried only if it touches an end, or if its
/// midpoint, decided on a side it can move, would end the search (within `target` of the
/// other end).
///
/// A gap between an end and the undecided probe beside it is passed over when the longest
/// horizon failed on both its sides (`strained`: the end's own probe had an inconclusive run;
/// and most runs of the probe beside it were inconclusive) and the end moved all the way to
/// that probe would still leave the interval wider than `target` (see the module doc).
fn next_gap(
    lower: f64,
    upper: f64,
    undecided: &[(f64, [usize; 3], bool)],
    n: usize,
    target: f64,
    strained: (bool, bool),
) -> Option<(f64, f64)> {
    // each known load with whether it leans stable, unstable, is open, and whether most of its
    // runs were inconclusive
    let mut known = vec![(lower, true, false, false, false)];
    known.extend(undecided.iter().map(|&(x, c, open)| {
        let n_runs: usize = c.iter().sum();
        (x, leans(c, n, 0), leans(c, n, 1), open, 2 * c[2] > n_runs)
    }));
    known.push((upper, false, true, false, false));
    let last = known.len() - 2;
    known
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0].1 || w[1].2)
        .filter(|&(k, w)| {
            let mid = (w[0].0 + w[1].0) / 2.0;
            let finishes = (w[0].1 && upper - mid <= target) || (w[1].2 && mid - lower <= target);
            !(w[0].3 || w[1].3) || k == 0 || k == last || finishes
        })
        // a gap next to an end that the horizon failed on both sides of, whose far side, shown
        // stable (or unstable), would still leave the interval wider than the target
        .filter(|&(k, w)| {
            let low = k == 0 && k != last && strained.0 && w[1].4 && upper - w[1].0 > target;
            let high = k == last && k != 0 && strained.1 && w[0].4 && w[0].0 - lower > target;
            !(low || high)
        })
        .map(|(_, w)| (w[0].0, w[1].0))
        .fold(None, |best: Option<(f64, f64)>, g| match best {
            Some(b) if g.1 - g.0 <= b.1 - b.0 => Some(b),
            _ => Some(g),
        })
        .filter(|g| g.1 - g.0 > target / 4.0)
}

/// Whether the probes that showed the ends `lower` and `upper` had an inconclusive run (an end
/// of theory has no probe, and is not strained).
fn strained_ends(probes: &[Probe], lower: f64, upper: f64) -> (bool, bool) {
    let strained = |x: f64, d: Decision| {
        probes
            .iter()
            .any(|p| p.load == x && p.decision == d && p.counts[2] > 0)
    };
    (
        strained(lower, Decision::Stable),
        strained(upper, Decision::Unstable),
    )
}

/// The load of the last probe under ρ*'s upper end `upper` (no probe has shown instability,
/// `upper_shown` false) once one decided probe can end the search (`upper` − `lower` at most
/// twice `target`), when the probe that showed `lower` stable had an inconclusive run
/// (`lower_strained`): the lowest load that ends the search if shown stable, on the search's
/// lattice of `upper` / 2^k loads no coarser than `target` / 4 (so loads stay those a
/// bisection tries). None otherwise: the midpoint then.
///
/// A policy may be stable right up to ρ*, and the closer a load is to its limit, the longer a
/// run must be to decide it. A lower end whose runs were not all decided within the longest
/// horizon says that horizon barely resolves loads that close: the midpoint, closer still, is
/// likely undecided, and the lowest load that ends the search is the farthest such load from
/// ρ*. A lower end decided by every run says the midpoint is likely decided too, and it gives
/// the narrower interval.
fn below_theory(
    (lower, upper, upper_shown): (f64, f64, bool),
    lower_strained: bool,
    target: f64,
) -> Option<f64> {
    if upper_shown || !lower_strained || upper - lower > 2.0 * target {
        return None;
    }
    let mut step = upper;
    while step > target / 4.0 {
        step /= 2.0;
    }
    let x = upper - (target / step).floor() * step;
    (x > lower).then_some(x)
}

/// What the search does next: a new probe at a load, or another round of the probe at an
/// index.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    New(f64),
    Again(usize),
}

/// The search's next step (see the module doc): the midpoint of the gap [`next_gap`] picks
/// while probes are left; otherwise another round of the open probe between the ends that is
/// closest to a decision ([`closeness`]; ties: the lowest load); otherwise none.
fn next_step(
    probes: &[Probe],
    (lower, upper, upper_shown): (f64, f64, bool),
    search: &SearchSpec,
    n: usize,
    target: f64,
) -> Option<Step> {
    let mut undecided: Vec<usize> = (0..probes.len())
        .filter(|&i| {
            let p = &probes[i];
            p.decision == Decision::Undecided && p.load > lower && p.load < upper
        })
        .collect();
    undecided.sort_by(|&a, &b| probes[a].load.total_cmp(&probes[b].load));
    if (probes.len() as u32) < search.max_probes {
        let strained = strained_ends(probes, lower, upper);
        if let Some(x) = below_theory((lower, upper, upper_shown), strained.0, target)
            && !probes.iter().any(|p| p.load == x)
        {
            return Some(Step::New(x));
        }
        let known: Vec<(f64, [usize; 3], bool)> = undecided
            .iter()
            .map(|&i| {
                let p = &probes[i];
                (p.load, p.seen(), open(p, n, search.rounds))
            })
            .collect();
        if let Some((a, b)) = next_gap(lower, upper, &known, n, target, strained) {
            return Some(Step::New((a + b) / 2.0));
        }
    }
    undecided
        .into_iter()
        .filter(|&i| open(&probes[i], n, search.rounds))
        .fold(None, |best: Option<usize>, i| match best {
            Some(b) if closeness(probes[i].seen()) <= closeness(probes[b].seen()) => Some(b),
            _ => Some(i),
        })
        .map(Step::Again)
}

/// The stability limit of `policy` as an interval in [0, `rho`.1] (see the module doc); `rho`
/// is reported with the result. A probe at load x runs the system `at(x)`.
pub(crate) fn limit_search(
    who: &Searched<'_>,
    search: SearchSpec,
    rho: (f64, f64),
    at: &ProbeAt<'_>,
) -> Result<ThresholdResult, ExperimentError> {
    let n = who.replications as usize;
    // rounds run so far; the search's progress is theirs out of those and the rounds the
    // bisection still needs (the search's own estimate, given before each round)
    let mut steps = 0u64;
    let ends = search_rounds(&search, n, rho, |i, p, round, left| {
        let part = crate::progress::current().map(|s| s.part(steps, steps + left));
        steps += 1;
        crate::progress::within(part, || run_round(who, p, round, at))?;
        crate::progress::note(|| {
            format!(
                "{}: limit of {}: probe {} at load {:.4}{}{} {} ({}/{}/{} stable/unstable/\
                 inconclusive runs, {:.2e} slots)",
                who.name,
                who.label,
                i + 1,
                p.load,
                who.fraction_of.map_or(String::new(), |of| format!(
                    " ({} of {of})",
                    fraction(p.load, rho)
                )),
                if round > 0 {
                    format!(", round {}", round + 1)
                } else {
                    String::new()
                },
                if open(p, n, search.rounds) {
                    "undecided so far"
                } else {
                    p.decided_as()
                },
                p.counts[0],
                p.counts[1],
                p.counts[2],
                p.slots as f64
            )
        });
        Ok(())
    })?;
    Ok(ThresholdResult {
        policy: who.policy,
        rho_star: rho,
        search,
        lower: ends.lower,
        upper: ends.upper,
        upper_shown: ends.upper_shown,
        probes: ends.probes,
        ended: ends.ended,
    })
}

/// Load `x` as a fraction of `rho` to three decimals: one number where the bracket's ends
/// give the same, else the range `x / rho.1`–`x / rho.0`.
fn fraction(x: f64, rho: (f64, f64)) -> String {
    let (a, b) = (format!("{:.3}", x / rho.1), format!("{:.3}", x / rho.0));
    if a == b { a } else { format!("{a}–{b}") }
}

/// Where a search ended: its ends and every probe, in the order first tried.
struct Ends {
    lower: f64,
    upper: f64,
    upper_shown: bool,
    probes: Vec<Probe>,
    ended: Ended,
}

/// The search of the module doc over [0, `rho`.1] with rounds of `n` runs, apart from how a
/// round runs: `round(i, p, r, left)` runs round r of probe i, adding its runs to `p` and
/// deciding it; `left` is the rounds the search expects to run from this one on, for its
/// progress: twice the halvings of the interval still needed to reach the resolution (the
/// shipped searches ran 1 to 3 rounds per halving, undecided probes near the limit and their
/// later rounds included) and one more round of each open probe.
fn search_rounds(
    search: &SearchSpec,
    n: usize,
    rho: (f64, f64),
    mut round: impl FnMut(usize, &mut Probe, u32, u64) -> Result<(), ExperimentError>,
) -> Result<Ends, ExperimentError> {
    let (mut lower, mut upper) = (0.0, rho.1);
    let mut upper_shown = false;
    let mut probes: Vec<Probe> = Vec::new();
    let target = search.resolution * rho.1;
    while upper - lower > target {
        let Some(step) = next_step(&probes, (lower, upper, upper_shown), search, n, target) else {
            break;
        };
        let i = match step {
            Step::New(load) => {
                probes.push(Probe::at(load));
                probes.len() - 1
            }
            Step::Again(i) => i,
        };
        let r = probes[i].rounds_seen(n) as u32;
        let halvings = ((upper - lower) / target).log2().ceil().max(1.0) as u64;
        let open_rounds = probes.iter().filter(|p| open(p, n, search.rounds)).count() as u64;
        let left = (2 * halvings + open_rounds).min(u64::from(search.max_probes) * 3);
        round(i, &mut probes[i], r, left)?;
        let p = &probes[i];
        match p.decision {
            Decision::Stable => lower = p.load,
            Decision::Unstable => {
                upper = p.load;
                upper_shown = true;
            }
            Decision::Undecided => {}
        }
    }
    let ended = if upper - lower <= target {
        Ended::Resolution
    } else {
        // would a search without the limit on probes have gone on?
        let unlimited = SearchSpec {
            max_probes: u32::MAX,
            ..*search
        };
        match next_step(&probes, (lower, upper, upper_shown), &unlimited, n, target) {
            Some(_) => Ended::Probes,
            None => Ended::Horizon,
        }
    };
    Ok(Ends {
        lower,
        upper,
        upper_shown,
        probes,
        ended,
    })
}

/// The stability limit of `policy` relative to the experiment's ρ* (see [`limit_search`]).
pub(crate) fn threshold_search(
    exp: &Experiment,
    policy: usize,
    search: SearchSpec,
    steps: &Steps<'_>,
) -> Result<ThresholdResult, ExperimentError> {
    let rho = exp.rho_star.expect("computed for threshold claims");
    let rate = exp.rate_per_load();
    limit_search(
        &Searched {
            fraction_of: Some("ρ*"),
            ..Searched::of(exp, policy, steps)
        },
        search,
        rho,
        &|x, seed| Scenario::sampled(exp, policy, x * rate, seed, (0, false)),
    )
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

    /// A first round of 4 or more runs is decided by its first ⌊n/2⌋ + 1 alone when they all
    /// agree, with the whole round's bound; otherwise by all its runs, as before.
    #[test]
    fn a_first_round_stops_after_a_unanimous_majority() {
        use Verdict::{Inconclusive as I, Stable as S, Unstable as U};
        let ev = crate::sim::VerdictEvidence {
            horizon: 3_600_000,
            batch_len: 112_500,
            level: 5.0,
            slope: 0.0,
            z_vn: 5.0,
            z_rise: 0.0,
            z_drift: 0.5,
            extensions: 3,
            capped: false,
            short: false,
        };
        let probe = |vs: &[Verdict]| {
            let runs: Vec<_> = vs.iter().map(|&v| (v, &ev)).collect();
            Probe::of_runs(0.9, &runs)
        };
        assert_eq!(first_part(5), 3);
        assert_eq!(first_part(4), 3);
        // a first part of two is too few: rounds of 3 run whole
        assert_eq!(first_part(3), 3);
        assert_eq!(first_part(2), 2);
        // three stable runs of five are a majority whatever the other two show: they are
        // not run, and the bound is the five-run rule's
        let p = probe(&[S, S, S, U, I]);
        assert_eq!(
            (p.decision, p.counts, p.planned),
            (Decision::Stable, [3, 0, 0], 5)
        );
        assert!((p.error() - probe_error(5)).abs() < 1e-15);
        let p = probe(&[U, U, U, S, S]);
        assert_eq!((p.decision, p.counts), (Decision::Unstable, [0, 3, 0]));
        // a first part that is not unanimous: the whole round, decided as before
        let p = probe(&[S, S, U, S, S]);
        assert_eq!((p.decision, p.counts), (Decision::Undecided, [4, 1, 0]));
        let p = probe(&[S, I, S, S, I]);
        assert_eq!((p.decision, p.counts), (Decision::Stable, [3, 0, 2]));
        // two stable of the first three is a majority of three, not of the round
        let p = probe(&[S, S, I, I, I]);
        assert_eq!((p.runs(), p.decided_as()), (5, "undecided"));
    }

    /// A first part of inconclusive runs stops its round only when the pooled test on the whole
    /// round is not expected to decide: never when its statistics lean either way, never with
    /// a run too short to judge, and the probe stays undecided on what it ran; the search then
    /// reads it as its whole round of inconclusive runs, closed.
    #[test]
    fn a_first_part_of_inconclusive_runs_stops_only_when_the_rest_cannot_tip_the_pool() {
        use Verdict::{Inconclusive as I, Stable as S};
        let ev = |z_vn: f64, z_drift: f64| crate::sim::VerdictEvidence {
            horizon: 3_600_000,
            batch_len: 112_500,
            level: 5.0,
            slope: 0.0,
            z_vn,
            z_rise: 0.0,
            z_drift,
            extensions: 3,
            capped: false,
            short: false,
        };
        let probe = |runs: &[(Verdict, crate::sim::VerdictEvidence)]| {
            let runs: Vec<_> = runs.iter().map(|(v, e)| (*v, e)).collect();
            Probe::of_runs(0.9, &runs)
        };
        // three runs as a critical queue's typically end (z_vn about 5, drift about 0.7)
        let critical = [(I, ev(5.0, 0.5)), (I, ev(4.9, 0.6)), (I, ev(5.2, 0.3))];
        let rest = [(S, ev(1.0, 0.0)), (S, ev(1.0, 0.0))];
        let p = probe(&[&critical[..], &rest].concat());
        assert!(p.futile);
        assert_eq!(
            (p.decision, p.counts, p.planned, p.pooled_looks),
            (Decision::Undecided, [0, 0, 3], 5, 1)
        );
        // read as five inconclusive runs: closed, as a round of five of them is
        assert_eq!(p.seen(), [0, 0, 5]);
        assert!(!open(&p, 5, 3));
        assert!(open(
            &Probe {
                futile: false,
                ..p.clone()
            },
            5,
            3
        ));
        // the chance is below the cut, and grows as the first part leans stable
        let pool = |runs: &[(Verdict, crate::sim::VerdictEvidence)]| -> Vec<[f64; 2]> {
            runs.iter().map(|(_, e)| [e.z_vn, e.z_drift]).collect()
        };
        let c = chance_to_decide(&pool(&critical), 5);
        assert!(c < HOPELESS && c > 0.0, "{c}");
        // a first part leaning stable (the VQS probe at 0.848 of thresholds_uniform_small
        // began so: mean z_vn 3.67; pooled-stable on all five) runs the rest
        let leaning = [
            (I, ev(4.27, -0.26)),
            (I, ev(3.46, -0.05)),
            (I, ev(3.29, 0.16)),
        ];
        assert!(chance_to_decide(&pool(&leaning), 5) > 0.5);
        let p = probe(&[&leaning[..], &[(I, ev(3.39, 0.12)), (I, ev(3.85, 0.24))]].concat());
        assert_eq!(
            (p.futile, p.runs(), p.decided_as()),
            (false, 5, "pooled-stable")
        );
        // leaning unstable likewise
        let drifting = [(I, ev(5.6, 1.4)), (I, ev(5.5, 1.2)), (I, ev(5.7, 1.3))];
        assert!(!probe(&[&drifting[..], &rest].concat()).futile);
        // a run too short to judge gives the pool nothing: the round runs whole
        let mut short = critical;
        short[1].1.short = true;
        assert_eq!(probe(&[&short[..], &rest].concat()).runs(), 5);
        // a round with no runs after its first part (rounds of 3) has nothing to stop
        assert_eq!(probe(&critical).runs(), 3);
        assert!(!probe(&critical).futile);
    }

    /// The pooled test decides only what the majority left undecided, only with every
    /// inconclusive run judged and no run the other way, and each look adds its error.
    #[test]
    fn the_pooled_test_decides_what_the_majority_leaves() {
        let leaning = vec![[3.2, 0.2], [3.6, 0.5], [3.9, -0.3]];
        let mut p = Probe {
            counts: [2, 0, 3],
            pool: leaning.clone(),
            ..Probe::at(0.96)
        };
        p.decide();
        assert_eq!(
            (p.decision, p.decided_as()),
            (Decision::Stable, "pooled-stable")
        );
        assert_eq!(p.pooled_looks, 1);
        assert!((p.error() - probe_error(5) - POOLED_ERROR).abs() < 1e-15);
        // an unstable run among them: no pooled "stable"
        let mut q = Probe {
            counts: [1, 1, 3],
            pool: leaning.clone(),
            ..Probe::at(0.96)
        };
        q.decide();
        assert_eq!(q.decided_as(), "undecided");
        // an inconclusive run too short to judge: nothing is pooled, nothing is looked at
        let mut r = Probe {
            counts: [2, 0, 3],
            pool: leaning[..2].to_vec(),
            ..Probe::at(0.96)
        };
        r.decide();
        assert_eq!((r.decision, r.pooled_looks), (Decision::Undecided, 0));
        // a majority decides as before, without a pooled look
        let mut m = Probe {
            counts: [3, 0, 2],
            pool: vec![[5.5, 2.9], [5.6, 2.8]],
            ..Probe::at(0.96)
        };
        m.decide();
        assert_eq!((m.decided_as(), m.pooled_looks), ("stable", 0));
        // drift no run showed alone, with no stable run
        let mut d = Probe {
            counts: [0, 2, 3],
            pool: vec![[5.6, 2.1], [5.5, 1.9], [5.7, 2.6]],
            ..Probe::at(0.99)
        };
        d.decide();
        assert_eq!(d.decided_as(), "pooled-unstable");
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

    /// A probe whose runs were all inconclusive stops when its remaining rounds are bound
    /// not to decide it: with rounds of 5 after one round, 8 of 10 agreeing runs are needed,
    /// P(Bin(10, 0.451) ≥ 8) ≈ 0.028; with rounds of 3, 5 of 6, P(Bin(6, 0.632) ≥ 5) ≈ 0.29.
    #[test]
    fn a_probe_of_inconclusive_runs_stops_only_when_deciding_is_improbable() {
        assert!(hopeless([0, 0, 5], 5, 2));
        assert!(!hopeless([0, 0, 3], 3, 2));
        // a decided run is not the all-inconclusive case: the majority rule alone governs
        assert!(!hopeless([1, 0, 4], 5, 2));
        assert!(!hopeless([0, 1, 4], 5, 2));
        // the bound of the 5-run case, computed the long way
        let d = 1.0 - 0.05f64.powf(0.2);
        let tail: f64 = (8..=10).map(|j| binomial(10, j, d)).sum();
        assert!(tail < HOPELESS && tail > 0.02, "{tail}");
        // n = 3 at no stage: one round left after 6 inconclusive runs cannot decide anyway
        assert!(!decidable([0, 0, 6], 3, 1));
    }

    /// Ends whose probes had no inconclusive run.
    const FRESH: (bool, bool) = (false, false);

    /// A gap next to an end is passed over when the horizon failed on both its sides: the end's
    /// probe had an inconclusive run and most runs of the undecided probe beside it were
    /// inconclusive. VQS-BF on sizes Unif[0.1, 0.5], L = 10, as searched before the rule: lower
    /// 0.957031 shown stable 4/0/1, upper 0.984375 shown unstable 0/3/2, and between them
    /// 0.960938 (0/0/5), 0.968750 (2/1/7) and 0.976562 (0/2/3 after one round, open). The
    /// search went on with 0.958984 (1/1/3), 0.980469 (0/2/8) and 0.982422 (0/0/5), all
    /// undecided.
    #[test]
    fn a_gap_the_horizon_failed_on_both_sides_of_is_passed_over() {
        let target = 0.01;
        let und = [
            (0.960938, [0, 0, 5], false),
            (0.968750, [2, 1, 7], false),
            (0.976562, [0, 2, 3], true),
        ];
        // fresh ends: both end gaps are worth a probe, the upper one first (wider)
        assert_eq!(
            next_gap(0.957031, 0.984375, &und, 5, target, FRESH),
            Some((0.976562, 0.984375))
        );
        // a strained upper end: only the lower gap is left
        assert_eq!(
            next_gap(0.957031, 0.984375, &und, 5, target, (false, true)),
            Some((0.957031, 0.960938))
        );
        // both strained: none, and the search ends at the horizon
        assert_eq!(
            next_gap(0.957031, 0.984375, &und, 5, target, (true, true)),
            None
        );
        // unless the end moved to the probe beside it would end the search: VQS on sizes
        // Unif[0.1, 0.9], lower 0.804688 shown stable 3/0/2, 0.8125 undecided 0/0/5, upper
        // 0.816406 shown unstable 0/3/2; a probe at 0.806641 went on to be shown stable 4/0/1
        // and the interval 0.98 % wide
        let und = [(0.8125, [0, 0, 5], false)];
        assert_eq!(
            next_gap(0.804688, 0.816406, &und, 5, target, (true, true)),
            Some((0.804688, 0.8125))
        );
        // a strained end next to a probe whose runs mostly decided keeps its gap
        let und = [(0.962, [2, 1, 2], false), (0.968750, [2, 1, 7], false)];
        assert_eq!(
            next_gap(0.957031, 0.975, &und, 5, target, (true, true)),
            Some((0.957031, 0.962))
        );
        // with no undecided probe between them, strained ends are plain bisection
        assert_eq!(
            next_gap(0.95, 0.98, &[], 5, target, (true, true)),
            Some((0.95, 0.98))
        );
    }

    /// The next probe skips gaps between two undecided loads that lean neither way, and the
    /// search stops when every gap worth a probe is narrow.
    #[test]
    fn gaps_between_undecided_loads_that_lean_neither_way_are_passed_over() {
        let target = 0.01;
        // lower 0.957, undecided 0.9609 (0/0/5), 0.9688 (2/1/7), 0.9766 (0/2/8), upper 0.9844:
        // only the gaps at the two ends are worth a probe; the upper one is wider
        let und = [
            (0.9609, [0, 0, 5], false),
            (0.9688, [2, 1, 7], false),
            (0.9766, [0, 2, 8], false),
        ];
        assert_eq!(
            next_gap(0.957, 0.9844, &und, 5, target, FRESH),
            Some((0.9766, 0.9844))
        );
        // an undecided load one round from stable (7/0/8) makes the gap above it worth one
        let und = [(0.9609, [7, 0, 8], false), (0.9688, [0, 0, 10], false)];
        assert!(leans([7, 0, 8], 5, 0) && !leans([7, 0, 8], 5, 1));
        assert_eq!(
            next_gap(0.9590, 0.9727, &und, 5, target, FRESH),
            Some((0.9609, 0.9688))
        );
        // one round from unstable (0/6/9) likewise for the gap below it
        assert!(leans([0, 6, 9], 5, 1));
        let und = [(0.9883, [0, 0, 10], false), (0.9922, [0, 6, 9], false)];
        assert_eq!(
            next_gap(0.9863, 0.9941, &und, 5, target, FRESH),
            Some((0.9883, 0.9922))
        );
        // every gap worth a probe at most target / 4 wide: the search stops
        let und = [
            (0.9590, [1, 1, 3], false),
            (0.9805, [0, 2, 8], false),
            (0.9824, [0, 0, 5], false),
        ];
        assert_eq!(next_gap(0.957, 0.9844, &und, 5, target, FRESH), None);
        // with nothing undecided it is plain bisection
        assert_eq!(
            next_gap(0.5, 0.75, &[], 5, target, FRESH),
            Some((0.5, 0.75))
        );
    }

    /// Next to an open probe (rounds left), whose lean is provisional, a gap is tried only if
    /// it touches an end or its probe could end the search; inner gaps between closed probes
    /// follow the lean of their final counts.
    #[test]
    fn gaps_next_to_an_open_probe_are_tried_only_at_an_end_or_to_finish() {
        let target = 0.01;
        // undecided 0.9688 (2/0/3, leans stable) and 0.9766 (0/2/3) between 0.9622 and
        // 0.9840: closed, the inner gap is the widest and is tried
        let und = [(0.9688, [2, 0, 3], false), (0.9766, [0, 2, 3], false)];
        assert_eq!(
            next_gap(0.9622, 0.9840, &und, 5, target, FRESH),
            Some((0.9688, 0.9766))
        );
        // open, their leans are provisional and the inner gap's probe (0.9727) could not end
        // the search either way (more than 0.01 from each end): an end gap instead
        let und = [(0.9688, [2, 0, 3], true), (0.9766, [0, 2, 3], true)];
        assert_eq!(
            next_gap(0.9622, 0.9840, &und, 5, target, FRESH),
            Some((0.9766, 0.9840))
        );
        // an inner gap whose probe, shown stable, ends the search (upper by theory at 1,
        // 0.99 within 0.01 of it) is tried next to an open probe that leans stable
        let und = [
            (0.98828125, [2, 0, 3], true),
            (0.9921875, [1, 0, 4], true),
            (0.99609375, [0, 2, 3], true),
        ];
        assert_eq!(
            next_gap(0.986328125, 1.0, &und, 5, target, FRESH),
            Some((0.98828125, 0.9921875))
        );
        // but not when neither of its loads leans its way (a contrary run below)
        let und = [(0.98828125, [1, 1, 3], false), (0.9921875, [1, 0, 4], true)];
        assert_eq!(
            next_gap(0.986328125, 1.0, &und, 5, target, FRESH),
            Some((0.9921875, 1.0))
        );
    }

    fn probe(load: f64, counts: [usize; 3]) -> Probe {
        Probe {
            decision: decide(counts),
            counts,
            ..Probe::at(load)
        }
    }

    /// With no gap left worth a probe, the open probe closest to a decision runs its next
    /// round; closed probes and probes outside the ends never do.
    #[test]
    fn an_open_probe_runs_its_next_round_when_no_gap_is_left() {
        let search = SearchSpec {
            resolution: 0.01,
            rounds: 3,
            max_probes: 28,
        };
        let probes = [
            probe(0.9570, [4, 0, 1]),
            probe(0.9590, [1, 1, 3]),
            probe(0.9609, [0, 0, 5]),
            probe(0.9688, [1, 0, 4]),
            probe(0.9766, [0, 2, 3]),
            probe(0.9805, [0, 2, 3]),
            probe(0.9824, [0, 0, 5]),
            probe(0.9844, [0, 3, 2]),
        ];
        // 0.9766 and 0.9805 are equally close (2·2 − 5), 0.9688 less (2·1 − 5): the lowest
        assert_eq!(closeness([0, 2, 3]), -1);
        assert_eq!(closeness([1, 0, 4]), -3);
        assert_eq!(closeness([1, 1, 3]), i64::MIN);
        assert_eq!(
            next_step(&probes, (0.9570, 0.9844, true), &search, 5, 0.01),
            Some(Step::Again(4))
        );
        // probes out of rounds, or that cannot be decided, are closed: nothing left
        let mut closed = probes.clone();
        closed[3].counts = [2, 1, 7];
        closed[4].counts = [0, 2, 8];
        closed[5].counts = [0, 2, 8];
        assert_eq!(
            next_step(&closed, (0.9570, 0.9844, true), &search, 5, 0.01),
            None
        );
        // no open probe and a wide gap: a new probe at its midpoint
        let first = [probe(0.953125, [5, 0, 0])];
        assert_eq!(
            next_step(&first, (0.953125, 1.0, false), &search, 5, 0.01),
            Some(Step::New(0.9765625))
        );
    }

    /// Under ρ*'s upper end, once one probe can end the search and the lower end's probe had
    /// an inconclusive run, it goes to the lowest load that ends it if stable, a load of the
    /// bisection's lattice; not under a shown upper end, nor after a lower end every run
    /// decided, nor while the gap is wider, nor twice at one load.
    #[test]
    fn the_last_probe_under_rho_star_is_the_lowest_that_ends_the_search() {
        // lattice step 1/512 (at most 0.01 / 4): 1 − 5/512, the midpoint of 0.98828125 and
        // 0.9921875, within 0.01 of 1
        let at = |lower, upper, shown, strained, target| {
            below_theory((lower, upper, shown), strained, target)
        };
        assert_eq!(at(0.984375, 1.0, false, true, 0.01), Some(0.990234375));
        assert_eq!(at(0.984375, 1.0, true, true, 0.01), None);
        assert_eq!(at(0.984375, 1.0, false, false, 0.01), None);
        assert_eq!(at(0.96875, 1.0, false, true, 0.01), None);
        // a map's 2 % of a capacity of 5: step 5/256, 5 − 5 · 5/256
        assert_eq!(
            at(4.84375, 5.0, false, true, 0.1),
            Some(5.0 * 251.0 / 256.0)
        );
        // just above the lowest load that ends the search: none below it is left
        assert_eq!(at(0.9902, 1.0, false, true, 0.01), Some(0.990234375));
        assert_eq!(at(0.9903, 1.0, false, true, 0.01), None);
        let search = SearchSpec {
            resolution: 0.01,
            rounds: 3,
            max_probes: 28,
        };
        let ends = (0.984375, 1.0, false);
        let mut probes = vec![probe(0.984375, [4, 0, 1])];
        assert_eq!(
            next_step(&probes, ends, &search, 5, 0.01),
            Some(Step::New(0.990234375))
        );
        // a lower end every run decided: the midpoint
        let clean = [probe(0.984375, [5, 0, 0])];
        assert_eq!(
            next_step(&clean, ends, &search, 5, 0.01),
            Some(Step::New(0.9921875))
        );
        // tried and undecided: the gaps as usual, the widest first (its midpoint)
        probes.push(probe(0.990234375, [0, 0, 5]));
        assert_eq!(
            next_step(&probes, ends, &search, 5, 0.01),
            Some(Step::New(0.9951171875))
        );
    }

    /// The search against a synthetic system whose limit is known: runs at load x are
    /// inconclusive with probability e^(−|x − θ| / w), otherwise called on the right side of θ
    /// except with probability `err`. Over many systems, budgets and round sizes: every end is
    /// a decided probe (or theory's), no probe runs more rounds than allowed, a search stops
    /// short of its resolution only when its budget is spent or nothing is left to run, and
    /// without wrong calls the interval contains θ.
    #[test]
    fn the_search_keeps_its_invariants_on_synthetic_systems() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for case in 0..2000 {
            let theta: f64 = rng.random_range(0.05..0.995);
            let w: f64 = rng.random_range(0.0005..0.02);
            let err = if case % 2 == 0 { 0.0 } else { 0.05 };
            let n = rng.random_range(1..=5usize);
            let search = SearchSpec {
                resolution: [0.005, 0.01, 0.02][case % 3],
                rounds: rng.random_range(1..=3),
                max_probes: rng.random_range(4..=28),
            };
            let mut runs = rand_pcg::Pcg64::seed_from_u64(rng.random());
            let ends = search_rounds(&search, n, (1.0, 1.0), |_, p, _, _| {
                for _ in 0..n {
                    let v = if runs.random::<f64>() < (-(p.load - theta).abs() / w).exp() {
                        2
                    } else {
                        let stable = (p.load < theta) != (runs.random::<f64>() < err);
                        if stable { 0 } else { 1 }
                    };
                    p.counts[v] += 1;
                    p.slots += 1;
                }
                p.decision = decide(p.counts);
                Ok(())
            })
            .expect("the synthetic rounds never fail");
            let Ends {
                lower,
                upper,
                upper_shown,
                probes,
                ended,
            } = ends;
            let msg = format!("case {case}: θ {theta}, w {w}, n {n}, {search:?}");
            assert!(lower < upper, "{msg}");
            assert!(probes.len() <= search.max_probes as usize, "{msg}");
            for p in &probes {
                assert!(
                    p.runs() % n == 0 && p.runs() <= n * search.rounds as usize,
                    "{msg}"
                );
                assert_eq!(p.decision, decide(p.counts), "{msg}");
            }
            let shown = |x: f64, d: Decision| probes.iter().any(|p| p.load == x && p.decision == d);
            assert!(lower == 0.0 || shown(lower, Decision::Stable), "{msg}");
            assert_eq!(upper_shown, shown(upper, Decision::Unstable), "{msg}");
            assert!(upper_shown || upper == 1.0, "{msg}");
            // no decided probe inside the interval, and nothing left to run when it stopped
            // short of its resolution
            for p in probes.iter().filter(|p| p.load > lower && p.load < upper) {
                assert_eq!(p.decision, Decision::Undecided, "{msg}");
            }
            // why it ended: the resolution reached, or the probes spent (a search without
            // their limit would go on), or nothing left to run at all
            let unlimited = SearchSpec {
                max_probes: u32::MAX,
                ..search
            };
            let more = next_step(
                &probes,
                (lower, upper, upper_shown),
                &unlimited,
                n,
                search.resolution,
            );
            match ended {
                Ended::Resolution => assert!(upper - lower <= search.resolution, "{msg}"),
                Ended::Probes => assert!(
                    upper - lower > search.resolution
                        && probes.len() == search.max_probes as usize
                        && more.is_some(),
                    "{msg}"
                ),
                Ended::Horizon => {
                    assert!(upper - lower > search.resolution && more.is_none(), "{msg}")
                }
            }
            if upper - lower > search.resolution {
                assert_eq!(
                    next_step(
                        &probes,
                        (lower, upper, upper_shown),
                        &search,
                        n,
                        search.resolution
                    ),
                    None,
                    "{msg}"
                );
            }
            if err == 0.0 {
                assert!(lower <= theta && theta <= upper, "{msg}");
            }
        }
    }

    #[test]
    fn a_probe_run_looks_earlier_only_when_its_chain_is_short_of_the_calibrated_one() {
        let cfg = |slots, warmup, max_slots, mean_service| RunConfig {
            max_slots,
            ..RunConfig::new(slots, warmup, mean_service)
        };
        let after = |c: RunConfig| {
            let mut c2 = c;
            look_earlier(&mut c2);
            (c.looks(), c2.slots, c2.looks())
        };
        // the threshold files: 3.6·10⁶ slots after warm-up, doubled three times within 3.2·10⁷;
        // one look at 1.8·10⁶ before them, the others where they were
        let c = cfg(4_000_000, 400_000, 32_000_000, 100.0);
        assert_eq!(after(c), (4, 2_200_000, 5));
        // the calibrated chain (the default extension to 16 × slots) is left alone
        assert_eq!(
            after(cfg(1_000_000, 100_000, 16_000_000, 10.0)).1,
            1_000_000
        );
        // no extension at all: one look more, not four
        assert_eq!(
            after(cfg(1_000_000, 100_000, 1_000_000, 10.0)),
            (1, 550_000, 2)
        );
        // a first look shorter than the verdict judges (100 mean service times) is not taken
        assert_eq!(after(cfg(30_000, 1_000, 30_000, 200.0)).1, 30_000);
        // nor one of fewer slots than batches
        assert_eq!(after(cfg(60, 0, 60, 0.1)).1, 60);
    }

    /// A run the earlier look leaves inconclusive goes on to the looks it had before, on the
    /// same streams: its verdict, statistics and slots are those of the run without it.
    #[test]
    fn a_run_undecided_at_the_earlier_look_ends_as_before() {
        // M/Geo/3 at its critical load: 1.28·10⁵ slots after warm-up, four looks to 1.6·10⁶
        let text = "name = \"early\"\nseed = 3\n[cluster]\nservers = 3\n[workload]\n\
             sizes = { dist = \"discrete\", values = [1.0], probs = [1.0] }\n\
             service = { dist = \"geometric\", mean = 10.0 }\n\
             [run]\nslots = 148_000\nwarmup = 20_000\nmax_slots = 1_600_000\n\
             queue_cap = 1_000_000\n[sweep]\nload = [1.0]\n[[policy]]\nname = \"fifo-ff\"\n";
        let exp = Experiment::parse(std::path::Path::new("early.toml"), text).unwrap();
        let rate = exp.rate_per_load();
        let (mut went_on, mut early, mut inconclusive) = (0, 0, 0);
        for seed in 0..12 {
            let before = Scenario::sampled(&exp, 0, rate, seed, (0, false)).unwrap();
            let mut after = Scenario::sampled(&exp, 0, rate, seed, (0, false)).unwrap();
            look_earlier(&mut after.config);
            assert_eq!(after.config.slots, 84_000);
            let (b, a) = (
                super::super::simulate::run_scenario(&before).unwrap(),
                super::super::simulate::run_scenario(&after).unwrap(),
            );
            if a.evidence.extensions == 0 {
                // decided at the new look, after half the slots
                assert_ne!(a.verdict, Verdict::Inconclusive);
                early += 1;
                continue;
            }
            went_on += 1;
            assert_eq!(
                a.evidence.extensions,
                b.evidence.extensions + 1,
                "seed {seed}"
            );
            assert_eq!((a.verdict, a.slots), (b.verdict, b.slots), "seed {seed}");
            assert_eq!(a.evidence.z_vn.to_bits(), b.evidence.z_vn.to_bits());
            assert_eq!(a.evidence.z_drift.to_bits(), b.evidence.z_drift.to_bits());
            if a.verdict == Verdict::Inconclusive {
                // `RunConfig::looks` counts the slot loop's own chain: an undecided run took
                // every look it allows
                assert_eq!(
                    a.evidence.extensions + 1,
                    after.config.looks(),
                    "seed {seed}"
                );
                assert_eq!(
                    b.evidence.extensions + 1,
                    before.config.looks(),
                    "seed {seed}"
                );
                inconclusive += 1;
            }
        }
        assert!(inconclusive > 0, "no run took every look");
        // critical runs are rarely decided early: most go on and are compared
        assert!(went_on >= 8, "{went_on} went on, {early} decided early");
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
