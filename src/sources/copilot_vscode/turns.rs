//! A replayed chat session as rows, session facts and usage: each request of `requests[]` is
//! one turn (VS Code's `ISerializableChatRequestData`). Shapes vary by build, so every field is
//! read leniently: a field of another type is as good as absent.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::ReadLog;
use super::replay::{Replay, described};
use crate::facts::diagnostics::DiagnosticKind;
use crate::facts::log::LogProblem;
use crate::model::{LineLocator, Row, RowMark, RowSink, TurnType};
use crate::sources::folder_uri;
use crate::sources::log::{LogContext, LogOutcome};
use crate::time;
use crate::usage::Entry;
use crate::usage::NANO_AIU_PER_CREDIT;
use crate::usage::Tokens;
use crate::usage::counters::{Amount, Count, LeftOut, Recorded, Written};
use crate::usage::ledger::{CounterProblem, Place, SessionLedger};

/// How VS Code marks a string it cut to save the session (`objectMutationLog.ts`).
const CUT_MARKER: &str = "[JustRide: value truncated for persistence";
/// `ResponseModelState.Cancelled`.
const CANCELLED: u64 = 2;

/// The rows (when `sink` is given), summary, tools and usage of a replayed session, into
/// `outcome`: the turns' rows, then a row for each line that could not be replayed.
pub fn read_session(context: &LogContext<'_>, log: &ReadLog, sink: Option<&mut dyn RowSink>, outcome: &mut LogOutcome) {
    let replay = &log.replay;
    let mut emitter = sink.map(|sink| Emitter { context, sink, project: String::new(), ordinal: 0, cut_texts: 0 });
    read_turns(context, replay, emitter.as_mut(), outcome);
    if let Some(emitter) = &mut emitter {
        for (line, text) in &log.bad_lines {
            emitter.bad_line(*line, text);
        }
        if emitter.cut_texts > 0 {
            outcome.problems.push(LogProblem {
                line: None,
                kind: DiagnosticKind::CutWhenSaved,
                message: format!(
                    "{} cut by VS Code when it saved the session (starting \"{CUT_MARKER}\"): shown as saved",
                    match emitter.cut_texts {
                        1 => "1 text was".to_string(),
                        count => format!("{count} texts were"),
                    }
                ),
            });
        }
    }
}

fn read_turns(
    context: &LogContext<'_>,
    replay: &Replay,
    mut emitter: Option<&mut Emitter<'_, '_>>,
    outcome: &mut LogOutcome,
) {
    let Some(state) = replay.state() else { return };
    let requests: &[Value] = state.get("requests").and_then(Value::as_array).map_or(&[], Vec::as_slice);
    let summary = &mut outcome.summary;
    summary.title = text(state.get("customTitle")).filter(|title| !title.is_empty()).map(str::to_string);
    summary.created_ms = state.get("creationDate").and_then(time::value_millis);
    // A chat session does not shut down: its record says none rather than "none".
    summary.shutdown_type = Some(String::new());
    // The workspace's folder, as `Folder::written` gave it, else the requests' own.
    let mut folder = folder_uri::decode(context.fallback_project);
    for (index, request) in requests.iter().enumerate() {
        if !request.is_object() {
            continue;
        }
        let turn = Turn::of(request);
        let summary = &mut outcome.summary;
        if let Some(millis) = turn.millis {
            summary.first_event_ms = Some(summary.first_event_ms.map_or(millis, |first| first.min(millis)));
            summary.last_event_ms = summary.last_event_ms.max(Some(millis));
        }
        if let Some(message) = prompt(request) {
            summary.note_prompt(message);
        }
        if !turn.model.is_empty() {
            summary.models.insert(turn.model.to_string());
        }
        if let Some(version) = text(request.pointer("/agent/extensionVersion")) {
            summary.copilot_version = Some(version.to_string());
        }
        if context.fallback_project.is_empty()
            && let Some(directory) = request.get("workingDirectory").and_then(folder_uri::from_json)
        {
            folder = Some(directory);
        }
        tally_tools(request, turn.millis, outcome);
        add_usage(context, request, &turn, replay.request_line(index), outcome);
        if let Some(emitter) = emitter.as_deref_mut() {
            emitter.project.clone_from(folder.as_ref().map_or(&String::new(), |folder| &folder.path));
            emitter.turn(request, &turn, replay.request_line(index));
        }
    }
    (outcome.summary.project, outcome.summary.remote) =
        folder.map_or((None, None), |folder| (Some(folder.path), folder.remote));
    // A session with no dated request is known from its creation; an exported one, with no
    // `creationDate`, from its first request.
    let summary = &mut outcome.summary;
    summary.created_ms = summary.created_ms.or(summary.first_event_ms);
    if summary.first_event_ms.is_none() {
        (summary.first_event_ms, summary.last_event_ms) = (summary.created_ms, summary.created_ms);
    }
}

