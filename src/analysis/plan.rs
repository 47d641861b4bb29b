//! Steps 1 and 2: the plan (every listed file classified by its source) and the reading of
//! every file but the event logs, which makes the logs step.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::BufReader;

use super::logs::Parsing;
use super::state::{Home, HomePlaces, PlannedFile, RootState, State};
use super::stores::{AsTheyAre, StoreOnDisk, StoreReading};
use super::{AnalysisError, Options};
use crate::facts::diagnostics::DiagnosticKind;
use crate::facts::files::FileStatus;
use crate::facts::files::Role;
use crate::input::layout::Rebase;
use crate::input::{FileReader, RootListing, Stat, read_all};
use crate::model::HeldRow;
use crate::order;
use crate::report::{Problem, Report};
use crate::sources::store::{self, StoreScope};
use crate::sources::{self, Importing, MetadataInput};

/// Size limit for files read whole.
const SMALL_FILE_LIMIT: u64 = 64 << 20;

/// Step 1 done: what each root holds, classified; nothing read yet.
pub struct Planned {
    pub(super) state: State,
    stores_read: bool,
}

/// Where a listed file's bytes count in the report.
enum SizeSlot {
    Outside,
    /// An excluded tree of a home.
    Excluded(usize, String),
    /// A file of a home, by its path there.
    Home(usize, String),
}

fn size_slot(places: &HomePlaces, root: usize, listed_path: &str) -> SizeSlot {
    let Some((home, path)) = places.find(root, listed_path) else { return SizeSlot::Outside };
    let (_, classified) = sources::classify(&path);
    match classified.kind.role {
        Role::Outside => SizeSlot::Outside,
        Role::Excluded => SizeSlot::Excluded(home, classified.tree.unwrap_or_default().to_string()),
        _ => SizeSlot::Home(home, path),
    }
}

/// The sizes of files an analysis did not read, given after it finished (a browser learns a
/// file's size only by asking for it, which costs as much as handing the file over): they are
/// placed in the report as `set_file_facts` would have placed them.
pub struct LateSizes {
    places: HomePlaces,
    /// The report's files, `(home, path in the home)`, in its (sorted) order.
    files: Vec<(usize, String)>,
}

impl LateSizes {
    pub(super) fn of(state: &State) -> LateSizes {
        LateSizes {
            places: state.places.clone(),
            files: state.files.iter().map(|file| (file.home, file.path.clone())).collect(),
        }
    }

    pub fn place(&self, report: &mut Report, root: usize, listed_path: &str, size: u64) {
        match size_slot(&self.places, root, listed_path) {
            SizeSlot::Outside => {
                if let Some(root_report) = report.roots.get_mut(root) {
                    root_report.outside_bytes += size;
                }
            }
            SizeSlot::Excluded(home, tree) => {
                let found = report
                    .excluded_trees
                    .binary_search_by(|excluded| (excluded.home, excluded.tree.as_str()).cmp(&(home, tree.as_str())));
                if let Ok(index) = found {
                    report.excluded_trees[index].bytes += size;
                }
            }
            SizeSlot::Home(home, path) => {
                let found = self.files.binary_search_by(|(of, at)| (*of, at.as_str()).cmp(&(home, path.as_str())));
                if let Some(file) = found.ok().and_then(|index| report.files.get_mut(index)) {
                    file.size = size;
                }
            }
        }
    }
}

