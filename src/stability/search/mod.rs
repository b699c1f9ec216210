//! A stability limit as an interval [lower, upper] on the load: lower shown stable, upper shown
//! unstable, by a noisy bisection whose probes repeat until they are decisive.
//!
//! The search is a solver: a [`Search`] says which runs it wants next ([`Search::ask`]: a
//! [`Request`] for some replications of a round at one load) and is told what they showed
//! ([`Search::record`]: each run's verdict, slots and statistics, [`Seen`]). It never runs,
//! prints, journals or spawns anything: whoever drives it chooses how a run at a load is made
//! (its system, its seeds, its horizon chain), runs a request's replications on as many
//! threads as it likes, keeps them in a journal and shows progress. Its state is a value
//! (serialisable), and the same requests answered the same way give the same search.
//!
//! **A probe** at load x runs rounds of n runs (the search's replications; each run extends
//! its horizon while its verdict is inconclusive, up to the longest horizon its driver
//! allows). After each round, over all N runs so far with S stable, U unstable:
//! - *shown stable* if S > N/2 and U = 0;
//! - *shown unstable* if U > N/2 and S = 0;
//! - otherwise, when every inconclusive run was judged at the longest horizon, the *pooled
//!   test* of packlab's pooled verdict (`src/sim/pooled.rs`) on those runs: *shown stable* if the mean of their
//!   decorrelation statistics is below its 1 % point at the critical load and U = 0, *shown
//!   unstable* if the mean of their drift statistics is above its 99 % point and S = 0
//!   (written `pooled-stable` / `pooled-unstable`). Near a limit most runs end inconclusive,
//!   yet their statistics still lean; their mean decides loads that a majority of single-run
//!   calls would leave undecided, without more runs;
//! - otherwise *undecided*: another round may follow, up to `rounds`, while the probe is
//!   *open* (below); x is close to the limit, at the resolution the horizon allows.
//!
//! **A round's runs look together.** The runs a request asks for are made together, and at
//! each look before the longest horizon where some of them are inconclusive, the *look test*
//! ([`look_decision`]: the pooled test at a 0.25 % point, on those runs, with the probe's
//! decided runs counted as above) may decide the probe: every run then stops at that look, and
//! the probe is `pooled-stable` or `pooled-unstable` on fewer slots. A run tells its driver its
//! statistics at each look it went past ([`Seen::looks`]) and whether it was stopped, so
//! [`Search::record`] replays the look tests from the runs alone, whoever made them and in
//! whatever order. Each look test applied adds 0.25 % to the probe's error bound. A round
//! also stops at the first look where its probe has seen a stable and an unstable run (in an
//! earlier round, or in this one by that look): no rule decides such a probe, so its other
//! runs would be spent for nothing. No test is applied there and no error is added.
//!
//! **A first round starts with a majority.** With rounds of n ≥ 4, its first ⌊n/2⌋ + 1 runs
//! (3 of 5) run before the others; when they are all stable, or all unstable, they are a
//! majority of the round whatever its other runs would show, and the probe is decided on them
//! alone (written `3/0/0`). Far from a limit nearly every probe is decided so, with the runs of
//! its majority. Otherwise the rest of the round runs and the probe is decided on all n runs as
//! above. The stated error is the round's: a probe decided on its first part is wrong only if
//! all those runs are wrong, an event within "more than n/2 of the n runs wrong". What the
//! first part gives up is the check that no other run went the other way; rounds of 3, whose
//! first part would be two runs, run whole ([`first_part`]). When the first part's runs
//! all ended inconclusive at the longest horizon, no majority of the round can form, and the
//! rest of the round runs only if it could plausibly tip the pooled test
//! (the pooled test's chance to decide at least 5 %); otherwise the probe is
//! undecided on those runs (written `0/0/3`), and the search reads it as the whole round of
//! inconclusive runs it predicted (its counts as the search reads them). No call is made on fewer runs, so no
//! error is added.
//!
//! A probe is closed, undecided, when more rounds cannot decide it or are bound not to:
//! - *cannot*: a stable and an unstable run both seen, or too few stable or unstable runs for
//!   a majority even if every later run agreed. The remaining rounds would have reached the
//!   same decision.
//! - *bound not to*: every run so far ended inconclusive, and the remaining rounds would
//!   decide it with probability below 5 % (`hopeless`). A run ends inconclusive only at the
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
//! most 1 % (the pooled test's stated error) (its stated error at the limit), so a probe's bound
//! ([`Probe::error`]) is the majority's plus 1 % per pooled look.
//!
//! **The search** keeps lower (shown stable; 0 to start, stable by theory) and upper (shown
//! unstable; ρ*'s upper end to start, beyond which no policy is stable) and the undecided loads
//! between them. After the guided probes (below), each probe goes to the midpoint of the
//! widest gap between consecutive known loads (ties: the lowest), so an undecided load is
//! approached from both sides (the noisy bisection of Waeber, Frazier & Henderson, "Bisection
//! search with noisy responses", SIAM J. Control Optim. 51(3), 2013, with a three-valued answer
//! in place of a coin). Only gaps whose
//! probe could move an end are tried: a gap between two undecided loads is passed over unless
//! the lower one *leans stable* or the upper one *leans unstable* (one more round of agreeing
//! runs would have decided it). A run at a higher load is no more likely to be called stable,
//! nor one at a lower load unstable, so a load between two undecided probes that came nowhere
//! near a decision is bound to be undecided too. The search stops when upper − lower is at
//! most `resolution` × ρ*, or when no gap worth a probe is wider than a quarter of that (or
//! `max_probes` loads were tried) and no probe is open.
//!
//! **The pilot and the guided probes.** Where the load offered has one meaning (one scalar
//! size law, scaled: a file's workload, or a region map's ray without held types), a search
//! first makes one run at [`PILOT_LOAD`] × ρ*, above every policy's limit: its queue grows, and
//! its utilisation over the utilisation its load offers, times its load, is the load the policy
//! sustains with a queue that long: a guess at the limit, not a bound (a policy that packs
//! better the more jobs wait sustains more than its limit with a long queue). The first probe
//! goes 0.45 × resolution above the guess,
//! where runs are soon seen unstable; the unstable runs of the probe that shows the upper end
//! sustain a load g closer to the limit, and while upper − g is more than 0.6 × resolution the
//! next probe goes 0.45 × resolution above g; then one probe goes 0.98 × resolution below the
//! upper end, which ends the search if shown stable, as far below the limit as it can
//! (`guided_load`). A guided probe is a probe like any other: every end is still shown by its
//! own runs, with its own error, so the guess moves where probes go, never what they show.
//! Once a guided load was tried and did not end the search (it was undecided, or shown on the
//! side the guess did not expect), the search steps down from the lowest load between the ends
//! not shown stable by 2 × resolution at a time, while that is above the lower end, so that a
//! lower end is found next to the limit rather than by halving from 0; then the bisection
//! below goes on from the ends found so far. Bisecting from [0, ρ*] puts a probe at each
//! halving, and the last ones land next to the limit, where runs go to the longest horizon;
//! the guided probes stand about half the resolution either side of it. A guided search ends
//! *at the horizon* once two undecided loads between the ends had most of their runs
//! inconclusive and each end is within 2 × resolution of them (`banded`): the band of loads
//! the longest horizon cannot resolve is found, and each probe beside it would cost rounds of
//! runs to the longest horizon to narrow the interval by a fraction of the band. This is a
//! bet, like the others below.
//!
//! **Where the horizon gives out.** A gap between an end and the undecided probe next to it is
//! passed over when the longest horizon failed on both its sides (the end's own probe had an
//! inconclusive run, and most runs of the probe beside it were inconclusive) and the end, moved
//! all the way to that probe, would still leave the interval wider than the resolution: its
//! loads are as close to the limit as the longest horizon resolves, each round there costs n runs
//! to the longest horizon, and no outcome in it ends the search. This is a bet,
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
//! (a load on the bisection's own lattice), the farthest such load from ρ*.
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
//! have decided its probe and ended the search at once (measured both ways on the committed searches).

