//! Tables: CSV files from row types (the `csv` crate; a row type's fields are its columns, in
//! order) and Markdown tables for the reports. Numbers that are measurements are written with
//! six decimals ([`F6`]) so that the same file and seed give byte-identical outputs.

use std::path::PathBuf;

use serde::Serialize;

use crate::experiment::ExperimentError;

/// A number written with six decimals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct F6(pub f64);

impl Serialize for F6 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{:.6}", self.0))
    }
}

impl std::fmt::Display for F6 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.6}", self.0)
    }
}

/// The CSV text of `rows` with a header row from the row type's field names (a field that is
/// `None` with `skip_serializing_if` leaves its column out of every row). With no rows, the
/// header of a default row.
pub(crate) fn csv_text<T: Serialize + Default>(rows: &[T]) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    if rows.is_empty() {
        w.serialize(T::default())
            .expect("rows of plain values serialise");
        let text = String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8");
        return text
            .lines()
            .next()
            .map(|h| format!("{h}\n"))
            .unwrap_or_default();
    }
    for r in rows {
        w.serialize(r).expect("rows of plain values serialise");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8 fields")
}

/// Writes `rows` as CSV to `path` (see [`csv_text`]).
pub(crate) fn write_csv<T: Serialize + Default>(
    path: PathBuf,
    rows: &[T],
) -> Result<PathBuf, ExperimentError> {
    super::write(path, &csv_text(rows))
}

/// A CSV row whose columns are built in code, in order, each cell named: for tables whose
/// columns come from a table of quantities and statistics rather than from a row type.
#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    cells: Vec<(std::borrow::Cow<'static, str>, String)>,
}

impl Record {
    /// A cell of `value` in column `name`.
    pub(crate) fn cell(
        &mut self,
        name: impl Into<std::borrow::Cow<'static, str>>,
        value: impl std::fmt::Display,
    ) -> &mut Self {
        self.cells.push((name.into(), value.to_string()));
        self
    }

    /// A cell of `value` in column `name`, empty when there is none.
    pub(crate) fn maybe(
        &mut self,
        name: impl Into<std::borrow::Cow<'static, str>>,
        value: Option<impl std::fmt::Display>,
    ) -> &mut Self {
        self.cells
            .push((name.into(), value.map_or(String::new(), |v| v.to_string())));
        self
    }

    /// A cell of `value` in column `name`, or no column at all when there is none (a column
    /// that only some experiments' tables have).
    pub(crate) fn column_if(
        &mut self,
        name: impl Into<std::borrow::Cow<'static, str>>,
        value: Option<impl std::fmt::Display>,
    ) -> &mut Self {
        if let Some(v) = value {
            self.cells.push((name.into(), v.to_string()));
        }
        self
    }
}

/// Writes `rows` as CSV to `path`, the header the first row's column names (every row has the
/// same columns); with no rows, the header of `empty`, a row of the table's columns.
pub(crate) fn write_records(
    path: PathBuf,
    rows: &[Record],
    empty: &Record,
) -> Result<PathBuf, ExperimentError> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let header: Vec<&str> = rows
        .first()
        .unwrap_or(empty)
        .cells
        .iter()
        .map(|c| c.0.as_ref())
        .collect();
    w.write_record(&header).expect("writing to memory");
    for r in rows {
        debug_assert!(
            r.cells
                .iter()
                .map(|c| c.0.as_ref())
                .eq(header.iter().copied())
        );
        w.write_record(r.cells.iter().map(|c| c.1.as_str()))
            .expect("writing to memory");
    }
    let text = String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8");
    super::write(path, &text)
}

/// A Markdown table: a header row and rows of cells.
#[derive(Clone, Debug, Default)]
pub(crate) struct MdTable {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl MdTable {
    pub(crate) fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Self {
        MdTable {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (as many cells as the header has).
    pub(crate) fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl std::fmt::Display for MdTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "| {} |", self.header.join(" | "))?;
        writeln!(f, "|{}", "---|".repeat(self.header.len()))?;
        for r in &self.rows {
            writeln!(f, "| {} |", r.join(" | "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Default)]
    struct Row {
        name: String,
        x: F6,
        n: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        extra: Option<F6>,
    }

    #[test]
    fn rows_become_csv_with_a_header_and_quoted_fields() {
        let rows = [
            Row {
                name: "a,b".into(),
                x: F6(0.5),
                n: 3,
                extra: None,
            },
            Row {
                name: "say \"hi\"".into(),
                x: F6(1.0 / 3.0),
                n: 4,
                extra: None,
            },
        ];
        assert_eq!(
            csv_text(&rows),
            "name,x,n\n\"a,b\",0.500000,3\n\"say \"\"hi\"\"\",0.333333,4\n"
        );
        let with = [Row {
            name: "c".into(),
            x: F6(2.0),
            n: 0,
            extra: Some(F6(0.25)),
        }];
        assert_eq!(csv_text(&with), "name,x,n,extra\nc,2.000000,0,0.250000\n");
        assert_eq!(csv_text::<Row>(&[]), "name,x,n\n");
    }

    #[test]
    fn markdown_tables() {
        let mut t = MdTable::new(["a", "b"]);
        t.row(["1", "2"]);
        assert_eq!(t.to_string(), "| a | b |\n|---|---|\n| 1 | 2 |\n");
    }
}