impl Planned {
    /// Lists what each root holds and classifies every file; nothing is read yet.
    pub fn new(roots: Vec<RootListing>, options: Options) -> Result<Planned, AnalysisError> {
        if roots.is_empty() {
            return Err(AnalysisError::NoRoots);
        }
        let mut root_states = Vec::new();
        let mut homes = Vec::new();
        let mut places = HomePlaces::default();
        let mut files = Vec::new();
        let mut excluded: BTreeMap<(usize, String), (u64, u64)> = BTreeMap::new();
        for (root, listing) in roots.into_iter().enumerate() {
            if listing.files.is_empty() && listing.problems.is_empty() {
                return Err(AnalysisError::EmptyRoot(listing.label));
            }
            let found = Rebase::detect_all(&mut listing.files.iter().map(|file| file.path.as_str()));
            if found.is_empty() {
                return Err(AnalysisError::NoCopilotData(listing.label));
            }
            let first_home = homes.len();
            for rebase in found {
                let label = match rebase.path() {
                    "" => listing.label.clone(),
                    path => format!("{}/{path}", listing.label.trim_end_matches(['/', '\\'])),
                };
                homes.push(Home { root, label, facts: BTreeMap::new() });
                places.rebases.push(rebase);
            }
            places.by_root.push(first_home..homes.len());
            let mut state = RootState {
                label: listing.label,
                files_listed: listing.files.len() as u64,
                outside_files: 0,
                outside_bytes: 0,
                problems: listing.problems.into_iter().map(|(path, message)| Problem { path, message }).collect(),
            };
            for file in listing.files {
                let Some((home, path)) = places.find(root, &file.path) else {
                    state.outside_files += 1;
                    state.outside_bytes += file.size;
                    continue;
                };
                let (source, classified) = sources::classify(&path);
                let status = match classified.kind.role {
                    Role::Outside => {
                        state.outside_files += 1;
                        state.outside_bytes += file.size;
                        continue;
                    }
                    Role::Excluded => {
                        let entry =
                            excluded.entry((home, classified.tree.unwrap_or_default().to_string())).or_default();
                        entry.0 += 1;
                        entry.1 += file.size;
                        continue;
                    }
                    Role::NotWanted => FileStatus::NotWanted,
                    Role::Secret => FileStatus::NotReadSecret,
                    Role::NotNeeded => FileStatus::NotNeeded,
                    Role::Listed => FileStatus::Listed,
                    Role::EventLog
                    | Role::Store
                    | Role::StoreWal
                    | Role::Metadata
                    | Role::LateMetadata
                    | Role::MetadataInParts
                    | Role::Database => FileStatus::Read,
                };
                homes[home].facts_of(sources::SOURCES[source].agent());
                let (kind, session_id) = (classified.kind, classified.session_id.map(str::to_string));
                files.push(PlannedFile {
                    root,
                    home,
                    source,
                    session_id,
                    kind,
                    listed_path: file.path,
                    path,
                    size: file.size,
                    modified_ms: file.modified_ms,
                    status,
                    message: None,
                    lines: None,
                    wal: None,
                    tables: None,
                    rows: 0,
                    rows_deduplicated: 0,
                });
            }
            root_states.push(state);
        }
        order::sort_by(&mut files, |a, b| (a.home, &a.path).cmp(&(b.home, &b.path)));
        superseded(&mut files);
        not_needed_alone(&mut files);
        let state = State {
            options,
            roots: root_states,
            homes,
            places,
            files,
            excluded,
            sessions: BTreeMap::new(),
            tally: Default::default(),
            held_rows: BTreeMap::new(),
            dated_files: BTreeSet::new(),
            store_ledgers: BTreeMap::new(),
            diagnostics: Vec::new(),
            format_drift: Vec::new(),
            copy_keys: Default::default(),
        };
        Ok(Planned { state, stores_read: false })
    }

    pub fn options(&self) -> &Options {
        &self.state.options
    }

    /// Sets a file's size and time where the listing could not give them (a browser learns
    /// them only as each file is handed over). Files not read may be given after the analysis
    /// instead (`LateSizes`). Returns whether the analysis reads the file.
    pub fn set_file_facts(&mut self, root: usize, listed_path: &str, size: u64, modified_ms: Option<i64>) -> bool {
        self.state.set_file_facts(root, listed_path, size, modified_ms)
    }

    /// A file's size and time as its listing gave them, where it gave its time.
    pub fn listed_stat(&self, root: usize, listed_path: &str) -> Option<Stat> {
        self.state.listed_stat(root, listed_path)
    }

    /// The files other than event logs that step 2 opens (the stores' among them), as `(root,
    /// listed path, role)`: the role says how it is read (whole; or in parts, line by line or a
    /// database page by page, as it can be large).
    pub fn metadata_files(&self) -> impl Iterator<Item = (usize, &str, Role)> {
        let step_2 = |role| role != Role::EventLog && !Step::Joins.imports(role);
        (self.state.read_files())
            .filter(move |(_, file)| step_2(file.kind.role))
            .map(|(_, file)| (file.root, file.listed_path.as_str(), file.kind.role))
    }