mod probe;

use std::ops::Range;

#[cfg(test)]
pub(crate) use probe::look_replay;
pub use probe::{Decision, Probe, RUN_ERROR, first_part, look_decision, pooled_stats, probe_error};
pub(crate) use probe::{count_decided, look_stop};
use probe::{decidable, hopeless, leans, margin};

use crate::sim::{Verdict, VerdictEvidence};

/// How a limit is searched.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchSpec {
    /// Stop when upper − lower ≤ resolution × ρ*'s upper end.
    pub resolution: f64,
    /// At most this many probes (loads tried).
    pub max_probes: u32,
    /// At most this many rounds of runs per probe.
    pub rounds: u32,
}

/// Why a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Ended {
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
    pub fn as_str(self) -> &'static str {
        match self {
            Ended::Resolution => "resolution",
            Ended::Horizon => "horizon",
            Ended::Probes => "max_probes",
        }
    }
}

/// A stability limit as an interval on the load: what a finished [`Search`] found.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Limit {
    /// ρ* (low, high) as a traffic intensity: the search ran in [0, ρ*'s upper end].
    pub rho_star: (f64, f64),
    /// How the limit was searched.
    pub search: SearchSpec,
    /// The largest load shown stable (0 if none was: stable by theory).
    pub lower: f64,
    /// The smallest load shown unstable, or ρ*'s upper end if none was (unstable by theory).
    pub upper: f64,
    /// Whether `upper` was shown unstable by a probe (not only by theory).
    pub upper_shown: bool,
    /// Every probe, in the order first tried.
    pub probes: Vec<Probe>,
    /// Why the search ended.
    pub ended: Ended,
    /// The pilot of a guided search.
    #[serde(default)]
    pub pilot: Option<Pilot>,
}

