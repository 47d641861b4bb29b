//! VS Code's MCP servers: `User/mcp.json` (`servers`) and the older `mcp.servers` of
//! `User/settings.json`, read for their names only. Nothing else of the settings is read.

use serde_json::Value;

use super::layout::{MCP_CONFIG, SETTINGS};
use crate::facts::home::SkippedKey;
use crate::sources::Importing;
use crate::sources::mcp_servers::{self, ConfigPlace, ReadConfig};

/// What the report says of the settings' other keys: counted, never read.
pub const OTHER_SETTINGS: &str = "(every key but mcp)";

pub fn import(bytes: &[u8], into: &mut Importing<'_>) -> Result<(), String> {
    let document = mcp_servers::parse_document(bytes)?;
    let place = ConfigPlace { file: into.path, servers_key: "servers", plugin_root: None };
    let config = match into.kind {
        MCP_CONFIG => mcp_servers::read(&document, &place)?,
        SETTINGS => settings_servers(&document, &place)?,
        _ => return Ok(()),
    };
    into.home.mcp_configured.extend(config.servers);
    into.home.skipped_keys.extend(config.skipped);
    Ok(())
}

fn settings_servers(document: &Value, place: &ConfigPlace<'_>) -> Result<ReadConfig, String> {
    let Value::Object(top) = document else { return Err("not a JSON object".into()) };
    let mut config = match top.get("mcp") {
        Some(mcp) => mcp_servers::read(mcp, place).map_err(|error| format!("mcp: {error}"))?,
        None => ReadConfig::default(),
    };
    for key in &mut config.skipped {
        key.key = format!("mcp.{}", key.key);
    }
    let others = top.keys().filter(|key| *key != "mcp").count() as u64;
    if others > 0 {
        config
            .skipped
            .insert(0, SkippedKey { file: place.file.to_string(), key: OTHER_SETTINGS.into(), values: others });
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_give_only_their_mcp_servers() {
        let settings = serde_json::json!({
            "editor.fontSize": 14,
            "github.token": "ghp_000000000000000000000000000000000000",
            "mcp": {"servers": {"fs": {"command": "npx", "args": ["-y", "fs"]}}}
        });
        let place = ConfigPlace { file: ".config/Code/User/settings.json", servers_key: "servers", plugin_root: None };
        let config = settings_servers(&settings, &place).unwrap();
        assert_eq!(config.servers.len(), 1);
        assert_eq!((config.servers[0].config.kind.as_str(), config.servers[0].config.args), ("stdio", 2));
        let keys: Vec<_> = config.skipped.iter().map(|key| (key.key.as_str(), key.values)).collect();
        assert_eq!(keys, [(OTHER_SETTINGS, 2), ("mcp.servers.fs.args", 2)]);
        assert!(!format!("{config:?}").contains("ghp_"));
    }
}
