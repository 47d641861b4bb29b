//! What every source's event-log importer takes and gives (`Source::parse_log`): the context a
//! log's rows need from the other files, and what a log says beyond its rows (the accounting
//! of every line, the session summary, tools, MCP servers, skills, usage), and what a usage-only
//! scan of it found.

use std::collections::{BTreeMap, BTreeSet};

use crate::report::DiagnosticKind;
use crate::usage::Zone;
use crate::usage::ledger::SessionLedger;
use crate::usage::rates::RateTable;

/// What one log's rows need from outside the log.
pub struct LogContext<'a> {
    /// The agent whose log it is (its source's).
    pub agent: &'static str,
    /// The session directory's name.
    pub session_id: &'a str,
    /// The log was given alone: `session_id` stands in until the log names its own session.
    pub session_id_from_log: bool,
    /// The log's path relative to the home, for `source`.
    pub source: &'a str,
    /// The project and branch until the log names its own (workspace.yaml, store, sidebar).
    pub fallback_project: &'a str,
    pub fallback_branch: &'a str,
    pub include_thinking: bool,
    /// For usage accounting: the zone days are counted in, and the long-context thresholds.
    pub zone: Zone,
    pub rates: &'a RateTable,
    /// The log's index among the analysis's files, for row locators.
    pub file: u32,
}

/// What the session record takes from a log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogSummary {
    /// The session id the log names, when it was read alone (`LogContext::session_id_from_log`).
    pub session_id: Option<String>,
    /// Earliest and latest line timestamps, as epoch milliseconds.
    pub first_event_ms: Option<i64>,
    pub last_event_ms: Option<i64>,
    pub copilot_version: Option<String>,
    /// The session's title as the log names it (VS Code's `customTitle`).
    pub title: Option<String>,
    /// The project and branch the log left tracked ("latest context.cwd").
    pub project: Option<String>,
    pub branch: Option<String>,
    /// `shutdownType` of the last `session.shutdown`.
    pub shutdown_type: Option<String>,
    pub models: BTreeSet<String>,
    /// Lines of the log the latest facts above come from (the longest copy's, `merge`).
    pub lines: u64,
}

impl LogSummary {
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
        longer.project = longer.project.or(shorter.project);
        longer.branch = longer.branch.or(shorter.branch);
        longer.shutdown_type = longer.shutdown_type.or(shorter.shutdown_type);
        longer.models.extend(shorter.models);
        (longer.first_event_ms, longer.last_event_ms) = (first_event_ms, last_event_ms);
        *self = longer;
    }
}

/// How every line of a log was used; the parts add up to `lines`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LineAccount {
    pub lines: u64,
    pub with_rows: u64,
    /// Lines of known types that give no row, by type (`<blank>` for empty lines).
    pub skipped_by_rule: BTreeMap<String, u64>,
    pub unknown_types: BTreeMap<String, u64>,
    pub bad_lines: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ToolTally {
    pub calls: u64,
    pub failures: u64,
}

/// What a log says about its session beyond its rows.
#[derive(Debug, Default)]
pub struct LogOutcome {
    pub account: LineAccount,
    pub summary: LogSummary,
    pub tools: BTreeMap<String, ToolTally>,
    pub mcp_servers: BTreeSet<String>,
    pub skills: BTreeSet<String>,
    /// Set when reading stopped early (an I/O error); the lines before it are still counted.
    pub read_error: Option<String>,
    /// What the report must say of the log beyond its line account (a log that cannot be
    /// replayed, a line that could not be applied).
    pub problems: Vec<LogProblem>,
    /// The session's usage from its checkpoints and per-call records (not yet finished).
    pub usage: Option<SessionLedger>,
}

/// A problem of a log for the report, at a line when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogProblem {
    pub line: Option<u64>,
    pub kind: DiagnosticKind,
    pub message: String,
}

/// What a usage-only scan of a log read and parsed (`Source::scan_usage`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub bytes: u64,
    /// Lines with counters that were applied.
    pub parsed: u64,
    /// Lines that named a counter type but could not be read.
    pub bad: u64,
    /// Where those lines start, in bytes (their line numbers are counted only when there are
    /// any: counting every line would cost the scan as much as it takes).
    pub bad_offsets: Vec<u64>,
}

impl ScanStats {
    pub fn add(&mut self, other: &ScanStats) {
        self.bytes += other.bytes;
        self.parsed += other.parsed;
        self.bad += other.bad;
    }
}
