//! Validated workload laws: job sizes, service times and arrival processes
//! (docs/theory.md section 1), and the per-run job source that draws from them.
//!
//! Laws are built from the experiment spec after validation; nothing here is deserialised
//! directly. Every law is exact on the fixed-point grid of [`Size`](crate::model::Size).

mod classes;
pub mod continuous;
mod laws;
mod mix;
pub mod replay;
mod source;
pub mod trace;

pub use classes::SizeClasses;
pub use continuous::ContinuousLaw;
pub use laws::{ATOM_CLASSES, ArrivalProcess, Arrivals, LawError, ServiceLaw, SizeLaw};
pub use mix::{ClassMix, JobClass, MAX_CLASSES};
pub use source::{ArrivalClock, JobSource, Source};
