//! Step 3 in any order: which event logs may be parsed now, and the parsed logs taken back in
//! any order and added to the analysis in task order, their rows handed back in that order.
//! A later copy of a session's log (`Copies::Later`) is parsed only once the copies before it
//! are added, since its rows are checked against theirs.
//!
//! A caller either asks for the next log to parse ([`LogQueue::next_job`]: the native CLI's
//! threads) or hands logs in as they come ([`LogQueue::give`]: the page, which reads a zip's
//! logs in the archive's order); a log given too early waits in the queue with its input `G`.

use std::collections::HashMap;

use super::Options;
use super::logs::{LogTask, Parsing};
use super::tally::{Copies, Tally, TallySink};
use crate::input::FileReader;
use crate::model::RowSink;
use crate::sources::log::LogOutcome;

/// The event logs of a [`Parsing`], each parsed once, in any order; `R` is what the caller
/// keeps of a log's rows until they may go out, `G` what it hands in with a log (`give`).
pub struct LogQueue<R, G = ()> {
    tasks: Vec<LogTask>,
    /// Of a later copy, the copy of its session just before it.
    previous_copy: Vec<Option<usize>>,
    slots: Vec<Slot<R, G>>,
    /// The logs before this one are added (or will never come).
    added: usize,
    /// No log before this one is still to hand out.
    first_open: usize,
    /// Logs given that wait for the copies before them.
    waiting: Vec<usize>,
}

enum Slot<R, G> {
    /// Neither handed out nor given.
    Open,
    /// Given, waiting for the copies before it.
    Waiting(G),
    Parsing,
    Parsed(Box<(LogOutcome, Tally)>, R),
    /// Added, or never to come.
    Done,
}

/// A log that may be parsed now, with the tally its rows go through.
pub struct LogJob {
    index: usize,
    pub task: LogTask,
    tally: Tally,
}

/// A log parsed, to take back (`LogQueue::take_back`).
pub struct ParsedLog {
    index: usize,
    outcome: LogOutcome,
    tally: Tally,
}

/// What taking a log back released: the rows of the logs added now, in task order, and the
/// logs given that may be parsed now.
pub struct Released<R, G> {
    pub rows: Vec<R>,
    pub ready: Vec<(LogJob, G)>,
}

impl LogJob {
    /// Opens and parses the log; its rows, tallied and scrubbed, go to `rows`.
    pub fn parse(mut self, reader: &mut dyn FileReader, options: &Options, rows: &mut dyn RowSink) -> ParsedLog {
        let outcome = self.task.parse(reader, options, &mut TallySink::new(&mut self.tally, rows));
        ParsedLog { index: self.index, outcome, tally: self.tally }
    }

    /// Parses the log from its bytes (read by someone else: the page).
    pub fn parse_bytes(mut self, bytes: &[u8], options: &Options, rows: &mut dyn RowSink) -> ParsedLog {
        let outcome = self.task.parse_bytes(bytes, options, &mut TallySink::new(&mut self.tally, rows));
        ParsedLog { index: self.index, outcome, tally: self.tally }
    }
}

impl<R, G> LogQueue<R, G> {
    /// The logs of step 3, none parsed yet.
    pub fn new(parsing: &Parsing) -> LogQueue<R, G> {
        let tasks = parsing.state.log_tasks();
        let mut last_copy: HashMap<usize, usize> = HashMap::new();
        let previous_copy = tasks
            .iter()
            .enumerate()
            .map(|(index, task)| match task.copies {
                Copies::Only => None,
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
    pub fn next_job(&mut self, parsing: &mut Parsing, ahead: usize) -> Option<LogJob> {
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
    pub fn give(&mut self, parsing: &mut Parsing, index: usize, input: G) -> Result<Option<(LogJob, G)>, String> {
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
    pub fn take_back(&mut self, parsing: &mut Parsing, parsed: ParsedLog, rows: R) -> Released<R, G> {
        let ParsedLog { index, outcome, tally } = parsed;
        debug_assert!(matches!(self.slots[index], Slot::Parsing), "log {index} taken back but not handed out");
        self.slots[index] = Slot::Parsed(Box::new((outcome, tally)), rows);
        self.release(parsing)
    }

    /// The logs not given will never come (a page that stopped early): the logs after them are
    /// added as they are parsed.
    pub fn skip_missing(&mut self, parsing: &mut Parsing) -> Released<R, G> {
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

    fn hand_out(&mut self, parsing: &mut Parsing, index: usize) -> LogJob {
        self.slots[index] = Slot::Parsing;
        let task = self.tasks[index].clone();
        let tally = parsing.tally_for(&task);
        LogJob { index, task, tally }
    }

    /// Adds the parsed logs now in turn, and hands out the given logs that may now be parsed.
    fn release(&mut self, parsing: &mut Parsing) -> Released<R, G> {
        let mut released = Released { rows: Vec::new(), ready: Vec::new() };
        while let Some(slot) = self.slots.get_mut(self.added) {
            match std::mem::replace(slot, Slot::Done) {
                Slot::Parsed(parsed, rows) => {
                    let (outcome, tally) = *parsed;
                    parsing.add_log(&self.tasks[self.added], outcome, tally);
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
