//! `report.md` of a queueing experiment: the setting, the summary table, work waiting,
//! configuration mixes, stability limits, the packing study, the claims and the figures.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::experiment::VERSION;
use crate::experiment::common::{MdTable, Report, report_claims_and_figures};
use crate::experiment::queueing::analysis::delay::Estimate;
use crate::experiment::queueing::analysis::{Outcome, SummaryRow};
use crate::experiment::queueing::spec::{BRACKET_INTERVALS, rho_star_how};
use crate::experiment::queueing::{
    BY_SIZE, ClaimSpec, Experiment, Horizon, PlotSpec, QueueNuma, Statistic, SweepKind,
};
use crate::multi::NumaTally;
use crate::plot::thousands;
use crate::stability::search::{Ended, Limit};
use crate::workload::replay::{TraceSpec, TraceSummary};

/// The report's text.
pub(in crate::experiment::queueing) fn report(
    exp: &Experiment,
    out: &Outcome,
    figures: &[PathBuf],
) -> String {
    let mut r = Report::new(exp.name());
    if !exp.header.description.is_empty() {
        r.line(format!("{}\n", exp.header.description.trim()));
    }
    setting(&mut r, exp);
    summary(&mut r, exp, out);
    work_waiting(&mut r, exp, out);
    waits(&mut r, exp, out);
    who_waits(&mut r, exp, out);
    mixes(&mut r, exp, out);
    limits(&mut r, exp, out);
    numa(&mut r, exp, out);
    if let Some(q) = &exp.constraints {
        super::constraints::report(&mut r, exp, q, out);
        super::constraints::report_validation(&mut r, exp, q, out);
    }
    study(&mut r, exp, out);
    preemptions(&mut r, exp, out);
    super::region_map::report(&mut r, exp, out);
    report_claims_and_figures(&mut r, &out.claims, figures);
    r.finish()
}

/// The model and the run settings in a paragraph (or two).
fn setting(r: &mut Report, exp: &Experiment) {
    let w = &exp.workload;
    match w.trace() {
        Some((spec, t)) => r.line(trace_setting(exp, spec, t)),
        None => {
            let (slots, warmup, _) = exp.run.slots().unwrap_or_default();
            r.line(format!(
                "packlab {VERSION}, seed {}. {} servers of capacity 1; sizes with mean E[R] = \
                 {:.6}; service with mean E[S] = 1/μ = {:.6} slots; {} arrivals. {slots} slots \
                 per run ({warmup} of warm-up), {} replication(s), queue cap {}.\n",
                exp.header.seed,
                exp.servers,
                w.sizes().mean(),
                w.service().mean(),
                w.arrivals().name(),
                exp.run.replications,
                exp.run.queue_cap
            ))
        }
    }
    if let Some(mix) = w.classes() {
        let each: Vec<String> = mix
            .classes()
            .iter()
            .enumerate()
            .map(|(k, c)| {
                format!(
                    "class {} (probability {}): sizes of mean {:.6}, service of mean {:.6} slots",
                    k + 1,
                    c.prob,
                    c.sizes.mean(),
                    c.service.mean()
                )
            })
            .collect();
        r.line(format!(
            "Jobs come in {} classes, each with its own sizes and service law: {}. E[R] above \
             is the mean size weighted by each class's work (its size times its service); the \
             waits are given per class.\n",
            each.len(),
            each.join("; ")
        ));
    }
    if w.dims() > 1 {
        r.line(format!(
            "Jobs request {} resources (servers have capacity 1 of each); E[R] and the load are \
             those of the bottleneck resource, the one with the largest mean request. Policies \
             with a score run on the multi-resource path; `utilization` averages the resources.\n",
            w.dims()
        ));
    }
    if let Some(n) = &exp.numa {
        r.line(numa_setting(n));
    }
    if let Some((a, b)) = exp.rho_star {
        let to_rate = exp.rate_per_load();
        let how = if exp.constraints.is_some() {
            "with the placement constraints: the linear programme over configurations per \
             server group"
                .to_string()
        } else if exp.numa.is_some() {
            "exact: the linear programme over configurations of the NUMA nodes, at this file's \
             share of strict jobs"
                .to_string()
        } else {
            rho_star_how(
                exp.workload.sizes(),
                exp.rho_star_intervals.unwrap_or(BRACKET_INTERVALS),
            )
        };
        r.line(format!(
            "Maximum supportable traffic intensity ρ* ∈ [{a:.6}, {b:.6}], i.e. arrival rate \
             λ* ∈ [{:.6}, {:.6}] jobs per slot ({how}).\n",
            a * to_rate,
            b * to_rate
        ));
    }
}

