//! JSON helpers shared by the importers, and the string writer of the row outputs.

use std::io;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

/// Reads JSON text as JavaScript's `JSON.parse` does where serde_json refuses it: a lone
/// surrogate escape (`"\ud83d"`, what `JSON.stringify` writes of a string cut inside an emoji)
/// reads as U+FFFD and the rest is kept. `read` runs on `text`, and again only when it failed
/// on a lone surrogate, on a copy with each one written `\ufffd` (kept in `spare`, which what
/// is read may borrow from). The copy has the same length, so error columns hold.
pub fn with_lone_surrogates<'a, T, E: ReadError>(
    text: &'a str,
    spare: &'a mut String,
    mut read: impl FnMut(&'a str) -> Result<T, E>,
) -> Result<T, E> {
    match read(text) {
        Err(error) if error.is_lone_surrogate() => {
            *spare = lone_surrogates_replaced(text);
            let repaired: &'a String = spare;
            read(repaired)
        }
        read => read,
    }
}

/// `serde_json::from_str` through `with_lone_surrogates`: every JSON text from input is read so.
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str, spare: &'a mut String) -> serde_json::Result<T> {
    with_lone_surrogates(text, spare, serde_json::from_str)
}

/// `from_str` of bytes: text that is not UTF-8 gets serde_json's own error, which says where.
pub fn from_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8], spare: &'a mut String) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(text) => from_str(text, spare),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// A JSON reader's error, which may say the text holds a lone surrogate escape.
pub trait ReadError {
    fn is_lone_surrogate(&self) -> bool;
}

impl ReadError for serde_json::Error {
    /// These two errors come of nothing else.
    fn is_lone_surrogate(&self) -> bool {
        let message = self.to_string();
        self.is_syntax()
            && (message.starts_with("lone leading surrogate in hex escape")
                || message.starts_with("unexpected end of hex escape"))
    }
}

impl ReadError for jsonc_parser::errors::ParseError {
    /// "Invalid unicode escape sequence. 'D83D (unpaired high surrogate)' ...", and the like.
    fn is_lone_surrogate(&self) -> bool {
        self.to_string().contains(" surrogate)'")
    }
}

/// JSON with comments and trailing commas (VS Code's settings, MCP configurations), read as
/// `from_str` reads JSON.
pub fn from_jsonc<T: DeserializeOwned>(text: &str) -> Result<T, jsonc_parser::errors::ParseError> {
    let options = jsonc_parser::ParseOptions::default();
    with_lone_surrogates(text, &mut String::new(), |text| jsonc_parser::parse_to_serde_value(text, &options))
}

/// `text` with each `\uD800`-`\uDFFF` escape that is not half of a pair written `\ufffd`.
fn lone_surrogates_replaced(text: &str) -> String {
    let bytes = text.as_bytes();
    let unit_at = |at: usize| {
        let hex = bytes.get(at..at + 6).filter(|escape| escape.starts_with(b"\\u"))?;
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut at) = (0, 0);
    while let Some(found) = bytes.get(at..).and_then(|rest| rest.iter().position(|byte| *byte == b'\\')) {
        let start = at + found;
        at = match unit_at(start) {
            Some(0xD800..=0xDBFF) if matches!(unit_at(start + 6), Some(0xDC00..=0xDFFF)) => start + 12,
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[copied..start]);
                out.push_str("\\ufffd");
                copied = start + 6;
                copied
            }
            // Another escape: its second character is never the start of one.
            _ => start + 2,
        };
    }
    out.push_str(&text[copied..]);
    out
}

/// Compact JSON with object keys sorted, the form row texts quote values in.
pub fn compact(value: &Value) -> String {
    // serde_json's Map is ordered by key (the `preserve_order` feature is off), so
    // writing a Value gives sorted keys whatever order the file had.
    value.to_string()
}

