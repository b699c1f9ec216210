//! A Markdown report, built line by line.

use super::MdTable;

/// The text of a `report.md`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Report(String);

impl Report {
    /// A report titled `title`.
    pub(crate) fn new(title: &str) -> Self {
        Report(format!("# {title}\n\n"))
    }

    /// Appends `text` and a line break.
    pub(crate) fn line(&mut self, text: impl AsRef<str>) {
        self.0.push_str(text.as_ref());
        self.0.push('\n');
    }

    /// Appends a table.
    pub(crate) fn table(&mut self, t: &MdTable) {
        self.0.push_str(&t.to_string());
    }

    /// The report's text.
    pub(crate) fn finish(self) -> String {
        self.0
    }
}
