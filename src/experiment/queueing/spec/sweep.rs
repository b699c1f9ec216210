//! `[sweep]`: the loads (or arrival rates, fractions of ρ*, traffic scalings) to run at, and ρ*
//! when anything asks for it.

use super::schema::{RawExperiment, RawSweep};
use super::{Point, QueueConstraints, QueueNuma, SweepKind, Workload};
use crate::configurations::region::RegionError;
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::limits::{MAX_ARRIVALS_PER_SLOT, MAX_SLOTS_PER_RUN};
use crate::model::Size;
use crate::stability::perfect::{self, PerfectPacking};
use crate::stability::region::{
    EXACT_GRIDS, bracket_capped, exact_grid, rho_star as exact_rho_star,
};
use crate::workload::{Arrivals, ServiceLaw, SizeLaw};

/// Arrival rate per unit of traffic intensity, L / (E\[R\] E\[S\]) jobs per slot.
pub(in crate::experiment::queueing) fn rate_per_load(
    servers: usize,
    sizes: &SizeLaw,
    service: &ServiceLaw,
) -> f64 {
    servers as f64 / (sizes.mean() * service.mean())
}

/// Equal intervals of Theorem 1's bracket on ρ* for a law that neither packs perfectly nor has
/// at most [`EXACT_ATOMS`] sizes, unless `workload.rho_star_intervals` says otherwise. On 512
/// the bracket's lower end falls short of ρ* by about 1/(1024 E\[R\]) (0.24 % at E\[R\] =
/// 0.4, a quarter of what 128 gave), and the linear programme takes about a second
/// (docs/performance.md, "ρ*'s bracket").
pub(in crate::experiment::queueing) const BRACKET_INTERVALS: usize = 512;

/// The fewest and the most intervals `workload.rho_star_intervals` takes: 1,280 brings the
/// bracket within 0.1 % of ρ* at E\[R\] = 0.4 in seconds, while 2,048 took minutes for
/// Unif\[0.3, 0.9\] (docs/performance.md, "ρ*'s bracket").
const INTERVALS_RANGE: (i64, i64) = (8, 1280);

/// `workload.rho_star_intervals`, validated: `None` for the default [`BRACKET_INTERVALS`].
fn intervals(cx: &Ctx<'_>, raw: &RawExperiment) -> Result<Option<usize>, ExperimentError> {
    let Some(n) = raw.workload.rho_star_intervals else {
        return Ok(None);
    };
    let (lo, hi) = INTERVALS_RANGE;
    if !(lo..=hi).contains(&n) || !exact_grid(n as u64) {
        return Err(cx.bad(
            "workload.rho_star_intervals",
            &format!(
                "a number of equal intervals of Theorem 1's bracket on ρ* from {lo} to {hi} \
                 {EXACT_GRIDS}: for example 512, 640, 768, 1000, 1024, 1280"
            ),
            n,
        ));
    }
    Ok(Some(n as usize))
}

/// Most sizes whose ρ* is the exact linear programme over their configurations.
const EXACT_ATOMS: usize = 256;

/// Where ρ* of a size law comes from: the one decision [`rho_star_of`] and [`rho_star_how`]
/// both read.
enum Source {
    /// A perfect packing ([`perfect::of`]).
    Perfect(PerfectPacking),
    /// The exact linear programme over the configurations of at most [`EXACT_ATOMS`] sizes.
    Exact(Vec<(Size, f64)>),
    /// Theorem 1's bracket on equal intervals.
    Bracket,
}

impl Source {
    fn of(law: &SizeLaw) -> Self {
        if let Some(p) = perfect::of(law) {
            return Source::Perfect(p);
        }
        match law.atoms() {
            Some(atoms) if atoms.len() <= EXACT_ATOMS => Source::Exact(atoms),
            _ => Source::Bracket,
        }
    }
}

