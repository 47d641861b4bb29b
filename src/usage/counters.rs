//! The token counters as the logs write them: `session.shutdown` `data.modelMetrics`
//! (cumulative per model) and `session.usage_record` `data.usage` (one model call).
//! Counts are read leniently: a fractional count is truncated, a negative one or one past
//! `u64` is clamped, and the record is marked so the report can say so.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use super::Tokens;

/// A token count as written; `odd` is set when it was not a non-negative integer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub value: u64,
    pub odd: bool,
}

impl Count {
    /// A count from a number of any kind: fractions truncated, negatives and overflow clamped.
    pub fn from_f64(v: f64) -> Count {
        let value = if v.is_finite() && v > 0.0 { v.min(u64::MAX as f64) as u64 } else { 0 };
        Count { value, odd: v.fract() != 0.0 || v < 0.0 || !v.is_finite() }
    }

    /// A count from text (a database column): integers exactly, other numbers as `from_f64`.
    pub fn from_text(text: &str) -> Count {
        let text = text.trim();
        match text.parse::<u64>() {
            Ok(value) => Count { value, odd: false },
            Err(_) => text.parse::<f64>().map_or(Count { value: 0, odd: true }, Count::from_f64),
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CountVisitor;
        impl Visitor<'_> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a token count")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count { value: v, odd: false })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                Ok(Count { value: v.max(0) as u64, odd: v < 0 })
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
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Count, E> {
                Ok(Count { odd: true, ..Count::from_text(v) })
            }
        }
        deserializer.deserialize_any(CountVisitor)
    }
}

/// `usage` of a model metric, and of a usage record (which also names its model).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UsageCounts {
    pub model: Option<String>,
    pub input_tokens: Count,
    pub output_tokens: Count,
    pub cache_read_tokens: Count,
    pub cache_write_tokens: Count,
    pub reasoning_tokens: Count,
}

impl UsageCounts {
    pub fn tokens(&self, requests: Count) -> (Tokens, bool) {
        let counts = [
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.reasoning_tokens,
            requests,
        ];
        let tokens = Tokens {
            requests: requests.value,
            input: self.input_tokens.value,
            output: self.output_tokens.value,
            cache_read: self.cache_read_tokens.value,
            cache_write: self.cache_write_tokens.value,
            reasoning: self.reasoning_tokens.value,
        };
        (tokens, counts.iter().any(|count| count.odd))
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct Requests {
    pub count: Count,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct ModelMetric {
    pub requests: Requests,
    pub usage: UsageCounts,
}

/// `session.shutdown` `data.modelMetrics`: cumulative totals per model since the session began.
pub type ModelMetrics = BTreeMap<String, ModelMetric>;

/// `session.usage_record` `data`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct UsageRecordData {
    pub usage: UsageCounts,
}

/// The counters of one shutdown line, as the ledger takes them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ShutdownCounters {
    pub model_metrics: ModelMetrics,
}
