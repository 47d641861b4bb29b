//! `command-history-state.json`: the Ctrl+R prompt history, newest first, with no time,
//! session or directory. A secondary source: its entries mostly repeat logged prompts.

use serde::Deserialize;

use crate::lines::utf8_text;
use crate::model::PendingRow;
use crate::model::TurnType;

#[derive(Deserialize)]
struct HistoryFile {
    #[serde(rename = "commandHistory", default)]
    command_history: Vec<serde_json::Value>,
}

/// One undated user row per entry; `source_line` is the 1-based index (newest first).
pub fn parse(bytes: &[u8]) -> Result<Vec<PendingRow>, String> {
    let file: HistoryFile =
        crate::json::from_str(utf8_text(bytes)?, &mut String::new()).map_err(|error| error.to_string())?;
    Ok(file
        .command_history
        .iter()
        .enumerate()
        .filter_map(|(index, entry)| {
            let text = crate::json::value_text(entry)?;
            Some(PendingRow::new(TurnType::User, text, "", index as u64 + 1))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_become_undated_user_rows_newest_first() {
        let rows = parse(br#"{"commandHistory":["and run lint","/model"]}"#).unwrap();
        let got: Vec<_> =
            rows.iter().map(|row| (row.text.as_str(), row.source_line, row.timestamp_utc.as_str())).collect();
        assert_eq!(got, [("and run lint", 1, ""), ("/model", 2, "")]);
        assert!(parse(b"{").is_err());
    }
}
