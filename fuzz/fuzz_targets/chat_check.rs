//! What both chat-log fuzz targets check of a log replayed as the analysis replays it: nothing
//! panics, every line is accounted for, and the rows made again from the whole log are the rows
//! the log gave. Returns how many lines the log had.

use copilot_lens::model::OwnedRow;
use copilot_lens::sources::copilot_vscode::CopilotVscode;
use copilot_lens::sources::log::LogContext;
use copilot_lens::sources::{LogAgain, Source};
use copilot_lens::usage::{Zone, rates::RateTable};

struct Again<'a>(&'a [u8]);

impl LogAgain for Again<'_> {
    fn line_at(&mut self, _offset: u64) -> std::io::Result<Vec<u8>> {
        Err(std::io::Error::other("a chat log is made again whole"))
    }
    fn whole(&mut self) -> std::io::Result<&mut dyn std::io::BufRead> {
        Ok(&mut self.0)
    }
}

/// `source` names the file: `.jsonl` replays it line by line, `.json` reads it whole.
pub fn replays_whole(data: &[u8], source: &str) -> u64 {
    let rates = RateTable::default_table();
    let context = LogContext {
        agent: "copilot-vscode",
        session_id: "s",
        session_id_from_log: false,
        source,
        fallback_project: "",
        fallback_branch: "",
        client_name: "",
        include_thinking: true,
        zone: Zone::Utc,
        rates: &rates,
        file: 0,
    };
    let mut rows: Vec<OwnedRow> = Vec::new();
    let outcome = CopilotVscode.parse_log(&context, &mut &data[..], &mut rows);
    let account = outcome.account;
    let parts = account.with_rows
        + account.skipped_by_rule.values().sum::<u64>()
        + account.unknown_types.values().sum::<u64>()
        + account.bad_lines;
    assert_eq!(parts, account.lines, "every line is accounted for");
    let again = CopilotVscode.rows_again(&context, &mut Again(data), 0).unwrap();
    assert_eq!(again, rows);
    account.lines
}
