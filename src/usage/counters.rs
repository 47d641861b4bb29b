//! The token counters as the logs write them: `session.shutdown` `data.modelMetrics`
//! (cumulative per model) and `session.usage_record` `data.usage` (one model call).
//!
//! Counts are read leniently but never guessed: a value that cannot be a token count (a
//! negative or fractional number, one above [`MAX_PLAUSIBLE_COUNT`], a string, a bool, an
//! object) is never added, and a wrongly shaped object spoils the counters inside it, not the
//! line. [`Reading`] says which counters of a record were left out, and why.

use std::collections::BTreeMap;
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

/// `usage` of a model metric, and of a usage record (which also names its model).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UsageCounts {
    pub model: Option<String>,
    pub input_tokens: Count,
    pub output_tokens: Count,
    pub cache_read_tokens: Count,
    pub cache_write_tokens: Count,
    pub reasoning_tokens: Count,
    /// A call made with the person's own model key, which GitHub does not bill (usage records).
    #[serde(deserialize_with = "crate::json::lenient")]
    pub is_byok: Option<bool>,
    /// A call whose model Auto chose, billed at Auto's discount (usage records).
    #[serde(deserialize_with = "crate::json::lenient")]
    pub is_auto: Option<bool>,
    /// The call's premium requests (usage records; the store's `request_multiplier`).
    pub cost: Amount,
    /// What Copilot billed for the call (usage records; the store's `total_nano_aiu`).
    #[serde(deserialize_with = "crate::json::lenient")]
    pub copilot_usage: Option<CopilotUsage>,
}

/// A call's `copilotUsage`: its billed amount in nano-AIU.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CopilotUsage {
    pub total_nano_aiu: Amount,
}

impl UsageCounts {
    /// What Copilot recorded as billed for one call.
    pub fn recorded(&self) -> Recorded {
        let nano_aiu = self.copilot_usage.as_ref().map_or(Amount::Absent, |usage| usage.total_nano_aiu);
        Recorded::read(nano_aiu, 1.0, self.cost)
    }
}

/// What Copilot itself recorded as billed: nano-AIU (10^9 to the AI credit) and premium
/// requests (legacy plans; in thousandths, since a request can count a fraction). Cumulative
/// in a shutdown's model metrics, like the tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
enum Group {
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
}

impl Reading {
    /// A count's value, or 0 with its group left out and the field noted.
    fn take(&mut self, object: &'static str, field: &'static str, count: Count, group: Group) -> u64 {
        match count {
            Count::Read(value) => value,
            Count::Unusable(written) => {
                self.spoil(object, field, written, &[group]);
                0
            }
        }
    }

    fn spoil(&mut self, object: &'static str, field: &'static str, written: Written, groups: &[Group]) {
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
    fn finish(mut self) -> Reading {
        self.tokens = self.left_out.fill(self.tokens, Tokens::default());
        self
    }
}

impl UsageCounts {
    fn read_into(&self, object: &'static str, reading: &mut Reading) {
        let tokens = Tokens {
            requests: reading.tokens.requests,
            input: reading.take(object, "inputTokens", self.input_tokens, Group::Input),
            cache_read: reading.take(object, "cacheReadTokens", self.cache_read_tokens, Group::Input),
            cache_write: reading.take(object, "cacheWriteTokens", self.cache_write_tokens, Group::Input),
            output: reading.take(object, "outputTokens", self.output_tokens, Group::Output),
            reasoning: reading.take(object, "reasoningTokens", self.reasoning_tokens, Group::Output),
        };
        reading.tokens = tokens;
        reading.hold_reasoning_inside_output(&Tokens::default(), object, "reasoningTokens");
    }

