//! Every policy an experiment file can name, one entry each: name, parameter keys, a line of
//! documentation, how its parameters are validated, its colour in figures, its cost per slot
//! (for the estimate shown before a run) and whether it serves jobs in arrival order (the
//! saturation rule). Validation messages, `--help`, figures, cost estimates, claims and
//! benchmarks read this list, so adding a built-in policy is its own file (the
//! [`super::Policy`] and its [`PolicyEntry`]) and one line here; a program's own policies join
//! them in a [`Registry`] value.

pub use super::entry::PolicyEntry;
use super::params::{ParamError, PolicyParams};
use super::{
    PolicySpec, backfilling, bestfit, fifo, first_fit, maxweight, server_filling, smash, vqs,
};
use crate::workload::SizeLaw;

/// Every policy, in the order `--help` lists them.
pub const POLICIES: &[&PolicyEntry] = &[
    &bestfit::BF_JS,
    &bestfit::BF_J,
    &bestfit::BF_S,
    &fifo::FIFO_FF,
    &vqs::VQS,
    &vqs::VQS_BF,
    &maxweight::MAX_WEIGHT,
    &first_fit::FIRST_FIT,
    &smash::SMASH,
    &backfilling::BACKFILLING,
    &server_filling::SERVER_FILLING,
];

/// The policies a program offers: the built-in ones ([`POLICIES`]) and its own, each name
/// once. A registry is a plain value: loading an experiment file with one
/// ([`crate::experiment::ExperimentFile::load_with`]) is the only way its policies reach a
/// run, and [`crate::cli::main`] takes the one its command line offers.
///
/// `--help` lists every policy with its keys; an experiment file may name any. A policy's entry
/// says what packlab may do with it: its colour in figures ([`PolicyEntry::colour`], used for
/// a series whose label is the policy's name, or whose first word is where a label has
/// several; any other label takes the next colour of the palette), its cost per slot for estimates, and whether it serves
/// jobs in arrival order ([`PolicyEntry::fifo_service`]: only then may a `saturation` claim be
/// made of it, and the saturated system simulated is that policy's own). Its parser reads the
/// policy's keys ([`PolicyParams`]) and returns a [`PolicySpec::new`] whose `params` string
/// names every parameter value (it tells runs apart and identifies the experiment in its
/// journal); the registry stamps the entry into the spec, so the name is written once.
#[derive(Clone, Default)]
pub struct Registry {
    own: Vec<PolicyEntry>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.entries().map(|e| e.name))
            .finish()
    }
}

impl Registry {
    /// The built-in policies ([`POLICIES`]).
    pub const fn builtin() -> Self {
        Registry { own: Vec::new() }
    }

    /// This registry and `entry`: refused when its name is not `[a-z0-9-]+` or is taken (by a
    /// built-in policy or one of this registry's).
    pub fn with(mut self, entry: PolicyEntry) -> Result<Self, String> {
        check_name(&entry)?;
        if self.entry(entry.name).is_some() {
            return Err(format!("a policy named `{}` exists already", entry.name));
        }
        self.own.push(entry);
        Ok(self)
    }

    /// Its own entries (besides the built-in ones), in the order they were added.
    pub fn own(&self) -> &[PolicyEntry] {
        &self.own
    }

    /// Every entry: the built-in ones, then its own, in the order `--help` lists them.
    pub fn entries(&self) -> impl Iterator<Item = &PolicyEntry> {
        POLICIES.iter().copied().chain(self.own.iter())
    }

    /// The entry named `name`.
    pub fn entry(&self, name: &str) -> Option<&PolicyEntry> {
        self.entries().find(|e| e.name == name)
    }

