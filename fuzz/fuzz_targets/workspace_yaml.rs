#![no_main]
//! workspace.yaml on any bytes.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(workspace) = copilot_lens::sources::copilot_cli::workspace::parse(data) {
        let _ = workspace.rows("s", data.len() % 2 == 0);
    }
});
