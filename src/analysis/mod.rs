//! The whole analysis, as steps whose order the types hold:
//!
//! 1. **plan** ([`Planned::new`]): every listed file classified by its source; nothing read.
//! 2. **stores and metadata** ([`Planned::read_stores`], [`Planned::read_metadata`]): every file
//!    but the event logs and those step 4 reads, giving the joins the logs need (a session's
//!    project before its log names one) and the rows of those files, held until step 4. Only
//!    this step makes a [`Parsing`], so no log can be parsed before the facts its rows fall
//!    back on are known.
//! 3. **logs** ([`LogQueue`]): the event logs, parsed in any order (on several threads, or as
//!    the page hands them in) and taken back in any order; the queue adds them to the analysis
//!    in task order and hands their rows back in that order, a later copy of a session's log
//!    parsed only once the copies before it are added.
//! 4. **joins and outputs** ([`Parsing::finish`]): the files read after the logs are imported
//!    (`Role::LateMetadata`: nothing a log's rows fall back on, so a browser reads them while
//!    the logs are parsed); joins fill the held rows, secondary rows are deduplicated against
//!    everything primary, the rest go to the sink; then sessions, inventory, usage and report
//!    ([`Outputs`]).
//!
//! [`drive`] runs the steps in that order for `analyze()` and the native CLI (which parses the
//! logs on threads); the browser's engine, fed by the page's messages, holds the same step
//! values and can call only what the step it holds allows. A usage-only run
//! ([`usage_only`]) takes the plan and reads only what usage needs.
//!
//! Rows come out in this order: the event logs' rows, file by file in path order, then the
//! other files' rows in path order. Same input, same bytes out, whatever the listing order.

mod joins;
pub(crate) mod logs;
mod plan;
mod queue;
mod state;
pub(crate) mod stores;
pub(crate) mod tally;
pub mod usage_only;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

pub use logs::{LogInput, LogTask, Parsing, UsageScan};
pub use plan::{LateSizes, Planned};
pub use queue::{LogJob, LogQueue, ParsedLog, Released, TakesLogs};
pub use stores::{AsTheyAre, StoreJob, StoreReading};
pub use tally::Copies;
pub(crate) use tally::TallySink;

use crate::input::{FileReader, RootListing};
use crate::inventory::Inventory;
use crate::model::RowSink;
use crate::report::Report;
use crate::sessions::SessionRecord;
use crate::usage::ledger::SessionLedger;
use crate::usage::month::MonthCredits;
use crate::usage::rates::RateTable;
use crate::usage::summary::{self, DayRange, GroupBy, UsageTable};
use crate::usage::{Entries, Zone};

/// What an analysis can be asked to do differently.
#[derive(Clone, Debug)]
pub struct Options {
    /// Emit `thinking` rows (reasoning text), which are off by default.
    pub include_thinking: bool,
    /// The zone usage days are counted in (UTC by default).
    pub zone: Zone,
    pub rates: RateTable,
    /// Today (UTC) by the caller's clock: usage after tomorrow is flagged `implausible_date`
    /// (the core has no clock; none checks only the earliest day).
    pub today: Option<chrono::NaiveDate>,
}

impl Default for Options {
    fn default() -> Self {
        Options { include_thinking: false, zone: Zone::Utc, rates: RateTable::default_table(), today: None }
    }
}

/// Why an analysis could not start. Problems inside a root never stop it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalysisError {
    NoRoots,
    EmptyRoot(String),
    NoCopilotData(String),
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalysisError::NoRoots => {
                f.write_str("nothing to analyse: give a home folder, a .copilot folder or a zip of either")
            }
            AnalysisError::EmptyRoot(root) => write!(f, "{root}: the folder or archive is empty"),
            AnalysisError::NoCopilotData(root) => {
                write!(f, "{root}: no Copilot data here: {} (or a zip of any of them)", crate::sources::looked_for())
            }
        }
    }
}

impl std::error::Error for AnalysisError {}

/// The outputs besides the rows.
#[derive(Debug)]
pub struct Outputs {
    pub sessions: Vec<SessionRecord>,
    pub inventory: Inventory,
    pub report: Report,
    pub usage: UsageData,
}

