//! Continuous service-time laws (uniform, lognormal, bounded Pareto, Fréchet) and the rule that
//! makes their draws whole slots.
//!
//! A draw X (a real number of slots) becomes `S = max(1, ⌈X⌉)` slots, at most `u32::MAX`: the
//! job occupies every slot it touches, and at least one. The slot law's mean is then
//! `E[S] = 1 + Σ_{k=1}^{u32::MAX − 1} P(X > k)`, which [`ContinuousLaw::slot_mean`] computes (an
//! exact sum over the first 2^20 slots, the rest as an integral of the survival function with
//! the Euler–Maclaurin end correction): about `E[X] + 1/2` for a law spread over many slots, and
//! exactly 1 for a law below one slot. The loads packlab sweeps and every ρ* it computes use
//! this slot mean, never `E[X]`.

use rand::Rng;
use rand_distr::StandardNormal;
use statrs::function::erf::erfc;

/// The longest service, slots: draws beyond it are cut to it.
pub const SLOT_CAP: f64 = u32::MAX as f64;

/// A continuous law of a service time X, in slots (before rounding to whole slots).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum ContinuousLaw {
    /// Uniform on [low, high], 0 ≤ low < high.
    Uniform {
        /// The shortest time, slots.
        low: f64,
        /// The longest time, slots.
        high: f64,
    },
    /// ln X ~ N(mu, sigma²).
    LogNormal {
        /// The mean of ln X.
        mu: f64,
        /// The standard deviation of ln X (> 0).
        sigma: f64,
    },
    /// Bounded Pareto on [low, high]: P(X > x) ∝ x^−α − high^−α, with 0 < low < high, α > 0.
    BoundedPareto {
        /// The tail index α.
        alpha: f64,
        /// The smallest time, slots.
        low: f64,
        /// The largest time, slots.
        high: f64,
    },
    /// Fréchet: P(X ≤ x) = exp(−(x / scale)^−α), α > 1 (so that the mean is finite).
    Frechet {
        /// The tail index α.
        alpha: f64,
        /// The scale, slots.
        scale: f64,
    },
}

impl ContinuousLaw {
    /// A lognormal law of mean `mean` and coefficient of variation `cv` (> 0): σ² = ln(1 + cv²),
    /// μ = ln mean − σ²/2.
    pub fn lognormal_mean_cv(mean: f64, cv: f64) -> Self {
        let s2 = cv.mul_add(cv, 1.0).ln();
        ContinuousLaw::LogNormal {
            mu: mean.ln() - s2 / 2.0,
            sigma: s2.sqrt(),
        }
    }

    /// A Fréchet law of tail index `alpha` (> 1) and mean `mean`: scale = mean / Γ(1 − 1/α).
    pub fn frechet_mean(alpha: f64, mean: f64) -> Self {
        ContinuousLaw::Frechet {
            alpha,
            scale: mean / statrs::function::gamma::gamma(1.0 - 1.0 / alpha),
        }
    }

    /// E\[X\], slots (before rounding).
    pub fn mean(&self) -> f64 {
        match *self {
            ContinuousLaw::Uniform { low, high } => (low + high) / 2.0,
            ContinuousLaw::LogNormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            ContinuousLaw::BoundedPareto { alpha, low, high } => {
                let r = (low / high).powf(alpha);
                if (alpha - 1.0).abs() < 1e-12 {
                    low * (high / low).ln() / (1.0 - r)
                } else {
                    alpha * low / (alpha - 1.0) * (1.0 - (low / high).powf(alpha - 1.0)) / (1.0 - r)
                }
            }
            ContinuousLaw::Frechet { alpha, scale } => {
                scale * statrs::function::gamma::gamma(1.0 - 1.0 / alpha)
            }
        }
    }

