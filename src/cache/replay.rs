//! The one place entries are replayed and made: a log's job and a store's job through the
//! run's [`EntryStore`]. An entry made for the file as it is is replayed; a log that only grew
//! since its entry was made has the entry replayed and is parsed on from where the entry's
//! parse stopped; anything else is worked on whole and its entry made and put. Callers look a
//! file up first ([`super::look_up`]), then hand the job here: [`LogJob::through_store`] (the
//! page's table), [`LogJob::parse_through_jsonl`] (rows.jsonl, natively),
//! [`LogJob::scan_through`] (a usage-only run) and [`StoreJob::read_through`].

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{self, BufReader, Read};
use std::rc::Rc;

use super::entry::{self, RecordingSink, ReplayFirst};
use super::{
    CacheTally, EntryRules, EntryStore, FileKey, Hashing, LookedUp, Miss, Prefix, Purpose, Stopped, StoreCache,
};
use crate::analysis::logs::{LogBytes, READ_BUFFER_BYTES, unopened};
use crate::analysis::stores::{StoreJob, StoreRead, StoreReading};
use crate::analysis::tally::{Copies, Tally, TallySink};
use crate::analysis::usage_only::UsageRun;
use crate::analysis::{LogInput, LogJob, LogTask, Options, ParsedLog, UsageScan};
use crate::facts::diagnostics::DiagnosticKind;
use crate::facts::log::LogProblem;
use crate::input::{FileReader, ReadAt, ReadFrom};
use crate::model::{JsonlRowWriter, RowSink};
use crate::sources::log::{LogEnd, LogOutcome, ScanStats};
use crate::sources::store::{StoreContents, StoreScope};
use crate::usage::ledger::SessionLedger;

/// What becomes of a log's entry once the log went through it.
#[derive(Debug, PartialEq, Eq)]
enum EntryAfter {
    /// Replayed as it is: the store keeps it.
    Kept,
    /// Made for the file as it is now (parsed, or grown and parsed on): the store puts it.
    Made(Vec<u8>),
    /// None could be made (reading failed): the store keeps nothing for the file.
    NotMade,
}

impl From<Option<Vec<u8>>> for EntryAfter {
    fn from(made: Option<Vec<u8>>) -> EntryAfter {
        made.map_or(EntryAfter::NotMade, EntryAfter::Made)
    }
}

/// A log's entry as its store holds it.
#[derive(Clone, Copy)]
struct Stored<'a> {
    entry: &'a [u8],
    /// Whether the log still has the time the entry was made at (`EntryStore::same_time`).
    same_time: bool,
}

/// Tells `store` what became of the entry named `name`, made for `key` (`time` is its file's
/// now); `unread` says the log was not read, its key being its entry's. Gives what the cache
/// did, with `tally` the job's.
fn settle(
    store: &mut dyn EntryStore,
    (name, time): (&str, Option<i64>),
    after: EntryAfter,
    unread: bool,
    mut tally: CacheTally,
) -> CacheTally {
    match after {
        EntryAfter::Kept => store.used(name),
        EntryAfter::Made(entry) => store.put(name, &entry, time),
        EntryAfter::NotMade => {}
    }
    tally.unread = u64::from(unread && tally.cached == 1);
    tally
}

impl LogJob {
    /// The log through its entry in `store` (`looked_up`; `time` is the log's now, where the
    /// store keeps times beside entries), its rows, tallied and scrubbed, into `rows`: the
    /// entry replayed when it can be, else the log parsed from `input` and its entry put.
    pub fn through_store(
        self,
        store: &mut dyn EntryStore,
        LookedUp { key, entry, unread }: LookedUp,
        time: Option<i64>,
        input: LogInput<'_>,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> (ParsedLog, CacheTally) {
        let name = key.name(Purpose::Analyze);
        let stored = entry.as_deref().map(|entry| Stored { entry, same_time: store.same_time(&name, time) });
        let (parsed, after, tally) = self.replayed_or_parsed(stored, input, &key, store.rules(), options, rows);
        (parsed, settle(store, (&name, time), after, unread, tally))
    }

