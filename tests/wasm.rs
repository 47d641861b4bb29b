//! The core compiled to WebAssembly and run in Node: the format specification's fixture gives
//! exactly the rows of the native run (the golden file the native tests check).
//!
//! `cargo test --target wasm32-unknown-unknown --no-default-features --test wasm`

#![cfg(target_arch = "wasm32")]

use copilot_lens::analysis::{Options, analyze};
use copilot_lens::input::memory::{MemoryRoot, MemoryRoots};
use copilot_lens::model::JsonlRowWriter;
use wasm_bindgen_test::wasm_bindgen_test;

/// The modification time the native golden run gives every file (2026-10-01T09:05:00Z).
const FIXED_MTIME_MS: i64 = 1_790_845_500_000;

macro_rules! fixture_files {
    ($($path:literal),* $(,)?) => {
        [$(($path, include_bytes!(concat!("../fixtures/spec-sample/", $path)).as_slice())),*]
    };
}

/// The golden file's content without insta's header.
fn golden(snapshot: &str) -> &str {
    let body = snapshot.strip_prefix("---\n").expect("an insta snapshot");
    &body[body.find("---\n").unwrap() + 4..]
}

#[wasm_bindgen_test]
fn the_spec_fixture_gives_the_native_rows() {
    let mut root = MemoryRoot::new("home");
    for (path, bytes) in fixture_files![
        ".copilot/command-history-state.json",
        ".copilot/config.json",
        ".copilot/logs/process-1790845199000-4242.log",
        ".copilot/permissions-config.json",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/checkpoints/index.md",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/events.jsonl",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/rewind-file-snapshots/index.json",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/rewind-file-snapshots/tracking.json",
        ".copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/workspace.yaml",
        ".copilot/session-store.db",
        ".copilot/session-store.db-wal",
        ".copilot/settings.json",
        ".copilot/sidebar-sessions-state/6b9af143446a411aefa3edb76e4693799bd7513e7ed8d919962d6713d3d3b972.json",
    ] {
        root.insert(path, bytes, Some(FIXED_MTIME_MS));
    }
    let mut roots = MemoryRoots(vec![root]);
    let mut rows = JsonlRowWriter::new(Vec::new());
    let outputs =
        analyze(roots.listings(), &mut roots, Options { include_thinking: true, ..Options::default() }, &mut rows)
            .unwrap();
    let rows = String::from_utf8(rows.finish().unwrap()).unwrap();
    assert_eq!(rows, golden(include_str!("golden/spec-sample__rows.jsonl.snap")));
    assert_eq!(outputs.report.totals.secondary_rows_deduplicated, 6);
}
