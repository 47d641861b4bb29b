//! Copilot Chat's Agent Debug logs (`chatDebugFileLoggerService.ts`): one JSON object a line,
//! `{ts, dur, sid, type, name, spanId, parentSpanId, status, attrs}`. A session's folder,
//! `debug-logs/<chat session id>/`, holds `main.jsonl` and a child log per sub-request
//! (`<label>-<child id>.jsonl`: `runSubagent-<agent>-<id>`, `title-<id>`), each announced in
//! `main.jsonl` by a `child_session_ref` line; the child's lines carry its own id as `sid`.
//!
//! Every `llm_request` is one model call, with its tokens (`inputTokens` includes
//! `cachedTokens`) and, in newer builds, what Copilot recorded as billed (`copilotUsageNanoAiu`),
//! counted per call (`SessionLedger::recorded_call`). The texts (`user_message`'s prompt,
//! `agent_response`'s reply, `tool_call`'s arguments and result, each cut by Copilot Chat at
//! 5,000 characters) are rows; where the session's chat is given, which holds them, the analysis
//! leaves them out (`Copies::RowsHeldBy`). No line holds a system prompt or a request's body.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, BufRead, Read};

use memchr::memmem::Finder;
use serde::Deserialize;
use serde_json::Value;

use super::turns::{Notes, RowAt, RowParts, counted_as_read, model_name, read_count, row};
use crate::facts::diagnostics::DiagnosticKind;
use crate::facts::log::{LogProblem, LogSummary};
use crate::lines::{Line, LineReader};
use crate::model::{RowMark, RowSink, TurnType};
use crate::sources::folder_uri;
use crate::sources::log::{LogContext, LogOutcome, bad_line_text, each_line};
use crate::time;
use crate::usage::counters::{Amount, Count, LeftOut, Recorded};
use crate::usage::ledger::{CallMaker, Place, SessionLedger};
use crate::usage::{Entry, Tokens};
use crate::words::counted;

/// The line types Copilot Chat writes that give no usage (`IDebugLogEntry.type`, and
/// `session_start` of newer builds).
const OTHER_TYPES: [&str; 10] = [
    "tool_call",
    "user_message",
    "agent_response",
    "subagent",
    "discovery",
    "error",
    "generic",
    "child_session_ref",
    "hook",
    "session_start",
];

const LLM_REQUEST: &str = "llm_request";

/// A string field of a line or of its `attrs` read as a `Value`.
fn text<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object.get(field).and_then(Value::as_str)
}

/// Reads a debug log's rows into `sink`, and its usage and summary into `outcome`, accounting
/// for every line; a line that cannot be read, a call repeated (the same `spanId`) or failed,
/// and a call with no day are its problems.
pub fn read(context: &LogContext<'_>, reader: &mut dyn BufRead, sink: &mut dyn RowSink, outcome: &mut LogOutcome) {
    let mut lines = LineReader::new(reader);
    let mut reading = Reading::new(context, Some(sink));
    outcome.read_error = each_line(&mut lines, |line| reading.line(line, outcome));
    let ended = lines.clean_end().is_some();
    let last_line = outcome.account.lines;
    reading.finish(outcome, last_line, ended);
}

/// `read` for a usage-only run, with the same ledger and the same problems of the calls: the
/// bytes are searched a chunk at a time for `llm_request`, and only the lines naming it are
/// parsed (most of a log is texts, tool arguments and results).
pub fn read_calls(context: &LogContext<'_>, reader: impl Read, outcome: &mut LogOutcome) -> io::Result<()> {
    let finder = Finder::new(LLM_REQUEST);
    let mut reading = Reading::new(context, None);
    // Lines before the run being searched, and whether the input so far ends a line.
    let (mut lines_before, mut ended) = (0u64, true);
    crate::lines::scan_whole_lines(reader, |run, base, left_out| {
        lines_before += left_out;
        let mut counted_to = 0;
        let mut next_line = 0;
        for at in finder.find_iter(run) {
            if at < next_line {
                continue;
            }
            let start = memchr::memrchr(b'\n', &run[..at]).map_or(0, |newline| newline + 1);
            let end = memchr::memchr(b'\n', &run[at..]).map_or(run.len(), |newline| at + newline);
            next_line = end + 1;
            lines_before += memchr::memchr_iter(b'\n', &run[counted_to..start]).count() as u64;
            counted_to = start;
            let bytes = run[start..end].strip_suffix(b"\r").unwrap_or(&run[start..end]);
            let bytes = if lines_before == 0 { crate::lines::without_bom(bytes) } else { bytes };
            let line =
                Line { number: lines_before + 1, offset: base + start as u64, bytes, full_len: bytes.len() as u64 };
            reading.found_call(&line, outcome);
        }
        lines_before += memchr::memchr_iter(b'\n', &run[counted_to..]).count() as u64;
        ended = run.last().is_none_or(|last| *last == b'\n');
    })?;
    let last_line = lines_before + u64::from(!ended);
    reading.finish(outcome, last_line, ended);
    Ok(())
}

struct Reading<'c, 's> {
    context: &'c LogContext<'c>,
    /// The log's name when it is a child log (`child_log`).
    child_log: Option<&'c str>,
    /// The project of the workspace the log is in.
    project: Option<crate::sources::folder_uri::Folder>,
    /// Each `llm_request`'s span (by its hash, as every deduplication keeps), with its line: a
    /// repeated line counts once.
    spans: HashMap<u64, u64>,
    ledger: Option<SessionLedger>,
    /// Lines that cannot be read, with why.
    bad: Vec<(u64, String)>,
    /// Where the rows go; none for a usage-only reading.
    texts: Option<Texts<'c, 's>>,
}

