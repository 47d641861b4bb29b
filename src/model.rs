//! The shared row model every importer writes into (see "Columns" in the format specification).

use std::borrow::Cow;

use serde::Serialize;

use crate::time;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum TurnType {
    User,
    Assistant,
    System,
    Thinking,
    ToolUse,
    ToolResult,
}

impl TurnType {
    /// Every turn type, in the order the page offers them.
    pub const ALL: [TurnType; 6] = [
        TurnType::User,
        TurnType::Assistant,
        TurnType::ToolUse,
        TurnType::ToolResult,
        TurnType::System,
        TurnType::Thinking,
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

    /// What the page calls it (rows.jsonl and the exports keep `as_str`).
    pub fn label(self) -> &'static str {
        match self {
            TurnType::User => "Prompt",
            TurnType::Assistant => "Reply",
            TurnType::System => "Note",
            TurnType::Thinking => "Thinking",
            TurnType::ToolUse => "Tool call",
            TurnType::ToolResult => "Tool result",
        }
    }
}

/// A row's fields as the page labels them in a row's detail, in that order.
pub const ROW_FIELD_LABELS: [(&str, &str); 12] = [
    ("timestamp_utc", "Time"),
    ("turn_type", "Kind"),
    ("agent", "Agent"),
    ("session_id", "Session"),
    ("project_path", "Project"),
    ("git_branch", "Branch"),
    ("client_name", "Client"),
    ("model", "Model"),
    ("tool_name", "Tool"),
    ("tool_use_id", "Tool call id"),
    ("source", "File"),
    ("source_line", "Line in the file"),
];

/// One timeline row. Fields borrow from the importer's state so that a row costs no copies
/// on its way to the sink; a sink that keeps rows converts them with [`Row::to_owned_row`].
#[derive(Clone, Debug, Serialize)]
pub struct Row<'a> {
    pub agent: &'static str,
    pub timestamp_utc: Cow<'a, str>,
    pub session_id: &'a str,
    pub project_path: &'a str,
    pub git_branch: &'a str,
    /// The program the session was run from (Copilot CLI's `workspace.yaml`: `client_name`), as
    /// its session record says.
    pub client_name: &'a str,
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

/// What a row means beyond its text, set where the row is made: for the tallies, and for a
/// viewer (the browser's row table serves it as `mark`, in snake case). Never written to the
/// row exports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum RowMark {
    #[default]
    Plain,
    /// A tool result whose call failed (`success: false`).
    FailedToolResult,
    /// `permission request: ...`
    PermissionRequest,
    /// `permission decision: denied-...`
    PermissionDenied,
    /// `permission decision: approved...`
    PermissionGranted,
    /// Another permission decision: cancelled, carried forward, or of a kind not given.
    PermissionDecision,
    /// A permission mode (`permission mode: ...`).
    PermissionSetting,
    /// A standing grant (`permission setting: ...`) of a settings file, dated by the file.
    StandingGrant,
    /// The session's model changed or was resolved (`model: ...`, `session.info model: ...`).
    ModelChange,
    /// `parser: unparseable line ...`
    BadLine,
    SessionSynced,
    ScratchDirectory,
}

impl RowMark {
    /// A note whose time is its file's modification time, no event's.
    pub fn dated_by_its_file(self) -> bool {
        matches!(self, RowMark::StandingGrant | RowMark::SessionSynced)
    }

    pub const ALL: [RowMark; 12] = [
        RowMark::Plain,
        RowMark::FailedToolResult,
        RowMark::PermissionRequest,
        RowMark::PermissionDenied,
        RowMark::PermissionGranted,
        RowMark::PermissionDecision,
        RowMark::PermissionSetting,
        RowMark::StandingGrant,
        RowMark::ModelChange,
        RowMark::BadLine,
        RowMark::SessionSynced,
        RowMark::ScratchDirectory,
    ];
}

/// A row that owns its texts, for sinks that keep rows (tests, the browser's row table): a `Row`
/// borrows from its parser's state, gone once the parser reads on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OwnedRow {
    pub agent: String,
    pub timestamp_utc: String,
    pub session_id: String,
    pub project_path: String,
    pub git_branch: String,
    pub client_name: String,
    pub model: String,
    pub tool_name: String,
    pub tool_use_id: String,
    pub turn_type: TurnType,
    pub text: String,
    pub source: String,
    pub source_line: u64,
}

