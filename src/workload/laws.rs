//! Size, service and arrival laws.

use rand::Rng;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand_distr::Poisson;

use crate::model::Size;

/// Why a law cannot be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LawError {
    /// Probabilities that are not usable weights.
    #[error("usable weights ({0})")]
    Weights(String),
    /// A negative, infinite or NaN arrival rate.
    #[error("a finite arrival rate ≥ 0")]
    Rate,
    /// Bernoulli arrivals bring at most one job per slot.
    #[error("a rate ≤ 1 job per slot for Bernoulli arrivals")]
    Bernoulli,
    /// The Poisson sampler refused the rate.
    #[error("a Poisson rate the sampler accepts ({0})")]
    Poisson(String),
}

/// The law of a job's size R on (0, 1], on the fixed-point grid.
#[derive(Clone, Debug)]
pub enum SizeLaw {
    /// Uniform over the grid points of [low, high].
    Uniform { low: Size, high: Size },
    /// Finitely many values with probabilities.
    Discrete {
        values: Vec<Size>,
        probs: Vec<f64>,
        index: WeightedIndex<f64>,
    },
    /// Each draw is one of the listed values, equally likely (a resampled trace).
    Empirical { values: Vec<Size> },
}

impl SizeLaw {
    /// Uniform on [low, high]; `low ≤ high` are checked by the caller.
    pub fn uniform(low: Size, high: Size) -> Self {
        SizeLaw::Uniform { low, high }
    }

    /// Discrete law; `probs` must be non-negative with a positive sum (normalised here).
    pub fn discrete(values: Vec<Size>, probs: Vec<f64>) -> Result<Self, LawError> {
        let sum: f64 = probs.iter().sum();
        let index = WeightedIndex::new(&probs).map_err(|e| LawError::Weights(e.to_string()))?;
        let probs = probs.iter().map(|p| p / sum).collect();
        Ok(SizeLaw::Discrete {
            values,
            probs,
            index,
        })
    }

    /// Draw one size.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Size {
        match self {
            SizeLaw::Uniform { low, high } => Size(rng.random_range(low.0..=high.0)),
            SizeLaw::Discrete { values, index, .. } => values[index.sample(rng)],
            SizeLaw::Empirical { values } => values[rng.random_range(0..values.len())],
        }
    }

    /// E[R], as a fraction of a server.
    pub fn mean(&self) -> f64 {
        match self {
            SizeLaw::Uniform { low, high } => (low.as_f64() + high.as_f64()) / 2.0,
            SizeLaw::Discrete { values, probs, .. } => {
                values.iter().zip(probs).map(|(v, p)| v.as_f64() * p).sum()
            }
            SizeLaw::Empirical { values } => {
                values.iter().map(|v| v.as_f64()).sum::<f64>() / values.len() as f64
            }
        }
    }

    /// The smallest size the law can draw.
    pub fn min(&self) -> Size {
        match self {
            SizeLaw::Uniform { low, .. } => *low,
            SizeLaw::Discrete { values, probs, .. } => values
                .iter()
                .zip(probs)
                .filter(|(_, p)| **p > 0.0)
                .map(|(v, _)| *v)
                .min()
                .unwrap_or(Size::ONE),
            SizeLaw::Empirical { values } => values.iter().copied().min().unwrap_or(Size::ONE),
        }
    }

    /// P(R ≤ x), exact on the fixed-point grid.
    pub fn cdf(&self, x: Size) -> f64 {
        match self {
            SizeLaw::Uniform { low, high } => {
                if x < *low {
                    0.0
                } else if x >= *high {
                    1.0
                } else {
                    (x.0 - low.0 + 1) as f64 / (high.0 - low.0 + 1) as f64
                }
            }
            _ => self
                .atoms()
                .expect("finite law")
                .iter()
                .filter(|(s, _)| *s <= x)
                .map(|(_, p)| p)
                .sum(),
        }
    }

    /// The distinct sizes with their probabilities, when there are finitely many.
    pub fn atoms(&self) -> Option<Vec<(Size, f64)>> {
        match self {
            SizeLaw::Uniform { .. } => None,
            SizeLaw::Discrete { values, probs, .. } => Some(merge_atoms(
                values.iter().copied().zip(probs.iter().copied()),
            )),
            SizeLaw::Empirical { values } => {
                let w = 1.0 / values.len() as f64;
                Some(merge_atoms(values.iter().map(|&v| (v, w))))
            }
        }
    }
}

