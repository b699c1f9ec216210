//! Every experiment file of `docs/tutorial.md` is valid for this packlab: each TOML block that
//! starts with `# file: NAME.toml` is written out and run with `--quick` (a smoke test of the
//! same code paths), which must succeed. Each is also the committed
//! `experiments/tutorial/NAME.toml`, whose outputs under `figures/` the page's numbers quote.

use std::path::Path;

use crate::util::{packlab, tmp, write};

#[test]
fn every_experiment_file_of_the_tutorial_runs() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tutorial.md"))
            .unwrap();
    let d = tmp("tutorial", "files");
    let mut ran = 0;
    for block in text.split("```toml\n").skip(1) {
        let body = block.split("\n```").next().unwrap();
        let Some(name) = body.lines().next().and_then(|l| l.strip_prefix("# file: ")) else {
            continue;
        };
        let committed = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("experiments/tutorial")
            .join(name);
        assert_eq!(
            std::fs::read_to_string(&committed).ok().as_deref(),
            Some(format!("{body}\n").as_str()),
            "the tutorial's {name} is not {}",
            committed.display()
        );
        let file = write(&d, name, body);
        let out = d.join(name.trim_end_matches(".toml"));
        let o = packlab(&[
            file.to_str().unwrap(),
            "--quick",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        ran += 1;
    }
    assert!(
        ran >= 3,
        "only {ran} experiment files found in the tutorial"
    );
}
