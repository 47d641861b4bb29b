//! An entry's bytes, in postcard: a [`Header`], then the body its length and checksum cover: the
//! file's key, the context's fingerprint, when the run that read the file started (the
//! caller's clock, [`EntryRules::new`]), what the log's work gave (a parse's `LogOutcome`,
//! where it stopped with its parser's state there, and its rows as the parser fed them; or a
//! usage scan's ledger and stats).

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::FileKey;
use crate::analysis::{LogTask, Options, TallySink};
use crate::dedup::RowText;
use crate::model::{LineLocator, Row, RowMark, RowSink, TurnType};

const MAGIC: [u8; 4] = *b"CLc1";
/// Raised whenever what an entry holds changes shape.
pub const FORMAT: u32 = 7;

/// The most an entry's header takes (its strings are the tool's version and the caller's build
/// name): a store reads that much of an entry before its length (`stated_length`).
pub const HEADER_BYTES_AT_MOST: usize = 1 << 10;

/// What every entry starts with.
#[derive(Serialize, Deserialize)]
struct Header<'a> {
    magic: [u8; 4],
    format: u32,
    version: &'a str,
    build: &'a str,
    /// The body's length: an entry with bytes missing or added (a file padded with zeros) is
    /// told before its store reads it whole.
    length: u64,
    /// xxh3 of the body: a damaged entry is never read as another one.
    checksum: u64,
}

/// How long the entry `start` (its first bytes, up to [`HEADER_BYTES_AT_MOST`]) begins says it
/// is, header and body: a store reads no more of an entry than its file holds and this says,
/// so that a damaged one makes it allocate nothing beyond its size (`EntryRules::open` ignores
/// an entry of another length). None when `start` holds no header.
pub fn stated_length(start: &[u8]) -> Option<u64> {
    let (header, body) = postcard::take_from_bytes::<Header>(start).ok()?;
    ((start.len() - body.len()) as u64).checked_add(header.length)
}

/// What a run's entries must agree with, made once per run: the build that writes and reads
/// them, and the options every entry's context includes; and when the run started.
#[derive(Clone, Debug)]
pub struct EntryRules {
    build: String,
    options: u64,
    /// Epoch milliseconds by the caller's clock, before any file was listed or read: the
    /// entries this run makes say their files were read no earlier (`super::settled`).
    started_ms: i64,
}

/// What an entry's body starts with: the key of the file it was made for, the context's
/// fingerprint, and when the run that made it started.
type EntryStart = (FileKey, u64, i64);

/// Why an entry was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Miss {
    /// None, or its file or context changed: a plain miss.
    Changed,
    /// Written by another version or build, or damaged: the run says so (`cache_ignored`).
    Ignored(String),
}

impl EntryRules {
    /// `build` names the build (natively the executable's size and time, in the page the
    /// module's hash): entries of another one are ignored. `started_ms` is when the run
    /// started by the caller's clock (the core has none).
    pub fn new(build: &str, options: &Options, started_ms: i64) -> EntryRules {
        let options = format!("{}\0{:?}\0{}", options.include_thinking, options.zone, options.rates.fingerprint());
        EntryRules { build: build.to_string(), options: xxh3_64(options.as_bytes()), started_ms }
    }

    /// The fingerprint of what a log's rows and outcome depend on beyond its bytes.
    pub fn context(&self, task: &LogTask) -> u64 {
        let text = format!(
            "{}\0{}\0{}\0{}\0{}\0{}\0{}\0{}\0{}",
            self.options,
            task.source().agent(),
            task.session_id,
            task.session_id_from_log,
            task.source,
            task.fallback_project,
            task.fallback_branch,
            task.client_name,
            task.listed_path,
        );
        xxh3_64(text.as_bytes())
    }

    /// The fingerprint of what a store's read depends on beyond its main file: the options and
    /// `also` (its write-ahead log's key, what it reads).
    pub(crate) fn store_context(&self, also: &impl Serialize) -> Option<u64> {
        let mut text = postcard::to_allocvec(also).ok()?;
        text.extend_from_slice(&self.options.to_le_bytes());
        Some(xxh3_64(&text))
    }

