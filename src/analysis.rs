//! The whole analysis, in three phases over the planned files:
//!
//! 1. `read_metadata`: every file but the event logs (small, or read for a few facts), giving
//!    the joins the logs need (a session's project before its log names one) and the rows of
//!    those files, held until phase 3.
//! 2. the event logs, streamed one by one (`LogTask`s, which a caller may run on several
//!    threads and hand back in order); their rows go straight to the sink.
//! 3. `finish`: joins fill the held rows, secondary rows are deduplicated against everything
//!    primary, and the rest go to the sink; then sessions, inventory and report are built.
//!
//! Rows come out in this order: the event logs' rows, file by file in path order, then the
//! other files' rows in path order. Same input, same bytes out, whatever the listing order.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io::BufReader;

use crate::artifacts::events::{self, LineAccount, LogContext, LogOutcome};
use crate::artifacts::store::wal::{WalIndex, WalStats};
use crate::artifacts::store::{self, StoreFiles, StoreScope, StoreUsageEvent};
use crate::artifacts::{
    HeldRow, PendingRow, history, logs, mtime_text, permissions, settings, sidebar, snapshots, workspace,
};
use crate::dedup::{self, PrimaryKeys};
use crate::input::layout::{FileKind, Rebase, classify};
use crate::input::{FileReader, RootListing, read_all};
use crate::inventory::{self, Grant, HomeFacts, Inventory};
use crate::model::{AGENT, Row, RowSink, TurnType};
use crate::report::{ExcludedTree, FileReport, FileStatus, Problem, Report, RootReport, Totals};
use crate::sessions::{SessionCounts, SessionFacts, SessionRecord, WorkspaceFacts};
use crate::usage::ledger::SessionLedger;
use crate::usage::rates::RateTable;
use crate::usage::summary::{self, DayRange, GroupBy, UsageTable};
use crate::usage::{Zone, scan};

/// What an analysis can be asked to do differently.
#[derive(Clone, Debug)]
pub struct Options {
    /// Emit `thinking` rows (reasoning text), which are off by default.
    pub include_thinking: bool,
    /// The zone usage days are counted in (UTC by default).
    pub zone: Zone,
    pub rates: RateTable,
}

impl Default for Options {
    fn default() -> Self {
        Options { include_thinking: false, zone: Zone::Utc, rates: RateTable::default_table() }
    }
}

/// Why an analysis could not start. Problems inside a root never stop it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalysisError {
    NoRoots,
    EmptyRoot(String),
    NoCopilotData(String),
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalysisError::NoRoots => {
                f.write_str("nothing to analyse: give a home folder, a .copilot folder or a zip of either")
            }
            AnalysisError::EmptyRoot(root) => write!(f, "{root}: the folder or archive is empty"),
            AnalysisError::NoCopilotData(root) => write!(
                f,
                "{root}: no Copilot CLI data found (expected a home folder holding .copilot, a .copilot folder, or a zip of either)"
            ),
        }
    }
}

impl std::error::Error for AnalysisError {}

/// The outputs besides the rows.
#[derive(Debug)]
pub struct Outputs {
    pub sessions: Vec<SessionRecord>,
    pub inventory: Inventory,
    pub report: Report,
    pub usage: UsageData,
}

/// Every session's finished usage ledger, to be grouped any way (`table`).
#[derive(Debug)]
pub struct UsageData {
    pub ledgers: BTreeMap<String, SessionLedger>,
    /// Sessions with a log but no figure at all: no checkpoint and no per-call record.
    pub unknown: Vec<String>,
    pub rates: RateTable,
}

impl UsageData {
    pub fn table(&self, by: GroupBy, range: DayRange) -> UsageTable {
        summary::summarize(
            self.ledgers.iter().map(|(id, ledger)| (id.as_str(), &ledger.entries)),
            &self.rates,
            by,
            range,
        )
    }
}

/// One log's usage scan.
#[derive(Debug)]
pub struct UsageScan {
    pub ledger: SessionLedger,
    pub stats: scan::ScanStats,
    pub error: Option<String>,
}

/// What a usage-only run found.
#[derive(Debug)]
pub struct UsageOnly {
    pub usage: UsageData,
    pub stats: scan::ScanStats,
    /// Files that could not be read, with why.
    pub problems: Vec<String>,
    pub bytes_read: u64,
}

/// Size limit for files read whole.
const SMALL_FILE_LIMIT: u64 = 64 << 20;

/// Runs every phase in order on one thread.
pub fn analyze(
    roots: Vec<RootListing>,
    reader: &mut dyn FileReader,
    options: Options,
    sink: &mut dyn RowSink,
) -> Result<Outputs, AnalysisError> {
    let mut analysis = Analysis::plan(roots, options)?;
    analysis.read_metadata(reader);
    for task in analysis.log_tasks() {
        let mut tally = Tally::default();
        let outcome = task.parse(reader, &analysis.options, &mut TallySink::new(&mut tally, sink));
        analysis.add_log(&task, outcome, tally);
    }
    Ok(analysis.finish(reader, sink))
}

pub struct Analysis {
    pub options: Options,
    roots: Vec<RootState>,
    files: Vec<PlannedFile>,
    excluded: BTreeMap<(usize, String), (u64, u64)>,
    sessions: BTreeMap<String, SessionFacts>,
    homes: Vec<HomeFacts>,
    tally: Tally,
    /// Rows of the files other than event logs, by file index.
    held_rows: BTreeMap<usize, Vec<HeldRow>>,
    /// The store's per-call rows, gathered per session as they are read.
    store_ledgers: BTreeMap<String, SessionLedger>,
    usage_stats: scan::ScanStats,
}

