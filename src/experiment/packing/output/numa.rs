//! The NUMA outputs of a packing experiment (Wu et al., "Evaluation of NUMA-Aware Scheduling in
//! Warehouse-Scale Clusters", IEEE CLOUD 2019): `numa.csv` (each expansion trial), `savings.csv`
//! (the net-CPU-savings lines and their crossing points), the figure of the expanded cluster and
//! the NUMA-fit population (the paper's Fig. 2) and one net-savings figure per scorer and job
//! order (its Fig. 3).
//!
//! Net CPU savings of a layer against the default layer of the same scorer and job order, at a
//! performance gain x of a NUMA-fit task (a fraction), as a fraction of the default's expanded
//! cluster CPU:
//!
//! S(x) = [(C_default − C_layer) + x · (F_layer − F_default)] / C_default,
//!
//! with C the CPU capacity of the expanded cluster and F the CPU requested by NUMA-fit tasks,
//! each the mean over the trials. S is linear in x; two layers' lines cross at
//! x = (c_b − c_a) / (m_a − m_b) for S = c + m·x.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::experiment::ExperimentError;
use crate::experiment::common::{F6, MdTable, render_figure, render_with, write_csv};
use crate::experiment::packing::PackingExperiment;
use crate::experiment::packing::analysis::{self, PackingOutcome};
use crate::experiment::packing::run::SchedulerResult;
use crate::model::Size;
use crate::packing::evaluate::Expansion;
use crate::packing::numa::Layer;
use crate::plot::{Chart, DotPlot, Panel, Series, render_dots};

/// `numa.csv`: one row per expansion trial of a scheduler with NUMA nodes.
#[derive(Serialize, Default)]
struct NumaRow<'a> {
    scheduler: &'a str,
    layer: &'a str,
    trial: usize,
    machines: usize,
    /// Final machines over the snapshot's machines.
    normalized_machines: F6,
    /// CPU capacity of the expanded cluster (units: the largest machine's CPU).
    cluster_cpu: F6,
    tasks: u64,
    numa_fit_tasks: u64,
    numa_fit_fraction: F6,
    /// CPU requested by the NUMA-fit tasks (units: the largest machine's CPU).
    numa_fit_cpu: F6,
}

/// `savings.csv`: the net-savings line S(x) = intercept + slope·x of each layer against the
/// default layer of its group, and the x where two lines of a group cross.
#[derive(Serialize, Default)]
struct SavingsRow<'a> {
    group: String,
    scheduler: &'a str,
    layer: &'a str,
    /// (C_default − C_layer) / C_default.
    intercept: F6,
    /// (F_layer − F_default) / C_default.
    slope: F6,
    /// `other:x` for each other layer of the group whose line it crosses at x in (0, 1].
    crossings: String,
}

/// Mean over the trials of a measure.
fn mean(r: &SchedulerResult, f: impl Fn(&Expansion) -> f64) -> f64 {
    analysis::mean(r.expansion.iter().map(f))
}

/// Per expansion trial: final machines over the snapshot's.
fn normalized_machines(exp: &PackingExperiment, r: &SchedulerResult) -> Vec<f64> {
    let m0 = exp.snapshot.machines.len() as f64;
    r.expansion.iter().map(|x| x.machines as f64 / m0).collect()
}

/// Per expansion trial: the NUMA-fit share of the tasks, in percent.
fn fit_percent(r: &SchedulerResult) -> Vec<f64> {
    r.expansion
        .iter()
        .map(|x| 100.0 * x.numa.map_or(0.0, |n| n.fit_fraction()))
        .collect()
}

/// Mean, minimum and maximum of the trials' values.
fn spread(v: &[f64]) -> (f64, f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (analysis::mean(v.iter().copied()), lo, hi)
}

fn units(x: u128) -> f64 {
    x as f64 / Size::UNIT as f64
}

/// One group: the schedulers with NUMA nodes sharing a scorer, job order and node layout,
/// formed around one with the default layer (the line the others' savings are measured from).
struct Group {
    name: String,
    /// (scheduler index, layer, intercept, slope); the default first.
    lines: Vec<(usize, Layer, f64, f64)>,
}

