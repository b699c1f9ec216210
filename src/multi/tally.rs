//! What the multi-resource system counts for its features, through the slot loop's generic
//! observations ([`crate::sim::System::observe`]): NUMA placements over the whole run, and per
//! job constraint class the jobs placed and their waits after warm-up.

use crate::sim::{Observed, RunResult};

/// The observation group of the NUMA tallies.
pub(super) const NUMA: &str = "numa";
/// The observation group of the waits per constraint class: (jobs placed, sum of their waits
/// in slots) per class, flattened.
pub(super) const CLASS_WAITS: &str = "class waits";

/// NUMA tallies of a run on servers with NUMA nodes (docs/theory.md section 11.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NumaTally {
    /// Jobs placed.
    pub placed: u64,
    /// Of them, with CPU and memory from one node.
    pub fit: u64,
    /// Of them, jobs that had to be NUMA-fit (strict).
    pub strict: u64,
    /// Times a scheduler without cluster-level awareness sent a strict job to a server none of
    /// whose nodes could hold it (the job stayed waiting).
    pub refused: u64,
}

impl NumaTally {
    /// Fraction of placed jobs that are NUMA-fit (1 when none was placed).
    pub fn fit_fraction(&self) -> f64 {
        if self.placed == 0 {
            1.0
        } else {
            self.fit as f64 / self.placed as f64
        }
    }

    /// The tallies over the whole run of `result` (`None` for a run without NUMA nodes).
    pub fn of(result: &RunResult) -> Option<NumaTally> {
        let o = result.observed(NUMA)?;
        let at = |k: usize| o.at_end.get(k).copied().unwrap_or(0) as u64;
        Some(NumaTally {
            placed: at(0),
            fit: at(1),
            strict: at(2),
            refused: at(3),
        })
    }

    /// As counters for [`crate::sim::System::observe`].
    pub(super) fn counters(&self) -> Vec<u128> {
        [self.placed, self.fit, self.strict, self.refused]
            .map(u128::from)
            .to_vec()
    }
}

/// Per job constraint class of `result`, the jobs placed after warm-up and their mean wait,
/// slots (counted from the start when the run ended before warm-up; empty without
/// constraints).
pub fn class_waits(result: &RunResult) -> Vec<(u64, f64)> {
    let Some(Observed {
        at_warmup, at_end, ..
    }) = result.observed(CLASS_WAITS)
    else {
        return Vec::new();
    };
    at_end
        .chunks_exact(2)
        .enumerate()
        .map(|(c, end)| {
            let start = at_warmup.get(2 * c..2 * c + 2).unwrap_or(&[0, 0]);
            let placed = (end[0] - start[0]) as u64;
            let mean = if placed > 0 {
                (end[1] - start[1]) as f64 / placed as f64
            } else {
                0.0
            };
            (placed, mean)
        })
        .collect()
}
