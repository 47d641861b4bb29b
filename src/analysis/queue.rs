//! Step 3 in any order: which event logs may be parsed now, and the parsed logs taken back in
//! any order and added to the analysis in task order, their rows handed back in that order.
//! A later copy of a session's log (`Copies::Later`) is parsed only once the copies before it
//! are added, since its rows are checked against theirs.
//!
//! The same queue serves a usage-only run ([`UsageRun`]), whose scans are added in task order
//! too: what the logs go to is a [`TakesLogs`].
//!
//! A caller either asks for the next log to parse ([`LogQueue::next_job`]: the native CLI's
//! threads) or hands logs in as they come ([`LogQueue::give`]: the page, which reads a zip's
//! logs in the archive's order); a log given too early waits in the queue with its input `G`.

use std::collections::HashMap;

use super::Options;
use super::logs::{LogTask, Parsing, UsageScan};
use super::tally::{Copies, Tally, TallySink};
use super::usage_only::UsageRun;
use crate::input::FileReader;
use crate::model::RowSink;
use crate::sources::log::LogOutcome;

/// What the logs of a queue are added to, in task order.
pub trait TakesLogs {
    /// What a log's work starts from (a whole analysis's tally of its rows).
    type Start;
    /// What a log's work gives back.
    type Parsed;
    fn log_tasks(&self) -> Vec<LogTask>;
    fn start(&mut self, task: &LogTask) -> Self::Start;
    fn add(&mut self, task: &LogTask, parsed: Self::Parsed);
}

impl TakesLogs for Parsing {
    type Start = Tally;
    type Parsed = (LogOutcome, Tally);

    fn log_tasks(&self) -> Vec<LogTask> {
        self.state.log_tasks()
    }

    fn start(&mut self, task: &LogTask) -> Tally {
        self.tally_for(task)
    }

    fn add(&mut self, task: &LogTask, (outcome, tally): (LogOutcome, Tally)) {
        self.add_log(task, outcome, tally);
    }
}

impl TakesLogs for UsageRun {
    type Start = ();
    type Parsed = UsageScan;

    fn log_tasks(&self) -> Vec<LogTask> {
        UsageRun::log_tasks(self)
    }

    fn start(&mut self, _: &LogTask) {}

    fn add(&mut self, task: &LogTask, scanned: UsageScan) {
        self.add_scan(task, scanned);
    }
}

/// The event logs of a [`TakesLogs`] (a [`Parsing`] unless said), each parsed once, in any
/// order; `R` is what the caller keeps of a log's rows until they may go out, `G` what it
/// hands in with a log (`give`).
pub struct LogQueue<R, G = (), T: TakesLogs = Parsing> {
    tasks: Vec<LogTask>,
    /// Of a later copy, the copy of its session just before it.
    previous_copy: Vec<Option<usize>>,
    slots: Vec<Slot<R, G, T::Parsed>>,
    /// The logs before this one are added (or will never come).
    added: usize,
    /// No log before this one is still to hand out.
    first_open: usize,
    /// Logs given that wait for the copies before them.
    waiting: Vec<usize>,
}

enum Slot<R, G, D> {
    /// Neither handed out nor given.
    Open,
    /// Given, waiting for the copies before it.
    Waiting(G),
    Parsing,
    Parsed(Box<D>, R),
    /// Added, or never to come.
    Done,
}

/// A log that may be parsed now, with what its work starts from (the tally its rows go through).
pub struct LogJob<T: TakesLogs = Parsing> {
    pub(crate) index: usize,
    pub task: LogTask,
    pub(crate) start: T::Start,
}

impl<T: TakesLogs<Start: std::fmt::Debug>> std::fmt::Debug for LogJob<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogJob")
            .field("index", &self.index)
            .field("task", &self.task)
            .field("start", &self.start)
            .finish()
    }
}

/// A log parsed, to take back (`LogQueue::take_back`).
pub struct ParsedLog<T: TakesLogs = Parsing> {
    pub(crate) index: usize,
    pub(crate) parsed: T::Parsed,
}

/// What taking a log back released: the rows of the logs added now, in task order, and the
/// logs given that may be parsed now.
pub struct Released<R, G, T: TakesLogs = Parsing> {
    pub rows: Vec<R>,
    pub ready: Vec<(LogJob<T>, G)>,
}

impl LogJob {
    /// Opens and parses the log; its rows, tallied and scrubbed, go to `rows`.
    pub fn parse(mut self, reader: &mut dyn FileReader, options: &Options, rows: &mut dyn RowSink) -> ParsedLog {
        let outcome = self.task.parse(reader, options, &mut TallySink::new(&mut self.start, rows));
        ParsedLog { index: self.index, parsed: (outcome, self.start) }
    }

