//! `kind = "packing"` experiments: packing evaluators of seeds 000, 001 and 003 on a snapshot,
//! for a set of schedulers (job order + scorer). Outputs CSV tables and the figures of seed
//! 000: utilisation after hole filling against the unit size (Fig. 1), pending tasks and
//! utilisation against the inflation factor (Fig. 2), compacted size against τ with the range
//! of the trials (Fig. 3); with the job orders as schedulers, the three together are its
//! Fig. 4.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::output::{
    create_dir, field, num, render_figure, report_claims_and_figures, write, write_claims,
    write_provenance,
};
use super::spec::{Ctx, parse_toml};
use super::{ClaimResult, ExperimentError, VERSION};
use crate::packing::evaluate::{
    Compaction, Inflated, Inflation, InflationOptions, Scheduler, compact, empty_machines,
    expansion, full_machines, hole_filling, inflation_sweep, monte_carlo_inflation, power,
    throughput_at, utilization,
};
use crate::packing::place::{JobOrder, Scorer};
use crate::packing::snapshot::Snapshot;
use crate::packing::sources::{
    read_alibaba_gpu, read_google_snapshot, read_orlib, read_snapshot_csv, read_triplet,
};
use crate::plot::{Chart, Series};
use crate::policy::registry;
use crate::rng::derive_seed;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    name: String,
    description: Option<String>,
    seed: Option<u64>,
    #[allow(dead_code)]
    kind: String,
    snapshot: RawSnapshot,
    #[serde(default)]
    scheduler: Vec<RawScheduler>,
    evaluate: RawEvaluate,
    #[serde(default)]
    claim: Vec<RawClaim>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSnapshot {
    source: String,
    file: String,
    nodes: Option<String>,
    instance: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScheduler {
    order: String,
    scorer: String,
    label: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvaluate {
    hole_filling: Option<Vec<f64>>,
    inflation: Option<Vec<f64>>,
    monte_carlo_tau: Option<f64>,
    compaction_tau: Option<Vec<f64>>,
    trials: Option<i64>,
    expansion_tau: Option<f64>,
    throughput: Option<Vec<f64>>,
    fragmentation: Option<Vec<f64>>,
    power_idle: Option<f64>,
    picky: Option<f64>,
    clip: Option<bool>,
    mu: Option<i64>,
    expansion_start: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    kind: String,
    order: Vec<String>,
    tau: f64,
}

/// A validated packing experiment.
#[derive(Clone, Debug)]
pub struct PackingExperiment {
    pub file: PathBuf,
    pub source: String,
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub snapshot: Snapshot,
    pub snapshot_label: String,
    pub schedulers: Vec<(String, JobOrder, Scorer)>,
    pub hole_units: Vec<f64>,
    pub factors: Vec<f64>,
    pub mc_tau: Option<f64>,
    pub compaction_tau: Vec<f64>,
    pub trials: usize,
    pub expansion_tau: Option<f64>,
    pub throughput_x: Vec<f64>,
    pub fragmentation_x: Vec<f64>,
    pub power_idle: f64,
    pub picky: f64,
    pub clip: bool,
    pub mu: usize,
    pub expansion_start: f64,
    /// Claims: scheduler indices expected in increasing order of compacted size at τ.
    pub claims: Vec<(Vec<usize>, f64)>,
}

fn fractions(cx: &Ctx<'_>, key: &str, v: &[f64], max: f64) -> Result<(), ExperimentError> {
    match v
        .iter()
        .find(|x| !(x.is_finite() && **x >= 0.0 && **x <= max))
    {
        Some(x) => Err(cx.bad(key, &format!("values in [0, {max}]"), x)),
        None => Ok(()),
    }
}

impl PackingExperiment {
    /// Validates a packing experiment and reads its snapshot.
    pub fn parse(file: &Path, source: &str) -> Result<Self, ExperimentError> {
        let raw: Raw = parse_toml(file, source)?;
        let cx = Ctx { file };
        cx.name(&raw.name)?;
        let path = file
            .parent()
            .unwrap_or_else(|| Path::new("."))
            .join(&raw.snapshot.file);
        let read_err = |e: crate::packing::sources::SourceError| {
            cx.bad("snapshot.file", "a readable snapshot", e)
        };
        let (snapshot, snapshot_label) = match raw.snapshot.source.as_str() {
            "google2011" => (
                read_google_snapshot(&path).map_err(read_err)?,
                "Google 2011".into(),
            ),
            "orlib" => {
                let all = read_orlib(&path).map_err(read_err)?;
                let k = raw.snapshot.instance.unwrap_or(0);
                let inst = all.get(k).ok_or_else(|| {
                    cx.bad(
                        "snapshot.instance",
                        &format!("an index below {}", all.len()),
                        k,
                    )
                })?;
                (inst.snapshot(), inst.name.clone())
            }
            "triplet" => {
                let inst = read_triplet(&path).map_err(read_err)?;
                (inst.snapshot(), inst.name.clone())
            }
            "alibaba_gpu2023" => {
                let nodes = raw.snapshot.nodes.as_ref().ok_or_else(|| {
                    cx.bad(
                        "snapshot.nodes",
                        "the node list file of the trace",
                        "nothing",
                    )
                })?;
                let npath = file.parent().unwrap_or_else(|| Path::new(".")).join(nodes);
                (
                    read_alibaba_gpu(&path, &npath).map_err(read_err)?,
                    "Alibaba GPU 2023".into(),
                )
            }
            "csv" => (
                read_snapshot_csv(&path).map_err(read_err)?,
                raw.snapshot.file.clone(),
            ),
            other => {
                return Err(cx.bad(
                    "snapshot.source",
                    "\"google2011\", \"alibaba_gpu2023\", \"orlib\", \"triplet\" or \"csv\"",
                    format!("\"{other}\""),
                ));
            }
        };
        if raw.scheduler.is_empty() {
            return Err(cx.bad("scheduler", "at least one [[scheduler]]", "none"));
        }
        let mut schedulers = Vec::new();
        for (i, s) in raw.scheduler.iter().enumerate() {
            let order = JobOrder::from_name(&s.order).ok_or_else(|| {
                cx.bad(
                    &format!("scheduler[{i}].order"),
                    "\"arrival\", \"cpu\", \"memory\" or \"sum\"",
                    format!("\"{}\"", s.order),
                )
            })?;
            let scorer = Scorer::from_name(&s.scorer).ok_or_else(|| {
                cx.bad(
                    &format!("scheduler[{i}].scorer"),
                    &format!("one of {}", Scorer::NAMES.join(", ")),
                    format!("\"{}\"", s.scorer),
                )
            })?;
            let label = s
                .label
                .clone()
                .unwrap_or_else(|| format!("{}-{}", s.scorer, s.order));
            if schedulers.iter().any(|(l, _, _)| *l == label) {
                return Err(cx.bad(&format!("scheduler[{i}].label"), "distinct labels", label));
            }
            schedulers.push((label, order, scorer));
        }
        let e = raw.evaluate;
        let hole_units = e.hole_filling.unwrap_or_default();
        fractions(&cx, "evaluate.hole_filling", &hole_units, 10.0)?;
        if hole_units.contains(&0.0) {
            return Err(cx.bad("evaluate.hole_filling", "unit sizes > 0", 0.0));
        }
        let factors = e.inflation.unwrap_or_default();
        if let Some(f) = factors
            .iter()
            .find(|f| !(f.is_finite() && **f >= 1.0 && **f <= 100.0))
        {
            return Err(cx.bad("evaluate.inflation", "factors in [1, 100]", f));
        }
        let compaction_tau = e.compaction_tau.unwrap_or_default();
        fractions(&cx, "evaluate.compaction_tau", &compaction_tau, 1.0)?;
        let throughput_x = e.throughput.unwrap_or_default();
        fractions(&cx, "evaluate.throughput", &throughput_x, 1.0)?;
        let fragmentation_x = e.fragmentation.unwrap_or_default();
        fractions(&cx, "evaluate.fragmentation", &fragmentation_x, 1.0)?;
        for (k, v) in [
            ("evaluate.monte_carlo_tau", e.monte_carlo_tau),
            ("evaluate.expansion_tau", e.expansion_tau),
        ] {
            if let Some(t) = v {
                fractions(&cx, k, &[t], 1.0)?;
            }
        }
        let trials = match e.trials {
            None => 11,
            Some(t) => cx.positive("evaluate.trials", t)? as usize,
        };
        let power_idle = e.power_idle.unwrap_or(0.5);
        fractions(&cx, "evaluate.power_idle", &[power_idle], 1.0)?;
        let picky = e.picky.unwrap_or(crate::packing::evaluate::PICKY);
        fractions(&cx, "evaluate.picky", &[picky], 1.0)?;
        let mu = match e.mu {
            None => 1,
            Some(m) => cx.positive("evaluate.mu", m)? as usize,
        };
        let expansion_start = e.expansion_start.unwrap_or(0.2);
        if !(expansion_start > 0.0 && expansion_start <= 1.0) {
            return Err(cx.bad(
                "evaluate.expansion_start",
                "a fraction in (0, 1]",
                expansion_start,
            ));
        }
        let mut claims = Vec::new();
        for (i, c) in raw.claim.iter().enumerate() {
            if c.kind != "compaction-order" {
                return Err(cx.bad(
                    &format!("claim[{i}].kind"),
                    "\"compaction-order\"",
                    format!("\"{}\"", c.kind),
                ));
            }
            if !compaction_tau.contains(&c.tau) {
                return Err(cx.bad(
                    &format!("claim[{i}].tau"),
                    "a value listed in evaluate.compaction_tau",
                    c.tau,
                ));
            }
            let order = c
                .order
                .iter()
                .map(|l| {
                    schedulers
                        .iter()
                        .position(|(x, _, _)| x == l)
                        .ok_or_else(|| cx.bad(&format!("claim[{i}].order"), "scheduler labels", l))
                })
                .collect::<Result<Vec<_>, _>>()?;
            claims.push((order, c.tau));
        }
        Ok(PackingExperiment {
            file: file.to_path_buf(),
            source: source.to_string(),
            name: raw.name,
            description: raw.description.unwrap_or_default(),
            seed: raw.seed.unwrap_or(1),
            snapshot,
            snapshot_label,
            schedulers,
            hole_units,
            factors,
            mc_tau: e.monte_carlo_tau,
            compaction_tau,
            trials,
            expansion_tau: e.expansion_tau,
            throughput_x,
            fragmentation_x,
            power_idle,
            picky,
            clip: e.clip.unwrap_or(true),
            mu,
            expansion_start,
            claims,
        })
    }

    /// About 1/100 of the trials (at least one).
    pub fn quick(&mut self) {
        self.trials = (self.trials / 100).max(1);
    }
}

/// One scheduler's results.
#[derive(Clone, Debug)]
pub struct SchedulerResult {
    pub utilization: [f64; 3],
    pub pending: usize,
    pub empty: usize,
    pub full: Vec<usize>,
    pub power: f64,
    pub holes: Vec<[f64; 3]>,
    /// Per (kind, conforming): the sweep.
    pub inflation: Vec<(Inflation, bool, Vec<Inflated>)>,
    pub monte_carlo: Option<Vec<Inflated>>,
    pub compaction: Vec<Compaction>,
    pub expansion: Vec<usize>,
    pub throughput: Vec<f64>,
}

/// Everything a packing experiment computed.
#[derive(Clone, Debug)]
pub struct PackingOutcome {
    pub results: Vec<SchedulerResult>,
    pub claims: Vec<ClaimResult>,
}

/// Runs every evaluator for every scheduler.
pub fn execute_packing(exp: &PackingExperiment, threads: Option<usize>) -> PackingOutcome {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    let pool = builder.build().expect("a thread pool");
    let snap = &exp.snapshot;
    let all: Vec<usize> = (0..snap.machines.len()).collect();
    let median = snap.median_machine();
    let results = pool.install(|| {
        exp.schedulers
            .iter()
            .map(|(label, order, scorer)| {
                let (order, scorer) = (*order, *scorer);
                // seeded by the label, so adding a scheduler leaves the others' results as
                // they were
                let tag = label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
                });
                let seed = derive_seed(exp.seed, &[tag]);
                let sched = Scheduler::new(snap, order, scorer);
                let p = sched.pack(snap, &all, seed);
                let holes = exp
                    .hole_units
                    .iter()
                    .map(|&u| {
                        let unit = std::array::from_fn(|d| (median[d] as f64 * u).round() as u64);
                        hole_filling(snap, &p, unit)
                    })
                    .collect();
                let inflation = if exp.factors.is_empty() {
                    Vec::new()
                } else {
                    let mut v = Vec::new();
                    for how in [Inflation::Horizontal, Inflation::Vertical] {
                        for conforming in [false, true] {
                            let r = inflation_sweep(
                                snap,
                                order,
                                scorer,
                                &exp.factors,
                                how,
                                InflationOptions {
                                    conforming_only: conforming,
                                    picky: exp.picky,
                                    clip: exp.clip,
                                },
                                seed,
                            );
                            v.push((how, conforming, r));
                        }
                    }
                    v
                };
                let monte_carlo = exp.mc_tau.map(|tau| {
                    (0..exp.trials)
                        .map(|k| {
                            monte_carlo_inflation(
                                snap,
                                order,
                                scorer,
                                tau,
                                InflationOptions {
                                    conforming_only: true,
                                    picky: exp.picky,
                                    clip: exp.clip,
                                },
                                derive_seed(seed, &[1, k as u64]),
                            )
                        })
                        .collect()
                });
                let compaction = exp
                    .compaction_tau
                    .iter()
                    .map(|&tau| compact(snap, &sched, tau, exp.mu, exp.trials, seed))
                    .collect();
                let expansion = exp
                    .expansion_tau
                    .map(|tau| {
                        (0..exp.trials)
                            .map(|k| {
                                expansion(
                                    snap,
                                    order,
                                    scorer,
                                    tau,
                                    exp.expansion_start,
                                    derive_seed(seed, &[2, k as u64]),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let throughput = exp
                    .throughput_x
                    .iter()
                    .map(|&x| throughput_at(snap, &sched, x, exp.trials, seed))
                    .collect();
                SchedulerResult {
                    utilization: utilization(snap, &p),
                    pending: p.pending,
                    empty: empty_machines(snap, &p),
                    full: exp
                        .fragmentation_x
                        .iter()
                        .map(|&x| full_machines(snap, &p, x))
                        .collect(),
                    power: power(snap, &p, exp.power_idle),
                    holes,
                    inflation,
                    monte_carlo,
                    compaction,
                    expansion,
                    throughput,
                }
            })
            .collect::<Vec<_>>()
    });
    let claims = exp
        .claims
        .iter()
        .map(|(order, tau)| {
            let k = exp
                .compaction_tau
                .iter()
                .position(|t| t == tau)
                .expect("validated");
            let sizes: Vec<usize> = order
                .iter()
                .map(|&s| results[s].compaction[k].p90)
                .collect();
            let labels: Vec<&str> = order
                .iter()
                .map(|&s| exp.schedulers[s].0.as_str())
                .collect();
            ClaimResult {
                claim: format!(
                    "compacted size (90th percentile) ranks {} at tau = {tau}",
                    labels.join(" < ")
                ),
                expected: labels.join(" < "),
                observed: labels
                    .iter()
                    .zip(&sizes)
                    .map(|(l, s)| format!("{l} {s}"))
                    .collect::<Vec<_>>()
                    .join("; "),
                evidence: format!("{} trials each", exp.trials),
                holds: sizes.windows(2).all(|w| w[0] < w[1]),
            }
        })
        .collect();
    PackingOutcome { results, claims }
}

/// Writes the tables, figures, claims, report and provenance.
pub fn write_packing_outputs(
    exp: &PackingExperiment,
    out: &PackingOutcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    create_dir(dir)?;
    let mut files = Vec::new();
    let label = |i: usize| exp.schedulers[i].0.as_str();
    let m = exp.snapshot.machines.len();
    let mut s = String::from(
        "scheduler,cpu_utilization,memory_utilization,pending,empty_machines,power,full_machines\n",
    );
    for (i, r) in out.results.iter().enumerate() {
        let full: Vec<String> = exp
            .fragmentation_x
            .iter()
            .zip(&r.full)
            .map(|(x, n)| format!("{x}:{n}"))
            .collect();
        writeln!(
            s,
            "{},{},{},{},{},{},{}",
            label(i),
            num(r.utilization[0]),
            num(r.utilization[1]),
            r.pending,
            r.empty,
            num(r.power),
            field(&full.join(" "))
        )
        .expect("string");
    }
    files.push(write(dir.join("summary.csv"), &s)?);
    let mut s = String::from("scheduler,unit,cpu_utilization,memory_utilization\n");
    for (i, r) in out.results.iter().enumerate() {
        for (u, h) in exp.hole_units.iter().zip(&r.holes) {
            writeln!(s, "{},{u},{},{}", label(i), num(h[0]), num(h[1])).expect("string");
        }
    }
    files.push(write(dir.join("hole_filling.csv"), &s)?);
    let mut s = String::from(
        "scheduler,inflation,jobs,factor,tasks,pending,cpu_utilization,memory_utilization\n",
    );
    for (i, r) in out.results.iter().enumerate() {
        for (how, conf, sweep) in &r.inflation {
            for x in sweep {
                writeln!(
                    s,
                    "{},{},{},{},{},{},{},{}",
                    label(i),
                    if *how == Inflation::Horizontal {
                        "horizontal"
                    } else {
                        "vertical"
                    },
                    if *conf { "conforming" } else { "all" },
                    x.factor,
                    x.tasks,
                    x.pending,
                    num(x.utilization[0]),
                    num(x.utilization[1])
                )
                .expect("string");
            }
        }
        if let Some(mc) = &r.monte_carlo {
            for x in mc {
                writeln!(
                    s,
                    "{},monte-carlo,conforming,{},{},{},{},{}",
                    label(i),
                    num(x.factor),
                    x.tasks,
                    x.pending,
                    num(x.utilization[0]),
                    num(x.utilization[1])
                )
                .expect("string");
            }
        }
    }
    files.push(write(dir.join("inflation.csv"), &s)?);
    let mut s = String::from("scheduler,tau,p90_machines,min,max,fraction_of_cluster,trials\n");
    for (i, r) in out.results.iter().enumerate() {
        for (t, c) in exp.compaction_tau.iter().zip(&r.compaction) {
            let sizes: Vec<String> = c.trials.iter().map(|t| t.machines.to_string()).collect();
            writeln!(
                s,
                "{},{t},{},{},{},{},{}",
                label(i),
                c.p90,
                c.min,
                c.max,
                num(c.p90 as f64 / m as f64),
                sizes.join(" ")
            )
            .expect("string");
        }
    }
    files.push(write(dir.join("compaction.csv"), &s)?);
    let mut s = String::from("scheduler,metric,x,value\n");
    for (i, r) in out.results.iter().enumerate() {
        for (x, t) in exp.throughput_x.iter().zip(&r.throughput) {
            writeln!(s, "{},T(x) tasks placed,{x},{}", label(i), num(*t)).expect("string");
        }
        for (k, e) in r.expansion.iter().enumerate() {
            writeln!(s, "{},expansion machines,{k},{e}", label(i)).expect("string");
        }
    }
    files.push(write(dir.join("other.csv"), &s)?);
    files.push(write_claims(dir, &out.claims)?);

    let series = |f: &dyn Fn(&SchedulerResult) -> Vec<(f64, f64)>| -> Vec<Series> {
        out.results
            .iter()
            .enumerate()
            .map(|(i, r)| Series {
                label: label(i).to_string(),
                colour: registry::colour(label(i)),
                points: f(r),
                ..Default::default()
            })
            .collect()
    };
    let mut charts: Vec<(Chart, &str)> = Vec::new();
    if !exp.hole_units.is_empty() {
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
                        exp.hole_units
                            .iter()
                            .zip(&r.holes)
                            .map(|(u, h)| (*u, h[d]))
                            .collect()
                    }),
                    markers: true,
                    log_y: false,
                },
                if d == 0 {
                    "fig1_hole_filling_cpu"
                } else {
                    "fig1_hole_filling_memory"
                },
            ));
        }
    }
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
                    log_y: false,
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
                log_y: false,
            },
            "fig2_utilization_horizontal_all",
        ));
    }
    if !exp.compaction_tau.is_empty() {
        charts.push((
            Chart {
                title: format!(
                    "{}: compacted cluster size (90th percentile of {} trials, range)",
                    exp.snapshot_label, exp.trials
                ),
                x_label: "fraction of tasks allowed to go pending τ".into(),
                y_label: "machines".into(),
                series: out
                    .results
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Series {
                        label: label(i).to_string(),
                        colour: registry::colour(label(i)),
                        points: exp
                            .compaction_tau
                            .iter()
                            .zip(&r.compaction)
                            .map(|(t, c)| (*t, c.p90 as f64))
                            .collect(),
                        bars: Some(
                            r.compaction
                                .iter()
                                .map(|c| (c.min as f64, c.max as f64))
                                .collect(),
                        ),
                        points_only: false,
                    })
                    .collect(),
                markers: true,
                log_y: false,
            },
            "fig3_compaction",
        ));
    }
    let mut figures = Vec::new();
    for (chart, file) in &charts {
        let paths = render_figure(dir, chart, file)?;
        figures.push(paths[0].clone());
        files.extend(paths);
    }
    files.push(write_provenance(dir, &exp.file, &exp.source)?);
    let mut r = String::new();
    let _ = writeln!(r, "# {}\n", exp.name);
    if !exp.description.is_empty() {
        let _ = writeln!(r, "{}\n", exp.description.trim());
    }
    let _ = writeln!(
        r,
        "packlab {VERSION}, seed {}. Snapshot {}: {} tasks on {} machines.\n",
        exp.seed,
        exp.snapshot_label,
        exp.snapshot.tasks.len(),
        m
    );
    let _ = writeln!(
        r,
        "| scheduler | CPU util. | memory util. | pending | empty machines | power | compacted (p90) |"
    );
    let _ = writeln!(r, "|---|---|---|---|---|---|---|");
    for (i, res) in out.results.iter().enumerate() {
        let comp: Vec<String> = exp
            .compaction_tau
            .iter()
            .zip(&res.compaction)
            .map(|(t, c)| format!("τ={t}: {} ({}..{})", c.p90, c.min, c.max))
            .collect();
        let _ = writeln!(
            r,
            "| {} | {:.4} | {:.4} | {} | {} | {:.4} | {} |",
            label(i),
            res.utilization[0],
            res.utilization[1],
            res.pending,
            res.empty,
            res.power,
            comp.join(", ")
        );
    }
    report_claims_and_figures(&mut r, &out.claims, &figures);
    files.push(write(dir.join("report.md"), &r)?);
    Ok(files)
}
