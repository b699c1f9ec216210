//! The CSV tables of a queueing experiment, one row type each (columns in field order; see
//! `experiments/README.md`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::experiment::ExperimentError;
use crate::experiment::common::{F6, Record, write_claims, write_csv, write_records};
use crate::experiment::queueing::analysis::Outcome;
use crate::experiment::queueing::analysis::delay::{Estimate, estimate};
use crate::experiment::queueing::{DelayQuantity, Experiment, Point, Statistic, SweepKind};
use crate::multi::NumaTally;
use crate::sim::PreemptionTally;

/// `runs.csv`: one row per run.
#[derive(Serialize, Default)]
struct RunRow {
    policy: String,
    load: F6,
    arrival_rate: F6,
    replication: u32,
    seed: u64,
    slots: u64,
    mean_queue: F6,
    max_queue: u64,
    final_queue: u64,
    utilization: F6,
    throughput: F6,
    mean_wait: F6,
    verdict: String,
    /// With a trace: the traffic scaling c.
    #[serde(skip_serializing_if = "Option::is_none")]
    scaling: Option<F6>,
    /// With a trace: time-average work waiting, servers.
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_queued_work: Option<F6>,
    /// With `sweep.fraction`: the point's fraction of ρ*, as written in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    fraction: Option<F6>,
    /// The slots the verdict judged (after warm-up, at the last horizon).
    judged_slots: u64,
    /// Times the horizon doubled because the verdict was inconclusive.
    extensions: u32,
    /// The verdict's statistics at the last horizon (empty for a run stopped at the queue cap
    /// or judged on too short a horizon): decorrelation, level rise and drift, each in its
    /// standard units (`proofs/verdict_calibration.md`).
    z_vn: Option<F6>,
    z_rise: Option<F6>,
    z_drift: Option<F6>,
    /// With a preemptive policy in the file (every row): preemptions per job completed after
    /// warm-up (0 for a policy that never preempts).
    #[serde(skip_serializing_if = "Option::is_none")]
    preemptions_per_job: Option<F6>,
    /// With a preemptive policy in the file: the share of the jobs completed after warm-up
    /// that were preempted at least once.
    #[serde(skip_serializing_if = "Option::is_none")]
    preempted_share: Option<F6>,
    /// With a preemptive policy in the file: the most preemptions of one job
    /// completed in the run (warm-up included).
    #[serde(skip_serializing_if = "Option::is_none")]
    most_preemptions: Option<u64>,
}

/// `probe_groups.csv` (with `[run] probe_groups`): one row per (policy, point), its replications in
/// consecutive groups each decided as a limit search's probe of one round.
#[derive(Serialize, Default)]
struct ProbeGroupRow {
    policy: String,
    load: F6,
    arrival_rate: F6,
    group_size: u32,
    groups: usize,
    majority_stable: usize,
    majority_unstable: usize,
    pooled_stable: usize,
    pooled_unstable: usize,
    undecided: usize,
}

/// `timeseries.csv`: the sampled queue of every run.
#[derive(Serialize, Default)]
struct SeriesRow<'a> {
    policy: &'a str,
    load: F6,
    replication: u32,
    slot: u64,
    queue: u64,
}

/// `vq_timeseries.csv`: per-class queue lengths of replication 0.
#[derive(Serialize, Default)]
struct ClassRow<'a> {
    policy: &'a str,
    load: F6,
    replication: u32,
    slot: u64,
    class: usize,
    queue: u64,
}

/// `config_mix.csv`: time-average share of servers busy in each configuration.
#[derive(Serialize, Default)]
struct MixRow<'a> {
    policy: &'a str,
    load: F6,
    replication: u32,
    configuration: &'a str,
    share: F6,
}

