//! Session records (`sessions.jsonl`): what every source says about one session id, joined.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::model::{Row, RowMark, TurnType};
use crate::sources::copilot_cli::store::StoreSession;
use crate::sources::log::LogSummary;
use crate::time;
use crate::usage::ledger::SessionLedger;
use crate::usage::summary::SessionUsage;

/// Row counts of one session, from the rows as they are emitted (after deduplication).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SessionCounts {
    pub prompts: u64,
    pub replies: u64,
    pub tool_calls: u64,
    pub failed_tool_calls: u64,
    pub permission_requests: u64,
    pub denials: u64,
    pub bad_lines: u64,
}

impl SessionCounts {
    pub fn observe(&mut self, row: &Row<'_>) {
        match row.turn_type {
            TurnType::User => self.prompts += 1,
            TurnType::Assistant => self.replies += 1,
            TurnType::ToolUse => self.tool_calls += 1,
            _ => {}
        }
        match row.mark {
            RowMark::FailedToolResult => self.failed_tool_calls += 1,
            RowMark::PermissionRequest => self.permission_requests += 1,
            RowMark::PermissionDenied => self.denials += 1,
            RowMark::BadLine => self.bad_lines += 1,
            _ => {}
        }
    }

    pub fn add(&mut self, other: &SessionCounts) {
        self.prompts += other.prompts;
        self.replies += other.replies;
        self.tool_calls += other.tool_calls;
        self.failed_tool_calls += other.failed_tool_calls;
        self.permission_requests += other.permission_requests;
        self.denials += other.denials;
        self.bad_lines += other.bad_lines;
    }
}

/// workspace.yaml as the session record uses it.
#[derive(Clone, Debug, Default)]
pub struct WorkspaceFacts {
    pub name: String,
    pub cwd: String,
    pub client_name: String,
    pub created_at: String,
    pub updated_at: String,
    pub synced: bool,
}

/// vscode.metadata.json (written by VS Code's Copilot Chat into a session it runs) as the
/// session record and the inventory use it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VscodeMetadataFacts {
    /// `customTitle`: the name the person sees in VS Code.
    pub title: String,
    /// The repository (or workspace folder) and branch: the project's fallback.
    pub repository: String,
    /// The remote machine the repository is on (`ssh-remote+mybox`), if it is remote.
    pub remote: String,
    pub branch: String,
    /// The git worktrees VS Code made for the session: scratch directories of the agent.
    pub worktrees: Vec<String>,
}

/// What a session's folder holds beside its log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionFolder {
    pub plan: Option<String>,
    pub artifacts: Vec<String>,
    pub checkpoint_titles: Vec<String>,
}

/// Everything known of one session id, from every source.
#[derive(Clone, Debug, Default)]
pub struct SessionFacts {
    /// The agent whose session it is.
    pub agent: &'static str,
    /// Homes the session was found in.
    pub homes: BTreeSet<usize>,
    /// Which kinds of source name it.
    pub found_in: BTreeSet<&'static str>,
    // Boxed: most sessions lack some of these, and thousands of records wait for the end.
    pub workspace: Option<Box<WorkspaceFacts>>,
    pub store: Option<Box<StoreSession>>,
    pub sidebar_cwd: Option<String>,
    pub vscode_metadata: Option<Box<VscodeMetadataFacts>>,
    pub log: Option<Box<LogSummary>>,
    /// Versions of the process logs that served the session.
    pub process_versions: BTreeSet<String>,
    pub counts: SessionCounts,
    /// The title VS Code's index of chat sessions (`state.vscdb`) gives it.
    pub index_title: Option<String>,
    /// The session folder's `plan.md`, its artifacts (`files/`) and checkpoint titles.
    pub folder: Option<Box<SessionFolder>>,
    /// The log's usage ledger, until the analysis closes it.
    pub usage: Option<SessionLedger>,
}

impl SessionFacts {
    /// The project before the log is read: workspace.yaml, then the store, then VS Code's
    /// metadata, then the sidebar.
    pub fn fallback_project(&self) -> &str {
        let workspace = self.workspace.as_ref().map(|w| w.cwd.as_str());
        let store = self.store.as_ref().map(|s| s.cwd.as_str());
        let vscode = self.vscode_metadata.as_ref().map(|v| v.repository.as_str());
        [workspace, store, vscode, self.sidebar_cwd.as_deref()]
            .into_iter()
            .flatten()
            .find(|cwd| !cwd.is_empty())
            .unwrap_or_default()
    }