impl<'c, 's> Reading<'c, 's> {
    fn new(context: &'c LogContext<'c>, sink: Option<&'s mut dyn RowSink>) -> Self {
        let project = folder_uri::decode(context.fallback_project);
        let project_path = project.as_ref().map(|folder| folder.path.clone()).unwrap_or_default();
        Reading {
            context,
            child_log: child_log(context.source),
            project,
            spans: HashMap::new(),
            ledger: None,
            bad: Vec::new(),
            texts: sink.map(|sink| Texts { context, sink, project: project_path, ordinal: 0, last_call: None, cut: 0 }),
        }
    }

    /// Says what was wrong with the lines that could not be read (`last_line`: the log's last,
    /// `ended` when it ends with its newline), and puts the ledger in `outcome`.
    fn finish(mut self, outcome: &mut LogOutcome, last_line: u64, ended: bool) {
        for (number, text) in std::mem::take(&mut self.bad) {
            let mut message = text;
            if number == 1 {
                message.push_str(
                    " (VS Code keeps only the last 60 MB of a debug log past 100 MB: a log cut so starts mid-line)",
                );
            } else if number == last_line && !ended {
                message.push_str(" (the log's last line, not ended: still being written, or cut)");
            }
            if let Some(texts) = &mut self.texts {
                let row = (TurnType::System, Cow::Borrowed(message.as_str()), "", "", RowMark::BadLine);
                texts.emit(number, None, "", row);
            }
            outcome.problems.push(LogProblem { line: Some(number), kind: DiagnosticKind::Unparsable, message });
        }
        if let Some(cut) = self.texts.as_ref().map(|texts| texts.cut).filter(|cut| *cut > 0) {
            outcome.problems.push(LogProblem {
                line: None,
                kind: DiagnosticKind::CutWhenSaved,
                message: format!(
                    "{} cut by Copilot Chat at 5,000 characters when it logged {} (ending \"{CUT_MARK}\"): shown as logged",
                    counted(cut, "text was", "texts were"),
                    if cut == 1 { "it" } else { "them" }
                ),
            });
        }
        let summary = &mut outcome.summary;
        // A chat session does not shut down: its record says none rather than "none".
        // No creation time: the chat's own, when there is one, is the session's.
        summary.shutdown_type = Some(String::new());
        if let Some(folder) = self.project {
            (summary.project, summary.remote) = (Some(folder.path), folder.remote);
        }
        outcome.usage = self.ledger;
    }

