//! One load a limit search tries: its probe, the runs it made there and what they showed (the
//! rules are those of [`super`]'s documentation: a majority of runs with no contrary one, a
//! first part of a first round that may stand for the round, the pooled test on runs that
//! ended inconclusive, the error bound a decision carries).

use crate::sim::pooled::{LOOK_ERROR, POOLED_ERROR, chance_to_decide, look_test, pooled};
use crate::sim::{Verdict, VerdictEvidence};

/// The per-run error rate assumed when a probe's confidence is stated (the calibration's
/// target: at most 5 % wrong calls within ±1–2 % of a limit, about 2 % measured at it).
pub const RUN_ERROR: f64 = 0.05;

/// What a probe showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Decision {
    /// Its runs showed the queue stable.
    Stable,
    /// Its runs showed the queue growing.
    Unstable,
    /// Its runs settled neither.
    Undecided,
}

impl Decision {
    /// The decision as written in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Stable => "stable",
            Decision::Unstable => "unstable",
            Decision::Undecided => "undecided",
        }
    }
}

/// One load tried by the search.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Probe {
    /// The load tried.
    pub load: f64,
    /// What its runs showed.
    pub decision: Decision,
    /// Runs judged stable, unstable, inconclusive (over all its rounds).
    pub counts: [usize; 3],
    /// Slots simulated by its runs.
    pub slots: u64,
    /// `[z_vn, z_drift]` of each run that ended inconclusive after judging its longest
    /// horizon, in replication order: what the pooled test pools.
    pub pool: Vec<[f64; 2]>,
    /// Rounds after which the pooled test was applied (the majority had not decided).
    pub pooled_looks: u32,
    /// The decision is the pooled test's, not the majority's.
    pub pooled: bool,
    /// Runs its rounds were planned with (`replications` per round started): more than
    /// [`Probe::runs`] when the first round stopped after its first part ([`first_part`]).
    pub planned: usize,
    /// Look tests applied to its rounds' runs at their looks before the longest horizon
    /// ([`look_decision`]).
    #[serde(default)]
    pub look_tests: u32,
    /// A look test decided the probe (and stopped its runs there).
    #[serde(default)]
    pub by_look: bool,
    /// The first round stopped after its first part, all of whose runs ended inconclusive,
    /// because the rest of the round was not expected to let the pooled test decide
    /// (the chance that the pooled test on the whole round decides was below 5 %).
    pub futile: bool,
    /// The mean utilisation of each run called unstable (a fraction of the cluster's
    /// capacity), where recorded.
    #[serde(default)]
    pub unstable_utilization: Vec<f64>,
}

impl Probe {
    /// A probe at `load` before its first round.
    pub(crate) fn at(load: f64) -> Self {
        Probe {
            load,
            decision: Decision::Undecided,
            counts: [0; 3],
            slots: 0,
            pool: Vec::new(),
            pooled_looks: 0,
            look_tests: 0,
            by_look: false,
            pooled: false,
            planned: 0,
            futile: false,
            unstable_utilization: Vec::new(),
        }
    }

    /// The probe at `load` of one round made of `runs` (verdict and evidence each, in
    /// replication order), decided as a search decides a first round: its first part alone
    /// if that is unanimous or futile ([`first_part`]), else all its runs. How a calibration
    /// file measures the probe rule on groups of its replications.
    pub fn of_runs(load: f64, runs: &[(Verdict, &VerdictEvidence)]) -> Self {
        let runs: Vec<super::Seen> = runs
            .iter()
            .map(|&(v, e)| super::Seen::of(v, 0, e))
            .collect();
        Self::of_seen(load, &runs)
    }

    /// [`Probe::of_runs`] of runs with their looks: each part of the round stopped at the first
    /// look whose look test decides the probe, as a search's runs looking together stop.
    pub fn of_seen(load: f64, runs: &[super::Seen]) -> Self {
        let mut p = Probe::at(load);
        p.planned = runs.len();
        let Ok(()) = p.first_round(runs.len(), |p, part| {
            p.request(&runs[part]);
            Ok::<(), std::convert::Infallible>(())
        });
        p
    }

