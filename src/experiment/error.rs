//! Errors of the experiment layer. Every message names the file, and for a bad value the key
//! and what is expected, so a user can fix the input without reading code.

use std::path::PathBuf;

/// Bad input (exit status 2), a failure to write outputs, or an interruption.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The experiment file could not be read.
    #[error("{}: cannot read the experiment file: {source}", file.display())]
    Read {
        /// The experiment file.
        file: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not TOML, or a value of the wrong type (the parser's message, with the line).
    #[error("{}: {message}", file.display())]
    Parse {
        /// The experiment file.
        file: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A value packlab refuses: the key, what it expects, what it got.
    #[error("{}: {}: expected {expected}, got {got}", file.display(), shown_key(key))]
    Invalid {
        /// The experiment file.
        file: PathBuf,
        /// The key, in full, elements of arrays counted from 0 (`policy[0].J`); messages show
        /// it as TOML writes it, counted from 1 (`` key `J` of [[policy]] #1 ``).
        key: String,
        /// What the key should hold.
        expected: String,
        /// What it holds.
        got: String,
    },
    /// An output could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The output.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A figure could not be drawn.
    #[error("cannot draw {}: {message}", path.display())]
    Plot {
        /// The figure.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The slot loop found a broken invariant (a bug) or was stopped.
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
    /// The journal could not be read or written.
    #[error(transparent)]
    Journal(#[from] super::journal::JournalError),
    /// The output folder's journal is of another experiment (or another packlab).
    #[error(
        "{}: its journal is of another experiment: {what}; run with --fresh to start afresh \
         (its results will be discarded), or choose another --out",
        dir.display()
    )]
    JournalMismatch {
        /// The output folder.
        dir: PathBuf,
        /// What differs.
        what: String,
    },
    /// The output folder cannot be used.
    #[error("output folder {}: {what}", dir.display())]
    Folder {
        /// The output folder.
        dir: PathBuf,
        /// Why.
        what: String,
    },
    /// Another packlab holds the output folder's lock.
    #[error(
        "output folder {} is in use by another packlab ({holder}); wait for it, or choose \
         another --out",
        dir.display()
    )]
    Locked {
        /// The output folder.
        dir: PathBuf,
        /// Who holds the lock (pid and host).
        holder: String,
    },
    /// Shards' journals that cannot be merged.
    #[error("{}: cannot merge: {what}", dir.display())]
    Shards {
        /// The output folder.
        dir: PathBuf,
        /// Why.
        what: String,
    },
    /// A signal stopped the run; the journal keeps `kept` of `total` units, and `runs`
    /// finished runs of units that did not finish (a limit search's runs).
    #[error(
        "interrupted by signal {signal}: {kept} of {total} units kept in the journal of {}{}; \
         run the same command again to resume",
        dir.display(),
        kept_runs(*runs)
    )]
    Interrupted {
        /// The signal's number.
        signal: i32,
        /// Units finished and journaled.
        kept: usize,
        /// Finished runs of unfinished units (limit searches) journaled.
        runs: usize,
        /// Units of the plan.
        total: usize,
        /// The output folder.
        dir: PathBuf,
    },
    /// Submitting to Slurm failed (what went wrong).
    #[error("slurm: {0}")]
    Slurm(String),
    /// A policy broke the model's rules during a run (placed a job where it does not fit,
    /// named a server that does not exist, lost or duplicated a job): its run is stopped.
    #[error(
        "{}: policy \"{policy}\" broke the model's rules during a run: {what}; its run was \
         stopped (a policy of your own: fix it, and check it decision by decision with \
         packlab::policy::testing; a built-in one: a bug in packlab, please report it)",
        file.display()
    )]
    Policy {
        /// The experiment file.
        file: PathBuf,
        /// The policy's label.
        policy: String,
        /// What it did.
        what: String,
    },
    /// A signal stopped units in flight (turned into `Interrupted` by the engine).
    #[error("stopped by a signal")]
    Cancelled,
    /// A linear programme of a stability region failed.
    #[error("{}: {source}", file.display())]
    Region {
        /// The experiment file.
        file: std::path::PathBuf,
        /// The programme's error.
        source: crate::configurations::region::RegionError,
    },
}

/// The words for `runs` finished runs of unfinished units kept (nothing if none).
fn kept_runs(runs: usize) -> String {
    match runs {
        0 => String::new(),
        1 => ", with 1 finished run of a unit still in progress".into(),
        n => format!(", with {n} finished runs of units still in progress"),
    }
}

/// The arrays of tables of experiment files (`[[policy]]`, …): a message names their
/// elements as TOML writes them.
const TABLE_ARRAYS: &[&str] = &[
    "policy",
    "plot",
    "claim",
    "scheduler",
    "region_map.held",
    "constraints.tasks",
    "constraints.machines",
    "numa.machine",
];

/// A key as a message shows it: `` key `run.slots` ``; in an array of tables, the table as
/// TOML writes it, counted from 1 (`` key `J` of [[policy]] #1 ``); in an array of values, the
/// element counted from 1 (`` element #2 of key `region_map.angles` ``).
fn shown_key(key: &str) -> String {
    let Some(open) = key.find('[') else {
        return format!("key `{key}`");
    };
    let prefix = &key[..open];
    let Some((index, rest)) = key[open + 1..].split_once(']') else {
        return format!("key `{key}`");
    };
    let Ok(k) = index.parse::<u64>() else {
        return format!("key `{key}`");
    };
    let n = k + 1;
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    if TABLE_ARRAYS.contains(&prefix) {
        if rest.is_empty() {
            format!("[[{prefix}]] #{n}")
        } else {
            format!("key `{rest}` of [[{prefix}]] #{n}")
        }
    } else if rest.is_empty() {
        format!("element #{n} of key `{prefix}`")
    } else {
        format!("key `{rest}` of element #{n} of `{prefix}`")
    }
}

#[cfg(test)]
mod tests {
    use super::shown_key;

    #[test]
    fn keys_are_shown_as_toml_writes_them_and_counted_from_one() {
        assert_eq!(shown_key("run.slots"), "key `run.slots`");
        assert_eq!(shown_key("policy[0].J"), "key `J` of [[policy]] #1");
        assert_eq!(shown_key("claim[2]"), "[[claim]] #3");
        assert_eq!(
            shown_key("region_map.held[1].rate"),
            "key `rate` of [[region_map.held]] #2"
        );
        assert_eq!(
            shown_key("region_map.angles[3]"),
            "element #4 of key `region_map.angles`"
        );
        assert_eq!(
            shown_key("constraints.tasks[0].frequency"),
            "key `frequency` of [[constraints.tasks]] #1"
        );
    }
}
