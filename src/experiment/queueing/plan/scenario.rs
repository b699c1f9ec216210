//! One simulated system as an owned value: the servers, where the jobs come from (a size law,
//! request vectors or a trace window), the horizon chain, the run seed, the placement (a
//! single-resource policy, or a scored one with its layer: plain servers, NUMA nodes or
//! placement constraints) and the size classes its jobs' delays are kept by. Every run of a
//! queueing file (a sweep point's, a limit search's probe, a region map's probe) is a scenario,
//! made here from the validated experiment and run by the run stage's one run function.
//!
//! What the units of a plan share (laws, tables, a trace) is [`Shared`]: a scenario is cheap to
//! copy and its serialisation, its identity, is small.

use std::path::Path;

use crate::constraints::{Eligibility, JobClasses};
use crate::experiment::ExperimentError;
use crate::experiment::common::Shared;
use crate::experiment::queueing::{Experiment, Horizon, QueuePolicy, Workload};
use crate::model::Resources;
use crate::multi::Discipline;
use crate::packing::numa::Numa;
use crate::packing::place::Scorer;
use crate::policy::PolicySpec;
use crate::sim::{RunConfig, SizeClasses};
use crate::workload::replay::{TraceSpec, TraceSummary};
use crate::workload::{ArrivalProcess, Arrivals, ClassMix, ServiceLaw, SizeLaw};

/// One simulated system, with everything its run reads and nothing else.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Scenario {
    /// L, servers of capacity 1 per resource.
    pub(crate) servers: usize,
    /// Where the jobs come from.
    pub(crate) jobs: Jobs,
    /// The horizon chain, the queue cap and the samples kept.
    pub(crate) chain: Chain,
    /// The run seed: every random stream of the run derives from it.
    pub(crate) seed: u64,
    /// Who places the jobs.
    pub(crate) placement: Placement,
    /// Record every job's wait and response time after warm-up by these size classes, and
    /// the resource whose request classes them (a sweep's runs; a search's probes need none).
    pub(crate) waits: Option<(Shared<SizeClasses>, usize)>,
}

/// A run's horizon chain: the verdict at `slots` (the first `warmup` discarded), then one after
/// each doubling of the horizon after warm-up that ends within `max_slots`; a queue above
/// `queue_cap` stops it; about `samples` points of its queue are kept.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) struct Chain {
    /// The first horizon, slots.
    pub(crate) slots: u64,
    /// Slots discarded before averaging.
    pub(crate) warmup: u64,
    /// The longest horizon, slots (`slots`: no extension).
    pub(crate) max_slots: u64,
    /// The queue cap, jobs.
    pub(crate) queue_cap: u64,
    /// Points of the sampled queue.
    pub(crate) samples: u64,
    /// Mean service time, slots: the verdict judges no horizon shorter than a multiple of it.
    pub(crate) mean_service: f64,
}

impl Chain {
    /// The slot loop's configuration of this chain, stopped on a signal.
    pub(crate) fn config(&self) -> RunConfig {
        RunConfig {
            slots: self.slots,
            warmup: self.warmup,
            queue_cap: self.queue_cap,
            samples: self.samples,
            check_every_slot: false,
            max_slots: self.max_slots,
            mean_service: self.mean_service,
            watch: crate::sim::Watch(crate::cancel::watch),
            look: crate::sim::Look(crate::experiment::queueing::run::on_look),
        }
    }
}

/// Where a scenario's jobs come from.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) enum Jobs {
    /// Sizes drawn from a law, arrivals of a process at a rate.
    Sampled {
        /// The size law (a region map's probe gives its own).
        sizes: Shared<SizeLaw>,
        /// The service law.
        service: Shared<ServiceLaw>,
        /// The arrival process.
        process: ArrivalProcess,
        /// Its rate, jobs per slot.
        rate: f64,
        /// The job classes the jobs are drawn from, when the workload has them (`sizes` and
        /// `service` are then their work-weighted size law and their mixture).
        #[serde(skip_serializing_if = "Option::is_none")]
        classes: Option<Shared<ClassMix>>,
    },
    /// Request vectors drawn uniformly or with weights.
    Requests {
        /// The vectors.
        requests: Shared<Vec<Resources>>,
        /// Their probabilities, when not uniform.
        weights: Option<Vec<f64>>,
        /// The service law.
        service: Shared<ServiceLaw>,
        /// The arrival process.
        process: ArrivalProcess,
        /// Its rate, jobs per slot.
        rate: f64,
    },
    /// A window of a trace replayed at a scaling.
    Trace {
        /// The trace, and what its validation read of it.
        trace: Shared<(TraceSpec, TraceSummary)>,
        /// The scaling c of arrival times.
        scaling: f64,
        /// The window, trace seconds [from, to).
        window: (f64, f64),
        /// The sweep point's arrival rate, jobs per slot (what the run is priced at).
        rate: f64,
    },
}

