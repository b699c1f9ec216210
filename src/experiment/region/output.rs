//! The outputs of a region experiment: region.csv, mix.csv, bracket.csv, family.csv,
//! claims.csv, figures, report.md and experiment.toml.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::analysis::{RegionOutcome, worst};
use super::run::FamilyCase;
use super::{RegionExperiment, SetKind};
use crate::experiment::common::{
    F6, MdTable, Report, create_dir, render_figure, report_claims_and_figures, write, write_claims,
    write_csv, write_provenance,
};
use crate::experiment::{ExperimentError, VERSION};
use crate::model::Size;
use crate::plot::{Chart, Series, XTicks};
use crate::stability::region::BracketStep;

/// `region.csv`: a row per set (ρ*, K_RED and dyadic on X_J for each J).
#[derive(Serialize, Default)]
struct RegionCsvRow<'a> {
    set: &'a str,
    #[serde(rename = "J")]
    j: Option<u32>,
    per_server: F6,
    traffic: F6,
    arrival_rate: Option<F6>,
    ratio_low: F6,
    ratio_high: F6,
}

/// `mix.csv`: an optimal configuration mix of ρ*.
#[derive(Serialize, Default)]
struct MixCsvRow {
    configuration: String,
    fraction_of_servers: F6,
}

/// `bracket.csv`: Theorem 1's bracket at each refinement.
#[derive(Serialize, Default)]
struct BracketRow {
    intervals: usize,
    rho_up: F6,
    rho_low: F6,
    width: F6,
}

/// `family.csv`: every random distribution and its ratios.
#[derive(Serialize, Default)]
struct FamilyRow {
    case: usize,
    types: usize,
    mean_size: F6,
    rho_star: F6,
    rho_kred: F6,
    rho_dyadic: F6,
    ratio_kred: F6,
    ratio_dyadic: F6,
    sizes: String,
    probs: String,
}

/// A configuration as `n×size+…`.
fn mix_label(cfg: &[(Size, u32)]) -> String {
    cfg.iter()
        .map(|(sz, n)| format!("{n}×{sz}"))
        .collect::<Vec<_>>()
        .join("+")
}

/// The arrival rate of per-server load `c`, when `[cluster]` and a service law were given.
fn rate(exp: &RegionExperiment, c: f64) -> Option<f64> {
    exp.scale.map(|(l, mean)| c * l as f64 / mean)
}

/// Writes every output; returns the files written.
pub(crate) fn write_region_outputs(
    exp: &RegionExperiment,
    out: &RegionOutcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    create_dir(dir)?;
    let mut files = tables(exp, out, dir)?;
    let mut figures = Vec::new();
    for (kind, title, file) in &exp.plots {
        let chart = if kind == "bracket" {
            bracket_chart(exp, out, title)
        } else {
            family_chart(exp, out, title)
        };
        let paths = render_figure(dir, &chart, file)?;
        figures.push(paths[0].clone());
        files.extend(paths);
    }
    files.push(write_provenance(dir, &exp.header.file, &exp.header.source)?);
    files.push(write(dir.join("report.md"), &report(exp, out, &figures))?);
    Ok(files)
}

fn tables(
    exp: &RegionExperiment,
    out: &RegionOutcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    let rows: Vec<RegionCsvRow> = out
        .rows
        .iter()
        .map(|r| RegionCsvRow {
            set: &r.set,
            j: r.j,
            per_server: F6(r.per_server),
            traffic: F6(r.traffic),
            arrival_rate: rate(exp, r.per_server).map(F6),
            ratio_low: F6(r.ratio.0),
            ratio_high: F6(r.ratio.1),
        })
        .collect();
    let mut files = vec![write_csv(dir.join("region.csv"), &rows)?];
    if !out.mix.is_empty() {
        let mix: Vec<MixCsvRow> = out
            .mix
            .iter()
            .map(|(cfg, x)| MixCsvRow {
                configuration: mix_label(cfg),
                fraction_of_servers: F6(*x),
            })
            .collect();
        files.push(write_csv(dir.join("mix.csv"), &mix)?);
    }
    let bracket: Vec<BracketRow> = out
        .bracket
        .iter()
        .map(|b| BracketRow {
            intervals: b.intervals,
            rho_up: F6(b.lower_bound),
            rho_low: F6(b.upper_bound),
            width: F6(b.width()),
        })
        .collect();
    files.push(write_csv(dir.join("bracket.csv"), &bracket)?);
    if !out.family.is_empty() {
        files.push(write_csv(
            dir.join("family.csv"),
            &family_rows(&out.family),
        )?);
    }
    files.push(write_claims(dir, &out.claims)?);
    Ok(files)
}

fn family_rows(family: &[FamilyCase]) -> Vec<FamilyRow> {
    family
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let sizes: Vec<String> = c
                .atoms
                .iter()
                .map(|a| F6(a.0.as_f64()).to_string())
                .collect();
            let probs: Vec<String> = c.atoms.iter().map(|a| F6(a.1).to_string()).collect();
            FamilyRow {
                case: i,
                types: c.atoms.len(),
                mean_size: F6(c.mean),
                rho_star: F6(c.rho_star),
                rho_kred: F6(c.kred),
                rho_dyadic: F6(c.dyadic),
                ratio_kred: F6(c.kred / c.rho_star),
                ratio_dyadic: F6(c.dyadic / c.rho_star),
                sizes: sizes.join(" "),
                probs: probs.join(" "),
            }
        })
        .collect()
}

