//! `[constraints]` in a queueing file: placement constraints in the slotted simulator (Sharma
//! et al., SoCC 2011; docs/theory.md section 11.2). The servers get properties by Algorithm 2
//! once per experiment, every job a constraint set by Algorithm 3 ([`JobClasses`]); the scored
//! policies place a job only on servers that satisfy all its constraints. Outputs per
//! constraint c: the mean wait of the jobs requesting c, its ratio to the mean wait of all jobs
//! (the paper's normalised scheduling delay, its Fig. 10), next to u*_c; and ρ* with and
//! without the constraints, by the linear programme over configurations per server group
//! ([`max_supportable_constrained`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::results::Outcome;
use super::schema::RawPolicy;
use super::{Experiment, PlotSpec, Workload};
use crate::configurations::constrained::{ConstrainedWorkload, max_supportable_constrained};
use crate::constraints::{
    Characterisation, Eligibility, JobClasses, ServerMultiplier, SupportError,
};
use crate::experiment::ExperimentError;
use crate::experiment::common::{
    Ctx, F6, MdTable, RawConstraints, Report, characterisation, write_csv,
};
use crate::model::Size;
use crate::plot::{Chart, Series};
use crate::policy::PolicySpec;
use crate::policy::registry;
use crate::rng::derive_seed;
use crate::stability::region::rho_star;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The stream the servers' properties are drawn from: the experiment seed's, as a packing
/// file's synthesis.
pub const SERVERS_STREAM: u64 = 0x636f_6e73;

/// Jobs characterised for the re-synthesis (the feature vectors of this many draws).
pub const CHARACTERISED_JOBS: usize = 100_000;

/// Re-synthesised clusters at most (replication r runs on cluster r mod this).
pub const MAX_SYNTHESES: u32 = 100;

/// The paper's tolerance of sort-and-merge (Section 5.1).
pub const MERGE_TOLERANCE: f64 = 0.05;

/// What the synthesis validation synthesises again from the characterisation (Sharma et al.,
/// Fig. 17 (a)–(c)); the rest is the ground truth's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Resynthesis {
    /// The jobs' constraints (Algorithm 3); the ground truth's servers.
    Tasks,
    /// The servers' properties (Algorithm 2); the ground truth's law of job constraints.
    Machines,
    /// Both.
    Both,
}

impl Resynthesis {
    /// `constraints.resynthesise`: `true` (both), `false` (none), or "tasks", "machines",
    /// "both".
    fn parse(cx: &Ctx<'_>, v: &toml::Value) -> Result<Option<Self>, ExperimentError> {
        match v {
            toml::Value::Boolean(b) => Ok(b.then_some(Resynthesis::Both)),
            toml::Value::String(s) if s == "tasks" => Ok(Some(Resynthesis::Tasks)),
            toml::Value::String(s) if s == "machines" => Ok(Some(Resynthesis::Machines)),
            toml::Value::String(s) if s == "both" => Ok(Some(Resynthesis::Both)),
            other => Err(cx.bad(
                "constraints.resynthesise",
                "true, false, \"tasks\", \"machines\" or \"both\"",
                other,
            )),
        }
    }

    /// What is synthesised, in words.
    pub fn what(self) -> &'static str {
        match self {
            Resynthesis::Tasks => {
                "the jobs' constraints (Algorithm 3) on the ground truth's servers"
            }
            Resynthesis::Machines => {
                "the servers' properties (Algorithm 2) under the ground truth's job constraints"
            }
            Resynthesis::Both => {
                "the servers' properties and the jobs' constraints (Algorithms 2 and 3)"
            }
        }
    }
}

/// Servers with attributes and the law of the jobs' constraint classes: the file's synthesis
/// (the ground truth) or its re-synthesis.
#[derive(Clone, Debug, serde::Serialize)]
pub struct World {
    pub classes: Arc<JobClasses>,
    /// The classes' eligibility table, shared by every run's cluster.
    pub table: Arc<Eligibility>,
    /// u*_c of every constraint of the vocabulary on these servers, in vocabulary order.
    pub multipliers: Vec<ServerMultiplier>,
}

impl World {
    fn new(classes: JobClasses) -> Self {
        World {
            table: Arc::new(classes.table.clone()),
            multipliers: classes.multipliers(),
            classes: Arc::new(classes),
        }
    }
}