struct RootState {
    label: String,
    /// How the root's listed paths map onto a home.
    rebase: Rebase,
    layout: &'static str,
    files_listed: u64,
    outside_files: u64,
    outside_bytes: u64,
    problems: Vec<Problem>,
}

struct PlannedFile {
    root: usize,
    /// The path as the root lists it, for opening.
    listed_path: String,
    /// The path relative to the home: `source` of its rows.
    path: String,
    size: u64,
    modified_ms: Option<i64>,
    kind: FileKind,
    session_id: Option<String>,
    status: FileStatus,
    message: Option<String>,
    lines: Option<LineAccount>,
    wal: Option<WalStats>,
    tables: Option<BTreeMap<String, u64>>,
    rows: u64,
    rows_deduplicated: u64,
}

impl PlannedFile {
    fn fail(&mut self, message: impl Into<String>) {
        self.status = FileStatus::Error;
        self.message = Some(message.into());
    }

    fn is_secondary(&self) -> bool {
        matches!(self.kind, FileKind::Store | FileKind::StoreWal | FileKind::History | FileKind::Snapshots)
    }
}

/// The store's files as `store::read` opens them.
struct StoreOnDisk<'a> {
    reader: &'a mut dyn FileReader,
    root: usize,
    main: Option<(String, u64)>,
    wal: Option<String>,
    scanned_wal: Option<Result<WalIndex, String>>,
}

impl StoreFiles for StoreOnDisk<'_> {
    fn main_size(&self) -> Option<u64> {
        self.main.as_ref().map(|(_, size)| *size)
    }

    fn open_main(&mut self) -> std::io::Result<Box<dyn std::io::Read + '_>> {
        let (path, _) = self.main.as_ref().ok_or_else(|| std::io::Error::other("no database"))?;
        self.reader.open(self.root, path)
    }

    fn has_wal(&self) -> bool {
        self.wal.is_some()
    }

    fn open_wal(&mut self) -> std::io::Result<Box<dyn std::io::Read + '_>> {
        let path = self.wal.as_ref().ok_or_else(|| std::io::Error::other("no write-ahead log"))?;
        Ok(Box::new(BufReader::with_capacity(1 << 16, self.reader.open(self.root, path)?)))
    }

    fn positional(&mut self) -> Option<std::io::Result<store::PositionalFiles>> {
        let mut open = |path: &Option<String>| match path {
            Some(path) => self.reader.open_at(self.root, path).map(|opened| opened.map(Some)),
            None => Some(Ok(None)),
        };
        let main = open(&self.main.as_ref().map(|(path, _)| path.clone()))?;
        let wal = open(&self.wal)?;
        Some(main.and_then(|main| wal.map(|wal| (main, wal))))
    }

    fn scanned_wal(&mut self) -> Option<Result<WalIndex, String>> {
        self.scanned_wal.take()
    }
}

/// One store to read, with what it needs from the plan.
#[derive(Clone, Debug)]
pub struct StoreJob {
    /// The file that reports the read (the main file, or the log without one).
    index: usize,
    root: usize,
    main: Option<(usize, String, u64)>,
    wal: Option<(usize, String)>,
    scope: StoreScope,
    /// The log's scan, when it was made ahead.
    scanned_wal: Option<Result<WalIndex, String>>,
}

/// A store as read, for `Analysis::add_store`.
pub struct StoreRead {
    job: StoreJob,
    result: Result<store::StoreContents, store::StoreFailure>,
    /// Per-call rows gathered per session.
    ledgers: BTreeMap<String, SessionLedger>,
}

impl StoreJob {
    fn files<'a>(&mut self, reader: &'a mut dyn FileReader) -> StoreOnDisk<'a> {
        StoreOnDisk {
            reader,
            root: self.root,
            main: self.main.as_ref().map(|(_, path, size)| (path.clone(), *size)),
            wal: self.wal.as_ref().map(|(_, path)| path.clone()),
            scanned_wal: self.scanned_wal.take(),
        }
    }

    /// Makes the write-ahead log's scan now (on another thread than the read, say).
    pub fn scan_wal_ahead(&mut self, reader: &mut dyn FileReader) {
        if self.wal.is_some() {
            let scanned = store::scan_wal(&mut self.files(reader));
            self.scanned_wal = Some(scanned);
        }
    }

    pub fn read(mut self, reader: &mut dyn FileReader, options: &Options) -> StoreRead {
        let mut files = self.files(reader);
        let mut ledgers: BTreeMap<String, SessionLedger> = BTreeMap::new();
        let mut on_usage = |event: StoreUsageEvent| {
            let ledger = ledgers.entry(event.session_id).or_insert_with(|| SessionLedger::new(options.zone));
            ledger.call(crate::time::parse_millis(&event.created_at), &event.counts, &options.rates);
        };
        let result = store::read(&mut files, self.scope.clone(), &mut on_usage);
        StoreRead { job: self, result, ledgers }
    }
}

/// One event log to parse, with what its rows need from the other files.
#[derive(Clone, Debug)]
pub struct LogTask {
    pub file: usize,
    pub root: usize,
    pub listed_path: String,
    pub session_id: String,
    pub source: String,
    pub fallback_project: String,
    pub fallback_branch: String,
}

impl LogTask {
    pub fn context<'a>(&'a self, options: &'a Options) -> LogContext<'a> {
        LogContext {
            session_id: &self.session_id,
            source: &self.source,
            fallback_project: &self.fallback_project,
            fallback_branch: &self.fallback_branch,
            include_thinking: options.include_thinking,
            zone: options.zone,
            rates: &options.rates,
            file: self.file as u32,
        }
    }

