//! `report.json`: every file found and what happened to it, so that nothing is lost silently.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::sources::FileKind;
use crate::sources::copilot_cli::store::wal::WalStats;
use crate::sources::log::LineAccount;

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
    /// Not read: the same session is read from another file beside it (`message` names it).
    Superseded,
    /// Never read: only its name is used (a session's artifacts).
    Listed,
    Error,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub roots: Vec<RootReport>,
    pub homes: Vec<HomeReport>,
    pub files: Vec<FileReport>,
    pub excluded_trees: Vec<ExcludedTree>,
    /// The keys of configuration files whose values were not read, since they can hold
    /// secrets: how many values each had, never the values.
    pub skipped_keys: Vec<ReportSkippedKey>,
    /// Everything that went wrong, where and why, in file order.
    pub diagnostics: Vec<Diagnostic>,
    pub totals: Totals,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ReportSkippedKey {
    pub home: usize,
    pub file: String,
    pub key: String,
    pub values: u64,
}

/// A problem with the input: the file (relative to its home, or as its root lists it when
/// `home` is none), the line where there is one, what kind of problem, and the message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home: Option<usize>,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    pub kind: DiagnosticKind,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// The root could not list an entry (an unreadable folder, an unsafe zip entry name).
    Listing,
    /// The file could not be opened or read.
    Unreadable,
    /// The file was read but is not in its format.
    Unparsable,
    /// Reading stopped partway (the rows before are kept).
    ReadStopped,
    /// The session store could not be read, or only in part.
    Store,
    /// The store's write-ahead log cannot be used (unreadable, a damaged or cut header, another
    /// database's log): it is ignored and the database is read without it.
    WriteAheadLog,
    /// Prompts and replies of the store kept after deduplication could not be read again.
    TurnsUnreadable,
    /// A line that names a usage counter but could not be read (usage-only runs).
    BadCounterLine,
    /// A usage counter that cannot be a token count (negative, fractional, above the ceiling
    /// of one record, or not a number): left out of the figures, never added.
    ImplausibleCounter,
    /// A `session.shutdown` without `modelMetrics`: it counts nothing.
    MissingCounters,
    /// A usage counter line without a timestamp that can be read: its tokens have no day.
    UndatedCounter,
    /// Usage on a day it cannot be on (before 2020, after tomorrow): kept on its day, flagged
    /// `implausible_date`, left out of the billing month.
    ImplausibleDate,
    /// A long text could not be read again whole from its log: it is shown cut.
    TextNotReread,
    /// The same data given twice (a session's log or a file's rows in two homes): shown once.
    Duplicate,
    /// Files found whose sessions hold no usage counters (a usage-only run names them).
    HoldsNoUsage,
    /// A file where its program does not keep it (a session folder not named by a session
    /// id): read all the same, under the session it names.
    UnexpectedPlace,
    /// Texts the writing program cut when it saved them (VS Code cuts strings over 1 MiB):
    /// shown as saved.
    CutWhenSaved,
}

impl DiagnosticKind {
    /// Whether it names a usage counter line (the page's usage view lists these beside the
    /// figures they concern).
    pub fn is_about_usage_counters(self) -> bool {
        matches!(
            self,
            DiagnosticKind::BadCounterLine
                | DiagnosticKind::ImplausibleCounter
                | DiagnosticKind::MissingCounters
                | DiagnosticKind::UndatedCounter
                | DiagnosticKind::ImplausibleDate
        )
    }
}

#[derive(Debug, Serialize)]
pub struct RootReport {
    pub label: String,
    pub files_listed: u64,
    /// Files outside its homes' Copilot directories, counted but never opened.
    pub outside_files: u64,
    pub outside_bytes: u64,
    pub problems: Vec<Problem>,
}

/// A home found in a root: a machine's home folder, or a Copilot folder itself.
#[derive(Debug, Serialize)]
pub struct HomeReport {
    pub root: usize,
    /// How outputs name the home: the root's label, then the home's folder in it.
    pub label: String,
    /// The home's folder in its root, empty for the root itself.
    pub path: String,
    /// `home` or `copilot_directory`.
    pub layout: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct FileReport {
    pub home: usize,
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
    pub home: usize,
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
