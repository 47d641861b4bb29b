//! `session-state/<id>/rewind-file-snapshots/index.json`: the file snapshots `/rewind` uses,
//! each with the prompt it preceded. A secondary source: the prompt is usually in the log.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::lines::utf8_text;
use crate::model::PendingRow;
use crate::model::TurnType;
use crate::order;

#[derive(Deserialize)]
struct Index {
    #[serde(default)]
    snapshots: Vec<Snapshot>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Snapshot {
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    user_message: Option<String>,
    #[serde(default)]
    file_count: Option<u64>,
    #[serde(default)]
    lines_added: Option<u64>,
    #[serde(default)]
    lines_removed: Option<u64>,
    #[serde(default)]
    files: BTreeMap<String, SnapshotFile>,
}

#[derive(Deserialize)]
struct SnapshotFile {
    #[serde(default)]
    path: Option<String>,
}

/// Per snapshot: the prompt as a user row, then a summary of the files it covers.
pub fn parse(bytes: &[u8], session_id: &str) -> Result<Vec<PendingRow>, String> {
    let index: Index =
        crate::json::from_str(utf8_text(bytes)?, &mut String::new()).map_err(|error| error.to_string())?;
    let mut rows = Vec::new();
    for (position, snapshot) in index.snapshots.iter().enumerate() {
        let line = position as u64 + 1;
        let stamp = snapshot.timestamp.as_deref().unwrap_or_default();
        if let Some(prompt) = snapshot.user_message.as_deref().filter(|prompt| !prompt.is_empty()) {
            rows.push(PendingRow::new(TurnType::User, prompt.to_string(), stamp, line).in_session(session_id));
        }
        let mut paths: Vec<&str> = snapshot.files.values().filter_map(|file| file.path.as_deref()).collect();
        order::sort(&mut paths);
        let mut text = format!(
            "rewind snapshot: {} files +{} -{}",
            snapshot.file_count.unwrap_or(snapshot.files.len() as u64),
            snapshot.lines_added.unwrap_or(0),
            snapshot.lines_removed.unwrap_or(0)
        );
        if !paths.is_empty() {
            text.push_str(": ");
            text.push_str(&paths.join(", "));
        }
        rows.push(PendingRow::new(TurnType::System, text, stamp, line).in_session(session_id));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_gives_its_prompt_and_a_summary() {
        let text = br#"{"schema":1,"snapshots":[{"eventId":"e4","timestamp":"2026-10-01T09:00:01.150Z","userMessage":"fix the failing test","fileCount":1,"linesAdded":1,"linesRemoved":1,"files":{"a1":{"path":"/srv/proj/date.test.js"}}}]}"#;
        let rows = parse(text, "s1").unwrap();
        let texts: Vec<_> = rows.iter().map(|row| (row.turn_type, row.text.as_str())).collect();
        assert_eq!(
            texts,
            [
                (TurnType::User, "fix the failing test"),
                (TurnType::System, "rewind snapshot: 1 files +1 -1: /srv/proj/date.test.js")
            ]
        );
        assert!(rows.iter().all(|row| row.session_id == "s1" && row.timestamp_utc == "2026-10-01T09:00:01.150Z"));
    }
}