    /// Every policy name, comma-separated (for messages).
    pub(crate) fn names(&self) -> String {
        self.entries()
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The policies that take `key`, comma-separated (for messages).
    pub(crate) fn taking(&self, key: &str) -> String {
        self.entries()
            .filter(|e| e.keys.contains(&key))
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(" and ")
    }

    /// The figure colour of a series labelled `label`: its policy's colour when the label's
    /// first word names a policy.
    pub(crate) fn colour(&self, label: &str) -> Option<(u8, u8, u8)> {
        let base = label.split_whitespace().next().unwrap_or(label);
        self.entry(base).map(|e| e.colour)
    }

    /// `--help`'s list of policies: a line each.
    pub fn help(&self) -> String {
        self.entries()
            .map(|e| {
                let keys = if e.keys.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", e.keys.join(", "))
                };
                format!("  {}{keys}: {}", e.name, e.doc)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Refuses a key of `params` that `e` does not take, naming the policies that do.
    pub(crate) fn check_keys(
        &self,
        e: &PolicyEntry,
        params: &PolicyParams<'_>,
    ) -> Result<(), ParamError> {
        for key in params.given() {
            if !e.keys.contains(&key) {
                let takers = self.taking(key);
                let mut expected = format!("no `{key}` for policy \"{}\"", e.name);
                if let Some(near) = crate::words::closest(key, e.keys.iter().copied()) {
                    expected.push_str(&format!(" (did you mean `{near}`?)"));
                } else if !takers.is_empty() {
                    expected.push_str(&format!(" (only {takers} take it)"));
                }
                // every key it takes, never cut
                expected.push_str(&if e.keys.is_empty() {
                    format!(
                        "; \"{}\" takes no keys besides name, label and numa",
                        e.name
                    )
                } else {
                    format!("; \"{}\" takes {}", e.name, e.keys.join(", "))
                });
                return Err(ParamError {
                    key: key.to_string(),
                    expected,
                    got: "a value".into(),
                });
            }
        }
        Ok(())
    }

    /// Validates a `[[policy]]` table of a single-resource policy: its name, the keys it
    /// takes, then its entry's parser. A `score` (the multi-resource form of BF-J/S and
    /// FIFO-FF) is the experiment file's to validate and is refused here.
    pub fn parse(
        &self,
        params: &PolicyParams<'_>,
        sizes: &SizeLaw,
    ) -> Result<PolicySpec, ParamError> {
        let e = self.entry(params.name()).ok_or_else(|| ParamError {
            key: "name".into(),
            expected: format!("one of {}", self.names()),
            got: format!("\"{}\"", params.name()),
        })?;
        if params.given().any(|k| k == SCORE) && e.keys.contains(&SCORE) {
            return Err(ParamError::new(
                SCORE,
                "no `score` for a single-resource policy (a scored policy runs on the \
                 multi-resource path, which an experiment file's validation chooses)",
                "a value",
            ));
        }
        self.check_keys(e, params)?;
        // the entry's name, whatever its parser did
        (e.parse)(params, sizes).map(|spec| spec.stamped(*e))
    }
}

/// The key that chooses a packing scorer (BF-J/S and FIFO-FF on the multi-resource path).
pub(crate) const SCORE: &str = "score";

/// Whether `entry`'s name is one experiment files can write.
fn check_name(entry: &PolicyEntry) -> Result<(), String> {
    let valid = !entry.name.is_empty()
        && entry
            .name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "policy name `{}`: expected [a-z0-9-]+ (experiment files name it)",
            entry.name
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
        Ok(PolicySpec::new("", super::super::FifoFirstFit::new))
    }

    #[test]
    fn a_registry_finds_and_builds_its_own_and_keeps_names_unique() {
        let entry = |name| PolicyEntry::new(name, "a test", fifo).colour((1, 2, 3));
        let r = Registry::builtin().with(entry("test-own")).unwrap();
        assert!(r.clone().with(entry("test-own")).is_err());
        assert!(r.clone().with(entry("bf-js")).is_err());
        assert!(r.clone().with(entry("Bad Name")).is_err());
        assert_eq!(r.colour("test-own"), Some((1, 2, 3)));
        assert_eq!(r.colour("test-own second"), Some((1, 2, 3)));
        assert!(r.help().contains("test-own: a test"));
        // two registries are two values: the built-in one does not know the other's policy
        assert!(Registry::builtin().entry("test-own").is_none());
        let table = toml::Table::new();
        let none = SizeLaw::Empirical { values: vec![] };
        let spec = r
            .parse(&PolicyParams::new("test-own", &table), &none)
            .unwrap();
        // the parser wrote no name: the registry stamped its entry's
        assert_eq!(spec.name(), "test-own");
        assert_eq!(spec.entry().colour, (1, 2, 3));
        let mut p = spec.build(3);
        assert_eq!(p.waiting(), 0);
        p.enqueue(crate::model::Job {
            id: 0,
            size: crate::model::Size::ONE,
            service: 1,
            arrival: 0,
            class: 0,
            kind: 0,
        });
        assert_eq!(p.waiting(), 1);
        assert!(
            Registry::builtin()
                .parse(&PolicyParams::new("test-own", &table), &none)
                .is_err()
        );
    }

    #[test]
    fn a_score_is_not_a_single_resource_key() {
        let mut table = toml::Table::new();
        table.insert("score".into(), "best-fit".into());
        let none = SizeLaw::Empirical { values: vec![] };
        let e = Registry::builtin()
            .parse(&PolicyParams::new("bf-js", &table), &none)
            .unwrap_err();
        assert_eq!(e.key, "score");
    }

    #[test]
    fn from_name_builds_the_parameterless_policies_only() {
        for name in ["bf-js", "bf-j", "bf-s", "fifo-ff"] {
            assert_eq!(PolicySpec::from_name(name).map(|s| s.name()), Some(name));
        }
        // VQS needs J; MaxWeight needs finitely many sizes
        for name in ["vqs", "vqs-bf", "max-weight", "no-such-policy"] {
            assert!(PolicySpec::from_name(name).is_none(), "{name}");
        }
    }

    #[test]
    fn names_are_unique_and_found() {
        let r = Registry::builtin();
        for (i, e) in POLICIES.iter().enumerate() {
            assert!(POLICIES[..i].iter().all(|o| o.name != e.name));
            assert_eq!(r.entry(e.name).map(|x| x.name), Some(e.name));
            assert!(!e.doc.is_empty());
        }
    }
}
