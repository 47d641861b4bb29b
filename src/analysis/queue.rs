//! Step 3 in any order: which event logs may be parsed now, and the parsed logs taken back in
//! any order and added to the analysis in task order, their rows handed back in that order.
//! A later copy of a session's log (`Copies::Later`) is parsed only once the copies before it
//! are added, since its rows are checked against theirs.
//!
//! The same queue serves a usage-only run ([`UsageRun`]), whose scans are added in task order
//! too: what the logs go to is a [`TakesLogs`].
//!
//! A caller either asks for the next log to parse ([`LogQueue::next_job`]: the native CLI's
//! threads) or hands logs in as they come ([`LogQueue::give`]: the page, which reads a zip's
//! logs in the archive's order); a log given too early waits in the queue with its input `G`.

use std::collections::HashMap;

use super::Options;
use super::logs::{LogInput, LogTask, Parsing, UsageScan};
use super::tally::{Copies, Tally, TallySink};
use super::usage_only::UsageRun;
use crate::cache::entry::{self, RecordingSink, ReplayFirst};
use crate::cache::{
    CacheStore, CacheTally, CacheUse, EntryAfter, FileKey, Keyed, Miss, Prefix, Purpose, Recorded, Stopped, Stored,
};
use crate::facts::diagnostics::DiagnosticKind;
use crate::facts::log::LogProblem;
use crate::input::{FileReader, ReadAt};
use crate::model::{JsonlRowWriter, RowSink};
use crate::sources::log::{LogEnd, LogOutcome, ScanStats};
use crate::usage::ledger::SessionLedger;

/// What the logs of a queue are added to, in task order.
pub trait TakesLogs {
    /// What a log's work starts from (a whole analysis's tally of its rows).
    type Start;
    /// What a log's work gives back.
    type Done;
    fn log_tasks(&self) -> Vec<LogTask>;
    fn start(&mut self, task: &LogTask) -> Self::Start;
    fn add(&mut self, task: &LogTask, done: Self::Done);
}

impl TakesLogs for Parsing {
    type Start = Tally;
    type Done = (LogOutcome, Tally);

    fn log_tasks(&self) -> Vec<LogTask> {
        self.state.log_tasks()
    }

    fn start(&mut self, task: &LogTask) -> Tally {
        self.tally_for(task)
    }

    fn add(&mut self, task: &LogTask, (outcome, tally): (LogOutcome, Tally)) {
        self.add_log(task, outcome, tally);
    }
}

impl TakesLogs for UsageRun {
    type Start = ();
    type Done = UsageScan;

    fn log_tasks(&self) -> Vec<LogTask> {
        UsageRun::log_tasks(self)
    }

    fn start(&mut self, _: &LogTask) {}

    fn add(&mut self, task: &LogTask, scanned: UsageScan) {
        self.add_scan(task, scanned);
    }
}

/// The event logs of a [`TakesLogs`] (a [`Parsing`] unless said), each parsed once, in any
/// order; `R` is what the caller keeps of a log's rows until they may go out, `G` what it
/// hands in with a log (`give`).
pub struct LogQueue<R, G = (), T: TakesLogs = Parsing> {
    tasks: Vec<LogTask>,
    /// Of a later copy, the copy of its session just before it.
    previous_copy: Vec<Option<usize>>,
    slots: Vec<Slot<R, G, T::Done>>,
    /// The logs before this one are added (or will never come).
    added: usize,
    /// No log before this one is still to hand out.
    first_open: usize,
    /// Logs given that wait for the copies before them.
    waiting: Vec<usize>,
}

enum Slot<R, G, D> {
    /// Neither handed out nor given.
    Open,
    /// Given, waiting for the copies before it.
    Waiting(G),
    Parsing,
    Parsed(Box<D>, R),
    /// Added, or never to come.
    Done,
}

/// A log that may be parsed now, with what its work starts from (the tally its rows go through).
pub struct LogJob<T: TakesLogs = Parsing> {
    index: usize,
    pub task: LogTask,
    start: T::Start,
}

