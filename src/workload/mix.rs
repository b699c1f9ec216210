//! Job classes: a workload whose jobs come in classes, each with its own size law and its own
//! service law (the multiserver-job model's class-dependent service).
//!
//! A job's class is drawn first, from its own stream; its size then comes from the sizes'
//! stream and its service from the service's stream, by the class's laws. The loads and ρ* of
//! such a workload are those of its *work-weighted* size law ([`ClassMix::work_weighted`]): the
//! sizes with probabilities `pᵢ·E[Sᵢ] / E[S]`, so that `λ·E[R]·E[S]` with this law and the
//! mean service `E[S] = Σ pᵢ·E[Sᵢ]` is the offered work `λ·Σ pᵢ·E[Rᵢ]·E[Sᵢ]`, and the
//! configuration LP sees each size's work rate `λ·pᵢ·E[Sᵢ]`.

use rand::Rng;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;

use super::{LawError, ServiceLaw, SizeLaw};
use crate::model::Size;

/// Most classes a workload may have (a job's class is a byte).
pub const MAX_CLASSES: usize = 64;

/// One class of jobs: how likely a job is of it, its sizes and its service.
#[derive(Clone, Debug, serde::Serialize)]
pub struct JobClass {
    /// The probability that a job is of this class.
    pub prob: f64,
    /// Its jobs' sizes (one size, or a law over finitely many).
    pub sizes: SizeLaw,
    /// Its jobs' service times, slots.
    pub service: ServiceLaw,
}

/// The classes of a workload, ready to sample.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ClassMix {
    classes: Vec<JobClass>,
    #[serde(skip)]
    index: WeightedIndex<f64>,
}

impl ClassMix {
    /// The classes (1 to [`MAX_CLASSES`], each size law over finitely many sizes; the
    /// probabilities are normalised here).
    pub fn new(mut classes: Vec<JobClass>) -> Result<Self, LawError> {
        if classes.is_empty() || classes.len() > MAX_CLASSES {
            return Err(LawError::Weights(format!(
                "1 to {MAX_CLASSES} classes, not {}",
                classes.len()
            )));
        }
        let index = WeightedIndex::new(classes.iter().map(|c| c.prob))
            .map_err(|e| LawError::Weights(e.to_string()))?;
        let sum: f64 = classes.iter().map(|c| c.prob).sum();
        for c in &mut classes {
            c.prob /= sum;
        }
        Ok(ClassMix { classes, index })
    }

    /// The classes, in the order written.
    pub fn classes(&self) -> &[JobClass] {
        &self.classes
    }

