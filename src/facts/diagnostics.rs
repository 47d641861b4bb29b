//! Diagnostics: what went wrong with the input, where, and of which kind, as every source and
//! step writes it and the report shows it.

use serde::Serialize;

/// A problem with the input: the file (relative to its home, or as its root lists it when
/// `home` is none), the line where there is one, what kind of problem, and the message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Diagnostic {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub home: Option<usize>,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub line: Option<u64>,
    pub kind: DiagnosticKind,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// The root could not list an entry (an unreadable folder, an unsafe zip entry name).
    Listing,
    /// The file could not be opened or read.
    Unreadable,
    /// The file was read but is not in its format.
    Unparsable,
    /// Reading stopped partway (the rows before are kept).
    ReadStopped,
    /// The session store could not be read, or only in part.
    Store,
    /// The store's write-ahead log cannot be used (unreadable, a damaged or cut header, another
    /// database's log): it is ignored and the database is read without it.
    WriteAheadLog,
    /// Prompts and replies of the store kept after deduplication could not be read again.
    TurnsUnreadable,
    /// A line that names a usage counter but could not be read (usage-only runs).
    BadCounterLine,
    /// A usage counter that cannot be a token count (negative, fractional, above the ceiling
    /// of one record, or not a number): left out of the figures, never added.
    ImplausibleCounter,
    /// A `session.shutdown` without `modelMetrics`: it counts nothing.
    MissingCounters,
    /// A usage counter line without a timestamp that can be read: its tokens have no day.
    UndatedCounter,
    /// Usage on a day it cannot be on (before 2020, after tomorrow): kept on its day, flagged
    /// `implausible_date`, left out of the totals and the billing month.
    ImplausibleDate,
    /// Rows, or a session's creation or update, on a day no Copilot event can be on (before
    /// 2020, after tomorrow): shown as written.
    ImplausibleTime,
    /// A long text could not be read again whole from its log: it is shown cut.
    TextNotReread,
    /// The same data given twice (a session's log or a file's rows in two homes): shown once.
    Duplicate,
    /// Files found whose sessions hold no usage counters (a usage-only run names them).
    HoldsNoUsage,
    /// A file where its program does not keep it (a session folder not named by a session
    /// id): read all the same, under the session it names.
    UnexpectedPlace,
    /// Texts the writing program cut when it saved them (VS Code cuts strings over 1 MiB):
    /// shown as saved.
    CutWhenSaved,
    /// A model request its log marks failed (VS Code's debug log, `status: "error"`): counted
    /// as Copilot recorded it.
    FailedRequest,
    /// A cache entry that could not be used (written by another version or build of the tool,
    /// or damaged): ignored, and the file parsed again.
    CacheIgnored,
}

impl DiagnosticKind {
    /// Whether it names a usage counter line (the page's usage view lists these beside the
    /// figures they concern).
    pub fn is_about_usage_counters(self) -> bool {
        matches!(
            self,
            DiagnosticKind::BadCounterLine
                | DiagnosticKind::ImplausibleCounter
                | DiagnosticKind::MissingCounters
                | DiagnosticKind::UndatedCounter
                | DiagnosticKind::ImplausibleDate
        )
    }
}
