//! The throughput of a saturated system, estimated by simulation: a queue that never empties,
//! served by the policy itself (FIFO-FF: the head-of-line job on the first server it fits,
//! until it fits nowhere; or any policy whose entry declares that it serves jobs in arrival
//! order).
//!
//! By the saturation rule (Baccelli & Foss, "On the saturation rule for the stability of
//! queues", J. Appl. Prob. 32, 1995; for jobs that need several servers at once in FIFO order,
//! Rumyantsev & Morozov, "Stability criterion of a multiserver model with simultaneous
//! service", Annals of Operations Research 252, 2017, and Grosof, Harchol-Balter &
//! Scheller-Wolf, "WCFS: a new framework for analyzing multiserver systems", Queueing Systems
//! 102, 2022) such a policy is stable exactly for arrival rates below this throughput. It is an
//! estimate of the stability limit independent of any verdict or bisection. The rule needs
//! the order of service not to depend on the queue's contents: it does not apply to BF-J/S,
//! VQS or VQS-BF, which choose among the waiting jobs, so a never-empty queue would hand them
//! the jobs they like best, a mix of sizes the real queue near its limit does not have.
//!
//! For finitely many sizes on tiny systems, [`super::exact::saturated_fifo_throughput`] gives
//! FIFO-FF's number exactly (a test compares them).

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::model::{Job, ServerId, Size};
use crate::policy::{Policy, SlotView};
use crate::rng::Stream;
use crate::sim::{BATCHES, Cluster};
use crate::workload::{ClassMix, ServiceLaw, SizeLaw};

/// The saturated throughput with its interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Saturation {
    /// Departures per slot after warm-up.
    pub(crate) throughput: f64,
    /// 95 % Student-t interval from [`BATCHES`] batch means of the departures per slot.
    pub(crate) ci95: (f64, f64),
    /// Slots simulated (after warm-up).
    pub(crate) slots: u64,
    /// Von Neumann statistic of the batch means (≈ N(0, 1) if they are independent, as the
    /// interval assumes; see [`crate::sim::verdict`]).
    pub(crate) z_vn: f64,
}

/// The jobs a saturated system draws: sizes and service from two laws, or each job's class
/// first and its size and service from the class's laws (`sizes` then names every size a
/// class may have).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SaturatedJobs<'a> {
    /// The size law (with classes: a law over every class's sizes).
    pub(crate) sizes: &'a SizeLaw,
    /// The service law (unused with classes).
    pub(crate) service: &'a ServiceLaw,
    /// The job classes, when the workload has them.
    pub(crate) classes: Option<&'a ClassMix>,
}

