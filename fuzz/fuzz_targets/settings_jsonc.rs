#![no_main]
//! settings.json (JSON with comments) on any bytes.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(grants) = copilot_lens::sources::copilot_cli::settings::parse(data) {
        let _ = copilot_lens::sources::copilot_cli::settings::rows(&grants);
    }
});
