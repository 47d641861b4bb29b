#!/usr/bin/env bash
# Full-analysis benchmark: generates a corpus (once) and times `copilot-lens analyze` on it,
# on one thread and on every core.
#   scripts/bench.sh [SIZE]        SIZE of events.jsonl to generate, default 1GB
# Prints the tool's own summary (MB/s of input and peak memory) for three runs of each.
set -euo pipefail
# Cold runs: the CLI reads and writes no cache (scripts/bench-cache.sh times the cache).
export COPILOT_LENS_CACHE=off
cd "$(dirname "$0")/.."

size="${1:-1GB}"
corpus="bench-corpus/$size"
if [ ! -d "$corpus/.copilot" ]; then
  scripts/gen-corpus.py "$corpus" --size "$size" --seed 1
fi
cargo build --release --quiet
echo "corpus: $corpus ($(du -sh "$corpus/.copilot" | cut -f1) on disk); $(nproc) cores"
cat "$corpus"/.copilot/session-state/*/events.jsonl >/dev/null  # warm the page cache
for threads in 1 "$(nproc)"; do
  for run in 1 2 3; do
    echo "threads $threads, run $run:"
    ./target/release/copilot-lens analyze "$corpus" --out "bench-corpus/out-$size" --threads "$threads" 2>&1 | sed 's/^/  /'
  done
done
