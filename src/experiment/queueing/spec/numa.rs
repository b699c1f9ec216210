//! `[numa]` and each policy's `numa` layer: servers with NUMA nodes in the slotted simulator
//! (docs/theory.md section 11.1), a share of jobs that must run inside one node, and the
//! maximum supportable workload of that setting by the configuration LP over nodes.

use super::QueuePolicy;
use super::schema::{RawPolicy, RawQueueNuma};
use super::{QueueNuma, Workload};
use crate::configurations::numa::max_supportable_numa;
use crate::experiment::ExperimentError;
use crate::experiment::common::{Ctx, node_shares};
use crate::model::Size;
use crate::packing::numa::{Layer, NumaLayout};
use crate::workload::replay::SizeMode;

/// ρ* as a traffic intensity on servers with these nodes, for three workloads with the file's
/// sizes: every job strict, the file's share strict, none strict (= servers without nodes).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) struct NumaRho {
    /// Every job strict.
    pub(crate) strict: f64,
    /// The file's share of jobs strict.
    pub(crate) mixed: f64,
    /// No job strict (servers without nodes).
    pub(crate) split: f64,
}

/// Validates `[numa]` against the workload (without the policies' layers, which
/// [`layers`] adds): the node layout, the strict share, and that a strict job always fits a
/// node.
pub(in crate::experiment::queueing) fn setup(
    cx: &Ctx<'_>,
    raw: Option<&RawQueueNuma>,
    workload: &Workload,
) -> Result<Option<QueueNuma>, ExperimentError> {
    let Some(raw) = raw else { return Ok(None) };
    let shares =
        node_shares(cx, "numa", raw.nodes, raw.shares.as_ref())?.unwrap_or_else(|| vec![0.5, 0.5]);
    let layout = NumaLayout {
        shares,
        types: Vec::new(),
    };
    let strict = raw.strict.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&strict) {
        return Err(cx.bad(
            "numa.strict",
            "the share of jobs that must run inside one node, in [0, 1]",
            strict,
        ));
    }
    if let Some((t, _)) = workload.trace()
        && t.size == SizeMode::Both
    {
        return Err(cx.bad(
            "numa",
            "a trace replayed with one resource (`size` = \"max\", \"cpu\" or \"memory\")",
            "size = \"both\"",
        ));
    }
    let nodes = layout.nodes(&[Size::UNIT, Size::UNIT, 0]);
    let smallest = nodes.iter().map(|n| n[0].min(n[1])).min().unwrap_or(0);
    let largest = match workload {
        Workload::Requests { requests, .. } => {
            requests.iter().map(|r| r[0].max(r[1])).max().unwrap_or(0)
        }
        _ => workload.sizes().max().0,
    };
    if strict > 0.0 && largest > smallest {
        // a trace's largest request is named by its line
        let (key, job) = match workload.trace() {
            Some((spec, summary)) => (
                "workload.trace.file",
                format!(
                    "{}:{}: a job of {}",
                    spec.file.display(),
                    summary.largest_line,
                    Size(largest).as_f64()
                ),
            ),
            None => (
                "workload.sizes",
                format!("a job of {}", Size(largest).as_f64()),
            ),
        };
        return Err(cx.bad(
            key,
            &format!(
                "every job within the smallest NUMA node ({}) when jobs must run inside one node \
                 (numa.strict = {strict} > 0), or numa.strict = 0",
                Size(smallest).as_f64()
            ),
            job,
        ));
    }
    let rho = match workload.sizes().atoms() {
        Some(atoms) if workload.dims() == 1 && workload.trace().is_none() => {
            let cpu: Vec<u64> = nodes.iter().map(|n| n[0]).collect();
            let at = |share: f64| {
                numa_rho(&atoms, share, &cpu).map_err(|e| {
                    cx.bad("numa", "sizes whose ρ* with NUMA nodes can be computed", e)
                })
            };
            Some(NumaRho {
                strict: at(1.0)?,
                mixed: at(strict)?,
                split: at(0.0)?,
            })
        }
        _ => None,
    };
    Ok(Some(QueueNuma {
        layout,
        strict,
        layers: Vec::new(),
        rho,
    }))
}

/// ρ* (traffic intensity) of `atoms` with a share `strict` of every size strict, on servers
/// whose nodes have capacities `nodes`: each size becomes a strict and a splittable type.
pub(crate) fn numa_rho(atoms: &[(Size, f64)], strict: f64, nodes: &[u64]) -> Result<f64, String> {
    let (mut sizes, mut probs, mut flags) = (Vec::new(), Vec::new(), Vec::new());
    for &(s, p) in atoms {
        for (flag, share) in [(true, strict), (false, 1.0 - strict)] {
            if share > 0.0 {
                sizes.push(s);
                probs.push(p * share);
                flags.push(flag);
            }
        }
    }
    let mean: f64 = atoms.iter().map(|(s, p)| s.as_f64() * p).sum();
    max_supportable_numa(&sizes, &probs, &flags, nodes)
        .map(|r| r.per_server * mean)
        .map_err(|e| e.to_string())
}

/// Every policy's layer: with `[numa]`, each policy needs a `score` (the multi-resource path)
/// and a `numa` layer; without it, no policy may name one.
pub(in crate::experiment::queueing) fn layers(
    cx: &Ctx<'_>,
    raw: &[RawPolicy],
    policies: &[QueuePolicy],
    numa: &mut Option<QueueNuma>,
) -> Result<(), ExperimentError> {
    for (i, (r, spec)) in raw.iter().zip(policies).enumerate() {
        let key = format!("policy[{i}].numa");
        let Some(n) = numa else {
            if let Some(l) = &r.numa {
                return Err(cx.bad(&key, "a [numa] table describing the servers' nodes", l));
            }
            continue;
        };
        let expected = format!("a NUMA layer, one of {}", Layer::NAMES.join(", "));
        let Some(name) = &r.numa else {
            return Err(cx.bad(
                &key,
                &expected,
                "nothing (every policy needs one with [numa])",
            ));
        };
        let layer = Layer::from_name(name).ok_or_else(|| cx.bad(&key, &expected, name))?;
        if !spec.is_scored() {
            return Err(cx.bad(
                &format!("policy[{i}].score"),
                "a placement score (servers with NUMA nodes run bf-js and fifo-ff on the multi-resource path)",
                "nothing",
            ));
        }
        n.layers.push(layer);
    }
    Ok(())
}