    /// Reads only the log's counter lines into a usage ledger.
    pub fn scan_usage(&self, reader: &mut dyn FileReader, options: &Options) -> UsageScan {
        let mut ledger = SessionLedger::new(options.zone);
        let scanned = reader
            .open(self.root, &self.listed_path)
            .and_then(|file| scan::scan_log(file, &mut ledger, &options.rates));
        match scanned {
            Ok(stats) => UsageScan { ledger, stats, error: None },
            Err(error) => UsageScan { ledger, stats: scan::ScanStats::default(), error: Some(error.to_string()) },
        }
    }

    /// Opens and parses the log; an unopenable log gives an outcome with its error.
    pub fn parse(&self, reader: &mut dyn FileReader, options: &Options, sink: &mut dyn RowSink) -> LogOutcome {
        match reader.open(self.root, &self.listed_path) {
            Ok(file) => events::parse_log(&self.context(options), BufReader::with_capacity(1 << 18, file), sink),
            Err(error) => LogOutcome { read_error: Some(error.to_string()), ..LogOutcome::default() },
        }
    }
}

/// What the analysis keeps of the rows that pass by: counts and deduplication keys.
#[derive(Debug, Default)]
pub struct Tally {
    pub rows: u64,
    pub by_turn_type: [u64; 6],
    pub sessions: BTreeMap<String, SessionCounts>,
    pub keys: PrimaryKeys,
}

impl Tally {
    fn observe(&mut self, row: &Row<'_>, record_key: bool) {
        self.rows += 1;
        self.by_turn_type[row.turn_type as usize] += 1;
        if !row.session_id.is_empty() {
            match self.sessions.get_mut(row.session_id) {
                Some(counts) => counts.observe(row),
                None => self.sessions.entry(row.session_id.to_string()).or_default().observe(row),
            }
        }
        if record_key && dedup::has_secondary_copies(row.turn_type, &row.text) {
            self.keys.add(row.session_id, row.turn_type, &row.text, crate::time::parse_millis(&row.timestamp_utc));
        }
    }

    pub fn merge(&mut self, other: Tally) {
        self.rows += other.rows;
        for (total, part) in self.by_turn_type.iter_mut().zip(other.by_turn_type) {
            *total += part;
        }
        for (session, counts) in other.sessions {
            self.sessions.entry(session).or_default().add(&counts);
        }
        self.keys.merge(other.keys);
    }
}

/// A sink that tallies each row on its way to another sink.
pub struct TallySink<'a> {
    tally: &'a mut Tally,
    inner: &'a mut dyn RowSink,
    /// Whether the rows are primary (their keys are what secondary rows are checked against).
    primary: bool,
}

impl<'a> TallySink<'a> {
    pub fn new(tally: &'a mut Tally, inner: &'a mut dyn RowSink) -> Self {
        TallySink { tally, inner, primary: true }
    }
}

impl RowSink for TallySink<'_> {
    fn push(&mut self, row: &Row<'_>) {
        self.tally.observe(row, self.primary);
        self.inner.push(row);
    }
}

/// Where a listed file's bytes count in the report.
enum SizeSlot {
    Outside,
    Excluded(String),
    /// A file of the home, by its path there.
    Home(String),
}

fn size_slot(rebase: &Rebase, listed_path: &str) -> SizeSlot {
    let Some(path) = rebase.apply(listed_path) else { return SizeSlot::Outside };
    let classified = classify(&path);
    match classified.kind {
        FileKind::Outside => SizeSlot::Outside,
        FileKind::Excluded => SizeSlot::Excluded(classified.tree.unwrap_or_default().to_string()),
        _ => SizeSlot::Home(path),
    }
}

/// The sizes of files an analysis did not read, given after it finished (a browser learns a
/// file's size only by asking for it, which costs as much as handing the file over): they are
/// placed in the report as `set_file_facts` would have placed them.
pub struct LateSizes {
    rebases: Vec<Rebase>,
    /// The report's files, `(root, path in the home)`, in its (sorted) order.
    files: Vec<(usize, String)>,
}

impl LateSizes {
    pub fn place(&self, report: &mut Report, root: usize, listed_path: &str, size: u64) {
        let Some(rebase) = self.rebases.get(root) else { return };
        match size_slot(rebase, listed_path) {
            SizeSlot::Outside => {
                if let Some(root_report) = report.roots.get_mut(root) {
                    root_report.outside_bytes += size;
                }
            }
            SizeSlot::Excluded(tree) => {
                let found = report
                    .excluded_trees
                    .binary_search_by(|excluded| (excluded.root, excluded.tree.as_str()).cmp(&(root, tree.as_str())));
                if let Ok(index) = found {
                    report.excluded_trees[index].bytes += size;
                }
            }
            SizeSlot::Home(path) => {
                let found = self.files.binary_search_by(|(of, at)| (*of, at.as_str()).cmp(&(root, path.as_str())));
                if let Some(file) = found.ok().and_then(|index| report.files.get_mut(index)) {
                    file.size = size;
                }
            }
        }
    }
}

