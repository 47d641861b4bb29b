//! Deduplication of the secondary sources (session-store.db, command-history-state.json,
//! rewind-file-snapshots) against the rows of the primary ones ("Past-use rows and secondary
//! sources" in the format specification).
//!
//! Rows are compared by compact keys (a 64-bit hash of session, turn type and text, and one of
//! turn type and text alone), never by keeping their texts, so memory follows the row count.
//!
//! - A dated secondary row first pairs one-to-one with a primary copy of itself within the
//!   tolerance, nearest in time first; a paired row drops.
//! - A dated row left unpaired drops when another secondary copy within the tolerance paired,
//!   or was kept before it (the store's repeated turns, a prompt both the store and a snapshot
//!   hold): one copy of each lost prompt survives.
//! - An undated row (the history) has no session and no time: it drops when any row of the
//!   same turn type and text exists.

use std::collections::HashSet;
use std::hash::Hasher;

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::model::{HeldRow, Row, TurnType};
use crate::order;

/// 3600 s: the store writes a turn when it ends, and a turn with many tools can run long.
pub const SECONDARY_TOLERANCE_MS: i64 = 3_600_000;

/// A text as deduplication compares it: its hash. Every key of a row is made of it, so a row
/// whose text is not at hand whole (the page's cache keeps only a long text's start) is keyed
/// as its text was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TextKey(u64);

impl TextKey {
    pub fn of(text: &str) -> TextKey {
        TextKey(xxh3_64(text.as_bytes()))
    }
}

/// What the tallies read of a row's text: its key, and whether a secondary source can hold a
/// copy of the row (`has_secondary_copies`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RowText {
    pub key: TextKey,
    pub secondary: bool,
}

impl RowText {
    pub fn of(row: &Row<'_>) -> RowText {
        RowText { key: TextKey::of(&row.text), secondary: has_secondary_copies(row.turn_type, &row.text) }
    }
}

/// The key of a row within its session.
pub fn session_key(session_id: &str, turn_type: TurnType, text: TextKey) -> u64 {
    let mut hasher = Xxh3::new();
    hasher.write(session_id.as_bytes());
    hasher.write_u8(0xff);
    hasher.write_u8(turn_type as u8);
    hasher.write_u64(text.0);
    hasher.finish()
}

/// The key of a row whatever its session.
pub fn global_key(turn_type: TurnType, text: TextKey) -> u64 {
    let mut hasher = Xxh3::new();
    hasher.write_u8(turn_type as u8);
    hasher.write_u64(text.0);
    hasher.finish()
}

/// The key of a row given twice (the same session's log, or the same file, in two homes):
/// everything a row says but where it was read; `text` is its text's.
pub fn copy_key(row: &Row<'_>, text: TextKey) -> u64 {
    let mut hasher = Xxh3::new();
    for part in [row.session_id, &row.timestamp_utc, row.model, row.tool_name, row.tool_use_id] {
        hasher.write(part.as_bytes());
        hasher.write_u8(0xff);
    }
    hasher.write_u8(row.turn_type as u8);
    hasher.write_u64(text.0);
    hasher.finish()
}

/// Whether a primary row can have a secondary copy, and so needs a key: the secondary sources
/// only give prompts, replies, tool calls and results, and session names.
pub fn has_secondary_copies(turn_type: TurnType, text: &str) -> bool {
    turn_type != TurnType::System && turn_type != TurnType::Thinking || text.starts_with("session name: ")
}

/// The keys of the primary rows.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PrimaryKeys {
    dated: Vec<(u64, i64)>,
    global: HashSet<u64>,
}

impl PrimaryKeys {
    pub fn add(&mut self, session_id: &str, turn_type: TurnType, text: TextKey, millis: Option<i64>) {
        if let Some(millis) = millis {
            self.dated.push((session_key(session_id, turn_type, text), millis));
        }
        self.global.insert(global_key(turn_type, text));
    }

    pub fn merge(&mut self, other: PrimaryKeys) {
        self.dated.extend(other.dated);
        self.global.extend(other.global);
    }

    pub fn len(&self) -> usize {
        self.dated.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dated.is_empty()
    }
}

/// A secondary row as deduplication sees it.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub session_key: u64,
    pub global_key: u64,
    pub millis: Option<i64>,
}

impl Candidate {
    pub fn new(session_id: &str, turn_type: TurnType, text: TextKey, millis: Option<i64>) -> Self {
        Candidate {
            session_key: session_key(session_id, turn_type, text),
            global_key: global_key(turn_type, text),
            millis,
        }
    }

    /// A held row as deduplication sees it.
    pub fn of_held(row: &HeldRow) -> Self {
        match row {
            HeldRow::Row(row) => Candidate::new(&row.session_id, row.turn_type, TextKey::of(&row.text), row.millis()),
            HeldRow::Turn(turn) => {
                Candidate { session_key: turn.session_key, global_key: turn.global_key, millis: turn.millis }
            }
        }
    }
}

