//! Machines with NUMA nodes (Wu, Zhang, Kong, Chen, Jnagal, Hagmann, "Evaluation of NUMA-Aware
//! Scheduling in Warehouse-Scale Clusters", IEEE CLOUD 2019): a machine's CPU and memory are
//! divided among k nodes; a task is *NUMA-fit* when its CPU and its memory both come from one
//! node. Other resources (disk, GPUs) belong to the machine as a whole.
//!
//! Three layers of awareness, each usable with every [`Scorer`](super::place::Scorer):
//! - [`Layer::Default`]: the scorer chooses the machine; the node allocation is oblivious:
//!   each resource is taken from the nodes in index order, as much as each has left (first fit
//!   over nodes, CPU and memory independently). A task is fit only when that happens to take
//!   everything from one node.
//! - [`Layer::Machine`]: on the chosen machine, the node the task fits in with the least room
//!   left after it (best fit among nodes: the sum of the node's free CPU and memory fractions);
//!   the oblivious split only when no node holds the task.
//! - [`Layer::Cluster`] (machine + cluster): the scorer chooses among the machines that have a
//!   node the task fits in; among all machines if none has; then as [`Layer::Machine`].
//!
//! With one node per machine every task is NUMA-fit and every layer places as no layer does.

use super::snapshot::Resources;

/// Most NUMA nodes a machine may have.
pub(crate) const MAX_NODES: usize = 8;

/// Resources divided among the nodes: CPU and memory (the first two dimensions).
pub(crate) const NODE_DIMS: usize = 2;

/// CPU and memory of one node, in fixed-point units.
pub(crate) type NodeResources = [u64; NODE_DIMS];

/// How much NUMA awareness the scheduler has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Layer {
    /// NUMA-oblivious: scorer's machine, first fit over nodes.
    Default,
    /// Machine level: the best-fitting node on the scorer's machine.
    Machine,
    /// Machine + cluster level: machines with a fitting node first, then machine level.
    Cluster,
}

impl Layer {
    /// Names in experiment files.
    pub const NAMES: &'static [&'static str] = &["default", "machine", "machine+cluster"];

    /// The layer named `s` (one of [`Layer::NAMES`]).
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "default" => Layer::Default,
            "machine" => Layer::Machine,
            "machine+cluster" => Layer::Cluster,
            _ => return None,
        })
    }

    /// Its name in experiment files.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Default => "default",
            Layer::Machine => "machine",
            Layer::Cluster => "machine+cluster",
        }
    }
}

/// The node layout of a cluster: the share of a machine's CPU and memory each node holds, by
/// default and for machine types (machines of a given CPU and memory capacity) that differ.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NumaLayout {
    /// Shares of every machine not listed in `types` (positive, adding up to 1).
    pub shares: Vec<f64>,
    /// (CPU and memory capacity, shares) of machine types with their own layout.
    pub types: Vec<(NodeResources, Vec<f64>)>,
}

impl NumaLayout {
    /// k nodes of equal shares on every machine.
    pub fn equal(k: usize) -> Self {
        NumaLayout {
            shares: vec![1.0 / k as f64; k],
            types: Vec::new(),
        }
    }

    /// The shares of a machine of capacity `cap`.
    pub fn shares_for(&self, cap: &Resources) -> &[f64] {
        self.types
            .iter()
            .find(|(c, _)| c[..] == cap[..NODE_DIMS])
            .map_or(&self.shares, |(_, s)| s)
    }

    /// The nodes' capacities of a machine of capacity `cap`: node i holds
    /// round(cap·(s₀ + … + sᵢ)) − round(cap·(s₀ + … + sᵢ₋₁)), so the nodes add up to the machine
    /// exactly.
    pub fn nodes(&self, cap: &Resources) -> Vec<NodeResources> {
        split(cap, self.shares_for(cap))
    }
}

