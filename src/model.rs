//! Jobs, exact fixed-point sizes and servers (docs/theory.md section 1).
//!
//! A server has capacity 1 of one resource. Sizes are stored as integer multiples of
//! `1 / Size::UNIT`, so sums and comparisons are exact: a server can never exceed its
//! capacity through rounding, and its free capacity never drifts as jobs come and go.
//!
//! `Size::UNIT = 3 · 2^24 · 10^6`. That makes exact:
//! - every decimal size with up to six digits after the point (0.2, 0.45, 0.123456),
//!   so five jobs of 0.2 fill a server exactly;
//! - every cut point of the universal partition X_J, `2^-m` and `(2/3)·2^-m`, for m ≤ 30.
//!
//! Other real numbers are rounded to the nearest multiple once, when they are read.

use std::fmt;

/// A job's resource requirement (or a capacity), in units of `1 / Size::UNIT` of one server.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Size(pub u64);

impl Size {
    /// Fixed-point units per server capacity: `3 · 2^24 · 10^6`.
    pub const UNIT: u64 = 3 * (1 << 24) * 1_000_000;
    /// A full server.
    pub const ONE: Size = Size(Self::UNIT);
    /// Nothing.
    pub const ZERO: Size = Size(0);

    /// The nearest fixed-point size to `x` (a fraction of one server). `None` unless the result
    /// lies in (0, 1].
    pub fn from_f64(x: f64) -> Option<Size> {
        if !x.is_finite() {
            return None;
        }
        let u = (x * Self::UNIT as f64).round();
        if u < 1.0 || u > Self::UNIT as f64 {
            return None;
        }
        Some(Size(u as u64))
    }

    /// The exact rational `num / den` of a server, which must be a multiple of the unit.
    pub const fn ratio(num: u64, den: u64) -> Size {
        assert!((Self::UNIT * num).is_multiple_of(den));
        Size(Self::UNIT * num / den)
    }

    /// As a fraction of one server.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / Self::UNIT as f64
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_f64())
    }
}

/// Index of a server, 0-based (the paper's servers 1..L).
pub type ServerId = u32;

/// A job as the scheduler sees it. Size and service time are drawn when it arrives
/// (common random numbers: every policy sees the same jobs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// Arrival sequence number, 0, 1, 2, … in order of arrival (ties within a batch in draw order).
    pub id: u64,
    /// Resource requirement.
    pub size: Size,
    /// Service time in slots (≥ 1): placed in slot t, it occupies its server in t … t+S−1.
    pub service: u32,
    /// Slot of arrival.
    pub arrival: u64,
    /// A small tag a policy may use (virtual-queue index); 0 unless a policy sets it.
    pub class: u8,
    /// The job's class in a workload with classes (its index in `workload.classes`, from 0),
    /// as the source drew it; 0 otherwise. Policies may read it; the waits of such a workload
    /// are kept by it.
    pub kind: u8,
}

/// A job leaving its server at the start of a slot (step 1 of the slot order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure {
    /// The server it leaves.
    pub server: ServerId,
    /// Its size, the capacity it frees.
    pub size: Size,
    /// The tag a policy gave it ([`Job::class`]).
    pub class: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_sizes_are_exact() {
        let a = Size::from_f64(0.2).unwrap();
        assert_eq!(a.0 * 5, Size::UNIT);
        let b = Size::from_f64(0.45).unwrap();
        let c = Size::from_f64(0.55).unwrap();
        assert_eq!(b.0 + c.0, Size::UNIT);
        assert_eq!(Size::from_f64(0.1).unwrap().0 * 10, Size::UNIT);
    }

    #[test]
    fn partition_cuts_are_exact() {
        for m in 0..=30u32 {
            let p = 1u64 << m;
            assert_eq!(Size::ratio(1, p).0 * p, Size::UNIT);
            assert_eq!(Size::ratio(2, 3 * p).0 * 3 * p, 2 * Size::UNIT);
        }
    }

    #[test]
    fn out_of_range_sizes_are_rejected() {
        assert!(Size::from_f64(0.0).is_none());
        assert!(Size::from_f64(-0.1).is_none());
        assert!(Size::from_f64(1.0000001).is_none());
        assert!(Size::from_f64(f64::NAN).is_none());
        assert_eq!(Size::from_f64(1.0), Some(Size::ONE));
    }
}

/// Resource dimensions of a multi-resource job or server: CPU, memory, and optionally disk.
pub const MAX_DIMS: usize = 3;

/// An amount of each resource, in fixed-point units of [`Size::UNIT`] (1 = a whole server, or
/// the largest machine of a trace, per resource).
pub type Resources = [u64; MAX_DIMS];

/// The scheduling discipline a scorer works inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Discipline {
    /// BF-J/S: servers with departures take jobs, then new jobs take servers.
    BestFitJS,
    /// First in, first out with head-of-line blocking.
    Fifo,
}

/// How a machine is chosen for a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Scorer {
    /// Best Fit, version 1 to 5 (Stein et al.): the machine left with the least free resources.
    BestFit(u8),
    /// First Fit: the machine met first.
    FirstFit,
    /// First Fit over a random order of the machines, drawn once.
    RandomFirstFit,
    /// Sum-of-Squares, version 1 or 2: the most diverse free profile afterwards.
    SumOfSquares(u8),
    /// E-PVM (worst fit): the machine left with the most free resources.
    Epvm,
    /// A uniformly random machine among those that fit.
    Random,
    /// Dot product: the machine whose free resources align best with the request.
    DotProduct,
}

impl Scorer {
    /// Every scorer's name in experiment files.
    pub const NAMES: &'static [&'static str] = &[
        "bestfit-v1",
        "bestfit-v2",
        "bestfit-v3",
        "bestfit-v4",
        "bestfit-v5",
        "firstfit-v1",
        "firstfit-v2",
        "sos-v1",
        "sos-v2",
        "epvm",
        "random",
        "dot-product",
    ];

    /// The scorer named `s` in experiment files (one of [`Scorer::NAMES`]).
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "bestfit-v1" => Scorer::BestFit(1),
            "bestfit-v2" => Scorer::BestFit(2),
            "bestfit-v3" => Scorer::BestFit(3),
            "bestfit-v4" => Scorer::BestFit(4),
            "bestfit-v5" => Scorer::BestFit(5),
            "firstfit-v1" => Scorer::FirstFit,
            "firstfit-v2" => Scorer::RandomFirstFit,
            "sos-v1" => Scorer::SumOfSquares(1),
            "sos-v2" => Scorer::SumOfSquares(2),
            "epvm" => Scorer::Epvm,
            "random" => Scorer::Random,
            "dot-product" => Scorer::DotProduct,
            _ => return None,
        })
    }
}
