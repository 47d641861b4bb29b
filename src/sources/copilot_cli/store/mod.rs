//! `session-store.db`, the cross-session SQLite store. Its rows live in the `-wal` sidecar:
//! the log is replayed onto a copy of the main file in memory (`wal`), and the copy is read
//! with SQLite, columns by name, any storage class. The user's files are never opened.
//! A secondary source: its turns mostly repeat the event logs (see "Other stores").

pub mod vfs;
pub mod wal;

use std::collections::BTreeMap;

use rusqlite::types::ValueRef;
use std::io::{self, Read};

use crate::input::ReadAt;
use rusqlite::Connection;

use crate::sources::sqlite_image::{open_image, sqlite_buffer};

use super::ranks;
use crate::dedup;
use crate::facts::session::SessionFacts;
use crate::model::TurnType;
use crate::model::{HeldRow, PendingRow, StoreTurn};
use crate::usage::counters::{CopilotUsage, Count, UsageCounts};

/// One row of the `sessions` table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreSession {
    pub id: String,
    pub cwd: String,
    pub branch: String,
    pub repository: String,
    pub summary: String,
    pub created_at: String,
    pub updated_at: String,
}

impl StoreSession {
    /// Its claims on the session (the first store read that names it speaks for it).
    pub fn claim(&self, facts: &mut SessionFacts) {
        facts.title.claim(ranks::TITLE_FROM_STORE, self.summary.as_str());
        facts.project.claim(ranks::PROJECT_FROM_STORE, self.cwd.as_str());
        facts.branch.claim(ranks::BRANCH_FROM_STORE, self.branch.as_str());
        facts.created_at.claim(ranks::TIMES_FROM_STORE, self.created_at.as_str());
        facts.updated_at.claim(ranks::TIMES_FROM_STORE, self.updated_at.as_str());
    }
}

/// One row of `assistant_usage_events`: one model call with its tokens.
#[derive(Clone, Debug, Default)]
pub struct StoreUsageEvent {
    pub rowid: i64,
    pub session_id: String,
    pub agent_id: String,
    pub created_at: String,
    pub counts: UsageCounts,
}

/// What to read of the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreScope {
    Everything,
    /// Only the per-call rows of `assistant_usage_events`, and not those of these sessions
    /// (whose logs have their own per-call records): usage-only runs.
    UsageExcept(std::collections::BTreeSet<String>),
}

#[derive(Debug, Default)]
pub struct StoreContents {
    pub wal: Option<wal::WalStats>,
    pub sessions: Vec<StoreSession>,
    pub rows: Vec<HeldRow>,
    /// Sessions the row tables name (the turns' rows are held without theirs).
    pub session_ids: std::collections::BTreeSet<String>,
    /// Rows per table read.
    pub tables: BTreeMap<String, u64>,
    /// Tables that could not be read, with SQLite's message; the others are still read.
    pub problems: Vec<String>,
    /// Why the write-ahead log was not replayed, when it was not.
    pub wal_problem: Option<String>,
}

/// The main file and the write-ahead log, each opened for positional reads where it exists.
pub type PositionalFiles = (Option<Box<dyn ReadAt>>, Option<Box<dyn ReadAt>>);

/// The store's two files as the reader opens them, each as often as it needs.
pub trait StoreFiles {
    /// The main file's size, or `None` when there is no main file.
    fn main_size(&self) -> Option<u64>;
    fn open_main(&mut self) -> io::Result<Box<dyn Read + '_>>;
    fn has_wal(&self) -> bool;
    fn open_wal(&mut self) -> io::Result<Box<dyn Read + '_>>;
    /// Positional access to both files, where the source allows it: the database is then read
    /// page by page through `vfs` instead of being built in memory.
    fn positional(&mut self) -> Option<io::Result<PositionalFiles>> {
        None
    }

    /// The log's scan when it was made ahead (`scan_wal`).
    fn scanned_wal(&mut self) -> Option<Result<wal::WalIndex, String>> {
        None
    }
}

/// The largest database image built in memory.
pub const IMAGE_LIMIT: u64 = 2 << 30;

/// A database shorter than its header cannot be opened (and its header bytes cannot be set).
const SQLITE_HEADER_BYTES: u64 = 100;

/// Why the store could not be read, and the log's own problem if it had one.
#[derive(Debug)]
pub struct StoreFailure {
    pub message: String,
    pub wal_problem: Option<String>,
}