    /// A line a usage-only reading found `llm_request` in: a call in the shape Copilot Chat
    /// writes is read in place (a `Value` of each call's line was a quarter of the reading's
    /// time), any other line as every line is, to the same figures.
    fn found_call(&mut self, line: &Line<'_>, outcome: &mut LogOutcome) {
        let mut spare = String::new();
        let read =
            if line.is_cut() { None } else { crate::json::from_slice::<CallLine<'_>>(line.bytes, &mut spare).ok() };
        let Some(call) = read.filter(|call| call.kind == LLM_REQUEST) else { return self.line(line, outcome) };
        outcome.account.open_line(line);
        dated(call.millis(), &mut outcome.summary);
        self.call(line.number, &call, outcome);
    }

    fn line(&mut self, line: &Line<'_>, outcome: &mut LogOutcome) {
        let account = &mut outcome.account;
        if !account.open_line(line) {
            return;
        }
        let mut spare = String::new();
        let parsed = if line.is_cut() {
            Err(format!("a line of {} bytes, longer than those read", line.full_len))
        } else {
            crate::json::from_slice::<Value>(line.bytes, &mut spare).map_err(|error| error.to_string())
        };
        let entry: Value = match parsed {
            Ok(entry) => entry,
            Err(why) => {
                account.bad_lines += 1;
                self.bad.push((line.number, bad_line_text(line, &why)));
                return;
            }
        };
        let millis = entry.get("ts").and_then(time::value_millis);
        dated(millis, &mut outcome.summary);
        let kind = text(&entry, "type").unwrap_or_default();
        match kind {
            LLM_REQUEST => self.call(line.number, &CallLine::of(&entry), outcome),
            "session_start" => {
                if let Some(version) = entry.get("attrs").and_then(|attrs| text(attrs, "copilotVersion")) {
                    outcome.summary.copilot_version = Some(version.to_string());
                }
                note(&mut outcome.account.skipped_by_rule, kind);
            }
            USER_MESSAGE | AGENT_RESPONSE | TOOL_CALL if self.texts.is_some() => {
                let rows = self.texts_of(kind, line.number, millis, &entry, &mut outcome.summary);
                if rows {
                    outcome.account.with_rows += 1;
                } else {
                    note(&mut outcome.account.skipped_by_rule, kind);
                }
            }
            known if OTHER_TYPES.contains(&known) => note(&mut outcome.account.skipped_by_rule, kind),
            unknown => outcome.account.unknown_type(unknown),
        }
    }

    /// The rows of a line's texts, and what they say of the session; false when it gives none.
    fn texts_of(
        &mut self,
        kind: &str,
        number: u64,
        millis: Option<i64>,
        entry: &Value,
        summary: &mut LogSummary,
    ) -> bool {
        let Some(texts) = &mut self.texts else { return false };
        let attrs = entry.get("attrs");
        let attr = |name| attrs.and_then(|attrs| text(attrs, name)).filter(|text| !text.is_empty());
        let child = child_label(self.child_log, text(entry, "sid"));
        // A title log's texts are Copilot's own request: its reply names the session, no row.
        if child == Some(TITLE) {
            if let Some(title) = attr("response").filter(|_| kind == AGENT_RESPONSE) {
                let title = reply_text(title);
                summary.title = Some(title.trim().to_string()).filter(|title| !title.is_empty());
            }
            return false;
        }
        match kind {
            USER_MESSAGE => {
                let Some(prompt) = attr("content") else { return false };
                // A sub-agent's prompt is Copilot's, not the person's.
                if child.is_none() {
                    summary.note_prompt(prompt);
                }
                let row = (TurnType::User, Cow::Borrowed(prompt), "", "", RowMark::Plain);
                texts.emit(number, millis, "", row);
            }
            AGENT_RESPONSE => {
                let Some(response) = attr("response") else { return false };
                let reply = reply_text(response);
                summary.answered = true;
                let span = text(entry, "spanId").and_then(|span| span.strip_prefix("agent-msg-"));
                let model = match (&texts.last_call, span) {
                    (Some((call, model)), Some(span)) if call == span => model.clone(),
                    _ => String::new(),
                };
                texts.emit(number, millis, &model, (TurnType::Assistant, reply, "", "", RowMark::Plain));
            }
            _ => {
                let (name, id) = (text(entry, "name").unwrap_or_default(), text(entry, "spanId").unwrap_or_default());
                let failed = text(entry, "status") == Some("error");
                let arguments = attr("args").unwrap_or_default();
                texts.emit(number, millis, "", (TurnType::ToolUse, arguments.into(), name, id, RowMark::Plain));
                if let Some(result) = attr("result").or(failed.then(|| attr("error")).flatten()) {
                    let mark = if failed { RowMark::FailedToolResult } else { RowMark::Plain };
                    texts.emit(number, millis, "", (TurnType::ToolResult, result.into(), name, id, mark));
                }
            }
        }
        true
    }

    /// One `llm_request`: a model call, counted once per span.
    fn call(&mut self, number: u64, line: &CallLine<'_>, outcome: &mut LogOutcome) {
        note(&mut outcome.account.skipped_by_rule, LLM_REQUEST);
        let millis = line.millis();
        let span = line.span.unwrap_or_default();
        if let Some(texts) = &mut self.texts {
            let model = line.attrs.as_ref().and_then(|attrs| attrs.model).map(model_name);
            texts.last_call = Some((span.to_string(), model.unwrap_or_default().to_string()));
        }
        if !span.is_empty() {
            let key = xxhash_rust::xxh3::xxh3_64(span.as_bytes());
            if let Some(first) = self.spans.get(&key) {
                outcome.problems.push(LogProblem {
                    line: Some(number),
                    kind: DiagnosticKind::Duplicate,
                    message: format!("llm_request span {span} repeats line {first}: counted once"),
                });
                return;
            }
            self.spans.insert(key, number);
        }
        let Some(attrs) = &line.attrs else {
            let message = format!("llm_request span {span} has no attrs: not counted");
            outcome.problems.push(LogProblem { line: Some(number), kind: DiagnosticKind::Unparsable, message });
            return;
        };
        let model = model_name(attrs.model.unwrap_or_default());
        if line.status == Some("error") {
            let why = attrs.error.map(|error| format!(" ({})", error.chars().take(200).collect::<String>()));
            outcome.problems.push(LogProblem {
                line: Some(number),
                kind: DiagnosticKind::FailedRequest,
                message: format!(
                    "llm_request span {span} to {model} failed{}: counted as Copilot recorded it",
                    why.unwrap_or_default()
                ),
            });
        }
        let mut notes = Notes::default();
        let mut left_out = LeftOut::default();
        let tokens = Tokens {
            requests: 1,
            input: counted_as_read(attrs.input_tokens, &mut notes, "inputTokens", &mut left_out.input),
            cache_read: counted_as_read(attrs.cached_tokens, &mut notes, "cachedTokens", &mut left_out.input),
            output: counted_as_read(attrs.output_tokens, &mut notes, "outputTokens", &mut left_out.output),
            ..Tokens::default()
        };
        let mut tokens = left_out.fill(tokens, Tokens::default());
        let ledger = self.ledger.get_or_insert_with(|| SessionLedger::new(self.context.zone));
        if tokens.hold_cache_inside_input() {
            ledger.flags.insert("cache_above_input");
        }
        let recorded = Recorded::read(attrs.copilot_usage_nano_aiu, 1.0, Amount::Absent);
        let implausible = !notes.left_out.is_empty();
        if implausible || recorded.implausible {
            let mut what = notes.left_out;
            if recorded.implausible {
                what.push("copilotUsageNanoAiu is not an amount".to_string());
            }
            ledger.problems.push(crate::usage::ledger::CounterProblem {
                at: Place::Line(number),
                kind: DiagnosticKind::ImplausibleCounter,
                message: format!(
                    "llm_request span {span}: {}. Left out, not added (flagged implausible_counter)",
                    what.join(", ")
                ),
            });
        }
        if millis.is_none() {
            ledger.problems.push(crate::usage::ledger::CounterProblem {
                at: Place::Line(number),
                kind: DiagnosticKind::UndatedCounter,
                message: format!(
                    "llm_request span {span} has no ts that is a time: it cannot be put on a day, so it is in no usage row"
                ),
            });
        }
        let entry = Entry { tokens, implausible, recorded, ..Entry::default() };
        let child = child_label(self.child_log, line.sid);
        // Older builds name no call: a title log's calls are still the title's.
        let purpose = match attrs.debug_name {
            Some(name) => own_purpose(name),
            None => child.filter(|label| *label == TITLE),
        };
        let made = CallMaker { agent: child.filter(|label| Some(*label) != purpose), purpose };
        let response = attrs.response_id;
        ledger.recorded_call(Place::Line(number), millis, model, entry, response, made);
        if !outcome.summary.models.contains(model) {
            outcome.summary.models.insert(model.to_string());
        }
    }
}

/// An `llm_request` line in the shape Copilot Chat writes, read in place: strings borrowed,
/// counts as written, other fields skipped. A line in any other shape (a field of another type,
/// a key given twice, a string with an escape, which cannot be borrowed) fails to read so, and
/// is read as a `Value` (`CallLine::of`). A field absent is its default (a line with no `type`
/// is not a call here). The strings are `&str`: serde borrows a `Cow` only outside an `Option`,
/// and copies it inside one, an allocation per string of every call.
#[derive(Default, Deserialize)]
#[serde(default)]
struct CallLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    ts: Option<Value>,
    #[serde(rename = "spanId")]
    span: Option<&'a str>,
    sid: Option<&'a str>,
    status: Option<&'a str>,
    /// None when absent or `null`: the call is not counted.
    #[serde(borrow)]
    attrs: Option<CallAttrs<'a>>,
}

