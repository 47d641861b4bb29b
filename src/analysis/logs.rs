//! Step 3: the event logs, one task each, parsed by their source on any thread, and a parsed
//! log added to the analysis (in task order: `queue.rs` alone calls `add_log`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{self, BufReader, Read};

use super::Options;
use super::state::State;
use super::tally::{Copies, CopyKeys, Tally};
use crate::facts::diagnostics::{Diagnostic, DiagnosticKind};
use crate::facts::files::Role;
use crate::facts::log::LogSummary;
use crate::facts::session::SessionFacts;
use crate::input::Stat;
use crate::input::{FileReader, ReadAt};
use crate::model::{HeldRow, RowSink};
use crate::report::FormatDrift;
use crate::sources::log::ScanStats;
use crate::sources::log::{LogContext, LogOutcome};
use crate::sources::{SOURCES, Source, SourceId};
use crate::usage::ledger::SessionLedger;
use crate::words::counted;

/// Where a log's bytes come from: the reader, or bytes read by someone else (the page).
pub enum LogInput<'a> {
    Reader(&'a mut dyn FileReader),
    Bytes(&'a [u8]),
}

/// One event log to parse, with what its rows need from the other files.
#[derive(Clone, Debug)]
pub struct LogTask {
    pub file: usize,
    pub root: usize,
    pub home: usize,
    /// The source whose log it is.
    pub source_id: SourceId,
    pub listed_path: String,
    pub session_id: String,
    /// The log was given alone (no home): `session_id` stands in for the one it names.
    pub session_id_from_log: bool,
    pub source: String,
    pub fallback_project: String,
    pub fallback_branch: String,
    /// The session's client (`SessionFacts::client_name`), for its rows.
    pub client_name: String,
    /// Where the log stands among copies of its session's log.
    pub copies: Copies,
    /// Its size as listed: what a sink keeping its rows' bytes may reserve at once.
    pub size: u64,
}

/// Step 2 done: every file but the event logs is read, so the logs' fallbacks are known.
pub struct Parsing {
    pub(super) state: State,
}

impl LogTask {
    pub fn source(&self) -> &'static dyn Source {
        SOURCES[self.source_id]
    }

    pub fn context<'a>(&'a self, options: &'a Options) -> LogContext<'a> {
        LogContext {
            agent: self.source().agent(),
            session_id: &self.session_id,
            session_id_from_log: self.session_id_from_log,
            source: &self.source,
            fallback_project: &self.fallback_project,
            fallback_branch: &self.fallback_branch,
            client_name: &self.client_name,
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
            .and_then(|mut file| self.source().scan_usage(&self.source, &mut file, &mut ledger, &options.rates));
        match scanned {
            Ok(stats) => UsageScan { ledger, stats, error: None, cache_ignored: None },
            Err(error) => {
                UsageScan { ledger, stats: ScanStats::default(), error: Some(error.to_string()), cache_ignored: None }
            }
        }
    }

    /// Opens and parses the log; an unopenable log gives an outcome with its error.
    pub fn parse(&self, reader: &mut dyn FileReader, options: &Options, sink: &mut dyn RowSink) -> LogOutcome {
        self.parse_input(LogInput::Reader(reader), options, sink)
    }

    /// Parses the log from its bytes (read by someone else: the page).
    pub fn parse_bytes(&self, bytes: &[u8], options: &Options, sink: &mut dyn RowSink) -> LogOutcome {
        self.parse_input(LogInput::Bytes(bytes), options, sink)
    }

    /// Parses the log from the reader or from bytes.
    pub fn parse_input(&self, input: LogInput<'_>, options: &Options, sink: &mut dyn RowSink) -> LogOutcome {
        let context = self.context(options);
        match input.open(self) {
            Ok(LogBytes::Read(file)) => {
                self.source().parse_log(&context, &mut BufReader::with_capacity(READ_BUFFER_BYTES, file), sink)
            }
            Ok(LogBytes::Given(mut bytes)) => self.source().parse_log(&context, &mut bytes, sink),
            Err(error) => unopened(error),
        }
    }
}

/// A log's bytes from its start, as its input gives them (`LogInput::open`).
pub(crate) enum LogBytes<'a> {
    Read(Box<dyn Read + 'a>),
    Given(&'a [u8]),
}

impl<'a> LogInput<'a> {
    /// The log of `task` from its start: opened from its root, or as given.
    pub(crate) fn open(self, task: &LogTask) -> io::Result<LogBytes<'a>> {
        match self {
            LogInput::Reader(reader) => Ok(LogBytes::Read(reader.open(task.root, &task.listed_path)?)),
            LogInput::Bytes(bytes) => Ok(LogBytes::Given(bytes)),
        }
    }
}

/// How much of a log is read at a time.
pub(crate) const READ_BUFFER_BYTES: usize = 1 << 18;

/// The outcome of a log that could not be opened.
pub(crate) fn unopened(error: io::Error) -> LogOutcome {
    LogOutcome { read_error: Some(error.to_string()), ..LogOutcome::default() }
}

impl<'a> LogInput<'a> {
    /// The log's bytes at any offset, where its input gives them (a zip's entry does not).
    pub fn positional(&mut self, task: &LogTask) -> Option<io::Result<Box<dyn ReadAt + 'a>>> {
        match self {
            LogInput::Reader(reader) => reader.open_at(task.root, &task.listed_path),
            LogInput::Bytes(bytes) => Some(Ok(Box::new(*bytes))),
        }
    }
}

