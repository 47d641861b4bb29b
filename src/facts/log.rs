//! What a session log says beyond its rows, whatever its source: the account of every line,
//! the session summary, the tool, MCP and skill tallies, and its problems.

use std::collections::{BTreeMap, BTreeSet};

use super::diagnostics::DiagnosticKind;
use crate::lines::Line;

/// What the session record takes from a log.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LogSummary {
    /// The session id the log names, when it was read alone (`LogContext::session_id_from_log`).
    pub session_id: Option<String>,
    /// Earliest and latest line timestamps, as epoch milliseconds.
    pub first_event_ms: Option<i64>,
    pub last_event_ms: Option<i64>,
    pub copilot_version: Option<String>,
    /// The session's title as the log names it (VS Code's `customTitle`).
    pub title: Option<String>,
    /// The first prompt's first line, cut (`prompt_line`): what names a session that has no title.
    pub first_prompt: Option<String>,
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
        // The imported history came before the log.
        self.first_prompt = imported.first_prompt.or(self.first_prompt.take());
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
        longer.first_prompt = longer.first_prompt.or(shorter.first_prompt);
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

/// The longest first prompt shown, in characters.
pub const PROMPT_LINE_CHARS: usize = 80;
/// The first prompt's line is kept this much longer until it is scrubbed, so that a secret
/// crossing the cut is whole when the scrubber reads it (a cut one may no longer look like one).
const PROMPT_KEPT_CHARS: usize = PROMPT_LINE_CHARS + 1024;

impl LogSummary {
    /// Notes a prompt's text: the first line of the first one that says something names the
    /// session (cut for showing by `cut_prompt_line` once scrubbed).
    pub fn note_prompt(&mut self, text: &str) {
        if self.first_prompt.is_none()
            && let Some(line) = text.lines().map(str::trim).find(|line| !line.is_empty())
        {
            self.first_prompt = Some(cut_at(line, PROMPT_KEPT_CHARS).to_string());
        }
    }
}

/// A text's first `chars` characters.
fn cut_at(text: &str, chars: usize) -> &str {
    text.char_indices().nth(chars).map_or(text, |(cut, _)| &text[..cut])
}

/// A scrubbed first prompt as it is shown: cut at `PROMPT_LINE_CHARS`, with `…` where it was.
pub fn cut_prompt_line(line: &mut String) {
    let cut = cut_at(line, PROMPT_LINE_CHARS);
    if cut.len() < line.len() {
        *line = format!("{}…", cut.trim_end());
    }
}

/// The most kinds of unknown event a log's account (and a version's drift) names: a hostile
/// log could hold millions.
pub const UNKNOWN_TYPES_NAMED: usize = 64;
/// What the kinds past them are counted as.
pub const OTHER_TYPES: &str = "(others)";

/// Adds `lines` of the unknown kind `name` to `types`, under `OTHER_TYPES` once
/// `UNKNOWN_TYPES_NAMED` others are named.
pub fn count_unknown_type(types: &mut BTreeMap<String, u64>, name: std::borrow::Cow<'_, str>, lines: u64) {
    if let Some(counted) = types.get_mut(name.as_ref()) {
        *counted += lines;
    } else if types.len() < UNKNOWN_TYPES_NAMED {
        types.insert(name.into_owned(), lines);
    } else {
        *types.entry(OTHER_TYPES.to_string()).or_default() += lines;
    }
}

/// How every line of a log was used; the parts add up to `lines`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LineAccount {
    pub lines: u64,
    pub with_rows: u64,
    /// Lines of known types that give no row, by type (`<blank>` for empty lines).
    pub skipped_by_rule: BTreeMap<String, u64>,
    pub unknown_types: BTreeMap<String, u64>,
    pub bad_lines: u64,
}

