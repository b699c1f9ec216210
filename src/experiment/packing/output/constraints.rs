//! The placement-constraint outputs of a packing experiment (Sharma et al., "Modeling and
//! Synthesizing Task Placement Constraints in Google Compute Clusters", SoCC 2011):
//! `constraints.csv` (the Utilization Multiplier of each constraint and resource, the paper's
//! Fig. 9 as a table), `constraint_pending.csv` (tasks each scheduler left pending, per
//! constraint), the figure `fig_utilization_multiplier` and a report section.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::constraints::{Multiplier, multipliers};
use crate::experiment::ExperimentError;
use crate::experiment::common::{F6, MdTable, render_with, write_csv};
use crate::experiment::packing::PackingExperiment;
use crate::experiment::packing::analysis::PackingOutcome;
use crate::plot::{DotPlot, Panel, render_dots};

/// `constraints.csv`: one row per constraint and resource.
#[derive(Serialize, Default)]
struct MultiplierRow<'a> {
    constraint: &'a str,
    /// Tasks requesting the constraint; machines satisfying it.
    tasks: usize,
    machines: usize,
    resource: &'a str,
    /// f^D_cr: share of the demand for the resource from tasks requesting the constraint.
    demand_share: F6,
    /// f^S_cr: share of the capacity of the resource on machines satisfying it.
    supply_share: F6,
    /// u_cr = f^D_cr / f^S_cr.
    u: F6,
    /// u*_c: the largest u over the resources.
    u_max: F6,
}

/// `constraint_pending.csv`: per scheduler and constraint, tasks pending after the packing.
#[derive(Serialize, Default)]
struct PendingRow<'a> {
    scheduler: &'a str,
    constraint: &'a str,
    tasks: usize,
    pending: usize,
    pending_fraction: F6,
    u_max: F6,
}

/// The resources of the snapshot, by name.
fn resources(exp: &PackingExperiment) -> Vec<&'static str> {
    let third = if exp.snapshot_label.contains("GPU") {
        "gpu"
    } else {
        "disk"
    };
    ["cpu", "memory", third][..exp.snapshot.dims].to_vec()
}

/// The multipliers of the snapshot's constraints (empty when no task has one).
pub(super) fn snapshot_multipliers(exp: &PackingExperiment) -> Vec<Multiplier> {
    let snap = &exp.snapshot;
    let Some(pl) = &snap.placement else {
        return Vec::new();
    };
    let machines: Vec<(&[u64], u32)> = snap
        .machines
        .iter()
        .zip(&pl.kind)
        .map(|(m, &k)| (&m[..], k))
        .collect();
    let tasks: Vec<(&[u64], u32)> = snap
        .tasks
        .iter()
        .map(|t| (&t.request[..], t.class))
        .collect();
    multipliers(&pl.table, snap.dims, &machines, &tasks)
}

/// `constraints.csv` and `constraint_pending.csv`, if the snapshot has constraints (`um`: its
/// [`snapshot_multipliers`]).
pub(super) fn constraint_tables(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    um: &[Multiplier],
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    if um.is_empty() {
        return Ok(Vec::new());
    }
    let names = resources(exp);
    let mut rows = Vec::new();
    for m in um {
        for (d, r) in names.iter().enumerate() {
            rows.push(MultiplierRow {
                constraint: &m.constraint,
                tasks: m.tasks,
                machines: m.machines,
                resource: r,
                demand_share: F6(m.demand_share[d]),
                supply_share: F6(m.supply_share[d]),
                u: F6(m.u[d]),
                u_max: F6(m.u_max),
            });
        }
    }
    let mut pending = Vec::new();
    for (s, res) in exp.schedulers.iter().zip(&out.results) {
        for (m, &p) in um.iter().zip(&res.pending_by_constraint) {
            pending.push(PendingRow {
                scheduler: &s.label,
                constraint: &m.constraint,
                tasks: m.tasks,
                pending: p,
                pending_fraction: F6(p as f64 / m.tasks.max(1) as f64),
                u_max: F6(m.u_max),
            });
        }
    }
    Ok(vec![
        write_csv(dir.join("constraints.csv"), &rows)?,
        write_csv(dir.join("constraint_pending.csv"), &pending)?,
    ])
}

