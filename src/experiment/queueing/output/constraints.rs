//! The outputs of `[constraints]`: `constraint_delay.csv`, the delay figure (Sharma et al.'s
//! Fig. 10), `synthesis_validation.csv` and the report's sections.

use std::path::{Path, PathBuf};

use crate::experiment::ExperimentError;
use crate::experiment::common::{F6, MdTable, Report, write_csv};
use crate::experiment::queueing::analysis::{Outcome, mean_abs_errors, trend};
use crate::experiment::queueing::spec::{CHARACTERISED_JOBS, MERGE_TOLERANCE, QueueConstraints};
use crate::experiment::queueing::{Experiment, PlotSpec};
use crate::plot::{Chart, Series};
use crate::sim::Verdict;

/// `constraint_delay.csv`: per policy, sweep point and constraint.
#[derive(serde::Serialize, Default)]
struct DelayRow<'a> {
    policy: &'a str,
    load: F6,
    constraint: String,
    /// Share of jobs requesting it (of the demand for every resource) and of servers
    /// satisfying it (of the supply), and their ratio u*_c.
    demand_share: F6,
    supply_share: F6,
    u_star: F6,
    /// Jobs requesting it placed after warm-up (all replications) and their mean wait, slots.
    jobs: u64,
    mean_wait: F6,
    /// Mean wait of all jobs, slots, and the ratio (ours: delay over all jobs).
    mean_wait_all: F6,
    delay_over_all_jobs: F6,
    /// The same jobs with the constraints lifted (same streams): their mean wait, slots, and
    /// Sharma et al.'s normalised scheduling delay, mean_wait over it (empty without those
    /// runs).
    mean_wait_unconstrained: Option<F6>,
    normalised_delay: Option<F6>,
    /// The (policy, point)'s verdict: only a `stable` row's delays are measurements.
    verdict: &'static str,
}

/// Writes `constraint_delay.csv`.
pub(in crate::experiment::queueing) fn write_delays(
    exp: &Experiment,
    q: &QueueConstraints,
    out: &Outcome,
    dir: &Path,
) -> Result<PathBuf, ExperimentError> {
    let rows: Vec<DelayRow> = out
        .delays
        .iter()
        .map(|d| DelayRow {
            policy: &exp.labels[d.policy],
            load: F6(exp.points[d.point].load),
            constraint: q.truth.multipliers[d.constraint].constraint.to_string(),
            demand_share: F6(d.demand_share),
            supply_share: F6(d.supply_share),
            u_star: F6(d.u),
            jobs: d.jobs,
            mean_wait: F6(d.mean_wait),
            mean_wait_all: F6(d.mean_wait_all),
            delay_over_all_jobs: F6(d.over_all_jobs()),
            mean_wait_unconstrained: d.unconstrained.map(|(_, w)| F6(w)),
            normalised_delay: d.unconstrained.map(|_| F6(d.normalised())),
            verdict: d.verdict.as_str(),
        })
        .collect();
    write_csv(dir.join("constraint_delay.csv"), &rows)
}

/// The paper's Fig. 10: normalised scheduling delay against u*_c, a scatter per policy at
/// `point`; ours (over all jobs' delay) when the paper's is nowhere defined there (no runs
/// without constraints, or no job waited in them), and the note says so. `log_y` unset: a
/// logarithmic axis when the points span more than two decades
/// ([`crate::plot::spans_decades`]), so that one constraint's outlier does not flatten the rest.
pub(in crate::experiment::queueing) fn delay_chart(
    exp: &Experiment,
    out: &Outcome,
    point: usize,
    title: &Option<String>,
    log_y: Option<bool>,
) -> Chart {
    let rows = &out.delays;
    let here = || rows.iter().filter(|d| d.point == point && d.jobs > 0);
    let lifted = here().any(|d| d.unconstrained.is_some());
    let paper = here().any(|d| d.normalised().is_finite());
    // a policy not stable at the point has no steady-state delays: hollow markers at each
    // constraint's u*_c in the band above the data
    let stable = |p: usize| {
        rows.iter()
            .find(|d| d.policy == p && d.point == point)
            .is_none_or(|d| d.verdict == Verdict::Stable)
    };
    let series = (0..exp.policies.len())
        .map(|p| {
            let pairs = trend(rows, p, point, paper);
            let (points, off) = if stable(p) {
                (pairs, Vec::new())
            } else {
                (Vec::new(), pairs.iter().map(|d| d.0).collect())
            };
            Series {
                label: exp.labels[p].clone(),
                colour: exp.colours[p],
                points,
                off,
                points_only: true,
                ..Default::default()
            }
        })
        .collect::<Vec<Series>>();
    let log_y = log_y.unwrap_or_else(|| crate::plot::spans_decades(&series, 2.0));
    Chart {
        title: title.clone().unwrap_or_else(|| {
            format!(
                "{}: delay per constraint against its Utilization Multiplier",
                exp.name()
            )
        }),
        note: Some(format!(
            "load {:.4}{}",
            exp.points[point].load,
            if paper {
                "; a point per constraint: mean wait of the jobs requesting it over their mean wait with no constraints (same jobs, same streams)"
            } else if lifted {
                ": Sharma et al.'s normalised delay is undefined (without constraints no job waited); drawn instead: mean wait of the jobs requesting a constraint over the mean wait of all jobs"
            } else {
                "; a point per constraint: mean wait of the jobs requesting it over the mean wait of all jobs"
            }
        )),
        x_label: "Utilization Multiplier u*_c".into(),
        y_label: if paper {
            "normalised scheduling delay".into()
        } else {
            "delay over all jobs' delay".into()
        },
        series,
        hlines: vec![(
            1.0,
            if paper {
                "as without constraints".into()
            } else {
                "all jobs".into()
            },
        )],
        markers: true,
        log_y,
        ..Default::default()
    }
}

