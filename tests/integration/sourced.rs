//! Every number the pages state with two or more decimals has a source that a test reads, so
//! that a page cannot keep a number its outputs or its code no longer give.
//!
//! The pages are those of `quoted.rs`. A number is a decimal written with at least two digits
//! after the point (`0.807`, `20.522`), in the prose or a table: fenced code blocks (files and
//! commands, run by their own tests) and HTML comments are not read. Its source is the first
//! of:
//!
//! 1. a quote marker `<!--= … -->` right before it, checked cell by cell by `quoted.rs`;
//! 2. its line, a line of the committed `report.md` of an output folder the page names (see
//!    3): a table copied from a report, checked line by line;
//! 3. a number of a committed output under `figures/` in a folder the page names (as `NAME/`,
//!    `NAME.toml` or `` `NAME` ``, or by a marker), equal at the decimals written: a cell of a
//!    CSV, a number inside a text cell (a claim's evidence), or a number of the report's text.
//!    `waits.csv`, the distribution tables, is not read: its thousands of probabilities would
//!    match anything;
//! 4. the same digits written in the code: `src/`, `tests/`, `scripts/`, `benches/`,
//!    `examples/`, `experiments/` and `python/` (a parameter, a constant, an asserted value);
//! 5. a source marker `<!--# KIND … -->` earlier on the same line, for the numbers after it on
//!    that line, where KIND is
//!    - `test NAME`: the test `NAME` checks them (a `fn NAME` in a file that names the page);
//!    - `paper`: a number of the published paper the page compares with;
//!    - `derived`: arithmetic on numbers beside it, or a closed form the page states;
//!    - `measured`: a measurement the text describes that no committed file repeats (a
//!      timing, a run not shipped).
//!
//! A quote that no longer equals any cell of the outputs its page names is caught; one that by
//! chance equals another cell is not: mark it (1) to be exact.

use std::collections::HashSet;
use std::path::Path;

use crate::quoted::pages;

/// The files whose literals count as a source (rule 4), read once.
fn code(root: &Path) -> String {
    fn walk(dir: &Path, out: &mut String) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p
                .extension()
                .is_some_and(|e| ["rs", "toml", "sh", "py"].contains(&e.to_str().unwrap_or("")))
            {
                out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
                out.push('\n');
            }
        }
    }
    let mut out = String::new();
    for dir in [
        "src",
        "tests",
        "scripts",
        "benches",
        "examples",
        "experiments",
        "python",
    ] {
        walk(&root.join(dir), &mut out);
    }
    out
}

/// Whether `c` may stand right before a number (rule of the scan: not part of a word, a
/// version, a path or a key).
fn opens(c: Option<char>) -> bool {
    !c.is_some_and(|c| c.is_alphanumeric() || "._-/=#".contains(c))
}

/// Whether `c` may stand right after a number.
fn closes(c: Option<char>) -> bool {
    !c.is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_')
}

/// The decimals of `text` with two or more digits after the point: (byte offset, as written).
fn numbers(text: &str) -> Vec<(usize, &str)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut before = text[..i].chars().rev();
        let thousands =
            before.next() == Some(',') && before.next().is_some_and(|c| c.is_ascii_digit());
        if thousands || !opens(text[..i].chars().next_back()) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i + 2 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
            let point = i;
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i - point > 2 && closes(text[i..].chars().next()) {
                out.push((start, &text[start..i]));
            }
        }
        // a run that does not end a number is skipped whole
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
    }
    out
}