/// `[constraints]`, validated and synthesised.
#[derive(Clone, Debug, serde::Serialize)]
pub struct QueueConstraints {
    /// The file's synthesis.
    pub truth: World,
    /// With `resynthesise`: the characterisation of `truth` (Sharma et al.'s Section 5.1), and
    /// the clusters synthesised from it by Algorithms 2 and 3 (what `mode` says), one per
    /// replication (servers drawn anew each time, so the intervals over replications include
    /// the synthesis's own sampling; one for all when only the jobs are synthesised again);
    /// for each policy whether it runs there (the file's policies are then followed
    /// by their copies, labelled `<label>-synthetic`).
    pub found: Option<Characterisation>,
    pub mode: Option<Resynthesis>,
    /// Whether the re-synthesised servers were drawn by quota.
    pub quota: bool,
    pub synthetic: Vec<World>,
    pub on_synthetic: Vec<bool>,
    /// ρ* as a traffic intensity (constrained, unconstrained), for finitely many sizes of one
    /// resource (of the ground truth).
    pub rho: Option<(f64, f64)>,
}

impl QueueConstraints {
    /// The world replication `rep` of policy `policy` runs in.
    pub fn world(&self, policy: usize, rep: u32) -> &World {
        if self.on_synthetic.get(policy) == Some(&true) && !self.synthetic.is_empty() {
            &self.synthetic[rep as usize % self.synthetic.len()]
        } else {
            &self.truth
        }
    }

    /// Whether the file asked for the synthesis validation.
    pub fn validates(&self) -> bool {
        self.found.is_some()
    }
}

