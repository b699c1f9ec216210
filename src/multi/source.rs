//! Sources of multi-resource jobs: i.i.d. draws from a list of request vectors, single-resource
//! sources seen as vectors, and replayed traces.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::VJob;
use crate::constraints::JobClasses;
use crate::model::Job;
use crate::packing::snapshot::Resources;
use crate::rng::Streams;
use crate::workload::Source;
use crate::workload::replay::TraceSource;
use crate::workload::{ArrivalClock, Arrivals, JobSource, ServiceLaw};

/// Jobs whose requests are drawn uniformly from a list of request vectors (e.g. every task of a
/// packing snapshot), with service times and arrivals from their laws. Three streams per run
/// seed, as [`JobSource`]: every policy at a point sees the same jobs.
#[derive(Clone, Debug)]
pub struct VectorJobSource {
    requests: Vec<Resources>,
    /// With [`VectorJobSource::weighted`]: the cumulative weights, drawn against.
    cumulative: Option<Vec<f64>>,
    service: ServiceLaw,
    clock: ArrivalClock,
    streams: Streams,
    next_id: u64,
    work: u128,
}

impl VectorJobSource {
    /// `requests` must be non-empty.
    pub fn new(
        requests: Vec<Resources>,
        service: ServiceLaw,
        arrivals: Arrivals,
        run_seed: u64,
    ) -> Self {
        assert!(!requests.is_empty(), "no request vectors to draw from");
        let mut streams = Streams::new(run_seed);
        VectorJobSource {
            requests,
            cumulative: None,
            service,
            clock: ArrivalClock::new(arrivals, &mut streams.arrivals),
            streams,
            next_id: 0,
            work: 0,
        }
    }
}

impl VectorJobSource {
    /// Draws request k with probability `weights[k]` / Σ weights instead of uniformly (one
    /// draw from the same stream per job). `weights` must have one entry per request vector,
    /// each ≥ 0, with a positive sum.
    pub fn weighted(mut self, weights: &[f64]) -> Self {
        assert_eq!(
            weights.len(),
            self.requests.len(),
            "one weight per request vector"
        );
        let mut sum = 0.0;
        let cumulative: Vec<f64> = weights
            .iter()
            .map(|&w| {
                assert!(w >= 0.0, "weights ≥ 0");
                sum += w;
                sum
            })
            .collect();
        assert!(sum > 0.0, "a positive weight");
        self.cumulative = Some(cumulative);
        self
    }

    /// The index of the next job's request vector.
    fn draw(&mut self) -> usize {
        match &self.cumulative {
            None => self.streams.sizes.random_range(0..self.requests.len()),
            Some(c) => {
                let u = self.streams.sizes.random::<f64>() * c[c.len() - 1];
                c.partition_point(|&x| x <= u).min(c.len() - 1)
            }
        }
    }
}

impl Source<VJob> for VectorJobSource {
    fn batch(&mut self, t: u64, out: &mut Vec<VJob>) {
        let n = self.clock.take(t, &mut self.streams.arrivals);
        for _ in 0..n {
            let k = self.draw();
            let req = self.requests[k];
            let service = self.service.sample(&mut self.streams.service);
            out.push(VJob {
                id: self.next_id,
                req,
                service,
                arrival: t,
                strict: false,
                class: 0,
            });
            self.next_id += 1;
            self.work += req[0] as u128;
        }
    }
    fn arrived(&self) -> u64 {
        self.next_id
    }
    fn arrived_work(&self) -> u128 {
        self.work
    }
    fn next_arrival(&self) -> u64 {
        self.clock.next_slot()
    }
}

/// A single-resource source whose jobs are vectors (size, 0, 0).
pub struct ScalarAsVector<S> {
    source: S,
    /// The batch as single-resource jobs, reused from slot to slot.
    jobs: Vec<Job>,
}

impl<S> ScalarAsVector<S> {
    /// The jobs of `source`, each with its size as the request of the first resource.
    pub fn new(source: S) -> Self {
        ScalarAsVector {
            source,
            jobs: Vec::new(),
        }
    }
}

impl Source<VJob> for ScalarAsVector<JobSource> {
    fn batch(&mut self, t: u64, out: &mut Vec<VJob>) {
        self.jobs.clear();
        self.source.batch(t, &mut self.jobs);
        out.extend(self.jobs.iter().map(|j| VJob {
            id: j.id,
            req: [j.size.0, 0, 0],
            service: j.service,
            arrival: j.arrival,
            strict: false,
            class: 0,
        }));
    }
    fn arrived(&self) -> u64 {
        self.source.arrived()
    }
    fn arrived_work(&self) -> u128 {
        self.source.arrived_work()
    }
    fn next_arrival(&self) -> u64 {
        self.source.next_arrival()
    }
}

