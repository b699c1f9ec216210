//! Every number the pages quote from a committed output names its source, and matches it: a
//! regenerated figure cannot leave a page stale.
//!
//! A quoted number is preceded, with nothing between, by a marker (an HTML comment, invisible
//! when the page is rendered):
//!
//! ```text
//! <!--= thresholds_uniform_large/thresholds.csv policy=vqs fraction_low .3 -->0.807
//! ```
//!
//! - the file, under `figures/`; left out, the file of the page's last `<!--=source FILE -->`
//!   before it;
//! - the row: `column=value` pairs joined by `,` (a value matches a cell equal to it as text or,
//!   when both are numbers, as a number: `load=0.8` matches `0.800000`; `~` stands for a space,
//!   `constraint=kernel~=~2.6.34`); `#N` picks the N-th data row counted from 1 instead;
//! - the column whose cell is quoted;
//! - how it is written: `.N` (N decimals), `%.N` (times 100, N decimals: the page adds the
//!   `%`), `int` (rounded to a whole number; commas between thousands allowed in the page),
//!   `e.N` (N decimals of the mantissa, as `4.00e5` or `4.00·10⁵` in the page); prefixed with
//!   `mean`, the mean of the column over every row the selector matches (trials, say).
//!
//! The text right after the marker must start with the number so written.

use std::path::{Path, PathBuf};

/// The pages that quote outputs.
pub(crate) fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = vec![root.join("README.md"), root.join("experiments/README.md")];
    for dir in ["proofs", "docs"] {
        let mut md: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        md.sort();
        v.extend(md);
    }
    v
}

/// One marker: where it sits (for messages), its four fields, and the text after it.
#[derive(Debug)]
struct Marker<'a> {
    line: usize,
    file: &'a str,
    row: &'a str,
    column: &'a str,
    format: &'a str,
    after: &'a str,
}

/// Every marker of `text`, or what is malformed.
fn markers(text: &str) -> Result<Vec<Marker<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut source: Option<&str> = None;
    while let Some(at) = rest.find("<!--=") {
        let body = &rest[at + 5..];
        let end = body
            .find("-->")
            .ok_or_else(|| "a marker without its end".to_string())?;
        let line = text.len() - rest.len() + at;
        let line = text[..line].matches('\n').count() + 1;
        let fields: Vec<&str> = body[..end].split_whitespace().collect();
        let after = &body[end + 3..];
        let (file, row, column, format) = match fields[..] {
            ["source", file] => {
                source = Some(file);
                rest = after;
                continue;
            }
            [file, row, column, format] => (file, row, column, format),
            [row, column, format] => match source {
                Some(file) => (file, row, column, format),
                None => {
                    return Err(format!(
                        "line {line}: a marker without a file, and no source before it"
                    ));
                }
            },
            _ => {
                return Err(format!(
                    "line {line}: a marker needs a file, a row, a column and a format, got `{}`",
                    &body[..end]
                ));
            }
        };
        out.push(Marker {
            line,
            file,
            row,
            column,
            format,
            after,
        });
        rest = after;
    }
    Ok(out)
}

/// Whether a cell `cell` matches the selector's `want`: as text, or as numbers.
fn matches(cell: &str, want: &str) -> bool {
    cell == want
        || matches!(
            (cell.parse::<f64>(), want.parse::<f64>()),
            (Ok(a), Ok(b)) if a == b
        )
}

/// The cell a marker quotes, from the CSV file `csv` (under `figures`): the one its selector
/// matches, or with a `mean` format the mean over all it matches.
fn cell(figures: &Path, m: &Marker<'_>) -> Result<String, String> {
    let path = figures.join(m.file);
    let mut reader =
        csv::Reader::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let col = headers
        .iter()
        .position(|h| h == m.column)
        .ok_or_else(|| format!("{} has no column `{}`", m.file, m.column))?;
    let rows: Vec<csv::StringRecord> = reader.records().collect::<Result<_, _>>().unwrap();
    let chosen: Vec<&csv::StringRecord> = if let Some(n) = m.row.strip_prefix('#') {
        let n: usize = n.parse().map_err(|_| format!("bad row number `{n}`"))?;
        rows.get(n.wrapping_sub(1)).into_iter().collect()
    } else {
        let pairs: Vec<(usize, String)> = m
            .row
            .split(',')
            .map(|p| {
                let (k, v) = p
                    .split_once('=')
                    .ok_or_else(|| format!("bad row selector `{p}`"))?;
                let k = headers
                    .iter()
                    .position(|h| h == k)
                    .ok_or_else(|| format!("{} has no column `{k}`", m.file))?;
                Ok((k, v.replace('~', " ")))
            })
            .collect::<Result<_, String>>()?;
        rows.iter()
            .filter(|r| pairs.iter().all(|(k, v)| matches(&r[*k], v)))
            .collect()
    };
    if m.format.starts_with("mean") && !chosen.is_empty() {
        let xs: Vec<f64> = chosen
            .iter()
            .map(|r| {
                r[col]
                    .parse::<f64>()
                    .map_err(|_| format!("`{}` is not a number", &r[col]))
            })
            .collect::<Result<_, _>>()?;
        return Ok((xs.iter().sum::<f64>() / xs.len() as f64).to_string());
    }
    match chosen[..] {
        [r] => Ok(r[col].to_string()),
        [] => Err(format!("{} has no row {}", m.file, m.row)),
        _ => Err(format!("{} has {} rows {}", m.file, chosen.len(), m.row)),
    }
}

