//! `session-state/<id>/events.jsonl`, the primary source: one event per line, read as a
//! stream. Each line becomes zero or more rows as the "Parser plan" table says, with the
//! joins that live inside one log (tool names per toolCallId, the tracked project, branch,
//! model and permission mode). Every line is accounted for in [`LineAccount`].

mod records;
mod types;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::BufRead;

use serde_json::Value;
use serde_json::value::RawValue;

use self::records::*;
pub use self::records::{Envelope, Text};
use super::history_session;
use crate::json::ReadError;
use crate::lines::{Line, LineReader};
use crate::model::{LineLocator, Row, RowMark, RowSink, TurnType};
use crate::sources::log::{LogContext, LogOutcome};
use crate::time;
use crate::usage::counters::{ShutdownCounters, UsageCheckpointData, UsageRecordData};
use crate::usage::ledger::{LoggedAt, Place, SessionLedger};
use crate::usage::resumes::{ResumeData, StartData};

/// The rows of one line of a log, made again (a viewer reading a long text it kept only the
/// start of). Texts depend only on their line; the tracked columns may differ.
pub fn reparse_line(context: &LogContext<'_>, line: &[u8]) -> Vec<crate::model::OwnedRow> {
    let mut rows: Vec<crate::model::OwnedRow> = Vec::new();
    parse_log(context, line, &mut rows);
    rows
}

/// Reads one log, handing each row to `sink` as it is made.
pub fn parse_log(context: &LogContext<'_>, reader: impl BufRead, sink: &mut dyn RowSink) -> LogOutcome {
    let mut parser = LogParser {
        context,
        emitter: Emitter { sink, rows: 0, offset: 0 },
        tracked: Tracked {
            session_id: context.session_id.to_string(),
            project: context.fallback_project.to_string(),
            branch: context.fallback_branch.to_string(),
            ..Tracked::default()
        },
        tool_names: HashMap::new(),
        requested_calls: HashSet::new(),
        mcp_call_ids: HashMap::new(),
        skill_asked: None,
        outcome: LogOutcome { usage: Some(SessionLedger::new(context.zone)), ..LogOutcome::default() },
    };
    let mut lines = LineReader::new(reader);
    loop {
        match lines.next_line() {
            Ok(Some(line)) => parser.line(&line),
            Ok(None) => break,
            Err(error) => {
                parser.outcome.read_error = Some(error.to_string());
                break;
            }
        }
    }
    parser.outcome
}

/// The state a log carries from line to line.
#[derive(Default)]
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
    outcome: LogOutcome,
}

/// The longest bad line quoted whole; longer ones keep this prefix and their length.
const BAD_LINE_QUOTE_BYTES: usize = 64 << 10;

