//! A `[[policy]]` table's parameters as written, and their validation into what a policy
//! needs (partitions, stalling, sizes, scorers).

use crate::configurations::{MAX_J, Partition};
use crate::model::Size;
use crate::workload::SizeLaw;

/// A `[[policy]]` table as written: the policy's name and the keys it was given besides
/// `name`, `label` and `numa` (which the experiment reads). A policy's parser reads its keys
/// through the typed getters, which refuse a value of the wrong type with the key named.
#[derive(Clone, Copy, Debug)]
pub struct PolicyParams<'a> {
    name: &'a str,
    table: &'a toml::Table,
}

impl<'a> PolicyParams<'a> {
    /// The table of policy `name` with the other keys `table`.
    pub fn new(name: &'a str, table: &'a toml::Table) -> Self {
        PolicyParams { name, table }
    }

    /// The policy's name.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The keys given, by name, in the table's order.
    pub fn given(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.table.keys().map(String::as_str)
    }

    /// An integer key, if given.
    pub fn int(&self, key: &str) -> Result<Option<i64>, ParamError> {
        match self.table.get(key) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) => Ok(Some(*i)),
            Some(v) => Err(ParamError::new(key, "an integer", shown(v))),
        }
    }

    /// A number key (an integer is read as a number), if given.
    pub fn float(&self, key: &str) -> Result<Option<f64>, ParamError> {
        match self.table.get(key) {
            None => Ok(None),
            Some(v) => number(v)
                .map(Some)
                .ok_or_else(|| ParamError::new(key, "a number", shown(v))),
        }
    }

    /// A string key, if given.
    pub fn str(&self, key: &str) -> Result<Option<&'a str>, ParamError> {
        match self.table.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(ParamError::new(key, "a string", shown(v))),
        }
    }

    /// An array-of-numbers key, if given.
    pub fn floats(&self, key: &str) -> Result<Option<Vec<f64>>, ParamError> {
        match self.table.get(key) {
            None => Ok(None),
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| {
                    number(v).ok_or_else(|| ParamError::new(key, "an array of numbers", shown(v)))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(v) => Err(ParamError::new(key, "an array of numbers", shown(v))),
        }
    }
}

/// A TOML number as `f64` (integers included).
fn number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Float(x) => Some(*x),
        toml::Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// A value as a message shows it (its type and, for short values, the value).
fn shown(v: &toml::Value) -> String {
    let text = v.to_string();
    if text.len() <= 40 {
        format!("{} {text}", v.type_str())
    } else {
        v.type_str().to_string()
    }
}

/// A bad parameter: the key (within the policy's table, or a full key when it holds a dot),
/// what is expected, what was given.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// The key.
    pub key: String,
    /// What the key should hold.
    pub expected: String,
    /// What it holds.
    pub got: String,
}

impl ParamError {
    /// The error for `key`: `expected` was expected, `got` given.
    pub fn new(key: &str, expected: impl Into<String>, got: impl std::fmt::Display) -> Self {
        ParamError {
            key: key.to_string(),
            expected: expected.into(),
            got: got.to_string(),
        }
    }
}

/// The partition of a VQS-type policy: `J` (with `partition` = universal or dyadic) or `cuts`.
pub(super) fn partition(p: &PolicyParams<'_>) -> Result<Partition, ParamError> {
    match (p.floats("cuts")?, p.str("partition")?, p.int("J")?) {
        (Some(cuts), None | Some("custom"), None) => {
            let c = cuts
                .iter()
                .map(|&x| {
                    Size::from_f64(x)
                        .filter(|s| *s < Size::ONE)
                        .ok_or_else(|| ParamError::new("cuts", "cut points in (0, 1)", x))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Partition::custom(&c)
                .map_err(|e| ParamError::new("cuts", e.to_string(), format!("{cuts:?}")))
        }
        (Some(_), _, _) => Err(ParamError::new(
            "cuts",
            "no `J` and no `partition` other than \"custom\" next to `cuts`",
            "both",
        )),
        (None, kind, j) => {
            let j = match j {
                Some(j) if (1..=MAX_J as i64).contains(&j) => j as u32,
                Some(j) => {
                    return Err(ParamError::new(
                        "J",
                        format!("an integer in [1, {MAX_J}]"),
                        j,
                    ));
                }
                None => {
                    return Err(ParamError::new(
                        "J",
                        "the partition depth J (an integer in [1, 30]) or `cuts`",
                        "nothing",
                    ));
                }
            };
            match kind {
                None | Some("universal") => Ok(Partition::universal(j)),
                Some("dyadic") => Ok(Partition::dyadic(j)),
                Some(other) => Err(ParamError::new(
                    "partition",
                    "\"universal\" (X_J, default), \"dyadic\" or \"custom\" (with `cuts`)",
                    format!("\"{other}\""),
                )),
            }
        }
    }
}

/// The stalling parameter β of a VQS-type policy, if given.
pub(super) fn stall(p: &PolicyParams<'_>) -> Result<Option<f64>, ParamError> {
    match p.float("stall")? {
        None => Ok(None),
        Some(b) if b > 0.0 && b <= 1.0 => Ok(Some(b)),
        Some(b) => Err(ParamError::new("stall", "a fraction β in (0, 1]", b)),
    }
}

/// The job sizes of a policy that needs finitely many (MaxWeight).
pub(super) fn finite_sizes(sizes: &SizeLaw) -> Result<Vec<Size>, ParamError> {
    // an empty law (no sizes to build for, as `PolicySpec::from_name` passes) is refused too
    let atoms = sizes.atoms().filter(|a| !a.is_empty()).ok_or_else(|| {
        ParamError::new(
            "name",
            "finitely many job sizes for \"max-weight\" (workload.sizes with dist = \"discrete\" or \"empirical\")",
            "a continuous size distribution",
        )
    })?;
    if atoms.len() > 256 {
        return Err(ParamError::new(
            "workload.sizes",
            "at most 256 distinct sizes for \"max-weight\"",
            atoms.len(),
        ));
    }
    let types: Vec<Size> = atoms.into_iter().map(|(s, _)| s).collect();
    crate::configurations::knapsack::tractable(&types).map_err(|got| {
        ParamError::new(
            "workload.sizes",
            format!(
                "for \"max-weight\", {}",
                crate::configurations::knapsack::TRACTABLE
            ),
            got,
        )
    })?;
    Ok(types)
}