/// Constraints drawn in the Utilization Multiplier figure at most (those with the largest u*).
pub(super) const MAX_FIGURE_CONSTRAINTS: usize = 60;

/// The Utilization Multiplier per constraint and resource (the paper's Fig. 9), constraints
/// by decreasing u*, at most [`MAX_FIGURE_CONSTRAINTS`] of them.
pub(super) fn constraint_figures(
    exp: &PackingExperiment,
    um: &[Multiplier],
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    if um.is_empty() {
        return Ok(Vec::new());
    }
    let mut um = um.to_vec();
    um.sort_by(|a, b| b.u_max.total_cmp(&a.u_max));
    let all = um.len();
    // a row per constraint: a figure of thousands of rows is unreadable and costs gigabytes
    um.truncate(MAX_FIGURE_CONSTRAINTS);
    let note = if all > um.len() {
        format!(
            " (the {} of {all} with the largest u*; every one in constraints.csv)",
            um.len()
        )
    } else {
        String::new()
    };
    let names = resources(exp);
    // a resource no task requests has no multiplier; an unbounded one is drawn at 0
    let shown = |x: f64| if x.is_finite() { x } else { 0.0 };
    let panels = (0..names.len())
        .filter(|&d| um.iter().any(|m| !m.u[d].is_nan()))
        .map(|d| Panel {
            label: format!("u ({})", names[d]),
            values: um.iter().map(|m| (shown(m.u[d]), None)).collect(),
        })
        .collect();
    let plot = DotPlot {
        title: format!(
            "{}: Utilization Multiplier u = f^D / f^S per constraint and resource{note}",
            exp.header.name
        ),
        rows: um.iter().map(|m| m.constraint.clone()).collect(),
        panels,
    };
    Ok(render_with(dir, "fig_utilization_multiplier", |stem| {
        render_dots(&plot, stem)
    })?
    .to_vec())
}

/// The report's constraint section: the synthesis, then per constraint its multipliers and the
/// share of its tasks each scheduler left pending.
pub(super) fn constraint_report(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    um: &[Multiplier],
) -> Option<String> {
    if um.is_empty() {
        return None;
    }
    let mut text = String::from(
        "\nPlacement constraints (Sharma et al. 2011): u = f^D / f^S per resource, u* the largest; \
         pending: the share of the constraint's tasks the scheduler left pending.\n\n",
    );
    if let Some(t) = &exp.synthesis {
        text.push_str(&format!(
            "Synthesised (Algorithms 2 and 3): machines per statistical cluster {:?}, tasks per \
             cluster {:?}; {} machines drew contradicting constraints, {} task draws no machine \
             could run were drawn again.\n\n",
            t.machines, t.tasks, t.inconsistent, t.redrawn
        ));
    }
    let names = resources(exp);
    let mut head: Vec<String> = vec!["constraint".into(), "tasks".into(), "machines".into()];
    head.extend(names.iter().map(|r| format!("u {r}")));
    head.push("u*".into());
    head.extend(
        exp.schedulers
            .iter()
            .map(|s| format!("pending {}", s.label)),
    );
    let mut t = MdTable::new(head);
    let mut order: Vec<usize> = (0..um.len()).collect();
    order.sort_by(|&a, &b| um[b].u_max.total_cmp(&um[a].u_max));
    for i in order {
        let m = &um[i];
        let mut row = vec![
            m.constraint.clone(),
            m.tasks.to_string(),
            m.machines.to_string(),
        ];
        row.extend(m.u.iter().map(|u| format!("{u:.3}")));
        row.push(format!("{:.3}", m.u_max));
        for r in &out.results {
            let p = r.pending_by_constraint.get(i).copied().unwrap_or(0);
            row.push(format!("{:.3}", p as f64 / m.tasks.max(1) as f64));
        }
        t.row(row);
    }
    text.push_str(&t.to_string());
    Some(text)
}
