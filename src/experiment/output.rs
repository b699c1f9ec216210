//! The output folder: runs.csv, summary.csv, timeseries.csv, claims.csv, figures, report.md and
//! experiment.toml (design.md). Numbers are written with a fixed format, so the same file and
//! seed give byte-identical files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::runner::Outcome;
use super::spec::{Experiment, PlotSpec, SweepKind};
use super::{ExperimentError, VERSION};
use crate::plot::{Chart, DotPlot, Panel, Series, render, render_dots};
use crate::policy::registry;

pub(super) fn num(x: f64) -> String {
    format!("{x:.6}")
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
pub(super) fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub(super) fn write(path: PathBuf, text: &str) -> Result<PathBuf, ExperimentError> {
    std::fs::write(&path, text).map_err(|source| ExperimentError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Writes `claims.csv`: `claim, expected, observed, evidence, holds`.
pub(super) fn write_claims(
    dir: &Path,
    claims: &[super::ClaimResult],
) -> Result<PathBuf, ExperimentError> {
    let mut s = String::from("claim,expected,observed,evidence,holds\n");
    for c in claims {
        writeln!(
            s,
            "{},{},{},{},{}",
            field(&c.claim),
            field(&c.expected),
            field(&c.observed),
            field(&c.evidence),
            c.holds
        )
        .expect("writing to a String");
    }
    write(dir.join("claims.csv"), &s)
}

/// Draws `chart` to `<dir>/<file>.png` and `.svg`.
pub(super) fn render_figure(
    dir: &Path,
    chart: &Chart,
    file: &str,
) -> Result<[PathBuf; 2], ExperimentError> {
    let stem = dir.join(file);
    render(chart, &stem).map_err(|message| ExperimentError::Plot {
        path: stem.clone(),
        message,
    })
}

/// Writes `experiment.toml`: the exact input with the packlab version.
pub(super) fn write_provenance(
    dir: &Path,
    file: &Path,
    source: &str,
) -> Result<PathBuf, ExperimentError> {
    write(
        dir.join("experiment.toml"),
        &format!(
            "# packlab {VERSION}; input file {}\n{source}",
            file.display()
        ),
    )
}

/// Appends the claims table and the figures to a report.
pub(super) fn report_claims_and_figures(
    w: &mut String,
    claims: &[super::ClaimResult],
    figures: &[PathBuf],
) {
    if !claims.is_empty() {
        let _ = writeln!(w, "\n## Claims\n");
        let _ = writeln!(w, "| claim | expected | observed | holds | evidence |");
        let _ = writeln!(w, "|---|---|---|---|---|");
        for c in claims {
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} |",
                c.claim,
                c.expected,
                c.observed,
                if c.holds { "yes" } else { "**no**" },
                c.evidence
            );
        }
    }
    if !figures.is_empty() {
        let _ = writeln!(w, "\n## Figures\n");
        for f in figures {
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            let _ = writeln!(w, "![{name}]({name})\n");
        }
    }
}

/// Creates the output folder.
pub(super) fn create_dir(dir: &Path) -> Result<(), ExperimentError> {
    std::fs::create_dir_all(dir).map_err(|source| ExperimentError::Write {
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes every output of `out` into `dir` (created if needed); returns the files written.
pub fn write_outputs(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    create_dir(dir)?;
    let mut files = Vec::new();
    let label = |p: usize| exp.labels[p].clone();

    // a replayed trace adds the scaling c and the mean work waiting
    let traced = exp.trace.is_some();
    let extra = if traced {
        ",scaling,mean_queued_work"
    } else {
        ""
    };
    let mut s = format!(
        "policy,load,arrival_rate,replication,seed,slots,mean_queue,max_queue,final_queue,\
         utilization,throughput,mean_wait,verdict{extra}\n"
    );
    for r in &out.runs {
        let p = exp.points[r.point];
        let x = &r.result;
        write!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            label(r.policy),
            num(p.load),
            num(p.arrival_rate),
            r.replication,
            r.seed,
            x.slots,
            num(x.mean_queue),
            x.max_queue,
            x.final_queue,
            num(x.utilization),
            num(x.throughput),
            num(x.mean_wait),
            r.verdict
        )
        .expect("writing to a String");
        if traced {
            write!(s, ",{},{}", num(p.key), num(x.mean_queued_work)).expect("to a String");
        }
        s.push('\n');
    }
    files.push(write(dir.join("runs.csv"), &s)?);

    let mut s = format!(
        "policy,load,replications,mean_queue,ci95_low,ci95_high,verdict,arrival_rate,\
         utilization,throughput,mean_wait,stable_runs,unstable_runs,inconclusive_runs{extra}\n"
    );
    for r in &out.summary {
        let p = exp.points[r.point];
        let (lo, hi) = r
            .ci95
            .map_or((String::new(), String::new()), |(a, b)| (num(a), num(b)));
        write!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            label(r.policy),
            num(p.load),
            r.replications,
            num(r.mean_queue),
            lo,
            hi,
            r.verdict,
            num(p.arrival_rate),
            num(r.utilization),
            num(r.throughput),
            num(r.mean_wait),
            r.verdict_counts[0],
            r.verdict_counts[1],
            r.verdict_counts[2]
        )
        .expect("writing to a String");
        if traced {
            write!(s, ",{},{}", num(p.key), num(r.mean_queued_work)).expect("to a String");
        }
        s.push('\n');
    }
    files.push(write(dir.join("summary.csv"), &s)?);

    let mut s = String::from("policy,load,replication,slot,queue\n");
    for r in &out.runs {
        let load = num(exp.points[r.point].load);
        for &(t, q) in &r.result.series {
            writeln!(
                s,
                "{},{},{},{},{}",
                label(r.policy),
                load,
                r.replication,
                t,
                q
            )
            .expect("writing to a String");
        }
    }
    files.push(write(dir.join("timeseries.csv"), &s)?);

    if out.runs.iter().any(|r| !r.result.class_series.is_empty()) {
        let mut s = String::from("policy,load,replication,slot,class,queue\n");
        for r in out.runs.iter().filter(|r| r.replication == 0) {
            let load = num(exp.points[r.point].load);
            for (&(t, _), lens) in r.result.series.iter().zip(&r.result.class_series) {
                for (c, q) in lens.iter().enumerate() {
                    writeln!(s, "{},{},0,{},{},{}", label(r.policy), load, t, c + 1, q)
                        .expect("writing to a String");
                }
            }
        }
        files.push(write(dir.join("vq_timeseries.csv"), &s)?);
    }

    if out.runs.iter().any(|r| !r.result.config_mix.is_empty()) {
        let mut s = String::from("policy,load,replication,configuration,share\n");
        for r in &out.runs {
            let load = num(exp.points[r.point].load);
            for (c, share) in &r.result.config_mix {
                writeln!(
                    s,
                    "{},{},{},{},{}",
                    label(r.policy),
                    load,
                    r.replication,
                    field(c),
                    num(*share)
                )
                .expect("writing to a String");
            }
        }
        files.push(write(dir.join("config_mix.csv"), &s)?);
    }

    if !out.thresholds.is_empty() {
        let mut s = String::from(
            "policy,rho_star_low,rho_star_high,lower,upper,upper_shown_unstable,fraction_low,\
             fraction_high,probes_run,runs,slots,saturated_load,saturated_low,saturated_high,\
             probes\n",
        );
        for t in &out.thresholds {
            let (a, b) = t.fractions();
            let probes: Vec<String> = t
                .probes
                .iter()
                .map(|p| {
                    format!(
                        "{}:{}:{}/{}/{}",
                        num(p.load),
                        p.decision.as_str(),
                        p.counts[0],
                        p.counts[1],
                        p.counts[2]
                    )
                })
                .collect();
            let sat = saturated_load(exp, out, t.policy).map_or(
                [String::new(), String::new(), String::new()],
                |(m, lo, hi)| [num(m), num(lo), num(hi)],
            );
            writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                label(t.policy),
                num(t.rho_star.0),
                num(t.rho_star.1),
                num(t.lower),
                num(t.upper),
                t.upper_shown,
                num(a),
                num(b),
                t.probes.len(),
                t.runs(),
                t.slots(),
                sat[0],
                sat[1],
                sat[2],
                probes.join(" ")
            )
            .expect("writing to a String");
        }
        files.push(write(dir.join("thresholds.csv"), &s)?);
    }

    if !out.study.is_empty() {
        let top = exp.points.len() - 1;
        let mut s = String::from(
            "policy,score,tasks,demand_machines,compacted_p90,compacted_min,compacted_max,\
             lower,upper,upper_shown_unstable,load_top,mean_queue_top,ci95_low,\
             ci95_high\n",
        );
        for r in &out.study {
            let score = match &exp.policies[r.policy] {
                crate::policy::PolicySpec::Scored { score, .. } => score.as_str(),
                _ => "",
            };
            let row = out.row(r.policy, top).expect("every point was run");
            let (lo, hi) = row
                .ci95
                .map_or((String::new(), String::new()), |(a, b)| (num(a), num(b)));
            writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                label(r.policy),
                score,
                exp.compaction.as_ref().map_or(0, |c| c.tasks),
                num(r.demand),
                r.compaction.p90,
                r.compaction.min,
                r.compaction.max,
                num(r.limit.lower),
                num(r.limit.upper),
                r.limit.upper_shown,
                num(exp.points[top].load),
                num(row.mean_queue),
                lo,
                hi
            )
            .expect("writing to a String");
        }
        files.push(write(dir.join("study.csv"), &s)?);
    }

    files.push(write_claims(dir, &out.claims)?);

    let mut figures = Vec::new();
    for plot in &exp.plots {
        let paths = if let PlotSpec::LimitVsCompaction { title, file } = plot {
            let stem = dir.join(file);
            render_dots(&study_plot(exp, out, title), &stem).map_err(|message| {
                ExperimentError::Plot {
                    path: stem.clone(),
                    message,
                }
            })?
        } else {
            let (chart, file) = chart(exp, out, plot);
            render_figure(dir, &chart, &file)?
        };
        figures.push(paths[0].clone());
        files.extend(paths);
    }
    files.push(write_provenance(dir, &exp.file, &exp.source)?);
    files.push(write(dir.join("report.md"), &report(exp, out, &figures))?);
    Ok(files)
}