    /// The files step 4 reads whole before the joins (`Role::LateMetadata`), `(root, listed
    /// path)`, as far as the plan knows: the metadata may show some hold nothing
    /// (`Parsing::late_metadata_files`).
    pub fn late_metadata_files(&self) -> impl Iterator<Item = (usize, &str)> {
        self.state.late_metadata_files()
    }

    /// The files of the stores, `(root, listed path)`.
    pub fn store_files(&self) -> impl Iterator<Item = (usize, &str)> {
        self.state
            .read_files()
            .filter(|(_, file)| matches!(file.kind.role, Role::Store | Role::StoreWal))
            .map(|(_, file)| (file.root, file.listed_path.as_str()))
    }

    /// The event logs, `(root, listed path)`, in the order step 3 takes them.
    pub fn log_files(&self) -> impl Iterator<Item = (usize, &str)> {
        let files = &self.state.files;
        self.state.log_order().into_iter().map(|(index, _)| (files[index].root, files[index].listed_path.as_str()))
    }

    /// Whether the input holds a file only the full engine reads
    /// (`sources::READ_BY_FULL_ENGINE_ONLY`).
    pub fn needs_full_engine(&self) -> bool {
        self.state.read_files().any(|(_, file)| sources::READ_BY_FULL_ENGINE_ONLY.contains(&file.kind))
    }

    /// Bytes of the files the analysis will read, for progress reports.
    pub fn bytes_to_read(&self) -> u64 {
        self.state.read_files().map(|(_, file)| file.size).sum()
    }

    /// How many files the run reads (for a progress display).
    pub fn files_to_read(&self) -> usize {
        self.state.read_files().count()
    }

    /// The first part of step 2, which may come early: the stores (a browser reads them as soon
    /// as their bytes are in, while the page still reads the small files), each read as
    /// `stores` reads it.
    pub fn read_stores(&mut self, reader: &mut dyn FileReader, stores: &mut dyn StoreReading) {
        if std::mem::replace(&mut self.stores_read, true) {
            return;
        }
        for job in self.state.store_jobs(StoreScope::Everything) {
            let read = stores.read(job, reader, &self.state.options);
            self.state.add_store(read);
        }
    }

    /// Step 2: the stores (unless read already) and every other file but the event logs and
    /// those read after them (`Role::LateMetadata`).
    pub fn read_metadata(mut self, reader: &mut dyn FileReader) -> Parsing {
        self.read_stores(reader, &mut AsTheyAre);
        let mut state = self.state;
        state.import(Step::Metadata, reader);
        Parsing { state }
    }
}

/// The steps that hand files to their source's importer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Step 2, before the logs.
    Metadata,
    /// Step 4, before the joins.
    Joins,
}

impl Step {
    fn imports(self, role: Role) -> bool {
        match self {
            Step::Metadata => matches!(role, Role::Metadata | Role::MetadataInParts | Role::Database | Role::Listed),
            Step::Joins => role == Role::LateMetadata,
        }
    }
}

impl State {
    pub(super) fn late_metadata_files(&self) -> impl Iterator<Item = (usize, &str)> {
        (self.read_files())
            .filter(|(_, file)| Step::Joins.imports(file.kind.role))
            .map(|(_, file)| (file.root, file.listed_path.as_str()))
    }

    /// A file an importer says holds nothing (`Importing::not_needed`): not read, if it was
    /// still to be read after the logs.
    fn not_needed(&mut self, home: usize, path: &str, why: String) {
        let Some(index) = self.file_index(home, path) else { return };
        let file = &mut self.files[index];
        if file.status == FileStatus::Read && file.kind.role == Role::LateMetadata {
            file.status = FileStatus::NotNeeded;
            file.message = Some(format!("not read: {why}"));
        }
    }