impl Analysis {
    /// Lists what each root holds and classifies every file; nothing is read yet.
    pub fn plan(roots: Vec<RootListing>, options: Options) -> Result<Analysis, AnalysisError> {
        if roots.is_empty() {
            return Err(AnalysisError::NoRoots);
        }
        let mut root_states = Vec::new();
        let mut files = Vec::new();
        let mut excluded: BTreeMap<(usize, String), (u64, u64)> = BTreeMap::new();
        for (root, listing) in roots.into_iter().enumerate() {
            if listing.files.is_empty() && listing.problems.is_empty() {
                return Err(AnalysisError::EmptyRoot(listing.label));
            }
            let rebase = Rebase::detect(listing.files.iter().map(|file| file.path.as_str()))
                .ok_or_else(|| AnalysisError::NoCopilotData(listing.label.clone()))?;
            let mut state = RootState {
                label: listing.label,
                layout: if rebase.is_copilot_dir_root() { "copilot_directory" } else { "home" },
                rebase: rebase.clone(),
                files_listed: listing.files.len() as u64,
                outside_files: 0,
                outside_bytes: 0,
                problems: listing.problems.into_iter().map(|(path, message)| Problem { path, message }).collect(),
            };
            for file in listing.files {
                let Some(path) = rebase.apply(&file.path) else {
                    state.outside_files += 1;
                    state.outside_bytes += file.size;
                    continue;
                };
                let classified = classify(&path);
                match classified.kind {
                    FileKind::Outside => {
                        state.outside_files += 1;
                        state.outside_bytes += file.size;
                        continue;
                    }
                    FileKind::Excluded => {
                        let entry =
                            excluded.entry((root, classified.tree.unwrap_or_default().to_string())).or_default();
                        entry.0 += 1;
                        entry.1 += file.size;
                        continue;
                    }
                    _ => {}
                }
                let status = match classified.kind {
                    FileKind::NotWanted => FileStatus::NotWanted,
                    FileKind::Secret => FileStatus::NotReadSecret,
                    FileKind::StoreShm => FileStatus::NotNeeded,
                    _ => FileStatus::Read,
                };
                files.push(PlannedFile {
                    root,
                    session_id: classified.session_id.map(str::to_string),
                    kind: classified.kind,
                    listed_path: file.path,
                    path,
                    size: file.size,
                    modified_ms: file.modified_ms,
                    status,
                    message: None,
                    lines: None,
                    wal: None,
                    tables: None,
                    rows: 0,
                    rows_deduplicated: 0,
                });
            }
            root_states.push(state);
        }
        files.sort_by(|a, b| (a.root, &a.path).cmp(&(b.root, &b.path)));
        let homes = root_states.iter().map(|_| HomeFacts::default()).collect();
        Ok(Analysis {
            options,
            roots: root_states,
            files,
            excluded,
            sessions: BTreeMap::new(),
            homes,
            tally: Tally::default(),
            held_rows: BTreeMap::new(),
            store_ledgers: BTreeMap::new(),
            usage_stats: scan::ScanStats::default(),
        })
    }

    /// Sets a file's size and time where the listing could not give them (a browser learns
    /// them only as each file is handed over). Call it once per file, before the file is read
    /// and before `finish` (or give the sizes of files not read afterwards, `late_sizes`).
    /// Returns whether the analysis reads the file.
    pub fn set_file_facts(&mut self, root: usize, listed_path: &str, size: u64, modified_ms: Option<i64>) -> bool {
        let Some(state) = self.roots.get_mut(root) else { return false };
        match size_slot(&state.rebase, listed_path) {
            SizeSlot::Outside => state.outside_bytes += size,
            SizeSlot::Excluded(tree) => self.excluded.entry((root, tree)).or_default().1 += size,
            SizeSlot::Home(path) => {
                if let Some(index) = self.file_index(root, &path) {
                    let file = &mut self.files[index];
                    (file.size, file.modified_ms) = (size, modified_ms);
                    return file.status == FileStatus::Read;
                }
            }
        }
        false
    }

    /// What places the sizes of files handed over after `finish` in its report.
    pub fn late_sizes(&self) -> LateSizes {
        LateSizes {
            rebases: self.roots.iter().map(|state| state.rebase.clone()).collect(),
            files: self.files.iter().map(|file| (file.root, file.path.clone())).collect(),
        }
    }

    /// The planned file at `path` (in the home) of `root`; the files are sorted by both.
    fn file_index(&self, root: usize, path: &str) -> Option<usize> {
        self.files.binary_search_by(|file| (file.root, file.path.as_str()).cmp(&(root, path))).ok()
    }

    /// Files whose rows are at their modification time, where the listing did not give it
    /// (see `set_file_time`).
    pub fn files_needing_times(&self) -> impl Iterator<Item = (usize, &str)> {
        self.held_rows
            .iter()
            .filter(|(index, rows)| {
                self.files[**index].modified_ms.is_none()
                    && rows.iter().any(|row| matches!(row, HeldRow::Row(row) if row.at_file_time))
            })
            .map(|(&index, _)| (self.files[index].root, self.files[index].listed_path.as_str()))
    }

    /// Sets a file's modification time learnt after it was read.
    pub fn set_file_time(&mut self, root: usize, listed_path: &str, modified_ms: i64) {
        let path = self.roots.get(root).and_then(|state| state.rebase.apply(listed_path));
        if let Some(index) = path.and_then(|path| self.file_index(root, &path)) {
            self.files[index].modified_ms = Some(modified_ms);
        }
    }

    /// The files other than event logs that `read_metadata` opens, as `(root, listed path,
    /// whether it is read in parts)`: process logs are (line by line; they can be large).
    pub fn metadata_files(&self) -> impl Iterator<Item = (usize, &str, bool)> {
        self.files.iter().filter(|file| file.status == FileStatus::Read && file.kind != FileKind::EventsLog).map(
            |file| {
                let in_parts = matches!(file.kind, FileKind::ProcessLog);
                (file.root, file.listed_path.as_str(), in_parts)
            },
        )
    }

    /// The size of planned file `index` (a `LogTask`'s `file`).
    pub fn file_size(&self, index: usize) -> u64 {
        self.files.get(index).map_or(0, |file| file.size)
    }

    /// Bytes of the files the analysis will read, for progress reports.
    pub fn bytes_to_read(&self) -> u64 {
        self.files.iter().filter(|file| file.status == FileStatus::Read).map(|file| file.size).sum()
    }

