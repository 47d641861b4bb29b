//! The page's boundary as types: what the page knows of the core ([`EngineFacts`]), what it
//! hands over ([`HandOver`]) and when ([`Need`]), what it asks of a finished analysis
//! ([`Request`]) and what it is answered ([`Answer`]). `www/types.d.ts` is generated from these
//! types by the test below, which fails while the committed file is stale; `crate::page::wasm`
//! carries them across as JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::inventory::Inventory;
use crate::model::{RowMark, TurnType};
use crate::outputs::{self, OutputFile};
use crate::page::matches::SearchProgress;
use crate::page::table::{Facets, INLINE_TEXT, RowFilter};
use crate::page::views::{RowsPage, ShareAsked, Summary, TeamAsked, UsageQuery, UsageView};
use crate::report::Report;
use crate::sessions::SessionRecord;
use crate::sources::{self, WalkRule};
use crate::usage::bill;
use crate::usage::credits::CreditsUsed;
use crate::usage::month::MonthCredits;
use crate::usage::plans::Plans;
use crate::usage::summary::GroupBy;

/// The largest log the page reads whole and hands over as bytes (a zip's, inflated by its
/// second worker). A larger one is read by the engine in windows (a File, or a zip entry
/// inflated as it is read), so that the memory a log takes does not grow with its size.
pub const LOG_GIVEN_WHOLE_MAX_BYTES: u64 = 16 << 20;
/// The largest file read line by line (a process log) that the page hands over as bytes.
pub const IN_PARTS_GIVEN_WHOLE_MAX_BYTES: u64 = 1 << 20;

/// What the page needs to know of the core, so that it keeps no copy.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EngineFacts {
    /// The folders of a home the sources' files are in; a walk of a home looks only there.
    pub home_folders: Vec<&'static str>,
    /// The files at a home's top the sources read, listed beside those folders.
    pub home_files: Vec<&'static str>,
    /// The data folders among them: a folder holding one is a home.
    pub data_folders: Vec<&'static str>,
    /// Each source's folders, where they are on each system, and its own folder with the
    /// entries that make a folder it: the page's steps and its suggestion after a pick.
    pub sources: Vec<SourceFolders>,
    /// The only child folders walked below some folders (VS Code's user data).
    #[cfg_attr(test, ts(type = "Array<{ dir: string, only: Array<string> }>"))]
    pub walk_rules: Vec<&'static WalkRule>,
    /// The largest log the page reads whole; a larger one is handed over as a File.
    pub log_given_whole_max_bytes: u64,
    /// Rows made at a time for a rows export.
    pub rows_per_part: u32,
    /// Every output file, named once.
    pub outputs: Vec<OutputFile>,
    pub turn_types: Vec<TurnType>,
    /// What the page calls each turn type (`TurnType::label`).
    pub turn_type_labels: Vec<(TurnType, &'static str)>,
    /// A row's fields and their labels, in the order a row's detail shows them.
    pub row_fields: Vec<(&'static str, &'static str)>,
    pub groupings: Vec<Grouping>,
    pub marks: Vec<RowMark>,
    /// The mark of a bad line's row, which the diagnostics list.
    pub bad_line_mark: RowMark,
    /// Copilot plans and their monthly allowances in AI credits, with their source.
    pub plans: Plans,
    /// What is never in local files, and each reconciliation status in words and what it means
    /// (`usage::bill::LEGEND`).
    pub never_in_local_files: Vec<&'static str>,
    pub bill_statuses: Vec<(&'static str, &'static str, &'static str)>,
    /// Whether this engine makes the files to save, the report to share, the team exports and
    /// the bill's reconciliation: the page's first module leaves them out, and the page loads
    /// the full one when one is asked for (the `extras` feature).
    pub full_engine: bool,
}

/// What the page's first module answers when asked for an output only the full one makes.
pub const NOT_IN_FIRST_ENGINE: &str = "this engine leaves out the files to save, the report to share, the team exports and the bill's reconciliation: load the full one";

/// A source's folders as the page explains them.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SourceFolders {
    pub agent: &'static str,
    pub title: &'static str,
    /// Its data folders in a home, each with the system it is on.
    pub folders: Vec<FolderPlace>,
    /// The name of its own folder (`.copilot`, `User`), and the entries only that folder holds.
    pub own_folder: &'static str,
    pub own_folder_holds: Vec<&'static str>,
    /// The report's names of the homes found as its own folder (`HomeReport::layout`).
    pub own_folder_layouts: Vec<&'static str>,
}

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FolderPlace {
    pub path: &'static str,
    pub system: sources::System,
}

