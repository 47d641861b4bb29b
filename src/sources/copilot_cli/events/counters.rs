//! Usage counters of the log (checkpoints and per-call records) into the session's ledger.

use super::LogParser;
use crate::sources::copilot_cli::counters::{UsageCheckpointData, UsageRecordData};
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

    pub(super) fn usage_record(&mut self, line: u64, stamp: &str, record: UsageRecordData) {
        let context = self.context;
        if let Some(ledger) = &mut self.outcome.usage {
            let at = LoggedAt { place: Place::Line(line), timestamp: stamp };
            ledger.logged_call(at, record.model(), record.call(), context.rates);
        }
    }
}