fn merge_atoms(it: impl Iterator<Item = (Size, f64)>) -> Vec<(Size, f64)> {
    let mut v: Vec<(Size, f64)> = it.collect();
    v.sort_by_key(|a| a.0);
    let mut out: Vec<(Size, f64)> = Vec::with_capacity(v.len());
    for (s, p) in v {
        match out.last_mut() {
            Some(last) if last.0 == s => last.1 += p,
            _ => out.push((s, p)),
        }
    }
    out
}

/// The law of a service time S in slots (S ≥ 1).
#[derive(Clone, Debug)]
pub enum ServiceLaw {
    /// Geometric on 1, 2, … with success probability μ = 1/mean per slot (the paper's model).
    /// Sampled by inversion: S = 1 + ⌊ln(1 − U) / ln(1 − μ)⌋, U uniform on [0, 1).
    Geometric { mean: f64, inv_log_q: f64 },
    /// Always the same number of slots.
    Deterministic(u32),
    /// One of the listed slot counts, with the given probabilities.
    Empirical {
        values: Vec<u32>,
        probs: Vec<f64>,
        index: WeightedIndex<f64>,
    },
}

impl ServiceLaw {
    /// Geometric with the given mean (≥ 1 slot; checked by the caller).
    pub fn geometric(mean: f64) -> Self {
        assert!(mean >= 1.0, "mean ≥ 1 checked by the caller");
        // ln(1 − μ) = −∞ when μ = 1: every draw is then 1 slot, as it must be.
        let inv_log_q = 1.0 / (-1.0 / mean).ln_1p();
        ServiceLaw::Geometric { mean, inv_log_q }
    }

    /// Empirical law over slot counts ≥ 1.
    pub fn empirical(values: Vec<u32>, probs: Vec<f64>) -> Result<Self, LawError> {
        let sum: f64 = probs.iter().sum();
        let index = WeightedIndex::new(&probs).map_err(|e| LawError::Weights(e.to_string()))?;
        let probs = probs.iter().map(|p| p / sum).collect();
        Ok(ServiceLaw::Empirical {
            values,
            probs,
            index,
        })
    }

    /// Draw one service time, in slots.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        match self {
            ServiceLaw::Geometric { inv_log_q, .. } => {
                let u: f64 = rng.random();
                let failures = (-u).ln_1p() * inv_log_q;
                // saturating float-to-int cast; 0 · (−0) and the like give 0
                (1.0 + failures).min(u32::MAX as f64) as u32
            }
            ServiceLaw::Deterministic(v) => *v,
            ServiceLaw::Empirical { values, index, .. } => values[index.sample(rng)],
        }
    }

    /// E[S] in slots (1/μ).
    pub fn mean(&self) -> f64 {
        match self {
            ServiceLaw::Geometric { mean, .. } => *mean,
            ServiceLaw::Deterministic(v) => *v as f64,
            ServiceLaw::Empirical { values, probs, .. } => {
                values.iter().zip(probs).map(|(&v, p)| v as f64 * p).sum()
            }
        }
    }
}

/// How many jobs arrive in a slot, given the rate λ (jobs per slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrivalProcess {
    /// |A(t)| ~ Poisson(λ).
    Poisson,
    /// |A(t)| ~ Bernoulli(λ), λ ≤ 1.
    Bernoulli,
    /// Deterministic: ⌊λ(t+1)⌋ − ⌊λt⌋ jobs in slot t, i.e. a fixed batch of λ jobs every slot
    /// when λ is an integer, and the evenest spread of λ per slot otherwise.
    Batch,
}

