//! Eligibility (Algorithm 4 of Sharma et al., SoCC 2011): a machine may run a task when it
//! satisfies every one of the task's constraints. Machines with the same attributes form a
//! *kind*, tasks with the same constraint set a *class*; the table answers "may class c run on
//! kind k" from a matrix computed once, so a placement pays one lookup per machine it looks at.

use std::collections::{BTreeMap, HashMap};

use super::predicate::{Constraint, ConstraintSet, is_number};

/// A machine's attributes: (name, value) pairs sorted by name, e.g. `[("arch", "x86"),
/// ("num_cores", "8")]`.
pub type Properties = Vec<(String, String)>;

/// How an attribute's values compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum AttrType {
    /// Text; constraints use `=` and `!=`.
    Categorical,
    /// Numbers (every machine's value parses as one); every operator.
    Numeric,
}

/// A constraint set that cannot be used on this cluster.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConstraintError {
    /// A constraint's text is not a constraint.
    #[error(transparent)]
    Syntax(#[from] super::predicate::SyntaxError),
    /// An attribute no machine has.
    #[error("unknown attribute `{attr}` in `{constraint}` (the machines have: {known})")]
    UnknownAttribute {
        /// The attribute.
        attr: String,
        /// The constraint naming it.
        constraint: String,
        /// The attributes the machines have.
        known: String,
    },
    /// An ordering operator on a categorical attribute.
    #[error(
        "operator `{op}` in `{constraint}` needs a numeric attribute, and `{attr}` is categorical (use = or !=)"
    )]
    OperatorForType {
        /// The operator.
        op: &'static str,
        /// The attribute.
        attr: String,
        /// The constraint.
        constraint: String,
    },
    /// A numeric attribute compared with text.
    #[error("`{constraint}`: `{attr}` is numeric, and `{value}` is not a number")]
    NotANumber {
        /// The attribute.
        attr: String,
        /// The value.
        value: String,
        /// The constraint.
        constraint: String,
    },
    /// A constraint set no machine satisfies.
    #[error("no machine satisfies every constraint of `{set}`: such a task could never run")]
    Unsatisfiable {
        /// The set, as written.
        set: String,
    },
    /// Too many (set, attribute row) pairs to decide.
    #[error(
        "{classes} distinct constraint sets on {kinds} distinct machine attribute rows: more \
         than {} pairs to decide eligibility for",
        crate::limits::MAX_ELIGIBILITY
    )]
    TooLarge {
        /// Distinct constraint sets.
        classes: usize,
        /// Distinct machine attribute rows.
        kinds: usize,
    },
}

