//! Step 3: the event logs, one task each, parsed by their source on any thread and taken
//! back in order.

use std::collections::BTreeMap;
use std::io::BufReader;

use super::Options;
use super::plan::Parsing;
use crate::dedup::{self, PrimaryKeys};
use crate::input::FileReader;
use crate::model::{HeldRow, Row, RowSink};
use crate::report::DiagnosticKind;
use crate::sessions::SessionCounts;
use crate::sources::log::ScanStats;
use crate::sources::log::{LogContext, LogOutcome};
use crate::sources::{Role, SOURCES, Source, SourceId};
use crate::usage::ledger::SessionLedger;

/// One event log to parse, with what its rows need from the other files.
#[derive(Clone, Debug)]
pub struct LogTask {
    pub file: usize,
    pub root: usize,
    /// The source whose log it is.
    pub source_id: SourceId,
    pub listed_path: String,
    pub session_id: String,
    pub source: String,
    pub fallback_project: String,
    pub fallback_branch: String,
}

impl LogTask {
    pub fn source(&self) -> &'static dyn Source {
        SOURCES[self.source_id]
    }

    pub fn context<'a>(&'a self, options: &'a Options) -> LogContext<'a> {
        LogContext {
            agent: self.source().agent(),
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
            .and_then(|mut file| self.source().scan_usage(&mut file, &mut ledger, &options.rates));
        match scanned {
            Ok(stats) => UsageScan { ledger, stats, error: None },
            Err(error) => UsageScan { ledger, stats: ScanStats::default(), error: Some(error.to_string()) },
        }
    }

    /// Opens and parses the log; an unopenable log gives an outcome with its error.
    pub fn parse(&self, reader: &mut dyn FileReader, options: &Options, sink: &mut dyn RowSink) -> LogOutcome {
        match reader.open(self.root, &self.listed_path) {
            Ok(file) => {
                let mut lines = BufReader::with_capacity(1 << 18, file);
                self.source().parse_log(&self.context(options), &mut lines, sink)
            }
            Err(error) => LogOutcome { read_error: Some(error.to_string()), ..LogOutcome::default() },
        }
    }

    /// Parses the log from its bytes (read by someone else: the page).
    pub fn parse_bytes(&self, mut bytes: &[u8], options: &Options, sink: &mut dyn RowSink) -> LogOutcome {
        self.source().parse_log(&self.context(options), &mut bytes, sink)
    }
}

/// One log's usage scan.
#[derive(Debug)]
pub struct UsageScan {
    pub ledger: SessionLedger,
    pub stats: ScanStats,
    pub error: Option<String>,
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
    pub(super) fn observe(&mut self, row: &Row<'_>, record_key: bool) {
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

/// A sink that tallies each event-log row (primary: its key is what secondary rows are
/// checked against) on its way to another sink.
pub struct TallySink<'a> {
    tally: &'a mut Tally,
    inner: &'a mut dyn RowSink,
}

impl<'a> TallySink<'a> {
    pub fn new(tally: &'a mut Tally, inner: &'a mut dyn RowSink) -> Self {
        TallySink { tally, inner }
    }
}

impl RowSink for TallySink<'_> {
    fn push(&mut self, row: &Row<'_>) {
        self.tally.observe(row, true);
        self.inner.push(row);
    }
}

impl Parsing {
    pub fn options(&self) -> &Options {
        &self.state.options
    }

    /// Step 3's work list: the event logs, in path order, with the project and branch their
    /// rows fall back on (known since step 2).
    pub fn log_tasks(&self) -> Vec<LogTask> {
        self.state.log_tasks()
    }

    /// Takes a parsed log back, in `log_tasks` order.
    pub fn add_log(&mut self, task: &LogTask, outcome: LogOutcome, tally: Tally) {
        let file = &mut self.state.files[task.file];
        file.rows = tally.rows;
        file.lines = Some(outcome.account.clone());
        if let Some(error) = &outcome.read_error {
            self.state.fail(task.file, DiagnosticKind::ReadStopped, format!("reading stopped: {error}"));
        }
        self.state.tally.merge(tally);
        let home = &mut self.state.homes[task.root];
        for (name, counts) in &outcome.tools {
            let entry = home.tools.entry(name.clone()).or_default();
            entry.calls += counts.calls;
            entry.failures += counts.failures;
        }
        home.mcp_from_events.extend(outcome.mcp_servers.iter().cloned());
        home.skills.extend(outcome.skills.iter().cloned());
        let mut usage = outcome.usage;
        if let Some(ledger) = &mut usage {
            let file = &self.state.files[task.file].path;
            let problems: Vec<_> =
                ledger.take_problems().into_iter().map(|problem| problem.diagnostic(file, None)).collect();
            self.state.diagnostics.extend(problems);
        }
        let facts = self.state.session(&task.session_id, task.root, task.source().agent(), "events.jsonl");
        facts.log.get_or_insert_with(Default::default).merge(outcome.summary);
        if let Some(ledger) = usage {
            facts.add_log_usage(ledger);
        }
    }

    /// Files whose rows are at their modification time, where the listing did not give it
    /// (see `set_file_time`).
    pub fn files_needing_times(&self) -> impl Iterator<Item = (usize, &str)> {
        self.state
            .held_rows
            .iter()
            .filter(|(index, rows)| {
                self.state.files[**index].modified_ms.is_none()
                    && rows.iter().any(|row| matches!(row, HeldRow::Row(row) if row.at_file_time))
            })
            .map(|(&index, _)| (self.state.files[index].root, self.state.files[index].listed_path.as_str()))
    }

    /// Sets a file's modification time learnt after it was read.
    pub fn set_file_time(&mut self, root: usize, listed_path: &str, modified_ms: i64) {
        let path = self.state.roots.get(root).and_then(|state| state.rebase.apply(listed_path));
        if let Some(index) = path.and_then(|path| self.state.file_index(root, &path)) {
            self.state.files[index].modified_ms = Some(modified_ms);
        }
    }
}

impl super::state::State {
    /// The event logs as tasks, in path order, with the fallbacks known so far.
    pub(super) fn log_tasks(&self) -> Vec<LogTask> {
        self.read_files()
            .filter(|(_, file)| file.kind.role == Role::EventLog)
            .map(|(index, file)| {
                let session_id = file.session_id.clone().unwrap_or_default();
                let facts = self.sessions.get(&session_id);
                LogTask {
                    file: index,
                    root: file.root,
                    source_id: file.source,
                    listed_path: file.listed_path.clone(),
                    source: file.path.clone(),
                    fallback_project: facts.map(|f| f.fallback_project().to_string()).unwrap_or_default(),
                    fallback_branch: facts.map(|f| f.fallback_branch().to_string()).unwrap_or_default(),
                    session_id,
                }
            })
            .collect()
    }
}