    /// `Planned::set_file_facts`, also for the files read after the logs (`Parsing::set_file_facts`).
    pub(super) fn set_file_facts(
        &mut self,
        root: usize,
        listed_path: &str,
        size: u64,
        modified_ms: Option<i64>,
    ) -> bool {
        match size_slot(&self.places, root, listed_path) {
            SizeSlot::Outside => {
                if let Some(root_state) = self.roots.get_mut(root) {
                    root_state.outside_bytes += size;
                }
            }
            SizeSlot::Excluded(home, tree) => self.excluded.entry((home, tree)).or_default().1 += size,
            SizeSlot::Home(home, path) => {
                if let Some(index) = self.file_index(home, &path) {
                    let file = &mut self.files[index];
                    // A time the listing gave stays when the file comes without one.
                    file.size = size;
                    file.modified_ms = modified_ms.or(file.modified_ms);
                    return file.status == FileStatus::Read;
                }
            }
        }
        false
    }

    /// Hands each file `step` imports to its source's importer, in path order, holding the
    /// rows it gives until the joins.
    pub(super) fn import(&mut self, step: Step, reader: &mut dyn FileReader) {
        // The sessions with a log, by home: workspace.yaml rows say whether the log is there.
        let logged: HashSet<(usize, String)> = self
            .files
            .iter()
            .filter(|file| file.kind.role == Role::EventLog)
            .filter_map(|file| Some((file.home, file.session_id.clone()?)))
            .collect();
        for index in 0..self.files.len() {
            let file = &self.files[index];
            if !matches!(file.status, FileStatus::Read | FileStatus::Listed) || !step.imports(file.kind.role) {
                continue;
            }
            let (kind, root, home, source) = (file.kind, file.root, file.home, file.source());
            let session_id = file.session_id.clone().unwrap_or_default();
            let opened = match kind.role {
                Role::Metadata | Role::LateMetadata => {
                    read_all(reader, root, &file.listed_path, SMALL_FILE_LIMIT).map(Input::Bytes)
                }
                Role::MetadataInParts => reader.open(root, &file.listed_path).map(Input::Stream),
                Role::Database => {
                    let main = Some((file.listed_path.clone(), file.size));
                    let mut files = StoreOnDisk { reader: &mut *reader, root, main, wal: None, scanned_wal: None };
                    store::open_database(&mut files).map(Input::Database).map_err(std::io::Error::other)
                }
                Role::Listed => Ok(Input::Listed),
                _ => continue,
            };
            let input = match opened {
                Ok(input) => input,
                Err(error) => {
                    self.fail(index, DiagnosticKind::Unreadable, error.to_string());
                    continue;
                }
            };
            let session_has_log = logged.contains(&(home, session_id.clone()));
            let mut into = Importing {
                kind,
                path: &file.path,
                home_index: home,
                session_id: &session_id,
                agent: source.agent(),
                session_has_log,
                sessions: &mut self.sessions,
                home: self.homes[home].facts_of(source.agent()),
                rows: Vec::new(),
                dated: false,
                not_needed: Vec::new(),
            };
            let imported = match input {
                Input::Bytes(bytes) => source.import(MetadataInput::Bytes(&bytes), &mut into),
                Input::Stream(stream) => {
                    source.import(MetadataInput::Stream(&mut BufReader::with_capacity(1 << 16, stream)), &mut into)
                }
                Input::Listed => source.import(MetadataInput::Listed, &mut into),
                Input::Database(database) => source.import(MetadataInput::Database(&database.connection), &mut into),
            };
            let (rows, dated, not_needed) = (into.rows, into.dated, into.not_needed);
            for (path, why) in not_needed {
                self.not_needed(home, &path, why);
            }
            // A browser gives the times a file's rows need before the logs (`files_needing_times`).
            debug_assert!(
                step == Step::Metadata || !dated && rows.iter().all(|row| !row.at_file_time),
                "{} is read after the logs, but its rows are dated by its file's time",
                kind.name
            );
            if dated {
                self.dated_files.insert(index);
            }
            match imported {
                Ok(()) => self.hold_rows(index, rows.into_iter().map(HeldRow::Row).collect()),
                Err(message) => self.fail(index, DiagnosticKind::Unparsable, message),
            }
        }
    }
}

/// Marks the files whose session is read from another file of the same folder (VS Code's
/// `.json` beside its `.jsonl`): the session counts once. `files` is in (home, path) order.
fn superseded(files: &mut [PlannedFile]) {
    for index in 0..files.len() {
        let file = &files[index];
        let Some(instead) = file.source().read_instead(&file.path) else { continue };
        let home = file.home;
        let found = files.binary_search_by(|other| (other.home, other.path.as_str()).cmp(&(home, instead.as_str())));
        if let Ok(other) = found
            && files[other].status == FileStatus::Read
        {
            let file = &mut files[index];
            file.status = FileStatus::Superseded;
            file.message = Some(format!("the session is read from {instead}, its live copy"));
        }
    }
}