    /// Parses the log from its bytes (read by someone else: the page).
    pub fn parse_bytes(mut self, bytes: &[u8], options: &Options, rows: &mut dyn RowSink) -> ParsedLog {
        let outcome = self.task.parse_bytes(bytes, options, &mut TallySink::new(&mut self.start, rows));
        ParsedLog { index: self.index, parsed: (outcome, self.start) }
    }
}

impl ParsedLog<UsageRun> {
    pub fn scan(&self) -> &UsageScan {
        &self.parsed
    }

    pub fn into_scan(self) -> UsageScan {
        self.parsed
    }
}

impl LogJob<UsageRun> {
    /// A log's scan outside any queue: a live run's recount (`LiveUsage::recount`), which adds
    /// a session's logs in task order itself.
    pub fn alone(task: LogTask) -> Self {
        LogJob { index: 0, task, start: () }
    }

    /// Reads only the log's counter lines.
    pub fn scan_usage(self, reader: &mut dyn FileReader, options: &Options) -> ParsedLog<UsageRun> {
        ParsedLog { index: self.index, parsed: self.task.scan_usage(reader, options) }
    }

    /// The log's scan as an earlier run made it, the log being as it was then.
    pub fn scanned_before(self, scan: UsageScan) -> ParsedLog<UsageRun> {
        ParsedLog { index: self.index, parsed: scan }
    }
}

impl<R, G, T: TakesLogs> LogQueue<R, G, T> {
    /// The logs of step 3, none parsed yet.
    pub fn new(parsing: &T) -> LogQueue<R, G, T> {
        let tasks = parsing.log_tasks();
        let mut last_copy: HashMap<usize, usize> = HashMap::new();
        let previous_copy = tasks
            .iter()
            .enumerate()
            .map(|(index, task)| match task.copies {
                Copies::Only | Copies::RowsHeldBy { .. } => None,
                Copies::First => last_copy.insert(task.file, index),
                Copies::Later { first } => last_copy.insert(first, index),
            })
            .collect();
        let slots = tasks.iter().map(|_| Slot::Open).collect();
        LogQueue { tasks, previous_copy, slots, added: 0, first_open: 0, waiting: Vec::new() }
    }

    /// The logs, in task order: the page names them by their place here.
    pub fn tasks(&self) -> &[LogTask] {
        &self.tasks
    }

    /// Whether every log is added (or will never come).
    pub fn is_done(&self) -> bool {
        self.added == self.tasks.len()
    }

    /// The first log not handed out that may be parsed now, among the `ahead` logs from the
    /// first not added (which bounds what waits to be added).
    pub fn next_job(&mut self, parsing: &mut T, ahead: usize) -> Option<LogJob<T>> {
        while self.slots.get(self.first_open).is_some_and(|slot| !matches!(slot, Slot::Open)) {
            self.first_open += 1;
        }
        let end = self.added.saturating_add(ahead).min(self.tasks.len());
        let index =
            (self.first_open..end).find(|&index| matches!(self.slots[index], Slot::Open) && self.may_parse(index))?;
        Some(self.hand_out(parsing, index))
    }

    /// Log `index` handed in with `input`: returned when it may be parsed now, else kept until
    /// the copies before it are added (`Released::ready`).
    pub fn give(&mut self, parsing: &mut T, index: usize, input: G) -> Result<Option<(LogJob<T>, G)>, String> {
        match self.slots.get(index) {
            None => return Err(format!("there is no log {index}")),
            Some(Slot::Open) => {}
            Some(_) => return Err(format!("log {index} is parsed already")),
        }
        if self.may_parse(index) {
            return Ok(Some((self.hand_out(parsing, index), input)));
        }
        self.slots[index] = Slot::Waiting(input);
        self.waiting.push(index);
        Ok(None)
    }

    /// Takes a parsed log back, with what the caller keeps of its rows: the logs now in turn
    /// are added to the analysis.
    pub fn take_back(&mut self, parsing: &mut T, log: ParsedLog<T>, rows: R) -> Released<R, G, T> {
        let ParsedLog { index, parsed } = log;
        debug_assert!(matches!(self.slots[index], Slot::Parsing), "log {index} taken back but not handed out");
        self.slots[index] = Slot::Parsed(Box::new(parsed), rows);
        self.release(parsing)
    }

