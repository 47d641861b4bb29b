//! `inventory.json`: per home and agent, what Copilot has touched and been allowed to do.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::facts::home::Description;
use crate::facts::home::{CustomizationFile, Grant, HomeFacts, PluginManifest, ServerConfig};
use crate::facts::log::{SkillUse, ToolTally};
use crate::facts::session::SessionFacts;
use crate::order;
use crate::sessions::SessionRecord;

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Inventory {
    pub homes: Vec<Home>,
    pub synced_sessions: u64,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Home {
    /// The home's label (its root's, then its folder there).
    pub home: String,
    pub agents: Vec<AgentInventory>,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentInventory {
    pub agent: &'static str,
    pub sessions: u64,
    pub projects: Vec<Project>,
    pub scratch_directories: Vec<ScratchDirectory>,
    pub synced_sessions: u64,
    pub models: Vec<ModelUse>,
    pub tools: Vec<ToolUse>,
    pub mcp_servers: Vec<McpServer>,
    pub skills: Vec<Skill>,
    pub custom_agents: Vec<CustomAgent>,
    pub instructions: Vec<Instructions>,
    pub plugins: Vec<Plugin>,
    pub permission_grants: Vec<Grant>,
    pub accounts: Vec<Account>,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Project {
    pub path: String,
    /// The remote machine it is on (`ssh-remote+mybox`), absent when it is local.
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub remote: String,
    pub sessions: u64,
    pub first_seen: String,
    pub last_seen: String,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ScratchDirectory {
    pub path: String,
    pub sessions: u64,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelUse {
    pub model: String,
    pub sessions: u64,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ToolUse {
    pub name: String,
    pub calls: u64,
    pub failures: u64,
}

/// An MCP server: as configured, joined with its calls in the logs and its starts in the
/// process logs.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct McpServer {
    pub name: String,
    pub configured_in: Vec<String>,
    pub plugin: Option<String>,
    #[serde(flatten)]
    pub config: ServerConfig,
    pub calls: u64,
    pub failures: u64,
    /// When a tool of it was last called (UTC), empty when never or undated.
    pub last_used: String,
    pub tools_used: Vec<ToolUse>,
    pub connected: u64,
    pub failed_to_start: u64,
    pub verdict: ServerVerdict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ServerVerdict {
    ConfiguredAndUsed,
    ConfiguredNeverUsed,
    /// Seen in the logs (called or started) but in no configuration file.
    UsedNotConfigured,
    /// The agent's own server (the CLI's `github-mcp-server`), which no file configures.
    BuiltIn,
    /// It failed to start and never started nor was called.
    FailedToStart,
}

/// A skill's or custom agent's file as the inventory shows it (none for a skill invoked but
/// not found).
#[derive(Debug, Default, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FileShown {
    pub name: String,
    #[serde(flatten)]
    pub description: Description,
    pub path: String,
    pub plugin: Option<String>,
    pub bytes: u64,
    pub modified: String,
}

impl FileShown {
    fn of(file: &CustomizationFile, plugins: &PluginNames<'_>, modified: &dyn Fn(&str) -> String) -> FileShown {
        FileShown {
            name: file.name.clone(),
            description: file.description.clone(),
            path: file.path.clone(),
            plugin: plugins.name(file.plugin_root.as_deref()),
            bytes: file.bytes,
            modified: modified(&file.path),
        }
    }
}

/// A skill: its `SKILL.md`, joined with its invocations.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Skill {
    #[serde(flatten)]
    pub file: FileShown,
    pub invocations: u64,
    pub by_person: u64,
    pub by_model: u64,
    /// When it was last invoked (UTC), empty when never or undated.
    pub last_used: String,
    pub verdict: SkillVerdict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SkillVerdict {
    Used,
    NeverUsed,
    /// Invoked, but no `SKILL.md` of that name is in the home (a project's skill, or removed).
    UsedNotFound,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CustomAgent {
    #[serde(flatten)]
    pub file: FileShown,
    /// Sub-agent runs and selections of it.
    pub uses: u64,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Instructions {
    pub path: String,
    pub first_line: String,
    pub bytes: u64,
    pub modified: String,
}

/// An installed plugin and what it brings.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Plugin {
    pub name: String,
    pub version: String,
    #[serde(flatten)]
    pub description: Description,
    pub marketplace: String,
    pub path: String,
    pub skills: Vec<String>,
    pub custom_agents: Vec<String>,
    pub mcp_servers: Vec<String>,
    pub modified: String,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Account {
    pub host: String,
    pub login: String,
}

/// A file's modification time as the inventory shows it, by home index and path.
impl Inventory {
    /// The logins the homes signed in with (their accounts), each once, in order: whose rows
    /// of GitHub's usage report are this machine's, and whose report this is.
    pub fn logins(&self) -> Vec<String> {
        let logins: BTreeSet<&str> = (self.homes.iter())
            .flat_map(|home| &home.agents)
            .flat_map(|agent| &agent.accounts)
            .map(|account| account.login.as_str())
            .collect();
        logins.into_iter().map(String::from).collect()
    }

    /// Scrubs every text read from a file (`crate::scrub`): names, descriptions, first lines,
    /// commands, grants, logins.
    pub fn scrub(&mut self) {
        let scrub = |text: &mut String| {
            crate::scrub::scrub_in_place(text);
        };
        for agent in self.homes.iter_mut().flat_map(|home| &mut home.agents) {
            for server in &mut agent.mcp_servers {
                [&mut server.name, &mut server.config.command, &mut server.config.url_host].into_iter().for_each(scrub);
                server
                    .config
                    .tools
                    .iter_mut()
                    .flatten()
                    .chain(server.tools_used.iter_mut().map(|tool| &mut tool.name))
                    .for_each(scrub);
            }
            let files = agent.skills.iter_mut().map(|skill| &mut skill.file);
            for file in files.chain(agent.custom_agents.iter_mut().map(|agent| &mut agent.file)) {
                [&mut file.name, &mut file.description.description].into_iter().for_each(scrub);
            }
            agent.instructions.iter_mut().map(|file| &mut file.first_line).for_each(scrub);
            for plugin in &mut agent.plugins {
                [&mut plugin.name, &mut plugin.version, &mut plugin.description.description, &mut plugin.marketplace]
                    .into_iter()
                    .for_each(scrub);
            }
            agent
                .permission_grants
                .iter_mut()
                .flat_map(|grant| [&mut grant.list, &mut grant.entry, &mut grant.words])
                .for_each(scrub);
            agent.accounts.iter_mut().flat_map(|account| [&mut account.host, &mut account.login]).for_each(scrub);
            agent.tools.iter_mut().map(|tool| &mut tool.name).for_each(scrub);
            agent.models.iter_mut().map(|model| &mut model.model).for_each(scrub);
        }
    }
}

pub type ModifiedTime<'a> = &'a dyn Fn(usize, &str) -> String;

/// An agent's own MCP servers, by the agent's name (`Source::built_in_mcp_servers`).
pub type BuiltInServers<'a> = &'a dyn Fn(&str) -> &'static [&'static str];

/// Builds the inventory of each home, given as `(label, facts by agent)` in the analysis's
/// order, from its sessions and facts: one part per agent found in the home.
pub fn build<'a>(
    homes: impl Iterator<Item = (&'a str, &'a BTreeMap<&'static str, HomeFacts>)>,
    sessions: &BTreeMap<String, SessionFacts>,
    records: &BTreeMap<String, SessionRecord>,
    modified: ModifiedTime<'_>,
    built_in: BuiltInServers<'_>,
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
                    agent_inventory(agent, facts, &in_home, &|path| modified(index, path), built_in(agent))
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
    modified: &dyn Fn(&str) -> String,
    built_in: &[&str],
) -> AgentInventory {
    let mut projects: BTreeMap<(&str, &str), Project> = BTreeMap::new();
    let mut scratch: BTreeMap<&str, u64> = BTreeMap::new();
    let mut models: BTreeMap<&str, u64> = BTreeMap::new();
    for (session, record) in sessions {
        for worktree in session.worktrees() {
            *scratch.entry(worktree).or_default() += 1;
        }
        if let Some(directory) = session.scratch_directory() {
            *scratch.entry(directory).or_default() += 1;
        } else if !record.project_path.is_empty() && !session.is_worktree(&record.project_path) {
            let first = if record.first_event.is_empty() { &record.created_at } else { &record.first_event };
            let last = if record.last_event.is_empty() { &record.updated_at } else { &record.last_event };
            let key = (record.project_path.as_str(), record.remote.as_str());
            let project = projects.entry(key).or_insert_with(|| Project {
                path: record.project_path.clone(),
                remote: record.remote.clone(),
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
    let plugin_names = PluginNames::of(&facts.plugins);
    let mut grants = facts.grants.clone();
    order::sort(&mut grants);
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
        tools: tool_uses(&facts.tools),
        mcp_servers: mcp_servers(facts, &plugin_names, built_in),
        skills: skills(facts, &plugin_names, modified),
        custom_agents: custom_agents(facts, &plugin_names, modified),
        instructions: facts
            .instruction_files
            .iter()
            .map(|file| Instructions {
                path: file.path.clone(),
                first_line: file.first_line.clone(),
                bytes: file.bytes,
                modified: modified(&file.path),
            })
            .collect(),
        plugins: plugins(facts, &plugin_names, modified),
        permission_grants: grants,
        accounts: facts
            .accounts
            .iter()
            .map(|(host, login)| Account { host: host.clone(), login: login.clone() })
            .collect(),
    }
}

fn tool_uses(tools: &BTreeMap<String, ToolTally>) -> Vec<ToolUse> {
    tools.iter().map(|(name, t)| ToolUse { name: name.clone(), calls: t.calls, failures: t.failures }).collect()
}

/// Plugins' names by their folder: the manifest's name, else the folder's.
struct PluginNames<'a>(BTreeMap<&'a str, &'a str>);

impl<'a> PluginNames<'a> {
    fn of(plugins: &'a [PluginManifest]) -> Self {
        PluginNames(plugins.iter().map(|plugin| (plugin.root.as_str(), plugin.name.as_str())).collect())
    }

    fn name(&self, root: Option<&str>) -> Option<String> {
        let root = root?;
        let named = self.0.get(root).copied().filter(|name| !name.is_empty());
        Some(named.unwrap_or_else(|| root.rsplit('/').next().unwrap_or(root)).to_string())
    }
}

/// One server per name: the first configuration (in path order) describes it, every file
/// naming it is listed; the logs' calls and starts are joined by name.
fn mcp_servers(facts: &HomeFacts, plugins: &PluginNames<'_>, built_in: &[&str]) -> Vec<McpServer> {
    let mut servers: BTreeMap<&str, McpServer> = BTreeMap::new();
    let unconfigured = |name: &str| McpServer {
        name: name.to_string(),
        configured_in: Vec::new(),
        plugin: None,
        config: ServerConfig::default(),
        calls: 0,
        failures: 0,
        last_used: String::new(),
        tools_used: Vec::new(),
        connected: 0,
        failed_to_start: 0,
        verdict: ServerVerdict::UsedNotConfigured,
    };
    for configured in &facts.mcp_configured {
        let server = servers.entry(&configured.name).or_insert_with(|| McpServer {
            plugin: plugins.name(configured.plugin_root.as_deref()),
            config: configured.config.clone(),
            ..unconfigured(&configured.name)
        });
        if !server.configured_in.contains(&configured.configured_in) {
            server.configured_in.push(configured.configured_in.clone());
        }
    }
    for (name, tools) in &facts.mcp_calls {
        let server = servers.entry(name).or_insert_with(|| unconfigured(name));
        server.tools_used = tool_uses(tools);
        server.calls = tools.values().map(|tally| tally.calls).sum();
        server.failures = tools.values().map(|tally| tally.failures).sum();
        server.last_used = last_used(tools.values().filter_map(|tally| tally.last_ms).max());
    }
    for (name, seen) in &facts.mcp_from_logs {
        let server = servers.entry(name).or_insert_with(|| unconfigured(name));
        server.connected += seen.connected;
        server.failed_to_start += seen.failed;
    }
    servers
        .into_values()
        .map(|mut server| {
            server.verdict = server.verdict(built_in.contains(&server.name.as_str()));
            server
        })
        .collect()
}

impl McpServer {
    /// Its verdict from its configurations, calls and starts. A configured server that was
    /// called is used whatever its failed starts; one that only ever failed to start says so.
    fn verdict(&self, built_in: bool) -> ServerVerdict {
        let only_failed = self.calls == 0 && self.connected == 0 && self.failed_to_start > 0;
        match (self.configured_in.is_empty(), self.calls) {
            (_, 0) if only_failed => ServerVerdict::FailedToStart,
            (true, _) if built_in => ServerVerdict::BuiltIn,
            (true, _) => ServerVerdict::UsedNotConfigured,
            (false, 0) => ServerVerdict::ConfiguredNeverUsed,
            (false, _) => ServerVerdict::ConfiguredAndUsed,
        }
    }
}

/// A last use as the inventory shows it: UTC, empty when there is none.
fn last_used(at_ms: Option<i64>) -> String {
    at_ms.map(crate::time::format_millis).unwrap_or_default()
}

/// Skills by name (then path); a skill's invocations go to the first file of its name, since
/// `skill.invoked` names it as the session saw it. Invoked skills with no file are listed too.
fn skills(facts: &HomeFacts, plugins: &PluginNames<'_>, modified: &dyn Fn(&str) -> String) -> Vec<Skill> {
    let mut files: Vec<&CustomizationFile> = facts.skill_files.iter().collect();
    order::sort_by(&mut files, |a, b| (&a.name, &a.path).cmp(&(&b.name, &b.path)));
    let mut skills = Vec::new();
    let mut joined: BTreeSet<&str> = BTreeSet::new();
    for file in files {
        let uses = if joined.insert(&file.name) { facts.skill_uses.get(&file.name).copied() } else { None };
        skills.push(Skill::of(FileShown::of(file, plugins, modified), uses.unwrap_or_default()));
    }
    for (name, uses) in facts.skill_uses.iter().filter(|(name, _)| !joined.contains(name.as_str())) {
        skills.push(Skill::of(FileShown { name: name.clone(), ..FileShown::default() }, *uses));
    }
    order::sort_by(&mut skills, |a, b| (&a.file.name, &a.file.path).cmp(&(&b.file.name, &b.file.path)));
    skills
}

impl Skill {
    /// A skill's file (no path: not found) and its invocations, with the verdict they give.
    fn of(file: FileShown, uses: SkillUse) -> Skill {
        let invocations = uses.by_person + uses.by_model;
        let verdict = match (file.path.is_empty(), invocations) {
            (true, _) => SkillVerdict::UsedNotFound,
            (false, 0) => SkillVerdict::NeverUsed,
            (false, _) => SkillVerdict::Used,
        };
        let last_used = last_used(uses.last_ms);
        Skill { file, invocations, by_person: uses.by_person, by_model: uses.by_model, last_used, verdict }
    }
}

fn custom_agents(facts: &HomeFacts, plugins: &PluginNames<'_>, modified: &dyn Fn(&str) -> String) -> Vec<CustomAgent> {
    let mut agents: Vec<CustomAgent> = facts
        .agent_files
        .iter()
        .map(|file| CustomAgent {
            file: FileShown::of(file, plugins, modified),
            uses: facts.agent_uses.get(&file.name).copied().unwrap_or_default(),
        })
        .collect();
    order::sort_by(&mut agents, |a, b| (&a.file.name, &a.file.path).cmp(&(&b.file.name, &b.file.path)));
    agents
}

fn plugins(facts: &HomeFacts, plugins: &PluginNames<'_>, modified: &dyn Fn(&str) -> String) -> Vec<Plugin> {
    let brought = |root: &str, files: &[CustomizationFile]| -> Vec<String> {
        let names: BTreeSet<&str> = files
            .iter()
            .filter(|file| file.plugin_root.as_deref() == Some(root))
            .map(|file| file.name.as_str())
            .collect();
        names.into_iter().map(str::to_string).collect()
    };
    let mut list: Vec<Plugin> = facts
        .plugins
        .iter()
        .map(|manifest| {
            let servers: BTreeSet<&str> = facts
                .mcp_configured
                .iter()
                .filter(|server| server.plugin_root.as_deref() == Some(manifest.root.as_str()))
                .map(|server| server.name.as_str())
                .collect();
            Plugin {
                name: plugins.name(Some(&manifest.root)).unwrap_or_default(),
                version: manifest.version.clone(),
                description: manifest.description.clone(),
                marketplace: manifest.marketplace.clone(),
                path: manifest.root.clone(),
                skills: brought(&manifest.root, &facts.skill_files),
                custom_agents: brought(&manifest.root, &facts.agent_files),
                mcp_servers: servers.into_iter().map(str::to_string).collect(),
                modified: modified(&manifest.manifest),
            }
        })
        .collect();
    order::sort_by(&mut list, |a, b| (&a.name, &a.path).cmp(&(&b.name, &b.path)));
    list
}