#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct CallAttrs<'a> {
    model: Option<&'a str>,
    debug_name: Option<&'a str>,
    response_id: Option<&'a str>,
    error: Option<&'a str>,
    input_tokens: Count,
    cached_tokens: Count,
    output_tokens: Count,
    copilot_usage_nano_aiu: Amount,
}

impl<'a> CallLine<'a> {
    fn millis(&self) -> Option<i64> {
        self.ts.as_ref().and_then(time::value_millis)
    }

    /// A call of a line read as a `Value`: a field of another type is absent, as `text` reads it.
    fn of(entry: &'a Value) -> Self {
        let attrs = entry.get("attrs").filter(|attrs| attrs.is_object()).map(|attrs| {
            let count = |field| read_count(attrs.get(field));
            CallAttrs {
                model: text(attrs, "model"),
                debug_name: text(attrs, "debugName"),
                response_id: text(attrs, "responseId"),
                error: text(attrs, "error"),
                input_tokens: count("inputTokens"),
                cached_tokens: count("cachedTokens"),
                output_tokens: count("outputTokens"),
                copilot_usage_nano_aiu: attrs
                    .get("copilotUsageNanoAiu")
                    .map_or(Amount::Absent, |value| Amount::deserialize(value).unwrap_or(Amount::NotANumber)),
            }
        });
        CallLine {
            kind: Cow::Borrowed(LLM_REQUEST),
            ts: entry.get("ts").cloned(),
            span: text(entry, "spanId"),
            sid: text(entry, "sid"),
            status: text(entry, "status"),
            attrs,
        }
    }
}

/// Notes a line's time among the log's first and last.
fn dated(millis: Option<i64>, summary: &mut LogSummary) {
    if let Some(millis) = millis {
        summary.first_event_ms = Some(summary.first_event_ms.map_or(millis, |first| first.min(millis)));
        summary.last_event_ms = summary.last_event_ms.max(Some(millis));
    }
}

/// The child log and the `debugName` of a chat's title (`title.ts`).
const TITLE: &str = "title";

const USER_MESSAGE: &str = "user_message";
const AGENT_RESPONSE: &str = "agent_response";
const TOOL_CALL: &str = "tool_call";

/// What Copilot Chat puts after a text it cut at 5,000 characters (`truncate`).
const CUT_MARK: &str = "[truncated]";

/// Where a log's rows go, and what they need from the lines before.
struct Texts<'c, 's> {
    context: &'c LogContext<'c>,
    sink: &'s mut dyn RowSink,
    /// The path of the workspace's folder.
    project: String,
    /// The rows so far: a row's place among the log's rows is its locator (`rows_again` reads
    /// the log whole).
    ordinal: u32,
    /// The last call's span and model: its reply (`agent-msg-<span>`) follows it.
    last_call: Option<(String, String)>,
    /// Texts Copilot Chat cut when it logged them.
    cut: u64,
}

impl Texts<'_, '_> {
    fn emit(&mut self, line: u64, millis: Option<i64>, model: &str, parts: RowParts<'_>) {
        if parts.1.ends_with(CUT_MARK) {
            self.cut += 1;
        }
        let timestamp = Cow::Owned(millis.map(time::format_millis).unwrap_or_default());
        let at = RowAt { timestamp, project: &self.project, model, line, ordinal: self.ordinal };
        self.sink.push(&row(self.context, at, parts));
        self.ordinal += 1;
    }
}