fn source_folders() -> Vec<SourceFolders> {
    sources::SOURCES
        .iter()
        .map(|source| {
            let layout = source.layout();
            let (own_folder, own_folder_holds) = sources::own_folder(layout);
            let mut own_folder_layouts: Vec<_> = layout.own_folder_markers.iter().map(|marker| marker.layout).collect();
            own_folder_layouts.dedup();
            SourceFolders {
                agent: source.agent(),
                title: layout.title,
                folders: layout
                    .data_folders
                    .iter()
                    .zip(layout.data_folder_systems)
                    .map(|(&path, &system)| FolderPlace { path, system })
                    .collect(),
                own_folder,
                own_folder_holds,
                own_folder_layouts,
            }
        })
        .collect()
}

/// A way to group usage, and the row field that holds its group (none: the model's, which
/// every row has).
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Grouping {
    pub name: GroupBy,
    pub column: Option<&'static str>,
}

pub fn engine_facts() -> EngineFacts {
    EngineFacts {
        home_folders: sources::home_folders(),
        home_files: sources::home_files(),
        data_folders: sources::data_folders(),
        sources: source_folders(),
        walk_rules: sources::walk_rules(),
        log_given_whole_max_bytes: LOG_GIVEN_WHOLE_MAX_BYTES,
        rows_per_part: outputs::ROWS_PER_PART,
        outputs: outputs::CATALOGUE.to_vec(),
        turn_types: TurnType::ALL.to_vec(),
        turn_type_labels: TurnType::ALL.iter().map(|turn_type| (*turn_type, turn_type.label())).collect(),
        row_fields: crate::model::ROW_FIELD_LABELS.to_vec(),
        groupings: GroupBy::ALL
            .into_iter()
            .map(|by| Grouping { name: by, column: by.column().or((by == GroupBy::Agent).then_some("agent")) })
            .collect(),
        marks: RowMark::ALL.to_vec(),
        bad_line_mark: RowMark::BadLine,
        plans: Plans::default_table(),
        never_in_local_files: bill::NEVER_IN_LOCAL_FILES.to_vec(),
        bill_statuses: bill::LEGEND.to_vec(),
        full_engine: cfg!(feature = "extras"),
    }
}

/// What the page is to hand over from its folder roots once the analysis is planned: the
/// steps in this order, each once the one before is given (the page says so after each, and
/// `Need` names the steps it waits for).
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HandOver {
    /// Whether the input holds a file this module leaves to the full engine (a VS Code debug
    /// log: `sources::READ_BY_FULL_ENGINE_ONLY`): the page runs the analysis there instead.
    pub needs_full_engine: bool,
    pub steps: Vec<HandOverStep>,
}

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HandOverStep {
    /// Whether the step also waits for the analysis to be done (`Need::Done`).
    pub after_done: bool,
    /// Given side by side.
    pub parts: Vec<Give>,
}

/// A part of a step, and how the page hands it over.
#[derive(Serialize)]
#[serde(tag = "how", rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Give {
    /// As Files, in parts (the browser fetches a File's metadata as it is posted).
    Files { files: Vec<FileAt> },
    /// Read by the page, many at once, and handed over as bytes, in this order.
    Bytes { files: Vec<FileAt> },
    /// As `Bytes` each file of at most `max_bytes`, the others as Files (read in parts): a
    /// worker's read of a File costs it a round trip to the browser (3 ms for a process log of
    /// 3 KB), the page's reads many at once cost far less.
    BytesUpTo { files: Vec<FileAt>, max_bytes: u64 },
    /// The logs, in any order, read ahead of the parser by a bounded number of bytes.
    Logs { logs: Vec<LogToGive> },
    /// The modification times of the files `read_metadata` names (`AfterMetadata::times`).
    Times,
    /// As `Bytes`, the files read after the logs that `read_metadata` names (`AfterMetadata::late`).
    LateMetadata,
    /// As Files in parts, the logs not handed over as Files (their long texts are read again
    /// from them, and the new ones' cache entries made, `record_entries`), every other file of the folder roots `sizes_from`, whose listings did not
    /// give their sizes, and the `files` of other roots whose listings left theirs out (the
    /// report learns them so).
    FilesAfterDone { sizes_from: Vec<usize>, files: Vec<FileAt> },
}