    /// P(X > x).
    pub fn survival(&self, x: f64) -> f64 {
        match *self {
            ContinuousLaw::Uniform { low, high } => ((high - x) / (high - low)).clamp(0.0, 1.0),
            ContinuousLaw::LogNormal { mu, sigma } => {
                if x <= 0.0 {
                    1.0
                } else {
                    0.5 * erfc((x.ln() - mu) / (sigma * std::f64::consts::SQRT_2))
                }
            }
            ContinuousLaw::BoundedPareto { alpha, low, high } => {
                if x <= low {
                    1.0
                } else if x >= high {
                    0.0
                } else {
                    let r = (low / high).powf(alpha);
                    (((low / x).powf(alpha) - r) / (1.0 - r)).clamp(0.0, 1.0)
                }
            }
            ContinuousLaw::Frechet { alpha, scale } => {
                if x <= 0.0 {
                    1.0
                } else {
                    -(-(x / scale).powf(-alpha)).exp_m1()
                }
            }
        }
    }

    /// The x with P(X > x) = `p` (0 < p < 1).
    pub fn upper_quantile(&self, p: f64) -> f64 {
        match *self {
            ContinuousLaw::Uniform { low, high } => high - p * (high - low),
            ContinuousLaw::LogNormal { mu, sigma } => {
                // by bisection on the survival function (monotone), in ln x
                let (mut a, mut b) = (mu - 40.0 * sigma, mu + 40.0 * sigma);
                for _ in 0..200 {
                    let m = (a + b) / 2.0;
                    if self.survival(m.exp()) > p {
                        a = m;
                    } else {
                        b = m;
                    }
                }
                b.exp()
            }
            ContinuousLaw::BoundedPareto { alpha, low, high } => {
                let r = (low / high).powf(alpha);
                low * (p * (1.0 - r) + r).powf(-1.0 / alpha)
            }
            ContinuousLaw::Frechet { alpha, scale } => scale * (-(-p).ln_1p()).powf(-1.0 / alpha),
        }
    }

    /// One draw of X, slots.
    #[inline]
    pub fn sample_x<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match *self {
            ContinuousLaw::Uniform { low, high } => low + (high - low) * rng.random::<f64>(),
            ContinuousLaw::LogNormal { mu, sigma } => {
                let z: f64 = rng.sample(StandardNormal);
                (mu + sigma * z).exp()
            }
            ContinuousLaw::BoundedPareto { .. } | ContinuousLaw::Frechet { .. } => {
                // inversion of the survival function at a uniform in (0, 1]
                let u = 1.0 - rng.random::<f64>();
                self.upper_quantile(u.min(1.0 - f64::EPSILON))
            }
        }
    }

    /// One draw made whole slots: max(1, ⌈X⌉), at most `u32::MAX`.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        slots(self.sample_x(rng))
    }

    /// The mean of the slot law max(1, ⌈X⌉) (cut at `u32::MAX`), slots.
    pub fn slot_mean(&self) -> f64 {
        // E[S] = Σ_{k ≥ 0} P(S > k) = 1 + Σ_{k=1}^{CAP−1} P(X > k)
        const EXACT: u64 = 1 << 20;
        let sf = |x: f64| self.survival(x);
        let mut sum = 1.0;
        let mut k = 1u64;
        while k < EXACT {
            let s = sf(k as f64);
            if s == 0.0 {
                return sum;
            }
            sum += s;
            k += 1;
        }
        // Σ_{k=K}^{N} S(k) ≈ ∫_K^N S + (S(K) + S(N))/2 with N = CAP − 1: the integral by
        // Simpson's rule on a logarithmic grid, split at the law's bounds
        let (a, b) = (EXACT as f64, SLOT_CAP - 1.0);
        let mut cuts = vec![a];
        if let ContinuousLaw::Uniform { high, .. } | ContinuousLaw::BoundedPareto { high, .. } =
            *self
            && high > a
            && high < b
        {
            cuts.push(high);
        }
        cuts.push(b);
        let mut integral = 0.0;
        for w in cuts.windows(2) {
            integral += log_simpson(&sf, w[0], w[1]);
        }
        sum + integral + (sf(a) + sf(b)) / 2.0
    }
}

