//! Installed plugins (`installed-plugins/<marketplace>/<plugin>/`): of a plugin's copy only
//! what says what it brings is read (its manifest, MCP configuration, skills and custom
//! agents); the rest of the tree stays excluded, counted by size.

use serde::Deserialize;
use serde_json::Value;

use super::layout::{CUSTOM_AGENT, MCP_CONFIG, PLUGIN_MANIFEST, SKILL, is_agent_file, is_skill_file};
use crate::facts::files::FileKind;
use crate::facts::home::Description;
use crate::facts::home::PluginManifest;
use crate::lines::utf8_text;

/// Where a plugin's manifest can be, below its folder.
const MANIFESTS: [&str; 3] = ["plugin.json", ".github/plugin/plugin.json", ".claude-plugin/plugin.json"];
/// Where a plugin's MCP servers can be, below its folder (or inline in its manifest).
const MCP_CONFIGS: [&str; 2] = [".mcp.json", ".github/mcp.json"];

/// What a file below `installed-plugins/` is, if it is read, with the length of its plugin's
/// folder in `in_plugins` (`<marketplace>/<plugin>`, or `<plugin>` for one installed directly).
pub fn classify(in_plugins: &str) -> Option<(FileKind, usize)> {
    let mut folder_ends = in_plugins.match_indices('/').map(|(at, _)| at);
    let first = folder_ends.next()?;
    let second = folder_ends.next();
    second.into_iter().chain([first]).find_map(|end| Some((kind_in_plugin(&in_plugins[end + 1..])?, end)))
}

fn kind_in_plugin(rest: &str) -> Option<FileKind> {
    if MANIFESTS.contains(&rest) {
        Some(PLUGIN_MANIFEST)
    } else if MCP_CONFIGS.contains(&rest) {
        Some(MCP_CONFIG)
    } else if is_skill_file(rest) {
        Some(SKILL)
    } else if is_agent_file(rest) {
        Some(CUSTOM_AGENT)
    } else {
        None
    }
}

/// The plugin folder of a home-relative path (`.copilot/installed-plugins/<m>/<p>`) and its
/// marketplace (empty for a plugin installed directly), when the path is a plugin's file.
pub fn plugin_of(path: &str) -> Option<(&str, &str)> {
    let at = path.find("/installed-plugins/")? + "/installed-plugins/".len();
    let (_, root_len) = classify(&path[at..])?;
    let inside = &path[at..at + root_len];
    let marketplace = inside.split_once('/').map_or("", |(marketplace, _)| marketplace);
    Some((&path[..at + root_len], marketplace))
}

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
    fn a_plugins_folder_is_found_from_any_of_its_read_files() {
        assert_eq!(classify("awesome/octo/plugin.json"), Some((PLUGIN_MANIFEST, "awesome/octo".len())));
        assert_eq!(classify("octo/.mcp.json"), Some((MCP_CONFIG, "octo".len())));
        assert_eq!(classify("awesome/octo/.claude-plugin/plugin.json").map(|(kind, _)| kind), Some(PLUGIN_MANIFEST));
        assert_eq!(classify("awesome/octo/README.md"), None);
        assert_eq!(classify("awesome/octo/skills/x/scripts/run.sh"), None);
        let path = ".copilot/installed-plugins/awesome/octo/agents/helper.agent.md";
        assert_eq!(plugin_of(path), Some((".copilot/installed-plugins/awesome/octo", "awesome")));
        assert_eq!(plugin_of(".copilot/skills/x/SKILL.md"), None);
    }

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
