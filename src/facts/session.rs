//! Everything known of one session id, from every source. What several files can say of it (its
//! title, project, branch, times) is held as claims: each source ranks its own claims (constants
//! in its folder), and the record takes the best-ranked claim that says something, so no
//! central code decides whose name or project wins.

use std::collections::BTreeSet;

use serde::Serialize;

use super::log::LogSummary;
use crate::model::{Row, RowMark, TurnType};
use crate::usage::ledger::SessionLedger;

/// Where a claim stands among the others of its fact: the lower, the better.
pub type Rank = u8;

/// The rank of the title a session log names (`LogSummary::title`): the sources rank their
/// titles around it. A log's project and branch outrank every claim (the latest it tracked).
pub const LOG_TITLE_RANK: Rank = 40;

/// What the files of a session say of one fact, by rank: one claim a rank, the first made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Claims {
    ranked: Vec<(Rank, String)>,
}

impl Claims {
    /// A file's claim; an empty one still holds its rank (the first file of a kind speaks
    /// for its kind, a later copy of it does not).
    pub fn claim(&mut self, rank: Rank, value: impl Into<String>) {
        if !self.ranked.iter().any(|(held, _)| *held == rank) {
            self.ranked.push((rank, value.into()));
        }
    }

    /// A claim that replaces an earlier one of its rank (the latest index entry names it).
    pub fn claim_latest(&mut self, rank: Rank, value: impl Into<String>) {
        self.ranked.retain(|(held, _)| *held != rank);
        self.ranked.push((rank, value.into()));
    }

    /// The best-ranked claim that is not empty, or empty.
    pub fn best(&self) -> &str {
        self.best_with(None)
    }

    /// The same, with one more claim weighed in (a log's, held apart in its summary).
    pub fn best_with<'a>(&'a self, also: Option<(Rank, &'a str)>) -> &'a str {
        let claims = self.ranked.iter().map(|(rank, value)| (*rank, value.as_str())).chain(also);
        claims.filter(|(_, value)| !value.is_empty()).min_by_key(|(rank, _)| *rank).map_or("", |(_, value)| value)
    }

    /// The claim of one rank, as made.
    pub fn at(&self, rank: Rank) -> Option<&str> {
        self.ranked.iter().find(|(held, _)| *held == rank).map(|(_, value)| value.as_str())
    }
}

/// Row counts of one session, from the rows as they are emitted (after deduplication).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
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

/// What a session's folder holds beside its log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionFolder {
    pub plan: Option<String>,
    pub artifacts: Vec<String>,
    pub checkpoint_titles: Vec<String>,
}

/// The file a program writes when it makes a session, before any prompt (the CLI's
/// `workspace.yaml`), as the first one read says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MadeAhead {
    /// The folder it was made in: a scratch directory of the agent if it was never prompted.
    pub cwd: String,
    pub synced: bool,
}

/// The remote machine a folder is on (`ssh-remote+mybox`), as the first file naming it says:
/// the session's remote when that folder is its project.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FolderRemote {
    pub folder: String,
    pub remote: String,
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
    /// Whether a session log of it was read (`events.jsonl`, a VS Code chat session).
    pub has_log: bool,
    pub title: Claims,
    /// The title the person gave the session (the CLI's `/rename`: workspace.yaml's
    /// `user_named`), as the first file naming it says: a title that quotes no prompt.
    pub given_title: Option<String>,
    /// The project until its log names one (the log's wins).
    pub project: Claims,
    /// The branch until its log names one.
    pub branch: Claims,
    pub created_at: Claims,
    pub updated_at: Claims,
    pub client_name: Claims,
    pub folder_remote: Option<Box<FolderRemote>>,
    pub made_ahead: Option<Box<MadeAhead>>,
    /// The folders the agent made for the session to work in (VS Code's git worktrees), as the
    /// first file naming them says: scratch directories, not projects.
    pub worktrees: Option<Vec<String>>,
    pub log: Option<Box<LogSummary>>,
    /// Versions of the process logs that served the session.
    pub process_versions: BTreeSet<String>,
    pub counts: SessionCounts,
    /// The session folder's `plan.md`, its artifacts (`files/`) and checkpoint titles.
    pub folder: Option<Box<SessionFolder>>,
    /// The log's usage ledger, until the analysis closes it.
    pub usage: Option<Box<SessionLedger>>,
    /// The usage of the session's per-call logs (VS Code's debug logs), added together until
    /// the analysis closes `usage` with them (`take_usage`). Only the full module reads them.
    #[cfg(feature = "extras")]
    pub per_call_usage: Option<Box<SessionLedger>>,
}

impl SessionFacts {
    /// A new session of `agent`.
    pub fn of(agent: &'static str) -> SessionFacts {
        SessionFacts { agent, ..SessionFacts::default() }
    }