impl LogParser<'_, '_> {
    fn line(&mut self, line: &Line<'_>) {
        self.outcome.account.lines += 1;
        self.emitter.rows = 0;
        self.emitter.offset = line.offset;
        if line.bytes.iter().all(u8::is_ascii_whitespace) && !line.is_cut() {
            *self.outcome.account.skipped_by_rule.entry("<blank>".into()).or_default() += 1;
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
        let envelope: Envelope<'_> = serde_json::from_str(text)?;
        let Some(kind) = envelope.kind.non_empty() else {
            return Ok(Err("no event type".into()));
        };
        let stamp = envelope.timestamp.or_empty();
        if let Some(millis) = time::parse_millis(stamp) {
            let summary = &mut self.outcome.summary;
            summary.first_event_ms = Some(summary.first_event_ms.map_or(millis, |first| first.min(millis)));
            summary.last_event_ms = Some(summary.last_event_ms.map_or(millis, |last| last.max(millis)));
        }
        let data = envelope.data.map_or("{}", RawValue::get);
        match self.event(line, kind, stamp, &envelope, data) {
            Err(error) if error.is_lone_surrogate() => return Err(error),
            Err(error) => return Ok(Err(format!("data of {kind}: {error}"))),
            Ok(()) => {}
        }
        let account = &mut self.outcome.account;
        if self.emitter.rows > 0 {
            account.with_rows += 1;
        } else if types::is_known(kind) {
            *account.skipped_by_rule.entry(kind.to_string()).or_default() += 1;
        } else {
            *account.unknown_types.entry(kind.to_string()).or_default() += 1;
        }
        Ok(Ok(()))
    }

    fn bad_line(&mut self, line: &Line<'_>, reason: &str) {
        self.outcome.account.bad_lines += 1;
        let quoted = &line.bytes[..line.bytes.len().min(BAD_LINE_QUOTE_BYTES)];
        let mut text = format!("parser: unparseable line ({reason}): {}", String::from_utf8_lossy(quoted));
        if quoted.len() < line.bytes.len() || line.is_cut() {
            text.push_str(&format!(" [... {} bytes in all]", line.full_len));
        }
        let parts = RowParts::system(text).mark(RowMark::BadLine);
        self.emitter.emit(self.context, &self.tracked, line.number, "", parts);
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
        let context = self.context;
        match kind {
            "session.start" => {
                let start = before_counting::<SessionStart<'_>>(data)?;
                if let Some(ledger) = &mut self.outcome.usage {
                    // Read first, as a usage-only scan reads it, so that both runs count alike.
                    let start: StartData = serde_json::from_str(data)?;
                    ledger.started(start.copilot_version.as_deref());
                }
                let start = start?;
                let id = start.session_id.or_empty();
                if context.session_id_from_log && self.outcome.summary.session_id.is_none() && !id.is_empty() {
                    self.tracked.session_id = id.to_string();
                    self.outcome.summary.session_id = Some(id.to_string());
                }
                if let Some(directory) = &start.context {
                    self.track_directory(directory);
                }
                self.note_chosen_model(start.selected_model.or_empty());
                let version = start.copilot_version.or_empty();
                if !version.is_empty() {
                    self.outcome.summary.copilot_version = Some(version.to_string());
                }
                let cwd = start.context.as_ref().map_or("", |directory| directory.cwd.or_empty());
                let text = format!("session start: copilot {version} producer={} cwd={cwd}", start.producer.or_empty());
                self.emit(line, stamp, RowParts::system(text));
            }
            "session.import_legacy" => {
                // A history session (`history-session-state/`) moved into this log by a CLI that
                // resumed it (0.0.3xx), which then deleted the file: its rows are only here.
                let import: ImportLegacy<'_> = serde_json::from_str(data)?;
                let legacy = history_session::parse(import.legacy_session.map_or("{}", RawValue::get))?;
                let from = import.source_file.non_empty().unwrap_or("-");
                self.emit(line, stamp, RowParts::system(format!("session imported from {from}")));
                for row in &legacy.rows {
                    let parts = RowParts::new(row.turn_type, row.text.as_str()).tool(&row.tool_name, &row.tool_use_id);
                    self.emit(line, &row.timestamp, parts.model(&row.model));
                }
                self.outcome.summary.merge_imported(legacy.summary);
            }
            "session.resume" => {
                let resume = before_counting::<SessionResume<'_>>(data)?;
                if let Some(ledger) = &mut self.outcome.usage {
                    let marks: ResumeData = serde_json::from_str(data)?;
                    ledger.resumed(marks.session_limits);
                }
                let resume = resume?;
                self.note_chosen_model(resume.selected_model.or_empty());
                if let Some(directory) = &resume.context {
                    self.track_directory(directory);
                }
                self.emit(line, stamp, RowParts::system("session resumed"));
            }
            "session.context_changed" => {
                let directory: WorkingDirectory<'_> = serde_json::from_str(data)?;
                self.track_directory(&directory);
            }
            "system.message" => {
                let message: SystemMessage<'_> = serde_json::from_str(data)?;
                let label = if message.role.get() == Some("developer") { "developer message" } else { "system prompt" };
                self.emit(line, stamp, RowParts::system(format!("{label}: {}", message.content.or_empty())));
            }
            "user.message" => {
                let message: UserMessage<'_> = serde_json::from_str(data)?;
                let content = message.content.or_empty();
                let label = if message.is_autopilot_continuation.get() == Some("true") {
                    Some("auto-continuation")
                } else if envelope.agent_id.non_empty().is_some() {
                    Some("subagent task")
                } else {
                    message.source.non_empty().filter(|source| *source != "user")
                };
                if envelope.agent_id.non_empty().is_none() {
                    self.skill_asked = skill_asked(message.source.or_empty(), content);
                }
                let parts = match label {
                    None => RowParts::new(TurnType::User, content),
                    Some(label) => RowParts::system(format!("{label}: {content}")),
                };
                self.emit(line, stamp, parts);
            }
            "assistant.message" => self.assistant_message(line, stamp, data)?,
            "assistant.reasoning" => {
                if context.include_thinking {
                    let reasoning: Reasoning<'_> = serde_json::from_str(data)?;
                    self.emit(line, stamp, RowParts::new(TurnType::Thinking, reasoning.content.or_empty()));
                }
            }
            "tool.execution_start" | "tool.user_requested" => {
                let start: ToolStart<'_> = serde_json::from_str(data)?;
                let id = start.tool_call_id.or_empty();
                let name = start.tool_name.or_empty();
                if !name.is_empty() {
                    self.tool_names.insert(id.to_string(), name.to_string());
                }
                self.count_mcp_call(id, &start.mcp_server_name, &start.mcp_tool_name, name);
                let user_requested = kind == "tool.user_requested";
                if user_requested || !self.requested_calls.contains(id) {
                    let mut text = tool_use_text(start.arguments);
                    if user_requested {
                        text = format!("user requested: {text}");
                    }
                    self.count_call(name);
                    self.emit(
                        line,
                        stamp,
                        RowParts::new(TurnType::ToolUse, text).model(start.model.or_empty()).tool(name, id),
                    );
                }
            }
            "tool.execution_complete" => {
                let complete: ToolComplete<'_> = serde_json::from_str(data)?;
                let id = complete.tool_call_id.or_empty();
                let failed = complete.success.get() == Some("false");
                let mut text = String::new();
                if let Some(code) = complete.shell_execution.as_ref().and_then(|shell| shell.exit_code.get())
                    && code != "0"
                {
                    text.push_str(&format!("[exit {code}] "));
                }
                if let Some(result) = &complete.result {
                    let (content, detailed) = (result.content.or_empty(), result.detailed_content.or_empty());
                    text.push_str(if content.len() > detailed.len() { content } else { detailed });
                }
                if failed && let Some(message) = complete.error.as_ref().and_then(|error| error.message.get()) {
                    text.push('\n');
                    text.push_str(message);
                }
                let name = self.tool_names.get(id).cloned().unwrap_or_default();
                if failed {
                    self.outcome.tools.entry(name.clone()).or_default().failures += 1;
                    if let Some((server, tool)) = self.mcp_call_ids.get(id) {
                        let tools = self.outcome.mcp_calls.entry(server.clone()).or_default();
                        tools.entry(tool.clone()).or_default().failures += 1;
                    }
                }
                let model = complete.model.or_empty();
                self.note_model(model);
                let mark = if failed { RowMark::FailedToolResult } else { RowMark::Plain };
                self.emit(
                    line,
                    stamp,
                    RowParts::new(TurnType::ToolResult, text).model(model).tool(&name, id).mark(mark),
                );
            }
            "permission.requested" => self.permission_requested(line, stamp, data)?,
            "permission.completed" | "permission.carriedForward" => {
                let decision: PermissionDecision<'_> = serde_json::from_str(data)?;
                let (text, mark) = decision_text(kind, &decision);
                let id = decision.tool_call_id.or_empty();
                let name = self.tool_names.get(id).cloned().unwrap_or_default();
                self.emit(line, stamp, RowParts::system(text).tool(&name, id).mark(mark));
            }
            "session.permissions_changed" => {
                let change: PermissionsChanged<'_> = serde_json::from_str(data)?;
                let (text, mode) = if change.mode.get().is_some() || change.previous_mode.get().is_some() {
                    let mode = change.mode.or_empty().to_string();
                    (format!("permission mode: {} -> {mode}", change.previous_mode.get().unwrap_or("-")), mode)
                } else {
                    // The Copilot Desktop app's form: allow-all on or off, with its own mode.
                    let previous = change.previous_allow_all_permission_mode.get().unwrap_or("-");
                    let current = change.allow_all_permission_mode.get().unwrap_or("-");
                    (format!("permission mode: allow-all {previous} -> {current}"), format!("allow-all {current}"))
                };
                self.tracked.permission_mode = Some(mode);
                self.emit(line, stamp, RowParts::system(text).mark(RowMark::PermissionSetting));
            }
            "session.mode_changed" => {
                let change: ModeChanged<'_> = serde_json::from_str(data)?;
                let (previous, new) = (change.previous_mode.get().unwrap_or("-"), change.new_mode.or_empty());
                self.tracked.agent_mode = Some(new.to_string());
                self.emit(line, stamp, RowParts::system(format!("agent mode: {previous} -> {new}")));
            }
            "session.model_change" => {
                let change: ModelChange<'_> = serde_json::from_str(data)?;
                let new = change.new_model.or_empty();
                let previous =
                    change.previous_model.non_empty().or(Some(self.tracked.model.as_str()).filter(|m| !m.is_empty()));
                let mut text = match previous {
                    Some(previous) => format!("model: {previous} -> {new}"),
                    None => format!("model: {new}"),
                };
                for (key, value) in
                    [("cause", &change.cause), ("source", &change.source), ("effort", &change.reasoning_effort)]
                {
                    if let Some(value) = value.get() {
                        text.push_str(&format!(" {key}={value}"));
                    }
                }
                self.tracked.model = new.to_string();
                self.note_chosen_model(new);
                self.emit(line, stamp, RowParts::system(text).mark(RowMark::ModelChange));
            }
            "session.auto_mode_resolved" => {
                let resolved: AutoModeResolved<'_> = serde_json::from_str(data)?;
                let chosen = resolved.chosen_model.or_empty();
                let previous = Some(self.tracked.model.as_str()).filter(|m| !m.is_empty()).unwrap_or("-");
                let text =
                    format!("model: {previous} -> {chosen} (auto, {})", resolved.routing_method.get().unwrap_or("-"));
                self.tracked.model = chosen.to_string();
                self.emit(line, stamp, RowParts::system(text).mark(RowMark::ModelChange));
            }
            "session.info" => {
                let info: SessionInfo<'_> = serde_json::from_str(data)?;
                let info_type = info.info_type.or_empty();
                let mut text = format!("session.info {info_type}: {}", info.message.or_empty());
                for (key, value) in [("url", &info.url), ("tip", &info.tip)] {
                    if let Some(value) = value.get() {
                        text.push_str(&format!(" {key}={value}"));
                    }
                }
                // The notice of a model change (`/model`) or of a routing change under Auto.
                let mark = if info_type == "model" { RowMark::ModelChange } else { RowMark::Plain };
                self.emit(line, stamp, RowParts::system(text).mark(mark));
            }
            "model.message" => {
                let message: UtilityMessage<'_> = serde_json::from_str(data)?;
                let model = message.model_call.as_ref().map_or("", |call| call.model.or_empty());
                let content = message.message.as_ref().map_or("", |message| message.content.or_empty());
                self.note_model(model);
                self.emit(line, stamp, RowParts::system(format!("utility model {model}: {content}")).model(model));
            }
            "session.compaction_complete" => {
                let compaction: CompactionComplete<'_> = serde_json::from_str(data)?;
                self.emit(
                    line,
                    stamp,
                    RowParts::system(format!("compaction summary: {}", compaction.summary_content.or_empty())),
                );
            }
            "abort" | "session.error" | "session.warning" => {
                let problem: Problem<'_> = serde_json::from_str(data)?;
                let detail = problem.reason.get().or(problem.message.get()).unwrap_or_default();
                self.emit(line, stamp, RowParts::system(format!("{kind}: {detail}")));
            }
            "hook.start" | "hook.end" => {
                let hook: Hook<'_> = serde_json::from_str(data)?;
                let hook_type = hook.hook_type.non_empty().unwrap_or("-");
                let json_or_empty =
                    |value: &Option<Value>| value.as_ref().map_or_else(|| "{}".to_string(), crate::json::compact);
                let text = if kind == "hook.start" {
                    format!("hook {hook_type} start: {}", json_or_empty(&hook.input))
                } else {
                    let success = match &hook.success {
                        Some(Value::Bool(success)) => success.to_string(),
                        _ => "-".to_string(),
                    };
                    let mut text =
                        format!("hook {hook_type} end: success={success} output={}", json_or_empty(&hook.output));
                    if let Some(error) = &hook.error {
                        text.push_str(&format!(" error={}", crate::json::compact(error)));
                    }
                    text
                };
                self.emit(line, stamp, RowParts::system(text).tool("", hook.parent_tool_call_id.or_empty()));
            }
            "session.usage_checkpoint" => {
                let checkpoint: UsageCheckpointData = serde_json::from_str(data)?;
                if let Some(ledger) = &mut self.outcome.usage {
                    ledger.usage_checkpoint(
                        LoggedAt { place: Place::Line(line), timestamp: stamp },
                        checkpoint.recorded(),
                        checkpoint.model(),
                    );
                }
            }
            "session.usage_record" => {
                let record: UsageRecordData = serde_json::from_str(data)?;
                if let Some(ledger) = &mut self.outcome.usage {
                    ledger.logged_call(LoggedAt { place: Place::Line(line), timestamp: stamp }, &record, context.rates);
                }
            }
            "session.shutdown" => {
                // The counters are read apart from the row's fields, as a usage-only scan reads
                // them, so that both runs count the same lines.
                let shutdown = before_counting::<Shutdown<'_>>(data)?;
                if let Some(ledger) = &mut self.outcome.usage {
                    let counters: ShutdownCounters = serde_json::from_str(data)?;
                    let by_subagent = envelope.agent_id.non_empty().is_some();
                    let at = LoggedAt { place: Place::Line(line), timestamp: stamp };
                    ledger.checkpoint(at, envelope.id.or_empty(), by_subagent, &counters);
                }
                let shutdown = shutdown?;
                let shutdown_type = shutdown.shutdown_type.or_empty();
                self.outcome.summary.shutdown_type = Some(shutdown_type.to_string());
                let mut text = format!("session end: {shutdown_type}");
                if let Some(reason) = shutdown.error_reason.non_empty() {
                    text.push_str(&format!(" {reason}"));
                }
                let files: Vec<&str> = shutdown
                    .code_changes
                    .iter()
                    .flat_map(|changes| changes.files_modified.iter())
                    .filter_map(Text::get)
                    .collect();
                text.push_str(" files modified: ");
                text.push_str(&if files.is_empty() { "-".to_string() } else { files.join(", ") });
                self.emit(line, stamp, RowParts::system(text));
            }
            _ => {
                if let Some(field) = main_text_field(kind) {
                    let value: Value = serde_json::from_str(data)?;
                    self.note_capability(kind, &value);
                    let detail = match value.get(field) {
                        Some(Value::String(text)) if !text.is_empty() => text.clone(),
                        _ => crate::json::compact(&value),
                    };
                    self.emit(line, stamp, RowParts::system(format!("{kind}: {detail}")));
                }
            }
        }
        Ok(())
    }

    fn assistant_message(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let message: AssistantMessage<'_> = serde_json::from_str(data)?;
        let model = message.model.or_empty();
        self.note_model(model);
        self.outcome.summary.answered = true;
        if let Some(content) = message.content.non_empty() {
            self.emit(line, stamp, RowParts::new(TurnType::Assistant, content).model(model));
        }
        if self.context.include_thinking {
            let thinking = match message.reasoning_text.non_empty() {
                Some(text) => Cow::Borrowed(text),
                None => {
                    let blocks = message.reasoning_blocks.iter().flat_map(|blocks| blocks.blocks.iter());
                    let summaries: Vec<&str> = blocks
                        .flat_map(|block| block.summary.iter())
                        .filter_map(|summary| summary.text.non_empty())
                        .collect();
                    Cow::Owned(summaries.join("\n"))
                }
            };
            if !thinking.is_empty() {
                self.emit(line, stamp, RowParts::new(TurnType::Thinking, thinking).model(model));
            }
        }
        for request in &message.tool_requests {
            let (id, name) = (request.tool_call_id.or_empty(), request.name.or_empty());
            self.requested_calls.insert(id.to_string());
            self.tool_names.insert(id.to_string(), name.to_string());
            self.count_mcp_call(id, &request.mcp_server_name, &request.mcp_tool_name, name);
            self.count_call(name);
            let text = tool_use_text(request.arguments);
            self.emit(line, stamp, RowParts::new(TurnType::ToolUse, text).model(model).tool(name, id));
        }
        Ok(())
    }

    fn permission_requested(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let requested: PermissionRequested<'_> = serde_json::from_str(data)?;
        let request = requested.permission_request.unwrap_or_default();
        let mut text = format!("permission request: {}", request.kind.or_empty());
        let target = request
            .full_command_text
            .non_empty()
            .or(request.url.non_empty())
            .or(request.file_name.non_empty())
            .or(request.path.non_empty())
            .map(Cow::Borrowed)
            .or_else(|| {
                request
                    .server_name
                    .non_empty()
                    .map(|server| Cow::Owned(format!("{server}/{}", request.tool_name.or_empty())))
            });
        if let Some(target) = target {
            text.push(' ');
            text.push_str(&target);
        }
        if let Some(intention) = request.intention.get() {
            text.push_str(&format!(" intention={intention}"));
        }
        let id = request.tool_call_id.or_empty();
        let name = self.tool_names.get(id).cloned().unwrap_or_default();
        self.emit(line, stamp, RowParts::system(text).tool(&name, id).mark(RowMark::PermissionRequest));

        let (mode, agent) = (requested.permission_mode.non_empty(), requested.agent_mode.non_empty());
        let mode_text = match (&self.tracked.permission_mode, mode) {
            (None, Some(mode)) => Some(format!("permission mode: {mode} agent={}", agent.unwrap_or("-"))),
            (Some(old), Some(mode)) if old != mode => Some(format!("permission mode: {old} -> {mode}")),
            _ => None,
        };
        let agent_text = match (&self.tracked.agent_mode, agent) {
            (Some(old), Some(agent)) if old != agent => Some(format!("agent mode: {old} -> {agent}")),
            _ => None,
        };
        if let Some(mode) = mode {
            self.tracked.permission_mode = Some(mode.to_string());
        }
        if let Some(agent) = agent {
            self.tracked.agent_mode = Some(agent.to_string());
        }
        if let Some(text) = mode_text {
            self.emit(line, stamp, RowParts::system(text).mark(RowMark::PermissionSetting));
        }
        if let Some(text) = agent_text {
            self.emit(line, stamp, RowParts::system(text));
        }
        Ok(())
    }

    fn emit(&mut self, line: u64, stamp: &str, parts: RowParts<'_>) {
        self.emitter.emit(self.context, &self.tracked, line, stamp, parts);
    }

    fn track_directory(&mut self, directory: &WorkingDirectory<'_>) {
        if let Some(cwd) = directory.cwd.non_empty() {
            self.tracked.project = cwd.to_string();
            self.outcome.summary.project = Some(cwd.to_string());
        }
        if let Some(branch) = directory.branch.non_empty() {
            self.tracked.branch = branch.to_string();
            self.outcome.summary.branch = Some(branch.to_string());
        }
    }

    /// Counts a call of an MCP server's tool once, at the first event naming its server (under
    /// `mcpToolName` once a line gives it).
    fn count_mcp_call(&mut self, id: &str, server: &Text<'_>, mcp_tool: &Text<'_>, name: &str) {
        let Some(server) = server.non_empty() else { return };
        let tool = mcp_tool.non_empty().unwrap_or(name);
        if let Some((counted_server, counted_tool)) = self.mcp_call_ids.get(id) {
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
        self.outcome.mcp_calls.entry(server.to_string()).or_default().entry(tool.to_string()).or_default().calls += 1;
        self.mcp_call_ids.insert(id.to_string(), (server.to_string(), tool.to_string()));
    }

    /// A skill invoked (by the person or the model) or a custom agent run.
    fn note_capability(&mut self, kind: &str, value: &Value) {
        let name = |key: &str| value.get(key).and_then(Value::as_str).filter(|name| !name.is_empty());
        match kind {
            "skill.invoked" => {
                let Some(skill) = name("name") else { return };
                let uses = self.outcome.skill_uses.entry(skill.to_string()).or_default();
                if self.skill_asked.as_deref() == Some(skill) {
                    self.skill_asked = None;
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
        self.outcome.tools.entry(name.to_string()).or_default().calls += 1;
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

/// A tool_use row's text: the arguments string, else its command, url, query, path or input,
/// else the arguments as compact JSON.
pub(crate) fn tool_use_text(arguments: Option<&RawValue>) -> String {
    let Some(raw) = arguments else {
        return String::new();
    };
    match crate::json::from_str::<Value>(raw.get(), &mut String::new()) {
        Ok(Value::String(text)) => text,
        Ok(Value::Null) => String::new(),
        Ok(value) => ["command", "url", "query", "path", "input"]
            .iter()
            .find_map(|key| value.get(key).and_then(Value::as_str).map(str::to_string))
            .unwrap_or_else(|| crate::json::compact(&value)),
        Err(_) => raw.get().to_string(),
    }
}

/// `permission decision: <kind> source=<source>` and the result's details present, with what
/// the decision was (`denied-*`, `approved*`, or another: cancelled, carried forward, none).
fn decision_text(kind: &str, decision: &PermissionDecision<'_>) -> (String, RowMark) {
    let result = decision.result.as_ref();
    let field = |key: &str| result.and_then(|result| result.get(key)).filter(|value| !value.is_null());
    // Some records nest decisionSource inside result (seen in a Windows listing).
    let source = decision
        .decision_source
        .get()
        .map(str::to_string)
        .or_else(|| field("decisionSource").and_then(crate::json::value_text));
    let result_kind = if kind == "permission.carriedForward" {
        "carried-forward".to_string()
    } else {
        field("kind").and_then(crate::json::value_text).unwrap_or_else(|| "-".into())
    };
    let mark = if result_kind.starts_with("denied") {
        RowMark::PermissionDenied
    } else if result_kind.starts_with("approved") {
        RowMark::PermissionGranted
    } else {
        RowMark::PermissionDecision
    };
    let mut text = format!("permission decision: {result_kind} source={}", source.as_deref().unwrap_or("-"));
    for (key, label) in [
        ("locationKey", "location"),
        ("approval", "approval"),
        ("directories", "directories"),
        ("feedback", "feedback"),
        ("rules", "rules"),
        ("reason", "reason"),
        ("path", "path"),
        ("message", "message"),
    ] {
        if let Some(value) = field(key).and_then(crate::json::value_text) {
            text.push_str(&format!(" {label}={value}"));
        }
    }
    (text, mark)
}

/// The skill a prompt asks for: its `source` names it (`skill-<name>`), or it starts `/<name>`.
fn skill_asked(source: &str, content: &str) -> Option<String> {
    if let Some(skill) = source.strip_prefix("skill-").filter(|skill| !skill.is_empty()) {
        return Some(skill.to_string());
    }
    let command = content.strip_prefix('/')?.split_whitespace().next()?;
    Some(command.to_string())
}

/// The types shown as `<type>: <main text field>` (else compact JSON of their data).
fn main_text_field(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "session.task_complete" | "session.handoff" => "summary",
        "system.notification" => "content",
        "session.schedule_created" => "prompt",
        "skill.invoked" => "name",
        "subagent.failed" => "error",
        "subagent.configured" => "model",
        _ if kind.starts_with("subagent.") => "agentName",
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
