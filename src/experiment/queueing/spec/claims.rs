//! `[[claim]]`: verdicts, stability limits, saturation and rankings, validated against the
//! file's policies and sweep.

use super::QueuePolicy;
use super::SearchSpec;
use super::schema::RawClaim;
use super::sweep::Finder;
use super::{
    ClaimSpec, DelayQuantity, Experiment, MapBoundary, RegionMapSpec, Statistic, Workload,
};
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::experiment::common::kinds::{self, Kind};
use crate::sim::Verdict;

/// One claim table's context: its index, the policies (and their labels), whether a trace is
/// replayed, the region map if any.
pub(crate) struct ClaimCx<'a> {
    at: &'a Finder<'a>,
    i: usize,
    c: &'a RawClaim,
    labels: &'a [String],
    policies: &'a [QueuePolicy],
    traced: bool,
    map: Option<&'a RegionMapSpec>,
}

impl ClaimCx<'_> {
    fn cx(&self) -> &Ctx<'_> {
        self.at.cx
    }

    fn key(&self, k: &str) -> String {
        format!("claim[{}].{k}", self.i)
    }

    /// The policy a label names.
    fn policy_of(&self, name: &str, k: &str) -> Result<usize, ExperimentError> {
        self.labels.iter().position(|l| l == name).ok_or_else(|| {
            self.cx().bad(
                k,
                &format!(
                    "the label of a [[policy]] of this file ({})",
                    self.labels.join(", ")
                ),
                format!("\"{name}\""),
            )
        })
    }

    /// The claim's `policy`, required.
    fn policy(&self) -> Result<usize, ExperimentError> {
        let k = self.key("policy");
        let name = self
            .c
            .policy
            .as_deref()
            .ok_or_else(|| self.cx().bad(&k, "a policy label", "nothing"))?;
        self.policy_of(name, &k)
    }

    /// The sweep point the claim names.
    fn point(&self) -> Result<usize, ExperimentError> {
        let c = self.c;
        self.at.find(
            &format!("claim[{}]", self.i),
            [c.load, c.arrival_rate, c.fraction, c.scaling],
        )
    }
}

