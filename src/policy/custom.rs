//! Policies written outside packlab: a researcher's policy implements [`super::Policy`],
//! registers a [`super::PolicyEntry`] whose parser returns a [`CustomSpec`], and experiment
//! files then name it like a built-in policy (`examples/worst_fit.rs` walks through it).

use std::fmt;
use std::sync::Arc;

use super::Policy;

/// How to build a policy for a number of servers.
type Build = Arc<dyn Fn(usize) -> Box<dyn Policy> + Send + Sync>;

/// A policy from outside the crate, with its parameters validated: its registered name, its
/// parameters in words (they identify the experiment in its journal and tell runs apart), and
/// how to build a fresh one for `servers` empty servers.
#[derive(Clone)]
pub struct CustomSpec {
    name: &'static str,
    params: String,
    build: Build,
}

impl CustomSpec {
    /// The policy registered as `name`, with parameters `params` (in words, e.g. `"ties =
    /// lowest"`; empty without parameters), built by `build` for a number of servers.
    pub fn new(
        name: &'static str,
        params: impl Into<String>,
        build: impl Fn(usize) -> Box<dyn Policy> + Send + Sync + 'static,
    ) -> Self {
        CustomSpec {
            name,
            params: params.into(),
            build: Arc::new(build),
        }
    }

    /// Its registered name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// A fresh policy for `servers` empty servers.
    pub fn build(&self, servers: usize) -> Box<dyn Policy> {
        (self.build)(servers)
    }
}

impl fmt::Debug for CustomSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomSpec")
            .field("name", &self.name)
            .field("params", &self.params)
            .finish()
    }
}

impl PartialEq for CustomSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.params == other.params
    }
}