    /// The log's rows as rows.jsonl writes them (the native CLI), through its entry in
    /// `store` (`looked_up`) as `through_store` says; not looked up, parsed. A session's only
    /// copy keeps its rows as written and its tally, so that they are neither scrubbed nor
    /// encoded again; a copy keeps its rows as parsed, checked against the others'.
    pub fn parse_through_jsonl(
        self,
        reader: &mut dyn FileReader,
        store: &mut dyn EntryStore,
        looked_up: Option<LookedUp>,
        options: &Options,
    ) -> (ParsedLog, io::Result<Vec<u8>>, CacheTally) {
        let mut written = JsonlRowWriter::new(Vec::new());
        let Some(LookedUp { key, entry, unread }) = looked_up else {
            let parsed = self.parse(reader, options, &mut written);
            return (parsed, written.finish(), parsed_whole());
        };
        let stored = entry.as_deref().map(|entry| Stored { entry, same_time: true });
        let input = LogInput::Reader(reader);
        let (parsed, written, after, tally) = if self.task.copies == Copies::Only {
            self.written_replayed_or_parsed(stored, input, &key, store.rules(), options)
        } else {
            let (parsed, after, tally) =
                self.replayed_or_parsed(stored, input, &key, store.rules(), options, &mut written);
            (parsed, written.finish(), after, tally)
        };
        let tally = settle(store, (&key.name(Purpose::Analyze), None), after, unread, tally);
        (parsed, written, tally)
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
        rules: &EntryRules,
        task: &LogTask,
        input: &mut LogInput<'f>,
    ) -> Result<Usable<'e, 'f>, Miss> {
        let (made_for, rest) = rules.open(stored.entry, rules.context(task))?;
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
    rules: &EntryRules,
    (outcome, tally, stopped): (&LogOutcome, Option<&Tally>, Option<Stopped>),
    rows: Option<&[u8]>,
) -> Option<Vec<u8>> {
    let rows = rows.filter(|_| outcome.read_error.is_none())?;
    let stopped = stopped.filter(|stopped| stopped.end.at.offset == key.size);
    rules.encode(key, rules.context(task), &(outcome, tally, stopped), rows)
}

impl LogTask {
    /// The log's entry alone, as `LogJob::through_store` makes it for a log with none: for a log
    /// parsed without the cache (the page's, whose entries of new logs are made once the
    /// analysis is done). Its rows go to `rows` (which keeps none: the analysis has them).
    pub fn entry_alone(
        &self,
        input: LogInput<'_>,
        key: &FileKey,
        rules: &EntryRules,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> Option<Vec<u8>> {
        let mut recording = RecordingSink::new(rows, self.source().agent(), &[]);
        let (outcome, stopped) = self.parse_input_resumable(input, options, &mut recording);
        let kept = recording.rows();
        record(self, key, rules, (&outcome, None, stopped), kept.as_deref())
    }
}

impl LogTask {
    /// As `parse_input`, and where the parse stopped with the parser's state there and the hash
    /// of the bytes before there, when a parse of the log grown may go on from it (`resume`).
    pub(crate) fn parse_input_resumable(
        &self,
        input: LogInput<'_>,
        options: &Options,
        sink: &mut dyn RowSink,
    ) -> (LogOutcome, Option<Stopped>) {
        let context = self.context(options);
        let mut prefix = Prefix::default();
        let parsed = match input.open(self) {
            Ok(LogBytes::Read(file)) => {
                let mut lines = BufReader::with_capacity(READ_BUFFER_BYTES, Hashing::new(file, &mut prefix));
                self.source().parse_log_resumable(&context, &mut lines, sink)
            }
            Ok(LogBytes::Given(mut bytes)) => {
                prefix = Prefix::of(bytes);
                self.source().parse_log_resumable(&context, &mut bytes, sink)
            }
            Err(error) => return (unopened(error), None),
        };
        let (outcome, end) = parsed;
        (outcome, end.and_then(|end| prefix.stopped_at(end)))
    }

