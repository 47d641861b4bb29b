//! The VS Code Copilot Chat source: the chat sessions VS Code keeps in its `User` folder, one
//! file per session (a `.jsonl` mutation log, or a `.json` snapshot from older builds), and the
//! `workspace.json` naming each workspace's folder. A session's rows come from its replayed
//! state (`replay.rs`), read by `turns.rs`.

// Only the page's full module reads debug logs (`sources::READ_BY_FULL_ENGINE_ONLY`).
#[cfg(feature = "extras")]
pub mod debug_log;
pub mod layout;
pub mod mcp;
pub mod replay;
pub mod turns;

use std::io::{self, BufRead, Read};

use serde::Deserialize;

use crate::facts::diagnostics::DiagnosticKind;
use crate::facts::log::LogProblem;
use crate::facts::session::{LOG_TITLE_RANK, Rank};
use crate::lines::LineReader;
use crate::model::{OwnedRow, RowSink};
use crate::sources::folder_uri;
use crate::sources::log::{LogContext, LogOutcome, ScanStats, bad_line_text, each_line};
use crate::usage::ledger::{CounterProblem, Place, SessionLedger};
use crate::usage::rates::RateTable;
use replay::Replay;

use super::{Classified, HomeLayout, Importing, LogAgain, MetadataInput, Source};

/// The longest line of a chat session log read: an initial entry holds the whole session,
/// tool output included, and VS Code cuts what it saves only past 100 MiB of text.
const MAX_ENTRY_BYTES: usize = 256 << 20;

/// VS Code's Copilot Chat.
pub struct CopilotVscode;

impl Source for CopilotVscode {
    fn agent(&self) -> &'static str {
        "copilot-vscode"
    }

    fn layout(&self) -> &'static HomeLayout {
        &layout::LAYOUT
    }

    fn classify<'a>(&self, path: &'a str) -> Classified<'a> {
        layout::classify(path)
    }

    fn read_instead(&self, path: &str) -> Option<String> {
        layout::read_instead(path)
    }

    fn read_only_beside(&self, path: &str) -> Option<String> {
        layout::chats_named_by(path)
    }

    fn import(&self, input: MetadataInput<'_>, into: &mut Importing<'_>) -> Result<(), String> {
        if let MetadataInput::Database(connection) = input {
            return import_index(connection, into);
        }
        let MetadataInput::Bytes(bytes) = input else { return Ok(()) };
        if into.kind == layout::MCP_CONFIG || into.kind == layout::SETTINGS {
            return mcp::import(bytes, into);
        }
        if into.kind != layout::WORKSPACE {
            return Ok(());
        }
        let mut spare = String::new();
        let workspace: Workspace =
            crate::json::from_slice(crate::lines::without_bom(bytes), &mut spare).map_err(|error| error.to_string())?;
        // A multi-root workspace has no one folder: its sessions stay without a project.
        if let Some(folder) = workspace.folder.as_ref().and_then(folder_uri::from_json)
            && let Some((storage, _)) = into.path.rsplit_once('/')
        {
            into.home.folder_projects.insert(storage.to_string(), folder.written());
        }
        Ok(())
    }

    fn log_found_in(&self) -> &'static str {
        "chatSessions"
    }

    fn parse_log(&self, context: &LogContext<'_>, reader: &mut dyn BufRead, sink: &mut dyn RowSink) -> LogOutcome {
        let mut outcome = LogOutcome::default();
        if is_debug_log(context.source) {
            #[cfg(feature = "extras")]
            debug_log::read(context, reader, sink, &mut outcome);
            return outcome;
        }
        let log = read_log(context.source, reader, &mut outcome);
        turns::read_session(context, &log, Some(sink), &mut outcome);
        for (line, text) in &log.bad_lines {
            outcome.problems.push(LogProblem {
                line: Some(*line),
                kind: DiagnosticKind::Unparsable,
                message: text.clone(),
            });
        }
        for (line, what) in log.replay.left_out() {
            outcome.problems.push(LogProblem {
                line: Some(*line),
                kind: DiagnosticKind::Unparsable,
                message: what.clone(),
            });
        }
        outcome
    }

    fn rows_again(&self, context: &LogContext<'_>, log: &mut dyn LogAgain, _offset: u64) -> io::Result<Vec<OwnedRow>> {
        let mut outcome = LogOutcome::default();
        #[cfg(feature = "extras")]
        if is_debug_log(context.source) {
            let mut rows: Vec<OwnedRow> = Vec::new();
            debug_log::read(context, log.whole()?, &mut rows, &mut outcome);
            return match outcome.read_error {
                Some(error) => Err(io::Error::other(error)),
                None => Ok(rows),
            };
        }
        let read = read_log(context.source, log.whole()?, &mut outcome);
        if let Some(error) = outcome.read_error {
            return Err(io::Error::other(error));
        }
        let mut rows: Vec<OwnedRow> = Vec::new();
        turns::read_session(context, &read, Some(&mut rows), &mut outcome);
        Ok(rows)
    }

    fn scan_usage(
        &self,
        path: &str,
        reader: &mut dyn Read,
        ledger: &mut SessionLedger,
        rates: &RateTable,
    ) -> io::Result<ScanStats> {
        let mut outcome = LogOutcome::default();
        let mut counted = CountedRead { inner: reader, bytes: 0 };
        let context = LogContext {
            agent: self.agent(),
            session_id: "",
            session_id_from_log: false,
            source: path,
            fallback_project: "",
            fallback_branch: "",
            client_name: "",
            include_thinking: false,
            zone: ledger.zone(),
            rates,
            file: 0,
        };
        #[cfg(feature = "extras")]
        if is_debug_log(path) {
            debug_log::read_calls(&context, crate::lines::utf16_as_utf8(&mut counted), &mut outcome)?;
            let bad = outcome.account.bad_lines;
            *ledger = outcome.usage.take().unwrap_or_else(|| SessionLedger::new(ledger.zone()));
            for problem in outcome.problems {
                let at = Place::Line(problem.line.unwrap_or_default());
                ledger.problems.push(CounterProblem { at, kind: problem.kind, message: problem.message });
            }
            let parsed = outcome.account.skipped_by_rule.get("llm_request").copied().unwrap_or_default();
            return Ok(ScanStats { bytes: counted.bytes, parsed, bad, bad_offsets: Vec::new() });
        }
        let log = read_log(path, &mut io::BufReader::new(&mut counted), &mut outcome);
        if let Some(error) = outcome.read_error.take() {
            return Err(io::Error::other(error));
        }
        turns::read_session(&context, &log, None, &mut outcome);
        if let Some(read) = outcome.usage {
            *ledger = read;
        }
        let bad = log.bad_lines.len() as u64;
        for (line, text) in log.bad_lines {
            let message = text;
            ledger.problems.push(CounterProblem {
                at: Place::Line(line),
                kind: DiagnosticKind::BadCounterLine,
                message,
            });
        }
        for (line, what) in log.replay.left_out() {
            let (at, kind, message) = (Place::Line(*line), DiagnosticKind::Unparsable, what.clone());
            ledger.problems.push(CounterProblem { at, kind, message });
        }
        let parsed = outcome.account.with_rows;
        Ok(ScanStats { bytes: counted.bytes, parsed, bad, bad_offsets: Vec::new() })
    }
}