/// Validates `[constraints]` and synthesises the servers (`servers` of them, from `seed`).
pub(super) fn setup(
    cx: &Ctx<'_>,
    raw: Option<&RawConstraints>,
    servers: usize,
    workload: &Workload,
    seed: u64,
    replications: u32,
) -> Result<Option<QueueConstraints>, ExperimentError> {
    let Some(raw) = raw else { return Ok(None) };
    let ch = characterisation(cx, raw)?;
    let refused = |e: SupportError, what: &str| {
        match e {
        SupportError::TooMany { cluster, .. } | SupportError::NeverRunnable { cluster } => cx.bad(
            &format!("constraints.tasks[{cluster}].frequency"),
            &format!(
                "a task cluster whose constraint sets the simulator can enumerate and some server satisfies{what}"
            ),
            e,
        ),
        SupportError::TooManySets { .. } => cx.bad(
            "constraints.tasks",
            "task clusters whose constraint sets the simulator can enumerate",
            e,
        ),
        SupportError::Constraint(c) => {
            cx.bad("constraints.vocabulary", "constraints the servers can be asked", c)
        }
    }
    };
    let truth_seed = derive_seed(seed, &[SERVERS_STREAM]);
    let classes = JobClasses::new(&ch, servers, truth_seed).map_err(|e| refused(e, ""))?;
    let mode = match &raw.resynthesise {
        Some(v) => Resynthesis::parse(cx, v)?,
        None => None,
    };
    let quota = raw.quota == Some(true);
    if quota && !matches!(mode, Some(Resynthesis::Machines | Resynthesis::Both)) {
        return Err(cx.bad(
            "constraints.quota",
            "quota = true only with resynthesise = true, \"machines\" or \"both\" (it draws the re-synthesised servers)",
            format!("resynthesise = {}", raw.resynthesise.as_ref().map_or("(absent)".into(), |v| v.to_string())),
        ));
    }
    let (found, synthetic) = if let Some(mode) = mode {
        let mut rng = Pcg64Mcg::seed_from_u64(derive_seed(seed, &[SERVERS_STREAM, 1]));
        let found = classes.characterise(CHARACTERISED_JOBS, MERGE_TOLERANCE, &mut rng);
        // the jobs' law: the characterisation's, or the ground truth's when only the servers
        // are synthesised again; with only the jobs, the servers are the ground truth's (the
        // same draws from the file's clusters), one world for every replication
        let tasks = if mode == Resynthesis::Machines {
            &ch
        } else {
            &found
        };
        let syntheses = if mode == Resynthesis::Tasks {
            1
        } else {
            replications.clamp(1, MAX_SYNTHESES)
        };
        let worlds = (0..syntheses)
            .map(|r| {
                let s = derive_seed(seed, &[SERVERS_STREAM, 2, r as u64]);
                match mode {
                    Resynthesis::Tasks => JobClasses::split(&ch, tasks, servers, truth_seed),
                    _ if quota => {
                        let mut rng = Pcg64Mcg::seed_from_u64(s);
                        let rows: Vec<_> = found
                            .machines_by_quota(servers, &mut rng)
                            .into_iter()
                            .map(|m| m.properties)
                            .collect();
                        JobClasses::on_servers(tasks, &rows)
                    }
                    _ => JobClasses::split(&found, tasks, servers, s),
                }
                .map(World::new)
                .map_err(|e| refused(e, " (in the re-synthesis from the characterised cluster)"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        (Some(found), worlds)
    } else {
        (None, Vec::new())
    };
    let rho = match workload.sizes().atoms() {
        Some(atoms) if workload.dims() == 1 && workload.trace().is_none() => {
            Some(constrained_rho(&classes, &atoms).map_err(|e| {
                cx.bad(
                    "constraints",
                    "a workload whose ρ* with constraints can be computed",
                    e,
                )
            })?)
        }
        _ => None,
    };
    Ok(Some(QueueConstraints {
        truth: World::new(classes),
        found,
        mode,
        quota,
        synthetic,
        on_synthetic: Vec::new(),
        rho,
    }))
}

/// Every policy must have a score: constraints run on the multi-resource path, where bf-js and
/// fifo-ff take a placement score and only eligible servers are offered; vqs, vqs-bf and
/// max-weight schedule configurations of sizes, with no notion of which server may take which
/// job, and are refused.
pub(super) fn policies(
    cx: &Ctx<'_>,
    raw: &[RawPolicy],
    policies: &[PolicySpec],
) -> Result<(), ExperimentError> {
    for (i, (r, spec)) in raw.iter().zip(policies).enumerate() {
        if !spec.is_scored() {
            return Err(cx.bad(
                &format!("policy[{i}].score"),
                "a placement score: with [constraints], bf-js and fifo-ff run on the \
                 multi-resource path with a score (e.g. score = \"bestfit\"); vqs, vqs-bf and \
                 max-weight have no constrained form",
                format!("policy `{}` without one", r.name),
            ));
        }
    }
    Ok(())
}

/// ρ* (traffic intensity) of size law `atoms` with and without the job classes' constraints
/// on these servers: the constrained programme over the server groups (kinds the classes
/// treat alike), sizes and classes independent; without, section 2's.
pub fn constrained_rho(classes: &JobClasses, atoms: &[(Size, f64)]) -> Result<(f64, f64), String> {
    let (group_of_kind, allowed) = classes.table.groups();
    let mut shares = vec![0.0; allowed.first().map_or(0, |r| r.len())];
    let l = classes.kind.len() as f64;
    for &k in &classes.kind {
        shares[group_of_kind[k as usize] as usize] += 1.0 / l;
    }
    let sizes: Vec<Size> = atoms.iter().map(|a| a.0).collect();
    let mean: f64 = atoms.iter().map(|(s, p)| s.as_f64() * p).sum();
    let demand: Vec<Vec<f64>> = atoms
        .iter()
        .map(|(_, p)| classes.probability.iter().map(|q| p * q).collect())
        .collect();
    let constrained = max_supportable_constrained(&ConstrainedWorkload {
        sizes: &sizes,
        demand: &demand,
        allowed: &allowed,
        group_shares: &shares,
    })
    .map_err(|e| e.to_string())?;
    let free = rho_star(atoms).map_err(|e| e.to_string())?.traffic;
    Ok((constrained * mean, free))
}

/// One constraint's delay at one (policy, point), pooled over the replications.
#[derive(Clone, Debug)]
pub struct ConstraintDelay {
    pub policy: usize,
    pub point: usize,
    /// Index into the vocabulary.
    pub constraint: usize,
    /// Its share of the demand and of the supply, and u*_c, in the policy's world (the mean
    /// over the replications' worlds for a re-synthesis).
    pub demand_share: f64,
    pub supply_share: f64,
    pub u: f64,
    /// Jobs requesting it placed after warm-up, and their mean wait, slots.
    pub jobs: u64,
    pub mean_wait: f64,
    /// Mean wait of all jobs placed after warm-up, slots.
    pub mean_wait_all: f64,
}

impl ConstraintDelay {
    /// The normalised scheduling delay: its mean wait over all jobs' (NaN when no job waited).
    pub fn normalised(&self) -> f64 {
        if self.mean_wait_all > 0.0 {
            self.mean_wait / self.mean_wait_all
        } else {
            f64::NAN
        }
    }
}

/// Every constraint's delay at every (policy, point) with runs.
pub fn delays(q: &QueueConstraints, out: &Outcome) -> Vec<ConstraintDelay> {
    let n = q.truth.multipliers.len();
    // (policy, point) -> per constraint (jobs, wait sum, Σ demand, Σ supply, Σ u over runs);
    // then (all jobs, all waits, runs)
    type Cell = (Vec<(u64, f64, f64, f64, f64)>, u64, f64, u32);
    let mut pooled: std::collections::BTreeMap<(usize, usize), Cell> = Default::default();
    for r in &out.runs {
        let world = q.world(r.policy, r.replication);
        let cell = pooled
            .entry((r.policy, r.point))
            .or_insert_with(|| (vec![(0, 0.0, 0.0, 0.0, 0.0); n], 0, 0.0, 0));
        for (set, &(k, mean)) in world
            .table
            .classes()
            .iter()
            .zip(&crate::multi::class_waits(&r.result))
        {
            cell.1 += k;
            cell.2 += k as f64 * mean;
            for (i, m) in world.multipliers.iter().enumerate() {
                if set.contains(&m.constraint) {
                    cell.0[i].0 += k;
                    cell.0[i].1 += k as f64 * mean;
                }
            }
        }
        for (c, m) in cell.0.iter_mut().zip(&world.multipliers) {
            c.2 += m.demand_share;
            c.3 += m.supply_share;
            c.4 += m.u;
        }
        cell.3 += 1;
    }
    let mut rows = Vec::new();
    for ((policy, point), (cells, all_n, all_w, runs)) in pooled {
        let mean_wait_all = if all_n > 0 { all_w / all_n as f64 } else { 0.0 };
        let runs = runs.max(1) as f64;
        for (i, &(k, w, d, s, u)) in cells.iter().enumerate() {
            rows.push(ConstraintDelay {
                policy,
                point,
                constraint: i,
                demand_share: d / runs,
                supply_share: s / runs,
                u: u / runs,
                jobs: k,
                mean_wait: if k > 0 { w / k as f64 } else { 0.0 },
                mean_wait_all,
            });
        }
    }
    rows
}

/// Kendall's τ_b of the pairs (x, y): +1 when y increases with x, −1 when it decreases.
pub fn kendall_tau(pairs: &[(f64, f64)]) -> f64 {
    let (mut concordant, mut discordant, mut tie_x, mut tie_y) = (0f64, 0f64, 0f64, 0f64);
    for i in 0..pairs.len() {
        for j in i + 1..pairs.len() {
            let dx = pairs[i].0 - pairs[j].0;
            let dy = pairs[i].1 - pairs[j].1;
            match (dx == 0.0, dy == 0.0) {
                (true, true) => {}
                (true, false) => tie_x += 1.0,
                (false, true) => tie_y += 1.0,
                _ if dx * dy > 0.0 => concordant += 1.0,
                _ => discordant += 1.0,
            }
        }
    }
    let denom = ((concordant + discordant + tie_x) * (concordant + discordant + tie_y)).sqrt();
    if denom > 0.0 {
        (concordant - discordant) / denom
    } else {
        0.0
    }
}

/// The (u*_c, normalised delay) of every constraint some job requested at (policy, point).
pub fn trend(rows: &[ConstraintDelay], policy: usize, point: usize) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| r.policy == policy && r.point == point && r.jobs > 0)
        .map(|r| (r.u, r.normalised()))
        .filter(|(u, d)| u.is_finite() && d.is_finite())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::kendall_tau;

    #[test]
    fn kendall_tau_by_hand() {
        assert_eq!(kendall_tau(&[(1.0, 1.0), (2.0, 2.0), (3.0, 5.0)]), 1.0);
        assert_eq!(kendall_tau(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]), -1.0);
        // one discordant pair of three: (2 − 1) / 3
        let t = kendall_tau(&[(1.0, 1.0), (2.0, 3.0), (3.0, 2.0)]);
        assert!((t - 1.0 / 3.0).abs() < 1e-12);
    }
}

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
    /// Mean wait of all jobs, slots, and the ratio (normalised scheduling delay).
    mean_wait_all: F6,
    normalised_delay: F6,
}

