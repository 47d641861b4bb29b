//! What every step of an analysis adds to: the planned files and the shared model the
//! importers fill (session facts, home facts, held rows, usage ledgers).

use std::collections::BTreeMap;

use super::Options;
use super::logs::Tally;
use crate::input::layout::Rebase;
use crate::inventory::HomeFacts;
use crate::model::HeldRow;
use crate::report::{Diagnostic, DiagnosticKind, FileStatus, Problem};
use crate::sessions::SessionFacts;
use crate::sources::copilot_cli::store::wal::WalStats;
use crate::sources::log::LineAccount;
use crate::sources::{FileKind, SOURCES, Source, SourceId, session_entry};
use crate::usage::ledger::SessionLedger;

pub(super) struct State {
    pub options: Options,
    pub roots: Vec<RootState>,
    pub files: Vec<PlannedFile>,
    /// Files and bytes of each excluded tree, by root.
    pub excluded: BTreeMap<(usize, String), (u64, u64)>,
    pub sessions: BTreeMap<String, SessionFacts>,
    pub homes: Vec<HomeFacts>,
    pub tally: Tally,
    /// Rows of the files other than event logs, by file index.
    pub held_rows: BTreeMap<usize, Vec<HeldRow>>,
    /// The store's per-call rows, gathered per session as they are read.
    pub store_ledgers: BTreeMap<String, SessionLedger>,
    /// What went wrong where, besides the files' own messages.
    pub diagnostics: Vec<Diagnostic>,
}

pub(super) struct RootState {
    pub label: String,
    /// How the root's listed paths map onto a home.
    pub rebase: Rebase,
    pub files_listed: u64,
    pub outside_files: u64,
    pub outside_bytes: u64,
    pub problems: Vec<Problem>,
}

pub(super) struct PlannedFile {
    pub root: usize,
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
        root: usize,
        agent: &'static str,
        found_in: &'static str,
    ) -> &mut SessionFacts {
        session_entry(&mut self.sessions, session_id, root, agent, found_in)
    }

    /// The file could not be read (or not wholly): its status says so, and a diagnostic why.
    pub fn fail(&mut self, index: usize, kind: DiagnosticKind, message: impl Into<String>) {
        let message = message.into();
        let file = &mut self.files[index];
        file.status = FileStatus::Error;
        file.message = Some(message.clone());
        self.diagnostics.push(Diagnostic { file: file.path.clone(), line: None, kind, message });
    }

    /// The file was read, with a problem worth saying.
    pub fn warn(&mut self, index: usize, kind: DiagnosticKind, message: String) {
        let file = &mut self.files[index];
        file.message = Some(message.clone());
        self.diagnostics.push(Diagnostic { file: file.path.clone(), line: None, kind, message });
    }

    pub fn hold_rows(&mut self, index: usize, rows: Vec<HeldRow>) {
        if !rows.is_empty() {
            self.held_rows.insert(index, rows);
        }
    }

    /// The planned file at `path` (in the home) of `root`; the files are sorted by both.
    pub fn file_index(&self, root: usize, path: &str) -> Option<usize> {
        self.files.binary_search_by(|file| (file.root, file.path.as_str()).cmp(&(root, path))).ok()
    }

    /// The files the analysis reads, with their indices.
    pub fn read_files(&self) -> impl Iterator<Item = (usize, &PlannedFile)> {
        self.files.iter().enumerate().filter(|(_, file)| file.status == FileStatus::Read)
    }
}
