#![no_main]
//! The event-log parser on any bytes: every line is accounted for, nothing panics.

use copilot_lens::sources::copilot_cli::events::parse_log;
use copilot_lens::sources::log::LogContext;
use copilot_lens::model::OwnedRow;
use copilot_lens::usage::{Zone, rates::RateTable};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let rates = RateTable::default_table();
    for include_thinking in [false, true] {
        let context = LogContext { agent: "copilot-cli", session_id: "s", session_id_from_log: include_thinking, source: "e", fallback_project: "", fallback_branch: "", client_name: "", include_thinking, zone: Zone::Utc, rates: &rates, file: 0 };
        let mut rows: Vec<OwnedRow> = Vec::new();
        let outcome = parse_log(&context, data, &mut rows);
        let account = outcome.account;
        let parts = account.with_rows + account.skipped_by_rule.values().sum::<u64>() + account.unknown_types.values().sum::<u64>() + account.bad_lines;
        assert_eq!(parts, account.lines);
    }
});
