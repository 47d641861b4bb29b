//! The usage-only reading of an event log: a line is parsed only when its bytes contain the
//! name of one of the two types that carry counters, so a run costs little more than reading
//! the files.

use std::io::{self, BufRead};

use memchr::memmem::Finder;

use super::counters::{ShutdownCounters, UsageRecordData};
use super::ledger::SessionLedger;
use super::rates::RateTable;
use crate::artifacts::events::Envelope;
use crate::lines::LineReader;

/// How many lines the scan read, parsed and could not parse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub lines: u64,
    pub parsed: u64,
    pub bad: u64,
}

pub fn scan_log(reader: impl BufRead, ledger: &mut SessionLedger, rates: &RateTable) -> io::Result<ScanStats> {
    let shutdown = Finder::new(b"session.shutdown");
    let record = Finder::new(b"session.usage_record");
    let mut stats = ScanStats::default();
    let mut lines = LineReader::new(reader);
    while let Some(line) = lines.next_line()? {
        stats.lines += 1;
        if record.find(line.bytes).is_none() && shutdown.find(line.bytes).is_none() {
            continue;
        }
        let parsed =
            std::str::from_utf8(line.bytes).ok().and_then(|text| serde_json::from_str::<Envelope<'_>>(text).ok());
        let Some(envelope) = parsed else {
            stats.bad += 1;
            continue;
        };
        let data = envelope.data.map_or("{}", |raw| raw.get());
        let millis = crate::time::parse_millis(envelope.timestamp.or_empty());
        let applied = match envelope.kind.or_empty() {
            "session.usage_record" => {
                serde_json::from_str::<UsageRecordData>(data).map(|record| ledger.call(millis, &record.usage, rates))
            }
            "session.shutdown" => serde_json::from_str::<ShutdownCounters>(data).map(|counters| {
                ledger.checkpoint(
                    envelope.id.or_empty(),
                    millis,
                    envelope.agent_id.non_empty().is_some(),
                    &counters.model_metrics,
                )
            }),
            _ => continue,
        };
        match applied {
            Ok(()) => stats.parsed += 1,
            Err(_) => stats.bad += 1,
        }
    }
    Ok(stats)
}