/// Both ends of the bracket against log2 of the number of intervals.
fn bracket_chart(exp: &RegionExperiment, out: &RegionOutcome, title: &Option<String>) -> Chart {
    let pts = |f: fn(&BracketStep) -> f64| {
        out.bracket
            .iter()
            .map(|b| ((b.intervals as f64).log2(), f(b)))
            .collect()
    };
    Chart {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{}: bracket on ρ*", exp.header.name)),
        x_label: "number of intervals n of the partition Pₙ (log scale)".into(),
        y_label: "traffic intensity".into(),
        x_ticks: XTicks::PowersOfTwo,
        series: vec![
            Series {
                label: "upper bound (sizes rounded down on Pₙ)".into(),
                points: pts(|b| b.upper_bound),
                ..Default::default()
            },
            Series {
                label: "lower bound (sizes rounded up on Pₙ)".into(),
                points: pts(|b| b.lower_bound),
                ..Default::default()
            },
        ],
        markers: true,
        ..Default::default()
    }
}

/// The family's ratios against the mean size, with the 2/3 and 1/2 lines.
fn family_chart(exp: &RegionExperiment, out: &RegionOutcome, title: &Option<String>) -> Chart {
    let scatter = |f: fn(&FamilyCase) -> f64| out.family.iter().map(|c| (c.mean, f(c))).collect();
    let hline = |y: f64| vec![(0.0, y), (1.0, y)];
    Chart {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{}: restricted regions / ρ*", exp.header.name)),
        x_label: "mean job size E[R]".into(),
        y_label: "ρ(restricted set) / ρ*".into(),
        series: vec![
            Series {
                label: "reduced set on the partition Xⱼ".into(),
                colour: Some((31, 119, 180)),
                points: scatter(|c| c.kred / c.rho_star),
                points_only: true,
                ..Default::default()
            },
            Series {
                label: "dyadic set".into(),
                colour: Some((214, 39, 40)),
                points: scatter(|c| c.dyadic / c.rho_star),
                points_only: true,
                ..Default::default()
            },
            Series {
                label: "2/3: guarantee of the reduced set".into(),
                colour: Some((31, 119, 180)),
                points: hline(2.0 / 3.0),
                ..Default::default()
            },
            Series {
                label: "1/2: guarantee of the dyadic set".into(),
                colour: Some((214, 39, 40)),
                points: hline(0.5),
                ..Default::default()
            },
        ],
        markers: false,
        ..Default::default()
    }
}

/// The report's text.
fn report(exp: &RegionExperiment, out: &RegionOutcome, figures: &[PathBuf]) -> String {
    let mut r = Report::new(&exp.header.name);
    if !exp.header.description.is_empty() {
        r.line(format!("{}\n", exp.header.description.trim()));
    }
    r.line(format!("packlab {VERSION}, seed {}.\n", exp.header.seed));
    if !out.rows.is_empty() {
        r.line("## Regions (traffic intensity ρ = c·E[R])\n");
        if let Some((l, mean)) = exp.scale {
            r.line(format!(
                "Arrival rates are for L = {l} servers and mean service {mean} slots: λ = c·L/E[S].\n"
            ));
        }
        let mut t = MdTable::new([
            "set",
            "J",
            "c = λ/(μL)",
            "ρ",
            "λ (jobs/slot)",
            "ratio to ρ*",
        ]);
        for row in &out.rows {
            let ratio = if (row.ratio.0 - row.ratio.1).abs() < 1e-12 {
                format!("{:.4}", row.ratio.0)
            } else {
                format!("{:.4} .. {:.4}", row.ratio.0, row.ratio.1)
            };
            t.row([
                row.set.clone(),
                row.j.map_or("–".into(), |j| j.to_string()),
                format!("{:.6}", row.per_server),
                format!("{:.6}", row.traffic),
                rate(exp, row.per_server).map_or(String::new(), |x| F6(x).to_string()),
                ratio,
            ]);
        }
        r.table(&t);
    }
    if !out.mix.is_empty() {
        r.line("\nAn optimal configuration mix for ρ*:\n");
        for (cfg, x) in &out.mix {
            r.line(format!(
                "- {}: {:.2}% of servers",
                mix_label(cfg),
                100.0 * x
            ));
        }
    }
    if !out.bracket.is_empty() {
        r.line("\n## Theorem 1's bracket ρ_up(P_n) ≤ ρ* ≤ ρ_low(P_n)\n");
        let mut t = MdTable::new(["n", "ρ_up", "ρ_low", "width"]);
        for b in &out.bracket {
            t.row([
                b.intervals.to_string(),
                format!("{:.6}", b.lower_bound),
                format!("{:.6}", b.upper_bound),
                format!("{:.6}", b.width()),
            ]);
        }
        r.table(&t);
    }
    if !out.family.is_empty() {
        let (_, k) = worst(out, SetKind::Kred).unwrap_or((0, f64::NAN));
        let (_, d) = worst(out, SetKind::Dyadic).unwrap_or((0, f64::NAN));
        r.line(format!(
            "\n## Family\n\n{} random discrete distributions: worst ρ(K_RED)/ρ* = {k:.6}, worst \
             ρ(dyadic)/ρ* = {d:.6}. Every case is in `family.csv`.",
            out.family.len()
        ));
    }
    report_claims_and_figures(&mut r, &out.claims, figures);
    r.finish()
}