/// What the page hands over during an analysis, one `{type: 'give', id, kind, ...}` message at
/// a time (`www/engine.js` to `www/worker.js`), the parts of `HandOver`'s steps as `Give` names
/// them: the worker calls the engine with each (`give_files`, `give_bytes`, `parse_log`,
/// `give_time`). Only its type is Rust's, for `www/types.d.ts`: the messages
/// go from one JavaScript thread to another and the engine never reads them whole.
#[cfg(test)]
#[derive(ts_rs::TS)]
#[ts(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Given {
    /// `Give::Files`, `Give::FilesAfterDone`: Files of one root, by their paths.
    Files {
        root: usize,
        #[ts(type = "Array<File>")]
        files: (),
        paths: Vec<String>,
    },
    /// `Give::Bytes`, `Give::LateMetadata`, the small files of `Give::BytesUpTo`.
    Bytes { items: Vec<BytesGiven> },
    /// `Give::Logs`, in any order.
    Logs { items: Vec<LogGiven> },
    /// `Give::Times`.
    Times { items: Vec<TimeGiven> },
    /// After each step: the hand-over's step `step` is given.
    #[ts(rename = "step_given")]
    Step { step: usize },
}

#[cfg(test)]
#[derive(ts_rs::TS)]
#[allow(dead_code)]
struct BytesGiven {
    root: usize,
    path: String,
    #[ts(type = "Uint8Array")]
    bytes: (),
}

/// A log of `Give::Logs` by its `LogToGive::index`: as bytes (with its time, for the cache's
/// key), as a File, or neither (the engine reads it from its root).
#[cfg(test)]
#[derive(ts_rs::TS)]
#[allow(dead_code)]
struct LogGiven {
    index: usize,
    #[ts(type = "Uint8Array", optional)]
    bytes: Option<()>,
    #[ts(type = "Blob", optional)]
    file: Option<()>,
    /// Milliseconds since the epoch.
    #[ts(optional)]
    modified: Option<f64>,
}

/// A file's modification time, in milliseconds since the epoch.
#[cfg(test)]
#[derive(ts_rs::TS)]
#[allow(dead_code)]
struct TimeGiven {
    root: usize,
    path: String,
    modified: f64,
}

/// What `read_metadata` asks the page for while the logs are parsed: the metadata has said which
/// files' times the rows need, and which files read after the logs hold something.
#[derive(Serialize, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AfterMetadata {
    /// For `Give::Times`.
    pub times: Vec<FileAt>,
    /// For `Give::LateMetadata`.
    pub late: Vec<FileAt>,
}

/// A file by its root's number and its path in the root.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FileAt {
    pub root: usize,
    pub path: String,
}

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LogToGive {
    /// Its number for `parse_log`.
    pub index: usize,
    pub root: usize,
    pub path: String,
    /// Whether the page hands it over: as bytes, or as a File when it is larger than
    /// `log_given_whole_max_bytes` (from a zip, as bytes by `entry`; a larger entry is not
    /// given); else the engine reads it from its root.
    pub given: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub entry: Option<crate::input::zip::RawEntry>,
    /// What the page's cache does with it.
    pub cache: LogCache,
}