/// One log's usage scan.
#[derive(Clone, Debug)]
pub struct UsageScan {
    pub ledger: SessionLedger,
    pub stats: ScanStats,
    pub error: Option<String>,
    /// Why the log's cache entry was ignored (`crate::cache`), for its diagnostic.
    pub cache_ignored: Option<String>,
}

impl Parsing {
    pub fn options(&self) -> &Options {
        &self.state.options
    }

    /// The tally a log's rows go through (`TallySink`): a later copy's holds the rows the
    /// copies before it gave, so it is made once those are added (`LogQueue`).
    pub(super) fn tally_for(&mut self, task: &LogTask) -> Tally {
        let copy_keys = match task.copies {
            Copies::Later { first } => self.state.copy_keys.remove(&first).unwrap_or_default(),
            Copies::Only | Copies::First | Copies::RowsHeldBy { .. } => CopyKeys::default(),
        };
        Tally::new(task.copies, copy_keys)
    }

    /// Adds a parsed log to the analysis, in task order (`LogQueue`).
    pub(super) fn add_log(&mut self, task: &LogTask, outcome: LogOutcome, mut tally: Tally) {
        let file = &mut self.state.files[task.file];
        file.rows = tally.rows;
        file.rows_deduplicated = tally.copies_dropped;
        file.lines = Some(outcome.account.clone());
        if !outcome.account.unknown_types.is_empty() {
            let source = task.source();
            let version = outcome.summary.copilot_version.clone().unwrap_or_default();
            FormatDrift::count(&mut self.state.format_drift, source, version, &outcome.account.unknown_types);
        }
        if let Some(error) = &outcome.read_error {
            self.state.fail(task.file, DiagnosticKind::ReadStopped, format!("reading stopped: {error}"));
        }
        let path = &self.state.files[task.file].path;
        let problems = outcome.problems.iter().map(|problem| Diagnostic {
            home: Some(task.home),
            file: path.clone(),
            line: problem.line,
            kind: problem.kind,
            message: problem.message.clone(),
        });
        self.state.diagnostics.extend(problems.collect::<Vec<_>>());
        if let Some(first) = task.copies.first().or((task.copies == Copies::First).then_some(task.file)) {
            self.state.copy_keys.insert(first, std::mem::take(&mut tally.copy_keys));
        }
        if let Some(message) = self.copies_said(task.copies, &tally) {
            self.state.warn(task.file, DiagnosticKind::Duplicate, message);
        }
        let days = std::mem::take(&mut tally.row_days);
        let far_days = days.implausible(self.state.options.today, task.home, &self.state.files[task.file].path);
        self.state.diagnostics.extend(far_days);
        self.state.tally.merge(tally);
        let home = self.state.homes[task.home].facts_of(task.source().agent());
        for (name, counts) in &outcome.tools {
            home.tools.entry(name.clone()).or_default().add(counts);
        }
        crate::facts::log::add_mcp_calls(&mut home.mcp_calls, &outcome.mcp_calls);
        for (skill, uses) in &outcome.skill_uses {
            home.skill_uses.entry(skill.clone()).or_default().add(uses);
        }
        for (agent, uses) in &outcome.agent_uses {
            *home.agent_uses.entry(agent.clone()).or_default() += uses;
        }
        let mut usage = outcome.usage;
        if let Some(ledger) = &mut usage {
            (ledger.home, ledger.file) = (task.home, Some(task.file));
            let file = &self.state.files[task.file].path;
            let problems: Vec<_> =
                ledger.take_problems().into_iter().map(|problem| problem.diagnostic(task.home, file, None)).collect();
            self.state.diagnostics.extend(problems);
        }
        // A log given alone names its own session.
        let session_id = outcome.summary.session_id.clone().unwrap_or_else(|| task.session_id.clone());
        let file = &self.state.files[task.file];
        if file.session_id.is_none() && !self.state.places.rebases[task.home].is_loose_logs() {
            let named = match &outcome.summary.session_id {
                Some(id) => format!("read as session {id}, the id its log names"),
                None => format!("its log names no session: read as session {session_id}"),
            };
            let message = format!("a session folder not named by a session id: {named}");
            self.state.diagnostics.push(Diagnostic {
                home: Some(task.home),
                file: file.path.clone(),
                line: None,
                kind: DiagnosticKind::UnexpectedPlace,
                message,
            });
        }
        let source = task.source();
        let facts = self.state.session(&session_id, task.home, source.agent(), source.log_found_in());
        let summary = LogSummary { lines: outcome.account.lines, ..outcome.summary };
        facts.log.get_or_insert_with(Default::default).merge(summary);
        if let Some(ledger) = usage {
            facts.add_log_usage(ledger);
        }
    }

