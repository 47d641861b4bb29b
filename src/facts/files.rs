//! What a file is and what became of it, whatever its source.

use serde::Serialize;

/// What the analysis does with a file, whatever its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// A session's event log: streamed line by line, its rows primary (step "logs").
    EventLog,
    /// A SQLite store's main file and its write-ahead log, read first (step "stores").
    Store,
    StoreWal,
    /// Read whole (up to a size limit) and handed to the source's importer (step "metadata").
    Metadata,
    /// Handed to the importer as a stream: it can be large (process logs).
    MetadataInParts,
    /// Read whole like `Metadata`, but after the logs (step "joins"): nothing a log's rows fall
    /// back on (a session folder's plan, checkpoint titles, snapshots), and no row of it dated
    /// by its file's time. A browser reads these while the logs are parsed.
    LateMetadata,
    /// A SQLite database of its own, handed to the importer as a read-only connection: read
    /// page by page where the root allows positional reads (only the pages a query needs,
    /// whatever the file's size), else from a copy in memory.
    Database,
    /// Never read: only its name goes to the importer (a session's artifacts).
    Listed,
    /// A file of the source that carries nothing (locks, caches, trackers).
    NotWanted,
    /// A file that can hold credentials: never read.
    Secret,
    /// Not needed (a store's shared-memory index, rebuilt from the log by SQLite itself).
    NotNeeded,
    /// Inside a tree that is never read (packages, plugin copies); counted by tree.
    Excluded,
    /// Not this source's.
    Outside,
}

impl Role {
    /// Whether an analysis opens a file of this role (reads it or hands it to an importer); the
    /// others are only counted, named or sized in the report.
    pub fn is_opened(self) -> bool {
        !matches!(
            self,
            Role::Listed | Role::NotWanted | Role::Secret | Role::NotNeeded | Role::Excluded | Role::Outside
        )
    }
}

/// A kind of file: its name in the report, what the analysis does with it, and whether its
/// rows are secondary copies (deduplicated against the primary rows; a secondary event log's
/// rows are all left out where a primary log of its session is given).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileKind {
    pub name: &'static str,
    pub role: Role,
    pub secondary: bool,
}

impl FileKind {
    pub const EXCLUDED: FileKind = FileKind { name: "excluded", role: Role::Excluded, secondary: false };
    pub const SECRET: FileKind = FileKind { name: "secret", role: Role::Secret, secondary: false };
    pub const NOT_WANTED: FileKind = FileKind { name: "not_wanted", role: Role::NotWanted, secondary: false };
    pub const OUTSIDE: FileKind = FileKind { name: "outside", role: Role::Outside, secondary: false };
}

impl Serialize for FileKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Read,
    /// A Copilot file that carries no rows.
    NotWanted,
    /// Never read: it can hold credentials.
    NotReadSecret,
    /// Not needed: the store's shared-memory index, rebuilt from the log by SQLite itself.
    NotNeeded,
    /// Not read: the same session is read from another file beside it (`message` names it).
    Superseded,
    /// Never read: only its name is used (a session's artifacts).
    Listed,
    Error,
}
