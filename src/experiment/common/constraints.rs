//! `[constraints]`: a constraint characterisation to synthesise placement constraints from
//! (Sharma et al., SoCC 2011, Algorithms 2 and 3): the vocabulary of constraints, the values
//! each attribute can take, and the machine and task statistical clusters (occurrence
//! fraction `share`, constraint frequency vector `frequency`, one entry per vocabulary item).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::Ctx;
use crate::constraints::{Characterisation, Constraint, StatCluster, is_number};
use crate::experiment::ExperimentError;

/// Vocabulary items and statistical clusters at most (a characterisation is a summary).
pub(crate) const MAX_VOCABULARY: usize = 1000;

/// `[constraints]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawConstraints {
    pub(crate) vocabulary: Vec<String>,
    pub(crate) values: BTreeMap<String, Vec<toml::Value>>,
    pub(crate) machines: Vec<RawCluster>,
    pub(crate) tasks: Vec<RawCluster>,
    /// Queueing files: also run every policy on a cluster re-synthesised from a
    /// characterisation of this one (the synthesis validation): `true` or "both", "tasks",
    /// "machines" (checked where it is used).
    pub(crate) resynthesise: Option<toml::Value>,
    /// Queueing files, with a re-synthesis of the servers: draw them by quota
    /// ([`Characterisation::machines_by_quota`]) instead of Algorithm 2's independent draws.
    pub(crate) quota: Option<bool>,
    /// Queueing files: run every replication again on the same random streams with the
    /// constraints lifted, for Sharma et al.'s normalised scheduling delay (default true).
    pub(crate) compare_unconstrained: Option<bool>,
}

/// `[[constraints.machines]]` / `[[constraints.tasks]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCluster {
    pub(crate) share: f64,
    pub(crate) frequency: Vec<f64>,
}

