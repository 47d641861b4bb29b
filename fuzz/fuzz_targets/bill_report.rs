#![no_main]
//! GitHub's usage report (`usage::bill`) on any bytes: read for a login asked for and for the
//! only login, given twice (the second counted once), and reconciled with no local usage.

use std::sync::OnceLock;

use copilot_lens::usage::bill::Reports;
use copilot_lens::usage::rates::RateTable;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    static RATES: OnceLock<RateTable> = OnceLock::new();
    let rates = RATES.get_or_init(RateTable::default_table);
    for asked in [None, Some("Mona")] {
        let mut reports = Reports::new(asked, &[]);
        if reports.read("a.csv", data).is_ok() && reports.read("b.csv", data).is_ok() {
            let _ = reports.reconcile(std::iter::empty(), rates);
        }
    }
});