    /// The project before the log is read.
    pub fn fallback_project(&self) -> &str {
        self.project.best()
    }

    /// The branch before the log is read.
    pub fn fallback_branch(&self) -> &str {
        self.branch.best()
    }

    /// The program the session was run from, as its rows show it: scrubbed, as every text read
    /// from a file (`crate::scrub`).
    pub fn client_shown(&self) -> String {
        crate::scrub::scrub_cow(self.client_name.best()).0.into_owned()
    }

    /// The latest the log tracked, else the best claim.
    pub fn project(&self) -> &str {
        self.log.as_ref().and_then(|log| log.project.as_deref()).unwrap_or_else(|| self.fallback_project())
    }

    /// The remote machine the project is on (`ssh-remote+mybox`), empty when it is local: the
    /// log's (a VS Code chat's folder), else the one claimed for the project's folder.
    pub fn remote(&self) -> &str {
        let log = self.log.as_ref().and_then(|log| log.remote.as_deref());
        let claimed = self.folder_remote.as_ref().filter(|f| !f.remote.is_empty() && f.folder == self.project());
        log.or(claimed.map(|f| f.remote.as_str())).unwrap_or_default()
    }

    pub fn branch(&self) -> &str {
        self.log.as_ref().and_then(|log| log.branch.as_deref()).unwrap_or_else(|| self.fallback_branch())
    }

    /// Takes the usage of one of the session's logs at its end; of two copies of a log (two
    /// roots), the more complete counts.
    pub fn add_log_usage(&mut self, mut ledger: SessionLedger) {
        ledger.log_ended();
        #[cfg(feature = "extras")]
        if ledger.is_per_call_log() {
            match &mut self.per_call_usage {
                Some(earlier) => earlier.add_per_call(ledger),
                None => self.per_call_usage = Some(Box::new(ledger)),
            }
            return;
        }
        self.usage = Some(Box::new(match self.usage.take() {
            Some(earlier) => earlier.keep_more_complete(ledger),
            None => ledger,
        }));
    }

    /// The session's usage ledger, to be closed: a request both a chat and its debug log hold
    /// counts once, as the debug log recorded it; a debug log whose chat is gone counts alone.
    pub fn take_usage(&mut self) -> Option<SessionLedger> {
        let usage = self.usage.take().map(|ledger| *ledger);
        #[cfg(feature = "extras")]
        let usage = match (usage, self.per_call_usage.take()) {
            (Some(mut ledger), Some(calls)) => {
                ledger.take_per_call(*calls);
                Some(ledger)
            }
            (ledger, calls) => ledger.or(calls.map(|calls| *calls)),
        };
        usage
    }

    pub fn is_synced(&self) -> bool {
        self.made_ahead.as_ref().is_some_and(|made| made.synced)
    }

    /// A session made ahead (Copilot Desktop makes several) and never prompted: its directory
    /// is a scratch directory of the agent, not a project.
    pub fn scratch_directory(&self) -> Option<&str> {
        let cwd = self.made_ahead.as_ref().map(|made| made.cwd.as_str()).filter(|cwd| !cwd.is_empty())?;
        self.is_precreated_unused().then_some(cwd)
    }

    /// Made ahead and no log: never prompted.
    pub fn is_precreated_unused(&self) -> bool {
        self.made_ahead.is_some() && !self.has_log
    }

    /// The session folder's files beside the log, made on first use.
    pub fn folder_mut(&mut self) -> &mut SessionFolder {
        self.folder.get_or_insert_with(Default::default)
    }

    /// The worktrees the agent made for the session.
    pub fn worktrees(&self) -> &[String] {
        self.worktrees.as_deref().unwrap_or_default()
    }

    /// Whether `path` is one of the session's worktrees (Windows paths compared without case:
    /// VS Code writes `c:\`, the CLI `C:\`).
    pub fn is_worktree(&self, path: &str) -> bool {
        let windows = |p: &str| p.contains('\\') || p.as_bytes().get(1) == Some(&b':');
        self.worktrees().iter().any(|w| w == path || (windows(path) && w.eq_ignore_ascii_case(path)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_ranked_claim_that_says_something_wins() {
        let mut claims = Claims::default();
        claims.claim(30, "from the store");
        claims.claim(10, "");
        claims.claim(20, "from the sidebar");
        claims.claim(20, "a later copy, ignored");
        assert_eq!(claims.best(), "from the sidebar");
        assert_eq!(claims.best_with(Some((15, "from the log"))), "from the log");
        claims.claim_latest(20, "the latest");
        assert_eq!((claims.best(), claims.at(10)), ("the latest", Some("")));
        assert_eq!(Claims::default().best(), "");
    }
}