/// The groups of schedulers with NUMA nodes that have a default layer.
fn groups(exp: &PackingExperiment, out: &PackingOutcome) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, s) in exp.schedulers.iter().enumerate() {
        let Some(n) = &s.numa else { continue };
        if n.layer != Layer::Default || out.results[i].expansion.is_empty() {
            continue;
        }
        let base = &out.results[i];
        let c0 = mean(base, |x| units(x.cpu));
        let f0 = mean(base, |x| units(x.numa.map_or(0, |n| n.fit_cpu)));
        let mut lines = vec![(i, Layer::Default, 0.0, 0.0)];
        for (j, t) in exp.schedulers.iter().enumerate() {
            let Some(m) = &t.numa else { continue };
            if j == i || t.order != s.order || t.scorer != s.scorer || m.layout != n.layout {
                continue;
            }
            let r = &out.results[j];
            let c = mean(r, |x| units(x.cpu));
            let f = mean(r, |x| units(x.numa.map_or(0, |n| n.fit_cpu)));
            lines.push((j, m.layer, (c0 - c) / c0, (f - f0) / c0));
        }
        groups.push(Group {
            name: s.label.clone(),
            lines,
        });
    }
    groups
}

/// Where lines a and b (intercept, slope) cross, if at x in (0, 1].
pub(crate) fn crossing(a: (f64, f64), b: (f64, f64)) -> Option<f64> {
    let dm = a.1 - b.1;
    if dm == 0.0 {
        return None;
    }
    let x = (b.0 - a.0) / dm;
    (x > 0.0 && x <= 1.0).then_some(x)
}

/// Writes numa.csv and savings.csv (when some scheduler has NUMA nodes and expansion ran).
pub(crate) fn numa_tables(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    if !has_numa(exp, out) {
        return Ok(Vec::new());
    }
    let m0 = exp.snapshot.machines.len() as f64;
    let mut rows = Vec::new();
    for (i, s) in exp.schedulers.iter().enumerate() {
        let Some(n) = &s.numa else { continue };
        for (k, x) in out.results[i].expansion.iter().enumerate() {
            let c = x.numa.unwrap_or_default();
            rows.push(NumaRow {
                scheduler: &s.label,
                layer: n.layer.name(),
                trial: k,
                machines: x.machines,
                normalized_machines: F6(x.machines as f64 / m0),
                cluster_cpu: F6(units(x.cpu)),
                tasks: c.placed,
                numa_fit_tasks: c.fit,
                numa_fit_fraction: F6(c.fit_fraction()),
                numa_fit_cpu: F6(units(c.fit_cpu)),
            });
        }
    }
    let mut savings = Vec::new();
    for g in groups(exp, out) {
        for &(i, layer, c, m) in &g.lines {
            let crossings: Vec<String> = g
                .lines
                .iter()
                .filter(|l| l.0 != i)
                .filter_map(|&(j, _, c2, m2)| {
                    crossing((c, m), (c2, m2))
                        .map(|x| format!("{}:{}", exp.schedulers[j].label, F6(x)))
                })
                .collect();
            savings.push(SavingsRow {
                group: g.name.clone(),
                scheduler: &exp.schedulers[i].label,
                layer: layer.name(),
                intercept: F6(c),
                slope: F6(m),
                crossings: crossings.join(" "),
            });
        }
    }
    Ok(vec![
        write_csv(dir.join("numa.csv"), &rows)?,
        write_csv(dir.join("savings.csv"), &savings)?,
    ])
}

fn has_numa(exp: &PackingExperiment, out: &PackingOutcome) -> bool {
    exp.schedulers
        .iter()
        .zip(&out.results)
        .any(|(s, r)| s.numa.is_some() && !r.expansion.is_empty())
}