impl<T: TakesLogs<Start: std::fmt::Debug>> std::fmt::Debug for LogJob<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogJob")
            .field("index", &self.index)
            .field("task", &self.task)
            .field("start", &self.start)
            .finish()
    }
}

/// A log parsed, to take back (`LogQueue::take_back`).
pub struct ParsedLog<T: TakesLogs = Parsing> {
    index: usize,
    done: T::Done,
}

/// What taking a log back released: the rows of the logs added now, in task order, and the
/// logs given that may be parsed now.
pub struct Released<R, G, T: TakesLogs = Parsing> {
    pub rows: Vec<R>,
    pub ready: Vec<(LogJob<T>, G)>,
}

impl LogJob {
    /// Opens and parses the log; its rows, tallied and scrubbed, go to `rows`.
    pub fn parse(mut self, reader: &mut dyn FileReader, options: &Options, rows: &mut dyn RowSink) -> ParsedLog {
        let outcome = self.task.parse(reader, options, &mut TallySink::new(&mut self.start, rows));
        ParsedLog { index: self.index, done: (outcome, self.start) }
    }

    /// Parses the log from its bytes (read by someone else: the page).
    pub fn parse_bytes(mut self, bytes: &[u8], options: &Options, rows: &mut dyn RowSink) -> ParsedLog {
        let outcome = self.task.parse_bytes(bytes, options, &mut TallySink::new(&mut self.start, rows));
        ParsedLog { index: self.index, done: (outcome, self.start) }
    }
}

/// What an analyze entry holds besides its rows: the log's outcome; its tally when the rows
/// after it are as rows.jsonl writes them (`LogJob::parse_through_jsonl`, a session's only
/// copy), not as the parser fed them; and where its parse stopped with the parser's state
/// there and the hash of the bytes before there, when a parse of the log grown may go on from it.
type LogParts = (LogOutcome, Option<Tally>, Option<Stopped>);

