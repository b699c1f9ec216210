//! Not part of packlab's API: the pieces of the experiment engine that packlab's own
//! benchmarks (`benches/journal.rs`, `benches/constraints.rs`) time. Hidden from the
//! documentation; it may change at any release.

use std::path::Path;
use std::time::Instant;

use crate::experiment::engine::{Kind, Options, journal_header, run_in_memory, run_kind};
use crate::experiment::journal::{Journal, SYNC_EVERY};
use crate::experiment::{Experiment, ExperimentError, PackingExperiment};
use crate::packing::snapshot::Snapshot;

/// The journal's own cost against a unit's, measured one after the other on one thread.
#[derive(Debug)]
pub struct Direct {
    /// Units in the plan.
    pub units: usize,
    /// Seconds per unit.
    pub unit: f64,
    /// Seconds to encode and append one unit's record.
    pub record: f64,
    /// Bytes per record.
    pub bytes: u64,
    /// Seconds of one sync to disk.
    pub sync: f64,
    /// How often a run syncs, in seconds (on the journal's own thread).
    pub sync_every: f64,
}

/// Runs every unit of the queueing experiment `text`, then journals their results into a fresh
/// `dir/journal` as a run does.
pub fn journal_direct(text: &str, dir: &Path) -> Result<Direct, ExperimentError> {
    let exp = Experiment::parse(Path::new("journal-bench.toml"), text)?;
    let plan = exp.plan();
    let t = Instant::now();
    let done = plan
        .iter()
        .map(|u| exp.run_unit(u, &crate::experiment::steps::Steps::none()))
        .collect::<Result<Vec<_>, _>>()?;
    let unit = t.elapsed().as_secs_f64() / plan.len() as f64;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("a temporary folder");
    let header = journal_header(&exp, false, &plan, (1, 1));
    let mut journal = Journal::create(&dir.join("journal"), &header)?;
    let t = Instant::now();
    for (i, d) in done.iter().enumerate() {
        journal.append_record(&Journal::encode(i as u32, d))?;
    }
    let record = t.elapsed().as_secs_f64() / plan.len() as f64;
    let t = Instant::now();
    journal.sync()?;
    let sync = t.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(dir.join("journal"))
        .map(|m| m.len())
        .unwrap_or(0)
        / plan.len() as u64;
    Ok(Direct {
        units: plan.len(),
        unit,
        record,
        bytes,
        sync,
        sync_every: SYNC_EVERY.as_secs_f64(),
    })
}

/// Seconds of the whole queueing experiment `text` in memory and through the journal into a
/// fresh `dir` as shard 1 of 1 (the journal only, no output files), on `threads` threads.
pub fn journal_whole(
    text: &str,
    dir: &Path,
    threads: usize,
) -> Result<(f64, f64), ExperimentError> {
    let exp = Experiment::parse(Path::new("journal-bench.toml"), text)?;
    let t = Instant::now();
    run_in_memory(&exp, Some(threads))?;
    let memory = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(dir);
    let opts = Options {
        threads: Some(threads),
        shard: Some((1, 1)),
        ..Default::default()
    };
    let t = Instant::now();
    run_kind(exp, opts, dir)?;
    Ok((memory, t.elapsed().as_secs_f64()))
}

/// The snapshot a packing experiment file evaluates, with its synthesised placement constraints.
pub fn packing_snapshot(file: &Path, text: &str) -> Result<Snapshot, ExperimentError> {
    Ok(PackingExperiment::parse(file, text)?.snapshot)
}
