//! `report.json`: every file found and what happened to it, so that nothing is lost silently.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::artifacts::events::LineAccount;
use crate::artifacts::store::wal::WalStats;
use crate::input::layout::FileKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Read,
    /// A Copilot file that carries no rows.
    NotWanted,
    /// Never read: it can hold credentials.
    NotReadSecret,
    /// Not needed: the store's shared-memory index, rebuilt from the log by SQLite itself.
    NotNeeded,
    Error,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub roots: Vec<RootReport>,
    pub files: Vec<FileReport>,
    pub excluded_trees: Vec<ExcludedTree>,
    pub totals: Totals,
}

#[derive(Debug, Serialize)]
pub struct RootReport {
    pub label: String,
    /// `home` or `copilot_directory`.
    pub layout: &'static str,
    pub files_listed: u64,
    /// Files outside the home's Copilot directories, counted but never opened.
    pub outside_files: u64,
    pub outside_bytes: u64,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Serialize)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct FileReport {
    pub root: usize,
    pub path: String,
    pub kind: FileKind,
    pub status: FileStatus,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Rows this file gave (after deduplication, for secondary sources).
    pub rows: u64,
    /// Secondary rows that dropped as copies of other rows.
    #[serde(skip_serializing_if = "is_zero")]
    pub rows_deduplicated: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineAccount>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wal: Option<WalStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<BTreeMap<String, u64>>,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

#[derive(Debug, Serialize)]
pub struct ExcludedTree {
    pub root: usize,
    pub tree: String,
    pub files: u64,
    pub bytes: u64,
}

#[derive(Debug, Default, Serialize)]
pub struct Totals {
    pub files_found: u64,
    pub files_read: u64,
    pub files_with_errors: u64,
    pub event_lines: u64,
    pub event_lines_with_rows: u64,
    pub event_lines_skipped: u64,
    pub event_lines_unknown_type: u64,
    pub bad_lines: u64,
    pub rows: u64,
    pub rows_by_turn_type: BTreeMap<String, u64>,
    pub secondary_rows_kept: u64,
    pub secondary_rows_deduplicated: u64,
    pub sessions: u64,
}
