//! `history-session-state/session_<id>_<epoch ms>.json`: a whole session as the CLI saved it
//! before event logs (October 2025 and earlier; 0.0.3xx still lists and imports these "legacy
//! sessions"): `{sessionId, startTime, chatMessages, timeline, selectedModel?}`. The `timeline`
//! is what the person saw, each entry stamped, and gives the rows; `chatMessages` is the model's
//! context, unstamped, with nothing the timeline lacks. No token counts: no usage.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::events::texts::tool_use_text;
use crate::facts::log::LogSummary;
use crate::model::{PendingRow, TurnType};
use crate::time;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistorySession<'a> {
    #[serde(default)]
    start_time: Option<String>,
    #[serde(default, borrow)]
    timeline: Vec<Entry<'a>>,
    #[serde(default)]
    selected_model: Option<String>,
}

/// One timeline entry: `user`, `copilot`, `info`, `error`, `tool_call_requested` or
/// `tool_call_completed`, with `id` and `timestamp`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<ToolResult>,
}

/// `{type: success | failure | rejected | denied, log?}`.
#[derive(Deserialize)]
struct ToolResult {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    log: Option<String>,
}

/// One timeline entry as a row's parts.
pub struct TimelineRow {
    pub timestamp: String,
    pub turn_type: TurnType,
    pub text: String,
    /// The session's model, on replies.
    pub model: String,
    pub tool_name: String,
    pub tool_use_id: String,
}

/// A history session's rows and what its record takes from it.
pub struct Parsed {
    pub rows: Vec<TimelineRow>,
    pub summary: LogSummary,
}

/// Reads a history session: a file of `history-session-state/`, or the `legacySession` a
/// later CLI's `session.import_legacy` event carries when it moved one into an event log.
pub fn parse(text: &str) -> serde_json::Result<Parsed> {
    let mut spare = String::new();
    let session: HistorySession<'_> = crate::json::from_str(text, &mut spare)?;
    let model = session.selected_model.unwrap_or_default();
    let created_ms = session.start_time.as_deref().and_then(time::parse_millis);
    let mut summary = LogSummary { created_ms, ..LogSummary::default() };
    let mut rows = Vec::with_capacity(session.timeline.len());
    for entry in session.timeline {
        let timestamp = entry.timestamp.unwrap_or_default();
        if let Some(millis) = time::parse_millis(&timestamp) {
            summary.first_event_ms = Some(summary.first_event_ms.map_or(millis, |first| first.min(millis)));
            summary.last_event_ms = Some(summary.last_event_ms.map_or(millis, |last| last.max(millis)));
        }
        let text = entry.text.unwrap_or_default();
        let (turn_type, text) = match entry.kind.as_str() {
            "user" => (TurnType::User, text),
            "copilot" => (TurnType::Assistant, text),
            "info" | "error" => (TurnType::System, format!("{}: {text}", entry.kind)),
            "tool_call_requested" => (TurnType::ToolUse, tool_use_text(entry.arguments)),
            "tool_call_completed" => {
                let result = entry.result.unwrap_or(ToolResult { kind: String::new(), log: None });
                let log = result.log.unwrap_or_default();
                let text = match (result.kind.as_str(), log.is_empty()) {
                    ("success", _) => log,
                    (kind, true) => format!("[{kind}]"),
                    (kind, false) => format!("[{kind}] {log}"),
                };
                (TurnType::ToolResult, text)
            }
            other => (TurnType::System, format!("history timeline entry {other}: {text}")),
        };
        let tool = matches!(turn_type, TurnType::ToolUse | TurnType::ToolResult);
        let take_if = |keep: bool, value: Option<String>| if keep { value.unwrap_or_default() } else { String::new() };
        summary.answered |= turn_type == TurnType::Assistant;
        rows.push(TimelineRow {
            timestamp,
            turn_type,
            text,
            model: if turn_type == TurnType::Assistant { model.clone() } else { String::new() },
            tool_name: take_if(tool, entry.name),
            tool_use_id: take_if(tool, entry.call_id),
        });
    }
    if !model.is_empty() {
        if summary.answered {
            summary.models.insert(model.clone());
        }
        summary.chosen_models.insert(model);
    }
    Ok(Parsed { rows, summary })
}

/// A `history-session-state/` file's rows, held for the joins (`source_line` is the entry's
/// place in the timeline).
pub fn pending_rows(rows: Vec<TimelineRow>, session_id: &str) -> Vec<PendingRow> {
    let into_row = |(position, row): (usize, TimelineRow)| {
        let mut pending = PendingRow::new(row.turn_type, row.text, &row.timestamp, position as u64 + 1);
        (pending.model, pending.tool_name, pending.tool_use_id) = (row.model, row.tool_name, row.tool_use_id);
        pending.in_session(session_id)
    };
    rows.into_iter().enumerate().map(into_row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = r#"{"sessionId":"5e55a0a1-0000-4000-8000-000000000009","startTime":"2025-10-01T09:00:00.000Z",
        "chatMessages":[{"role":"user","content":"list files"}],"selectedModel":"claude-sonnet-4.5",
        "timeline":[
          {"type":"user","text":"list files","id":"a","timestamp":"2025-10-01T09:00:01.000Z"},
          {"type":"tool_call_requested","callId":"c1","name":"bash","intentionSummary":null,"arguments":{"command":"ls"},"id":"b","timestamp":"2025-10-01T09:00:02.000Z"},
          {"type":"tool_call_completed","callId":"c1","name":"bash","intentionSummary":null,"result":{"type":"denied","log":"not allowed"},"arguments":{"command":"ls"},"id":"c","timestamp":"2025-10-01T09:00:03.000Z"},
          {"type":"copilot","text":"I may not.","id":"d","timestamp":"2025-10-01T09:00:04.000Z"}]}"#;

    #[test]
    fn the_timeline_gives_the_rows_and_the_session_its_times_and_model() {
        let parsed = parse(SESSION).unwrap();
        let rows = pending_rows(parsed.rows, "s");
        let rows: Vec<_> = rows
            .iter()
            .map(|row| (row.turn_type, row.text.as_str(), row.tool_name.as_str(), row.model.as_str(), row.source_line))
            .collect();
        assert_eq!(
            rows,
            [
                (TurnType::User, "list files", "", "", 1),
                (TurnType::ToolUse, "ls", "bash", "", 2),
                (TurnType::ToolResult, "[denied] not allowed", "bash", "", 3),
                (TurnType::Assistant, "I may not.", "", "claude-sonnet-4.5", 4),
            ]
        );
        assert_eq!(parsed.summary.first_event_ms, time::parse_millis("2025-10-01T09:00:01.000Z"));
        assert_eq!(parsed.summary.last_event_ms, time::parse_millis("2025-10-01T09:00:04.000Z"));
        assert_eq!(parsed.summary.created_ms, time::parse_millis("2025-10-01T09:00:00.000Z"));
        assert_eq!(parsed.summary.models.iter().collect::<Vec<_>>(), ["claude-sonnet-4.5"]);
    }

    #[test]
    fn a_file_that_is_not_a_history_session_is_an_error() {
        assert!(parse("[1, 2]").is_err());
    }
}