/// ρ* of a size law as a traffic intensity (low, high): from a perfect packing where one is
/// shown ([`perfect::of`]), exact for finitely many sizes, else Theorem 1's bracket on
/// `intervals` equal intervals (its upper end capped at 1).
pub(crate) fn rho_star_of(law: &SizeLaw, intervals: usize) -> Result<(f64, f64), RegionError> {
    match Source::of(law) {
        Source::Perfect(p) => Ok(p.rho_star(law.mean())),
        Source::Exact(atoms) => {
            let r = exact_rho_star(&atoms)?;
            Ok((r.traffic, r.traffic))
        }
        Source::Bracket => {
            let b = bracket_capped(law, intervals)?;
            Ok((b.lower_bound, b.upper_bound))
        }
    }
}

/// How [`rho_star_of`] found ρ* of `law`, in words, for reports.
pub(in crate::experiment::queueing) fn rho_star_how(law: &SizeLaw, intervals: usize) -> String {
    match Source::of(law) {
        Source::Perfect(p) => p.describe(),
        Source::Exact(_) => {
            "exact: the linear programme over the configurations of the sizes".to_string()
        }
        Source::Bracket => format!("Theorem 1's bracket on {intervals} intervals"),
    }
}

/// ρ* as the file asks for it.
pub(in crate::experiment::queueing) struct RhoStar {
    /// ρ* as [`rho_star_at`] finds it (`None` if nothing is relative to it).
    pub(in crate::experiment::queueing) value: Option<(f64, f64)>,
    /// `workload.rho_star_intervals`, validated whether or not ρ* is needed (`None`: the
    /// default, [`BRACKET_INTERVALS`]).
    pub(in crate::experiment::queueing) intervals: Option<usize>,
}

/// ρ* and the bracket's intervals as the file asks for them ([`RhoStar`]).
pub(in crate::experiment::queueing) fn rho_star(
    cx: &Ctx<'_>,
    raw: &RawExperiment,
    workload: &Workload,
    numa: Option<&QueueNuma>,
    constraints: Option<&QueueConstraints>,
) -> Result<RhoStar, ExperimentError> {
    let intervals = intervals(cx, raw)?;
    let n = intervals.unwrap_or(BRACKET_INTERVALS);
    let value = rho_star_at(cx, raw, workload, numa, constraints, n)?;
    Ok(RhoStar { value, intervals })
}

/// ρ*, if the sweep, a claim or a plot is relative to it (then the workload must have one
/// resource), a bracketed one on `intervals` equal intervals.
fn rho_star_at(
    cx: &Ctx<'_>,
    raw: &RawExperiment,
    workload: &Workload,
    numa: Option<&QueueNuma>,
    constraints: Option<&QueueConstraints>,
    intervals: usize,
) -> Result<Option<(f64, f64)>, ExperimentError> {
    let needs_rho = raw.sweep.as_ref().is_some_and(|s| s.fraction.is_some())
        || raw.claim.iter().any(|c| {
            c.fraction.is_some()
                || matches!(
                    c.kind.as_deref(),
                    Some("threshold" | "saturation" | "limit-order")
                )
        })
        || raw.plot.iter().any(|p| p.fraction.is_some());
    if !needs_rho {
        return Ok(None);
    }
    if workload.dims() > 1 {
        return Err(cx.bad(
            "sweep",
            "`load` or `arrival_rate` and no threshold claims for request vectors (ρ* is computed for one resource; [compaction] finds stability limits)",
            "`fraction` or a threshold claim",
        ));
    }
    if let Some(n) = numa {
        // on servers with NUMA nodes, ρ* of the file's strict share, by the LP over nodes
        return match n.rho {
            Some(r) => Ok(Some((r.mixed, r.mixed))),
            None => Err(cx.bad(
                "sweep",
                "`load` or `arrival_rate` and no threshold claims with [numa] unless the sizes are finitely many (ρ* with NUMA nodes enumerates configurations)",
                "`fraction` or a threshold claim",
            )),
        };
    }
    if let Some(q) = constraints {
        // with placement constraints, ρ* of the constrained programme over server groups
        return match q.rho {
            Some((constrained, _)) => Ok(Some((constrained, constrained))),
            None => Err(cx.bad(
                "sweep",
                "`load` or `arrival_rate` and no threshold claims with [constraints] unless the sizes are finitely many (ρ* with constraints enumerates configurations)",
                "`fraction` or a threshold claim",
            )),
        };
    }
    rho_star_of(workload.sizes(), intervals)
        .map(Some)
        .map_err(|e| cx.bad("workload.sizes", "a workload whose ρ* can be computed", e))
}