/// The report's section: the servers, ρ* with and without the constraints, and per policy the
/// constraints by u*_c with their normalised delay, at the sweep point of the constraint-delay
/// plot (else the last).
pub(in crate::experiment::queueing) fn report(
    r: &mut Report,
    exp: &Experiment,
    q: &QueueConstraints,
    out: &Outcome,
) {
    let kinds = q.truth.table.kinds().len();
    let classes = q.truth.table.classes().len();
    r.line(format!(
        "\n## Placement constraints\n\n{} servers of {kinds} attribute kinds (Algorithm 2); \
         jobs draw their constraints by Algorithm 3 among {classes} possible sets (a set no \
         server satisfies is drawn again). Policies offer a job only the servers that satisfy \
         all its constraints.\n",
        exp.servers
    ));
    if let Some((c, f)) = q.rho {
        r.line(format!(
            "Maximum supportable traffic intensity with the constraints ρ* = {c:.6}, without \
             them {f:.6} (linear programme over configurations per server group).\n"
        ));
    }
    if exp.points.is_empty() {
        // a file that only maps a region: no sweep point to quote delays at
        return;
    }
    let rows = &out.delays;
    // the point of the file's constraint-delay plot, else the last
    let top = exp
        .plots
        .iter()
        .find_map(|p| match p {
            PlotSpec::ConstraintDelay { point, .. } => Some(*point),
            _ => None,
        })
        .unwrap_or(exp.points.len() - 1);
    let truth = &q.truth.multipliers;
    let mut order: Vec<usize> = (0..truth.len()).collect();
    order.sort_by(|&a, &b| truth[b].u.total_cmp(&truth[a].u));
    let mut head = vec!["constraint".to_string(), "u*_c".into()];
    head.extend(exp.labels.iter().cloned());
    let mut t = MdTable::new(head);
    for i in order {
        let m = &truth[i];
        let mut row = vec![m.constraint.to_string(), format!("{:.3}", m.u)];
        for p in 0..exp.policies.len() {
            row.push(
                rows.iter()
                    .find(|d| d.policy == p && d.point == top && d.constraint == i && d.jobs > 0)
                    .map_or("—".into(), |d| match d.verdict {
                        Verdict::Stable if d.unconstrained.is_none() => {
                            format!("{:.3}", d.over_all_jobs())
                        }
                        Verdict::Stable => format!(
                            "{} ({:.3})",
                            match d.normalised() {
                                n if n.is_finite() => format!("{n:.3}"),
                                _ => "n/a".into(),
                            },
                            d.over_all_jobs()
                        ),
                        v => format!("— ({v})"),
                    }),
            );
        }
        t.row(row);
    }
    let what = if q.compare_unconstrained {
        "Normalised scheduling delay as Sharma et al. define it (mean wait of the jobs with the \
         constraint over the mean wait of the same jobs in the same run with every constraint \
         lifted; n/a when they did not wait there), and in brackets ours (their mean wait over \
         that of all jobs)"
    } else {
        "Delay over all jobs' delay (ours, not Sharma et al.'s normalised delay, which needs \
         the runs without constraints this file turns off: the mean wait of the jobs with the \
         constraint over that of all jobs)"
    };
    r.line(format!(
        "{what} at load {:.4}, pooled over replications; a policy not judged stable there has \
         no steady-state delay to quote (its verdict instead):\n",
        exp.points[top].load
    ));
    r.table(&t);
}

/// `synthesis_validation.csv`: a row per policy and sweep point with both stable.
#[derive(serde::Serialize, Default)]
struct ValidationRow<'a> {
    policy: &'a str,
    load: F6,
    replications: usize,
    synthetic_not_stable: usize,
    mean_wait_truth: F6,
    mean_wait_truth_ci95_low: Option<F6>,
    mean_wait_truth_ci95_high: Option<F6>,
    mean_wait_synthetic: F6,
    mean_wait_synthetic_ci95_low: Option<F6>,
    mean_wait_synthetic_ci95_high: Option<F6>,
    wait_relative_error: F6,
    /// Sharma et al.'s: the mean over re-syntheses of |synthetic − truth| / truth.
    wait_error_individual: F6,
    utilization_truth: F6,
    utilization_synthetic: F6,
    utilization_relative_error: F6,
}

