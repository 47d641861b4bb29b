//! "Credits used": the one money figure every view shows (the CLI's table and JSON, the Month
//! view, the page's views and the report to share), by one rule:
//! - what Copilot recorded where it recorded it, else the estimate at the published rates (an
//!   entry with calls of each kind is `both`: recorded, plus the estimate of the rest);
//! - partial lower bounds and recovered sessions included;
//! - calls on the person's own key (BYOK) cost nothing: GitHub does not bill them;
//! - left out: what the upper reading of an ambiguous resume would add (the counted reading is
//!   the lower one), and usage on a day it cannot be on (`implausible_date`).
//!
//! Dollars are credits × 0.01.

use serde::Serialize;

use super::rates::RateTable;
use super::{Entry, EntryKey, Kind, NANO_AIU_PER_CREDIT, NANO_DOLLARS_PER_CREDIT};
use crate::words::grouped;

/// One AI credit in US dollars.
pub const USD_PER_CREDIT: f64 = 0.01;

/// The price of an entry in nano-dollars, or `None` when its model has no rate: nothing for
/// calls made with the person's own key (GitHub does not bill them), Auto's discount off the
/// calls Auto chose the model of.
pub fn price(rates: &RateTable, model: &str, entry: &Entry) -> Option<u128> {
    if entry.byok {
        return Some(0);
    }
    let rate = rates.lookup(model)?;
    let long_tier = rate.long_context.map_or(rate.base, |long| long.tier);
    let nanos = rate.base.cost_nanos(&entry.tokens.minus(&entry.long)) + long_tier.cost_nanos(&entry.long);
    Some(if entry.auto { nanos * (100 - AUTO_DISCOUNT_PERCENT) / 100 } else { nanos })
}

/// Auto model selection's published discount (GitHub Docs, "models and pricing").
pub const AUTO_DISCOUNT_PERCENT: u128 = 10;

/// One entry's credits by the rule: recorded (nano-AIU) and estimated (nano-dollars) apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EntryCredits {
    pub recorded_nano_aiu: u64,
    pub estimated_nanos: u128,
    /// Whether some of it was recorded, and whether some was estimated.
    pub recorded: bool,
    pub estimated: bool,
    /// Some of what was to be estimated has no rate: the figure is short of it.
    pub unpriced: bool,
}

impl EntryCredits {
    pub fn credits(&self) -> f64 {
        self.recorded_nano_aiu as f64 / NANO_AIU_PER_CREDIT + self.estimated_nanos as f64 / NANO_DOLLARS_PER_CREDIT
    }

    /// `recorded`, `estimated` or `both`.
    pub fn from(&self) -> &'static str {
        match (self.recorded, self.estimated) {
            (true, true) => "both",
            (true, false) => "recorded",
            (false, _) => "estimated",
        }
    }
}

/// Whether an entry counts in credits used (see the module's rule).
pub fn counts(key: &EntryKey, entry: &Entry) -> bool {
    key.kind != Kind::AmbiguousResume && !entry.implausible_date
}

/// An entry's credits by the rule (whether it counts at all is `counts`).
pub fn entry_credits(rates: &RateTable, model: &str, entry: &Entry) -> EntryCredits {
    if entry.byok {
        return EntryCredits { recorded: entry.recorded.nano_aiu.is_some(), ..EntryCredits::default() };
    }
    let (tokens, long) = entry.unrecorded_part();
    let estimated = entry.recorded.nano_aiu.is_none() || !tokens.is_zero();
    let priced = if estimated { price(rates, model, &Entry { tokens, long, ..*entry }) } else { Some(0) };
    EntryCredits {
        recorded_nano_aiu: entry.recorded.nano_aiu.unwrap_or(0),
        estimated_nanos: priced.unwrap_or(0),
        recorded: entry.recorded.nano_aiu.is_some(),
        estimated,
        unpriced: priced.is_none(),
    }
}