impl Row<'_> {
    /// The row as one line of JSON, without its newline: the bytes of serde's derived
    /// `Serialize` (a test holds it), written with the texts' faster string writer.
    pub fn write_json(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let texts = [
            ("{\"agent\":", self.agent),
            (",\"timestamp_utc\":", &self.timestamp_utc),
            (",\"session_id\":", self.session_id),
            (",\"project_path\":", self.project_path),
            (",\"git_branch\":", self.git_branch),
            (",\"client_name\":", self.client_name),
            (",\"model\":", self.model),
            (",\"tool_name\":", self.tool_name),
            (",\"tool_use_id\":", self.tool_use_id),
            (",\"turn_type\":", self.turn_type.as_str()),
            (",\"text\":", &self.text),
            (",\"source\":", self.source),
        ];
        for (key, text) in texts {
            out.write_all(key.as_bytes())?;
            crate::json::write_str(out, text)?;
        }
        write!(out, ",\"source_line\":{}}}", self.source_line)
    }

    pub fn to_owned_row(&self) -> OwnedRow {
        OwnedRow {
            agent: self.agent.to_string(),
            timestamp_utc: self.timestamp_utc.to_string(),
            session_id: self.session_id.to_string(),
            project_path: self.project_path.to_string(),
            git_branch: self.git_branch.to_string(),
            client_name: self.client_name.to_string(),
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

    /// `row`, with `scrubbed`, the same row as the secret scrubber leaves it as far as this
    /// sink keeps its text (`crate::scrub::row`, `text_kept`), so that a sink that scrubs does
    /// not scrub it again.
    fn push_scrubbed(&mut self, row: &Row<'_>, scrubbed: &Row<'_>) {
        let _ = scrubbed;
        self.push(row);
    }

    /// The bytes of `row`'s text this sink keeps when it keeps only their start (a viewer that
    /// reads a long text again whole to show it), or none when it keeps all: the scrubber need
    /// scrub no further (`crate::scrub::row`).
    fn text_kept(&self, row: &Row<'_>) -> Option<usize> {
        let _ = row;
        None
    }
}

impl<T: RowSink + ?Sized> RowSink for &mut T {
    fn push(&mut self, row: &Row<'_>) {
        (**self).push(row);
    }

    fn push_scrubbed(&mut self, row: &Row<'_>, scrubbed: &Row<'_>) {
        (**self).push_scrubbed(row, scrubbed);
    }

    fn text_kept(&self, row: &Row<'_>) -> Option<usize> {
        (**self).text_kept(row)
    }
}

/// Rows with the mark each was made with (an `OwnedRow` does not carry it), for tests.
#[cfg(test)]
#[derive(Default)]
pub struct Marked(pub Vec<(OwnedRow, RowMark)>);

#[cfg(test)]
impl RowSink for Marked {
    fn push(&mut self, row: &Row<'_>) {
        self.0.push((row.to_owned_row(), row.mark));
    }
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

    /// Writes rows already encoded as JSONL (by another thread, say).
    pub fn write_encoded(&mut self, jsonl: &[u8]) -> std::io::Result<()> {
        match self.error.take() {
            Some(error) => Err(error),
            None => self.out.write_all(jsonl),
        }
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
        let written = row.write_json(&mut self.out).and_then(|()| self.out.write_all(b"\n"));
        if let Err(error) = written {
            self.error = Some(error);
        }
    }
}

/// A row from a file other than an event log. These are decided after every log has been
/// read (secondary copies are deduplicated against the logs), so they own their texts. Its
/// agent and `source` are its file's, given when it goes out; an empty `project_path` or
/// `git_branch` is filled from the session by the join, and its `client_name` is the session's.
/// (Not an `OwnedRow` inside: a store holds many of these, and the columns it lacks would cost
/// its memory for nothing.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum HeldRow {
    Row(PendingRow),
    /// A prompt or reply of the store's `turns`, held as its keys and where to read it: only
    /// the copies that survive deduplication are read again, whole.
    Turn(StoreTurn),
}

/// One text cell of a `turns` row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub struct StoreTurn {
    pub rowid: u64,
    pub turn_type: TurnType,
    pub millis: Option<i64>,
    pub session_key: u64,
    pub global_key: u64,
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Texts rich in what JSON escapes: every control byte, quotes, backslashes, and
    /// characters beyond ASCII, at every place of an eight-byte word.
    fn texts() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[\u{0}-\u{1f}\"\\\\a/\u{7f}\u{e9}\u{2028}\u{1F600}]{0,40}").unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// rows.jsonl's writer gives the bytes of serde's derive, whatever the texts.
        #[test]
        fn a_row_is_written_as_serde_writes_it(
            text in texts(),
            model in texts(),
            turn_type in prop::sample::select(TurnType::ALL.to_vec()),
            source_line in any::<u64>(),
        ) {
            let row = Row {
                agent: "copilot-cli",
                timestamp_utc: Cow::Borrowed("2026-12-06T00:00:00.000Z"),
                session_id: "s",
                project_path: &text,
                git_branch: "",
                client_name: "github/cli",
                model: &model,
                tool_name: "bash",
                tool_use_id: "t\n1",
                turn_type,
                text: Cow::Borrowed(&text),
                source: "a/events.jsonl",
                source_line,
                mark: RowMark::default(),
                locator: None,
            };
            let mut written = Vec::new();
            row.write_json(&mut written).unwrap();
            prop_assert_eq!(String::from_utf8(written).unwrap(), serde_json::to_string(&row).unwrap());
        }
    }
}
