//! Session records (`sessions.jsonl`): what every source says about one session id, joined.

use serde::Serialize;

use crate::facts::session::{LOG_TITLE_RANK, SessionCounts, SessionFacts};
use crate::time;
use crate::usage::summary::SessionUsage;

impl SessionRecord {
    /// The record of a session from its facts.
    pub fn new(facts: &SessionFacts, session_id: &str) -> SessionRecord {
        let log = facts.log.as_deref().cloned().unwrap_or_default();
        let folder = facts.folder.as_deref().cloned().unwrap_or_default();
        let models = log.models_or_chosen();
        // A session no reply came to (the provider refused the model) names the model chosen.
        let models_never_used =
            if models.is_empty() { log.chosen_models.iter().cloned().collect() } else { Vec::new() };
        let log_title = log.title.as_deref().map(|title| (LOG_TITLE_RANK, title));
        SessionRecord {
            agent: facts.agent,
            session_id: session_id.to_string(),
            name: facts.title.best_with(log_title).to_string(),
            first_prompt: log.first_prompt.clone().unwrap_or_default(),
            given_title: facts.given_title.clone().unwrap_or_default(),
            project_path: facts.project().to_string(),
            remote: facts.remote().to_string(),
            git_branch: facts.branch().to_string(),
            client_name: facts.client_name.best().to_string(),
            created_at: match facts.created_at.best() {
                "" => log.created_ms.map(time::format_millis).unwrap_or_default(),
                known => time::normalize(known).into_owned(),
            },
            updated_at: time::normalize(facts.updated_at.best()).into_owned(),
            first_event: log.first_event_ms.map(time::format_millis).unwrap_or_default(),
            last_event: log.last_event_ms.map(time::format_millis).unwrap_or_default(),
            copilot_version: log.copilot_version.or_else(|| facts.process_versions.last().cloned()).unwrap_or_default(),
            counts: facts.counts,
            models,
            models_never_used,
            shutdown: log.shutdown_type.unwrap_or_else(|| "none".into()),
            synced: facts.is_synced(),
            events_log: facts.has_log,
            found_in: facts.found_in.iter().copied().collect(),
            homes: Vec::new(),
            precreated_unused: facts.is_precreated_unused(),
            plan: folder.plan,
            artifacts: folder.artifacts,
            checkpoint_titles: folder.checkpoint_titles,
            usage: None,
        }
    }

    /// What names the session where it is shown: its name, else its first prompt's line, else
    /// its id.
    pub fn display_name(&self) -> &str {
        [&self.name, &self.first_prompt].into_iter().find(|text| !text.is_empty()).unwrap_or(&self.session_id)
    }

    /// Scrubs the texts read from the session's files (`crate::scrub`).
    pub fn scrub(&mut self) {
        let texts = [&mut self.name, &mut self.first_prompt, &mut self.given_title, &mut self.client_name].into_iter();
        let texts = texts.chain(self.plan.as_mut());
        texts.chain(&mut self.artifacts).chain(&mut self.checkpoint_titles).for_each(|text| {
            crate::scrub::scrub_in_place(text);
        });
        crate::facts::log::cut_prompt_line(&mut self.first_prompt);
    }
}

/// One line of sessions.jsonl.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SessionRecord {
    pub agent: &'static str,
    pub session_id: String,
    pub name: String,
    /// The first prompt's line (`LogSummary::first_prompt`), which names an unnamed session in
    /// the page and the report; not a field of sessions.jsonl.
    #[serde(skip)]
    pub first_prompt: String,
    /// The title the person gave the session (`SessionFacts::given_title`), which the report
    /// shows; empty when the title was made for them. Not a field of sessions.jsonl.
    #[serde(skip)]
    pub given_title: String,
    pub project_path: String,
    /// The remote machine the project is on (`ssh-remote+mybox`, `wsl+Ubuntu`: a VS Code
    /// remote folder's); absent when it is local.
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
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
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
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
