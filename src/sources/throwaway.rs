//! A source registered only in the library's own test build, so that a test can hold the
//! "Adding a source" recipe (ARCHITECTURE.md) to its word: its folder and one line in
//! `SOURCES` make the page's facts, the walks and the analysis take it, with no other edit.
//! Its log is one line per turn; every line is counted as of an unknown type, and no row made.

use std::io::{self, BufRead, Read};

use crate::facts::files::{FileKind, Role};
use crate::lines::LineReader;
use crate::model::{OwnedRow, RowSink};
use crate::sources::log::{LogContext, LogOutcome, ScanStats, each_line};
use crate::sources::{Classified, HomeLayout, Importing, LogAgain, MetadataInput, OwnFolderMarker, Source, System};
use crate::usage::ledger::SessionLedger;
use crate::usage::rates::RateTable;

pub struct Throwaway;

const FOLDER: &str = ".throwaway";
const LOG: FileKind = FileKind { name: "throwaway_log", role: Role::EventLog, secondary: false };

pub static LAYOUT: HomeLayout = HomeLayout {
    title: "Throwaway",
    data_folders: &[FOLDER],
    data_folder_systems: &[System::Any],
    cache_folders: &[],
    shared_folders: &[],
    top_files: &[],
    own_folder_markers: &[OwnFolderMarker { entry: "turns", read_as: FOLDER, layout: "throwaway_folder" }],
    loose_log: None,
    walk_rules: &[],
    usage_log: |folder, name| folder.ends_with("turns") && name.ends_with(".log"),
    session_folders: &[],
    store_files: &[],
};

impl Source for Throwaway {
    fn agent(&self) -> &'static str {
        "throwaway"
    }

    fn layout(&self) -> &'static HomeLayout {
        &LAYOUT
    }

    fn classify<'a>(&self, path: &'a str) -> Classified<'a> {
        let session_id = path.strip_prefix(".throwaway/turns/").and_then(|name| name.strip_suffix(".log"));
        match session_id {
            Some(id) if !id.contains('/') => Classified { kind: LOG, session_id: Some(id), tree: None },
            _ if path.starts_with(".throwaway/") => {
                Classified { kind: FileKind::NOT_WANTED, session_id: None, tree: None }
            }
            _ => Classified { kind: FileKind::OUTSIDE, session_id: None, tree: None },
        }
    }

    fn import(&self, _input: MetadataInput<'_>, _into: &mut Importing<'_>) -> Result<(), String> {
        Ok(())
    }

    fn log_found_in(&self) -> &'static str {
        "throwaway.log"
    }

    fn parse_log(&self, _context: &LogContext<'_>, reader: &mut dyn BufRead, _sink: &mut dyn RowSink) -> LogOutcome {
        let mut outcome = LogOutcome::default();
        let account = &mut outcome.account;
        outcome.read_error = each_line(&mut LineReader::new(reader), |line| {
            if account.open_line(line) {
                account.unknown_type("turn");
            }
        });
        outcome
    }

    fn rows_again(
        &self,
        _context: &LogContext<'_>,
        _log: &mut dyn LogAgain,
        _offset: u64,
    ) -> io::Result<Vec<OwnedRow>> {
        Ok(Vec::new())
    }

    fn scan_usage(
        &self,
        _path: &str,
        reader: &mut dyn Read,
        _ledger: &mut SessionLedger,
        _rates: &RateTable,
    ) -> io::Result<ScanStats> {
        let bytes = io::copy(reader, &mut io::sink())?;
        Ok(ScanStats { bytes, ..ScanStats::default() })
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::{Options, analyze};
    use crate::facts::files::FileStatus;
    use crate::input::memory::{MemoryRoot, MemoryRoots};
    use crate::sources::System;

    /// The recipe's promise: a folder and one line in `SOURCES`, and the page's facts (its
    /// steps, main action and tagline are drawn from them alone), the walks' folder lists (the
    /// CLI's and `input.js`'s), the CLI's help and `--agent`, the "no Copilot data" message and
    /// an analysis all take it.
    #[test]
    fn a_throwaway_source_is_listed_everywhere() {
        let facts = crate::page::protocol::engine_facts();
        let listed = facts.sources.iter().find(|source| source.agent == "throwaway").expect("the page's facts list it");
        assert_eq!(
            (listed.title, listed.own_folder, listed.own_folder_holds.as_slice()),
            ("Throwaway", ".throwaway", &["turns"][..])
        );
        let places: Vec<_> = listed.folders.iter().map(|folder| (folder.path, folder.system)).collect();
        assert_eq!(places, [(".throwaway", System::Any)]);
        assert!(facts.home_folders.contains(&".throwaway") && facts.data_folders.contains(&".throwaway"));
        assert!(crate::sources::looked_for().contains("Throwaway's .throwaway folder (holding turns)"));
        assert!(crate::sources::is_usage_log(".throwaway/turns", "s.log"), "a usage-only walk takes its logs");
        let help_names = crate::sources::own_folder_names();
        assert!(help_names.iter().any(|name| name == "Throwaway's .throwaway folder"), "the CLI's help names it");
        assert_eq!(
            crate::sources::agent_named("throwaway"),
            Ok("throwaway"),
            "the CLI's --agent and the page's filters take it"
        );

        // A home holding only its folder, and a root that is its folder itself.
        let mut home = MemoryRoot::new("home");
        home.insert(".throwaway/turns/s1.log", "one\ntwo\n", Some(0));
        let mut own = MemoryRoot::new("own");
        own.insert("turns/s2.log", "three\n", Some(0));
        let mut reader = MemoryRoots(vec![home, own]);
        let outputs = analyze(reader.listings(), &mut reader, Options::default(), &mut Vec::new()).unwrap();
        let read: Vec<_> = (outputs.report.files.iter())
            .map(|file| (file.path.as_str(), file.kind.name, file.status, file.lines.as_ref().map(|lines| lines.lines)))
            .collect();
        assert_eq!(
            read,
            [
                (".throwaway/turns/s1.log", "throwaway_log", FileStatus::Read, Some(2)),
                (".throwaway/turns/s2.log", "throwaway_log", FileStatus::Read, Some(1)),
            ]
        );
        let sessions: Vec<_> =
            outputs.sessions.iter().map(|record| (record.agent, record.session_id.as_str())).collect();
        assert_eq!(sessions, [("throwaway", "s1"), ("throwaway", "s2")]);
    }
}