    /// An entry: the header, then `key`, `context`, when this run started and `parts`, then
    /// `rows` as they are.
    pub fn encode<T: Serialize>(&self, key: &FileKey, context: u64, parts: &T, rows: &[u8]) -> Option<Vec<u8>> {
        let parts = postcard::to_allocvec(&(key, context, self.started_ms, parts)).ok()?;
        // The body (`parts`, then `rows`) hashed in its two pieces: the rows, most of an
        // entry, are copied once.
        let mut body = Xxh3::new();
        body.update(&parts);
        body.update(rows);
        let header = Header {
            magic: MAGIC,
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION"),
            build: &self.build,
            length: (parts.len() + rows.len()) as u64,
            checksum: body.digest(),
        };
        let mut entry = postcard::to_allocvec(&header).ok()?;
        entry.reserve_exact(parts.len() + rows.len());
        entry.extend_from_slice(&parts);
        entry.extend_from_slice(rows);
        Some(entry)
    }

    /// An entry that is no file's (the status line's month snapshot): the header, then `parts`.
    pub fn encode_own<T: Serialize>(&self, parts: &T) -> Option<Vec<u8>> {
        let parts = postcard::to_allocvec(parts).ok()?;
        let header = Header {
            magic: MAGIC,
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION"),
            build: &self.build,
            length: parts.len() as u64,
            checksum: xxh3_64(&parts),
        };
        let mut entry = postcard::to_allocvec(&header).ok()?;
        entry.extend_from_slice(&parts);
        Some(entry)
    }

    /// The parts of an entry [`Self::encode_own`] made, if this build made it and it is whole.
    pub fn decode_own<T: DeserializeOwned>(&self, entry: &[u8]) -> Option<T> {
        let (checksum, body) = self.body(entry).ok()?;
        if xxh3_64(body) != checksum {
            return None;
        }
        postcard::from_bytes(body).ok()
    }

    /// The key of the file an entry was made for in `context`, and the bytes after it (the
    /// entry's parts, then its rows).
    pub(crate) fn open<'e>(&self, entry: &'e [u8], context: u64) -> Result<(FileKey, &'e [u8]), Miss> {
        let (checksum, body) = self.body(entry)?;
        if xxh3_64(body) != checksum {
            return Err(Miss::Ignored("the cache's entry is damaged (its checksum differs)".to_string()));
        }
        let ((made_for, entry_context, _), rest) = postcard::take_from_bytes::<EntryStart>(body).map_err(damaged)?;
        if entry_context != context {
            return Err(Miss::Changed);
        }
        Ok((made_for, rest))
    }

    /// The key of the file an entry was made for and when the run that made it started, read
    /// without checking the rest of the entry (`open` does, before any of it is used).
    pub(crate) fn made_for(&self, entry: &[u8]) -> Option<(FileKey, i64)> {
        let ((made_for, _, started_ms), _) = postcard::take_from_bytes::<EntryStart>(self.body(entry).ok()?.1).ok()?;
        Some((made_for, started_ms))
    }

    /// The checksum an entry's header gives and the bytes after the header, if this build
    /// wrote it and they are as long as it says.
    fn body<'e>(&self, entry: &'e [u8]) -> Result<(u64, &'e [u8]), Miss> {
        let (header, body) = postcard::take_from_bytes::<Header>(entry).map_err(damaged)?;
        if header.magic != MAGIC {
            return Err(Miss::Ignored("the cache's entry is not one".to_string()));
        }
        let version = env!("CARGO_PKG_VERSION");
        if (header.format, header.version, header.build) != (FORMAT, version, self.build.as_str()) {
            return Err(Miss::Ignored(format!(
                "the cache's entry was written by copilot-lens {} (cache format {}, build {}), not by this one ({version}, {FORMAT}, {})",
                header.version, header.format, header.build, self.build
            )));
        }
        if header.length != body.len() as u64 {
            return Err(Miss::Ignored("the cache's entry is damaged (its length is not its header's)".to_string()));
        }
        Ok((header.checksum, body))
    }

    /// The parts of an entry made for `key` in `context`, and the bytes after them (the rows).
    pub(crate) fn decode<'e, T: DeserializeOwned>(
        &self,
        entry: &'e [u8],
        key: &FileKey,
        context: u64,
    ) -> Result<(T, &'e [u8]), Miss> {
        match self.open(entry, context)? {
            (made_for, rest) if made_for == *key => parts(rest),
            _ => Err(Miss::Changed),
        }
    }
}

/// The parts of an opened entry (`EntryRules::open`), and the bytes after them (the rows).
pub(crate) fn parts<T: DeserializeOwned>(rest: &[u8]) -> Result<(T, &[u8]), Miss> {
    postcard::take_from_bytes::<T>(rest).map_err(damaged)
}

fn damaged<E>(_: E) -> Miss {
    Miss::Ignored("the cache's entry is damaged".to_string())
}