/// The sweep's kind and points.
pub(in crate::experiment::queueing) fn points(
    cx: &Ctx<'_>,
    raw: &RawSweep,
    workload: &Workload,
    servers: usize,
    rho_star: Option<(f64, f64)>,
) -> Result<(SweepKind, Vec<Point>), ExperimentError> {
    let trace = workload.trace();
    let (sweep, key, values) = match (
        &raw.load,
        &raw.arrival_rate,
        &raw.fraction,
        &raw.scaling,
        trace,
    ) {
        (None, None, None, Some(c), Some(_)) => (SweepKind::Scaling, "sweep.scaling", c),
        (_, _, _, _, Some(_)) => {
            return Err(cx.bad(
                "sweep",
                "`scaling` (traffic scaling c, arrival times divided by c) alone, for a trace",
                "another key",
            ));
        }
        (Some(l), None, None, None, None) => (SweepKind::Load, "sweep.load", l),
        (None, Some(r), None, None, None) => (SweepKind::ArrivalRate, "sweep.arrival_rate", r),
        (None, None, Some(f), None, None) => (SweepKind::Fraction, "sweep.fraction", f),
        _ => {
            return Err(cx.bad(
                "sweep",
                "exactly one of `load`, `arrival_rate` or `fraction` (`scaling` needs workload.trace)",
                "several or none",
            ));
        }
    };
    if values.is_empty() {
        return Err(cx.bad(key, "a non-empty list of values", "[]"));
    }
    cx.short_list(key, values)?;
    let to_rate = rate_per_load(servers, workload.sizes(), workload.service());
    let rho_mid = rho_star.map_or(f64::NAN, |(a, b)| (a + b) / 2.0);
    let mut points = Vec::with_capacity(values.len());
    for &v in values {
        if !v.is_finite() || v <= 0.0 {
            return Err(cx.bad(key, "values > 0", v));
        }
        let (load, rate) = match sweep {
            SweepKind::Scaling => {
                let (spec, t) = trace.ok_or_else(|| cx.bad(key, "a trace to scale", v))?;
                (t.load(spec, v, servers), t.rate(spec, v))
            }
            SweepKind::Load => (v, v * to_rate),
            SweepKind::ArrivalRate => (v / to_rate, v),
            SweepKind::Fraction => (v * rho_mid, v * rho_mid * to_rate),
        };
        if trace.is_none() && rate > MAX_ARRIVALS_PER_SLOT {
            return Err(cx.bad(
                key,
                &format!(
                    "values giving at most {MAX_ARRIVALS_PER_SLOT:.0e} expected arrivals per slot"
                ),
                format!("{v} (arrival rate {rate:.4e} jobs per slot)"),
            ));
        }
        if let (Some((_, t)), SweepKind::Scaling) = (trace, sweep) {
            // a slot at scaling v spans v slots of the trace, so it meets at most
            // ⌈v⌉ + 1 of them
            let most = t.burst as f64 * (v.ceil() + 1.0);
            if most > MAX_ARRIVALS_PER_SLOT {
                return Err(cx.bad(
                    key,
                    &format!(
                        "values for which a slot receives at most {MAX_ARRIVALS_PER_SLOT:.0e} \
                         jobs (the trace's busiest slot holds {} jobs at scaling 1)",
                        t.burst
                    ),
                    format!("{v} (up to {most:.3e} jobs in one slot)"),
                ));
            }
        }
        if let Some((spec, t)) = trace {
            // a run is its window: at this scaling, this many slots
            let slots = t.slots(spec, v, 1) as f64;
            if slots > MAX_SLOTS_PER_RUN {
                return Err(cx.bad(
                    key,
                    &format!(
                        "values giving at most {MAX_SLOTS_PER_RUN:.0e} slots per replay (the \
                         window's span / (scaling · workload.trace.slot))"
                    ),
                    if (1e-4..1e9).contains(&v.abs()) {
                        format!("{v} ({slots:.3e} slots)")
                    } else {
                        format!("{v:e} ({slots:.3e} slots)")
                    },
                ));
            }
        }
        if trace.is_none() {
            Arrivals::new(workload.arrivals(), rate).map_err(|e| {
                cx.bad(
                    key,
                    &format!("values giving {e}"),
                    format!("{v} (arrival rate {rate})"),
                )
            })?;
        }
        if points.iter().any(|p: &Point| p.key == v) {
            return Err(cx.bad(key, "distinct values", v));
        }
        points.push(Point {
            load,
            arrival_rate: rate,
            key: v,
        });
    }
    Ok((sweep, points))
}