/// The NUMA setting: nodes, the strict share, and ρ* with and without strict jobs.
fn numa_setting(n: &QueueNuma) -> String {
    let shares: Vec<String> = n.layout.shares.iter().map(|s| format!("{s:.4}")).collect();
    let mut text = format!(
        "Every server has {} NUMA nodes (shares {} of its capacity); a share {} of the jobs \
         must run inside one node (strict), the others may be split across nodes. A scheduler \
         without cluster-level awareness (`default`, `machine`) may send a strict job to a \
         server none of whose nodes holds it: the job is refused there and waits.\n",
        n.layout.shares.len(),
        shares.join(", "),
        n.strict
    );
    if let Some(rho) = n.rho {
        text.push_str(&format!(
            "\nρ* on these servers (configuration LP over the nodes): {:.6} if every job is \
             strict, {:.6} with this file's share, {:.6} if none is (servers without nodes). \
             Fractions of ρ* below are of {:.6}.\n",
            rho.strict, rho.mixed, rho.split, rho.mixed
        ));
    }
    text
}

/// The setting of a replayed trace.
fn trace_setting(exp: &Experiment, spec: &TraceSpec, t: &TraceSummary) -> String {
    let horizon = match exp.run.horizon {
        Horizon::Slots { slots, warmup, .. } => {
            format!("{slots} slots per run ({warmup} of warm-up)")
        }
        Horizon::Window { warmup_fraction } => format!(
            "each run as long as its window, the first {:.0}% of it warm-up",
            100.0 * warmup_fraction
        ),
    };
    let thinned = match spec.thin {
        0 | 1 => String::new(),
        k => format!(
            " Shortened run (--quick): one job in {k} of the trace is replayed, on {} servers \
             instead of about {k} times as many, so the offered load and its bursts stay.",
            exp.servers
        ),
    };
    let k = usize::from(t.mean_work[1] > t.mean_work[0]);
    let service = exp.workload.service().mean();
    format!(
        "packlab {VERSION}. {} servers of capacity 1, fed by a replayed trace: `{}` ({:?}; \
         finished tasks only: {}), {} task records = {} jobs arriving over {:.0} s. Slots of {} \
         s; size = {:?} of the (CPU, memory) request × {}; service = duration rounded up to \
         whole slots (mean E[S] = {:.3} slots); mean size E[R] = {:.6}. A run replays its window \
         with arrival times divided by the traffic scaling c; {} replication(s) = consecutive \
         windows of the trace, each starting empty; {horizon}; queue cap {}. `load` is the \
         offered ρ = λ E[R·S] / L, with E[R·S] = {:.4} the mean of size × service over the \
         replayed jobs ({:.3} × E[R] E[S]: larger requests run longer), averaged over the \
         window.{thinned}\n",
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
        service,
        exp.workload.sizes().mean(),
        exp.run.replications,
        exp.run.queue_cap,
        t.mean_work[0].max(t.mean_work[1]),
        t.mean_work[k] / (t.mean_req[k] * service),
    )
}

