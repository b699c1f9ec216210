//! A point-in-time workload on a heterogeneous cluster (Verma et al. 2014, Section II): machines
//! with multi-dimensional capacities, and tasks (grouped in jobs) with multi-dimensional requests.
//! Every amount is an exact fixed-point number in units of [`Size::UNIT`] (1 = the largest machine
//! of the trace, per resource), as in the queueing simulator.

use std::sync::Arc;

use crate::constraints::{Eligibility, Properties};
use crate::model::Size;

pub(crate) use crate::model::{MAX_DIMS, Resources};

/// A task's request, the job it belongs to, and its constraint class (0: no constraint; see
/// [`Placement`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Task {
    /// The job it belongs to.
    pub job: u32,
    /// Its request per resource.
    pub request: Resources,
    /// Its constraint class.
    pub class: u32,
}

impl Task {
    /// A task without placement constraints.
    pub fn new(job: u32, request: Resources) -> Self {
        Task {
            job,
            request,
            class: 0,
        }
    }
}

/// Placement constraints of a snapshot (Sharma et al., SoCC 2011): each machine's kind (its
/// attributes) and the table of which task class may run on which kind.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Placement {
    /// Per machine, its kind in `table`.
    pub kind: Vec<u32>,
    /// Which task class may run on which machine kind.
    pub table: Arc<Eligibility>,
}

impl Placement {
    /// From per-machine attribute rows (no task constraints yet).
    pub fn from_machines(rows: &[Properties]) -> Self {
        let (table, kind) = Eligibility::from_machines(rows);
        Placement {
            kind,
            table: Arc::new(table),
        }
    }
}

/// Machines and tasks.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Snapshot {
    /// Dimensions in use (1 to 3); the others are 0 everywhere.
    pub dims: usize,
    /// Every machine's capacity per resource.
    pub machines: Vec<Resources>,
    /// Every task, in the snapshot's order.
    pub tasks: Vec<Task>,
    /// Machine attributes and task constraints, if the source has any.
    pub placement: Option<Placement>,
}

/// A fraction of the largest machine as a fixed-point amount (negative or non-finite → None).
pub(crate) fn amount(x: f64) -> Option<u64> {
    (x.is_finite() && x >= 0.0).then(|| (x * Size::UNIT as f64).round() as u64)
}

/// Sum of resource vectors, per dimension.
pub(crate) fn total<'a>(it: impl Iterator<Item = &'a Resources>) -> [u128; MAX_DIMS] {
    it.fold([0u128; MAX_DIMS], |mut acc, r| {
        for (a, &x) in acc.iter_mut().zip(r) {
            *a += x as u128;
        }
        acc
    })
}

/// Per-dimension maximum of two resource vectors.
pub(crate) fn max_each(a: &Resources, b: &Resources) -> Resources {
    std::array::from_fn(|d| a[d].max(b[d]))
}

impl Snapshot {
    /// Machines and tasks without attributes or constraints.
    pub fn new(dims: usize, machines: Vec<Resources>, tasks: Vec<Task>) -> Self {
        Snapshot {
            dims,
            machines,
            tasks,
            placement: None,
        }
    }

    /// Machine `m`'s attributes (empty without any).
    pub fn properties(&self, m: usize) -> &[(String, String)] {
        match &self.placement {
            Some(p) => &p.table.kinds()[p.kind[m] as usize],
            None => &[],
        }
    }

    /// Total capacity per dimension.
    pub fn capacity(&self) -> [u128; MAX_DIMS] {
        total(self.machines.iter())
    }

    /// Total request per dimension.
    pub fn demand(&self) -> [u128; MAX_DIMS] {
        total(self.tasks.iter().map(|t| &t.request))
    }

    /// Number of jobs (job ids are dense, 0 … jobs − 1).
    pub fn jobs(&self) -> usize {
        self.tasks
            .iter()
            .map(|t| t.job as usize + 1)
            .max()
            .unwrap_or(0)
    }

    /// Per-dimension median machine capacity (the "median machine" of Verma et al. 2014).
    pub fn median_machine(&self) -> Resources {
        let mut out = [0; MAX_DIMS];
        for (d, o) in out.iter_mut().enumerate() {
            let mut v: Vec<u64> = self.machines.iter().map(|m| m[d]).collect();
            v.sort_unstable();
            *o = v.get(v.len() / 2).copied().unwrap_or(0);
        }
        out
    }
}