/// A row as the cache keeps it, read back borrowing the entry's bytes: not a `Row`, whose fields are
/// rows.jsonl's, for its text is kept scrubbed and only as far as the sink keeps it (`CachedText`),
/// and the log's agent and its file's index are the run's.
#[derive(Serialize, Deserialize)]
pub(crate) struct CachedRow<'a> {
    timestamp_utc: &'a str,
    session_id: &'a str,
    project_path: &'a str,
    git_branch: &'a str,
    client_name: &'a str,
    model: &'a str,
    tool_name: &'a str,
    tool_use_id: &'a str,
    turn_type: TurnType,
    text: CachedText<'a>,
    source: &'a str,
    source_line: u64,
    mark: RowMark,
    /// The locator's offset and ordinal.
    locator: Option<(u64, u32)>,
}

/// A row's text as the cache keeps it: as much as the sink it was made for keeps
/// (`RowSink::text_kept`), scrubbed already (scrubbing again was most of what replaying a log
/// cost).
#[derive(Serialize, Deserialize)]
enum CachedText<'a> {
    /// For a sink that keeps texts whole: the text, and the scrubber's text of it where that
    /// differs.
    Whole { text: &'a str, scrubbed: Option<&'a str> },
    /// For a sink that keeps a text's first `kept` bytes (the page's table, which reads a long
    /// text again from its log to show it): the start of the scrubbed text it keeps, as long as
    /// the whole is up to `kept` bytes and a character more, and what the tally reads of the
    /// whole text. The page's entries are a fraction of the size so.
    Start { kept: u64, scrubbed: &'a str, tally: RowText },
}

/// `text` up to its byte `kept` and the character there: what a sink that keeps `kept` bytes
/// reads of it, longer than `kept` bytes exactly when the text is.
fn start_of(text: &str, kept: usize) -> &str {
    if text.len() <= kept {
        return text;
    }
    let mut end = kept + 1;
    while !text.is_char_boundary(end) {
        end += 1;
    }
    &text[..end]
}

/// A sink that keeps the rows a parser feeds, as the cache keeps them, on their way to another.
pub(crate) struct RecordingSink<'a> {
    inner: &'a mut dyn RowSink,
    agent: &'static str,
    rows: Vec<u8>,
    /// False once a row cannot be kept as the cache keeps rows: no entry is made.
    usable: bool,
}

impl<'a> RecordingSink<'a> {
    /// The rows after `before`, the rows kept already (those of a log's part parsed before).
    pub(crate) fn new(inner: &'a mut dyn RowSink, agent: &'static str, before: &[u8]) -> Self {
        RecordingSink { inner, agent, rows: before.to_vec(), usable: true }
    }

    /// The rows kept, if every one could be.
    pub(crate) fn rows(self) -> Option<Vec<u8>> {
        self.usable.then_some(self.rows)
    }
}

impl RowSink for RecordingSink<'_> {
    /// Keeps `row` with its text scrubbed as far as the sink within keeps it, scrubbing it
    /// here for that sink.
    fn push(&mut self, row: &Row<'_>) {
        let kept = self.inner.text_kept(row);
        let scrubbed = crate::scrub::row(row, kept);
        if self.usable {
            let text = match kept {
                None => CachedText::Whole {
                    text: &row.text,
                    scrubbed: match &scrubbed {
                        Cow::Borrowed(_) => None,
                        Cow::Owned(scrubbed) => Some(&scrubbed.text),
                    },
                },
                Some(kept) => CachedText::Start {
                    kept: kept as u64,
                    scrubbed: start_of(&scrubbed.text, kept),
                    tally: RowText::of(row),
                },
            };
            let cached = CachedRow {
                timestamp_utc: &row.timestamp_utc,
                session_id: row.session_id,
                project_path: row.project_path,
                git_branch: row.git_branch,
                client_name: row.client_name,
                model: row.model,
                tool_name: row.tool_name,
                tool_use_id: row.tool_use_id,
                turn_type: row.turn_type,
                text,
                source: row.source,
                source_line: row.source_line,
                mark: row.mark,
                locator: row.locator.map(|locator| (locator.offset, locator.ordinal)),
            };
            self.usable = row.agent == self.agent;
            // Through `io::Write`, which appends a string at once (`to_extend` goes byte by byte).
            if postcard::to_io(&cached, &mut self.rows).is_err() {
                self.usable = false;
            }
        }
        self.inner.push_scrubbed(row, &scrubbed);
    }

    fn text_kept(&self, row: &Row<'_>) -> Option<usize> {
        self.inner.text_kept(row)
    }
}