/// One row per (policy, point): verdict, then mean queue, interval and wait for a stable row;
/// a row not judged stable shows its evidence instead (its mean queue is an artefact of the
/// cap and of when it was reached, not a measurement).
fn summary(r: &mut Report, exp: &Experiment, out: &Outcome) {
    if exp.points.is_empty() {
        return;
    }
    r.line(
        "## Mean queue size (95% CI over replications)\n\nA row is a measurement only when \
         every run was judged stable (or, for a replayed trace, no replay stopped at the cap); \
         its means are over the runs weighted by their slots after warm-up. A row with some runs \
         not judged stable shows the mean of its stable runs, saying how many, with no \
         interval. Any row that is not a measurement shows its evidence: the runs stopped at the queue cap and when, \
         and the queue's net growth from the empty start (queue at the end / slots run, jobs \
         per slot).\n",
    );
    // a sweep in fractions of ρ* shows them first, as the file, the figure and the claims do
    let fractions = exp.sweep == SweepKind::Fraction;
    let mut header = vec!["policy"];
    if fractions {
        header.push("fraction of ρ*");
    }
    let mut t = MdTable::new(header.into_iter().chain([
        "load ρ",
        "λ",
        "verdict (stable/unstable/inconclusive runs)",
        "mean queue",
        "95% CI",
        "mean wait",
        "utilisation",
        "evidence (rows not stable)",
    ]));
    for row in &out.summary {
        let p = exp.points[row.point];
        let [s, u, i] = row.verdict_counts;
        let stable = row.measured();
        let measured = |x: String| if stable { x } else { "–".to_string() };
        let ci = row
            .ci95
            .map_or("–".to_string(), |(a, b)| format!("{a:.3} .. {b:.3}"));
        let mut cells = vec![exp.labels[row.policy].clone()];
        if fractions {
            cells.push(format!("{}", p.key));
        }
        t.row(cells.into_iter().chain([
            format!("{:.4}", p.load),
            format!("{:.4}", p.arrival_rate),
            format!("{} ({s}/{u}/{i})", row.verdict),
            pooled(row, row.mean_queue, 3),
            measured(ci),
            pooled(row, row.mean_wait, 2),
            format!("{:.4}", row.utilization),
            if stable {
                String::new()
            } else {
                evidence(row, exp.run.queue_cap)
            },
        ]));
    }
    r.table(&t);
}

/// A row's mean `x` with `digits` decimals: as is for a measurement; for a row whose runs
/// were not all judged stable (none stopped at the cap), the mean of its stable runs saying
/// how many; otherwise a dash.
fn pooled(row: &SummaryRow, x: f64, digits: usize) -> String {
    if row.measured() {
        format!("{x:.digits$}")
    } else if row.pooled > 0 && row.capped_runs == 0 {
        format!("{x:.digits$} ({} of {} runs)", row.pooled, row.replications)
    } else {
        "–".to_string()
    }
}

/// What a row not a measurement showed: the runs left out of its means, the cap and when it
/// was reached, the net growth.
fn evidence(row: &SummaryRow, cap: u64) -> String {
    let mut e = String::new();
    let out = row.replications - row.pooled;
    if out > 0 && row.pooled > 0 {
        e += &format!(
            "{out} run{} not judged stable left out of the means; ",
            if out == 1 { "" } else { "s" }
        );
    }
    if let Some(at) = row.cap_slot {
        e += &format!(
            "{} of {} runs reached the cap of {} jobs (median at slot {}); ",
            row.capped_runs,
            row.replications,
            thousands(cap),
            thousands(at)
        );
    }
    e += &format!("net growth {} jobs/slot", significant(row.growth));
    if let Some((a, b)) = row.growth_ci95 {
        e += &format!(" ({} .. {})", significant(a), significant(b));
    }
    e
}

/// `x` with three significant digits.
fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    if digits > 6 {
        format!("{x:.2e}")
    } else {
        format!("{x:.digits$}")
    }
}

/// With a trace: the work waiting next to the jobs waiting.
fn work_waiting(r: &mut Report, exp: &Experiment, out: &Outcome) {
    if exp.workload.trace().is_none() {
        return;
    }
    r.line("\n## Work waiting (sum of the waiting jobs' sizes, in servers, time average)\n");
    let mut t = MdTable::new([
        "policy",
        "scaling c",
        "mean queue (jobs)",
        "mean work waiting",
    ]);
    for row in &out.summary {
        t.row([
            exp.labels[row.policy].clone(),
            exp.points[row.point].key.to_string(),
            format!("{:.1}", row.mean_queue),
            format!("{:.2}", row.mean_queued_work),
        ]);
    }
    r.table(&t);
}

