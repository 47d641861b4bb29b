//! Row texts made from an event's data alone.

use serde_json::Value;
use serde_json::value::RawValue;

use super::records::PermissionDecision;
use crate::model::RowMark;

/// A tool_use row's text: the arguments string, else its command, url, query, path or input,
/// else the arguments as compact JSON.
pub fn tool_use_text(arguments: Option<&RawValue>) -> String {
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
pub(super) fn decision_text(kind: &str, decision: &PermissionDecision<'_>) -> (String, RowMark) {
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
pub(super) fn skill_asked(source: &str, content: &str) -> Option<String> {
    if let Some(skill) = source.strip_prefix("skill-").filter(|skill| !skill.is_empty()) {
        return Some(skill.to_string());
    }
    let command = content.strip_prefix('/')?.split_whitespace().next()?;
    Some(command.to_string())
}

/// The types shown as `<type>: <main text field>` (else compact JSON of their data).
pub(super) fn main_text_field(kind: &str) -> Option<&'static str> {
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