/// `text` with fenced code blocks, HTML comments and each quote marker's number blanked out
/// (newlines kept, so offsets and lines stay), and the source markers found: (line, kind, rest).
fn prose(text: &str) -> (String, Vec<(usize, String)>) {
    let mut out: Vec<u8> = text.as_bytes().to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut marks = Vec::new();
    let mut at = 0;
    while let Some(k) = text[at..].find("<!--") {
        let from = at + k;
        let to = text[from..]
            .find("-->")
            .map_or(text.len(), |e| from + e + 3);
        let body = &text[from + 4..to.saturating_sub(3).max(from + 4)];
        let mut end = to;
        if body.starts_with('=') {
            // the quoted number is checked by quoted.rs
            end += text[to..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
                .unwrap_or(text.len() - to);
        } else if let Some(rest) = body.strip_prefix('#') {
            let line = text[..from].matches('\n').count();
            marks.push((line, rest.trim().to_string()));
        }
        blank(&mut out, from, end);
        at = end;
    }
    let mut at = 0;
    while let Some(k) = text[at..].find("```") {
        let from = at + k;
        let to = text[from + 3..]
            .find("```")
            .map_or(text.len(), |e| from + 3 + e + 3);
        blank(&mut out, from, to);
        at = to;
    }
    (String::from_utf8(out).unwrap(), marks)
}

/// What the output folders a page names offer: numeric cells (and numbers inside text cells),
/// and the lines of their reports.
#[derive(Default)]
struct Outputs {
    values: Vec<f64>,
    lines: HashSet<String>,
}

impl Outputs {
    fn of(figures: &Path, text: &str) -> Outputs {
        let mut dirs: Vec<String> = std::fs::read_dir(figures)
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        dirs.sort();
        let mut o = Outputs::default();
        for d in dirs {
            let names = [format!("{d}/"), format!("{d}.toml"), format!("`{d}`")];
            let is_named = names.iter().any(|n| {
                text.match_indices(n.as_str()).any(|(i, _)| {
                    !text[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
                        || n.starts_with('`')
                })
            });
            if !is_named {
                continue;
            }
            let dir = figures.join(&d);
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            files.sort();
            for f in files {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                if name == "report.md" {
                    let r = std::fs::read_to_string(&f).unwrap();
                    o.values.extend(numbers_in(&r));
                    o.lines.extend(
                        r.lines()
                            .map(str::trim)
                            .filter(|l| !l.is_empty())
                            .map(String::from),
                    );
                } else if name.ends_with(".csv") && name != "waits.csv" {
                    let mut reader = csv::ReaderBuilder::new()
                        .has_headers(false)
                        .from_path(&f)
                        .unwrap();
                    for row in reader.records().map(Result::unwrap) {
                        for cell in row.iter() {
                            match cell.parse::<f64>() {
                                Ok(x) if x.is_finite() => o.values.push(x),
                                Ok(_) => {}
                                // a text cell: every number in it, signs dropped
                                Err(_) => o.values.extend(numbers_in(cell)),
                            }
                        }
                    }
                }
            }
        }
        o
    }

    /// Whether some cell rounds to `written` at its decimals (either way at a half: the cell
    /// may itself be rounded), signs aside (pages write a minus as `−`).
    fn has(&self, written: &str) -> bool {
        let decimals = written.len() - written.find('.').unwrap() - 1;
        let x: f64 = written.parse().unwrap();
        let half = 0.5 * 10f64.powi(-(decimals as i32)) * (1.0 + 1e-9);
        self.values.iter().any(|v| (v.abs() - x).abs() <= half)
    }
}

/// Every number written in `text`, signs dropped (pages write a minus as `−`).
fn numbers_in(text: &str) -> impl Iterator<Item = f64> + '_ {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|n| n.parse::<f64>().ok())
}

/// Whether `digits` is written in `code` as a number of its own.
fn in_code(code: &str, digits: &str) -> bool {
    code.match_indices(digits).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + digits.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit() || c == '.')
            && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

/// The problems of one page: numbers without a source, and source markers that do not hold.
fn check(page: &Path, root: &Path, code: &str, tests: &[(String, String)]) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let rel = page
        .strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (prose, marks) = prose(&text);
    let outputs = Outputs::of(&root.join("figures"), &text);
    let lines: Vec<&str> = text.lines().collect();
    let mut problems = Vec::new();
    for (line, mark) in &marks {
        let (kind, rest) = mark.split_once(' ').unwrap_or((mark, ""));
        match kind {
            "paper" | "derived" | "measured" => {}
            "test" => {
                let name = rest.trim();
                let file_name = page.file_name().unwrap().to_string_lossy();
                let found = tests.iter().any(|(_, body)| {
                    body.contains(&format!("fn {name}("))
                        && (body.contains(rel.as_str()) || body.contains(file_name.as_ref()))
                });
                if !found {
                    problems.push(format!(
                        "{rel}:{}: no test `{name}` in a file that names the page",
                        line + 1
                    ));
                }
            }
            _ => problems.push(format!(
                "{rel}:{}: a source marker of unknown kind `{kind}` (test, paper, derived or measured)",
                line + 1
            )),
        }
    }
    for (at, n) in numbers(&prose) {
        let line = prose[..at].matches('\n').count();
        let col = at - prose[..at].rfind('\n').map_or(0, |i| i + 1);
        let marked = marks.iter().any(|(l, _)| *l == line)
            && text[..at]
                .rfind("<!--#")
                .is_some_and(|m| text[..m].matches('\n').count() == line);
        if marked
            || outputs.lines.contains(lines[line].trim())
            || outputs.has(n)
            || in_code(code, n)
        {
            continue;
        }
        let shown: String = lines[line]
            .chars()
            .skip(col.saturating_sub(40))
            .take(60)
            .collect();
        problems.push(format!("{rel}:{}: {n} has no source: …{shown}…", line + 1));
    }
    problems
}

