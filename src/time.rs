//! Timestamps: the logs write ISO 8601 UTC with milliseconds and `Z`; other stores vary, and
//! some writers give epoch milliseconds (a JSON number, or the same digits as a string).
//! Rows carry the canonical `YYYY-MM-DDTHH:MM:SS.mmmZ` form; joins use epoch milliseconds.

use std::borrow::Cow;

use chrono::{DateTime, Datelike, NaiveDate, SecondsFormat, TimeZone, Utc};

/// Epoch milliseconds of an ISO 8601 timestamp or of epoch milliseconds, or `None` when it is
/// neither.
pub fn parse_millis(text: &str) -> Option<i64> {
    if let Some(millis) = canonical_millis(text.as_bytes()) {
        return Some(millis);
    }
    let text = text.trim();
    if let Some(millis) = epoch_millis(text) {
        return Some(millis);
    }
    if let Ok(parsed) = DateTime::parse_from_rfc3339(text) {
        return Some(parsed.timestamp_millis());
    }
    // SQLite's own `datetime()` form (a space for the `T`) and zone-less ISO forms are read as
    // UTC. (RFC 3339's reader, not a format string: chrono's format parser is a fair part of the
    // page's download.)
    let zoneless = text.len() >= 19 && text.as_bytes()[10..].iter().all(|&c| c != b'Z' && c != b'+' && c != b'-');
    if zoneless && let Ok(parsed) = DateTime::parse_from_rfc3339(&format!("{text}Z")) {
        return Some(parsed.timestamp_millis());
    }
    None
}

/// Epoch milliseconds of a JSON value: a number (a fraction of a millisecond dropped), or a
/// string as `parse_millis` reads it.
pub fn value_millis(value: &serde_json::Value) -> Option<i64> {
    match value {
        serde_json::Value::Number(number) => number.as_i64().or_else(|| {
            let millis = number.as_f64()?.floor();
            // Beyond ±2^53 a float holds no exact millisecond; chrono's range is far inside it.
            (millis.abs() < 9.0e15).then_some(millis as i64)
        }),
        serde_json::Value::String(text) => parse_millis(text),
        _ => None,
    }
}

/// A day written `YYYY-MM-DD`.
pub fn parse_day(text: &str) -> Option<NaiveDate> {
    let b = text.as_bytes();
    let digits_at = |at: usize| at == 4 || at == 7 || b[at].is_ascii_digit();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !(0..10).all(digits_at) {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().ok();
    NaiveDate::from_ymd_opt(number(0..4)? as i32, number(5..7)?, number(8..10)?)
}

/// A month's `YYYY-MM`.
pub fn month_text(day: NaiveDate) -> String {
    format!("{:04}-{:02}", day.year(), day.month())
}

/// The canonical form of a timestamp; the text unchanged when it cannot be read as one.
pub fn normalize(text: &str) -> Cow<'_, str> {
    if canonical_millis(text.as_bytes()).is_some() {
        return Cow::Borrowed(text);
    }
    match parse_millis(text) {
        Some(millis) => Cow::Owned(format_millis(millis)),
        None => Cow::Borrowed(text),
    }
}

/// The canonical form of epoch milliseconds.
pub fn format_millis(millis: i64) -> String {
    match Utc.timestamp_millis_opt(millis).single() {
        Some(time) => time.to_rfc3339_opts(SecondsFormat::Millis, true),
        None => String::new(),
    }
}

/// Epoch milliseconds written as exactly 13 digits, with or without a fraction of a
/// millisecond (dropped): 2001-09-09 to 2286-11-20. Fewer digits are more likely seconds or
/// not a time at all, and stay undated rather than land in 1970.
fn epoch_millis(text: &str) -> Option<i64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, "0"));
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|c| c.is_ascii_digit());
    if whole.len() != 13 || !digits(whole) || !digits(fraction) {
        return None;
    }
    whole.parse().ok()
}

/// `parse_millis`, and whether `text` was in the canonical form (`format_millis`'s), told in
/// the same pass without formatting a time.
pub fn parse_millis_noting_canonical(text: &str) -> (Option<i64>, bool) {
    match canonical_millis(text.as_bytes()) {
        Some(millis) => (Some(millis), true),
        None => (parse_millis(text), false),
    }
}