/// What every row and figure of a request needs.
struct Turn<'a> {
    millis: Option<i64>,
    timestamp: String,
    /// `resolvedModel` where Auto picked it (or the model `details` names), else `modelId`
    /// without `copilot/`.
    model: Cow<'a, str>,
    /// `modelId` without `copilot/`.
    picked: &'a str,
}

impl<'a> Turn<'a> {
    fn of(request: &'a Value) -> Turn<'a> {
        let millis = request.get("timestamp").and_then(time::value_millis);
        let picked = text(request.get("modelId")).map(model_name).unwrap_or_default();
        let resolved = text(request.pointer("/result/metadata/resolvedModel")).filter(|model| !model.is_empty());
        let model = match resolved {
            Some(resolved) => Cow::Borrowed(model_name(resolved)),
            // "Export Chat" keeps no `resolvedModel`; Auto's pick is named in `details`.
            None if picked == "auto" => text(request.pointer("/result/details"))
                .and_then(model_from_details)
                .map_or(Cow::Borrowed(picked), Cow::Owned),
            None => Cow::Borrowed(picked),
        };
        Turn { millis, timestamp: millis.map(time::format_millis).unwrap_or_default(), model, picked }
    }
}

/// The model of a request's `details` ("Grok Code Fast 1 • 1x": its name, then its
/// multiplier), as a model id: `grok-code-fast-1`.
fn model_from_details(details: &str) -> Option<String> {
    let name = details.split('•').next()?.trim();
    (!name.is_empty()).then(|| name.to_lowercase().split_whitespace().collect::<Vec<_>>().join("-"))
}

/// A model id without the `copilot/` of Copilot's own models.
pub(super) fn model_name(id: &str) -> &str {
    id.strip_prefix("copilot/").unwrap_or(id)
}

fn text(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str)
}

/// A string, or the `value` of a markdown string object.
fn message_text(value: Option<&Value>) -> Option<&str> {
    match value? {
        Value::String(text) => Some(text),
        object => text(object.get("value")),
    }
}

/// The response parts of a request.
fn parts(request: &Value) -> &[Value] {
    request.get("response").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn is_tool_invocation(part: &Value) -> bool {
    text(part.get("kind")) == Some("toolInvocationSerialized")
}

fn tool_failed(part: &Value) -> bool {
    part.pointer("/resultDetails/isError").and_then(Value::as_bool) == Some(true)
}

/// A request's prompt: its `message`, a text or an object with one.
fn prompt(request: &Value) -> Option<&str> {
    let message = request.get("message");
    text(message).or_else(|| text(message.and_then(|m| m.get("text"))))
}

fn tally_tools(request: &Value, at_ms: Option<i64>, outcome: &mut LogOutcome) {
    for part in parts(request).iter().filter(|part| is_tool_invocation(part)) {
        let Some(tool) = text(part.get("toolId")).filter(|tool| !tool.is_empty()) else { continue };
        let failed = u64::from(tool_failed(part));
        let tally = outcome.tools.entry(tool.to_string()).or_default();
        tally.call(at_ms);
        tally.failures += failed;
        if text(part.pointer("/source/type")) == Some("mcp")
            && let Some(server) = text(part.pointer("/source/label")).filter(|label| !label.is_empty())
        {
            let tally = outcome.mcp_calls.entry(server.to_string()).or_default().entry(tool.to_string()).or_default();
            tally.call(at_ms);
            tally.failures += failed;
        }
    }
}

/// A row's own parts: turn type, text, tool name and id, mark.
pub(super) type RowParts<'a> = (TurnType, Cow<'a, str>, &'a str, &'a str, RowMark);

