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
    #[serde(default)]
    pub(super) claim: Vec<RawClaim>,
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
    pub(super) tau: f64,
}