/// Every session's finished usage ledger, to be grouped any way (`table`).
#[derive(Debug)]
pub struct UsageData {
    pub ledgers: BTreeMap<String, SessionLedger>,
    /// The homes' labels, by the analysis's index (`SessionLedger::home`).
    pub home_labels: Vec<String>,
    /// Sessions with a log but no figure at all: no checkpoint and no per-call record.
    pub unknown: Vec<String>,
    pub rates: RateTable,
}

impl UsageData {
    pub fn table(&self, by: GroupBy, range: DayRange) -> UsageTable {
        if matches!(by, GroupBy::Subagent | GroupBy::Purpose) {
            return summary::summarize_shares(self.ledgers.values(), &self.rates, by, range);
        }
        let parts = self.session_parts();
        summary::summarize(parts.iter().map(SessionPart::entries), &self.rates, by, range)
    }

    /// Each session's entries by the home whose copy holds their day
    /// (`SessionLedger::entries_by_home`): one part for most sessions.
    pub fn session_parts(&self) -> Vec<SessionPart<'_>> {
        let parts = self.ledgers.iter().flat_map(|(id, ledger)| {
            ledger.entries_by_home().into_iter().map(move |(home, entries)| SessionPart {
                id,
                ledger,
                home: self.home_labels.get(home).map_or("", String::as_str),
                entries,
            })
        });
        parts.collect()
    }

    /// The billing month holding `month` (any day of it), as of `today`, against `allowance`
    /// credits. Its days are the ledgers' days, so the run must count days in UTC.
    pub fn month(&self, month: chrono::NaiveDate, today: chrono::NaiveDate, allowance: Option<f64>) -> MonthCredits {
        crate::usage::month::month_credits(self.ledgers.values(), &self.rates, month, today, allowance)
    }
}

/// A session's entries counted in one home, with its label.
pub struct SessionPart<'a> {
    pub id: &'a str,
    pub ledger: &'a SessionLedger,
    pub home: &'a str,
    pub entries: Cow<'a, Entries>,
}

impl SessionPart<'_> {
    /// As `summary::summarize` takes it.
    pub fn entries(&self) -> summary::SessionEntries<'_> {
        summary::SessionEntries {
            id: self.id,
            agent: self.ledger.agent,
            home: self.home,
            project: &self.ledger.project,
            client: &self.ledger.client,
            entries: &self.entries,
        }
    }
}

/// Runs the steps in order: metadata, the logs (by `parse_logs`, through a `LogQueue`), then
/// joins and outputs.
pub fn drive<R: FileReader, S: RowSink, E>(
    planned: Planned,
    reader: &mut R,
    sink: &mut S,
    parse_logs: impl FnOnce(&mut Parsing, &mut R, &mut S) -> Result<(), E>,
) -> Result<Outputs, E> {
    let mut parsing = planned.read_metadata(reader);
    parse_logs(&mut parsing, reader, sink)?;
    Ok(parsing.finish(reader, sink))
}

/// The logs parsed one after the other on this thread. Each is taken back before the next is
/// asked for (one log ahead), so its rows go straight to the sink, in task order.
pub fn parse_logs_in_order(parsing: &mut Parsing, reader: &mut dyn FileReader, sink: &mut dyn RowSink) {
    let mut queue = LogQueue::<()>::new(parsing);
    while let Some(job) = queue.next_job(parsing, 1) {
        let parsed = job.parse(reader, parsing.options(), sink);
        queue.take_back(parsing, parsed, ());
    }
    debug_assert!(queue.is_done(), "every log is parsed");
}

/// Runs every step in order on one thread.
pub fn analyze(
    roots: Vec<RootListing>,
    reader: &mut dyn FileReader,
    options: Options,
    sink: &mut dyn RowSink,
) -> Result<Outputs, AnalysisError> {
    let planned = Planned::new(roots, options)?;
    let Ok(outputs) = drive(planned, &mut &mut *reader, &mut &mut *sink, |parsing, reader, sink| {
        parse_logs_in_order(parsing, *reader, *sink);
        Ok::<(), std::convert::Infallible>(())
    });
    Ok(outputs)
}
