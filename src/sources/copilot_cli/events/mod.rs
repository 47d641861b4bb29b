//! `session-state/<id>/events.jsonl`, the primary source: one event per line, read as a
//! stream. Each line becomes zero or more rows as the "Parser plan" table says, with the
//! joins that live inside one log (tool names per toolCallId, the tracked project, branch,
//! model and permission mode). Every line is accounted for in [`LineAccount`].

mod counters;
mod messages;
mod modes;
mod records;
mod session;
pub(super) mod texts;
mod tools;
mod types;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::BufRead;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use self::records::*;
pub use self::records::{Envelope, Text};
use self::texts::main_text_field;
use super::history_session;
use crate::json::ReadError;
use crate::lines::{Line, LineReader};
use crate::model::{LineLocator, Row, RowMark, RowSink, TurnType};
use crate::sources::log::{LogContext, LogEnd, LogOutcome, bad_line_text, each_line};
use crate::time;
use crate::usage::ledger::SessionLedger;

/// The rows of one line of a log, made again (a viewer reading a long text it kept only the
/// start of). Texts depend only on their line; the tracked columns may differ.
pub fn reparse_line(context: &LogContext<'_>, line: &[u8]) -> Vec<crate::model::OwnedRow> {
    let mut rows: Vec<crate::model::OwnedRow> = Vec::new();
    parse_log(context, line, &mut rows);
    rows
}

/// Reads one log, handing each row to `sink` as it is made.
pub fn parse_log(context: &LogContext<'_>, reader: impl BufRead, sink: &mut dyn RowSink) -> LogOutcome {
    let mut lines = LineReader::new(reader);
    let mut parser = LogParser::first(context, sink);
    parser.read(&mut lines);
    parser.outcome
}

/// As [`parse_log`], and where it stopped with the parser's state there, for a parse of the log
/// grown to go on from ([`resume_log`]). There is no end-of-log step: the state after the last
/// line is all a parse needs to go on.
pub fn parse_log_resumable(
    context: &LogContext<'_>,
    reader: impl BufRead,
    sink: &mut dyn RowSink,
) -> (LogOutcome, Option<LogEnd>) {
    let mut lines = LineReader::new(reader);
    let mut parser = LogParser::first(context, sink);
    parser.read(&mut lines);
    let end = parser.end(&lines);
    (parser.outcome, end)
}

/// Goes on parsing a log from where [`parse_log_resumable`] stopped (`end`, which gave
/// `outcome`), `reader` being there; `None`, before any row, when `end`'s state cannot be read.
pub fn resume_log(
    context: &LogContext<'_>,
    outcome: LogOutcome,
    end: &LogEnd,
    reader: impl BufRead,
    sink: &mut dyn RowSink,
) -> Option<(LogOutcome, Option<LogEnd>)> {
    let state = postcard::from_bytes(&end.state).ok()?;
    let mut lines = LineReader::resumed(reader, end.at);
    let mut parser = LogParser::new(context, sink, state, outcome);
    parser.read(&mut lines);
    let end = parser.end(&lines);
    Some((parser.outcome, end))
}

/// What a log's parser carries from line to line besides its outcome: all a parse that goes
/// on from a line's end needs (kept in the log's cache entry as a `LogEnd`'s state).
#[derive(Default, Serialize, Deserialize)]
struct LogState {
    tracked: Tracked,
    /// Tool names by toolCallId, for results and permission rows.
    tool_names: HashMap<String, String>,
    /// toolCallIds an assistant message already gave a tool_use row.
    requested_calls: HashSet<String>,
    /// toolCallIds counted as calls of an MCP server's tool, with that server and tool.
    mcp_call_ids: HashMap<String, (String, String)>,
    /// The skill the latest prompt asked for (`source: skill-<name>`, or `/<name>`), until a
    /// `skill.invoked` of it: that invocation is the person's choice, others the model's.
    skill_asked: Option<String>,
}

/// The state a log carries from line to line.
#[derive(Default, Serialize, Deserialize)]
struct Tracked {
    session_id: String,
    project: String,
    branch: String,
    model: String,
    permission_mode: Option<String>,
    agent_mode: Option<String>,
}

