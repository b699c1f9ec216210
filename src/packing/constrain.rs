//! Placement constraints on a snapshot by synthesis (Sharma et al., SoCC 2011, Algorithm 1):
//! every machine gets properties by Algorithm 2, every task constraints by Algorithm 3, in
//! place of whatever the source carried.

use std::collections::HashMap;
use std::sync::Arc;

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::place::fits;
use super::snapshot::{Placement, Resources, Snapshot};
use crate::constraints::{Characterisation, ConstraintSet, Eligibility, set_text};

/// Draws per task before a synthesis is refused: a task cluster whose draws almost never
/// satisfy a machine is a characterisation that does not fit the cluster.
pub(crate) const MAX_DRAWS: u32 = 1000;

/// What a synthesis did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SynthesisTally {
    /// Machines per machine statistical cluster.
    pub(crate) machines: Vec<usize>,
    /// Tasks per task statistical cluster.
    pub(crate) tasks: Vec<usize>,
    /// Machines whose drawn constraints contradicted each other (they satisfy as many as the
    /// attribute values allow).
    pub(crate) inconsistent: usize,
    /// Task draws thrown away because no machine satisfies the set with room for the task
    /// (such a task could never run); the task was drawn again from the same cluster.
    pub(crate) redrawn: usize,
}

/// A task cluster whose draws never fit the machines.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "task statistical cluster {cluster}: {MAX_DRAWS} draws in a row gave constraints no machine with room for the task satisfies (last: `{last}`)"
)]
pub(crate) struct SynthesisError {
    /// The task statistical cluster.
    pub(crate) cluster: usize,
    /// Its last draw, as written.
    pub(crate) last: String,
}

/// Does some machine of an allowed kind hold `req`? `caps[k]`: the capacities of kind k.
fn fits_some(allowed: &[bool], caps: &[Vec<Resources>], req: &Resources) -> bool {
    allowed
        .iter()
        .zip(caps)
        .any(|(ok, caps)| *ok && caps.iter().any(|c| fits(c, req)))
}

/// `snap` with machine properties and task constraints drawn from `ch`, seeded by `seed`
/// (machines first, in order, then tasks, in order, from one stream).
pub(crate) fn synthesise(
    snap: &Snapshot,
    ch: &Characterisation,
    seed: u64,
) -> Result<(Snapshot, SynthesisTally), SynthesisError> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut tally = SynthesisTally {
        machines: vec![0; ch.machines.len()],
        tasks: vec![0; ch.tasks.len()],
        ..Default::default()
    };
    let rows: Vec<_> = snap
        .machines
        .iter()
        .map(|_| {
            let m = ch.machine(&mut rng);
            tally.machines[m.cluster] += 1;
            tally.inconsistent += m.inconsistent as usize;
            m.properties
        })
        .collect();
    let (mut table, kind): (Eligibility, Vec<u32>) = Eligibility::from_machines(&rows);
    // the distinct capacities of each kind
    let mut caps: Vec<Vec<Resources>> = vec![Vec::new(); table.kinds().len()];
    for (m, &k) in snap.machines.iter().zip(&kind) {
        if !caps[k as usize].contains(m) {
            caps[k as usize].push(*m);
        }
    }
    let mut out = snap.clone();
    let mut ok: HashMap<(u32, Resources), bool> = HashMap::new();
    for t in &mut out.tasks {
        let mut last: (usize, ConstraintSet) = (0, Vec::new());
        let mut done = false;
        for _ in 0..MAX_DRAWS {
            let (cluster, set) = ch.task(&mut rng);
            if let Ok(class) = table.class_of(&set) {
                let allowed = table.allowed_kinds(class);
                if *ok
                    .entry((class, t.request))
                    .or_insert_with(|| fits_some(allowed, &caps, &t.request))
                {
                    t.class = class;
                    tally.tasks[cluster] += 1;
                    done = true;
                    break;
                }
            }
            tally.redrawn += 1;
            last = (cluster, set);
        }
        if !done {
            return Err(SynthesisError {
                cluster: last.0,
                last: set_text(&last.1),
            });
        }
    }
    out.placement = Some(Placement {
        kind,
        table: Arc::new(table),
    });
    Ok((out, tally))
}
