//! `permissions-config.json`: standing approvals per project location.

use serde_json::Value;

use crate::lines::utf8_text;
use crate::model::{PendingRow, RowMark, TurnType};

/// The per-location lists that hold grants.
const GRANT_LISTS: [&str; 2] = ["tool_approvals", "allowed_directories"];

/// One standing grant: the project location, the list it is in, the entry as compact JSON, and
/// what it allows in a Copilot user's words.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LocationGrant {
    pub location: String,
    pub list: String,
    pub entry: String,
    pub words: String,
}

pub fn parse(bytes: &[u8]) -> Result<Vec<LocationGrant>, String> {
    let value: Value =
        crate::json::from_str(utf8_text(bytes)?, &mut String::new()).map_err(|error| error.to_string())?;
    let mut grants = Vec::new();
    let Some(Value::Object(locations)) = value.get("locations") else {
        return Ok(grants);
    };
    for (location, config) in locations {
        for list in GRANT_LISTS {
            if let Some(Value::Array(entries)) = config.get(list) {
                grants.extend(entries.iter().map(|entry| LocationGrant {
                    location: location.clone(),
                    list: list.to_string(),
                    entry: crate::json::compact(entry),
                    words: words(list, entry),
                }));
            }
        }
    }
    Ok(grants)
}

/// What a grant allows, in a Copilot user's words: `command: npm test`, `write files`,
/// `MCP tool: github search_code`, `directory: /tmp`; an entry of another shape as its JSON.
fn words(list: &str, entry: &Value) -> String {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default();
    match (entry, text("kind")) {
        (Value::String(directory), _) if list == "allowed_directories" => "directory: ".to_owned() + directory,
        (_, "commands") => {
            let mut words = String::from("command:");
            let commands = entry.get("commandIdentifiers").and_then(Value::as_array).into_iter().flatten();
            for (at, command) in commands.filter_map(Value::as_str).enumerate() {
                words.push_str(if at == 0 { " " } else { ", " });
                words.push_str(command);
            }
            words
        }
        (_, "mcp") => {
            let mut words = String::from("MCP tool:");
            for part in [text("serverName"), text("toolName")].into_iter().filter(|part| !part.is_empty()) {
                words.push(' ');
                words.push_str(part);
            }
            words
        }
        (_, kind @ ("read" | "write")) => kind.to_owned() + " files",
        (_, "") => crate::json::compact(entry),
        (_, kind) => kind.replace('-', " "),
    }
}

/// One system row per grant, at the file's modification time, in the location's project.
pub fn rows(grants: &[LocationGrant]) -> Vec<PendingRow> {
    grants
        .iter()
        .enumerate()
        .map(|(index, grant)| {
            let text = format!("permission setting: locations.{}.{}={}", grant.location, grant.list, grant.entry);
            let mut row = PendingRow::at_file_time(TurnType::System, text, index as u64 + 1);
            row.project_path = grant.location.clone();
            row.mark = RowMark::StandingGrant;
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_kinds_are_named_in_words_and_unknown_shapes_kept_as_json() {
        let text = br#"{"locations":{"/p":{"tool_approvals":[{"kind":"mcp","serverName":"github","toolName":"search_code"},{"kind":"mcp","serverName":"fs"},{"kind":"custom-tool"},{"x":1}]}}}"#;
        let words: Vec<_> = parse(text).unwrap().into_iter().map(|grant| grant.words).collect();
        assert_eq!(words, ["MCP tool: github search_code", "MCP tool: fs", "custom tool", r#"{"x":1}"#]);
    }

    #[test]
    fn each_entry_is_a_grant_with_sorted_keys() {
        let text = br#"{"locations":{"/srv/proj":{"tool_approvals":[{"kind":"write"},{"kind":"commands","commandIdentifiers":["npm test"]}],"allowed_directories":["/tmp"]}}}"#;
        let rows = rows(&parse(text).unwrap());
        let texts: Vec<_> = rows.iter().map(|row| row.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                r#"permission setting: locations./srv/proj.tool_approvals={"kind":"write"}"#,
                r#"permission setting: locations./srv/proj.tool_approvals={"commandIdentifiers":["npm test"],"kind":"commands"}"#,
                r#"permission setting: locations./srv/proj.allowed_directories="/tmp""#,
            ]
        );
        assert_eq!(rows[0].project_path, "/srv/proj");
        let words: Vec<_> = parse(text).unwrap().into_iter().map(|grant| grant.words).collect();
        assert_eq!(words, ["write files", "command: npm test", "directory: /tmp"]);
        assert!(rows.iter().all(|row| row.mark == RowMark::StandingGrant));
    }
}