    /// How many files the run reads (for a progress display).
    pub fn files_to_read(&self) -> usize {
        self.files.iter().filter(|file| file.status == FileStatus::Read).count()
    }

    /// Phase 1: every file but the event logs.
    pub fn read_metadata(&mut self, reader: &mut dyn FileReader) {
        self.read_stores(reader);
        self.read_other_metadata(reader);
    }

    /// The first part of phase 1: the stores (a browser reads them as soon as their bytes are
    /// in, while the page still reads the small files).
    pub fn read_stores(&mut self, reader: &mut dyn FileReader) {
        for job in self.store_jobs(StoreScope::Everything) {
            let read = job.read(reader, &self.options);
            self.add_store(read);
        }
    }

    /// The files of the stores, `(root, listed path)`.
    pub fn store_files(&self) -> impl Iterator<Item = (usize, &str)> {
        self.files
            .iter()
            .filter(|file| file.status == FileStatus::Read && matches!(file.kind, FileKind::Store | FileKind::StoreWal))
            .map(|file| (file.root, file.listed_path.as_str()))
    }

    /// The rest of phase 1, after `read_stores`: every other file but the event logs.
    pub fn read_other_metadata(&mut self, reader: &mut dyn FileReader) {
        // The sessions with a log, by root: workspace.yaml rows say whether the log is there.
        let logged: HashSet<(usize, String)> = self
            .files
            .iter()
            .filter(|file| file.kind == FileKind::EventsLog)
            .filter_map(|file| Some((file.root, file.session_id.clone()?)))
            .collect();
        for index in 0..self.files.len() {
            if self.files[index].status != FileStatus::Read {
                continue;
            }
            let result = match self.files[index].kind {
                FileKind::EventsLog | FileKind::Store | FileKind::StoreWal => continue,
                FileKind::ProcessLog => self.read_process_log(index, reader),
                _ => match read_all(reader, self.files[index].root, &self.files[index].listed_path, SMALL_FILE_LIMIT) {
                    Ok(bytes) => self.read_small_file(index, &bytes, &logged),
                    Err(error) => Err(error.to_string()),
                },
            };
            if let Err(message) = result {
                self.files[index].fail(message);
            }
        }
    }

    fn session(&mut self, session_id: &str, root: usize, found_in: &'static str) -> &mut SessionFacts {
        let facts = self.sessions.entry(session_id.to_string()).or_default();
        facts.roots.insert(root);
        facts.found_in.insert(found_in);
        facts
    }

    fn read_small_file(&mut self, index: usize, bytes: &[u8], logged: &HashSet<(usize, String)>) -> Result<(), String> {
        let file = &self.files[index];
        let (root, session_id) = (file.root, file.session_id.clone().unwrap_or_default());
        let rows = match file.kind {
            FileKind::Workspace => {
                let parsed = workspace::parse(bytes)?;
                let has_log = logged.contains(&(root, session_id.clone()));
                let rows = parsed.rows(&session_id, has_log);
                let facts = self.session(&session_id, root, "workspace.yaml");
                if facts.workspace.is_none() {
                    facts.workspace = Some(Box::new(WorkspaceFacts {
                        name: workspace::text(&parsed.name),
                        cwd: workspace::text(&parsed.cwd),
                        client_name: workspace::text(&parsed.client_name),
                        created_at: workspace::text(&parsed.created_at),
                        updated_at: workspace::text(&parsed.updated_at),
                        synced: parsed.is_synced(),
                    }));
                }
                rows
            }
            FileKind::Snapshots => {
                let rows = snapshots::parse(bytes, &session_id)?;
                self.session(&session_id, root, "rewind-file-snapshots");
                rows
            }
            FileKind::History => history::parse(bytes)?,
            FileKind::Permissions => {
                let grants = permissions::parse(bytes)?;
                let rows = permissions::rows(&grants);
                self.homes[root].grants.extend(grants.into_iter().map(|grant| Grant {
                    file: "permissions-config.json".into(),
                    location: grant.location,
                    list: grant.list,
                    entry: grant.entry,
                }));
                rows
            }
            FileKind::Settings => {
                let grants = settings::parse(bytes)?;
                let rows = settings::rows(&grants);
                self.homes[root].grants.extend(grants.into_iter().map(|(list, entry)| Grant {
                    file: "settings.json".into(),
                    location: String::new(),
                    list,
                    entry,
                }));
                rows
            }
            FileKind::Sidebar => {
                let parsed = sidebar::parse(bytes)?;
                for id in &parsed.session_ids {
                    let facts = self.session(id, root, "sidebar-sessions-state");
                    if facts.sidebar_cwd.is_none() {
                        facts.sidebar_cwd = parsed.cwd.clone();
                    }
                }
                Vec::new()
            }
            _ => Vec::new(),
        };
        self.hold(index, rows);
        Ok(())
    }

    fn hold(&mut self, index: usize, rows: Vec<PendingRow>) {
        self.hold_rows(index, rows.into_iter().map(HeldRow::Row).collect());
    }

    fn hold_rows(&mut self, index: usize, rows: Vec<HeldRow>) {
        if !rows.is_empty() {
            self.held_rows.insert(index, rows);
        }
    }