    /// What the rows a log left out as another log's say (`Copies`): a later copy's, given
    /// already by the copies before it, and those of a log whose rows another holds.
    fn copies_said(&self, copies: Copies, tally: &Tally) -> Option<String> {
        let dropped = || counted(tally.copies_dropped, "row", "rows");
        match copies {
            Copies::Later { first } => Some(format!(
                "the same session as {}: {} already there, not repeated; {} added",
                self.state.file_label(first),
                dropped(),
                counted(tally.rows, "row", "rows"),
            )),
            Copies::RowsHeldBy { primary } if tally.copies_dropped > 0 => Some(format!(
                "{} left to the session's {}, which holds the same texts (this log's usage counts)",
                dropped(),
                self.state.file_label(primary),
            )),
            _ => None,
        }
    }

    /// The files step 4 reads whole before the joins (`Role::LateMetadata`), `(root, listed
    /// path)`, now that the metadata has said which of them hold nothing (`Importing::not_needed`).
    pub fn late_metadata_files(&self) -> impl Iterator<Item = (usize, &str)> {
        self.state.late_metadata_files()
    }

    /// Files whose rows are at their modification time, where the listing did not give it
    /// (see `set_file_time`).
    pub fn files_needing_times(&self) -> impl Iterator<Item = (usize, &str)> {
        let files = &self.state.files;
        let rows_dated = self.state.held_rows.iter().filter_map(|(&index, rows)| {
            rows.iter().any(|row| matches!(row, HeldRow::Row(row) if row.at_file_time)).then_some(index)
        });
        let dated: BTreeSet<usize> = rows_dated.chain(self.state.dated_files.iter().copied()).collect();
        dated
            .into_iter()
            .filter(|&index| files[index].modified_ms.is_none())
            .map(|index| (files[index].root, files[index].listed_path.as_str()))
    }

    /// A file handed over while the logs are parsed (one read after them, `Role::LateMetadata`):
    /// as `Planned::set_file_facts`.
    pub fn set_file_facts(&mut self, root: usize, listed_path: &str, size: u64, modified_ms: Option<i64>) -> bool {
        self.state.set_file_facts(root, listed_path, size, modified_ms)
    }

    /// `Planned::listed_stat`, for the files read after the logs and the logs themselves.
    pub fn listed_stat(&self, root: usize, listed_path: &str) -> Option<Stat> {
        self.state.listed_stat(root, listed_path)
    }

    /// Sets a file's modification time learnt after it was read.
    pub fn set_file_time(&mut self, root: usize, listed_path: &str, modified_ms: i64) {
        let found = self.state.places.find(root, listed_path);
        if let Some(index) = found.and_then(|(home, path)| self.state.file_index(home, &path)) {
            self.state.files[index].modified_ms = Some(modified_ms);
        }
    }
}