/// A reply's text: `agent_response` holds the call's output messages as OpenTelemetry's JSON
/// (`[{role, parts: [{type: "text", content}, ...]}]`, `messageFormatters.ts`), their text
/// parts joined; a response that is not such JSON (cut at 5,000 characters, or an older
/// build's plain text) is shown as logged.
fn reply_text(response: &str) -> Cow<'_, str> {
    let mut spare = String::new();
    let parsed = response.starts_with('[').then(|| crate::json::from_str::<Value>(response, &mut spare));
    let Some(Ok(Value::Array(messages))) = parsed else { return Cow::Borrowed(response) };
    let parts = messages.iter().filter_map(|message| message.get("parts")?.as_array()).flatten();
    let texts: Vec<&str> =
        parts.filter(|part| text(part, "type") == Some("text")).filter_map(|part| text(part, "content")).collect();
    Cow::Owned(texts.join("\n\n"))
}

/// The purpose of Copilot's own a call was made for, by its `debugName` (`chatMLFetcher.ts`'s
/// callers): none for a call that answered a request, whether the chat's own
/// (`<location>/<intent>`: `panel/editAgent`) or a sub-agent's (`tool/runSubagent-<name>`,
/// and the search and execution sub-agents' loops). Every other name is a call Copilot made
/// for itself: `title`, `summarizeVirtualTools`, `summarizeConversationHistory-<mode>`,
/// `promptCategorization`, `healStringReplace`, ... A retry is named as what it retries.
fn own_purpose(debug_name: &str) -> Option<&str> {
    let name = ["retry-server-error-", "retry-error-", "retry-"]
        .iter()
        .find_map(|retry| debug_name.strip_prefix(retry))
        .unwrap_or(debug_name);
    let answers_request =
        name.is_empty() || name.contains('/') || matches!(name, "searchSubagentTool" | "executionSubagentTool");
    (!answers_request).then_some(name)
}

/// A child log's label (`<label>-<child id>.jsonl`, the child's id being its lines' `sid`):
/// the sub-agent or task whose calls it holds. None for a session's own log.
fn child_label<'a>(child_log: Option<&'a str>, sid: Option<&str>) -> Option<&'a str> {
    let name = child_log?;
    let label = sid.and_then(|sid| name.strip_suffix(sid)?.strip_suffix('-'));
    Some(label.filter(|label| !label.is_empty()).unwrap_or(name))
}

/// A child log's name without `.jsonl`; None for a session's own log (its calls are looked at
/// one by one: the name is taken once).
fn child_log(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next()?.strip_suffix(".jsonl")?;
    let in_session_folder = path.rsplit('/').nth(2) == Some("debug-logs");
    (name != "main" && in_session_folder).then_some(name)
}