    /// The branch before the log is read: the store's, then VS Code's metadata.
    pub fn fallback_branch(&self) -> &str {
        let store = self.store.as_ref().map(|s| s.branch.as_str());
        let vscode = self.vscode_metadata.as_ref().map(|v| v.branch.as_str());
        [store, vscode].into_iter().flatten().find(|branch| !branch.is_empty()).unwrap_or_default()
    }

    /// "latest context.cwd, else workspace.yaml cwd, else sessions.cwd, else sidebar".
    pub fn project(&self) -> &str {
        self.log.as_ref().and_then(|log| log.project.as_deref()).unwrap_or_else(|| self.fallback_project())
    }

    /// The remote machine the project is on (`ssh-remote+mybox`), empty when it is local: the
    /// log's (a VS Code chat's folder), else VS Code's metadata's when its folder is the project.
    pub fn remote(&self) -> &str {
        let log = self.log.as_ref().and_then(|log| log.remote.as_deref());
        let vscode = self.vscode_metadata.as_ref().filter(|v| !v.remote.is_empty() && v.repository == self.project());
        log.or(vscode.map(|v| v.remote.as_str())).unwrap_or_default()
    }

    pub fn branch(&self) -> &str {
        self.log.as_ref().and_then(|log| log.branch.as_deref()).unwrap_or_else(|| self.fallback_branch())
    }

    /// Takes the usage of one of the session's logs at its end; of two copies of a log (two
    /// roots), the more complete counts.
    pub fn add_log_usage(&mut self, mut ledger: SessionLedger) {
        ledger.log_ended();
        self.usage = Some(match self.usage.take() {
            Some(earlier) => earlier.keep_more_complete(ledger),
            None => ledger,
        });
    }

    /// Whether its session log was read (`events.jsonl`, a VS Code chat session).
    pub fn has_events_log(&self) -> bool {
        self.found_in.iter().any(|found_in| crate::sources::found_in_log(found_in))
    }

    pub fn is_synced(&self) -> bool {
        self.workspace.as_ref().is_some_and(|w| w.synced)
    }

    /// A session the Copilot Desktop app pre-created and never prompted: its directory is
    /// a scratch directory of the agent, not a project.
    pub fn scratch_directory(&self) -> Option<&str> {
        let cwd = self.workspace.as_ref().map(|w| w.cwd.as_str()).filter(|cwd| !cwd.is_empty())?;
        self.is_precreated_unused().then_some(cwd)
    }

    /// A session folder with a workspace.yaml and no log: made ahead (Copilot Desktop makes
    /// several) and never prompted.
    pub fn is_precreated_unused(&self) -> bool {
        self.workspace.is_some() && !self.has_events_log()
    }

    /// The session folder's files beside the log, made on first use.
    pub fn folder_mut(&mut self) -> &mut SessionFolder {
        self.folder.get_or_insert_with(Default::default)
    }

    /// The git worktrees VS Code made for the session (vscode.metadata.json).
    pub fn vscode_worktrees(&self) -> &[String] {
        self.vscode_metadata.as_ref().map_or(&[], |v| v.worktrees.as_slice())
    }

    /// Whether `path` is one of the session's VS Code worktrees (Windows paths compared
    /// without case: VS Code writes `c:\`, the CLI `C:\`).
    pub fn is_vscode_worktree(&self, path: &str) -> bool {
        let windows = |p: &str| p.contains('\\') || p.as_bytes().get(1) == Some(&b':');
        self.vscode_worktrees().iter().any(|w| w == path || (windows(path) && w.eq_ignore_ascii_case(path)))
    }

    /// A new session of `agent`.
    pub fn of(agent: &'static str) -> SessionFacts {
        SessionFacts { agent, ..SessionFacts::default() }
    }