    /// Adds the runs of one request, `runs`: the look tests replayed from their looks
    /// ([`look_replay`]), then the runs. If a look test decided the probe (and stopped the
    /// runs), its decision is the probe's; runs stopped because the probe had seen a stable
    /// and an unstable run leave it undecided, as any rule would.
    pub(crate) fn request(&mut self, runs: &[super::Seen]) {
        let (stop, tests) = look_replay([self.counts[0], self.counts[1]], runs);
        self.look_tests += tests;
        for s in runs {
            self.add(s.verdict, s.stats);
            self.slots += s.slots;
            if s.verdict == Verdict::Unstable
                && let Some(u) = s.utilization
            {
                self.unstable_utilization.push(u);
            }
        }
        if let Some(d) = stop.filter(|&d| d != Decision::Undecided) {
            self.decision = d;
            self.pooled = true;
            self.by_look = true;
        }
    }

    /// A first round of `n` runs as a search runs it, then the probe decided: `run(p, a..b)`
    /// adds the round's runs a … b − 1 to `p`. Its [`first_part`] runs first, and the rest
    /// only if those are not all stable or all unstable ([`Self::first_part_decides`]) and
    /// not futile ([`Self::first_part_futile`]).
    pub(crate) fn first_round<E>(
        &mut self,
        n: usize,
        mut run: impl FnMut(&mut Self, std::ops::Range<usize>) -> Result<(), E>,
    ) -> Result<(), E> {
        let k = first_part(n);
        run(self, 0..k)?;
        if self.by_look {
            return Ok(());
        }
        if self.first_part_futile(k, n) {
            self.futile = true;
        } else if !self.first_part_decides(k) {
            run(self, k..n)?;
        }
        self.decide();
        Ok(())
    }

    /// Adds a run's verdict and what it gives the pooled test.
    pub(crate) fn add(&mut self, v: Verdict, stats: Option<[f64; 2]>) {
        self.counts[v as usize] += 1;
        self.pool.extend(stats);
    }

    /// Whether the first `k` runs of a first round, just run, were all stable or all unstable:
    /// a majority of the whole round then, whatever its other runs would show.
    pub(crate) fn first_part_decides(&self, k: usize) -> bool {
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
    pub(crate) fn first_part_futile(&self, k: usize, n: usize) -> bool {
        k < n
            && self.runs() == k
            && self.counts[2] == k
            && self.pool.len() == k
            && chance_to_decide(&self.pool, n) < HOPELESS
    }

    /// Runs of the probe.
    pub fn runs(&self) -> usize {
        self.counts.iter().sum()
    }

    /// Runs by outcome as the search reads them to choose its next step ([`open`],
    /// [`next_gap`]): [`Self::counts`] with the runs a futile first round did not run counted
    /// inconclusive, as it predicted them. A futile probe then weighs as its whole round of
    /// inconclusive runs would have; its decision and error use only the runs it ran.
    pub(crate) fn seen(&self) -> [usize; 3] {
        let mut c = self.counts;
        if self.futile {
            c[2] += self.planned.saturating_sub(self.runs());
        }
        c
    }

    /// Rounds of `n` runs the probe has run as the search reads them ([`Self::seen`]: a first
    /// round that stopped as futile counts whole).
    pub(crate) fn rounds_seen(&self, n: usize) -> usize {
        self.seen().iter().sum::<usize>() / n
    }

    /// The decision as written in outputs: `stable`, `unstable`, `undecided`, or
    /// `pooled-stable` / `pooled-unstable` when the pooled test made it.
    pub fn decided_as(&self) -> &'static str {
        match (self.pooled, self.decision) {
            (true, Decision::Stable) => "pooled-stable",
            (true, Decision::Unstable) => "pooled-unstable",
            (_, d) => d.as_str(),
        }
    }

    /// The bound on the chance that the probe's decision is wrong: the majority's
    /// ([`probe_error`] of the runs its rounds were planned with, which also bounds a first
    /// round decided by its unanimous first part) and 1 % (the pooled test's stated error) for each time the
    /// pooled test was applied (a union bound over its looks).
    pub fn error(&self) -> f64 {
        probe_error(self.planned.max(self.runs()))
            + POOLED_ERROR * f64::from(self.pooled_looks)
            + LOOK_ERROR * f64::from(self.look_tests)
    }

    /// Decides the probe on its runs so far: the majority rule ([`decide`]); if it leaves the
    /// probe undecided, the pooled test on its inconclusive runs ([`pooled`]), when every
    /// inconclusive run was judged and no run went the other way.
    pub(crate) fn decide(&mut self) {
        if self.by_look {
            // a look test decided it and stopped its runs
            return;
        }
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
        let by_pool = uncontradicted(pooled(&self.pool), [self.counts[0], self.counts[1]]);
        if by_pool != Decision::Undecided {
            self.decision = by_pool;
            self.pooled = true;
        }
    }
}