    /// One call's counters (a store's per-call row).
    pub fn read_call(&self) -> Reading {
        let mut reading = Reading { tokens: Tokens { requests: 1, ..Tokens::default() }, ..Reading::default() };
        self.read_into("", &mut reading);
        reading.finish()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Requests {
    pub count: Count,
    /// Premium requests (legacy plans).
    pub cost: Amount,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelMetric {
    pub requests: Shaped<Requests>,
    pub usage: Shaped<UsageCounts>,
    pub total_nano_aiu: Amount,
}

impl Shaped<ModelMetric> {
    /// What Copilot recorded as billed, cumulative (none where it wrote nothing readable).
    pub fn recorded(&self) -> Recorded {
        match self {
            Shaped::Object(metric) => {
                let cost = match &metric.requests {
                    Shaped::Object(requests) => requests.cost,
                    Shaped::Not(_) => Amount::Absent,
                };
                Recorded::read(metric.total_nano_aiu, 1.0, cost)
            }
            Shaped::Not(_) => Recorded::default(),
        }
    }

    /// The metric's cumulative counters; field paths are relative to the metric.
    pub fn read(&self) -> Reading {
        let mut reading = Reading::default();
        match self {
            Shaped::Not(written) => reading.spoil("", "", *written, &[Group::Requests, Group::Input, Group::Output]),
            Shaped::Object(metric) => {
                match &metric.requests {
                    Shaped::Object(requests) => {
                        reading.tokens.requests = reading.take("requests", "count", requests.count, Group::Requests)
                    }
                    Shaped::Not(written) => reading.spoil("requests", "", *written, &[Group::Requests]),
                }
                read_usage(&metric.usage, &mut reading);
            }
        }
        reading.finish()
    }
}

fn read_usage(usage: &Shaped<UsageCounts>, reading: &mut Reading) {
    match usage {
        Shaped::Object(usage) => usage.read_into("usage", reading),
        Shaped::Not(written) => reading.spoil("usage", "", *written, &[Group::Input, Group::Output]),
    }
}

/// `session.shutdown` `data.modelMetrics`: cumulative totals per model since the session began.
pub type ModelMetrics = BTreeMap<String, Shaped<ModelMetric>>;

/// `session.usage_record` `data`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct UsageRecordData {
    pub usage: Shaped<UsageCounts>,
}

impl UsageRecordData {
    /// What Copilot recorded as billed for the call.
    pub fn recorded(&self) -> Recorded {
        match &self.usage {
            Shaped::Object(usage) => usage.recorded(),
            Shaped::Not(_) => Recorded::default(),
        }
    }

    /// Whether the call was made with the person's own key, and whether Auto chose its model.
    pub fn byok_auto(&self) -> (bool, bool) {
        match &self.usage {
            Shaped::Object(usage) => (usage.is_byok == Some(true), usage.is_auto == Some(true)),
            Shaped::Not(_) => (false, false),
        }
    }

    /// The call's model (empty when unnamed).
    pub fn model(&self) -> &str {
        match &self.usage {
            Shaped::Object(usage) => usage.model.as_deref().unwrap_or_default(),
            Shaped::Not(_) => "",
        }
    }

    /// The call's counters (one request); field paths are relative to `data`.
    pub fn read(&self) -> Reading {
        let mut reading = Reading { tokens: Tokens { requests: 1, ..Tokens::default() }, ..Reading::default() };
        read_usage(&self.usage, &mut reading);
        reading.finish()
    }
}

/// The counters of one shutdown line, as the ledger takes them. `None`: no `modelMetrics`
/// (absent or `null`), which counts nothing (an empty object counts a session without calls).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ShutdownCounters {
    pub model_metrics: Option<Shaped<ModelMetrics>>,
    /// The same per agent instance: `main` and each sub-agent (none when not written, or not
    /// in its shape).
    #[serde(deserialize_with = "crate::json::lenient")]
    pub agent_metrics: Option<BTreeMap<String, AgentMetric>>,
    /// The session-wide billed totals (1.0.40 and later), which can exceed the per-model sum
    /// when a process before it ended without a shutdown.
    pub total_nano_aiu: Amount,
    pub total_premium_requests: Amount,
}

impl ShutdownCounters {
    /// The session-wide billed totals as written.
    pub fn session_recorded(&self) -> Recorded {
        Recorded::read(self.total_nano_aiu, 1.0, self.total_premium_requests)
    }
}

/// `session.usage_checkpoint` `data`: the session's running billed totals, written while it
/// runs (a lower bound for a session that never shuts down).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UsageCheckpointData {
    pub total_nano_aiu: Amount,
    pub total_premium_requests: Amount,
    /// The models whose prompt cache it tracks (1.0.75 and later), the latest expiry last.
    #[serde(deserialize_with = "crate::json::lenient")]
    pub model_cache_state: Option<Vec<ModelCacheState>>,
}

/// One entry of a checkpoint's `modelCacheState`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelCacheState {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub model_id: Option<String>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub cache_expires_at: Option<String>,
}

impl UsageCheckpointData {
    pub fn recorded(&self) -> Recorded {
        Recorded::read(self.total_nano_aiu, 1.0, self.total_premium_requests)
    }

