//! One billing month's AI credits against an allowance: GitHub bills Copilot in AI credits
//! (one is 0.01 USD) that reset at 00:00 UTC on the first of each month. Each day's credits are
//! what Copilot recorded where it recorded them, else the estimate at the published rates,
//! always kept apart so that a reader knows which. The pace so far projects the month's end and
//! the day the allowance would run out. The core has no clock: the caller says what day it is.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use chrono::{Datelike, NaiveDate};
use serde::Serialize;

use super::counters::MAX_PLAUSIBLE_BILLED;
use super::credits::{counts, entry_credits, parse_grouped};
use super::ledger::SessionLedger;
use super::rates::RateTable;
use super::{Entries, Entry, EntryKey, NANO_AIU_PER_CREDIT, NANO_DOLLARS_PER_CREDIT};

/// A monthly allowance as a person types it: digits, commas grouping thousands, a decimal point
/// (`500`, `1,500`, `1500.5`), above 0 and at most 10^9 credits (`MAX_PLAUSIBLE_BILLED`). The
/// rest (`5e2`, `inf`, `-3`, `0`, nothing) is refused, in the same words whatever it is.
pub fn parse_allowance(text: &str) -> Result<f64, String> {
    let written = text.trim();
    let plain = written.bytes().all(|byte| byte.is_ascii_digit() || byte == b',' || byte == b'.');
    // A point marks the decimals, after every comma, with digits on both sides.
    let (whole, decimals) = written.split_once('.').unwrap_or((written, "0"));
    let digits_around_point = !whole.is_empty() && !decimals.is_empty() && !decimals.contains([',', '.']);
    match parse_grouped(written, false) {
        Some(credits) if plain && digits_around_point && credits > 0.0 && credits <= MAX_PLAUSIBLE_BILLED => {
            Ok(credits)
        }
        _ => Err(format!(
            "{text:?} is not an allowance: give a number of AI credits above 0 and at most 1,000,000,000, like 1500, \
             1,500 or 1500.5 (1 credit = 0.01 USD)"
        )),
    }
}

/// A month's credits, day by day up to the day they are known to.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MonthCredits {
    /// `2026-11`.
    pub month: String,
    pub days_in_month: u32,
    /// The last day counted: the month's last, or the caller's today within it.
    pub as_of: String,
    pub finished: bool,
    pub allowance: Option<f64>,
    /// Credits Copilot recorded, and credits estimated where it recorded none.
    pub recorded: f64,
    pub estimated: f64,
    pub used: f64,
    pub days: Vec<DayCredits>,
    /// At the pace so far, the credits by the month's end (none once it is over).
    pub projected: Option<f64>,
    /// The day the allowance ran out, or would at that pace within the month.
    pub runs_out_on: Option<String>,
    /// The person's own budget for the month (the page's Month view), and the day the credits
    /// crossed it, or would at that pace within the month.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_crossed_on: Option<String>,
    /// The month's credits of each surface (a source's agent: `copilot-cli`, `copilot-vscode`),
    /// recorded and estimated, for the Month view; none where only the sessions' entries are
    /// kept (the status line).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_agent: Vec<AgentCredits>,
}

/// One surface's credits in a month: what Copilot recorded, and what is estimated.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentCredits {
    pub agent: &'static str,
    pub recorded: f64,
    pub estimated: f64,
}

impl MonthCredits {
    /// The day the credits reach `limit`: the first day whose running total does, else the day
    /// the pace so far would within the month (day n holds n times the pace); none once the
    /// month is over without reaching it.
    pub fn reaches_on(&self, limit: f64) -> Option<String> {
        if limit <= 0.0 || limit.is_nan() {
            return None;
        }
        if let Some(day) = self.days.iter().find(|day| day.cumulative >= limit) {
            return Some(day.day.clone());
        }
        let pace = self.used / self.days.len() as f64;
        if self.finished || pace.is_nan() || pace <= 0.0 {
            return None;
        }
        let day = (limit / pace).ceil() as u64;
        (day <= u64::from(self.days_in_month)).then(|| format!("{}-{day:02}", self.month))
    }

    /// With the person's own budget for the month, and the day it is crossed.
    pub fn with_budget(mut self, budget: Option<f64>) -> MonthCredits {
        self.budget_crossed_on = budget.and_then(|budget| self.reaches_on(budget));
        self.budget = budget;
        self
    }

