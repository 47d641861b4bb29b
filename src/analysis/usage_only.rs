//! A usage-only run, on the same plan as a whole analysis: from each event log only the lines
//! that carry counters (the source's `scan_usage`), then the stores' per-call rows of the
//! sessions whose logs have none of their own (logs without records, and logs that are gone).
//! Rows, sessions and the report are not built.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};

use super::logs::{LogTask, UsageScan};
use super::plan::Planned;
use super::state::State;
use super::stores::{AsTheyAre, StoreJob, StoreReading};
use super::{Options, UsageData};
use crate::facts::diagnostics::{Diagnostic, DiagnosticKind};
use crate::facts::files::Role;
use crate::input::FileReader;
use crate::lines;
use crate::order;
use crate::sources;
use crate::sources::log::ScanStats;
use crate::sources::store::StoreScope;
use crate::sources::store::wal::WalIndex;
use crate::usage::ledger::{CounterProblem, Place};

/// What a usage-only run found.
#[derive(Debug)]
pub struct UsageOnly {
    pub usage: UsageData,
    pub stats: ScanStats,
    /// Files that could not be read and lines that could not be, with where and why.
    pub problems: Vec<Diagnostic>,
    pub bytes_read: u64,
}

/// A usage-only run under way: the logs' scans first (any order, any thread), then the stores.
pub struct UsageRun {
    state: State,
    stats: ScanStats,
    /// Each scanned log's counter lines the report names (unreadable ones, and those the
    /// ledger found wanting), by file, in byte order.
    line_problems: Vec<(usize, Vec<CounterProblem>)>,
    /// The sessions whose logs had calls when the stores were read (`read_stores`).
    with_calls: BTreeSet<String>,
    /// The stores read as their files are, each with its log's scan, kept for a watch
    /// (`keep_stores`); none otherwise.
    stores_read: Option<Vec<(StoreJob, WalIndex)>>,
}

impl Planned {
    /// Starts a usage-only run instead of a whole analysis.
    pub fn usage_only(self) -> UsageRun {
        let with_calls = BTreeSet::new();
        let (stats, line_problems) = (ScanStats::default(), Vec::new());
        UsageRun { state: self.state, stats, line_problems, with_calls, stores_read: None }
    }
}

#[cfg(feature = "cli")]
mod live;
#[cfg(feature = "cli")]
pub use live::{LiveUsage, Written};

/// A usage-only run on one thread.
pub fn run(planned: Planned, reader: &mut dyn FileReader) -> UsageOnly {
    read(planned, reader).finish(reader)
}

/// A usage-only run on one thread up to its finish: every log scanned, the stores read.
pub fn read(planned: Planned, reader: &mut dyn FileReader) -> UsageRun {
    let mut run = planned.usage_only();
    for task in run.log_tasks() {
        let scanned = task.scan_usage(reader, run.options());
        run.add_scan(&task, scanned);
    }
    let jobs = run.store_jobs();
    run.read_stores(reader, jobs, &mut AsTheyAre);
    run
}

impl UsageRun {
    pub fn options(&self) -> &Options {
        &self.state.options
    }

    /// The logs to scan, in path order.
    pub fn log_tasks(&self) -> Vec<LogTask> {
        self.state.log_tasks()
    }

    /// The stores to read after the scans (which set their scope); their logs may be scanned
    /// ahead meanwhile (`StoreJob::scan_wal_ahead`).
    pub fn store_jobs(&self) -> Vec<StoreJob> {
        self.state.store_jobs(StoreScope::UsageExcept(BTreeSet::new()))
    }

    /// Keeps the stores as they are read, with their logs' scans made ahead, so that a
    /// `LiveUsage` can read on what is written to them.
    pub fn keep_stores(&mut self) {
        self.stores_read = Some(Vec::new());
    }

    /// Takes a log's scan back (any order).
    pub fn add_scan(&mut self, task: &LogTask, scanned: UsageScan) {
        self.stats.add(&scanned.stats);
        let mut ledger = scanned.ledger;
        (ledger.home, ledger.file) = (task.home, Some(task.file));
        let unreadable = scanned.stats.bad_offsets.iter().map(|&offset| CounterProblem {
            at: Place::Byte(offset),
            kind: DiagnosticKind::BadCounterLine,
            message: "a usage counter line that could not be read".to_string(),
        });
        let mut problems: Vec<CounterProblem> = unreadable.chain(ledger.take_problems()).collect();
        if !problems.is_empty() {
            order::sort_by_key(&mut problems, |problem| problem.at);
            self.line_problems.push((task.file, problems));
        }
        if let Some(error) = scanned.error {
            self.state.fail(task.file, DiagnosticKind::Unreadable, error);
        }
        if let Some(why) = scanned.cache_ignored {
            self.state.warn(task.file, DiagnosticKind::CacheIgnored, why);
        }
        let source = task.source();
        self.state.session(&task.session_id, task.home, source.agent(), source.log_found_in()).add_log_usage(ledger);
    }

