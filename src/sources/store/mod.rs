//! The SQLite store contract: what a source with a SQLite store gives the analysis (its files,
//! `StoreFiles`) and gets back (`StoreContents`), and the reading every such store shares. The
//! store is never opened in place: a `-wal` log is replayed frame by frame (`wal`), and the
//! database is read page by page through a read-only VFS (`vfs`) where the root allows
//! positional reads, else from an image in memory (`sqlite_image`). A source reads its own
//! tables from the connection (`open`).

pub mod sqlite_image;
pub mod vfs;
pub mod wal;

use std::collections::BTreeMap;
use std::io::{self, Read};

use rusqlite::Connection;

use crate::input::ReadAt;
use crate::model::{HeldRow, PendingRow, StoreTurn};
use crate::usage::inputs::Call;
use sqlite_image::{open_image, sqlite_buffer};

/// A session as a store names it (a row of its sessions table).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoreSession {
    pub id: String,
    pub cwd: String,
    pub branch: String,
    pub repository: String,
    pub summary: String,
    pub created_at: String,
    pub updated_at: String,
}

/// One row of `assistant_usage_events`: one model call with its tokens.
#[derive(Clone, Debug, Default)]
pub struct StoreUsageEvent {
    pub rowid: i64,
    pub session_id: String,
    pub agent_id: String,
    pub created_at: String,
    /// The call's model (empty when unnamed).
    pub model: String,
    pub call: Call,
}

/// The per-call rows a store holds after a given row (`StoreSupport::usage_added`).
#[derive(Debug, Default)]
pub struct UsageAdded {
    /// The rows' sessions, each once (as many as there are sessions, however many rows).
    pub sessions: Vec<String>,
    /// The table's last row (0 when it has none).
    pub last_row: i64,
}

/// What to read of the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreScope {
    Everything,
    /// Only the per-call rows of `assistant_usage_events`, and not those of these sessions
    /// (whose logs have their own per-call records): usage-only runs.
    UsageExcept(std::collections::BTreeSet<String>),
}

/// What a store's read gives; kept whole in its cache entry (`crate::cache`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
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

    /// The database's file name, for messages (the log's without its `-wal` when there is no
    /// main file).
    fn database_name(&self) -> &str {
        "database"
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
fn main_file_missing(files: &dyn StoreFiles, main_size: u64, index: Option<&wal::WalIndex>) -> Option<String> {
    let index = index?;
    let (pages, held) = (index.database_pages?, index.pages_held());
    (main_size == 0 && held < pages).then(|| {
        format!(
            "the main {} is missing and its write-ahead log holds only {held} of the database's {pages} pages (the rest were in the main file)",
            files.database_name()
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
pub fn open_store(
    files: &mut dyn StoreFiles,
    contents: &mut StoreContents,
) -> Result<(Connection, Option<vfs::Registration>, Option<String>), String> {
    let main_size = files.main_size().unwrap_or(0);
    let index = committed_wal(files, main_size, contents);
    let without_main = main_file_missing(files, main_size, index.as_ref());
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
    read_turn: ReadTurn,
}

/// Reads a kept turn from the source's own table: its session id, time and text.
pub type ReadTurn = fn(&Connection, &StoreTurn) -> rusqlite::Result<(Option<String>, Option<String>, Option<String>)>;

impl TurnReader {
    pub fn open(files: &mut dyn StoreFiles, read_turn: ReadTurn) -> Result<TurnReader, String> {
        let (connection, registration, _) = open_store(files, &mut StoreContents::default())?;
        Ok(TurnReader { connection, registration, read_turn })
    }

    /// The turn as a row; project and branch are left for the joins.
    pub fn read(&self, turn: &StoreTurn) -> Result<PendingRow, String> {
        let (session_id, stamp, text) = (self.read_turn)(&self.connection, turn).map_err(|error| {
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