/// `thresholds.csv`: one row per limit search.
#[derive(Serialize, Default)]
struct ThresholdRow {
    policy: String,
    rho_star_low: F6,
    rho_star_high: F6,
    lower: F6,
    upper: F6,
    upper_shown_unstable: bool,
    fraction_low: F6,
    fraction_high: F6,
    probes_run: usize,
    runs: usize,
    slots: u64,
    saturated_load: Option<F6>,
    saturated_low: Option<F6>,
    saturated_high: Option<F6>,
    probes: String,
    /// Why the search ended: `resolution`, `horizon` or `max_probes`.
    ended: &'static str,
    /// The lowest and highest load between the ends a probe left undecided.
    undecided_low: Option<F6>,
    undecided_high: Option<F6>,
    /// The load the search's pilot run sustained above ρ*, its guess at the limit.
    pilot_sustained: Option<F6>,
}

/// `study.csv`: packing next to stability, one row per scored policy.
#[derive(Serialize, Default)]
struct StudyCsvRow<'a> {
    policy: &'a str,
    score: &'a str,
    tasks: usize,
    demand_machines: F6,
    compacted_p90: usize,
    compacted_min: usize,
    compacted_max: usize,
    lower: F6,
    upper: F6,
    upper_shown_unstable: bool,
    load_top: F6,
    mean_queue_top: Option<F6>,
    ci95_low: Option<F6>,
    ci95_high: Option<F6>,
    /// The verdict at `load_top`: the mean queue is a measurement only when `stable`.
    verdict_top: &'static str,
}

/// `numa.csv`: one row per run on servers with NUMA nodes.
#[derive(Serialize, Default)]
struct NumaRow<'a> {
    policy: &'a str,
    layer: &'static str,
    load: F6,
    replication: u32,
    placed: u64,
    numa_fit_percent: F6,
    strict_placed: u64,
    refused: u64,
    verdict: String,
}

/// The trace columns of a point: (scaling, mean work waiting).
fn traced(exp: &Experiment, p: &Point, work: f64) -> (Option<F6>, Option<F6>) {
    match exp.workload.trace() {
        Some(_) => (Some(F6(p.key)), Some(F6(work))),
        None => (None, None),
    }
}

/// Writes every CSV table and `claims.csv`; returns the files written.
pub(in crate::experiment::queueing) fn write_tables(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    // a file that only maps a region has no sweep, hence no runs to tabulate
    let mut files = Vec::new();
    if !exp.points.is_empty() {
        files.push(write_csv(dir.join("runs.csv"), &run_rows(exp, out))?);
        files.push(write_records(
            dir.join("summary.csv"),
            &summary_rows(exp, out),
            &Record::default(),
        )?);
        files.push(write_csv(
            dir.join("timeseries.csv"),
            &series_rows(exp, out),
        )?);
        files.extend(super::delay::write(exp, out, dir)?);
    }
    if exp.run.probe_groups.is_some() && !out.groups.is_empty() {
        files.push(write_csv(
            dir.join("probe_groups.csv"),
            &probe_group_rows(exp, out),
        )?);
    }
    if out.runs.iter().any(|r| !r.result.class_series.is_empty()) {
        files.push(write_csv(
            dir.join("vq_timeseries.csv"),
            &class_rows(exp, out),
        )?);
    }
    if out.runs.iter().any(|r| !r.result.config_mix.is_empty()) {
        files.push(write_csv(dir.join("config_mix.csv"), &mix_rows(exp, out))?);
    }
    if !out.thresholds.is_empty() {
        files.push(write_csv(
            dir.join("thresholds.csv"),
            &threshold_rows(exp, out),
        )?);
    }
    if !out.study.is_empty() {
        files.push(write_csv(dir.join("study.csv"), &study_rows(exp, out))?);
    }
    // per sweep point: a file that only maps a region has none
    if exp.numa.is_some() && !exp.points.is_empty() {
        files.push(write_csv(dir.join("numa.csv"), &numa_rows(exp, out))?);
    }
    if let Some(q) = exp.constraints.as_ref().filter(|_| !exp.points.is_empty()) {
        files.push(super::constraints::write_delays(exp, q, out, dir)?);
        if q.validates() {
            files.push(super::constraints::write_validation(exp, out, dir)?);
        }
    }
    files.push(write_claims(dir, &out.claims)?);
    Ok(files)
}

