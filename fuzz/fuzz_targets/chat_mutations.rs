#![no_main]
//! VS Code's chat session log built from structure: sequences of mutation entries (kinds 0-3
//! and others) with paths of the session's own keys, any keys and any indexes (huge, negative,
//! fractional), `i` of every kind and values of any JSON shape, strings with lone surrogate
//! escapes among them. The log is replayed as the analysis replays it: nothing panics, memory
//! stays within what the log's bytes can hold, every line is accounted for, and the rows made
//! again from the whole log are the rows the log gave.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[path = "chat_check.rs"]
mod chat_check;

/// The keys a session's state has, so that paths reach what the replay keeps.
const NAMES: [&str; 24] = [
    "requests",
    "response",
    "result",
    "metadata",
    "message",
    "text",
    "kind",
    "value",
    "promptTokens",
    "outputTokens",
    "modelTotals",
    "toolCallRounds",
    "thinking",
    "tokens",
    "customTitle",
    "sessionId",
    "timestamp",
    "modelId",
    "requestId",
    "toolId",
    "resolvedModel",
    "errorDetails",
    "inputState",
    "variableData",
];

#[derive(Arbitrary, Debug)]
enum Number {
    Small(u8),
    Huge(u64),
    Negative(i64),
    Fraction(f64),
    /// Out of every integer type's range.
    Exponent(i16),
}

#[derive(Arbitrary, Debug)]
enum Text {
    Known(u8),
    Any(String),
    /// `JSON.stringify` of a string cut inside an emoji.
    LoneSurrogate(String),
}

#[derive(Arbitrary, Debug)]
enum Json {
    Null,
    Bool(bool),
    Number(Number),
    Text(Text),
    Array(Vec<Json>),
    Object(Vec<(Text, Json)>),
}

#[derive(Arbitrary, Debug)]
enum Step {
    Name(Text),
    Index(Number),
}

#[derive(Arbitrary, Debug)]
enum Entry {
    Initial(Json),
    Set {
        path: Vec<Step>,
        value: Option<Json>,
    },
    Push {
        path: Vec<Step>,
        items: Option<Json>,
        cut_at: Option<Number>,
    },
    Delete {
        path: Vec<Step>,
    },
    Other {
        kind: Number,
        path: Vec<Step>,
        value: Option<Json>,
    },
    /// A line that is not an entry (no newline in it).
    Junk(String),
}

fn number(number: &Number, out: &mut String) {
    let text = match number {
        Number::Small(n) => n.to_string(),
        Number::Huge(n) => n.to_string(),
        Number::Negative(n) => n.to_string(),
        Number::Fraction(n) if n.is_finite() => format!("{n:?}"),
        Number::Fraction(_) => "1.5".to_string(),
        Number::Exponent(n) => format!("1e{n}"),
    };
    out.push_str(&text);
}

fn text(text: &Text, out: &mut String) {
    match text {
        Text::Known(at) => out.push_str(&serde_json::to_string(NAMES[*at as usize % NAMES.len()]).unwrap()),
        Text::Any(text) => out.push_str(&serde_json::to_string(text).unwrap()),
        Text::LoneSurrogate(text) => {
            let quoted = serde_json::to_string(text).unwrap();
            out.push_str(&quoted[..quoted.len() - 1]);
            out.push_str("\\ud83d\"");
        }
    }
}

fn json(value: &Json, out: &mut String) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
        Json::Number(value) => number(value, out),
        Json::Text(value) => text(value, out),
        Json::Array(items) => {
            out.push('[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                json(item, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (at, (key, value)) in members.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                text(key, out);
                out.push(':');
                json(value, out);
            }
            out.push('}');
        }
    }
}

fn entry(kind: &str, path: &[Step], value: Option<&Json>, cut_at: Option<&Number>, out: &mut String) {
    out.push_str(&format!("{{\"kind\":{kind},\"k\":["));
    for (at, step) in path.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        match step {
            Step::Name(name) => text(name, out),
            Step::Index(index) => number(index, out),
        }
    }
    out.push(']');
    if let Some(value) = value {
        out.push_str(",\"v\":");
        json(value, out);
    }
    if let Some(cut_at) = cut_at {
        out.push_str(",\"i\":");
        number(cut_at, out);
    }
    out.push('}');
}

fn log(entries: &[Entry]) -> String {
    let mut out = String::new();
    for item in entries {
        match item {
            Entry::Initial(state) => entry("0", &[], Some(state), None, &mut out),
            Entry::Set { path, value } => entry("1", path, value.as_ref(), None, &mut out),
            Entry::Push { path, items, cut_at } => entry("2", path, items.as_ref(), cut_at.as_ref(), &mut out),
            Entry::Delete { path } => entry("3", path, None, None, &mut out),
            Entry::Other { kind, path, value } => {
                let mut written = String::new();
                number(kind, &mut written);
                entry(&written, path, value.as_ref(), None, &mut out);
            }
            Entry::Junk(junk) => out.push_str(&junk.replace(['\n', '\r'], " ")),
        }
        out.push('\n');
    }
    out
}

fuzz_target!(|entries: Vec<Entry>| {
    let text = log(&entries);
    let lines = chat_check::replays_whole(text.as_bytes(), "s.jsonl");
    assert_eq!(lines, entries.len() as u64, "every line is read");
});
