//! `[constraints]` in a queueing file, validated: placement constraints in the slotted
//! simulator (Sharma et al., SoCC 2011; docs/theory.md section 11.2). The servers get
//! properties by Algorithm 2 once per experiment, every job a constraint set by Algorithm 3
//! ([`JobClasses`]); the scored policies place a job only on servers that satisfy all its
//! constraints. ρ* with and without the constraints comes from the linear programme over
//! configurations per server group ([`max_supportable_constrained`]).

use super::QueuePolicy;
use super::Workload;
use super::schema::RawPolicy;
use crate::configurations::constrained::{ConstrainedWorkload, max_supportable_constrained};
use crate::constraints::{
    Characterisation, Eligibility, JobClasses, ServerMultiplier, SupportError,
};
use crate::experiment::ExperimentError;
use crate::experiment::common::{Ctx, RawConstraints, Shared, characterisation};
use crate::model::Size;
use crate::rng::Stream;
use crate::stability::region::rho_star;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// Jobs characterised for the re-synthesis (the feature vectors of this many draws).
pub(crate) const CHARACTERISED_JOBS: usize = 100_000;

/// Re-synthesised clusters at most (replication r runs on cluster r mod this).
pub(crate) const MAX_SYNTHESES: u32 = 100;

/// The paper's tolerance of sort-and-merge (Section 5.1).
pub(crate) const MERGE_TOLERANCE: f64 = 0.05;

/// What the synthesis validation synthesises again from the characterisation (Sharma et al.,
/// Fig. 17 (a)–(c)); the rest is the ground truth's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) enum Resynthesis {
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
    pub(crate) fn what(self) -> &'static str {
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
pub(crate) struct World {
    pub(crate) classes: Shared<JobClasses>,
    /// The classes' eligibility table, shared by every run's cluster.
    pub(crate) table: Shared<Eligibility>,
    /// The same table with every class allowed everywhere (the runs without constraints).
    pub(crate) lifted: Shared<Eligibility>,
    /// u*_c of every constraint of the vocabulary on these servers, in vocabulary order.
    pub(crate) multipliers: Vec<ServerMultiplier>,
}

impl World {
    fn new(classes: JobClasses) -> Self {
        World {
            table: Shared::new(classes.table.clone()),
            lifted: Shared::new(classes.table.lifted()),
            multipliers: classes.multipliers(),
            classes: Shared::new(classes),
        }
    }
}

/// `[constraints]`, validated and synthesised.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct QueueConstraints {
    /// The file's synthesis.
    pub(crate) truth: World,
    /// With `resynthesise`: the characterisation of `truth` (Sharma et al.'s Section 5.1), and
    /// the clusters synthesised from it by Algorithms 2 and 3 (what `mode` says), one per
    /// replication (servers drawn anew each time, so the intervals over replications include
    /// the synthesis's own sampling; one for all when only the jobs are synthesised again);
    /// for each policy whether it runs there (the file's policies are then followed
    /// by their copies, labelled `<label>-synthetic`).
    pub(crate) found: Option<Characterisation>,
    /// How the characterisation is synthesised again, if it is.
    pub(crate) mode: Option<Resynthesis>,
    /// Whether the re-synthesised servers were drawn by quota.
    pub(crate) quota: bool,
    /// The re-synthesised clusters, one per replication.
    pub(crate) synthetic: Vec<World>,
    /// Per policy, whether it runs on the re-synthesised cluster.
    pub(crate) on_synthetic: Vec<bool>,
    /// ρ* as a traffic intensity (constrained, unconstrained), for finitely many sizes of one
    /// resource (of the ground truth).
    pub(crate) rho: Option<(f64, f64)>,
    /// Whether every run is repeated on the same random streams with the constraints lifted
    /// (`compare_unconstrained`, default true): the denominator of Sharma et al.'s normalised
    /// scheduling delay.
    pub(crate) compare_unconstrained: bool,
}

impl QueueConstraints {
    /// The world replication `rep` of policy `policy` runs in.
    pub(crate) fn world(&self, policy: usize, rep: u32) -> &World {
        if self.on_synthetic.get(policy) == Some(&true) && !self.synthetic.is_empty() {
            &self.synthetic[rep as usize % self.synthetic.len()]
        } else {
            &self.truth
        }
    }

    /// Whether the file asked for the synthesis validation.
    pub(crate) fn validates(&self) -> bool {
        self.found.is_some()
    }
}

/// Validates `[constraints]` and synthesises the servers (`servers` of them, from `seed`).
pub(in crate::experiment::queueing) fn setup(
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
    let truth_seed = Stream::Servers.seed(seed);
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
        let mut rng = Stream::Resynthesis.rng(seed);
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
                let s = Stream::Resynthesised { rep: r as u64 }.seed(seed);
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
        compare_unconstrained: raw.compare_unconstrained != Some(false),
    }))
}

/// Every policy must have a score: constraints run on the multi-resource path, where bf-js and
/// fifo-ff take a placement score and only eligible servers are offered; vqs, vqs-bf and
/// max-weight schedule configurations of sizes, with no notion of which server may take which
/// job, and are refused.
pub(in crate::experiment::queueing) fn policies(
    cx: &Ctx<'_>,
    raw: &[RawPolicy],
    policies: &[QueuePolicy],
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
pub(crate) fn constrained_rho(
    classes: &JobClasses,
    atoms: &[(Size, f64)],
) -> Result<(f64, f64), String> {
    let constrained = constrained_traffic(classes, atoms)?;
    let free = rho_star(atoms).map_err(|e| e.to_string())?.traffic;
    Ok((constrained, free))
}

/// ρ* (traffic intensity) of size law `atoms` with the job classes' constraints only (the
/// first of [`constrained_rho`]'s pair, without the programme that finds the second).
pub(crate) fn constrained_traffic(
    classes: &JobClasses,
    atoms: &[(Size, f64)],
) -> Result<f64, String> {
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
    Ok(constrained * mean)
}

/// With a re-synthesis: every policy again, on the re-synthesised cluster, labelled
/// `<label>-synthetic`.
pub(in crate::experiment::queueing) fn resynthesised_copies(
    cx: &Ctx<'_>,
    q: &mut QueueConstraints,
    policies: &mut Vec<QueuePolicy>,
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