    /// The stores' per-call rows of the sessions whose logs had none, each read as `stores`
    /// reads it.
    pub fn read_stores(&mut self, reader: &mut dyn FileReader, jobs: Vec<StoreJob>, stores: &mut dyn StoreReading) {
        let known: BTreeSet<String> =
            self.state.sessions.iter().filter(|(_, facts)| has_calls(facts)).map(|(id, _)| id.clone()).collect();
        for mut job in jobs {
            job.set_scope(StoreScope::UsageExcept(known.clone()));
            let index = self.stores_read.as_ref().and_then(|_| job.scanned_index());
            let listed_wal_size = job.wal.as_ref().map(|(at, _)| self.state.files[*at].size);
            let read = stores.read(job, reader, &self.state.options);
            if let (Some(kept), Some(index)) = (&mut self.stores_read, index)
                && read.read_as_scanned(&index, listed_wal_size)
            {
                kept.push((read.job.clone(), index));
            }
            self.state.add_store(read);
        }
        self.with_calls = known;
    }

    /// The usage, with every problem placed: a counter line's number is counted here, by
    /// reading its log again (only logs that have such a line).
    pub fn finish(mut self, reader: &mut dyn FileReader) -> UsageOnly {
        self.finish_in_place(reader)
    }

    fn finish_in_place(&mut self, reader: &mut dyn FileReader) -> UsageOnly {
        let usage = self.state.finish_usage(&mut self.line_problems);
        let mut problems = std::mem::take(&mut self.state.diagnostics);
        problems.extend(self.sessions_without_usage());
        // A file's problems in byte order, those of its scan and those of its days together.
        let mut by_file: BTreeMap<usize, Vec<CounterProblem>> = BTreeMap::new();
        for (index, line_problems) in std::mem::take(&mut self.line_problems) {
            by_file.entry(index).or_default().extend(line_problems);
        }
        for (index, mut line_problems) in by_file {
            order::sort_by_key(&mut line_problems, |problem| problem.at);
            let file = &self.state.files[index];
            // A scan places its lines by byte; a line already numbered keeps its number.
            let offsets: Vec<u64> = line_problems
                .iter()
                .map(|problem| match problem.at {
                    Place::Byte(offset) => offset,
                    Place::Line(_) => 0,
                })
                .collect();
            let numbers = reader.open(file.root, &file.listed_path).and_then(|opened| {
                line_numbers(BufReader::with_capacity(1 << 16, lines::utf16_as_utf8(opened)), &offsets)
            });
            for (at, problem) in line_problems.into_iter().enumerate() {
                let line = numbers.as_ref().ok().and_then(|numbers| numbers.get(at).copied());
                problems.push(problem.diagnostic(file.home, &file.path, line));
            }
        }
        order::sort_by(&mut problems, |a, b| (a.home, &a.file, a.line).cmp(&(b.home, &b.file, b.line)));
        // The logs' bytes as scanned, and the store's files.
        let store_bytes: u64 = self
            .state
            .files
            .iter()
            .filter(|file| matches!(file.kind.role, Role::Store | Role::StoreWal))
            .map(|file| file.size)
            .sum();
        let bytes_read = self.stats.bytes + store_bytes;
        UsageOnly { usage, stats: std::mem::take(&mut self.stats), problems, bytes_read }
    }

    /// The files a usage walk lists for their sessions though they hold no counters (Copilot
    /// CLI's sessions from before event logs), named by folder and kind: found, not counted.
    fn sessions_without_usage(&self) -> Vec<Diagnostic> {
        let mut found: BTreeMap<(usize, &str, &str), u64> = BTreeMap::new();
        for (_, file) in self.state.read_files() {
            let (folder, name) = file.path.rsplit_once('/').unwrap_or(("", &file.path));
            let parent = folder.rsplit('/').next().unwrap_or_default();
            if file.kind.role == Role::Metadata && sources::is_usage_log(parent, name) {
                *found.entry((file.home, folder, file.kind.name)).or_default() += 1;
            }
        }
        found
            .into_iter()
            .map(|((home, folder, kind), count)| Diagnostic {
                home: Some(home),
                file: folder.to_string(),
                line: None,
                kind: DiagnosticKind::HoldsNoUsage,
                message: format!(
                    "{}: sessions with no usage counters, not counted",
                    crate::words::counted(count, &format!("{kind} file"), &format!("{kind} files"))
                ),
            })
            .collect()
    }
}

/// Whether a session's logs have calls of their own: the stores' rows stand in for those of
/// the sessions whose logs have none.
fn has_calls(facts: &crate::facts::session::SessionFacts) -> bool {
    facts.usage.as_ref().is_some_and(|ledger| ledger.calls.requests > 0)
}

/// The 1-based line numbers of the lines starting at `offsets` (ascending).
fn line_numbers(mut reader: impl BufRead, offsets: &[u64]) -> std::io::Result<Vec<u64>> {
    let mut numbers = Vec::with_capacity(offsets.len());
    let (mut position, mut line) = (0u64, 1u64);
    let mut wanted = offsets.iter().peekable();
    while let Some(&&offset) = wanted.peek() {
        if position >= offset {
            numbers.push(line);
            wanted.next();
            continue;
        }
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        let take = buffer.len().min((offset - position) as usize);
        line += memchr::memchr_iter(b'\n', &buffer[..take]).count() as u64;
        reader.consume(take);
        position += take as u64;
    }
    Ok(numbers)
}

#[cfg(test)]
mod tests {
    #[test]
    fn line_numbers_are_counted_up_to_each_offset() {
        let text = b"a\nbb\n\nccc\nd";
        assert_eq!(super::line_numbers(&text[..], &[0, 2, 5, 6, 10]).unwrap(), [1, 2, 3, 4, 5]);
    }
}
