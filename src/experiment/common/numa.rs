//! NUMA node layouts as experiment files write them (`nodes` or `shares`), for every kind that
//! has servers with NUMA nodes.

use super::Ctx;
use crate::experiment::ExperimentError;
use crate::packing::numa::MAX_NODES;

/// Node shares from `nodes` (equal shares) or `shares` (positive, adding up to 1), at `key`.
pub(crate) fn node_shares(
    cx: &Ctx<'_>,
    key: &str,
    nodes: Option<i64>,
    shares: Option<&Vec<f64>>,
) -> Result<Option<Vec<f64>>, ExperimentError> {
    match (nodes, shares) {
        (Some(_), Some(_)) => Err(cx.bad(
            &format!("{key}.shares"),
            "either nodes or shares, not both",
            "both",
        )),
        (None, None) => Ok(None),
        (Some(k), None) => {
            if !(1..=MAX_NODES as i64).contains(&k) {
                return Err(cx.bad(
                    &format!("{key}.nodes"),
                    &format!("a whole number of nodes per machine in 1..={MAX_NODES}"),
                    k,
                ));
            }
            Ok(Some(vec![1.0 / k as f64; k as usize]))
        }
        (None, Some(v)) => {
            let sum: f64 = v.iter().sum();
            if v.is_empty()
                || v.len() > MAX_NODES
                || v.iter().any(|x| !(x.is_finite() && *x > 0.0))
                || (sum - 1.0).abs() > 1e-9
            {
                return Err(cx.bad(
                    &format!("{key}.shares"),
                    &format!("1 to {MAX_NODES} positive node shares adding up to 1"),
                    format!("{v:?} (sum {sum})"),
                ));
            }
            Ok(Some(v.clone()))
        }
    }
}
