//! Every policy an experiment file can name, one entry each: name, parameter keys, a line of
//! documentation, how its parameters are validated, and its colour in figures. Validation
//! messages, `--help`, figures and benchmarks read this list, so adding a policy is its own
//! file (the [`super::Policy`] and its [`PolicyEntry`]) and one line here.

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

/// The entry named `name`.
pub fn entry(name: &str) -> Option<&'static PolicyEntry> {
    POLICIES.iter().copied().find(|e| e.name == name)
}

/// Every policy name, comma-separated (for messages).
pub fn names() -> String {
    POLICIES
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The policies that take `key`, comma-separated (for messages).
pub fn taking(key: &str) -> String {
    POLICIES
        .iter()
        .filter(|e| e.keys.contains(&key))
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(" and ")
}

/// The figure colour of a series labelled `label`: its policy's colour when the label's first
/// word names a policy.
pub fn colour(label: &str) -> Option<(u8, u8, u8)> {
    let base = label.split_whitespace().next().unwrap_or(label);
    entry(base).map(|e| e.colour)
}

/// `--help`'s list of policies: a line each.
pub fn help() -> String {
    POLICIES
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
    let e = entry(params.name).ok_or_else(|| ParamError {
        key: "name",
        expected: format!("one of {}", names()),
        got: format!("\"{}\"", params.name),
    })?;
    for key in params.given() {
        if !e.keys.contains(&key) {
            let takers = taking(key);
            return Err(ParamError {
                key,
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
    (e.parse)(params, sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for (i, e) in POLICIES.iter().enumerate() {
            assert!(POLICIES[..i].iter().all(|o| o.name != e.name));
            assert_eq!(entry(e.name).map(|x| x.name), Some(e.name));
            assert!(!e.doc.is_empty());
        }
    }
}
