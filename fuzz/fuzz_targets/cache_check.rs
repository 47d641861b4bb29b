//! What the cache-entry fuzz target does with its bytes (tests/fuzz_regressions.rs replays the
//! inputs it found failing through it too). They are read as an entry a store hands over
//! (most stop at the header, its length or its checksum); then what follows an entry's header
//! and start (or the bytes whole, when they hold none) is sealed as this build's entry of a
//! log, so that what the checksum guards is reached: replayed as a whole analysis's entry of
//! the log as it is, parsed on as the entry of the log before it grew (the bytes its parser's
//! state), and taken as a usage scan's entry. Last, the bytes are read as the page's pack (its
//! index). Nothing panics, and memory stays within what the bytes can hold.

use std::cell::RefCell;
use std::sync::LazyLock;

use copilot_lens::analysis::usage_only::UsageRun;
use copilot_lens::analysis::{LogInput, LogQueue, Options, Planned};
use copilot_lens::cache::{EntryRules, EntryStore, FileKey, LookedUp, Prefix, Purpose, entry_name};
use copilot_lens::input::Stat;
use copilot_lens::input::memory::{MemoryRoot, MemoryRoots};
use copilot_lens::lines::LinesEnd;
use copilot_lens::model::OwnedRow;
use copilot_lens::page::pack::{PackFile, PageCache};
use copilot_lens::sources::log::{LogEnd, LogOutcome};
use serde::Deserialize;

const LOG: &str = ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/events.jsonl";
const WHOLE_LOG: &str =
    include_str!("../../fixtures/spec-sample/.copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/events.jsonl");

/// An entry's header as `src/cache/entry.rs` writes it (format 7), to find where a real entry's
/// body starts (scripts/fuzz.sh seeds the corpus with real entries); an entry of another shape
/// is sealed whole.
#[derive(Deserialize)]
struct Header<'a> {
    _magic: [u8; 4],
    _format: u32,
    _version: &'a str,
    _build: &'a str,
    _length: u64,
    _checksum: u64,
}

/// What follows an entry's header and start (the file's key, the context, the run's start):
/// its parts and rows. The bytes whole when they are no entry.
fn after_start(entry: &[u8]) -> &[u8] {
    let body = postcard::take_from_bytes::<Header>(entry).map(|(_, body)| body);
    let rest = body.and_then(postcard::take_from_bytes::<(FileKey, u64, i64)>).map(|(_, rest)| rest);
    rest.unwrap_or(entry)
}

/// The log's first `lines` lines.
fn first_lines(lines: usize) -> &'static str {
    let end = WHOLE_LOG.match_indices('\n').nth(lines - 1).map_or(WHOLE_LOG.len(), |(at, _)| at + 1);
    &WHOLE_LOG[..end]
}

fn home_with(log: &str) -> MemoryRoots {
    let mut home = MemoryRoot::new("home");
    home.insert(LOG, log, Some(0));
    MemoryRoots(vec![home])
}

/// Made once: the default options parse the pinned rate table.
static OPTIONS: LazyLock<Options> = LazyLock::new(Options::default);
static RULES: LazyLock<EntryRules> = LazyLock::new(|| EntryRules::new("fuzz", &OPTIONS, 0));

/// The log `log` analysed through `entry`, made by `seal` for the log's task (given its
/// context), or given as it is.
fn analyse_through(log: &str, entry: impl FnOnce(&EntryRules, u64) -> Option<Vec<u8>>, same_time: bool) {
    let mut reader = home_with(log);
    let planned = Planned::new(reader.listings(), OPTIONS.clone()).expect("a plan");
    let mut parsing = planned.read_metadata(&mut reader);
    let mut queue = LogQueue::<Vec<OwnedRow>>::new(&parsing);
    let Some(job) = queue.next_job(&mut parsing, 1) else { return };
    let rules = &*RULES;
    let Some(entry) = entry(rules, rules.context(&job.task)) else { return };
    let key = FileKey::of_bytes("home", LOG, Some(0), log.as_bytes());
    let _ = rules.key_if_unchanged(
        &entry,
        ("home", LOG),
        Stat { size: key.size, modified_ms: Some(0), changed_ns: None },
        None,
    );
    let mut rows = Vec::new();
    let looked_up = LookedUp { key, entry: Some(entry), unread: false };
    let input = LogInput::Bytes(log.as_bytes());
    let (parsed, _) = job.through_store(&mut NoStore { same_time }, looked_up, None, input, &OPTIONS, &mut rows);
    queue.take_back(&mut parsing, parsed, rows);
}

