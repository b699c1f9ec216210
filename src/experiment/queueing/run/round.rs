//! The runs of one request of a limit search, looking together: each run reports its
//! inconclusive looks here, and once every run of the request has reached a look (or ended
//! before it), [`look_stop`] decides whether they all stop at it: the look test on the runs
//! inconclusive there decided the probe, or the probe has seen a stable and an unstable run,
//! which no rule can decide. What is decided at a look depends only on the runs' statistics
//! and ends at it, never on which thread got there first, so a round stopped here is the round
//! that [`crate::stability::search::Search::record`] replays from its runs' looks.
//!
//! A run reaches this through its [`crate::sim::Look`] ([`on_look`]), which finds the round
//! of the thread it runs on; a run on a thread without one (a sweep's) always goes on.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex};

use super::cores::{CORES, Cores};
use crate::sim::{Verdict, VerdictEvidence};
use crate::stability::search::{Seen, count_decided, look_stop};

/// A request's runs at their looks.
pub(super) struct Round {
    state: Mutex<State>,
    turn: Condvar,
    /// The cores its runs simulate on: a run waiting at a look gives its own back meanwhile.
    cores: &'static Cores,
}

/// What the runs have shown so far.
struct State {
    /// [stable, unstable] runs of the probe before the request.
    prior: [usize; 2],
    /// At each look, each run's report: `Some(stats)` once it reached the look inconclusive
    /// and able to go on (`stats` `None` for a look too short to judge).
    reports: Vec<Vec<Option<Option<[f64; 2]>>>>,
    /// Each run's end, once it ended: its last look and its verdict.
    ended: Vec<Option<(usize, Verdict)>>,
    /// The next look to settle.
    next: usize,
    /// The look at which every run stops, once a look test decided.
    stop: Option<usize>,
}

impl State {
    /// Whether every run has reported look `j` or ended at or before it.
    fn complete(&self, j: usize) -> bool {
        (0..self.ended.len()).all(|r| {
            self.reports.get(j).is_some_and(|l| l[r].is_some())
                || self.ended[r].is_some_and(|(last, _)| last <= j)
        })
    }

    /// Settles every complete look in order: the look test on its reports, unless no run
    /// reported it.
    fn settle(&mut self) {
        while self.stop.is_none() && self.next < self.reports.len() && self.complete(self.next) {
            let j = self.next;
            let mut counts = self.prior;
            for (r, end) in self.ended.iter().enumerate() {
                if self.reports[j][r].is_none()
                    && let Some((_, v)) = end
                {
                    count_decided(&mut counts, *v);
                }
            }
            let pool: Vec<[f64; 2]> = self.reports[j]
                .iter()
                .flatten()
                .flatten()
                .copied()
                .collect();
            if self.reports[j].iter().any(Option::is_some) && look_stop(counts, &pool).0.is_some() {
                self.stop = Some(j);
            }
            self.next += 1;
        }
    }

    fn report(&mut self, run: usize, look: usize, stats: Option<[f64; 2]>) {
        let n = self.ended.len();
        while self.reports.len() <= look {
            self.reports.push(vec![None; n]);
        }
        self.reports[look][run] = Some(stats);
    }
}

impl Round {
    /// A round of `n` runs of a probe with `prior` = [stable, unstable] runs before it, of
    /// which those in `recalled` (index, what it showed) ran before (a resumed search's
    /// journal) and report their looks from their record.
    pub(super) fn new(n: usize, prior: [usize; 2], recalled: &[(usize, &Seen)]) -> Arc<Round> {
        let mut state = State {
            prior,
            reports: Vec::new(),
            ended: vec![None; n],
            next: 0,
            stop: None,
        };
        for &(r, seen) in recalled {
            for (j, stats) in seen.looks.iter().enumerate() {
                state.report(r, j, *stats);
            }
            let last = seen.looks.len();
            if seen.stopped {
                state.report(r, last, seen.stats);
            }
            state.ended[r] = Some((last, seen.verdict));
        }
        state.settle();
        Arc::new(Round {
            state: Mutex::new(state),
            turn: Condvar::new(),
            cores: &CORES,
        })
    }

    /// Run `run` reached `look` inconclusive, able to go on: reports it, waits until every run
    /// has reached that look or ended (its core meanwhile with the others), and says whether
    /// to go on.
    fn look(&self, run: usize, look: usize, stats: Option<[f64; 2]>) -> bool {
        let mut s = self.state.lock().expect("a round's state");
        s.report(run, look, stats);
        s.settle();
        self.turn.notify_all();
        if s.next > look || s.stop.is_some() {
            return s.stop != Some(look);
        }
        // the round's state is released before the core is waited for
        self.cores.aside(move || {
            while s.next <= look && s.stop.is_none() {
                s = self.turn.wait(s).expect("a round's state");
            }
            s.stop != Some(look)
        })
    }

    /// Run `run` ended at its look `last` with `verdict`.
    pub(super) fn ended(&self, run: usize, last: usize, verdict: Verdict) {
        let mut s = self.state.lock().expect("a round's state");
        s.ended[run] = Some((last, verdict));
        s.settle();
        self.turn.notify_all();
    }
}

thread_local! {
    /// The round of the run on this thread, and the run's index in it.
    static CURRENT: RefCell<Option<(Arc<Round>, usize)>> = const { RefCell::new(None) };
}

/// Runs `f` as run `run` of `round` (its looks go to the round).
pub(super) fn within<T>(round: &Arc<Round>, run: usize, f: impl FnOnce() -> T) -> T {
    CURRENT.with(|c| *c.borrow_mut() = Some((round.clone(), run)));
    let out = f();
    CURRENT.with(|c| *c.borrow_mut() = None);
    out
}

