//! The queueing experiment file as written: TOML tables and keys, unknown keys refused. Each
//! table is validated by its own module of [`super`]; `experiments/README.md` documents every
//! key in the same order.

use serde::Deserialize;

use crate::experiment::common::{RawConstraints, RawService, RawSizes};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawExperiment {
    pub(in crate::experiment::queueing) name: String,
    pub(in crate::experiment::queueing) description: Option<String>,
    pub(in crate::experiment::queueing) seed: Option<u64>,
    pub(in crate::experiment::queueing) kind: Option<String>,
    pub(in crate::experiment::queueing) cluster: RawCluster,
    pub(in crate::experiment::queueing) workload: RawWorkload,
    pub(in crate::experiment::queueing) run: RawRun,
    pub(in crate::experiment::queueing) sweep: Option<RawSweep>,
    #[serde(default)]
    pub(in crate::experiment::queueing) policy: Vec<RawPolicy>,
    #[serde(default)]
    pub(in crate::experiment::queueing) plot: Vec<RawPlot>,
    #[serde(default)]
    pub(in crate::experiment::queueing) claim: Vec<RawClaim>,
    pub(in crate::experiment::queueing) compaction: Option<RawCompaction>,
    pub(in crate::experiment::queueing) numa: Option<RawQueueNuma>,
    pub(in crate::experiment::queueing) constraints: Option<RawConstraints>,
    pub(in crate::experiment::queueing) region_map: Option<RawRegionMap>,
}

/// `[region_map]`: a policy's stability region in the plane of the workload's two sizes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawRegionMap {
    pub(in crate::experiment::queueing) rays: Option<i64>,
    pub(in crate::experiment::queueing) angles: Option<Vec<f64>>,
    pub(in crate::experiment::queueing) policies: Option<Vec<String>>,
    #[serde(rename = "J")]
    pub(in crate::experiment::queueing) j: Option<i64>,
    pub(in crate::experiment::queueing) resolution: Option<f64>,
    pub(in crate::experiment::queueing) max_probes: Option<i64>,
    pub(in crate::experiment::queueing) rounds: Option<i64>,
    pub(in crate::experiment::queueing) title: Option<String>,
    pub(in crate::experiment::queueing) held: Option<Vec<RawHeld>>,
}

/// `[[region_map.held]]`: a job type held at a fixed rate while the map's two free types vary.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawHeld {
    pub(in crate::experiment::queueing) size: f64,
    pub(in crate::experiment::queueing) rate: f64,
}

/// `[numa]`: NUMA nodes on every server and the share of jobs that must run inside one.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawQueueNuma {
    pub(in crate::experiment::queueing) nodes: Option<i64>,
    pub(in crate::experiment::queueing) shares: Option<Vec<f64>>,
    pub(in crate::experiment::queueing) strict: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawCluster {
    pub(in crate::experiment::queueing) servers: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawWorkload {
    pub(in crate::experiment::queueing) sizes: Option<RawSizes>,
    pub(in crate::experiment::queueing) service: Option<RawService>,
    pub(in crate::experiment::queueing) arrivals: Option<RawArrivals>,
    pub(in crate::experiment::queueing) trace: Option<RawTrace>,
    pub(in crate::experiment::queueing) rho_star_intervals: Option<i64>,
    pub(in crate::experiment::queueing) classes: Option<Vec<RawClass>>,
}

/// One of `workload.classes = [{ size = …, prob = …, service = { … } }, …]`: `size` a number
/// or a size law table (read by the workload's module).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawClass {
    pub(in crate::experiment::queueing) size: toml::Value,
    pub(in crate::experiment::queueing) prob: f64,
    pub(in crate::experiment::queueing) service: RawService,
}

