//! What the analysis keeps of the event-log rows that pass by (counts, deduplication keys),
//! and how a session's log given in several homes counts once.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;

use crate::dedup::{self, PrimaryKeys, RowText};
use crate::facts::diagnostics::{Diagnostic, DiagnosticKind};
use crate::facts::session::SessionCounts;
use crate::model::{Row, RowSink};
use crate::usage::plausible;

/// The same session's log in several homes (a home given twice, a session copied onto two
/// machines): the first copy's rows all count; a later copy, taken after every first copy,
/// gives only the rows the copies before it lacked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Copies {
    #[default]
    Only,
    First,
    /// A later copy; `first` is the first copy's file.
    Later {
        first: usize,
    },
    /// A secondary log (`FileKind::secondary`: VS Code's debug log) whose session a primary log
    /// gives (`primary`, its chat): the primary holds its texts, so none of its rows is given;
    /// all else it says counts (its usage above all).
    RowsHeldBy {
        primary: usize,
    },
}

/// What the analysis keeps of the rows that pass by: counts and deduplication keys. The cache
/// keeps a log's whole when it is its session's only copy (`crate::cache`): what copies share
/// is not kept.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    pub rows: u64,
    pub by_turn_type: [u64; 6],
    pub sessions: BTreeMap<String, SessionCounts>,
    pub keys: PrimaryKeys,
    #[serde(skip)]
    copies: Copies,
    /// A copied session's rows so far (`Copies`), by `dedup::copy_key`, with how many times.
    #[serde(skip)]
    pub(super) copy_keys: CopyKeys,
    /// A later copy's rows so far, by `dedup::copy_key`.
    #[serde(skip)]
    this_copy: CopyKeys,
    /// Rows of a later copy left out as already given.
    #[serde(skip)]
    pub(super) copies_dropped: u64,
    /// The days of the rows so far, which the analysis checks against the days Copilot can
    /// be on (`usage::plausible`) for each file.
    pub(super) row_days: RowDays,
}

/// The UTC days of a file's rows, each with its first and last line and how many rows: what
/// the report names of a day no Copilot event can be on. A file's rows are on few days.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct RowDays(Vec<(NaiveDate, DayLines)>);

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct DayLines {
    pub first: u64,
    pub last: u64,
    pub rows: u64,
}

impl RowDays {
    fn note(&mut self, row: &Row<'_>) {
        let Some(day) = row.timestamp_utc.get(..10).and_then(crate::time::parse_day) else { return };
        let line = row.source_line;
        match self.0.binary_search_by_key(&day, |(known, _)| *known) {
            Ok(at) => {
                let lines = &mut self.0[at].1;
                (lines.first, lines.last, lines.rows) = (lines.first.min(line), lines.last.max(line), lines.rows + 1);
            }
            Err(at) => self.0.insert(at, (day, DayLines { first: line, last: line, rows: 1 })),
        }
    }

    /// The days no Copilot event can be on as `today` sees them, each with why, as the
    /// report's diagnostics of file `file` of home `home`.
    pub(super) fn implausible(self, today: Option<NaiveDate>, home: usize, file: &str) -> Vec<Diagnostic> {
        let far = self.0.into_iter().filter_map(|(day, lines)| Some((day, plausible::implausible(day, today)?, lines)));
        far.map(|(day, why, DayLines { first, last, rows })| Diagnostic {
            home: Some(home),
            file: file.to_string(),
            line: Some(first),
            kind: DiagnosticKind::ImplausibleTime,
            message: format!(
                "{} dated {day}, {why}, from line {first} to line {last}: no Copilot event can be on that day. \
                 Shown on it as written",
                crate::words::counted(rows, "row", "rows")
            ),
        })
        .collect()
    }
}

/// Rows by `dedup::copy_key`, each with the number of times it was given.
pub type CopyKeys = HashMap<u64, u32>;

impl Copies {
    /// The first copy's file, for a later copy.
    pub(super) fn first(self) -> Option<usize> {
        match self {
            Copies::Later { first } => Some(first),
            Copies::Only | Copies::First | Copies::RowsHeldBy { .. } => None,
        }
    }
}