impl LineAccount {
    /// Counts a line of a type this version does not read. Its name comes from the input and is
    /// shown (report.json, the Diagnostics view): scrubbed here, where it is first kept, and past
    /// [`UNKNOWN_TYPES_NAMED`] names counted as `(others)`.
    pub fn unknown_type(&mut self, kind: &str) {
        count_unknown_type(&mut self.unknown_types, crate::scrub::scrub_cow(kind).0, 1);
    }

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
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ToolTally {
    pub calls: u64,
    pub failures: u64,
    /// When it was last called (epoch milliseconds), where a call's line is dated.
    pub last_ms: Option<i64>,
}

impl ToolTally {
    /// Counts a call at a time (none when its line is undated).
    pub fn call(&mut self, at_ms: Option<i64>) {
        self.calls += 1;
        self.last_ms = self.last_ms.max(at_ms);
    }

    /// Adds another tally of the same tool into this one.
    pub fn add(&mut self, other: &ToolTally) {
        self.calls += other.calls;
        self.failures += other.failures;
        self.last_ms = self.last_ms.max(other.last_ms);
    }
}

/// Tool calls of each MCP server, by server then tool.
pub type McpCalls = BTreeMap<String, BTreeMap<String, ToolTally>>;

/// Adds one MCP call tally into another.
pub fn add_mcp_calls(into: &mut McpCalls, from: &McpCalls) {
    for (server, tools) in from {
        let server = into.entry(server.clone()).or_default();
        for (tool, tally) in tools {
            server.entry(tool.clone()).or_default().add(tally);
        }
    }
}

/// Who chose the skills invoked: the person (a `/skill` prompt) or the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SkillUse {
    pub by_person: u64,
    pub by_model: u64,
    /// When it was last invoked (epoch milliseconds), where an invocation's line is dated.
    pub last_ms: Option<i64>,
}

impl SkillUse {
    /// Adds another tally of the same skill into this one.
    pub fn add(&mut self, other: &SkillUse) {
        self.by_person += other.by_person;
        self.by_model += other.by_model;
        self.last_ms = self.last_ms.max(other.last_ms);
    }
}

/// A problem of a log for the report, at a line when there is one.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LogProblem {
    pub line: Option<u64>,
    pub kind: DiagnosticKind,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_names_a_session_by_its_first_line_that_says_something_cut_once_scrubbed() {
        let first = |texts: &[&str]| {
            let mut summary = LogSummary::default();
            texts.iter().for_each(|text| summary.note_prompt(text));
            summary.first_prompt
        };
        assert_eq!(first(&["\n  \n  fix the build  \nthen test"]).as_deref(), Some("fix the build"));
        assert_eq!(first(&[" \n\t", "first", "second"]).as_deref(), Some("first"), "an empty prompt names nothing");
        // A secret across the cut is kept whole for the scrubber, then the line is cut.
        let secret = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
        let mut line = first(&[&format!("{}{secret} and more", "x ".repeat(36))]).unwrap();
        assert!(line.contains(secret));
        crate::scrub::scrub_in_place(&mut line);
        cut_prompt_line(&mut line);
        assert_eq!(
            line,
            format!("{}[redacted] and more", "x ".repeat(36)).chars().take(PROMPT_LINE_CHARS).collect::<String>() + "…"
        );
        let mut short = "é".repeat(PROMPT_LINE_CHARS);
        cut_prompt_line(&mut short);
        assert_eq!(short, "é".repeat(PROMPT_LINE_CHARS), "a line that fits is whole");
    }

    #[test]
    fn unknown_types_are_named_scrubbed_and_at_most_so_many() {
        let mut account = LineAccount::default();
        let token = format!("ghp_{}", "A1b2C3d4".repeat(5));
        account.unknown_type(&token);
        account.unknown_type(&token);
        for n in 0..100 {
            account.unknown_type(&format!("session.kind_{n}"));
        }
        assert_eq!(account.unknown_types.get("[redacted]"), Some(&2), "{:?}", account.unknown_types.keys());
        assert_eq!(account.unknown_types.len(), UNKNOWN_TYPES_NAMED + 1);
        assert_eq!(account.unknown_types.get(OTHER_TYPES), Some(&(100 - (UNKNOWN_TYPES_NAMED as u64 - 1))));
        assert_eq!(account.unknown_types.values().sum::<u64>(), 102, "every line counted");
    }
}