    fn read_process_log(&mut self, index: usize, reader: &mut dyn FileReader) -> Result<(), String> {
        let (root, listed) = (self.files[index].root, self.files[index].listed_path.clone());
        let file = reader.open(root, &listed).map_err(|error| error.to_string())?;
        let facts = logs::scan(BufReader::with_capacity(1 << 16, file)).map_err(|error| error.to_string())?;
        for id in &facts.workspace_ids {
            let session = self.session(id, root, "process log");
            session.process_versions.extend(facts.versions.iter().cloned());
        }
        let home = &mut self.homes[root];
        for (name, seen) in &facts.mcp_servers {
            let entry = home.mcp_from_logs.entry(name.clone()).or_default();
            entry.connected += seen.connected;
            entry.failed += seen.failed;
        }
        home.accounts.extend(facts.sign_ins.iter().map(|sign_in| (sign_in.host.clone(), sign_in.login.clone())));
        self.hold(index, logs::rows(&facts));
        Ok(())
    }

    /// The stores to read: one per main file (with its `-wal`), or per `-wal` alone when the
    /// main file is missing.
    pub fn store_jobs(&self, scope: StoreScope) -> Vec<StoreJob> {
        let find = |root: usize, path: &str| {
            self.files.iter().position(|f| f.root == root && f.path == path && f.status == FileStatus::Read)
        };
        self.files
            .iter()
            .enumerate()
            .filter(|(_, file)| {
                file.status == FileStatus::Read && matches!(file.kind, FileKind::Store | FileKind::StoreWal)
            })
            .filter_map(|(index, file)| {
                let main_path = file.path.trim_end_matches("-wal").to_string();
                let (main, wal) = (find(file.root, &main_path), find(file.root, &format!("{main_path}-wal")));
                // A log is read with its main file.
                (file.kind == FileKind::Store || main.is_none()).then(|| StoreJob {
                    index,
                    root: file.root,
                    main: main.map(|at| (at, self.files[at].listed_path.clone(), self.files[at].size)),
                    wal: wal.map(|at| (at, self.files[at].listed_path.clone())),
                    scope: scope.clone(),
                    scanned_wal: None,
                })
            })
            .collect()
    }

    /// Takes a store read back: file statuses, the sessions it names, its held rows and its
    /// per-call rows.
    pub fn add_store(&mut self, read: StoreRead) {
        let StoreRead { job, result, ledgers } = read;
        let wal = job.wal.as_ref().map(|(at, _)| *at);
        for (session, ledger) in ledgers {
            self.session(&session, job.root, "session-store.db");
            // The same session in two stores (two roots): the one with more calls counts.
            match self.store_ledgers.entry(session) {
                std::collections::btree_map::Entry::Vacant(entry) => {
                    entry.insert(ledger);
                }
                std::collections::btree_map::Entry::Occupied(mut entry) => {
                    if ledger.calls.requests > entry.get().calls.requests {
                        entry.insert(ledger);
                    }
                }
            }
        }
        let contents = match result {
            Ok(contents) => contents,
            Err(failure) => {
                if let (Some(wal), Some(problem)) = (wal, failure.wal_problem) {
                    self.files[wal].fail(problem);
                }
                // Without a main file, the -wal entry carries the failure.
                self.files[job.index].fail(failure.message);
                return;
            }
        };
        if let Some(wal) = wal {
            self.files[wal].wal = contents.wal.clone();
            if let Some(problem) = &contents.wal_problem {
                self.files[wal].fail(problem.clone());
            }
        }
        let file = &mut self.files[job.index];
        file.tables = Some(contents.tables.clone());
        if !contents.problems.is_empty() {
            file.message = Some(contents.problems.join("; "));
        }
        for session in &contents.sessions {
            let facts = self.session(&session.id, job.root, "session-store.db");
            if facts.store.is_none() {
                facts.store = Some(Box::new(session.clone()));
            }
        }
        let mut session_ids = contents.session_ids.clone();
        session_ids.extend(contents.rows.iter().filter_map(|row| match row {
            HeldRow::Row(row) => Some(row.session_id.clone()),
            HeldRow::Turn(_) => None,
        }));
        for id in session_ids.iter().filter(|id| !id.is_empty()) {
            self.session(id, job.root, "session-store.db");
        }
        self.hold_rows(job.index, contents.rows);
    }

    /// Phase 2's work list: the event logs, in path order.
    pub fn log_tasks(&self) -> Vec<LogTask> {
        self.files
            .iter()
            .enumerate()
            .filter(|(_, file)| file.kind == FileKind::EventsLog && file.status == FileStatus::Read)
            .map(|(index, file)| {
                let session_id = file.session_id.clone().unwrap_or_default();
                let facts = self.sessions.get(&session_id);
                LogTask {
                    file: index,
                    root: file.root,
                    listed_path: file.listed_path.clone(),
                    source: file.path.clone(),
                    fallback_project: facts.map(|f| f.fallback_project().to_string()).unwrap_or_default(),
                    fallback_branch: facts.map(|f| f.fallback_branch().to_string()).unwrap_or_default(),
                    session_id,
                }
            })
            .collect()
    }

    /// Takes a parsed log back, in `log_tasks` order.
    pub fn add_log(&mut self, task: &LogTask, outcome: LogOutcome, tally: Tally) {
        let file = &mut self.files[task.file];
        file.rows = tally.rows;
        file.lines = Some(outcome.account.clone());
        if let Some(error) = &outcome.read_error {
            file.fail(format!("reading stopped: {error}"));
        }
        self.tally.merge(tally);
        let home = &mut self.homes[task.root];
        for (name, counts) in &outcome.tools {
            let entry = home.tools.entry(name.clone()).or_default();
            entry.calls += counts.calls;
            entry.failures += counts.failures;
        }
        home.mcp_from_events.extend(outcome.mcp_servers.iter().cloned());
        home.skills.extend(outcome.skills.iter().cloned());
        let facts = self.session(&task.session_id, task.root, "events.jsonl");
        facts.log.get_or_insert_with(Default::default).merge(outcome.summary);
        if let Some(ledger) = outcome.usage {
            facts.add_log_usage(ledger);
        }
    }

