//! What every step of an analysis adds to: the planned files and the shared model the
//! importers fill (session facts, home facts, held rows, usage ledgers).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::Options;
use super::tally::{CopyKeys, Tally};
use std::ops::Range;

use crate::facts::diagnostics::{Diagnostic, DiagnosticKind};
use crate::facts::files::FileKind;
use crate::facts::files::FileStatus;
use crate::facts::home::HomeFacts;
use crate::facts::log::LineAccount;
use crate::facts::session::SessionFacts;
use crate::input::Stat;
use crate::input::layout::{self, Rebase};
use crate::model::HeldRow;
use crate::report::Problem;
use crate::sources::store::wal::WalStats;
use crate::sources::{SOURCES, Source, SourceId, session_entry};
use crate::usage::ledger::SessionLedger;

pub(super) struct State {
    pub options: Options,
    pub roots: Vec<RootState>,
    /// Every home found in the roots, in root order.
    pub homes: Vec<Home>,
    /// Where each home is in its root.
    pub places: HomePlaces,
    pub files: Vec<PlannedFile>,
    /// Files and bytes of each excluded tree, by home.
    pub excluded: BTreeMap<(usize, String), (u64, u64)>,
    pub sessions: BTreeMap<String, SessionFacts>,
    pub tally: Tally,
    /// Rows of the files other than event logs, by file index.
    pub held_rows: BTreeMap<usize, Vec<HeldRow>>,
    /// Files whose modification time an output shows (skills, instructions...), by index.
    pub dated_files: BTreeSet<usize>,
    /// The store's per-call rows, gathered per session as they are read.
    pub store_ledgers: BTreeMap<String, SessionLedger>,
    /// What went wrong where, besides the files' own messages.
    pub diagnostics: Vec<Diagnostic>,
    /// The kinds of event not read, one entry per agent and version, in their order
    /// (`FormatDrift::count`).
    pub format_drift: Vec<crate::report::FormatDrift>,
    /// The rows of each session log in several homes, by its first copy, as its copies are taken.
    pub copy_keys: HashMap<usize, CopyKeys>,
}

pub(super) struct RootState {
    pub label: String,
    pub files_listed: u64,
    pub outside_files: u64,
    pub outside_bytes: u64,
    pub problems: Vec<Problem>,
}

/// One home (a machine's `~`, or a Copilot folder itself) in a root.
pub(super) struct Home {
    pub root: usize,
    /// The root's label, then the home's folder in it where it is not the root itself.
    pub label: String,
    /// What each agent's files in the home say beyond its sessions, by agent: an agent is in
    /// a home when a file of its source is.
    pub facts: BTreeMap<&'static str, HomeFacts>,
}

impl Home {
    /// An agent's facts in the home.
    pub fn facts_of(&mut self, agent: &'static str) -> &mut HomeFacts {
        self.facts.entry(agent).or_default()
    }
}

/// Where the homes are in their roots: how a root's listed paths map onto each.
#[derive(Clone, Debug, Default)]
pub(super) struct HomePlaces {
    /// Each root's homes, as indices of `rebases` (and of `State::homes`).
    pub by_root: Vec<Range<usize>>,
    pub rebases: Vec<Rebase>,
}

impl HomePlaces {
    /// The home a root's listed path is in, and the path there.
    pub fn find(&self, root: usize, listed_path: &str) -> Option<(usize, String)> {
        let homes = self.by_root.get(root)?.clone();
        let (index, path) = layout::home_of(&self.rebases[homes.clone()], listed_path)?;
        Some((homes.start + index, path))
    }
}

pub(super) struct PlannedFile {
    /// The root it is read from, by `listed_path`.
    pub root: usize,
    pub home: usize,
    pub source: SourceId,
    /// The path as the root lists it, for opening.
    pub listed_path: String,
    /// The path relative to the home: `source` of its rows.
    pub path: String,
    pub size: u64,
    pub modified_ms: Option<i64>,
    pub kind: FileKind,
    pub session_id: Option<String>,
    pub status: FileStatus,
    pub message: Option<String>,
    pub lines: Option<LineAccount>,
    pub wal: Option<WalStats>,
    pub tables: Option<BTreeMap<String, u64>>,
    pub rows: u64,
    pub rows_deduplicated: u64,
}

impl PlannedFile {
    pub fn source(&self) -> &'static dyn Source {
        SOURCES[self.source]
    }
}

impl State {
    pub fn session(
        &mut self,
        session_id: &str,
        home: usize,
        agent: &'static str,
        found_in: &'static str,
    ) -> &mut SessionFacts {
        session_entry(&mut self.sessions, session_id, home, agent, found_in)
    }

    /// The file could not be read (or not wholly): its status says so, and a diagnostic why.
    pub fn fail(&mut self, index: usize, kind: DiagnosticKind, message: impl Into<String>) {
        let message = message.into();
        let file = &mut self.files[index];
        file.status = FileStatus::Error;
        file.message = Some(message.clone());
        self.diagnostics.push(Diagnostic { home: Some(file.home), file: file.path.clone(), line: None, kind, message });
    }

    /// The file was read, with a problem worth saying.
    pub fn warn(&mut self, index: usize, kind: DiagnosticKind, message: String) {
        let file = &mut self.files[index];
        file.message = Some(message.clone());
        self.diagnostics.push(Diagnostic { home: Some(file.home), file: file.path.clone(), line: None, kind, message });
    }

    pub fn hold_rows(&mut self, index: usize, rows: Vec<HeldRow>) {
        if !rows.is_empty() {
            self.held_rows.insert(index, rows);
        }
    }

    /// The planned file at `path` in `home`; the files are sorted by both.
    pub fn file_index(&self, home: usize, path: &str) -> Option<usize> {
        self.files.binary_search_by(|file| (file.home, file.path.as_str()).cmp(&(home, path))).ok()
    }

    /// A planned file's size and time as its listing gave them, where it gave its time (a
    /// remembered folder's listing does; a picked one's gives neither).
    pub fn listed_stat(&self, root: usize, listed_path: &str) -> Option<Stat> {
        let (home, path) = self.places.find(root, listed_path)?;
        let file = &self.files[self.file_index(home, &path)?];
        // A listing gives no change time (the page's: a browser's File has none).
        file.modified_ms.map(|time| Stat { size: file.size, modified_ms: Some(time), changed_ns: None })
    }

    /// How a person finds a file: its home's label, then its path there.
    pub fn file_label(&self, index: usize) -> String {
        let file = &self.files[index];
        format!("{}/{}", self.homes[file.home].label.trim_end_matches(['/', '\\']), file.path)
    }

    /// The files the analysis reads, with their indices.
    pub fn read_files(&self) -> impl Iterator<Item = (usize, &PlannedFile)> {
        self.files.iter().enumerate().filter(|(_, file)| file.status == FileStatus::Read)
    }
}
