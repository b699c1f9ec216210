//! The region experiment file as written (unknown keys refused).

use serde::Deserialize;

use crate::experiment::common::{RawService, RawSizes};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Raw {
    pub(super) name: String,
    pub(super) description: Option<String>,
    pub(super) seed: Option<u64>,
    #[allow(dead_code)]
    pub(super) kind: String,
    pub(super) cluster: Option<RawCluster>,
    pub(super) workload: Option<RawWorkload>,
    pub(super) region: RawRegion,
    #[serde(default)]
    pub(super) plot: Vec<RawPlot>,
    #[serde(default)]
    pub(super) claim: Vec<RawClaim>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWorkload {
    pub(super) sizes: RawSizes,
    /// Only its mean matters here: it turns c into an arrival rate.
    pub(super) service: Option<RawService>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRegion {
    #[serde(rename = "J")]
    pub(super) j: Option<Vec<i64>>,
    pub(super) bracket: Option<RawBracket>,
    pub(super) family: Option<RawFamily>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBracket {
    pub(super) start: Option<i64>,
    pub(super) max_intervals: Option<i64>,
    pub(super) tolerance: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFamily {
    pub(super) count: i64,
    pub(super) max_types: i64,
    #[serde(rename = "J")]
    pub(super) j: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlot {
    pub(super) kind: String,
    pub(super) title: Option<String>,
    pub(super) file: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawClaim {
    pub(super) kind: String,
    pub(super) set: Option<String>,
    pub(super) at_least: Option<f64>,
    pub(super) at_most: Option<f64>,
}

/// `[cluster]`: only to report arrival rates.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCluster {
    pub(super) servers: i64,
}
