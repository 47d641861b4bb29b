//! The source-neutral reading of token counters and billed figures: a [`Count`], an
//! [`Amount`], what a record's counters came to ([`Reading`]) and what was recorded as billed
//! ([`Recorded`]). A source's own record shapes read into these (the Copilot CLI's are in
//! `sources::copilot_cli::counters`).
//!
//! Counts are read leniently but never guessed: a value that cannot be a token count (a
//! negative or fractional number, one above [`MAX_PLAUSIBLE_COUNT`], a string, a bool, an
//! object) is never added, and a wrongly shaped object spoils the counters inside it, not the
//! line. [`Reading`] says which counters of a record were left out, and why.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{NANO_AIU_PER_CREDIT, Tokens};

/// The most tokens (or requests) one record can plausibly count: 10^12. A session that filled
/// a 10-million-token context window (several times the largest any model offers) on each of
/// 100,000 requests would stay below it, so a larger count is damage, not usage. It also keeps
/// sums exact: 18 million records at the ceiling still fit in a `u64`.
pub const MAX_PLAUSIBLE_COUNT: u64 = 1_000_000_000_000;

/// A token count as written: a plausible count (absent and `null` count 0), or what was
/// written instead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Count {
    Read(u64),
    Unusable(Written),
}

impl Default for Count {
    fn default() -> Self {
        Count::Read(0)
    }
}

/// A value that cannot be a token count, as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Written {
    Integer(u64),
    Negative(i64),
    Number(f64),
    Text,
    Bool(bool),
    Object,
    Array,
    /// A reasoning count above the output count of the same record, which includes it.
    AboveOutput {
        reasoning: u64,
        output: u64,
    },
}

impl Written {
    /// Why it cannot be a token count (or hold the counters).
    pub fn why(&self) -> &'static str {
        const TOO_LARGE: &str = "above 10^12, the most one record can plausibly count";
        match *self {
            Written::Integer(_) => TOO_LARGE,
            Written::Negative(_) => "a negative number",
            Written::Number(v) if v < 0.0 => "a negative number",
            Written::Number(v) if v.fract() != 0.0 => "not a whole number",
            Written::Number(_) => TOO_LARGE,
            Written::AboveOutput { .. } => "reasoning is part of output",
            _ => "not a number",
        }
    }
}

impl fmt::Display for Written {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Written::Integer(v) => write!(f, "{v}"),
            Written::Negative(v) => write!(f, "{v}"),
            // As serde_json writes it: 1e+30, not thirty-one digits.
            Written::Number(v) => write!(f, "{}", serde_json::Value::from(*v)),
            Written::Text => f.write_str("a string"),
            Written::Bool(v) => write!(f, "{v}"),
            Written::Object => f.write_str("an object"),
            Written::Array => f.write_str("an array"),
            Written::AboveOutput { reasoning, output } => write!(f, "{reasoning}, more than the output's {output}"),
        }
    }
}

impl Count {
    pub fn from_u64(v: u64) -> Count {
        if v <= MAX_PLAUSIBLE_COUNT { Count::Read(v) } else { Count::Unusable(Written::Integer(v)) }
    }

    pub fn from_i64(v: i64) -> Count {
        u64::try_from(v).map_or(Count::Unusable(Written::Negative(v)), Count::from_u64)
    }

    /// A whole non-negative number up to the ceiling (exact: the ceiling is below 2^53).
    pub fn from_f64(v: f64) -> Count {
        if v.fract() == 0.0 && (0.0..=MAX_PLAUSIBLE_COUNT as f64).contains(&v) {
            Count::Read(v as u64)
        } else {
            Count::Unusable(Written::Number(v))
        }
    }

