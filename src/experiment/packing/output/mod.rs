//! The outputs of a packing experiment: summary.csv, hole_filling.csv, inflation.csv,
//! compaction.csv, other.csv, claims.csv, with NUMA nodes numa.csv and savings.csv, with
//! placement constraints constraints.csv and constraint_pending.csv, the figures, report.md and
//! experiment.toml.

mod constraints;
mod numa;

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::PackingExperiment;
use super::analysis::PackingOutcome;
use super::run::SchedulerResult;
use crate::constraints::Multiplier;
use crate::experiment::common::{
    F6, MdTable, Report, create_dir, render_figure, report_claims_and_figures, write, write_claims,
    write_csv, write_provenance,
};
use crate::experiment::{ExperimentError, VERSION};
use crate::packing::evaluate::Inflation;
use crate::plot::{Chart, Series};
use crate::policy::registry::Registry;
use constraints::{constraint_figures, constraint_report, constraint_tables, snapshot_multipliers};
use numa::{numa_figures, numa_report, numa_tables};

/// `summary.csv`: a row per scheduler.
#[derive(Serialize, Default)]
struct SummaryRow<'a> {
    scheduler: &'a str,
    cpu_utilization: F6,
    memory_utilization: F6,
    pending: usize,
    empty_machines: usize,
    power: F6,
    /// `x:count` for each fragmentation threshold x.
    full_machines: String,
}

/// `hole_filling.csv`: utilisation after filling holes with units of each size.
#[derive(Serialize, Default)]
struct HoleRow<'a> {
    scheduler: &'a str,
    /// As written in the file (Rust's shortest form: `1`, `0.25`).
    unit: String,
    cpu_utilization: F6,
    memory_utilization: F6,
}

/// `inflation.csv`: workload inflation (Algorithms 1 and 2).
#[derive(Serialize, Default)]
struct InflationRow<'a> {
    scheduler: &'a str,
    inflation: &'a str,
    jobs: &'a str,
    factor: String,
    tasks: usize,
    pending: usize,
    cpu_utilization: F6,
    memory_utilization: F6,
}

/// `compaction.csv`: cluster compaction (Algorithm 3).
#[derive(Serialize, Default)]
struct CompactionRow<'a> {
    scheduler: &'a str,
    tau: String,
    p90_machines: usize,
    min: usize,
    max: usize,
    fraction_of_cluster: F6,
    trials: String,
}

/// `other.csv`: T(x) and Monte-Carlo expansion.
#[derive(Serialize, Default)]
struct OtherRow<'a> {
    scheduler: &'a str,
    metric: &'a str,
    x: String,
    value: String,
}

/// Writes the tables, figures, claims, report and provenance.
pub(crate) fn write_packing_outputs(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    create_dir(dir)?;
    let mut files = tables(exp, out, dir)?;
    let mut figures = Vec::new();
    for (chart, file) in &charts(exp, out) {
        let paths = render_figure(dir, chart, file)?;
        figures.push(paths[0].clone());
        files.extend(paths);
    }
    files.extend(numa_tables(exp, out, dir)?);
    let um = snapshot_multipliers(exp);
    files.extend(constraint_tables(exp, out, &um, dir)?);
    let extra = numa_figures(exp, out, dir)?
        .into_iter()
        .chain(constraint_figures(exp, &um, dir)?);
    for f in extra {
        if f.extension().is_some_and(|e| e == "png") {
            figures.push(f.clone());
        }
        files.push(f);
    }
    files.push(write_provenance(dir, &exp.header.file, &exp.header.source)?);
    files.push(write(
        dir.join("report.md"),
        &report(exp, out, &um, &figures),
    )?);
    Ok(files)
}

fn tables(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    let e = &exp.evaluate;
    let label = |i: usize| exp.schedulers[i].label.as_str();
    let m = exp.snapshot.machines.len();
    let (mut summary, mut holes, mut inflation, mut compaction, mut other) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, r) in out.results.iter().enumerate() {
        let full: Vec<String> = e
            .fragmentation_x
            .iter()
            .zip(&r.full)
            .map(|(x, n)| format!("{x}:{n}"))
            .collect();
        summary.push(SummaryRow {
            scheduler: label(i),
            cpu_utilization: F6(r.utilization[0]),
            memory_utilization: F6(r.utilization[1]),
            pending: r.pending,
            empty_machines: r.empty,
            power: F6(r.power),
            full_machines: full.join(" "),
        });
        for (u, h) in e.hole_units.iter().zip(&r.holes) {
            holes.push(HoleRow {
                scheduler: label(i),
                unit: u.to_string(),
                cpu_utilization: F6(h[0]),
                memory_utilization: F6(h[1]),
            });
        }
        inflation.extend(inflation_rows(label(i), r));
        for (t, c) in e.compaction_tau.iter().zip(&r.compaction) {
            let sizes: Vec<String> = c.trials.iter().map(|t| t.machines.to_string()).collect();
            compaction.push(CompactionRow {
                scheduler: label(i),
                tau: t.to_string(),
                p90_machines: c.p90,
                min: c.min,
                max: c.max,
                fraction_of_cluster: F6(c.p90 as f64 / m as f64),
                trials: sizes.join(" "),
            });
        }
        for (x, t) in e.throughput_x.iter().zip(&r.throughput) {
            other.push(OtherRow {
                scheduler: label(i),
                metric: "T(x) tasks placed",
                x: x.to_string(),
                value: F6(*t).to_string(),
            });
        }
        for (k, n) in r.expansion.iter().enumerate() {
            other.push(OtherRow {
                scheduler: label(i),
                metric: "expansion machines",
                x: k.to_string(),
                value: n.machines.to_string(),
            });
        }
    }
    Ok(vec![
        write_csv(dir.join("summary.csv"), &summary)?,
        write_csv(dir.join("hole_filling.csv"), &holes)?,
        write_csv(dir.join("inflation.csv"), &inflation)?,
        write_csv(dir.join("compaction.csv"), &compaction)?,
        write_csv(dir.join("other.csv"), &other)?,
        write_claims(dir, &out.claims)?,
    ])
}