/// Which candidates to keep, in candidate order (the order decides ties).
pub fn keep_secondary(primary: PrimaryKeys, candidates: &[Candidate], tolerance_ms: i64) -> Vec<bool> {
    let mut keep = vec![false; candidates.len()];
    let PrimaryKeys { mut dated, mut global } = primary;
    // These two sort every dated row: the standard library's own sorts, inlined for their
    // types, keep the native analysis as fast as it was (order.rs is for the rest).
    dated.sort_unstable();

    let mut by_key: Vec<usize> = (0..candidates.len()).filter(|&i| candidates[i].millis.is_some()).collect();
    by_key.sort_unstable_by_key(|&i| (candidates[i].session_key, candidates[i].millis, i));
    for group in by_key.chunk_by(|&a, &b| candidates[a].session_key == candidates[b].session_key) {
        let key = candidates[group[0]].session_key;
        let start = dated.partition_point(|&(k, _)| k < key);
        let end = dated.partition_point(|&(k, _)| k <= key);
        let primaries: Vec<i64> = dated[start..end].iter().map(|&(_, millis)| millis).collect();
        let verdicts = decide_group(
            group.iter().map(|&i| candidates[i].millis.unwrap_or_default()).collect(),
            &primaries,
            tolerance_ms,
        );
        for (&index, verdict) in group.iter().zip(verdicts) {
            keep[index] = verdict;
        }
    }
    // Every dated copy, kept or not, is a copy the history's entries can collapse onto.
    global.extend(candidates.iter().filter(|c| c.millis.is_some()).map(|c| c.global_key));
    for (index, candidate) in candidates.iter().enumerate() {
        if candidate.millis.is_none() {
            keep[index] = global.insert(candidate.global_key);
        }
    }
    keep
}

/// One key's secondary copies (times, ascending) against its primary copies' times.
fn decide_group(secondary: Vec<i64>, primaries: &[i64], tolerance_ms: i64) -> Vec<bool> {
    let near = |a: i64, b: i64| (a - b).abs() <= tolerance_ms;
    let mut pairs: Vec<(i64, usize, usize)> = Vec::new();
    for (s, &time) in secondary.iter().enumerate() {
        let from = primaries.partition_point(|&p| p < time.saturating_sub(tolerance_ms));
        for (p, &primary) in primaries.iter().enumerate().skip(from) {
            if !near(time, primary) {
                break;
            }
            pairs.push(((time - primary).abs(), s, p));
        }
    }
    order::sort(&mut pairs);
    let mut paired = vec![false; secondary.len()];
    let mut taken = vec![false; primaries.len()];
    for (_, s, p) in pairs {
        if !paired[s] && !taken[p] {
            paired[s] = true;
            taken[p] = true;
        }
    }
    let mut keep = vec![false; secondary.len()];
    for s in 0..secondary.len() {
        if paired[s] {
            continue;
        }
        let covered = (0..secondary.len()).any(|other| {
            other != s && near(secondary[s], secondary[other]) && (paired[other] || (other < s && keep[other]))
        });
        keep[s] = !covered;
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: i64 = SECONDARY_TOLERANCE_MS;

    #[test]
    fn pairs_one_to_one_nearest_first_and_collapses_the_rest() {
        // One logged prompt at t=0; a snapshot copy at -50 ms and a store copy at +14 s.
        assert_eq!(decide_group(vec![-50, 14_000], &[0], HOUR), [false, false]);
        // The log lost the prompt: two secondary copies collapse into one.
        assert_eq!(decide_group(vec![0, 5_000], &[], HOUR), [true, false]);
        // Copies far apart are different prompts.
        assert_eq!(decide_group(vec![0, 3 * HOUR], &[], HOUR), [true, true]);
        // A prompt typed twice and logged twice: both store copies pair.
        assert_eq!(decide_group(vec![100, 600_100], &[0, 600_000], HOUR), [false, false]);
    }

    #[test]
    fn undated_rows_drop_when_any_copy_exists() {
        let mut primary = PrimaryKeys::default();
        primary.add("s", TurnType::User, TextKey::of("fix it"), Some(0));
        let candidates = [
            Candidate::new("s", TurnType::User, TextKey::of("lint"), Some(10)),
            Candidate::new("", TurnType::User, TextKey::of("lint"), None),
            Candidate::new("", TurnType::User, TextKey::of("fix it"), None),
            Candidate::new("", TurnType::User, TextKey::of("/model"), None),
        ];
        assert_eq!(keep_secondary(primary, &candidates, HOUR), [true, false, false, true]);
    }
}