    /// A count from text (a database column): integers exactly, other numbers as `from_f64`.
    pub fn from_text(text: &str) -> Count {
        let text = text.trim();
        if let Ok(value) = text.parse::<u64>() {
            return Count::from_u64(value);
        }
        if let Ok(value) = text.parse::<i64>() {
            return Count::from_i64(value);
        }
        match text.parse::<f64>() {
            Ok(value) if value.is_finite() => Count::from_f64(value),
            _ => Count::Unusable(Written::Text),
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CountVisitor;
        impl<'de> Visitor<'de> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a token count")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count::from_u64(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                Ok(Count::from_i64(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Count, E> {
                Ok(Count::from_f64(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Count, E> {
                Ok(Count::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Count, E> {
                Ok(Count::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Count, E> {
                Ok(Count::Unusable(Written::Text))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Count, E> {
                Ok(Count::Unusable(Written::Bool(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Count, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Count::Unusable(Written::Object))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Count, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Count::Unusable(Written::Array))
            }
        }
        deserializer.deserialize_any(CountVisitor)
    }
}

/// An object where the counters expect one (absent and `null` read as an empty one), or what
/// was written instead, which spoils every counter it should hold rather than the line.
#[derive(Clone, Debug, PartialEq)]
pub enum Shaped<T> {
    Object(T),
    Not(Written),
}

impl<T: Default> Default for Shaped<T> {
    fn default() -> Self {
        Shaped::Object(T::default())
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Shaped<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ShapedVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for ShapedVisitor<T> {
            type Value = Shaped<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of counters")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Shaped::Object)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Shaped::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Shaped::default())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Shaped::Not(Written::Integer(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Shaped::Not(Written::Negative(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Shaped::Not(Written::Number(v)))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Shaped::Not(Written::Text))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Shaped::Not(Written::Bool(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Shaped::Not(Written::Array))
            }
        }
        deserializer.deserialize_any(ShapedVisitor(PhantomData))
    }
}

/// What Copilot itself recorded as billed: nano-AIU (10^9 to the AI credit) and premium
/// requests (legacy plans; in thousandths, since a request can count a fraction). Cumulative
/// in a shutdown's model metrics, like the tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Recorded {
    pub nano_aiu: Option<u64>,
    pub premium_milli: Option<u64>,
    /// A figure was written that cannot be an amount (negative, not a number, or above
    /// [`MAX_PLAUSIBLE_BILLED`]): it was left out, and the figure is flagged `implausible_counter`.
    pub implausible: bool,
}

impl Recorded {
    pub fn add(&mut self, other: &Recorded) {
        fn sum(a: Option<u64>, b: Option<u64>) -> Option<u64> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.saturating_add(b)),
                (a, b) => a.or(b),
            }
        }
        self.nano_aiu = sum(self.nano_aiu, other.nano_aiu);
        self.premium_milli = sum(self.premium_milli, other.premium_milli);
        self.implausible |= other.implausible;
    }

    /// A record's billed figures as written: nano-AIU (`nano_per_unit` to each unit written)
    /// and premium requests.
    pub fn read(nano_aiu: Amount, nano_per_unit: f64, premium_requests: Amount) -> Recorded {
        let (nano_aiu, nano_implausible) = nano_aiu.scaled(nano_per_unit, NANO_AIU_PER_CREDIT);
        let (premium_milli, premium_implausible) = premium_requests.scaled(1000.0, 1000.0);
        Recorded { nano_aiu, premium_milli, implausible: nano_implausible || premium_implausible }
    }

    /// The increase over an earlier cumulative record, and whether a figure went down (which
    /// adds nothing, as a lower token total does).
    pub fn increase_over(&self, earlier: &Recorded) -> (Recorded, bool) {
        let mut went_down = false;
        let mut step = |now: Option<u64>, before: Option<u64>| match (now, before) {
            (Some(now), Some(before)) if now < before => {
                went_down = true;
                Some(0)
            }
            (Some(now), before) => Some(now - before.unwrap_or(0)),
            (None, _) => None,
        };
        let increase = Recorded {
            nano_aiu: step(self.nano_aiu, earlier.nano_aiu),
            premium_milli: step(self.premium_milli, earlier.premium_milli),
            implausible: self.implausible,
        };
        (increase, went_down)
    }
}

impl Recorded {
    /// Each figure less `other`'s, none below zero (a figure `other` lacks stays whole).
    pub fn take_away(&mut self, other: &Recorded) {
        let less = |a: Option<u64>, b: Option<u64>| a.map(|a| a.saturating_sub(b.unwrap_or(0)));
        *self = Recorded {
            nano_aiu: less(self.nano_aiu, other.nano_aiu),
            premium_milli: less(self.premium_milli, other.premium_milli),
            implausible: self.implausible,
        };
    }

    /// The larger of each figure (the one written where only one is).
    pub fn max_each(&self, other: &Recorded) -> Recorded {
        let max = |a: Option<u64>, b: Option<u64>| a.max(b);
        Recorded {
            nano_aiu: max(self.nano_aiu, other.nano_aiu),
            premium_milli: max(self.premium_milli, other.premium_milli),
            implausible: false,
        }
    }

    /// The smaller of each figure written in both.
    pub fn min_each(&self, other: &Recorded) -> Recorded {
        let min = |a: Option<u64>, b: Option<u64>| Some(a?.min(b?));
        Recorded {
            nano_aiu: min(self.nano_aiu, other.nano_aiu),
            premium_milli: min(self.premium_milli, other.premium_milli),
            implausible: false,
        }
    }

    /// How far each figure written in both is above `other`'s.
    pub fn above(&self, other: &Recorded) -> Recorded {
        let above = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_sub(b?));
        Recorded {
            nano_aiu: above(self.nano_aiu, other.nano_aiu),
            premium_milli: above(self.premium_milli, other.premium_milli),
            implausible: false,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.nano_aiu.unwrap_or(0) == 0 && self.premium_milli.unwrap_or(0) == 0
    }
}

/// The most one billed figure can plausibly be: 10^9 AI credits (10 million USD) or premium
/// requests. More is damage, not usage, and sums of such figures stay exact in a `u64`.
pub const MAX_PLAUSIBLE_BILLED: f64 = 1e9;

/// A billed figure as written (`totalNanoAiu`, `copilotCredits`, a premium-request cost):
/// absent (or `null`), a number, or something else, which cannot be an amount.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Amount {
    #[default]
    Absent,
    Number(f64),
    NotANumber,
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::Null => Amount::Absent,
            serde_json::Value::Number(number) => number.as_f64().map_or(Amount::NotANumber, Amount::Number),
            _ => Amount::NotANumber,
        })
    }
}