/// Credits used over some entries, with what they rest on: the headline figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CreditsUsed {
    /// Recorded plus estimated, to the hundredth.
    pub credits: f64,
    pub recorded: f64,
    pub estimated: f64,
    /// `credits` × 0.01.
    pub usd: f64,
    /// The part of `credits` from partial lower bounds and from recovered sessions.
    pub partial: f64,
    pub recovered: f64,
    /// Tokens of calls made on the person's own key (no Copilot charge).
    pub own_key_tokens: u64,
    /// Tokens whose model has no rate and which Copilot recorded nothing for: not in `credits`.
    pub unpriced_tokens: u64,
    /// Recorded, estimated, partial and recovered unrounded: the figures above are them to the
    /// hundredth.
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    sums: [f64; 4],
}

impl CreditsUsed {
    /// Credits used over some entries (a session's, for the page's sessions and transcript).
    pub fn of<'a>(rates: &RateTable, entries: impl Iterator<Item = (&'a EntryKey, &'a Entry)>) -> CreditsUsed {
        let mut used = CreditsUsed::default();
        for (key, entry) in entries {
            used.add(rates, key, entry);
        }
        used
    }

    /// Adds one entry, if it counts by the rule.
    pub fn add(&mut self, rates: &RateTable, key: &EntryKey, entry: &Entry) {
        self.add_credits(key, entry, &entry_credits(rates, &key.model, entry));
    }

    /// `add`, with the entry's credits (`entry_credits`) already worked out.
    pub fn add_credits(&mut self, key: &EntryKey, entry: &Entry, credits: &EntryCredits) {
        if !counts(key, entry) {
            return;
        }
        if entry.byok {
            self.own_key_tokens += entry.tokens.total();
            return;
        }
        if credits.unpriced {
            self.unpriced_tokens += entry.unrecorded_part().0.total();
        }
        let (recorded, estimated) = (
            credits.recorded_nano_aiu as f64 / NANO_AIU_PER_CREDIT,
            credits.estimated_nanos as f64 / NANO_DOLLARS_PER_CREDIT,
        );
        let [sum_recorded, sum_estimated, sum_partial, sum_recovered] = &mut self.sums;
        *sum_recorded += recorded;
        *sum_estimated += estimated;
        match key.kind {
            Kind::Partial => *sum_partial += recorded + estimated,
            Kind::Recovered => *sum_recovered += recorded + estimated,
            Kind::Counted | Kind::AmbiguousResume => {}
        }
        let hundredths = |value: f64| (value * 100.0).round() / 100.0;
        let [recorded, estimated, partial, recovered] = self.sums;
        (self.recorded, self.estimated, self.partial, self.recovered) =
            (hundredths(recorded), hundredths(estimated), hundredths(partial), hundredths(recovered));
        self.credits = hundredths(recorded + estimated);
        self.usd = hundredths(self.credits * USD_PER_CREDIT);
    }

    /// The figure in words: `1,234.56 credits ($12.35)`, or, for a home that used only the
    /// person's own key, `14,360 tokens on your own key, no Copilot charge`.
    pub fn headline(&self) -> String {
        if self.credits == 0.0 && self.own_key_tokens > 0 {
            return format!("{} tokens on your own key, no Copilot charge", grouped(self.own_key_tokens));
        }
        format!("{} credits (${})", grouped_decimal(self.credits), grouped_decimal(self.usd))
    }
}

/// `12,345.67`, to the hundredth.
pub fn grouped_decimal(number: f64) -> String {
    let hundredths = (number.abs() * 100.0).round() as u64;
    let sign = if number < 0.0 && hundredths > 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", grouped(hundredths / 100), hundredths % 100)
}