/// The number `value` written as `format` says, and whether the page's text `after` starts
/// with it.
fn written(value: &str, format: &str, after: &str) -> Result<bool, String> {
    let x: f64 = value
        .parse()
        .map_err(|_| format!("the cell `{value}` is not a number"))?;
    let digits = |s: &str| {
        s.parse::<usize>()
            .map_err(|_| format!("bad format `{format}`"))
    };
    let (text, page) = if let Some(d) = format.strip_prefix("%.") {
        (format!("{:.*}", digits(d)?, 100.0 * x), after.to_string())
    } else if let Some(d) = format.strip_prefix("e.") {
        let s = format!("{:.*e}", digits(d)?, x);
        let page = after.replacen("·10", "e", 1);
        // 4.00·10⁵ → 4.00e5
        let sup = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻";
        let page: String = page
            .chars()
            .map(|c| match sup.chars().position(|s| s == c) {
                Some(10) => '-',
                Some(k) => char::from(b'0' + k as u8),
                None => c,
            })
            .collect();
        (s, page)
    } else if format == "int" {
        (format!("{}", x.round() as i64), after.replace(',', ""))
    } else if let Some(d) = format.strip_prefix('.') {
        (format!("{:.*}", digits(d)?, x), after.to_string())
    } else {
        return Err(format!("unknown format `{format}`"));
    };
    // the number must end where the page's number ends
    Ok(page.starts_with(&text)
        && !page[text.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit()))
}

/// Checks every marker of `text` against the outputs under `figures`: the problems found.
fn check(text: &str, figures: &Path) -> Vec<String> {
    let ms = match markers(text) {
        Ok(ms) => ms,
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();
    for m in &ms {
        let r = cell(figures, m).and_then(|v| {
            written(&v, m.format.trim_start_matches("mean"), m.after).map(|ok| {
                (!ok).then(|| {
                    let shown: String = m.after.chars().take(24).collect();
                    format!(
                        "the page says `{shown}…` where {} ({}, {}) is {v}",
                        m.file, m.row, m.column
                    )
                })
            })
        });
        match r {
            Ok(None) => {}
            Ok(Some(p)) | Err(p) => problems.push(format!("line {}: {p}", m.line)),
        }
    }
    problems
}

#[test]
fn every_quoted_number_matches_the_committed_output_it_names() {
    let figures = Path::new(env!("CARGO_MANIFEST_DIR")).join("figures");
    let mut problems = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        count += markers(&text).map_or(0, |m| m.len());
        for p in check(&text, &figures) {
            problems.push(format!("{}: {p}", page.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // the pages do quote outputs this way
    assert!(count >= 40, "only {count} markers");
}

#[test]
fn a_stale_or_unsourced_number_is_caught() {
    let dir = crate::util::tmp("quoted", "figures");
    std::fs::create_dir_all(dir.join("x")).unwrap();
    std::fs::write(
        dir.join("x/t.csv"),
        "policy,load,mean,evidence\nbf-js,0.500000,1.23456,\"a, b\"\nvqs,0.500000,1234567.8,c\n",
    )
    .unwrap();
    let ok = "BF-J/S: <!--= x/t.csv policy=bf-js,load=0.5 mean .2 -->1.23 jobs; \
              VQS <!--= x/t.csv #2 mean int -->1,234,568 and <!--= x/t.csv #2 mean e.2 -->1.23·10⁶ \
              or <!--= x/t.csv policy=bf-js mean %.1 -->123.5 %; from a source: \
              <!--=source x/t.csv --> <!--= policy=vqs mean int -->1234568; both rows' mean \
              <!--= load=0.5 mean mean.1 -->617284.5";
    assert_eq!(check(ok, &dir), Vec::<String>::new());
    for (bad, why) in [
        ("<!--= x/t.csv policy=bf-js mean .2 -->1.24", "is 1.23456"),
        ("<!--= x/t.csv policy=bf-js mean .1 -->1.23", "is 1.23456"),
        ("<!--= x/t.csv policy=bf-js mean .2 --> 1.23", "is 1.23456"),
        ("<!--= x/t.csv policy=fifo-ff mean .2 -->1.23", "no row"),
        ("<!--= x/t.csv load=0.5 mean .2 -->1.23", "has 2 rows"),
        (
            "<!--= x/t.csv policy=vqs median .2 -->1.23",
            "no column `median`",
        ),
        (
            "<!--= x/t.csv policy=vqs evidence .2 -->1.23",
            "not a number",
        ),
        ("<!--= x/u.csv #1 mean .2 -->1.23", "u.csv"),
        ("<!--= x/t.csv #1 mean -->1.23", "without a file"),
        ("<!--= x/t.csv #1 mean .2 extra -->1.23", "needs a file"),
    ] {
        let p = check(bad, &dir);
        assert!(p.len() == 1 && p[0].contains(why), "{bad}: {p:?}");
    }
}

#[test]
fn the_calibration_tables_are_the_scripts_output_on_the_committed_outputs() {
    // the tables of proofs/verdict_calibration.md are computed from figures/ by scripts (runs
    // from summary.csv, probes from probe_groups.csv); every line printed must be on the page
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("proofs/verdict_calibration.md")).unwrap();
    for (script, rows) in [
        ("scripts/calibration-table.sh", 45),
        ("scripts/probe-calibration-table.sh", 54),
    ] {
        let o = std::process::Command::new("bash")
            .arg(root.join(script))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let table = String::from_utf8(o.stdout).unwrap();
        let stale: Vec<&str> = table.lines().filter(|l| !page.contains(l)).collect();
        assert!(table.lines().count() >= rows + 2, "{script}: {table}");
        assert!(
            stale.is_empty(),
            "{script}: not on the page as computed:\n{}",
            stale.join("\n")
        );
    }
}