/// Writes `constraint_delay.csv`.
pub(super) fn write_delays(
    exp: &Experiment,
    q: &QueueConstraints,
    out: &Outcome,
    dir: &Path,
) -> Result<PathBuf, ExperimentError> {
    let rows: Vec<DelayRow> = delays(q, out)
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
            normalised_delay: F6(d.normalised()),
        })
        .collect();
    write_csv(dir.join("constraint_delay.csv"), &rows)
}

/// The paper's Fig. 10: normalised scheduling delay against u*_c, a scatter per policy at
/// `point`.
pub(super) fn delay_chart(
    exp: &Experiment,
    q: &QueueConstraints,
    out: &Outcome,
    point: usize,
    title: &Option<String>,
) -> Chart {
    let rows = delays(q, out);
    let series = (0..exp.policies.len())
        .map(|p| Series {
            label: exp.labels[p].clone(),
            colour: registry::colour(&exp.labels[p]),
            points: trend(&rows, p, point),
            points_only: true,
            ..Default::default()
        })
        .collect();
    Chart {
        title: title.clone().unwrap_or_else(|| {
            format!(
                "{}: delay per constraint against its Utilization Multiplier",
                exp.name()
            )
        }),
        note: Some(format!(
            "load {:.4}; a point per constraint: mean wait of the jobs requesting it over the mean wait of all jobs",
            exp.points[point].load
        )),
        x_label: "Utilization Multiplier u*_c".into(),
        y_label: "normalised scheduling delay".into(),
        series,
        hlines: vec![(1.0, "all jobs".into())],
        markers: true,
        ..Default::default()
    }
}

