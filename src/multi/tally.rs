//! What the multi-resource system counts for its features, as typed tallies through the slot
//! loop's observations ([`crate::sim::FeatureTally`]): NUMA placements over the whole run
//! ([`NumaTally`]), and per job constraint class the jobs placed and their waits
//! ([`ClassWaits`]).

pub use crate::packing::numa::NumaTally;
use crate::sim::{FeatureTally, RunResult};

/// Per job constraint class (the table's order), the jobs placed so far and the sum of their
/// waits, slots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassWaits(pub Vec<(u64, u128)>);

impl FeatureTally for ClassWaits {
    const NAME: &'static str = "class waits";

    fn to_counters(&self) -> Vec<u128> {
        self.0
            .iter()
            .flat_map(|&(n, w)| [u128::from(n), w])
            .collect()
    }

    fn from_counters(counters: &[u128]) -> Self {
        ClassWaits(
            counters
                .chunks_exact(2)
                .map(|c| (c[0] as u64, c[1]))
                .collect(),
        )
    }
}

/// Per job constraint class of `result`, the jobs placed after warm-up and their mean wait,
/// slots (counted from the start when the run ended before warm-up; empty without
/// constraints).
pub fn class_waits(result: &RunResult) -> Vec<(u64, f64)> {
    let Some((ClassWaits(start), ClassWaits(end))) = result.tally::<ClassWaits>() else {
        return Vec::new();
    };
    end.iter()
        .enumerate()
        .map(|(c, &(n, w))| {
            let (n0, w0) = start.get(c).copied().unwrap_or((0, 0));
            let placed = n - n0;
            let mean = if placed > 0 {
                (w - w0) as f64 / placed as f64
            } else {
                0.0
            };
            (placed, mean)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writer and reader go through one impl: every field comes back, and a run that ended
    /// before warm-up (no counters) reads as all zero.
    #[test]
    fn tallies_read_back_what_was_written() {
        let t = NumaTally {
            placed: 9,
            fit: 7,
            fit_cpu: 1 << 70,
            strict: 4,
            refused: 3,
        };
        assert_eq!(NumaTally::from_counters(&t.to_counters()), t);
        assert_eq!(NumaTally::from_counters(&[]), NumaTally::default());
        let w = ClassWaits(vec![(3, 17), (0, 0), (5, 1 << 90)]);
        assert_eq!(ClassWaits::from_counters(&w.to_counters()), w);
        assert_eq!(ClassWaits::from_counters(&[]), ClassWaits::default());
        assert_ne!(NumaTally::NAME, ClassWaits::NAME);
    }
}
