//! `session-store.db`, the cross-session SQLite store: its tables, read through the store
//! contract (`sources::store`: its rows live in the `-wal` sidecar, replayed as SQLite would),
//! columns by name, any storage class. The user's files are never opened.
//! A secondary source: its turns mostly repeat the event logs (see "Other stores").

use std::collections::BTreeMap;

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::counters::{CopilotUsage, UsageCounts};
use super::ranks;
use crate::dedup::{self, TextKey};
use crate::facts::session::SessionFacts;
use crate::model::{HeldRow, PendingRow, StoreTurn, TurnType};
use crate::sources::store::{
    StoreContents, StoreFailure, StoreFiles, StoreScope, StoreSession, StoreUsageEvent, TurnReader, open_store,
};
use crate::usage::counters::{Amount, Count};

/// Reads the store: the log (if any) is replayed onto the main file's bytes in a buffer
/// SQLite owns, which SQLite then opens read-only. Memory is the size of the database.
pub fn read(
    files: &mut dyn StoreFiles,
    scope: StoreScope,
    on_usage: &mut dyn FnMut(StoreUsageEvent),
) -> Result<StoreContents, StoreFailure> {
    let mut contents = StoreContents::default();
    read_into(files, scope, &mut contents, on_usage)
        .map(|()| std::mem::take(&mut contents))
        .map_err(|message| StoreFailure { message, wal_problem: contents.wal_problem.take() })
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

/// The claims of a session the store names (the first store read that names it speaks for it).
pub fn claim_session(session: &StoreSession, facts: &mut SessionFacts) {
    facts.title.claim(ranks::TITLE_FROM_STORE, session.summary.as_str());
    facts.project.claim(ranks::PROJECT_FROM_STORE, session.cwd.as_str());
    facts.branch.claim(ranks::BRANCH_FROM_STORE, session.branch.as_str());
    facts.created_at.claim(ranks::TIMES_FROM_STORE, session.created_at.as_str());
    facts.updated_at.claim(ranks::TIMES_FROM_STORE, session.updated_at.as_str());
}

/// The store opened again to read its kept turns whole.
pub fn reopen(files: &mut dyn StoreFiles) -> Result<TurnReader, String> {
    TurnReader::open(files, read_turn)
}

/// A kept prompt or reply of `turns`.
fn read_turn(
    connection: &Connection,
    turn: &StoreTurn,
) -> rusqlite::Result<(Option<String>, Option<String>, Option<String>)> {
    let sql = match turn.turn_type {
        TurnType::User => "SELECT session_id, timestamp, user_message FROM turns WHERE rowid = ?1",
        _ => "SELECT session_id, timestamp, assistant_response FROM turns WHERE rowid = ?1",
    };
    connection.prepare_cached(sql)?.query_row([turn.rowid as i64], |row| {
        Ok((value_text(row.get_ref(0)?), value_text(row.get_ref(1)?), value_text(row.get_ref(2)?)))
    })
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
                // Scrubbed as read: a branch can be named with a token, and the session's rows
                // and record take it.
                branch: crate::scrub::scrub_cow(&take(&v[3])).0.into_owned(),
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
                let text = TextKey::of(text);
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
    let mut emit = |rowid: u64, v: &[Option<String>]| {
        on_usage(StoreUsageEvent {
            rowid: rowid as i64,
            session_id: take(&v[0]),
            agent_id: take(&v[1]),
            created_at: take(&v[8]),
            model: take(&v[2]),
            call: UsageCounts {
                input_tokens: count(&v[3]),
                output_tokens: count(&v[4]),
                cache_read_tokens: count(&v[5]),
                cache_write_tokens: count(&v[6]),
                reasoning_tokens: count(&v[7]),
                // What Copilot billed for the call (NULL for calls on the person's own key).
                copilot_usage: Some(CopilotUsage { total_nano_aiu: Amount::from_text(v[9].as_deref()) }),
                cost: Amount::from_text(v[10].as_deref()),
                ..UsageCounts::default()
            }
            .call(),
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

/// What a watch reads of a store grown since its last read (`analysis::usage_only`): the
/// sessions of the per-call rows after the row `after` (none without `after`), and the table's
/// last row. A log that cannot be read on is an error: the rows read would be the
/// main file's alone.
#[cfg(feature = "cli")]
pub fn usage_added(
    files: &mut dyn StoreFiles,
    after: Option<i64>,
) -> Result<crate::sources::store::UsageAdded, String> {
    use crate::sources::store::UsageAdded;
    const TABLE: &str = "assistant_usage_events";
    let mut contents = StoreContents::default();
    let (connection, registration, _) = open_store(files, &mut contents)?;
    if let Some(problem) = contents.wal_problem {
        return Err(problem);
    }
    let read = (|| -> rusqlite::Result<UsageAdded> {
        if table_columns(&connection, TABLE)?.is_empty() {
            return Ok(UsageAdded::default());
        }
        let sql = format!("SELECT coalesce(max(rowid), 0) FROM {TABLE}");
        let last_row = connection.query_row(&sql, [], |row| row.get(0))?;
        let Some(after) = after else { return Ok(UsageAdded { sessions: Vec::new(), last_row }) };
        // By row id: SQLite would rather scan a whole index of the sessions for DISTINCT.
        let sql = format!("SELECT DISTINCT session_id FROM {TABLE} NOT INDEXED WHERE rowid > ?1");
        let mut statement = connection.prepare(&sql)?;
        let sessions = statement.query_map([after], |row| Ok(value_text(row.get_ref(0)?).unwrap_or_default()))?;
        Ok(UsageAdded { sessions: sessions.collect::<rusqlite::Result<_>>()?, last_row })
    })();
    let read = read.map_err(|error| format!("{TABLE}: {error}"));
    drop(connection);
    match registration.and_then(|registration| registration.take_read_error()) {
        Some(cause) => Err(format!("reading the store's files failed: {cause}")),
        None => read,
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
    use std::io::{self, Read};
    use std::sync::Arc;

    use super::*;
    use crate::input::ReadAt;
    use crate::sources::store::{PositionalFiles, wal};

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