/// A number as people and spreadsheets write it: `1,234.5` (commas grouping three digits), or
/// with `decimal_comma` `1.234,5` and `1,5` too; spaces between groups are dropped. What Rust
/// reads after that (`1e-05`, `inf`) is the caller's to allow. None when it is not a number.
pub fn parse_grouped(text: &str, decimal_comma: bool) -> Option<f64> {
    let text: String = text.trim().chars().filter(|c| !matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '\'')).collect();
    let (comma, dot) = (text.rfind(','), text.rfind('.'));
    let decimal = match (comma, dot) {
        (Some(comma), Some(dot)) if comma > dot => ',',
        (Some(_), None) if decimal_comma && text.matches(',').count() == 1 => ',',
        _ => '.',
    };
    let grouping = if decimal == ',' { '.' } else { ',' };
    let (whole, fraction) = match text.split_once(decimal) {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (text.as_str(), None),
    };
    // Groups of three digits after the first, when grouped at all.
    let mut groups = whole.trim_start_matches(['-', '+']).split(grouping);
    let first = groups.next().unwrap_or_default();
    if whole.contains(grouping) && (first.is_empty() || first.len() > 3 || groups.any(|group| group.len() != 3)) {
        return None;
    }
    let number = match fraction {
        Some(fraction) => format!("{}.{fraction}", whole.replace(grouping, "")),
        None => whole.replace(grouping, ""),
    };
    number.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::Tokens;
    use crate::usage::counters::Recorded;

    fn key(kind: Kind) -> EntryKey {
        EntryKey { day: "2026-11-02".parse().unwrap(), model: "claude-sonnet-4".into(), kind }
    }

    /// `input` claude-sonnet-4 tokens (3.00 USD per million), and credits recorded or not.
    fn entry(input: u64, credits: Option<u64>) -> Entry {
        let recorded = Recorded { nano_aiu: credits.map(|c| c * 1_000_000_000), ..Recorded::default() };
        Entry { tokens: Tokens { requests: 1, input, ..Tokens::default() }, recorded, ..Entry::default() }
    }

    #[test]
    fn calls_recorded_and_not_on_one_day_are_both_recorded_and_estimated() {
        // 7 credits recorded for one call; 1,000,000 tokens of another at 3.00 USD = 300 credits.
        let mut mixed = entry(500_000, Some(7));
        mixed.add(&entry(1_000_000, None));
        let credits = entry_credits(&RateTable::default_table(), "claude-sonnet-4", &mixed);
        assert_eq!((credits.credits(), credits.from()), (307.0, "both"));
        // The other order gives the same.
        let mut mixed = entry(1_000_000, None);
        mixed.add(&entry(500_000, Some(7)));
        assert_eq!(entry_credits(&RateTable::default_table(), "claude-sonnet-4", &mixed).credits(), 307.0);
    }

    #[test]
    fn credits_used_takes_partial_and_recovered_leaves_out_the_upper_reading_and_byok_costs_nothing() {
        let rates = RateTable::default_table();
        let mut used = CreditsUsed::default();
        used.add(&rates, &key(Kind::Counted), &entry(0, Some(10)));
        used.add(&rates, &key(Kind::Partial), &entry(1_000_000, None));
        used.add(&rates, &key(Kind::Recovered), &entry(0, Some(2)));
        used.add(&rates, &key(Kind::AmbiguousResume), &entry(0, Some(1000)));
        used.add(&rates, &key(Kind::Counted), &Entry { byok: true, ..entry(14_360, None) });
        assert_eq!((used.credits, used.recorded, used.estimated, used.usd), (312.0, 12.0, 300.0, 3.12));
        assert_eq!((used.partial, used.recovered, used.own_key_tokens), (300.0, 2.0, 14_360));
        assert_eq!(used.headline(), "312.00 credits ($3.12)");
        let mut own_key_only = CreditsUsed::default();
        own_key_only.add(&rates, &key(Kind::Counted), &Entry { byok: true, ..entry(14_360, None) });
        assert_eq!(own_key_only.headline(), "14,360 tokens on your own key, no Copilot charge");
    }
}