/// The report's section: the servers, ρ* with and without the constraints, and per policy the
/// constraints by u*_c with their normalised delay, at the sweep point of the constraint-delay
/// plot (else the last).
pub(super) fn report(r: &mut Report, exp: &Experiment, q: &QueueConstraints, out: &Outcome) {
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
    let rows = delays(q, out);
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
                    .map_or("—".into(), |d| format!("{:.3}", d.normalised())),
            );
        }
        t.row(row);
    }
    r.line(format!(
        "Normalised scheduling delay (mean wait of the jobs with the constraint over that of \
         all jobs) at load {:.4}, pooled over replications:\n",
        exp.points[top].load
    ));
    r.table(&t);
}

/// With a re-synthesis: every policy again, on the re-synthesised cluster, labelled
/// `<label>-synthetic`.
pub(super) fn resynthesised_copies(
    cx: &Ctx<'_>,
    q: &mut QueueConstraints,
    policies: &mut Vec<PolicySpec>,
    labels: &mut Vec<String>,
) -> Result<(), ExperimentError> {
    let n = policies.len();
    q.on_synthetic = vec![false; n];
    if !q.validates() {
        return Ok(());
    }
    for i in 0..n {
        let label = format!("{}-synthetic", labels[i]);
        if labels.contains(&label) {
            return Err(cx.bad(
                &format!("policy[{i}].label"),
                "labels that do not end in -synthetic with constraints.resynthesise (the copies on the re-synthesised cluster take those)",
                &label,
            ));
        }
        policies.push(policies[i].clone());
        labels.push(label);
        q.on_synthetic.push(true);
    }
    Ok(())
}

/// One policy at one point: the ground truth against the re-synthesis, over replications.
#[derive(Clone, Debug)]
pub struct Validation {
    pub policy: usize,
    pub point: usize,
    /// Replications whose runs on the ground truth and on its re-synthesis were both judged
    /// stable (the means and intervals are over these), and replications whose ground-truth
    /// run was stable and whose re-synthesised cluster could not carry the load (its run not
    /// judged stable).
    pub replications: usize,
    pub synthetic_not_stable: usize,
    /// Mean over replications and 95 % interval (none with one replication): the mean wait
    /// (slots) and the utilisation, on the ground truth and on the re-synthesis.
    pub wait: [(f64, Option<(f64, f64)>); 2],
    pub utilization: [(f64, Option<(f64, f64)>); 2],
}

