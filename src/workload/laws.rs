//! Size, service and arrival laws.

use rand::Rng;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand_distr::{Exp1, Poisson};

use super::classes::SizeClasses;
use super::continuous::{self, ContinuousLaw};
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

/// A size law with at most this many values has its waits reported per value
/// ([`SizeLaw::classes`]); one with more, per decile.
pub const ATOM_CLASSES: usize = 16;

/// The law of a job's size R on (0, 1], on the fixed-point grid.
#[derive(Clone, Debug, serde::Serialize)]
pub enum SizeLaw {
    /// Uniform over the grid points of [low, high].
    Uniform {
        /// The smallest size.
        low: Size,
        /// The largest size.
        high: Size,
    },
    /// Finitely many values with probabilities.
    Discrete {
        /// The values.
        values: Vec<Size>,
        /// Their probabilities (summing to 1).
        probs: Vec<f64>,
        #[serde(skip)]
        /// A sampler of the values by their probabilities.
        index: WeightedIndex<f64>,
    },
    /// Each draw is one of the listed values, equally likely (a resampled trace).
    Empirical {
        /// The values, each drawn with probability 1/len.
        values: Vec<Size>,
    },
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
    #[inline(always)]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Size {
        match self {
            SizeLaw::Uniform { low, high } => Size(rng.random_range(low.0..=high.0)),
            _ => self.sample_listed(rng),
        }
    }

    /// [`Self::sample`] for the laws over listed values (out of line: the uniform draw stays
    /// short enough to inline).
    #[inline(never)]
    fn sample_listed<R: Rng + ?Sized>(&self, rng: &mut R) -> Size {
        match self {
            SizeLaw::Uniform { .. } => unreachable!("drawn inline"),
            SizeLaw::Discrete { values, index, .. } => values[index.sample(rng)],
            SizeLaw::Empirical { values } => values[rng.random_range(0..values.len())],
        }
    }

    /// The size classes by which waits are reported ([`crate::sim::waits`]): each value its
    /// own class when the law takes at most [`ATOM_CLASSES`] values (its atoms), else its
    /// deciles (class k holds the sizes between the (k−1)-th and the k-th decile).
    pub fn classes(&self) -> SizeClasses {
        match self {
            SizeLaw::Uniform { low, high } => SizeClasses::new(
                (1..=10u64)
                    .map(|k| Size(low.0 + ((high.0 - low.0) as u128 * k as u128 / 10) as u64))
                    .collect(),
            ),
            SizeLaw::Discrete { values, probs, .. } => {
                let atoms = merge_atoms(values.iter().copied().zip(probs.iter().copied()));
                if atoms.len() <= ATOM_CLASSES {
                    return SizeClasses::new(atoms.iter().map(|a| a.0).collect());
                }
                let mut cum = 0.0;
                let mut bounds = Vec::new();
                let mut k = 1;
                for &(v, p) in &atoms {
                    cum += p;
                    while k <= 10 && cum >= k as f64 / 10.0 - 1e-12 {
                        bounds.push(v);
                        k += 1;
                    }
                }
                bounds.push(atoms[atoms.len() - 1].0);
                SizeClasses::new(bounds)
            }
            SizeLaw::Empirical { values } => {
                let mut sorted = values.clone();
                sorted.sort_unstable();
                let mut distinct = sorted.clone();
                distinct.dedup();
                if distinct.len() <= ATOM_CLASSES {
                    return SizeClasses::new(distinct);
                }
                let n = sorted.len();
                SizeClasses::new((1..=10).map(|k| sorted[(k * n).div_ceil(10) - 1]).collect())
            }
        }
    }

    /// E\[R\], as a fraction of a server.
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
        self.support().min().unwrap_or(Size::ONE)
    }

    /// The largest size the law can draw.
    pub fn max(&self) -> Size {
        self.support().max().unwrap_or(Size::ONE)
    }

    /// The sizes the law can draw, or for a uniform law the two ends of its range.
    fn support(&self) -> Box<dyn Iterator<Item = Size> + '_> {
        match self {
            SizeLaw::Uniform { low, high } => Box::new([*low, *high].into_iter()),
            SizeLaw::Discrete { values, probs, .. } => Box::new(
                values
                    .iter()
                    .zip(probs)
                    .filter(|(_, p)| **p > 0.0)
                    .map(|(v, _)| *v),
            ),
            SizeLaw::Empirical { values } => Box::new(values.iter().copied()),
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

/// The probability above which [`ServiceLaw::reach`] keeps a continuous law's draws (2⁻⁴⁰).
const REACH_TAIL: f64 = 1.0 / (1u64 << 40) as f64;

/// The law of a service time S in slots (S ≥ 1).
#[derive(Clone, Debug, serde::Serialize)]
pub enum ServiceLaw {
    /// Geometric on 1, 2, … with success probability μ = 1/mean per slot (the paper's model).
    /// Sampled as S = 1 + ⌊E / θ⌋ with E ~ Exp(1) and θ = −ln(1 − μ), so P(S > k) = (1 − μ)^k;
    /// `inv_theta` = 1/θ (0 when μ = 1: every draw is 1 slot).
    Geometric {
        /// The mean, slots (1/μ).
        mean: f64,
        /// 1/θ.
        inv_theta: f64,
    },
    /// Always the same number of slots.
    Deterministic(u32),
    /// One of the listed slot counts, with the given probabilities.
    Empirical {
        /// The slot counts.
        values: Vec<u32>,
        /// Their probabilities (summing to 1).
        probs: Vec<f64>,
        #[serde(skip)]
        /// A sampler of the values by their probabilities.
        index: WeightedIndex<f64>,
    },
    /// A continuous time X made whole slots: max(1, ⌈X⌉), at most `u32::MAX`
    /// ([`super::continuous`]).
    Continuous {
        /// The law of X, slots.
        law: ContinuousLaw,
        /// The mean of the slot law ([`ContinuousLaw::slot_mean`]).
        mean: f64,
    },
    /// One of several laws, drawn with the given probabilities: the service time of a job of a
    /// random class ([`super::ClassMix::pooled_service`]).
    Mixture {
        /// The laws.
        laws: Vec<ServiceLaw>,
        /// Their probabilities (summing to 1).
        probs: Vec<f64>,
        #[serde(skip)]
        /// A sampler of the laws by their probabilities.
        index: WeightedIndex<f64>,
    },
}

impl ServiceLaw {
    /// A mixture of `laws` with probabilities `probs` (normalised here).
    pub fn mixture(laws: Vec<ServiceLaw>, probs: Vec<f64>) -> Result<Self, LawError> {
        let sum: f64 = probs.iter().sum();
        let index = WeightedIndex::new(&probs).map_err(|e| LawError::Weights(e.to_string()))?;
        let probs = probs.iter().map(|p| p / sum).collect();
        Ok(ServiceLaw::Mixture { laws, probs, index })
    }

    /// The continuous law `law` made whole slots (its slot mean computed here).
    pub fn continuous(law: ContinuousLaw) -> Self {
        ServiceLaw::Continuous {
            law,
            mean: law.slot_mean(),
        }
    }

    /// Geometric with the given mean (≥ 1 slot; checked by the caller).
    pub fn geometric(mean: f64) -> Self {
        assert!(mean >= 1.0, "mean ≥ 1 checked by the caller");
        // θ = −ln(1 − μ) = ∞ when μ = 1: every draw is then 1 slot, as it must be.
        let inv_theta = -1.0 / (-1.0 / mean).ln_1p();
        ServiceLaw::Geometric { mean, inv_theta }
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
    #[inline(always)]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        match self {
            ServiceLaw::Geometric { inv_theta, .. } => {
                let e: f64 = rng.sample(Exp1);
                // saturating float-to-int cast
                (1.0 + e * inv_theta).min(u32::MAX as f64) as u32
            }
            ServiceLaw::Deterministic(v) => *v,
            ServiceLaw::Empirical { .. }
            | ServiceLaw::Continuous { .. }
            | ServiceLaw::Mixture { .. } => self.sample_listed(rng),
        }
    }

    /// [`Self::sample`] for an empirical or a continuous law (out of line).
    #[inline(never)]
    fn sample_listed<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        match self {
            ServiceLaw::Empirical { values, index, .. } => values[index.sample(rng)],
            ServiceLaw::Continuous { law, .. } => law.sample(rng),
            ServiceLaw::Mixture { laws, index, .. } => laws[index.sample(rng)].sample(rng),
            _ => unreachable!("drawn inline"),
        }
    }

    /// The longest service time the law draws in practice, slots: the largest value of an
    /// empirical or deterministic law; for a geometric or a continuous law the value a draw
    /// exceeds with probability at most 2⁻⁴⁰ (for a geometric law about 27.7 means; beyond it a
    /// run would need 10¹² draws to see one; for a heavy tail far more: a Fréchet law of
    /// α = 1.5 reaches 10⁸ means), at most `u32::MAX`, where draws saturate.
    pub fn reach(&self) -> u64 {
        match self {
            ServiceLaw::Geometric { inv_theta, .. } => {
                (1.0 + 40.0 * std::f64::consts::LN_2 * inv_theta).min(u32::MAX as f64) as u64
            }
            ServiceLaw::Deterministic(v) => *v as u64,
            ServiceLaw::Empirical { values, .. } => {
                values.iter().copied().max().unwrap_or(1) as u64
            }
            ServiceLaw::Continuous { law, .. } => {
                continuous::slots(law.upper_quantile(REACH_TAIL)) as u64
            }
            ServiceLaw::Mixture { laws, .. } => laws.iter().map(Self::reach).max().unwrap_or(1),
        }
    }

    /// E\[S\] in slots (1/μ; for a continuous law the mean of its whole slots).
    pub fn mean(&self) -> f64 {
        match self {
            ServiceLaw::Geometric { mean, .. } | ServiceLaw::Continuous { mean, .. } => *mean,
            ServiceLaw::Deterministic(v) => *v as f64,
            ServiceLaw::Empirical { values, probs, .. } => {
                values.iter().zip(probs).map(|(&v, p)| v as f64 * p).sum()
            }
            ServiceLaw::Mixture { laws, probs, .. } => {
                laws.iter().zip(probs).map(|(l, p)| l.mean() * p).sum()
            }
        }
    }
}

