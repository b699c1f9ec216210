//! The files of an output folder that every kind writes the same way.

use std::path::{Path, PathBuf};

use super::{ClaimResult, MdTable, Report, write_csv};
use crate::experiment::{ExperimentError, VERSION};
use crate::plot::{Chart, PlotError, render, suffixed};

/// A temporary name beside `path` (hidden, unpredictable): written first, then renamed into
/// place, so a reader never sees half a file and a crash leaves the old one.
fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".tmp-{}-{name}", crate::fsafe::unpredictable()))
}

/// Moves `from` to `to`, naming `to` in errors.
fn rename(from: &Path, to: &Path) -> Result<(), ExperimentError> {
    std::fs::rename(from, to).map_err(|source| ExperimentError::Write {
        path: to.to_path_buf(),
        source,
    })
}

/// Writes `text` to `path`: to a new temporary file (created exclusively, never through a
/// link), synced, then renamed into place (a link at `path` is replaced, never followed).
pub(crate) fn write(path: PathBuf, text: &str) -> Result<PathBuf, ExperimentError> {
    write_with(path, |w| w.write_all(text.as_bytes()))
}

/// Writes to `path` what `fill` writes (buffered), the way [`write`] does: a file too large to
/// hold as one string.
pub(crate) fn write_with(
    path: PathBuf,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<PathBuf, ExperimentError> {
    let tmp = temporary(&path);
    let err = |source| ExperimentError::Write {
        path: path.clone(),
        source,
    };
    let f = crate::fsafe::create_new(&tmp).map_err(err)?;
    let mut w = std::io::BufWriter::new(f);
    let written = fill(&mut w)
        .and_then(|_| w.into_inner().map_err(std::io::IntoInnerError::into_error))
        .and_then(|f| f.sync_data());
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(e));
    }
    rename(&tmp, &path)?;
    Ok(path)
}

/// Draws `chart` to `<dir>/<file>.png` and `.svg` (by temporary names, then renamed).
pub(crate) fn render_figure(
    dir: &Path,
    chart: &Chart,
    file: &str,
) -> Result<[PathBuf; 2], ExperimentError> {
    render_with(dir, file, |stem| render(chart, stem))
}

/// Runs `draw` on a temporary stem in `dir` and renames its PNG and SVG to `<file>.png` and
/// `<file>.svg`.
pub(crate) fn render_with(
    dir: &Path,
    file: &str,
    draw: impl FnOnce(&Path) -> Result<[PathBuf; 2], PlotError>,
) -> Result<[PathBuf; 2], ExperimentError> {
    let stem = dir.join(file);
    let tmp = dir.join(format!(".tmp-{}-{file}", crate::fsafe::unpredictable()));
    let [png, svg] = draw(&tmp).map_err(|e| ExperimentError::Plot {
        path: stem.clone(),
        message: e.to_string(),
    })?;
    let out = [suffixed(&stem, "png"), suffixed(&stem, "svg")];
    rename(&png, &out[0])?;
    rename(&svg, &out[1])?;
    Ok(out)
}

/// Writes `experiment.toml`: the exact input with the packlab version.
pub(crate) fn write_provenance(
    dir: &Path,
    file: &Path,
    source: &str,
) -> Result<PathBuf, ExperimentError> {
    write(
        dir.join("experiment.toml"),
        &format!(
            "# packlab {VERSION}; input file {}\n{source}",
            file.display()
        ),
    )
}

/// Appends the claims table and the figures to a report.
pub(crate) fn report_claims_and_figures(
    r: &mut Report,
    claims: &[ClaimResult],
    figures: &[PathBuf],
) {
    if !claims.is_empty() {
        r.line("\n## Claims\n");
        let mut t = MdTable::new(["claim", "expected", "observed", "holds", "evidence"]);
        for c in claims {
            t.row([
                c.claim.as_str(),
                &c.expected,
                &c.observed,
                match c.status() {
                    "holds" => "yes",
                    "FAILS" => "**no**",
                    other => other,
                },
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
pub(crate) fn create_dir(dir: &Path) -> Result<(), ExperimentError> {
    std::fs::create_dir_all(dir).map_err(|source| ExperimentError::Write {
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes `claims.csv`: `claim, expected, observed, evidence, holds`.
pub(crate) fn write_claims(dir: &Path, claims: &[ClaimResult]) -> Result<PathBuf, ExperimentError> {
    write_csv(dir.join("claims.csv"), claims)
}
