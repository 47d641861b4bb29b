//! What a session log says beyond its rows, whatever its source: the account of every line,
//! the session summary, the tool, MCP and skill tallies, and its problems.

use std::collections::{BTreeMap, BTreeSet};

use super::diagnostics::DiagnosticKind;
use crate::lines::Line;

/// What the session record takes from a log.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LogSummary {
    /// The session id the log names, when it was read alone (`LogContext::session_id_from_log`).
    pub session_id: Option<String>,
    /// Earliest and latest line timestamps, as epoch milliseconds.
    pub first_event_ms: Option<i64>,
    pub last_event_ms: Option<i64>,
    pub copilot_version: Option<String>,
    /// The session's title as the log names it (VS Code's `customTitle`).
    pub title: Option<String>,
    /// When the session was created, as the log says (VS Code's `creationDate`).
    pub created_ms: Option<i64>,
    /// The project and branch the log left tracked ("latest context.cwd").
    pub project: Option<String>,
    /// The remote machine the project is on (`ssh-remote+mybox`: a VS Code remote folder).
    pub remote: Option<String>,
    pub branch: Option<String>,
    /// `shutdownType` of the last `session.shutdown`.
    pub shutdown_type: Option<String>,
    pub models: BTreeSet<String>,
    /// Models chosen for the session (at its start or resume, or by a change), used or not.
    pub chosen_models: BTreeSet<String>,
    /// Whether the model answered at all (a reply, named by its model or not).
    pub answered: bool,
    /// Lines of the log the latest facts above come from (the longest copy's, `merge`).
    pub lines: u64,
}

impl LogSummary {
    /// The models that answered: as the calls name them, else (versions before 0.0.4xx name no
    /// model on a reply) the ones chosen, when a reply came. A session no reply came to names
    /// its chosen ones apart (`SessionRecord::models_never_used`).
    pub fn models_or_chosen(&self) -> Vec<String> {
        let models = if self.models.is_empty() && self.answered { &self.chosen_models } else { &self.models };
        models.iter().cloned().collect()
    }

    /// Takes in what a history session imported into the log says: its times, models and
    /// whether a reply came.
    pub fn merge_imported(&mut self, imported: LogSummary) {
        let earliest = [self.first_event_ms, imported.first_event_ms].into_iter().flatten().min();
        let latest = [self.last_event_ms, imported.last_event_ms].into_iter().flatten().max();
        (self.first_event_ms, self.last_event_ms) = (earliest, latest);
        self.created_ms = self.created_ms.or(imported.created_ms);
        self.models.extend(imported.models);
        self.chosen_models.extend(imported.chosen_models);
        self.answered |= imported.answered;
    }

    /// Folds in another copy of the same session's log (in another home): the latest facts
    /// are the longer copy's, the times and models those of both.
    pub fn merge(&mut self, other: LogSummary) {
        let first_event_ms = match (self.first_event_ms, other.first_event_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let last_event_ms = self.last_event_ms.max(other.last_event_ms);
        let (mut longer, shorter) =
            if other.lines > self.lines { (other, std::mem::take(self)) } else { (std::mem::take(self), other) };
        longer.copilot_version = longer.copilot_version.or(shorter.copilot_version);
        longer.title = longer.title.or(shorter.title);
        longer.created_ms = longer.created_ms.or(shorter.created_ms);
        if longer.project.is_none() {
            (longer.project, longer.remote) = (shorter.project, shorter.remote);
        }
        longer.branch = longer.branch.or(shorter.branch);
        longer.shutdown_type = longer.shutdown_type.or(shorter.shutdown_type);
        longer.models.extend(shorter.models);
        longer.chosen_models.extend(shorter.chosen_models);
        longer.answered |= shorter.answered;
        (longer.first_event_ms, longer.last_event_ms) = (first_event_ms, last_event_ms);
        *self = longer;
    }
}

/// How every line of a log was used; the parts add up to `lines`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LineAccount {
    pub lines: u64,
    pub with_rows: u64,
    /// Lines of known types that give no row, by type (`<blank>` for empty lines).
    pub skipped_by_rule: BTreeMap<String, u64>,
    pub unknown_types: BTreeMap<String, u64>,
    pub bad_lines: u64,
}

impl LineAccount {
    /// Counts a line; a blank one (whitespace only, and whole) is counted as skipped by rule,
    /// and false says there is nothing more to read in it.
    pub fn open_line(&mut self, line: &Line<'_>) -> bool {
        self.lines += 1;
        let blank = line.bytes.iter().all(u8::is_ascii_whitespace) && !line.is_cut();
        if blank {
            *self.skipped_by_rule.entry("<blank>".into()).or_default() += 1;
        }
        !blank
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolTally {
    pub calls: u64,
    pub failures: u64,
}

/// Tool calls of each MCP server, by server then tool.
pub type McpCalls = BTreeMap<String, BTreeMap<String, ToolTally>>;

/// Adds one MCP call tally into another.
pub fn add_mcp_calls(into: &mut McpCalls, from: &McpCalls) {
    for (server, tools) in from {
        let server = into.entry(server.clone()).or_default();
        for (tool, tally) in tools {
            let entry = server.entry(tool.clone()).or_default();
            entry.calls += tally.calls;
            entry.failures += tally.failures;
        }
    }
}

/// Who chose the skills invoked: the person (a `/skill` prompt) or the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SkillUse {
    pub by_person: u64,
    pub by_model: u64,
}

/// A problem of a log for the report, at a line when there is one.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LogProblem {
    pub line: Option<u64>,
    pub kind: DiagnosticKind,
    pub message: String,
}