/// Whether a log (by its path in its home) is a debug log rather than a chat session.
fn is_debug_log(path: &str) -> bool {
    layout::classify(path).kind == layout::DEBUG_LOG
}

/// VS Code's chat index names a session after every file of it (`facts::session`).
const TITLE_FROM_CHAT_INDEX: Rank = LOG_TITLE_RANK + 10;

/// The key of VS Code's index of chat sessions in a `state.vscdb`'s `ItemTable`.
const INDEX_KEY: &str = "chat.ChatSessionStore.index";

/// VS Code's index of chat sessions: `{"version": 1, "entries": {id: {title, isEmpty, ...}}}`.
#[derive(Deserialize)]
struct ChatIndex {
    #[serde(default)]
    entries: std::collections::BTreeMap<String, serde_json::Value>,
}

/// The session titles of a `state.vscdb`'s chat index: VS Code saves a title it made itself
/// only there (the session file holds a title the person gave, `customTitle`).
fn import_index(connection: &rusqlite::Connection, into: &mut Importing<'_>) -> Result<(), String> {
    let value: Option<Vec<u8>> = connection
        .query_row("SELECT CAST(value AS BLOB) FROM ItemTable WHERE key = ?1", [INDEX_KEY], |row| row.get(0))
        .map(Some)
        .or_else(|error| match error {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            error => Err(format!("its ItemTable cannot be read: {error}")),
        })?;
    let Some(value) = value else { return Ok(()) };
    let mut spare = String::new();
    let index: ChatIndex = crate::json::from_slice(&value, &mut spare)
        .map_err(|error| format!("its {INDEX_KEY} is not the index VS Code writes: {error}"))?;
    for (id, entry) in &index.entries {
        let title = entry.get("title").and_then(serde_json::Value::as_str).filter(|title| !title.is_empty());
        if entry.get("isEmpty").and_then(serde_json::Value::as_bool) == Some(true) || title.is_none() {
            continue;
        }
        if let Some(title) = title {
            into.session(id, "chat index").title.claim_latest(TITLE_FROM_CHAT_INDEX, title);
        }
    }
    Ok(())
}

/// `workspace.json`: the folder a workspace window opened, or its `.code-workspace` file.
#[derive(Deserialize)]
struct Workspace {
    folder: Option<serde_json::Value>,
}

/// A chat session file read: its replayed state and the lines that could not be replayed
/// (line number, the row's text).
pub struct ReadLog {
    pub replay: Replay,
    pub bad_lines: Vec<(u64, String)>,
}

