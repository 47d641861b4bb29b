//! What the files of a home say beyond its sessions, whatever their source: tool and MCP
//! tallies, MCP servers as configured and as the process logs saw them, skills, agents,
//! instructions, plugins, grants, accounts.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::log::{McpCalls, SkillUse, ToolTally};

/// What the files of one home say beyond its sessions.
#[derive(Debug, Default)]
pub struct HomeFacts {
    pub tools: BTreeMap<String, ToolTally>,
    /// Calls of MCP servers' tools in the logs.
    pub mcp_calls: McpCalls,
    /// MCP servers the process logs saw connect or fail.
    pub mcp_from_logs: BTreeMap<String, McpServerSeen>,
    /// MCP servers as configured (names only), in file order.
    pub mcp_configured: Vec<ConfiguredServer>,
    /// Keys of the configuration files whose values were not read (for the report).
    pub skipped_keys: Vec<SkippedKey>,
    pub skill_files: Vec<CustomizationFile>,
    pub skill_uses: BTreeMap<String, SkillUse>,
    pub agent_files: Vec<CustomizationFile>,
    pub agent_uses: BTreeMap<String, u64>,
    pub instruction_files: Vec<InstructionFile>,
    pub plugins: Vec<PluginManifest>,
    pub grants: Vec<Grant>,
    pub accounts: BTreeSet<(String, String)>,
    /// The project of the sessions below a folder (VS Code's `workspaceStorage/<hash>`, by its
    /// `workspace.json`), for logs that do not name their own.
    pub folder_projects: BTreeMap<String, String>,
}

/// An MCP server as a configuration file names it; never a value of its `env`, `headers` or
/// `args` (counted only), nor more of its command than the file name or of its URL than the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfiguredServer {
    pub name: String,
    /// The file's path in its home.
    pub configured_in: String,
    /// The folder of the plugin that brings it.
    pub plugin_root: Option<String>,
    pub config: ServerConfig,
}

/// What the inventory shows of a server's configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ServerConfig {
    /// `type` as written, else `stdio` for a command and `http` for a URL.
    #[serde(rename = "type")]
    pub kind: String,
    pub command: String,
    pub url_host: String,
    /// The tool allowlist, as written.
    pub tools: Option<Vec<String>>,
    /// How many arguments, environment variables and headers it has (never their values).
    pub args: u64,
    pub env: u64,
    pub headers: u64,
}

/// A key of a configuration file whose values were not read: how many there were.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SkippedKey {
    pub file: String,
    pub key: String,
    pub values: u64,
}

/// A skill's `SKILL.md` or a custom agent's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomizationFile {
    pub name: String,
    pub description: Description,
    pub path: String,
    pub plugin_root: Option<String>,
    pub bytes: u64,
}

/// An instructions file, by its first line only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstructionFile {
    pub path: String,
    pub first_line: String,
    pub bytes: u64,
}

/// An installed plugin's manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginManifest {
    /// The plugin's folder in the home (`.copilot/installed-plugins/<marketplace>/<plugin>`).
    pub root: String,
    pub manifest: String,
    pub name: String,
    pub version: String,
    pub description: Description,
    pub marketplace: String,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Grant {
    /// `permissions-config.json` or `settings.json`.
    pub file: String,
    /// The project location, empty for settings.json's URL lists.
    pub location: String,
    pub list: String,
    /// The entry as compact JSON, as the file has it.
    pub entry: String,
    /// What it allows, in a Copilot user's words (`command: cargo clippy`).
    pub words: String,
}

/// An MCP server as the process logs saw it: how often it connected and failed to start.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct McpServerSeen {
    pub connected: u64,
    pub failed: u64,
}

/// The longest description shown (of a skill, an agent or a plugin), in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// A description as the inventory shows it: a longer one than `MAX_DESCRIPTION_CHARS` is cut
/// there, ends with `…`, and says it was cut (a 50 MB one went whole into inventory.json).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Description {
    pub description: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub description_cut: bool,
}

impl Description {
    pub fn new(text: &str) -> Description {
        // Scrubbed before the cut, so that a secret the cut runs through is still found whole.
        let (text, _) = crate::scrub::scrub_cow(text);
        match text.char_indices().nth(MAX_DESCRIPTION_CHARS) {
            Some((at, _)) => Description { description: format!("{}…", &text[..at]), description_cut: true },
            None => Description { description: text.to_string(), description_cut: false },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_description_is_cut_on_a_character_and_says_so() {
        let short = Description::new(&"é".repeat(MAX_DESCRIPTION_CHARS));
        assert_eq!((short.description.chars().count(), short.description_cut), (MAX_DESCRIPTION_CHARS, false));
        let long = Description::new(&"é".repeat(MAX_DESCRIPTION_CHARS + 1));
        assert_eq!(long.description, format!("{}…", "é".repeat(MAX_DESCRIPTION_CHARS)));
        assert!(long.description_cut);
        assert_eq!(serde_json::to_string(&Description::new("x")).unwrap(), r#"{"description":"x"}"#);
    }
}
