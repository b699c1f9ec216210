//! What every kind of experiment shares: the header, error context, the TOML reader, size and
//! service laws, number files, tables (CSV and Markdown), output files and claim results. No
//! kind borrows from another; they all borrow from here.

mod claim;
mod constraints;
mod context;
mod files;
mod header;
pub(crate) mod kinds;
mod laws;
mod numa;
mod report;
mod shared;
mod table;

pub use claim::ClaimResult;
pub(crate) use constraints::{RawConstraints, characterisation};
pub(crate) use context::{Ctx, parse_toml};
pub(crate) use files::{
    create_dir, render_figure, render_with, report_claims_and_figures, write, write_claims,
    write_provenance, write_with,
};
pub use header::Header;
pub(crate) use laws::{RawService, RawSizes, service_law, size_law};
pub(crate) use numa::node_shares;
pub(crate) use report::Report;
pub(crate) use shared::Shared;
pub(crate) use table::{F6, MdTable, Record, write_csv, write_records};