/// The figures: expansion and NUMA-fit population per scheduler, net savings per group.
pub(crate) fn numa_figures(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    if !has_numa(exp, out) {
        return Ok(Vec::new());
    }
    let with: Vec<usize> = (0..exp.schedulers.len())
        .filter(|&i| exp.schedulers[i].numa.is_some())
        .collect();
    let dots = |v: Vec<f64>| {
        let (m, lo, hi) = spread(&v);
        (m, Some((lo, hi)))
    };
    let plot = DotPlot {
        title: format!(
            "{}: cluster expansion, {} trials (dot: mean, bar: range)",
            exp.snapshot_label, exp.evaluate.trials
        ),
        rows: with
            .iter()
            .map(|&i| exp.schedulers[i].label.clone())
            .collect(),
        panels: vec![
            Panel {
                label: "final machines / snapshot machines".into(),
                values: with
                    .iter()
                    .map(|&i| dots(normalized_machines(exp, &out.results[i])))
                    .collect(),
            },
            Panel {
                label: "NUMA-fit tasks (%)".into(),
                values: with
                    .iter()
                    .map(|&i| dots(fit_percent(&out.results[i])))
                    .collect(),
            },
        ],
    };
    let mut files = Vec::new();
    files.extend(render_with(dir, "fig_numa_expansion", |stem| {
        render_dots(&plot, stem)
    })?);
    for g in groups(exp, out) {
        let xs: Vec<f64> = (0..=30).map(|k| k as f64).collect();
        let chart = Chart {
            title: format!("{}: net CPU savings against the default layer", g.name),
            note: Some(
                "S(x) = [(C_default − C) + x·(F − F_default)] / C_default; C: expanded cluster CPU, F: CPU of NUMA-fit tasks"
                    .into(),
            ),
            x_label: "performance gain of a NUMA-fit task x (%)".into(),
            y_label: "net CPU savings (% of the default's cluster)".into(),
            series: g
                .lines
                .iter()
                .map(|&(i, layer, c, m)| Series {
                    label: format!("{} ({})", layer.name(), exp.schedulers[i].label),
                    points: xs
                        .iter()
                        .map(|&x| (x, 100.0 * (c + m * x / 100.0)))
                        .collect(),
                    ..Default::default()
                })
                .collect(),
            markers: false,
            ..Default::default()
        };
        let safe: String = g
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let file = format!("fig_numa_savings_{safe}");
        files.extend(render_figure(dir, &chart, &file)?);
    }
    Ok(files)
}

/// The report's NUMA table: per scheduler with NUMA nodes, the mean normalised machine count
/// and NUMA-fit population, and the crossing points of each group.
pub(crate) fn numa_report(
    exp: &PackingExperiment,
    out: &PackingOutcome,
) -> Option<(MdTable, Vec<String>)> {
    if !has_numa(exp, out) {
        return None;
    }
    let mut t = MdTable::new([
        "scheduler",
        "layer",
        "final machines / snapshot (mean, range)",
        "NUMA-fit tasks (mean, range)",
    ]);
    let show = |v: &[f64], d: usize| {
        let (m, lo, hi) = spread(v);
        format!("{m:.d$} ({lo:.d$}..{hi:.d$})")
    };
    for (i, s) in exp.schedulers.iter().enumerate() {
        let Some(n) = &s.numa else { continue };
        let r = &out.results[i];
        let (norm, fit) = (normalized_machines(exp, r), fit_percent(r));
        t.row([
            s.label.clone(),
            n.layer.name().to_string(),
            show(&norm, 3),
            format!("{} %", show(&fit, 1)),
        ]);
    }
    let mut lines = Vec::new();
    for g in groups(exp, out) {
        for (a, &(i, _, c, m)) in g.lines.iter().enumerate() {
            for &(j, _, c2, m2) in &g.lines[a + 1..] {
                let (li, lj) = (&exp.schedulers[i].label, &exp.schedulers[j].label);
                lines.push(match crossing((c, m), (c2, m2)) {
                    Some(x) => format!("{li} and {lj} cross at x = {:.1} %", 100.0 * x),
                    None => format!("{li} and {lj} do not cross for x in (0, 100 %]"),
                });
            }
        }
    }
    Some((t, lines))
}

#[cfg(test)]
mod tests {
    use super::crossing;

    #[test]
    fn lines_cross_where_they_meet() {
        // default S = 0; a layer costing 0.8 % of the cluster but gaining 0.3 per unit x
        let x = crossing((0.0, 0.0), (-0.008, 0.3)).unwrap();
        assert!((x - 0.008 / 0.3).abs() < 1e-12);
        assert_eq!(
            crossing((0.0, 0.0), (0.01, 0.2)),
            None,
            "above from the start"
        );
        assert_eq!(crossing((0.0, 0.1), (0.0, 0.1)), None, "parallel");
    }
}
