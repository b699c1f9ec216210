//! What the registry knows of a policy ([`super::registry`]).

use super::PolicySpec;
use super::params::{ParamError, PolicyParams};
use crate::workload::SizeLaw;

/// One policy as experiment files name it.
pub struct PolicyEntry {
    /// The name in `[[policy]] name = …`.
    pub name: &'static str,
    /// The keys of a `[[policy]]` table it takes besides `name` and `label`.
    pub keys: &'static [&'static str],
    /// One line for `--help` and the docs.
    pub doc: &'static str,
    /// Validates the table's parameters (the size law for policies that need finitely many
    /// sizes).
    pub parse: fn(&PolicyParams<'_>, &SizeLaw) -> Result<PolicySpec, ParamError>,
    /// Its colour in figures (RGB).
    pub colour: (u8, u8, u8),
}