#[test]
fn every_number_of_the_pages_has_a_source() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let code = code(root);
    let mut tests = Vec::new();
    for dir in ["tests", "src"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|e| e == "rs") {
                    tests.push((
                        p.to_string_lossy().into_owned(),
                        std::fs::read_to_string(&p).unwrap(),
                    ));
                }
            }
        }
    }
    let mut problems = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        count += numbers(&prose(&text).0).len();
        problems.extend(check(&page, root, &code, &tests));
    }
    assert!(
        problems.is_empty(),
        "{} numbers or markers without a source:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(count >= 300, "only {count} numbers read");
}

#[test]
fn the_scan_reads_numbers_as_written() {
    let found: Vec<&str> = numbers(
        "0.807 and [0.12, 3.5] 1,234.56 v0.19.1 x0.25 1.2e-3 0.50% −4.13 key=0.75 10.25 slots",
    )
    .into_iter()
    .map(|(_, n)| n)
    .collect();
    assert_eq!(found, ["0.807", "0.12", "0.50", "4.13", "10.25"]);
    let (p, marks) = prose(
        "a <!--= f.csv #1 x .2 -->0.12 b\n```\n0.99 in code\n```\nc <!--# paper --> 1.225 d 0.33",
    );
    assert_eq!(
        numbers(&p).into_iter().map(|(_, n)| n).collect::<Vec<_>>(),
        ["1.225", "0.33"]
    );
    assert_eq!(marks, [(4, "paper".to_string())]);
    assert!(in_code("let x = 0.340806;", "0.340806"));
    assert!(!in_code("let x = 10.340806;", "0.340806"));
}

#[test]
fn a_number_its_outputs_no_longer_give_is_caught() {
    let root = crate::util::tmp("sourced", "root");
    std::fs::create_dir_all(root.join("figures/x")).unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    let page = root.join("docs/p.md");
    std::fs::write(
        &page,
        "In `x/` the limit is 0.807 and the wait 20.52 slots; not 3.15 (before the marker) but <!--# derived -->3.14 and 2.72.\n",
    )
    .unwrap();
    let csv = root.join("figures/x/thresholds.csv");
    std::fs::write(&csv, "policy,upper,wait\nvqs,0.806900,20.524\n").unwrap();
    let p = check(&page, &root, "", &[]);
    assert!(p.len() == 1 && p[0].contains("3.15 has no source"), "{p:?}");
    std::fs::write(
        &csv,
        "policy,upper,wait\nvqs,0.806900,20.524\nvqs-bf,3.15,1\n",
    )
    .unwrap();
    assert_eq!(check(&page, &root, "", &[]), Vec::<String>::new());
    // regenerated: the page's numbers are stale
    std::fs::write(
        &csv,
        "policy,upper,wait\nvqs,0.812000,20.524\nvqs-bf,3.15,1\n",
    )
    .unwrap();
    let p = check(&page, &root, "", &[]);
    assert!(
        p.len() == 1 && p[0].contains("0.807 has no source"),
        "{p:?}"
    );
    // the same digits in the code are a source
    assert_eq!(
        check(&page, &root, "const LIMIT: f64 = 0.807;", &[]),
        Vec::<String>::new()
    );
    // a test named as a source must exist and name the page
    std::fs::write(&page, "<!--# test checks_it -->0.25\n").unwrap();
    let p = check(&page, &root, "", &[]);
    assert!(
        p.len() == 1 && p[0].contains("no test `checks_it`"),
        "{p:?}"
    );
    let tests = [(
        "t.rs".to_string(),
        "fn checks_it() { read(\"docs/p.md\") }".to_string(),
    )];
    assert_eq!(check(&page, &root, "", &tests), Vec::<String>::new());
    std::fs::write(&page, "<!--# guessed -->0.25\n").unwrap();
    assert!(check(&page, &root, "", &[])[0].contains("unknown kind `guessed`"));
}