    /// Phase 3: the held rows, deduplicated and joined, then the other outputs. The reader is
    /// needed again for the store's turns that survive deduplication.
    pub fn finish(mut self, reader: &mut dyn FileReader, sink: &mut dyn RowSink) -> Outputs {
        let mut held = std::mem::take(&mut self.held_rows);
        for (&index, rows) in held.iter_mut() {
            let stamp = mtime_text(self.files[index].modified_ms);
            for row in rows.iter_mut() {
                if let HeldRow::Row(row) = row
                    && row.at_file_time
                {
                    row.timestamp_utc.clone_from(&stamp);
                }
            }
        }
        let mut primary = std::mem::take(&mut self.tally.keys);
        let mut candidates = Vec::new();
        for (&index, rows) in &held {
            for row in rows {
                match row {
                    _ if self.files[index].is_secondary() => candidates.push(row.candidate()),
                    HeldRow::Row(row) if dedup::has_secondary_copies(row.turn_type, &row.text) => {
                        primary.add(&row.session_id, row.turn_type, &row.text, row.millis())
                    }
                    _ => {}
                }
            }
        }
        let mut keep = dedup::keep_secondary(primary, &candidates, dedup::SECONDARY_TOLERANCE_MS).into_iter();

        let mut kept = 0;
        let mut dropped = 0;
        for (index, rows) in held {
            let secondary = self.files[index].is_secondary();
            let total = rows.len() as u64;
            let rows: Vec<HeldRow> = rows.into_iter().filter(|_| !secondary || keep.next().unwrap_or(true)).collect();
            let file_dropped = total - rows.len() as u64;
            let turns = if rows.iter().any(|row| matches!(row, HeldRow::Turn(_))) {
                self.reopen_store(index, reader)
            } else {
                None
            };
            let source = self.files[index].path.clone();
            let before = self.tally.rows;
            for row in rows {
                let mut row = match row {
                    HeldRow::Row(row) => row,
                    HeldRow::Turn(turn) => match turns.as_ref().map(|reader| reader.read(&turn)) {
                        Some(Ok(row)) => row,
                        Some(Err(message)) => {
                            self.files[index].fail(message);
                            continue;
                        }
                        None => continue,
                    },
                };
                if let Some(facts) = self.sessions.get(&row.session_id).filter(|_| !row.session_id.is_empty()) {
                    if row.project_path.is_empty() {
                        row.project_path = facts.project().to_string();
                    }
                    if row.git_branch.is_empty() {
                        row.git_branch = facts.branch().to_string();
                    }
                }
                let row = Row {
                    agent: AGENT,
                    timestamp_utc: row.timestamp_utc.as_str().into(),
                    session_id: &row.session_id,
                    project_path: &row.project_path,
                    git_branch: &row.git_branch,
                    model: &row.model,
                    tool_name: &row.tool_name,
                    tool_use_id: &row.tool_use_id,
                    turn_type: row.turn_type,
                    text: row.text.as_str().into(),
                    source: &source,
                    source_line: row.source_line,
                    mark: row.mark,
                    locator: None,
                };
                self.tally.observe(&row, false);
                sink.push(&row);
            }
            let file = &mut self.files[index];
            file.rows = self.tally.rows - before;
            file.rows_deduplicated = file_dropped;
            if secondary {
                kept += file.rows;
                dropped += file_dropped;
            }
        }
        self.outputs(kept, dropped)
    }

    /// The store of held file `index`, opened again to read its kept turns whole.
    fn reopen_store(&mut self, index: usize, reader: &mut dyn FileReader) -> Option<store::TurnReader> {
        let file = &self.files[index];
        let root = file.root;
        let find = |path: &str| self.files.iter().position(|f| f.root == root && f.path == path);
        let main_path = file.path.trim_end_matches("-wal").to_string();
        let (main, wal) = (find(&main_path), find(&format!("{main_path}-wal")));
        let mut files = StoreOnDisk {
            reader,
            root,
            main: main.map(|at| (self.files[at].listed_path.clone(), self.files[at].size)),
            wal: wal.map(|at| self.files[at].listed_path.clone()),
            scanned_wal: None,
        };
        match store::TurnReader::open(&mut files) {
            Ok(turns) => Some(turns),
            Err(message) => {
                self.files[index].fail(format!("reading kept turns again: {message}"));
                None
            }
        }
    }

    fn outputs(mut self, secondary_kept: u64, secondary_dropped: u64) -> Outputs {
        for (session, counts) in std::mem::take(&mut self.tally.sessions) {
            if let Some(facts) = self.sessions.get_mut(&session) {
                facts.counts.add(&counts);
            }
        }
        let usage = self.finish_usage();
        let records: BTreeMap<String, SessionRecord> = self
            .sessions
            .iter()
            .map(|(id, facts)| {
                let mut record = facts.record(id);
                record.usage = usage.ledgers.get(id).map(|ledger| summary::session_usage(ledger, &usage.rates));
                (id.clone(), record)
            })
            .collect();
        let labels: Vec<String> = self.roots.iter().map(|root| root.label.clone()).collect();
        let inventory = inventory::build(&labels, &self.homes, &self.sessions, &records);
        let report = self.report(secondary_kept, secondary_dropped);
        Outputs { sessions: records.into_values().collect(), inventory, report, usage }
    }

