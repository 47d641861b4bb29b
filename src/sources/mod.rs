//! The sources: one module per agent whose files copilot-lens reads, each saying where its
//! files live under a home, what each file is, and how each kind is imported into the shared
//! model (rows, and the facts of `crate::facts`: session claims, home facts, usage ledgers). Everything after the importers (the
//! joins, deduplication, usage accounting, outputs) is in `crate::analysis` and works the same
//! whatever the source.
//!
//! Adding a source is a folder here with a type implementing [`Source`], and one line in
//! [`SOURCES`] (ARCHITECTURE.md, "Adding a source").

pub mod copilot_cli;
pub mod copilot_vscode;
pub mod folder_uri;
pub mod front_matter;
pub mod log;
pub mod mcp_servers;
pub mod store;
#[cfg(test)]
mod throwaway;
pub mod yaml;

use std::collections::BTreeMap;
use std::io::{self, BufRead, Read};

use serde::Serialize;

use crate::facts::files::{FileKind, Role};
use crate::facts::home::HomeFacts;
use crate::facts::session::SessionFacts;
use crate::model::{OwnedRow, PendingRow, RowSink};
use crate::usage::ledger::SessionLedger;
use crate::usage::rates::RateTable;
use log::ScanStats;
use log::{LogContext, LogEnd, LogOutcome};
use store::wal::WalIndex;
use store::{StoreContents, StoreFailure, StoreFiles, StoreScope, StoreSession, StoreUsageEvent, TurnReader};

/// Every source. A path of a home is offered to each in turn; the first that claims it owns it.
/// The page lists them in this order: the first is the folder its main action opens.
pub static SOURCES: &[&dyn Source] = &[
    &copilot_cli::CopilotCli,
    &copilot_vscode::CopilotVscode,
    // The library's own tests add a source the way the recipe says (`throwaway.rs`).
    #[cfg(test)]
    &throwaway::Throwaway,
];

/// A source by its place in [`SOURCES`].
pub type SourceId = usize;

/// What a home-relative path is, with the session id or excluded tree it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified<'a> {
    pub kind: FileKind,
    /// The session a file belongs to by its place (`session-state/<id>/`).
    pub session_id: Option<&'a str>,
    /// The excluded tree (e.g. `.copilot/pkg`), for excluded files.
    pub tree: Option<&'a str>,
}

/// Where a source's files live under a home.
#[derive(Debug)]
pub struct HomeLayout {
    /// The source as a person names it ("Copilot CLI"), in the page's steps and messages.
    pub title: &'static str,
    /// Folders of a home holding the source's data (`.copilot` and its older places). A folder
    /// holding one of them is a home.
    pub data_folders: &'static [&'static str],
    /// The system each of `data_folders` is found on, in the same order.
    pub data_folder_systems: &'static [System],
    /// Folders of a home holding only caches of the source (read for their exclusions).
    pub cache_folders: &'static [&'static str],
    /// Folders of a home the source reads that other programs share (`~/.agents`): walked in a
    /// home, but holding one does not make a folder a home.
    pub shared_folders: &'static [&'static str],
    /// Files at a home's top the source reads (a tool keeping its settings in `~/.<tool>.json`):
    /// listed in a home beside its folders; holding one does not make a folder a home.
    pub top_files: &'static [&'static str],
    /// How a root that is the source's own folder rather than a home is told apart (what
    /// `COPILOT_HOME` points at, a VS Code `User` folder): by entries only such a folder holds.
    pub own_folder_markers: &'static [OwnFolderMarker],
    /// The source's session log as it can be given alone, in a root holding no home.
    pub loose_log: Option<LooseLog>,
    /// The only child folders walked below some folders of the source (the rest of VS Code's
    /// user data is extensions' storage and caches, often gigabytes); none: walk everything.
    pub walk_rules: &'static [WalkRule],
    /// Whether a file, by its folder's and its own name, is a session log a usage-only walk
    /// needs wherever it is.
    pub usage_log: fn(folder: &str, name: &str) -> bool,
    /// Folders holding one folder per session, by name, with the one file of each a usage-only
    /// walk needs: it is looked up by name rather than the session's folder listed.
    pub session_folders: &'static [SessionFolders],
    /// The names of a store-backed source's SQLite files (`Role::Store`, its journal and shared
    /// memory): a usage-only walk needs them wherever they are.
    pub store_files: &'static [&'static str],
}

