//! JSON helpers shared by the importers.

use serde_json::Value;
use serde_json::value::RawValue;

/// Compact JSON with object keys sorted, the form row texts quote values in.
pub fn compact(value: &Value) -> String {
    // serde_json's Map is ordered by key (the `preserve_order` feature is off), so
    // writing a Value gives sorted keys whatever order the file had.
    value.to_string()
}

/// Compact sorted JSON of a raw value; the raw text itself when it does not parse.
pub fn compact_raw(raw: &RawValue) -> String {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(value) => compact(&value),
        Err(_) => raw.get().to_string(),
    }
}

/// A JSON value read as row text: strings as they are, `null` as nothing, others compact.
pub fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(compact(other)),
    }
}

/// A field kept when it has the expected type, else none: never an error of the record
/// (`#[serde(deserialize_with = "crate::json::lenient")]`).
pub fn lenient<'de, D: serde::Deserializer<'de>, T: serde::de::DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    let value = <Value as serde::Deserialize>::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}