/// The constraints of a set, as written in files (`a = 1; b >= 2`).
pub fn set_text(set: &ConstraintSet) -> String {
    set.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Machine kinds, task classes and which class may run on which kind.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Eligibility {
    types: BTreeMap<String, AttrType>,
    kinds: Vec<Properties>,
    classes: Vec<ConstraintSet>,
    /// `classes` by value (derived from it, not part of the identity).
    #[serde(skip)]
    class_index: HashMap<ConstraintSet, u32>,
    /// `allowed[class][kind]`.
    allowed: Vec<Vec<bool>>,
}

impl Eligibility {
    /// The table for machines of the given kinds (distinct attribute rows), with class 0, the
    /// empty constraint set, allowed everywhere. An attribute is numeric when every kind that
    /// has it gives a number, categorical otherwise.
    pub fn new(kinds: Vec<Properties>) -> Self {
        let mut types: BTreeMap<String, AttrType> = BTreeMap::new();
        for k in &kinds {
            for (a, v) in k {
                let t = if is_number(v) {
                    AttrType::Numeric
                } else {
                    AttrType::Categorical
                };
                let e = types.entry(a.clone()).or_insert(t);
                if t == AttrType::Categorical {
                    *e = AttrType::Categorical;
                }
            }
        }
        let n = kinds.len();
        let mut e = Eligibility {
            types,
            kinds,
            classes: Vec::new(),
            class_index: HashMap::new(),
            allowed: Vec::new(),
        };
        e.classes.push(Vec::new());
        e.class_index.insert(Vec::new(), 0);
        e.allowed.push(vec![true; n]);
        e
    }

    /// Groups per-machine attribute rows into kinds: the table and each machine's kind.
    pub fn from_machines(rows: &[Properties]) -> (Self, Vec<u32>) {
        let mut index: HashMap<&Properties, u32> = HashMap::new();
        let mut kinds = Vec::new();
        let kind_of = rows
            .iter()
            .map(|r| {
                *index.entry(r).or_insert_with(|| {
                    kinds.push(r.clone());
                    (kinds.len() - 1) as u32
                })
            })
            .collect();
        (Eligibility::new(kinds), kind_of)
    }

    /// The type of attribute `attr`, if any machine has it.
    pub fn attr_type(&self, attr: &str) -> Option<AttrType> {
        self.types.get(attr).copied()
    }

    /// Is `c` well formed for this cluster: a known attribute, an operator its type allows, a
    /// number where the attribute is numeric?
    pub fn check(&self, c: &Constraint) -> Result<(), ConstraintError> {
        match self.types.get(&c.attr) {
            None => Err(ConstraintError::UnknownAttribute {
                attr: c.attr.clone(),
                constraint: c.to_string(),
                known: if self.types.is_empty() {
                    "none".into()
                } else {
                    self.types.keys().cloned().collect::<Vec<_>>().join(", ")
                },
            }),
            Some(AttrType::Categorical) if !c.op.is_equality() => {
                Err(ConstraintError::OperatorForType {
                    op: c.op.text(),
                    attr: c.attr.clone(),
                    constraint: c.to_string(),
                })
            }
            Some(AttrType::Numeric) if !is_number(&c.value) => Err(ConstraintError::NotANumber {
                attr: c.attr.clone(),
                value: c.value.clone(),
                constraint: c.to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// Does a machine of kind `kind` satisfy `c` (Algorithm 4 for one constraint)?
    pub fn satisfies(&self, kind: u32, c: &Constraint) -> bool {
        let props = &self.kinds[kind as usize];
        let value = props
            .binary_search_by(|(a, _)| a.as_str().cmp(&c.attr))
            .ok()
            .map(|i| props[i].1.as_str());
        c.satisfied_by(value, self.types.get(&c.attr) == Some(&AttrType::Numeric))
    }

    /// The class of constraint set `set` (sorted, without repeats), added if new. Refuses a
    /// malformed constraint and a set no machine kind satisfies.
    pub fn class_of(&mut self, set: &ConstraintSet) -> Result<u32, ConstraintError> {
        if let Some(&c) = self.class_index.get(set) {
            return Ok(c);
        }
        let (classes, kinds) = (self.classes.len() + 1, self.kinds.len());
        if (classes as u64) * (kinds as u64) > crate::limits::MAX_ELIGIBILITY {
            return Err(ConstraintError::TooLarge { classes, kinds });
        }
        for c in set {
            self.check(c)?;
        }
        let row: Vec<bool> = (0..self.kinds.len() as u32)
            .map(|k| set.iter().all(|c| self.satisfies(k, c)))
            .collect();
        if !row.iter().any(|&b| b) {
            return Err(ConstraintError::Unsatisfiable { set: set_text(set) });
        }
        let id = self.classes.len() as u32;
        self.classes.push(set.clone());
        self.class_index.insert(set.clone(), id);
        self.allowed.push(row);
        Ok(id)
    }

    /// May a task of class `class` run on a machine of kind `kind`?
    #[inline]
    pub fn allowed(&self, class: u32, kind: u32) -> bool {
        self.allowed[class as usize][kind as usize]
    }

    /// The kinds class `class` may run on.
    pub fn allowed_kinds(&self, class: u32) -> &[bool] {
        &self.allowed[class as usize]
    }

    /// Machine kinds that every class treats alike (the same column of the table) form one
    /// group: each kind's group, numbered in order of first appearance, and
    /// `allowed[class][group]`.
    pub fn groups(&self) -> (Vec<u32>, Vec<Vec<bool>>) {
        let classes = self.classes.len() as u32;
        let mut index: HashMap<Vec<bool>, u32> = HashMap::new();
        let mut allowed: Vec<Vec<bool>> = vec![Vec::new(); classes as usize];
        let group_of_kind = (0..self.kinds.len() as u32)
            .map(|k| {
                let column: Vec<bool> = (0..classes).map(|c| self.allowed(c, k)).collect();
                let next = index.len() as u32;
                *index.entry(column.clone()).or_insert_with(|| {
                    for (row, ok) in allowed.iter_mut().zip(&column) {
                        row.push(*ok);
                    }
                    next
                })
            })
            .collect();
        (group_of_kind, allowed)
    }

    /// The same kinds and classes with every class allowed on every kind: the constraints
    /// lifted, the jobs still knowing which they asked for (the denominator of Sharma et al.'s
    /// normalised scheduling delay, SoCC 2011, Section 6).
    pub fn lifted(&self) -> Self {
        Eligibility {
            allowed: self.allowed.iter().map(|r| vec![true; r.len()]).collect(),
            ..self.clone()
        }
    }

    /// Is every class allowed on every kind (nothing to filter)?
    pub fn is_trivial(&self) -> bool {
        self.allowed.iter().all(|r| r.iter().all(|&b| b))
    }

    /// The machine kinds (distinct attribute rows), in index order.
    pub fn kinds(&self) -> &[Properties] {
        &self.kinds
    }

    /// The task classes (distinct constraint sets; class 0 the empty one), in index order.
    pub fn classes(&self) -> &[ConstraintSet] {
        &self.classes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::predicate::parse_set;

    fn props(kv: &[(&str, &str)]) -> Properties {
        let mut p: Properties = kv
            .iter()
            .map(|(a, v)| (a.to_string(), v.to_string()))
            .collect();
        p.sort();
        p
    }

    #[test]
    fn types_are_inferred_and_checked() {
        let mut e = Eligibility::new(vec![
            props(&[("arch", "x86"), ("cores", "8"), ("kernel", "2.6.32")]),
            props(&[("arch", "arm"), ("cores", "16"), ("kernel", "3")]),
        ]);
        assert_eq!(e.attr_type("arch"), Some(AttrType::Categorical));
        assert_eq!(e.attr_type("cores"), Some(AttrType::Numeric));
        assert_eq!(
            e.attr_type("kernel"),
            Some(AttrType::Categorical),
            "one value is not a number"
        );
        let set = |t: &str| parse_set(t).unwrap();
        assert!(matches!(
            e.class_of(&set("disk = 1")),
            Err(ConstraintError::UnknownAttribute { .. })
        ));
        assert!(matches!(
            e.class_of(&set("arch >= x86")),
            Err(ConstraintError::OperatorForType { .. })
        ));
        assert!(matches!(
            e.class_of(&set("cores >= many")),
            Err(ConstraintError::NotANumber { .. })
        ));
        assert!(matches!(
            e.class_of(&set("arch = x86; cores > 8")),
            Err(ConstraintError::Unsatisfiable { .. })
        ));
        let a = e.class_of(&set("cores > 8")).unwrap();
        assert_eq!(e.allowed_kinds(a), &[false, true]);
        let b = e.class_of(&set("arch != arm; cores >= 8")).unwrap();
        assert_eq!(e.allowed_kinds(b), &[true, false]);
        assert_eq!(e.class_of(&set("cores >= 8; arch != arm")).unwrap(), b);
        assert_eq!(e.allowed_kinds(0), &[true, true]);
        assert!(!e.is_trivial());
    }
}
