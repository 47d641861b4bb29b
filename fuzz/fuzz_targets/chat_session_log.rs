#![no_main]
//! VS Code's chat session log (a `.jsonl` mutation log, and the same bytes as a `.json`
//! snapshot) on any bytes: every line is accounted for, nothing panics, and the rows made
//! again from the whole log are the rows the log gave.

use libfuzzer_sys::fuzz_target;

#[path = "chat_check.rs"]
mod chat_check;

fuzz_target!(|data: &[u8]| {
    for source in ["s.jsonl", "s.json"] {
        chat_check::replays_whole(data, source);
    }
});