/// The waiting times of every measured row, in a file that draws or claims them (every file's
/// `summary.csv` and `waits*.csv` have them).
fn waits(r: &mut Report, exp: &Experiment, out: &Outcome) {
    let asked = exp.plots.iter().any(|p| {
        matches!(
            p,
            PlotSpec::WaitCcdf { .. }
                | PlotSpec::WaitQuantileVsLoad { .. }
                | PlotSpec::WaitBySize { .. }
        )
    }) || exp
        .claims
        .iter()
        .any(|c| matches!(c, ClaimSpec::Wait { .. }));
    if !asked {
        return;
    }
    r.line(
        "\n## Waiting times (slots from arrival to placement)\n\nThe jobs placed after warm-up: \
         the mean is each run's, averaged over the replications; a quantile is that of every \
         job of every replication pooled, its 95 % interval inverted from the replications' \
         distribution functions (`docs/theory.md` §10.2); only where every run was judged \
         stable (the distributions merged over replications are in `waits.csv`, by job size \
         in `waits_by_size.csv`).\n",
    );
    let mut t = MdTable::new(
        [
            "policy",
            match exp.sweep {
                SweepKind::Fraction => "fraction of ρ* (load)",
                SweepKind::ArrivalRate => "λ",
                SweepKind::Scaling => "scaling c",
                SweepKind::Load => "load ρ",
            },
        ]
        .into_iter()
        .chain(Statistic::ALL.map(Statistic::name)),
    );
    let cell = |e: &Estimate| match e.ci95 {
        Some((lo, hi)) => format!("{:.1} [{lo:.1}, {hi:.1}]", e.value),
        None => format!("{:.1}", e.value),
    };
    for row in &out.summary {
        let p = exp.points[row.point];
        let x = match exp.sweep {
            SweepKind::Fraction => format!("{} ({:.4})", p.key, p.load),
            SweepKind::ArrivalRate => format!("{}", p.arrival_rate),
            SweepKind::Scaling => format!("{}", p.key),
            SweepKind::Load => format!("{}", p.load),
        };
        let mut cells = vec![exp.labels[row.policy].clone(), x];
        match &row.delay {
            Some(d) => cells.extend(Statistic::ALL.map(|s| cell(&d.wait.of(s)))),
            None => {
                cells.push(row.delay_words());
                cells.extend(std::iter::repeat_n(String::new(), Statistic::ALL.len() - 1));
            }
        }
        t.row(cells);
    }
    r.table(&t);
}

/// Configuration-based policies: the most used configurations per (policy, point).
fn mixes(r: &mut Report, exp: &Experiment, out: &Outcome) {
    let mut t = MdTable::new(["policy", "load ρ", "most used configurations"]);
    for row in &out.summary {
        let runs: Vec<_> = out.runs_at(row.policy, row.point).collect();
        let mut m: BTreeMap<&str, f64> = BTreeMap::new();
        for run in &runs {
            for (c, share) in &run.result.config_mix {
                *m.entry(c.as_str()).or_default() += share / runs.len() as f64;
            }
        }
        if m.is_empty() {
            continue;
        }
        let mut v: Vec<(&str, f64)> = m.into_iter().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        let top: Vec<String> = v
            .iter()
            .take(6)
            .map(|(c, x)| format!("{c} {:.1}%", 100.0 * x))
            .collect();
        t.row([
            exp.labels[row.policy].clone(),
            format!("{:.4}", exp.points[row.point].load),
            top.join(", "),
        ]);
    }
    if !t.is_empty() {
        r.line("\n## Active configurations (share of servers busy with each, time average)\n");
        r.table(&t);
    }
}

/// Stability limits as intervals, with the saturation estimate where it applies.
fn limits(r: &mut Report, exp: &Experiment, out: &Outcome) {
    if out.thresholds.is_empty() {
        return;
    }
    r.line(
        "\n## Stability limits (intervals from a noisy bisection on the load)\n\n\
         Lower end: the largest load shown stable (a majority of a probe's runs stable, none \
         unstable, where a first round of n ≥ 4 runs stops after its first ⌊n/2⌋ + 1 if they \
         all agree, a majority of the round; or, where the majority could not tell and no run \
         was unstable, `pooled-stable`: the mean decorrelation of its inconclusive runs below \
         its 1 % point at the critical load); upper end: the smallest shown unstable likewise (or ρ*, above which no policy \
         is stable). Each end is wrong with at most the stated probability if a single run is \
         wrong with probability 5 %, the calibrated rate, and each look of the pooled test with \
         1 % (`proofs/verdict_calibration.md`). \
         A first round whose first ⌊n/2⌋ + 1 runs all end inconclusive at `run.max_slots` stops \
         there too when the rest of the round is not expected to let the pooled test decide \
         (its probe is undecided on those runs, e.g. 0/0/3 of a round of 5). \
         A search ends when the interval is as narrow as the claim's resolution, when `max_probes` \
         loads were tried, or at the horizon: when no load left could move an end at the \
         longest horizon `run.max_slots` (`docs/performance.md`, \"Near a limit\").\n",
    );
    let mut tab = MdTable::new([
        "policy",
        "limit in load",
        "as fraction of ρ*",
        "how the ends were shown",
        "probes",
        "runs",
        "ended",
        "saturated FIFO (load, 95% CI)",
    ]);
    for found in &out.thresholds {
        let (policy, t) = (found.policy, &found.limit);
        let (a, b) = t.fractions();
        let sat = match out.saturated_load(exp, policy) {
            Some((m, lo, hi)) => format!("{m:.4} ({lo:.4} .. {hi:.4})"),
            None if exp.policies[policy].saturation_rule() => {
                "not asked (add a `saturation` claim)".into()
            }
            None => "does not apply (not FIFO service)".into(),
        };
        tab.row([
            exp.labels[policy].clone(),
            format!("[{:.4}, {:.4}]", t.lower, t.upper),
            format!("[{a:.4}, {b:.4}]"),
            t.ends(),
            t.probes.len().to_string(),
            t.runs().to_string(),
            ended(t),
            sat,
        ]);
    }
    r.table(&tab);
}

