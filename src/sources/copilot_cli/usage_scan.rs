//! The usage-only reading of an event log: the bytes are searched, a chunk at a time, for the
//! names of the types that carry counters or tell how they count (the start's version, the
//! resumes), and only the lines holding one are parsed. A
//! run costs little more than reading the files.

use std::io::{self, Read};

use memchr::memmem::Finder;

use super::counters::{ShutdownCounters, UsageCheckpointData, UsageRecordData};
use crate::usage::ledger::{LoggedAt, Place, SessionLedger};
use crate::usage::rates::RateTable;
use crate::usage::resumes::{ResumeData, StartData};
use serde::Deserialize;

use crate::sources::copilot_cli::events::Text;
use crate::sources::log::ScanStats;

/// Scans a whole log into `ledger`.
pub fn scan_log(input: impl Read, ledger: &mut SessionLedger, rates: &RateTable) -> io::Result<ScanStats> {
    let finder = Finder::new(b"session.");
    let mut stats = ScanStats::default();
    stats.bytes = crate::lines::scan_whole_lines(input, |region, base, _| {
        scan_region(region, base, &finder, ledger, rates, &mut stats);
    })?;
    Ok(stats)
}

/// Parses the lines of `region` (whole lines, from byte `base` of the input) that hold a
/// counter type's name.
fn scan_region(
    region: &[u8],
    base: u64,
    finder: &Finder<'_>,
    ledger: &mut SessionLedger,
    rates: &RateTable,
    stats: &mut ScanStats,
) {
    let mut next_line = 0;
    for at in finder.find_iter(region) {
        if at < next_line {
            continue; // already handled this line
        }
        let rest = &region[at + b"session.".len()..];
        let counter = if rest.starts_with(b"usage_record\"") {
            Counter::Call
        } else if rest.starts_with(b"shutdown\"") {
            Counter::Shutdown
        } else if rest.starts_with(b"usage_checkpoint\"") {
            Counter::Checkpoint
        } else if rest.starts_with(b"start\"") {
            Counter::Start
        } else if rest.starts_with(b"resume\"") {
            Counter::Resume
        } else {
            continue;
        };
        let start = memchr::memrchr(b'\n', &region[..at]).map_or(0, |newline| newline + 1);
        let end = memchr::memchr(b'\n', &region[at..]).map_or(region.len(), |newline| at + newline);
        next_line = end + 1;
        let place = Place::Byte(base + start as u64);
        match apply_line(&region[start..end], place, ledger, rates, counter) {
            Some(true) => stats.parsed += 1,
            Some(false) => {}
            None => {
                stats.bad += 1;
                stats.bad_offsets.push(base + start as u64);
            }
        }
    }
}

/// A counter line parsed in one pass, its `data` straight into the counters' shape.
#[derive(Deserialize)]
struct CounterLine<'a, T> {
    #[serde(rename = "type", borrow)]
    kind: Text<'a>,
    #[serde(borrow, default)]
    timestamp: Text<'a>,
    #[serde(borrow, default)]
    id: Text<'a>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Text<'a>,
    #[serde(default = "Option::default")]
    data: Option<T>,
}

/// The kinds of line that carry counters.
#[derive(Clone, Copy)]
enum Counter {
    Call,
    Shutdown,
    Checkpoint,
    /// `session.start` and `session.resume`: how resumed shutdowns count.
    Start,
    Resume,
}

/// `Some(true)` when the line was a counter line and was applied, `Some(false)` when it was
/// another type, `None` when it could not be read.
fn apply_line(
    line: &[u8],
    place: Place,
    ledger: &mut SessionLedger,
    rates: &RateTable,
    counter: Counter,
) -> Option<bool> {
    let text = std::str::from_utf8(crate::lines::without_bom(line)).ok()?;
    let mut spare = String::new();
    if let Counter::Start = counter {
        let line: CounterLine<'_, StartData> = crate::json::from_str(text, &mut spare).ok()?;
        if line.kind.get() != Some("session.start") {
            return Some(false);
        }
        ledger.started(line.data.unwrap_or_default().copilot_version.as_deref());
    } else if let Counter::Resume = counter {
        let line: CounterLine<'_, ResumeData> = crate::json::from_str(text, &mut spare).ok()?;
        if line.kind.get() != Some("session.resume") {
            return Some(false);
        }
        ledger.resumed(line.data.unwrap_or_default().session_limits);
    } else if let Counter::Checkpoint = counter {
        let line: CounterLine<'_, UsageCheckpointData> = crate::json::from_str(text, &mut spare).ok()?;
        if line.kind.get() != Some("session.usage_checkpoint") {
            return Some(false);
        }
        let data = line.data.unwrap_or_default();
        let at = LoggedAt { place, timestamp: line.timestamp.or_empty() };
        ledger.usage_checkpoint(at, data.recorded(), data.model());
    } else if let Counter::Call = counter {
        let line: CounterLine<'_, UsageRecordData> = crate::json::from_str(text, &mut spare).ok()?;
        if line.kind.get() != Some("session.usage_record") {
            return Some(false);
        }
        let data = line.data.unwrap_or_default();
        ledger.logged_call(LoggedAt { place, timestamp: line.timestamp.or_empty() }, data.model(), data.call(), rates);
    } else {
        let line: CounterLine<'_, ShutdownCounters> = crate::json::from_str(text, &mut spare).ok()?;
        if line.kind.get() != Some("session.shutdown") {
            return Some(false);
        }
        let data = line.data.unwrap_or_default();
        let at = LoggedAt { place, timestamp: line.timestamp.or_empty() };
        ledger.checkpoint(at, line.id.or_empty(), line.agent_id.non_empty().is_some(), &data);
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::Trickle;
    use crate::usage::Zone;

    #[test]
    fn finds_counter_lines_wherever_the_chunks_cut() {
        let record = r#"{"type":"session.usage_record","data":{"usage":{"model":"gpt-5.4","inputTokens":10,"outputTokens":2}},"id":"r","timestamp":"2026-10-01T09:00:00.000Z"}"#;
        let shutdown = r#"{"type":"session.shutdown","data":{"modelMetrics":{"gpt-5.4":{"requests":{"count":1},"usage":{"inputTokens":10,"outputTokens":2}}}},"id":"s","timestamp":"2026-10-01T09:00:01.000Z"}"#;
        let noise = r#"{"type":"user.message","data":{"content":"mentions session.shutdown in text"}}"#;
        let log = format!("{noise}\n{record}\n{noise}\n{shutdown}\n{{\"type\":\"session.shutdown\",\"data\":{{\"cut");
        let rates = RateTable::default_table();
        for step in [1, 7, 64, 1 << 20] {
            let mut ledger = SessionLedger::new(Zone::Utc);
            let stats = scan_log(Trickle(log.as_bytes(), step), &mut ledger, &rates).unwrap();
            assert_eq!((stats.parsed, stats.bad, stats.bytes), (2, 1, log.len() as u64), "step {step}");
            assert_eq!((ledger.checkpoints, ledger.calls.requests), (1, 1));
        }
    }
}