/// One scheduler's inflation sweeps and Monte-Carlo runs.
fn inflation_rows<'a>(scheduler: &'a str, r: &SchedulerResult) -> Vec<InflationRow<'a>> {
    let mut rows = Vec::new();
    for (how, conf, sweep) in &r.inflation {
        for x in sweep {
            rows.push(InflationRow {
                scheduler,
                inflation: if *how == Inflation::Horizontal {
                    "horizontal"
                } else {
                    "vertical"
                },
                jobs: if *conf { "conforming" } else { "all" },
                factor: x.factor.to_string(),
                tasks: x.tasks,
                pending: x.pending,
                cpu_utilization: F6(x.utilization[0]),
                memory_utilization: F6(x.utilization[1]),
            });
        }
    }
    for x in r.monte_carlo.iter().flatten() {
        rows.push(InflationRow {
            scheduler,
            inflation: "monte-carlo",
            jobs: "conforming",
            factor: F6(x.factor).to_string(),
            tasks: x.tasks,
            pending: x.pending,
            cpu_utilization: F6(x.utilization[0]),
            memory_utilization: F6(x.utilization[1]),
        });
    }
    rows
}

/// A curve per scheduler, its points from `f`.
fn curves(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    f: &dyn Fn(&SchedulerResult) -> Vec<(f64, f64)>,
) -> Vec<Series> {
    out.results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let label = exp.schedulers[i].label.as_str();
            Series {
                label: label.to_string(),
                colour: Registry::builtin().colour(label),
                points: f(r),
                ..Default::default()
            }
        })
        .collect()
}

/// The figures: hole filling, inflation and compaction, a curve per scheduler.
fn charts(exp: &PackingExperiment, out: &PackingOutcome) -> Vec<(Chart, &'static str)> {
    let mut charts = hole_charts(exp, out);
    charts.extend(inflation_charts(exp, out));
    charts.extend(compaction_chart(exp, out));
    charts
}

/// Fig. 1: CPU and memory utilisation after hole filling against the unit size.
fn hole_charts(exp: &PackingExperiment, out: &PackingOutcome) -> Vec<(Chart, &'static str)> {
    let series = |f: &dyn Fn(&SchedulerResult) -> Vec<(f64, f64)>| curves(exp, out, f);
    let mut charts = Vec::new();
    if !exp.evaluate.hole_units.is_empty() {
        for (d, res) in [(0, "CPU"), (1, "memory")] {
            charts.push((
                Chart {
                    title: format!(
                        "{}: {res} utilisation after hole filling",
                        exp.snapshot_label
                    ),
                    x_label: "unit size U (fraction of the median machine)".into(),
                    y_label: format!("{res} utilisation"),
                    series: series(&|r| {
                        exp.evaluate
                            .hole_units
                            .iter()
                            .zip(&r.holes)
                            .map(|(u, h)| (*u, h[d]))
                            .collect()
                    }),
                    markers: true,
                    ..Default::default()
                },
                if d == 0 {
                    "fig1_hole_filling_cpu"
                } else {
                    "fig1_hole_filling_memory"
                },
            ));
        }
    }
    charts
}