fn probe_group_rows(exp: &Experiment, out: &Outcome) -> Vec<ProbeGroupRow> {
    out.groups
        .iter()
        .map(|g| ProbeGroupRow {
            policy: exp.labels[g.policy].clone(),
            load: F6(exp.points[g.point].load),
            arrival_rate: F6(exp.points[g.point].arrival_rate),
            group_size: g.size,
            groups: g.groups,
            majority_stable: g.majority[0],
            majority_unstable: g.majority[1],
            pooled_stable: g.pooled[0],
            pooled_unstable: g.pooled[1],
            undecided: g.undecided,
        })
        .collect()
}

fn run_rows(exp: &Experiment, out: &Outcome) -> Vec<RunRow> {
    let preemptive = out
        .runs
        .iter()
        .any(|r| r.result.tally::<PreemptionTally>().is_some());
    out.runs
        .iter()
        .map(|r| {
            let preemption = preemptive.then(|| {
                let (at_warmup, at_end) = r.result.tally::<PreemptionTally>().unwrap_or_default();
                let (per_job, share) = at_end.rates(&at_warmup);
                (F6(per_job), F6(share), at_end.most)
            });
            let p = exp.points[r.point];
            let x = &r.result;
            let (scaling, mean_queued_work) = traced(exp, &p, x.mean_queued_work);
            let judged = |z: f64| x.evidence.judged().then_some(F6(z));
            RunRow {
                policy: exp.labels[r.policy].clone(),
                load: F6(p.load),
                arrival_rate: F6(p.arrival_rate),
                replication: r.replication,
                seed: r.seed,
                slots: x.slots,
                mean_queue: F6(x.mean_queue),
                max_queue: x.max_queue,
                final_queue: x.final_queue,
                utilization: F6(x.utilization),
                throughput: F6(x.throughput),
                mean_wait: F6(x.mean_wait),
                verdict: r.verdict.to_string(),
                scaling,
                mean_queued_work,
                fraction: fraction(exp, &p),
                judged_slots: x.evidence.horizon,
                extensions: x.evidence.extensions,
                z_vn: judged(x.evidence.z_vn),
                z_rise: judged(x.evidence.z_rise),
                z_drift: judged(x.evidence.z_drift),
                preemptions_per_job: preemption.map(|p| p.0),
                preempted_share: preemption.map(|p| p.1),
                most_preemptions: preemption.map(|p| p.2),
            }
        })
        .collect()
}

/// The fraction of ρ* of point `p` in a sweep of `fraction`s (`None` in any other sweep).
fn fraction(exp: &Experiment, p: &Point) -> Option<F6> {
    (exp.sweep == SweepKind::Fraction).then_some(F6(p.key))
}

fn numa_rows<'a>(exp: &'a Experiment, out: &Outcome) -> Vec<NumaRow<'a>> {
    let Some(n) = &exp.numa else {
        return Vec::new();
    };
    out.runs
        .iter()
        .filter_map(|r| {
            let t = r.result.tally::<NumaTally>()?.1;
            Some(NumaRow {
                policy: &exp.labels[r.policy],
                layer: n.layers[r.policy].name(),
                load: F6(exp.points[r.point].load),
                replication: r.replication,
                placed: t.placed,
                numa_fit_percent: F6(100.0 * t.fit_fraction()),
                strict_placed: t.strict,
                refused: t.refused,
                verdict: r.verdict.to_string(),
            })
        })
        .collect()
}

/// A mean, empty when no run was pooled into it (NaN).
fn known(x: f64) -> Option<F6> {
    (!x.is_nan()).then_some(F6(x))
}

