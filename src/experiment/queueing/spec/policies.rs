//! `[[policy]]`: each table validated by the policy registry (or, with `score`, as a scored
//! policy of the multi-resource path), and the labels outputs use.

use super::Workload;
use super::schema::RawPolicy;
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::model::{Discipline, Scorer};
use crate::policy::registry::SCORE;
use crate::policy::{ParamError, PolicyEntry, PolicyParams, PolicySpec};

/// A `[[policy]]` of a queueing file: a single-resource policy of the registry, or BF-J/S or
/// FIFO with a packing scorer, which runs on the multi-resource path.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum QueuePolicy {
    /// A single-resource policy, its runs compiled for its own type.
    Single(PolicySpec),
    /// BF-J/S or FIFO-FF with `score`.
    Scored(ScoredPolicy),
}

/// BF-J/S or FIFO-FF with a packing scorer (`score = …`), on the multi-resource path.
#[derive(Clone, Copy)]
pub(crate) struct ScoredPolicy {
    /// The entry of the policy named (its name, colour, cost).
    entry: PolicyEntry,
    /// Its discipline on the multi-resource path.
    pub(crate) discipline: Discipline,
    /// The scorer choosing servers.
    pub(crate) scorer: Scorer,
    /// The scorer as the file names it.
    score: &'static str,
}

impl PartialEq for ScoredPolicy {
    fn eq(&self, other: &Self) -> bool {
        (self.entry.name, self.score) == (other.entry.name, other.score)
    }
}

impl std::fmt::Debug for ScoredPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoredPolicy")
            .field("name", &self.entry.name)
            .field("score", &self.score)
            .finish()
    }
}

impl QueuePolicy {
    fn entry(&self) -> &PolicyEntry {
        match self {
            QueuePolicy::Single(s) => s.entry(),
            QueuePolicy::Scored(s) => &s.entry,
        }
    }

    /// The policy's name as written in the file.
    pub(crate) fn name(&self) -> &'static str {
        self.entry().name
    }

    /// Its parameters in words (`score = …` for a scored policy).
    pub(crate) fn params(&self) -> String {
        match self {
            QueuePolicy::Single(s) => s.params().to_string(),
            QueuePolicy::Scored(s) => format!("score = {}", s.score),
        }
    }

    /// The default label: the name, with the score for a scored policy.
    pub(crate) fn label(&self) -> String {
        match self {
            QueuePolicy::Single(s) => s.name().to_string(),
            QueuePolicy::Scored(s) => format!("{}-{}", s.entry.name, s.score),
        }
    }

    /// Whether it runs on the multi-resource path with a packing scorer.
    pub(crate) fn is_scored(&self) -> bool {
        matches!(self, QueuePolicy::Scored(_))
    }

    /// The single-resource policy (`None` for a scored one).
    pub(crate) fn single(&self) -> Option<&PolicySpec> {
        match self {
            QueuePolicy::Single(s) => Some(s),
            QueuePolicy::Scored(_) => None,
        }
    }

    /// A scored policy's discipline and scorer (`None` for a single-resource policy).
    pub(crate) fn placement(&self) -> Option<(Discipline, Scorer)> {
        match self {
            QueuePolicy::Scored(s) => Some((s.discipline, s.scorer)),
            QueuePolicy::Single(_) => None,
        }
    }

    /// A scored policy's scorer as named in the file.
    pub(crate) fn score(&self) -> Option<&'static str> {
        match self {
            QueuePolicy::Scored(s) => Some(s.score),
            QueuePolicy::Single(_) => None,
        }
    }

    /// Whether the saturation rule gives its limit: a single-resource policy that serves jobs
    /// in arrival order.
    pub(crate) fn saturation_rule(&self) -> bool {
        self.single().is_some_and(PolicySpec::saturation_rule)
    }
}

/// A policy in an experiment's canonical form (its journal's identity): the name and the
/// parameters in words.
impl serde::Serialize for QueuePolicy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.name(), self.params()).serialize(s)
    }
}

/// The policies and their labels (the name, or `label`; distinct).
pub(in crate::experiment::queueing) fn policies(
    cx: &Ctx<'_>,
    raw: &[RawPolicy],
    workload: &Workload,
    servers: usize,
) -> Result<(Vec<QueuePolicy>, Vec<String>), ExperimentError> {
    if raw.is_empty() {
        return Err(cx.bad("policy", "at least one [[policy]] table", "none"));
    }
    let mut policies = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for (i, p) in raw.iter().enumerate() {
        let spec = policy_spec(cx, i, p, workload)?;
        if let Some(single) = spec.single()
            && single.entry().max_servers < servers
        {
            return Err(cx.bad(
                "cluster.servers",
                &format!(
                    "at most {} server(s) for policy \"{}\" (policy[{i}])",
                    single.entry().max_servers,
                    single.name()
                ),
                servers,
            ));
        }
        if workload.dims() > 1 && !spec.is_scored() {
            return Err(cx.bad(
                &format!("policy[{i}].score"),
                "a placement score (jobs have several resources; bf-js and fifo-ff take one)",
                "nothing",
            ));
        }
        let label = p.label.clone().unwrap_or_else(|| spec.label());
        if label.is_empty()
            || !label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b))
        {
            return Err(cx.bad(
                &format!("policy[{i}].label"),
                "a non-empty label of [a-z0-9_.-]",
                &label,
            ));
        }
        if labels.contains(&label) {
            return Err(cx.bad(
                &format!("policy[{i}].label"),
                "a label different from the other policies' (set `label` when a policy appears twice)",
                format!("\"{label}\""),
            ));
        }
        policies.push(spec);
        labels.push(label);
    }
    Ok((policies, labels))
}

/// One `[[policy]]` table: with `score` on a policy that has a scored form, that form;
/// otherwise validated by the registry entry of its name.
fn policy_spec(
    cx: &Ctx<'_>,
    i: usize,
    p: &RawPolicy,
    workload: &Workload,
) -> Result<QueuePolicy, ExperimentError> {
    let params = PolicyParams::new(&p.name, &p.params);
    let bad = |e: ParamError| {
        let key = if e.key.contains('.') {
            e.key.to_string()
        } else {
            format!("policy[{i}].{}", e.key)
        };
        cx.bad(&key, &e.expected, e.got)
    };
    let entry = cx.policies().entry(&p.name);
    if let Some(&entry) = entry
        && let Some(discipline) = entry.scored
        && let Some(score) = params.str(SCORE).map_err(bad)?
    {
        cx.policies().check_keys(&entry, &params).map_err(bad)?;
        let (scorer, score) = Scorer::NAMES
            .iter()
            .find(|&&n| n == score)
            .and_then(|&n| Scorer::from_name(n).map(|s| (s, n)))
            .ok_or_else(|| {
                bad(ParamError::new(
                    SCORE,
                    format!("one of {}", Scorer::NAMES.join(", ")),
                    format!("\"{score}\""),
                ))
            })?;
        return Ok(QueuePolicy::Scored(ScoredPolicy {
            entry,
            discipline,
            scorer,
            score,
        }));
    }
    cx.policies()
        .parse(&params, workload.sizes())
        .map(QueuePolicy::Single)
        .map_err(bad)
}