    /// The credits of one of its days (none counted: 0).
    pub fn on(&self, day: NaiveDate) -> f64 {
        let day = day.to_string();
        self.days.iter().find(|counted| counted.day == day).map_or(0.0, |counted| counted.recorded + counted.estimated)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DayCredits {
    pub day: String,
    pub recorded: f64,
    pub estimated: f64,
    /// Used since the month began, this day included.
    pub cumulative: f64,
}

/// The credits of `month` (its first day) from every ledger, as of `today` (UTC). Ledgers must
/// count days in UTC: the billing month does, whatever the display time zone. Entries on a day
/// usage cannot be on (`implausible_date`) are not counted.
pub fn month_credits<'a>(
    ledgers: impl Iterator<Item = &'a SessionLedger>,
    rates: &RateTable,
    month: NaiveDate,
    today: NaiveDate,
    allowance: Option<f64>,
) -> MonthCredits {
    let ledgers: Vec<&SessionLedger> = ledgers.collect();
    let mut credits = month_of_entries(ledgers.iter().map(|ledger| &ledger.entries), rates, month, today, allowance);
    let (first, as_of) = (month_bounds(month).0, credits.as_of.parse().unwrap_or(month));
    // A set of the kind the ledgers' flags are: no sort of its own in the page's module.
    let agents: std::collections::BTreeSet<&'static str> = ledgers.iter().map(|ledger| ledger.agent).collect();
    for agent in agents {
        let of_agent = ledgers.iter().filter(|ledger| ledger.agent == agent).map(|ledger| &ledger.entries);
        let (recorded, estimated) = credits_by_day(of_agent, rates, first..=as_of)
            .values()
            .fold((0.0, 0.0), |(recorded, estimated), day| (recorded + day.0, estimated + day.1));
        if recorded + estimated > 0.0 {
            credits.by_agent.push(AgentCredits { agent, recorded, estimated });
        }
    }
    credits
}

/// [`month_credits`] of the sessions' entries (the status line keeps only these between runs).
pub fn month_of_entries<'a>(
    sessions: impl Iterator<Item = &'a Entries>,
    rates: &RateTable,
    month: NaiveDate,
    today: NaiveDate,
    allowance: Option<f64>,
) -> MonthCredits {
    let (first, last) = month_bounds(month);
    let by_day = credits_by_day(sessions, rates, first..=today.clamp(first, last));
    month_of_days(&by_day, month, today, allowance)
}

/// `month_of_entries` of credits already summed per day, recorded and estimated (days outside
/// the month, or after `today`, are not counted).
pub fn month_of_days(
    by_day: &BTreeMap<NaiveDate, (f64, f64)>,
    month: NaiveDate,
    today: NaiveDate,
    allowance: Option<f64>,
) -> MonthCredits {
    let (first, last) = month_bounds(month);
    let days_in_month = last.day();
    let finished = today > last;
    let as_of = today.clamp(first, last);
    let mut days = Vec::new();
    let (mut recorded, mut estimated) = (0.0, 0.0);
    for day in first.iter_days().take_while(|day| *day <= as_of) {
        let (day_recorded, day_estimated) = by_day.get(&day).copied().unwrap_or_default();
        (recorded, estimated) = (recorded + day_recorded, estimated + day_estimated);
        let cumulative = recorded + estimated;
        days.push(DayCredits { day: day.to_string(), recorded: day_recorded, estimated: day_estimated, cumulative });
    }
    let used = recorded + estimated;
    let pace = used / f64::from(as_of.day());
    let projected = (!finished).then_some(pace * f64::from(days_in_month));
    let mut credits = MonthCredits {
        month: crate::time::month_text(first),
        days_in_month,
        as_of: as_of.to_string(),
        finished,
        allowance,
        recorded,
        estimated,
        used,
        days,
        projected,
        runs_out_on: None,
        budget: None,
        budget_crossed_on: None,
        by_agent: Vec::new(),
    };
    credits.runs_out_on = allowance.and_then(|allowance| credits.reaches_on(allowance));
    credits
}

/// The first and last day of the billing month holding `day`.
pub fn month_bounds(day: NaiveDate) -> (NaiveDate, NaiveDate) {
    let first = day.with_day(1).unwrap_or(day);
    let next = first.checked_add_months(chrono::Months::new(1)).unwrap_or(first);
    (first, next.pred_opt().unwrap_or(first))
}

