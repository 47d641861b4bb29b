//! A replayed chat session as rows, session facts and usage: each request of `requests[]` is
//! one turn (VS Code's `ISerializableChatRequestData`). Shapes vary by build, so every field is
//! read leniently: a field of another type is as good as absent.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::ReadLog;
use super::replay::Replay;
use crate::model::{LineLocator, Row, RowMark, RowSink, TurnType};
use crate::report::DiagnosticKind;
use crate::sources::log::{LogContext, LogOutcome, LogProblem};
use crate::time;
use crate::usage::Tokens;
use crate::usage::counters::Count;
use crate::usage::ledger::{CounterProblem, Place, SessionLedger};

/// How VS Code marks a string it cut to save the session (`objectMutationLog.ts`).
const CUT_MARKER: &str = "[JustRide: value truncated for persistence";
/// `ResponseModelState.Cancelled`.
const CANCELLED: u64 = 2;

/// The rows (when `sink` is given), summary, tools and usage of a replayed session, into
/// `outcome`: the turns' rows, then a row for each line that could not be replayed.
pub fn read_session(context: &LogContext<'_>, log: &ReadLog, sink: Option<&mut dyn RowSink>, outcome: &mut LogOutcome) {
    let mut sink = sink;
    let replay = &log.replay;
    let mut emitter =
        sink.as_deref_mut().map(|sink| Emitter { context, sink, project: String::new(), ordinal: 0, cut_texts: 0 });
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
                    "{} texts were cut by VS Code when it saved the session (they start with \"{CUT_MARKER}\"): \
                     they are shown as saved",
                    emitter.cut_texts
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
    summary.first_event_ms = state.get("creationDate").and_then(Value::as_i64);
    let mut project = (!context.fallback_project.is_empty()).then(|| context.fallback_project.to_string());
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
        if !turn.model.is_empty() {
            summary.models.insert(turn.model.to_string());
        }
        if let Some(version) = text(request.pointer("/agent/extensionVersion")) {
            summary.copilot_version = Some(version.to_string());
        }
        if context.fallback_project.is_empty()
            && let Some(directory) = request.get("workingDirectory").and_then(folder_path)
        {
            project = Some(directory);
        }
        tally_tools(request, outcome);
        add_usage(context, request, &turn, replay.request_line(index), outcome);
        if let Some(emitter) = emitter.as_deref_mut() {
            emitter.project.clone_from(project.as_ref().unwrap_or(&String::new()));
            emitter.turn(request, &turn, replay.request_line(index));
        }
    }
    outcome.summary.project = project;
}

/// What every row and figure of a request needs.
struct Turn<'a> {
    millis: Option<i64>,
    timestamp: String,
    /// `resolvedModel` where Auto picked it, else `modelId` without `copilot/`.
    model: &'a str,
    /// `modelId` without `copilot/`.
    picked: &'a str,
}

