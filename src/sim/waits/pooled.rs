//! A quantile of several replications' values pooled, with a 95 % interval for the quantile of
//! the law they sample.
//!
//! **The estimate** is the quantile of the pooled histogram (every job of every replication),
//! read as [`Histogram::quantile`] reads one run's: exact below 128 slots, within 1/128 above.
//!
//! **The interval** inverts an interval for the distribution function. With Cᵣ(x) the jobs of
//! replication r with a value of at most x and nᵣ its jobs, the pooled F̂(x) = Σ Cᵣ / Σ nᵣ is a
//! ratio of sums over independent replications, whose variance is estimated by
//! Σ (Cᵣ − F̂ nᵣ)² / (R (R − 1) n̄²) (the ratio estimator of the replication method with runs of
//! random length: Law & Kelton, *Simulation Modeling and Analysis*, ch. 9; the jobs within a run
//! are dependent, the replications are not). With h(x) Student's t (R − 1 degrees of freedom,
//! 97.5 %) times its square root, the bands F̂ ± h are made monotone (the upper one by its
//! running maximum, the lower one by its running minimum from the right), and the interval is
//!
//! - low: the smallest x where the upper band reaches q,
//! - high: the smallest x from which on the lower band stays at q or above.
//!
//! The true quantile ξ (the smallest x with F(x) ≥ q) is below low only if the upper band at ξ
//! is below F(ξ), and above high only if the lower band at ξ − 1 is above F(ξ − 1) < q; each
//! has probability about 2.5 %, so the interval covers ξ with probability at least about 95 %
//! whether or not ξ sits on an atom of an integer-valued law. Its ends are bucket edges (the
//! low end a bucket's smallest value, the high end its largest).

use super::Histogram;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The replications' values pooled, with the bands of the distribution function that give a
/// quantile's interval (module doc).
pub struct Pooled {
    merged: Histogram,
    /// Per bucket where some replication has values: the bucket, the lower and the upper band
    /// (both monotone), in increasing order of bucket. Empty with fewer than two replications.
    bands: Vec<(usize, f64, f64)>,
}

impl Pooled {
    /// The values of the replications `runs` pooled.
    pub fn new(runs: &[&Histogram]) -> Self {
        let mut merged = Histogram::default();
        for h in runs {
            merged.merge(h);
        }
        let r = runs.len();
        let total = merged.count() as f64;
        if r < 2 || total == 0.0 {
            return Pooled {
                merged,
                bands: Vec::new(),
            };
        }
        let t = StudentsT::new(0.0, 1.0, r as f64 - 1.0)
            .expect("r ≥ 2")
            .inverse_cdf(0.975);
        let n: Vec<f64> = runs.iter().map(|h| h.count() as f64).collect();
        let nbar = total / r as f64;
        // every (bucket, replication, count), by bucket
        let mut steps: Vec<(usize, usize, u64)> = runs
            .iter()
            .enumerate()
            .flat_map(|(k, h)| h.iter().map(move |(i, c)| (i, k, c)))
            .collect();
        steps.sort_unstable();
        let mut below = vec![0.0f64; r];
        let mut seen = 0.0;
        let mut bands = Vec::new();
        let mut j = 0;
        while j < steps.len() {
            let i = steps[j].0;
            while j < steps.len() && steps[j].0 == i {
                below[steps[j].1] += steps[j].2 as f64;
                seen += steps[j].2 as f64;
                j += 1;
            }
            let f = seen / total;
            let var = below
                .iter()
                .zip(&n)
                .map(|(c, n)| (c - f * n).powi(2))
                .sum::<f64>()
                / (r as f64 * (r as f64 - 1.0) * nbar * nbar);
            let h = t * var.sqrt();
            bands.push((i, f - h, f + h));
        }
        // the upper band by its running maximum, the lower one by its running minimum from the
        // right
        let mut up = f64::NEG_INFINITY;
        for b in &mut bands {
            up = up.max(b.2);
            b.2 = up;
        }
        let mut low = f64::INFINITY;
        for b in bands.iter_mut().rev() {
            low = low.min(b.1);
            b.1 = low;
        }
        Pooled { merged, bands }
    }

    /// The replications' values in one histogram.
    pub fn merged(&self) -> &Histogram {
        &self.merged
    }

    /// The `q`-quantile of the pooled values, slots ([`Histogram::quantile`]), and its 95 %
    /// interval (module doc; none with one replication); `None` when nothing was recorded.
    pub fn quantile(&self, q: f64) -> Option<(f64, Option<(u64, u64)>)> {
        let (plo, phi) = self.merged.quantile_bounds(q)?;
        let value = (plo as f64 + phi as f64) / 2.0;
        if self.bands.is_empty() {
            return Some((value, None));
        }
        let last = self.bands.last().expect("not empty").0;
        let low = self.bands.iter().find(|b| b.2 >= q).map_or(last, |b| b.0);
        let high = self.bands.iter().find(|b| b.1 >= q).map_or(last, |b| b.0);
        let max = self.merged.max();
        // the interval holds the estimate's bucket (a float's rounding of the rank aside)
        let lo = super::bounds(low).0.min(plo);
        let hi = super::bounds(high).1.min(max).max(phi);
        Some((value, Some((lo, hi))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: &[u64]) -> Histogram {
        let mut h = Histogram::default();
        for &v in values {
            h.record(v);
        }
        h
    }

    #[test]
    fn the_estimate_is_the_pooled_histograms_quantile() {
        let a = hist(&[0, 0, 1, 5, 9]);
        let b = hist(&[2, 3, 3, 4, 200, 7000]);
        let p = Pooled::new(&[&a, &b]);
        let mut m = a.clone();
        m.merge(&b);
        for q in [0.1, 0.5, 0.9, 0.99] {
            assert_eq!(p.quantile(q).unwrap().0, m.quantile(q));
            let (v, ci) = p.quantile(q).unwrap();
            let (lo, hi) = ci.unwrap();
            assert!(lo as f64 <= v && v <= hi as f64, "{q}: {v} ∉ [{lo}, {hi}]");
        }
        assert_eq!(p.merged(), &m);
    }

    #[test]
    fn one_replication_has_no_interval_and_none_has_no_quantile() {
        let a = hist(&[1, 2, 3]);
        assert_eq!(Pooled::new(&[&a]).quantile(0.5), Some((2.0, None)));
        assert_eq!(Pooled::new(&[&Histogram::default()]).quantile(0.5), None);
    }

    #[test]
    fn identical_replications_give_the_quantile_exactly_and_spread_widens_it() {
        let a = hist(&(0..100).collect::<Vec<_>>());
        let p = Pooled::new(&[&a, &a, &a]);
        // no spread between replications: a band of width zero, the interval one value
        assert_eq!(p.quantile(0.9), Some((89.0, Some((89, 89)))));
        let b = hist(&(0..100).map(|v| v + 10).collect::<Vec<_>>());
        let (v, ci) = Pooled::new(&[&a, &b, &a, &b]).quantile(0.9).unwrap();
        let (lo, hi) = ci.unwrap();
        assert!(
            lo < 94 && 94 < hi && lo as f64 <= v && v <= hi as f64,
            "{v} [{lo}, {hi}]"
        );
    }
}