impl Limit {
    /// The lowest and the highest load between the ends that a probe left undecided, if any:
    /// where the longest horizon could not tell the policy stable or not.
    pub fn undecided_span(&self) -> Option<(f64, f64)> {
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
    pub fn fractions(&self) -> (f64, f64) {
        (self.lower / self.rho_star.1, self.upper / self.rho_star.0)
    }

    /// Runs simulated by the search.
    pub fn runs(&self) -> usize {
        self.probes.iter().map(Probe::runs).sum::<usize>() + usize::from(self.pilot.is_some())
    }

    /// Slots simulated by the search.
    pub fn slots(&self) -> u64 {
        self.probes.iter().map(|p| p.slots).sum::<u64>()
            + self.pilot.as_ref().map_or(0, |p| p.slots)
    }

    /// The probe that showed `load`, if one did.
    pub fn probe_at(&self, load: f64) -> Option<&Probe> {
        self.probes.iter().find(|p| p.load == load)
    }

    /// A line on how each end was shown and how sure it is.
    pub fn ends(&self) -> String {
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

/// The runs a search wants next: replications `reps` of round `round` of probe `probe`, at
/// load `load` (replication k of a probe is the k-th run made at its load, counted over its
/// rounds: round r has replications r·n … r·n + n − 1, of which a first round may ask for its
/// first part before the rest).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Request {
    /// The probe (its index in the order probes were first tried).
    pub probe: usize,
    /// Its load.
    pub load: f64,
    /// The round (0 for the first).
    pub round: u32,
    /// The replications to run.
    pub reps: Range<u32>,
    /// It is the search's pilot run ([`Pilot`]), not a probe's.
    #[serde(default)]
    pub pilot: bool,
}

/// What one run showed a search: its verdict, the slots it simulated and, if it ended
/// inconclusive after judging its horizon, the statistics the pooled test pools.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Seen {
    /// The run's verdict.
    pub verdict: Verdict,
    /// Slots it simulated.
    pub slots: u64,
    /// `[z_vn, z_drift]` when it ended inconclusive after judging its horizon.
    pub stats: Option<[f64; 2]>,
    /// `[z_vn, z_drift]` at each look it went past (inconclusive), in order (`None`: too short
    /// to judge); its last look is the next.
    #[serde(default)]
    pub looks: Vec<Option<[f64; 2]>>,
    /// It ended at its last look because its round stopped there (see the module doc).
    #[serde(default)]
    pub stopped: bool,
    /// Its mean utilisation after warm-up, a fraction of the cluster's capacity (`None` when
    /// not recorded).
    #[serde(default)]
    pub utilization: Option<f64>,
}

impl Seen {
    /// What a run with `verdict`, `slots` and `evidence` shows, when it went to its longest
    /// horizon without a record of its looks.
    pub fn of(verdict: Verdict, slots: u64, evidence: &VerdictEvidence) -> Self {
        Seen {
            verdict,
            slots,
            stats: pooled_stats(verdict, evidence),
            looks: Vec::new(),
            stopped: false,
            utilization: None,
        }
    }

    /// What the run `r` shows, its looks included.
    pub fn of_run(r: &crate::sim::RunResult) -> Self {
        Seen {
            looks: r.looks.clone(),
            stopped: r.stopped,
            utilization: Some(r.utilization),
            ..Seen::of(r.verdict, r.slots, &r.evidence)
        }
    }
}

/// A limit search in progress (see the module doc): the ends so far, every probe, and the
/// request it waits on.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Search {
    spec: SearchSpec,
    /// Runs per round.
    n: usize,
    rho: (f64, f64),
    lower: f64,
    upper: f64,
    upper_shown: bool,
    probes: Vec<Probe>,
    /// The rest of a first round whose first part left it open, to ask for next.
    rest: Option<Request>,
    /// The request asked for and not yet recorded.
    asked: Option<Request>,
    /// Why it ended, once it has.
    ended: Option<Ended>,
    /// Whether it runs a pilot first ([`Search::guided`]).
    #[serde(default)]
    guided: bool,
    /// The pilot, once run.
    #[serde(default)]
    pilot: Option<Pilot>,
}

/// The pilot of a guided search: one run at [`PILOT_LOAD`] × ρ*'s upper end, where no policy
/// is stable, whose utilisation with its queue growing is the load the policy sustains. It is
/// a guess at the limit, nothing more: it only says where the first probes go
/// (`guided_load`); every end is still shown by a probe.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pilot {
    /// Its load.
    pub load: f64,
    /// Slots it simulated.
    pub slots: u64,
    /// The load it sustained: its utilisation over the utilisation its load offers, times its
    /// load (`None` when the run did not measure one).
    pub sustained: Option<f64>,
    /// The utilisation its load offers.
    #[serde(default)]
    pub offered: Option<f64>,
}

/// A pilot's load, as a multiple of ρ*'s upper end.
pub const PILOT_LOAD: f64 = 1.05;

