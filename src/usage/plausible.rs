//! The days usage can plausibly be on: from 2020-01-01 (before any Copilot usage was billed or
//! logged) to the day after the caller's today (a zone ahead of UTC, a clock a little fast).
//! A figure on another day (0001-01-01, 1970-01-01 from a zero timestamp, 9999-12-31) is kept
//! and shown on its day, flagged `implausible_date`, and left out of the billing month and its
//! projection. The core has no clock: without a today, only the earliest day is checked.

use chrono::{Days, NaiveDate};

/// The flag of entries, rows and sessions with usage on a day it cannot be on.
pub const IMPLAUSIBLE_DATE: &str = "implausible_date";

/// The first day usage can be on.
fn earliest() -> NaiveDate {
    NaiveDate::from_ymd_opt(2020, 1, 1).unwrap_or_default()
}

/// Whether `day` is outside the plausible days, and why.
pub fn implausible(day: NaiveDate, today: Option<NaiveDate>) -> Option<&'static str> {
    if day < earliest() {
        return Some("before 2020-01-01");
    }
    let tomorrow = today.and_then(|today| today.checked_add_days(Days::new(1)))?;
    (day > tomorrow).then_some("after tomorrow")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn days_before_2020_or_after_tomorrow_are_implausible() {
        let today = Some(day("2026-12-02"));
        for plausible in ["2020-01-01", "2026-12-02", "2026-12-03"] {
            assert_eq!(implausible(day(plausible), today), None, "{plausible}");
        }
        for (far, why) in [
            ("0001-01-01", "before 2020-01-01"),
            ("1969-12-31", "before 2020-01-01"),
            ("1970-01-01", "before 2020-01-01"),
            ("2019-12-31", "before 2020-01-01"),
            ("2026-12-04", "after tomorrow"),
            ("9999-12-31", "after tomorrow"),
        ] {
            assert_eq!(implausible(day(far), today), Some(why), "{far}");
        }
        // No clock given: only the earliest day is known.
        assert_eq!(implausible(day("9999-12-31"), None), None);
        assert!(implausible(day("1970-01-01"), None).is_some());
    }
}
