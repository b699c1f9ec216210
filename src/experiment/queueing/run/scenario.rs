//! One simulated system as a plain value, between the validated experiment and the slot loop:
//! the servers, where the jobs come from (a size law, request vectors or a trace window), the
//! horizon, the run seed, and the placement (a single-resource policy, or a scored one with
//! its layer: plain servers, NUMA nodes or placement constraints, one of them by type). Every
//! run of a queueing file (a sweep point's, a limit search's probe, a region map's probe) is a
//! scenario built by [`Scenario::sampled`] or [`Scenario::trace`] and run by
//! [`super::simulate::run_scenario`], the one run function.

use std::borrow::Cow;
use std::sync::Arc;

use crate::constraints::{Eligibility, JobClasses};
use crate::experiment::ExperimentError;
use crate::experiment::queueing::{Experiment, QueuePolicy, Workload};
use crate::model::Resources;
use crate::multi::Discipline;
use crate::packing::numa::Numa;
use crate::packing::place::Scorer;
use crate::policy::PolicySpec;
use crate::sim::{RunConfig, SizeClasses};
use crate::workload::replay::TraceSpec;
use crate::workload::{Arrivals, ServiceLaw, SizeLaw};

/// One simulated system, with everything its run reads and nothing else.
pub(crate) struct Scenario<'a> {
    /// The experiment file, named in errors.
    pub(crate) file: &'a std::path::Path,
    /// L, servers of capacity 1 per resource.
    pub(crate) servers: usize,
    /// Where the jobs come from.
    pub(crate) jobs: Jobs<'a>,
    /// The horizon, the queue cap and the samples kept.
    pub(crate) config: RunConfig,
    /// The run seed: every random stream of the run derives from it.
    pub(crate) seed: u64,
    /// Who places the jobs.
    pub(crate) placement: Placement<'a>,
    /// Record every job's wait and response time after warm-up by these size classes, and
    /// the resource whose request classes them (a sweep's runs; a search's probes need none).
    pub(crate) waits: Option<(SizeClasses, usize)>,
}

/// Where a scenario's jobs come from.
pub(crate) enum Jobs<'a> {
    /// Sizes drawn from a law, Poisson (or other) arrivals.
    Sampled {
        /// The size law (a region map's probe gives its own).
        sizes: Cow<'a, SizeLaw>,
        /// The service law.
        service: &'a ServiceLaw,
        /// The arrival process at the scenario's rate.
        arrivals: Arrivals,
    },
    /// Request vectors drawn uniformly or with weights.
    Requests {
        /// The vectors.
        requests: &'a [Resources],
        /// Their probabilities, when not uniform.
        weights: Option<&'a [f64]>,
        /// The service law.
        service: &'a ServiceLaw,
        /// The arrival process at the scenario's rate.
        arrivals: Arrivals,
    },
    /// A window of a trace replayed at a scaling.
    Trace {
        /// The trace.
        spec: &'a TraceSpec,
        /// The scaling c of arrival times.
        scaling: f64,
        /// The window, trace seconds [from, to).
        window: (f64, f64),
    },
}

/// Who places a scenario's jobs.
pub(crate) enum Placement<'a> {
    /// A single-resource policy, its run compiled for its own type.
    Single(&'a PolicySpec),
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

/// What the servers of a scored placement add to their capacity.
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
        classes: Arc<JobClasses>,
        /// The eligibility table in force.
        table: Arc<Eligibility>,
    },
}

impl<'a> Scenario<'a> {
    /// Run `rep` of `policy` at arrival rate `rate` (jobs per slot) on the sampled law of `exp`
    /// with run seed `seed`; `lifted`: with the constraints of `[constraints]` lifted.
    pub(crate) fn sampled(
        exp: &'a Experiment,
        policy: usize,
        rate: f64,
        seed: u64,
        (rep, lifted): (u32, bool),
    ) -> Result<Self, ExperimentError> {
        let w = &exp.workload;
        let arrivals = Arrivals::new(w.arrivals(), rate).map_err(|e| ExperimentError::Invalid {
            file: exp.header.file.clone(),
            key: "sweep".into(),
            expected: e.to_string(),
            got: format!("arrival rate {rate}"),
        })?;
        let (slots, warmup, max_slots) =
            exp.run.slots().ok_or_else(|| ExperimentError::Invalid {
                file: exp.header.file.clone(),
                key: "run.slots".into(),
                expected: "the number of slots per run (sampled laws)".into(),
                got: "nothing".into(),
            })?;
        let jobs = match w {
            Workload::Requests {
                requests,
                weights,
                service,
                ..
            } => Jobs::Requests {
                requests,
                weights: weights.as_deref(),
                service,
                arrivals,
            },
            _ => Jobs::Sampled {
                sizes: Cow::Borrowed(w.sizes()),
                service: w.service(),
                arrivals,
            },
        };
        Ok(Scenario {
            file: &exp.header.file,
            servers: exp.servers,
            jobs,
            config: config(exp, slots, warmup, max_slots),
            seed,
            placement: placement(exp, policy, rep, lifted),
            waits: None,
        })
    }

    /// Window `rep` of the trace of `exp` replayed at the scaling of sweep point `point` for
    /// `policy` (`seed` drives the random scorers only); `lifted` as for [`Scenario::sampled`].
    pub(crate) fn trace(
        exp: &'a Experiment,
        policy: usize,
        point: usize,
        seed: u64,
        (rep, lifted): (u32, bool),
    ) -> Option<Self> {
        let (spec, summary) = exp.workload.trace()?;
        let c = exp.points[point].key;
        let windows = exp.run.replications;
        let window = summary.window(spec, rep, windows);
        let (slots, warmup) = match exp.run.horizon {
            crate::experiment::queueing::Horizon::Slots { slots, warmup, .. } => (slots, warmup),
            crate::experiment::queueing::Horizon::Window { warmup_fraction } => {
                let slots = summary.slots(spec, c, windows);
                let warmup = (slots as f64 * warmup_fraction) as u64;
                (slots, warmup.min(slots - 1))
            }
        };
        Some(Scenario {
            file: &exp.header.file,
            servers: exp.servers,
            jobs: Jobs::Trace {
                spec,
                scaling: c,
                window,
            },
            // a trace's window is what it is: no extension
            config: config(exp, slots, warmup, slots),
            seed,
            placement: placement(exp, policy, rep, lifted),
            waits: None,
        })
    }
}

/// The run configuration of a fixed horizon.
fn config(exp: &Experiment, slots: u64, warmup: u64, max_slots: u64) -> RunConfig {
    RunConfig {
        slots,
        warmup,
        queue_cap: exp.run.queue_cap,
        samples: exp.run.samples,
        check_every_slot: false,
        max_slots,
        mean_service: exp.workload.service().mean(),
        watch: crate::sim::Watch(crate::cancel::watch),
    }
}

/// The placement of `policy` in run `rep`: a scored policy with its NUMA layer under `[numa]`
/// or the constraints of `[constraints]` (lifted when `lifted`: every job still draws its
/// class).
fn placement(exp: &Experiment, policy: usize, rep: u32, lifted: bool) -> Placement<'_> {
    match &exp.policies[policy] {
        QueuePolicy::Single(spec) => Placement::Single(spec),
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
                        classes: Arc::clone(&w.classes),
                        table: Arc::clone(if lifted { &w.lifted } else { &w.table }),
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
