//! The driver of a limit search: the solver of [`crate::stability::search`] says which runs it
//! wants at which load; here each is made as the unit's family of scenarios makes a run at that
//! load (its seed from the search's seed, the load and the replication, never from the policy),
//! the replications of a request on every thread, each finished run journaled as a step of the
//! unit (and recalled when an interrupted search resumes), and a progress line after each round.

use std::path::Path;

use crate::experiment::ExperimentError;
use crate::experiment::queueing::plan::{Names, SearchWork};
use crate::experiment::steps::Steps;
use crate::rng::Stream;
use crate::sim::Verdict;
use crate::stability::search::{Limit, Request, Search, Seen};

use super::cores::CORES;
use super::round::Round;

/// A policy's stability limit as an interval on the load (a threshold claim's search).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct ThresholdResult {
    /// The policy.
    pub(crate) policy: usize,
    /// What its search found.
    pub(crate) limit: Limit,
}

/// A policy's limit along a region map's ray.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct RayResult {
    /// The ray (index into the map's).
    pub(crate) ray: usize,
    /// The policy (index into the experiment's).
    pub(crate) policy: usize,
    /// The search, on loads of the ray's workload (ρ* its exact one).
    pub(crate) limit: Limit,
}

/// Makes the runs of `request` of the search `w` together, each on a thread of its own (and
/// simulating on a core of [`CORES`], to which the calling worker lends its own) and
/// each recalled from `steps` if an interrupted search journaled it: what each showed, in
/// replication order. The runs look together ([`super::round`]): once the look test on those
/// inconclusive at a look decides the probe, every run stops there. `prior` is the probe's
/// [stable, unstable] runs before the request; `span` is the round's part of the unit's
/// progress, shared by its runs.
fn run_reps(
    w: &SearchWork,
    (request, prior): (&Request, [usize; 2]),
    span: Option<&crate::progress::Span>,
    (file, steps): (&Path, &Steps<'_>),
) -> Result<Vec<Seen>, ExperimentError> {
    let (load, n) = (request.load, w.replications);
    let reps: Vec<u32> = request.reps.clone().collect();
    // a run journaled by an interrupted search is recalled, not run again; its looks still
    // count in its round's look tests
    let recalled: Vec<Option<Seen>> = reps
        .iter()
        .map(|&rep| steps.recall(&(load.to_bits(), rep)))
        .collect();
    let known: Vec<(usize, &Seen)> = recalled
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().map(|s| (i, s)))
        .collect();
    let round = Round::new(reps.len(), prior, &known);
    // the worker's core goes to the runs while it waits for them
    let _lent = CORES.lend();
    std::thread::scope(|scope| {
        let handles: Vec<_> = reps
            .iter()
            .zip(&recalled)
            .enumerate()
            .map(|(i, (&rep, known))| {
                let round = &round;
                scope.spawn(move || -> Result<Seen, ExperimentError> {
                    if let Some(seen) = known {
                        return Ok(seen.clone());
                    }
                    let _held = CORES.hold();
                    let seed = Stream::Probe { load, rep }.seed(w.seed);
                    let part =
                        span.map(|s| s.part(u64::from(rep - request.round * n), u64::from(n)));
                    let seen = steps.step(&(load.to_bits(), rep), || {
                        crate::progress::within(part, || {
                            super::round::within(round, i, || {
                                let scenario = w.family.at(load, seed);
                                super::simulate::run_scenario(&scenario, file)
                                    .map(|r| Seen::of_run(&r))
                            })
                        })
                    });
                    match &seen {
                        Ok(s) => round.ended(i, s.looks.len(), s.verdict),
                        // the others must not wait for it
                        Err(_) => round.ended(i, 0, Verdict::Inconclusive),
                    }
                    seen
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a search's run"))
            .collect()
    })
}

/// The limit the search `w` finds (see [`crate::stability::search`]), its rounds shown in
/// progress lines by `names`.
pub(crate) fn search(
    w: &SearchWork,
    names: &Names,
    file: &Path,
    steps: &Steps<'_>,
) -> Result<Limit, ExperimentError> {
    let mut search = Search::new(w.spec, w.replications, w.rho);
    if w.family.offered(1.0).is_some() {
        search = search.guided();
    }
    // rounds run so far; the search's progress is theirs out of those and the rounds it
    // expects still to run (its own estimate, given as each round starts)
    let (mut rounds, mut span) = (0u64, None);
    while let Some(request) = search.ask() {
        if request.pilot {
            let runs = run_reps(w, (&request, [0, 0]), None, (file, steps))?;
            search.record_pilot(&request, &runs[0], w.family.offered(request.load));
            continue;
        }
        if request.reps.start == request.round * w.replications {
            let left = search.rounds_left();
            span = crate::progress::current().map(|s| s.part(rounds, rounds + left));
            rounds += 1;
        }
        let p = search.probe(request.probe);
        let prior = [p.counts[0], p.counts[1]];
        let runs = crate::progress::within(span.clone(), || {
            run_reps(w, (&request, prior), span.as_ref(), (file, steps))
        })?;
        if search.record(&request, &runs) {
            note_round(names, &search, &request, w.rho);
        }
    }
    Ok(search.result())
}

/// The progress line after a round of a probe: its load, what it showed so far, its runs.
fn note_round(names: &Names, search: &Search, request: &Request, rho: (f64, f64)) {
    let p = search.probe(request.probe);
    crate::progress::note(|| {
        format!(
            "{}: limit of {}: probe {} at load {:.4}{}{} {} ({}/{}/{} stable/unstable/\
             inconclusive runs, {:.2e} slots)",
            names.search,
            names.label,
            request.probe + 1,
            p.load,
            names.fraction_of.map_or(String::new(), |of| format!(
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
