//! The files of an output folder that every kind writes the same way.

use std::path::{Path, PathBuf};

use super::{ClaimResult, MdTable, Report, write_csv};
use crate::experiment::{ExperimentError, VERSION};
use crate::plot::{Chart, render};

/// Writes `text` to `path`.
pub fn write(path: PathBuf, text: &str) -> Result<PathBuf, ExperimentError> {
    std::fs::write(&path, text).map_err(|source| ExperimentError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Draws `chart` to `<dir>/<file>.png` and `.svg`.
pub fn render_figure(
    dir: &Path,
    chart: &Chart,
    file: &str,
) -> Result<[PathBuf; 2], ExperimentError> {
    let stem = dir.join(file);
    render(chart, &stem).map_err(|e| ExperimentError::Plot {
        path: stem.clone(),
        message: e.to_string(),
    })
}

/// Writes `experiment.toml`: the exact input with the packlab version.
pub fn write_provenance(dir: &Path, file: &Path, source: &str) -> Result<PathBuf, ExperimentError> {
    write(
        dir.join("experiment.toml"),
        &format!(
            "# packlab {VERSION}; input file {}\n{source}",
            file.display()
        ),
    )
}

/// Appends the claims table and the figures to a report.
pub fn report_claims_and_figures(r: &mut Report, claims: &[ClaimResult], figures: &[PathBuf]) {
    if !claims.is_empty() {
        r.line("\n## Claims\n");
        let mut t = MdTable::new(["claim", "expected", "observed", "holds", "evidence"]);
        for c in claims {
            t.row([
                c.claim.as_str(),
                &c.expected,
                &c.observed,
                if c.holds { "yes" } else { "**no**" },
                &c.evidence,
            ]);
        }
        r.table(&t);
    }
    if !figures.is_empty() {
        r.line("\n## Figures\n");
        for f in figures {
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            r.line(format!("![{name}]({name})\n"));
        }
    }
}

/// Creates the output folder.
pub fn create_dir(dir: &Path) -> Result<(), ExperimentError> {
    std::fs::create_dir_all(dir).map_err(|source| ExperimentError::Write {
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes `claims.csv`: `claim, expected, observed, evidence, holds`.
pub fn write_claims(dir: &Path, claims: &[ClaimResult]) -> Result<PathBuf, ExperimentError> {
    write_csv(dir.join("claims.csv"), claims)
}