/// Why a search ended, in words: at the resolution, after `max_probes` or at the horizon, with
/// the width reached (upper − lower in load, as a percentage of ρ*'s upper end) and the loads
/// left undecided.
fn ended(t: &Limit) -> String {
    let width = 100.0 * (t.upper - t.lower) / t.rho_star.1;
    let undecided = match t.undecided_span() {
        Some((lo, hi)) if lo == hi => format!(": load {lo:.4} stayed undecided at `run.max_slots`"),
        Some((lo, hi)) => format!(": loads {lo:.4} to {hi:.4} stayed undecided at `run.max_slots`"),
        None => String::new(),
    };
    match t.ended {
        Ended::Resolution => "at the resolution".into(),
        Ended::Probes => format!("after `max_probes`, {width:.1} % of ρ* wide in load"),
        Ended::Horizon => format!("at the horizon, {width:.1} % of ρ* wide in load{undecided}"),
    }
}

/// NUMA-fit placements and refusals per policy and load (means over replications).
fn numa(r: &mut Report, exp: &Experiment, out: &Outcome) {
    let Some(n) = &exp.numa else { return };
    r.line(
        "\n## NUMA placements (whole runs, means over replications)\n\n\
         NUMA-fit: placements whose whole request came from one node; refused: strict jobs sent \
         to a server none of whose nodes could hold them, per 1000 placements.\n",
    );
    let mut tab = MdTable::new(["policy", "layer", "load", "NUMA-fit %", "refused / 1000"]);
    let mut cells: BTreeMap<(usize, usize), (f64, f64, u32)> = BTreeMap::new();
    for run in &out.runs {
        let Some((_, t)) = run.result.tally::<NumaTally>() else {
            continue;
        };
        let c = cells.entry((run.policy, run.point)).or_default();
        c.0 += 100.0 * t.fit_fraction();
        c.1 += 1000.0 * t.refused as f64 / t.placed.max(1) as f64;
        c.2 += 1;
    }
    for ((policy, point), (fit, refused, k)) in cells {
        tab.row([
            exp.labels[policy].clone(),
            n.layers[policy].name().to_string(),
            format!("{:.4}", exp.points[point].load),
            format!("{:.2}", fit / k as f64),
            format!("{:.1}", refused / k as f64),
        ]);
    }
    r.table(&tab);
}

/// Packing next to stability, per scored policy.
fn study(r: &mut Report, exp: &Experiment, out: &Outcome) {
    if out.study.is_empty() {
        return;
    }
    let top = exp.points.len() - 1;
    r.line(format!(
        "\n## Stability next to packing\n\nFor each scored policy: the compacted size of the \
         same workload ({} jobs drawn from it, on servers of capacity 1 per resource; lower \
         bound = the largest total request), and the stability limit by bisection on the load \
         (the bottleneck resource's) in [0, 1].\n",
        exp.compaction.as_ref().map_or(0, |c| c.tasks)
    ));
    let mut t = MdTable::new([
        "policy".to_string(),
        "compacted (p90, range)".into(),
        "lower bound".into(),
        "stable up to load".into(),
        "not stable from".into(),
        format!("mean queue at load {:.3}", exp.points[top].load),
    ]);
    for s in &out.study {
        let Some(row) = out.row(s.policy, top) else {
            continue;
        };
        t.row([
            exp.labels[s.policy].clone(),
            format!(
                "{} ({}..{})",
                s.compaction.p90, s.compaction.min, s.compaction.max
            ),
            format!("{:.1}", s.demand),
            format!("{:.4}", s.limit.lower),
            format!(
                "{:.4}{}",
                s.limit.upper,
                if s.limit.upper_shown {
                    ""
                } else {
                    " (not shown unstable)"
                }
            ),
            pooled(row, row.mean_queue, 2),
        ]);
    }
    r.table(&t);
}

