//! Experiments: a TOML file of one of three kinds, validated once, run, and written out as
//! tables, figures, a report and checked claims.
//!
//! Each kind — `queueing` (simulate policies over a sweep of loads), `region` (compute
//! stability regions by linear programming), `packing` (evaluate placement on a snapshot) —
//! has the same shape: a schema of raw TOML tables, validators into a spec with a shared
//! [`Header`], an `execute` that produces an outcome, and outputs. The `Kind` trait ties them
//! together so that [`ExperimentFile::run`] is one path for all. What kinds share lives in
//! `common`; no kind borrows from another.

pub(crate) mod common;
pub(crate) mod engine;
mod error;
pub(crate) mod folder;
pub(crate) mod journal;
pub(crate) mod memory;
mod pace;
pub(crate) mod packing;
pub(crate) mod queueing;
pub(crate) mod region;
pub mod slurm;
pub(crate) mod steps;

use std::path::{Path, PathBuf};

use crate::policy::registry::Registry;

pub use common::{ClaimResult, Header};
pub(crate) use engine::Kind;
pub use engine::{Options, Ran};
pub use error::ExperimentError;
pub(crate) use packing::PackingExperiment;
pub(crate) use queueing::Experiment;
pub(crate) use region::RegionExperiment;

/// The kinds of a queueing file's `[[plot]]` and `[[claim]]` tables with their keys, for
/// `--help`.
pub(crate) fn table_kinds_help() -> String {
    queueing::table_kinds_help()
}

/// The results version: bumped by any change that alters a committed output or what a journal
/// holds, so that no journal of an earlier build is resumed as this one's (the history is in
/// `figures/RESULTS`, which a test ties to the committed outputs).
pub const RESULTS_VERSION: u32 = journal::RESULTS;

/// The packlab version written into every output for provenance.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A validated experiment file of any kind (queueing, region or packing), ready to run.
#[derive(Clone, Debug)]
pub struct ExperimentFile(Spec);

/// The validated experiment of each kind.
#[derive(Clone, Debug)]
pub(crate) enum Spec {
    /// A queueing file (the default kind).
    Queueing(Box<Experiment>),
    /// A region file.
    Region(Box<RegionExperiment>),
    /// A packing file.
    Packing(Box<PackingExperiment>),
}

impl ExperimentFile {
    /// Reads and validates an experiment file, dispatching on its `kind` key; its policies are
    /// the built-in ones.
    pub fn load(file: &Path) -> Result<Self, ExperimentError> {
        Self::load_with(file, &Registry::builtin())
    }

    /// [`ExperimentFile::load`] for a file that may name the policies of `policies` (the
    /// built-in ones and a program's own).
    pub fn load_with(file: &Path, policies: &Registry) -> Result<Self, ExperimentError> {
        let source = crate::input::read_text(file).map_err(|source| ExperimentError::Read {
            file: file.to_path_buf(),
            source,
        })?;
        Self::parse_with(file, &source, policies)
    }

    /// Validates experiment text of any kind, naming the built-in policies.
    pub fn parse(file: &Path, source: &str) -> Result<Self, ExperimentError> {
        Self::parse_with(file, source, &Registry::builtin())
    }

    /// Validates experiment text of any kind that may name the policies of `policies`.
    pub fn parse_with(
        file: &Path,
        source: &str,
        policies: &Registry,
    ) -> Result<Self, ExperimentError> {
        let table: toml::Table = common::parse_toml(file, source)?;
        let kind = table.get("kind");
        // a misspelt kind is named as such, not as the first key the queueing schema lacks
        if let Some(k) = kind
            && !matches!(k.as_str(), Some("queueing" | "region" | "packing"))
        {
            return Err(ExperimentError::Invalid {
                file: file.to_path_buf(),
                key: "kind".into(),
                expected: "\"queueing\", \"region\" or \"packing\"".into(),
                got: k.to_string(),
            });
        }
        Ok(ExperimentFile(match kind.and_then(|k| k.as_str()) {
            Some("region") => Spec::Region(Box::new(RegionExperiment::parse(file, source)?)),
            Some("packing") => Spec::Packing(Box::new(PackingExperiment::parse(file, source)?)),
            _ => Spec::Queueing(Box::new(Experiment::parse_with(file, source, policies)?)),
        }))
    }

    /// The experiment's header.
    pub fn header(&self) -> &Header {
        match &self.0 {
            Spec::Queueing(e) => e.header(),
            Spec::Region(e) => e.header(),
            Spec::Packing(e) => e.header(),
        }
    }

    fn header_mut(&mut self) -> &mut Header {
        match &mut self.0 {
            Spec::Queueing(e) => &mut e.header,
            Spec::Region(e) => &mut e.header,
            Spec::Packing(e) => &mut e.header,
        }
    }

    /// The number of units of work (runs, limit searches, replays, …) the experiment plans;
    /// never more than [`crate::limits::MAX_UNITS`].
    pub fn units(&self) -> usize {
        match &self.0 {
            Spec::Queueing(e) => e.plan().len(),
            Spec::Region(e) => e.plan().len(),
            Spec::Packing(e) => e.plan().len(),
        }
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        &self.header().name
    }