/// Fig. 2: pending tasks and utilisation against the inflation factor.
fn inflation_charts(exp: &PackingExperiment, out: &PackingOutcome) -> Vec<(Chart, &'static str)> {
    let series = |f: &dyn Fn(&SchedulerResult) -> Vec<(f64, f64)>| curves(exp, out, f);
    let mut charts = Vec::new();
    for (k, name) in [(0, "horizontal-all"), (3, "vertical-conforming")] {
        if out.results.first().is_some_and(|r| r.inflation.len() > k) {
            charts.push((
                Chart {
                    title: format!("{}: pending tasks, {name} inflation", exp.snapshot_label),
                    x_label: "inflation factor f".into(),
                    y_label: "pending tasks".into(),
                    series: series(&|r| {
                        r.inflation[k]
                            .2
                            .iter()
                            .map(|x| (x.factor, x.pending as f64))
                            .collect()
                    }),
                    markers: true,
                    ..Default::default()
                },
                if k == 0 {
                    "fig2_inflation_horizontal_all"
                } else {
                    "fig2_inflation_vertical_conforming"
                },
            ));
        }
    }
    if out.results.first().is_some_and(|r| !r.inflation.is_empty()) {
        charts.push((
            Chart {
                title: format!(
                    "{}: CPU utilisation, horizontal inflation of all jobs",
                    exp.snapshot_label
                ),
                x_label: "inflation factor f".into(),
                y_label: "CPU utilisation".into(),
                series: series(&|r| {
                    r.inflation[0]
                        .2
                        .iter()
                        .map(|x| (x.factor, x.utilization[0]))
                        .collect()
                }),
                markers: true,
                ..Default::default()
            },
            "fig2_utilization_horizontal_all",
        ));
    }
    charts
}

/// Fig. 3: compacted size against τ, with the range of the trials.
fn compaction_chart(exp: &PackingExperiment, out: &PackingOutcome) -> Vec<(Chart, &'static str)> {
    let label = |i: usize| exp.schedulers[i].label.as_str();
    let mut charts = Vec::new();
    if !exp.evaluate.compaction_tau.is_empty() {
        charts.push((
            Chart {
                title: match exp.evaluate.trials {
                    1 => format!("{}: compacted cluster size (one trial)", exp.snapshot_label),
                    n => format!(
                        "{}: compacted cluster size (90th percentile of {n} trials, bars: range)",
                        exp.snapshot_label
                    ),
                },
                x_label: "fraction of tasks allowed to go pending τ".into(),
                y_label: "machines".into(),
                note: Some(format!(
                    "dashed: the snapshot's whole cluster, {} machines",
                    crate::plot::thousands(exp.snapshot.machines.len() as u64)
                )),
                hlines: vec![(exp.snapshot.machines.len() as f64, "whole cluster".into())],
                series: out
                    .results
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Series {
                        label: label(i).to_string(),
                        colour: Registry::builtin().colour(label(i)),
                        points: exp
                            .evaluate
                            .compaction_tau
                            .iter()
                            .zip(&r.compaction)
                            .map(|(t, c)| (*t, c.p90 as f64))
                            .collect(),
                        bars: (exp.evaluate.trials > 1).then(|| {
                            r.compaction
                                .iter()
                                .map(|c| (c.min as f64, c.max as f64))
                                .collect()
                        }),
                        ..Default::default()
                    })
                    .collect(),
                markers: true,
                ..Default::default()
            },
            "fig3_compaction",
        ));
    }
    charts
}

/// The report's text.
fn report(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    um: &[Multiplier],
    figures: &[PathBuf],
) -> String {
    let mut r = Report::new(&exp.header.name);
    if !exp.header.description.is_empty() {
        r.line(format!("{}\n", exp.header.description.trim()));
    }
    // a named source reads "Snapshot Google 2011", a CSV of one's own by its size
    let snapshot = match exp.snapshot_label.starts_with("Snapshot") {
        true => exp.snapshot_label.clone(),
        false => format!("Snapshot {}", exp.snapshot_label),
    };
    r.line(format!(
        "packlab {VERSION}, seed {}. {snapshot}: {} tasks on {} machines.\n",
        exp.header.seed,
        exp.snapshot.tasks.len(),
        exp.snapshot.machines.len()
    ));
    let mut t = MdTable::new([
        "scheduler",
        "CPU util.",
        "memory util.",
        "pending",
        "empty machines",
        "power",
        "compacted (p90)",
    ]);
    for (i, res) in out.results.iter().enumerate() {
        let comp: Vec<String> = exp
            .evaluate
            .compaction_tau
            .iter()
            .zip(&res.compaction)
            .map(|(t, c)| format!("τ={t}: {} ({}..{})", c.p90, c.min, c.max))
            .collect();
        t.row([
            exp.schedulers[i].label.clone(),
            format!("{:.4}", res.utilization[0]),
            format!("{:.4}", res.utilization[1]),
            res.pending.to_string(),
            res.empty.to_string(),
            format!("{:.4}", res.power),
            comp.join(", "),
        ]);
    }
    r.table(&t);
    if let Some((t, crossings)) = numa_report(exp, out) {
        r.line(
            "\nNUMA nodes (Wu et al. 2019): cluster expansion and the NUMA-fit population at its end.\n",
        );
        r.table(&t);
        r.line("");
        for c in crossings {
            r.line(format!("- Net CPU savings: {c}."));
        }
    }
    if let Some(text) = constraint_report(exp, out, um) {
        r.line(text);
    }
    report_claims_and_figures(&mut r, &out.claims, figures);
    r.finish()
}