/// An analyze entry that can serve a log.
enum Usable<'e, 'f> {
    /// Made for the file as it is: replayed.
    Same(LogParts, &'e [u8]),
    /// Made for the file before it grew.
    Grown(Grown<'e, 'f>),
}

/// An entry made for a file before it grew: replayed, then the log is parsed on from `end`
/// (which gave `outcome`, `tally` and `rows`), reading `file`, the hash of the bytes before
/// `end` (`prefix`, proven as the entry's) going on.
struct Grown<'e, 'f> {
    outcome: LogOutcome,
    tally: Option<Tally>,
    end: LogEnd,
    prefix: Prefix,
    rows: &'e [u8],
    file: Box<dyn ReadAt + 'f>,
}

impl<'e, 'f> Usable<'e, 'f> {
    /// How `entry` can serve the log of `task`, whose file is `key` now, or why it cannot.
    fn of(
        stored: Stored<'e>,
        key: &FileKey,
        cache: &CacheUse,
        task: &LogTask,
        input: &mut LogInput<'f>,
    ) -> Result<Usable<'e, 'f>, Miss> {
        let (made_for, rest) = cache.open(stored.entry, cache.context(task))?;
        if made_for == *key && stored.same_time {
            let (parts, rows) = entry::parts(rest)?;
            return Ok(Usable::Same(parts, rows));
        }
        // Told before the parts are read: most changed files did not grow.
        if made_for.size >= key.size {
            return Err(Miss::Changed);
        }
        let ((outcome, tally, Some(Stopped { end, seen })), rows) = entry::parts::<LogParts>(rest)? else {
            return Err(Miss::Changed);
        };
        let Some(Ok(mut file)) = input.positional(task) else { return Err(Miss::Changed) };
        let prefix = key.grew_from(&made_for, seen, &mut file).ok_or(Miss::Changed)?;
        Ok(Usable::Grown(Grown { outcome, tally, end, prefix, rows, file }))
    }
}

/// The entry of `task`'s log for `key`: its parts and its `rows`; none when reading failed or
/// a row could not be kept. Where the parse stopped is kept only at the end of the bytes `key`
/// was made from (a file that changed while it was read is parsed whole next time).
fn record(
    task: &LogTask,
    key: &FileKey,
    cache: &CacheUse,
    (outcome, tally, stopped): (&LogOutcome, Option<&Tally>, Option<Stopped>),
    rows: Option<&[u8]>,
) -> Recorded {
    let rows = rows.filter(|_| outcome.read_error.is_none())?;
    let stopped = stopped.filter(|stopped| stopped.end.at.offset == key.size);
    cache.encode(key, cache.context(task), &(outcome, tally, stopped), rows)
}

impl LogTask {
    /// The log's entry alone, as `LogJob::through_cache` makes it for a log with none: for a log
    /// parsed without the cache (the page's, whose entries of new logs are made once the
    /// analysis is done). Its rows go to `rows` (which keeps none: the analysis has them).
    pub fn entry_alone(
        &self,
        input: LogInput<'_>,
        key: &FileKey,
        cache: &CacheUse,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> Recorded {
        let mut recording = RecordingSink::new(rows, self.source().agent(), &[]);
        let (outcome, stopped) = self.parse_input_resumable(input, options, &mut recording);
        let kept = recording.rows();
        record(self, key, cache, (&outcome, None, stopped), kept.as_deref())
    }
}

impl LogJob {
    /// The log through the cache: `entry` (the one its store keeps under `key`'s name, if any)
    /// replayed when it was made for the file as it is; when the file only grew since,
    /// replayed, and the log parsed on from where the entry's parse stopped; else the log is
    /// parsed whole from `input`. An entry that was ignored becomes the log's `cache_ignored`
    /// diagnostic. Gives what becomes of the entry, and what the cache did.
    pub fn through_cache(
        mut self,
        entry: Option<Stored<'_>>,
        mut input: LogInput<'_>,
        key: &FileKey,
        cache: &CacheUse,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> (ParsedLog, EntryAfter, CacheTally) {
        let mut miss = None;
        if let Some(entry) = entry {
            match Usable::of(entry, key, cache, &self.task, &mut input) {
                Ok(Usable::Same((outcome, None, _), kept)) => {
                    match entry::replay_rows(kept, &self.task, &mut TallySink::new(&mut self.start, rows)) {
                        Ok(()) => return (self.parsed(outcome, options), EntryAfter::Kept, cached(key)),
                        Err(why) => miss = Some(why),
                    }
                }
                Ok(Usable::Grown(grown)) if grown.tally.is_none() => {
                    let resumed_from = grown.end.at.offset;
                    match self.resume(grown, key, cache, options, rows) {
                        Ok((outcome, entry)) => return (self.done(outcome), entry.into(), resumed(key, resumed_from)),
                        Err(why) => miss = Some(why),
                    }
                }
                // An entry of a session's only copy, its rows as rows.jsonl writes them.
                Ok(_) => miss = Some(Miss::Changed),
                Err(why) => miss = Some(why),
            }
        }
        let mut tallied = TallySink::new(&mut self.start, rows);
        let mut recording = RecordingSink::new(&mut tallied, self.task.source().agent(), &[]);
        let (mut outcome, stopped) = self.task.parse_input_resumable(input, options, &mut recording);
        let kept = recording.rows();
        let entry = record(&self.task, key, cache, (&outcome, None, stopped), kept.as_deref());
        say_ignored(&mut outcome, miss);
        (self.done(outcome), entry.into(), parsed_whole())
    }

    /// Feeds the rows an entry kept for the file before it grew, then parses the log on from
    /// where the entry's parse stopped; gives the outcome of the whole log and its entry now
    /// (the rows before and after). Feeds nothing when the log cannot be parsed on.
    fn resume(
        &mut self,
        grown: Grown<'_, '_>,
        key: &FileKey,
        cache: &CacheUse,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> Result<(LogOutcome, Recorded), Miss> {
        let Grown { mut outcome, end, prefix, rows: kept, file, .. } = grown;
        set_zone(&mut outcome, options);
        let mut tallied = TallySink::new(&mut self.start, rows);
        let before = entry::read_rows(kept, &self.task, &tallied)?;
        let mut replayed = ReplayFirst::new(before, &self.task, &mut tallied);
        let mut recording = RecordingSink::new(&mut replayed, self.task.source().agent(), kept);
        let went_on = self.task.resume(file, (outcome, &end, prefix), options, &mut recording);
        let (outcome, stopped) = went_on.ok_or(Miss::Changed)?;
        let kept = recording.rows();
        replayed.finish();
        let entry = record(&self.task, key, cache, (&outcome, None, stopped), kept.as_deref());
        Ok((outcome, entry))
    }

    /// The log's rows as rows.jsonl writes them (the native CLI), through its entry in
    /// `store` (`keyed`, looked up by the caller) as `through_cache` says; unkeyed, parsed. A
    /// session's only copy keeps its rows as written and its tally, so that they are neither
    /// scrubbed nor encoded again; a copy keeps its rows as parsed, checked against the others'.
    pub fn parse_through_jsonl(
        self,
        reader: &mut dyn FileReader,
        store: &dyn CacheStore,
        keyed: Option<Keyed>,
        cache: &CacheUse,
        options: &Options,
    ) -> (ParsedLog, std::io::Result<Vec<u8>>, CacheTally) {
        let mut written = JsonlRowWriter::new(Vec::new());
        let Some(Keyed { key, entry, unread }) = keyed else {
            let parsed = self.parse(reader, options, &mut written);
            return (parsed, written.finish(), parsed_whole());
        };
        let stored = entry.as_deref().map(Stored::keyed);
        let (parsed, written, after, mut tally) = if self.task.copies == Copies::Only {
            self.written_through_cache(stored, LogInput::Reader(reader), &key, cache, options)
        } else {
            let input = LogInput::Reader(reader);
            let (parsed, after, tally) = self.through_cache(stored, input, &key, cache, options, &mut written);
            (parsed, written.finish(), after, tally)
        };
        if let EntryAfter::Made(entry) = after {
            store.put(&key.name(Purpose::Analyze), &entry);
        }
        tally.unread = u64::from(unread && tally.cached == 1);
        (parsed, written, tally)
    }

    /// `through_cache` for a session's only copy, whose entry keeps its rows as rows.jsonl
    /// writes them and its tally: a replay is a copy of bytes, and a log that grew has the
    /// rows of the bytes after the entry's end written after them, its tally going on from the
    /// entry's.
    fn written_through_cache(
        mut self,
        entry: Option<Stored<'_>>,
        mut input: LogInput<'_>,
        key: &FileKey,
        cache: &CacheUse,
        options: &Options,
    ) -> (ParsedLog, std::io::Result<Vec<u8>>, EntryAfter, CacheTally) {
        let mut miss = None;
        if let Some(entry) = entry {
            match Usable::of(entry, key, cache, &self.task, &mut input) {
                Ok(Usable::Same((outcome, Some(tally), _), written)) => {
                    self.start = tally;
                    return (self.parsed(outcome, options), Ok(written.to_vec()), EntryAfter::Kept, cached(key));
                }
                Ok(Usable::Grown(Grown { mut outcome, tally: Some(mut tally), end, prefix, rows: before, file })) => {
                    set_zone(&mut outcome, options);
                    let mut written = JsonlRowWriter::new(Vec::new());
                    let went_on = written.write_encoded(before).ok().and_then(|()| {
                        let sink = &mut TallySink::new(&mut tally, &mut written);
                        self.task.resume(file, (outcome, &end, prefix), options, sink)
                    });
                    match went_on {
                        Some((outcome, stopped)) => {
                            self.start = tally;
                            let written = written.finish();
                            let parts = (&outcome, Some(&self.start), stopped);
                            let entry = record(&self.task, key, cache, parts, written.as_deref().ok());
                            return (self.done(outcome), written, entry.into(), resumed(key, end.at.offset));
                        }
                        None => miss = Some(Miss::Changed),
                    }
                }
                // An entry of a copy, its rows as the parser fed them.
                Ok(_) => miss = Some(Miss::Changed),
                Err(why) => miss = Some(why),
            }
        }
        let mut written = JsonlRowWriter::new(Vec::new());
        let (mut outcome, stopped) =
            self.task.parse_input_resumable(input, options, &mut TallySink::new(&mut self.start, &mut written));
        let written = written.finish();
        let entry = record(&self.task, key, cache, (&outcome, Some(&self.start), stopped), written.as_deref().ok());
        say_ignored(&mut outcome, miss);
        (self.done(outcome), written, entry.into(), parsed_whole())
    }

    /// The job done from a cached outcome (its ledger counts in the run's zone, which the
    /// entry's context holds).
    fn parsed(self, mut outcome: LogOutcome, options: &Options) -> ParsedLog {
        set_zone(&mut outcome, options);
        self.done(outcome)
    }

    /// The job done, with the log's outcome and the tally its rows went through.
    fn done(self, outcome: LogOutcome) -> ParsedLog {
        ParsedLog { index: self.index, done: (outcome, self.start) }
    }
}

/// A cached outcome's ledger counts in the run's zone (the entry's context holds it).
fn set_zone(outcome: &mut LogOutcome, options: &Options) {
    if let Some(ledger) = &mut outcome.usage {
        ledger.set_zone(options.zone);
    }
}

impl ParsedLog<UsageRun> {
    pub fn scan(&self) -> &UsageScan {
        &self.done
    }
}

/// What the cache did for a log parsed whole.
fn parsed_whole() -> CacheTally {
    CacheTally { parsed: 1, ..CacheTally::default() }
}

/// What the cache did for a log replayed from its entry.
fn cached(key: &FileKey) -> CacheTally {
    CacheTally { cached: 1, cached_bytes: key.size, ..CacheTally::default() }
}

/// What the cache did for a log that grew, parsed on from `resumed_from`.
fn resumed(key: &FileKey, resumed_from: u64) -> CacheTally {
    CacheTally { resumed: 1, resumed_bytes: key.size - resumed_from, ..CacheTally::default() }
}

/// An entry that could not be used for a reason the run must tell: the log's diagnostic.
fn say_ignored(outcome: &mut LogOutcome, miss: Option<Miss>) {
    if let Some(Miss::Ignored(why)) = miss {
        let message = format!("{why}: ignored, the log was parsed again");
        outcome.problems.push(LogProblem { line: None, kind: DiagnosticKind::CacheIgnored, message });
    }
}

impl LogJob<UsageRun> {
    /// Reads only the log's counter lines.
    pub fn scan_usage(self, reader: &mut dyn FileReader, options: &Options) -> ParsedLog<UsageRun> {
        ParsedLog { index: self.index, done: self.task.scan_usage(reader, options) }
    }

    /// The log's scan as an earlier run made it, the log being as it was then.
    pub fn scanned_before(self, scan: UsageScan) -> ParsedLog<UsageRun> {
        ParsedLog { index: self.index, done: scan }
    }

    /// The scan from its entry in `store` (`keyed`, looked up by the caller) when it can be
    /// used, else scanned and its entry put; unkeyed, scanned. A log that grew is scanned whole
    /// again: a usage entry keeps no place to go on from.
    pub fn scan_through(
        self,
        reader: &mut dyn FileReader,
        store: &dyn CacheStore,
        keyed: Option<Keyed>,
        cache: &CacheUse,
        options: &Options,
    ) -> (ParsedLog<UsageRun>, CacheTally) {
        let Some(Keyed { key, entry, unread }) = keyed else {
            return (self.scan_usage(reader, options), parsed_whole());
        };
        let (name, context) = (key.name(Purpose::Usage), cache.context(&self.task));
        let mut ignored = None;
        if let Some(entry) = entry {
            match cache.decode::<(SessionLedger, ScanStats)>(&entry, &key, context) {
                Ok(((mut ledger, stats), _)) => {
                    ledger.set_zone(options.zone);
                    let scan = UsageScan { ledger, stats, error: None, cache_ignored: None };
                    let tally = CacheTally { unread: u64::from(unread), ..cached(&key) };
                    return (ParsedLog { index: self.index, done: scan }, tally);
                }
                Err(Miss::Ignored(why)) => ignored = Some(format!("{why}: ignored, the log was scanned again")),
                Err(Miss::Changed) => {}
            }
        }
        let mut scan = self.task.scan_usage(reader, options);
        if scan.error.is_none()
            && let Some(entry) = cache.encode(&key, context, &(&scan.ledger, &scan.stats), &[])
        {
            store.put(&name, &entry);
        }
        scan.cache_ignored = ignored;
        (ParsedLog { index: self.index, done: scan }, parsed_whole())
    }
}

impl<R, G, T: TakesLogs> LogQueue<R, G, T> {
    /// The logs of step 3, none parsed yet.
    pub fn new(parsing: &T) -> LogQueue<R, G, T> {
        let tasks = parsing.log_tasks();
        let mut last_copy: HashMap<usize, usize> = HashMap::new();
        let previous_copy = tasks
            .iter()
            .enumerate()
            .map(|(index, task)| match task.copies {
                Copies::Only => None,
                Copies::First => last_copy.insert(task.file, index),
                Copies::Later { first } => last_copy.insert(first, index),
            })
            .collect();
        let slots = tasks.iter().map(|_| Slot::Open).collect();
        LogQueue { tasks, previous_copy, slots, added: 0, first_open: 0, waiting: Vec::new() }
    }

    /// The logs, in task order: the page names them by their place here.
    pub fn tasks(&self) -> &[LogTask] {
        &self.tasks
    }

    /// Whether every log is added (or will never come).
    pub fn is_done(&self) -> bool {
        self.added == self.tasks.len()
    }

    /// The first log not handed out that may be parsed now, among the `ahead` logs from the
    /// first not added (which bounds what waits to be added).
    pub fn next_job(&mut self, parsing: &mut T, ahead: usize) -> Option<LogJob<T>> {
        while self.slots.get(self.first_open).is_some_and(|slot| !matches!(slot, Slot::Open)) {
            self.first_open += 1;
        }
        let end = self.added.saturating_add(ahead).min(self.tasks.len());
        let index =
            (self.first_open..end).find(|&index| matches!(self.slots[index], Slot::Open) && self.may_parse(index))?;
        Some(self.hand_out(parsing, index))
    }

    /// Log `index` handed in with `input`: returned when it may be parsed now, else kept until
    /// the copies before it are added (`Released::ready`).
    pub fn give(&mut self, parsing: &mut T, index: usize, input: G) -> Result<Option<(LogJob<T>, G)>, String> {
        match self.slots.get(index) {
            None => return Err(format!("there is no log {index}")),
            Some(Slot::Open) => {}
            Some(_) => return Err(format!("log {index} is parsed already")),
        }
        if self.may_parse(index) {
            return Ok(Some((self.hand_out(parsing, index), input)));
        }
        self.slots[index] = Slot::Waiting(input);
        self.waiting.push(index);
        Ok(None)
    }

    /// Takes a parsed log back, with what the caller keeps of its rows: the logs now in turn
    /// are added to the analysis.
    pub fn take_back(&mut self, parsing: &mut T, parsed: ParsedLog<T>, rows: R) -> Released<R, G, T> {
        let ParsedLog { index, done } = parsed;
        debug_assert!(matches!(self.slots[index], Slot::Parsing), "log {index} taken back but not handed out");
        self.slots[index] = Slot::Parsed(Box::new(done), rows);
        self.release(parsing)
    }

    /// The logs not given will never come (a page that stopped early): the logs after them are
    /// added as they are parsed.
    pub fn skip_missing(&mut self, parsing: &mut T) -> Released<R, G, T> {
        for slot in &mut self.slots {
            if matches!(slot, Slot::Open) {
                *slot = Slot::Done;
            }
        }
        self.release(parsing)
    }

    /// Whether log `index` may be parsed now: a later copy once the copy before it is added.
    fn may_parse(&self, index: usize) -> bool {
        self.previous_copy[index].is_none_or(|previous| previous < self.added)
    }

    fn hand_out(&mut self, parsing: &mut T, index: usize) -> LogJob<T> {
        self.slots[index] = Slot::Parsing;
        let task = self.tasks[index].clone();
        let start = parsing.start(&task);
        LogJob { index, task, start }
    }

    /// Adds the parsed logs now in turn, and hands out the given logs that may now be parsed.
    fn release(&mut self, parsing: &mut T) -> Released<R, G, T> {
        let mut released = Released { rows: Vec::new(), ready: Vec::new() };
        while let Some(slot) = self.slots.get_mut(self.added) {
            match std::mem::replace(slot, Slot::Done) {
                Slot::Parsed(done, rows) => {
                    parsing.add(&self.tasks[self.added], *done);
                    released.rows.push(rows);
                }
                Slot::Done => {}
                pending => {
                    *slot = pending;
                    break;
                }
            }
            self.added += 1;
        }
        for index in std::mem::take(&mut self.waiting) {
            if !self.may_parse(index) {
                self.waiting.push(index);
                continue;
            }
            if let Slot::Waiting(input) = std::mem::replace(&mut self.slots[index], Slot::Open) {
                released.ready.push((self.hand_out(parsing, index), input));
            }
        }
        released
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Planned;
    use crate::input::memory::{MemoryRoot, MemoryRoots};
    use crate::model::OwnedRow;

    const LOG: &str = ".copilot/session-state/00000001-0000-4000-8000-000000000000/events.jsonl";

    fn said(text: &str) -> String {
        let line = serde_json::json!({"type": "user.message", "data": {"content": text}, "timestamp": "2026-10-01T09:00:00.000Z"});
        format!("{line}\n")
    }

    fn texts(rows: &[OwnedRow]) -> Vec<&str> {
        rows.iter().map(|row| row.text.as_str()).collect()
    }

    #[test]
    fn a_later_copy_waits_for_the_copies_before_it_and_each_log_is_given_once() {
        // The same session in two homes: the second copy has one line more.
        let (mut first, mut later) = (MemoryRoot::new("a"), MemoryRoot::new("b"));
        first.insert(LOG, said("hello"), Some(0));
        later.insert(LOG, said("hello") + &said("again"), Some(0));
        let mut reader = MemoryRoots(vec![first, later]);
        let planned = Planned::new(reader.listings(), Default::default()).unwrap();
        let mut parsing = planned.read_metadata(&mut reader);
        let mut queue = LogQueue::<Vec<OwnedRow>, &str>::new(&parsing);
        assert_eq!(
            queue.tasks().iter().map(|task| task.copies).collect::<Vec<_>>(),
            [Copies::First, Copies::Later { first: queue.tasks()[0].file }]
        );

        assert!(queue.give(&mut parsing, 1, "later").unwrap().is_none(), "the later copy waits");
        let (job, given) = queue.give(&mut parsing, 0, "first").unwrap().expect("the first copy may be parsed");
        assert_eq!(given, "first");
        assert_eq!(queue.give(&mut parsing, 0, "again").unwrap_err(), "log 0 is parsed already");
        assert_eq!(queue.give(&mut parsing, 2, "none").unwrap_err(), "there is no log 2");

        let mut rows = Vec::new();
        let parsed = job.parse(&mut reader, &Default::default(), &mut rows);
        let released = queue.take_back(&mut parsing, parsed, rows);
        assert_eq!(released.rows.iter().map(|rows| texts(rows)).collect::<Vec<_>>(), [["hello"]]);
        let mut ready = released.ready;
        assert_eq!(ready.len(), 1, "the later copy is released");
        let (job, given) = ready.pop().unwrap();
        assert_eq!(given, "later");
        let mut rows = Vec::new();
        let parsed = job.parse(&mut reader, &Default::default(), &mut rows);
        let released = queue.take_back(&mut parsing, parsed, rows);
        assert_eq!(texts(&released.rows[0]), ["again"], "only the row the first copy lacked");
        assert!(queue.is_done());
    }
}
