//! Packing evaluators on point-in-time snapshots (Verma et al. 2014 and Stein et al.;
//! docs/theory.md section 11): the snapshot model and its sources, placement by scoring machines,
//! and the evaluators.

pub(crate) mod constrain;
pub mod evaluate;
pub mod numa;
pub mod place;
pub mod snapshot;
pub mod sources;
