//! Installed plugins (`installed-plugins/<marketplace>/<plugin>/`): of a plugin's copy only
//! what says what it brings is read (its manifest, MCP configuration, skills and custom
//! agents); the rest of the tree stays excluded, counted by size.

use serde::Deserialize;
use serde_json::Value;

use super::layout::plugin_of;
use crate::facts::home::Description;
use crate::facts::home::PluginManifest;
use crate::lines::utf8_text;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Manifest {
    #[serde(deserialize_with = "crate::json::lenient")]
    name: Option<String>,
    #[serde(deserialize_with = "crate::json::lenient")]
    version: Option<String>,
    #[serde(deserialize_with = "crate::json::lenient")]
    description: Option<String>,
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<Value>,
}

/// A manifest, and its inline MCP servers when `mcpServers` is an object rather than a path.
pub fn parse_manifest(bytes: &[u8], path: &str) -> Result<(PluginManifest, Option<Value>), String> {
    let manifest: Manifest =
        crate::json::from_str(utf8_text(bytes)?, &mut String::new()).map_err(|error| error.to_string())?;
    let (root, marketplace) = plugin_of(path).unwrap_or_default();
    let inline = manifest.mcp_servers.filter(Value::is_object);
    let manifest = PluginManifest {
        root: root.to_string(),
        manifest: path.to_string(),
        name: manifest.name.unwrap_or_default(),
        version: manifest.version.unwrap_or_default(),
        description: Description::new(manifest.description.as_deref().unwrap_or_default()),
        marketplace: marketplace.to_string(),
    };
    Ok((manifest, inline))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_gives_its_names_and_inline_servers() {
        let bytes = br#"{"name":"octo","version":"1.2.0","description":"Tools","mcpServers":{"octo":{"command":"octo"}},"author":{"name":"x"}}"#;
        let (manifest, inline) = parse_manifest(bytes, ".copilot/installed-plugins/awesome/octo/plugin.json").unwrap();
        assert_eq!(
            (manifest.name.as_str(), manifest.version.as_str(), manifest.marketplace.as_str()),
            ("octo", "1.2.0", "awesome")
        );
        assert!(inline.is_some());
        let (_, by_path) = parse_manifest(
            br#"{"name":"p","mcpServers":".mcp.json","version":2}"#,
            "x/installed-plugins/p/plugin.json",
        )
        .unwrap();
        assert!(by_path.is_none());
    }
}
