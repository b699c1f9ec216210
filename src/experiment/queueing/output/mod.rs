//! The last stage of a queueing experiment: the tables (CSV), the figures and the report,
//! formatted from the analysis [`Outcome`] and the experiment's labels; nothing is computed
//! here that a claim or another output could need.

mod axes;
mod constraints;
mod delay;
mod delay_figures;
mod figures;
mod jobs;
mod region_map;
mod report;
mod tables;

use std::path::{Path, PathBuf};

use super::Experiment;
use super::analysis::Outcome;
use crate::experiment::ExperimentError;
use crate::experiment::common::create_dir;

/// Writes every output of `out` into `dir` (created if needed); returns the files written.
pub(crate) fn write_outputs(
    exp: &Experiment,
    out: &Outcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    create_dir(dir)?;
    let mut files = tables::write_tables(exp, out, dir)?;
    files.extend(region_map::write_table(exp, out, dir)?);
    files.extend(jobs::write_jobs(exp, out, dir)?);
    let mut figures = figures::draw(exp, out, dir)?;
    figures.extend(region_map::draw(exp, out, dir)?);
    files.extend(figures.iter().flatten().cloned());
    let firsts: Vec<PathBuf> = figures.iter().map(|f| f[0].clone()).collect();
    files.push(crate::experiment::common::write_provenance(
        dir,
        &exp.header.file,
        &exp.header.source,
    )?);
    files.push(crate::experiment::common::write(
        dir.join("report.md"),
        &report::report(exp, out, &firsts),
    )?);
    Ok(files)
}
