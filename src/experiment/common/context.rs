//! Errors that name the file, the key and what is expected; the TOML reader; number files.

use std::path::{Path, PathBuf};

use crate::experiment::ExperimentError;
use crate::model::Size;
use crate::policy::registry::Registry;

/// The file being validated: every error names it.
pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a Path,
    /// The data files its keys name, as they are resolved ([`Ctx::path`]).
    inputs: std::cell::RefCell<Vec<PathBuf>>,
    /// The policies its `[[policy]]` tables may name.
    policies: &'a Registry,
}

/// The built-in policies, for contexts that name none of a program's own.
static BUILTIN: Registry = Registry::builtin();

impl<'a> Ctx<'a> {
    /// The context of validating `file` with the built-in policies.
    pub(crate) fn new(file: &'a Path) -> Self {
        Ctx::with_policies(file, &BUILTIN)
    }

    /// The context of validating `file` whose policies are those of `policies`.
    pub(crate) fn with_policies(file: &'a Path, policies: &'a Registry) -> Self {
        Ctx {
            file,
            inputs: Default::default(),
            policies,
        }
    }

    /// The policies the file may name.
    pub(crate) fn policies(&self) -> &'a Registry {
        self.policies
    }

    /// The experiment file and every data file resolved so far: what a run reads.
    pub(crate) fn inputs(&self) -> Vec<PathBuf> {
        let mut all = vec![self.file.to_path_buf()];
        all.extend(self.inputs.borrow().iter().cloned());
        all
    }
}

impl Ctx<'_> {
    /// A bad value: the key, what is expected, what was given.
    pub(crate) fn bad(
        &self,
        key: &str,
        expected: &str,
        got: impl std::fmt::Display,
    ) -> ExperimentError {
        ExperimentError::Invalid {
            file: self.file.to_path_buf(),
            key: key.to_string(),
            expected: expected.to_string(),
            got: got.to_string(),
        }
    }

    /// A path written in the file, relative to the file's folder.
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        let path = self
            .file
            .parent()
            .unwrap_or_else(|| Path::new("."))
            .join(relative);
        self.inputs.borrow_mut().push(path.clone());
        path
    }

    /// An experiment name: 1 to 100 characters of [a-z0-9_-] (it names the output folder).
    pub(crate) fn name(&self, name: &str) -> Result<(), ExperimentError> {
        let ok = short_of(name, |b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_'
        });
        if ok {
            Ok(())
        } else {
            Err(self.bad("name", "a name of 1 to 100 characters of [a-z0-9_-]", name))
        }
    }

    /// A figure's file name (without extension): 1 to 100 characters of `[A-Za-z0-9_.-]`, not
    /// starting with a dot (it names FILE.png and FILE.svg in the output folder).
    pub(crate) fn figure_name(&self, key: &str, name: &str) -> Result<(), ExperimentError> {
        let ok = !name.starts_with('.')
            && short_of(name, |b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
        if ok {
            Ok(())
        } else {
            Err(self.bad(
                key,
                "a file name of 1 to 100 characters of [A-Za-z0-9_.-], not starting with a dot",
                crate::input::shown(name),
            ))
        }
    }

    /// A size in (0, 1], exact on the fixed-point grid.
    pub(crate) fn size(&self, key: &str, x: f64) -> Result<Size, ExperimentError> {
        Size::from_f64(x).ok_or_else(|| self.bad(key, "a size in (0, 1]", x))
    }

    /// An integer ≥ 1.
    pub(crate) fn positive(&self, key: &str, x: i64) -> Result<u64, ExperimentError> {
        if x > 0 {
            Ok(x as u64)
        } else {
            Err(self.bad(key, "an integer ≥ 1", x))
        }
    }

    /// `n` probabilities ≥ 0 adding up to 1.
    pub(crate) fn probs(&self, key: &str, p: &[f64], n: usize) -> Result<(), ExperimentError> {
        if p.len() != n {
            return Err(self.bad(key, &format!("{n} probabilities (one per value)"), p.len()));
        }
        if let Some(x) = p.iter().find(|x| !x.is_finite() || **x < 0.0) {
            return Err(self.bad(key, "probabilities ≥ 0", x));
        }
        let s: f64 = p.iter().sum();
        if (s - 1.0).abs() > 1e-9 {
            return Err(self.bad(key, "probabilities adding up to 1", s));
        }
        Ok(())
    }
    /// The numbers of the file `path` (relative to the experiment file), separated by commas
    /// or white space, `#` starting a comment, each passed with its line to `each`; read line
    /// by line (never whole), at most [`crate::limits::MAX_FILE_VALUES`] of them.
    pub(crate) fn numbers<T>(
        &self,
        key: &str,
        path: &str,
        mut each: impl FnMut(f64, usize, &Path) -> Result<T, ExperimentError>,
    ) -> Result<(PathBuf, Vec<T>), ExperimentError> {
        use std::io::BufRead as _;
        let full = self.path(path);
        let unreadable = |e: std::io::Error| {
            self.bad(
                key,
                "a readable file of sizes",
                format!("{}: {e}", full.display()),
            )
        };
        let mut reader = crate::input::open_text(&full).map_err(unreadable)?;
        let mut out = Vec::new();
        let mut line = String::new();
        let mut n = 0;
        loop {
            line.clear();
            let read = reader.read_line(&mut line);
            if read.map_err(|e| unreadable(crate::input::not_text(e)))? == 0 {
                break;
            }
            n += 1;
            let text = line.split('#').next().unwrap_or("");
            for tok in text.split(|c: char| c == ',' || c.is_whitespace()) {
                if tok.is_empty() {
                    continue;
                }
                let x: f64 = tok.parse().map_err(|_| {
                    self.bad(
                        key,
                        "numbers only",
                        format!("{}:{n}: `{}`", full.display(), crate::input::shown(tok)),
                    )
                })?;
                if out.len() as u64 >= crate::limits::MAX_FILE_VALUES {
                    return Err(self.bad(
                        key,
                        &format!(
                            "at most {} values in a file of sizes",
                            crate::limits::MAX_FILE_VALUES
                        ),
                        format!("more, at {}:{n}", full.display()),
                    ));
                }
                out.push(each(x, n, &full)?);
            }
        }
        Ok((full, out))
    }
}

