//! `history-session-state/session_<id>_<epoch ms>.json`: a whole session as the CLI saved it
//! before event logs (October 2025 and earlier; 0.0.3xx still lists and imports these "legacy
//! sessions"): `{sessionId, startTime, chatMessages, timeline, selectedModel?}`. The `timeline`
//! is what the person saw, each entry stamped, and gives the rows; `chatMessages` is the model's
//! context, unstamped, with nothing the timeline lacks. No token counts: no usage.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::events::tool_use_text;
use super::utf8_text;
use crate::model::{PendingRow, TurnType};
use crate::sources::log::LogSummary;
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

/// A history session's rows and what its record takes from it.
pub struct Parsed {
    pub rows: Vec<PendingRow>,
    pub summary: LogSummary,
}

pub fn parse(bytes: &[u8], session_id: &str) -> Result<Parsed, String> {
    let session: HistorySession<'_> = serde_json::from_str(utf8_text(bytes)?).map_err(|error| error.to_string())?;
    let model = session.selected_model.unwrap_or_default();
    let mut summary =
        LogSummary { created_ms: session.start_time.as_deref().and_then(time::parse_millis), ..LogSummary::default() };
    let mut rows = Vec::with_capacity(session.timeline.len());
    for (position, entry) in session.timeline.into_iter().enumerate() {
        let stamp = entry.timestamp.as_deref().unwrap_or_default();
        if let Some(millis) = time::parse_millis(stamp) {
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
        let mut row = PendingRow::new(turn_type, text, stamp, position as u64 + 1).in_session(session_id);
        if turn_type == TurnType::Assistant {
            row.model.clone_from(&model);
        }
        if matches!(turn_type, TurnType::ToolUse | TurnType::ToolResult) {
            row.tool_name = entry.name.unwrap_or_default();
            row.tool_use_id = entry.call_id.unwrap_or_default();
        }
        rows.push(row);
    }
    if !model.is_empty() {
        summary.models.insert(model);
    }
    Ok(Parsed { rows, summary })
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
        let parsed = parse(SESSION.as_bytes(), "s").unwrap();
        let rows: Vec<_> = parsed
            .rows
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
        assert!(parse(b"[1, 2]", "s").is_err());
    }
}