    /// Closes every session's ledger: the store's per-call rows stand in for a log's missing
    /// records, and recover the usage of sessions whose log is gone.
    fn finish_usage(&mut self) -> UsageData {
        let mut store_ledgers = std::mem::take(&mut self.store_ledgers);
        let mut ledgers = BTreeMap::new();
        let mut unknown = Vec::new();
        for (id, facts) in &mut self.sessions {
            let log_exists = facts.has_events_log();
            let store = store_ledgers.remove(id.as_str());
            if !log_exists && store.is_none() {
                continue;
            }
            let mut ledger = facts.usage.take().unwrap_or_else(|| SessionLedger::new(self.options.zone));
            if let Some(store) = &store {
                ledger.add_store_calls(store);
            }
            ledger.finish(log_exists);
            if log_exists && ledger.checkpoints == 0 && ledger.entries.is_empty() {
                unknown.push(id.clone());
            }
            ledgers.insert(id.clone(), ledger);
        }
        UsageData { ledgers, unknown, rates: self.options.rates.clone() }
    }

    /// A usage-only run on one thread: the store's per-call rows and, from each log, only the
    /// lines that carry counters (see `usage::scan`). Rows, sessions and report are not built.
    pub fn usage_only(mut self, reader: &mut dyn FileReader) -> UsageOnly {
        for task in self.log_tasks() {
            let scanned = task.scan_usage(reader, &self.options);
            self.add_usage_scan(&task, scanned);
        }
        let jobs = self.usage_store_jobs();
        self.read_store_usage(reader, jobs);
        self.finish_usage_only()
    }

    /// A usage-only run's last reading step, after the log scans: the store's per-call rows
    /// of the sessions whose logs have none of their own (logs without records, and logs
    /// that are gone).
    /// `jobs` come from `usage_store_jobs`, their logs perhaps scanned ahead during the scans.
    pub fn read_store_usage(&mut self, reader: &mut dyn FileReader, jobs: Vec<StoreJob>) {
        let known: std::collections::BTreeSet<String> = self
            .sessions
            .iter()
            .filter(|(_, facts)| facts.usage.as_ref().is_some_and(|ledger| ledger.calls.requests > 0))
            .map(|(id, _)| id.clone())
            .collect();
        for mut job in jobs {
            job.scope = StoreScope::UsageExcept(known.clone());
            let read = job.read(reader, &self.options);
            self.add_store(read);
        }
    }

    /// The stores a usage-only run reads after its scans (which set their scope).
    pub fn usage_store_jobs(&self) -> Vec<StoreJob> {
        self.store_jobs(StoreScope::UsageExcept(Default::default()))
    }

    /// Takes a usage scan back (any order).
    pub fn add_usage_scan(&mut self, task: &LogTask, scanned: UsageScan) {
        self.usage_stats.bytes += scanned.stats.bytes;
        self.usage_stats.parsed += scanned.stats.parsed;
        self.usage_stats.bad += scanned.stats.bad;
        if let Some(error) = scanned.error {
            self.files[task.file].fail(error);
        }
        self.session(&task.session_id, task.root, "events.jsonl").add_log_usage(scanned.ledger);
    }

    pub fn finish_usage_only(mut self) -> UsageOnly {
        let problems = self
            .files
            .iter()
            .filter_map(|file| file.message.as_ref().map(|message| format!("{}: {message}", file.path)))
            .collect();
        // The logs' bytes as scanned, and the store's files.
        let store_bytes: u64 = self
            .files
            .iter()
            .filter(|file| matches!(file.kind, FileKind::Store | FileKind::StoreWal))
            .map(|file| file.size)
            .sum();
        let bytes_read = self.usage_stats.bytes + store_bytes;
        UsageOnly { usage: self.finish_usage(), stats: self.usage_stats, problems, bytes_read }
    }

    fn report(self, secondary_rows_kept: u64, secondary_rows_deduplicated: u64) -> Report {
        let mut totals = Totals {
            files_found: self.files.len() as u64 + self.excluded.values().map(|(files, _)| files).sum::<u64>(),
            rows: self.tally.rows,
            secondary_rows_kept,
            secondary_rows_deduplicated,
            sessions: self.sessions.len() as u64,
            ..Totals::default()
        };
        for turn_type in TurnType::ALL {
            totals
                .rows_by_turn_type
                .insert(turn_type.as_str().to_string(), self.tally.by_turn_type[turn_type as usize]);
        }
        for file in &self.files {
            match file.status {
                FileStatus::Read => totals.files_read += 1,
                FileStatus::Error => totals.files_with_errors += 1,
                _ => {}
            }
            if let Some(lines) = &file.lines {
                totals.event_lines += lines.lines;
                totals.event_lines_with_rows += lines.with_rows;
                totals.event_lines_skipped += lines.skipped_by_rule.values().sum::<u64>();
                totals.event_lines_unknown_type += lines.unknown_types.values().sum::<u64>();
                totals.bad_lines += lines.bad_lines;
            }
        }
        Report {
            roots: self
                .roots
                .into_iter()
                .map(|root| RootReport {
                    label: root.label,
                    layout: root.layout,
                    files_listed: root.files_listed,
                    outside_files: root.outside_files,
                    outside_bytes: root.outside_bytes,
                    problems: root.problems,
                })
                .collect(),
            files: self
                .files
                .into_iter()
                .map(|file| FileReport {
                    root: file.root,
                    path: file.path,
                    kind: file.kind,
                    status: file.status,
                    size: file.size,
                    message: file.message,
                    rows: file.rows,
                    rows_deduplicated: file.rows_deduplicated,
                    lines: file.lines,
                    wal: file.wal,
                    tables: file.tables,
                })
                .collect(),
            excluded_trees: self
                .excluded
                .into_iter()
                .map(|((root, tree), (files, bytes))| ExcludedTree { root, tree, files, bytes })
                .collect(),
            totals,
        }
    }
}