impl Search {
    /// A search of the limit in [0, `rho`.1] (ρ* as a traffic intensity, low and high) with
    /// rounds of `replications` runs (at least one).
    pub fn new(spec: SearchSpec, replications: u32, rho: (f64, f64)) -> Self {
        Search {
            spec,
            n: replications.max(1) as usize,
            rho,
            lower: 0.0,
            upper: rho.1,
            upper_shown: false,
            probes: Vec::new(),
            rest: None,
            asked: None,
            ended: None,
            guided: false,
            pilot: None,
        }
    }

    /// What guides the next probes: the pilot's guess at the limit, and the guess of the
    /// probe that showed the upper end unstable (its unstable runs' mean utilisation, as a
    /// load), if it recorded any.
    fn guide(&self) -> Option<Guide> {
        let pilot = self.pilot.as_ref()?;
        // loads per unit of utilisation
        let scale = pilot.load / pilot.offered?;
        let upper = self
            .probes
            .iter()
            .filter(|p| p.decision == Decision::Unstable && p.load == self.upper)
            .find_map(|p| {
                let u = &p.unstable_utilization;
                (!u.is_empty()).then(|| scale * u.iter().sum::<f64>() / u.len() as f64)
            });
        Some(Guide {
            pilot: pilot.sustained?,
            upper,
        })
    }

    /// The same search, guided by a pilot run ([`Pilot`]): its first request is the pilot's
    /// one run, recorded with [`Search::record_pilot`].
    pub fn guided(mut self) -> Self {
        self.guided = true;
        self
    }

    /// Records the pilot's run `seen` (the one run of `request`), whose load offers a
    /// utilisation of `offered` (a fraction of the cluster's capacity; `None` if unknown).
    ///
    /// # Panics
    /// If `request` is not the pilot request [`Search::ask`] gave.
    pub fn record_pilot(&mut self, request: &Request, seen: &Seen, offered: Option<f64>) {
        assert_eq!(self.asked.as_ref(), Some(request), "the request asked for");
        assert!(request.pilot, "a pilot request");
        self.asked = None;
        let sustained = match (seen.utilization, offered) {
            (Some(u), Some(o)) if o > 0.0 && u > 0.0 => Some(request.load * u / o),
            _ => None,
        };
        self.pilot = Some(Pilot {
            load: request.load,
            slots: seen.slots,
            sustained,
            offered,
        });
    }

    /// The resolution as a load: the search stops once upper − lower is at most this.
    fn target(&self) -> f64 {
        self.spec.resolution * self.rho.1
    }

    /// The runs the search wants next, or `None` when it is over ([`Search::result`]). Asked
    /// again before the answer is recorded, it gives the same request.
    pub fn ask(&mut self) -> Option<Request> {
        if let Some(r) = &self.asked {
            return Some(r.clone());
        }
        if let Some(r) = self.rest.take() {
            self.asked = Some(r.clone());
            return Some(r);
        }
        if self.ended.is_some() {
            return None;
        }
        if self.guided && self.pilot.is_none() {
            let r = Request {
                probe: 0,
                load: PILOT_LOAD * self.rho.1,
                round: 0,
                reps: 0..1,
                pilot: true,
            };
            self.asked = Some(r.clone());
            return Some(r);
        }
        let (n, target) = (self.n, self.target());
        let ends = (self.lower, self.upper, self.upper_shown);
        if self.upper - self.lower <= target {
            self.ended = Some(Ended::Resolution);
            return None;
        }
        let guide = self.guide();
        let Some(step) = next_step(&self.probes, ends, &self.spec, n, target, guide) else {
            // would a search without the limit on probes have gone on?
            let unlimited = SearchSpec {
                max_probes: u32::MAX,
                ..self.spec
            };
            self.ended = Some(
                match next_step(&self.probes, ends, &unlimited, n, target, guide) {
                    Some(_) => Ended::Probes,
                    None => Ended::Horizon,
                },
            );
            return None;
        };
        let i = match step {
            Step::New(load) => {
                self.probes.push(Probe::at(load));
                self.probes.len() - 1
            }
            Step::Again(i) => i,
        };
        let p = &mut self.probes[i];
        let round = p.rounds_seen(n) as u32;
        p.planned += n;
        let start = round * n as u32;
        let size = if round == 0 { first_part(n) } else { n };
        let r = Request {
            probe: i,
            load: p.load,
            round,
            reps: start..start + size as u32,
            pilot: false,
        };
        self.asked = Some(r.clone());
        Some(r)
    }

