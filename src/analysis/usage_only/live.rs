//! A usage-only run kept for a watch (`LiveUsage`): the page never watches, so this is the
//! command line's alone.

use std::collections::{BTreeMap, BTreeSet};

use super::{UsageRun, has_calls};
use crate::analysis::logs::{LogTask, UsageScan};
use crate::analysis::stores::StoreJob;
use crate::analysis::{Options, UsageData};
use crate::facts::files::Role;
use crate::input::FileReader;
use crate::sources::log::ScanStats;
use crate::sources::store::wal::WalIndex;
use crate::usage::ledger::SessionLedger;

impl UsageRun {
    /// `finish`, the run kept to count sessions again as their logs grow (`LiveUsage`).
    pub fn finish_live(mut self, reader: &mut dyn FileReader) -> LiveUsage {
        let store_ledgers = self.state.store_ledgers.clone();
        let usage = self.finish_in_place(reader).usage;
        let mut logs: BTreeMap<String, Vec<LogTask>> = BTreeMap::new();
        for task in self.log_tasks() {
            logs.entry(task.session_id.clone()).or_default().push(task);
        }
        let stores = self.stores_read.take().unwrap_or_default();
        let stores = stores.into_iter().map(|(job, index)| LiveStore { job, index, last_row: None }).collect();
        LiveUsage { run: self, store_ledgers, logs, stores, usage }
    }
}

/// A usage-only run kept after it finished (`UsageRun::finish_live`), for a watch: when only
/// files it read were written to, their sessions are counted again (`recount`) and the other
/// sessions' ledgers stand, and its stores' new rows are read (`read_stores_on`), so an update
/// costs what was written, not the homes. Each recounted session goes through the same steps
/// as in a whole run: its logs' scans added in task order, the stores' rows it had, its ledger
/// closed.
pub struct LiveUsage {
    run: UsageRun,
    /// The stores' per-call rows of the sessions whose logs had no calls.
    store_ledgers: BTreeMap<String, SessionLedger>,
    /// Each session's logs, in task order.
    logs: BTreeMap<String, Vec<LogTask>>,
    /// The stores read as their files were, to read on what is written to them.
    stores: Vec<LiveStore>,
    usage: UsageData,
}

/// A store as a watch reads it on: its log's scan as far as it was last read, and the last
/// per-call row (read at the first read on, with the scan the run read the store with).
struct LiveStore {
    job: StoreJob,
    index: WalIndex,
    last_row: Option<i64>,
}

/// What a file written since the last update is to a `LiveUsage`.
#[derive(Debug, PartialEq, Eq)]
pub enum Written<'a> {
    /// A log the run read: its session is counted again (`recount`).
    Log(&'a str),
    /// A store's write-ahead log, the store read as it was: read on (`read_stores_on`).
    StoreLog(usize),
    /// A file the run does not read (a store's shared-memory index, a process log): it
    /// changes nothing.
    Unread,
    /// A file the run read that it cannot read on: a whole run is needed.
    Other,
}

impl LiveUsage {
    pub fn usage(&self) -> &UsageData {
        &self.usage
    }

    pub fn options(&self) -> &Options {
        self.run.options()
    }

    /// What the file at `path` in the root of that index is to the run.
    pub fn written(&self, root: usize, path: &str) -> Written<'_> {
        let is_it = |task: &LogTask| task.root == root && task.listed_path == path;
        if let Some((id, _)) = self.logs.iter().find(|(_, tasks)| tasks.iter().any(is_it)) {
            return Written::Log(id);
        }
        if let Some(at) = self.stores.iter().position(|store| store.job.wal_file() == Some((root, path))) {
            return Written::StoreLog(at);
        }
        let state = &self.run.state;
        let planned = state.places.find(root, path).and_then(|(home, path)| state.file_index(home, &path));
        match planned.map(|at| state.files[at].kind.role) {
            Some(Role::EventLog | Role::Store | Role::StoreWal) => Written::Other,
            _ => Written::Unread,
        }
    }

    /// Reads on the `stores` (`Written::StoreLog`) over what was written to them since: the
    /// per-call rows added must all be of sessions whose logs count their calls, whose counts
    /// the rows do not change (the stores' rows stand in for a session's only when its logs
    /// have none). An error says why a whole run is needed instead: a row of another session,
    /// or a log that cannot be read on (started again, say), and leaves this run unfit for
    /// another read on. Rows are found after the last one read, since Copilot CLI only adds
    /// rows (their ids grow; it changes and deletes none): a row changed in place would be seen
    /// by the next whole run.
    pub fn read_stores_on(&mut self, stores: &BTreeSet<usize>, reader: &mut dyn FileReader) -> Result<(), String> {
        for &at in stores {
            let store = self.stores.get_mut(at).ok_or("no such store")?;
            // The last row the run counted, in the store as the run read it.
            let last_row = match store.last_row {
                Some(row) => row,
                None => store.job.usage_added(reader, store.index.clone(), None)?.last_row,
            };
            // The same log (its header, else an error, and the row above is not used), grown.
            store.job.scan_wal_on(reader, &mut store.index)?;
            let added = store.job.usage_added(reader, store.index.clone(), Some(last_row))?;
            store.last_row = Some(added.last_row);
            if let Some(other) = added.sessions.iter().find(|id| !self.run.with_calls.contains(*id)) {
                return Err(format!("the store has a call of session {other}, whose logs have none"));
            }
        }
        Ok(())
    }

    /// Counts the `sessions` again, each log scanned by `scan` (through the caller's cache). An
    /// error says why a whole run is needed instead, and leaves this run unfit for another
    /// recount: a session that is not the run's, or whose logs now have calls where they had
    /// none (the stores were read for it) or the other way round.
    pub fn recount(
        &mut self,
        sessions: &BTreeSet<String>,
        mut scan: impl FnMut(&LogTask) -> UsageScan,
    ) -> Result<(), String> {
        for id in sessions {
            let tasks = self.logs.get(id).ok_or_else(|| format!("session {id} was not in the run"))?;
            // Its logs' usage was taken when it was last closed.
            for task in tasks {
                let scanned = scan(task);
                self.run.add_scan(task, scanned);
            }
            let state = &mut self.run.state;
            let had_calls = self.run.with_calls.contains(id);
            if state.sessions.get(id).is_some_and(has_calls) != had_calls {
                return Err(format!("session {id}'s logs now count its calls apart from the stores"));
            }
            let store = self.store_ledgers.get(id).cloned();
            let (finished, no_figure) = state.finish_session_usage(id, store);
            // Its problems were said by the whole run; a watch shows none.
            state.diagnostics.clear();
            self.usage.unknown.retain(|unknown| unknown != id);
            if no_figure {
                self.usage.unknown.push(id.clone());
            }
            match finished {
                Some(ledger) => self.usage.ledgers.insert(id.clone(), ledger),
                None => self.usage.ledgers.remove(id),
            };
        }
        self.run.line_problems.clear();
        self.run.stats = ScanStats::default();
        Ok(())
    }
}