impl Tally {
    /// The tally of a log; a later copy's starts with the rows the copies before it gave.
    pub(super) fn new(copies: Copies, copy_keys: CopyKeys) -> Tally {
        Tally { copies, copy_keys, ..Tally::default() }
    }

    /// Whether a row of this log is to be left out, as a later copy's row already given.
    fn already_given(&mut self, row: &Row<'_>, text: RowText) -> bool {
        match self.copies {
            Copies::Only => false,
            Copies::RowsHeldBy { .. } => {
                self.copies_dropped += 1;
                true
            }
            Copies::First => {
                *self.copy_keys.entry(dedup::copy_key(row, text.key)).or_default() += 1;
                false
            }
            Copies::Later { .. } => {
                // The copies so far gave the row `known` times; this copy has given it `seen`.
                let key = dedup::copy_key(row, text.key);
                let seen = self.this_copy.entry(key).or_default();
                *seen += 1;
                let known = self.copy_keys.entry(key).or_default();
                if *seen <= *known {
                    self.copies_dropped += 1;
                    return true;
                }
                *known = *seen;
                false
            }
        }
    }

    /// Counts `row`.
    pub(super) fn observe(&mut self, row: &Row<'_>) {
        self.rows += 1;
        self.row_days.note(row);
        self.by_turn_type[row.turn_type as usize] += 1;
        if !row.session_id.is_empty() {
            match self.sessions.get_mut(row.session_id) {
                Some(counts) => counts.observe(row),
                None => self.sessions.entry(row.session_id.to_string()).or_default().observe(row),
            }
        }
    }

    /// Counts `row` of an event log, a primary source: its key is what secondary rows are
    /// checked against.
    fn observe_primary(&mut self, row: &Row<'_>, text: RowText) {
        self.observe(row);
        if text.secondary {
            self.keys.add(row.session_id, row.turn_type, text.key, crate::time::parse_millis(&row.timestamp_utc));
        }
    }

    pub fn merge(&mut self, other: Tally) {
        self.rows += other.rows;
        for (total, part) in self.by_turn_type.iter_mut().zip(other.by_turn_type) {
            *total += part;
        }
        for (session, counts) in other.sessions {
            self.sessions.entry(session).or_default().add(&counts);
        }
        self.keys.merge(other.keys);
    }
}

/// A sink that tallies each event-log row (primary: its key is what secondary rows are
/// checked against) on its way to another sink, which gets it scrubbed (`crate::scrub`).
pub struct TallySink<'a> {
    tally: &'a mut Tally,
    inner: &'a mut dyn RowSink,
}

impl<'a> TallySink<'a> {
    pub fn new(tally: &'a mut Tally, inner: &'a mut dyn RowSink) -> Self {
        TallySink { tally, inner }
    }

    /// Tallies `row`, whose text is `text`; false when it is left out (a later copy's row
    /// already given).
    fn tallied(&mut self, row: &Row<'_>, text: RowText) -> bool {
        let given = !self.tally.already_given(row, text);
        if given {
            self.tally.observe_primary(row, text);
        }
        given
    }

    /// A row the cache kept only as its sink is given it (`scrubbed`: scrubbed, its text's start
    /// alone), with what the tally reads of its whole text.
    pub(crate) fn push_replayed(&mut self, scrubbed: &Row<'_>, text: RowText) {
        if self.tallied(scrubbed, text) {
            self.inner.push(scrubbed);
        }
    }
}

impl RowSink for TallySink<'_> {
    fn push(&mut self, row: &Row<'_>) {
        if self.tallied(row, RowText::of(row)) {
            self.inner.push(&crate::scrub::row(row, self.inner.text_kept(row)));
        }
    }

    fn push_scrubbed(&mut self, row: &Row<'_>, scrubbed: &Row<'_>) {
        if self.tallied(row, RowText::of(row)) {
            self.inner.push(scrubbed);
        }
    }

    fn text_kept(&self, row: &Row<'_>) -> Option<usize> {
        self.inner.text_kept(row)
    }
}
