//! A policy as an experiment file names it, its parameters validated: what the runner, the
//! journal and the outputs hold of a policy. A spec is built by its registry entry's parser
//! ([`super::PolicyEntry`]) and knows how to build a fresh policy of its own type, so the slot
//! loop is compiled for that type (its calls inlined, not dispatched through `dyn Policy`).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use super::system::run;
use super::{Policy, PolicyEntry, registry};
use crate::model::{Discipline, Job, Scorer};
use crate::sim::{Cluster, RunConfig, RunResult, SimError};
use crate::workload::replay::TraceSource;
use crate::workload::{JobSource, Source};

/// A policy named in an experiment file, with its parameters validated.
///
/// Two specs are equal when they name the same policy with the same parameters (in words, as
/// [`PolicySpec::params`] gives them).
#[derive(Clone)]
pub struct PolicySpec {
    name: &'static str,
    params: String,
    how: How,
}

/// How a spec runs.
#[derive(Clone)]
enum How {
    /// A single-resource policy of its own type.
    Single(Arc<dyn Runner>),
    /// BF-J/S or FIFO with a packing scorer, on the multi-resource path.
    Scored {
        discipline: Discipline,
        scorer: Scorer,
    },
}

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
    /// The policy registered as `name` ([`registry::register`] for a policy of one's own; an
    /// entry's parser may pass any name here, the registry stamps the entry's own), with
    /// its parameters in words (`params`, e.g. `"ties = lowest"`, empty without parameters:
    /// they tell runs apart and identify the experiment in its journal), built for a number of
    /// servers by `build`. Runs are compiled for the policy's own type `P`.
    pub fn new<P, F>(name: &'static str, params: impl Into<String>, build: F) -> Self
    where
        P: Policy + 'static,
        F: Fn(usize) -> P + Send + Sync + 'static,
    {
        PolicySpec {
            name,
            params: params.into(),
            how: How::Single(Arc::new(Typed(build))),
        }
    }

    /// BF-J/S or FIFO (`name`) with the packing scorer named `score`, which runs on the
    /// multi-resource path.
    pub fn scored(name: &'static str, discipline: Discipline, scorer: Scorer, score: &str) -> Self {
        PolicySpec {
            name,
            params: format!("score = {score}"),
            how: How::Scored { discipline, scorer },
        }
    }

    /// A parameterless policy from its name (`None` for unknown names and for the policies
    /// that need parameters or finitely many job sizes).
    pub fn from_name(name: &str) -> Option<Self> {
        let table = toml::Table::new();
        let params = super::PolicyParams::new(name, &table);
        let none = crate::workload::SizeLaw::Empirical { values: vec![] };
        registry::parse(&params, &none).ok()
    }

    /// The spec under the entry's name: the registry stamps every spec its entry's parser
    /// returns, so the name written in [`PolicySpec::new`] cannot disagree with the entry's.
    pub(super) fn stamped(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// The policy's name as written in experiment files.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its registry entry.
    pub fn entry(&self) -> &'static PolicyEntry {
        registry::entry(self.name).expect("a spec names a registered policy")
    }

    /// Its parameters in words (empty without parameters).
    pub fn params(&self) -> &str {
        &self.params
    }

    /// The default label used in outputs and figures: the name (with the score for a scored
    /// policy).
    pub fn label(&self) -> String {
        match self.score() {
            Some(score) => format!("{}-{score}", self.name),
            None => self.name.to_string(),
        }
    }

    /// Whether it runs on the multi-resource path with a packing scorer.
    pub fn is_scored(&self) -> bool {
        matches!(self.how, How::Scored { .. })
    }

    /// Whether the saturation rule gives its limit: a single-resource policy that serves jobs in
    /// arrival order ([`PolicyEntry::fifo_service`]).
    pub fn saturation_rule(&self) -> bool {
        !self.is_scored() && self.entry().fifo_service
    }

    /// Its cost per simulated slot relative to BF-J/S's ([`PolicyEntry::cost`]).
    pub fn cost(&self) -> f64 {
        self.entry().cost
    }

    /// A scored policy's discipline and scorer (`None` for a single-resource policy).
    pub fn placement(&self) -> Option<(Discipline, Scorer)> {
        match self.how {
            How::Scored { discipline, scorer } => Some((discipline, scorer)),
            How::Single(_) => None,
        }
    }

    /// A scored policy's scorer as named in the file.
    pub fn score(&self) -> Option<&str> {
        match self.how {
            How::Scored { .. } => self.params.strip_prefix("score = "),
            How::Single(_) => None,
        }
    }

    /// A fresh single-resource policy for `servers` empty servers; `None` for a scored policy,
    /// which runs on the multi-resource path.
    pub fn build(&self, servers: usize) -> Option<Box<dyn Policy>> {
        match &self.how {
            How::Single(r) => Some(r.build(servers)),
            How::Scored { .. } => None,
        }
    }

    /// Simulates one run of a fresh policy on the unit servers of `cluster` fed by `source`,
    /// the slot loop compiled for the policy's own type; `None` for a scored policy.
    pub fn run<S: Source<Job> + 'static>(
        &self,
        source: &mut S,
        cluster: &mut Cluster,
        cfg: &RunConfig,
    ) -> Option<Result<RunResult, SimError>> {
        let How::Single(r) = &self.how else {
            return None;
        };
        let any = source as &mut dyn Any;
        if let Some(s) = any.downcast_mut::<JobSource>() {
            return Some(r.run_jobs(s, cluster, cfg));
        }
        if let Some(s) = any.downcast_mut::<TraceSource>() {
            return Some(r.run_trace(s, cluster, cfg));
        }
        Some(r.run_any(source, cluster, cfg))
    }
}

impl PartialEq for PolicySpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.params == other.params
    }
}

impl fmt::Debug for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicySpec")
            .field("name", &self.name)
            .field("params", &self.params)
            .finish()
    }
}

/// A spec in an experiment's canonical form (its journal's identity): the name and the
/// parameters in words.
impl serde::Serialize for PolicySpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.name, &self.params).serialize(s)
    }
}