/// Reads the store: the log (if any) is replayed onto the main file's bytes in a buffer
/// SQLite owns, which SQLite then opens read-only. Memory is the size of the database.
pub fn read(
    files: &mut dyn StoreFiles,
    scope: StoreScope,
    on_usage: &mut dyn FnMut(StoreUsageEvent),
) -> Result<StoreContents, StoreFailure> {
    let mut contents = StoreContents::default();
    read_into(files, scope, &mut contents, on_usage)
        .map(|()| contents.take())
        .map_err(|message| StoreFailure { message, wal_problem: contents.wal_problem.take() })
}

impl StoreContents {
    fn take(&mut self) -> StoreContents {
        std::mem::take(self)
    }
}

fn read_into(
    files: &mut dyn StoreFiles,
    scope: StoreScope,
    contents: &mut StoreContents,
    on_usage: &mut dyn FnMut(StoreUsageEvent),
) -> Result<(), String> {
    let (connection, registration, without_main) = open_store(files, contents)?;
    let mut read = read_connection(&connection, scope, contents, on_usage);
    if let Some(registration) = registration {
        read = match read {
            Err(message) => Err(registration.explain(message)),
            Ok(()) => {
                // A table that failed partway is among the problems; say why the files did.
                if let Some(cause) = registration.take_read_error() {
                    contents.problems.push(format!("reading the store's files failed: {cause}"));
                }
                Ok(())
            }
        };
    }
    // SQLite calls the pages that were the main file's "malformed": say which file is missing.
    let Some(missing) = without_main else { return read };
    match read {
        Err(message) => Err(format!("{missing}: {message}; nothing was read from it")),
        Ok(()) if contents.problems.is_empty() => Ok(()),
        Ok(()) => {
            let still: Vec<String> = contents.tables.iter().map(|(table, rows)| format!("{table} {rows}")).collect();
            let still = if still.is_empty() { "nothing".to_string() } else { still.join(", ") };
            contents.problems.insert(0, format!("{missing}: some tables cannot be read; rows still read: {still}"));
            Ok(())
        }
    }
}

/// A SQLite database of its own (no write-ahead log is read), opened as the store is. The
/// registration of a VFS database lives as long as the connection, and is dropped after it.
pub struct OpenDatabase {
    pub connection: Connection,
    _registration: Option<vfs::Registration>,
}

pub fn open_database(files: &mut dyn StoreFiles) -> Result<OpenDatabase, String> {
    let (connection, registration, _) = open_store(files, &mut StoreContents::default())?;
    Ok(OpenDatabase { connection, _registration: registration })
}

/// Why a log read without its main file lacks pages, when it does.
fn main_file_missing(main_size: u64, index: Option<&wal::WalIndex>) -> Option<String> {
    let index = index?;
    let (pages, held) = (index.database_pages?, index.pages_held());
    (main_size == 0 && held < pages).then(|| {
        format!(
            "the main session-store.db is missing and its write-ahead log holds only {held} of the database's {pages} pages (the rest were in the main file)"
        )
    })
}

/// Pass one over the write-ahead log (its committed frames), which can be made ahead of the
/// read, on another thread.
pub fn scan_wal(files: &mut dyn StoreFiles) -> Result<wal::WalIndex, String> {
    files.open_wal().map_err(|error| format!("cannot open the write-ahead log: {error}")).and_then(wal::scan)
}

