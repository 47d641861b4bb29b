#![no_main]
//! The write-ahead log replay on any bytes: scan, then apply onto an image of the size the
//! scan reports (capped so the fuzzer does not spend its time allocating).

use copilot_lens::sources::store::wal;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(index) = wal::scan(data) {
        let size = index.database_pages.unwrap_or(0) as usize * index.page_size;
        if size <= 64 << 20 {
            let mut image = vec![0u8; size];
            let _ = wal::apply(data, &index, &mut image);
        }
    }
});
