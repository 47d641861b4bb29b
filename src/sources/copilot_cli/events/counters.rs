//! Usage counters of the log (checkpoints and per-call records) into the session's ledger.

use super::LogParser;
use crate::usage::counters::{UsageCheckpointData, UsageRecordData};
use crate::usage::ledger::{LoggedAt, Place};

impl LogParser<'_, '_> {
    pub(super) fn usage_checkpoint(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let checkpoint: UsageCheckpointData = serde_json::from_str(data)?;
        if let Some(ledger) = &mut self.outcome.usage {
            ledger.usage_checkpoint(
                LoggedAt { place: Place::Line(line), timestamp: stamp },
                checkpoint.recorded(),
                checkpoint.model(),
            );
        }
        Ok(())
    }

    pub(super) fn usage_record(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let context = self.context;
        let record: UsageRecordData = serde_json::from_str(data)?;
        if let Some(ledger) = &mut self.outcome.usage {
            ledger.logged_call(LoggedAt { place: Place::Line(line), timestamp: stamp }, &record, context.rates);
        }
        Ok(())
    }
}
