//! A policy as an experiment file names it, its parameters validated: what the runner, the
//! journal and the outputs hold of a policy. A spec is built by its registry entry's parser
//! ([`super::PolicyEntry`]) and knows how to build a fresh policy of its own type, so the slot
//! loop is compiled for that type (its calls inlined, not dispatched through `dyn Policy`).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use super::registry::Registry;
use super::system::run;
use super::{Policy, PolicyEntry};
use crate::model::Job;
use crate::sim::{Cluster, RunConfig, RunResult, SimError};
use crate::workload::replay::TraceSource;
use crate::workload::{JobSource, Source};

/// A single-resource policy named in an experiment file, with its parameters validated: its
/// registry entry (name, colour, cost, capabilities) and a constructor of its own type.
///
/// Two specs are equal when they name the same policy with the same parameters (in words, as
/// [`PolicySpec::params`] gives them).
#[derive(Clone)]
pub struct PolicySpec {
    entry: PolicyEntry,
    params: String,
    runner: Arc<dyn Runner>,
}

/// The entry of a spec no registry has parsed yet ([`PolicySpec::new`] before the registry
/// stamps its entry in).
const UNREGISTERED: PolicyEntry =
    PolicyEntry::new("unregistered", "a spec built outside a registry", |_, _| {
        Err(super::ParamError::new(
            "name",
            "a registered policy",
            "none",
        ))
    });

/// A single-resource policy's runs, compiled for its type: the sources packlab replays get
/// their own loop each, any other source goes through `dyn Source`.
trait Runner: Send + Sync {
    fn build(&self, servers: usize) -> Box<dyn Policy>;
    fn run_jobs(
        &self,
        source: &mut JobSource,
        cluster: &mut Cluster,
        cfg: &RunConfig,
    ) -> Result<RunResult, SimError>;
    fn run_trace(
        &self,
        source: &mut TraceSource,
        cluster: &mut Cluster,
        cfg: &RunConfig,
    ) -> Result<RunResult, SimError>;
    fn run_any(
        &self,
        source: &mut dyn Source<Job>,
        cluster: &mut Cluster,
        cfg: &RunConfig,
    ) -> Result<RunResult, SimError>;
}

/// A policy's constructor, the [`Runner`] of its type.
struct Typed<F>(F);

impl<P: Policy + 'static, F: Fn(usize) -> P + Send + Sync> Runner for Typed<F> {
    fn build(&self, servers: usize) -> Box<dyn Policy> {
        Box::new((self.0)(servers))
    }
    fn run_jobs(
        &self,
        source: &mut JobSource,
        cluster: &mut Cluster,
        cfg: &RunConfig,
    ) -> Result<RunResult, SimError> {
        run(&mut (self.0)(cluster.servers()), source, cluster, cfg)
    }
    fn run_trace(
        &self,
        source: &mut TraceSource,
        cluster: &mut Cluster,
        cfg: &RunConfig,
    ) -> Result<RunResult, SimError> {
        run(&mut (self.0)(cluster.servers()), source, cluster, cfg)
    }
    fn run_any(
        &self,
        mut source: &mut dyn Source<Job>,
        cluster: &mut Cluster,
        cfg: &RunConfig,
    ) -> Result<RunResult, SimError> {
        run(&mut (self.0)(cluster.servers()), &mut source, cluster, cfg)
    }
}

impl PolicySpec {
    /// A policy with its parameters in words (`params`, e.g. `"ties = lowest"`, empty without
    /// parameters: they tell runs apart and identify the experiment in its journal), built for
    /// a number of servers by `build`: what a [`PolicyEntry`]'s parser returns. The registry
    /// that parsed the table stamps its entry in (the name is the entry's, written once). Runs
    /// are compiled for the policy's own type `P`.
    pub fn new<P, F>(params: impl Into<String>, build: F) -> Self
    where
        P: Policy + 'static,
        F: Fn(usize) -> P + Send + Sync + 'static,
    {
        PolicySpec {
            entry: UNREGISTERED,
            params: params.into(),
            runner: Arc::new(Typed(build)),
        }
    }

    /// A parameterless built-in policy from its name (`None` for unknown names and for the
    /// policies that need parameters or finitely many job sizes).
    pub fn from_name(name: &str) -> Option<Self> {
        let table = toml::Table::new();
        let params = super::PolicyParams::new(name, &table);
        let none = crate::workload::SizeLaw::Empirical { values: vec![] };
        Registry::builtin().parse(&params, &none).ok()
    }

    /// The spec of `entry`: the registry stamps every spec its entry's parser returns.
    pub(super) fn stamped(mut self, entry: PolicyEntry) -> Self {
        self.entry = entry;
        self
    }

    /// The policy's name as written in experiment files.
    pub fn name(&self) -> &'static str {
        self.entry.name
    }

    /// Its registry entry.
    pub fn entry(&self) -> &PolicyEntry {
        &self.entry
    }

    /// Its parameters in words (empty without parameters).
    pub fn params(&self) -> &str {
        &self.params
    }

    /// Whether the saturation rule gives its limit: it serves jobs in arrival order
    /// ([`PolicyEntry::fifo_service`]).
    pub fn saturation_rule(&self) -> bool {
        self.entry.fifo_service
    }

    /// Its cost per simulated slot relative to BF-J/S's ([`PolicyEntry::cost`]).
    pub fn cost(&self) -> f64 {
        self.entry.cost
    }

    /// A fresh policy for `servers` empty servers.
    pub fn build(&self, servers: usize) -> Box<dyn Policy> {
        self.runner.build(servers)
    }

    /// Simulates one run of a fresh policy on the unit servers of `cluster` fed by `source`,
    /// the slot loop compiled for the policy's own type.
    pub fn run<S: Source<Job> + 'static>(
        &self,
        source: &mut S,
        cluster: &mut Cluster,
        cfg: &RunConfig,
    ) -> Result<RunResult, SimError> {
        let r = &self.runner;
        let any = source as &mut dyn Any;
        if let Some(s) = any.downcast_mut::<JobSource>() {
            return r.run_jobs(s, cluster, cfg);
        }
        if let Some(s) = any.downcast_mut::<TraceSource>() {
            return r.run_trace(s, cluster, cfg);
        }
        r.run_any(source, cluster, cfg)
    }
}

impl PartialEq for PolicySpec {
    fn eq(&self, other: &Self) -> bool {
        self.entry.name == other.entry.name && self.params == other.params
    }
}

impl fmt::Debug for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicySpec")
            .field("name", &self.entry.name)
            .field("params", &self.params)
            .finish()
    }
}

/// A spec in an experiment's canonical form (its journal's identity): the name and the
/// parameters in words.
impl serde::Serialize for PolicySpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.entry.name, &self.params).serialize(s)
    }
}
