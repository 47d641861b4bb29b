//! The shared row model every importer writes into (see "Columns" in the format specification).

use std::borrow::Cow;

use serde::Serialize;

/// The catalog name of the agent whose files this crate reads.
pub const AGENT: &str = "copilot-cli";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnType {
    User,
    Assistant,
    System,
    Thinking,
    ToolUse,
    ToolResult,
}

impl TurnType {
    pub const ALL: [TurnType; 6] = [
        TurnType::User,
        TurnType::Assistant,
        TurnType::System,
        TurnType::Thinking,
        TurnType::ToolUse,
        TurnType::ToolResult,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TurnType::User => "user",
            TurnType::Assistant => "assistant",
            TurnType::System => "system",
            TurnType::Thinking => "thinking",
            TurnType::ToolUse => "tool_use",
            TurnType::ToolResult => "tool_result",
        }
    }
}

/// One timeline row. Fields borrow from the importer's state so that a row costs no copies
/// on its way to the sink; a sink that keeps rows converts them with [`Row::to_owned_row`].
#[derive(Clone, Debug, Serialize)]
pub struct Row<'a> {
    pub agent: &'static str,
    pub timestamp_utc: Cow<'a, str>,
    pub session_id: &'a str,
    pub project_path: &'a str,
    pub git_branch: &'a str,
    pub model: &'a str,
    pub tool_name: &'a str,
    pub tool_use_id: &'a str,
    pub turn_type: TurnType,
    pub text: Cow<'a, str>,
    pub source: &'a str,
    pub source_line: u64,
    /// What the row says beyond its text, for the tallies; never written out.
    #[serde(skip)]
    pub mark: RowMark,
    /// Where an event-log row's line is, so that a viewer holding only the start of a long
    /// text can read it again; never written out.
    #[serde(skip)]
    pub locator: Option<LineLocator>,
}

/// A row's line in its event log: the file (the analysis's index), the line's byte offset, and
/// which of the line's rows it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineLocator {
    pub file: u32,
    pub offset: u64,
    pub ordinal: u32,
}

/// Facts about a row that its text does not carry in a parseable way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RowMark {
    #[default]
    Plain,
    FailedToolResult,
    PermissionRequest,
    PermissionDenied,
    BadLine,
    SessionSynced,
    ScratchDirectory,
}

/// A row that owns its texts, for sinks that keep rows (tests, the browser's row table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct OwnedRow {
    pub agent: String,
    pub timestamp_utc: String,
    pub session_id: String,
    pub project_path: String,
    pub git_branch: String,
    pub model: String,
    pub tool_name: String,
    pub tool_use_id: String,
    pub turn_type: TurnType,
    pub text: String,
    pub source: String,
    pub source_line: u64,
}

impl Row<'_> {
    pub fn to_owned_row(&self) -> OwnedRow {
        OwnedRow {
            agent: self.agent.to_string(),
            timestamp_utc: self.timestamp_utc.to_string(),
            session_id: self.session_id.to_string(),
            project_path: self.project_path.to_string(),
            git_branch: self.git_branch.to_string(),
            model: self.model.to_string(),
            tool_name: self.tool_name.to_string(),
            tool_use_id: self.tool_use_id.to_string(),
            turn_type: self.turn_type,
            text: self.text.to_string(),
            source: self.source.to_string(),
            source_line: self.source_line,
        }
    }
}

/// Where rows go: a JSONL writer natively, a row table in the browser, a vector in tests.
pub trait RowSink {
    fn push(&mut self, row: &Row<'_>);
}

impl RowSink for Vec<OwnedRow> {
    fn push(&mut self, row: &Row<'_>) {
        self.push(row.to_owned_row());
    }
}

/// Writes each row as one line of JSON.
pub struct JsonlRowWriter<W: std::io::Write> {
    out: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> JsonlRowWriter<W> {
    pub fn new(out: W) -> Self {
        JsonlRowWriter { out, error: None }
    }

    /// Returns the writer, or the first write error (a sink cannot fail mid-analysis).
    pub fn finish(self) -> std::io::Result<W> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(self.out),
        }
    }
}

impl<W: std::io::Write> RowSink for JsonlRowWriter<W> {
    fn push(&mut self, row: &Row<'_>) {
        if self.error.is_some() {
            return;
        }
        let written = serde_json::to_writer(&mut self.out, row)
            .map_err(std::io::Error::from)
            .and_then(|()| self.out.write_all(b"\n"));
        if let Err(error) = written {
            self.error = Some(error);
        }
    }
}
