#![no_main]
//! The cache's entry reader, and the page pack's index reader, from any bytes (`cache_check`).

use libfuzzer_sys::fuzz_target;

#[path = "cache_check.rs"]
mod cache_check;

fuzz_target!(|data: &[u8]| cache_check::reads_any_entry(data));
