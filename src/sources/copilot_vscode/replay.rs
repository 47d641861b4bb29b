//! VS Code's chat session log replayed (`objectMutationLog.ts` in VS Code): each line is one
//! entry `{kind, k, v, i}` on the session's state. Kind 0 (Initial) is the whole state, and a
//! later kind-0 line starts it again (VS Code compacts a log by rewriting it from one); kind 1
//! (Set) puts `v` at path `k`; kind 2 (Push) cuts the array at `k` to length `i` when `i` is
//! given (a retried request replaces those after it) and appends the items of `v`; kind 3
//! (Delete) removes what is at `k`.
//!
//! Only one session's state is held, and only what the rows and usage need of it: the parts of
//! a request that no row reads (context references, variables, edited files, follow-ups) and
//! response parts of kinds that give no row are dropped as they come in, and entries below them
//! are skipped.

use serde::Deserialize;
use serde_json::{Map, Value};

/// A step of an entry's path: an object's key or an array's index.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Key {
    // u64, not usize: a log's numbers read the same in the 32-bit page as natively.
    Index(u64),
    Name(String),
}

#[derive(Deserialize)]
struct Entry {
    kind: u8,
    #[serde(default)]
    k: Vec<Key>,
    v: Option<Value>,
    i: Option<u64>,
}

/// A request's keys that no row or figure reads.
const UNREAD_REQUEST_KEYS: [&str; 9] = [
    "variableData",
    "contentReferences",
    "codeCitations",
    "followups",
    "usedContext",
    "responseMarkdownInfo",
    "editedFileEvents",
    "shouldBeRemovedOnSend",
    "confirmation",
];
/// The session's keys that no row or figure reads.
const UNREAD_SESSION_KEYS: [&str; 3] = ["inputState", "pendingRequests", "repoData"];
/// What rows and figures read of a request's `result.metadata` (its tool-call results repeat
/// the tools' output, and its rounds the calls: both can be most of a session).
const READ_METADATA_KEYS: [&str; 6] =
    ["resolvedModel", "promptTokens", "outputTokens", "modelTotals", "toolCallRounds", "responseId"];
/// What they read of a request's `result`.
const READ_RESULT_KEYS: [&str; 3] = ["metadata", "errorDetails", "details"];
/// Response parts that give rows; others are kept only as their kind, so that indices hold.
const READ_PART_KINDS: [&str; 4] = ["markdownContent", "toolInvocationSerialized", "thinking", "subagent"];

/// A session's state as the log's lines so far leave it, with the line that last set each
/// request (rows name it as their `source_line`), and the parts of applied lines left out
/// for being of another kind than their place holds (line, what and where).
#[derive(Debug, Default)]
pub struct Replay {
    state: Option<Value>,
    request_lines: Vec<u64>,
    left_out: Vec<(u64, String)>,
}

impl Replay {
    /// A state read whole (a `.json` snapshot, its one line).
    pub fn whole(mut state: Value) -> Replay {
        prune(&[], &mut state);
        let mut left_out = Vec::new();
        conform_below(&mut Vec::new(), &mut state, &mut left_out);
        let requests = state.get("requests").and_then(Value::as_array).map_or(0, Vec::len);
        let left_out = left_out.into_iter().map(|what| (1, what)).collect();
        Replay { state: Some(state), request_lines: vec![1; requests], left_out }
    }

    /// The parts of applied lines left out, by line: each is null in the state, as a deleted
    /// value is, and the rest of its line applied.
    pub fn left_out(&self) -> &[(u64, String)] {
        &self.left_out
    }

    pub fn state(&self) -> Option<&Value> {
        self.state.as_ref()
    }

    /// The line that last set the request at `index` (1 for a snapshot).
    pub fn request_line(&self, index: usize) -> u64 {
        self.request_lines.get(index).copied().unwrap_or(1)
    }

    /// Applies one line; an error says why it could not be (the state is as before). A value
    /// of another kind than its path holds (a text set where the requests are) is an error; one
    /// inside the value (a request that is a number) is left out, and said (`left_out`).
    pub fn apply(&mut self, bytes: &[u8], line: u64) -> Result<(), String> {
        let mut left_out = Vec::new();
        self.apply_entry(bytes, line, &mut left_out)?;
        self.left_out.extend(left_out.into_iter().map(|what| (line, what)));
        Ok(())
    }