struct Emitter<'s> {
    sink: &'s mut dyn RowSink,
    /// Rows made for the current line.
    rows: u32,
    /// Where the current line starts.
    offset: u64,
}

/// The parts of a row that differ from row to row; the rest comes from the log's state.
struct RowParts<'a> {
    turn_type: TurnType,
    text: Cow<'a, str>,
    /// `None`: the tracked model.
    model: Option<&'a str>,
    tool_name: &'a str,
    tool_use_id: &'a str,
    mark: RowMark,
}

impl<'a> RowParts<'a> {
    fn new(turn_type: TurnType, text: impl Into<Cow<'a, str>>) -> Self {
        RowParts { turn_type, text: text.into(), model: None, tool_name: "", tool_use_id: "", mark: RowMark::Plain }
    }

    fn system(text: impl Into<Cow<'a, str>>) -> Self {
        Self::new(TurnType::System, text)
    }

    fn model(mut self, model: &'a str) -> Self {
        self.model = Some(model).filter(|model| !model.is_empty());
        self
    }

    fn tool(mut self, name: &'a str, id: &'a str) -> Self {
        self.tool_name = name;
        self.tool_use_id = id;
        self
    }

    fn mark(mut self, mark: RowMark) -> Self {
        self.mark = mark;
        self
    }
}

impl Emitter<'_> {
    fn emit(&mut self, context: &LogContext<'_>, tracked: &Tracked, line: u64, stamp: &str, parts: RowParts<'_>) {
        let locator = LineLocator { file: context.file, offset: self.offset, ordinal: self.rows };
        self.rows += 1;
        self.sink.push(&Row {
            agent: context.agent,
            timestamp_utc: time::normalize(stamp),
            session_id: &tracked.session_id,
            project_path: &tracked.project,
            git_branch: &tracked.branch,
            client_name: context.client_name,
            model: parts.model.unwrap_or(&tracked.model),
            tool_name: parts.tool_name,
            tool_use_id: parts.tool_use_id,
            turn_type: parts.turn_type,
            text: parts.text,
            source: context.source,
            source_line: line,
            mark: parts.mark,
            locator: Some(locator),
        });
    }
}

struct LogParser<'c, 's> {
    context: &'c LogContext<'c>,
    emitter: Emitter<'s>,
    state: LogState,
    /// The current line's time (epoch milliseconds), when it has one: a call's or a skill's.
    line_ms: Option<i64>,
    outcome: LogOutcome,
}

impl<'c, 's> LogParser<'c, 's> {
    fn new(context: &'c LogContext<'c>, sink: &'s mut dyn RowSink, state: LogState, outcome: LogOutcome) -> Self {
        LogParser { context, emitter: Emitter { sink, rows: 0, offset: 0 }, state, line_ms: None, outcome }
    }

    /// The parser before a log's first line: its session, project and branch the context's.
    fn first(context: &'c LogContext<'c>, sink: &'s mut dyn RowSink) -> Self {
        let tracked = Tracked {
            session_id: context.session_id.to_string(),
            project: context.fallback_project.to_string(),
            branch: context.fallback_branch.to_string(),
            ..Tracked::default()
        };
        let outcome = LogOutcome { usage: Some(SessionLedger::new(context.zone)), ..LogOutcome::default() };
        LogParser::new(context, sink, LogState { tracked, ..LogState::default() }, outcome)
    }

    /// Reads every line; a read error ends the reading and is the outcome's.
    fn read<R: BufRead>(&mut self, lines: &mut LineReader<R>) {
        self.outcome.read_error = each_line(lines, |line| self.line(line));
    }

    /// Where the reading stopped and the state there, if a parse may go on from it.
    fn end<R: BufRead>(&self, lines: &LineReader<R>) -> Option<LogEnd> {
        let at = lines.clean_end().filter(|_| self.outcome.read_error.is_none())?;
        Some(LogEnd { at, state: postcard::to_allocvec(&self.state).ok()? })
    }
}

