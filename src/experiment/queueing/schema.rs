//! The queueing experiment file as written: TOML tables and keys, unknown keys refused. Each
//! table is validated by its own module of [`super`]; `experiments/README.md` documents every
//! key in the same order.

use serde::Deserialize;

use crate::experiment::common::{RawConstraints, RawService, RawSizes};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExperiment {
    pub(super) name: String,
    pub(super) description: Option<String>,
    pub(super) seed: Option<u64>,
    pub(super) kind: Option<String>,
    pub(super) cluster: RawCluster,
    pub(super) workload: RawWorkload,
    pub(super) run: RawRun,
    pub(super) sweep: RawSweep,
    #[serde(default)]
    pub(super) policy: Vec<RawPolicy>,
    #[serde(default)]
    pub(super) plot: Vec<RawPlot>,
    #[serde(default)]
    pub(super) claim: Vec<RawClaim>,
    pub(super) compaction: Option<RawCompaction>,
    pub(super) numa: Option<RawQueueNuma>,
    pub(super) constraints: Option<RawConstraints>,
}

/// `[numa]`: NUMA nodes on every server and the share of jobs that must run inside one.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawQueueNuma {
    pub(super) nodes: Option<i64>,
    pub(super) shares: Option<Vec<f64>>,
    pub(super) strict: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCluster {
    pub(super) servers: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWorkload {
    pub(super) sizes: Option<RawSizes>,
    pub(super) service: Option<RawService>,
    pub(super) arrivals: Option<RawArrivals>,
    pub(super) trace: Option<RawTrace>,
}

/// `workload.trace = { … }`: a trace replayed instead of sampled laws.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTrace {
    pub(super) format: String,
    pub(super) file: String,
    pub(super) slot: Option<f64>,
    pub(super) finished_only: Option<bool>,
    pub(super) size: Option<String>,
    pub(super) scale: Option<f64>,
    pub(super) start: Option<f64>,
    pub(super) end: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawArrivals {
    pub(super) process: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRun {
    pub(super) slots: Option<i64>,
    pub(super) warmup_fraction: Option<f64>,
    pub(super) warmup: Option<i64>,
    pub(super) replications: Option<i64>,
    pub(super) queue_cap: Option<i64>,
    pub(super) samples: Option<i64>,
    pub(super) max_slots: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSweep {
    pub(super) load: Option<Vec<f64>>,
    pub(super) arrival_rate: Option<Vec<f64>>,
    pub(super) fraction: Option<Vec<f64>>,
    pub(super) scaling: Option<Vec<f64>>,
}

/// `[[policy]]`: the experiment's keys; every other key goes to the policy's registry entry,
/// which refuses the keys it does not take.
#[derive(Debug, Deserialize)]
pub(super) struct RawPolicy {
    pub(super) name: String,
    pub(super) label: Option<String>,
    pub(super) numa: Option<String>,
    /// The policy's own keys, validated by its registry entry.
    #[serde(flatten)]
    pub(super) params: toml::Table,
}

/// `[compaction]`: the packing side of a stability-versus-packing study.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCompaction {
    pub(super) tasks: Option<i64>,
    pub(super) trials: Option<i64>,
    pub(super) tau: Option<f64>,
    pub(super) order: Option<String>,
    pub(super) limit_steps: Option<i64>,
    pub(super) limit_resolution: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlot {
    pub(super) kind: String,
    pub(super) load: Option<f64>,
    pub(super) arrival_rate: Option<f64>,
    pub(super) replication: Option<i64>,
    pub(super) title: Option<String>,
    pub(super) file: Option<String>,
    pub(super) log_y: Option<bool>,
    pub(super) fraction: Option<f64>,
    pub(super) scaling: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawClaim {
    pub(super) kind: Option<String>,
    pub(super) policy: Option<String>,
    pub(super) load: Option<f64>,
    pub(super) arrival_rate: Option<f64>,
    pub(super) fraction: Option<f64>,
    pub(super) scaling: Option<f64>,
    pub(super) expect: Option<String>,
    pub(super) at_least: Option<f64>,
    pub(super) at_most: Option<f64>,
    pub(super) steps: Option<i64>,
    pub(super) max_probes: Option<i64>,
    pub(super) resolution: Option<f64>,
    pub(super) rounds: Option<i64>,
    pub(super) order: Option<Vec<String>>,
    pub(super) paired: Option<bool>,
}