/// Opens the store read-only: page by page through `vfs` where the files allow positional
/// reads, else as an image built in memory. The registration keeps a VFS database alive.
fn open_store(
    files: &mut dyn StoreFiles,
    contents: &mut StoreContents,
) -> Result<(Connection, Option<vfs::Registration>, Option<String>), String> {
    let main_size = files.main_size().unwrap_or(0);
    let index = committed_wal(files, main_size, contents);
    let without_main = main_file_missing(main_size, index.as_ref());
    let size = match index.as_ref().and_then(|index| Some(index.database_pages? * index.page_size as u64)) {
        Some(size) => size,
        None if main_size > 0 => main_size,
        None => {
            let why = contents.wal_problem.clone().unwrap_or_else(|| "it holds no committed transaction".into());
            return Err(format!("there is no database, and the write-ahead log cannot stand in for it: {why}"));
        }
    };
    if size < SQLITE_HEADER_BYTES {
        return Err(format!(
            "the database is {size} bytes, too short for the {SQLITE_HEADER_BYTES} byte SQLite header"
        ));
    }
    if let Some(opened) = files.positional() {
        let (main, wal) = opened.map_err(|error| format!("cannot open the store: {error}"))?;
        let database = vfs::PagedDatabase { main, main_size, wal: wal.zip(index), read_error: None };
        let (connection, registration) = vfs::open(database)?;
        return Ok((connection, Some(registration), without_main));
    }
    if size > IMAGE_LIMIT {
        return Err(format!("the database is {size} bytes, more than the {IMAGE_LIMIT} bytes copilot-lens reads"));
    }
    let mut image = sqlite_buffer(size as usize)?;
    image.fill(0);
    if main_size > 0 {
        let mut main = files.open_main().map_err(|error| format!("cannot open the database: {error}"))?;
        let wanted = (main_size.min(size)) as usize;
        main.read_exact(&mut image[..wanted]).map_err(|error| format!("cannot read the database: {error}"))?;
    }
    if let Some(index) = &index {
        let log = files.open_wal().map_err(|error| format!("cannot open the write-ahead log: {error}"))?;
        wal::apply(log, index, &mut image)?;
    }
    // Header bytes 18 and 19 say WAL (2), which an in-memory image cannot be opened in; 1 is
    // the rollback journal.
    image[18] = 1;
    image[19] = 1;
    Ok((open_image(image)?, None, without_main))
}

/// The write-ahead log's committed frames, if there is a log, it belongs to the database and
/// it committed anything. A log that cannot be used is noted in `contents` and the database
/// is read as if there were none, as SQLite does; the log's figures are noted when it is used.
fn committed_wal(files: &mut dyn StoreFiles, main_size: u64, contents: &mut StoreContents) -> Option<wal::WalIndex> {
    if !files.has_wal() {
        return None;
    }
    let scanned = files.scanned_wal().unwrap_or_else(|| scan_wal(files));
    let checked = scanned.and_then(|index| match main_page_size(files) {
        // A database in WAL mode cannot change its page size, so a log of another page size
        // is another database's (SQLite does not check this; it would read the log's pages
        // into the wrong places, or read the other database).
        Some(page_size) if index.database_pages.is_some() && page_size != index.page_size => Err(format!(
            "the write-ahead log's pages are {} bytes but the database's are {page_size}, so the log belongs to another database",
            index.page_size
        )),
        _ if index.pages_held_by_nothing(main_size) > 0 => Err(format!(
            "the write-ahead log's last commit says the database has {} pages of {} bytes, {} more than the log \
             and the database file hold",
            index.database_pages.unwrap_or(0),
            index.page_size,
            index.pages_held_by_nothing(main_size)
        )),
        _ => Ok(index),
    });
    match checked {
        Ok(index) => {
            contents.wal = Some(index.stats.clone());
            index.database_pages.is_some().then_some(index)
        }
        Err(why) if main_size > 0 => {
            contents.wal_problem =
                Some(format!("{why}; the log was ignored and the database file was read without it"));
            None
        }
        Err(why) => {
            contents.wal_problem = Some(why);
            None
        }
    }
}

/// The page size the main file's header declares, where it has a header. A main file that
/// cannot be read has none here; reading the database says why.
fn main_page_size(files: &mut dyn StoreFiles) -> Option<usize> {
    files.main_size().filter(|&size| size > 0)?;
    let mut header = [0u8; SQLITE_HEADER_BYTES as usize];
    files.open_main().ok()?.read_exact(&mut header).ok()?;
    wal::database_page_size(&header)
}

/// The store opened again to read kept turns whole, one at a time.
pub struct TurnReader {
    connection: Connection,
    registration: Option<vfs::Registration>,
}

impl TurnReader {
    pub fn open(files: &mut dyn StoreFiles) -> Result<TurnReader, String> {
        let (connection, registration, _) = open_store(files, &mut StoreContents::default())?;
        Ok(TurnReader { connection, registration })
    }