/// Where a row of a chat's logs (its chat file, its debug logs) is: its time, its project and
/// model, its line and its place among the log's rows (`ordinal`: rows are made again from the
/// whole log).
pub(super) struct RowAt<'a> {
    pub timestamp: Cow<'a, str>,
    pub project: &'a str,
    pub model: &'a str,
    pub line: u64,
    pub ordinal: u32,
}

/// A row of a chat's logs.
pub(super) fn row<'a>(context: &LogContext<'a>, at: RowAt<'a>, parts: RowParts<'a>) -> Row<'a> {
    let (turn_type, text, tool_name, tool_use_id, mark) = parts;
    Row {
        agent: context.agent,
        timestamp_utc: at.timestamp,
        session_id: context.session_id,
        project_path: at.project,
        git_branch: "",
        client_name: context.client_name,
        model: at.model,
        tool_name,
        tool_use_id,
        turn_type,
        text,
        source: context.source,
        source_line: at.line,
        mark,
        locator: Some(LineLocator { file: context.file, offset: 0, ordinal: at.ordinal }),
    }
}

struct Emitter<'c, 's> {
    context: &'c LogContext<'c>,
    sink: &'s mut dyn RowSink,
    project: String,
    /// The rows made so far: a row's place among the log's rows is its locator (rows are
    /// made again from the whole replay).
    ordinal: u32,
    cut_texts: u64,
}