impl Amount {
    /// A figure as a text cell (the store's columns): empty is absent.
    pub fn from_text(text: Option<&str>) -> Amount {
        match text.map(str::trim) {
            None | Some("") => Amount::Absent,
            Some(text) => text.parse().map_or(Amount::NotANumber, Amount::Number),
        }
    }

    /// The figure in `scale`ths of what is written, rounded, when it is a finite amount of at
    /// most [`MAX_PLAUSIBLE_BILLED`] (`per_unit` to the unit, scaled); else none, and whether
    /// something was written that cannot be one.
    fn scaled(self, scale: f64, per_unit: f64) -> (Option<u64>, bool) {
        match self {
            Amount::Absent => (None, false),
            Amount::Number(value)
                if value.is_finite() && value >= 0.0 && value * scale <= MAX_PLAUSIBLE_BILLED * per_unit =>
            {
                (Some((value * scale).round() as u64), false)
            }
            Amount::Number(_) | Amount::NotANumber => (None, true),
        }
    }
}

/// The counters of a record that could not be read, by what they belong with: input includes
/// its cache reads and writes, and output its reasoning, so one unreadable part leaves out its
/// whole group (a figure made of one read part and one missing part would be wrong).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeftOut {
    pub requests: bool,
    pub input: bool,
    pub output: bool,
}

#[derive(Clone, Copy)]
pub(crate) enum Group {
    Requests,
    Input,
    Output,
}

impl LeftOut {
    pub fn any(self) -> bool {
        self.requests || self.input || self.output
    }

    /// `read` with the counters left out taken from `instead`.
    pub fn fill(self, read: Tokens, instead: Tokens) -> Tokens {
        let mut tokens = read;
        if self.requests {
            tokens.requests = instead.requests;
        }
        if self.input {
            (tokens.input, tokens.cache_read, tokens.cache_write) =
                (instead.input, instead.cache_read, instead.cache_write);
        }
        if self.output {
            (tokens.output, tokens.reasoning) = (instead.output, instead.reasoning);
        }
        tokens
    }

    fn leave_out(&mut self, group: Group) {
        match group {
            Group::Requests => self.requests = true,
            Group::Input => self.input = true,
            Group::Output => self.output = true,
        }
    }
}

/// A counter field that held what cannot be a token count: where it is in its record
/// (`object.field`, either part empty when there is none) and what it held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unusable {
    pub object: &'static str,
    pub field: &'static str,
    pub written: Written,
}