    /// The turn as a row; project and branch are left for the joins.
    pub fn read(&self, turn: &StoreTurn) -> Result<PendingRow, String> {
        let sql = match turn.turn_type {
            TurnType::User => "SELECT session_id, timestamp, user_message FROM turns WHERE rowid = ?1",
            _ => "SELECT session_id, timestamp, assistant_response FROM turns WHERE rowid = ?1",
        };
        let (session_id, stamp, text) = self
            .connection
            .prepare_cached(sql)
            .and_then(|mut statement| {
                statement.query_row([turn.rowid as i64], |row| {
                    Ok((value_text(row.get_ref(0)?), value_text(row.get_ref(1)?), value_text(row.get_ref(2)?)))
                })
            })
            .map_err(|error| {
                let message = format!("reading turn {} again: {error}", turn.rowid);
                match &self.registration {
                    Some(registration) => registration.explain(message),
                    None => message,
                }
            })?;
        let row =
            PendingRow::new(turn.turn_type, text.unwrap_or_default(), stamp.as_deref().unwrap_or_default(), turn.rowid);
        Ok(row.in_session(session_id.as_deref().unwrap_or_default()))
    }
}

fn read_connection(
    connection: &Connection,
    scope: StoreScope,
    contents: &mut StoreContents,
    on_usage: &mut dyn FnMut(StoreUsageEvent),
) -> Result<(), String> {
    // Reading the schema is the first access that checks the database.
    connection
        .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get::<_, i64>(0))
        .map_err(|error| format!("SQLite cannot read the schema: {error}"))?;
    let mut tables = Tables { connection, contents };
    match &scope {
        StoreScope::Everything => {
            read_row_tables(&mut tables);
            read_usage(&mut tables, on_usage, &Default::default());
        }
        StoreScope::UsageExcept(known) => read_usage(&mut tables, on_usage, known),
    }
    Ok(())
}

/// Reads tables by column name, row by row, noting what could not be read.
struct Tables<'a> {
    connection: &'a Connection,
    contents: &'a mut StoreContents,
}

impl Tables<'_> {
    /// Calls `each` with the rowid and the named columns of every row, in rowid order (or of
    /// the rows `query` narrows to). A missing column reads as NULL and a missing table as no
    /// rows; a table SQLite cannot read is noted.
    fn each_row(
        &mut self,
        table: &str,
        columns: &[&str],
        query: Option<Query<'_>>,
        mut each: impl FnMut(&mut StoreContents, u64, &[Option<String>]),
    ) {
        let present = match table_columns(self.connection, table) {
            Ok(present) if present.is_empty() => return,
            Ok(present) => present,
            Err(error) => return self.contents.problems.push(format!("{table}: {error}")),
        };
        let select: Vec<String> = columns
            .iter()
            .map(|column| match query {
                _ if present.iter().any(|p| p == column) => format!("\"{column}\""),
                _ => "NULL".into(),
            })
            .collect();
        let sql = match query {
            None => format!("SELECT rowid, {} FROM \"{table}\" ORDER BY rowid", select.join(", ")),
            Some(Query::Distinct) => format!("SELECT DISTINCT 0, {} FROM \"{table}\"", select.join(", ")),
            Some(Query::Session(_)) => {
                format!("SELECT rowid, {} FROM \"{table}\" WHERE session_id = ?1 ORDER BY rowid", select.join(", "))
            }
        };
        let mut count = 0;
        let mut values = Vec::with_capacity(columns.len());
        let result = (|| -> rusqlite::Result<()> {
            let mut statement = self.connection.prepare(&sql)?;
            let mut rows = match query {
                Some(Query::Session(session)) => statement.query([session])?,
                _ => statement.query([])?,
            };
            while let Some(row) = rows.next()? {
                let rowid: i64 = row.get(0)?;
                values.clear();
                for index in 1..=columns.len() {
                    values.push(value_text(row.get_ref(index)?));
                }
                each(self.contents, rowid as u64, &values);
                count += 1;
            }
            Ok(())
        })();
        if !matches!(query, Some(Query::Distinct)) {
            *self.contents.tables.entry(table.to_string()).or_default() += count;
        }
        if let Err(error) = result {
            self.contents.problems.push(format!("{table}: {error}"));
        }
    }
}

/// A narrower read of a table than all its rows.
#[derive(Clone, Copy)]
enum Query<'a> {
    /// `DISTINCT` of the one column named (its index serves it where there is one).
    Distinct,
    /// The rows of one session.
    Session(&'a str),
}