impl Emitter<'_, '_> {
    fn turn(&mut self, request: &Value, turn: &Turn<'_>, line: u64) {
        fn row(turn_type: TurnType, text: Cow<'_, str>) -> RowParts<'_> {
            (turn_type, text, "", "", RowMark::Plain)
        }
        if let Some(message) = prompt(request) {
            self.emit(turn, line, row(TurnType::User, message.into()));
        }
        if let Some(command) = text(request.pointer("/slashCommand/name")).filter(|name| !name.is_empty()) {
            self.emit(turn, line, row(TurnType::System, format!("slash command: /{command}").into()));
        }
        if turn.model != turn.picked && !turn.picked.is_empty() {
            let text = format!("model: {} -> {}", turn.picked, turn.model);
            self.emit(turn, line, (TurnType::System, text.into(), "", "", RowMark::ModelChange));
        }
        let mut reply = String::new();
        for part in parts(request) {
            match text(part.get("kind")) {
                None | Some("markdownContent") => {
                    if let Some(markdown) = message_text(part.get("content")).or_else(|| message_text(Some(part))) {
                        reply.push_str(markdown);
                    }
                }
                Some("thinking") if self.context.include_thinking => {
                    let thought = match part.get("value") {
                        Some(Value::Array(pieces)) => {
                            pieces.iter().filter_map(Value::as_str).collect::<String>().into()
                        }
                        value => Cow::Borrowed(text(value).unwrap_or_default()),
                    };
                    if !thought.is_empty() {
                        self.emit(turn, line, row(TurnType::Thinking, thought));
                    }
                }
                Some("toolInvocationSerialized") => self.tool(part, turn, line),
                _ => {}
            }
        }
        if !reply.is_empty() {
            self.emit(turn, line, row(TurnType::Assistant, reply.into()));
        }
        let state = request.pointer("/modelState/value").and_then(Value::as_u64);
        if state == Some(CANCELLED) || request.get("isCanceled").and_then(Value::as_bool) == Some(true) {
            self.emit(turn, line, row(TurnType::System, "request cancelled".into()));
        }
        if let Some(error) = message_text(request.pointer("/result/errorDetails/message")) {
            self.emit(turn, line, row(TurnType::System, format!("error: {error}").into()));
        }
    }

    fn tool(&mut self, part: &Value, turn: &Turn<'_>, line: u64) {
        let name = text(part.get("toolId")).unwrap_or_default();
        let id = text(part.get("toolCallId")).unwrap_or_default();
        let specific = part.get("toolSpecificData");
        let kind = specific.and_then(|data| text(data.get("kind")));
        let input = match kind {
            Some("terminal") => specific
                .and_then(|data| text(data.pointer("/commandLine/original")).or_else(|| text(data.get("command")))),
            Some("subagent") => specific.and_then(|data| text(data.get("prompt"))),
            _ => None,
        };
        let input = input
            .or_else(|| text(part.pointer("/resultDetails/input")))
            .or_else(|| message_text(part.get("invocationMessage")))
            .unwrap_or_default();
        self.emit(turn, line, (TurnType::ToolUse, input.into(), name, id, RowMark::Plain));
        let outputs: Vec<&str> = part
            .pointer("/resultDetails/output")
            .and_then(Value::as_array)
            .map(|outputs| outputs.iter().filter_map(|output| text(output.get("value"))).collect())
            .unwrap_or_default();
        let result = if !outputs.is_empty() {
            Some(Cow::Owned(outputs.join("\n")))
        } else {
            let subagent =
                if kind == Some("subagent") { specific.and_then(|data| text(data.get("result"))) } else { None };
            subagent
                .or_else(|| message_text(part.get("pastTenseMessage")))
                .or_else(|| part.get("resultDetails").map(|_| ""))
                .map(Cow::Borrowed)
        };
        if let Some(result) = result {
            let mark = if tool_failed(part) { RowMark::FailedToolResult } else { RowMark::Plain };
            self.emit(turn, line, (TurnType::ToolResult, result, name, id, mark));
        }
    }

    /// A line that could not be replayed, as the CLI's logs show theirs.
    fn bad_line(&mut self, line: u64, text: &str) {
        let turn = Turn { millis: None, timestamp: String::new(), model: Cow::Borrowed(""), picked: "" };
        self.emit(&turn, line, (TurnType::System, text.into(), "", "", RowMark::BadLine));
    }

    fn emit(&mut self, turn: &Turn<'_>, line: u64, parts: RowParts<'_>) {
        if parts.1.starts_with(CUT_MARKER) {
            self.cut_texts += 1;
        }
        let timestamp = Cow::Borrowed(turn.timestamp.as_str());
        let at = RowAt { timestamp, project: &self.project, model: &turn.model, line, ordinal: self.ordinal };
        self.sink.push(&row(self.context, at, parts));
        self.ordinal += 1;
    }
}

/// One figure of a request as read: its model, its counts (0 for those left out), the groups
/// left out (input with its cache reads, output with its reasoning), and whether it covers the
/// whole turn.
struct Figure {
    model: String,
    tokens: Tokens,
    left_out: LeftOut,
    whole: bool,
}

/// What a request's counters held that cannot be counted, in words, for the report.
#[derive(Default)]
pub(super) struct Notes {
    /// Counters left out (`implausible_counter`).
    pub(super) left_out: Vec<String>,
    /// Models that are not names (their tokens go under the request's model).
    unnamed: Vec<String>,
}

/// A token count read leniently: absent is 0; what cannot be a count is noted and leaves out
/// its group (`left`).
pub(super) fn count(value: Option<&Value>, notes: &mut Notes, name: &str, left: &mut bool) -> u64 {
    counted_as_read(read_count(value), notes, name, left)
}

/// A token count as written: absent is 0.
pub(super) fn read_count(value: Option<&Value>) -> Count {
    value.map_or(Ok(Count::default()), Count::deserialize).unwrap_or_default()
}

/// `count` of a count already read.
pub(super) fn counted_as_read(count: Count, notes: &mut Notes, name: &str, left: &mut bool) -> u64 {
    match count {
        Count::Read(count) => count,
        Count::Unusable(written) => {
            notes.left_out.push(format!("{name} is {written} ({})", written.why()));
            *left = true;
            0
        }
    }
}

/// The figures of `modelTotals[]`, one per model over the whole turn (input includes cached).
/// An entry that is not an object is noted; one whose model is not a name counts under the
/// request's model.
fn model_totals(totals: &[Value], turn: &Turn<'_>, notes: &mut Notes) -> Vec<Figure> {
    let mut figures = Vec::new();
    for (at, total) in totals.iter().enumerate() {
        let Some(total) = total.as_object() else {
            notes.left_out.push(format!("modelTotals[{at}] is {} (not an object of counters)", described(total)));
            continue;
        };
        let model = match total.get("model") {
            None | Some(Value::Null) => &*turn.model,
            Some(Value::String(model)) => model_name(model),
            Some(other) => {
                notes.unnamed.push(format!("modelTotals[{at}].model is {}", described(other)));
                &turn.model
            }
        };
        let mut left_out = LeftOut::default();
        let name = |field: &str| format!("modelTotals[{at}].{field}");
        let tokens = Tokens {
            requests: 1,
            input: count(total.get("inputTokens"), notes, &name("inputTokens"), &mut left_out.input),
            cache_read: count(total.get("cachedTokens"), notes, &name("cachedTokens"), &mut left_out.input),
            output: count(total.get("outputTokens"), notes, &name("outputTokens"), &mut left_out.output),
            ..Tokens::default()
        };
        figures.push(Figure { model: model.to_string(), tokens, left_out, whole: true });
    }
    figures
}

/// One call's input and output, by the names of `fields` in `record`, when either is there.
fn input_output(
    record: Option<&Value>,
    fields: [&str; 2],
    prefix: &str,
    notes: &mut Notes,
) -> Option<(Tokens, LeftOut)> {
    let record = record.filter(|record| fields.iter().any(|field| record.get(field).is_some()))?;
    let mut left_out = LeftOut::default();
    let [input, output] = fields;
    let input = count(record.get(input), notes, &format!("{prefix}{input}"), &mut left_out.input);
    let output = count(record.get(output), notes, &format!("{prefix}{output}"), &mut left_out.output);
    Some((Tokens { requests: 1, input, output, ..Tokens::default() }, left_out))
}

/// A request's tokens by VS Code's counting rules: `modelTotals` (whole turn; input includes
/// cached), else the request's own `promptTokens`/`completionTokens` (newest builds), else
/// `result.metadata`'s, which on older builds describe the last call only: the turn is then
/// partial unless it had exactly one tool-call round. No cache write is ever recorded.
fn add_usage(context: &LogContext<'_>, request: &Value, turn: &Turn<'_>, line: u64, outcome: &mut LogOutcome) {
    let metadata = request.pointer("/result/metadata");
    let rounds = metadata.and_then(|m| m.get("toolCallRounds")).and_then(Value::as_array);
    let mut notes = Notes::default();
    let mut reasoning_left_out = false;
    let reasoning: u64 = rounds
        .map(|rounds| {
            rounds.iter().enumerate().map(|(at, round)| {
                let name = format!("toolCallRounds[{at}].thinking.tokens");
                count(round.pointer("/thinking/tokens"), &mut notes, &name, &mut reasoning_left_out)
            })
        })
        .into_iter()
        .flatten()
        .fold(0, u64::saturating_add);
    let totals = request.get("modelTotals").or_else(|| metadata.and_then(|m| m.get("modelTotals")));
    let mut figures = match totals.and_then(Value::as_array).filter(|totals| !totals.is_empty()) {
        Some(totals) => {
            let mut figures = model_totals(totals, turn, &mut notes);
            // No entry could be read: the request still counts, its tokens left out.
            if figures.is_empty() {
                let left_out = LeftOut { requests: false, input: true, output: true };
                let tokens = Tokens { requests: 1, ..Tokens::default() };
                figures.push(Figure { model: turn.model.to_string(), tokens, left_out, whole: true });
            }
            figures
        }
        None => {
            let request_level = input_output(Some(request), ["promptTokens", "completionTokens"], "", &mut notes);
            let figure = match request_level {
                Some((tokens, left_out)) => Some((tokens, left_out, true)),
                None => input_output(metadata, ["promptTokens", "outputTokens"], "result.metadata.", &mut notes)
                    .map(|(tokens, left_out)| (tokens, left_out, rounds.is_some_and(|rounds| rounds.len() == 1))),
            };
            figure
                .map(|(tokens, left_out, whole)| Figure { model: turn.model.to_string(), tokens, left_out, whole })
                .into_iter()
                .collect()
        }
    };
    let Some(first) = figures.first_mut() else { return };
    // The rounds' thinking is the turn's reasoning, which is part of the first model's output.
    first.tokens.reasoning = reasoning;
    first.left_out.output |= reasoning_left_out;
    if !first.left_out.output && reasoning > first.tokens.output {
        let written = Written::AboveOutput { reasoning, output: first.tokens.output };
        notes.left_out.push(format!("the thinking tokens of toolCallRounds are {written} ({})", written.why()));
        first.left_out.output = true;
    }
    let ledger = outcome.usage.get_or_insert_with(|| SessionLedger::new(context.zone));
    let request_id = text(request.get("requestId")).unwrap_or("?");
    let implausible = !notes.left_out.is_empty();
    if implausible {
        ledger.problems.push(CounterProblem {
            at: Place::Line(line),
            kind: DiagnosticKind::ImplausibleCounter,
            message: format!(
                "request {request_id}: {}. Left out with what it belongs with (input with its cache reads, \
                 output with its reasoning), not added (flagged implausible_counter); its other counts are kept",
                notes.left_out.join(", ")
            ),
        });
    }
    if !notes.unnamed.is_empty() {
        ledger.problems.push(CounterProblem {
            at: Place::Line(line),
            kind: DiagnosticKind::Unparsable,
            message: format!(
                "request {request_id}: {}, not a model name: its tokens are counted under the request's model ({})",
                notes.unnamed.join(", "),
                if turn.model.is_empty() { "none" } else { &turn.model }
            ),
        });
    }
    if turn.millis.is_none() {
        ledger.problems.push(CounterProblem {
            at: Place::Line(line),
            kind: DiagnosticKind::UndatedCounter,
            message: format!(
                "request {request_id} has tokens but no timestamp: they cannot be put on a day, so they are in no usage row"
            ),
        });
    }
    // The credits Copilot recorded for the request (newest builds), on its first figure.
    let credits = request
        .get("copilotCredits")
        .map_or(Amount::Absent, |value| Amount::deserialize(value).unwrap_or(Amount::NotANumber));
    let mut recorded = Recorded::read(credits, NANO_AIU_PER_CREDIT, Amount::Absent);
    // A model id that is not Copilot's own (`copilot/...`) is the person's own key's; Auto's
    // requests name it as their model.
    let picked = text(request.get("modelId")).unwrap_or_default();
    let byok = !picked.is_empty() && !picked.starts_with("copilot/");
    let auto = picked == "copilot/auto";
    let response_id = text(request.pointer("/result/metadata/responseId")).filter(|id| !id.is_empty());
    for Figure { model, tokens, left_out, whole } in figures {
        let mut tokens = left_out.fill(tokens, Tokens::default());
        // Input includes its cache reads: a record saying less is raised to them, as the CLI's are.
        if tokens.hold_cache_inside_input() {
            ledger.flags.insert("cache_above_input");
        }
        let entry =
            Entry { tokens, implausible, recorded: std::mem::take(&mut recorded), byok, auto, ..Entry::default() };
        // Its debug log, if read, counts its calls instead (`SessionLedger::take_per_call`).
        if let Some(response_id) = response_id {
            ledger.answered_turn(Place::Line(line), turn.millis, &model, entry, whole, response_id);
            continue;
        }
        ledger.turn(Place::Line(line), turn.millis, &model, entry, whole);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::model::OwnedRow;
    use crate::usage::rates::RateTable;

    fn read(state: Value, include_thinking: bool) -> (Vec<OwnedRow>, LogOutcome) {
        let rates = RateTable::default_table();
        let context = LogContext { include_thinking, ..LogContext::of_test("copilot-vscode", "s.json", &rates) };
        let log = ReadLog { replay: Replay::whole(state), bad_lines: Vec::new() };
        let (mut rows, mut outcome) = (Vec::new(), LogOutcome::default());
        read_session(&context, &log, Some(&mut rows), &mut outcome);
        (rows, outcome)
    }

    fn texts(rows: &[OwnedRow]) -> Vec<String> {
        rows.iter()
            .map(|row| format!("{} {}|{}|{}", row.turn_type.as_str(), row.tool_name, row.tool_use_id, row.text))
            .collect()
    }

    #[test]
    fn a_request_gives_its_rows_in_order() {
        let request = json!({
            "timestamp": 1790000000000i64, "modelId": "copilot/auto", "message": {"text": "run the tests"},
            "slashCommand": {"name": "fix"},
            "workingDirectory": {"scheme": "file", "path": "/c:/Users/mona/app", "fsPath": "c:\\Users\\mona\\app"},
            "response": [
                {"kind": "thinking", "value": ["Let me ", "think"]},
                {"value": "Running them. "},
                {"kind": "toolInvocationSerialized", "toolId": "run_in_terminal", "toolCallId": "t1",
                 "toolSpecificData": {"kind": "terminal", "commandLine": {"original": "cargo test"}},
                 "resultDetails": {"output": [{"value": "1 failed"}], "isError": true}},
                {"kind": "toolInvocationSerialized", "toolId": "runSubagent", "toolCallId": "t2",
                 "toolSpecificData": {"kind": "subagent", "prompt": "find the bug", "result": "line 3"},
                 "source": {"type": "mcp", "label": "github"}},
                {"kind": "textEditGroup"},
                {"kind": "markdownContent", "content": {"value": "One test fails."}},
            ],
            "result": {"metadata": {"resolvedModel": "gpt-5"}, "errorDetails": {"message": "rate limited"}},
            "modelState": {"value": 2},
        });
        let (rows, outcome) = read(json!({"customTitle": "Tests", "requests": [request]}), true);
        assert_eq!(
            texts(&rows),
            [
                "user ||run the tests",
                "system ||slash command: /fix",
                "system ||model: auto -> gpt-5",
                "thinking ||Let me think",
                "tool_use run_in_terminal|t1|cargo test",
                "tool_result run_in_terminal|t1|1 failed",
                "tool_use runSubagent|t2|find the bug",
                "tool_result runSubagent|t2|line 3",
                "assistant ||Running them. One test fails.",
                "system ||request cancelled",
                "system ||error: rate limited",
            ]
        );
        assert!(rows.iter().all(|row| row.model == "gpt-5" && row.project_path == "c:\\Users\\mona\\app"));
        assert_eq!(rows[0].timestamp_utc, "2026-09-21T14:13:20.000Z");
        let (tools, summary) = (&outcome.tools, &outcome.summary);
        assert_eq!((tools["run_in_terminal"].calls, tools["run_in_terminal"].failures), (1, 1));
        let github: Vec<_> = outcome.mcp_calls["github"].iter().map(|(tool, t)| (tool.as_str(), t.calls)).collect();
        assert_eq!((outcome.mcp_calls.len(), github.as_slice()), (1, [("runSubagent", 1)].as_slice()));
        assert_eq!((summary.title.as_deref(), summary.models.len()), (Some("Tests"), 1));
        let (without_thinking, _) =
            read(json!({"requests": [{"response": [{"kind": "thinking", "value": "x"}]}]}), false);
        assert!(without_thinking.is_empty());
    }

    /// A day's usage rows of a session as `(model, kind, input, cache_read, output, reasoning)`.
    fn usage(requests: Value) -> Vec<(String, crate::usage::Kind, u64, u64, u64, u64)> {
        let (_, outcome) = read(json!({"requests": requests}), false);
        let ledger = outcome.usage.expect("a ledger");
        let entries = ledger.entries.iter();
        entries
            .map(|(key, entry)| {
                let t = entry.tokens;
                (key.model.clone(), key.kind, t.input, t.cache_read, t.output, t.reasoning)
            })
            .collect()
    }

    #[test]
    fn tokens_follow_the_vs_code_rules() {
        use crate::usage::Kind::{Counted, Partial};
        let day = 1790000000000i64;
        let totals = json!([{"timestamp": day, "modelId": "copilot/auto",
            "modelTotals": [{"model": "copilot/gpt-5", "inputTokens": 900, "cachedTokens": 600, "outputTokens": 50}],
            "result": {"metadata": {"promptTokens": 1, "outputTokens": 1,
                "toolCallRounds": [{"thinking": {"tokens": 20}}, {"thinking": {"tokens": 5}}]}}}]);
        assert_eq!(usage(totals), [("gpt-5".into(), Counted, 900, 600, 50, 25)]);
        let request_level =
            json!([{"timestamp": day, "modelId": "copilot/gpt-4.1", "promptTokens": 18561, "completionTokens": 90}]);
        assert_eq!(usage(request_level), [("gpt-4.1".into(), Counted, 18561, 0, 90, 0)]);
        let legacy = |rounds: usize| {
            json!([{"timestamp": day, "modelId": "copilot/gpt-4.1",
                "result": {"metadata": {"promptTokens": 300, "outputTokens": 40, "toolCallRounds": vec![json!({}); rounds]}}}])
        };
        assert_eq!(usage(legacy(1)), [("gpt-4.1".into(), Counted, 300, 0, 40, 0)]);
        assert_eq!(
            usage(legacy(3)),
            [("gpt-4.1".into(), Partial, 300, 0, 40, 0)],
            "the last call only: never multiplied"
        );
    }

    #[test]
    fn a_count_that_cannot_be_one_is_left_out_and_said() {
        let (_, outcome) = read(
            json!({"requests": [{"timestamp": 1790000000000i64, "promptTokens": -5, "completionTokens": 7}]}),
            false,
        );
        let ledger = outcome.usage.unwrap();
        let (_, entry) = ledger.entries.iter().next().unwrap();
        assert_eq!((entry.tokens.input, entry.tokens.output, entry.implausible), (0, 7, true));
        assert_eq!(ledger.problems.len(), 1);
        assert!(ledger.problems[0].message.contains("promptTokens is -5 (a negative number)"), "{:?}", ledger.problems);
    }

    #[test]
    fn an_input_left_out_takes_its_cache_reads_and_reasoning_stays_inside_output() {
        let day = 1790000000000i64;
        let request = |totals: Value, thinking: u64| {
            json!([{"timestamp": day, "modelId": "copilot/gpt-5", "modelTotals": totals,
                "result": {"metadata": {"toolCallRounds": [{"thinking": {"tokens": thinking}}]}}}])
        };
        let counted = crate::usage::Kind::Counted;
        let input_1e30 = json!([{"model": "gpt-5", "inputTokens": 1e30, "cachedTokens": 1200, "outputTokens": 90}]);
        assert_eq!(usage(request(input_1e30, 10)), [("gpt-5".into(), counted, 0, 0, 90, 10)]);
        let thinking_above = json!([{"model": "gpt-5", "inputTokens": 1000, "cachedTokens": 200, "outputTokens": 30}]);
        assert_eq!(usage(request(thinking_above, 50)), [("gpt-5".into(), counted, 1000, 200, 0, 0)]);
        // Cache reads above the input they are part of raise it, as the CLI's records do.
        let (_, outcome) =
            read(json!({"requests": request(json!([{"inputTokens": 1000, "cachedTokens": 1200}]), 0)}), false);
        let ledger = outcome.usage.unwrap();
        let (_, entry) = ledger.entries.iter().next().unwrap();
        assert_eq!((entry.tokens.input, entry.tokens.cache_read), (1200, 1200));
        assert!(ledger.flags.contains("cache_above_input"));
    }

    #[test]
    fn texts_vs_code_cut_when_saving_are_said() {
        let cut = format!("{CUT_MARKER}; original 2000000 chars]");
        let part = json!({"kind": "toolInvocationSerialized", "toolId": "read", "resultDetails": {"output": [{"value": cut}]}});
        let (rows, outcome) = read(json!({"requests": [{"message": {"text": "hi"}, "response": [part]}]}), false);
        assert_eq!(rows[2].text, cut, "shown as saved");
        let problems: Vec<_> = outcome.problems.iter().map(|problem| (problem.kind, problem.line)).collect();
        assert_eq!(problems, [(DiagnosticKind::CutWhenSaved, None)]);
        assert!(outcome.problems[0].message.starts_with("1 text was cut by VS Code"), "{:?}", outcome.problems);
    }
}