/// The look test at one look before the longest horizon: with `counts` = [stable, unstable]
/// runs of the probe decided so far (its earlier rounds', and this round's that ended at this
/// look or before) and `pool` the `[z_vn, z_drift]` of this round's runs inconclusive at this
/// look, `Stable` if the pool's look test says stable and no run was unstable, `Unstable`
/// likewise, else `Undecided` (the runs go on).
pub fn look_decision(counts: [usize; 2], pool: &[[f64; 2]]) -> Decision {
    uncontradicted(look_test(pool), counts)
}

/// Whether a round's runs stop at a look before the longest horizon, with `counts` and `pool`
/// as in [`look_decision`]: `Some(Undecided)` if the probe has seen a stable and an unstable
/// run (no rule can decide it then, so what its runs would show is spent for nothing; no test
/// is applied), else `Some(d)` if the look test decides `d`, else `None` (the runs go on). The
/// second value says whether the look test was applied.
pub(crate) fn look_stop(counts: [usize; 2], pool: &[[f64; 2]]) -> (Option<Decision>, bool) {
    if counts[0] > 0 && counts[1] > 0 {
        return (Some(Decision::Undecided), false);
    }
    let d = look_decision(counts, pool);
    ((d != Decision::Undecided).then_some(d), true)
}

/// A pooled verdict as the probe's decision, given `counts` = [stable, unstable] runs: `Stable`
/// if no run was unstable, `Unstable` if none was stable, else (or inconclusive) `Undecided`.
fn uncontradicted(v: Verdict, counts: [usize; 2]) -> Decision {
    match v {
        Verdict::Stable if counts[1] == 0 => Decision::Stable,
        Verdict::Unstable if counts[0] == 0 => Decision::Unstable,
        _ => Decision::Undecided,
    }
}

/// Counts a decided run's verdict `v` in `counts` = [stable, unstable] (the verdicts' order);
/// an inconclusive one not.
pub(crate) fn count_decided(counts: &mut [usize; 2], v: Verdict) {
    if let Some(c) = counts.get_mut(v as usize) {
        *c += 1;
    }
}

/// The looks a request's `runs` went through, replayed from their records, with `prior` =
/// [stable, unstable] runs of the probe before the request: where they stopped, if they did
/// ([`look_stop`]: the look test's decision, or `Undecided` once a stable and an unstable run
/// were both seen), and how many look tests were applied. At look j the pool is the runs that
/// went past j or were stopped at it, and the counts add the runs that ended decided at j or
/// before; a look none went past nor stopped at is the longest horizon, left to the probe's
/// own rule ([`Probe::decide`]).
pub(crate) fn look_replay(prior: [usize; 2], runs: &[super::Seen]) -> (Option<Decision>, u32) {
    let mut tests = 0;
    for j in 0.. {
        let mut counts = prior;
        let (mut pool, mut at) = (Vec::new(), false);
        for r in runs {
            let last = r.looks.len();
            if last > j {
                at = true;
                pool.extend(r.looks[j]);
            } else if last == j && r.stopped {
                at = true;
                pool.extend(r.stats);
            } else {
                count_decided(&mut counts, r.verdict);
            }
        }
        if !at {
            break;
        }
        let (stop, tested) = look_stop(counts, &pool);
        tests += u32::from(tested);
        if stop.is_some() {
            return (stop, tests);
        }
    }
    (None, tests)
}

/// The probability that a probe of `n` runs is decided wrongly when each run is wrong with
/// probability [`RUN_ERROR`]: P(Bin(n, p) > n/2).
pub fn probe_error(n: usize) -> f64 {
    (n / 2 + 1..=n).map(|k| binomial(n, k, RUN_ERROR)).sum()
}

