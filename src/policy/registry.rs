//! Every policy an experiment file can name, one entry each: name, parameter keys, a line of
//! documentation, how its parameters are validated, its colour in figures, its cost per slot
//! (for the estimate shown before a run) and whether it serves jobs in arrival order (the
//! saturation rule). Validation messages, `--help`, figures, cost estimates, claims and
//! benchmarks read this list, so adding a policy is its own file (the [`super::Policy`] and
//! its [`PolicyEntry`]) and one line here.

pub use super::entry::PolicyEntry;
use super::params::{ParamError, PolicyParams};
use super::{PolicySpec, bestfit, fifo, maxweight, vqs};
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
];

/// Policies registered from outside the crate, in the order they were registered.
static REGISTERED: std::sync::RwLock<Vec<&'static PolicyEntry>> =
    std::sync::RwLock::new(Vec::new());

/// The policies a command line offers ([`crate::cli::main`]): the built-in ones and a
/// program's own, each name once.
///
/// `--help` lists every one with its keys; an experiment file may name any. A policy's entry
/// says what packlab may do with it: its colour in figures ([`PolicyEntry::colour`], used
/// under a `label` that is the name itself or starts with it and `-`; other labels take the
/// next colour of the palette), its cost per slot for estimates, and whether it serves jobs in
/// arrival order ([`PolicyEntry::fifo_service`]: only then may a `saturation` claim be made of
/// it, and the saturated system simulated is that policy's own). Its parser reads the
/// policy's keys ([`PolicyParams`]) and returns a [`PolicySpec::new`] whose `params` string
/// names every parameter value (it tells runs apart and identifies the experiment in its
/// journal); the registry stamps the entry's name into the spec.
#[derive(Clone, Default)]
pub struct Registry {
    own: Vec<PolicyEntry>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(POLICIES.iter().map(|e| e.name))
            .entries(self.own.iter().map(|e| e.name))
            .finish()
    }
}

impl Registry {
    /// The built-in policies ([`POLICIES`]).
    pub fn builtin() -> Self {
        Registry::default()
    }

    /// This registry and `entry`: refused when its name is not `[a-z0-9-]+` or is taken (by a
    /// built-in policy, one of this registry's, or one registered in this process).
    pub fn with(mut self, entry: PolicyEntry) -> Result<Self, String> {
        check_name(&entry)?;
        if self.own.iter().any(|e| e.name == entry.name) || self::entry(entry.name).is_some() {
            return Err(format!("a policy named `{}` exists already", entry.name));
        }
        self.own.push(entry);
        Ok(self)
    }

    /// Its own entries (besides the built-in ones), in the order they were added.
    pub fn own(&self) -> &[PolicyEntry] {
        &self.own
    }

    /// Makes this registry's entries the ones experiment files of this process can name (a
    /// process runs one command line). Entries registered already under the same name, by an
    /// earlier call, are kept.
    pub(crate) fn install(&self) -> Result<(), String> {
        for e in &self.own {
            if self::entry(e.name).is_some_and(|known| known.doc == e.doc) {
                continue;
            }
            register(*e)?;
        }
        Ok(())
    }
}

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

/// Registers a policy written outside the crate, so that experiment files can name it: its
/// entry's parser returns a [`PolicySpec::new`]. Refuses a name already taken (by a built-in
/// policy or an earlier registration). The entry lives for the rest of the process. A program
/// with a command line passes its policies to [`crate::cli::main`] in a [`Registry`] instead.
pub fn register(entry: PolicyEntry) -> Result<(), String> {
    check_name(&entry)?;
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if POLICIES
        .iter()
        .chain(registered.iter())
        .any(|e| e.name == entry.name)
    {
        return Err(format!("a policy named `{}` exists already", entry.name));
    }
    registered.push(Box::leak(Box::new(entry)));
    Ok(())
}

/// Every policy: the built-in ones, then those registered.
pub(crate) fn all() -> Vec<&'static PolicyEntry> {
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    POLICIES
        .iter()
        .copied()
        .chain(registered.iter().copied())
        .collect()
}