/// The study's figure: a row per scored policy, its compacted size and its stability limit.
fn study_plot(exp: &Experiment, out: &Outcome, title: &Option<String>) -> DotPlot {
    let demand = out.study.first().map_or(0.0, |r| r.demand);
    DotPlot {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{}: packing and stability per placement rule", exp.name)),
        rows: out
            .study
            .iter()
            .map(|r| exp.labels[r.policy].clone())
            .collect(),
        panels: vec![
            Panel {
                label: format!("compacted size, machines (p90; lower bound {demand:.1})"),
                values: out
                    .study
                    .iter()
                    .map(|r| {
                        let range = (r.compaction.min as f64, r.compaction.max as f64);
                        (r.compaction.p90 as f64, Some(range))
                    })
                    .collect(),
            },
            Panel {
                label: "stability limit, load (dot: shown stable; bar to shown unstable)".into(),
                values: out
                    .study
                    .iter()
                    .map(|r| (r.limit.lower, Some((r.limit.lower, r.limit.upper))))
                    .collect(),
            },
        ],
    }
}

fn x_label(exp: &Experiment) -> &'static str {
    match exp.sweep {
        SweepKind::Load => "traffic intensity ρ = λ E[R] / (μ L)",
        SweepKind::ArrivalRate => "arrival rate λ (jobs per slot)",
        SweepKind::Fraction => "fraction of ρ* (maximum supportable traffic intensity)",
        SweepKind::Scaling => "traffic scaling c (arrival times divided by c)",
    }
}

