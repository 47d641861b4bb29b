//! What shapes Copilot CLI's answers and what it can start, as files of a home: MCP server
//! configurations, skills, custom agents, instructions and installed plugins' manifests, into
//! the home's inventory facts.

use serde_json::Value;

use super::layout::{self, CUSTOM_AGENT, INSTRUCTIONS, MCP_CONFIG, PLUGIN_MANIFEST, SKILL};
use super::plugins;
use crate::facts::files::FileKind;
use crate::facts::home::Description;
use crate::facts::home::{CustomizationFile, InstructionFile};
use crate::lines::utf8_text;
use crate::sources::Importing;
use crate::sources::front_matter;
use crate::sources::mcp_servers::{self, ConfigPlace, ReadConfig};

/// Whether this importer reads files of `kind`.
pub fn reads(kind: FileKind) -> bool {
    [MCP_CONFIG, PLUGIN_MANIFEST, SKILL, CUSTOM_AGENT, INSTRUCTIONS].contains(&kind)
}

pub fn import(bytes: &[u8], into: &mut Importing<'_>) -> Result<(), String> {
    let path = into.path;
    let plugin_root = layout::plugin_of(path).map(|(root, _)| root.to_string());
    match into.kind {
        MCP_CONFIG => {
            let document = mcp_servers::parse_document(bytes)?;
            let place = ConfigPlace { file: path, servers_key: "mcpServers", plugin_root: plugin_root.as_deref() };
            add_servers(mcp_servers::read(&document, &place)?, into);
        }
        PLUGIN_MANIFEST => {
            let (manifest, inline_servers) = plugins::parse_manifest(bytes, path)?;
            if let Some(Value::Object(servers)) = &inline_servers {
                let place = ConfigPlace { file: path, servers_key: "mcpServers", plugin_root: plugin_root.as_deref() };
                let mut config = ReadConfig::default();
                mcp_servers::read_servers(servers, "mcpServers", &place, &mut config);
                add_servers(config, into);
            }
            into.dated = true;
            // A plugin can carry its manifest in more than one place: the first one names it.
            if !into.home.plugins.iter().any(|known| known.root == manifest.root) {
                into.home.plugins.push(manifest);
            }
        }
        SKILL | CUSTOM_AGENT => {
            let text = utf8_text(bytes)?;
            let front = front_matter::read(text)?;
            let file = CustomizationFile {
                name: front.name.unwrap_or_else(|| default_name(path, into.kind)),
                description: Description::new(front.description.as_deref().unwrap_or_default()),
                path: path.to_string(),
                plugin_root,
                bytes: bytes.len() as u64,
            };
            into.dated = true;
            match into.kind {
                SKILL => into.home.skill_files.push(file),
                _ => into.home.agent_files.push(file),
            }
        }
        INSTRUCTIONS => {
            let first_line = front_matter::first_line(utf8_text(bytes)?);
            into.dated = true;
            into.home.instruction_files.push(InstructionFile {
                path: path.to_string(),
                first_line,
                bytes: bytes.len() as u64,
            });
        }
        _ => {}
    }
    Ok(())
}

fn add_servers(config: ReadConfig, into: &mut Importing<'_>) {
    into.home.mcp_configured.extend(config.servers);
    into.home.skipped_keys.extend(config.skipped);
}

/// A skill without a name is its folder's (`skills/<name>/SKILL.md`); an agent its file's,
/// without `.agent.md` or `.md`.
fn default_name(path: &str, kind: FileKind) -> String {
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or_default();
    if kind == SKILL {
        return parts.next().unwrap_or_default().to_string();
    }
    let stem = file.strip_suffix(".agent.md").or_else(|| file.strip_suffix(".md")).unwrap_or(file);
    stem.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_default_to_the_files_place() {
        assert_eq!(default_name(".agents/skills/lint/SKILL.md", SKILL), "lint");
        assert_eq!(default_name(".copilot/agents/reviewer.agent.md", CUSTOM_AGENT), "reviewer");
        assert_eq!(default_name(".copilot/agents/plain.md", CUSTOM_AGENT), "plain");
    }
}