    /// Records what the runs of `request` showed, in replication order; returns whether they
    /// finished their probe's round (a first round's first part may leave the rest to run).
    ///
    /// # Panics
    /// If `request` is not the one [`Search::ask`] gave, or `runs` does not hold one run per
    /// replication it asked for.
    pub fn record(&mut self, request: &Request, runs: &[Seen]) -> bool {
        assert_eq!(self.asked.as_ref(), Some(request), "the request asked for");
        assert_eq!(runs.len(), request.reps.len(), "one run per replication");
        self.asked = None;
        let n = self.n;
        let p = &mut self.probes[request.probe];
        p.request(runs);
        let k = first_part(n);
        if p.by_look {
            // a look test decided the probe and stopped the request's runs
        } else if request.round == 0 && request.reps == (0..k as u32) && k < n {
            if p.first_part_futile(k, n) {
                p.futile = true;
            } else if !p.first_part_decides(k) {
                self.rest = Some(Request {
                    reps: k as u32..n as u32,
                    ..request.clone()
                });
                return false;
            }
        }
        p.decide();
        match p.decision {
            Decision::Stable => self.lower = p.load,
            Decision::Unstable => {
                self.upper = p.load;
                self.upper_shown = true;
            }
            Decision::Undecided => {}
        }
        true
    }

    /// The rounds the search expects to run from the next one on, for progress: twice the
    /// halvings of the interval still needed to reach the resolution (the shipped searches ran
    /// 1 to 3 rounds per halving, undecided probes near the limit and their later rounds
    /// included) and one more round of each open probe.
    pub fn rounds_left(&self) -> u64 {
        let target = self.target();
        let halvings = ((self.upper - self.lower) / target).log2().ceil().max(1.0) as u64;
        let open_rounds = self
            .probes
            .iter()
            .filter(|p| open(p, self.n, self.spec.rounds))
            .count() as u64;
        (2 * halvings + open_rounds).min(u64::from(self.spec.max_probes) * 3)
    }

    /// Probe `i`, as far as it has run.
    pub fn probe(&self, i: usize) -> &Probe {
        &self.probes[i]
    }

    /// Whether probe `i` is undecided and may run another round.
    pub fn is_open(&self, i: usize) -> bool {
        open(&self.probes[i], self.n, self.spec.rounds)
    }

    /// The limit found, once [`Search::ask`] has said the search is over.
    ///
    /// # Panics
    /// If the search is not over.
    pub fn result(self) -> Limit {
        Limit {
            rho_star: self.rho,
            search: self.spec,
            lower: self.lower,
            upper: self.upper,
            upper_shown: self.upper_shown,
            probes: self.probes,
            ended: self.ended.expect("a search asked for nothing more"),
            pilot: self.pilot,
        }
    }
}

/// Whether an undecided probe `p` may run another round: rounds are left, and they could
/// decide it ([`decidable`]) and are not bound not to ([`hopeless`]).
pub(crate) fn open(p: &Probe, n: usize, rounds: u32) -> bool {
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
        (
            x,
            leans(c, n, 0),
            leans(c, n, 1),
            open,
            mostly_inconclusive(c),
        )
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

/// Guesses at the limit: the load a pilot sustained, and the load sustained by the unstable
/// runs of the probe that showed the upper end (just above the limit, the better guess).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Guide {
    pilot: f64,
    upper: Option<f64>,
}

/// The next load the guesses `guide` ask for, while the ends are `lower` and `upper`:
/// - with the upper end shown by runs that sustained a load g: if upper − g ≤ 0.6 × `target`,
///   the load 0.98 × `target` below the upper end (shown stable, it ends the search, as far
///   below the limit as it can); else g + 0.45 × `target`, a load just above the limit, where
///   runs are soon seen unstable;
/// - otherwise the pilot's guess + 0.45 × `target`, or, if that is not below the upper end,
///   0.98 × `target` below it;
///
/// each only if it lies between the ends and was not tried. Once that load was tried (it was
/// undecided, or shown on the side the guess did not expect), the search steps down from the
/// lowest load between the ends not shown stable, a: to a − 2 × `target`, while that is above
/// the lower end and untried, so that a lower end is found near the limit rather than by
/// halving from 0. None otherwise: the bisection.
fn guided_load(
    probes: &[Probe],
    (lower, upper): (f64, f64),
    guide: Guide,
    target: f64,
) -> Option<f64> {
    let open = |x: f64| x > lower && x < upper && !probes.iter().any(|p| p.load == x);
    let last = upper - 0.98 * target;
    let x = match guide.upper {
        Some(g) if upper - g <= 0.6 * target => last,
        Some(g) => g + 0.45 * target,
        None if guide.pilot + 0.45 * target < upper => guide.pilot + 0.45 * target,
        None => last,
    };
    if open(x) {
        return Some(x);
    }
    let a = probes
        .iter()
        .filter(|p| p.decision == Decision::Undecided && p.load > lower && p.load < upper)
        .map(|p| p.load)
        .fold(upper, f64::min);
    let down = a - 2.0 * target;
    open(down).then_some(down)
}

/// Whether most of the runs with `counts` (stable, unstable, inconclusive) were inconclusive:
/// the longest horizon failed at that load.
fn mostly_inconclusive(counts: [usize; 3]) -> bool {
    2 * counts[2] > counts.iter().sum::<usize>()
}