/// ∫_a^b f(x) dx by Simpson's rule in u = ln x (f(x) x du), 4096 intervals.
fn log_simpson(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const N: usize = 4096;
    let (la, lb) = (a.ln(), b.ln());
    let h = (lb - la) / N as f64;
    let g = |u: f64| {
        let x = u.exp();
        f(x) * x
    };
    let mut s = g(la) + g(lb);
    for i in 1..N {
        s += g(la + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

/// A time of `x` slots as whole slots: max(1, ⌈x⌉), at most `u32::MAX` (NaN: 1).
#[inline]
pub fn slots(x: f64) -> u32 {
    // saturating float-to-int cast; NaN casts to 0
    (x.ceil() as u32).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    /// The slot mean by brute force over the slots, for laws whose support ends early.
    fn brute(law: &ContinuousLaw, upto: u64) -> f64 {
        1.0 + (1..upto).map(|k| law.survival(k as f64)).sum::<f64>()
    }

    #[test]
    fn whole_slots_round_up_with_at_least_one() {
        assert_eq!(slots(0.0), 1);
        assert_eq!(slots(0.3), 1);
        assert_eq!(slots(1.0), 1);
        assert_eq!(slots(1.0001), 2);
        assert_eq!(slots(7.5), 8);
        assert_eq!(slots(1e30), u32::MAX);
        assert_eq!(slots(f64::NAN), 1);
    }

    #[test]
    fn uniform_slot_mean_has_its_closed_form() {
        // X ~ U[0, 10]: S = ⌈X⌉ ∨ 1 takes 1 … 10 each with probability 1/10 → 5.5
        let law = ContinuousLaw::Uniform {
            low: 0.0,
            high: 10.0,
        };
        assert!((law.slot_mean() - 5.5).abs() < 1e-12);
        // X ~ U[2, 4]: S = 3 or 4, equally likely
        let law = ContinuousLaw::Uniform {
            low: 2.0,
            high: 4.0,
        };
        assert!((law.slot_mean() - 3.5).abs() < 1e-12);
    }

    #[test]
    fn slot_means_agree_with_draws_and_with_brute_sums() {
        let laws = [
            ContinuousLaw::lognormal_mean_cv(20.0, 2.0),
            ContinuousLaw::BoundedPareto {
                alpha: 1.5,
                low: 2.0,
                high: 5000.0,
            },
            ContinuousLaw::frechet_mean(3.0, 10.0),
            ContinuousLaw::Uniform {
                low: 0.5,
                high: 30.25,
            },
        ];
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        for law in laws {
            let m = law.slot_mean();
            let n = 400_000;
            let draws: Vec<f64> = (0..n).map(|_| law.sample(&mut rng) as f64).collect();
            let mean = draws.iter().sum::<f64>() / n as f64;
            let var = draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let band = 5.0 * (var / n as f64).sqrt();
            assert!(
                (mean - m).abs() <= band,
                "{law:?}: drawn {mean} vs {m} ± {band}"
            );
            // within a slot of the continuous mean, above it
            assert!(m >= law.mean() && m <= law.mean() + 1.0, "{law:?}: {m}");
        }
        // a law whose survival is still positive at 2^20: the integral part matches the sum
        let law = ContinuousLaw::BoundedPareto {
            alpha: 0.5,
            low: 1.0,
            high: 4e6,
        };
        let b = brute(&law, 4_000_001);
        assert!(
            (law.slot_mean() - b).abs() < 1e-9 * b,
            "{} vs {b}",
            law.slot_mean()
        );
    }

    #[test]
    fn closed_form_means_match_their_definitions() {
        // Fréchet with mean 10: the scale makes E[X] = 10
        let f = ContinuousLaw::frechet_mean(2.5, 10.0);
        assert!((f.mean() - 10.0).abs() < 1e-9);
        let l = ContinuousLaw::lognormal_mean_cv(7.0, 0.5);
        assert!((l.mean() - 7.0).abs() < 1e-9);
        // the upper quantile inverts the survival function
        for law in [f, l] {
            for p in [0.5, 1e-3, 1e-9] {
                let x = law.upper_quantile(p);
                assert!((law.survival(x) - p).abs() < 1e-6 * p, "{law:?} at {p}");
            }
        }
    }
}
