//! The driver of a limit search: the solver of [`crate::stability::search`] says which runs it
//! wants at which load; here each is made as the plan says a run at that load is made (its
//! scenario, its seed from the search's seed, the load and the replication, never from the
//! policy; a horizon chain that looks first at half of `run.slots`'s horizon after warm-up when
//! its looks would otherwise be fewer than the five the verdict was calibrated on:
//! [`look_earlier`]), the replications of a request on every thread, each finished run
//! journaled as a step of the unit (and recalled when an interrupted search resumes), and a
//! progress line after each round.

use rayon::prelude::*;

use super::scenario::Scenario;
use crate::experiment::ExperimentError;
use crate::experiment::queueing::spec::DEFAULT_EXTENSION;
use crate::experiment::queueing::{Experiment, SearchSpec};
use crate::experiment::steps::Steps;
use crate::rng::derive_seed;
use crate::sim::verdict::MIN_HORIZON_SERVICES;
use crate::sim::{BATCHES, RunConfig};
use crate::stability::search::{Limit, Request, Search, Seen};

/// A policy's stability limit as an interval on the load.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct ThresholdResult {
    /// The policy.
    pub(crate) policy: usize,
    /// What its search found.
    pub(crate) limit: Limit,
}

/// Whose limit a search finds, as its messages name it and its runs are seeded: the
/// experiment's name (with a region map's direction), the policy's label, the seed its runs'
/// seeds derive from, and the replications of a round.
pub(crate) struct Searched<'a> {
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

/// Makes the runs of `request` in parallel ([`ProbeAt`] gives the system at its load; `who`
/// seeds them and journals them): what each showed, in replication order. `span` is the round's
/// part of the search's progress, shared by its runs on every thread.
fn run_reps(
    who: &Searched<'_>,
    request: &Request,
    span: Option<&crate::progress::Span>,
    at: &ProbeAt<'_>,
) -> Result<Vec<Seen>, ExperimentError> {
    let (load, n) = (request.load, who.replications);
    request
        .reps
        .clone()
        .into_par_iter()
        .map(|rep| {
            let seed = derive_seed(who.seed, &[0x7468_7265, load.to_bits(), rep as u64]);
            let part = span.map(|s| s.part(u64::from(rep - request.round * n), u64::from(n)));
            // a run journaled by an interrupted search is recalled, not run again
            who.steps.step(&(load.to_bits(), rep), || {
                crate::progress::within(part, || {
                    let mut scenario = at(load, seed)?;
                    look_earlier(&mut scenario.config);
                    super::simulate::run_scenario(&scenario)
                        .map(|r| Seen::of(r.verdict, r.slots, &r.evidence))
                })
            })
        })
        .collect()
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

/// The stability limit of `who`'s policy as an interval in [0, `rho`.1] (see
/// [`crate::stability::search`]); `rho` is reported with the result. A probe at load x runs
/// the system `at(x)`.
pub(crate) fn limit_search(
    who: &Searched<'_>,
    spec: SearchSpec,
    rho: (f64, f64),
    at: &ProbeAt<'_>,
) -> Result<Limit, ExperimentError> {
    let mut search = Search::new(spec, who.replications, rho);
    // rounds run so far; the search's progress is theirs out of those and the rounds it
    // expects still to run (its own estimate, given as each round starts)
    let (mut rounds, mut span) = (0u64, None);
    while let Some(request) = search.ask() {
        if request.reps.start == request.round * who.replications {
            let left = search.rounds_left();
            span = crate::progress::current().map(|s| s.part(rounds, rounds + left));
            rounds += 1;
        }
        let runs =
            crate::progress::within(span.clone(), || run_reps(who, &request, span.as_ref(), at))?;
        if search.record(&request, &runs) {
            note_round(who, &search, &request, rho);
        }
    }
    Ok(search.result())
}

/// The progress line after a round of a probe: its load, what it showed so far, its runs.
fn note_round(who: &Searched<'_>, search: &Search, request: &Request, rho: (f64, f64)) {
    let p = search.probe(request.probe);
    crate::progress::note(|| {
        format!(
            "{}: limit of {}: probe {} at load {:.4}{}{} {} ({}/{}/{} stable/unstable/\
             inconclusive runs, {:.2e} slots)",
            who.name,
            who.label,
            request.probe + 1,
            p.load,
            who.fraction_of.map_or(String::new(), |of| format!(
                " ({} of {of})",
                fraction(p.load, rho)
            )),
            if request.round > 0 {
                format!(", round {}", request.round + 1)
            } else {
                String::new()
            },
            if search.is_open(request.probe) {
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
}

/// Load `x` as a fraction of `rho` to three decimals: one number where the bracket's ends
/// give the same, else the range `x / rho.1`–`x / rho.0`.
fn fraction(x: f64, rho: (f64, f64)) -> String {
    let (a, b) = (format!("{:.3}", x / rho.1), format!("{:.3}", x / rho.0));
    if a == b { a } else { format!("{a}–{b}") }
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
    let limit = limit_search(
        &Searched {
            fraction_of: Some("ρ*"),
            ..Searched::of(exp, policy, steps)
        },
        search,
        rho,
        &|x, seed| Scenario::sampled(exp, policy, x * rate, seed, (0, false)),
    )?;
    Ok(ThresholdResult { policy, limit })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Verdict;

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
}
