#!/usr/bin/env bash
# The many-small-sessions benchmark (issue 11): a zip of SESSIONS sessions of a few lines each
# (scripts/gen-corpus.py --small: events.jsonl, workspace.yaml and checkpoints/index.md each),
# in the page against the CLI (tests/e2e/perf.mjs, which zips the corpus once), then the CLI's
# time and peak memory on one thread and on every core (/usr/bin/time -v).
#   scripts/bench-many.sh [SESSIONS]      default 200000 (about 1 GB of logs, 600,000 files)
set -euo pipefail
# Cold runs: the CLI reads and writes no cache (scripts/bench-cache.sh times the cache).
export COPILOT_LENS_CACHE=off
cd "$(dirname "$0")/.."

sessions="${1:-200000}"
corpus="bench-corpus/small-$sessions"
[ -d "$corpus/.copilot" ] || scripts/gen-corpus.py "$corpus" --sessions "$sessions" --small --seed 1
cargo build --release --quiet
[ -f www/pkg/copilot_lens_bg.wasm ] || scripts/build-web.sh

echo "## the page (the zip picked as a file) against the CLI"
node tests/e2e/perf.mjs "$corpus" --zip-only --native-runs 1 --analysis-only

echo
echo "## the CLI on the zip: wall time and peak memory"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for threads in 1 "$(nproc)"; do
  /usr/bin/time -f "threads $threads: %e s wall, %U s user, %S s system, peak RSS %M KB" \
    ./target/release/copilot-lens analyze "$corpus.zip" --out "$out" --threads "$threads" 2>&1 | tail -n 2
done