    /// Runs the experiment into `dir`: resumes its journal there, runs the rest (or one
    /// shard), writes the outputs (not for a shard).
    pub fn run(self, opts: Options, dir: &Path) -> Result<Ran, ExperimentError> {
        match self.0 {
            Spec::Queueing(e) => engine::run_kind(*e, opts, dir),
            Spec::Region(e) => engine::run_kind(*e, opts, dir),
            Spec::Packing(e) => engine::run_kind(*e, opts, dir),
        }
    }

    /// Merges shards 1 … `n` in `dir` (run with `quick` or not) into the outputs.
    pub fn merge(self, quick: bool, dir: &Path, n: u32) -> Result<Ran, ExperimentError> {
        self.merge_within(quick, dir, n, None)
    }

    /// [`ExperimentFile::merge`] admitted within `max_memory` bytes (`None`: packlab's
    /// default), estimated before any journal is read.
    pub fn merge_within(
        self,
        quick: bool,
        dir: &Path,
        n: u32,
        max_memory: Option<u64>,
    ) -> Result<Ran, ExperimentError> {
        match self.0 {
            Spec::Queueing(e) => engine::merge_kind(*e, quick, dir, (n, max_memory)),
            Spec::Region(e) => engine::merge_kind(*e, quick, dir, (n, max_memory)),
            Spec::Packing(e) => engine::merge_kind(*e, quick, dir, (n, max_memory)),
        }
    }
}

/// Merges the shards whose journals are in `dir`: finds their number and their experiment file
/// from the journals, reads the file again, and writes the outputs. Shards of the full run are
/// merged if there are any, else those of a `--quick` run. The file names built-in policies
/// only ([`merge_with`] for a program's own).
pub fn merge(dir: &Path) -> Result<Ran, ExperimentError> {
    merge_with(dir, &Registry::builtin())
}

/// [`merge`] of shards whose file may name the policies of `policies`.
pub fn merge_with(dir: &Path, policies: &Registry) -> Result<Ran, ExperimentError> {
    merge_within(dir, policies, None)
}

/// [`merge_with`] admitted within `max_memory` bytes (`None`: packlab's default, as for a
/// run's [`Options::max_memory`]): what the outputs are assembled from is estimated before any
/// journal is read and refused above it.
pub fn merge_within(
    dir: &Path,
    policies: &Registry,
    max_memory: Option<u64>,
) -> Result<Ran, ExperimentError> {
    let internal = dir.join(folder::INTERNAL);
    let bad = |what: String| ExperimentError::Shards {
        dir: dir.to_path_buf(),
        what,
    };
    let entries = std::fs::read_dir(&internal)
        .map_err(|e| bad(format!("no shard journals ({}: {e})", internal.display())))?;
    // (quick, I, N, path): full runs sort first
    let mut found: Vec<(bool, u32, u32, PathBuf)> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("journal-") else {
            continue;
        };
        let (quick, rest) = match rest.strip_prefix("quick-") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        if let Some((i, n)) = rest.split_once("-of-")
            && let (Ok(i), Ok(n)) = (i.parse::<u32>(), n.parse::<u32>())
        {
            if i == 0 || i > n || n > crate::limits::MAX_SHARDS {
                return Err(bad(format!(
                    "{} is not the journal of a shard I of N with 1 ≤ I ≤ N ≤ {} (move it away)",
                    e.path().display(),
                    crate::limits::MAX_SHARDS
                )));
            }
            found.push((quick, i, n, e.path()));
        }
    }
    found.sort();
    let Some((quick, _, n, first)) = found.first().cloned() else {
        return Err(bad(
            "no shard journals (run `packlab FILE --shard I/N` first)".into(),
        ));
    };
    found.retain(|f| f.0 == quick);
    if found.iter().any(|f| f.2 != n) {
        let counts: Vec<String> = found.iter().map(|f| format!("{}/{}", f.1, f.2)).collect();
        return Err(bad(format!(
            "journals of different shardings: {}",
            counts.join(", ")
        )));
    }
    let header =
        journal::header(&first)?.ok_or_else(|| bad(format!("{} vanished", first.display())))?;
    let mut file = ExperimentFile::load_with(&header.file, policies).map_err(|e| match e {
        // a policy this binary does not know: the shards were run by another (a program with
        // policies of its own), which must merge them too
        ExperimentError::Invalid {
            file,
            key,
            expected,
            got,
        } if key.starts_with("policy[") && key.ends_with(".name") => ExperimentError::Invalid {
            file,
            key,
            expected: format!(
                "{expected} — the policies of the binary merging ({}); {}",
                std::env::current_exe()
                    .ok()
                    .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                    .unwrap_or_else(|| "packlab".into()),
                match folder::recorded_program(dir) {
                    Some(program) => format!(
                        "the shards were run by {program}, whose policies the folder's \
                         experiment file ({}) names: merge with it (`{program} merge {}`)",
                        header.file.display(),
                        dir.display()
                    ),
                    None => format!(
                        "if the shards were run by a program with policies of its own, merge \
                         with that program (`PROGRAM merge {}`)",
                        dir.display()
                    ),
                }
            ),
            got,
        },
        e => e,
    })?;
    // outputs name the file as the shards were given it, as a single run would
    file.header_mut().file = header.given;
    file.merge_within(header.quick, dir, n, max_memory)
}