impl Validation {
    /// (synthetic − truth) / truth of the mean wait and of the utilisation.
    pub fn errors(&self) -> (f64, f64) {
        let rel = |a: f64, b: f64| if a != 0.0 { (b - a) / a } else { f64::NAN };
        (
            rel(self.wait[0].0, self.wait[1].0),
            rel(self.utilization[0].0, self.utilization[1].0),
        )
    }
}

/// The validation rows: every policy of the file at every point where its ground-truth runs
/// were judged stable by a majority. Replications are paired (the same run seed on both
/// clusters); a pair counts when both runs were judged stable (an unstable run's wait and
/// utilisation measure the horizon, not the system), and the others are counted apart.
pub fn validations(exp: &Experiment, q: &QueueConstraints, out: &Outcome) -> Vec<Validation> {
    use crate::sim::Verdict;
    let n = q.on_synthetic.iter().filter(|s| !**s).count();
    let mut rows = Vec::new();
    if !q.validates() {
        return rows;
    }
    for policy in 0..n {
        for point in 0..exp.points.len() {
            if out
                .row(policy, point)
                .is_none_or(|r| r.verdict != Verdict::Stable)
            {
                continue;
            }
            let (mut pairs, mut failed) = (Vec::new(), 0);
            for t in out.runs_at(policy, point) {
                let Some(s) = out
                    .runs_at(policy + n, point)
                    .find(|s| s.replication == t.replication)
                else {
                    continue;
                };
                match (t.verdict, s.verdict) {
                    (Verdict::Stable, Verdict::Stable) => pairs.push((&t.result, &s.result)),
                    (Verdict::Stable, _) => failed += 1,
                    _ => {}
                }
            }
            if pairs.is_empty() {
                continue;
            }
            let of = |side: usize, f: &dyn Fn(&crate::sim::RunResult) -> f64| {
                let xs: Vec<f64> = pairs
                    .iter()
                    .map(|p| f(if side == 0 { p.0 } else { p.1 }))
                    .collect();
                super::results::mean_ci(&xs)
            };
            rows.push(Validation {
                policy,
                point,
                replications: pairs.len(),
                synthetic_not_stable: failed,
                wait: [of(0, &|r| r.mean_wait), of(1, &|r| r.mean_wait)],
                utilization: [of(0, &|r| r.utilization), of(1, &|r| r.utilization)],
            });
        }
    }
    rows
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
    utilization_truth: F6,
    utilization_synthetic: F6,
    utilization_relative_error: F6,
}

/// Writes `synthesis_validation.csv`.
pub(super) fn write_validation(
    exp: &Experiment,
    q: &QueueConstraints,
    out: &Outcome,
    dir: &Path,
) -> Result<PathBuf, ExperimentError> {
    let rows: Vec<ValidationRow> = validations(exp, q, out)
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
pub(super) fn report_validation(
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
    let rows = validations(exp, q, out);
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
    for v in &rows {
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
    if let Some((wait, util, k)) = mean_abs_errors(&rows) {
        r.line(format!(
            "\nMean absolute error over these {k} rows: delay {:.1} %, utilisation {:.2} % \
             (the paper reports 13 % and 5 % on average for its synthesis of Google's \
             clusters).\n",
            100.0 * wait,
            100.0 * util
        ));
    }
}

/// The mean absolute relative errors (wait, utilisation) over the validation rows with a
/// nonzero ground-truth wait, and how many rows that is; `None` without such a row.
pub fn mean_abs_errors(rows: &[Validation]) -> Option<(f64, f64, usize)> {
    let errors: Vec<(f64, f64)> = rows
        .iter()
        .map(Validation::errors)
        .filter(|(w, _)| w.is_finite())
        .collect();
    let k = errors.len();
    let mean = |f: fn(&(f64, f64)) -> f64| errors.iter().map(f).sum::<f64>() / k as f64;
    (k > 0).then(|| (mean(|e| e.0.abs()), mean(|e| e.1.abs()), k))
}