/// `summary.csv`: one row per (policy, point); its delay columns, per quantity and statistic
/// ([`DelayQuantity::ALL`] × [`Statistic::ALL`]), the estimate and its interval's ends (the
/// mean wait's estimate is the `mean_wait` column before them).
fn summary_rows(exp: &Experiment, out: &Outcome) -> Vec<Record> {
    out.summary
        .iter()
        .map(|r| {
            let p = exp.points[r.point];
            let (scaling, mean_queued_work) = traced(exp, &p, r.mean_queued_work);
            let d = r.delay.as_ref();
            let mut row = Record::default();
            row.cell("policy", &exp.labels[r.policy])
                .cell("load", F6(p.load))
                .cell("replications", r.replications)
                .maybe("mean_queue", known(r.mean_queue))
                .maybe("ci95_low", r.ci95.map(|c| F6(c.0)))
                .maybe("ci95_high", r.ci95.map(|c| F6(c.1)))
                .cell("verdict", r.verdict)
                .cell("arrival_rate", F6(p.arrival_rate))
                .cell("utilization", F6(r.utilization))
                .cell("throughput", F6(r.throughput))
                .maybe("mean_wait", known(r.mean_wait))
                .cell("stable_runs", r.verdict_counts[0])
                .cell("unstable_runs", r.verdict_counts[1])
                .cell("inconclusive_runs", r.verdict_counts[2])
                .cell("capped_runs", r.capped_runs)
                .maybe("median_cap_slot", r.cap_slot)
                .cell("growth_per_slot", F6(r.growth))
                .maybe("growth_ci95_low", r.growth_ci95.map(|c| F6(c.0)))
                .maybe("growth_ci95_high", r.growth_ci95.map(|c| F6(c.1)))
                .cell("pooled_runs", r.pooled)
                .cell("pooled_slots", r.pooled_slots)
                .column_if("scaling", scaling)
                .column_if("mean_queued_work", mean_queued_work)
                .column_if("fraction", fraction(exp, &p))
                .cell("delay_status", r.delay_words())
                .maybe("delay_jobs", d.map(|d| d.jobs));
            for quantity in DelayQuantity::ALL {
                for statistic in Statistic::ALL {
                    let e = d.map(|d| estimate(d, (statistic, quantity)));
                    let column = statistic.column(quantity);
                    if (quantity, statistic) != (DelayQuantity::Wait, Statistic::Mean) {
                        row.maybe(column.clone(), val(e));
                    }
                    row.maybe(format!("{column}_ci95_low"), lo(e))
                        .maybe(format!("{column}_ci95_high"), hi(e));
                }
            }
            row
        })
        .collect()
}

/// An estimate's value, and its interval's ends, for a CSV cell (empty when there is none).
fn val(e: Option<Estimate>) -> Option<F6> {
    e.map(|e| F6(e.value))
}
fn lo(e: Option<Estimate>) -> Option<F6> {
    e.and_then(|e| e.ci95).map(|c| F6(c.0))
}
fn hi(e: Option<Estimate>) -> Option<F6> {
    e.and_then(|e| e.ci95).map(|c| F6(c.1))
}

fn series_rows<'a>(exp: &'a Experiment, out: &Outcome) -> Vec<SeriesRow<'a>> {
    let mut rows = Vec::new();
    for r in &out.runs {
        let load = F6(exp.points[r.point].load);
        for &(slot, queue) in &r.result.series {
            rows.push(SeriesRow {
                policy: &exp.labels[r.policy],
                load,
                replication: r.replication,
                slot,
                queue,
            });
        }
    }
    rows
}

fn class_rows<'a>(exp: &'a Experiment, out: &Outcome) -> Vec<ClassRow<'a>> {
    let mut rows = Vec::new();
    for r in out.runs.iter().filter(|r| r.replication == 0) {
        let load = F6(exp.points[r.point].load);
        for (&(slot, _), lens) in r.result.series.iter().zip(&r.result.class_series) {
            for (c, &queue) in lens.iter().enumerate() {
                rows.push(ClassRow {
                    policy: &exp.labels[r.policy],
                    load,
                    replication: 0,
                    slot,
                    class: c + 1,
                    queue,
                });
            }
        }
    }
    rows
}

fn mix_rows<'a>(exp: &'a Experiment, out: &'a Outcome) -> Vec<MixRow<'a>> {
    let mut rows = Vec::new();
    for r in &out.runs {
        let load = F6(exp.points[r.point].load);
        for (c, share) in &r.result.config_mix {
            rows.push(MixRow {
                policy: &exp.labels[r.policy],
                load,
                replication: r.replication,
                configuration: c,
                share: F6(*share),
            });
        }
    }
    rows
}

