//! The keys and checks the multiserver-job policies share with their plain versions
//! (`plain_msj.rs`): SMASH's window and ServerFilling's power-of-two sizes, in one place so
//! that a policy and its reference validate alike without importing each other.

use super::params::{ParamError, PolicyParams};
use crate::model::Size;
use crate::workload::SizeLaw;

/// The longest window, jobs.
pub(crate) const MAX_WINDOW: i64 = 1 << 20;

/// `window`, an integer in [1, 2^20].
pub(super) fn window(params: &PolicyParams<'_>) -> Result<usize, ParamError> {
    match params.int("window")? {
        Some(w) if (1..=MAX_WINDOW).contains(&w) => Ok(w as usize),
        Some(w) => Err(ParamError::new(
            "window",
            format!("a window of 1 to {MAX_WINDOW} jobs"),
            w,
        )),
        None => Err(ParamError::new(
            "window",
            "the window w, the waiting jobs SMASH looks at (an integer ≥ 1)",
            "nothing",
        )),
    }
}

/// Refuses a size law with a size that is not 1/2^m of a server (m ≤ 30).
pub(super) fn powers_of_two(sizes: &SizeLaw) -> Result<(), ParamError> {
    let atoms = sizes.atoms().filter(|a| !a.is_empty()).ok_or_else(|| {
        ParamError::new(
            "name",
            "job sizes that are powers of two of a server for \"server-filling\" (a law over \
             finitely many sizes: 1, 1/2, 1/4, …)",
            "a continuous size distribution",
        )
    })?;
    for (s, _) in atoms {
        if !is_power_of_two(s) {
            return Err(ParamError::new(
                "workload.sizes",
                "sizes that are powers of two of a server (1, 1/2, 1/4, …, 1/2^30) for \
                 \"server-filling\"",
                s,
            ));
        }
    }
    Ok(())
}

/// Whether `s` is 1/2^m of a server for some m ≤ 30.
pub(super) fn is_power_of_two(s: Size) -> bool {
    (0..=30).any(|m| s.0 << m == Size::UNIT)
}