    /// The logs not given will never come (a page that stopped early): the logs after them are
    /// added as they are parsed.
    pub fn skip_missing(&mut self, parsing: &mut T) -> Released<R, G, T> {
        for slot in &mut self.slots {
            if matches!(slot, Slot::Open) {
                *slot = Slot::Done;
            }
        }
        self.release(parsing)
    }

    /// Whether log `index` may be parsed now: a later copy once the copy before it is added.
    fn may_parse(&self, index: usize) -> bool {
        self.previous_copy[index].is_none_or(|previous| previous < self.added)
    }

    fn hand_out(&mut self, parsing: &mut T, index: usize) -> LogJob<T> {
        self.slots[index] = Slot::Parsing;
        let task = self.tasks[index].clone();
        let start = parsing.start(&task);
        LogJob { index, task, start }
    }

    /// Adds the parsed logs now in turn, and hands out the given logs that may now be parsed.
    fn release(&mut self, parsing: &mut T) -> Released<R, G, T> {
        let mut released = Released { rows: Vec::new(), ready: Vec::new() };
        while let Some(slot) = self.slots.get_mut(self.added) {
            match std::mem::replace(slot, Slot::Done) {
                Slot::Parsed(parsed, rows) => {
                    parsing.add(&self.tasks[self.added], *parsed);
                    released.rows.push(rows);
                }
                Slot::Done => {}
                pending => {
                    *slot = pending;
                    break;
                }
            }
            self.added += 1;
        }
        for index in std::mem::take(&mut self.waiting) {
            if !self.may_parse(index) {
                self.waiting.push(index);
                continue;
            }
            if let Slot::Waiting(input) = std::mem::replace(&mut self.slots[index], Slot::Open) {
                released.ready.push((self.hand_out(parsing, index), input));
            }
        }
        released
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Planned;
    use crate::input::memory::{MemoryRoot, MemoryRoots};
    use crate::model::OwnedRow;

    const LOG: &str = ".copilot/session-state/00000001-0000-4000-8000-000000000000/events.jsonl";

    fn said(text: &str) -> String {
        let line = serde_json::json!({"type": "user.message", "data": {"content": text}, "timestamp": "2026-10-01T09:00:00.000Z"});
        format!("{line}\n")
    }

    fn texts(rows: &[OwnedRow]) -> Vec<&str> {
        rows.iter().map(|row| row.text.as_str()).collect()
    }

    #[test]
    fn a_later_copy_waits_for_the_copies_before_it_and_each_log_is_given_once() {
        // The same session in two homes: the second copy has one line more.
        let (mut first, mut later) = (MemoryRoot::new("a"), MemoryRoot::new("b"));
        first.insert(LOG, said("hello"), Some(0));
        later.insert(LOG, said("hello") + &said("again"), Some(0));
        let mut reader = MemoryRoots(vec![first, later]);
        let planned = Planned::new(reader.listings(), Default::default()).unwrap();
        let mut parsing = planned.read_metadata(&mut reader);
        let mut queue = LogQueue::<Vec<OwnedRow>, &str>::new(&parsing);
        assert_eq!(
            queue.tasks().iter().map(|task| task.copies).collect::<Vec<_>>(),
            [Copies::First, Copies::Later { first: queue.tasks()[0].file }]
        );

        assert!(queue.give(&mut parsing, 1, "later").unwrap().is_none(), "the later copy waits");
        let (job, given) = queue.give(&mut parsing, 0, "first").unwrap().expect("the first copy may be parsed");
        assert_eq!(given, "first");
        assert_eq!(queue.give(&mut parsing, 0, "again").unwrap_err(), "log 0 is parsed already");
        assert_eq!(queue.give(&mut parsing, 2, "none").unwrap_err(), "there is no log 2");

        let mut rows = Vec::new();
        let parsed = job.parse(&mut reader, &Default::default(), &mut rows);
        let released = queue.take_back(&mut parsing, parsed, rows);
        assert_eq!(released.rows.iter().map(|rows| texts(rows)).collect::<Vec<_>>(), [["hello"]]);
        let mut ready = released.ready;
        assert_eq!(ready.len(), 1, "the later copy is released");
        let (job, given) = ready.pop().unwrap();
        assert_eq!(given, "later");
        let mut rows = Vec::new();
        let parsed = job.parse(&mut reader, &Default::default(), &mut rows);
        let released = queue.take_back(&mut parsing, parsed, rows);
        assert_eq!(texts(&released.rows[0]), ["again"], "only the row the first copy lacked");
        assert!(queue.is_done());
    }
}
