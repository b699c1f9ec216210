//! Partitions, configurations and the reduced set K_RED (docs/theory.md sections 2, 4 and 5).

pub(crate) mod constrained;
pub mod knapsack;
pub(crate) mod numa;
mod partition;
mod reduced;
pub(crate) mod region;

pub use partition::{MAX_J, Partition, PartitionError, PartitionKind};
pub use reduced::{ReducedConfig, ReducedSet, VQ2};