fn read_row_tables(tables: &mut Tables<'_>) {
    let mut rows = Vec::new();
    let mut turns = Vec::new();
    tables.each_row(
        "sessions",
        &["id", "cwd", "repository", "branch", "summary", "created_at", "updated_at"],
        None,
        |contents, rowid, v| {
            let session = StoreSession {
                id: take(&v[0]),
                cwd: take(&v[1]),
                repository: take(&v[2]),
                branch: take(&v[3]),
                summary: take(&v[4]),
                created_at: take(&v[5]),
                updated_at: take(&v[6]),
            };
            if !session.summary.is_empty() {
                let text = format!("session name: {}", session.summary);
                rows.push(PendingRow::new(TurnType::System, text, &session.created_at, rowid).in_session(&session.id));
            }
            contents.sessions.push(session);
        },
    );
    // Prompts and replies are the store's long texts: they are held as keys and read again
    // only for the copies that survive deduplication (see `TurnReader`).
    tables.each_row(
        "turns",
        &["session_id", "user_message", "assistant_response", "timestamp"],
        None,
        |contents, rowid, v| {
            let session_id = take(&v[0]);
            if !contents.session_ids.contains(&session_id) {
                contents.session_ids.insert(session_id.clone());
            }
            let millis = v[3].as_deref().and_then(crate::time::parse_millis);
            for (value, turn_type) in [(&v[1], TurnType::User), (&v[2], TurnType::Assistant)] {
                let Some(text) = value else { continue };
                turns.push(HeldRow::Turn(StoreTurn {
                    rowid,
                    turn_type,
                    millis,
                    session_key: dedup::session_key(&session_id, turn_type, text),
                    global_key: dedup::global_key(turn_type, text),
                }));
            }
        },
    );
    let names = rows.len();
    tables.each_row(
        "session_files",
        &["session_id", "file_path", "tool_name", "first_seen_at"],
        None,
        |_, rowid, v| {
            let text = format!("file changed: {} tool={}", take(&v[1]), take(&v[2]));
            rows.push(PendingRow::new(TurnType::System, text, &take(&v[3]), rowid).in_session(&take(&v[0])));
        },
    );
    tables.each_row("session_refs", &["session_id", "ref_type", "ref_value", "created_at"], None, |_, rowid, v| {
        let text = format!("reference: {} {}", take(&v[1]), take(&v[2]));
        rows.push(PendingRow::new(TurnType::System, text, &take(&v[3]), rowid).in_session(&take(&v[0])));
    });
    const CHECKPOINT_SECTIONS: [&str; 6] =
        ["overview", "history", "work_done", "technical_details", "important_files", "next_steps"];
    let mut checkpoint_columns = vec!["session_id", "checkpoint_number", "title", "created_at"];
    checkpoint_columns.extend(CHECKPOINT_SECTIONS);
    tables.each_row("checkpoints", &checkpoint_columns, None, |_, rowid, v| {
        let mut text = format!("checkpoint {}: {}", take(&v[1]), take(&v[2]));
        for (section, value) in CHECKPOINT_SECTIONS.iter().zip(&v[4..]) {
            if let Some(value) = value {
                text.push_str(&format!("\n{section}: {value}"));
            }
        }
        rows.push(PendingRow::new(TurnType::System, text, &take(&v[3]), rowid).in_session(&take(&v[0])));
    });
    let forge_columns = ["session_id", "tool_call_id", "command", "output", "exit_code", "created_at"];
    tables.each_row("forge_trajectory_events", &forge_columns, None, |_, rowid, v| {
        let (session_id, call, stamp) = (take(&v[0]), take(&v[1]), take(&v[5]));
        if let Some(command) = v[2].clone() {
            let mut row = PendingRow::new(TurnType::ToolUse, command, &stamp, rowid).in_session(&session_id);
            row.tool_use_id = call.clone();
            rows.push(row);
        }
        if let Some(output) = v[3].clone() {
            let text = match v[4].as_deref() {
                None | Some("0") => output,
                Some(code) => format!("[exit {code}] {output}"),
            };
            let mut row = PendingRow::new(TurnType::ToolResult, text, &stamp, rowid).in_session(&session_id);
            row.tool_use_id = call;
            rows.push(row);
        }
    });
    // A row's project and branch are its session's, as the store recorded them.
    let by_id: BTreeMap<&str, &StoreSession> =
        tables.contents.sessions.iter().map(|session| (session.id.as_str(), session)).collect();
    for row in &mut rows {
        if let Some(session) = by_id.get(row.session_id.as_str()) {
            row.project_path = session.cwd.clone();
            row.git_branch = session.branch.clone();
        }
    }
    // The sessions' names first, then the turns, then the other tables, each in rowid order.
    let rest = rows.split_off(names);
    tables.contents.rows =
        rows.into_iter().map(HeldRow::Row).chain(turns).chain(rest.into_iter().map(HeldRow::Row)).collect();
}