impl LogParser<'_, '_> {
    fn line(&mut self, line: &Line<'_>) {
        self.emitter.rows = 0;
        self.emitter.offset = line.offset;
        if !self.outcome.account.open_line(line) {
            return;
        }
        if line.is_cut() {
            let reason = format!("line of {} bytes is longer than the {} byte limit", line.full_len, line.bytes.len());
            return self.bad_line(line, &reason);
        }
        let text = match std::str::from_utf8(line.bytes) {
            Ok(text) => text,
            Err(error) => {
                return self.bad_line(line, &format!("invalid UTF-8 at byte {}", error.valid_up_to()));
            }
        };
        if !text.trim_start().starts_with('{') {
            return self.bad_line(line, "not a JSON object");
        }
        let mut spare = String::new();
        match crate::json::with_lone_surrogates(text, &mut spare, |text| self.event_line(line.number, text)) {
            Ok(Ok(())) => {}
            Ok(Err(reason)) => self.bad_line(line, &reason),
            Err(error) => self.bad_line(line, &error.to_string()),
        }
    }

    /// Reads one line's event into rows. A JSON error that may go once the line is read again
    /// (a lone surrogate) comes out as the error; a line that cannot give rows otherwise, as
    /// its reason. Nothing is counted before the whole event is read (its times are a minimum
    /// and a maximum), so reading again counts once.
    fn event_line(&mut self, line: u64, text: &str) -> serde_json::Result<Result<(), String>> {
        if self.event_read_at_once(line, text) {
            return Ok(Ok(()));
        }
        let envelope: Envelope<'_> = serde_json::from_str(text)?;
        let Some(kind) = envelope.kind.non_empty() else {
            return Ok(Err("no event type".into()));
        };
        let stamp = envelope.timestamp.or_empty();
        self.note_time(stamp);
        let data = envelope.data.map_or("{}", RawValue::get);
        match self.event(line, kind, stamp, &envelope, data) {
            Err(error) if error.is_lone_surrogate() => return Err(error),
            Err(error) => return Ok(Err(format!("data of {kind}: {error}"))),
            Ok(()) => {}
        }
        self.account_event(kind);
        Ok(Ok(()))
    }

    /// Reads a line of the types most of a log's bytes are (a tool's result, a reply, a call's
    /// usage, a call) in one pass when its type comes first, as the CLI writes it: its data
    /// straight into its record, where `event_line` keeps the data raw and reads it again.
    /// False when it did not, leaving the line to `event_line`, which reports anything this
    /// pass could not take as it always has.
    fn event_read_at_once(&mut self, line: u64, text: &str) -> bool {
        let Some(kind) = leading_type(text) else { return false };
        match kind {
            "tool.execution_complete" => self.read_at_once(line, kind, text, Self::tool_complete),
            "assistant.message" => self.read_at_once(line, kind, text, Self::assistant_message),
            "session.usage_record" => self.read_at_once(line, kind, text, Self::usage_record),
            "tool.execution_start" => self.read_at_once(line, kind, text, |parser, line, stamp, start| {
                parser.tool_start(kind, line, stamp, start)
            }),
            _ => false,
        }
    }

    fn read_at_once<'t, D: Deserialize<'t> + Default>(
        &mut self,
        line: u64,
        kind: &str,
        text: &'t str,
        handle: impl FnOnce(&mut Self, u64, &str, D),
    ) -> bool {
        let Ok(event) = serde_json::from_str::<Envelope<'t, D>>(text) else { return false };
        let stamp = event.timestamp.or_empty();
        self.note_time(stamp);
        handle(self, line, stamp, event.data.unwrap_or_default());
        self.account_event(kind);
        true
    }

    /// The line's time, where the log's first and last times are kept.
    fn note_time(&mut self, stamp: &str) {
        self.line_ms = time::parse_millis(stamp);
        if let Some(millis) = self.line_ms {
            let summary = &mut self.outcome.summary;
            summary.first_event_ms = Some(summary.first_event_ms.map_or(millis, |first| first.min(millis)));
            summary.last_event_ms = Some(summary.last_event_ms.map_or(millis, |last| last.max(millis)));
        }
    }