fn note(counts: &mut std::collections::BTreeMap<String, u64>, kind: &str) {
    let key = if kind.is_empty() { "<no type>" } else { kind };
    // Most keys are there already: no string is made for them.
    match counts.get_mut(key) {
        Some(count) => *count += 1,
        None => {
            counts.insert(key.to_string(), 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::rates::RateTable;

    fn read_log(path: &str, text: &str) -> LogOutcome {
        read_log_by(path, text, None)
    }

    /// A log read whole: its rows with their marks, and its outcome.
    fn read_rows(path: &str, text: &str) -> (Vec<(crate::model::OwnedRow, RowMark)>, LogOutcome) {
        let rates = RateTable::default_table();
        let context = LogContext::of_test("copilot-vscode", path, &rates);
        let (mut rows, mut outcome) = (crate::model::Marked::default(), LogOutcome::default());
        read(&context, &mut text.as_bytes(), &mut rows, &mut outcome);
        (rows.0, outcome)
    }

    /// A log read whole, or (`Some(step)`) for usage only, `step` bytes a read.
    fn read_log_by(path: &str, text: &str, usage_only: Option<usize>) -> LogOutcome {
        let rates = RateTable::default_table();
        let context = LogContext::of_test("copilot-vscode", path, &rates);
        let mut outcome = LogOutcome::default();
        match usage_only {
            None => read(&context, &mut text.as_bytes(), &mut Vec::new(), &mut outcome),
            Some(step) => read_calls(&context, crate::lines::Trickle(text.as_bytes(), step), &mut outcome).unwrap(),
        }
        outcome
    }

    const MAIN: &str = "x/GitHub.copilot-chat/debug-logs/s/main.jsonl";

    fn call(span: &str, status: &str, attrs: &str) -> String {
        format!(
            r#"{{"v":1,"ts":1792486800000,"dur":5,"sid":"s","type":"llm_request","name":"chat:m","spanId":"{span}","status":"{status}","attrs":{attrs}}}"#
        )
    }

    #[test]
    fn a_call_counts_its_recorded_credits_and_its_tokens_once() {
        let attrs = r#"{"model":"copilot/gpt-5.4","inputTokens":3000,"cachedTokens":1000,"outputTokens":200,"responseId":"r1","copilotUsageNanoAiu":2000000000}"#;
        let line = call("a", "ok", attrs);
        let outcome = read_log(MAIN, &format!("{line}\n{line}\n"));
        let ledger = outcome.usage.as_ref().expect("a ledger");
        assert!(ledger.is_per_call_log());
        let entries: Vec<_> = ledger.entries.iter().collect();
        assert_eq!(entries.len(), 1);
        let (key, entry) = entries[0];
        assert_eq!((key.day.to_string(), key.model.as_str()), ("2026-10-20".to_string(), "gpt-5.4"));
        let tokens = entry.tokens;
        assert_eq!((tokens.requests, tokens.input, tokens.cache_read, tokens.output), (1, 3000, 1000, 200));
        assert_eq!(entry.recorded.nano_aiu, Some(2_000_000_000));
        let problems: Vec<_> = outcome.problems.iter().map(|problem| (problem.line, problem.kind)).collect();
        assert_eq!(problems, [(Some(2), DiagnosticKind::Duplicate)]);
        assert_eq!(outcome.account.skipped_by_rule["llm_request"], 2);
    }

    #[test]
    fn bad_failed_and_cut_lines_are_said_and_accounted() {
        let failed = call("e", "error", r#"{"model":"gpt-5.4","inputTokens":10,"error":"429"}"#);
        let older = call("o", "ok", r#"{"model":"gpt-4.1","inputTokens":900,"outputTokens":60,"ttft":700}"#);
        let text = format!(
            "{failed}\nnot json\n{older}\n{{\"type\":\"tool_call\"}}\n{{\"type\":\"new_kind\"}}\n{{\"ts\":1,\"type\":\"llm_req"
        );
        let outcome = read_log(MAIN, &text);
        let problems: Vec<_> = outcome.problems.iter().map(|problem| (problem.line, problem.kind)).collect();
        assert_eq!(
            problems,
            [
                (Some(1), DiagnosticKind::FailedRequest),
                (Some(2), DiagnosticKind::Unparsable),
                (Some(6), DiagnosticKind::Unparsable)
            ]
        );
        assert!(outcome.problems[2].message.ends_with("(the log's last line, not ended: still being written, or cut)"));
        let account = &outcome.account;
        assert_eq!((account.lines, account.bad_lines, account.unknown_types["new_kind"]), (6, 2, 1));
        assert_eq!((account.skipped_by_rule["llm_request"], account.with_rows), (2, 1));
        // An older build's call records no credits: they are estimated from its tokens.
        let ledger = outcome.usage.unwrap();
        let older = ledger.entries.iter().find(|(key, _)| key.model == "gpt-4.1").unwrap().1;
        assert_eq!((older.recorded.nano_aiu, older.tokens.input, older.tokens.output), (None, 900, 60));
    }

    fn line(kind: &str, span: &str, rest: &str) -> String {
        format!(
            r#"{{"v":1,"ts":1792486800000,"dur":0,"sid":"s","type":"{kind}","name":"{kind}","spanId":"{span}","status":"ok"{rest}}}"#
        )
    }

    #[test]
    fn prompts_replies_and_tools_are_rows_with_their_call_model() {
        let output = r#"[{"role":"assistant","parts":[{"type":"reasoning","content":"hmm"},{"type":"text","content":"It is in cart.js."},{"type":"tool_call","id":"t","name":"read","arguments":{}}],"finish_reason":"stop"}]"#;
        let cut = format!("{}[truncated]", "x".repeat(5000));
        let text = [
            line("user_message", "u1", r#","attrs":{"content":"where is the total?\nthanks"}"#),
            call("c1", "ok", r#"{"model":"copilot/gpt-5.4","inputTokens":10,"outputTokens":5}"#),
            line(
                "tool_call",
                "t1",
                r#","name":"read_file","attrs":{"args":"{\"path\":\"cart.js\"}","result":"total()"}"#,
            )
            .replace(r#""name":"tool_call","#, ""),
            line("tool_call", "t2", &format!(r#","attrs":{{"args":"{cut}","error":"denied"}}"#))
                .replace(r#""ok""#, r#""error""#),
            line(
                "agent_response",
                "agent-msg-c1",
                &format!(r#","attrs":{{"response":{}}}"#, serde_json::to_string(output).unwrap()),
            ),
            line("agent_response", "agent-msg-other", r#","attrs":{"response":"plain, as older builds wrote"}"#),
            line("user_message", "u2", r#","attrs":{"content":""}"#),
        ]
        .join("\n");
        let (rows, outcome) = read_rows(MAIN, &text);
        let shown: Vec<_> = rows
            .iter()
            .map(|(row, mark)| {
                let text = row.text.chars().take(20).collect::<String>();
                (row.turn_type.as_str(), text, row.tool_name.as_str(), row.model.as_str(), *mark)
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("user", "where is the total?\n".to_string(), "", "", RowMark::Plain),
                ("tool_use", r#"{"path":"cart.js"}"#.to_string(), "read_file", "", RowMark::Plain),
                ("tool_result", "total()".to_string(), "read_file", "", RowMark::Plain),
                ("tool_use", "x".repeat(20), "tool_call", "", RowMark::Plain),
                ("tool_result", "denied".to_string(), "tool_call", "", RowMark::FailedToolResult),
                ("assistant", "It is in cart.js.".to_string(), "", "gpt-5.4", RowMark::Plain),
                ("assistant", "plain, as older buil".to_string(), "", "", RowMark::Plain),
            ]
        );
        assert!(rows.iter().all(|(row, _)| row.session_id == "s" && row.timestamp_utc == "2026-10-20T09:00:00.000Z"));
        let summary = &outcome.summary;
        assert_eq!((summary.first_prompt.as_deref(), summary.answered), (Some("where is the total?"), true));
        assert_eq!((outcome.account.with_rows, outcome.account.skipped_by_rule["user_message"]), (5, 1));
        let cut: Vec<_> =
            outcome.problems.iter().filter(|problem| problem.kind == DiagnosticKind::CutWhenSaved).collect();
        assert_eq!(cut.len(), 1, "{:?}", outcome.problems);
        assert!(cut[0].message.starts_with("1 text was cut by Copilot Chat at 5,000 characters"), "{}", cut[0].message);
    }

    #[test]
    fn an_unknown_types_name_is_scrubbed_where_it_is_counted() {
        let outcome = read_log(MAIN, "{\"type\":\"ghp_96ipbNClShVP4wY4for9duMl7JRU7BT4dK4b\"}\n");
        let names: Vec<_> = outcome.account.unknown_types.keys().collect();
        assert!(names.len() == 1 && !names[0].contains("ghp_96ip"), "{names:?}");
    }

    #[test]
    fn a_title_log_names_its_session_and_a_sub_agents_prompt_does_not() {
        let folder = "x/GitHub.copilot-chat/debug-logs/s";
        let reply = line("agent_response", "agent-msg-c", r#","attrs":{"response":" Cart total "}"#)
            .replace(r#""sid":"s""#, r#""sid":"t9""#);
        let (rows, outcome) = read_rows(&format!("{folder}/title-t9.jsonl"), &reply);
        assert_eq!((rows.len(), outcome.summary.title.as_deref()), (0, Some("Cart total")));
        let prompt =
            line("user_message", "u", r#","attrs":{"content":"look"}"#).replace(r#""sid":"s""#, r#""sid":"c1""#);
        let (rows, outcome) = read_rows(&format!("{folder}/runSubagent-explorer-c1.jsonl"), &prompt);
        assert_eq!((rows.len(), outcome.summary.first_prompt), (1, None));
    }

    #[test]
    fn a_first_line_cut_says_the_log_may_start_mid_way() {
        let outcome = read_log(MAIN, "tokens\":5}}\n");
        assert!(outcome.problems[0].message.contains("keeps only the last 60 MB"), "{:?}", outcome.problems);
        assert!(outcome.usage.is_none(), "no call, no ledger");
    }

    #[test]
    fn a_child_log_names_its_agent_by_its_label() {
        let folder = "x/GitHub.copilot-chat/debug-logs/s";
        assert_eq!(
            child_label(child_log(&format!("{folder}/runSubagent-explorer-c1.jsonl")), Some("c1")),
            Some("runSubagent-explorer")
        );
        assert_eq!(child_label(child_log(&format!("{folder}/title-c2.jsonl")), Some("c2")), Some("title"));
        assert_eq!(child_label(child_log(&format!("{folder}/odd.jsonl")), Some("c3")), Some("odd"));
        assert_eq!(child_label(child_log(&format!("{folder}/main.jsonl")), Some("s")), None);
        assert_eq!(child_label(child_log("x/GitHub.copilot-chat/debug-logs/s.jsonl"), Some("s")), None);
        let line =
            call("t", "ok", r#"{"model":"gpt-4o-mini","inputTokens":200,"outputTokens":10,"copilotUsageNanoAiu":0}"#)
                .replace(r#""sid":"s""#, r#""sid":"c2""#);
        // A title log is no sub-agent's: its calls are the title's, named or not (older builds).
        for line in [line.clone(), line.replace(r#""inputTokens""#, r#""debugName":"title","inputTokens""#)] {
            let ledger = read_log(&format!("{folder}/title-c2.jsonl"), &line).usage.unwrap();
            assert!(ledger.agents.is_none(), "{line}");
            let shares = ledger.purposes.expect("the title's share");
            let labels: Vec<_> =
                shares.entries.keys().map(|(_, label, model)| (label.as_str(), model.as_str())).collect();
            assert_eq!(labels, [("title", "gpt-4o-mini")]);
        }
    }

    #[test]
    fn a_call_copilot_made_for_itself_is_set_apart_by_its_purpose() {
        let purposes: Vec<_> = [
            "panel/editAgent",
            "tool/runSubagent-explorer",
            "searchSubagentTool",
            "",
            "title",
            "summarizeVirtualTools",
            "retry-error-summarizeConversationHistory-full",
            "retry-panel/editAgent",
        ]
        .into_iter()
        .map(own_purpose)
        .collect();
        assert_eq!(
            purposes,
            [
                None,
                None,
                None,
                None,
                Some("title"),
                Some("summarizeVirtualTools"),
                Some("summarizeConversationHistory-full"),
                None
            ]
        );
        // In a sub-agent's log, a call of Copilot's own is both the sub-agent's and the purpose's.
        let folder = "x/GitHub.copilot-chat/debug-logs/s";
        let attrs = r#"{"model":"gpt-5.4","debugName":"summarizeVirtualTools","inputTokens":300,"outputTokens":20}"#;
        let line = call("v", "ok", attrs).replace(r#""sid":"s""#, r#""sid":"c1""#);
        let ledger = read_log(&format!("{folder}/runSubagent-explorer-c1.jsonl"), &line).usage.unwrap();
        let labels = |shares: Option<Box<crate::usage::ledger::Shares>>| {
            shares.unwrap().entries.into_keys().map(|(_, label, _)| label).collect::<Vec<_>>()
        };
        assert_eq!(labels(ledger.agents), ["runSubagent-explorer"]);
        assert_eq!(labels(ledger.purposes), ["summarizeVirtualTools"]);
    }

    #[test]
    fn a_usage_only_reading_gives_the_whole_readings_calls_and_their_problems() {
        let paid = r#"{"model":"gpt-5.4","inputTokens":3000,"cachedTokens":1000,"outputTokens":200,"responseId":"r1","copilotUsageNanoAiu":2000000000}"#;
        let failed = call("e", "error", r#"{"model":"gpt-5.4","inputTokens":10,"error":"429"}"#);
        let text = format!(
            "\u{feff}{}\r\n{{\"type\":\"tool_call\",\"attrs\":{{\"result\":\"an llm_request in a text\"}}}}\n{}\nnot json, llm_request\n{failed}\n\n{}\n{{\"ts\":1,\"type\":\"llm_request\",\"attrs\":{{\"inp",
            call("a", "ok", paid),
            call("a", "ok", paid),
            call("b", "ok", r#"{"model":"gpt-4.1","inputTokens":"many","outputTokens":60}"#)
                .replace("1792486800000", "\"later\""),
        );
        let facts = |outcome: &LogOutcome| {
            let problems: Vec<_> =
                outcome.problems.iter().map(|problem| (problem.line, problem.kind, problem.message.clone())).collect();
            (problems, serde_json::to_string(outcome.usage.as_ref().unwrap()).unwrap())
        };
        let whole = facts(&read_log(MAIN, &text));
        assert_eq!(whole.0.len(), 4, "{:?}", whole.0);
        for step in [1, 7, 64, 1 << 20] {
            assert_eq!(facts(&read_log_by(MAIN, &text, Some(step))), whole, "{step} bytes a read");
        }
    }

    /// What a field of a call may hold: mostly what Copilot Chat writes there (`usual`), else
    /// any JSON type, a string with escapes, or nothing.
    fn any_field(usual: &'static [&'static str]) -> impl proptest::strategy::Strategy<Value = Option<&'static str>> {
        let odd = vec![
            None,
            Some("null"),
            Some("\"s\\u0041\""),
            Some("2.5"),
            Some("-4"),
            Some("1e30"),
            Some("true"),
            Some("[1]"),
            Some("{\"a\":1}"),
            Some("\"2026-10-20T10:00:00Z\""),
        ];
        proptest::prop_oneof![
            3 => proptest::sample::select(usual.iter().map(|usual| Some(*usual)).collect::<Vec<_>>()),
            1 => proptest::sample::select(odd),
        ]
    }

    const TEXTS: &[&str] = &["\"gpt-5.4\"", "\"error\"", "\"title\"", "\"s\"", "\"ok\""];
    const NUMBERS: &[&str] = &["3000", "0", "1792486800000", "2000000000"];

    proptest::proptest! {
        // Cases enough that each odd field meets a call read in place (a few in a hundred are).
        #![proptest_config(proptest::test_runner::Config::with_cases(2048))]

        /// A call's line in any shape gives the same figures and problems, whether read in place
        /// (a usage-only reading, `CallLine`) or as a `Value` (the whole reading).
        #[test]
        fn a_call_in_any_shape_reads_the_same_in_place_as_whole(
            top in (any_field(NUMBERS), proptest::collection::vec(any_field(TEXTS), 4)),
            attrs in (proptest::collection::vec(any_field(TEXTS), 4), proptest::collection::vec(any_field(NUMBERS), 4)),
            attrs_itself in proptest::sample::select(vec!["object", "null", "absent", "text"]),
            twice in proptest::bool::ANY,
        ) {
            let field = |name: &str, value: &Option<&str>| value.map(|value| format!(",\"{name}\":{value}"));
            let names = ["model", "debugName", "responseId", "error", "inputTokens", "cachedTokens", "outputTokens", "copilotUsageNanoAiu"];
            let attrs: Vec<_> = attrs.0.into_iter().chain(attrs.1).collect();
            let inner: String = names.iter().zip(&attrs).filter_map(|(name, value)| field(name, value)).collect();
            let attrs_field = match attrs_itself {
                "object" => format!(",\"attrs\":{{{}}}", inner.trim_start_matches(',')),
                "null" => ",\"attrs\":null".to_string(),
                "text" => ",\"attrs\":\"x\"".to_string(),
                _ => String::new(),
            };
            let names = ["ts", "sid", "spanId", "status", "name"];
            let top: Vec<_> = std::iter::once(top.0).chain(top.1).collect();
            let outer: String = names.iter().zip(&top).filter_map(|(name, value)| field(name, value)).collect();
            // A key given twice: the last is the one a `Value` keeps.
            let again = if twice { ",\"spanId\":\"b\"" } else { "" };
            let line = format!("{{\"type\":\"llm_request\"{outer}{attrs_field}{again}}}");
            let facts = |outcome: &LogOutcome| {
                let problems: Vec<_> =
                    outcome.problems.iter().map(|problem| (problem.line, problem.kind, problem.message.clone())).collect();
                let usage = outcome.usage.as_ref().map(|usage| format!("{usage:?}"));
                (problems, usage, format!("{:?}", outcome.summary), format!("{:?}", outcome.account))
            };
            let text = format!("{line}\n{line}\n");
            proptest::prop_assert_eq!(facts(&read_log_by(MAIN, &text, Some(1 << 20))), facts(&read_log(MAIN, &text)), "{}", line);
        }
    }
}
