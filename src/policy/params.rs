//! A `[[policy]]` table's parameters as written, and their validation into what a policy
//! needs (partitions, stalling, sizes, scorers).

use crate::configurations::{MAX_J, Partition};
use crate::model::Size;
use crate::multi::Discipline;
use crate::packing::place::Scorer;
use crate::workload::SizeLaw;

use super::PolicySpec;

/// The keys of a `[[policy]]` table (besides `label`), as written.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolicyParams<'a> {
    pub name: &'a str,
    pub j: Option<i64>,
    pub partition: Option<&'a str>,
    pub cuts: Option<&'a [f64]>,
    pub stall: Option<f64>,
    pub score: Option<&'a str>,
}

impl PolicyParams<'_> {
    /// The keys given, by name.
    pub fn given(&self) -> Vec<&'static str> {
        [
            ("J", self.j.is_some()),
            ("partition", self.partition.is_some()),
            ("cuts", self.cuts.is_some()),
            ("stall", self.stall.is_some()),
            ("score", self.score.is_some()),
        ]
        .into_iter()
        .filter(|(_, g)| *g)
        .map(|(k, _)| k)
        .collect()
    }
}

/// A bad parameter: the key (within the policy's table, or a full key when it holds a dot),
/// what is expected, what was given.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    pub key: &'static str,
    pub expected: String,
    pub got: String,
}

impl ParamError {
    fn new(key: &'static str, expected: impl Into<String>, got: impl std::fmt::Display) -> Self {
        ParamError {
            key,
            expected: expected.into(),
            got: got.to_string(),
        }
    }
}

/// BF-J/S or FIFO-FF: the plain policy, or with `score` the scored one on the multi-resource
/// path.
pub fn plain_or_scored(
    p: &PolicyParams<'_>,
    plain: PolicySpec,
    discipline: Discipline,
) -> Result<PolicySpec, ParamError> {
    let Some(score) = p.score else {
        return Ok(plain);
    };
    let scorer = Scorer::from_name(score).ok_or_else(|| {
        ParamError::new(
            "score",
            format!("one of {}", Scorer::NAMES.join(", ")),
            format!("\"{score}\""),
        )
    })?;
    Ok(PolicySpec::Scored {
        discipline,
        scorer,
        score: score.to_string(),
    })
}

/// The partition of a VQS-type policy: `J` (with `partition` = universal or dyadic) or `cuts`.
pub fn partition(p: &PolicyParams<'_>) -> Result<Partition, ParamError> {
    match (p.cuts, p.partition, p.j) {
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
pub fn stall(p: &PolicyParams<'_>) -> Result<Option<f64>, ParamError> {
    match p.stall {
        None => Ok(None),
        Some(b) if b > 0.0 && b <= 1.0 => Ok(Some(b)),
        Some(b) => Err(ParamError::new("stall", "a fraction β in (0, 1]", b)),
    }
}

/// The job sizes of a policy that needs finitely many (MaxWeight).
pub fn finite_sizes(sizes: &SizeLaw) -> Result<Vec<Size>, ParamError> {
    let atoms = sizes.atoms().ok_or_else(|| {
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
    Ok(atoms.into_iter().map(|(s, _)| s).collect())
}