/// The credits (recorded, estimated) of the sessions' entries on each day of `days`: the one
/// rule every figure of the month and the status line is counted by.
pub fn credits_by_day<'a>(
    sessions: impl Iterator<Item = &'a Entries>,
    rates: &RateTable,
    days: RangeInclusive<NaiveDate>,
) -> BTreeMap<NaiveDate, (f64, f64)> {
    let mut by_day: BTreeMap<NaiveDate, (f64, f64)> = BTreeMap::new();
    for entries in sessions {
        let counted = |(key, entry): &(&EntryKey, &Entry)| days.contains(&key.day) && counts(key, entry);
        for (key, entry) in entries.iter().filter(counted) {
            let slot = by_day.entry(key.day).or_default();
            let credits = entry_credits(rates, &key.model, entry);
            slot.0 += credits.recorded_nano_aiu as f64 / NANO_AIU_PER_CREDIT;
            slot.1 += credits.estimated_nanos as f64 / NANO_DOLLARS_PER_CREDIT;
        }
    }
    by_day
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::counters::Recorded;
    use crate::usage::{Entry, EntryKey, Kind, Tokens, Zone};

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    /// A ledger with one entry a day: recorded credits, or claude-sonnet-4 tokens to estimate.
    fn ledger(days: &[(&str, Option<u64>, u64)]) -> SessionLedger {
        let mut ledger = SessionLedger::new(Zone::Utc);
        for &(on, credits, input) in days {
            let key = EntryKey { day: day(on), model: "claude-sonnet-4".into(), kind: Kind::Counted };
            let recorded = Recorded { nano_aiu: credits.map(|c| c * 1_000_000_000), ..Recorded::default() };
            let tokens = Tokens { requests: 1, input, ..Tokens::default() };
            ledger.entries.add(key, &Entry { tokens, recorded, ..Entry::default() });
        }
        ledger
    }

    #[test]
    fn the_month_counts_recorded_and_estimated_credits_and_projects_its_end() {
        // 10 credits recorded on Nov 1 and 2; 1,000,000 input tokens at 3.00 USD = 300 credits
        // estimated on Nov 3; an October day and a day after "today" are not counted.
        let ledger = ledger(&[
            ("2026-10-31", Some(99), 0),
            ("2026-11-01", Some(10), 0),
            ("2026-11-02", Some(10), 0),
            ("2026-11-03", None, 1_000_000),
            ("2026-11-05", Some(50), 0),
        ]);
        let rates = RateTable::default_table();
        let month = month_credits([&ledger].into_iter(), &rates, day("2026-11-15"), day("2026-11-04"), Some(1000.0));
        assert_eq!((month.month.as_str(), month.days_in_month, month.as_of.as_str()), ("2026-11", 30, "2026-11-04"));
        assert_eq!((month.recorded, month.estimated, month.used), (20.0, 300.0, 320.0));
        let cumulative: Vec<f64> = month.days.iter().map(|d| d.cumulative).collect();
        assert_eq!(cumulative, [10.0, 20.0, 320.0, 320.0]);
        // 320 in 4 days is 80 a day: 2400 by Nov 30; 1000 is reached on day 13 (13 * 80 = 1040).
        assert_eq!((month.projected, month.runs_out_on.as_deref()), (Some(2400.0), Some("2026-11-13")));
        // Each surface's share: the CLI's recorded and estimated credits, VS Code's recorded.
        let (mut cli, mut vscode) = (ledger.clone(), self::ledger(&[("2026-11-02", Some(5), 0)]));
        (cli.agent, vscode.agent) = ("copilot-cli", "copilot-vscode");
        let both = month_credits([&vscode, &cli].into_iter(), &rates, day("2026-11-15"), day("2026-11-04"), None);
        let shares: Vec<_> = both.by_agent.iter().map(|share| (share.agent, share.recorded, share.estimated)).collect();
        assert_eq!(shares, [("copilot-cli", 20.0, 300.0), ("copilot-vscode", 5.0, 0.0)]);
        assert_eq!((both.recorded, both.estimated), (25.0, 300.0));
        // Already over the allowance: the day it was crossed.
        let over = month_credits([&ledger].into_iter(), &rates, day("2026-11-01"), day("2026-11-04"), Some(15.0));
        assert_eq!(over.runs_out_on.as_deref(), Some("2026-11-02"));
        // A finished month: no projection; the days up to its end.
        let done = month_credits([&ledger].into_iter(), &rates, day("2026-11-01"), day("2026-12-10"), Some(1000.0));
        assert_eq!((done.finished, done.used, done.projected, done.runs_out_on), (true, 370.0, None, None));
        assert_eq!(done.days.len(), 30);

        // A budget is crossed by the allowance's rule, beside it: 20 was reached on Nov 2; 400
        // at 80 a day on day 5; 2401 is past the month's end at this pace.
        let with = |budget: f64| month.clone().with_budget(Some(budget));
        assert_eq!(with(20.0).budget_crossed_on.as_deref(), Some("2026-11-02"));
        assert_eq!((with(400.0).budget, with(400.0).budget_crossed_on.as_deref()), (Some(400.0), Some("2026-11-05")));
        assert_eq!(with(2401.0).budget_crossed_on, None);
        assert_eq!(with(400.0).runs_out_on, month.runs_out_on, "the allowance's day is its own");
        // Without a budget, the month's JSON is as it was (report.json holds months).
        let json = serde_json::to_string(&month).unwrap();
        assert!(!json.contains("budget"), "{json}");
    }

    #[test]
    fn an_allowance_is_read_as_a_person_types_it_and_the_rest_refused_alike() {
        for (typed, credits) in [("500", 500.0), ("1,500", 1500.0), ("1500.5", 1500.5), (" 7000 ", 7000.0)] {
            assert_eq!(parse_allowance(typed), Ok(credits), "{typed}");
        }
        assert_eq!(parse_allowance("1,000,000,000"), Ok(1e9));
        for typed in
            ["5e2", "inf", "NaN", "-3", "0", "0.0", "", "1,50", "1.500,5", ".5", "5.", "1e9", "1,000,000,001", "ten"]
        {
            let refused = parse_allowance(typed).unwrap_err();
            assert_eq!(refused, format!("{typed:?} {}", REFUSED), "{typed}");
        }
    }

    const REFUSED: &str = "is not an allowance: give a number of AI credits above 0 and at most 1,000,000,000, like \
                           1500, 1,500 or 1500.5 (1 credit = 0.01 USD)";
}