/// Writes `synthesis_validation.csv`.
pub(in crate::experiment::queueing) fn write_validation(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<PathBuf, ExperimentError> {
    let rows: Vec<ValidationRow> = out
        .validations
        .iter()
        .map(|v| {
            let (we, ue) = v.errors();
            let lo = |c: Option<(f64, f64)>| c.map(|c| F6(c.0));
            let hi = |c: Option<(f64, f64)>| c.map(|c| F6(c.1));
            ValidationRow {
                policy: &exp.labels[v.policy],
                load: F6(exp.points[v.point].load),
                replications: v.replications,
                synthetic_not_stable: v.synthetic_not_stable,
                mean_wait_truth: F6(v.wait[0].0),
                mean_wait_truth_ci95_low: lo(v.wait[0].1),
                mean_wait_truth_ci95_high: hi(v.wait[0].1),
                mean_wait_synthetic: F6(v.wait[1].0),
                mean_wait_synthetic_ci95_low: lo(v.wait[1].1),
                mean_wait_synthetic_ci95_high: hi(v.wait[1].1),
                wait_relative_error: F6(we),
                wait_error_individual: F6(v.wait_individual),
                utilization_truth: F6(v.utilization[0].0),
                utilization_synthetic: F6(v.utilization[1].0),
                utilization_relative_error: F6(ue),
            }
        })
        .collect();
    write_csv(dir.join("synthesis_validation.csv"), &rows)
}

/// The report's validation section: the characterisation found, and the errors against the
/// paper's 13 % (delay) and 5 % (utilisation).
pub(in crate::experiment::queueing) fn report_validation(
    r: &mut Report,
    exp: &Experiment,
    q: &QueueConstraints,
    out: &Outcome,
) {
    let (Some(ch), Some(mode)) = (&q.found, q.mode) else {
        return;
    };
    let kinds: Vec<usize> = q.synthetic.iter().map(|w| w.table.kinds().len()).collect();
    let classes: Vec<usize> = q
        .synthetic
        .iter()
        .map(|w| w.table.classes().len())
        .collect();
    let range = |v: &[usize]| {
        let (a, b) = (v.iter().min().unwrap_or(&0), v.iter().max().unwrap_or(&0));
        if a == b {
            a.to_string()
        } else {
            format!("{a}–{b}")
        }
    };
    r.line(format!(
        "\n## Synthesis validation\n\nThe cluster above was characterised as Sharma et al. do a \
         real one (Section 5.1): the servers' and {CHARACTERISED_JOBS} jobs' binary feature \
         vectors grouped by sort-and-merge with tolerance {MERGE_TOLERANCE}, giving {} machine \
         and {} task statistical clusters; from it, {}{} were synthesised again for every \
         replication ({} server kinds, {} job classes), and every policy \
         ran again (`-synthetic`) with the same run seeds, so the intervals include the \
         synthesis's own sampling. Relative errors (synthetic − truth) / truth of the means over \
         the replications whose runs on both clusters were judged stable, at the points where \
         the ground truth was; a re-synthesised cluster that could not carry the load is \
         counted apart:\n",
        ch.machines.len(),
        ch.tasks.len(),
        mode.what(),
        if q.quota {
            ", the servers by quota (each machine cluster's share of the servers and each \
             constraint's frequency within it met exactly, rounded; which constraints meet on \
             which server left to chance)"
        } else {
            ""
        },
        range(&kinds),
        range(&classes)
    ));
    let rows = &out.validations;
    let mut t = MdTable::new([
        "policy",
        "load",
        "pairs (synthetic not stable)",
        "mean wait, truth (95% CI)",
        "synthetic (95% CI)",
        "error",
        "utilisation, truth",
        "synthetic",
        "error",
    ]);
    let ci = |m: f64, c: Option<(f64, f64)>| match c {
        Some((a, b)) => format!("{m:.4} [{a:.4}, {b:.4}]"),
        None => format!("{m:.4}"),
    };
    for v in rows {
        let (we, ue) = v.errors();
        t.row([
            exp.labels[v.policy].clone(),
            format!("{:.4}", exp.points[v.point].load),
            format!("{} ({})", v.replications, v.synthetic_not_stable),
            ci(v.wait[0].0, v.wait[0].1),
            ci(v.wait[1].0, v.wait[1].1),
            format!("{:+.1} %", 100.0 * we),
            format!("{:.4}", v.utilization[0].0),
            format!("{:.4}", v.utilization[1].0),
            format!("{:+.2} %", 100.0 * ue),
        ]);
    }
    r.table(&t);
    if let Some(e) = mean_abs_errors(rows) {
        r.line(format!(
            "\nOver these {} rows, the delay error of individual re-syntheses (Sharma et al.'s \
             quantity: |synthetic − truth| / truth per re-synthesis, averaged) is {:.1} %; the \
             error of the mean over the re-syntheses (a bias, the table's \"error\") {:.1} %; \
             utilisation {:.2} % (the paper reports 13 % and 5 % on average for its synthesis \
             of Google's clusters).\n",
            e.rows,
            100.0 * e.wait_individual,
            100.0 * e.wait_of_mean,
            100.0 * e.utilization
        ));
    }
}