/// A claim kind's validator.
type Parse = fn(&ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError>;

/// The keys naming a sweep point.
const POINT: [&str; 4] = ["load", "arrival_rate", "fraction", "scaling"];
/// The keys of a limit search.
const SEARCH: [&str; 4] = ["max_probes", "steps", "resolution", "rounds"];

/// Every kind of `[[claim]]` of a queueing file, the default first: its name, its keys, one
/// line of help and its validator. `--help` lists them and `experiments/README.md` documents
/// each (a test checks every key there).
pub(crate) const CLAIM_KINDS: &[Kind<Parse>] = &[
    Kind {
        name: "verdict",
        keys: &["policy", POINT[0], POINT[1], POINT[2], POINT[3], "expect"],
        help: "the majority verdict of a policy's runs at a point",
        parse: verdict,
    },
    Kind {
        name: "threshold",
        keys: &[
            "policy", "at_least", "at_most", SEARCH[0], SEARCH[1], SEARCH[2], SEARCH[3],
        ],
        help: "a policy's stability limit, searched, against fractions of rho*",
        parse: threshold,
    },
    Kind {
        name: "saturation",
        keys: &["policy", SEARCH[0], SEARCH[1], SEARCH[2], SEARCH[3]],
        help: "a FIFO-service policy's limit beside its saturated throughput",
        parse: saturation,
    },
    Kind {
        name: "ranking",
        keys: &["order", POINT[0], POINT[1], POINT[2], POINT[3], "paired"],
        help: "mean queues increasing in the order given, intervals apart",
        parse: ranking,
    },
    Kind {
        name: "wait",
        keys: &[
            "policy", POINT[0], POINT[1], POINT[2], POINT[3], "quantile", "quantity", "at_most",
            "at_least", "below",
        ],
        help: "a statistic of a policy's waiting or response time at a point",
        parse: wait,
    },
    Kind {
        name: "limit-order",
        keys: &["order", SEARCH[0], SEARCH[1], SEARCH[2], SEARCH[3]],
        help: "several policies' limits separated in the order given",
        parse: limit_order,
    },
    Kind {
        name: "delay-trend",
        keys: &[
            "policy", POINT[0], POINT[1], POINT[2], POINT[3], "at_least", "quantity",
        ],
        help: "with [constraints]: Kendall's tau between u*_c and the delay",
        parse: delay_trend,
    },
    Kind {
        name: "synthesis-error",
        keys: &["at_most"],
        help: "with a re-synthesis: the mean error of the synthesised delays",
        parse: synthesis_error,
    },
    Kind {
        name: "region-fraction",
        keys: &["policy", "at_least", "at_most", "rays"],
        help: "with [region_map]: a policy's limit as fractions of the capacity on its rays",
        parse: region_fraction,
    },
    Kind {
        name: "region-boundary",
        keys: &["policy", "boundary", "rays"],
        help: "with [region_map]: a policy's limit is an exact boundary of the map on its rays",
        parse: region_boundary,
    },
    Kind {
        name: "region-separated",
        keys: &["order", "rays"],
        help: "with [region_map]: two policies' limits separated on every ray",
        parse: region_separated,
    },
];

impl RawClaim {
    /// Each key of a claim table and whether this one has it.
    fn given(&self) -> [(&'static str, bool); 20] {
        [
            ("kind", self.kind.is_some()),
            ("policy", self.policy.is_some()),
            ("load", self.load.is_some()),
            ("arrival_rate", self.arrival_rate.is_some()),
            ("fraction", self.fraction.is_some()),
            ("scaling", self.scaling.is_some()),
            ("expect", self.expect.is_some()),
            ("at_least", self.at_least.is_some()),
            ("at_most", self.at_most.is_some()),
            ("steps", self.steps.is_some()),
            ("max_probes", self.max_probes.is_some()),
            ("resolution", self.resolution.is_some()),
            ("rounds", self.rounds.is_some()),
            ("order", self.order.is_some()),
            ("paired", self.paired.is_some()),
            ("quantity", self.quantity.is_some()),
            ("rays", self.rays.is_some()),
            ("quantile", self.quantile.is_some()),
            ("below", self.below.is_some()),
            ("boundary", self.boundary.is_some()),
        ]
    }
}

/// Validates every `[[claim]]`: its kind one of [`CLAIM_KINDS`], its keys those the kind takes.
pub(in crate::experiment::queueing) fn claims(
    raw: &[RawClaim],
    at: &Finder<'_>,
    policies: &[QueuePolicy],
    labels: &[String],
    workload: &Workload,
    map: Option<&RegionMapSpec>,
) -> Result<Vec<ClaimSpec>, ExperimentError> {
    let traced = workload.trace().is_some();
    raw.iter()
        .enumerate()
        .map(|(i, c)| {
            let k = ClaimCx {
                at,
                i,
                c,
                labels,
                policies,
                traced,
                map,
            };
            let name = c.kind.as_deref().unwrap_or(CLAIM_KINDS[0].name);
            let kind = kinds::find(k.cx(), CLAIM_KINDS, ("claim", &k.key("kind")), name)?;
            kinds::keys_taken(k.cx(), (CLAIM_KINDS, kind), "claim", &c.given(), |key| {
                k.key(key)
            })?;
            (kind.parse)(&k)
        })
        .collect()
}

fn verdict(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    let policy = k.policy()?;
    let point = k.point()?;
    let expect = match k.c.expect.as_deref() {
        Some("stable") => Verdict::Stable,
        Some("unstable") => Verdict::Unstable,
        other => {
            return Err(k.cx().bad(
                &k.key("expect"),
                "\"stable\" or \"unstable\"",
                other.map_or("nothing".into(), |o| format!("\"{o}\"")),
            ));
        }
    };
    Ok(ClaimSpec::Verdict {
        policy,
        point,
        expect,
    })
}

/// Refuses `at_least` above `at_most` (no value can hold both), naming `at_least`.
fn ordered(k: &ClaimCx<'_>, unit: &str) -> Result<(), ExperimentError> {
    match (k.c.at_least, k.c.at_most) {
        (Some(lo), Some(hi)) if lo > hi => Err(k.cx().bad(
            &k.key("at_least"),
            &format!(
                "at most `at_most` ({hi} {unit}): no value is both at least {lo} and at most {hi}"
            ),
            lo,
        )),
        _ => Ok(()),
    }
}

/// Refuses a claim that needs sampled laws of a file that replays a trace.
fn sampled_laws(k: &ClaimCx<'_>, what: &str) -> Result<(), ExperimentError> {
    if k.traced {
        let kind = k.c.kind.as_deref().unwrap_or_default();
        return Err(k.cx().bad(
            &k.key("kind"),
            &format!(
                "\"verdict\" or \"ranking\" for a replayed trace (a {what} needs sampled laws)"
            ),
            format!("\"{kind}\""),
        ));
    }
    Ok(())
}

/// The region map a claim's kind needs.
fn region<'a>(k: &ClaimCx<'a>) -> Result<&'a RegionMapSpec, ExperimentError> {
    k.map.ok_or_else(|| {
        k.cx().bad(
            &k.key("kind"),
            &format!(
                "a [region_map] table for a \"{}\" claim",
                k.c.kind.as_deref().unwrap_or_default()
            ),
            "none",
        )
    })
}

