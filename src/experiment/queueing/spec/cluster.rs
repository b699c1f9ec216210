//! `[cluster]`: the number of servers.

use super::schema::RawCluster;
use crate::experiment::ExperimentError;
use crate::experiment::common::Ctx;

/// L, between 1 and 10⁶.
pub(in crate::experiment::queueing) fn servers(
    cx: &Ctx<'_>,
    raw: &RawCluster,
) -> Result<usize, ExperimentError> {
    let servers = cx.positive("cluster.servers", raw.servers)? as usize;
    if servers > 1_000_000 {
        return Err(cx.bad("cluster.servers", "at most 1000000 servers", servers));
    }
    Ok(servers)
}