/// How many jobs arrive in a slot, given the rate λ (jobs per slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
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
///
/// Sampled slot by slot with arrivals rather than slot by slot: [`Arrivals::next_batch`] draws
/// how many empty slots come before the next arrival and how many jobs it brings, so the slot
/// loop can skip the empty slots. For Poisson and Bernoulli batches the number of empty slots
/// is geometric, P(G ≥ g) = P(A = 0)^g, drawn as G = ⌊E / θ⌋ with E ~ Exp(1) and
/// θ = −ln P(A = 0) (θ = λ for Poisson, −ln(1 − λ) for Bernoulli); the batch size then has the
/// law of A given A ≥ 1 (zero-truncated Poisson; one job for Bernoulli). The slots and batch
/// sizes have exactly the law of independent per-slot draws.
#[derive(Clone, Debug)]
pub struct Arrivals {
    process: ArrivalProcess,
    rate: f64,
    /// 1 / θ with θ = −ln P(A = 0) per slot: the mean of E / θ (0 when every slot has an
    /// arrival). A product, not a quotient, on the hot path.
    mean_gap: f64,
    /// P(A = 1 | A ≥ 1) = λ / (e^λ − 1), for Poisson batches.
    one_given_some: f64,
    poisson: Option<Poisson<f64>>,
}