impl Jobs {
    /// The arrivals of a sampled scenario (`None` for a trace).
    pub(crate) fn arrivals(&self) -> Option<Result<Arrivals, crate::workload::LawError>> {
        match self {
            Jobs::Sampled { process, rate, .. } | Jobs::Requests { process, rate, .. } => {
                Some(Arrivals::new(*process, *rate))
            }
            Jobs::Trace { .. } => None,
        }
    }

    /// Its arrival rate, jobs per slot (a trace's as its sweep point counts it).
    pub(crate) fn rate(&self) -> f64 {
        match self {
            Jobs::Sampled { rate, .. } | Jobs::Requests { rate, .. } | Jobs::Trace { rate, .. } => {
                *rate
            }
        }
    }

    /// The same jobs at arrival rate `rate` (a sampled scenario's; a trace's is its own).
    pub(crate) fn at_rate(&self, rate: f64) -> Jobs {
        let mut j = self.clone();
        if let Jobs::Sampled { rate: r, .. } | Jobs::Requests { rate: r, .. } = &mut j {
            *r = rate;
        }
        j
    }
}

/// Who places a scenario's jobs.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) enum Placement {
    /// A single-resource policy, its run compiled for its own type.
    Single(PolicySpec),
    /// BF-J/S or FIFO with a packing scorer on the multi-resource path.
    Scored {
        /// The discipline.
        discipline: Discipline,
        /// The scorer.
        scorer: Scorer,
        /// Resources per job.
        dims: usize,
        /// What the servers add to capacity.
        layer: Layer,
    },
}

impl Placement {
    /// Its cost per simulated slot relative to BF-J/S's (a scored policy's is its path's).
    pub(crate) fn cost(&self) -> f64 {
        match self {
            Placement::Single(spec) => spec.cost(),
            Placement::Scored { .. } => 1.0,
        }
    }
}

/// What the servers of a scored placement add to their capacity.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) enum Layer {
    /// Nothing.
    Plain,
    /// NUMA nodes, with this share of the jobs strict.
    Numa {
        /// The nodes and the scheduler's awareness of them.
        numa: Numa,
        /// The share of strict jobs.
        strict: f64,
    },
    /// Placement constraints: each job's class drawn from `classes`, each server's kind and
    /// the classes' eligibility in `table` (every class allowed everywhere for the runs with the
    /// constraints lifted).
    Constraints {
        /// The job classes and the servers' kinds.
        classes: Shared<JobClasses>,
        /// The eligibility table in force.
        table: Shared<Eligibility>,
    },
}

/// An arrival rate the workload's process cannot bring, named in the file's terms (the plan is
/// built only from a validated file, whose sweep and searches were checked against it).
pub(crate) fn bad_rate(file: &Path, rate: f64, e: impl std::fmt::Display) -> ExperimentError {
    ExperimentError::Invalid {
        file: file.to_path_buf(),
        key: "sweep".into(),
        expected: e.to_string(),
        got: format!("arrival rate {rate}"),
    }
}