    fn apply_entry(&mut self, bytes: &[u8], line: u64, left_out: &mut Vec<String>) -> Result<(), String> {
        let mut spare = String::new();
        let entry: Entry =
            crate::json::from_slice(bytes, &mut spare).map_err(|error| format!("not an entry: {error}"))?;
        if entry.kind == 0 {
            let mut state = entry.v.ok_or("an initial entry without its state (v)")?;
            if !state.is_object() {
                return Err("an initial state that is not an object".into());
            }
            prune(&[], &mut state);
            conform_below(&mut Vec::new(), &mut state, left_out);
            let requests = state.get("requests").and_then(Value::as_array).map_or(0, Vec::len);
            self.state = Some(state);
            self.request_lines = vec![line; requests];
            return Ok(());
        }
        let Some(state) = self.state.as_mut() else {
            return Err(format!("a kind-{} entry before any initial (kind 0) entry", entry.kind));
        };
        let path = entry.k;
        if path.is_empty() || is_unread(&path) {
            return Ok(());
        }
        match entry.kind {
            // A value set to undefined is written without `v`: it is gone, as after a delete.
            1 if entry.v.is_none() => delete(state, &path)?,
            1 => {
                let mut value = entry.v.unwrap_or(Value::Null);
                if let Some(shape) = Shape::at(&path).filter(|shape| !shape.holds(&value)) {
                    return Err(format!(
                        "a set of {} to {}, where {} belongs",
                        path_text(&path),
                        described(&value),
                        shape.name()
                    ));
                }
                prune(&path, &mut value);
                let mut value_path = path.clone();
                let mut below = Vec::new();
                conform_below(&mut value_path, &mut value, &mut below);
                set(state, &path, value)?;
                left_out.extend(below);
                track_set(&mut self.request_lines, &path, line);
            }
            2 => {
                let mut items = match entry.v {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(items)) => items,
                    Some(_) => return Err("a push whose items (v) are not an array".into()),
                };
                // Each item as it will be indexed, after the cut.
                let first = entry.i.unwrap_or_else(|| array_length(state, &path));
                let mut item_path = path.clone();
                let mut below = Vec::new();
                for (at, item) in items.iter_mut().enumerate() {
                    item_path.push(Key::Index(first.saturating_add(at as u64)));
                    prune(&item_path, item);
                    conform(&mut item_path, item, &mut below);
                    item_path.pop();
                }
                let added = items.len();
                push(state, &path, items, entry.i)?;
                left_out.extend(below);
                if path == [Key::Name("requests".into())] {
                    self.request_lines.truncate(entry.i.map_or(self.request_lines.len(), position));
                    self.request_lines.extend(std::iter::repeat_n(line, added));
                }
            }
            3 => {
                delete(state, &path)?;
                if path == [Key::Name("requests".into())] {
                    self.request_lines.clear();
                }
            }
            kind => return Err(format!("an entry of unknown kind {kind}")),
        }
        Ok(())
    }
}

/// The kind of value the rows and figures read at a place of the state: one of another kind
/// there would lose what it holds unsaid (a text set where the requests are). `null` is no
/// value, as VS Code's `undefined`, and fits anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Object,
    Array,
    Text,
    /// A request's message: an object with its text, or the text (older builds).
    ObjectOrText,
    /// Epoch milliseconds, or a time written as text.
    Time,
}