/// `assistant_usage_events`, one model call per row, handed over as it is read, except the
/// rows of the `known` sessions. With sessions to leave out, the session ids are listed first
/// from the table's index and only the others' rows are read.
fn read_usage(
    tables: &mut Tables<'_>,
    on_usage: &mut dyn FnMut(StoreUsageEvent),
    known: &std::collections::BTreeSet<String>,
) {
    const TABLE: &str = "assistant_usage_events";
    let columns = [
        "session_id",
        "agent_id",
        "model",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "created_at",
        "total_nano_aiu",
        "request_multiplier",
    ];
    let count = |value: &Option<String>| value.as_deref().map_or(Count::default(), Count::from_text);
    let number = |value: &Option<String>| value.as_deref().and_then(|text| text.trim().parse::<f64>().ok());
    let mut emit = |rowid: u64, v: &[Option<String>]| {
        on_usage(StoreUsageEvent {
            rowid: rowid as i64,
            session_id: take(&v[0]),
            agent_id: take(&v[1]),
            created_at: take(&v[8]),
            counts: UsageCounts {
                model: v[2].clone(),
                input_tokens: count(&v[3]),
                output_tokens: count(&v[4]),
                cache_read_tokens: count(&v[5]),
                cache_write_tokens: count(&v[6]),
                reasoning_tokens: count(&v[7]),
                // What Copilot billed for the call (NULL for calls on the person's own key).
                copilot_usage: number(&v[9]).map(|nano| CopilotUsage { total_nano_aiu: Some(nano) }),
                cost: number(&v[10]),
                ..UsageCounts::default()
            },
        })
    };
    if known.is_empty() {
        return tables.each_row(TABLE, &columns, None, |_, rowid, v| emit(rowid, v));
    }
    let mut sessions = Vec::new();
    tables.each_row(TABLE, &["session_id"], Some(Query::Distinct), |_, _, v| sessions.extend(v[0].clone()));
    for session in sessions.iter().filter(|session| !known.contains(*session)) {
        tables.each_row(TABLE, &columns, Some(Query::Session(session)), |_, rowid, v| emit(rowid, v));
    }
}

fn take(value: &Option<String>) -> String {
    value.clone().unwrap_or_default()
}

fn table_columns(connection: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut statement = connection.prepare("SELECT name FROM pragma_table_info(?1)")?;
    statement.query_map([table], |row| row.get::<_, String>(0))?.collect()
}

