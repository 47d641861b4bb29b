//! `inventory.json`: per home and agent, what Copilot has touched and been allowed to do.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::sessions::{SessionFacts, SessionRecord};
use crate::sources::copilot_cli::logs::McpServerSeen;
use crate::sources::log::ToolTally;

/// What the files of one home say beyond its sessions.
#[derive(Debug, Default)]
pub struct HomeFacts {
    pub tools: BTreeMap<String, ToolTally>,
    /// MCP servers named by tool calls in the logs.
    pub mcp_from_events: BTreeSet<String>,
    /// MCP servers the process logs saw connect or fail.
    pub mcp_from_logs: BTreeMap<String, McpServerSeen>,
    pub skills: BTreeSet<String>,
    pub grants: Vec<Grant>,
    pub accounts: BTreeSet<(String, String)>,
    /// The project of the sessions below a folder (VS Code's `workspaceStorage/<hash>`, by its
    /// `workspace.json`), for logs that do not name their own.
    pub folder_projects: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Grant {
    /// `permissions-config.json` or `settings.json`.
    pub file: String,
    /// The project location, empty for settings.json's URL lists.
    pub location: String,
    pub list: String,
    pub entry: String,
}

#[derive(Debug, Serialize)]
pub struct Inventory {
    pub homes: Vec<Home>,
    pub synced_sessions: u64,
}

#[derive(Debug, Serialize)]
pub struct Home {
    /// The home's label (its root's, then its folder there).
    pub home: String,
    pub agents: Vec<AgentInventory>,
}

#[derive(Debug, Serialize)]
pub struct AgentInventory {
    pub agent: &'static str,
    pub sessions: u64,
    pub projects: Vec<Project>,
    pub scratch_directories: Vec<ScratchDirectory>,
    pub synced_sessions: u64,
    pub models: Vec<ModelUse>,
    pub tools: Vec<ToolUse>,
    pub mcp_servers: Vec<McpServer>,
    pub skills: Vec<String>,
    pub permission_grants: Vec<Grant>,
    pub accounts: Vec<Account>,
}

#[derive(Debug, Serialize)]
pub struct Project {
    pub path: String,
    pub sessions: u64,
    pub first_seen: String,
    pub last_seen: String,
}

#[derive(Debug, Serialize)]
pub struct ScratchDirectory {
    pub path: String,
    pub sessions: u64,
}

#[derive(Debug, Serialize)]
pub struct ModelUse {
    pub model: String,
    pub sessions: u64,
}

#[derive(Debug, Serialize)]
pub struct ToolUse {
    pub name: String,
    pub calls: u64,
    pub failures: u64,
}

#[derive(Debug, Serialize)]
pub struct McpServer {
    pub name: String,
    /// Whether tool calls in the event logs named it.
    pub used_in_sessions: bool,
    pub connected: u64,
    pub failed_to_start: u64,
}

#[derive(Debug, Serialize)]
pub struct Account {
    pub host: String,
    pub login: String,
}

/// Builds the inventory of each home, given as `(label, facts by agent)` in the analysis's
/// order, from its sessions and facts: one part per agent found in the home.
pub fn build<'a>(
    homes: impl Iterator<Item = (&'a str, &'a BTreeMap<&'static str, HomeFacts>)>,
    sessions: &BTreeMap<String, SessionFacts>,
    records: &BTreeMap<String, SessionRecord>,
) -> Inventory {
    let homes: Vec<Home> = homes
        .enumerate()
        .map(|(index, (label, facts))| {
            let agents = facts
                .iter()
                .map(|(&agent, facts)| {
                    let in_home: Vec<(&SessionFacts, &SessionRecord)> = sessions
                        .iter()
                        .filter(|(_, s)| s.agent == agent && s.homes.contains(&index))
                        .map(|(id, s)| (s, &records[id]))
                        .collect();
                    agent_inventory(agent, facts, &in_home)
                })
                .collect();
            Home { home: label.to_string(), agents }
        })
        .collect();
    let synced_sessions = sessions.values().filter(|s| s.is_synced()).count() as u64;
    Inventory { homes, synced_sessions }
}

fn agent_inventory(
    agent: &'static str,
    facts: &HomeFacts,
    sessions: &[(&SessionFacts, &SessionRecord)],
) -> AgentInventory {
    let mut projects: BTreeMap<&str, Project> = BTreeMap::new();
    let mut scratch: BTreeMap<&str, u64> = BTreeMap::new();
    let mut models: BTreeMap<&str, u64> = BTreeMap::new();
    for (session, record) in sessions {
        for worktree in session.vscode_worktrees() {
            *scratch.entry(worktree).or_default() += 1;
        }
        if let Some(directory) = session.scratch_directory() {
            *scratch.entry(directory).or_default() += 1;
        } else if !record.project_path.is_empty() && !session.is_vscode_worktree(&record.project_path) {
            let first = if record.first_event.is_empty() { &record.created_at } else { &record.first_event };
            let last = if record.last_event.is_empty() { &record.updated_at } else { &record.last_event };
            let project = projects.entry(record.project_path.as_str()).or_insert_with(|| Project {
                path: record.project_path.clone(),
                sessions: 0,
                first_seen: first.clone(),
                last_seen: last.clone(),
            });
            project.sessions += 1;
            if !first.is_empty() && (project.first_seen.is_empty() || *first < project.first_seen) {
                project.first_seen = first.clone();
            }
            if *last > project.last_seen {
                project.last_seen = last.clone();
            }
        }
        for model in &record.models {
            *models.entry(model.as_str()).or_default() += 1;
        }
    }
    let mut mcp: BTreeMap<&str, McpServer> = BTreeMap::new();
    let server =
        |name: &str| McpServer { name: name.to_string(), used_in_sessions: false, connected: 0, failed_to_start: 0 };
    for name in &facts.mcp_from_events {
        mcp.entry(name).or_insert_with(|| server(name)).used_in_sessions = true;
    }
    for (name, seen) in &facts.mcp_from_logs {
        let entry = mcp.entry(name).or_insert_with(|| server(name));
        entry.connected += seen.connected;
        entry.failed_to_start += seen.failed;
    }
    let mut grants = facts.grants.clone();
    grants.sort();
    AgentInventory {
        agent,
        sessions: sessions.len() as u64,
        projects: projects.into_values().collect(),
        scratch_directories: scratch
            .into_iter()
            .map(|(path, sessions)| ScratchDirectory { path: path.to_string(), sessions })
            .collect(),
        synced_sessions: sessions.iter().filter(|(s, _)| s.is_synced()).count() as u64,
        models: models.into_iter().map(|(model, sessions)| ModelUse { model: model.to_string(), sessions }).collect(),
        tools: facts
            .tools
            .iter()
            .map(|(name, t)| ToolUse { name: name.clone(), calls: t.calls, failures: t.failures })
            .collect(),
        mcp_servers: mcp.into_values().collect(),
        skills: facts.skills.iter().cloned().collect(),
        permission_grants: grants,
        accounts: facts
            .accounts
            .iter()
            .map(|(host, login)| Account { host: host.clone(), login: login.clone() })
            .collect(),
    }
}
