//! Task placement constraints as Sharma et al. define them ("Modeling and Synthesizing Task
//! Placement Constraints in Google Compute Clusters", SoCC 2011, Section 3): a predicate
//! `attribute operator value` on one machine attribute. Categorical attributes take `=` and `≠`;
//! numeric ones also `<`, `≤`, `>`, `≥`.

use std::cmp::Ordering;
use std::fmt;

/// Is `s` a number in the sense of attribute types: it parses as a finite `f64`. An attribute
/// is numeric when every value of it is one.
pub fn is_number(s: &str) -> bool {
    s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// A relational operator of a constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Op {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Op {
    /// The operator's spelling in files: `=` (or `==`), `!=` (or `≠`), `<`, `<=` (or `≤`), `>`,
    /// `>=` (or `≥`).
    pub fn from_text(s: &str) -> Option<Op> {
        Some(match s {
            "=" | "==" => Op::Eq,
            "!=" | "≠" => Op::Ne,
            "<" => Op::Lt,
            "<=" | "≤" => Op::Le,
            ">" => Op::Gt,
            ">=" | "≥" => Op::Ge,
            _ => return None,
        })
    }

    /// The canonical spelling.
    pub fn text(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }

    /// Does `=` / `≠` suffice (the operators of a categorical attribute)?
    pub fn is_equality(self) -> bool {
        matches!(self, Op::Eq | Op::Ne)
    }

    /// Does the ordering `machine value` vs `constraint value` satisfy the operator?
    pub fn holds(self, o: Ordering) -> bool {
        match self {
            Op::Eq => o == Ordering::Equal,
            Op::Ne => o != Ordering::Equal,
            Op::Lt => o == Ordering::Less,
            Op::Le => o != Ordering::Greater,
            Op::Gt => o == Ordering::Greater,
            Op::Ge => o != Ordering::Less,
        }
    }
}

/// One constraint: attribute, operator, value (the value as written; whether it is compared as
/// a number or as text is the attribute's type, see [`super::table::AttrType`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Constraint {
    /// The attribute.
    pub attr: String,
    /// The comparison.
    pub op: Op,
    /// The value, as written.
    pub value: String,
}

/// Why a constraint's text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not `attribute operator value` (operators =, !=, <, <=, >, >=): {why}")]
pub struct SyntaxError {
    /// The text read.
    pub text: String,
    /// What is wrong with it.
    pub why: &'static str,
}

impl Constraint {
    /// Reads `attr op value`, spaces optional around the operator (`num_cores>=4`,
    /// `kernel = 2.6.32`).
    pub fn parse(text: &str) -> Result<Constraint, SyntaxError> {
        let bad = |why| SyntaxError {
            text: crate::input::shown(text).to_string(),
            why,
        };
        let t = text.trim();
        // the operator: the first run of operator characters
        let is_op = |c: char| matches!(c, '=' | '!' | '<' | '>' | '≠' | '≤' | '≥');
        let start = t.find(is_op).ok_or_else(|| bad("no operator"))?;
        let len = t[start..]
            .find(|c: char| !is_op(c))
            .unwrap_or(t.len() - start);
        let op = Op::from_text(&t[start..start + len]).ok_or_else(|| bad("unknown operator"))?;
        let attr = t[..start].trim();
        let value = t[start + len..].trim();
        if attr.is_empty() {
            return Err(bad("no attribute"));
        }
        if value.is_empty() {
            return Err(bad("no value"));
        }
        let plain = |s: &str| {
            s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+' | ':'))
        };
        if !plain(attr) || !plain(value) {
            return Err(bad(
                "attribute and value are letters, digits and _ - . / + : only",
            ));
        }
        Ok(Constraint {
            attr: attr.to_string(),
            op,
            value: value.to_string(),
        })
    }

    /// Is the constraint satisfied by a machine whose attribute has `value` (`None`: the
    /// machine lacks the attribute, which satisfies no constraint on it, `!=` included)?
    /// `numeric`: compare as numbers (both sides must then parse).
    pub fn satisfied_by(&self, value: Option<&str>, numeric: bool) -> bool {
        let Some(v) = value else { return false };
        let o = if numeric {
            match (v.parse::<f64>(), self.value.parse::<f64>()) {
                (Ok(a), Ok(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Less),
                _ => return false,
            }
        } else {
            v.cmp(self.value.as_str())
        };
        self.op.holds(o)
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.attr, self.op.text(), self.value)
    }
}

/// A task's constraints: sorted, without repeats (the empty set: no constraint).
pub type ConstraintSet = Vec<Constraint>;

/// Reads a task's constraints: `attr op value` items separated by `;` (empty: none), as a
/// sorted set.
pub fn parse_set(text: &str) -> Result<ConstraintSet, SyntaxError> {
    let mut set = text
        .split(';')
        .filter(|s| !s.trim().is_empty())
        .map(Constraint::parse)
        .collect::<Result<Vec<_>, _>>()?;
    set.sort();
    set.dedup();
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_operator_and_spelling() {
        for (t, op) in [
            ("a = 1", Op::Eq),
            ("a==1", Op::Eq),
            ("a != 1", Op::Ne),
            ("a ≠ 1", Op::Ne),
            ("a < 1", Op::Lt),
            ("a <= 1", Op::Le),
            ("a ≤ 1", Op::Le),
            ("a > 1", Op::Gt),
            ("a >= 1", Op::Ge),
            ("a≥1", Op::Ge),
        ] {
            let c = Constraint::parse(t).unwrap();
            assert_eq!(
                (c.attr.as_str(), c.op, c.value.as_str()),
                ("a", op, "1"),
                "{t}"
            );
        }
        for bad in ["a 1", "= 1", "a =", "a => 1", "a <> 1", "a = b c", "a =< 1"] {
            assert!(Constraint::parse(bad).is_err(), "{bad}");
        }
        let s = parse_set("b = 2; a >= 1;; b = 2").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].to_string(), "a >= 1");
    }

    #[test]
    fn every_operator_on_numbers_and_on_text() {
        let c = |t: &str| Constraint::parse(t).unwrap();
        // numeric: 10 compared with 9 as numbers (as text "10" < "9")
        let num = [
            ("n = 10", false),
            ("n != 10", true),
            ("n < 10", true),
            ("n <= 9", true),
            ("n > 9", false),
            ("n >= 9", true),
            ("n >= 9.0", true),
            ("n = 9.0", true),
        ];
        for (t, want) in num {
            assert_eq!(c(t).satisfied_by(Some("9"), true), want, "{t} on 9");
        }
        assert!(c("n > 9").satisfied_by(Some("10"), true));
        assert!(
            !c("n > 9").satisfied_by(Some("10"), false),
            "as text 10 < 9"
        );
        // categorical
        assert!(c("arch = x86").satisfied_by(Some("x86"), false));
        assert!(!c("arch = x86").satisfied_by(Some("arm"), false));
        assert!(c("arch != x86").satisfied_by(Some("arm"), false));
        assert!(!c("arch != x86").satisfied_by(Some("x86"), false));
        // a machine without the attribute satisfies nothing on it
        for t in ["arch = x86", "arch != x86", "n >= 1", "n < 1"] {
            assert!(!c(t).satisfied_by(None, false), "{t}");
            assert!(!c(t).satisfied_by(None, true), "{t}");
        }
    }
}
