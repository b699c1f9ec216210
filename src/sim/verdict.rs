//! A stability verdict from one run's queue-size trajectory.
//!
//! **The data.** The measured horizon h (the slots after warm-up, rounded down to a multiple
//! of [`BATCHES`]) is cut into b = [`BATCHES`] batches of m = h / b slots; y₁ … y_b are the
//! batch means of Q(t). This is the batch-means method of steady-state simulation output
//! analysis (Schmeiser, "Batch size effects in the analysis of simulation output", Operations
//! Research 30(3), 1982), with its independence check (Fishman & Yarberry, "An implementation
//! of the batch means method", INFORMS Journal on Computing 9(3), 1997).
//!
//! **Three statistics**, each pivotal (its law does not depend on the system) under the case
//! it is meant to reject:
//! - *Decorrelation* `z_vn`: von Neumann's ratio of the mean square successive difference to
//!   the variance (von Neumann, Ann. Math. Statist. 12, 1941), in Young's form
//!   C = 1 − Σ(y_{k+1} − y_k)² / (2 Σ(y_k − ȳ)²), standardised by its null standard deviation
//!   √((b − 2)/(b² − 1)) (Young, Ann. Math. Statist. 12, 1941). For independent batch means
//!   z_vn ≈ N(0, 1). A bounded queue whose batches are much longer than its relaxation time
//!   has nearly independent batch means; an unbounded one (critically loaded, growing) is
//!   strongly correlated at every batch size, z_vn ≈ √b ≈ 5.6.
//! - *Level rise* `z_rise`: the mean of the second half of the batches (the last doubling of
//!   the horizon) minus the first half's, over its standard error with the batch variance
//!   estimated from successive differences around the trend (robust to a trend).
//! - *Drift* `z_drift` = β √h / σ̂: the least-squares slope β of the batch means (jobs per
//!   slot) against the diffusion scale σ̂ of the queue, estimated from the detrended successive
//!   differences (for a Brownian path, Var(y_{k+1} − y_k) = 2σ²m/3). Under a critically loaded
//!   queue, whose heavy-traffic limit is a driftless reflected Brownian motion (Iglehart &
//!   Whitt, "Multiple channel queues in heavy traffic I", Adv. Appl. Prob. 2, 1970), the queue
//!   grows like √t and z_drift stays O(1) at every horizon; under a drift d > 0 it grows like
//!   d √h / σ.
//!
//! **The rule.**
//! - `unstable` if the run hit the queue cap, or z_drift > [`DRIFT_Z`]: growth that a
//!   critically loaded queue reaches in under 1 % of runs (measured on reflected random walks,
//!   see `proofs/verdict_calibration.md`);
//! - `stable` if z_vn ≤ [`DECORRELATED_Z`] and z_rise ≤ [`RISE_Z`]: the batch means look
//!   independent and the level did not rise over the last doubling — positive evidence that
//!   the queue forgets its past within a batch. A critically loaded queue passes in about
//!   0.5 % of looks;
//! - `inconclusive` otherwise (typically close to the limit, where the relaxation time is
//!   longer than a batch), and always when the measured horizon is shorter than
//!   [`MIN_HORIZON_SERVICES`] mean service times.
//!
//! An inconclusive run may go on (same random streams, see [`super::RunConfig::max_slots`]):
//! the horizon doubles, adjacent batches merge, and the rule is applied again. Error rates of
//! the whole procedure, at the critical load and ±1, 2, 5, 10 % around it on systems with known
//! limits, are measured in `proofs/verdict_calibration.md`.

/// Number of batches the verdict judges.
pub(crate) const BATCHES: usize = 32;

/// A run is `stable` only if its batch means' von Neumann statistic is at most this (the
/// upper 2.3 % point of its law for independent batch means). A critically loaded queue gets
/// below it in about 0.5 % of looks, so five looks (four doublings) stay near 2 %.
pub(crate) const DECORRELATED_Z: f64 = 2.0;

/// ... and the level's rise over the last doubling of the horizon is at most this many
/// standard errors (one-sided 1 %).
pub(crate) const RISE_Z: f64 = 2.33;

/// A run is `unstable` if its drift is more than this many diffusion scales over the horizon.
pub(crate) const DRIFT_Z: f64 = 3.0;

/// The shortest horizon, in mean service times, on which a run's trend is judged.
pub(crate) const MIN_HORIZON_SERVICES: f64 = 100.0;

/// Stable, unstable, or cannot tell.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Verdict {
    /// The queue stays bounded: no significant growth over the judged batches.
    Stable,
    /// The queue grows (or the run hit the queue cap).
    Unstable,
    /// Neither could be shown at this horizon.
    Inconclusive,
}

