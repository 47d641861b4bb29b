//! Copilot CLI's status line (`copilot-lens statusline`): the credits of the session being shown,
//! of the UTC day and of the billing month, in one short line, by the rule of every other figure
//! (`month::credits_by_day`).
//!
//! Between runs the CLI keeps a [`StatusSnapshot`]: every session's entries of the billing month,
//! from one usage run over the home. A status line then reads only the shown session's log
//! (through the cache, on from where it ended) and puts its entries in place of the snapshot's.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::Entries;
use super::budget::{self, Budgets, Level};
use super::credits::grouped_decimal;
use super::ledger::SessionLedger;
use super::month::{MonthCredits, credits_by_day, month_bounds, month_of_entries};
use super::rates::RateTable;
use crate::words::grouped;

/// The billing month's entries of every session of a home, as one usage run counted them.
#[derive(Debug, Serialize, Deserialize)]
pub struct StatusSnapshot {
    /// Whose snapshot it is: the home (the CLI's words); another's is not read.
    pub identity: String,
    /// When it was made (epoch milliseconds): an older one is made again.
    pub made_ms: i64,
    /// The first day of its billing month.
    pub month: NaiveDate,
    pub sessions: BTreeMap<String, Entries>,
}

impl StatusSnapshot {
    /// The entries of `today`'s billing month of each session that has some.
    pub fn of<'a>(
        ledgers: impl Iterator<Item = (&'a String, &'a SessionLedger)>,
        identity: String,
        made_ms: i64,
        today: NaiveDate,
    ) -> StatusSnapshot {
        let (first, last) = month_bounds(today);
        let mut sessions = BTreeMap::new();
        for (id, ledger) in ledgers {
            let mut kept = Entries::default();
            for (key, entry) in ledger.entries.iter().filter(|(key, _)| (first..=last).contains(&key.day)) {
                kept.add(key.clone(), entry);
            }
            if !kept.is_empty() {
                sessions.insert(id.clone(), kept);
            }
        }
        StatusSnapshot { identity, made_ms, month: first, sessions }
    }

    /// The figures, with the shown session's own entries (all its days, freshly read) in place
    /// of the snapshot's, against `limit` credits for the month.
    pub fn figures(
        &self,
        session: Option<(&str, &Entries)>,
        rates: &RateTable,
        today: NaiveDate,
        limit: Option<f64>,
    ) -> StatusFigures {
        let shown = session;
        let others = self.sessions.iter().filter(|(id, _)| shown.is_none_or(|(shown, _)| shown != id.as_str()));
        let all = others.map(|(_, entries)| entries).chain(shown.map(|(_, entries)| entries));
        let month = month_of_entries(all, rates, today, today, limit);
        let session_credits = shown.map(|(_, entries)| {
            let every_day = credits_by_day(std::iter::once(entries), rates, NaiveDate::MIN..=NaiveDate::MAX);
            every_day.values().map(|(recorded, estimated)| recorded + estimated).sum()
        });
        StatusFigures { session: session_credits, today: month.on(today), month }
    }
}

/// A budget or allowance as given: whole credits grouped (`7,000`), else with the hundredths.
fn limit_text(credits: f64) -> String {
    if credits.fract() == 0.0 { grouped(credits as u64) } else { grouped_decimal(credits) }
}

/// What the status line shows.
#[derive(Debug)]
pub struct StatusFigures {
    /// The shown session's credits, all its days (none when no session is shown).
    pub session: Option<f64>,
    /// The UTC day's credits, every session.
    pub today: f64,
    pub month: MonthCredits,
}

/// ANSI colours, reset after each figure.
const YELLOW: &str = "\x1b[33m";
const RED: &str = "\x1b[31m";
const RESET: &str = "\x1b[0m";

