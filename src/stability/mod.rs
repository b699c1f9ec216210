//! Stability, computed and measured: supportable regions by linear programming, brackets for
//! continuous sizes (docs/theory.md sections 2, 5, 6, 12).

pub mod exact;
pub mod msj;
pub(crate) mod perfect;
pub(crate) mod plane;
pub mod region;
pub(crate) mod saturation;
pub mod search;
