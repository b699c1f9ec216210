//! packlab: scheduling jobs with random resource requirements on clusters of servers.
//!
//! A slotted-time simulator of L unit-capacity servers fed by random jobs (docs/theory.md
//! section 1), the policies of Psychas & Ghaderi (BF-J/S, FIFO-FF, VQS, VQS-BF, MaxWeight), the
//! packing evaluators of the Google papers, and an experiment runner that turns a TOML file
//! into CSV tables, figures and a report.
//!
//! A workload, a policy, a run and its verdict, in the library's own terms:
//!
//! ```
//! use packlab::model::Size;
//! use packlab::policy::{PolicySpec, run_spec};
//! use packlab::sim::{Cluster, RunConfig, Verdict};
//! use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};
//!
//! // sizes uniform on [0.1, 0.9] of a server, geometric service of mean 50 slots, 10 servers
//! let sizes = SizeLaw::uniform(Size::from_f64(0.1).unwrap(), Size::from_f64(0.9).unwrap());
//! let service = ServiceLaw::geometric(50.0);
//! let servers = 10;
//! // Poisson arrivals at load 0.5: λ = ρ · L / (E\[R\] · E\[S\]) jobs per slot
//! let rate = 0.5 * servers as f64 / (sizes.mean() * service.mean());
//! let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
//! let mut jobs = JobSource::new(sizes, service.clone(), arrivals, 7);
//!
//! // BF-J/S, as an experiment file names it, for 200,000 slots (the first 20,000 discarded)
//! let policy = PolicySpec::from_name("bf-js").unwrap();
//! let mut cluster = Cluster::new(servers, service.mean());
//! let cfg = RunConfig::new(200_000, 20_000, service.mean());
//! let result = run_spec(&policy, &mut jobs, &mut cluster, &cfg).unwrap();
//! assert_eq!(result.verdict, Verdict::Stable);
//! println!("mean queue {:.2} jobs, utilisation {:.3}", result.mean_queue, result.utilization);
//! ```
//!
//! Experiment files drive the same code: [`experiment::ExperimentFile`] loads and runs one, and
//! a policy of one's own joins the built-in ones in a [`policy::registry::Registry`], which a
//! program passes to [`experiment::ExperimentFile::load_with`] or to [`cli::main`].
//!
//! The modules, from the model up:
//!
//! - [`model`]: exact fixed-point sizes ([`Size`]), jobs, multi-resource requests;
//! - [`workload`]: size, service and arrival laws, the job source, trace replay;
//! - [`sim`]: the cluster, the slot loop ([`sim::run_system`] over any [`sim::System`]), the
//!   stability verdict;
//! - [`policy`]: the [`policy::Policy`] trait, the paper's policies, the registry, the
//!   decision-by-decision test harness ([`policy::testing`]);
//! - [`configurations`], [`stability`]: configurations, K_RED, max-weight, the supportable
//!   workload ρ* and its brackets, exact solutions of tiny systems;
//! - [`multi`], [`packing`], [`constraints`]: multi-resource scheduling, the packing
//!   evaluators, placement constraints;
//! - [`experiment`], [`limits`], [`progress`], [`cancel`], [`rng`]: experiment files,
//!   admission limits, progress lines, stopping on a signal, common random numbers.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// a house rule: no function over 120 lines (the threshold is in clippy.toml)
#![warn(clippy::too_many_lines)]

#[doc(hidden)]
pub mod bench_internals;
pub mod cancel;
pub mod cli;
pub mod configurations;
pub mod constraints;
pub mod experiment;
mod fsafe;
pub(crate) mod input;
pub mod limits;
pub mod model;
pub mod multi;
pub mod packing;
pub(crate) mod plot;
pub mod policy;
pub mod progress;
pub mod rng;
pub mod sim;
pub mod stability;
mod words;
pub mod workload;

pub use model::{Job, ServerId, Size};