/// Simulates `policy`, saturated, on `servers` empty unit servers for `warmup + slots` slots,
/// jobs drawn from `jobs` on streams of `seed`: before every slot's placements the queue is
/// filled to more jobs than the servers can take in one slot. `policy` must be new (no job
/// waiting) and serve in arrival order for the saturation rule to give its limit.
pub(crate) fn saturated(
    policy: &mut dyn Policy,
    servers: usize,
    jobs: SaturatedJobs<'_>,
    warmup: u64,
    slots: u64,
    seed: u64,
) -> Saturation {
    let SaturatedJobs {
        sizes,
        service,
        classes,
    } = jobs;
    // at most this many jobs can be placed in one slot: the head is never missing
    let per_server = Size::UNIT / sizes.min().0.max(1);
    let target = (servers as u64 * per_server + 1) as usize;
    let mut size_rng = Stream::Sizes.rng(seed);
    let mut service_rng = Stream::Service.rng(seed);
    let mut class_rng = Stream::JobClass.rng(seed);
    let mut cluster = Cluster::new(servers, service.mean());
    let all: Vec<ServerId> = (0..servers as ServerId).collect();
    let (mut departures, mut departed) = (Vec::new(), Vec::new());
    let batch_len = (slots / BATCHES as u64).max(1);
    let slots = batch_len * BATCHES as u64;
    let mut sums = vec![0u64; BATCHES];
    let mut next_id = 0u64;
    for t in 0..warmup + slots {
        let before = cluster.counters().departed;
        cluster.depart(t, &mut departures, &mut departed);
        let gone = cluster.counters().departed - before;
        while policy.waiting() < target {
            let (kind, size, service) = match classes {
                Some(mix) => mix.sample(&mut class_rng, &mut size_rng, &mut service_rng),
                None => (
                    0,
                    sizes.sample(&mut size_rng),
                    service.sample(&mut service_rng),
                ),
            };
            policy.enqueue(Job {
                id: next_id,
                size,
                service,
                arrival: t,
                class: 0,
                kind,
            });
            next_id += 1;
        }
        let view = SlotView {
            now: t,
            departures: &departures,
            departed: if t == 0 { &all } else { &departed },
        };
        policy.schedule(&mut cluster, view);
        if t >= warmup {
            sums[((t - warmup) / batch_len) as usize] += gone;
        }
    }
    let y: Vec<f64> = sums.iter().map(|&s| s as f64 / batch_len as f64).collect();
    let b = y.len() as f64;
    let mean = y.iter().sum::<f64>() / b;
    let ss: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let mssd: f64 = y.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
    let t = StudentsT::new(0.0, 1.0, b - 1.0)
        .expect("32 batches")
        .inverse_cdf(0.975);
    let h = t * (ss / (b - 1.0) / b).sqrt();
    Saturation {
        throughput: mean,
        ci95: (mean - h, mean + h),
        slots,
        z_vn: if ss > 0.0 {
            (1.0 - mssd / (2.0 * ss)) / ((b - 2.0) / (b * b - 1.0)).sqrt()
        } else {
            0.0
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stability::exact::{TinySystem, saturated_fifo_throughput};

    #[test]
    fn simulated_saturation_matches_the_exact_chain() {
        let (a, b) = (Size::from_f64(0.6).unwrap(), Size::from_f64(0.3).unwrap());
        let exact = saturated_fifo_throughput(
            &TinySystem {
                servers: 2,
                sizes: [a, b],
                p_first: 0.5,
                lambda: 0.0,
                mu: 0.1,
                cap: 0,
            },
            10_000,
        )
        .unwrap();
        let law = SizeLaw::discrete(vec![a, b], vec![0.5, 0.5]).unwrap();
        let mut fifo = crate::policy::FifoFirstFit::new(2);
        let s = saturated(
            &mut fifo,
            2,
            SaturatedJobs {
                sizes: &law,
                service: &ServiceLaw::geometric(10.0),
                classes: None,
            },
            10_000,
            2_000_000,
            1,
        );
        assert!(
            s.ci95.0 <= exact && exact <= s.ci95.1,
            "exact {exact} outside {:?}",
            s.ci95
        );
        assert!(s.ci95.1 - s.ci95.0 < 0.005, "{:?}", s.ci95);
    }

    #[test]
    fn whole_server_jobs_saturate_every_server() {
        let law = SizeLaw::discrete(vec![Size::ONE], vec![1.0]).unwrap();
        let mut fifo = crate::policy::FifoFirstFit::new(3);
        let geo = ServiceLaw::geometric(10.0);
        let s = saturated(
            &mut fifo,
            3,
            SaturatedJobs {
                sizes: &law,
                service: &geo,
                classes: None,
            },
            1000,
            320_000,
            2,
        );
        assert!(s.ci95.0 <= 0.3 && 0.3 <= s.ci95.1, "{:?}", s);
    }

    /// FIFO service, at most one job per server: saturated, every server is always busy with
    /// one job, whatever its size.
    struct OnePerServer(std::collections::VecDeque<Job>);

    impl Policy for OnePerServer {
        fn enqueue(&mut self, job: Job) {
            self.0.push_back(job);
        }
        fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
            for i in 0..cluster.servers() as ServerId {
                if cluster.jobs_on(i) == 0
                    && let Some(job) = self.0.pop_front()
                {
                    cluster.place(i, &job, view.now);
                }
            }
        }
        fn waiting(&self) -> usize {
            self.0.len()
        }
    }

    #[test]
    fn the_policy_named_is_the_policy_saturated() {
        // small jobs: FIFO-FF packs several per server, the one-per-server rule one
        let law = SizeLaw::uniform(Size::from_f64(0.1).unwrap(), Size::from_f64(0.3).unwrap());
        let geo = ServiceLaw::geometric(10.0);
        let mut one = OnePerServer(Default::default());
        let s = saturated(
            &mut one,
            2,
            SaturatedJobs {
                sizes: &law,
                service: &geo,
                classes: None,
            },
            1000,
            320_000,
            5,
        );
        // L / E[S] = 0.2 jobs per slot, exactly
        assert!(s.ci95.0 <= 0.2 && 0.2 <= s.ci95.1, "{s:?}");
        let mut fifo = crate::policy::FifoFirstFit::new(2);
        let f = saturated(
            &mut fifo,
            2,
            SaturatedJobs {
                sizes: &law,
                service: &geo,
                classes: None,
            },
            1000,
            320_000,
            5,
        );
        assert!(f.ci95.0 > 2.0 * s.ci95.1, "{f:?} against {s:?}");
    }
}
