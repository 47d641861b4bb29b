//! `report.json`: every file found and what happened to it, so that nothing is lost silently.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::facts::diagnostics::Diagnostic;
use crate::facts::files::FileKind;
use crate::facts::files::FileStatus;
use crate::facts::log::{LineAccount, count_unknown_type};
use crate::sources::Source;
use crate::sources::store::wal::WalStats;

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Report {
    pub roots: Vec<RootReport>,
    pub homes: Vec<HomeReport>,
    pub files: Vec<FileReport>,
    pub excluded_trees: Vec<ExcludedTree>,
    /// The keys of configuration files whose values were not read, since they can hold
    /// secrets: how many values each had, never the values.
    pub skipped_keys: Vec<ReportSkippedKey>,
    /// Everything that went wrong, where and why, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// The kinds of event each agent's version wrote that this version does not read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<FormatDrift>>", optional))]
    pub format_drift: Vec<FormatDrift>,
    pub totals: Totals,
}

/// The kinds of event logs of one version of an agent hold that this version of copilot-lens
/// does not read (counted, their lines never read): names and counts only, for a person to send
/// to the project.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FormatDrift {
    pub agent: &'static str,
    /// The agent as a person names it ("Copilot CLI"), for the message.
    #[serde(skip)]
    title: &'static str,
    /// The version the logs' starts name; empty where none does.
    pub version: String,
    /// "Copilot CLI 1.0.119 wrote 3 kinds of event copilot-lens 0.1.0 does not read" (`finish`).
    pub message: String,
    /// The logs that hold them.
    pub logs: u64,
    /// Lines of each kind (`(others)`: those past the names a log or a version keeps).
    pub event_types: BTreeMap<String, u64>,
}

impl FormatDrift {
    /// Counts a log of `source`'s `version` whose kinds of event not read are `unknown` (lines by
    /// kind, scrubbed and at most `UNKNOWN_TYPES_NAMED` names a log) in `drifts`, kept in the
    /// order of agent and version.
    pub fn count(drifts: &mut Vec<FormatDrift>, source: &dyn Source, version: String, unknown: &BTreeMap<String, u64>) {
        let key = (source.agent(), version.as_str());
        let at = match drifts.binary_search_by(|drift| (drift.agent, drift.version.as_str()).cmp(&key)) {
            Ok(at) => at,
            Err(at) => {
                let title = source.layout().title;
                let drift = FormatDrift {
                    agent: source.agent(),
                    title,
                    version,
                    message: String::new(),
                    logs: 0,
                    event_types: BTreeMap::new(),
                };
                drifts.insert(at, drift);
                at
            }
        };
        let drift = &mut drifts[at];
        drift.logs += 1;
        // A version's names are capped as a log's are: logs of made-up names cannot grow it.
        for (kind, lines) in unknown {
            count_unknown_type(&mut drift.event_types, kind.into(), *lines);
        }
    }

    /// With its message, once every log is added.
    pub fn finish(mut self) -> FormatDrift {
        let version = if self.version.is_empty() { "(no version named)" } else { &self.version };
        let kinds = match self.event_types.len() {
            1 => "1 kind".to_string(),
            kinds => format!("{kinds} kinds"),
        };
        let reader = concat!("copilot-lens ", env!("CARGO_PKG_VERSION"));
        self.message = format!("{} {version} wrote {kinds} of event {reader} does not read", self.title);
        self
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ReportSkippedKey {
    pub home: usize,
    pub file: String,
    pub key: String,
    pub values: u64,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RootReport {
    pub label: String,
    pub files_listed: u64,
    /// Files outside its homes' Copilot directories, counted but never opened.
    pub outside_files: u64,
    pub outside_bytes: u64,
    pub problems: Vec<Problem>,
}

/// A home found in a root: a machine's home folder, or a Copilot folder itself.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HomeReport {
    pub root: usize,
    /// How outputs name the home: the root's label, then the home's folder in it.
    pub label: String,
    /// The home's folder in its root, empty for the root itself.
    pub path: String,
    /// `home` or `copilot_directory`.
    pub layout: &'static str,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Problem {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FileReport {
    pub home: usize,
    pub path: String,
    /// Its name (`FileKind::name`).
    #[cfg_attr(test, ts(type = "string"))]
    pub kind: FileKind,
    pub status: FileStatus,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub message: Option<String>,
    /// Rows this file gave (after deduplication, for secondary sources).
    pub rows: u64,
    /// Secondary rows that dropped as copies of other rows.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(test, ts(as = "Option<u64>", optional))]
    pub rows_deduplicated: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub lines: Option<LineAccount>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub wal: Option<WalStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub tables: Option<BTreeMap<String, u64>>,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ExcludedTree {
    pub home: usize,
    pub tree: String,
    pub files: u64,
    pub bytes: u64,
}

#[derive(Debug, Default, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Totals {
    pub files_found: u64,
    pub files_read: u64,
    pub files_with_errors: u64,
    pub event_lines: u64,
    pub event_lines_with_rows: u64,
    pub event_lines_skipped: u64,
    pub event_lines_unknown_type: u64,
    pub bad_lines: u64,
    pub rows: u64,
    pub rows_by_turn_type: BTreeMap<String, u64>,
    pub secondary_rows_kept: u64,
    pub secondary_rows_deduplicated: u64,
    pub sessions: u64,
}
