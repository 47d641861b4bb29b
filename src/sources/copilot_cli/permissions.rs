//! `permissions-config.json`: standing approvals per project location.

use serde_json::Value;

use crate::lines::utf8_text;
use crate::model::{PendingRow, RowMark, TurnType};

/// The per-location lists that hold grants.
const GRANT_LISTS: [&str; 2] = ["tool_approvals", "allowed_directories"];

/// One standing grant: the project location, the list it is in, and the entry as compact JSON.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LocationGrant {
    pub location: String,
    pub list: String,
    pub entry: String,
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
                }));
            }
        }
    }
    Ok(grants)
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
            row.mark = RowMark::PermissionSetting;
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(rows.iter().all(|row| row.mark == RowMark::PermissionSetting));
    }
}
