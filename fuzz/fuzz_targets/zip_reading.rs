#![no_main]
//! A zip root from any bytes: list it and read every entry it lists.

use std::io::{Cursor, Read};

use copilot_lens::input::zip::ZipRoot;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((mut zip, listing)) = ZipRoot::open(Cursor::new(data), "fuzz.zip") {
        for file in &listing.files {
            if let Ok(mut entry) = zip.open_entry(&file.path) {
                let mut sink = Vec::new();
                let _ = entry.by_ref().take(16 << 20).read_to_end(&mut sink);
            }
        }
    }
});
