//! Step 4: the held rows joined with their sessions and deduplicated against the primary
//! rows, then the outputs besides the rows (sessions, inventory, usage, report).

use std::collections::{BTreeMap, HashMap};

use super::logs::Parsing;
use super::plan::{LateSizes, Step};
use super::state::State;
use super::stores::StoreOnDisk;
use super::{Outputs, UsageData};
use crate::dedup::{self, TextKey};
use crate::facts::diagnostics::{Diagnostic, DiagnosticKind};
use crate::facts::files::{FileStatus, Role};
use crate::input::FileReader;
use crate::inventory;
use crate::model::{HeldRow, PendingRow, Row, RowSink, TurnType, mtime_text};
use crate::order;
use crate::report::{ExcludedTree, FileReport, FormatDrift, HomeReport, Report, ReportSkippedKey, RootReport, Totals};
use crate::sessions::SessionRecord;
use crate::sources::store::TurnReader;
use crate::usage::ledger::{CounterProblem, SessionLedger};
use crate::usage::plausible;
use crate::usage::summary;
use crate::words::counted;

impl Parsing {
    /// Step 4: the files read after the logs (`Role::LateMetadata`), then the held rows,
    /// deduplicated and joined, then the other outputs. The reader is needed again for the
    /// store's turns that survive deduplication.
    pub fn finish(mut self, reader: &mut dyn FileReader, sink: &mut dyn RowSink) -> Outputs {
        self.state.import(Step::Joins, reader);
        self.state.join_held_rows(reader, sink)
    }

    /// What places the sizes of files given after `finish` in its report (a browser's).
    pub fn late_sizes(&self) -> LateSizes {
        LateSizes::of(&self.state)
    }
}

impl State {
    /// The held rows (files other than event logs) stamped, deduplicated, joined with their
    /// sessions and given to the sink, file by file in path order; then the other outputs.
    fn join_held_rows(mut self, reader: &mut dyn FileReader, sink: &mut dyn RowSink) -> Outputs {
        let mut held = std::mem::take(&mut self.held_rows);
        self.stamp_file_times(&mut held);
        let mut keep = self.secondary_to_keep(&held).into_iter();
        let (mut kept, mut dropped) = (0, 0);
        // Rows by `dedup::copy_key`, with the file that first gave each: a row another home
        // gave already (a home given twice, a file copied onto two machines) is not repeated.
        let mut given: HashMap<u64, usize> = HashMap::new();
        for (index, rows) in held {
            let secondary = self.files[index].kind.secondary;
            let total = rows.len() as u64;
            let rows: Vec<HeldRow> = rows.into_iter().filter(|_| !secondary || keep.next().unwrap_or(true)).collect();
            let file_dropped = total - rows.len() as u64;
            let before = self.tally.rows;
            let copies = self.give_held_file(index, rows, &mut given, reader, sink);
            let file = &mut self.files[index];
            file.rows = self.tally.rows - before;
            file.rows_deduplicated = file_dropped + copies;
            if secondary {
                kept += file.rows;
                dropped += file_dropped;
            }
        }
        self.outputs(kept, dropped)
    }

    /// Rows at their file's modification time get it (known only now, in a browser).
    fn stamp_file_times(&self, held: &mut BTreeMap<usize, Vec<HeldRow>>) {
        for (&index, rows) in held.iter_mut() {
            let stamp = mtime_text(self.files[index].modified_ms);
            for row in rows.iter_mut() {
                if let HeldRow::Row(row) = row
                    && row.at_file_time
                {
                    row.timestamp_utc.clone_from(&stamp);
                }
            }
        }
    }