fn chart(exp: &Experiment, out: &Outcome, plot: &PlotSpec) -> (Chart, String) {
    match plot {
        PlotSpec::MeanQueueVsLoad { title, file, log_y } => {
            let series = (0..exp.policies.len())
                .map(|p| {
                    let rows: Vec<_> = out.summary.iter().filter(|r| r.policy == p).collect();
                    let x = |pt: usize| match exp.sweep {
                        SweepKind::Load => exp.points[pt].load,
                        SweepKind::ArrivalRate => exp.points[pt].arrival_rate,
                        SweepKind::Fraction => exp.points[pt].key,
                        SweepKind::Scaling => exp.points[pt].key,
                    };
                    Series {
                        label: exp.labels[p].clone(),
                        colour: registry::colour(&exp.labels[p]),
                        points: rows.iter().map(|r| (x(r.point), r.mean_queue)).collect(),
                        bars: Some(
                            rows.iter()
                                .map(|r| r.ci95.unwrap_or((r.mean_queue, r.mean_queue)))
                                .collect(),
                        ),
                        points_only: false,
                    }
                })
                .collect();
            (
                Chart {
                    title: title
                        .clone()
                        .unwrap_or_else(|| format!("{}: mean queue size", exp.name)),
                    x_label: x_label(exp).into(),
                    y_label: "mean queue size (jobs)".into(),
                    series,
                    markers: true,
                    log_y: *log_y,
                },
                file.clone(),
            )
        }
        PlotSpec::LimitVsCompaction { .. } => unreachable!("drawn as a dot plot"),
        PlotSpec::QueueVsTime {
            point,
            replication,
            title,
            file,
            log_y,
        } => {
            let series = (0..exp.policies.len())
                .map(|p| {
                    let run = out.runs.iter().find(|r| {
                        r.policy == p && r.point == *point && r.replication == *replication
                    });
                    Series {
                        label: exp.labels[p].clone(),
                        colour: registry::colour(&exp.labels[p]),
                        points: run
                            .map(|r| {
                                r.result
                                    .series
                                    .iter()
                                    .map(|&(t, q)| (t as f64, q as f64))
                                    .collect()
                            })
                            .unwrap_or_default(),
                        bars: None,
                        points_only: false,
                    }
                })
                .collect();
            let pt = exp.points[*point];
            let at = match exp.sweep {
                SweepKind::Load => format!("ρ = {}", pt.load),
                SweepKind::ArrivalRate => format!("λ = {}", pt.arrival_rate),
                SweepKind::Fraction => format!("{} ρ*", pt.key),
                SweepKind::Scaling => format!("c = {}", pt.key),
            };
            (
                Chart {
                    title: title
                        .clone()
                        .unwrap_or_else(|| format!("{}: queue size, {at}", exp.name)),
                    x_label: "time (slots)".into(),
                    y_label: "queue size Q(t) (jobs)".into(),
                    series,
                    markers: false,
                    log_y: *log_y,
                },
                file.clone(),
            )
        }
    }
}