/// The [`crate::sim::Look`] of every queueing run: a run of a limit search's round reports its
/// look to the round and goes on unless the round stops there; any other run goes on.
pub(crate) fn on_look(look: u32, evidence: &VerdictEvidence) -> bool {
    let current = CURRENT.with(|c| c.borrow().clone());
    match current {
        Some((round, run)) => round.look(
            run,
            look as usize,
            evidence
                .judged()
                .then_some([evidence.z_vn, evidence.z_drift]),
        ),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stability::search::{Decision, Probe};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// A run as it would go without a look test: its statistics at each look it goes past and
    /// its end.
    fn natural(rng: &mut Pcg64Mcg) -> Seen {
        let looks = rng.random_range(0..5);
        let z = |rng: &mut Pcg64Mcg| [rng.random_range(2.5..6.0), rng.random_range(-0.5..2.5)];
        let verdict = match rng.random_range(0..3) {
            0 => Verdict::Stable,
            1 => Verdict::Unstable,
            _ => Verdict::Inconclusive,
        };
        Seen {
            verdict,
            slots: 0,
            stats: (verdict == Verdict::Inconclusive).then(|| z(rng)),
            looks: (0..looks).map(|_| Some(z(rng))).collect(),
            stopped: false,
            utilization: None,
        }
    }

    /// The round's runs reach their looks in a random order, as threads would; every run the
    /// round stops ends there. The runs as they end, and the look at which they stopped.
    fn play(prior: [usize; 2], runs: &[Seen], rng: &mut Pcg64Mcg) -> (Vec<Seen>, Option<usize>) {
        let round = Round::new(runs.len(), prior, &[]);
        let mut s = round.state.lock().unwrap();
        let mut at = vec![0usize; runs.len()];
        let mut out: Vec<Option<Seen>> = vec![None; runs.len()];
        while out.iter().any(Option::is_none) {
            let r = rng.random_range(0..runs.len());
            if out[r].is_some() {
                continue;
            }
            let j = at[r];
            if s.stop.is_some_and(|stop| stop < j) {
                unreachable!("a run went past the look that stopped it");
            }
            if s.stop == Some(j) {
                // told to stop at this look, which it reported
                let mut seen = runs[r].clone();
                seen.stats = seen.looks[j];
                seen.looks.truncate(j);
                (seen.verdict, seen.stopped) = (Verdict::Inconclusive, true);
                s.ended[r] = Some((j, Verdict::Inconclusive));
                out[r] = Some(seen);
            } else if j < runs[r].looks.len() && s.reports.get(j).is_none_or(|l| l[r].is_none()) {
                s.report(r, j, runs[r].looks[j]);
                s.settle();
            } else if j < runs[r].looks.len() {
                // reported: on to the next look once this one is settled without a stop
                if s.next > j {
                    at[r] += 1;
                }
            } else {
                s.ended[r] = Some((j, runs[r].verdict));
                s.settle();
                out[r] = Some(runs[r].clone());
            }
        }
        (out.into_iter().map(Option::unwrap).collect(), s.stop)
    }

    /// A round's runs on threads of their own, with one core lent: one simulates at a time
    /// (the others wait for the core or at a look), every look is settled, and all end.
    #[test]
    fn a_rounds_runs_simulate_on_the_cores_lent_and_all_end() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let cores: &'static Cores = Box::leak(Box::new(Cores::new()));
        let mut round = Round::new(3, [0, 0], &[]);
        Arc::get_mut(&mut round).expect("one owner").cores = cores;
        let (busy, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let simulate = || {
            let now = busy.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(2));
            busy.fetch_sub(1, Ordering::SeqCst);
        };
        let lent = cores.lend();
        std::thread::scope(|scope| {
            for run in 0..3 {
                let (round, simulate) = (&round, &simulate);
                scope.spawn(move || {
                    let _held = cores.hold();
                    // statistics no look test decides on: every run goes on to its end
                    for look in 0..4 {
                        simulate();
                        assert!(round.look(run, look, Some([4.0, 0.0])));
                    }
                    simulate();
                    round.ended(run, 4, Verdict::Stable);
                });
            }
        });
        drop(lent);
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert_eq!(round.state.lock().unwrap().next, 4);
    }

    /// Whatever order the runs reach their looks in, the round stops where the replay of its
    /// runs' looks says, with the decision the replay and a probe read from them.
    #[test]
    fn a_round_stops_where_its_runs_replay_says() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let (mut stopped, mut contradicted) = (0, 0);
        for case in 0..2_000 {
            let n = rng.random_range(1..6);
            let prior = [rng.random_range(0..2), rng.random_range(0..2)];
            let runs: Vec<Seen> = (0..n).map(|_| natural(&mut rng)).collect();
            let (ended, stop) = play(prior, &runs, &mut rng);
            let (by_look, _) = crate::stability::search::look_replay(prior, &runs);
            let (again, _) = crate::stability::search::look_replay(prior, &ended);
            assert_eq!(by_look, again, "case {case}");
            assert_eq!(stop.is_some(), by_look.is_some(), "case {case}");
            match stop.and(by_look) {
                Some(Decision::Undecided) => {
                    // runs on both sides: the probe's, and this round's that ended by then
                    contradicted += 1;
                    let mut counts = prior;
                    for s in &ended {
                        crate::stability::search::count_decided(&mut counts, s.verdict);
                    }
                    assert!(counts[0] > 0 && counts[1] > 0, "case {case}");
                }
                Some(_) => {
                    stopped += 1;
                    let p = Probe::of_seen(0.9, &ended);
                    assert!(p.by_look || ended.len() > crate::stability::search::first_part(n));
                }
                None => {}
            }
        }
        assert!(stopped > 100, "{stopped}");
        assert!(contradicted > 100, "{contradicted}");
    }
}
