//! Size, service and arrival laws.

use rand::Rng;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand_distr::{Geometric, Poisson};

use crate::model::Size;

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
    pub fn discrete(values: Vec<Size>, probs: Vec<f64>) -> Result<Self, String> {
        let sum: f64 = probs.iter().sum();
        let index = WeightedIndex::new(&probs).map_err(|e| e.to_string())?;
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
    Geometric { mean: f64, failures: Geometric },
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
        let failures = Geometric::new(1.0 / mean).expect("mean ≥ 1 checked by the caller");
        ServiceLaw::Geometric { mean, failures }
    }

    /// Empirical law over slot counts ≥ 1.
    pub fn empirical(values: Vec<u32>, probs: Vec<f64>) -> Result<Self, String> {
        let sum: f64 = probs.iter().sum();
        let index = WeightedIndex::new(&probs).map_err(|e| e.to_string())?;
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
            ServiceLaw::Geometric { failures, .. } => {
                (1 + failures.sample(rng)).min(u32::MAX as u64) as u32
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
    pub fn new(process: ArrivalProcess, rate: f64) -> Result<Self, String> {
        if !rate.is_finite() || rate < 0.0 {
            return Err(format!("a finite rate ≥ 0, got {rate}"));
        }
        if process == ArrivalProcess::Bernoulli && rate > 1.0 {
            return Err(format!(
                "a rate ≤ 1 job per slot for Bernoulli arrivals, got {rate}"
            ));
        }
        let poisson = if process == ArrivalProcess::Poisson && rate > 0.0 {
            Some(Poisson::new(rate).map_err(|e| e.to_string())?)
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
