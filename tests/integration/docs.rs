//! The repository's text stands on its own: no reference to material outside it, every TOML
//! snippet valid, the README's example the shipped file of that name, its figure present.

use std::path::{Path, PathBuf};

/// Every text file of the repository a reader meets (sources, docs, experiments, proofs,
/// scripts, data notes), without build outputs.
fn texts() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_default();
            if p.is_dir() {
                if !["target", "results", ".git", "assets"].contains(&name.as_str()) {
                    walk(&p, out);
                }
            } else if ["rs", "md", "toml", "sh", "txt", "yml"]
                .iter()
                .any(|e| name.ends_with(&format!(".{e}")))
                || name == "run"
            {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(root, &mut out);
    out
}

#[test]
fn no_text_refers_to_material_outside_the_repository() {
    // spelled in pieces so that this file does not match itself
    let banned = [
        ["paper", "-notes"].concat(),
        ["design", ".md"].concat(),
        ["../", "shared"].concat(),
        ["seed ", "00"].concat(),
    ];
    let mut found = Vec::new();
    let files = texts();
    assert!(files.len() > 100, "only {} files found", files.len());
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let lower = text.to_lowercase();
        for b in &banned {
            if lower.contains(b.as_str()) {
                found.push(format!("{}: `{b}`", f.display()));
            }
        }
        // the word issue(s) followed by a number (with or without #): an issue number
        let words: Vec<&str> = lower.split_whitespace().collect();
        for w in words.windows(2) {
            let issue = w[0].trim_matches(|c: char| !c.is_alphanumeric()) == "issue"
                || w[0].trim_matches(|c: char| !c.is_alphanumeric()) == "issues";
            let number = w[1].trim_start_matches('#');
            if issue && number.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                found.push(format!("{}: `{} {}`", f.display(), w[0], w[1]));
            }
        }
    }
    assert!(
        found.is_empty(),
        "references outside the repository:\n{}",
        found.join("\n")
    );
}

/// The ```toml blocks of a Markdown text.
fn toml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_start().starts_with("```toml") => current = Some(String::new()),
            Some(b) if line.trim_start().starts_with("```") => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[test]
fn every_toml_snippet_in_the_documentation_is_valid_toml() {
    let mut n = 0;
    for f in texts()
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md"))
    {
        let text = std::fs::read_to_string(f).unwrap();
        for (k, b) in toml_blocks(&text).iter().enumerate() {
            n += 1;
            if let Err(e) = b.parse::<toml::Table>() {
                panic!("{} block {k} is not valid TOML: {e}\n{b}", f.display());
            }
        }
    }
    assert!(n >= 1);
}

#[test]
fn the_readme_example_is_the_shipped_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let shipped = std::fs::read_to_string(root.join("experiments/readme_example.toml")).unwrap();
    let blocks = toml_blocks(&readme);
    assert_eq!(
        blocks.first(),
        Some(&shipped),
        "README's example differs from the file"
    );
    // and the figure it shows inline exists
    let start = readme.find("](figures/").expect("an inline figure") + 2;
    let end = start + readme[start..].find(')').unwrap();
    assert!(
        root.join(&readme[start..end]).is_file(),
        "{}",
        &readme[start..end]
    );
}

/// The experiment reference's table of policies is the registry's, name and line of doc, in
/// the registry's order: generated, never listed by hand (`PACKLAB_UPDATE_DOCS=1 cargo test
/// the_policy_table` writes it).
#[test]
fn the_policy_table_of_the_reference_is_the_registry_s() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let head = "| `name` | policy |\n|---|---|\n";
    let start = text.find(head).expect("the reference's table of policies") + head.len();
    let end = start + text[start..].find("\n\n").expect("the table's end") + 1;
    let table: String = packlab::policy::registry::Registry::builtin()
        .entries()
        .map(|e| format!("| `{}` | {} |\n", e.name, e.doc))
        .collect();
    if std::env::var_os("PACKLAB_UPDATE_DOCS").is_some() {
        std::fs::write(&path, format!("{}{table}{}", &text[..start], &text[end..])).unwrap();
        return;
    }
    assert_eq!(
        text[start..end],
        table,
        "experiments/README.md's table of policies is not the registry's: run \
         PACKLAB_UPDATE_DOCS=1 cargo test the_policy_table"
    );
}