    /// Whether to keep each secondary held row, in order: not when a primary row (an event
    /// log's, or a primary file's) says the same.
    fn secondary_to_keep(&mut self, held: &BTreeMap<usize, Vec<HeldRow>>) -> Vec<bool> {
        let mut primary = std::mem::take(&mut self.tally.keys);
        let mut candidates = Vec::new();
        for (&index, rows) in held {
            for row in rows {
                match row {
                    _ if self.files[index].kind.secondary => candidates.push(dedup::Candidate::of_held(row)),
                    HeldRow::Row(row) if dedup::has_secondary_copies(row.turn_type, &row.text) => {
                        primary.add(&row.session_id, row.turn_type, TextKey::of(&row.text), row.millis())
                    }
                    _ => {}
                }
            }
        }
        dedup::keep_secondary(primary, &candidates, dedup::SECONDARY_TOLERANCE_MS)
    }

    /// Gives held file `index`'s rows (its store's turns read again whole), each with its
    /// session's project and branch where it names none (`fill_from_session`), but those
    /// another home's file gave already. Returns how many were left out so.
    fn give_held_file(
        &mut self,
        index: usize,
        rows: Vec<HeldRow>,
        given: &mut HashMap<u64, usize>,
        reader: &mut dyn FileReader,
        sink: &mut dyn RowSink,
    ) -> u64 {
        let turns = if rows.iter().any(|row| matches!(row, HeldRow::Turn(_))) {
            self.reopen_store(index, reader)
        } else {
            None
        };
        let source = self.files[index].path.clone();
        let agent = self.files[index].source().agent();
        let home = self.files[index].home;
        let several_homes = self.homes.len() > 1;
        let (mut copies, mut copy_of) = (0, None);
        for row in rows {
            let mut row = match row {
                HeldRow::Row(row) => row,
                HeldRow::Turn(turn) => match turns.as_ref().map(|reader| reader.read(&turn)) {
                    Some(Ok(row)) => row,
                    Some(Err(message)) => {
                        self.fail(index, DiagnosticKind::TurnsUnreadable, message);
                        continue;
                    }
                    None => continue,
                },
            };
            let client_name = self.fill_from_session(&mut row);
            let row = Row {
                agent,
                timestamp_utc: row.timestamp_utc.as_str().into(),
                session_id: &row.session_id,
                project_path: &row.project_path,
                git_branch: &row.git_branch,
                client_name: &client_name,
                model: &row.model,
                tool_name: &row.tool_name,
                tool_use_id: &row.tool_use_id,
                turn_type: row.turn_type,
                text: row.text.as_str().into(),
                source: &source,
                source_line: row.source_line,
                mark: row.mark,
                locator: None,
            };
            let first = if several_homes {
                *given.entry(dedup::copy_key(&row, TextKey::of(&row.text))).or_insert(index)
            } else {
                index
            };
            if self.files[first].home != home {
                copies += 1;
                copy_of.get_or_insert(first);
                continue;
            }
            self.tally.observe(&row);
            sink.push(&crate::scrub::row(&row, sink.text_kept(&row)));
        }
        let days = std::mem::take(&mut self.tally.row_days);
        let far_days = days.implausible(self.options.today, home, &source);
        self.diagnostics.extend(far_days);
        if let Some(first) = copy_of {
            let (rows, label) = (counted(copies, "row", "rows"), self.file_label(first));
            let message = format!("{rows} the same as in {label}, not repeated");
            self.warn(index, DiagnosticKind::Duplicate, message);
        }
        copies
    }

    /// A row's project and branch, where it names none, from its session; returns the client
    /// the session was run from, as its rows show it (a held row names none of its own).
    fn fill_from_session(&self, row: &mut PendingRow) -> String {
        let Some(facts) = self.sessions.get(&row.session_id).filter(|_| !row.session_id.is_empty()) else {
            return String::new();
        };
        if row.project_path.is_empty() {
            row.project_path = facts.project().to_string();
        }
        if row.git_branch.is_empty() {
            row.git_branch = facts.branch().to_string();
        }
        facts.client_shown()
    }