impl Shape {
    /// The kind of value `path` holds, where the rows and figures read one.
    fn at(path: &[Key]) -> Option<Shape> {
        // No shaped place is deeper than five steps.
        let mut names = [None; 5];
        for (name, key) in names.iter_mut().zip(path) {
            *name = match key {
                Key::Name(known) => Some(known.as_str()),
                Key::Index(_) => None,
            };
        }
        Some(match names.get(..path.len())? {
            [] => Shape::Object,
            [Some("requests")] => Shape::Array,
            [Some("customTitle")] => Shape::Text,
            [Some("creationDate")] => Shape::Time,
            [Some("requests"), None] => Shape::Object,
            [Some("requests"), None, Some(field)] => match *field {
                "response" | "modelTotals" => Shape::Array,
                "result" => Shape::Object,
                "message" => Shape::ObjectOrText,
                "modelId" | "requestId" => Shape::Text,
                "timestamp" => Shape::Time,
                _ => return None,
            },
            [Some("requests"), None, Some("message"), Some("text")] => Shape::Text,
            [Some("requests"), None, Some("result"), Some("metadata")] => Shape::Object,
            [Some("requests"), None, Some("result"), Some("metadata"), Some("toolCallRounds" | "modelTotals")] => {
                Shape::Array
            }
            _ => return None,
        })
    }

    /// Whether a place of some shape may lie below `path`.
    fn below(path: &[Key]) -> bool {
        let named = |key: &Key, name: &str| matches!(key, Key::Name(known) if known == name);
        match path {
            [] => true,
            [requests, rest @ ..] if named(requests, "requests") => match rest {
                [] | [Key::Index(_)] => true,
                [Key::Index(_), field] => named(field, "message") || named(field, "result"),
                [Key::Index(_), result, metadata] => named(result, "result") && named(metadata, "metadata"),
                _ => false,
            },
            _ => false,
        }
    }

    fn holds(self, value: &Value) -> bool {
        matches!(
            (self, value),
            (_, Value::Null)
                | (Shape::Object | Shape::ObjectOrText, Value::Object(_))
                | (Shape::Array, Value::Array(_))
                | (Shape::Text | Shape::ObjectOrText | Shape::Time, Value::String(_))
                | (Shape::Time, Value::Number(_))
        )
    }

    fn name(self) -> &'static str {
        match self {
            Shape::Object => "an object",
            Shape::Array => "an array",
            Shape::Text => "a text",
            Shape::ObjectOrText => "an object or a text",
            Shape::Time => "a time",
        }
    }
}

/// `value`, about to be put at `path`, if of another kind than the place holds, becomes null
/// and is said in `left_out`; else what lies below it is checked so.
fn conform(path: &mut Vec<Key>, value: &mut Value, left_out: &mut Vec<String>) {
    match Shape::at(path) {
        Some(shape) if !shape.holds(value) => {
            left_out.push(format!(
                "{} is {}, where {} belongs: left out",
                path_text(path),
                described(value),
                shape.name()
            ));
            *value = Value::Null;
        }
        _ => conform_below(path, value, left_out),
    }
}