/// Marks the files read only for the session logs beside them (VS Code's `state.vscdb`, for
/// its chat index) that have none: a workspace's storage holds every extension's state, so it
/// is read only where there are chats to name. `files` is in (home, path) order.
fn not_needed_alone(files: &mut [PlannedFile]) {
    for index in 0..files.len() {
        let file = &files[index];
        let Some(folder) = file.source().read_only_beside(&file.path) else { continue };
        let home = file.home;
        let from = files.partition_point(|other| (other.home, other.path.as_str()) < (home, folder.as_str()));
        let beside = files[from..]
            .iter()
            .take_while(|other| other.home == home && other.path.starts_with(&folder))
            .any(|other| other.kind.role == Role::EventLog && other.status == FileStatus::Read);
        if !beside {
            let file = &mut files[index];
            file.status = FileStatus::NotNeeded;
            file.message = Some(format!("not read: no session log in {folder}"));
        }
    }
}

/// A metadata file as opened for its importer.
enum Input<'a> {
    Bytes(Vec<u8>),
    Stream(Box<dyn std::io::Read + 'a>),
    Listed,
    Database(store::OpenDatabase),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::memory::{MemoryRoot, MemoryRoots};

    /// A checkpoint table with one row, which the CLI writes at a compaction.
    const ONE_CHECKPOINT: &str =
        "# Checkpoint History\n\n| # | Title | File |\n|---|-------|------|\n| 1 | Ship it | 001-ship-it.md |\n";

    #[test]
    fn a_checkpoint_table_is_read_unless_its_workspace_counts_no_compaction() {
        let folder = |id: char| format!(".copilot/session-state/{id}0000000-0000-4000-8000-000000000001");
        let workspace = |count: &str| format!("id: x\ncwd: /srv/proj\n{count}created_at: 2026-10-01T09:00:00.000Z\n");
        let mut home = MemoryRoot::new("home");
        // a: none (the table is the header alone as the CLI writes it; this one is not, to show it
        // goes unread); b: one; c: an older workspace.yaml without the count; d: none at all.
        for (id, count) in
            [('a', Some("summary_count: 0\n")), ('b', Some("summary_count: 1\n")), ('c', Some("")), ('d', None)]
        {
            if let Some(count) = count {
                home.insert(&format!("{}/workspace.yaml", folder(id)), workspace(count), Some(0));
            }
            home.insert(&format!("{}/checkpoints/index.md", folder(id)), ONE_CHECKPOINT, Some(0));
        }
        let mut reader = MemoryRoots(vec![home]);
        let parsing = Planned::new(reader.listings(), Options::default()).unwrap().read_metadata(&mut reader);
        // What a browser is asked for while the logs are parsed.
        let late: Vec<&str> = parsing.late_metadata_files().map(|(_, path)| path).collect();
        let index = |id| format!("{}/checkpoints/index.md", folder(id));
        assert_eq!(late, [index('b'), index('c'), index('d')]);

        let outputs = parsing.finish(&mut reader, &mut Vec::new());
        let status = |id| {
            let file = outputs.report.files.iter().find(|file| file.path == index(id)).unwrap();
            (file.status, file.message.as_deref())
        };
        let why = "not read: its session's workspace.yaml counts no compaction (summary_count: 0)";
        assert_eq!(status('a'), (FileStatus::NotNeeded, Some(why)));
        for id in ['b', 'c', 'd'] {
            assert_eq!(status(id), (FileStatus::Read, None));
        }
        let titles: Vec<(char, &[String])> = (outputs.sessions.iter())
            .map(|record| (record.session_id.chars().next().unwrap(), record.checkpoint_titles.as_slice()))
            .collect();
        let shipped = ["Ship it".to_string()];
        assert_eq!(titles, [('a', &[][..]), ('b', &shipped[..]), ('c', &shipped[..]), ('d', &shipped[..])]);
    }
}