/// With a preemptive policy: how often it preempted, per (policy, point), means over the
/// replications.
fn preemptions(r: &mut Report, exp: &Experiment, out: &Outcome) {
    use crate::sim::PreemptionTally;
    if !out
        .runs
        .iter()
        .any(|x| x.result.tally::<PreemptionTally>().is_some())
    {
        return;
    }
    r.line(
        "\n## Preemptions (preempt-resume; jobs completed after warm-up, means over \
         replications)\n",
    );
    let mut t = MdTable::new([
        "policy",
        "load ρ",
        "preemptions per job",
        "share preempted",
        "most on one job",
    ]);
    for row in &out.summary {
        let runs: Vec<(PreemptionTally, PreemptionTally)> = out
            .runs
            .iter()
            .filter(|x| x.policy == row.policy && x.point == row.point)
            .filter_map(|x| x.result.tally::<PreemptionTally>())
            .collect();
        if runs.is_empty() {
            continue;
        }
        let n = runs.len() as f64;
        let rates: Vec<(f64, f64)> = runs.iter().map(|(a, b)| b.rates(a)).collect();
        t.row([
            exp.labels[row.policy].clone(),
            format!("{:.4}", exp.points[row.point].load),
            format!("{:.4}", rates.iter().map(|r| r.0).sum::<f64>() / n),
            format!("{:.4}", rates.iter().map(|r| r.1).sum::<f64>() / n),
            runs.iter().map(|x| x.1.most).max().unwrap_or(0).to_string(),
        ]);
    }
    r.table(&t);
}

/// Who waits: with delays asked for, per point whose delays are measured, the mean and p99 of
/// the wait by size class (or job class) for each policy, the class that waits longest per
/// policy, and a note where a policy's replications ran unequal lengths.
fn who_waits(r: &mut Report, exp: &Experiment, out: &Outcome) {
    let asked = exp
        .plots
        .iter()
        .any(|p| matches!(p, PlotSpec::WaitBySize { .. }))
        || exp
            .claims
            .iter()
            .any(|c| matches!(c, ClaimSpec::Wait { .. }));
    if !asked {
        return;
    }
    let by_kind = exp.wait_classes.0.is_by_kind();
    r.line(format!(
        "\n## Who waits: the wait by {} (slots, over the jobs placed after warm-up; the mean \
         averaged over replications and the p99 of the replications pooled, with 95 % \
         intervals)\n",
        if by_kind { "job class" } else { "job size" }
    ));
    let class_name = |k: usize, c: &crate::experiment::queueing::analysis::delay::SizeDelay| {
        if by_kind {
            format!("class {}", k + 1)
        } else {
            match c.low {
                Some(lo) => format!("({lo:.3}, {:.3}]", c.high),
                None => format!("≤ {:.3}", c.high),
            }
        }
    };
    let cell = |e: &Estimate| match e.ci95 {
        Some((lo, hi)) => format!("{:.1} [{lo:.1}, {hi:.1}]", e.value),
        None => format!("{:.1}", e.value),
    };
    let p99 = BY_SIZE[1].1;
    for point in 0..exp.points.len() {
        let rows: Vec<_> = out
            .summary
            .iter()
            .filter(|row| row.point == point)
            .filter_map(|row| row.delay.as_ref().map(|d| (row.policy, d)))
            .filter(|(_, d)| !d.by_size.is_empty())
            .collect();
        let Some((_, first)) = rows.first() else {
            continue;
        };
        r.line(format!("**At {}**\n", exp.point_words(point)));
        let mut t = MdTable::new(
            [if by_kind { "class" } else { "size" }, "share of jobs"]
                .into_iter()
                .map(String::from)
                .chain(rows.iter().flat_map(|(p, _)| {
                    [
                        format!("{} mean", exp.labels[*p]),
                        format!("{} {}", exp.labels[*p], p99.name()),
                    ]
                })),
        );
        for (k, c) in first.by_size.iter().enumerate() {
            let mut cells = vec![
                class_name(k, c),
                format!("{:.3}", c.jobs as f64 / first.jobs.max(1) as f64),
            ];
            for (_, d) in &rows {
                match d.by_size.get(k) {
                    Some(x) => {
                        cells.push(cell(&x.wait.mean));
                        cells.push(cell(&x.wait.of(p99)));
                    }
                    None => cells.extend([String::new(), String::new()]),
                }
            }
            t.row(cells);
        }
        r.table(&t);
        let most: Vec<String> = rows
            .iter()
            .filter_map(|(p, d)| {
                let (k, c) = d
                    .by_size
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.wait.mean.value.total_cmp(&b.1.wait.mean.value))?;
                Some(format!(
                    "{}: {} ({:.1})",
                    exp.labels[*p],
                    class_name(k, c),
                    c.wait.mean.value
                ))
            })
            .collect();
        r.line(format!("\nLongest mean wait: {}.\n", most.join("; ")));
        paired(
            r,
            exp,
            out,
            point,
            (&rows.iter().map(|(p, _)| *p).collect::<Vec<_>>(), first),
        );
        uneven(
            r,
            exp,
            out,
            point,
            &rows.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        );
    }
}