impl StatusFigures {
    /// The line: `12.40 cr session · 86.10 today · Nov 2,715 / 7,000 (39%) · runs out Nov 24`.
    /// The month is shown against `limit` (the month's budget, else the allowance), the day
    /// against its budget; a figure from 80% of its limit is yellow and from 100% red, with
    /// `colour`.
    pub fn line(&self, budgets: &Budgets, limit: Option<f64>, colour: bool) -> String {
        let paint = |text: String, level: Level| match (colour, level) {
            (true, Level::Near) => format!("{YELLOW}{text}{RESET}"),
            (true, Level::Over) => format!("{RED}{text}{RESET}"),
            _ => text,
        };
        let mut parts = Vec::new();
        if let Some(session) = self.session {
            parts.push(format!("{} cr session", grouped_decimal(session)));
        }
        let today = match budgets.day {
            Some(budget) => format!("{} / {} today", grouped_decimal(self.today), limit_text(budget)),
            None => format!("{} today", grouped_decimal(self.today)),
        };
        parts.push(paint(today, budget::level(self.today, budgets.day)));
        let first = NaiveDate::parse_from_str(&format!("{}-01", self.month.month), "%Y-%m-%d").ok();
        let name = first.map_or_else(|| self.month.month.clone(), |first| first.format("%b").to_string());
        let used = grouped(self.month.used.round() as u64);
        let month = match limit {
            Some(limit) => {
                format!("{name} {used} / {} ({:.0}%)", limit_text(limit), (self.month.used / limit * 100.0).floor())
            }
            None => format!("{name} {used}"),
        };
        parts.push(paint(month, budget::level(self.month.used, limit)));
        if let Some(day) = self.month.runs_out_on.as_deref().and_then(|day| day.parse::<NaiveDate>().ok()) {
            let as_of = self.month.as_of.parse::<NaiveDate>().ok();
            let word = if as_of.is_some_and(|as_of| day <= as_of) { "ran out" } else { "runs out" };
            parts.push(format!("{word} {}", day.format("%b %-d")));
        }
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::counters::Recorded;
    use crate::usage::{Entry, EntryKey, Kind, Tokens};

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    /// Entries of recorded credits, one a day.
    fn entries(days: &[(&str, u64)]) -> Entries {
        let mut entries = Entries::default();
        for &(on, credits) in days {
            let key = EntryKey { day: day(on), model: "gpt-5.4".into(), kind: Kind::Counted };
            let recorded = Recorded { nano_aiu: Some(credits * 1_000_000_000), ..Recorded::default() };
            entries
                .add(key, &Entry { tokens: Tokens { requests: 1, ..Tokens::default() }, recorded, ..Entry::default() });
        }
        entries
    }

    #[test]
    fn the_shown_session_replaces_its_snapshot_entries_and_counts_all_its_days() {
        let sessions = BTreeMap::from([
            ("a".to_string(), entries(&[("2026-11-02", 100), ("2026-11-10", 20)])),
            ("b".to_string(), entries(&[("2026-11-09", 5)])),
        ]);
        let snapshot = StatusSnapshot { identity: "x".into(), made_ms: 0, month: day("2026-11-01"), sessions };
        // Session b has grown since the snapshot, and began in October.
        let fresh = entries(&[("2026-10-31", 7), ("2026-11-09", 5), ("2026-11-10", 3)]);
        let rates = RateTable::default_table();
        let figures = snapshot.figures(Some(("b", &fresh)), &rates, day("2026-11-10"), Some(1000.0));
        assert_eq!((figures.session, figures.today, figures.month.used), (Some(15.0), 23.0, 128.0));
        // Kept in the cache as an entry of its own, which this build reads back whole only.
        let options = crate::analysis::Options::default();
        let cache = crate::cache::EntryRules::new("build-1", &options, 0);
        let mut entry = cache.encode_own(&snapshot).unwrap();
        let decoded: StatusSnapshot = cache.decode_own(&entry).unwrap();
        assert_eq!((decoded.identity.as_str(), decoded.sessions.len()), ("x", 2));
        let other_build = crate::cache::EntryRules::new("build-2", &options, 0);
        assert!(other_build.decode_own::<StatusSnapshot>(&entry).is_none());
        *entry.last_mut().unwrap() ^= 1;
        assert!(cache.decode_own::<StatusSnapshot>(&entry).is_none());
    }

    #[test]
    fn the_line_says_each_figure_and_colours_those_near_or_over_their_limit() {
        let sessions = BTreeMap::from([("a".to_string(), entries(&[("2026-11-01", 800), ("2026-11-02", 90)]))]);
        let snapshot = StatusSnapshot { identity: "x".into(), made_ms: 0, month: day("2026-11-01"), sessions };
        let rates = RateTable::default_table();
        let figures = snapshot.figures(Some(("a", &snapshot.sessions["a"])), &rates, day("2026-11-02"), Some(1000.0));
        let budgets = Budgets { day: Some(100.0), month: None };
        assert_eq!(
            figures.line(&budgets, Some(1000.0), false),
            "890.00 cr session · 90.00 / 100 today · Nov 890 / 1,000 (89%) · runs out Nov 3"
        );
        assert_eq!(
            figures.line(&budgets, Some(1000.0), true),
            "890.00 cr session · \x1b[33m90.00 / 100 today\x1b[0m · \x1b[33mNov 890 / 1,000 (89%)\x1b[0m · runs out Nov 3"
        );
        let over = snapshot.figures(None, &rates, day("2026-11-02"), Some(800.0));
        assert_eq!(
            over.line(&Budgets::default(), Some(800.0), true),
            "90.00 today · \x1b[31mNov 890 / 800 (111%)\x1b[0m · ran out Nov 1"
        );
    }
}