/// Finds the sweep point a plot or claim names.
pub(in crate::experiment::queueing) struct Finder<'a> {
    pub(crate) cx: &'a Ctx<'a>,
    pub(crate) sweep: SweepKind,
    pub(crate) points: &'a [Point],
}

impl Finder<'_> {
    /// The point named by `at` = (load, arrival_rate, fraction, scaling) in table `table`
    /// (`claim[0]`, `plot[1]`): exactly the quantity the sweep varies, and one of its values;
    /// an error names the key the table gave.
    pub(crate) fn find(&self, table: &str, at: [Option<f64>; 4]) -> Result<usize, ExperimentError> {
        // the key as the file wrote it: the one given (the first, if several), else the one
        // the sweep varies
        const KEYS: [&str; 4] = ["load", "arrival_rate", "fraction", "scaling"];
        let own = match self.sweep {
            SweepKind::Load => 0,
            SweepKind::ArrivalRate => 1,
            SweepKind::Fraction => 2,
            SweepKind::Scaling => 3,
        };
        let given = at.iter().position(Option::is_some).unwrap_or(own);
        let key = &format!("{table}.{}", KEYS[given]);
        let (want, name) = match (self.sweep, at) {
            (SweepKind::Load, [Some(l), None, None, None]) => (l, "sweep.load"),
            (SweepKind::ArrivalRate, [None, Some(r), None, None]) => (r, "sweep.arrival_rate"),
            (SweepKind::Fraction, [None, None, Some(f), None]) => (f, "sweep.fraction"),
            (SweepKind::Scaling, [None, None, None, Some(c)]) => (c, "sweep.scaling"),
            _ => {
                let which = match self.sweep {
                    SweepKind::Load => "`load`",
                    SweepKind::ArrivalRate => "`arrival_rate`",
                    SweepKind::Fraction => "`fraction`",
                    SweepKind::Scaling => "`scaling`",
                };
                return Err(self.cx.bad(
                    key,
                    &format!("{which}, the quantity the sweep varies"),
                    "another one or none",
                ));
            }
        };
        self.points
            .iter()
            .position(|p| p.key == want)
            .ok_or_else(|| self.cx.bad(key, &format!("a value listed in {name}"), want))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Size;

    fn s(x: f64) -> Size {
        Size::from_f64(x).unwrap()
    }

    /// ρ* from a perfect packing where one is shown, else the bracket.
    #[test]
    fn perfectly_packed_laws_have_rho_star_one() {
        let large = SizeLaw::uniform(s(0.1), s(0.9));
        assert!(perfect::of(&large).is_some());
        assert_eq!(rho_star_of(&large, BRACKET_INTERVALS).unwrap(), (1.0, 1.0));
        let small = SizeLaw::uniform(s(0.1), s(0.5));
        let (a, b) = rho_star_of(&small, BRACKET_INTERVALS).unwrap();
        assert!(1.0 - a < 1e-13 && b == 1.0, "({a}, {b})");
        for (lo, hi) in [(0.35, 0.6), (0.2, 0.9)] {
            let law = SizeLaw::uniform(s(lo), s(hi));
            assert_eq!(perfect::of(&law), None);
            let (a, b) = rho_star_of(&law, BRACKET_INTERVALS).unwrap();
            assert!(
                a <= b && b <= 1.0 && 1.0 - a > 1e-3,
                "[{lo}, {hi}]: ({a}, {b})"
            );
        }
    }

    /// A law with no packing shown and more sizes than the exact programme takes gets the
    /// bracket on 512 intervals, whose lower end is about four times as close to ρ* as 128's,
    /// and its report says so; finitely many sizes are exact.
    #[test]
    fn the_bracket_is_on_512_intervals_and_reports_say_which_rho_star() {
        let law = SizeLaw::uniform(s(0.2), s(0.6));
        let (a, b) = rho_star_of(&law, BRACKET_INTERVALS).unwrap();
        let at = |n| crate::stability::region::bracket(&law, n, n, 0.0).unwrap()[0].lower_bound;
        assert_eq!(a, at(512));
        assert!(1.0 - a < 0.3 * (1.0 - at(128)) && b == 1.0, "({a}, {b})");
        assert_eq!(
            rho_star_how(&law, BRACKET_INTERVALS),
            "Theorem 1's bracket on 512 intervals"
        );
        let two = SizeLaw::discrete(vec![s(0.45), s(0.55)], vec![0.5, 0.5]).unwrap();
        assert!(rho_star_how(&two, BRACKET_INTERVALS).starts_with("exact: the linear programme"));
        assert!(
            rho_star_how(&SizeLaw::uniform(s(0.1), s(0.5)), BRACKET_INTERVALS)
                .starts_with("a perfect packing")
        );
    }

    /// `workload.rho_star_intervals` sets the bracket's intervals, the report says how many,
    /// and a value outside 8 … 1,280, or one that does not divide the fixed-point unit (whose
    /// cuts k/n would not be exact), is refused with the key named.
    #[test]
    fn a_file_may_ask_for_a_finer_bracket_within_bounds() {
        use crate::experiment::queueing::Experiment;
        use std::path::Path;
        let file = |extra: &str| {
            format!(
                "name = \"t\"\n[cluster]\nservers = 2\n[workload]\n{extra}\n\
                 sizes = {{ dist = \"uniform\", low = 0.2, high = 0.6 }}\n\
                 service = {{ dist = \"geometric\", mean = 10.0 }}\n\
                 [run]\nslots = 100000\nreplications = 2\n\
                 [sweep]\nfraction = [0.5]\n[[policy]]\nname = \"bf-js\"\n"
            )
        };
        let law = SizeLaw::uniform(s(0.2), s(0.6));
        let lower = |n| crate::stability::region::bracket(&law, n, n, 0.0).unwrap()[0].lower_bound;
        let default = Experiment::parse(Path::new("t.toml"), &file("")).unwrap();
        assert_eq!(default.rho_star, Some((lower(512), 1.0)));
        let finer =
            Experiment::parse(Path::new("t.toml"), &file("rho_star_intervals = 96")).unwrap();
        assert_eq!(finer.rho_star, Some((lower(96), 1.0)));
        assert_eq!(finer.rho_star_intervals, Some(96));
        assert_eq!(
            rho_star_how(&law, 96),
            "Theorem 1's bracket on 96 intervals"
        );
        // 4 and 2048 out of range, 1152 = 2^7 · 9 and 7 not on the fixed-point grid
        for bad in ["4", "2048", "-1", "1152", "7"] {
            let e = Experiment::parse(
                Path::new("t.toml"),
                &file(&format!("rho_star_intervals = {bad}")),
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("workload.rho_star_intervals")
                    && e.contains("from 8 to 1280 of the form"),
                "{bad}: {e}"
            );
        }
    }
}
