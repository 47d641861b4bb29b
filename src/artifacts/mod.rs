//! One importer per Copilot artifact, each turning its file into the shared row model
//! (or, for join-only files, into the facts the joins need). Joins and deduplication
//! happen after them, in `crate::analysis` and `crate::dedup`.

pub mod events;
pub mod history;
pub mod logs;
pub mod permissions;
pub mod settings;
pub mod sidebar;
pub mod snapshots;
pub mod store;
pub mod workspace;

use crate::model::{RowMark, TurnType};
use crate::time;

/// A row from a file other than an event log. These are decided after every log has been
/// read (secondary copies are deduplicated against the logs), so they own their texts.
/// An empty `project_path` or `git_branch` is filled from the session by the join.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingRow {
    pub timestamp_utc: String,
    pub session_id: String,
    pub project_path: String,
    pub git_branch: String,
    pub model: String,
    pub tool_name: String,
    pub tool_use_id: String,
    pub turn_type: TurnType,
    pub text: String,
    pub source_line: u64,
    pub mark: RowMark,
    /// Stamped with its file's modification time, which the analysis sets before the rows go
    /// out (a browser learns a file's time only when asked, and asks only for these files).
    pub at_file_time: bool,
}

/// A row of a file other than an event log, as held until every log has been read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeldRow {
    Row(PendingRow),
    /// A prompt or reply of the store's `turns`, held as its keys and where to read it: only
    /// the copies that survive deduplication are read again, whole.
    Turn(StoreTurn),
}

/// One text cell of a `turns` row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct StoreTurn {
    pub rowid: u64,
    pub turn_type: TurnType,
    pub millis: Option<i64>,
    pub session_key: u64,
    pub global_key: u64,
}

impl HeldRow {
    /// The row as deduplication sees it.
    pub fn candidate(&self) -> crate::dedup::Candidate {
        match self {
            HeldRow::Row(row) => crate::dedup::Candidate::new(&row.session_id, row.turn_type, &row.text, row.millis()),
            HeldRow::Turn(turn) => crate::dedup::Candidate {
                session_key: turn.session_key,
                global_key: turn.global_key,
                millis: turn.millis,
            },
        }
    }
}

impl PendingRow {
    /// A row with only the essentials; the other columns start empty.
    pub fn new(turn_type: TurnType, text: String, timestamp: &str, source_line: u64) -> Self {
        PendingRow {
            timestamp_utc: time::normalize(timestamp).into_owned(),
            session_id: String::new(),
            project_path: String::new(),
            git_branch: String::new(),
            model: String::new(),
            tool_name: String::new(),
            tool_use_id: String::new(),
            turn_type,
            text,
            source_line,
            mark: RowMark::Plain,
            at_file_time: false,
        }
    }

    /// A row at its file's modification time (see `at_file_time`).
    pub fn at_file_time(turn_type: TurnType, text: String, source_line: u64) -> Self {
        PendingRow { at_file_time: true, ..PendingRow::new(turn_type, text, "", source_line) }
    }

    pub fn in_session(mut self, session_id: &str) -> Self {
        self.session_id = session_id.to_string();
        self
    }

    pub fn millis(&self) -> Option<i64> {
        time::parse_millis(&self.timestamp_utc)
    }
}

/// The timestamp text of a file's modification time (rows "at the file's mtime").
pub fn mtime_text(modified_ms: Option<i64>) -> String {
    modified_ms.map(time::format_millis).unwrap_or_default()
}

/// Text of a file that should be UTF-8, with a byte-order mark dropped.
pub fn utf8_text(bytes: &[u8]) -> Result<&str, String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|error| format!("not UTF-8: {error}"))
}