    /// Accounts for a line whose event of type `kind` was read.
    fn account_event(&mut self, kind: &str) {
        let account = &mut self.outcome.account;
        if self.emitter.rows > 0 {
            account.with_rows += 1;
        } else if types::is_known(kind) {
            *account.skipped_by_rule.entry(kind.to_string()).or_default() += 1;
        } else {
            account.unknown_type(kind);
        }
    }

    fn bad_line(&mut self, line: &Line<'_>, reason: &str) {
        self.outcome.account.bad_lines += 1;
        let parts = RowParts::system(bad_line_text(line, reason)).mark(RowMark::BadLine);
        self.emitter.emit(self.context, &self.state.tracked, line.number, "", parts);
        self.emitter.rows = 0;
    }

    /// Makes the rows of one event. An error means the data did not have the expected shape.
    fn event(
        &mut self,
        line: u64,
        kind: &str,
        stamp: &str,
        envelope: &Envelope<'_>,
        data: &str,
    ) -> serde_json::Result<()> {
        match kind {
            "session.start" => self.session_start(line, stamp, data),
            "session.import_legacy" => self.import_legacy(line, stamp, data),
            "session.resume" => self.session_resume(line, stamp, data),
            "session.context_changed" => self.context_changed(line, stamp, data),
            "system.message" => self.system_message(line, stamp, data),
            "user.message" => self.user_message(line, stamp, envelope, data),
            "assistant.message" => read(data).map(|message| self.assistant_message(line, stamp, message)),
            "assistant.reasoning" => self.reasoning(line, stamp, data),
            "tool.execution_start" | "tool.user_requested" => {
                read(data).map(|start| self.tool_start(kind, line, stamp, start))
            }
            "tool.execution_complete" => read(data).map(|complete| self.tool_complete(line, stamp, complete)),
            "permission.requested" => self.permission_requested(line, stamp, data),
            "permission.completed" | "permission.carriedForward" => self.permission_decision(kind, line, stamp, data),
            "session.permissions_changed" => self.permissions_changed(line, stamp, data),
            "session.mode_changed" => self.mode_changed(line, stamp, data),
            "session.model_change" => self.model_change(line, stamp, data),
            "session.auto_mode_resolved" => self.auto_mode_resolved(line, stamp, data),
            "session.info" => self.session_info(line, stamp, data),
            "model.message" => self.utility_message(line, stamp, data),
            "session.compaction_complete" => self.compaction_complete(line, stamp, data),
            "abort" | "session.error" | "session.warning" => self.problem(kind, line, stamp, data),
            "hook.start" | "hook.end" => self.hook(kind, line, stamp, data),
            "session.usage_checkpoint" => self.usage_checkpoint(line, stamp, data),
            "session.usage_record" => read(data).map(|record| self.usage_record(line, stamp, record)),
            "session.shutdown" => self.session_shutdown(line, stamp, envelope, data),
            _ => self.other_event(kind, line, stamp, data),
        }
    }

    fn other_event(&mut self, kind: &str, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        if let Some(field) = main_text_field(kind) {
            let value: Value = serde_json::from_str(data)?;
            self.note_capability(kind, &value);
            let detail = match value.get(field) {
                Some(Value::String(text)) if !text.is_empty() => text.clone(),
                _ => crate::json::compact(&value),
            };
            self.emit(line, stamp, RowParts::system(format!("{kind}: {detail}")));
        }
        Ok(())
    }

    fn emit(&mut self, line: u64, stamp: &str, parts: RowParts<'_>) {
        self.emitter.emit(self.context, &self.state.tracked, line, stamp, parts);
    }

    fn track_directory(&mut self, directory: &WorkingDirectory<'_>) {
        if let Some(cwd) = directory.cwd.non_empty() {
            self.state.tracked.project = cwd.to_string();
            self.outcome.summary.project = Some(cwd.to_string());
        }
        if let Some(branch) = directory.branch.non_empty() {
            // A person names a branch, and may name it with a token (`hotfix/github_pat_…`):
            // scrubbed here, before its rows, the session's record and the cache take it.
            let branch = crate::scrub::scrub_cow(branch).0.into_owned();
            self.state.tracked.branch = branch.clone();
            self.outcome.summary.branch = Some(branch);
        }
    }