fn threshold(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    sampled_laws(k, "threshold")?;
    let policy = k.policy()?;
    let c = k.c;
    if c.at_least.is_none() && c.at_most.is_none() {
        return Err(k.cx().bad(
            &k.key("at_least"),
            "`at_least` and/or `at_most` (fractions of ρ*)",
            "neither",
        ));
    }
    for (name, v) in [("at_least", c.at_least), ("at_most", c.at_most)] {
        if let Some(v) = v
            && !(v > 0.0 && v <= 1.0)
        {
            return Err(k.cx().bad(&k.key(name), "a fraction of ρ* in (0, 1]", v));
        }
    }
    ordered(k, "of ρ*")?;
    Ok(ClaimSpec::Threshold {
        policy,
        at_least: c.at_least,
        at_most: c.at_most,
        search: search(k)?,
    })
}

fn saturation(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    let (policies, traced) = (k.policies, k.traced);
    let policy = k.policy()?;
    if traced {
        return Err(k.cx().bad(
            &k.key("kind"),
            "sampled single-resource laws for a saturation claim",
            "\"saturation\"",
        ));
    }
    if policies[policy].is_scored() {
        return Err(k.cx().bad(
            &k.key("policy"),
            "a single-resource policy for a saturation claim (the saturated system is \
             simulated on one resource)",
            format!("\"{}\"", k.labels[policy]),
        ));
    }
    if !policies[policy].saturation_rule() {
        return Err(k.cx().bad(
            &k.key("policy"),
            "a policy that serves jobs in arrival order (its entry declares fifo_service, as \
             fifo-ff's does): the saturation rule holds for FIFO service only, and the \
             saturated system simulated is the policy itself (BF-J/S and VQS choose among \
             waiting jobs, so a queue that never empties is not the queue they face at their \
             limit)",
            format!("\"{}\"", k.labels[policy]),
        ));
    }
    Ok(ClaimSpec::Saturation {
        policy,
        search: search(k)?,
    })
}

/// The claim's `order`: at least two distinct policy labels.
fn order(k: &ClaimCx<'_>, what: &str) -> Result<Vec<usize>, ExperimentError> {
    let names =
        k.c.order
            .as_ref()
            .ok_or_else(|| k.cx().bad(&k.key("order"), what, "nothing"))?;
    if names.len() < 2 {
        return Err(k
            .cx()
            .bad(&k.key("order"), "at least two policies", names.len()));
    }
    let order = names
        .iter()
        .map(|n| k.policy_of(n, &k.key("order")))
        .collect::<Result<Vec<_>, _>>()?;
    if (1..order.len()).any(|i| order[..i].contains(&order[i])) {
        return Err(k
            .cx()
            .bad(&k.key("order"), "distinct policies", format!("{names:?}")));
    }
    Ok(order)
}

fn limit_order(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    sampled_laws(k, "limit")?;
    Ok(ClaimSpec::LimitOrder {
        order: order(k, "a list of policy labels, lowest stability limit first")?,
        search: search(k)?,
    })
}

fn delay_trend(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    let policy = k.policy()?;
    let point = k.point()?;
    let at_least = match k.c.at_least {
        Some(t) if t > -1.0 && t <= 1.0 => t,
        other => {
            return Err(k.cx().bad(
                &k.key("at_least"),
                "Kendall's τ between u*_c and the normalised delay, in (−1, 1]",
                other.map_or("nothing".into(), |t| t.to_string()),
            ));
        }
    };
    let paper = match k.c.quantity.as_deref() {
        None | Some("normalised") => true,
        Some("over-all-jobs") => false,
        Some(other) => {
            return Err(k.cx().bad(
                &k.key("quantity"),
                "\"normalised\" (Sharma et al.'s: over the same jobs' wait with the constraints \
                 lifted; the default) or \"over-all-jobs\" (ours: over all jobs' mean wait)",
                format!("\"{other}\""),
            ));
        }
    };
    Ok(ClaimSpec::DelayTrend {
        policy,
        point,
        at_least,
        paper,
    })
}