impl Scenario {
    /// Run `rep` of `policy` at arrival rate `rate` (jobs per slot) on the sampled law of `exp`
    /// with run seed `seed`, over the file's horizon chain; `lifted`: with the constraints of
    /// `[constraints]` lifted.
    pub(crate) fn sampled(
        exp: &Experiment,
        policy: usize,
        rate: f64,
        seed: u64,
        (rep, lifted): (u32, bool),
    ) -> Self {
        let w = &exp.workload;
        let (slots, warmup, max_slots) = exp.run.slots().unwrap_or((1, 0, 1));
        let jobs = match w {
            Workload::Requests {
                requests,
                weights,
                service,
                arrivals,
                ..
            } => Jobs::Requests {
                requests: requests.clone(),
                weights: weights.clone(),
                service: service.clone(),
                process: *arrivals,
                rate,
            },
            Workload::Sampled {
                sizes,
                service,
                arrivals,
                classes,
            } => Jobs::Sampled {
                sizes: sizes.clone(),
                service: service.clone(),
                process: *arrivals,
                rate,
                classes: classes.clone(),
            },
            Workload::Trace(_, sizes, service) => Jobs::Sampled {
                sizes: sizes.clone(),
                service: service.clone(),
                process: ArrivalProcess::Poisson,
                rate,
                classes: None,
            },
        };
        Scenario {
            servers: exp.servers,
            jobs,
            chain: chain(exp, slots, warmup, max_slots),
            seed,
            placement: placement(exp, policy, rep, lifted),
            waits: None,
        }
    }

    /// Window `rep` of the trace of `exp` replayed at the scaling of sweep point `point` for
    /// `policy` (`seed` drives the random scorers only); `lifted` as for [`Scenario::sampled`].
    pub(crate) fn trace(
        exp: &Experiment,
        policy: usize,
        point: usize,
        seed: u64,
        (rep, lifted): (u32, bool),
    ) -> Option<Self> {
        let Workload::Trace(trace, ..) = &exp.workload else {
            return None;
        };
        let (spec, summary) = (&trace.0, &trace.1);
        let c = exp.points[point].key;
        let windows = exp.run.replications;
        let window = summary.window(spec, rep, windows);
        let (slots, warmup) = match exp.run.horizon {
            Horizon::Slots { slots, warmup, .. } => (slots, warmup),
            Horizon::Window { warmup_fraction } => {
                let slots = summary.slots(spec, c, windows);
                let warmup = (slots as f64 * warmup_fraction) as u64;
                (slots, warmup.min(slots - 1))
            }
        };
        Some(Scenario {
            servers: exp.servers,
            jobs: Jobs::Trace {
                trace: trace.clone(),
                scaling: c,
                window,
                rate: exp.points[point].arrival_rate,
            },
            // a trace's window is what it is: no extension
            chain: chain(exp, slots, warmup, slots),
            seed,
            placement: placement(exp, policy, rep, lifted),
            waits: None,
        })
    }
}

/// The horizon chain of `slots` (`warmup` of warm-up) extended up to `max_slots`, with the
/// file's queue cap and samples.
fn chain(exp: &Experiment, slots: u64, warmup: u64, max_slots: u64) -> Chain {
    Chain {
        slots,
        warmup,
        max_slots,
        queue_cap: exp.run.queue_cap,
        samples: exp.run.samples,
        mean_service: exp.workload.service().mean(),
    }
}

/// The placement of `policy` in run `rep`: a scored policy with its NUMA layer under `[numa]`
/// or the constraints of `[constraints]` (lifted when `lifted`: every job still draws its
/// class).
fn placement(exp: &Experiment, policy: usize, rep: u32, lifted: bool) -> Placement {
    match &exp.policies[policy] {
        QueuePolicy::Single(spec) => Placement::Single(spec.clone()),
        QueuePolicy::Scored(s) => {
            let layer = match (&exp.numa, &exp.constraints) {
                (Some(n), _) => Layer::Numa {
                    numa: Numa {
                        layout: n.layout.clone(),
                        layer: n.layers[policy],
                    },
                    strict: n.strict,
                },
                (None, Some(q)) => {
                    let w = q.world(policy, rep);
                    Layer::Constraints {
                        classes: w.classes.clone(),
                        table: if lifted { &w.lifted } else { &w.table }.clone(),
                    }
                }
                (None, None) => Layer::Plain,
            };
            Placement::Scored {
                discipline: s.discipline,
                scorer: s.scorer,
                dims: exp.workload.dims(),
                layer,
            }
        }
    }
}
