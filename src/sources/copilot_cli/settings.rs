//! `settings.json` (JSON with comments): the URL allow and deny lists are standing grants.

use serde_json::Value;

use crate::lines::utf8_text;
use crate::model::{PendingRow, RowMark, TurnType};

/// The settings keys that grant or refuse without asking.
const URL_LISTS: [&str; 2] = ["allowedUrls", "deniedUrls"];

/// A standing grant from settings.json: `(list name, entry)`.
pub type UrlGrant = (String, String);

pub fn parse(bytes: &[u8]) -> Result<Vec<UrlGrant>, String> {
    let value: Value = crate::json::from_jsonc(utf8_text(bytes)?).map_err(|error| error.to_string())?;
    let mut grants = Vec::new();
    for list in URL_LISTS {
        if let Some(Value::Array(entries)) = value.get(list) {
            grants.extend(entries.iter().filter_map(crate::json::value_text).map(|entry| (list.to_string(), entry)));
        }
    }
    Ok(grants)
}

/// A URL grant in words: `URL allowed: …` or `URL denied: …`.
pub fn words(list: &str, entry: &str) -> String {
    let verdict = if list == "deniedUrls" { "denied" } else { "allowed" };
    format!("URL {verdict}: {entry}")
}

/// One system row per entry, at the file's modification time.
pub fn rows(grants: &[UrlGrant]) -> Vec<PendingRow> {
    grants
        .iter()
        .enumerate()
        .map(|(index, (list, entry))| {
            let text = format!("permission setting: {list}={entry}");
            let row = PendingRow::at_file_time(TurnType::System, text, index as u64 + 1);
            PendingRow { mark: RowMark::StandingGrant, ..row }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_allowed_and_both_lists_read() {
        let text = b"{\n // user settings\n \"allowedUrls\": [\"https://a.example\"], /* x */ \"deniedUrls\": [\"b.example\",],\n}";
        let grants = parse(text).unwrap();
        let rows = rows(&grants);
        let texts: Vec<_> = rows.iter().map(|row| row.text.as_str()).collect();
        assert_eq!(
            texts,
            ["permission setting: allowedUrls=https://a.example", "permission setting: deniedUrls=b.example"]
        );
        assert!(rows.iter().all(|row| row.at_file_time && row.mark == RowMark::StandingGrant));
        let words: Vec<_> = grants.iter().map(|(list, entry)| words(list, entry)).collect();
        assert_eq!(words, ["URL allowed: https://a.example", "URL denied: b.example"]);
    }
}
