//! `[constraints]` in a queueing file: placement constraints in the slotted simulator (Sharma
//! et al., SoCC 2011; docs/theory.md section 11.2). The servers get properties by Algorithm 2
//! once per experiment, every job a constraint set by Algorithm 3 ([`JobClasses`]); the scored
//! policies place a job only on servers that satisfy all its constraints. Outputs per
//! constraint c: the mean wait of the jobs requesting c, its ratio to the mean wait of all jobs
//! (the paper's normalised scheduling delay, its Fig. 10), next to u*_c; and ρ* with and
//! without the constraints, by the linear programme over configurations per server group
//! ([`max_supportable_constrained`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::results::Outcome;
use super::schema::RawPolicy;
use super::{Experiment, PlotSpec, Workload};
use crate::configurations::constrained::{ConstrainedWorkload, max_supportable_constrained};
use crate::constraints::{Eligibility, JobClasses, ServerMultiplier, SupportError};
use crate::experiment::ExperimentError;
use crate::experiment::common::{
    Ctx, F6, MdTable, RawConstraints, Report, characterisation, write_csv,
};
use crate::model::Size;
use crate::plot::{Chart, Series};
use crate::policy::PolicySpec;
use crate::policy::registry;
use crate::rng::derive_seed;

/// The stream the servers' properties are drawn from: the experiment seed's, as a packing
/// file's synthesis.
pub const SERVERS_STREAM: u64 = 0x636f_6e73;

/// `[constraints]`, validated and synthesised.
#[derive(Clone, Debug)]
pub struct QueueConstraints {
    pub classes: Arc<JobClasses>,
    /// The classes' eligibility table, shared by every run's cluster.
    pub table: Arc<Eligibility>,
    /// u*_c of every constraint of the vocabulary on these servers.
    pub multipliers: Vec<ServerMultiplier>,
    /// ρ* as a traffic intensity (constrained, unconstrained), for finitely many sizes of one
    /// resource.
    pub rho: Option<(f64, f64)>,
}

/// Validates `[constraints]` and synthesises the servers (`servers` of them, from `seed`).
pub(super) fn setup(
    cx: &Ctx<'_>,
    raw: Option<&RawConstraints>,
    servers: usize,
    workload: &Workload,
    seed: u64,
) -> Result<Option<QueueConstraints>, ExperimentError> {
    let Some(raw) = raw else { return Ok(None) };
    let ch = characterisation(cx, raw)?;
    let classes = JobClasses::new(&ch, servers, derive_seed(seed, &[SERVERS_STREAM])).map_err(
        |e| match e {
            SupportError::TooMany { cluster, .. } | SupportError::NeverRunnable { cluster } => cx
                .bad(
                    &format!("constraints.tasks[{cluster}].frequency"),
                    "a task cluster whose constraint sets the simulator can enumerate and some server satisfies",
                    e,
                ),
            SupportError::Constraint(c) => {
                cx.bad("constraints.vocabulary", "constraints the servers can be asked", c)
            }
        },
    )?;
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
        table: Arc::new(classes.table.clone()),
        multipliers: classes.multipliers(),
        classes: Arc::new(classes),
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
/// treat alike), sizes and classes independent.
pub fn constrained_rho(classes: &JobClasses, atoms: &[(Size, f64)]) -> Result<(f64, f64), String> {
    let t = &classes.table;
    let n_classes = t.classes().len();
    let mut group_of: HashMap<Vec<bool>, usize> = HashMap::new();
    let mut shares: Vec<f64> = Vec::new();
    let l = classes.kind.len() as f64;
    for &k in &classes.kind {
        let column: Vec<bool> = (0..n_classes as u32).map(|a| t.allowed(a, k)).collect();
        let g = *group_of.entry(column).or_insert_with(|| {
            shares.push(0.0);
            shares.len() - 1
        });
        shares[g] += 1.0 / l;
    }
    let mut allowed = vec![vec![false; shares.len()]; n_classes];
    for (column, &g) in &group_of {
        for (a, &ok) in column.iter().enumerate() {
            allowed[a][g] = ok;
        }
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
    let free = max_supportable_constrained(&ConstrainedWorkload {
        sizes: &sizes,
        demand: &atoms.iter().map(|a| vec![a.1]).collect::<Vec<_>>(),
        allowed: &[vec![true]],
        group_shares: &[1.0],
    })
    .map_err(|e| e.to_string())?;
    Ok((constrained * mean, free * mean))
}

/// One constraint's delay at one (policy, point), pooled over the replications.
#[derive(Clone, Debug)]
pub struct ConstraintDelay {
    pub policy: usize,
    pub point: usize,
    /// Index into [`QueueConstraints::multipliers`].
    pub constraint: usize,
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
    // (policy, point) -> per class (jobs, wait sum)
    let mut pooled: std::collections::BTreeMap<(usize, usize), Vec<(u64, f64)>> =
        Default::default();
    for r in &out.runs {
        let cell = pooled
            .entry((r.policy, r.point))
            .or_insert_with(|| vec![(0, 0.0); q.table.classes().len()]);
        for (c, &(n, mean)) in r.result.class_waits.iter().enumerate() {
            if let Some(x) = cell.get_mut(c) {
                x.0 += n;
                x.1 += n as f64 * mean;
            }
        }
    }
    let mut rows = Vec::new();
    for ((policy, point), cells) in pooled {
        let all_n: u64 = cells.iter().map(|c| c.0).sum();
        let all_w: f64 = cells.iter().map(|c| c.1).sum();
        let mean_wait_all = if all_n > 0 { all_w / all_n as f64 } else { 0.0 };
        for (i, m) in q.multipliers.iter().enumerate() {
            let (mut n, mut w) = (0u64, 0.0);
            for (set, cell) in q.table.classes().iter().zip(&cells) {
                if set.contains(&m.constraint) {
                    n += cell.0;
                    w += cell.1;
                }
            }
            rows.push(ConstraintDelay {
                policy,
                point,
                constraint: i,
                jobs: n,
                mean_wait: if n > 0 { w / n as f64 } else { 0.0 },
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
pub fn trend(
    q: &QueueConstraints,
    rows: &[ConstraintDelay],
    policy: usize,
    point: usize,
) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| r.policy == policy && r.point == point && r.jobs > 0)
        .map(|r| (q.multipliers[r.constraint].u, r.normalised()))
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
        .map(|d| {
            let m = &q.multipliers[d.constraint];
            DelayRow {
                policy: &exp.labels[d.policy],
                load: F6(exp.points[d.point].load),
                constraint: m.constraint.to_string(),
                demand_share: F6(m.demand_share),
                supply_share: F6(m.supply_share),
                u_star: F6(m.u),
                jobs: d.jobs,
                mean_wait: F6(d.mean_wait),
                mean_wait_all: F6(d.mean_wait_all),
                normalised_delay: F6(d.normalised()),
            }
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
            points: trend(q, &rows, p, point),
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
    let kinds = q.table.kinds().len();
    let classes = q.table.classes().len();
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
    let mut order: Vec<usize> = (0..q.multipliers.len()).collect();
    order.sort_by(|&a, &b| q.multipliers[b].u.total_cmp(&q.multipliers[a].u));
    let mut head = vec!["constraint".to_string(), "u*_c".into()];
    head.extend(exp.labels.iter().cloned());
    let mut t = MdTable::new(head);
    for i in order {
        let m = &q.multipliers[i];
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
