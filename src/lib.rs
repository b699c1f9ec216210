//! packlab: scheduling jobs with random resource requirements on clusters of servers.
//!
//! A slotted-time simulator of L unit-capacity servers fed by random jobs (docs/theory.md
//! section 1), the policies of Psychas & Ghaderi (BF-J/S, FIFO-FF, …), and an experiment runner
//! that turns a TOML file into CSV tables, figures and a report.

#![forbid(unsafe_code)]

pub mod configurations;
pub mod constraints;
pub mod experiment;
mod fsafe;
pub mod input;
pub mod limits;
pub mod model;
pub mod multi;
pub mod packing;
pub mod plot;
pub mod policy;
pub mod progress;
pub mod rng;
pub mod sim;
pub mod stability;
pub mod workload;

pub use model::{Job, ServerId, Size};