/// Says which of `policies` ran replications of unequal length at `point` (a run still
/// inconclusive went on), and what that does to the means and the pooled quantiles.
fn uneven(r: &mut Report, exp: &Experiment, out: &Outcome, point: usize, policies: &[usize]) {
    let uneven: Vec<&str> = policies
        .iter()
        .filter(|&&p| {
            let slots: Vec<u64> = out
                .runs
                .iter()
                .filter(|x| x.policy == p && x.point == point)
                .map(|x| x.result.slots)
                .collect();
            slots.iter().any(|&s| s != slots[0])
        })
        .map(|&p| exp.labels[p].as_str())
        .collect();
    if !uneven.is_empty() {
        r.line(format!(
            "Replications of unequal length ({}: a run still inconclusive went on): the means \
             above weigh each run by its slots after warm-up, and the quantiles, like the \
             distributions merged over replications in `waits.csv`, pool every job: either way \
             a run extended to k times the slots counts about k times as much.\n",
            uneven.join(", ")
        ));
    }
}

/// The paired difference of each class's mean wait between each policy and the first of
/// `policies` at `point`: per replication (the same jobs, common random numbers), that run's
/// class mean less the first policy's, averaged with its 95 % Student-t interval.
fn paired(
    r: &mut Report,
    exp: &Experiment,
    out: &Outcome,
    point: usize,
    (policies, first): (
        &[usize],
        &crate::experiment::queueing::analysis::delay::Delay,
    ),
) {
    let [base, others @ ..] = policies else {
        return;
    };
    if others.is_empty() || exp.run.replications < 2 {
        return;
    }
    let class_mean = |policy: usize, rep: u32, k: usize| -> Option<f64> {
        let run = out
            .runs
            .iter()
            .find(|x| x.policy == policy && x.point == point && x.replication == rep)?;
        let c = run.result.waits.as_ref()?.classes.get(k)?;
        (c.wait.count() > 0).then(|| c.wait.mean())
    };
    let mut t = MdTable::new(
        ["size".to_string()].into_iter().chain(
            others
                .iter()
                .map(|&p| format!("{} − {}", exp.labels[p], exp.labels[*base])),
        ),
    );
    for k in 0..first.by_size.len() {
        let mut cells = vec![format!("{}", k + 1)];
        for &p in others {
            let diffs: Vec<f64> = (0..exp.run.replications)
                .filter_map(|rep| Some(class_mean(p, rep, k)? - class_mean(*base, rep, k)?))
                .collect();
            cells.push(
                match crate::experiment::queueing::analysis::mean_ci(&diffs) {
                    (m, Some((lo, hi))) if diffs.len() >= 2 => format!("{m:.1} [{lo:.1}, {hi:.1}]"),
                    (m, _) if !diffs.is_empty() => format!("{m:.1}"),
                    _ => String::new(),
                },
            );
        }
        t.row(cells);
    }
    r.line(format!(
        "Paired on the same jobs (each replication's class mean less {}'s in the same \
         replication; an interval that excludes 0 is a difference the replications agree on), \
         rows in the order of the table above:\n",
        exp.labels[*base]
    ));
    r.table(&t);
    r.line("");
}