    /// The model the checkpoint was last used with: of its cache states, the latest to
    /// expire (none when it names none).
    pub fn model(&self) -> Option<&str> {
        let states = self.model_cache_state.as_deref().unwrap_or_default();
        let named =
            states.iter().filter_map(|state| Some((state.cache_expires_at.as_deref(), state.model_id.as_deref()?)));
        named.max_by_key(|(expires, _)| *expires).map(|(_, model)| model).filter(|model| !model.is_empty())
    }
}

/// One agent's share of a shutdown's cumulative totals (`agentMetrics[id]`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentMetric {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub agent_name: Option<String>,
    pub model_metrics: ModelMetrics,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(json: &str) -> Reading {
        serde_json::from_str::<Shaped<ModelMetric>>(json).unwrap().read()
    }

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

    #[test]
    fn an_unreadable_part_leaves_out_its_group_only() {
        let reading = metric(
            r#"{"requests":{"count":3},"usage":{"inputTokens":900,"cacheReadTokens":-1,"outputTokens":50,"reasoningTokens":10}}"#,
        );
        assert_eq!(reading.left_out, LeftOut { requests: false, input: true, output: false });
        assert_eq!(reading.tokens, Tokens { requests: 3, output: 50, reasoning: 10, ..Tokens::default() });
        assert_eq!(reading.unusable.iter().map(Unusable::path).collect::<Vec<_>>(), ["usage.cacheReadTokens"]);
    }

    #[test]
    fn reasoning_above_output_leaves_out_the_output_group() {
        let reading =
            metric(r#"{"requests":{"count":1},"usage":{"inputTokens":900,"outputTokens":50,"reasoningTokens":80}}"#);
        assert_eq!(reading.left_out, LeftOut { requests: false, input: false, output: true });
        assert_eq!(reading.tokens, Tokens { requests: 1, input: 900, ..Tokens::default() });
        let [unusable] = reading.unusable.as_slice() else { panic!("{:?}", reading.unusable) };
        assert_eq!(
            format!("{} is {} ({})", unusable.path(), unusable.written, unusable.why()),
            "usage.reasoningTokens is 80, more than the output's 50 (reasoning is part of output)"
        );
        // Since earlier totals: 40 more reasoning against 20 more output.
        let mut reading = metric(r#"{"usage":{"outputTokens":120,"reasoningTokens":60}}"#);
        reading.hold_reasoning_inside_output(&Tokens { output: 100, reasoning: 20, ..Tokens::default() }, "usage", "r");
        assert!(reading.left_out.output);
        let mut whole = metric(r#"{"usage":{"outputTokens":120,"reasoningTokens":60}}"#);
        whole.hold_reasoning_inside_output(&Tokens { output: 60, reasoning: 20, ..Tokens::default() }, "usage", "r");
        assert_eq!(whole.left_out, LeftOut::default());
        // An output that went down is the ledger's `total_went_down`, not this.
        let mut lower = metric(r#"{"usage":{"outputTokens":80,"reasoningTokens":60}}"#);
        lower.hold_reasoning_inside_output(&Tokens { output: 100, reasoning: 20, ..Tokens::default() }, "usage", "r");
        assert_eq!(lower.left_out, LeftOut::default());
    }

    #[test]
    fn a_wrongly_shaped_object_spoils_what_it_holds() {
        let reading = metric(r#"{"requests":true,"usage":{"inputTokens":900}}"#);
        assert_eq!(reading.left_out, LeftOut { requests: true, ..LeftOut::default() });
        assert_eq!(reading.tokens.input, 900);
        assert_eq!(reading.unusable, [Unusable { object: "requests", field: "", written: Written::Bool(true) }]);
        let reading = metric(r#"{"requests":{"count":2},"usage":[1]}"#);
        assert_eq!(reading.left_out, LeftOut { requests: false, input: true, output: true });
        assert_eq!(reading.tokens.requests, 2);
        assert_eq!(metric("7").left_out, LeftOut { requests: true, input: true, output: true });
        let shutdown: ShutdownCounters = serde_json::from_str(r#"{"modelMetrics":"none"}"#).unwrap();
        assert_eq!(shutdown.model_metrics, Some(Shaped::Not(Written::Text)));
        for missing in ["{}", r#"{"modelMetrics":null}"#] {
            assert_eq!(serde_json::from_str::<ShutdownCounters>(missing).unwrap().model_metrics, None);
        }
    }
}