/// Reads a `.jsonl` line by line into its state, or a `.json` whole, accounting for every line
/// in `outcome` (a line applied to the state counts as giving rows: they come from the state; a
/// `.json` counts as one line, its one entry).
fn read_log(path: &str, reader: &mut dyn BufRead, outcome: &mut LogOutcome) -> ReadLog {
    let mut log = ReadLog { replay: Replay::default(), bad_lines: Vec::new() };
    if !path.ends_with(".jsonl") {
        read_snapshot(reader, &mut log, outcome);
        return log;
    }
    let account = &mut outcome.account;
    let mut before_initial: Option<(u64, u64)> = None;
    let read_error = each_line(&mut LineReader::with_limit(reader, MAX_ENTRY_BYTES), |line| {
        if !account.open_line(line) {
            return;
        }
        let applied = if line.is_cut() {
            Err(format!("a line of {} bytes, longer than the {} MiB read", line.full_len, MAX_ENTRY_BYTES >> 20))
        } else {
            log.replay.apply(line.bytes, line.number)
        };
        match applied {
            Ok(()) => account.with_rows += 1,
            Err(_) if log.replay.state().is_none() => {
                // Nothing to apply it to: the file's diagnostic says so, once.
                account.bad_lines += 1;
                before_initial.get_or_insert((line.number, 0)).1 += 1;
            }
            Err(why) => {
                account.bad_lines += 1;
                log.bad_lines.push((line.number, bad_line_text(line, &why)));
            }
        }
    });
    outcome.read_error = read_error;
    let problem = match before_initial {
        None if log.replay.state().is_none() => {
            Some((None, "an empty log: there is no session state to replay".to_string()))
        }
        Some((first, count)) => Some((
            Some(first),
            format!(
                "no initial entry (kind 0) before line {}: {count} line(s) cannot be replayed and give nothing",
                first + count
            ),
        )),
        None => None,
    };
    if let Some((line, message)) = problem {
        outcome.problems.push(LogProblem { line, kind: DiagnosticKind::Unparsable, message });
    }
    log
}

/// A `.json` snapshot: the whole state at once.
fn read_snapshot(reader: &mut dyn BufRead, log: &mut ReadLog, outcome: &mut LogOutcome) {
    let mut bytes = Vec::new();
    if let Err(error) = crate::lines::utf16_as_utf8(reader).read_to_end(&mut bytes) {
        outcome.read_error = Some(error.to_string());
        return;
    }
    // The whole file is one entry, however it is laid out on lines.
    let account = &mut outcome.account;
    account.lines = 1;
    let mut spare = String::new();
    match crate::json::from_slice::<serde_json::Value>(crate::lines::without_bom(&bytes), &mut spare) {
        Ok(state) if state.is_object() => {
            log.replay = Replay::whole(state);
            account.with_rows = 1;
        }
        parsed => {
            account.bad_lines = 1;
            let why = match parsed {
                Err(error) => format!("not JSON: {error}"),
                Ok(_) => "not a chat session (not a JSON object)".to_string(),
            };
            outcome.problems.push(LogProblem { line: None, kind: DiagnosticKind::Unparsable, message: why });
        }
    }
}

/// Counts the bytes read through it.
struct CountedRead<'a> {
    inner: &'a mut dyn Read,
    bytes: u64,
}

impl Read for CountedRead<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let count = self.inner.read(buffer)?;
        self.bytes += count as u64;
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::facts::home::HomeFacts;

    fn index_database(value: &str) -> rusqlite::Connection {
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        connection.execute_batch("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)").unwrap();
        connection.execute("INSERT INTO ItemTable VALUES (?1, ?2)", [INDEX_KEY, value]).unwrap();
        connection
    }

    fn titles(connection: &rusqlite::Connection) -> Result<Vec<(String, Option<String>)>, String> {
        let (mut sessions, mut home) = (BTreeMap::new(), HomeFacts::default());
        let mut into = Importing {
            kind: layout::CHAT_INDEX,
            path: "x/state.vscdb",
            home_index: 0,
            session_id: "",
            agent: "copilot-vscode",
            session_has_log: false,
            sessions: &mut sessions,
            home: &mut home,
            rows: Vec::new(),
            dated: false,
            not_needed: Vec::new(),
        };
        CopilotVscode.import(MetadataInput::Database(connection), &mut into)?;
        Ok(sessions
            .into_iter()
            .map(|(id, facts)| (id, facts.title.at(TITLE_FROM_CHAT_INDEX).map(str::to_string)))
            .collect())
    }

    #[test]
    fn the_chat_index_names_sessions() {
        let index = r#"{"version":1,"entries":{"a":{"title":"Made by VS Code"},"b":{"title":"","isEmpty":true}}}"#;
        assert_eq!(titles(&index_database(index)).unwrap(), [("a".to_string(), Some("Made by VS Code".to_string()))]);
        assert!(titles(&index_database("{not json")).unwrap_err().contains("not the index VS Code writes"));
        let no_table = rusqlite::Connection::open_in_memory().unwrap();
        assert!(titles(&no_table).unwrap_err().contains("its ItemTable cannot be read: no such table"));
    }
}