/// A folder of session folders (`session-state/<id>/`) and the session log in each.
#[derive(Debug, PartialEq, Eq)]
pub struct SessionFolders {
    pub folder: &'static str,
    pub log: &'static str,
}

/// A layout is its source's static: the same one is the same place.
impl PartialEq for HomeLayout {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for HomeLayout {}

/// Where a data folder is found, for the page's steps: on every system, one, a remote
/// machine VS Code connects to, or only where an older version left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum System {
    Any,
    Windows,
    Macos,
    Linux,
    Remote,
    Older,
}

/// An entry (one or more path components) that only a source's own folder holds, the folder
/// a root holding it at its top is read as, in a home, and how the report names that layout.
#[derive(Debug, PartialEq, Eq)]
pub struct OwnFolderMarker {
    pub entry: &'static str,
    pub read_as: &'static str,
    pub layout: &'static str,
}

/// Below a folder whose path ends in `dir` (path components, `*` standing for any one), only
/// the child folders `only` are walked; its files are all listed.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct WalkRule {
    pub dir: &'static str,
    pub only: &'static [&'static str],
}

impl WalkRule {
    /// Whether a folder's path (root-relative, `/`-separated) ends in this rule's `dir`.
    pub fn applies_to(&self, folder: &str) -> bool {
        let mut parts = folder.rsplit('/');
        self.dir.rsplit('/').all(|pattern| parts.next().is_some_and(|part| pattern == "*" || part == pattern))
    }
}

/// The child folders of `folder` a walk enters, by every source's rules: `None` for all.
pub fn walk_only(folder: &str) -> Option<&'static [&'static str]> {
    SOURCES
        .iter()
        .flat_map(|source| source.layout().walk_rules)
        .find(|rule| rule.applies_to(folder))
        .map(|rule| rule.only)
}

/// Every source's walk rules (the page walks a dropped folder by them).
pub fn walk_rules() -> Vec<&'static WalkRule> {
    SOURCES.iter().flat_map(|source| source.layout().walk_rules).collect()
}

/// Whether any source's session log is a file of this folder and name (usage-only walks).
pub fn is_usage_log(folder: &str, name: &str) -> bool {
    SOURCES.iter().any(|source| (source.layout().usage_log)(folder, name))
}

/// Whether any source's store is a file of this name (usage-only walks).
pub fn is_store_file(name: &str) -> bool {
    SOURCES.iter().any(|source| source.layout().store_files.contains(&name))
}

/// The session log in each session folder of a folder of this name, if a source keeps one
/// folder per session there (usage-only walks look it up by name).
pub fn session_folder_log(folder: &str) -> Option<&'static str> {
    SOURCES.iter().flat_map(|source| source.layout().session_folders).find(|it| it.folder == folder).map(|it| it.log)
}

/// Whether a session was found in a session log of its source (`found_in` names it).
pub fn found_in_log(found_in: &str) -> bool {
    SOURCES.iter().any(|source| source.log_found_in() == found_in)
}

/// A session log given alone (a person drops just one log): where a listed path goes in a
/// home, or `None` when it is not such a log. Its session id is then the log's own
/// (`LogContext::session_id_from_log`).
pub type LooseLog = fn(listed_path: &str) -> Option<String>;

/// A session id standing in for a log's own until it names it (a log given alone, a session
/// folder not named by its id), made from where the log was.
pub fn stand_in_session_id(path: &str) -> String {
    let hash = xxhash_rust::xxh3::xxh3_64(path.as_bytes());
    format!("{:08x}-0000-4000-8000-{:012x}", hash >> 32, hash & 0xffff_ffff_ffff)
}