impl Verdict {
    /// The verdict as written in outputs: `stable`, `unstable` or `inconclusive`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Stable => "stable",
            Verdict::Unstable => "unstable",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The numbers behind a verdict.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VerdictEvidence {
    /// Slots judged (b batches of `batch_len`), or simulated if the cap stopped the run.
    pub horizon: u64,
    /// Slots per batch.
    pub batch_len: u64,
    /// Mean of the batch means, jobs.
    pub level: f64,
    /// Least-squares slope of the batch means, jobs per slot.
    pub slope: f64,
    /// Standardised von Neumann statistic of the batch means (≈ N(0, 1) if independent).
    pub z_vn: f64,
    /// Rise of the level over the last doubling, in standard errors.
    pub z_rise: f64,
    /// Drift over the horizon in diffusion scales, β √h / σ̂.
    pub z_drift: f64,
    /// Times the horizon was doubled because the verdict was inconclusive.
    pub extensions: u32,
    /// The run stopped at the queue cap.
    pub capped: bool,
    /// The horizon was shorter than `MIN_HORIZON_SERVICES` mean service times.
    pub short: bool,
}

impl VerdictEvidence {
    /// Whether the run's statistics (`z_vn`, `z_rise`, `z_drift`, level and slope) were
    /// computed: neither stopped at the queue cap nor judged on too short a horizon.
    pub fn judged(&self) -> bool {
        !self.capped && !self.short
    }

    fn empty(horizon: u64, batch_len: u64, capped: bool, short: bool) -> Self {
        VerdictEvidence {
            horizon,
            batch_len,
            level: 0.0,
            slope: 0.0,
            z_vn: 0.0,
            z_rise: 0.0,
            z_drift: 0.0,
            extensions: 0,
            capped,
            short,
        }
    }
}

impl std::fmt::Display for VerdictEvidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ext = match self.extensions {
            0 => String::new(),
            1 => ", horizon doubled once".to_string(),
            k => format!(", horizon doubled {k} times"),
        };
        if self.capped {
            write!(f, "queue cap hit after {} slots{ext}", self.horizon)
        } else if self.short {
            write!(
                f,
                "horizon of {} slots is shorter than {MIN_HORIZON_SERVICES} mean service times; \
                 not judged{ext}",
                self.horizon
            )
        } else {
            write!(
                f,
                "decorrelation z {:.2} (stable needs ≤ {DECORRELATED_Z}), level rise z {:.2} \
                 (≤ {RISE_Z}), drift z {:.2} (unstable > {DRIFT_Z}); level {:.2}, slope {:.3e} \
                 jobs/slot over {} slots in {BATCHES} batches{ext}",
                self.z_vn, self.z_rise, self.z_drift, self.level, self.slope, self.horizon,
            )
        }
    }
}

/// The verdict on `BATCHES` batch means of `batch_len` slots each. `capped`: the run hit the
/// queue cap after `slots` slots. `mean_service`: the mean service time, slots.
pub fn judge(
    batch_means: &[f64],
    batch_len: u64,
    capped: bool,
    slots: u64,
    mean_service: f64,
) -> (Verdict, VerdictEvidence) {
    let horizon = batch_len * batch_means.len() as u64;
    let short = (horizon as f64) < MIN_HORIZON_SERVICES * mean_service;
    if capped {
        return (
            Verdict::Unstable,
            VerdictEvidence::empty(slots, batch_len, true, short),
        );
    }
    let b = batch_means.len();
    let mut ev = VerdictEvidence::empty(horizon, batch_len, false, short);
    if b != BATCHES || batch_len == 0 {
        ev.short = true;
        return (Verdict::Inconclusive, ev);
    }
    let y = batch_means;
    let bf = b as f64;
    let m = batch_len as f64;
    let ybar = y.iter().sum::<f64>() / bf;
    ev.level = ybar;
    // slope against batch centres (slots)
    let xbar = (bf - 1.0) / 2.0;
    let sxx: f64 = (0..b).map(|k| (k as f64 - xbar).powi(2)).sum();
    let sxy: f64 = y
        .iter()
        .enumerate()
        .map(|(k, yk)| (k as f64 - xbar) * (yk - ybar))
        .sum();
    let per_batch = sxy / sxx;
    ev.slope = per_batch / m;
    let ss: f64 = y.iter().map(|yk| (yk - ybar).powi(2)).sum();
    let diffs = || y.windows(2).map(|w| w[1] - w[0]);
    let mssd: f64 = diffs().map(|d| d * d).sum();
    // successive differences around the trend: the batch noise, robust to a linear trend
    let detrended: f64 = diffs().map(|d| (d - per_batch).powi(2)).sum::<f64>() / (bf - 1.0);
    if ss == 0.0 {
        // a flat queue (always the same batch mean, typically 0): nothing grows
        let v = if ev.short {
            Verdict::Inconclusive
        } else {
            Verdict::Stable
        };
        return (v, ev);
    }
    ev.z_vn = (1.0 - mssd / (2.0 * ss)) / ((bf - 2.0) / (bf * bf - 1.0)).sqrt();
    let half = b / 2;
    let first = y[..half].iter().sum::<f64>() / half as f64;
    let second = y[half..].iter().sum::<f64>() / (b - half) as f64;
    // Var(y) ≈ detrended / 2; the difference of two means of b/2 batches has variance 4 Var(y)/b
    let se_rise = (2.0 * detrended / bf).sqrt();
    ev.z_rise = signed_ratio(second - first, se_rise);
    // diffusion variance per slot: Var(y_{k+1} − y_k) = 2σ²m/3 for a Brownian path
    let sigma = (detrended / (2.0 * m / 3.0)).sqrt();
    ev.z_drift = signed_ratio(ev.slope * (horizon as f64).sqrt(), sigma);
    let v = if ev.short {
        Verdict::Inconclusive
    } else if ev.z_drift > DRIFT_Z {
        Verdict::Unstable
    } else if ev.z_vn <= DECORRELATED_Z && ev.z_rise <= RISE_Z {
        Verdict::Stable
    } else {
        Verdict::Inconclusive
    };
    (v, ev)
}