fn synthesis_error(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    match k.c.at_most {
        Some(e) if e > 0.0 && e.is_finite() => Ok(ClaimSpec::SynthesisError { at_most: e }),
        other => Err(k.cx().bad(
            &k.key("at_most"),
            "the largest mean absolute relative error of the mean wait, a number > 0 (0.13 for 13 %)",
            other.map_or("nothing".into(), |e| e.to_string()),
        )),
    }
}

/// A map claim's `rays`: directions of the map, in degrees (all of them if absent).
fn map_rays(k: &ClaimCx<'_>, map: &RegionMapSpec) -> Result<Vec<usize>, ExperimentError> {
    let Some(list) = &k.c.rays else {
        return Ok(Vec::new());
    };
    if list.is_empty() {
        return Err(k.cx().bad(
            &k.key("rays"),
            "at least one direction of the map (or no `rays`: all of them)",
            "[]",
        ));
    }
    list.iter()
        .map(|&d| {
            map.ray_at(d).ok_or_else(|| {
                let have: Vec<String> =
                    map.rays.iter().map(|r| super::degrees(r.degrees)).collect();
                k.cx().bad(
                    &k.key("rays"),
                    &format!("directions of the map, degrees ({})", have.join(", ")),
                    d,
                )
            })
        })
        .collect()
}

/// A map claim's policy must be one the map searches.
fn mapped(
    k: &ClaimCx<'_>,
    map: &RegionMapSpec,
    p: usize,
    key: &str,
) -> Result<usize, ExperimentError> {
    if map.policies.contains(&p) {
        Ok(p)
    } else {
        Err(k.cx().bad(
            &k.key(key),
            "a policy of region_map.policies",
            format!("\"{}\"", k.labels[p]),
        ))
    }
}

fn region_fraction(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    let map = region(k)?;
    let policy = mapped(k, map, k.policy()?, "policy")?;
    let c = k.c;
    if c.at_least.is_none() && c.at_most.is_none() {
        return Err(k.cx().bad(
            &k.key("at_least"),
            "`at_least` and/or `at_most` (fractions of the capacity along each ray)",
            "neither",
        ));
    }
    for (name, v) in [("at_least", c.at_least), ("at_most", c.at_most)] {
        if let Some(v) = v
            && !(v > 0.0 && v <= 1.0)
        {
            return Err(k.cx().bad(
                &k.key(name),
                "a fraction of the capacity along the ray, in (0, 1]",
                v,
            ));
        }
    }
    ordered(k, "of the capacity")?;
    Ok(ClaimSpec::RegionFraction {
        policy,
        at_least: c.at_least,
        at_most: c.at_most,
        rays: map_rays(k, map)?,
    })
}

/// `region-boundary`: the boundary the policy's limit is expected to be, one of the map's.
fn region_boundary(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    let map = region(k)?;
    let policy = mapped(k, map, k.policy()?, "policy")?;
    let words = "one of the map's boundaries: \"capacity\", \"kred\", \"dyadic\", \"half\", \
                 \"two-thirds\" (of one resource), or \"restricted\" (with [numa] or \
                 [constraints])";
    let boundary = match k.c.boundary.as_deref() {
        None => return Err(k.cx().bad(&k.key("boundary"), words, "nothing")),
        Some(b) => MapBoundary::parse(b)
            .ok_or_else(|| k.cx().bad(&k.key("boundary"), words, format!("\"{b}\"")))?,
    };
    let one_resource = map.vectors.is_none();
    let restricted = map.rays.iter().all(|r| r.restricted.is_some());
    let available = match boundary {
        MapBoundary::Capacity => true,
        MapBoundary::Restricted => restricted,
        _ => one_resource,
    };
    if !available {
        return Err(k.cx().bad(
            &k.key("boundary"),
            if boundary == MapBoundary::Restricted {
                "a boundary this map computes (\"restricted\" needs [numa] or [constraints])"
            } else {
                "a boundary this map computes (K_RED, the dyadic set and the guarantees are of \
                 one resource, not of request vectors)"
            },
            format!("\"{}\"", boundary.key()),
        ));
    }
    Ok(ClaimSpec::RegionBoundary {
        policy,
        boundary,
        rays: map_rays(k, map)?,
    })
}