/// The folders of a home that any source reads (data first, then caches); a walk of a home
/// looks only in these. The page gets this list from the engine.
pub fn home_folders() -> Vec<&'static str> {
    let mut folders = data_folders();
    folders.extend(SOURCES.iter().flat_map(|source| source.layout().cache_folders));
    folders.extend(SOURCES.iter().flat_map(|source| source.layout().shared_folders));
    folders
}

/// The files at a home's top that the sources read.
pub fn home_files() -> Vec<&'static str> {
    SOURCES.iter().flat_map(|source| source.layout().top_files).copied().collect()
}

/// What a source's own folder (`.copilot`, VS Code's `User`) is called, and the entries of
/// it that make a root that folder itself.
pub fn own_folder(layout: &HomeLayout) -> (&'static str, Vec<&'static str>) {
    let name = layout.data_folders[0].rsplit('/').next().unwrap_or_default();
    let markers = layout
        .own_folder_markers
        .iter()
        .filter(|marker| layout.data_folders.contains(&marker.read_as))
        .map(|marker| marker.entry)
        .collect();
    (name, markers)
}

/// Each source's own folder as a person names it ("Copilot CLI's .copilot folder"), in
/// `SOURCES` order: the CLI's help.
pub fn own_folder_names() -> Vec<String> {
    SOURCES
        .iter()
        .map(|source| format!("{}'s {} folder", source.layout().title, own_folder(source.layout()).0))
        .collect()
}

/// What a root holding no source's files was looked at for, every source's own folder and
/// what makes one, from the layouts: the end of the "no Copilot data" message.
pub fn looked_for() -> String {
    let each: Vec<String> = SOURCES
        .iter()
        .map(|source| {
            let (name, markers) = own_folder(source.layout());
            format!("{}'s {name} folder (holding {})", source.layout().title, markers.join(", "))
        })
        .collect();
    let (last, before) = each.split_last().expect("a source at least");
    let sources = if before.is_empty() { last.clone() } else { format!("{} and {last}", before.join(", ")) };
    let which = if each.len() > 2 { "any of them" } else { "either" };
    format!("looked for {sources}, or a home folder holding {which}")
}

/// A source's agent by the name every output gives it (the CLI's `--agent`, the page's
/// filters); the error names them all.
pub fn agent_named(name: &str) -> Result<&'static str, String> {
    let agents = SOURCES.iter().map(|source| source.agent());
    agents
        .clone()
        .find(|agent| *agent == name)
        .ok_or_else(|| format!("unknown agent {name:?}: the agents are {}", agents.collect::<Vec<_>>().join(", ")))
}

/// The data folders only (what a usage-only walk needs).
pub fn data_folders() -> Vec<&'static str> {
    SOURCES.iter().flat_map(|source| source.layout().data_folders).copied().collect()
}

/// The source that claims a home-relative path, with what the path is; a kind of role
/// `Outside` (and no meaningful source) when no source claims it.
pub fn classify(path: &str) -> (SourceId, Classified<'_>) {
    for (id, source) in SOURCES.iter().enumerate() {
        let classified = source.classify(path);
        if classified.kind.role != Role::Outside {
            return (id, classified);
        }
    }
    (0, Classified { kind: FileKind::OUTSIDE, session_id: None, tree: None })
}