/// What the page's cache does with a log a folder's page hands over.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum LogCache {
    /// Nothing: no cache in this run, or not a folder's log.
    None,
    /// Looked up in the cache and kept there: the page gives its time with its bytes, for its
    /// key. (A browser reads a log whole in less time than its two ends: what it charges is
    /// per read, about a millisecond, not per byte; a File read in a worker costs more still.)
    LookedUp,
    /// Looked up in the cache, whose entry can stand for it unread while its size and time are
    /// as then (`cache::settled`): the page hands its File over unread, and the engine compares
    /// the File's size and time (known to the worker once the File is posted, where asking them
    /// on the page's thread costs a round trip to the browser each), reading it only when they
    /// differ.
    Unread,
    /// Not in the cache: parsed as without it, and its entry made once the analysis is done,
    /// from its File handed over after done (`Give::FilesAfterDone`, `record_entries`), whose time the worker knows
    /// unasked (where a picked File's time costs the page a round trip to the browser).
    EntryAfterDone,
}

/// What the page's cache did in an analysis (`Engine::cache_report`).
#[derive(Serialize, Debug)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CacheReport {
    /// Logs and stores taken from the cache (a store, main file and log, counts as one).
    pub from_cache: u64,
    /// Of those, the logs not read at all: their size and time were as their entries said.
    pub unread: u64,
    /// Logs parsed and stores read: new, changed, or without an entry that could be used.
    pub changed: u64,
    /// Of those, the logs that only grew since their entries were made: taken from the cache,
    /// then parsed from where their entries ended.
    pub grown: u64,
    /// Why the cache the page kept could not be used at all, if it could not.
    pub problem: Option<String>,
    /// Whether this run's entries are kept for the next (not when they outgrew the cap).
    pub kept: bool,
}

/// What the analysis needs next: the page's worker loops on it.
#[derive(Serialize, Debug, PartialEq, Eq)]
#[serde(tag = "need", rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Need {
    /// Roots (`add_zip`, `add_listing`), then `begin`, which names what to hand over.
    Roots,
    /// The hand-over's first `given` steps (the files besides the logs); then `read_metadata`,
    /// which names the files whose times the rows need.
    Files { given: usize },
    /// The logs `begin` named (`parse_log`, in any order), `left` of them still to come.
    Logs { left: usize },
    /// The hand-over's first `given` steps (the times asked for among them); then `finish`.
    LastFiles { given: usize },
    /// Nothing: the analysis is done and answers `Request`s; those that need every file
    /// (`Request::needs_every_file`) wait for the hand-over's first `given` steps. Then the
    /// cache's new entries are made (`record_entries`) and its pack finished (`finish_cache`).
    Done { given: usize },
}

/// What the page asks of a finished analysis, tagged by its name: `"summary"`, `{"rows":
/// {...}}`. (Tagged outside its fields, which serde reads without buffering them: a tag among
/// the fields cost the page's WebAssembly 6.3 KB more, gzipped.)
#[derive(Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Request {
    /// The summary numbers.
    Summary,
    /// The `limit` rows from `offset` of those passing `filter`, in the order it asks. A
    /// `text_limit` above 0 cuts longer texts to about that many bytes; asking for more than
    /// the table keeps of long texts, or 0 for everything, reads them again whole. A search
    /// finds what the table keeps of the texts at first; `SearchWhole` reads the rest.
    Rows {
        #[cfg_attr(test, ts(type = "Partial<RowFilter>"))]
        filter: RowFilter,
        offset: u32,
        limit: u32,
        text_limit: u32,
    },
    /// Reads about `budget` more cut texts of the rows passing `filter` (the last one asked)
    /// again whole, for its search; the page asks until none is left, or a new filter.
    SearchWhole {
        #[cfg_attr(test, ts(type = "Partial<RowFilter>"))]
        filter: RowFilter,
        budget: u32,
    },
    /// The sessions one of whose prompts holds `search` (case-insensitive), for the Sessions
    /// filter.
    SessionsWithPrompt {
        search: String,
    },
    /// The values the timeline's filters offer.
    Facets,
    Sessions,
    Inventory,
    Report,
    Usage(UsageQuery),
    /// The billing month (UTC) holding the day `month` (`YYYY-MM-DD`), as of `today`, against
    /// an allowance and the person's own budget as typed (`views::allowance`; none or blank:
    /// none).
    Month {
        month: String,
        today: String,
        allowance: Option<String>,
        #[serde(default)]
        budget: Option<String>,
    },
    /// How many rows the table holds, unfiltered.
    RowCount,
    /// A file by its name in the outputs catalogue; `session.md` is the session `session_id`.
    Export {
        what: String,
        session_id: String,
    },
    /// Part of a rows export (`rows.jsonl`, `rows.csv`): the rows `offset..offset + limit`;
    /// the CSV header comes with the part at offset 0 only.
    ExportRows {
        what: String,
        offset: u32,
        limit: u32,
    },
    /// The report to share (`report.html`).
    ShareReport(ShareAsked),
    /// A team export (`team.csv`, `team.jsonl`), as `usage --export` writes it.
    TeamExport(TeamAsked),
    /// Each session's credits used by the one rule (`usage::credits`), by session id.
    SessionCredits,
}

