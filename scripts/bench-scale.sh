#!/usr/bin/env bash
# The scale benchmark (issue 5): on a generated corpus (default 2GB), side by side in one run:
#  1. usage-only: copilot-lens usage against ccusage 20.0.24 (scripts/bench-usage.sh);
#  2. the full analysis natively, on one thread and on every core (MB/s, peak memory);
#  3. the page in headless Chromium on the same corpus as a folder and as a zip, with its
#     timeline (tests/e2e/perf.mjs), against the native CLI.
#   scripts/bench-scale.sh [SIZE]
set -euo pipefail
# Cold runs: the CLI reads and writes no cache (scripts/bench-cache.sh times the cache).
export COPILOT_LENS_CACHE=off
cd "$(dirname "$0")/.."

size="${1:-2GB}"
corpus="bench-corpus/$size"
[ -d "$corpus/.copilot" ] || scripts/gen-corpus.py "$corpus" --size "$size" --seed 1
cargo build --release --quiet

echo "## 1. usage-only, copilot-lens against ccusage"
scripts/bench-usage.sh "$size"

echo
echo "## 2. full analysis (every output file), natively"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for threads in 1 "$(nproc)"; do
  for run in 1 2; do
    ./target/release/copilot-lens analyze "$corpus" --out "$out" --threads "$threads" 2>&1 | tail -n 1 | sed "s/^/threads $threads, run $run: /"
  done
done

echo
echo "## 3. the page in headless Chromium (folder and zip) against the native CLI"
[ -f www/pkg/copilot_lens_bg.wasm ] || scripts/build-web.sh
node tests/e2e/perf.mjs "$corpus" --zip