fn region_separated(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    let map = region(k)?;
    let order = order(k, "two policy labels, the lower region first")?;
    if order.len() != 2 {
        return Err(k
            .cx()
            .bad(&k.key("order"), "exactly two policies", order.len()));
    }
    Ok(ClaimSpec::RegionSeparated {
        order: [
            mapped(k, map, order[0], "order")?,
            mapped(k, map, order[1], "order")?,
        ],
        rays: map_rays(k, map)?,
    })
}

/// `kind = "wait"`: `quantile` (`mean`, `p50`, `p90`, `p99` default, `p99.9`), `quantity`
/// (`wait` default, `response`), and one or more of `at_most`, `at_least` (slots) and `below`
/// (another policy's label).
fn wait(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    let (cx, c) = (k.cx(), k.c);
    let policy = k.policy()?;
    let below = match &c.below {
        None => None,
        Some(name) => {
            let b = k.policy_of(name, &k.key("below"))?;
            if b == policy {
                return Err(cx.bad(
                    &k.key("below"),
                    "another policy's label",
                    format!("\"{name}\""),
                ));
            }
            Some(b)
        }
    };
    for (key, v) in [("at_most", c.at_most), ("at_least", c.at_least)] {
        if let Some(v) = v
            && !(v.is_finite() && v >= 0.0)
        {
            return Err(cx.bad(&k.key(key), "a number of slots ≥ 0", v));
        }
    }
    if c.at_most.is_none() && c.at_least.is_none() && below.is_none() {
        return Err(cx.bad(
            &k.key("at_most"),
            "at least one of `at_most`, `at_least` (slots) or `below` (a policy label)",
            "none",
        ));
    }
    ordered(k, "slots")?;
    Ok(ClaimSpec::Wait {
        policy,
        point: k.point()?,
        statistic: Statistic::parse(
            cx,
            &k.key("quantile"),
            c.quantile.as_deref(),
            Statistic::Quantile(2),
        )?,
        quantity: DelayQuantity::parse(cx, &k.key("quantity"), c.quantity.as_deref())?,
        at_most: c.at_most,
        at_least: c.at_least,
        below,
    })
}

fn ranking(k: &ClaimCx<'_>) -> Result<ClaimSpec, ExperimentError> {
    let order = order(k, "a list of policy labels, best first")?;
    Ok(ClaimSpec::Ranking {
        order,
        point: k.point()?,
        paired: k.c.paired.unwrap_or(false),
    })
}

/// A threshold or saturation claim's search: `resolution` (fraction of ρ*, default 0.01),
/// `max_probes` (or its older name `steps`; default 16) and `rounds` per probe (default 3).
fn search(k: &ClaimCx<'_>) -> Result<SearchSpec, ExperimentError> {
    let (cx, c) = (k.cx(), k.c);
    let max_probes = match (c.max_probes, c.steps) {
        (Some(_), Some(_)) => {
            return Err(cx.bad(
                &k.key("steps"),
                "`max_probes` or its older name `steps`, not both",
                "both",
            ));
        }
        (None, None) => 16,
        (Some(s), None) | (None, Some(s)) if (1..=60).contains(&s) => s as u32,
        (Some(s), None) | (None, Some(s)) => {
            return Err(cx.bad(&k.key("max_probes"), "an integer in [1, 60]", s));
        }
    };
    let resolution = match c.resolution {
        None => 0.01,
        Some(r) if r > 0.0 && r < 1.0 => r,
        Some(r) => {
            return Err(cx.bad(&k.key("resolution"), "a fraction of ρ* in (0, 1)", r));
        }
    };
    let rounds = match c.rounds {
        None => 3,
        Some(r) if (1..=20).contains(&r) => r as u32,
        Some(r) => return Err(cx.bad(&k.key("rounds"), "an integer in [1, 20]", r)),
    };
    Ok(SearchSpec {
        resolution,
        max_probes,
        rounds,
    })
}

