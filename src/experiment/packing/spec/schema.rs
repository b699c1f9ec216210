//! The packing experiment file as written (unknown keys refused).

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Raw {
    pub(super) name: String,
    pub(super) description: Option<String>,
    pub(super) seed: Option<u64>,
    #[allow(dead_code)]
    pub(super) kind: String,
    pub(super) snapshot: RawSnapshot,
    #[serde(default)]
    pub(super) scheduler: Vec<RawScheduler>,
    pub(super) evaluate: RawEvaluate,
    pub(super) numa: Option<RawNuma>,
    pub(super) constraints: Option<crate::experiment::common::RawConstraints>,
    #[serde(default)]
    pub(super) claim: Vec<RawClaim>,
}

/// `[numa]`: nodes per machine (equal shares) or the shares, and machine types of their own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNuma {
    pub(super) nodes: Option<i64>,
    pub(super) shares: Option<Vec<f64>>,
    #[serde(default)]
    pub(super) machine: Vec<RawNumaMachine>,
}

/// `[[numa.machine]]`: the layout of machines of this CPU and memory capacity.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNumaMachine {
    pub(super) cpu: f64,
    pub(super) memory: f64,
    pub(super) nodes: Option<i64>,
    pub(super) shares: Option<Vec<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSnapshot {
    pub(super) source: String,
    pub(super) file: String,
    pub(super) nodes: Option<String>,
    pub(super) instance: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScheduler {
    pub(super) order: String,
    pub(super) scorer: String,
    pub(super) label: Option<String>,
    pub(super) numa: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEvaluate {
    pub(super) hole_filling: Option<Vec<f64>>,
    pub(super) inflation: Option<Vec<f64>>,
    pub(super) monte_carlo_tau: Option<f64>,
    pub(super) compaction_tau: Option<Vec<f64>>,
    pub(super) trials: Option<i64>,
    pub(super) expansion_tau: Option<f64>,
    pub(super) throughput: Option<Vec<f64>>,
    pub(super) fragmentation: Option<Vec<f64>>,
    pub(super) power_idle: Option<f64>,
    pub(super) picky: Option<f64>,
    pub(super) clip: Option<bool>,
    pub(super) mu: Option<i64>,
    pub(super) expansion_start: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawClaim {
    pub(super) kind: String,
    pub(super) order: Vec<String>,
    pub(super) tau: Option<f64>,
}