fn threshold_rows(exp: &Experiment, out: &Outcome) -> Vec<ThresholdRow> {
    out.thresholds
        .iter()
        .map(|found| {
            let (policy, t) = (found.policy, &found.limit);
            let (a, b) = t.fractions();
            let probes: Vec<String> = t
                .probes
                .iter()
                .map(|p| {
                    format!(
                        "{}:{}:{}/{}/{}",
                        F6(p.load),
                        p.decided_as(),
                        p.counts[0],
                        p.counts[1],
                        p.counts[2]
                    )
                })
                .collect();
            let sat = out.saturated_load(exp, policy);
            ThresholdRow {
                policy: exp.labels[policy].clone(),
                rho_star_low: F6(t.rho_star.0),
                rho_star_high: F6(t.rho_star.1),
                lower: F6(t.lower),
                upper: F6(t.upper),
                upper_shown_unstable: t.upper_shown,
                fraction_low: F6(a),
                fraction_high: F6(b),
                probes_run: t.probes.len(),
                runs: t.runs(),
                slots: t.slots(),
                saturated_load: sat.map(|s| F6(s.0)),
                saturated_low: sat.map(|s| F6(s.1)),
                saturated_high: sat.map(|s| F6(s.2)),
                probes: probes.join(" "),
                ended: t.ended.as_str(),
                undecided_low: t.undecided_span().map(|s| F6(s.0)),
                undecided_high: t.undecided_span().map(|s| F6(s.1)),
                pilot_sustained: t.pilot.as_ref().and_then(|p| p.sustained).map(F6),
            }
        })
        .collect()
}

fn study_rows<'a>(exp: &'a Experiment, out: &'a Outcome) -> Vec<StudyCsvRow<'a>> {
    let top = exp.points.len() - 1;
    out.study
        .iter()
        .filter_map(|r| {
            let score = exp.policies[r.policy].score().unwrap_or("");
            let row = out.row(r.policy, top)?;
            Some(StudyCsvRow {
                policy: &exp.labels[r.policy],
                score,
                tasks: exp.compaction.as_ref().map_or(0, |c| c.tasks),
                demand_machines: F6(r.demand),
                compacted_p90: r.compaction.p90,
                compacted_min: r.compaction.min,
                compacted_max: r.compaction.max,
                lower: F6(r.limit.lower),
                upper: F6(r.limit.upper),
                upper_shown_unstable: r.limit.upper_shown,
                load_top: F6(exp.points[top].load),
                mean_queue_top: row.measured().then_some(F6(row.mean_queue)),
                ci95_low: row.ci95.map(|c| F6(c.0)),
                ci95_high: row.ci95.map(|c| F6(c.1)),
                verdict_top: row.verdict.as_str(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::experiment::queueing::{BY_SIZE, DelayQuantity, Statistic};

    /// The experiment reference's row of output file `file`.
    fn reference_row(file: &str) -> String {
        let reference = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/experiments/README.md"
        ))
        .unwrap();
        reference
            .lines()
            .find(|l| l.starts_with(&format!("| `{file}` |")))
            .unwrap_or_else(|| panic!("experiments/README.md has no row for {file}"))
            .to_string()
    }

    /// Every delay column the table of quantities and statistics makes is named in the
    /// reference's rows of `summary.csv` and `waits_by_size.csv`.
    #[test]
    fn every_generated_delay_column_is_in_the_reference() {
        let summary = reference_row("summary.csv");
        for q in DelayQuantity::ALL {
            for s in Statistic::ALL {
                let c = s.column(q);
                assert!(summary.contains(&c), "summary.csv's row lacks `{c}`");
            }
        }
        let by_size = reference_row("waits_by_size.csv");
        for (q, s) in BY_SIZE {
            let c = s.column(q);
            for col in [c.clone(), format!("{c}_ci95_low"), format!("{c}_ci95_high")] {
                assert!(
                    by_size.contains(&col),
                    "waits_by_size.csv's row lacks `{col}`"
                );
            }
        }
    }
}