/// Refuses claims the file's own settings make impossible to pass, before anything runs: a
/// ranking compares 95 % intervals, so it needs two replications (unless a trace is replayed
/// as one deterministic window).
pub(in crate::experiment::queueing) fn passable(
    cx: &Ctx<'_>,
    exp: &Experiment,
) -> Result<(), ExperimentError> {
    let exact = exp.workload.trace().is_some() && exp.run.replications == 1;
    for (i, c) in exp.claims.iter().enumerate() {
        if matches!(c, ClaimSpec::DelayTrend { .. }) && exp.constraints.is_none() {
            return Err(cx.bad(
                &format!("claim[{i}].kind"),
                "a [constraints] table for a \"delay-trend\" claim",
                "none",
            ));
        }
        if matches!(c, ClaimSpec::DelayTrend { paper: true, .. })
            && exp
                .constraints
                .as_ref()
                .is_some_and(|q| !q.compare_unconstrained)
        {
            return Err(cx.bad(
                &format!("claim[{i}].quantity"),
                "\"over-all-jobs\" when [constraints] compare_unconstrained = false (Sharma et \
                 al.'s normalised delay needs the runs without constraints)",
                "\"normalised\" (the default)",
            ));
        }
        if matches!(c, ClaimSpec::SynthesisError { .. })
            && !exp.constraints.as_ref().is_some_and(|q| q.validates())
        {
            return Err(cx.bad(
                &format!("claim[{i}].kind"),
                "[constraints] with resynthesise (true, \"tasks\" or \"machines\") for a \"synthesis-error\" claim",
                "no synthesis validation",
            ));
        }
        if matches!(c, ClaimSpec::Ranking { .. }) && !exact && exp.run.replications < 2 {
            return Err(cx.bad(
                &format!("claim[{i}]"),
                "run.replications ≥ 2 for a ranking claim (it compares 95 % intervals of the \
                 replications' means)",
                "run.replications = 1",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference's section of `[[claim]] kind = "name"`: from its heading line to the next
    /// kind's or the next table's.
    fn section<'a>(reference: &'a str, name: &str) -> &'a str {
        let start = reference
            .find(&format!("`kind = \"{name}\"`"))
            .unwrap_or_else(|| panic!("experiments/README.md has no `kind = \"{name}\"`"));
        let rest = &reference[start + 1..];
        let end = [rest.find("\n`kind = \""), rest.find("\n### ")]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(rest.len());
        &reference[start..start + 1 + end]
    }

    /// Every claim kind is documented in the experiment reference with every key it takes.
    #[test]
    fn every_claim_kind_and_key_is_in_the_reference() {
        let reference = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/experiments/README.md"
        ))
        .unwrap();
        let claims = &reference[reference.find("### `[[claim]]`").unwrap()..];
        for kind in CLAIM_KINDS {
            let text = section(claims, kind.name);
            for key in kind.keys {
                // the search's keys are documented once, for threshold claims
                let searched = SEARCH.contains(key) && kind.name != "threshold";
                assert!(
                    searched || text.contains(&format!("`{key}`")),
                    "experiments/README.md: the `{}` claim's section does not name `{key}`",
                    kind.name
                );
            }
        }
    }

    /// A key the claim's kind does not take is refused, naming it and the kind's keys; a kind
    /// that is no kind is refused with the closest one.
    #[test]
    fn a_key_of_another_kind_and_a_misspelt_kind_are_refused() {
        let file = |claim: &str| {
            format!(
                "name = \"k\"\n[cluster]\nservers = 2\n[workload]\n\
                 sizes = {{ dist = \"uniform\", low = 0.1, high = 0.5 }}\n\
                 service = {{ dist = \"geometric\", mean = 10.0 }}\n[run]\nslots = 1000\n\
                 [sweep]\nload = [0.5]\n[[policy]]\nname = \"bf-js\"\n[[claim]]\n{claim}"
            )
        };
        let refused = |claim: &str| {
            Experiment::parse(std::path::Path::new("k.toml"), &file(claim))
                .err()
                .unwrap_or_else(|| panic!("accepted: {claim}"))
                .to_string()
        };
        let e = refused("policy = \"bf-js\"\nload = 0.5\nexpect = \"stable\"\nresolution = 0.1\n");
        assert!(
            e.contains("`resolution` of [[claim]] #1")
                && e.contains("only the keys a \"verdict\" claim takes")
                && e.contains("`expect`"),
            "{e}"
        );
        let e = refused("kind = \"treshold\"\npolicy = \"bf-js\"\nat_least = 0.5\n");
        assert!(e.contains("did you mean \"threshold\"?"), "{e}");
        // the keys a kind takes are accepted
        assert!(
            Experiment::parse(
                std::path::Path::new("k.toml"),
                &file("kind = \"threshold\"\npolicy = \"bf-js\"\nat_least = 0.5\nrounds = 2\n")
            )
            .is_ok()
        );
    }
}
