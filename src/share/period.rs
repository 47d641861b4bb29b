//! The period a report covers: a billing month (the latest with data unless one is chosen) or
//! the days between two dates, and the file name it gives the report.

use chrono::{Datelike, Months, NaiveDate};

use crate::analysis::UsageData;
use crate::usage::summary::DayRange;

/// What the person chose.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Period {
    /// The latest month with usage (today's when there is none).
    #[default]
    LatestMonth,
    /// The month holding this day.
    Month(NaiveDate),
    /// The days from `since` to `until`, both included (no bound: the data's first or last).
    Days { since: Option<NaiveDate>, until: Option<NaiveDate> },
}

/// The chosen period, resolved against the data.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    /// The billing month when the period is one (its first day).
    pub month: Option<NaiveDate>,
    /// The first and last days with usage in the period.
    pub data_days: Option<(NaiveDate, NaiveDate)>,
}

impl Chosen {
    pub fn of(usage: &UsageData, period: &Period, today: NaiveDate) -> Chosen {
        let (since, until, month) = match period {
            Period::Days { since, until } => (*since, *until, None),
            Period::Month(day) => month_bounds(*day),
            Period::LatestMonth => month_bounds(data_days(usage, None, None).map_or(today, |(_, last)| last)),
        };
        Chosen { since, until, month, data_days: data_days(usage, since, until) }
    }

    pub fn range(&self) -> DayRange {
        DayRange { since: self.since, until: self.until, ..DayRange::default() }
    }

    /// `copilot-report-2026-11.html`, or `copilot-report-2026-11-03-to-2026-11-20.html`.
    pub fn file_name(&self) -> String {
        let days = |bound: Option<NaiveDate>, data: Option<NaiveDate>| bound.or(data).map(|day| day.to_string());
        let period = match (self.month, self.data_days) {
            (Some(month), _) => Some(crate::time::month_text(month)),
            (None, data) => days(self.since, data.map(|(first, _)| first))
                .zip(days(self.until, data.map(|(_, last)| last)))
                .map(|(first, last)| format!("{first}-to-{last}")),
        };
        period.map_or_else(|| "copilot-report.html".to_string(), |period| format!("copilot-report-{period}.html"))
    }

    /// `November 2026`, or `2026-11-03 to 2026-11-20` (the data's days where a bound is open).
    pub fn title(&self) -> String {
        if let Some(month) = self.month {
            return month.format("%B %Y").to_string();
        }
        let first = self.since.or(self.data_days.map(|(first, _)| first));
        let last = self.until.or(self.data_days.map(|(_, last)| last));
        match (first, last) {
            (Some(first), Some(last)) => format!("{first} to {last}"),
            _ => "All days".to_string(),
        }
    }
}

/// The month holding `day`: its first and last days.
fn month_bounds(day: NaiveDate) -> (Option<NaiveDate>, Option<NaiveDate>, Option<NaiveDate>) {
    let first = day.with_day(1).unwrap_or(day);
    let last = first.checked_add_months(Months::new(1)).and_then(|next| next.pred_opt()).unwrap_or(first);
    (Some(first), Some(last), Some(first))
}

/// The first and last days with usage between the bounds (entries on a day usage cannot be on
/// left out, as the month leaves them out).
fn data_days(usage: &UsageData, since: Option<NaiveDate>, until: Option<NaiveDate>) -> Option<(NaiveDate, NaiveDate)> {
    let range = DayRange { since, until, ..DayRange::default() };
    let days = (usage.ledgers.values())
        .flat_map(|ledger| ledger.entries.iter())
        .filter(|(key, entry)| !entry.implausible_date && range.contains(key.day))
        .map(|(key, _)| key.day);
    days.fold(None, |span, day| match span {
        None => Some((day, day)),
        Some((first, last)) => Some((first.min(day), last.max(day))),
    })
}