/// `name` is 1 to 100 bytes, each one `ok` takes (names of experiments and figures).
fn short_of(name: &str, ok: impl Fn(u8) -> bool) -> bool {
    !name.is_empty() && name.len() <= 100 && name.bytes().all(ok)
}

/// Parses TOML text into `T`, naming the file in errors (the TOML error names line, column
/// and key).
pub(crate) fn parse_toml<T: serde::de::DeserializeOwned>(
    file: &Path,
    source: &str,
) -> Result<T, ExperimentError> {
    toml::from_str(source).map_err(|e| {
        let mut message = e.to_string().trim_end().to_string();
        if !message.contains("line") {
            // the parser's own limit on nesting names no line: find it
            if let Some(line) = too_deep(source) {
                message = format!("line {line}: {message}: keys, tables or values nested too deep");
            }
        }
        if let Some(near) = misspelt(&message) {
            message.push_str(&format!("\n(did you mean `{near}`?)"));
        }
        ExperimentError::Parse {
            file: file.to_path_buf(),
            // the parser quotes the offending line whole: keep a message readable, but never
            // cut its own words (the list of expected keys)
            message: message
                .lines()
                .map(|l| {
                    // a quoted line at 160 characters; the parser's words (a list of the
                    // expected keys is under 300) at 1,000, which a key of the file's own
                    // may pass
                    crate::input::shown_long(l, if quoted(l) { 160 } else { 1000 })
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    })
}

/// Whether a line of the TOML parser's message quotes the file (`11 | [numb]`, or the bar and
/// caret under it).
fn quoted(line: &str) -> bool {
    line.trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start()
        .starts_with('|')
}

/// For the parser's "unknown field `x`, expected one of `a`, `b`, …": the expected key
/// closest to `x`, if it is close enough to be a misspelling.
fn misspelt(message: &str) -> Option<&str> {
    let rest = message.split("unknown field `").nth(1)?;
    let (word, rest) = rest.split_once('`')?;
    let expected = rest.split_once("expected one of ")?.1.lines().next()?;
    let keys = expected.split(", ").map(|k| k.trim().trim_matches('`'));
    crate::words::closest(word, keys)
}

/// The first line (from 1) of `source` whose dotted key or bracket nesting passes 100 levels.
fn too_deep(source: &str) -> Option<usize> {
    source
        .lines()
        .position(|l| {
            let key = l.split('=').next().unwrap_or("");
            let dots = key.matches('.').count();
            let mut depth = 0usize;
            let mut deepest = 0usize;
            for c in l.chars() {
                match c {
                    '[' | '{' => {
                        depth += 1;
                        deepest = deepest.max(depth);
                    }
                    ']' | '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            dots > 100 || deepest > 100
        })
        .map(|i| i + 1)
}

impl Ctx<'_> {
    /// `x` if it is at most `max`, else an error naming the key and the limit.
    pub(crate) fn at_most<T: PartialOrd + std::fmt::Display>(
        &self,
        key: &str,
        x: T,
        max: T,
        what: &str,
    ) -> Result<T, ExperimentError> {
        if x <= max {
            Ok(x)
        } else {
            Err(self.bad(key, &format!("at most {max} {what}"), x))
        }
    }

    /// A list of at most [`MAX_LIST`](crate::limits::MAX_LIST) values.
    pub(crate) fn short_list<T>(&self, key: &str, list: &[T]) -> Result<(), ExperimentError> {
        if list.len() <= crate::limits::MAX_LIST {
            Ok(())
        } else {
            Err(self.bad(
                key,
                &format!("at most {} values", crate::limits::MAX_LIST),
                format!("{} values", list.len()),
            ))
        }
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn limits_name_the_key_and_the_bound() {
        let cx = Ctx::new(Path::new("x.toml"));
        assert_eq!(cx.at_most("run.replications", 5u64, 10, "runs").unwrap(), 5);
        let e = cx
            .at_most("run.replications", 11u64, 10, "replications")
            .unwrap_err()
            .to_string();
        assert!(e.contains("run.replications") && e.contains("at most 10") && e.contains("11"));
    }
}