impl<'a> Turn<'a> {
    fn of(request: &'a Value) -> Turn<'a> {
        let millis = request.get("timestamp").and_then(Value::as_i64);
        let picked = text(request.get("modelId")).map(model_name).unwrap_or_default();
        let resolved = text(request.pointer("/result/metadata/resolvedModel")).filter(|model| !model.is_empty());
        Turn {
            millis,
            timestamp: millis.map(time::format_millis).unwrap_or_default(),
            model: resolved.map(model_name).unwrap_or(picked),
            picked,
        }
    }
}

/// A model id without the `copilot/` of Copilot's own models.
fn model_name(id: &str) -> &str {
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

/// A folder as VS Code writes it: a path, a `file://` URI, or URI components.
pub fn folder_path(value: &Value) -> Option<String> {
    let written = match value {
        Value::String(text) => text.as_str(),
        object => text(object.get("fsPath")).or_else(|| text(object.get("path")))?,
    };
    let path = match written.strip_prefix("file://") {
        Some(uri) => percent_decode(uri),
        None => written.to_string(),
    };
    // `/c:/Users/x` is a Windows path.
    let path = match path.as_bytes() {
        [b'/', letter, b':', ..] if letter.is_ascii_alphabetic() => path[1..].to_string(),
        _ => path,
    };
    (!path.is_empty()).then_some(path)
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |byte: u8| (byte as char).to_digit(16);
        match (bytes[at], bytes.get(at + 1).copied().and_then(hex), bytes.get(at + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                at += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
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

fn tally_tools(request: &Value, outcome: &mut LogOutcome) {
    for part in parts(request).iter().filter(|part| is_tool_invocation(part)) {
        let Some(tool) = text(part.get("toolId")).filter(|tool| !tool.is_empty()) else { continue };
        let tally = outcome.tools.entry(tool.to_string()).or_default();
        tally.calls += 1;
        tally.failures += u64::from(tool_failed(part));
        if text(part.pointer("/source/type")) == Some("mcp")
            && let Some(server) = text(part.pointer("/source/label")).filter(|label| !label.is_empty())
        {
            outcome.mcp_servers.insert(server.to_string());
        }
    }
}

/// A row's own parts: turn type, text, tool name and id, mark.
type RowParts<'a> = (TurnType, Cow<'a, str>, &'a str, &'a str, RowMark);

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
        let message = request.get("message");
        if let Some(message) = text(message).or_else(|| text(message.and_then(|m| m.get("text")))) {
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
        let turn = Turn { millis: None, timestamp: String::new(), model: "", picked: "" };
        self.emit(&turn, line, (TurnType::System, text.into(), "", "", RowMark::BadLine));
    }

    fn emit(&mut self, turn: &Turn<'_>, line: u64, parts: RowParts<'_>) {
        let (turn_type, text, tool_name, tool_use_id, mark) = parts;
        if text.starts_with(CUT_MARKER) {
            self.cut_texts += 1;
        }
        let context = self.context;
        self.sink.push(&Row {
            agent: context.agent,
            timestamp_utc: Cow::Borrowed(&turn.timestamp),
            session_id: context.session_id,
            project_path: &self.project,
            git_branch: "",
            model: turn.model,
            tool_name,
            tool_use_id,
            turn_type,
            text,
            source: context.source,
            source_line: line,
            mark,
            locator: Some(LineLocator { file: context.file, offset: 0, ordinal: self.ordinal }),
        });
        self.ordinal += 1;
    }
}

/// A `modelTotals[]` entry: one model's tokens over the whole turn.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelTotal {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    input_tokens: Count,
    #[serde(default)]
    output_tokens: Count,
    #[serde(default)]
    cached_tokens: Count,
}

/// A token count read leniently: absent is 0, what cannot be a count is left out and noted.
fn count(value: Option<&Value>, left_out: &mut Vec<String>, name: &str) -> u64 {
    match value.map(Count::deserialize) {
        None | Some(Err(_)) => 0,
        Some(Ok(Count::Read(count))) => count,
        Some(Ok(Count::Unusable(written))) => {
            left_out.push(format!("{name} is {written} ({})", written.why()));
            0
        }
    }
}

fn read_count(count: Count, left_out: &mut Vec<String>, name: &str) -> u64 {
    match count {
        Count::Read(count) => count,
        Count::Unusable(written) => {
            left_out.push(format!("{name} is {written} ({})", written.why()));
            0
        }
    }
}

/// A request's tokens by seed 001's VS Code rules: `modelTotals` (whole turn; input includes
/// cached), else the request's own `promptTokens`/`completionTokens` (newest builds), else
/// `result.metadata`'s, which on older builds describe the last call only: the turn is then
/// partial unless it had exactly one tool-call round. No cache write is ever recorded.
fn add_usage(context: &LogContext<'_>, request: &Value, turn: &Turn<'_>, line: u64, outcome: &mut LogOutcome) {
    let metadata = request.pointer("/result/metadata");
    let rounds = metadata.and_then(|m| m.get("toolCallRounds")).and_then(Value::as_array);
    let mut left_out = Vec::new();
    let reasoning: u64 = rounds
        .map(|rounds| {
            rounds.iter().enumerate().map(|(at, round)| {
                count(
                    round.pointer("/thinking/tokens"),
                    &mut left_out,
                    &format!("toolCallRounds[{at}].thinking.tokens"),
                )
            })
        })
        .into_iter()
        .flatten()
        .sum();
    let totals = request.get("modelTotals").or_else(|| metadata.and_then(|m| m.get("modelTotals")));
    let mut figures: Vec<(String, Tokens, bool)> = Vec::new();
    if let Some(totals) = totals.and_then(Value::as_array).filter(|totals| !totals.is_empty()) {
        for (at, total) in totals.iter().enumerate() {
            let Ok(total) = ModelTotal::deserialize(total) else { continue };
            let name = |field: &str| format!("modelTotals[{at}].{field}");
            let tokens = Tokens {
                requests: 1,
                input: read_count(total.input_tokens, &mut left_out, &name("inputTokens")),
                output: read_count(total.output_tokens, &mut left_out, &name("outputTokens")),
                cache_read: read_count(total.cached_tokens, &mut left_out, &name("cachedTokens")),
                ..Tokens::default()
            };
            let model = total.model.as_deref().map(model_name).unwrap_or(turn.model).to_string();
            figures.push((model, tokens, true));
        }
        if let Some((_, first, _)) = figures.first_mut() {
            first.reasoning = reasoning;
        }
    } else if request.get("promptTokens").is_some() || request.get("completionTokens").is_some() {
        let tokens = Tokens {
            requests: 1,
            input: count(request.get("promptTokens"), &mut left_out, "promptTokens"),
            output: count(request.get("completionTokens"), &mut left_out, "completionTokens"),
            reasoning,
            ..Tokens::default()
        };
        figures.push((turn.model.to_string(), tokens, true));
    } else if let Some(metadata) =
        metadata.filter(|m| m.get("promptTokens").is_some() || m.get("outputTokens").is_some())
    {
        let tokens = Tokens {
            requests: 1,
            input: count(metadata.get("promptTokens"), &mut left_out, "result.metadata.promptTokens"),
            output: count(metadata.get("outputTokens"), &mut left_out, "result.metadata.outputTokens"),
            reasoning,
            ..Tokens::default()
        };
        let one_round = rounds.is_some_and(|rounds| rounds.len() == 1);
        figures.push((turn.model.to_string(), tokens, one_round));
    }
    if figures.is_empty() {
        return;
    }
    let ledger = outcome.usage.get_or_insert_with(|| SessionLedger::new(context.zone));
    let implausible = !left_out.is_empty();
    if implausible {
        ledger.problems.push(CounterProblem {
            at: Place::Line(line),
            kind: DiagnosticKind::ImplausibleCounter,
            message: format!(
                "request {}: {}. Left out, not added (flagged implausible_counter); its other counts are kept",
                text(request.get("requestId")).unwrap_or("?"),
                left_out.join(", ")
            ),
        });
    }
    if turn.millis.is_none() {
        ledger.problems.push(CounterProblem {
            at: Place::Line(line),
            kind: DiagnosticKind::UndatedCounter,
            message: format!(
                "request {} has tokens but no timestamp: they cannot be put on a day, so they are in no usage row",
                text(request.get("requestId")).unwrap_or("?")
            ),
        });
    }
    for (model, tokens, whole) in figures {
        ledger.turn(turn.millis, &model, tokens, whole, implausible);
    }
}