/// Compact sorted JSON of a raw value; the raw text itself when it does not parse.
pub fn compact_raw(raw: &RawValue) -> String {
    match from_str::<Value>(raw.get(), &mut String::new()) {
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

/// `text` as a JSON string, quoted and escaped byte for byte as serde_json escapes it, but
/// looked through eight bytes at a time: serde_json's writer looks each byte up in a table, which
/// took an eighth of a native analysis (rows.jsonl holds every text whole).
pub fn write_str(out: &mut impl io::Write, text: &str) -> io::Result<()> {
    let bytes = text.as_bytes();
    out.write_all(b"\"")?;
    let mut from = 0;
    while let Some(at) = next_to_escape(bytes, from) {
        out.write_all(&bytes[from..at])?;
        write_escaped(out, bytes[at])?;
        from = at + 1;
    }
    out.write_all(&bytes[from..])?;
    out.write_all(b"\"")
}

/// The first byte from `from` that JSON escapes: a control byte, `"` or `\`.
fn next_to_escape(bytes: &[u8], mut from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte that is zero (and maybe of bytes after a zero one: the first
    // one marked is always a zero, which is all that is asked).
    let zeros = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    while let Some(eight) = bytes.get(from..from + 8) {
        let word = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
        let marked = below_space | zeros(word ^ (ONES * u64::from(b'"'))) | zeros(word ^ (ONES * u64::from(b'\\')));
        if marked != 0 {
            return Some(from + marked.trailing_zeros() as usize / 8);
        }
        from += 8;
    }
    bytes[from..].iter().position(|&byte| byte < 0x20 || byte == b'"' || byte == b'\\').map(|at| from + at)
}

/// One byte escaped as serde_json writes it.
fn write_escaped(out: &mut impl io::Write, byte: u8) -> io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0C => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            return out.write_all(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xF)],
            ]);
        }
    };
    out.write_all(&[b'\\', short])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_surrogate_reads_as_the_replacement_character_and_the_rest_is_kept() {
        let cases = [
            (r#"{"a":"cut \ud83d","b":1}"#, "cut \u{fffd}"),
            (r#"{"a":"\udc00 low first","b":1}"#, "\u{fffd} low first"),
            (r#"{"a":"\ud83d\ud83d\ude00","b":1}"#, "\u{fffd}\u{1f600}"),
            (r#"{"a":"\ud83d\n","b":1}"#, "\u{fffd}\n"),
            (r#"{"a":"\\ud83d \ud83d\ude00 \u00e9","b":1}"#, "\\ud83d \u{1f600} \u{e9}"),
        ];
        for (text, expected) in cases {
            let mut spare = String::new();
            let value: Value = from_str(text, &mut spare).unwrap_or_else(|error| panic!("{text}: {error}"));
            assert_eq!((value["a"].as_str(), value["b"].as_i64()), (Some(expected), Some(1)), "{text}");
            let with_comment = text.replacen('{', "{// a comment\n", 1);
            let value: Value = from_jsonc(&with_comment).unwrap_or_else(|error| panic!("{with_comment}: {error}"));
            assert_eq!((value["a"].as_str(), value["b"].as_i64()), (Some(expected), Some(1)), "{with_comment}");
        }
    }

    #[test]
    fn only_a_surrogate_error_reads_the_text_again() {
        let mut spare = String::new();
        let borrowed: &str = from_str(r#""plain""#, &mut spare).unwrap();
        assert_eq!(borrowed, "plain");
        assert_eq!(spare, "", "the fast path copies nothing");
        let error = from_str::<Value>(r#"{"a":"\ud83d",}"#, &mut spare).unwrap_err();
        assert!(error.to_string().starts_with("trailing comma at line 1 column 15"), "{error}");
        assert!(!error.is_lone_surrogate());
        assert!(from_str::<Value>(r#"{"a":"\u12"}"#, &mut spare).is_err());
        assert!(from_str::<Value>(r#"{"a":"\ud83d"} \"#, &mut spare).is_err(), "a backslash last");
        assert!(from_slice::<Value>(b"{\"a\":\"\xff\"}", &mut spare).unwrap_err().to_string().contains("column"));
    }
}