    /// One job: its class, size and service, each from its stream.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(
        &self,
        class_rng: &mut R,
        size_rng: &mut R,
        service_rng: &mut R,
    ) -> (u8, Size, u32) {
        let k = self.index.sample(class_rng);
        let c = &self.classes[k];
        (
            k as u8,
            c.sizes.sample(size_rng),
            c.service.sample(service_rng),
        )
    }

    /// E\[S\] = Σ pᵢ·E\[Sᵢ\], slots.
    pub fn mean_service(&self) -> f64 {
        self.classes.iter().map(|c| c.prob * c.service.mean()).sum()
    }

    /// The service time of a job of a random class: the mixture of the classes' laws
    /// (mean [`ClassMix::mean_service`], reach the longest class's).
    pub fn pooled_service(&self) -> ServiceLaw {
        ServiceLaw::mixture(
            self.classes.iter().map(|c| c.service.clone()).collect(),
            self.classes.iter().map(|c| c.prob).collect(),
        )
        .expect("normalised probabilities")
    }

    /// The work-weighted size law: each class's sizes with probability `pᵢ·E[Sᵢ] / E[S]`
    /// times their probability within the class (see the module's documentation).
    pub fn work_weighted(&self) -> SizeLaw {
        let total = self.mean_service();
        let mut values = Vec::new();
        let mut probs = Vec::new();
        for c in &self.classes {
            let w = c.prob * c.service.mean() / total;
            for (size, p) in c.sizes.atoms().expect("finite class sizes") {
                values.push(size);
                probs.push(w * p);
            }
        }
        SizeLaw::discrete(values, probs).expect("positive weights")
    }

    /// The same classes with their probabilities set so that class `i` brings the share
    /// `erlangs[i]` of the offered load in Erlangs, Σ λ·pᵢ·E\[Sᵢ\] (the jobs in service on
    /// average): `pᵢ ∝ erlangs[i] / E[Sᵢ]`, a region map's ray in the plane of the classes'
    /// λᵢ·E\[Sᵢ\]. A class of share 0 is kept with probability 0, so that a job's class index
    /// stays the class's place in the file.
    pub fn reweighted(&self, erlangs: &[f64]) -> Result<Self, LawError> {
        if erlangs.len() != self.classes.len() {
            return Err(LawError::Weights(format!(
                "{} shares for {} classes",
                erlangs.len(),
                self.classes.len()
            )));
        }
        let classes = self
            .classes
            .iter()
            .zip(erlangs)
            .map(|(c, &w)| JobClass {
                prob: w / c.service.mean(),
                ..c.clone()
            })
            .collect();
        ClassMix::new(classes)
    }

    /// Each class's largest size (the by-class tables' label).
    pub fn largest_sizes(&self) -> Vec<Size> {
        self.classes.iter().map(|c| c.sizes.max()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn two() -> ClassMix {
        let s = |x: f64| SizeLaw::discrete(vec![Size::from_f64(x).unwrap()], vec![1.0]).unwrap();
        ClassMix::new(vec![
            JobClass {
                prob: 3.0,
                sizes: s(0.0625),
                service: ServiceLaw::geometric(40.0),
            },
            JobClass {
                prob: 1.0,
                sizes: s(1.0),
                service: ServiceLaw::Deterministic(4),
            },
        ])
        .unwrap()
    }

    #[test]
    fn the_work_weighted_law_carries_the_offered_work() {
        let m = two();
        // E[S] = 0.75·40 + 0.25·4 = 31
        assert!((m.mean_service() - 31.0).abs() < 1e-12);
        // offered work per job: 0.75·0.0625·40 + 0.25·1·4 = 2.875 = E_w[R]·E[S]
        let w = m.work_weighted();
        assert!((w.mean() * m.mean_service() - 2.875).abs() < 1e-9);
        assert!((m.pooled_service().mean() - 31.0).abs() < 1e-12);
    }

    #[test]
    fn reweighting_sets_each_class_share_of_the_erlangs() {
        let m = two().reweighted(&[0.25, 0.75]).unwrap();
        // p ∝ (0.25/40, 0.75/4): the shares of λ·pᵢ·E[Sᵢ] are the ones asked for
        let e = m.mean_service();
        let shares: Vec<f64> = m
            .classes()
            .iter()
            .map(|c| c.prob * c.service.mean() / e)
            .collect();
        assert!((shares[0] - 0.25).abs() < 1e-12 && (shares[1] - 0.75).abs() < 1e-12);
        // a class of share 0 keeps its place with probability 0
        let axis = two().reweighted(&[0.0, 1.0]).unwrap();
        assert_eq!(axis.classes()[0].prob, 0.0);
        let mut r: Vec<Pcg64Mcg> = (4..7).map(Pcg64Mcg::seed_from_u64).collect();
        let [a, b, c] = &mut r[..] else {
            unreachable!()
        };
        assert!((0..1000).all(|_| axis.sample(a, b, c).0 == 1));
        assert!(two().reweighted(&[0.0, 0.0]).is_err());
        assert!(two().reweighted(&[1.0]).is_err());
    }

    #[test]
    fn each_class_draws_its_own_sizes_and_service() {
        let m = two();
        let (mut a, mut b, mut c) = (
            Pcg64Mcg::seed_from_u64(1),
            Pcg64Mcg::seed_from_u64(2),
            Pcg64Mcg::seed_from_u64(3),
        );
        let n = 100_000;
        let mut small = 0;
        for _ in 0..n {
            let (k, size, service) = m.sample(&mut a, &mut b, &mut c);
            if k == 0 {
                small += 1;
                assert_eq!(size, Size::from_f64(0.0625).unwrap());
            } else {
                assert_eq!((size, service), (Size::ONE, 4));
            }
        }
        let p = small as f64 / n as f64;
        assert!((p - 0.75).abs() < 5.0 * (0.75f64 * 0.25 / n as f64).sqrt());
    }
}