    /// The store of held file `index`, opened again to read its kept turns whole.
    fn reopen_store(&mut self, index: usize, reader: &mut dyn FileReader) -> Option<TurnReader> {
        let file = &self.files[index];
        let (root, home) = (file.root, file.home);
        let find = |path: &str| self.file_index(home, path);
        let support = file.source().store();
        let main_path = file.path.trim_end_matches("-wal").to_string();
        let (main, wal) = (find(&main_path), find(&format!("{main_path}-wal")));
        let mut files = StoreOnDisk {
            reader,
            root,
            main: main.map(|at| (self.files[at].listed_path.clone(), self.files[at].size)),
            wal: wal.map(|at| self.files[at].listed_path.clone()),
            scanned_wal: None,
        };
        let reopened =
            support.ok_or("its source has no stores".to_string()).and_then(|support| (support.reopen)(&mut files));
        match reopened {
            Ok(turns) => Some(turns),
            Err(message) => {
                self.fail(index, DiagnosticKind::TurnsUnreadable, format!("reading kept turns again: {message}"));
                None
            }
        }
    }

    fn outputs(mut self, secondary_kept: u64, secondary_dropped: u64) -> Outputs {
        for (session, counts) in std::mem::take(&mut self.tally.sessions) {
            if let Some(facts) = self.sessions.get_mut(&session) {
                facts.counts.add(&counts);
            }
        }
        let mut log_problems = Vec::new();
        let usage = self.finish_usage(&mut log_problems);
        for (index, problems) in log_problems {
            let file = &self.files[index];
            let placed = problems.into_iter().map(|problem| problem.diagnostic(file.home, &file.path, None));
            self.diagnostics.extend(placed.collect::<Vec<_>>());
        }
        let records: BTreeMap<String, SessionRecord> = self
            .sessions
            .iter()
            .map(|(id, facts)| {
                let mut record = SessionRecord::new(facts, id);
                record.homes = facts.homes.iter().map(|&home| self.homes[home].label.clone()).collect();
                record.usage = usage.ledgers.get(id).map(|ledger| summary::session_usage(ledger, &usage.rates));
                // A session whose counters name requests or tokens had a model answer, whatever
                // its log says.
                if record.usage.as_ref().is_some_and(|usage| usage.tokens.requests > 0 || usage.tokens.total > 0) {
                    record.models_never_used.clear();
                }
                record.scrub();
                (id.clone(), record)
            })
            .collect();
        for record in records.values() {
            self.say_far_session_times(record);
        }
        let homes = self.homes.iter().map(|home| (home.label.as_str(), &home.facts));
        let modified =
            |home: usize, path: &str| mtime_text(self.file_index(home, path).and_then(|at| self.files[at].modified_ms));
        let built_in = |agent: &str| {
            let source = crate::sources::SOURCES.iter().find(|source| source.agent() == agent);
            source.map_or(&[][..], |source| source.built_in_mcp_servers())
        };
        let mut inventory = inventory::build(homes, &self.sessions, &records, &modified, &built_in);
        inventory.scrub();
        let mut report = self.report(secondary_kept, secondary_dropped);
        // A message can quote what it read.
        for diagnostic in &mut report.diagnostics {
            crate::scrub::scrub_in_place(&mut diagnostic.message);
        }
        Outputs { sessions: records.into_values().collect(), inventory, report, usage }
    }

    /// A session created or updated on a day no Copilot session can be on (`usage::plausible`)
    /// is said of its log, else of the first file that names it: those times are claimed by
    /// its files, not dated lines, which the rows' own diagnostics name.
    fn say_far_session_times(&mut self, record: &SessionRecord) {
        for (field, time) in [("created_at", &record.created_at), ("updated_at", &record.updated_at)] {
            let Some(day) = time.get(..10).and_then(crate::time::parse_day) else { continue };
            let Some(why) = plausible::implausible(day, self.options.today) else { continue };
            let id = Some(record.session_id.as_str());
            let of_session = |at: &usize| self.files[*at].session_id.as_deref() == id;
            let log = (0..self.files.len()).filter(of_session).find(|at| self.files[*at].kind.role == Role::EventLog);
            let file = log.or_else(|| (0..self.files.len()).find(of_session));
            let (home, file) = match file {
                Some(at) => (Some(self.files[at].home), self.files[at].path.clone()),
                None => (None, record.session_id.clone()),
            };
            self.diagnostics.push(Diagnostic {
                home,
                file,
                line: None,
                kind: DiagnosticKind::ImplausibleTime,
                message: format!(
                    "session {} has its {field} {time}, {why}: no Copilot session can be on that day. Shown as written",
                    record.session_id
                ),
            });
        }
    }