/// Below this rate a zero-truncated Poisson batch is drawn by inversion, above it by drawing
/// Poisson batches until one is non-empty (accepted with probability ≥ 1 − e^−4).
const TRUNCATED_INVERSION_BELOW: f64 = 4.0;

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
        let empty_rate = match process {
            ArrivalProcess::Poisson => rate,
            ArrivalProcess::Bernoulli => -(-rate).ln_1p(),
            ArrivalProcess::Batch => f64::NAN,
        };
        Ok(Arrivals {
            process,
            rate,
            mean_gap: empty_rate.recip(),
            one_given_some: rate / rate.exp_m1(),
            poisson,
        })
    }

    /// λ, jobs per slot.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The first slot ≥ `from` with arrivals and the number of jobs arriving in it; `None` if
    /// no job ever arrives (λ = 0, or a slot past the end of time).
    #[inline(always)]
    pub fn next_batch<R: Rng + ?Sized>(&self, from: u64, rng: &mut R) -> Option<(u64, u32)> {
        if self.process == ArrivalProcess::Batch {
            return self.next_fixed_batch(from);
        }
        if self.rate == 0.0 {
            return None;
        }
        let e: f64 = rng.sample(Exp1);
        // saturating float-to-int cast; θ = ∞ gives 0 empty slots
        let gap = (e * self.mean_gap) as u64;
        let slot = from.checked_add(gap).filter(|&s| s < u64::MAX)?;
        let n = match &self.poisson {
            Some(p) => self.truncated_poisson(p, rng),
            None => 1,
        };
        Some((slot, n))
    }

    /// [`Self::next_batch`] for deterministic batches (kept out of line: the random
    /// processes' path stays short).
    #[inline(never)]
    fn next_fixed_batch(&self, from: u64) -> Option<(u64, u32)> {
        if self.rate == 0.0 {
            return None;
        }
        let count =
            |t: u64| ((self.rate * (t + 1) as f64).floor() - (self.rate * t as f64).floor()) as u32;
        // about the first t with ⌊λ(t+1)⌋ > ⌊λ·from⌋, started a little early against
        // rounding, then found by the per-slot formula itself
        let next = (self.rate * from as f64).floor() + 1.0;
        let mut t = ((next / self.rate).ceil() - 3.0).max(from as f64) as u64;
        while count(t) == 0 {
            t = t.checked_add(1)?;
        }
        Some((t, count(t)))
    }

    /// A Poisson(λ) batch conditioned on at least one job.
    #[inline(always)]
    fn truncated_poisson<R: Rng + ?Sized>(&self, p: &Poisson<f64>, rng: &mut R) -> u32 {
        if self.rate >= TRUNCATED_INVERSION_BELOW {
            return Self::truncated_poisson_by_rejection(p, rng);
        }
        // inversion: P(A = k | A ≥ 1) = λ^k / (k! (e^λ − 1)); one job in most batches
        let u: f64 = rng.random();
        if u < self.one_given_some {
            return 1;
        }
        self.truncated_poisson_tail(u)
    }

    /// The inversion of [`Self::truncated_poisson`] past k = 1, for `u` ≥ P(A = 1 | A ≥ 1).
    #[inline(never)]
    fn truncated_poisson_tail(&self, u: f64) -> u32 {
        let lambda = self.rate;
        let mut k = 1u32;
        let mut pk = self.one_given_some;
        let mut cdf = pk;
        while u >= cdf && pk > 0.0 {
            k += 1;
            pk *= lambda / k as f64;
            cdf += pk;
        }
        k
    }

    /// Large rates: Poisson batches drawn until one is non-empty.
    #[inline(never)]
    fn truncated_poisson_by_rejection<R: Rng + ?Sized>(p: &Poisson<f64>, rng: &mut R) -> u32 {
        loop {
            let n = p.sample(rng) as u32;
            if n > 0 {
                return n;
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

    /// Every slot of [0, end) with its batch size (0 for empty slots), from the gap draws.
    fn per_slot(a: &Arrivals, end: u64, rng: &mut Pcg64Mcg) -> Vec<u32> {
        let mut counts = vec![0; end as usize];
        let mut from = 0;
        while let Some((t, n)) = a.next_batch(from, rng) {
            if t >= end {
                break;
            }
            assert!(n >= 1);
            counts[t as usize] = n;
            from = t + 1;
        }
        counts
    }

    #[test]
    fn batch_arrivals_spread_the_rate_exactly() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        for rate in [2.5, 3.0, 0.3, 0.01, 1.0 / 3.0, 0.999] {
            let a = Arrivals::new(ArrivalProcess::Batch, rate).unwrap();
            let counts = per_slot(&a, 10_000, &mut rng);
            for (t, &n) in counts.iter().enumerate() {
                let want = (rate * (t + 1) as f64).floor() - (rate * t as f64).floor();
                assert_eq!(n as f64, want, "rate {rate}, slot {t}");
            }
        }
        let b = Arrivals::new(ArrivalProcess::Batch, 3.0).unwrap();
        assert!(per_slot(&b, 50, &mut rng).iter().all(|&n| n == 3));
    }

    #[test]
    fn gap_draws_have_the_per_slot_law() {
        // The batch size of a slot, seen slot by slot, is Poisson(λ) (Bernoulli(λ)): check
        // P(A = k) for k = 0, 1, 2, 3 and the mean over 2·10^6 slots, 5-sigma bands, across
        // rates on both sides of the inversion threshold.
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let n = 2_000_000u64;
        for (process, rate) in [
            (ArrivalProcess::Poisson, 0.02),
            (ArrivalProcess::Poisson, 0.7),
            (ArrivalProcess::Poisson, 3.9),
            (ArrivalProcess::Poisson, 4.0),
            (ArrivalProcess::Poisson, 30.0),
            (ArrivalProcess::Bernoulli, 0.05),
            (ArrivalProcess::Bernoulli, 0.9),
            (ArrivalProcess::Bernoulli, 1.0),
        ] {
            let a = Arrivals::new(process, rate).unwrap();
            let counts = per_slot(&a, n, &mut rng);
            let pmf = |k: u32| match process {
                ArrivalProcess::Poisson => (-rate + k as f64 * rate.ln()
                    - (1..=k).map(|i| (i as f64).ln()).sum::<f64>())
                .exp(),
                _ => match k {
                    0 => 1.0 - rate,
                    1 => rate,
                    _ => 0.0,
                },
            };
            for k in 0..4u32 {
                let p = pmf(k);
                let f = counts.iter().filter(|&&c| c == k).count() as f64 / n as f64;
                let band = 5.0 * (p * (1.0 - p) / n as f64).sqrt() + 1e-9;
                assert!(
                    (f - p).abs() <= band,
                    "{process:?} λ={rate}: P(A={k}) {f} vs {p}"
                );
            }
            let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / n as f64;
            let var = if process == ArrivalProcess::Poisson {
                rate
            } else {
                rate * (1.0 - rate)
            };
            let band = 5.0 * (var / n as f64).sqrt() + 1e-9;
            assert!(
                (mean - rate).abs() <= band,
                "{process:?} λ={rate}: mean {mean}"
            );
        }
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
