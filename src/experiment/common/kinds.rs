//! The kinds of a table that comes in kinds (`[[claim]]`, `[[plot]]`): each kind a descriptor in
//! one list, with its name, the keys it takes, one line of help and its validator, from which
//! validation refuses an unknown kind or a key the kind does not take, and `--help` and the
//! experiment reference list them.

use super::Ctx;
use crate::experiment::ExperimentError;

/// One kind of a table: its name (`kind = "…"`), the keys it takes besides `kind`, one line of
/// help, and its validator `P`.
pub(crate) struct Kind<P> {
    /// The name, as `kind = "…"` writes it.
    pub(crate) name: &'static str,
    /// The keys it takes besides `kind`.
    pub(crate) keys: &'static [&'static str],
    /// One line for `--help` and the reference.
    pub(crate) help: &'static str,
    /// Its validator.
    pub(crate) parse: P,
}

/// The kinds' names in words: `"a", "b" or "c"`.
pub(crate) fn names<P>(kinds: &[Kind<P>]) -> String {
    let quoted: Vec<String> = kinds.iter().map(|k| format!("\"{}\"", k.name)).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// The kind `name` of `kinds`; refused (key `key`, in `table` the table's words) if none.
pub(crate) fn find<'a, P>(
    cx: &Ctx<'_>,
    kinds: &'a [Kind<P>],
    (table, key): (&str, &str),
    name: &str,
) -> Result<&'a Kind<P>, ExperimentError> {
    kinds.iter().find(|k| k.name == name).ok_or_else(|| {
        let hint = crate::words::closest(name, kinds.iter().map(|k| k.name))
            .map_or(String::new(), |w| format!(" (did you mean \"{w}\"?)"));
        cx.bad(
            key,
            &format!("a {table} kind: {}", names(kinds)),
            format!("\"{name}\"{hint}"),
        )
    })
}

/// Refuses a key of `given` (each key of the table's schema and whether the table has it) that
/// kind `kind` of `kinds` does not take, naming the kinds that do; `key` makes the key's full
/// name (`claim[2].rays`).
pub(crate) fn keys_taken<P>(
    cx: &Ctx<'_>,
    (kinds, kind): (&[Kind<P>], &Kind<P>),
    table: &str,
    given: &[(&'static str, bool)],
    key: impl Fn(&str) -> String,
) -> Result<(), ExperimentError> {
    for &(k, present) in given {
        if present && k != "kind" && !kind.keys.contains(&k) {
            let others: Vec<String> = kinds
                .iter()
                .filter(|o| o.keys.contains(&k))
                .map(|o| format!("\"{}\"", o.name))
                .collect();
            return Err(cx.bad(
                &key(k),
                &format!(
                    "only the keys a \"{}\" {table} takes ({}){}",
                    kind.name,
                    if kind.keys.is_empty() {
                        "none but `kind`".to_string()
                    } else {
                        kind.keys
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                    if others.is_empty() {
                        String::new()
                    } else {
                        format!("; `{k}` is a key of {}", others.join(", "))
                    }
                ),
                format!("`{k}`"),
            ));
        }
    }
    Ok(())
}

/// The kinds as `--help` lists them: per kind a line of its name and help, and one of its
/// keys, indented by `indent` spaces.
pub(crate) fn help<P>(kinds: &[Kind<P>], indent: usize) -> String {
    let width = kinds.iter().map(|k| k.name.len()).max().unwrap_or(0);
    kinds
        .iter()
        .map(|k| {
            format!(
                "{:indent$}{:width$}  {}\n{:indent$}{:width$}  keys: {}",
                "",
                k.name,
                k.help,
                "",
                "",
                if k.keys.is_empty() {
                    "none".to_string()
                } else {
                    k.keys.join(", ")
                },
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