/// Any storage class as text: the store keeps REAL in some INTEGER columns.
fn value_text(value: ValueRef<'_>) -> Option<String> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(number) => Some(number.to_string()),
        ValueRef::Real(number) => Some(number.to_string()),
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// How a test store's files are read.
    #[derive(Clone, Copy)]
    enum Reads {
        /// As an image, built in memory.
        Image,
        /// Page by page.
        Pages,
        /// Page by page, every read past the first page failing.
        PagesFailingPastFirst,
    }

    /// A store's two files in memory.
    struct InMemory {
        main: Arc<[u8]>,
        wal: Arc<[u8]>,
        reads: Reads,
    }

    struct FailsPastFirstPage(Arc<[u8]>);

    impl ReadAt for FailsPastFirstPage {
        fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
            if offset >= 4096 {
                return Err(io::Error::other("the disk went away"));
            }
            self.0.read_at(offset, buffer)
        }
    }

    impl StoreFiles for InMemory {
        fn main_size(&self) -> Option<u64> {
            Some(self.main.len() as u64)
        }
        fn open_main(&mut self) -> io::Result<Box<dyn Read + '_>> {
            Ok(Box::new(&self.main[..]))
        }
        fn has_wal(&self) -> bool {
            true
        }
        fn open_wal(&mut self) -> io::Result<Box<dyn Read + '_>> {
            Ok(Box::new(&self.wal[..]))
        }
        fn positional(&mut self) -> Option<io::Result<PositionalFiles>> {
            let (main, wal): (Box<dyn ReadAt>, Box<dyn ReadAt>) = match self.reads {
                Reads::Image => return None,
                Reads::Pages => (Box::new(self.main.clone()), Box::new(self.wal.clone())),
                Reads::PagesFailingPastFirst => {
                    (Box::new(FailsPastFirstPage(self.main.clone())), Box::new(FailsPastFirstPage(self.wal.clone())))
                }
            };
            Some(Ok((Some(main), Some(wal))))
        }
    }

    fn hostile_store(case: &str) -> (Arc<[u8]>, Arc<[u8]>) {
        let store = format!("{}/fixtures/hostile/{case}/.copilot/session-store.db", env!("CARGO_MANIFEST_DIR"));
        let bytes = |path: String| Arc::<[u8]>::from(std::fs::read(path).unwrap());
        (bytes(store.clone()), bytes(format!("{store}-wal")))
    }

    /// The tables read, the usage rows, the log's figures and its problem.
    type Outcome = (BTreeMap<String, u64>, usize, Option<wal::WalStats>, Option<String>);

    /// Reads a hostile case page by page and as an image.
    fn read_both_ways(case: &str) -> [Outcome; 2] {
        [Reads::Pages, Reads::Image].map(|reads| {
            let (main, wal) = hostile_store(case);
            let mut usage_rows = 0;
            let contents = read(&mut InMemory { main, wal, reads }, StoreScope::Everything, &mut |_| usage_rows += 1)
                .unwrap_or_else(|failure| panic!("{case}: {}", failure.message));
            (contents.tables, usage_rows, contents.wal, contents.wal_problem)
        })
    }

    #[test]
    fn a_log_of_another_page_size_is_ignored_and_the_database_read() {
        let [paged, image] = read_both_ways("wal-foreign-page-size");
        assert_eq!(paged, image);
        let (tables, usage_rows, wal, problem) = paged;
        assert_eq!((tables["sessions"], tables["turns"], usage_rows, wal), (2, 1, 3, None));
        assert!(problem.unwrap().starts_with("the write-ahead log's pages are 1024 bytes but the database's are 4096"));
    }

    #[test]
    fn a_commit_of_pages_nothing_holds_is_ignored_and_makes_no_image_of_its_size() {
        let (main, _) = hostile_store("wal-empty");
        let page_size = wal::database_page_size(&main).unwrap();
        // One frame, whose commit says the database is 100,000 pages (400 MB): once an image
        // of that size was made for a log of a few kB.
        let wal = Arc::<[u8]>::from(wal::tests::build_wal(page_size, &[(2, 100_000, 7)]));
        for reads in [Reads::Image, Reads::Pages] {
            let contents = read(
                &mut InMemory { main: main.clone(), wal: wal.clone(), reads },
                StoreScope::Everything,
                &mut |_| {},
            )
            .unwrap_or_else(|failure| panic!("{}", failure.message));
            let problem = contents.wal_problem.unwrap_or_default();
            assert!(problem.contains("says the database has 100000 pages of 4096 bytes"), "{problem}");
            assert_eq!(contents.tables["sessions"], 7, "the database file is read without the log");
        }
    }

    #[test]
    fn an_empty_log_is_read_as_one() {
        let [paged, image] = read_both_ways("wal-empty");
        assert_eq!(paged, image);
        let (tables, _, wal, problem) = paged;
        assert_eq!((tables["sessions"], wal, problem), (7, Some(wal::WalStats::default()), None));
    }

    #[test]
    fn a_failed_read_says_why() {
        let store = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/spec-sample/.copilot/session-store.db");
        let bytes = |path: String| Arc::<[u8]>::from(std::fs::read(path).unwrap());
        let (main, wal) = (bytes(store.to_string()), bytes(format!("{store}-wal")));
        let mut files = InMemory { main, wal, reads: Reads::PagesFailingPastFirst };
        let message = match read(&mut files, StoreScope::Everything, &mut |_| {}) {
            Err(failure) => failure.message,
            Ok(contents) => contents.problems.join("; "),
        };
        assert!(message.contains("the disk went away"), "{message}");
    }
}