    pub fn record(&self, session_id: &str) -> SessionRecord {
        let workspace = self.workspace.clone().unwrap_or_default();
        let store = self.store.clone().unwrap_or_default();
        let log = self.log.clone().unwrap_or_default();
        let folder = self.folder.as_deref().cloned().unwrap_or_default();
        let or = |first: &str, second: &str| {
            if first.is_empty() { second.to_string() } else { first.to_string() }
        };
        let models = log.models_or_chosen();
        // A session no reply came to (the provider refused the model) names the model chosen.
        let models_never_used =
            if models.is_empty() { log.chosen_models.iter().cloned().collect() } else { Vec::new() };
        // VS Code's title first: it is the name the person sees there.
        let title = self.vscode_metadata.as_ref().map_or("", |v| v.title.as_str());
        SessionRecord {
            agent: self.agent,
            session_id: session_id.to_string(),
            name: [title, &workspace.name, &store.summary, log.title.as_deref().unwrap_or_default()]
                .into_iter()
                .chain(self.index_title.as_deref())
                .find(|name| !name.is_empty())
                .unwrap_or_default()
                .to_string(),
            project_path: self.project().to_string(),
            remote: self.remote().to_string(),
            git_branch: self.branch().to_string(),
            client_name: workspace.client_name,
            created_at: match or(&workspace.created_at, &store.created_at) {
                known if !known.is_empty() => time::normalize(&known).into_owned(),
                _ => log.created_ms.map(time::format_millis).unwrap_or_default(),
            },
            updated_at: time::normalize(&or(&workspace.updated_at, &store.updated_at)).into_owned(),
            first_event: log.first_event_ms.map(time::format_millis).unwrap_or_default(),
            last_event: log.last_event_ms.map(time::format_millis).unwrap_or_default(),
            copilot_version: log.copilot_version.or_else(|| self.process_versions.last().cloned()).unwrap_or_default(),
            counts: self.counts,
            models,
            models_never_used,
            shutdown: log.shutdown_type.unwrap_or_else(|| "none".into()),
            synced: self.is_synced(),
            events_log: self.has_events_log(),
            found_in: self.found_in.iter().copied().collect(),
            homes: Vec::new(),
            precreated_unused: self.is_precreated_unused(),
            plan: folder.plan,
            artifacts: folder.artifacts,
            checkpoint_titles: folder.checkpoint_titles,
            usage: None,
        }
    }
}

impl SessionRecord {
    /// Scrubs the texts read from the session's files (`crate::scrub`).
    pub fn scrub(&mut self) {
        let texts = [&mut self.name, &mut self.client_name].into_iter().chain(self.plan.as_mut());
        texts.chain(&mut self.artifacts).chain(&mut self.checkpoint_titles).for_each(|text| {
            crate::scrub::scrub_in_place(text);
        });
    }
}

/// One line of sessions.jsonl.
#[derive(Clone, Debug, Serialize)]
pub struct SessionRecord {
    pub agent: &'static str,
    pub session_id: String,
    pub name: String,
    pub project_path: String,
    /// The remote machine the project is on (`ssh-remote+mybox`, `wsl+Ubuntu`: a VS Code
    /// remote folder's); absent when it is local.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub remote: String,
    pub git_branch: String,
    pub client_name: String,
    pub created_at: String,
    pub updated_at: String,
    pub first_event: String,
    pub last_event: String,
    pub copilot_version: String,
    #[serde(flatten)]
    pub counts: SessionCounts,
    pub models: Vec<String>,
    /// The models chosen for a session whose calls never answered (none in `models`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models_never_used: Vec<String>,
    /// `shutdownType` of the last shutdown, or `none`.
    pub shutdown: String,
    pub synced: bool,
    /// Whether its events.jsonl exists; a session known only from other sources was deleted.
    pub events_log: bool,
    pub found_in: Vec<&'static str>,
    /// The homes (by label) that hold it: more than one when it was given twice.
    pub homes: Vec<String>,
    /// A session folder made ahead and never prompted (a workspace.yaml and no log).
    pub precreated_unused: bool,
    /// `plan.md`, whole.
    pub plan: Option<String>,
    /// The names of its artifacts, below `files/`.
    pub artifacts: Vec<String>,
    /// The titles of its compaction checkpoints (`checkpoints/index.md`).
    pub checkpoint_titles: Vec<String>,
    /// Tokens and cost, with what they rest on; absent for a session no source counts.
    pub usage: Option<SessionUsage>,
}