/// A file handed to an importer, and the shared model it adds to.
pub struct Importing<'a> {
    pub kind: FileKind,
    /// The file's path in its home.
    pub path: &'a str,
    /// The home the file is in (its index in the analysis).
    pub home_index: usize,
    /// The session the file belongs to by its place, or empty.
    pub session_id: &'a str,
    /// The importing source's agent.
    pub agent: &'static str,
    /// Whether that session's event log is among the planned files.
    pub session_has_log: bool,
    pub sessions: &'a mut BTreeMap<String, SessionFacts>,
    pub home: &'a mut HomeFacts,
    /// The file's rows, held until every event log is read.
    pub rows: Vec<PendingRow>,
    /// Set when the outputs show the file's modification time (a browser then sends it).
    pub dated: bool,
    /// Files of the same home read after the logs (`Role::LateMetadata`) that this file shows
    /// hold nothing it does not already say, by path in the home, with why: they are not read
    /// (a browser pays for each file it reads).
    pub not_needed: Vec<(String, String)>,
}

impl Importing<'_> {
    /// A session's facts, noting where it was found.
    pub fn session(&mut self, session_id: &str, found_in: &'static str) -> &mut SessionFacts {
        session_entry(self.sessions, session_id, self.home_index, self.agent, found_in)
    }
}

/// A session's facts in `sessions`, noting the home and file it was found in; the session is
/// the agent's that first names it.
pub fn session_entry<'a>(
    sessions: &'a mut BTreeMap<String, SessionFacts>,
    session_id: &str,
    home: usize,
    agent: &'static str,
    found_in: &'static str,
) -> &'a mut SessionFacts {
    let facts = sessions.entry(session_id.to_string()).or_insert_with(|| SessionFacts::of(agent));
    facts.homes.insert(home);
    facts.found_in.insert(found_in);
    facts.has_log |= found_in_log(found_in);
    facts
}

/// A log opened again to read some of its rows whole.
pub trait LogAgain {
    /// The line starting at `offset`.
    fn line_at(&mut self, offset: u64) -> io::Result<Vec<u8>>;
    /// The log from its start (once, before any `line_at`).
    fn whole(&mut self) -> io::Result<&mut dyn BufRead>;
}