/// A store that has no entry and keeps none (the entry is handed to the job); `same_time`
/// says whether the log has the time its entry was made at.
struct NoStore {
    same_time: bool,
}

impl EntryStore for NoStore {
    fn rules(&self) -> &EntryRules {
        &RULES
    }
    fn get(&self, _: &str) -> Option<std::borrow::Cow<'_, [u8]>> {
        None
    }
    fn same_time(&self, _: &str, _: Option<i64>) -> bool {
        self.same_time
    }
    fn put(&mut self, _: &str, _: &[u8], _: Option<i64>) {}
}

/// The log's usage scan through `entry`, made by `seal` for the log's task.
fn scan_through(log: &str, entry: impl FnOnce(&EntryRules, u64) -> Option<Vec<u8>>) {
    let mut reader = home_with(log);
    let mut run = Planned::new(reader.listings(), OPTIONS.clone()).expect("a plan").usage_only();
    let mut queue = LogQueue::<(), (), UsageRun>::new(&run);
    let Some(job) = queue.next_job(&mut run, 1) else { return };
    let rules = &*RULES;
    let Some(entry) = entry(rules, rules.context(&job.task)) else { return };
    let key = FileKey::of_bytes("home", LOG, Some(0), log.as_bytes());
    let looked_up = LookedUp { key, entry: Some(entry), unread: false };
    let (scanned, _) = job.scan_through(&mut reader, &mut NoStore { same_time: true }, Some(looked_up), &OPTIONS);
    queue.take_back(&mut run, scanned, ());
}

/// A pack in memory.
struct Pack(RefCell<Vec<u8>>);

impl PackFile for Pack {
    fn size(&self) -> Result<u64, String> {
        Ok(self.0.borrow().len() as u64)
    }
    fn read_at(&self, at: u64, buffer: &mut [u8]) -> Result<(), String> {
        let file = self.0.borrow();
        let start = usize::try_from(at).map_err(|_| "past the end")?;
        let bytes = file.get(start..start.checked_add(buffer.len()).ok_or("past the end")?).ok_or("past the end")?;
        buffer.copy_from_slice(bytes);
        Ok(())
    }
    fn write_at(&self, at: u64, bytes: &[u8]) -> Result<(), String> {
        let mut file = self.0.borrow_mut();
        let end = at as usize + bytes.len();
        if file.len() < end {
            file.resize(end, 0);
        }
        file[at as usize..end].copy_from_slice(bytes);
        Ok(())
    }
    fn truncate(&self, size: u64) -> Result<(), String> {
        self.0.borrow_mut().resize(size as usize, 0);
        Ok(())
    }
}

/// Reads `data` as an entry every way the cache reads one, and as the page's pack.
pub fn reads_any_entry(data: &[u8]) {
    let (before, grown) = (first_lines(6), first_lines(10));
    let rest = after_start(data);
    let key_of = |log: &str| FileKey::of_bytes("home", LOG, Some(0), log.as_bytes());

    // As a store hands it over.
    analyse_through(grown, |_, _| Some(data.to_vec()), true);
    scan_through(grown, |_, _| Some(data.to_vec()));
    // Sealed: the log's entry as it is, and at another time (kept only for a log that grew).
    for same_time in [true, false] {
        analyse_through(grown, |rules, context| rules.encode(&key_of(grown), context, &(), rest), same_time);
    }
    // The entry of the log before it grew, its parser's state the bytes: parsed on from there.
    let stopped = Prefix::of(before.as_bytes())
        .stopped_at(LogEnd { at: LinesEnd { lines: 6, offset: before.len() as u64 }, state: rest.to_vec() });
    let parts = (LogOutcome::default(), None::<()>, stopped);
    analyse_through(grown, |rules, context| rules.encode(&key_of(before), context, &parts, &[]), true);
    // A usage scan's entry.
    scan_through(grown, |rules, context| rules.encode(&key_of(grown), context, &(), rest));

    // As the page's pack.
    let mut page = PageCache::new(Box::new(Pack(RefCell::new(data.to_vec()))), "fuzz", RULES.clone(), 1 << 20);
    let name = entry_name("home", LOG, Purpose::Analyze);
    let stat = Stat { size: grown.len() as u64, modified_ms: Some(0), changed_ns: None };
    let _ = copilot_lens::cache::look_up(&page, Purpose::Analyze, ("home", LOG), Some(stat), || None);
    let _ = page.kept_file(("home", LOG), stat);
    page.used(&name);
    let _ = page.finish();
}
