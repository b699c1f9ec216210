//! Means over replications and their 95 % intervals: the replication method of steady-state
//! simulation (Law & Kelton, *Simulation Modeling and Analysis*, ch. 9), which every table of
//! a queueing experiment states its intervals by.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean and Student-t 95 % interval of `xs`; no interval for fewer than two values.
pub fn mean_ci(xs: &[f64]) -> (f64, Option<(f64, f64)>) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (m, None);
    }
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    let t = StudentsT::new(0.0, 1.0, n - 1.0)
        .expect("n ≥ 2")
        .inverse_cdf(0.975);
    let h = t * (var / n).sqrt();
    (m, Some((m - h, m + h)))
}

/// Mean of the non-negative `xs` weighted by `ws` (slots), and its 95 % interval
/// ([`nonnegative`]); no interval for fewer than two values. With equal weights, the plain
/// mean and Student-t interval of [`mean_ci`], to the bit.
pub fn weighted_mean_ci(xs: &[f64], ws: &[f64]) -> (f64, Option<(f64, f64)>) {
    let n = xs.len();
    if ws.windows(2).all(|w| w[0] == w[1]) {
        let (m, ci) = mean_ci(xs);
        return (m, ci.map(|c| nonnegative(m, c)));
    }
    let total: f64 = ws.iter().sum();
    let m = xs.iter().zip(ws).map(|(x, w)| x * w).sum::<f64>() / total;
    if n < 2 {
        return (m, None);
    }
    // the variance of a weighted mean of independent replications: n/(n−1) Σ (wᵢ/W)² (xᵢ − m)²,
    // which is s²/n when the weights are equal
    let var = xs
        .iter()
        .zip(ws)
        .map(|(x, w)| (w / total).powi(2) * (x - m).powi(2))
        .sum::<f64>()
        * n as f64
        / (n as f64 - 1.0);
    let t = StudentsT::new(0.0, 1.0, n as f64 - 1.0)
        .expect("n ≥ 2")
        .inverse_cdf(0.975);
    let h = t * var.sqrt();
    (m, Some(nonnegative(m, (m - h, m + h))))
}

/// A 95 % interval `(lo, hi)` around the mean `m` of a non-negative quantity, kept above zero:
/// as given when its lower end is not negative; otherwise the interval of the log-transformed
/// mean, m·exp(∓ (hi − lo) / (2m)) (the delta method: the same half-width on the log scale),
/// which is positive and asymmetric, as a mean whose spread is comparable to itself should be
/// (all zeros give [0, 0]).
pub fn nonnegative(m: f64, (lo, hi): (f64, f64)) -> (f64, f64) {
    if lo >= 0.0 {
        return (lo, hi);
    }
    if m <= 0.0 {
        return (0.0, hi.max(0.0));
    }
    let r = ((hi - lo) / (2.0 * m)).exp();
    (m / r, m * r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_of_known_sample() {
        let (m, ci) = mean_ci(&[1.0, 2.0, 3.0]);
        assert!((m - 2.0).abs() < 1e-12);
        let (lo, hi) = ci.unwrap();
        // t_{0.975, 2} = 4.302653; s = 1; h = 4.302653 / sqrt(3)
        assert!((hi - m - 4.302_653 / 3f64.sqrt()).abs() < 1e-5);
        assert!((m - lo - (hi - m)).abs() < 1e-12);
        assert_eq!(mean_ci(&[5.0]).1, None);
    }

    #[test]
    fn equal_slots_give_the_student_interval_and_unequal_ones_weight_the_longer_run() {
        let xs = [10.0, 11.0, 12.0];
        assert_eq!(weighted_mean_ci(&xs, &[7.0; 3]), mean_ci(&xs));
        // runs of 1 and 3 units of slots: the pooled time average
        let (m, ci) = weighted_mean_ci(&[1.0, 3.0], &[1.0, 3.0]);
        assert!((m - 2.5).abs() < 1e-12);
        // var = 2 ((1/4)² 1.5² + (3/4)² 0.5²) = 0.5625, t(0.975, 1) = 12.7062: the Student
        // interval would reach below zero, so it is the log-transformed one
        let h = 12.706_205 * 0.75;
        let (lo, hi) = ci.unwrap();
        let r = (h / 2.5f64).exp();
        assert!(
            (lo - 2.5 / r).abs() < 1e-4 && (hi - 2.5 * r).abs() < 1e-2,
            "{lo} {hi}"
        );
        assert!(lo > 0.0 && lo < m && m < hi);
        // m is the interval's geometric middle
        assert!((lo * hi - m * m).abs() < 1e-9 * hi * hi);
    }

    #[test]
    fn an_interval_of_a_non_negative_mean_never_goes_below_zero() {
        // the reported case: a Student interval of -7.464 .. 148.916 around 70.726
        let (lo, hi) = nonnegative(70.726, (-7.464, 148.916));
        assert!(lo > 0.0 && lo < 70.726 && hi > 148.916, "{lo} {hi}");
        // an interval that stays above zero is kept as it is
        assert_eq!(nonnegative(2.0, (1.5, 2.5)), (1.5, 2.5));
        // all zeros
        assert_eq!(nonnegative(0.0, (-0.0, 0.0)), (-0.0, 0.0));
        assert_eq!(nonnegative(0.0, (-1e-9, 1e-9)), (0.0, 1e-9));
    }
}
