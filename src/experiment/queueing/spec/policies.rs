//! `[[policy]]`: each table validated by the policy registry, and the labels outputs use.

use super::Workload;
use super::schema::RawPolicy;
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;
use crate::policy::{PolicyParams, PolicySpec, registry};

/// The policies and their labels (the name, or `label`; distinct).
pub(in crate::experiment::queueing) fn policies(
    cx: &Ctx<'_>,
    raw: &[RawPolicy],
    workload: &Workload,
) -> Result<(Vec<PolicySpec>, Vec<String>), ExperimentError> {
    if raw.is_empty() {
        return Err(cx.bad("policy", "at least one [[policy]] table", "none"));
    }
    let mut policies = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for (i, p) in raw.iter().enumerate() {
        let spec = policy_spec(cx, i, p, workload)?;
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

/// One `[[policy]]` table, validated by the registry entry of its name.
fn policy_spec(
    cx: &Ctx<'_>,
    i: usize,
    p: &RawPolicy,
    workload: &Workload,
) -> Result<PolicySpec, ExperimentError> {
    let params = PolicyParams::new(&p.name, &p.params);
    registry::parse(&params, workload.sizes()).map_err(|e| {
        let key = if e.key.contains('.') {
            e.key.to_string()
        } else {
            format!("policy[{i}].{}", e.key)
        };
        cx.bad(&key, &e.expected, e.got)
    })
}
