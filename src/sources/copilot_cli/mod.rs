//! The Copilot CLI source: where its files live under a home, what each one is, and one
//! importer per artifact turning it into the shared model (`crate::model`, `crate::facts`; its
//! session claims ranked in `ranks.rs`). Joins and deduplication happen after the importers, in
//! `crate::analysis`, whatever the source.

pub mod counters;
pub mod customizations;
pub mod events;
pub mod history;
pub mod history_session;
pub mod layout;
pub mod logs;
pub mod permissions;
pub mod plugins;
pub mod ranks;
pub mod session_files;
pub mod settings;
pub mod sidebar;
pub mod snapshots;
pub mod store;
pub mod usage_scan;
pub mod vscode_metadata;
pub mod workspace;

use std::io::{self, BufRead, Read};

use crate::facts::home::Grant;
use crate::lines::utf8_text;
use crate::model::{OwnedRow, RowSink};
use crate::sources::log::ScanStats;
use crate::sources::log::{LogContext, LogEnd, LogOutcome};
use crate::usage::ledger::SessionLedger;
use crate::usage::rates::RateTable;
use layout::{
    ARTIFACT, CHECKPOINTS_INDEX, CHECKPOINTS_INDEX_FILE, HISTORY, HISTORY_SESSION, PERMISSIONS, PLAN, SETTINGS,
    SIDEBAR, SNAPSHOTS, VSCODE_METADATA, WORKSPACE, WORKSPACE_FILE,
};

use super::{Classified, HomeLayout, Importing, LogAgain, MetadataInput, Source, StoreSupport};

/// GitHub Copilot CLI's `~/.copilot`.
pub struct CopilotCli;

impl Source for CopilotCli {
    fn agent(&self) -> &'static str {
        "copilot-cli"
    }

    fn layout(&self) -> &'static HomeLayout {
        &layout::LAYOUT
    }

    fn classify<'a>(&self, path: &'a str) -> Classified<'a> {
        layout::classify(path)
    }

    fn import(&self, input: MetadataInput<'_>, into: &mut Importing<'_>) -> Result<(), String> {
        let bytes = match input {
            MetadataInput::Stream(reader) => return import_process_log(reader, into),
            MetadataInput::Listed => return import_listed(into),
            MetadataInput::Bytes(bytes) => bytes,
            // Its store is read as a store; it has no database of its own.
            MetadataInput::Database(_) => return Ok(()),
        };
        if customizations::reads(into.kind) {
            return customizations::import(bytes, into);
        }
        let session_id = into.session_id;
        into.rows = match into.kind {
            WORKSPACE => {
                let parsed = workspace::parse(bytes)?;
                let rows = parsed.rows(session_id, into.session_has_log);
                let facts = into.session(session_id, "workspace.yaml");
                parsed.claim(facts);
                if parsed.compactions() == Some(0)
                    && let Some(folder) = into.path.strip_suffix(WORKSPACE_FILE)
                {
                    // Its checkpoint table is the header alone: a browser pays for every file read.
                    let why = "its session's workspace.yaml counts no compaction (summary_count: 0)";
                    into.not_needed.push((format!("{folder}{CHECKPOINTS_INDEX_FILE}"), why.to_string()));
                }
                rows
            }
            VSCODE_METADATA => {
                let parsed = vscode_metadata::parse(bytes)?;
                let rows = parsed.rows(session_id);
                let facts = into.session(session_id, "vscode.metadata.json");
                parsed.facts().claim(facts);
                rows
            }
            SNAPSHOTS => {
                let rows = snapshots::parse(bytes, session_id)?;
                into.session(session_id, "rewind-file-snapshots");
                rows
            }
            HISTORY => history::parse(bytes)?,
            HISTORY_SESSION => {
                let parsed = history_session::parse(utf8_text(bytes)?).map_err(|error| error.to_string())?;
                let facts = into.session(session_id, "history-session-state");
                facts.log.get_or_insert_with(Default::default).merge(parsed.summary);
                history_session::pending_rows(parsed.rows, session_id)
            }
            PERMISSIONS => {
                let grants = permissions::parse(bytes)?;
                let rows = permissions::rows(&grants);
                into.home.grants.extend(grants.into_iter().map(|grant| Grant {
                    file: "permissions-config.json".into(),
                    location: grant.location,
                    list: grant.list,
                    entry: grant.entry,
                    words: grant.words,
                }));
                rows
            }
            SETTINGS => {
                let grants = settings::parse(bytes)?;
                let rows = settings::rows(&grants);
                into.home.grants.extend(grants.into_iter().map(|(list, entry)| Grant {
                    file: "settings.json".into(),
                    location: String::new(),
                    words: settings::words(&list, &entry),
                    list,
                    entry,
                }));
                rows
            }
            SIDEBAR => {
                let parsed = sidebar::parse(bytes)?;
                for id in &parsed.session_ids {
                    let facts = into.session(id, "sidebar-sessions-state");
                    if let Some(cwd) = &parsed.cwd {
                        facts.project.claim(ranks::PROJECT_FROM_SIDEBAR, cwd.as_str());
                    }
                }
                Vec::new()
            }
            PLAN => {
                let plan = utf8_text(bytes)?.to_string();
                into.session(session_id, "plan.md").folder_mut().plan = Some(plan);
                Vec::new()
            }
            CHECKPOINTS_INDEX => {
                let titles = session_files::checkpoint_titles(utf8_text(bytes)?);
                into.session(session_id, "checkpoints/index.md").folder_mut().checkpoint_titles = titles;
                Vec::new()
            }
            _ => Vec::new(),
        };
        Ok(())
    }

    fn parse_log(&self, context: &LogContext<'_>, reader: &mut dyn BufRead, sink: &mut dyn RowSink) -> LogOutcome {
        events::parse_log(context, reader, sink)
    }

    fn parse_log_resumable(
        &self,
        context: &LogContext<'_>,
        reader: &mut dyn BufRead,
        sink: &mut dyn RowSink,
    ) -> (LogOutcome, Option<LogEnd>) {
        events::parse_log_resumable(context, reader, sink)
    }

    fn resume_log(
        &self,
        context: &LogContext<'_>,
        outcome: LogOutcome,
        end: &LogEnd,
        reader: &mut dyn BufRead,
        sink: &mut dyn RowSink,
    ) -> Option<(LogOutcome, Option<LogEnd>)> {
        events::resume_log(context, outcome, end, reader, sink)
    }

    fn read_instead(&self, path: &str) -> Option<String> {
        layout::read_instead(path)
    }

    fn built_in_mcp_servers(&self) -> &'static [&'static str] {
        layout::BUILT_IN_MCP_SERVERS
    }

    fn log_found_in(&self) -> &'static str {
        "events.jsonl"
    }

    fn rows_by_line(&self) -> bool {
        true
    }

    fn rows_again(&self, context: &LogContext<'_>, log: &mut dyn LogAgain, offset: u64) -> io::Result<Vec<OwnedRow>> {
        Ok(events::reparse_line(context, &log.line_at(offset)?))
    }

    fn scan_usage(
        &self,
        _path: &str,
        reader: &mut dyn Read,
        ledger: &mut SessionLedger,
        rates: &RateTable,
    ) -> io::Result<ScanStats> {
        usage_scan::scan_log(crate::lines::utf16_as_utf8(reader), ledger, rates)
    }

    fn store(&self) -> Option<&'static StoreSupport> {
        Some(&STORE)
    }
}