/// Node capacities for `shares` of `cap` (see [`NumaLayout::nodes`]).
pub(crate) fn split(cap: &Resources, shares: &[f64]) -> Vec<NodeResources> {
    let mut out = Vec::with_capacity(shares.len());
    let mut before = [0u64; NODE_DIMS];
    let mut cum = 0.0;
    for (i, s) in shares.iter().enumerate() {
        cum += s;
        let upto: NodeResources = std::array::from_fn(|d| {
            if i + 1 == shares.len() {
                cap[d]
            } else {
                ((cap[d] as f64 * cum).round() as u64).min(cap[d])
            }
        });
        out.push(std::array::from_fn(|d| upto[d] - before[d]));
        before = upto;
    }
    out
}

/// Where a task's CPU and memory were taken from: an amount per node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Allocation {
    /// Per node, the CPU and memory taken from it.
    pub(crate) parts: [NodeResources; MAX_NODES],
    /// All of it from one node.
    pub(crate) fit: bool,
}

/// Per-node capacities and free resources of a set of machines.
#[derive(Clone, Debug)]
pub(crate) struct NumaMachines {
    /// Nodes per machine.
    count: Vec<u8>,
    cap: Vec<[NodeResources; MAX_NODES]>,
    free: Vec<[NodeResources; MAX_NODES]>,
}

#[inline]
fn holds(free: &NodeResources, req: &Resources) -> bool {
    free[0] >= req[0] && free[1] >= req[1]
}

impl NumaMachines {
    /// Machines of capacities `caps`, all empty, laid out by `layout`.
    pub(crate) fn new(layout: &NumaLayout, caps: &[Resources]) -> Self {
        let mut m = NumaMachines {
            count: Vec::with_capacity(caps.len()),
            cap: Vec::with_capacity(caps.len()),
            free: Vec::with_capacity(caps.len()),
        };
        for c in caps {
            m.push(layout, c);
        }
        m
    }

    /// Adds an empty machine of capacity `cap`.
    pub(crate) fn push(&mut self, layout: &NumaLayout, cap: &Resources) {
        let nodes = layout.nodes(cap);
        assert!(
            (1..=MAX_NODES).contains(&nodes.len()),
            "1 to {MAX_NODES} nodes"
        );
        let mut c = [[0; NODE_DIMS]; MAX_NODES];
        c[..nodes.len()].copy_from_slice(&nodes);
        self.count.push(nodes.len() as u8);
        self.cap.push(c);
        self.free.push(c);
    }

    /// Free CPU and memory of machine `p`'s nodes.
    pub(crate) fn free(&self, p: usize) -> &[NodeResources] {
        &self.free[p][..self.count[p] as usize]
    }

    /// Capacities of machine `p`'s nodes.
    pub(crate) fn capacity(&self, p: usize) -> &[NodeResources] {
        &self.cap[p][..self.count[p] as usize]
    }

    /// Per-dimension maximum of machine `p`'s nodes' free resources (an upper bound: a task
    /// that a node holds is no larger than it, dimension by dimension).
    pub(crate) fn max_free(&self, p: usize) -> NodeResources {
        let mut m = [0; NODE_DIMS];
        for f in self.free(p) {
            m = [m[0].max(f[0]), m[1].max(f[1])];
        }
        m
    }

    /// Does some node of machine `p` hold `req`'s CPU and memory?
    #[inline]
    pub(crate) fn has_fit(&self, p: usize, req: &Resources) -> bool {
        self.free(p).iter().any(|f| holds(f, req))
    }

