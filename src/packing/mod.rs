//! Packing evaluators on point-in-time snapshots (seeds 000 and 001; paper-notes section 11):
//! the snapshot model and its sources, placement by scoring machines, and the evaluators.

pub mod evaluate;
pub mod place;
pub mod snapshot;
pub mod sources;