impl ArrivalProcess {
    /// Name as written in the experiment file.
    pub fn name(self) -> &'static str {
        match self {
            ArrivalProcess::Poisson => "poisson",
            ArrivalProcess::Bernoulli => "bernoulli",
            ArrivalProcess::Batch => "batch",
        }
    }
}

/// An arrival process with its rate, ready to sample.
#[derive(Clone, Debug)]
pub struct Arrivals {
    process: ArrivalProcess,
    rate: f64,
    poisson: Option<Poisson<f64>>,
}

impl Arrivals {
    /// λ jobs per slot on average. Errors when the rate is impossible for the process.
    pub fn new(process: ArrivalProcess, rate: f64) -> Result<Self, LawError> {
        if !rate.is_finite() || rate < 0.0 {
            return Err(LawError::Rate);
        }
        if process == ArrivalProcess::Bernoulli && rate > 1.0 {
            return Err(LawError::Bernoulli);
        }
        let poisson = if process == ArrivalProcess::Poisson && rate > 0.0 {
            Some(Poisson::new(rate).map_err(|e| LawError::Poisson(e.to_string()))?)
        } else {
            None
        };
        Ok(Arrivals {
            process,
            rate,
            poisson,
        })
    }

    /// λ, jobs per slot.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Number of arrivals in slot `t`.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, t: u64, rng: &mut R) -> u32 {
        match self.process {
            ArrivalProcess::Poisson => match &self.poisson {
                Some(p) => p.sample(rng) as u32,
                None => 0,
            },
            ArrivalProcess::Bernoulli => rng.random_bool(self.rate) as u32,
            ArrivalProcess::Batch => {
                ((self.rate * (t + 1) as f64).floor() - (self.rate * t as f64).floor()) as u32
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn geometric_service_has_the_right_law() {
        // P(S = 1) = μ, P(S > k) = (1 − μ)^k, E[S] = 1/μ; n = 10^6 draws, 5-sigma bands.
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        for mean in [1.0, 1.5, 4.0, 100.0] {
            let law = ServiceLaw::geometric(mean);
            let mu = 1.0 / mean;
            let n = 1_000_000;
            let draws: Vec<u32> = (0..n).map(|_| law.sample(&mut rng)).collect();
            assert!(draws.iter().all(|&s| s >= 1));
            let m = draws.iter().map(|&s| s as f64).sum::<f64>() / n as f64;
            let sd = ((1.0 - mu) / (mu * mu) / n as f64).sqrt();
            assert!((m - mean).abs() <= 5.0 * sd + 1e-12, "mean {m} vs {mean}");
            for k in [1u32, 2, 5] {
                let p = (1.0 - mu).powi(k as i32);
                let f = draws.iter().filter(|&&s| s > k).count() as f64 / n as f64;
                let band = 5.0 * (p * (1.0 - p) / n as f64).sqrt() + 1e-12;
                assert!((f - p).abs() <= band, "P(S > {k}) = {f} vs {p}");
            }
        }
    }

    #[test]
    fn batch_arrivals_spread_the_rate_exactly() {
        let a = Arrivals::new(ArrivalProcess::Batch, 2.5).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let total: u32 = (0..1000).map(|t| a.sample(t, &mut rng)).sum();
        assert_eq!(total, 2500);
        let b = Arrivals::new(ArrivalProcess::Batch, 3.0).unwrap();
        assert!((0..50).all(|t| b.sample(t, &mut rng) == 3));
    }

    #[test]
    fn uniform_sizes_stay_in_range() {
        let lo = Size::from_f64(0.1).unwrap();
        let hi = Size::from_f64(0.9).unwrap();
        let law = SizeLaw::uniform(lo, hi);
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let n = 200_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let s = law.sample(&mut rng);
            assert!(s >= lo && s <= hi);
            sum += s.as_f64();
        }
        assert!((sum / n as f64 - 0.5).abs() < 0.005);
    }
}