    /// Counts a call of an MCP server's tool once, at the first event naming its server (under
    /// `mcpToolName` once a line gives it).
    fn count_mcp_call(&mut self, id: &str, server: &Text<'_>, mcp_tool: &Text<'_>, name: &str) {
        let Some(server) = server.non_empty() else { return };
        let tool = mcp_tool.non_empty().unwrap_or(name);
        if let Some((counted_server, counted_tool)) = self.state.mcp_call_ids.get(id) {
            // The request line that named the call first may lack `mcpToolName`, which its start
            // line carries: the call is counted once, under the tool's own name.
            if mcp_tool.non_empty().is_none() || (counted_server == server && counted_tool == tool) {
                return;
            }
            let tools = self.outcome.mcp_calls.entry(counted_server.clone()).or_default();
            if let Some(tally) = tools.get_mut(counted_tool) {
                tally.calls -= 1;
                if tally.calls == 0 {
                    tools.remove(counted_tool);
                }
            }
            if tools.is_empty() {
                self.outcome.mcp_calls.remove(counted_server);
            }
        }
        let tools = self.outcome.mcp_calls.entry(server.to_string()).or_default();
        tools.entry(tool.to_string()).or_default().call(self.line_ms);
        self.state.mcp_call_ids.insert(id.to_string(), (server.to_string(), tool.to_string()));
    }

    /// A skill invoked (by the person or the model) or a custom agent run.
    fn note_capability(&mut self, kind: &str, value: &Value) {
        let name = |key: &str| value.get(key).and_then(Value::as_str).filter(|name| !name.is_empty());
        match kind {
            "skill.invoked" => {
                let Some(skill) = name("name") else { return };
                let uses = self.outcome.skill_uses.entry(skill.to_string()).or_default();
                uses.last_ms = uses.last_ms.max(self.line_ms);
                if self.state.skill_asked.as_deref() == Some(skill) {
                    self.state.skill_asked = None;
                    uses.by_person += 1;
                } else {
                    uses.by_model += 1;
                }
            }
            "subagent.started" | "subagent.selected" => {
                if let Some(agent) = name("agentName") {
                    *self.outcome.agent_uses.entry(agent.to_string()).or_default() += 1;
                }
            }
            _ => {}
        }
    }

    fn count_call(&mut self, name: &str) {
        self.outcome.tools.entry(name.to_string()).or_default().call(self.line_ms);
    }

    /// A model the person or the CLI chose; whether any call used it is the record's to say.
    fn note_chosen_model(&mut self, model: &str) {
        if !model.is_empty() && !self.outcome.summary.chosen_models.contains(model) {
            self.outcome.summary.chosen_models.insert(model.to_string());
        }
    }

    fn note_model(&mut self, model: &str) {
        if !model.is_empty() && !self.outcome.summary.models.contains(model) {
            self.outcome.summary.models.insert(model.to_string());
        }
    }
}

fn read<'a, T: Deserialize<'a>>(data: &'a str) -> serde_json::Result<T> {
    serde_json::from_str(data)
}

/// The type of a line that starts with it, as the CLI writes every line (`{"type":"...`), when
/// it holds no escape.
fn leading_type(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(r#"{"type":""#)?;
    let kind = &rest[..rest.find('"')?];
    (!kind.contains('\\')).then_some(kind)
}

/// An event's row fields, read before its counters are counted: a lone surrogate in them is the
/// error at once, so that the line read again (`crate::json::with_lone_surrogates`) counts them
/// once; any other error comes after the counting, as a usage-only scan (which reads only the
/// counters) counts them.
fn before_counting<'a, T: serde::Deserialize<'a>>(data: &'a str) -> serde_json::Result<serde_json::Result<T>> {
    match serde_json::from_str(data) {
        Err(error) if error.is_lone_surrogate() => Err(error),
        read => Ok(read),
    }
}

#[cfg(test)]
mod tests;