/// Reads exactly `YYYY-MM-DDTHH:MM:SS.mmmZ` without allocating: nearly every stamp in a log.
fn canonical_millis(b: &[u8]) -> Option<i64> {
    if b.len() != 24
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'.'
        || b[23] != b'Z'
    {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        b[range].iter().try_fold(0i64, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0')))
    };
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second, milli) = (digits(11..13)?, digits(14..16)?, digits(17..19)?, digits(20..23)?);
    if !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_stamps_agree_with_chrono() {
        for stamp in [
            "2026-10-01T09:00:00.000Z",
            "2024-02-29T23:59:59.999Z",
            "1970-01-01T00:00:00.000Z",
            "2000-03-01T12:34:56.789Z",
        ] {
            let expected = DateTime::parse_from_rfc3339(stamp).unwrap().timestamp_millis();
            assert_eq!(canonical_millis(stamp.as_bytes()), Some(expected), "{stamp}");
        }
        assert_eq!(canonical_millis(b"2025-02-29T00:00:00.000Z"), None);
    }

    proptest::proptest! {
        /// The canonical flag says what formatting the time read and comparing would (the table's
        /// raw stamps), for canonical stamps, near misses and other forms alike.
        #[test]
        fn canonical_is_what_formatting_the_time_read_gives_back(
            millis in -62_167_219_200_000i64..253_402_300_799_999,
            edit in 0usize..6,
            at in 0usize..24,
            byte in proptest::prelude::any::<u8>(),
        ) {
            let mut stamp = format_millis(millis).into_bytes();
            match edit {
                0 => {}
                1 => stamp[at] = byte,
                2 => stamp.truncate(at),
                3 => stamp.push(b' '),
                4 => stamp = normalize(&format!("{}+00:00", &format_millis(millis)[..23])).into_owned().into_bytes(),
                _ => stamp = (millis / 1000).to_string().into_bytes(),
            }
            let Ok(stamp) = String::from_utf8(stamp) else { return Ok(()) };
            let formatted_back = parse_millis(&stamp).is_some_and(|read| format_millis(read) == stamp);
            let (millis, canonical) = parse_millis_noting_canonical(&stamp);
            proptest::prop_assert_eq!(millis, parse_millis(&stamp), "{}", stamp);
            proptest::prop_assert_eq!(canonical, formatted_back, "{}", stamp);
        }
    }

    #[test]
    fn days_and_months_are_read_and_written() {
        assert_eq!(parse_day("2026-02-28"), NaiveDate::from_ymd_opt(2026, 2, 28));
        for bad in ["2026-02-29", "2026-2-28", "2026-02-28T", "", "abcd-ef-gh", "+026-02-28"] {
            assert_eq!(parse_day(bad), None, "{bad}");
        }
        assert_eq!(month_text(NaiveDate::from_ymd_opt(987, 3, 9).unwrap()), "0987-03");
    }

    #[test]
    fn other_forms_are_normalized() {
        assert_eq!(normalize("2026-10-01T09:00:00Z"), "2026-10-01T09:00:00.000Z");
        assert_eq!(normalize("2026-10-01T11:00:00.5+02:00"), "2026-10-01T09:00:00.500Z");
        assert_eq!(normalize("2026-10-01 09:00:00"), "2026-10-01T09:00:00.000Z");
        assert_eq!(normalize("yesterday"), "yesterday");
    }

    #[test]
    fn json_values_are_read_as_times() {
        use serde_json::json;
        for value in
            [json!(1790845200123i64), json!(1790845200123.9), json!("1790845200123"), json!("2026-10-01T09:00:00.123Z")]
        {
            assert_eq!(value_millis(&value), Some(1790845200123), "{value}");
        }
        for value in [json!(null), json!(true), json!("soon"), json!(1e300), json!([1])] {
            assert_eq!(value_millis(&value), None, "{value}");
        }
    }

    #[test]
    fn epoch_milliseconds_are_read_and_other_digits_are_not() {
        assert_eq!(normalize("1790845200000"), "2026-10-01T09:00:00.000Z");
        assert_eq!(normalize(" 1790845200123 "), "2026-10-01T09:00:00.123Z");
        // A fraction of a millisecond (JavaScript's `performance` clock, a float's digits).
        assert_eq!(normalize("1790845200123.75"), "2026-10-01T09:00:00.123Z");
        assert_eq!(normalize("1790845200000.0"), "2026-10-01T09:00:00.000Z");
        // Seconds, a year, a negative number and broken fractions are not epoch milliseconds.
        for text in [
            "1790845200",
            "2026",
            "1790845200.5",
            "-1790845200000",
            "17908452000000",
            "",
            "1790845200000.",
            "1790845200000.x",
        ] {
            assert_eq!(parse_millis(text), None, "{text}");
        }
    }
}