/// A metadata file's contents as its importer gets them (see [`Role`]).
pub enum MetadataInput<'a> {
    Bytes(&'a [u8]),
    Stream(&'a mut dyn BufRead),
    /// A [`Role::Listed`] file: its path (`Importing::path`) is all there is.
    Listed,
    Database(&'a rusqlite::Connection),
}

/// A source's SQLite store (a main file and its write-ahead log), as its store module's
/// functions.
pub struct StoreSupport {
    /// What a session's `found_in` says when the store names it.
    pub found_in: &'static str,
    /// Reads a store: its sessions, held rows and per-call usage rows.
    pub read: ReadStore,
    /// The write-ahead log scanned ahead of the read (on another thread natively).
    pub scan_wal: fn(&mut dyn StoreFiles) -> Result<WalIndex, String>,
    /// The store opened again to read its kept turns whole.
    pub reopen: fn(&mut dyn StoreFiles) -> Result<TurnReader, String>,
    /// A session the store names, as claims on its facts (ranked by the source).
    pub claim_session: fn(&StoreSession, &mut SessionFacts),
    /// The sessions of the per-call usage rows after a row, and the last row: what a watch
    /// reads of a store that grew (the page never watches).
    #[cfg(feature = "cli")]
    pub usage_added: fn(&mut dyn StoreFiles, Option<i64>) -> Result<store::UsageAdded, String>,
}

/// Reads a store, handing each per-call usage row to the callback as it goes.
pub type ReadStore =
    fn(&mut dyn StoreFiles, StoreScope, &mut dyn FnMut(StoreUsageEvent)) -> Result<StoreContents, StoreFailure>;

/// The kinds of file only the page's full module reads (its first module leaves their readers
/// out, to keep the first download small): the page analyses an input holding one there
/// (`HandOver::needs_full_engine`). Native builds read every kind.
pub const READ_BY_FULL_ENGINE_ONLY: &[FileKind] =
    if cfg!(feature = "extras") { &[] } else { &[copilot_vscode::layout::DEBUG_LOG] };

/// One agent's files. Each method is one importer: files of [`Role::Metadata`],
/// [`Role::LateMetadata`] and [`Role::MetadataInParts`] go to `import`, event logs to `parse_log` (and, for usage-only
/// runs, `scan_usage`), stores to its `store()`. A source without stores never classifies a
/// file as one.
pub trait Source: Sync {
    /// The agent's name in every output (`agent` of rows, sessions, usage, inventory).
    fn agent(&self) -> &'static str;
    fn layout(&self) -> &'static HomeLayout;
    /// What a home-relative path is to this source; `FileKind::OUTSIDE` when not its own.
    fn classify<'a>(&self, path: &'a str) -> Classified<'a>;
    /// Imports a metadata file into the shared model; an error is the file's diagnostic.
    fn import(&self, input: MetadataInput<'_>, into: &mut Importing<'_>) -> Result<(), String>;
    /// What a session's `found_in` says when its log was read (`events.jsonl`).
    fn log_found_in(&self) -> &'static str;
    /// Streams an event log's rows to `sink`, accounting for every line.
    fn parse_log(&self, context: &LogContext<'_>, reader: &mut dyn BufRead, sink: &mut dyn RowSink) -> LogOutcome;
    /// As `parse_log`, and where the parse stopped with the parser's state there, when a parse
    /// of the log grown may go on from it (`resume_log`): none after a line still being
    /// written, UTF-16 text or a read error. A source whose rows come from a log's final state
    /// (VS Code's chat logs) gives none: its grown log is parsed whole again.
    fn parse_log_resumable(
        &self,
        context: &LogContext<'_>,
        reader: &mut dyn BufRead,
        sink: &mut dyn RowSink,
    ) -> (LogOutcome, Option<LogEnd>) {
        (self.parse_log(context, reader, sink), None)
    }
    /// Goes on parsing a log that grew from where an earlier parse stopped (`end`, which gave
    /// `outcome`), `reader` being at `end`'s offset: the rows after it, and what a parse of the
    /// whole log gives. `None`, having fed no row, when `end`'s state cannot be read.
    fn resume_log(
        &self,
        _context: &LogContext<'_>,
        _outcome: LogOutcome,
        _end: &LogEnd,
        _reader: &mut dyn BufRead,
        _sink: &mut dyn RowSink,
    ) -> Option<(LogOutcome, Option<LogEnd>)> {
        None
    }
    /// Whether `rows_again` makes a row again from its line alone (`LogAgain::line_at`), so that
    /// a line that cannot hold a search need not be parsed (`crate::line_filter`).
    fn rows_by_line(&self) -> bool {
        false
    }
    /// The rows a log gave at a row locator's `offset` again, whole (a viewer keeps only the
    /// start of long texts): the line there, or for a log whose rows come from its whole
    /// replayed state, all of them.
    fn rows_again(&self, context: &LogContext<'_>, log: &mut dyn LogAgain, offset: u64) -> io::Result<Vec<OwnedRow>>;
    /// The MCP servers the agent brings itself, which no file configures.
    fn built_in_mcp_servers(&self) -> &'static [&'static str] {
        &[]
    }
    /// Another file of the same session that is read instead of this one when both are in one
    /// folder (VS Code's `.jsonl` over its `.json`).
    fn read_instead(&self, _path: &str) -> Option<String> {
        None
    }
    /// The folder whose session logs a file is read for (VS Code's `state.vscdb` names the
    /// chats of its `chatSessions/`): without one there, it is not read.
    fn read_only_beside(&self, _path: &str) -> Option<String> {
        None
    }
    /// Reads only a log's counter lines into a usage ledger (usage-only runs); `path` is the
    /// log's in its home.
    fn scan_usage(
        &self,
        path: &str,
        reader: &mut dyn Read,
        ledger: &mut SessionLedger,
        rates: &RateTable,
    ) -> io::Result<ScanStats>;
    /// Its SQLite store, if it has one; a source without one never classifies a file as a store.
    fn store(&self) -> Option<&'static StoreSupport> {
        None
    }
}