/// The rows an entry kept, every one read before any is fed, for `sink`: an entry that kept a
/// text's start for a sink that keeps another length of it is of no use (`Miss::Changed`).
pub(crate) fn read_rows<'e>(mut rows: &'e [u8], task: &LogTask, sink: &TallySink) -> Result<Vec<CachedRow<'e>>, Miss> {
    let mut read = Vec::new();
    while !rows.is_empty() {
        let (row, rest) = postcard::take_from_bytes::<CachedRow>(rows).map_err(damaged)?;
        if let CachedText::Start { kept, scrubbed, .. } = row.text
            && sink.text_kept(&as_row(&row, scrubbed, task)).map(|kept| kept as u64) != Some(kept)
        {
            return Err(Miss::Changed);
        }
        read.push(row);
        rows = rest;
    }
    Ok(read)
}

/// The row `row` of the cache is, with `text`.
fn as_row<'e>(row: &CachedRow<'e>, text: &'e str, task: &LogTask) -> Row<'e> {
    Row {
        agent: task.source().agent(),
        timestamp_utc: Cow::Borrowed(row.timestamp_utc),
        session_id: row.session_id,
        project_path: row.project_path,
        git_branch: row.git_branch,
        client_name: row.client_name,
        model: row.model,
        tool_name: row.tool_name,
        tool_use_id: row.tool_use_id,
        turn_type: row.turn_type,
        text: Cow::Borrowed(text),
        source: row.source,
        source_line: row.source_line,
        mark: row.mark,
        locator: row.locator.map(|(offset, ordinal)| LineLocator { file: task.file as u32, offset, ordinal }),
    }
}

/// Feeds rows an entry kept (`read_rows` for `sink`) to `sink` as the parser fed them.
fn feed_rows(rows: Vec<CachedRow<'_>>, task: &LogTask, sink: &mut TallySink) {
    for row in rows {
        match row.text {
            CachedText::Whole { text, scrubbed } => {
                let fed = as_row(&row, text, task);
                match (sink.text_kept(&fed), scrubbed) {
                    // A sink that keeps only a start: scrubbed for it (an entry of the CLI's).
                    (Some(kept), _) => sink.push_scrubbed(&fed, &crate::scrub::row(&fed, Some(kept))),
                    (None, None) => sink.push_scrubbed(&fed, &fed),
                    (None, Some(text)) => sink.push_scrubbed(&fed, &Row { text: Cow::Borrowed(text), ..fed.clone() }),
                }
            }
            CachedText::Start { scrubbed, tally, .. } => sink.push_replayed(&as_row(&row, scrubbed, task), tally),
        }
    }
}

/// Feeds the rows an entry kept to `sink` as the parser fed them; nothing is fed unless every
/// row reads and fits the sink.
pub(crate) fn replay_rows(rows: &[u8], task: &LogTask, sink: &mut TallySink) -> Result<(), Miss> {
    feed_rows(read_rows(rows, task, sink)?, task, sink);
    Ok(())
}

/// A sink that feeds the rows of a log's part parsed before (an entry's) to another ahead of
/// the first row pushed to it, or when it is finished if none was: a parse that goes on from
/// there may still give up before its first row, having fed nothing.
pub(crate) struct ReplayFirst<'a, 'e, 's> {
    before: Option<Vec<CachedRow<'e>>>,
    task: &'a LogTask,
    inner: &'a mut TallySink<'s>,
}

impl<'a, 'e, 's> ReplayFirst<'a, 'e, 's> {
    pub(crate) fn new(before: Vec<CachedRow<'e>>, task: &'a LogTask, inner: &'a mut TallySink<'s>) -> Self {
        ReplayFirst { before: Some(before), task, inner }
    }

    fn feed_before(&mut self) {
        if let Some(before) = self.before.take() {
            feed_rows(before, self.task, self.inner);
        }
    }

    /// The parse went on: the rows before are fed if no row came after them.
    pub(crate) fn finish(mut self) {
        self.feed_before();
    }
}

impl RowSink for ReplayFirst<'_, '_, '_> {
    fn push(&mut self, row: &Row<'_>) {
        self.feed_before();
        self.inner.push(row);
    }

    fn push_scrubbed(&mut self, row: &Row<'_>, scrubbed: &Row<'_>) {
        self.feed_before();
        self.inner.push_scrubbed(row, scrubbed);
    }

    fn text_kept(&self, row: &Row<'_>) -> Option<usize> {
        self.inner.text_kept(row)
    }
}
