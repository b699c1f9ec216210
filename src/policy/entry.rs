//! What the registry knows of a policy ([`super::registry`]).

use super::PolicySpec;
use super::params::{ParamError, PolicyParams};
use crate::workload::SizeLaw;

/// A `[[policy]]` table's parser: its parameters (and the size law, for policies that need
/// finitely many sizes) into a validated spec.
pub type Parse = fn(&PolicyParams<'_>, &SizeLaw) -> Result<PolicySpec, ParamError>;

/// One policy as experiment files name it: all that packlab needs to know of a policy besides
/// the policy itself. Built with [`PolicyEntry::new`] and its setters, so that a field added
/// later has a default.
#[non_exhaustive]
#[derive(Clone, Copy)]
pub struct PolicyEntry {
    /// The name in `[[policy]] name = …`.
    pub name: &'static str,
    /// The keys of a `[[policy]]` table it takes besides `name`, `label` and `numa`.
    pub keys: &'static [&'static str],
    /// One line for `--help` and the docs.
    pub doc: &'static str,
    /// Validates the table's parameters.
    pub parse: Parse,
    /// Its colour in figures (RGB).
    pub colour: (u8, u8, u8),
    /// Its cost per simulated slot relative to BF-J/S's (1), for the cost estimate a run shows
    /// before it starts.
    pub cost: f64,
    /// It serves jobs in arrival order (FIFO service), so the saturation rule gives its limit:
    /// the load at which it saturates with a queue that never empties (`saturation` claims).
    pub fifo_service: bool,
    /// With `score`, the built-in policy runs on the multi-resource path as this discipline
    /// with that packing scorer (BF-J/S and FIFO-FF).
    pub(crate) scored: Option<crate::model::Discipline>,
    /// The parameters the suites run it with ([`super::testing::check_entry`]): each the keys
    /// of a `[[policy]]` table besides `name`, as TOML (`"J = 2"`, `"J = 2\nstall = 0.5"`);
    /// by default one set, of no keys.
    pub examples: &'static [&'static str],
    /// A plain version of its rule (every decision a linear scan), built from the same keys:
    /// the suites check the policy against it decision by decision.
    pub reference: Option<Parse>,
    /// The most servers it runs on (ServerFilling: one); an experiment file with more is
    /// refused.
    pub max_servers: usize,
    /// It reads each job's service time when the job arrives ([`crate::model::Job::service`]):
    /// a clairvoyant policy (backfilling), said so in the docs' table of policies.
    pub clairvoyant: bool,
}

impl PolicyEntry {
    /// The entry of policy `name` (lowercase letters, digits and `-`), documented by `doc`, its
    /// tables validated by `parse`; no keys, grey in figures, cost 1, not FIFO service.
    pub const fn new(name: &'static str, doc: &'static str, parse: Parse) -> Self {
        PolicyEntry {
            name,
            keys: &[],
            doc,
            parse,
            colour: (127, 127, 127),
            cost: 1.0,
            fifo_service: false,
            scored: None,
            examples: &[""],
            reference: None,
            max_servers: usize::MAX,
            clairvoyant: false,
        }
    }

    /// The most servers it runs on.
    pub const fn max_servers(mut self, servers: usize) -> Self {
        self.max_servers = servers;
        self
    }

    /// It reads each job's service time at arrival.
    pub const fn clairvoyant(mut self) -> Self {
        self.clairvoyant = true;
        self
    }

    /// The parameter sets the suites run it with (see [`PolicyEntry::examples`]).
    pub const fn examples(mut self, examples: &'static [&'static str]) -> Self {
        self.examples = examples;
        self
    }

    /// Its plain version, for the suites (see [`PolicyEntry::reference`]).
    pub const fn reference(mut self, reference: Parse) -> Self {
        self.reference = Some(reference);
        self
    }

    /// The keys its tables take.
    pub const fn keys(mut self, keys: &'static [&'static str]) -> Self {
        self.keys = keys;
        self
    }

    /// Its colour in figures (RGB): for a series labelled with its name (a `[[policy]]` table
    /// whose `label` is another word takes the palette's next colour instead).
    pub const fn colour(mut self, rgb: (u8, u8, u8)) -> Self {
        self.colour = rgb;
        self
    }

    /// Its cost per simulated slot relative to BF-J/S's.
    pub const fn cost(mut self, cost: f64) -> Self {
        self.cost = cost;
        self
    }

    /// With `score`, it runs on the multi-resource path as `discipline`.
    pub(crate) const fn scored(mut self, discipline: crate::model::Discipline) -> Self {
        self.scored = Some(discipline);
        self
    }

    /// It serves jobs in arrival order (the saturation rule applies).
    pub const fn fifo_service(mut self) -> Self {
        self.fifo_service = true;
        self
    }
}