fn report(exp: &Experiment, out: &Outcome, figures: &[PathBuf]) -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "# {}\n", exp.name);
    if !exp.description.is_empty() {
        let _ = writeln!(w, "{}\n", exp.description.trim());
    }
    if let Some((spec, t)) = exp.trace.as_deref() {
        let _ = writeln!(
            w,
            "packlab {VERSION}. {} servers of capacity 1, fed by a replayed trace: `{}` ({:?}; \
             finished tasks only: {}), {} task records = {} jobs arriving over {:.0} s. Slots of \
             {} s; size = {:?} of the (CPU, memory) request × {}; service = duration rounded up \
             to whole slots (mean E[S] = {:.3} slots); mean size E[R] = {:.6}. A run replays its \
             window with arrival times divided by the traffic scaling c; {} replication(s) = \
             consecutive windows of the trace, each starting empty; {}; queue cap {}. `load` is \
             the offered ρ = λ E[R·S] / L, with E[R·S] = {:.4} the mean of size × service over \
             the replayed jobs ({:.3} × E[R] E[S]: larger requests run longer), averaged over \
             the window.\n",
            exp.servers,
            spec.file
                .file_name()
                .map(|f| f.to_string_lossy())
                .unwrap_or_default(),
            spec.format,
            spec.finished_only,
            t.tasks,
            t.jobs,
            t.span(spec),
            spec.slot,
            spec.size,
            spec.scale,
            exp.service.mean(),
            exp.sizes.mean(),
            exp.run.replications,
            if exp.run.slots > 0 {
                format!(
                    "{} slots per run ({} of warm-up)",
                    exp.run.slots, exp.run.warmup
                )
            } else {
                format!(
                    "each run as long as {:.0}% of its window, the first {:.0}% of it warm-up",
                    100.0 * exp.run.window_share,
                    100.0 * exp.run.warmup_fraction
                )
            },
            exp.run.queue_cap,
            t.mean_work[0].max(t.mean_work[1]),
            {
                let k = usize::from(t.mean_work[1] > t.mean_work[0]);
                t.mean_work[k] / (t.mean_req[k] * exp.service.mean())
            },
        );
    } else {
        let _ = writeln!(
            w,
            "packlab {VERSION}, seed {}. {} servers of capacity 1; sizes with mean E[R] = {:.6}; \
         service with mean E[S] = 1/μ = {:.6} slots; {} arrivals. {} slots per run \
         ({} of warm-up), {} replication(s), queue cap {}.\n",
            exp.seed,
            exp.servers,
            exp.sizes.mean(),
            exp.service.mean(),
            exp.arrivals.name(),
            exp.run.slots,
            exp.run.warmup,
            exp.run.replications,
            exp.run.queue_cap
        );
    }
    if exp.dims > 1 {
        let _ = writeln!(
            w,
            "Jobs request {} resources (servers have capacity 1 of each); E[R] and the load are \
             those of the bottleneck resource, the one with the largest mean request. Policies \
             with a score run on the multi-resource path; `utilization` averages the resources.\n",
            exp.dims
        );
    }
    if let Some((a, b)) = exp.rho_star {
        let to_rate = exp.rate_per_load();
        let _ = writeln!(
            w,
            "Maximum supportable traffic intensity ρ* ∈ [{a:.6}, {b:.6}], i.e. arrival rate \
             λ* ∈ [{:.6}, {:.6}] jobs per slot (exact for finitely many sizes, else Theorem 1's \
             bracket on 128 intervals).\n",
            a * to_rate,
            b * to_rate
        );
    }
    let _ = writeln!(w, "## Mean queue size (95% CI over replications)\n");
    let _ = writeln!(
        w,
        "| policy | load ρ | λ | mean queue | 95% CI | utilisation | mean wait | verdict (stable/unstable/inconclusive runs) |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|");
    for r in &out.summary {
        let p = exp.points[r.point];
        let ci = r
            .ci95
            .map_or("–".to_string(), |(a, b)| format!("{a:.3} .. {b:.3}"));
        let _ = writeln!(
            w,
            "| {} | {:.4} | {:.4} | {:.3} | {} | {:.4} | {:.2} | {} ({}/{}/{}) |",
            exp.labels[r.policy].clone(),
            p.load,
            p.arrival_rate,
            r.mean_queue,
            ci,
            r.utilization,
            r.mean_wait,
            r.verdict,
            r.verdict_counts[0],
            r.verdict_counts[1],
            r.verdict_counts[2]
        );
    }
    if exp.trace.is_some() {
        let _ = writeln!(
            w,
            "\n## Work waiting (sum of the waiting jobs' sizes, in servers, time average)\n"
        );
        let _ = writeln!(
            w,
            "| policy | scaling c | mean queue (jobs) | mean work waiting |"
        );
        let _ = writeln!(w, "|---|---|---|---|");
        for r in &out.summary {
            let _ = writeln!(
                w,
                "| {} | {} | {:.1} | {:.2} |",
                exp.labels[r.policy], exp.points[r.point].key, r.mean_queue, r.mean_queued_work
            );
        }
    }
    let mixes: Vec<_> = out
        .summary
        .iter()
        .filter_map(|row| {
            let mut m: std::collections::BTreeMap<&str, f64> = Default::default();
            let runs: Vec<_> = out
                .runs
                .iter()
                .filter(|r| r.policy == row.policy && r.point == row.point)
                .collect();
            for r in &runs {
                for (c, share) in &r.result.config_mix {
                    *m.entry(c.as_str()).or_default() += share / runs.len() as f64;
                }
            }
            if m.is_empty() {
                return None;
            }
            let mut v: Vec<(&str, f64)> = m.into_iter().collect();
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            let top: Vec<String> = v
                .iter()
                .take(6)
                .map(|(c, x)| format!("{c} {:.1}%", 100.0 * x))
                .collect();
            Some(format!(
                "| {} | {:.4} | {} |",
                exp.labels[row.policy],
                exp.points[row.point].load,
                top.join(", ")
            ))
        })
        .collect();
    if !mixes.is_empty() {
        let _ = writeln!(
            w,
            "\n## Active configurations (share of servers busy with each, time average)\n"
        );
        let _ = writeln!(w, "| policy | load ρ | most used configurations |");
        let _ = writeln!(w, "|---|---|---|");
        for m in mixes {
            let _ = writeln!(w, "{m}");
        }
    }
    if !out.thresholds.is_empty() {
        let _ = writeln!(
            w,
            "\n## Stability limits (intervals from a noisy bisection on the load)\n\n\
             Lower end: the largest load shown stable (a majority of a probe's runs stable, none \
             unstable); upper end: the smallest shown unstable (or ρ*, above which no policy is \
             stable). Each end is wrong with at most the stated probability if a single run is \
             wrong with probability 5 %, the calibrated rate (`proofs/verdict_calibration.md`).\n"
        );
        let _ = writeln!(
            w,
            "| policy | limit in load | as fraction of ρ* | how the ends were shown | probes | runs | saturated FIFO (load, 95% CI) |"
        );
        let _ = writeln!(w, "|---|---|---|---|---|---|---|");
        for t in &out.thresholds {
            let (a, b) = t.fractions();
            let sat = match saturated_load(exp, out, t.policy) {
                Some((m, lo, hi)) => format!("{m:.4} ({lo:.4} .. {hi:.4})"),
                None if exp.policies[t.policy] == crate::policy::PolicySpec::FifoFf => {
                    "not asked (add a `saturation` claim)".into()
                }
                None => "does not apply (not FIFO service)".into(),
            };
            let _ = writeln!(
                w,
                "| {} | [{:.4}, {:.4}] | [{a:.4}, {b:.4}] | {} | {} | {} | {} |",
                exp.labels[t.policy],
                t.lower,
                t.upper,
                t.ends(),
                t.probes.len(),
                t.runs(),
                sat
            );
        }
    }
    if !out.study.is_empty() {
        let top = exp.points.len() - 1;
        let _ = writeln!(
            w,
            "\n## Stability next to packing\n\nFor each scored policy: the compacted size of the \
             same workload ({} jobs drawn from it, on servers of capacity 1 per resource; lower \
             bound = the largest total request), and the stability limit by bisection on the load \
             (the bottleneck resource's) in [0, 1].\n",
            exp.compaction.as_ref().map_or(0, |c| c.tasks)
        );
        let _ = writeln!(
            w,
            "| policy | compacted (p90, range) | lower bound | stable up to load | not stable from | mean queue at load {:.3} |",
            exp.points[top].load
        );
        let _ = writeln!(w, "|---|---|---|---|---|---|");
        for r in &out.study {
            let row = out.row(r.policy, top).expect("every point was run");
            let _ = writeln!(
                w,
                "| {} | {} ({}..{}) | {:.1} | {:.4} | {:.4}{} | {:.2} |",
                exp.labels[r.policy],
                r.compaction.p90,
                r.compaction.min,
                r.compaction.max,
                r.demand,
                r.limit.lower,
                r.limit.upper,
                if r.limit.upper_shown {
                    ""
                } else {
                    " (not shown unstable)"
                },
                row.mean_queue
            );
        }
    }
    report_claims_and_figures(w, &out.claims, figures);
    s
}

/// A FIFO-FF policy's saturated throughput as a load: (estimate, 95 % low, 95 % high).
fn saturated_load(exp: &Experiment, out: &Outcome, policy: usize) -> Option<(f64, f64, f64)> {
    let per_load = exp.rate_per_load();
    out.saturation.iter().find(|s| s.0 == policy).map(|(_, s)| {
        (
            s.throughput / per_load,
            s.ci95.0 / per_load,
            s.ci95.1 / per_load,
        )
    })
}