    /// The node of machine `p` that holds `req` with the least room left after it (the sum of
    /// its free CPU and memory fractions), ties to the lower index.
    pub(crate) fn best_node(&self, p: usize, req: &Resources) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for (n, (f, c)) in self.free(p).iter().zip(self.capacity(p)).enumerate() {
            if !holds(f, req) {
                continue;
            }
            let left: f64 = (0..NODE_DIMS)
                .filter(|&d| c[d] > 0)
                .map(|d| (f[d] - req[d]) as f64 / c[d] as f64)
                .sum();
            if best.is_none_or(|(b, _)| left < b) {
                best = Some((left, n));
            }
        }
        best.map(|(_, n)| n)
    }

    /// The first node (lowest index) of machine `p` that holds `req` whole.
    pub(crate) fn first_node(&self, p: usize, req: &Resources) -> Option<usize> {
        self.free(p).iter().position(|f| holds(f, req))
    }

    /// Takes `req`'s CPU and memory from machine `p`'s nodes, which must have it in total:
    /// from the best node when `aware` and one holds it, else first fit over the nodes.
    pub(crate) fn allocate(&mut self, p: usize, req: &Resources, aware: bool) -> Allocation {
        let node = if aware { self.best_node(p, req) } else { None };
        self.allocate_at(p, req, node)
    }

    /// Takes `req`'s CPU and memory whole from node `node` of machine `p`, which must hold it
    /// (a job that must not be split).
    pub(crate) fn allocate_on(&mut self, p: usize, req: &Resources, node: usize) -> Allocation {
        assert!(
            node < self.count[p] as usize && holds(&self.free[p][node], req),
            "node {node} of machine {p} does not hold the request"
        );
        self.allocate_at(p, req, Some(node))
    }

    /// From node `node` whole, or first fit over the nodes when `None`.
    fn allocate_at(&mut self, p: usize, req: &Resources, node: Option<usize>) -> Allocation {
        let k = self.count[p] as usize;
        let mut parts = [[0; NODE_DIMS]; MAX_NODES];
        if let Some(n) = node {
            parts[n] = [req[0], req[1]];
        } else {
            for (d, &want) in req.iter().enumerate().take(NODE_DIMS) {
                let mut left = want;
                for (n, part) in parts.iter_mut().enumerate().take(k) {
                    let take = left.min(self.free[p][n][d]);
                    part[d] = take;
                    left -= take;
                }
                assert_eq!(left, 0, "machine {p} lacks the request in total");
            }
        }
        for (f, a) in self.free[p].iter_mut().zip(&parts).take(k) {
            f[0] -= a[0];
            f[1] -= a[1];
        }
        let used = parts.iter().filter(|a| a[0] > 0 || a[1] > 0).count();
        Allocation {
            parts,
            fit: used <= 1,
        }
    }

    /// Gives an allocation back to machine `p`'s nodes.
    pub(crate) fn release(&mut self, p: usize, a: &Allocation) {
        let k = self.count[p] as usize;
        for n in 0..k {
            for d in 0..NODE_DIMS {
                self.free[p][n][d] += a.parts[n][d];
                assert!(
                    self.free[p][n][d] <= self.cap[p][n][d],
                    "node {n} of machine {p} freed beyond its capacity"
                );
            }
        }
    }
}

/// A NUMA set-up of a scheduler: the node layout and the layer of awareness.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Numa {
    /// How a machine's resources are split into nodes.
    pub layout: NumaLayout,
    /// The scheduler's awareness of the nodes.
    pub layer: Layer,
}

/// NUMA-fit bookkeeping (Wu et al.; docs/theory.md section 11.1), one type for packings and
/// runs: a packing's placer counts the tasks resident now (a task leaving is taken off again);
/// a run of the slotted simulator counts placements since the run began (its
/// [`crate::sim::FeatureTally`], read back with [`crate::sim::RunResult::tally`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NumaTally {
    /// Tasks (jobs) placed.
    pub placed: u64,
    /// Of them, with CPU and memory from one node (NUMA-fit).
    pub fit: u64,
    /// CPU requested by the NUMA-fit ones (fixed-point units).
    pub fit_cpu: u128,
    /// Of them, the ones that had to be NUMA-fit (strict; runs only).
    pub strict: u64,
    /// Times a scheduler without cluster-level awareness sent a strict job to a server none of
    /// whose nodes could hold it (the job stayed waiting; runs only).
    pub refused: u64,
}

impl NumaTally {
    /// Fraction of placed tasks that are NUMA-fit (1 when none is placed).
    pub fn fit_fraction(&self) -> f64 {
        if self.placed == 0 {
            1.0
        } else {
            self.fit as f64 / self.placed as f64
        }
    }
}

impl crate::sim::FeatureTally for NumaTally {
    const NAME: &'static str = "numa";