    /// Closes every session's ledger: the store's per-call rows stand in for a log's missing
    /// records, and recover the usage of sessions whose log is gone. The usage on a day it
    /// cannot be on is said of the log's first counter line on that day (`log_problems`, whose
    /// places a usage-only run turns into line numbers), or of the session.
    pub(super) fn finish_usage(&mut self, log_problems: &mut Vec<(usize, Vec<CounterProblem>)>) -> UsageData {
        let mut store_ledgers = std::mem::take(&mut self.store_ledgers);
        let mut ledgers = BTreeMap::new();
        let mut unknown = Vec::new();
        for (id, facts) in &mut self.sessions {
            let log_exists = facts.has_log;
            let store = store_ledgers.remove(id.as_str());
            if !log_exists && store.is_none() {
                continue;
            }
            let mut ledger = facts.take_usage().unwrap_or_else(|| {
                let mut recovered = SessionLedger::new(self.options.zone);
                recovered.home = facts.homes.first().copied().unwrap_or_default();
                recovered
            });
            if let Some(store) = &store {
                ledger.add_store_calls(store);
            }
            ledger.finish(log_exists);
            let far_days = ledger.flag_implausible_days(self.options.today);
            let mut problems = Vec::new();
            for (day, why, tokens) in far_days {
                let message = format!(
                    "usage dated {day} ({}, {} tokens), {why}: no Copilot usage can be on that day. \
                     Shown on it and flagged {}, left out of the totals, the billing month and its projection",
                    counted(tokens.requests, "request", "requests"),
                    tokens.total(),
                    plausible::IMPLAUSIBLE_DATE
                );
                let kind = DiagnosticKind::ImplausibleDate;
                match (ledger.file, ledger.first_line_on(day)) {
                    (Some(_), Some(at)) => problems.push(CounterProblem { at, kind, message }),
                    (file, _) => {
                        let (home, file) = file.map_or_else(
                            || (ledger.home, id.clone()),
                            |file| (self.files[file].home, self.files[file].path.clone()),
                        );
                        self.diagnostics.push(Diagnostic { home: Some(home), file, line: None, kind, message });
                    }
                }
            }
            if let (Some(file), false) = (ledger.file, problems.is_empty()) {
                log_problems.push((file, problems));
            }
            ledger.agent = facts.agent;
            // `--by project` keeps the same path on two machines apart.
            ledger.project = match facts.remote() {
                "" => facts.project().to_string(),
                remote => format!("{remote}:{}", facts.project()),
            };
            // Scrubbed as the session's record has it (`SessionRecord::scrub`).
            ledger.client = facts.client_name.best().to_string();
            crate::scrub::scrub_in_place(&mut ledger.client);
            if log_exists && ledger.checkpoints == 0 && ledger.entries.is_empty() {
                unknown.push(id.clone());
            }
            ledgers.insert(id.clone(), ledger);
        }
        let home_labels = self.homes.iter().map(|home| home.label.clone()).collect();
        UsageData { ledgers, home_labels, unknown, rates: self.options.rates.clone() }
    }