/// `num / den`, with a zero denominator giving ±∞ (or 0 for 0 / 0).
fn signed_ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else if num > 0.0 {
        f64::INFINITY
    } else if num < 0.0 {
        f64::NEG_INFINITY
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_distr::StandardNormal;
    use rand_pcg::Pcg64Mcg;

    /// Batch means of `slots` steps of a path (`BATCHES` equal batches).
    fn batches(path: &[f64]) -> (Vec<f64>, u64) {
        let m = path.len() / BATCHES;
        let y = path[path.len() - m * BATCHES..]
            .chunks(m)
            .map(|c| c.iter().sum::<f64>() / m as f64)
            .collect();
        (y, m as u64)
    }

    /// A reflected Gaussian random walk with `drift` per step.
    fn reflected(steps: usize, drift: f64, seed: u64) -> Vec<f64> {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut x = 0.0f64;
        (0..steps)
            .map(|_| {
                let e: f64 = rng.sample(StandardNormal);
                x = (x + drift + e).max(0.0);
                x
            })
            .collect()
    }

    fn verdict_of(path: &[f64]) -> Verdict {
        let (y, m) = batches(path);
        judge(&y, m, false, path.len() as u64, 1.0).0
    }

    #[test]
    fn linear_growth_is_unstable() {
        let y: Vec<f64> = (0..32).map(|b| 10.0 * b as f64 + (b % 3) as f64).collect();
        assert_eq!(judge(&y, 1000, false, 32_000, 10.0).0, Verdict::Unstable);
    }

    #[test]
    fn independent_noise_is_stable() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let mut stable = 0;
        for _ in 0..200 {
            let y: Vec<f64> = (0..32)
                .map(|_| 50.0 + rng.sample::<f64, _>(StandardNormal))
                .collect();
            if judge(&y, 1000, false, 32_000, 10.0).0 == Verdict::Stable {
                stable += 1;
            }
        }
        // each test rejects about 1 % of independent batch means
        assert!(stable >= 190, "{stable} of 200");
    }

    #[test]
    fn a_flat_queue_is_stable() {
        assert_eq!(
            judge(&[0.0; 32], 1000, false, 32_000, 10.0).0,
            Verdict::Stable
        );
    }

    #[test]
    fn a_critical_queue_is_rarely_stable() {
        // a driftless reflected random walk: the heavy-traffic picture of a critical queue
        let stable = (0..200)
            .filter(|&s| verdict_of(&reflected(1 << 15, 0.0, s)) == Verdict::Stable)
            .count();
        assert!(stable <= 6, "{stable} of 200 critical paths called stable");
    }

    #[test]
    fn a_mean_reverting_queue_is_stable_and_a_drifting_one_unstable() {
        let mut stable = 0;
        let mut unstable = 0;
        for s in 0..100 {
            stable += (verdict_of(&reflected(1 << 15, -0.2, s)) == Verdict::Stable) as u32;
            unstable += (verdict_of(&reflected(1 << 15, 0.05, s)) == Verdict::Unstable) as u32;
        }
        assert!(stable >= 95, "{stable} of 100 stable");
        assert!(unstable >= 99, "{unstable} of 100 unstable");
    }

    #[test]
    fn short_runs_are_inconclusive() {
        let y: Vec<f64> = (0..32).map(|b| 10.0 * b as f64).collect();
        assert_eq!(
            judge(&y, 1000, false, 32_000, 1000.0).0,
            Verdict::Inconclusive
        );
    }

    #[test]
    fn cap_is_unstable() {
        assert_eq!(judge(&[1.0; 32], 3, true, 100, 10.0).0, Verdict::Unstable);
    }
}