    /// Parses the log on from where an earlier parse stopped (`end`, which gave `outcome`),
    /// reading `file` from there, the hash of the bytes before there (`FileKey::grew_from`)
    /// going on over those after; `None`, having fed no row, when the source cannot go on.
    fn resume(
        &self,
        file: Box<dyn ReadAt + '_>,
        (outcome, end, mut prefix): (LogOutcome, &LogEnd, Prefix),
        options: &Options,
        sink: &mut dyn RowSink,
    ) -> Option<(LogOutcome, Option<Stopped>)> {
        let read = Hashing::new(ReadFrom::new(file, end.at.offset), &mut prefix);
        let mut lines = BufReader::with_capacity(READ_BUFFER_BYTES, read);
        let (outcome, end) = self.source().resume_log(&self.context(options), outcome, end, &mut lines, sink)?;
        drop(lines);
        Some((outcome, end.and_then(|end| prefix.stopped_at(end))))
    }
}

impl LogJob {
    /// The log through its entry: `entry` (the one its store keeps under `key`'s name, if any)
    /// replayed when it was made for the file as it is; when the file only grew since,
    /// replayed, and the log parsed on from where the entry's parse stopped; else the log is
    /// parsed whole from `input`. An entry that was ignored becomes the log's `cache_ignored`
    /// diagnostic. Gives what becomes of the entry, and what the cache did.
    fn replayed_or_parsed(
        mut self,
        entry: Option<Stored<'_>>,
        mut input: LogInput<'_>,
        key: &FileKey,
        rules: &EntryRules,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> (ParsedLog, EntryAfter, CacheTally) {
        let mut miss = None;
        if let Some(entry) = entry {
            match Usable::of(entry, key, rules, &self.task, &mut input) {
                Ok(Usable::Same((outcome, None, _), kept)) => {
                    match entry::replay_rows(kept, &self.task, &mut TallySink::new(&mut self.start, rows)) {
                        Ok(()) => return (self.replayed(outcome, options), EntryAfter::Kept, cached(key)),
                        Err(why) => miss = Some(why),
                    }
                }
                Ok(Usable::Grown(grown)) if grown.tally.is_none() => {
                    let resumed_from = grown.end.at.offset;
                    match self.resume(grown, key, rules, options, rows) {
                        Ok((outcome, entry)) => {
                            return (self.finished(outcome), entry.into(), resumed(key, resumed_from));
                        }
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
        let entry = record(&self.task, key, rules, (&outcome, None, stopped), kept.as_deref());
        say_ignored(&mut outcome, miss);
        (self.finished(outcome), entry.into(), parsed_whole())
    }

    /// Feeds the rows an entry kept for the file before it grew, then parses the log on from
    /// where the entry's parse stopped; gives the outcome of the whole log and its entry now
    /// (the rows before and after). Feeds nothing when the log cannot be parsed on.
    fn resume(
        &mut self,
        grown: Grown<'_, '_>,
        key: &FileKey,
        rules: &EntryRules,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> Result<(LogOutcome, Option<Vec<u8>>), Miss> {
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
        let entry = record(&self.task, key, rules, (&outcome, None, stopped), kept.as_deref());
        Ok((outcome, entry))
    }

    /// `replayed_or_parsed` for a session's only copy, whose entry keeps its rows as rows.jsonl
    /// writes them and its tally: a replay is a copy of bytes, and a log that grew has the
    /// rows of the bytes after the entry's end written after them, its tally going on from the
    /// entry's.
    fn written_replayed_or_parsed(
        mut self,
        entry: Option<Stored<'_>>,
        mut input: LogInput<'_>,
        key: &FileKey,
        rules: &EntryRules,
        options: &Options,
    ) -> (ParsedLog, std::io::Result<Vec<u8>>, EntryAfter, CacheTally) {
        let mut miss = None;
        if let Some(entry) = entry {
            match Usable::of(entry, key, rules, &self.task, &mut input) {
                Ok(Usable::Same((outcome, Some(tally), _), written)) => {
                    self.start = tally;
                    return (self.replayed(outcome, options), Ok(written.to_vec()), EntryAfter::Kept, cached(key));
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
                            let entry = record(&self.task, key, rules, parts, written.as_deref().ok());
                            return (self.finished(outcome), written, entry.into(), resumed(key, end.at.offset));
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
        let entry = record(&self.task, key, rules, (&outcome, Some(&self.start), stopped), written.as_deref().ok());
        say_ignored(&mut outcome, miss);
        (self.finished(outcome), written, entry.into(), parsed_whole())
    }

    /// The job done from a cached outcome (its ledger counts in the run's zone, which the
    /// entry's context holds).
    fn replayed(self, mut outcome: LogOutcome, options: &Options) -> ParsedLog {
        set_zone(&mut outcome, options);
        self.finished(outcome)
    }

    /// The job done, with the log's outcome and the tally its rows went through.
    fn finished(self, outcome: LogOutcome) -> ParsedLog {
        ParsedLog { index: self.index, parsed: (outcome, self.start) }
    }
}

/// A cached outcome's ledger counts in the run's zone (the entry's context holds it).
fn set_zone(outcome: &mut LogOutcome, options: &Options) {
    if let Some(ledger) = &mut outcome.usage {
        ledger.set_zone(options.zone);
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
    /// The scan from its entry in `store` (`looked_up`) when it can be
    /// used, else scanned and its entry put; not looked up, scanned. A log that grew is scanned whole
    /// again: a usage entry keeps no place to go on from.
    pub fn scan_through(
        self,
        reader: &mut dyn FileReader,
        store: &mut dyn EntryStore,
        looked_up: Option<LookedUp>,
        options: &Options,
    ) -> (ParsedLog<UsageRun>, CacheTally) {
        let Some(LookedUp { key, entry, unread }) = looked_up else {
            return (self.scan_usage(reader, options), parsed_whole());
        };
        let (name, context) = (key.name(Purpose::Usage), store.rules().context(&self.task));
        let mut ignored = None;
        if let Some(entry) = entry {
            match store.rules().decode::<(SessionLedger, ScanStats)>(&entry, &key, context) {
                Ok(((mut ledger, stats), _)) => {
                    ledger.set_zone(options.zone);
                    let scan = UsageScan { ledger, stats, error: None, cache_ignored: None };
                    let tally = CacheTally { unread: u64::from(unread), ..cached(&key) };
                    return (ParsedLog { index: self.index, parsed: scan }, tally);
                }
                Err(Miss::Ignored(why)) => ignored = Some(format!("{why}: ignored, the log was scanned again")),
                Err(Miss::Changed) => {}
            }
        }
        let mut scan = self.task.scan_usage(reader, options);
        if scan.error.is_none()
            && let Some(entry) = store.rules().encode(&key, context, &(&scan.ledger, &scan.stats), &[])
        {
            store.put(&name, &entry, None);
        }
        scan.cache_ignored = ignored;
        (ParsedLog { index: self.index, parsed: scan }, parsed_whole())
    }
}

/// What a store's entry holds: what its read gave, and its per-call rows by session.
type StoreParts = (StoreContents, BTreeMap<String, SessionLedger>);

impl StoreJob {
    /// The store's read from its cache entry when its files did not change, else read and its
    /// entry kept; without a cache, read. The entry is made for the main file's key (the log's
    /// when there is no main file); the log's key is in its context, with the options and what
    /// is read, so that a grown log is a miss and the store is read again whole. A read that
    /// failed, or met an I/O error on the way, is not kept.
    pub fn read_through(
        self,
        reader: &mut dyn FileReader,
        options: &Options,
        cache: &mut StoreCache<'_>,
    ) -> (StoreRead, CacheTally) {
        let read_one = CacheTally { parsed: 1, ..CacheTally::default() };
        let Some((key, wal_key)) = self.keys(cache.key_of) else { return (self.read(reader, options), read_one) };
        let (purpose, sessions_left_out) = match &self.scope {
            StoreScope::Everything => (Purpose::Store, None),
            StoreScope::UsageExcept(sessions) => (Purpose::StoreUsage, Some(sessions)),
        };
        let also = (self.source().agent(), &wal_key, sessions_left_out);
        let Some(context) = cache.entries.rules().store_context(&also) else {
            return (self.read(reader, options), read_one);
        };
        let name = key.name(purpose);
        let decoded = cache
            .entries
            .get(&name)
            .map(|entry| cache.entries.rules().decode::<StoreParts>(&entry, &key, context).map(|(parts, _)| parts));
        let ignored = match decoded {
            Some(Ok((contents, mut ledgers))) => {
                cache.entries.used(&name);
                // The ledgers count in the run's zone, which the context holds.
                ledgers.values_mut().for_each(|ledger| ledger.set_zone(options.zone));
                let bytes = key.size + wal_key.map_or(0, |wal| wal.size);
                let read = StoreRead { job: self, result: Ok(contents), ledgers, cache_ignored: None };
                return (read, CacheTally { cached: 1, cached_bytes: bytes, ..CacheTally::default() });
            }
            Some(Err(Miss::Ignored(why))) => Some(format!("{why}: ignored, the store was read again")),
            Some(Err(Miss::Changed)) | None => None,
        };
        // A log scanned ahead was read outside the watch: a scan that failed is not kept.
        let scanned_failed = matches!(self.scanned_wal, Some(Err(_)));
        let failed = Rc::new(Cell::new(false));
        let mut read = self.read(&mut Watched { reader, failed: failed.clone() }, options);
        if let Ok(contents) = &read.result
            && !failed.get()
            && !scanned_failed
            && let Some(entry) = cache.entries.rules().encode(&key, context, &(contents, &read.ledgers), &[])
        {
            cache.entries.put(&name, &entry, None);
        }
        read.cache_ignored = ignored;
        (read, read_one)
    }

    /// The key the store's entry is made for (its main file's, else its log's) and its log's
    /// beside a main file; none when a file has no key.
    fn keys(&self, key_of: &dyn Fn(usize, &str) -> Option<FileKey>) -> Option<(FileKey, Option<FileKey>)> {
        let wal = match &self.wal {
            Some((_, path)) => Some(key_of(self.root, path)?),
            None => None,
        };
        match &self.main {
            Some((_, path, _)) => Some((key_of(self.root, path)?, wal)),
            None => Some((wal?, None)),
        }
    }
}

/// The stores read through the cache: what it did is added to `tally`.
impl StoreReading for StoreCache<'_> {
    fn read(&mut self, job: StoreJob, reader: &mut dyn FileReader, options: &Options) -> StoreRead {
        let (read, tally) = job.read_through(reader, options, self);
        self.tally.add(&tally);
        read
    }
}

/// A reader that notes whether an open or a read of it failed.
struct Watched<'a> {
    reader: &'a mut dyn FileReader,
    failed: Rc<Cell<bool>>,
}

impl FileReader for Watched<'_> {
    fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
        let failed = self.failed.clone();
        let opened = self.reader.open(root, path).map(|inner| Box::new(Noting { inner, failed }) as Box<dyn Read + '_>);
        self.failed.set(self.failed.get() || opened.is_err());
        opened
    }

    fn open_at(&mut self, root: usize, path: &str) -> Option<io::Result<Box<dyn ReadAt>>> {
        let failed = self.failed.clone();
        let opened =
            self.reader.open_at(root, path)?.map(|inner| Box::new(Noting { inner, failed }) as Box<dyn ReadAt>);
        self.failed.set(self.failed.get() || opened.is_err());
        Some(opened)
    }
}

/// A file of a [`Watched`] reader.
struct Noting<R> {
    inner: R,
    failed: Rc<Cell<bool>>,
}

impl<R: Read> Read for Noting<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buffer);
        self.failed.set(self.failed.get() || read.is_err());
        read
    }
}

impl ReadAt for Noting<Box<dyn ReadAt>> {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read_at(offset, buffer);
        self.failed.set(self.failed.get() || read.is_err());
        read
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use super::*;
    use crate::analysis::{AsTheyAre, Planned, parse_logs_in_order};
    use crate::input::memory::{MemoryRoot, MemoryRoots};
    use crate::model::OwnedRow;
    use crate::outputs::{self, REPORT_JSON, SESSIONS_JSONL, USAGE_JSONL};

    const STORE: &str = ".copilot/session-store.db";

    /// A run's entries in memory.
    struct Entries(HashMap<String, Vec<u8>>, EntryRules);

    impl EntryStore for Entries {
        fn rules(&self) -> &EntryRules {
            &self.1
        }
        fn get(&self, name: &str) -> Option<std::borrow::Cow<'_, [u8]>> {
            self.0.get(name).map(|entry| entry.as_slice().into())
        }
        fn put(&mut self, name: &str, entry: &[u8], _: Option<i64>) {
            self.0.insert(name.to_string(), entry.to_vec());
        }
    }

    /// A home of Copilot CLI 1.0.102: its logs, and the store whose rows are in its `-wal`.
    fn home() -> MemoryRoots {
        fn walk(root: &mut MemoryRoot, base: &Path, folder: &Path) {
            for found in std::fs::read_dir(folder).unwrap() {
                let path = found.unwrap().path();
                if path.is_dir() {
                    walk(root, base, &path);
                } else {
                    let listed = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                    root.insert(&listed, std::fs::read(&path).unwrap(), Some(1_000));
                }
            }
        }
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real-cli-1.0.102");
        let mut root = MemoryRoot::new("home");
        walk(&mut root, &base, &base);
        assert!(root.files.contains_key(STORE) && root.files.contains_key(&format!("{STORE}-wal")));
        MemoryRoots(vec![root])
    }

    /// The keys of the files of `reader`'s one root, as the page makes them from bytes.
    fn keys(reader: &MemoryRoots) -> impl Fn(usize, &str) -> Option<FileKey> + use<> {
        let files = reader.0[0].files.clone();
        move |_, path| files.get(path).map(|(bytes, time)| FileKey::of_bytes("home", path, *time, bytes))
    }

    /// One analysis, through `cache` if any: its rows, its output files by name, and what the
    /// cache did.
    fn analyze(reader: &mut MemoryRoots, cache: Option<&mut Entries>) -> (Vec<OwnedRow>, Vec<String>, CacheTally) {
        let mut planned = Planned::new(reader.listings(), Options::default()).unwrap();
        let key_of = keys(reader);
        let tally = match cache {
            Some(entries) => {
                let mut through = StoreCache::new(&key_of, entries);
                planned.read_stores(reader, &mut through);
                through.tally
            }
            None => {
                planned.read_stores(reader, &mut AsTheyAre);
                CacheTally::default()
            }
        };
        let mut parsing = planned.read_metadata(reader);
        let mut rows = Vec::new();
        parse_logs_in_order(&mut parsing, reader, &mut rows);
        let outputs = parsing.finish(reader, &mut rows);
        let written = [SESSIONS_JSONL, USAGE_JSONL, REPORT_JSON].map(|file| {
            let mut out = Vec::new();
            outputs::write(file, &outputs, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        });
        (rows, written.to_vec(), tally)
    }

    /// The report without its `cache_ignored` diagnostics (nor their files' messages), and
    /// those, as (file, message).
    fn without_ignored(report: &str) -> (serde_json::Value, Vec<(String, String)>) {
        let mut report: serde_json::Value = serde_json::from_str(report).unwrap();
        let diagnostics = report["diagnostics"].as_array_mut().unwrap();
        let ignored: Vec<(String, String)> = diagnostics
            .iter()
            .filter(|diagnostic| diagnostic["kind"] == "cache_ignored")
            .map(|diagnostic| {
                (diagnostic["file"].as_str().unwrap().into(), diagnostic["message"].as_str().unwrap().into())
            })
            .collect();
        diagnostics.retain(|diagnostic| diagnostic["kind"] != "cache_ignored");
        for file in report["files"].as_array_mut().unwrap() {
            if ignored
                .iter()
                .any(|(path, message)| file["path"] == path.as_str() && file["message"] == message.as_str())
            {
                file.as_object_mut().unwrap().remove("message");
            }
        }
        (report, ignored)
    }

    /// Reads as its roots do, but the store's log cannot be opened.
    struct LogGone<'a>(&'a mut MemoryRoots);

    impl FileReader for LogGone<'_> {
        fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
            if path.ends_with("-wal") {
                return Err(io::Error::other("the disk is gone"));
            }
            self.0.open(root, path)
        }
    }

    #[test]
    fn a_read_that_met_an_io_error_is_not_kept() {
        let mut reader = home();
        let cold = analyze(&mut reader, None);
        let mut entries = Entries(HashMap::new(), EntryRules::new("test", &Options::default(), 0));
        let mut planned = Planned::new(reader.listings(), Options::default()).unwrap();
        let key_of = keys(&reader);
        let mut through = StoreCache::new(&key_of, &mut entries);
        planned.read_stores(&mut LogGone(&mut reader), &mut through);
        assert_eq!(through.tally, CacheTally { parsed: 1, ..CacheTally::default() });
        let report = planned.read_metadata(&mut reader).finish(&mut reader, &mut Vec::new()).report;
        let wal = report.files.iter().find(|file| file.path.ends_with("-wal")).unwrap();
        assert!(wal.message.as_deref().unwrap_or_default().contains("the disk is gone"), "{:?}", wal.message);
        assert!(entries.0.is_empty(), "not kept: {:?}", entries.0.keys());
        // The log readable again, the store is read whole, as a cold run reads it.
        let again = analyze(&mut reader, Some(&mut entries));
        assert_eq!(again.2, CacheTally { parsed: 1, ..CacheTally::default() });
        assert_eq!((&again.0, &again.1), (&cold.0, &cold.1));
    }

    #[test]
    fn a_damaged_store_entry_is_ignored_with_its_diagnostic_and_the_outputs_are_a_cold_runs() {
        let mut reader = home();
        let cold = analyze(&mut reader, None);
        assert!(!cold.0.is_empty() && cold.2 == CacheTally::default());
        let mut entries = Entries(HashMap::new(), EntryRules::new("test", &Options::default(), 0));
        let filled = analyze(&mut reader, Some(&mut entries));
        assert_eq!(filled.2, CacheTally { parsed: 1, ..CacheTally::default() }, "the store is read");
        assert_eq!((&filled.0, &filled.1), (&cold.0, &cold.1));
        assert_eq!(entries.0.keys().filter(|name| name.starts_with("store-")).count(), 1, "{:?}", entries.0.keys());
        let cached = analyze(&mut reader, Some(&mut entries));
        let size = |path: &str| reader.0[0].files[path].0.len() as u64;
        let sizes = size(STORE) + size(&format!("{STORE}-wal"));
        assert_eq!(cached.2, CacheTally { cached: 1, cached_bytes: sizes, ..CacheTally::default() }, "from the cache");
        assert_eq!((&cached.0, &cached.1), (&cold.0, &cold.1));

        for entry in entries.0.values_mut() {
            let last = entry.len() - 1;
            entry[last] ^= 0x20;
        }
        let damaged = analyze(&mut reader, Some(&mut entries));
        assert_eq!(damaged.2, CacheTally { parsed: 1, ..CacheTally::default() }, "read again");
        assert_eq!((&damaged.0, &damaged.1[..2]), (&cold.0, &cold.1[..2]), "rows, sessions and usage are a cold run's");
        let (report, ignored) = without_ignored(&damaged.1[2]);
        assert_eq!(
            ignored,
            [(
                STORE.to_string(),
                "the cache's entry is damaged (its checksum differs): ignored, the store was read again".to_string()
            )]
        );
        assert_eq!(report, without_ignored(&cold.1[2]).0, "the report is a cold run's but for the diagnostic");
        let again = analyze(&mut reader, Some(&mut entries));
        assert_eq!(again.2.cached, 1, "the entry was made again");
        assert_eq!((&again.0, &again.1), (&cold.0, &cold.1));
    }
}