    /// `finish_usage` of one session alone (a watch's recount), by the very steps of a whole
    /// run: the other sessions are set aside meanwhile. Gives its ledger, and whether it is one
    /// of `UsageData::unknown`.
    #[cfg(feature = "cli")]
    pub(super) fn finish_session_usage(
        &mut self,
        id: &str,
        store: Option<SessionLedger>,
    ) -> (Option<SessionLedger>, bool) {
        let Some(facts) = self.sessions.remove(id) else { return (None, false) };
        let others = std::mem::replace(&mut self.sessions, BTreeMap::from([(id.to_string(), facts)]));
        self.store_ledgers = store.map(|store| (id.to_string(), store)).into_iter().collect();
        let mut usage = self.finish_usage(&mut Vec::new());
        let alone = std::mem::replace(&mut self.sessions, others);
        self.sessions.extend(alone);
        (usage.ledgers.remove(id), !usage.unknown.is_empty())
    }
}

impl State {
    fn report(mut self, secondary_rows_kept: u64, secondary_rows_deduplicated: u64) -> Report {
        let mut diagnostics = std::mem::take(&mut self.diagnostics);
        for root in &self.roots {
            diagnostics.extend(root.problems.iter().map(|problem| Diagnostic {
                home: None,
                file: problem.path.clone(),
                line: None,
                kind: DiagnosticKind::Listing,
                message: problem.message.clone(),
            }));
        }
        order::sort_by(&mut diagnostics, |a, b| (a.home, &a.file, a.line).cmp(&(b.home, &b.file, b.line)));
        let mut totals = Totals {
            files_found: self.files.len() as u64 + self.excluded.values().map(|(files, _)| files).sum::<u64>(),
            rows: self.tally.rows,
            secondary_rows_kept,
            secondary_rows_deduplicated,
            sessions: self.sessions.len() as u64,
            ..Totals::default()
        };
        for turn_type in TurnType::ALL {
            totals
                .rows_by_turn_type
                .insert(turn_type.as_str().to_string(), self.tally.by_turn_type[turn_type as usize]);
        }
        for file in &self.files {
            match file.status {
                FileStatus::Read => totals.files_read += 1,
                FileStatus::Error => totals.files_with_errors += 1,
                _ => {}
            }
            if let Some(lines) = &file.lines {
                totals.event_lines += lines.lines;
                totals.event_lines_with_rows += lines.with_rows;
                totals.event_lines_skipped += lines.skipped_by_rule.values().sum::<u64>();
                totals.event_lines_unknown_type += lines.unknown_types.values().sum::<u64>();
                totals.bad_lines += lines.bad_lines;
            }
        }
        let mut skipped_keys: Vec<ReportSkippedKey> = self
            .homes
            .iter()
            .enumerate()
            .flat_map(|(home, facts)| {
                facts.facts.values().flat_map(|facts| &facts.skipped_keys).map(move |key| ReportSkippedKey {
                    home,
                    file: key.file.clone(),
                    key: key.key.clone(),
                    values: key.values,
                })
            })
            .collect();
        order::sort(&mut skipped_keys);
        Report {
            roots: self
                .roots
                .into_iter()
                .map(|root| RootReport {
                    label: root.label,
                    files_listed: root.files_listed,
                    outside_files: root.outside_files,
                    outside_bytes: root.outside_bytes,
                    problems: root.problems,
                })
                .collect(),
            homes: self
                .homes
                .into_iter()
                .zip(&self.places.rebases)
                .map(|(home, rebase)| HomeReport {
                    root: home.root,
                    label: home.label,
                    path: rebase.path().to_string(),
                    layout: rebase.layout_name(),
                })
                .collect(),
            files: self
                .files
                .into_iter()
                .map(|file| FileReport {
                    home: file.home,
                    path: file.path,
                    kind: file.kind,
                    status: file.status,
                    size: file.size,
                    message: file.message,
                    rows: file.rows,
                    rows_deduplicated: file.rows_deduplicated,
                    lines: file.lines,
                    wal: file.wal,
                    tables: file.tables,
                })
                .collect(),
            excluded_trees: self
                .excluded
                .into_iter()
                .map(|((home, tree), (files, bytes))| ExcludedTree { home, tree, files, bytes })
                .collect(),
            skipped_keys,
            diagnostics,
            format_drift: self.format_drift.into_iter().map(FormatDrift::finish).collect(),
            totals,
        }
    }
}
