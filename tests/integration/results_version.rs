//! The results version is tied to the committed outputs: `figures/RESULTS` lists, for each
//! results version, the fingerprint of every file under `figures/` as that version wrote them.
//! A change of the committed outputs without a new version (and so without a new line) fails
//! here, as does a version bumped without its line.

use std::path::{Path, PathBuf};

/// Every file under `dir`, sorted, but the history itself and the folder's README.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if !matches!(
            p.file_name().and_then(|n| n.to_str()),
            Some("RESULTS" | "README.md")
        ) {
            out.push(p);
        }
    }
}

/// 64-bit FNV-1a of every committed output, path (relative) and bytes, in path order.
fn fingerprint(root: &Path) -> u64 {
    let mut all = Vec::new();
    files(&root.join("figures"), &mut all);
    all.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut add = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for p in all {
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        add(rel.as_bytes());
        add(&[0]);
        add(&std::fs::read(&p).unwrap());
        add(&[0]);
    }
    h
}

#[test]
fn the_committed_outputs_are_those_of_this_results_version() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let history = std::fs::read_to_string(root.join("figures/RESULTS")).unwrap();
    // lines `version fingerprint` (hex), versions increasing, one line each
    let lines: Vec<(u32, String)> = history
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut w = l.split_whitespace();
            let v = w.next().unwrap().parse().expect("a version");
            (v, w.next().expect("a fingerprint").to_string())
        })
        .collect();
    assert!(
        lines.windows(2).all(|w| w[0].0 < w[1].0),
        "figures/RESULTS: versions must increase, one line each"
    );
    let now = format!("{:016x}", fingerprint(root));
    let (last, print) = lines.last().expect("a line");
    assert_eq!(
        *last,
        packlab::experiment::RESULTS_VERSION,
        "figures/RESULTS ends at version {last}, the build's results version is {}: add the \
         line `{} {now}`",
        packlab::experiment::RESULTS_VERSION,
        packlab::experiment::RESULTS_VERSION
    );
    assert_eq!(
        print,
        &now,
        "the committed outputs changed without a new results version: bump RESULTS in \
         src/experiment/journal.rs and add the line `{} {now}` to figures/RESULTS",
        packlab::experiment::RESULTS_VERSION + 1
    );
}