/// `conform` for each value inside `value` (at `path`) where a shaped place may be.
fn conform_below(path: &mut Vec<Key>, value: &mut Value, left_out: &mut Vec<String>) {
    if !Shape::below(path) {
        return;
    }
    match value {
        Value::Object(object) => {
            for (name, child) in object.iter_mut() {
                path.push(Key::Name(name.clone()));
                conform(path, child, left_out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (at, child) in items.iter_mut().enumerate() {
                path.push(Key::Index(at as u64));
                conform(path, child, left_out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// A JSON value in a diagnostic: a scalar as written, a string or container by its kind.
pub(super) fn described(value: &Value) -> String {
    match value {
        Value::String(_) => "a string".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
        scalar => scalar.to_string(),
    }
}

/// Whether a path lies below something dropped as unread.
fn is_unread(path: &[Key]) -> bool {
    match path {
        [Key::Name(key), ..] if UNREAD_SESSION_KEYS.contains(&key.as_str()) => true,
        [Key::Name(requests), Key::Index(_), Key::Name(key), rest @ ..] if requests == "requests" => {
            let other_than = |at: usize, keys: &[&str]| matches!(rest.get(at), Some(Key::Name(name)) if !keys.contains(&name.as_str()));
            let is = |at: usize, name: &str| matches!(rest.get(at), Some(Key::Name(known)) if known == name);
            UNREAD_REQUEST_KEYS.contains(&key.as_str())
                || (key == "message" && other_than(0, &["text"]))
                || (key == "result" && other_than(0, &READ_RESULT_KEYS))
                || (key == "result" && is(0, "metadata") && other_than(1, &READ_METADATA_KEYS))
                // Below a round, only its thinking tokens are kept.
                || (key == "result" && is(1, "toolCallRounds") && rest.len() > 3)
        }
        _ => false,
    }
}

/// Drops what no row reads from a value about to be put at `path`.
fn prune(path: &[Key], value: &mut Value) {
    let requests = Key::Name("requests".into());
    let response = Key::Name("response".into());
    match path {
        [] => {
            if let Some(session) = value.as_object_mut() {
                for key in UNREAD_SESSION_KEYS {
                    session.remove(key);
                }
            }
            if let Some(all) = value.get_mut("requests").and_then(Value::as_array_mut) {
                all.iter_mut().for_each(prune_request);
            }
        }
        [first] if *first == requests => {
            if let Some(all) = value.as_array_mut() {
                all.iter_mut().for_each(prune_request);
            }
        }
        [first, Key::Index(_)] if *first == requests => prune_request(value),
        [first, Key::Index(_), Key::Name(result)] if *first == requests && result == "result" => prune_result(value),
        [first, Key::Index(_), third] if *first == requests && *third == response => {
            if let Some(parts) = value.as_array_mut() {
                parts.iter_mut().for_each(prune_part);
            }
        }
        [first, Key::Index(_), third, Key::Index(_)] if *first == requests && *third == response => prune_part(value),
        _ => {}
    }
}

fn prune_request(request: &mut Value) {
    let Some(request) = request.as_object_mut() else { return };
    for key in UNREAD_REQUEST_KEYS {
        request.remove(key);
    }
    if let Some(message) = request.get_mut("message").and_then(Value::as_object_mut) {
        message.retain(|key, _| key == "text");
    }
    if let Some(parts) = request.get_mut("response").and_then(Value::as_array_mut) {
        parts.iter_mut().for_each(prune_part);
    }
    if let Some(result) = request.get_mut("result") {
        prune_result(result);
    }
}

/// Keeps of a result the model (`details` names it in an exported chat), the tokens, each
/// round's thinking tokens and the error.
fn prune_result(result: &mut Value) {
    let Some(result) = result.as_object_mut() else { return };
    result.retain(|key, _| READ_RESULT_KEYS.contains(&key.as_str()));
    let Some(metadata) = result.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    metadata.retain(|key, _| READ_METADATA_KEYS.contains(&key.as_str()));
    if let Some(rounds) = metadata.get_mut("toolCallRounds").and_then(Value::as_array_mut) {
        for round in rounds.iter_mut() {
            let tokens = round.pointer("/thinking/tokens").cloned();
            *round = match tokens {
                Some(tokens) => serde_json::json!({"thinking": {"tokens": tokens}}),
                None => Value::Object(Map::new()),
            };
        }
    }
}

/// Keeps a response part that gives rows (markdown has no kind), else only its kind.
fn prune_part(part: &mut Value) {
    let Some(object) = part.as_object_mut() else { return };
    match object.get("kind").and_then(Value::as_str) {
        None => {}
        Some(kind) if READ_PART_KINDS.contains(&kind) => {}
        Some(kind) => {
            let kind = Value::String(kind.to_string());
            *object = Map::from_iter([("kind".to_string(), kind)]);
        }
    }
}

/// An index as a position in an array: one that no usize holds is past the end of any.
fn position(index: u64) -> usize {
    usize::try_from(index).unwrap_or(usize::MAX)
}

fn track_set(request_lines: &mut Vec<u64>, path: &[Key], line: u64) {
    match path {
        [Key::Name(requests)] if requests == "requests" => request_lines.iter_mut().for_each(|at| *at = line),
        [Key::Name(requests), Key::Index(index)] if requests == "requests" => {
            let index = position(*index);
            if index < request_lines.len() {
                request_lines[index] = line;
            } else if index == request_lines.len() {
                request_lines.push(line);
            }
        }
        _ => {}
    }
}

/// The length of the array at `path` (0 where there is none).
fn array_length(state: &Value, path: &[Key]) -> u64 {
    let mut current = state;
    for key in path {
        let next = match (current, key) {
            (Value::Object(object), Key::Name(name)) => object.get(name),
            (Value::Object(object), Key::Index(index)) => object.get(&index.to_string()),
            (Value::Array(array), Key::Index(index)) => array.get(position(*index)),
            _ => None,
        };
        let Some(next) = next else { return 0 };
        current = next;
    }
    current.as_array().map_or(0, |array| array.len() as u64)
}

/// The value at `path`, for changing it.
fn walk<'a>(state: &'a mut Value, path: &[Key]) -> Result<&'a mut Value, String> {
    let mut current = state;
    for (depth, key) in path.iter().enumerate() {
        let next = match (current, key) {
            (Value::Object(object), Key::Name(name)) => object.get_mut(name),
            (Value::Object(object), Key::Index(index)) => object.get_mut(&index.to_string()),
            (Value::Array(array), Key::Index(index)) => array.get_mut(position(*index)),
            _ => None,
        };
        current = next.ok_or_else(|| format!("its path {} does not exist", path_text(&path[..=depth])))?;
    }
    Ok(current)
}

fn set(state: &mut Value, path: &[Key], value: Value) -> Result<(), String> {
    let (last, parent) = path.split_last().expect("a set's path is not empty");
    match (walk(state, parent)?, last) {
        (Value::Object(object), Key::Name(name)) => {
            object.insert(name.clone(), value);
        }
        (Value::Object(object), Key::Index(index)) => {
            object.insert(index.to_string(), value);
        }
        (Value::Array(array), Key::Index(index)) if position(*index) < array.len() => array[position(*index)] = value,
        (Value::Array(array), Key::Index(index)) if position(*index) == array.len() => array.push(value),
        (Value::Array(array), Key::Index(_)) => return Err(past_the_end(path, array)),
        _ => return Err(format!("its path {} cannot be set", path_text(path))),
    }
    Ok(())
}

fn push(state: &mut Value, path: &[Key], items: Vec<Value>, cut_at: Option<u64>) -> Result<(), String> {
    let (last, parent) = path.split_last().expect("a push's path is not empty");
    let slot = match (walk(state, parent)?, last) {
        (Value::Object(object), Key::Name(name)) => {
            can_push_onto(object.get(name), path, cut_at)?;
            object.entry(name.clone()).or_insert(Value::Null)
        }
        (Value::Array(array), Key::Index(index)) => {
            let Some(slot) = array.get_mut(position(*index)) else { return Err(past_the_end(path, array)) };
            can_push_onto(Some(slot), path, cut_at)?;
            slot
        }
        _ => return Err(format!("its path {} cannot hold an array", path_text(path))),
    };
    if slot.is_null() {
        *slot = Value::Array(Vec::new());
    }
    if let Value::Array(array) = slot {
        array.truncate(cut_at.map_or(array.len(), position));
        array.extend(items);
    }
    Ok(())
}

/// Whether a push (cut at `cut_at` when given) can go onto what is at `path` (an array, or
/// nothing yet where an array may be), else why not.
fn can_push_onto(slot: Option<&Value>, path: &[Key], cut_at: Option<u64>) -> Result<(), String> {
    let length = match slot {
        None | Some(Value::Null) => 0,
        Some(Value::Array(array)) => array.len(),
        Some(_) => return Err(format!("a push onto {}, which is not an array", path_text(path))),
    };
    match cut_at {
        // VS Code writes `i` only to cut an array (`arr.length = i`, a retried request): one
        // past the end is no log it wrote, and would make room for nothing the line holds.
        Some(cut_at) if position(cut_at) > length => {
            return Err(format!("its cut index {cut_at} is past the end of {} (length {length})", path_text(path)));
        }
        _ => {}
    }
    match Shape::at(path) {
        Some(shape) if shape != Shape::Array => {
            Err(format!("a push onto {}, where {} belongs", path_text(path), shape.name()))
        }
        _ => Ok(()),
    }
}

fn delete(state: &mut Value, path: &[Key]) -> Result<(), String> {
    let (last, parent) = path.split_last().expect("a delete's path is not empty");
    match (walk(state, parent)?, last) {
        (Value::Object(object), Key::Name(name)) => {
            object.remove(name);
        }
        (Value::Object(object), Key::Index(index)) => {
            object.remove(&index.to_string());
        }
        // As VS Code does (the slot becomes undefined): the array keeps its length.
        (Value::Array(array), Key::Index(index)) if position(*index) < array.len() => {
            array[position(*index)] = Value::Null
        }
        (Value::Array(array), Key::Index(_)) => return Err(past_the_end(path, array)),
        _ => return Err(format!("its path {} cannot be deleted", path_text(path))),
    }
    Ok(())
}

/// Why an index of `path` cannot apply to the array it points into.
fn past_the_end(path: &[Key], array: &[Value]) -> String {
    format!("its path {} is past the end of its array (length {})", path_text(path), array.len())
}

/// `requests[2].result`.
fn path_text(path: &[Key]) -> String {
    let mut text = String::new();
    for key in path {
        match key {
            Key::Index(index) => text.push_str(&format!("[{index}]")),
            Key::Name(name) if text.is_empty() => text.push_str(name),
            Key::Name(name) => text.push_str(&format!(".{name}")),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn replay(lines: &[Value]) -> (Replay, Vec<String>) {
        let mut replay = Replay::default();
        let mut errors = Vec::new();
        for (at, line) in lines.iter().enumerate() {
            if let Err(error) = replay.apply(line.to_string().as_bytes(), at as u64 + 1) {
                errors.push(format!("{}: {error}", at + 1));
            }
        }
        (replay, errors)
    }

    fn texts(replay: &Replay) -> Vec<&str> {
        let requests = replay.state().unwrap()["requests"].as_array().unwrap();
        requests.iter().map(|request| request["message"]["text"].as_str().unwrap_or("-")).collect()
    }

    fn request(text: &str) -> Value {
        json!({"requestId": text, "message": {"text": text, "parts": [{"text": text}]}, "variableData": {"variables": []}})
    }

    #[test]
    fn entries_apply_as_vs_code_applies_them() {
        let (replay, errors) = replay(&[
            json!({"kind": 0, "v": {"sessionId": "s", "requests": [request("a")], "inputState": {"x": 1}}}),
            json!({"kind": 2, "k": ["requests"], "v": [request("b"), request("c")]}),
            json!({"kind": 1, "k": ["requests", 1, "result"], "v": {"metadata": {"promptTokens": 5}}}),
            // A retried request: everything from index 1 on is replaced.
            json!({"kind": 2, "k": ["requests"], "v": [request("b2")], "i": 1}),
            json!({"kind": 1, "k": ["requests", 1, "promptTokens"], "v": 18561}),
            json!({"kind": 1, "k": ["customTitle"], "v": "Title"}),
            json!({"kind": 3, "k": ["customTitle"]}),
            json!({"kind": 1, "k": ["requests", 0, "modelState"], "v": {"value": 1}}),
            json!({"kind": 1, "k": ["requests", 0, "modelState"]}),
            json!({"kind": 1, "k": ["inputState", "selectedModel"], "v": "dropped, not an error"}),
        ]);
        assert_eq!(errors, Vec::<String>::new());
        assert_eq!(texts(&replay), ["a", "b2"]);
        let state = replay.state().unwrap();
        assert_eq!(state["requests"][1]["promptTokens"], 18561);
        assert_eq!(state["requests"][1].get("result"), None, "the replaced request's result went with it");
        assert_eq!(state.get("customTitle"), None);
        assert_eq!(state["requests"][0].get("modelState"), None, "a set without a value unsets it");
        assert_eq!(state.get("inputState"), None);
        assert_eq!(state["requests"][0].get("variableData"), None);
        assert_eq!(state["requests"][0]["message"], json!({"text": "a"}));
        assert_eq!((replay.request_line(0), replay.request_line(1)), (1, 4));
    }

    #[test]
    fn a_new_initial_entry_starts_again() {
        let (replay, errors) = replay(&[
            json!({"kind": 0, "v": {"requests": [request("a"), request("b")]}}),
            json!({"kind": 0, "v": {"requests": [request("c")]}}),
        ]);
        assert!(errors.is_empty());
        assert_eq!(texts(&replay), ["c"]);
        assert_eq!(replay.request_line(0), 2);
    }

    #[test]
    fn bad_entries_are_refused_and_the_state_stays() {
        let (replay, errors) = replay(&[
            json!({"kind": 1, "k": ["customTitle"], "v": "before any initial entry"}),
            json!({"kind": 0, "v": {"requests": [request("a")]}}),
            json!({"kind": 1, "k": ["requests", 5, "result"], "v": {}}),
            json!({"kind": 2, "k": ["requests", 0, "message", "text"], "v": ["x"]}),
            json!({"kind": 7, "k": ["x"]}),
            json!({"kind": 2, "k": ["requests"], "v": "not items"}),
        ]);
        assert_eq!(
            errors,
            [
                "1: a kind-1 entry before any initial (kind 0) entry",
                "3: its path requests[5] does not exist",
                "4: a push onto requests[0].message.text, which is not an array",
                "5: an entry of unknown kind 7",
                "6: a push whose items (v) are not an array",
            ]
        );
        assert_eq!(texts(&replay), ["a"]);
        let mut not_json = Replay::default();
        assert!(not_json.apply(b"{\"kind\":0,", 1).unwrap_err().starts_with("not an entry"));
    }

    #[test]
    fn a_value_of_another_kind_than_its_place_is_refused_or_left_out_and_said() {
        let (replay, errors) = replay(&[
            json!({"kind": 0, "v": {"requests": [request("a"), "b", {"message": {"text": "c"}, "response": 5}]}}),
            json!({"kind": 1, "k": ["requests"], "v": "not the requests"}),
            json!({"kind": 1, "k": ["requests", 0, "modelTotals"], "v": {"inputTokens": 5}}),
            json!({"kind": 2, "k": ["requests", 0, "result"], "v": [1]}),
            json!({"kind": 1, "k": ["requests", 0, "timestamp"], "v": [1]}),
            json!({"kind": 2, "k": ["requests"], "v": [7, request("d")]}),
            json!({"kind": 1, "k": ["requests", 4, "result"], "v": {"metadata": {"modelTotals": "many"}}}),
            // Null is no value, as VS Code's undefined: it fits anywhere.
            json!({"kind": 1, "k": ["requests", 0, "result"], "v": null}),
            json!({"kind": 1, "k": ["requests", 4, "timestamp"], "v": "2026-10-20T09:00:00Z"}),
            // Items of a wrong kind are placed by where the cut puts them, however far.
            json!({"kind": 2, "k": ["requests"], "v": [7, 8], "i": u64::MAX}),
        ]);
        assert_eq!(
            errors,
            [
                "2: a set of requests to a string, where an array belongs",
                "3: a set of requests[0].modelTotals to an object, where an array belongs",
                "4: a push onto requests[0].result, where an object belongs",
                "5: a set of requests[0].timestamp to an array, where a time belongs",
                "10: its cut index 18446744073709551615 is past the end of requests (length 5)",
            ]
        );
        assert_eq!(
            replay.left_out(),
            [
                (1, "requests[1] is a string, where an object belongs: left out".to_string()),
                (1, "requests[2].response is 5, where an array belongs: left out".to_string()),
                (6, "requests[3] is 7, where an object belongs: left out".to_string()),
                (
                    7,
                    "requests[4].result.metadata.modelTotals is a string, where an array belongs: left out".to_string()
                ),
            ]
        );
        let state = replay.state().unwrap();
        assert_eq!(texts(&replay), ["a", "-", "c", "-", "d"]);
        assert_eq!(
            (state["requests"][1].clone(), state["requests"][2]["response"].clone()),
            (Value::Null, Value::Null)
        );
        assert_eq!(state["requests"][4]["result"], json!({"metadata": {"modelTotals": null}}));
        assert_eq!(state["requests"][4]["timestamp"], "2026-10-20T09:00:00Z");
        let snapshot = Replay::whole(json!({"customTitle": 5, "requests": [request("a")]}));
        assert_eq!(snapshot.left_out(), [(1, "customTitle is 5, where a text belongs: left out".to_string())]);
    }

    #[test]
    fn an_index_past_an_arrays_end_makes_the_line_bad_and_costs_nothing() {
        let (replay, errors) = replay(&[
            json!({"kind": 0, "v": {"requests": [request("a"), request("b")]}}),
            // Each of these once made room for `i` items (32 TB for the first).
            json!({"kind": 2, "k": ["requests"], "v": [request("x")], "i": 1_000_000_000_000u64}),
            json!({"kind": 2, "k": ["requests"], "i": 3}),
            json!({"kind": 2, "k": ["customTitle"], "i": 1}),
            json!({"kind": 1, "k": ["requests", 3], "v": request("x")}),
            json!({"kind": 3, "k": ["requests", 2]}),
            json!({"kind": 2, "k": ["requests", 7], "v": []}),
            // Negative, fractional and too-large numbers are no index at all.
            json!({"kind": 2, "k": ["requests"], "i": -1}),
            json!({"kind": 2, "k": ["requests"], "i": 1.5}),
            json!({"kind": 1, "k": ["requests", 1e300], "v": 1}),
            // Still applied: a cut at the end, a set one past it (the array grows by one).
            json!({"kind": 2, "k": ["requests"], "v": [request("c")], "i": 2}),
            json!({"kind": 1, "k": ["requests", 3], "v": request("d")}),
        ]);
        assert_eq!(errors.len(), 9, "{errors:#?}");
        assert_eq!(
            errors[..6],
            [
                "2: its cut index 1000000000000 is past the end of requests (length 2)",
                "3: its cut index 3 is past the end of requests (length 2)",
                "4: its cut index 1 is past the end of customTitle (length 0)",
                "5: its path requests[3] is past the end of its array (length 2)",
                "6: its path requests[2] is past the end of its array (length 2)",
                "7: its path requests[7] is past the end of its array (length 2)",
            ]
        );
        assert!(errors[6..].iter().all(|error| error.contains("not an entry")), "{errors:#?}");
        assert_eq!(texts(&replay), ["a", "b", "c", "d"]);
        assert_eq!(replay.state().unwrap().get("customTitle"), None, "a refused push leaves nothing behind");
    }

    #[test]
    fn a_result_keeps_only_what_rows_and_figures_read() {
        let result = json!({"metadata": {"promptTokens": 5, "toolCallResults": {"c1": {"content": ["long output"]}},
            "toolCallRounds": [{"response": "text", "toolCalls": [{"arguments": "{}"}], "thinking": {"tokens": 7, "text": "x"}}, {"id": "b"}]},
            "errorDetails": {"message": "failed"}, "timings": {"totalElapsed": 3}});
        let (replay, errors) = replay(&[
            json!({"kind": 0, "v": {"requests": [request("a")]}}),
            json!({"kind": 1, "k": ["requests", 0, "result"], "v": result}),
            json!({"kind": 1, "k": ["requests", 0, "result", "metadata", "toolCallResults", "c2"], "v": "below a dropped key"}),
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        let kept = json!({"metadata": {"promptTokens": 5, "toolCallRounds": [{"thinking": {"tokens": 7}}, {}]},
            "errorDetails": {"message": "failed"}});
        assert_eq!(replay.state().unwrap()["requests"][0]["result"], kept);
    }

    #[test]
    fn parts_that_give_no_row_keep_only_their_kind() {
        let parts = json!([
            {"value": "markdown"},
            {"kind": "textEditGroup", "edits": [[{"text": "long"}]]},
            {"kind": "toolInvocationSerialized", "toolId": "t"},
        ]);
        let (replay, _) = replay(&[
            json!({"kind": 0, "v": {"requests": [request("a")]}}),
            json!({"kind": 1, "k": ["requests", 0, "response"], "v": parts}),
        ]);
        let response = &replay.state().unwrap()["requests"][0]["response"];
        assert_eq!(response[1], json!({"kind": "textEditGroup"}));
        assert_eq!(response[2]["toolId"], "t");
        assert_eq!(response[0]["value"], "markdown");
    }
}
