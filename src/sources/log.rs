//! What every source's event-log importer takes and gives (`Source::parse_log`): the context a
//! log's rows need from the other files, and what a log says beyond its rows (the accounting
//! of every line, the session summary, tools, MCP servers, skills, usage: `crate::facts::log`),
//! and what a usage-only scan of it found; the line loop and bad-line text every source uses.

use std::collections::BTreeMap;
use std::io::BufRead;

use crate::facts::log::{LineAccount, LogProblem, LogSummary, McpCalls, SkillUse, ToolTally};
use crate::lines::{Line, LineReader, LinesEnd};
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
    /// The program the session was run from, as its record says (its rows' `client_name`).
    pub client_name: &'a str,
    pub include_thinking: bool,
    /// For usage accounting: the zone days are counted in, and the long-context thresholds.
    pub zone: Zone,
    pub rates: &'a RateTable,
    /// The log's index among the analysis's files, for row locators.
    pub file: u32,
}

#[cfg(test)]
impl<'a> LogContext<'a> {
    /// A test's log of `agent` at `source` in session `s`, days in UTC, no fallbacks, no thinking.
    pub fn of_test(agent: &'static str, source: &'a str, rates: &'a RateTable) -> Self {
        LogContext {
            agent,
            session_id: "s",
            session_id_from_log: false,
            source,
            fallback_project: "",
            fallback_branch: "",
            client_name: "",
            include_thinking: false,
            zone: Zone::Utc,
            rates,
            file: 0,
        }
    }
}

/// What a log says about its session beyond its rows (kept in the cache: `crate::cache`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct LogOutcome {
    pub account: LineAccount,
    pub summary: LogSummary,
    pub tools: BTreeMap<String, ToolTally>,
    /// Calls of MCP servers' tools, by server and tool.
    pub mcp_calls: McpCalls,
    /// `skill.invoked`, by skill name.
    pub skill_uses: BTreeMap<String, SkillUse>,
    /// Custom agents run as sub-agents or selected, by agent name.
    pub agent_uses: BTreeMap<String, u64>,
    /// Set when reading stopped early (an I/O error); the lines before it are still counted.
    pub read_error: Option<String>,
    /// What the report must say of the log beyond its line account (a log that cannot be
    /// replayed, a line that could not be applied).
    pub problems: Vec<LogProblem>,
    /// The session's usage from its checkpoints and per-call records (not yet finished).
    pub usage: Option<SessionLedger>,
}

/// Where a parse of a log stopped, at a line's end, and its parser's state there, in the
/// source's own form (`Source::parse_log_resumable`): a parse of the log grown goes on from it
/// (`Source::resume_log`). Kept in the log's cache entry (`crate::cache`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LogEnd {
    pub at: LinesEnd,
    pub state: Vec<u8>,
}

/// What a usage-only scan of a log read and parsed (`Source::scan_usage`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// The one line loop of every log importer: each line of the log to `each`, in order. A read
/// error ends it and is returned (the outcome's `read_error`); the lines before it still count.
pub fn each_line<R: BufRead>(lines: &mut LineReader<R>, mut each: impl FnMut(&Line<'_>)) -> Option<String> {
    loop {
        match lines.next_line() {
            Ok(Some(line)) => each(&line),
            Ok(None) => return None,
            Err(error) => return Some(error.to_string()),
        }
    }
}

/// The longest bad line quoted whole, for every source; longer ones keep this prefix and their
/// length.
const BAD_LINE_QUOTE_BYTES: usize = 64 << 10;

/// The row text of a line that cannot be read, for every source: why, and the line's start up
/// to `BAD_LINE_QUOTE_BYTES`, with the line's length when it is quoted in part.
pub fn bad_line_text(line: &Line<'_>, reason: &str) -> String {
    let quoted = &line.bytes[..line.bytes.len().min(BAD_LINE_QUOTE_BYTES)];
    let mut text = format!("parser: unparseable line ({reason}): {}", String::from_utf8_lossy(quoted));
    if quoted.len() < line.bytes.len() || line.is_cut() {
        text.push_str(&format!(" [... {} bytes in all]", line.full_len));
    }
    text
}