/// Whether the ends `lower` and `upper` stand next to a band of loads the longest horizon
/// cannot resolve: two of the undecided probes between them (`undecided`, indices into
/// `probes`) had most of their runs inconclusive, and each end is within 2 × `target` of the
/// nearest of those. A guided search ends there, at the horizon (see the module doc).
fn banded(probes: &[Probe], undecided: &[usize], (lower, upper): (f64, f64), target: f64) -> bool {
    let band: Vec<f64> = undecided
        .iter()
        .map(|&i| &probes[i])
        .filter(|p| mostly_inconclusive(p.seen()))
        .map(|p| p.load)
        .collect();
    // the gap between an end and the band, with room for rounding in loads 2 × target apart
    let near = |gap: f64| gap <= 2.0 * target * (1.0 + 1e-9);
    match (band.first(), band.last()) {
        (Some(&a), Some(&b)) if band.len() >= 2 => near(a - lower) && near(upper - b),
        _ => false,
    }
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
    guide: Option<Guide>,
) -> Option<Step> {
    let mut undecided: Vec<usize> = (0..probes.len())
        .filter(|&i| {
            let p = &probes[i];
            p.decision == Decision::Undecided && p.load > lower && p.load < upper
        })
        .collect();
    undecided.sort_by(|&a, &b| probes[a].load.total_cmp(&probes[b].load));
    if guide.is_some() && banded(probes, &undecided, (lower, upper), target) {
        return None;
    }
    if (probes.len() as u32) < search.max_probes {
        if let Some(x) = guide.and_then(|g| guided_load(probes, (lower, upper), g, target)) {
            return Some(Step::New(x));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use probe::decide;

    /// Ends whose probes had no inconclusive run.
    const FRESH: (bool, bool) = (false, false);

    /// The guided probes: above the pilot's guess, then above what the upper end's unstable
    /// runs sustained while that is well below the end, then the load that ends the search if
    /// shown stable; once that was tried, steps of 2 × resolution down from the lowest load
    /// not shown stable; none below the lower end.
    #[test]
    fn guided_probes_go_above_the_guesses_then_just_under_the_resolution() {
        let t = 0.01;
        let pilot = |g: f64| Guide {
            pilot: g,
            upper: None,
        };
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-12);
        // the pilot's guess: 0.45 t above it
        assert!(close(guided_load(&[], (0.0, 1.0), pilot(0.9), t), 0.9045));
        // a guess too close to ρ* for that: the load that ends the search below it
        assert!(close(guided_load(&[], (0.0, 1.0), pilot(0.997), t), 0.9902));
        // the upper end's runs sustained a load well below it: 0.45 t above that load
        let g = |u: f64| Guide {
            pilot: 0.9,
            upper: Some(u),
        };
        assert!(close(guided_load(&[], (0.0, 0.9045), g(0.89), t), 0.8945));
        // within 0.6 t of it: 0.98 t below the upper end, which ends the search if stable
        let last = guided_load(&[], (0.0, 0.9045), g(0.9), t);
        assert!(close(last, 0.8947));
        // tried and undecided: 2 t below it, then 2 t below the next undecided one
        let tried = [probe(last.unwrap(), [0, 0, 3])];
        assert!(close(
            guided_load(&tried, (0.0, 0.9045), g(0.9), t),
            last.unwrap() - 0.02
        ));
        let lower = [tried[0].clone(), probe(last.unwrap() - 0.02, [0, 0, 3])];
        let next = guided_load(&lower, (0.0, 0.9045), g(0.9), t);
        assert!(close(next, last.unwrap() - 0.04));
        // not above the lower end: the bisection's turn
        assert_eq!(guided_load(&tried, (0.88, 0.9045), g(0.9), t), None);
        assert_eq!(guided_load(&[], (0.8950, 0.9045), g(0.9), t), None);
    }

    /// A guided search ends at a band of mostly inconclusive loads only once both ends stand
    /// within 2 × resolution of it: VQS-BF on Unif[0.1, 0.5], L = 10, as the guided search
    /// found it (lower 0.949669 shown stable, upper 0.984834 shown unstable, 0.969669 at 0/1/4
    /// and 0.973522 at 0/0/3 between them); with one such load, or an end farther away, the
    /// search goes on.
    #[test]
    fn a_guided_search_ends_at_a_band_the_horizon_cannot_resolve() {
        let t = 0.01;
        let probes = [
            probe(0.969669, [0, 1, 4]),
            probe(0.949669, [3, 0, 0]),
            probe(0.984834, [0, 4, 1]),
            probe(0.973522, [0, 0, 3]),
        ];
        let undecided = [0, 3];
        assert!(banded(&probes, &undecided, (0.949669, 0.984834), t));
        assert!(!banded(&probes, &undecided[..1], (0.949669, 0.984834), t));
        assert!(!banded(&probes, &undecided, (0.9297, 0.984834), t));
        assert!(!banded(&probes, &undecided, (0.949669, 1.0), t));
        // a load with most of its runs decided is not part of the band
        let leaning = [probe(0.969669, [0, 3, 2]), probe(0.973522, [0, 0, 3])];
        assert!(!banded(&leaning, &[0, 1], (0.949669, 0.984834), t));
    }

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
            next_step(&probes, (0.9570, 0.9844, true), &search, 5, 0.01, None),
            Some(Step::Again(4))
        );
        // probes out of rounds, or that cannot be decided, are closed: nothing left
        let mut closed = probes.clone();
        closed[3].counts = [2, 1, 7];
        closed[4].counts = [0, 2, 8];
        closed[5].counts = [0, 2, 8];
        assert_eq!(
            next_step(&closed, (0.9570, 0.9844, true), &search, 5, 0.01, None),
            None
        );
        // no open probe and a wide gap: a new probe at its midpoint
        let first = [probe(0.953125, [5, 0, 0])];
        assert_eq!(
            next_step(&first, (0.953125, 1.0, false), &search, 5, 0.01, None),
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
            next_step(&probes, ends, &search, 5, 0.01, None),
            Some(Step::New(0.990234375))
        );
        // a lower end every run decided: the midpoint
        let clean = [probe(0.984375, [5, 0, 0])];
        assert_eq!(
            next_step(&clean, ends, &search, 5, 0.01, None),
            Some(Step::New(0.9921875))
        );
        // tried and undecided: the gaps as usual, the widest first (its midpoint)
        probes.push(probe(0.990234375, [0, 0, 5]));
        assert_eq!(
            next_step(&probes, ends, &search, 5, 0.01, None),
            Some(Step::New(0.9951171875))
        );
    }

    /// Drives `search` to its end against a synthetic system whose limit is θ: a run at load x
    /// is inconclusive with probability e^(−|x − θ| / w) (its statistics, when `stats`, leaning
    /// the right way with noise), otherwise called on the right side of θ except with
    /// probability `err`.
    fn drive(
        search: &mut Search,
        system: (f64, f64, f64, bool),
        runs: &mut impl rand::Rng,
    ) -> usize {
        let mut requests = 0;
        while let Some(r) = search.ask() {
            requests += 1;
            drive_one(search, &r, system, runs);
        }
        requests
    }

    /// The search against synthetic systems whose limit is known, with no experiment at all:
    /// over many systems, budgets and round sizes, every end is a decided probe (or theory's),
    /// no probe runs more rounds than allowed, a search stops short of its resolution only
    /// when its budget is spent or nothing is left to run, and without wrong calls the
    /// interval contains θ.
    #[test]
    fn the_search_keeps_its_invariants_on_synthetic_systems() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for case in 0..2000 {
            let theta: f64 = rng.random_range(0.05..0.995);
            let w: f64 = rng.random_range(0.0005..0.02);
            let err = if case % 2 == 0 { 0.0 } else { 0.05 };
            let n = rng.random_range(1..=5u32);
            let spec = SearchSpec {
                resolution: [0.005, 0.01, 0.02][case % 3],
                rounds: rng.random_range(1..=3),
                max_probes: rng.random_range(4..=28),
            };
            let mut runs = rand_pcg::Pcg64::seed_from_u64(rng.random());
            let mut search = Search::new(spec, n, (1.0, 1.0));
            if case % 4 < 2 {
                search = search.guided();
            }
            // without statistics the pooled test never applies: the majority alone decides
            drive(&mut search, (theta, w, err, false), &mut runs);
            let n = n as usize;
            let guide = search.guide();
            assert_eq!(guide.is_some(), case % 4 < 2);
            let limit = search.result();
            let Limit {
                lower,
                upper,
                upper_shown,
                ref probes,
                ended,
                ..
            } = limit;
            let msg = format!("case {case}: θ {theta}, w {w}, n {n}, {spec:?}");
            assert!(lower < upper, "{msg}");
            assert!(probes.len() <= spec.max_probes as usize, "{msg}");
            for p in probes {
                // a first round may stop after its first part; every other round runs whole
                let part = first_part(n);
                let whole = p.runs().is_multiple_of(n) || (p.runs() - part).is_multiple_of(n);
                assert!(whole && p.runs() <= n * spec.rounds as usize, "{msg}");
                assert_eq!(p.decision, probe::decide(p.counts), "{msg}");
            }
            let shown = |x: f64, d: Decision| probes.iter().any(|p| p.load == x && p.decision == d);
            assert!(lower == 0.0 || shown(lower, Decision::Stable), "{msg}");
            assert_eq!(upper_shown, shown(upper, Decision::Unstable), "{msg}");
            assert!(upper_shown || upper == 1.0, "{msg}");
            // no decided probe inside the interval
            for p in probes.iter().filter(|p| p.load > lower && p.load < upper) {
                assert_eq!(p.decision, Decision::Undecided, "{msg}");
            }
            // why it ended: the resolution reached, or the probes spent (a search without
            // their limit would go on), or nothing left to run at all
            let unlimited = SearchSpec {
                max_probes: u32::MAX,
                ..spec
            };
            let ends = (lower, upper, upper_shown);
            let more = next_step(probes, ends, &unlimited, n, spec.resolution, guide);
            match ended {
                Ended::Resolution => assert!(upper - lower <= spec.resolution, "{msg}"),
                Ended::Probes => assert!(
                    upper - lower > spec.resolution
                        && probes.len() == spec.max_probes as usize
                        && more.is_some(),
                    "{msg}"
                ),
                Ended::Horizon => {
                    assert!(upper - lower > spec.resolution && more.is_none(), "{msg}")
                }
            }
            if upper - lower > spec.resolution {
                assert_eq!(
                    next_step(probes, ends, &spec, n, spec.resolution, guide),
                    None,
                    "{msg}"
                );
            }
            if err == 0.0 {
                assert!(lower <= theta && theta <= upper, "{msg}");
            }
        }
    }

    /// The same answers give the same search, and a search whose state is written down
    /// mid-way (as a journal would) and read back goes on exactly as the one that was not:
    /// with pooled statistics, so that first parts, futile rounds and pooled decisions occur.
    #[test]
    fn a_search_is_a_value_that_resumes_where_it_stood() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
        let (mut pooled, mut futile) = (0, 0);
        for case in 0..300 {
            let theta: f64 = rng.random_range(0.3..0.99);
            let system = (theta, rng.random_range(0.002..0.03), 0.02, true);
            let spec = SearchSpec {
                resolution: 0.01,
                rounds: 3,
                max_probes: 28,
            };
            let seed: u64 = rng.random();
            let guided = |s: Search| if case % 2 == 0 { s.guided() } else { s };
            let mut whole = guided(Search::new(spec, 5, (1.0, 1.0)));
            drive(
                &mut whole,
                system,
                &mut rand_pcg::Pcg64::seed_from_u64(seed),
            );
            let whole = whole.result();
            // the same answers, interrupted after a few requests and restored from its bytes
            let mut runs = rand_pcg::Pcg64::seed_from_u64(seed);
            let mut first = guided(Search::new(spec, 5, (1.0, 1.0)));
            let stop = rng.random_range(1..8);
            let mut asked = 0;
            while asked < stop {
                let Some(r) = first.ask() else { break };
                // asking again before recording gives the same request
                assert_eq!(first.ask(), Some(r.clone()));
                drive_one(&mut first, &r, system, &mut runs);
                asked += 1;
            }
            let bytes = postcard::to_allocvec(&first).unwrap();
            let mut again: Search = postcard::from_bytes(&bytes).unwrap();
            drive(&mut again, system, &mut runs);
            let again = again.result();
            assert_eq!(
                postcard::to_allocvec(&whole).unwrap(),
                postcard::to_allocvec(&again).unwrap(),
                "case {case}"
            );
            pooled += whole.probes.iter().filter(|p| p.pooled).count();
            futile += whole.probes.iter().filter(|p| p.futile).count();
        }
        assert!(pooled > 0 && futile > 0, "pooled {pooled}, futile {futile}");
    }

    /// Answers one request as [`drive`] would.
    fn drive_one(
        search: &mut Search,
        r: &Request,
        (theta, w, err, stats): (f64, f64, f64, bool),
        runs: &mut impl rand::Rng,
    ) {
        // what a run above θ sustains: θ, give or take w
        fn sustained(theta: f64, w: f64, runs: &mut impl rand::Rng) -> f64 {
            theta + w * (2.0 * runs.random::<f64>() - 1.0)
        }
        if r.pilot {
            // the pilot's guess is off by up to 1 % of the load either way
            let guess = sustained(theta, w, runs) * (1.0 + 0.02 * runs.random::<f64>() - 0.01);
            let seen = Seen {
                verdict: Verdict::Unstable,
                slots: 1,
                stats: None,
                looks: Vec::new(),
                stopped: false,
                utilization: Some(guess),
            };
            search.record_pilot(r, &seen, Some(r.load));
            return;
        }
        let seen: Vec<Seen> = r
            .reps
            .clone()
            .map(|_| {
                let verdict = if runs.random::<f64>() < (-(r.load - theta).abs() / w).exp() {
                    Verdict::Inconclusive
                } else if (r.load < theta) != (runs.random::<f64>() < err) {
                    Verdict::Stable
                } else {
                    Verdict::Unstable
                };
                // statistics that lean the right way away from θ and are a critical queue's
                // (z_vn about 5, z_drift about 0.5) at it
                let lean = ((r.load - theta) / w).clamp(-1.0, 1.0);
                Seen {
                    verdict,
                    slots: 1,
                    stats: (stats && verdict == Verdict::Inconclusive).then(|| {
                        [
                            5.0 + lean + 0.6 * runs.random::<f64>() - 0.3,
                            0.5 + lean + 0.6 * runs.random::<f64>() - 0.3,
                        ]
                    }),
                    looks: Vec::new(),
                    stopped: false,
                    utilization: (verdict == Verdict::Unstable).then(|| sustained(theta, w, runs)),
                }
            })
            .collect();
        search.record(r, &seen);
    }
}
