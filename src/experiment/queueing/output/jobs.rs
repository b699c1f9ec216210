//! `jobs_p{point}_r{rep}.csv`: with `[run] export_jobs = true`, each (point, replication)'s job stream as the trace
//! CSV that replays it, so that another simulator can be given the same jobs.

use std::path::{Path, PathBuf};

use super::super::Experiment;
use super::super::analysis::Outcome;
use super::super::plan;
use super::super::run::job_source;
use crate::experiment::ExperimentError;
use crate::experiment::common::write_with;
use crate::model::Job;
use crate::workload::Source as _;

/// Writes `jobs_p{point}_r{rep}.csv` for every (point, replication) of the sweep: the jobs of
/// slots 0 to the longest of its runs (every policy sees the same jobs there), one row per job
/// in arrival order, `arrival,duration,cpu` (slot, service slots, fraction of a server, exact
/// to the last bit) and `class` (0-based) when the workload has classes. Replayed with
/// `trace = { format = "csv", slot = 1, start = 0, end = <slots>, size = "cpu" }` it gives
/// every run the same jobs.
pub(super) fn write_jobs(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    if !exp.run.export_jobs || exp.policies.is_empty() {
        return Ok(Vec::new());
    }
    let classes = exp.workload.classes().is_some();
    let mut files = Vec::new();
    for point in 0..exp.points.len() {
        for rep in 0..exp.run.replications {
            let slots = out
                .runs
                .iter()
                .filter(|r| r.point == point && r.replication == rep)
                .map(|r| r.result.slots)
                .max()
                .unwrap_or(0);
            let scenario = plan::run(exp, 0, point, rep).scenario;
            let Some(mut source) = job_source(&scenario, &exp.header.file)? else {
                continue;
            };
            let path = dir.join(format!("jobs_p{point}_r{rep}.csv"));
            files.push(write_with(path, |w| {
                w.write_all(if classes {
                    b"arrival,duration,cpu,class\n"
                } else {
                    b"arrival,duration,cpu\n"
                })?;
                let mut batch: Vec<Job> = Vec::new();
                for t in 0..slots {
                    batch.clear();
                    source.batch(t, &mut batch);
                    for j in &batch {
                        write!(w, "{t},{},{}", j.service, j.size.as_f64())?;
                        if classes {
                            write!(w, ",{}", j.kind)?;
                        }
                        w.write_all(b"\n")?;
                    }
                }
                Ok(())
            })?);
        }
    }
    Ok(files)
}