/// The characterisation, validated: every vocabulary item reads as a constraint on an
/// attribute with values, with an operator its type allows (numeric when every value is a
/// number); shares add up to 1; one frequency in [0, 1] per vocabulary item.
pub(crate) fn characterisation(
    cx: &Ctx<'_>,
    raw: &RawConstraints,
) -> Result<Characterisation, ExperimentError> {
    if raw.vocabulary.is_empty() || raw.vocabulary.len() > MAX_VOCABULARY {
        return Err(cx.bad(
            "constraints.vocabulary",
            &format!("1 to {MAX_VOCABULARY} constraints `attribute op value`"),
            raw.vocabulary.len(),
        ));
    }
    let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (attr, vs) in &raw.values {
        let key = format!("constraints.values.{attr}");
        if vs.is_empty() || vs.len() > MAX_VOCABULARY {
            return Err(cx.bad(&key, "a list of 1 to 1000 values", vs.len()));
        }
        let text = vs
            .iter()
            .map(|v| match v {
                toml::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
                toml::Value::Integer(i) => Ok(i.to_string()),
                toml::Value::Float(f) if f.is_finite() => Ok(f.to_string()),
                other => Err(cx.bad(&key, "strings or finite numbers", other)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        values.insert(attr.clone(), text);
    }
    let mut vocabulary = Vec::new();
    for (i, t) in raw.vocabulary.iter().enumerate() {
        let key = format!("constraints.vocabulary[{i}]");
        let c = Constraint::parse(t).map_err(|e| cx.bad(&key, "`attribute op value`", e))?;
        let vs = values.get(&c.attr).ok_or_else(|| {
            cx.bad(
                &format!("constraints.values.{}", c.attr),
                &format!("the values attribute `{}` can take (`{t}` uses it)", c.attr),
                "none",
            )
        })?;
        let numeric = vs.iter().all(|v| is_number(v));
        if !numeric && !c.op.is_equality() {
            return Err(cx.bad(
                &key,
                &format!(
                    "= or != on categorical attribute `{}` (a value of it is not a number)",
                    c.attr
                ),
                t,
            ));
        }
        if numeric && !is_number(&c.value) {
            return Err(cx.bad(&key, &format!("a number: `{}` is numeric", c.attr), t));
        }
        if vocabulary.contains(&c) {
            return Err(cx.bad(&key, "each constraint once", t));
        }
        vocabulary.push(c);
    }
    if let Some(a) = values
        .keys()
        .find(|a| !vocabulary.iter().any(|c| c.attr == **a))
    {
        return Err(cx.bad(
            &format!("constraints.values.{a}"),
            "values only for attributes the vocabulary uses",
            a,
        ));
    }
    let machines = clusters(cx, "machines", &raw.machines, vocabulary.len())?;
    attainable(cx, &machines, &vocabulary, &values)?;
    Ok(Characterisation {
        machines,
        tasks: clusters(cx, "tasks", &raw.tasks, vocabulary.len())?,
        vocabulary,
        values,
    })
}

/// `[[constraints.machines]]` or `[[constraints.tasks]]` (`what`), validated: 1 to 1000
/// clusters, shares in (0, 1] adding up to 1, one frequency in [0, 1] per vocabulary item.
fn clusters(
    cx: &Ctx<'_>,
    what: &str,
    raw: &[RawCluster],
    items: usize,
) -> Result<Vec<StatCluster>, ExperimentError> {
    if raw.is_empty() || raw.len() > MAX_VOCABULARY {
        return Err(cx.bad(
            &format!("constraints.{what}"),
            "1 to 1000 statistical clusters",
            raw.len(),
        ));
    }
    let mut sum = 0.0;
    for (k, c) in raw.iter().enumerate() {
        let key = format!("constraints.{what}[{k}]");
        if !(c.share.is_finite() && c.share > 0.0 && c.share <= 1.0) {
            return Err(cx.bad(&format!("{key}.share"), "a fraction in (0, 1]", c.share));
        }
        sum += c.share;
        if c.frequency.len() != items {
            return Err(cx.bad(
                &format!("{key}.frequency"),
                &format!("one fraction per vocabulary item ({items})"),
                c.frequency.len(),
            ));
        }
        if let Some(f) = c
            .frequency
            .iter()
            .find(|f| !(f.is_finite() && (0.0..=1.0).contains(*f)))
        {
            return Err(cx.bad(&format!("{key}.frequency"), "fractions in [0, 1]", f));
        }
    }
    if (sum - 1.0).abs() > 1e-6 {
        return Err(cx.bad(
            &format!("constraints.{what}"),
            "occurrence fractions (share) adding up to 1",
            sum,
        ));
    }
    Ok(raw
        .iter()
        .map(|c| StatCluster {
            share: c.share,
            frequency: c.frequency.clone(),
        })
        .collect())
}

/// Refuses machine frequencies no population of machines can have. Every machine has one
/// value of every attribute, so the frequencies of the constraints on one attribute must come
/// from one distribution over its values: `tier = gold` and `tier != gold` must add up to 1,
/// `tier = gold` and `tier = silver` to at most 1, and so on. A linear programme per cluster
/// and attribute (the values' shares as variables) decides it exactly.
fn attainable(
    cx: &Ctx<'_>,
    machines: &[StatCluster],
    vocabulary: &[Constraint],
    values: &BTreeMap<String, Vec<String>>,
) -> Result<(), ExperimentError> {
    let mut known: std::collections::HashMap<(String, Vec<u64>), bool> = Default::default();
    for (k, cluster) in machines.iter().enumerate() {
        for (attr, vs) in values {
            let on: Vec<usize> = (0..vocabulary.len())
                .filter(|&i| vocabulary[i].attr == *attr)
                .collect();
            let freq: Vec<u64> = on.iter().map(|&i| cluster.frequency[i].to_bits()).collect();
            let ok = *known.entry((attr.clone(), freq)).or_insert_with(|| {
                let numeric = vs.iter().all(|v| is_number(v));
                let sets: Vec<(Vec<bool>, f64)> = on
                    .iter()
                    .map(|&i| {
                        let c = &vocabulary[i];
                        let sat = vs.iter().map(|v| c.satisfied_by(Some(v), numeric));
                        (sat.collect(), cluster.frequency[i])
                    })
                    .collect();
                shares_exist(vs.len(), &sets)
            });
            if !ok {
                let listed: Vec<String> = on
                    .iter()
                    .map(|&i| format!("`{}` {}", vocabulary[i], cluster.frequency[i]))
                    .collect();
                return Err(cx.bad(
                    &format!("constraints.machines[{k}].frequency"),
                    &format!(
                        "frequencies machines can have at once: every machine has one value of \
                         `{attr}` (of {}), and no share of those values gives {}",
                        vs.join(", "),
                        listed.join(", ")
                    ),
                    "contradictory frequencies",
                ));
            }
        }
    }
    Ok(())
}

/// Whether shares p₁ … pₙ ≥ 0 of `n` values, adding up to 1, give every constraint of `sets`
/// (which values satisfy it, its frequency) its frequency, to within 10⁻⁶.
///
/// Values that satisfy the same constraints are one *atom* to the question. With at most two
/// atoms (one constraint on the attribute, or a constraint and its complement) the shares are
/// t and 1 − t and each frequency fixes t or is fixed itself, so it is decided at once; with
/// more, a linear programme over the atoms' shares decides it.
fn shares_exist(n: usize, sets: &[(Vec<bool>, f64)]) -> bool {
    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    if sets.is_empty() {
        return true;
    }
    let signature = |v: usize| -> Vec<bool> { sets.iter().map(|(sat, _)| sat[v]).collect() };
    let mut atoms: Vec<Vec<bool>> = (0..n).map(signature).collect();
    atoms.sort();
    atoms.dedup();
    const TOLERANCE: f64 = 1e-6;
    if atoms.len() <= 2 {
        // shares t of the first atom and 1 − t of the second (if any)
        let (mut lo, mut hi) = (0.0f64, if atoms.len() == 2 { 1.0f64 } else { 0.0 });
        if atoms.len() == 1 {
            (lo, hi) = (1.0, 1.0);
        }
        for (c, (_, f)) in sets.iter().enumerate() {
            let first = atoms[0][c];
            let second = atoms.get(1).is_some_and(|a| a[c]);
            // the frequency as a function of t: t, 1 − t, 1 or 0
            let (a, b) = match (first, second) {
                (true, true) => (1.0, 1.0),
                (false, false) => (0.0, 0.0),
                (true, false) => (*f, *f),
                (false, true) => (1.0 - f, 1.0 - f),
            };
            if first == second {
                if (a - f).abs() > TOLERANCE {
                    return false;
                }
            } else {
                lo = lo.max(a - TOLERANCE);
                hi = hi.min(b + TOLERANCE);
            }
        }
        return lo <= hi;
    }
    let n = atoms.len();
    let sets: Vec<(Vec<bool>, f64)> = sets
        .iter()
        .enumerate()
        .map(|(c, (_, f))| (atoms.iter().map(|a| a[c]).collect(), *f))
        .collect();
    let mut lp = Problem::new(OptimizationDirection::Minimize);
    let p: Vec<_> = (0..n).map(|_| lp.add_var(0.0, (0.0, 1.0))).collect();
    let all: Vec<_> = p.iter().map(|&v| (v, 1.0)).collect();
    lp.add_constraint(all.as_slice(), ComparisonOp::Eq, 1.0);
    for (sat, f) in &sets {
        // the frequency, missed by at most the slack
        let over = lp.add_var(1.0, (0.0, f64::INFINITY));
        let under = lp.add_var(1.0, (0.0, f64::INFINITY));
        let mut row: Vec<_> = p
            .iter()
            .zip(sat)
            .filter(|(_, s)| **s)
            .map(|(&v, _)| (v, 1.0))
            .collect();
        row.push((over, -1.0));
        row.push((under, 1.0));
        lp.add_constraint(row.as_slice(), ComparisonOp::Eq, *f);
    }
    lp.solve()
        .ok()
        .and_then(|s| s.into_solution().ok())
        .is_some_and(|s| s.objective() <= TOLERANCE)
}

#[cfg(test)]
mod tests {
    use super::shares_exist;

    /// Which of `values` satisfy each constraint, with its frequency.
    fn sets(rows: &[(&[bool], f64)]) -> Vec<(Vec<bool>, f64)> {
        rows.iter().map(|(s, f)| (s.to_vec(), *f)).collect()
    }

    #[test]
    fn machine_frequencies_are_attainable_exactly_when_shares_exist() {
        // values gold, silver: `= gold`, `!= gold`
        let pair = |a, b| sets(&[(&[true, false], a), (&[false, true], b)]);
        assert!(shares_exist(2, &pair(0.3, 0.7)));
        assert!(!shares_exist(2, &pair(0.3, 0.0)));
        // `= gold` and `= silver` both everywhere
        assert!(!shares_exist(2, &pair(1.0, 1.0)));
        // one constraint: any frequency if some value satisfies it and some does not
        assert!(shares_exist(2, &sets(&[(&[true, false], 0.42)])));
        assert!(!shares_exist(2, &sets(&[(&[true, true], 0.42)])));
        assert!(shares_exist(2, &sets(&[(&[true, true], 1.0)])));
        // three atoms, by the programme: values 4, 8, 16; `>= 8` and `>= 16` nested
        let nested = |a, b| sets(&[(&[false, true, true], a), (&[false, false, true], b)]);
        assert!(shares_exist(3, &nested(0.6, 0.5)));
        assert!(!shares_exist(3, &nested(0.5, 0.6)));
        assert!(shares_exist(3, &nested(1.0, 0.0)));
        // values 4, 8, 16 with `= 4`, `= 8`, `= 16` adding up to more than 1
        let three = sets(&[
            (&[true, false, false], 0.5),
            (&[false, true, false], 0.3),
            (&[false, false, true], 0.3),
        ]);
        assert!(!shares_exist(3, &three));
    }
}
