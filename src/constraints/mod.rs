//! Task placement constraints (Sharma, Chudnovsky, Hellerstein, Rifaat and Das, "Modeling and
//! Synthesizing Task Placement Constraints in Google Compute Clusters", ACM SoCC 2011):
//! machines carry attributes, tasks carry constraints on them, and a task may run only on a
//! machine that satisfies all of its constraints. The placement code of the packing evaluators
//! and of the simulator consults an [`Eligibility`] table; the Utilization Multiplier measures
//! how much a constraint concentrates demand; synthesis draws realistic attributes and
//! constraints from statistical clusters.

pub(crate) mod multiplier;
pub(crate) mod predicate;
pub(crate) mod support;
pub(crate) mod synthesis;
pub(crate) mod table;

pub(crate) use multiplier::{Multiplier, multipliers, vocabulary};
pub use predicate::{Constraint, ConstraintSet, Op, is_number, parse_set};
pub use support::{JobClasses, ServerMultiplier, SupportError};
pub use synthesis::{Characterisation, StatCluster, sort_and_merge};
pub use table::{AttrType, ConstraintError, Eligibility, Properties, set_text};