impl Source<VJob> for TraceSource {
    fn batch(&mut self, t: u64, out: &mut Vec<VJob>) {
        self.each_in_slot(t, |id, j| {
            out.push(VJob {
                id,
                req: [j.req[0].0, j.req[1].0, 0],
                service: j.service,
                arrival: t,
                strict: false,
                class: 0,
            })
        });
    }
    fn arrived(&self) -> u64 {
        TraceSource::arrived(self)
    }
    fn arrived_work(&self) -> u128 {
        <TraceSource as Source<Job>>::arrived_work(self)
    }
    fn next_arrival(&self) -> u64 {
        self.next_slot()
    }
}

/// Something set on every job of a source after it is drawn ([`Marked`]).
pub trait Mark {
    /// Sets what this mark sets on `job`.
    fn mark(&mut self, job: &mut VJob);
}

/// Another source's jobs, each marked by `M` in arrival order; the other source's streams are
/// untouched, so every policy at a point sees the same jobs with the same marks.
pub struct Marked<S, M> {
    source: S,
    mark: M,
}

impl<S, M> Marked<S, M> {
    /// The jobs of `source`, each marked by `mark`.
    pub fn new(source: S, mark: M) -> Self {
        Marked { source, mark }
    }
}

impl<S: Source<VJob>, M: Mark> Source<VJob> for Marked<S, M> {
    fn batch(&mut self, t: u64, out: &mut Vec<VJob>) {
        let from = out.len();
        self.source.batch(t, out);
        for j in &mut out[from..] {
            self.mark.mark(j);
        }
    }
    fn arrived(&self) -> u64 {
        self.source.arrived()
    }
    fn arrived_work(&self) -> u128 {
        self.source.arrived_work()
    }
    fn next_arrival(&self) -> u64 {
        self.source.next_arrival()
    }
}

/// Marks a share of the jobs as strict (they must run inside one NUMA node): job `id` is
/// strict when a uniform number drawn from (`seed`, `id`) is below `share`. The mark depends
/// on the job's id and the run seed only.
pub struct Strict {
    seed: u64,
    /// `share` × 2⁶⁴, saturating (a share of 1 marks every job).
    threshold: u128,
}

impl Strict {
    /// `share` in [0, 1].
    pub fn new(share: f64, seed: u64) -> Self {
        assert!((0.0..=1.0).contains(&share), "a share in [0, 1]");
        Strict {
            seed,
            threshold: (share * 2f64.powi(64)) as u128 + u128::from(share >= 1.0),
        }
    }
}

impl Mark for Strict {
    fn mark(&mut self, job: &mut VJob) {
        job.strict = (crate::rng::Stream::Job(job.id).seed(self.seed) as u128) < self.threshold;
    }
}

/// Gives every job a placement constraint class drawn by Algorithm 3 ([`JobClasses::draw`])
/// from a stream of its own, in arrival order.
pub struct Constrained {
    classes: Arc<JobClasses>,
    rng: Pcg64Mcg,
}

impl Constrained {
    /// Constraint classes drawn from `classes`' probabilities, from a stream of `seed`.
    pub fn new(classes: Arc<JobClasses>, seed: u64) -> Self {
        Constrained {
            classes,
            rng: Pcg64Mcg::seed_from_u64(seed),
        }
    }
}

impl Mark for Constrained {
    fn mark(&mut self, job: &mut VJob) {
        job.class = self.classes.draw(&mut self.rng);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::ArrivalProcess;

    /// Weighted draws follow the weights: 200,000 jobs, shares within 5 standard deviations
    /// (a uniform draw would give 1/3 each, 60 deviations off).
    #[test]
    fn weighted_draws_follow_the_weights() {
        let requests = vec![[1, 0, 0], [2, 0, 0], [3, 0, 0]];
        let weights = [0.7, 0.1, 0.2];
        let arrivals = Arrivals::new(ArrivalProcess::Poisson, 2.0).unwrap();
        let mut src = VectorJobSource::new(requests, ServiceLaw::geometric(5.0), arrivals, 8)
            .weighted(&weights);
        let mut counts = [0usize; 3];
        let mut out = Vec::new();
        let mut t = 0;
        while src.arrived() < 200_000 {
            out.clear();
            src.batch(t, &mut out);
            for j in &out {
                counts[j.req[0] as usize - 1] += 1;
            }
            t += 1;
        }
        let n: usize = counts.iter().sum();
        for (c, w) in counts.iter().zip(weights) {
            let sd = (w * (1.0 - w) / n as f64).sqrt();
            let share = *c as f64 / n as f64;
            assert!((share - w).abs() < 5.0 * sd, "{counts:?}");
        }
    }
}