impl Request {
    /// Whether the answer needs the files handed over after the analysis: the report's sizes,
    /// and the logs that long texts are read again from.
    pub fn needs_every_file(&self) -> bool {
        match self {
            Request::Rows { text_limit, .. } => *text_limit == 0 || *text_limit as usize > INLINE_TEXT,
            Request::Summary
            | Request::SessionsWithPrompt { .. }
            | Request::Facets
            | Request::Sessions
            | Request::Inventory
            | Request::Usage(_)
            | Request::Month { .. }
            | Request::RowCount
            | Request::SessionCredits
            | Request::TeamExport(_) => false,
            Request::SearchWhole { .. }
            | Request::Report
            | Request::Export { .. }
            | Request::ExportRows { .. }
            | Request::ShareReport(_) => true,
        }
    }
}

/// The answer to a `Request`, named as the request is (the page types each request's answer
/// by that: `AnswerTo` in `www/messages.d.ts`).
#[derive(Serialize)]
#[serde(tag = "answer", content = "value", rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Answer<'a> {
    Summary(Summary),
    Rows(RowsPage),
    SearchWhole(SearchProgress),
    /// Session ids.
    SessionsWithPrompt(Vec<&'a str>),
    Facets(Facets),
    Sessions(Vec<SessionShown<'a>>),
    Inventory(&'a Inventory),
    Report(&'a Report),
    Usage(UsageView<'a>),
    Month(MonthCredits),
    RowCount(u32),
    /// A file's text: an export, a part of one, the report to share, a team export.
    Export(String),
    ExportRows(String),
    ShareReport(String),
    TeamExport(String),
    SessionCredits(#[cfg_attr(test, ts(type = "Record<string, CreditsUsed>"))] BTreeMap<&'a str, CreditsUsed>),
}

/// A session as the page shows it: its record, and what names it where it is shown
/// (`SessionRecord::display_name`: its name, else its first prompt, else its id).
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SessionShown<'a> {
    #[serde(flatten)]
    pub record: &'a SessionRecord,
    pub display_name: &'a str,
}

impl<'a> SessionShown<'a> {
    pub fn of(record: &'a SessionRecord) -> Self {
        SessionShown { record, display_name: record.display_name() }
    }
}

#[cfg(test)]
mod tests {
    use ts_rs::{Config, TS, TypeVisitor};

    use super::*;

    /// The declarations of the types visited and of every type they name, each once, by name:
    /// ts-rs visits a type's dependencies in an order that differs from build to build.
    struct Declarations<'c> {
        config: &'c Config,
        out: BTreeMap<String, String>,
    }

    impl TypeVisitor for Declarations<'_> {
        fn visit<T: TS + 'static + ?Sized>(&mut self) {
            // Only a derived type has a declaration (and a file it would be exported to); a
            // map has no name of its own to ask.
            if T::output_path().is_none() {
                return;
            }
            let name = T::ident(self.config);
            if self.out.contains_key(&name) {
                return;
            }
            self.out.insert(name, T::decl(self.config));
            T::visit_dependencies(self);
        }
    }

    /// The page's types, generated from the boundary's.
    fn types_d_ts() -> String {
        // Numbers cross as JSON: a u64 is a JavaScript number.
        let config = Config::new().with_large_int("number");
        let mut out = String::from(
            "// Generated from the Rust types of the page's boundary (src/page/protocol.rs) by `cargo test\n\
             // --lib the_page_types`: do not edit. The JavaScript files use them through JSDoc, as\n\
             // `@typedef {import('./types').Request} Request`.\n",
        );
        let mut declarations = Declarations { config: &config, out: BTreeMap::new() };
        declarations.visit::<EngineFacts>();
        declarations.visit::<SourceFolders>();
        declarations.visit::<FolderPlace>();
        declarations.visit::<crate::sources::System>();
        declarations.visit::<Grouping>();
        declarations.visit::<OutputFile>();
        declarations.visit::<outputs::MadeFrom>();
        declarations.visit::<GroupBy>();
        declarations.visit::<TurnType>();
        declarations.visit::<RowMark>();
        declarations.visit::<HandOver>();
        declarations.visit::<HandOverStep>();
        declarations.visit::<Give>();
        declarations.visit::<Given>();
        declarations.visit::<BytesGiven>();
        declarations.visit::<LogGiven>();
        declarations.visit::<TimeGiven>();
        declarations.visit::<FileAt>();
        declarations.visit::<AfterMetadata>();
        declarations.visit::<LogToGive>();
        declarations.visit::<LogCache>();
        declarations.visit::<CacheReport>();
        declarations.visit::<crate::input::zip::RawEntry>();
        declarations.visit::<Need>();
        declarations.visit::<crate::page::views::PageOptions>();
        declarations.visit::<Request>();
        declarations.visit::<RowFilter>();
        declarations.visit::<UsageQuery>();
        declarations.visit::<ShareAsked>();
        declarations.visit::<TeamAsked>();
        declarations.visit::<Answer>();
        declarations.visit::<Summary>();
        declarations.visit::<RowsPage>();
        declarations.visit::<SearchProgress>();
        declarations.visit::<crate::page::views::ShownRow>();
        declarations.visit::<crate::page::views::NoteFields>();
        declarations.visit::<crate::model::OwnedRow>();
        declarations.visit::<Facets>();
        declarations.visit::<UsageView>();
        declarations.visit::<crate::usage::flags::Flag>();
        declarations.visit::<crate::usage::credits::CreditsUsed>();
        declarations.visit::<crate::usage::month::MonthCredits>();
        declarations.visit::<crate::usage::month::DayCredits>();
        declarations.visit::<crate::usage::month::AgentCredits>();
        for declaration in declarations.out.into_values() {
            out.push_str("\nexport ");
            out.push_str(&declaration);
            out.push('\n');
        }
        out
    }

    #[test]
    fn the_page_types_are_generated_from_these() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/www/types.d.ts");
        let generated = types_d_ts();
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        if committed != generated {
            std::fs::write(path, &generated).unwrap();
            panic!("www/types.d.ts was stale and is written again: commit it");
        }
    }

    #[test]
    fn requests_are_read_by_their_name() {
        let rows: Request = serde_json::from_str(
            r#"{"rows":{"filter":{"marks":["bad_line"]},"offset":0,"limit":500,"text_limit":600}}"#,
        )
        .unwrap();
        assert!(matches!(&rows, Request::Rows { filter, limit: 500, .. } if filter.marks == [RowMark::BadLine]));
        assert!(rows.needs_every_file(), "600 bytes is more than the table keeps");
        let usage: Request =
            serde_json::from_str(r#"{"usage":{"by":"subagent","since":"","until":"","agent":""}}"#).unwrap();
        assert!(matches!(&usage, Request::Usage(query) if query.by == GroupBy::Subagent));
        assert!(!usage.needs_every_file());
        assert!(matches!(serde_json::from_str::<Request>(r#""summary""#), Ok(Request::Summary)));
        let week = r#"{"usage":{"by":"week","since":"","until":"","agent":""}}"#;
        assert!(serde_json::from_str::<Request>(week).is_err());
        assert!(serde_json::from_str::<Request>(r#""drop_tables""#).is_err());
    }

    #[test]
    fn the_facts_name_every_output_grouping_turn_type_and_mark() {
        let facts = serde_json::to_value(engine_facts()).unwrap();
        let names = |key: &str| -> Vec<String> {
            facts[key].as_array().unwrap().iter().map(|value| value.as_str().unwrap().to_string()).collect()
        };
        let outputs: Vec<&str> =
            facts["outputs"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
        assert!(outputs.contains(&"report.html") && outputs.contains(&"session.md"), "{outputs:?}");
        assert_eq!(names("turn_types"), ["user", "assistant", "tool_use", "tool_result", "system", "thinking"]);
        assert!(names("marks").contains(&"bad_line".to_string()));
        let labels = &facts["turn_type_labels"];
        assert_eq!(labels[2], serde_json::json!(["tool_use", "Tool call"]), "the page shows words, not field names");
        assert_eq!(labels.as_array().unwrap().len(), TurnType::ALL.len());
        // Every labelled field is one a row has.
        let row = crate::model::OwnedRow::decl(&Config::new());
        for field in facts["row_fields"].as_array().unwrap() {
            assert!(row.contains(&format!("{}: ", field[0].as_str().unwrap())), "{field} is not a row's field: {row}");
        }
        assert_eq!(facts["bad_line_mark"], "bad_line");
        // The page saves each file under its name, and a session's under the session's id.
        let saved_as: Vec<(&str, &str)> = (facts["outputs"].as_array().unwrap().iter())
            .map(|o| (o["name"].as_str().unwrap(), o["save_as"].as_str().unwrap()))
            .filter(|(name, save_as)| name != save_as)
            .collect();
        assert_eq!(saved_as, [("session.md", "session-{session_id}.md")]);
        let groupings: Vec<(&str, Option<&str>)> = facts["groupings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["name"].as_str().unwrap(), g["column"].as_str()))
            .collect();
        assert_eq!(groupings[0], ("day", Some("day")));
        assert!(groupings.contains(&("model", None)) && groupings.contains(&("agent", Some("agent"))));
        // Each grouping's name reads back as itself: one spelling for the CLI and the page.
        for by in GroupBy::ALL {
            assert_eq!(by.name().parse::<GroupBy>(), Ok(by));
            assert_eq!(serde_json::to_value(by).unwrap(), by.name());
        }
    }

    #[test]
    fn the_facts_say_where_each_source_keeps_its_folders_and_what_makes_one() {
        let facts = engine_facts();
        let cli = &facts.sources[0];
        assert_eq!((cli.agent, cli.title, cli.own_folder), ("copilot-cli", "Copilot CLI", ".copilot"));
        assert_eq!((cli.folders[0].path, cli.folders[0].system), (".copilot", sources::System::Any));
        assert!(cli.own_folder_holds.contains(&"session-state") && cli.own_folder_holds.contains(&"session-store.db"));
        assert_eq!(cli.own_folder_layouts, ["copilot_directory"]);
        let vscode = &facts.sources[1];
        assert_eq!((vscode.title, vscode.own_folder), ("VS Code", "User"));
        // Every data folder has its system, and each system VS Code runs on is named.
        for source in sources::SOURCES {
            assert_eq!(source.layout().data_folders.len(), source.layout().data_folder_systems.len());
        }
        let place = |path: &str| vscode.folders.iter().find(|f| f.path == path).map(|f| f.system);
        assert_eq!(place("AppData/Roaming/Code/User"), Some(sources::System::Windows));
        assert_eq!(place("Library/Application Support/Code - Insiders/User"), Some(sources::System::Macos));
        assert_eq!(place(".config/Code/User"), Some(sources::System::Linux));
        assert_eq!(place(".vscode-server/data/User"), Some(sources::System::Remote));
        // A folder that is VS Code's User folder itself is told by these, not by its parent's.
        assert_eq!(vscode.own_folder_holds, ["workspaceStorage", "globalStorage/emptyWindowChatSessions"]);
        assert_eq!(vscode.own_folder_layouts, ["vscode_user_data", "vscode_user_folder"]);
    }
}