    fn to_counters(&self) -> Vec<u128> {
        let Self {
            placed,
            fit,
            fit_cpu,
            strict,
            refused,
        } = *self;
        vec![
            u128::from(placed),
            u128::from(fit),
            u128::from(strict),
            u128::from(refused),
            fit_cpu,
        ]
    }

    fn from_counters(c: &[u128]) -> Self {
        let at = |k: usize| c.get(k).copied().unwrap_or(0);
        NumaTally {
            placed: at(0) as u64,
            fit: at(1) as u64,
            strict: at(2) as u64,
            refused: at(3) as u64,
            fit_cpu: at(4),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Size;

    const U: u64 = Size::UNIT;

    fn machine(k: usize) -> NumaMachines {
        NumaMachines::new(&NumaLayout::equal(k), &[[U, U, 0]])
    }

    #[test]
    fn nodes_add_up_to_the_machine_exactly() {
        for k in 1..=MAX_NODES {
            for cap in [[U, U, 0], [U / 3, 7, 5], [1, 0, 0], [12345, 67891, 0]] {
                let n = NumaLayout::equal(k).nodes(&cap);
                assert_eq!(n.len(), k);
                for d in 0..NODE_DIMS {
                    assert_eq!(n.iter().map(|x| x[d]).sum::<u64>(), cap[d]);
                }
            }
        }
        let uneven = split(&[U, U, 0], &[0.25, 0.75]);
        assert_eq!(uneven, vec![[U / 4, U / 4], [U - U / 4, U - U / 4]]);
    }

    #[test]
    fn a_task_fits_node_0_node_1_or_only_split() {
        // two nodes of 1/2: node 0 keeps 0.1 CPU after a first task, node 1 0.5
        let mut m = machine(2);
        let a = m.allocate(0, &[U * 4 / 10, U / 10, 0], true);
        assert!(a.fit);
        assert_eq!(a.parts[0], [U * 4 / 10, U / 10]);
        assert_eq!(m.free(0), &[[U / 10, U * 4 / 10], [U / 2, U / 2]]);
        // 0.05 CPU fits both nodes: best fit takes node 0 (least left)
        assert_eq!(m.best_node(0, &[U / 20, U / 20, 0]), Some(0));
        // 0.3 CPU only fits node 1
        assert_eq!(m.best_node(0, &[U * 3 / 10, U / 10, 0]), Some(1));
        // 0.55 CPU fits no node but the machine (0.6 free): split
        let req = [U * 55 / 100, U / 10, 0];
        assert!(!m.has_fit(0, &req));
        let s = m.allocate(0, &req, true);
        assert!(!s.fit);
        assert_eq!(s.parts[0][0] + s.parts[1][0], req[0]);
        assert_eq!(
            s.parts[0],
            [U / 10, U / 10],
            "first fit over nodes: node 0 first"
        );
        assert_eq!(m.free(0), &[[0, U * 3 / 10], [U / 20, U / 2]]);
        m.release(0, &s);
        m.release(0, &a);
        assert_eq!(m.free(0), m.capacity(0));
    }

    #[test]
    fn oblivious_allocation_is_fit_only_by_chance() {
        let mut m = machine(2);
        // first fit over nodes: CPU and memory of a small task both from node 0
        assert!(m.allocate(0, &[U / 10, U / 10, 0], false).fit);
        // node 0 has 0.4 CPU and 0.4 memory left: 0.3 CPU + 0.45 memory straddles in memory
        let a = m.allocate(0, &[U * 3 / 10, U * 45 / 100, 0], false);
        assert!(!a.fit);
        assert_eq!(a.parts[0], [U * 3 / 10, U * 4 / 10]);
        assert_eq!(a.parts[1], [0, U / 20]);
        // a machine-level scheduler would have used node 1 whole
        let mut m = machine(2);
        m.allocate(0, &[U / 10, U / 10, 0], true);
        assert!(m.allocate(0, &[U * 3 / 10, U * 45 / 100, 0], true).fit);
    }

    #[test]
    fn a_task_without_cpu_or_memory_is_fit() {
        let mut m = machine(4);
        assert!(m.allocate(0, &[0, 0, 5], false).fit);
        assert!(m.allocate(0, &[0, U / 8, 0], false).fit);
    }
}