/// `workload.trace = { … }`: a trace replayed instead of sampled laws.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawTrace {
    pub(in crate::experiment::queueing) format: String,
    pub(in crate::experiment::queueing) file: String,
    pub(in crate::experiment::queueing) slot: Option<f64>,
    pub(in crate::experiment::queueing) finished_only: Option<bool>,
    pub(in crate::experiment::queueing) size: Option<String>,
    pub(in crate::experiment::queueing) scale: Option<f64>,
    pub(in crate::experiment::queueing) start: Option<f64>,
    pub(in crate::experiment::queueing) end: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawArrivals {
    pub(in crate::experiment::queueing) process: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawRun {
    pub(in crate::experiment::queueing) slots: Option<i64>,
    pub(in crate::experiment::queueing) warmup_fraction: Option<f64>,
    pub(in crate::experiment::queueing) warmup: Option<i64>,
    pub(in crate::experiment::queueing) replications: Option<i64>,
    pub(in crate::experiment::queueing) queue_cap: Option<i64>,
    pub(in crate::experiment::queueing) samples: Option<i64>,
    pub(in crate::experiment::queueing) max_slots: Option<i64>,
    pub(in crate::experiment::queueing) probe_groups: Option<i64>,
    pub(in crate::experiment::queueing) export_jobs: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawSweep {
    pub(in crate::experiment::queueing) load: Option<Vec<f64>>,
    pub(in crate::experiment::queueing) arrival_rate: Option<Vec<f64>>,
    pub(in crate::experiment::queueing) fraction: Option<Vec<f64>>,
    pub(in crate::experiment::queueing) scaling: Option<Vec<f64>>,
}

/// `[[policy]]`: the experiment's keys; every other key goes to the policy's registry entry,
/// which refuses the keys it does not take.
#[derive(Debug, Deserialize)]
pub(in crate::experiment::queueing) struct RawPolicy {
    pub(in crate::experiment::queueing) name: String,
    pub(in crate::experiment::queueing) label: Option<String>,
    pub(in crate::experiment::queueing) numa: Option<String>,
    /// The policy's own keys, validated by its registry entry.
    #[serde(flatten)]
    pub(in crate::experiment::queueing) params: toml::Table,
}

/// `[compaction]`: the packing side of a stability-versus-packing study.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawCompaction {
    pub(in crate::experiment::queueing) tasks: Option<i64>,
    pub(in crate::experiment::queueing) trials: Option<i64>,
    pub(in crate::experiment::queueing) tau: Option<f64>,
    pub(in crate::experiment::queueing) order: Option<String>,
    pub(in crate::experiment::queueing) limit_steps: Option<i64>,
    pub(in crate::experiment::queueing) limit_resolution: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawPlot {
    pub(in crate::experiment::queueing) kind: String,
    pub(in crate::experiment::queueing) load: Option<f64>,
    pub(in crate::experiment::queueing) arrival_rate: Option<f64>,
    pub(in crate::experiment::queueing) replication: Option<i64>,
    pub(in crate::experiment::queueing) title: Option<String>,
    pub(in crate::experiment::queueing) file: Option<String>,
    pub(in crate::experiment::queueing) log_y: Option<bool>,
    pub(in crate::experiment::queueing) fraction: Option<f64>,
    pub(in crate::experiment::queueing) scaling: Option<f64>,
    pub(in crate::experiment::queueing) quantity: Option<String>,
    pub(in crate::experiment::queueing) quantile: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::experiment::queueing) struct RawClaim {
    pub(in crate::experiment::queueing) kind: Option<String>,
    pub(in crate::experiment::queueing) policy: Option<String>,
    pub(in crate::experiment::queueing) load: Option<f64>,
    pub(in crate::experiment::queueing) arrival_rate: Option<f64>,
    pub(in crate::experiment::queueing) fraction: Option<f64>,
    pub(in crate::experiment::queueing) scaling: Option<f64>,
    pub(in crate::experiment::queueing) expect: Option<String>,
    pub(in crate::experiment::queueing) at_least: Option<f64>,
    pub(in crate::experiment::queueing) at_most: Option<f64>,
    pub(in crate::experiment::queueing) steps: Option<i64>,
    pub(in crate::experiment::queueing) max_probes: Option<i64>,
    pub(in crate::experiment::queueing) resolution: Option<f64>,
    pub(in crate::experiment::queueing) rounds: Option<i64>,
    pub(in crate::experiment::queueing) order: Option<Vec<String>>,
    pub(in crate::experiment::queueing) paired: Option<bool>,
    pub(in crate::experiment::queueing) quantity: Option<String>,
    pub(in crate::experiment::queueing) rays: Option<Vec<f64>>,
    pub(in crate::experiment::queueing) quantile: Option<String>,
    pub(in crate::experiment::queueing) below: Option<String>,
    pub(in crate::experiment::queueing) boundary: Option<String>,
}