/// The entry named `name`.
pub fn entry(name: &str) -> Option<&'static PolicyEntry> {
    // no list is built: cost estimates look an entry up for every unit of a plan
    if let Some(e) = POLICIES.iter().find(|e| e.name == name) {
        return Some(e);
    }
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    registered.iter().copied().find(|e| e.name == name)
}

/// Every policy name, comma-separated (for messages).
pub(crate) fn names() -> String {
    all().iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
}

/// The policies that take `key`, comma-separated (for messages).
pub(crate) fn taking(key: &str) -> String {
    all()
        .iter()
        .filter(|e| e.keys.contains(&key))
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(" and ")
}

/// The figure colour of a series labelled `label`: its policy's colour when the label's first
/// word names a policy.
pub(crate) fn colour(label: &str) -> Option<(u8, u8, u8)> {
    let base = label.split_whitespace().next().unwrap_or(label);
    entry(base).map(|e| e.colour)
}

/// `--help`'s list of policies: a line each.
pub fn help() -> String {
    all()
        .iter()
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

/// Validates a `[[policy]]` table: its name, the keys it takes, then its entry's parser.
pub fn parse(params: &PolicyParams<'_>, sizes: &SizeLaw) -> Result<PolicySpec, ParamError> {
    let e = entry(params.name()).ok_or_else(|| ParamError {
        key: "name".into(),
        expected: format!("one of {}", names()),
        got: format!("\"{}\"", params.name()),
    })?;
    for key in params.given() {
        if !e.keys.contains(&key) {
            let takers = taking(key);
            return Err(ParamError {
                key: key.to_string(),
                expected: if takers.is_empty() {
                    format!("no `{key}` for policy \"{}\"", e.name)
                } else {
                    format!(
                        "no `{key}` for policy \"{}\" (only {takers} take it)",
                        e.name
                    )
                },
                got: "a value".into(),
            });
        }
    }
    // the entry's name, whatever name its parser gave the spec
    (e.parse)(params, sizes).map(|spec| spec.stamped(e.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_policy_is_found_and_builds_and_names_are_kept_unique() {
        fn parse(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
            Ok(PolicySpec::new(
                "test-registered",
                "",
                super::super::FifoFirstFit::new,
            ))
        }
        let entry = |name| PolicyEntry::new(name, "a test", parse).colour((1, 2, 3));
        register(entry("test-registered")).unwrap();
        assert!(register(entry("test-registered")).is_err());
        assert!(register(entry("bf-js")).is_err());
        assert!(register(entry("Bad Name")).is_err());
        assert_eq!(colour("test-registered"), Some((1, 2, 3)));
        assert!(help().contains("test-registered: a test"));
        let spec = PolicySpec::from_name("test-registered").unwrap();
        assert_eq!(spec.name(), "test-registered");
        let mut p = spec.build(3).unwrap();
        assert_eq!(p.waiting(), 0);
        p.enqueue(crate::model::Job {
            id: 0,
            size: crate::model::Size::ONE,
            service: 1,
            arrival: 0,
            class: 0,
        });
        assert_eq!(p.waiting(), 1);
        // a parser that names its spec otherwise: the entry's name is the spec's
        fn misnamed(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
            Ok(PolicySpec::new(
                "a-typo",
                "",
                super::super::FifoFirstFit::new,
            ))
        }
        register(PolicyEntry::new("test-misnamed", "a test", misnamed)).unwrap();
        let spec = PolicySpec::from_name("test-misnamed").unwrap();
        assert_eq!(spec.name(), "test-misnamed");
        assert_eq!(spec.entry().name, "test-misnamed");
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
        for (i, e) in POLICIES.iter().enumerate() {
            assert!(POLICIES[..i].iter().all(|o| o.name != e.name));
            assert_eq!(entry(e.name).map(|x| x.name), Some(e.name));
            assert!(!e.doc.is_empty());
        }
    }
}