impl Unusable {
    /// Why it is left out: not a count, or not the object the counters belong in.
    pub fn why(&self) -> &'static str {
        if self.field.is_empty() { "not an object of counters" } else { self.written.why() }
    }

    pub fn path(&self) -> String {
        match (self.object, self.field) {
            ("", field) => field.to_string(),
            (object, "") => object.to_string(),
            (object, field) => format!("{object}.{field}"),
        }
    }
}

/// The counters of one record as read: the counts (0 for those left out), which were left
/// out, and the fields that caused it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    pub tokens: Tokens,
    pub left_out: LeftOut,
    pub unusable: Vec<Unusable>,
    /// The tokens hold some that Copilot billed beyond the usage counters: a compaction's
    /// model call, which a shutdown's `usage` leaves out (`compaction`).
    pub compaction: bool,
}

impl Reading {
    /// A count's value, or 0 with its group left out and the field noted.
    pub(crate) fn take(&mut self, object: &'static str, field: &'static str, count: Count, group: Group) -> u64 {
        match count {
            Count::Read(value) => value,
            Count::Unusable(written) => {
                self.spoil(object, field, written, &[group]);
                0
            }
        }
    }

    pub(crate) fn spoil(&mut self, object: &'static str, field: &'static str, written: Written, groups: &[Group]) {
        groups.iter().for_each(|group| self.left_out.leave_out(*group));
        self.unusable.push(Unusable { object, field, written });
    }

    /// Reasoning is part of output: a record that counts more reasoning than output since
    /// `since` (its start, or a cumulative record's previous totals) contradicts itself, so its
    /// output group is left out (neither figure can be trusted). An output below `since` is a
    /// total that went down, which the ledger's own rule takes.
    pub fn hold_reasoning_inside_output(&mut self, since: &Tokens, object: &'static str, field: &'static str) {
        let Tokens { reasoning, output, .. } = self.tokens.minus(since);
        let went_down = self.tokens.output < since.output;
        if !self.left_out.output && !went_down && reasoning > output {
            self.spoil(object, field, Written::AboveOutput { reasoning, output }, &[Group::Output]);
        }
    }

    /// The counts of a group left out are 0, even the parts of it that were read.
    pub(crate) fn finish(mut self) -> Reading {
        self.tokens = self.left_out.fill(self.tokens, Tokens::default());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plausible_whole_numbers_are_counts() {
        for (json, expected) in [
            ("0", Count::Read(0)),
            ("1200", Count::Read(1200)),
            ("1200.0", Count::Read(1200)),
            ("null", Count::Read(0)),
            ("1000000000000", Count::Read(MAX_PLAUSIBLE_COUNT)),
            ("1000000000001", Count::Unusable(Written::Integer(MAX_PLAUSIBLE_COUNT + 1))),
            ("18446744073709551615", Count::Unusable(Written::Integer(u64::MAX))),
            ("1e30", Count::Unusable(Written::Number(1e30))),
            ("1e23", Count::Unusable(Written::Number(1e23))),
            ("-5", Count::Unusable(Written::Negative(-5))),
            ("12.5", Count::Unusable(Written::Number(12.5))),
            ("\"NaN\"", Count::Unusable(Written::Text)),
            ("\"1200\"", Count::Unusable(Written::Text)),
            ("true", Count::Unusable(Written::Bool(true))),
            ("{\"a\":[1]}", Count::Unusable(Written::Object)),
            ("[1,2]", Count::Unusable(Written::Array)),
        ] {
            assert_eq!(serde_json::from_str::<Count>(json).unwrap(), expected, "{json}");
        }
    }

    #[test]
    fn what_was_written_is_told_as_json_writes_it() {
        let told = |written: Written| format!("{written} ({})", written.why());
        assert_eq!(told(Written::Number(1e30)), "1e+30 (above 10^12, the most one record can plausibly count)");
        assert_eq!(told(Written::Number(12.5)), "12.5 (not a whole number)");
        assert_eq!(told(Written::Number(-0.5)), "-0.5 (a negative number)");
        assert_eq!(told(Written::Negative(-3)), "-3 (a negative number)");
        assert_eq!(told(Written::Bool(false)), "false (not a number)");
    }
}