impl State {
    /// The event logs in the order step 3 takes them: path order, except that the later copies
    /// of a session's log (the same session in several homes) come after all the others. A
    /// copy is the same kind of log of the session under the same name (its extension aside:
    /// VS Code's `.json` and `.jsonl` of a chat); a session's other logs (VS Code's debug logs
    /// beside its chat) are logs of their own. A secondary log whose session a primary log
    /// gives has its rows held by that log (`Copies::RowsHeldBy`).
    pub(super) fn log_order(&self) -> Vec<(usize, Copies)> {
        // Also keyed by `(source, "", id, "")` (no kind is named ""): the session's first primary log.
        // Sized for every log and its session's first: growing it was a quarter of `log_tasks`' time.
        let mut first_of: HashMap<(SourceId, &str, &str, &str), usize> = HashMap::with_capacity(2 * self.files.len());
        let (mut order, mut later) = (Vec::new(), Vec::new());
        for (index, file) in self.read_files().filter(|(_, file)| file.kind.role == Role::EventLog) {
            let name = file.path.rsplit('/').next().unwrap_or_default();
            let stem = name.split('.').next().unwrap_or_default();
            let id = file.session_id.as_deref().unwrap_or_default();
            let primary = (file.source, "", id, "");
            if !file.kind.secondary && !id.is_empty() && !first_of.contains_key(&primary) {
                first_of.insert(primary, index);
            }
            let session = (file.source, file.kind.name, id, stem);
            match first_of.get(&session) {
                Some(&first) if !id.is_empty() => later.push((index, Copies::Later { first })),
                _ => {
                    first_of.insert(session, index);
                    order.push((index, Copies::Only));
                }
            }
        }
        let copied: HashSet<usize> = later.iter().filter_map(|&(_, copies)| copies.first()).collect();
        for (index, copies) in &mut order {
            if copied.contains(index) {
                *copies = Copies::First;
            }
        }
        order.extend(later);
        for (index, copies) in &mut order {
            let file = &self.files[*index];
            let id = file.session_id.as_deref().unwrap_or_default();
            if let Some(&primary) = first_of.get(&(file.source, "", id, "")).filter(|_| file.kind.secondary) {
                *copies = Copies::RowsHeldBy { primary };
            }
        }
        order
    }

    /// The project a folder holding the log names for it (VS Code's `workspace.json`).
    fn folder_project(&self, home: usize, source: SourceId, path: &str) -> Option<&str> {
        let projects = &self.homes[home].facts.get(SOURCES[source].agent())?.folder_projects;
        let mut folder = path;
        while let Some((parent, _)) = folder.rsplit_once('/') {
            if let Some(project) = projects.get(parent) {
                return Some(project);
            }
            folder = parent;
        }
        None
    }

    /// The event logs as tasks, in `log_order`, with the fallbacks known so far.
    pub(super) fn log_tasks(&self) -> Vec<LogTask> {
        self.log_order()
            .into_iter()
            .map(|(index, copies)| {
                let file = &self.files[index];
                // A log outside a folder named by its session (given alone, or in a folder under
                // another name) is read under the session it names, with a stand-in until then.
                let named_by_place = file.session_id.is_some();
                let session_id =
                    file.session_id.clone().unwrap_or_else(|| crate::sources::stand_in_session_id(&file.path));
                let facts = self.sessions.get(&session_id);
                LogTask {
                    file: index,
                    root: file.root,
                    home: file.home,
                    source_id: file.source,
                    listed_path: file.listed_path.clone(),
                    source: file.path.clone(),
                    fallback_project: facts
                        .map(|f| f.fallback_project())
                        .filter(|project| !project.is_empty())
                        .or_else(|| self.folder_project(file.home, file.source, &file.path))
                        .unwrap_or_default()
                        .to_string(),
                    fallback_branch: facts.map(|f| f.fallback_branch().to_string()).unwrap_or_default(),
                    client_name: facts.map(SessionFacts::client_shown).unwrap_or_default(),
                    session_id,
                    session_id_from_log: self.places.rebases[file.home].is_loose_logs() || !named_by_place,
                    copies,
                    size: file.size,
                }
            })
            .collect()
    }
}