/// `session-store.db` and its `-wal`.
static STORE: StoreSupport = StoreSupport {
    found_in: "session-store.db",
    read: store::read,
    scan_wal: crate::sources::store::scan_wal,
    reopen: store::reopen,
    claim_session: store::claim_session,
    #[cfg(feature = "cli")]
    usage_added: store::usage_added,
};

/// A file known by its name only: a session's artifact.
fn import_listed(into: &mut Importing<'_>) -> Result<(), String> {
    if into.kind == ARTIFACT
        && let Some(name) = session_files::artifact_name(into.path)
    {
        let (name, session_id) = (name.to_string(), into.session_id);
        into.session(session_id, "files/").folder_mut().artifacts.push(name);
    }
    Ok(())
}

/// A process log: sign-ins, versions per session, MCP servers seen. An older version's
/// `logs/session-<id>.log` served the session its name gives.
fn import_process_log(reader: &mut dyn BufRead, into: &mut Importing<'_>) -> Result<(), String> {
    let mut facts = logs::scan(reader).map_err(|error| error.to_string())?;
    if !into.session_id.is_empty() {
        facts.workspace_ids.insert(into.session_id.to_string());
    }
    for id in &facts.workspace_ids {
        let session = into.session(id, "process log");
        session.process_versions.extend(facts.versions.iter().cloned());
    }
    for (name, seen) in &facts.mcp_servers {
        let entry = into.home.mcp_from_logs.entry(name.clone()).or_default();
        entry.connected += seen.connected;
        entry.failed += seen.failed;
    }
    into.home.accounts.extend(facts.sign_ins.iter().map(|sign_in| (sign_in.host.clone(), sign_in.login.clone())));
    into.rows = logs::rows(&facts);
    Ok(())
}
