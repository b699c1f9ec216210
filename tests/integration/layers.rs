//! The layers the code keeps, read off its source: a queueing file's run stage reads its
//! units and nothing of the validated experiment.

use std::path::Path;

/// The Rust files under `dir`, with their text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    out
}

#[test]
fn the_run_stage_reads_units_not_the_experiment() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/experiment/queueing/run");
    let files = sources(&dir);
    assert!(files.len() >= 4, "{files:?}");
    for (path, text) in files {
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // the validated experiment, by its type, a binding of it, or the stage it comes from
            for word in [
                "Experiment ",
                "Experiment,",
                "Experiment}",
                "Experiment>",
                "exp.",
                "queueing::spec",
                "queueing::{",
            ] {
                assert!(
                    !code.contains(word),
                    "{path}:{}: the run stage names `{word}`: {line}",
                    n + 1
                );
            }
        }
    }
}