/// The runs of a first round of `n` run before the rest: a strict majority of the round,
/// ⌊n/2⌋ + 1, if that is at least three runs (else the whole round, `n`). When
/// they are all stable (or all unstable) they are a majority of the round whatever its other
/// runs would show, and the probe is decided without them.
pub fn first_part(n: usize) -> usize {
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
pub(crate) fn decide(counts: [usize; 3]) -> Decision {
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
pub(crate) fn margin(counts: [usize; 3], side: usize) -> Option<i64> {
    let total: usize = counts.iter().sum();
    (counts[1 - side] == 0).then(|| 2 * counts[side] as i64 - total as i64)
}

/// Whether runs with `counts` could be decided toward `side` by `more` further runs if every
/// one of them were on that side (the best case): no contrary run and a strict majority,
/// 2(S + `more`) > N + `more`, that is [`margin`] + `more` positive.
pub(crate) fn within_reach(counts: [usize; 3], side: usize, more: usize) -> bool {
    margin(counts, side).is_some_and(|m| m + more as i64 > 0)
}

/// Whether runs with `counts` could still be decided by `rounds_left` more rounds of `n` runs,
/// either way ([`within_reach`] is easiest with every round left).
pub(crate) fn decidable(counts: [usize; 3], n: usize, rounds_left: usize) -> bool {
    (0..2).any(|side| within_reach(counts, side, n * rounds_left))
}

/// Whether an undecided probe with `counts` leans toward `side` (0: stable, 1: unstable): one
/// more round of `n` runs, all on that side, would have decided it.
pub(crate) fn leans(counts: [usize; 3], n: usize, side: usize) -> bool {
    within_reach(counts, side, n)
}

/// The chance below which more rounds are bound not to decide a probe (see [`hopeless`]).
pub(crate) const HOPELESS: f64 = 0.05;

/// Whether more rounds are bound not to decide a probe whose runs so far, `counts`, were all
/// inconclusive, with `rounds_left` rounds of `n` runs left: with m = N inconclusive runs, a
/// run decides at all with probability at most d = 1 − 0.05^(1/m) (the one-sided 95 % upper
/// confidence bound), and the remaining rounds decide the probe with probability at most
/// Σₖ P(Bin(n·k, d) > (m + n·k)/2) over k = 1 … `rounds_left` (a majority of all its runs
/// must agree), which must be below [`HOPELESS`]. With rounds of 5, after one round: 8 of the
/// next 10 runs must agree, with probability below 3 %.
pub(crate) fn hopeless(counts: [usize; 3], n: usize, rounds_left: usize) -> bool {
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
pub fn pooled_stats(v: Verdict, e: &VerdictEvidence) -> Option<[f64; 2]> {
    (v == Verdict::Inconclusive && e.judged()).then_some([e.z_vn, e.z_drift])
}

/// P(Bin(n, p) = k).
pub(crate) fn binomial(n: usize, k: usize, p: f64) -> f64 {
    let c: f64 = (0..k).map(|i| (n - i) as f64 / (i + 1) as f64).product();
    c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
}

#[cfg(test)]
mod tests {
    use super::super::open;
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
        let ev = VerdictEvidence {
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
        let ev = |z_vn: f64, z_drift: f64| VerdictEvidence {
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
        let probe = |runs: &[(Verdict, VerdictEvidence)]| {
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
        let pool = |runs: &[(Verdict, VerdictEvidence)]| -> Vec<[f64; 2]> {
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

    /// A run that ends unstable in a round of a probe with stable runs ends the round at that
    /// look: no rule decides a probe with runs on both sides, so the others stop there, with no
    /// look test applied and the probe undecided.
    #[test]
    fn a_round_stops_once_its_probe_has_runs_on_both_sides() {
        let critical = Some([4.9, 0.7]);
        let going = |looks: usize| super::super::Seen {
            verdict: Verdict::Inconclusive,
            slots: 0,
            stats: critical,
            looks: vec![critical; looks],
            stopped: false,
            utilization: None,
        };
        let unstable_at = |look: usize| super::super::Seen {
            verdict: Verdict::Unstable,
            stats: None,
            ..going(look)
        };
        // a round after two stable runs: the unstable run at look 1 stops the others there
        let runs = [going(4), unstable_at(1), going(4)];
        assert_eq!(look_replay([2, 0], &runs), (Some(Decision::Undecided), 1));
        // with no stable run before, the same runs go on: the look tests at looks 0 … 3
        assert_eq!(look_replay([0, 0], &runs), (None, 4));
        // the probe records the stop as undecided, not as a look test's decision
        let mut p = Probe::at(0.9);
        (p.counts, p.planned) = ([2, 0, 3], 5);
        p.request(&runs);
        p.decide();
        assert_eq!(
            (p.decision, p.by_look, p.look_tests),
            (Decision::Undecided, false, 1)
        );
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
