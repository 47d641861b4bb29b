#!/usr/bin/env bash
# Every test, on a fresh machine too: installs what is missing, then checks the page's JavaScript
# against its types, the import graph, runs the native tests, the
# team exports read back by DuckDB, the WebAssembly build, the core's tests under WebAssembly in Node, each fuzz target briefly,
# the user guide (its links, and every command in it), the page's end-to-end tests in headless
# Chromium (against the native CLI's numbers on the same inputs),
# and the bytes of the page's first load.
set -euo pipefail
# Cold runs: the CLI reads and writes no cache (scripts/bench-cache.sh times the cache).
export COPILOT_LENS_CACHE=off
cd "$(dirname "$0")/.."

scripts/setup.sh

# The page's JavaScript checked against its JSDoc types, the messages between the page and its
# worker (www/messages.d.ts) and the engine's types (www/types.d.ts, generated from
# src/page/protocol.rs): the page's files, then the worker's, which run with a Worker's globals.
node_modules/.bin/tsc -p www/jsconfig.json
node_modules/.bin/tsc -p www/jsconfig.worker.json
# The house rules (issue 50): no import circle, in the library or in the CLI; the page's side
# (src/page/) apart from the core, which never imports it nor names the browser's crates.
python3 scripts/import-graph.py --max 1
cargo test --all-targets
# The team exports of generated people read back by DuckDB (issue 28).
python3 scripts/team-test.py
cargo build --lib --target wasm32-unknown-unknown --no-default-features
# The page's full module: the tests ask for files to save (the first module leaves them out).
cargo test --target wasm32-unknown-unknown --no-default-features --features extras --test wasm
# Each fuzz target briefly (long runs: scripts/fuzz.sh 600).
scripts/fuzz.sh 10

# The page: the native CLI (expected numbers), the release WebAssembly build into www/, the
# single-file build, then the browser tests (screenshots in $SHOTS_DIR, default /tmp/copilot-lens-shots).
cargo build --release
scripts/build-web.sh
scripts/build-single.sh --no-build
# The user guide: built with every link checked, and every command in it run (issue 51).
scripts/build-docs.sh
python3 scripts/check-guide.py --cli target/release/copilot-lens
node tests/e2e/run.mjs
# What a first visit downloads until a first analysis is done (gzipped, as GitHub Pages sends
# it). Issue 15 set 1 MB, issue 51 1.000 MiB, not to be raised: see docs/benchmarks.md.
node scripts/first-load.mjs --budget 1048576
